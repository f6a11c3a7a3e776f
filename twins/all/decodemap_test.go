package all

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/pomehq/pome/twins"
)

// TestDecodeMapDecodesAsDecode gives every action of every twin argument
// maps, generated from its input schema and then bent (wrong types, nulls,
// nested objects, unknown and case-folded keys, big and oddly spelled
// numbers, unicode, values given as JSON text), and requires DecodeMap to
// answer exactly what Decode answers for the map's JSON: the same typed
// input, or the same refusal.
func TestDecodeMapDecodesAsDecode(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	total, accepted := 0, 0
	for _, tw := range Registry().All() {
		for _, a := range tw.Actions {
			doc, err := json.Marshal(a.InputSchema())
			if err != nil {
				t.Fatal(err)
			}
			var schema map[string]any
			if err := json.Unmarshal(doc, &schema); err != nil {
				t.Fatal(err)
			}
			for _, args := range argVariants(rng, schema) {
				total++
				if compareDecodes(t, a, args) {
					accepted++
				}
			}
		}
	}
	// The comparison proves little unless both answers occur often.
	if accepted < total/10 || accepted > total*9/10 {
		t.Errorf("%d of %d argument maps accepted; the variants are lopsided", accepted, total)
	}
}

// compareDecodes decodes args both ways and reports whether they were
// accepted.
func compareDecodes(t *testing.T, a twins.Action, args map[string]any) bool {
	t.Helper()
	text, err := json.Marshal(args)
	if err != nil {
		t.Fatalf("%s: %v", a.Name(), err)
	}
	got, gotErr := a.DecodeMap(copyArgs(args))
	want, wantErr := a.Decode(text)
	// With several faults inside one argument the validator's wording can
	// change from run to run (it walks a map); an answer DecodeMap gave
	// must be one Decode gives on some run.
	for try := 0; gotErr != nil && wantErr != nil && errorKey(gotErr) != errorKey(wantErr) && try < 2000; try++ {
		_, wantErr = a.Decode(text)
	}
	switch {
	case (gotErr == nil) != (wantErr == nil):
		t.Fatalf("%s %s:\nDecodeMap (%#v, %v)\nDecode    (%#v, %v)", a.Name(), text, got, gotErr, want, wantErr)
	case gotErr != nil:
		if errorKey(gotErr) != errorKey(wantErr) {
			t.Fatalf("%s %s:\nDecodeMap refuses %s\nDecode    refuses %s", a.Name(), text, errorKey(gotErr), errorKey(wantErr))
		}
	case !reflect.DeepEqual(got, want):
		t.Fatalf("%s %s:\nDecodeMap %#v\nDecode    %#v", a.Name(), text, got, want)
	}
	return gotErr == nil
}

// errorKey is what a refusal shows a client: code, vendor code, message
// and field.
func errorKey(err error) string {
	e := twins.AsError(err)
	return fmt.Sprintf("%s|%s|%s|%s", e.Code, e.Vendor, e.Message, e.Field)
}

// copyArgs copies an argument map deeply (DecodeMap may change it),
// keeping values given as JSON text as they are.
func copyArgs(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = copyValue(v)
	}
	return out
}

func copyValue(v any) any {
	switch t := v.(type) {
	case map[string]any:
		return copyArgs(t)
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = copyValue(e)
		}
		return out
	}
	return v
}

// oddValues are values put in place of an argument: each wrong for some
// field type, awkward for an integer, or unusual text.
var oddValues = []any{
	nil, "", "x", "Ünïcødé ✓ 日本語 \u2028 <b>&amp;</b>", true, false,
	0.0, -1.0, 1.5, 42.0, 1e20, 1e21, 9007199254740993.0, -9.3e18, 1.8446744073709552e19, 1e-7,
	[]any{}, []any{"a", "b"}, []any{1.0, "two", nil}, []any{map[string]any{"a": "b"}},
	map[string]any{}, map[string]any{"a": "b", "n": 1.0}, map[string]any{"nested": map[string]any{"deep": []any{"x"}}},
}

// oddTexts are values given as JSON text, as a JSON body's values are:
// number spellings encoding/json reads differently into an integer,
// repeated keys, spacing and key order a raw field keeps.
var oddTexts = []string{
	`1.0`, `1e2`, `-0`, `9007199254740993`, `18446744073709551615`, `-9223372036854775809`, `3`,
	` [ "a" , "b" ] `, `[1, 2.0, 3e0]`, `null`, `true`, `"\u00e9\u2028<>&"`, `"plain"`,
	`{"a":"1","a":"2"}`, `{"b":1,"a":{"y":2,"x":1}}`, `{"line1":"x","line1":"y","city":"z"}`,
	`{"Name":"upper","name":"lower"}`, `[{"name":"a"},{"NAME":"b","name":"c"}]`,
}

// argVariants returns argument maps for an input schema: generated valid
// and broken ones, and for each property the odd values and texts, a
// case-folded spelling of its name, and a sibling unknown key.
func argVariants(rng *rand.Rand, schema map[string]any) []map[string]any {
	var out []map[string]any
	base := func() map[string]any {
		m, _ := generate(rng, schema, 0, false).(map[string]any)
		if m == nil {
			m = map[string]any{}
		}
		return m
	}
	for i := range 8 {
		m, _ := generate(rng, schema, 0, i%2 == 1).(map[string]any)
		if m != nil {
			out = append(out, m)
		}
	}
	props, _ := schema["properties"].(map[string]any)
	names := make([]string, 0, len(props))
	for name := range props {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		for _, v := range oddValues {
			m := base()
			m[name] = copyValue(v)
			out = append(out, m)
		}
		for _, text := range oddTexts {
			m := base()
			m[name] = json.RawMessage(text)
			out = append(out, m)
		}
		// The generated value, as text with spacing.
		m := base()
		if v, ok := m[name]; ok {
			text, _ := json.MarshalIndent(v, "", "  ")
			m[name] = json.RawMessage(text)
			out = append(out, m)
		}
		// A case-folded key, alone and beside the exact one.
		m = base()
		if v, ok := m[name]; ok {
			delete(m, name)
			m[strings.ToUpper(name)] = v
			out = append(out, m)
			m = base()
			m[strings.ToUpper(name)] = copyValue(m[name])
			out = append(out, m)
		}
		m = base()
		m[name+"_unknown"] = "extra"
		out = append(out, m)
	}
	return out
}

// BenchmarkDecodeMap decodes a typical tool call's arguments held as a
// map, next to BenchmarkDecode's JSON.
func BenchmarkDecodeMap(b *testing.B) {
	a, ok := Registry().All()[0].Action("add_issue_comment")
	if !ok {
		b.Fatal("no add_issue_comment")
	}
	b.ReportAllocs()
	for b.Loop() {
		args := map[string]any{"owner": "acme", "repo": "api", "issue_number": 1.0, "body": "Looks good to me; merging after CI."}
		if _, err := a.DecodeMap(args); err != nil {
			b.Fatal(err)
		}
	}
}
