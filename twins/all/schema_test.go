package all

import (
	"encoding/json"
	"fmt"
	"testing"
)

// TestNoBareTrueSchemas walks every tool schema of every twin, as sent on
// the wire, and fails on a bare boolean schema wherever a schema may stand
// (properties, items, additionalProperties, anyOf, $defs, …). Clients such
// as the TypeScript MCP SDK (1.22 on) refuse a whole tools/list over one.
// The one boolean allowed is additionalProperties false, the closed-object
// marker every MCP SDK accepts (the official Go SDK infers it for every
// struct).
func TestNoBareTrueSchemas(t *testing.T) {
	for _, tw := range Registry().All() {
		for _, a := range tw.Actions {
			for kind, s := range map[string]any{"input": a.InputSchema(), "output": a.OutputSchema()} {
				raw, err := json.Marshal(s)
				if err != nil {
					t.Fatalf("%s.%s %s: %v", tw.Name, a.Name(), kind, err)
				}
				var doc any
				if err := json.Unmarshal(raw, &doc); err != nil {
					t.Fatal(err)
				}
				if doc == nil {
					continue
				}
				for _, p := range bareBooleans(doc, "") {
					t.Errorf("%s.%s %s schema: bare boolean at %s", tw.Name, a.Name(), kind, p)
				}
			}
		}
	}
}

// bareBooleans returns the JSON pointers of the boolean schemas in v.
func bareBooleans(v any, at string) []string {
	if b, ok := v.(bool); ok {
		return []string{fmt.Sprintf("%s (%v)", orRoot(at), b)}
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	var out []string
	for k, sub := range m {
		switch k {
		case "properties", "patternProperties", "$defs", "definitions", "dependentSchemas":
			if mm, ok := sub.(map[string]any); ok {
				for name, s := range mm {
					out = append(out, bareBooleans(s, at+"/"+k+"/"+name)...)
				}
			}
		case "anyOf", "oneOf", "allOf", "prefixItems":
			if list, ok := sub.([]any); ok {
				for i, s := range list {
					out = append(out, bareBooleans(s, fmt.Sprintf("%s/%s/%d", at, k, i))...)
				}
			}
		case "additionalProperties":
			if b, ok := sub.(bool); ok && !b {
				continue
			}
			out = append(out, bareBooleans(sub, at+"/"+k)...)
		case "items", "not", "contains", "propertyNames", "if", "then", "else",
			"unevaluatedProperties", "unevaluatedItems", "additionalItems":
			if list, ok := sub.([]any); ok {
				for i, s := range list {
					out = append(out, bareBooleans(s, fmt.Sprintf("%s/%s/%d", at, k, i))...)
				}
				continue
			}
			out = append(out, bareBooleans(sub, at+"/"+k)...)
		}
	}
	return out
}

func orRoot(p string) string {
	if p == "" {
		return "/"
	}
	return p
}

// TestOutputSchemasEncoded: every output schema is kept encoded (see
// twins.Action.OutputSchema) and must be what MCP clients take for one: a
// JSON object schema of type object. It logs what they take in all.
func TestOutputSchemasEncoded(t *testing.T) {
	total, n := 0, 0
	for _, tw := range Registry().All() {
		for _, a := range tw.Actions {
			out := a.OutputSchema()
			if out == nil {
				continue
			}
			var doc map[string]any
			if err := json.Unmarshal(out, &doc); err != nil {
				t.Errorf("%s.%s output schema: %v", tw.Name, a.Name(), err)
				continue
			}
			if doc["type"] != "object" {
				t.Errorf("%s.%s output schema has type %v, want object", tw.Name, a.Name(), doc["type"])
			}
			total += len(out)
			n++
		}
	}
	if n == 0 {
		t.Fatal("no output schema in any twin")
	}
	t.Logf("%d output schemas, %d bytes encoded", n, total)
}
