package all

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/pomehq/pome/twins"
)

// TestQuickValidationDecidesAsTheValidator decodes arguments generated from
// every action's input schema, valid ones and broken ones, with the cheap
// schema check on and off: the decoded input or the error must be the same.
func TestQuickValidationDecidesAsTheValidator(t *testing.T) {
	defer func() { twins.QuickValidation = true }()
	rng := rand.New(rand.NewPCG(1, 2))
	decode := func(a twins.Action, args []byte, quick bool) (any, string) {
		twins.QuickValidation = quick
		in, err := a.Decode(args)
		if err != nil {
			return nil, err.Error()
		}
		return in, ""
	}
	for _, tw := range Registry().All() {
		for _, a := range tw.Actions {
			if !twins.HasQuickValidation(a) {
				t.Errorf("%s: input schema too rich for the quick check; extend quickSchema or accept the cost", a.Name())
				continue
			}
			doc, err := json.Marshal(a.InputSchema())
			if err != nil {
				t.Fatal(err)
			}
			var schema any
			if err := json.Unmarshal(doc, &schema); err != nil {
				t.Fatal(err)
			}
			valid := 0
			for i := range 60 {
				v := generate(rng, schema, 0, i%3 == 0)
				args, err := json.Marshal(v)
				if err != nil {
					t.Fatal(err)
				}
				fastIn, fastErr := decode(a, args, true)
				slowIn, slowErr := decode(a, args, false)
				// Decode names the first wrong argument by name, but with
				// several faults inside one argument (an object, a list of
				// them) the validator's wording may still differ between
				// runs (it walks a map): an error the quick path gave must
				// be one the validator gives on some run.
				for try := 0; fastErr != slowErr && try < 2000; try++ {
					_, slowErr = decode(a, args, false)
				}
				if fastErr != slowErr || !reflect.DeepEqual(fastIn, slowIn) {
					t.Fatalf("%s %s: quick check gives (%v, %q), validator (%v, %q)", a.Name(), args, fastIn, fastErr, slowIn, slowErr)
				}
				if slowErr == "" {
					valid++
				}
			}
			if valid == 0 {
				t.Errorf("%s: no generated arguments were valid; the comparison proves little", a.Name())
			}
		}
	}
}

// generate makes a value for a schema in JSON form: a valid one, or with
// broken set, one that is now and then wrong (a wrong type, a fraction for
// an integer, a value outside an enum, a missing required key, an unknown
// key).
func generate(rng *rand.Rand, schema any, depth int, broken bool) any {
	s, ok := schema.(map[string]any)
	if !ok {
		return nil
	}
	flip := func() bool { return broken && rng.IntN(6) == 0 }
	if flip() {
		return []any{"wrong", 1.5, nil, true, map[string]any{}}[rng.IntN(5)]
	}
	if enum, ok := s["enum"].([]any); ok && len(enum) > 0 {
		if flip() {
			return "outside-the-enum"
		}
		return enum[rng.IntN(len(enum))]
	}
	typ := ""
	switch t := s["type"].(type) {
	case string:
		typ = t
	case []any:
		typ, _ = t[rng.IntN(len(t))].(string)
	}
	if typ == "" {
		if _, ok := s["properties"]; ok {
			typ = "object"
		}
	}
	switch typ {
	case "null":
		return nil
	case "boolean":
		return rng.IntN(2) == 0
	case "integer":
		if flip() {
			return 2.5
		}
		return float64(rng.IntN(100))
	case "number":
		return rng.Float64() * 100
	case "string":
		return fmt.Sprintf("s%d", rng.IntN(1000))
	case "array":
		if depth > 4 {
			return []any{}
		}
		out := []any{}
		for range rng.IntN(3) {
			out = append(out, generate(rng, s["items"], depth+1, broken))
		}
		return out
	case "object":
		out := map[string]any{}
		props, _ := s["properties"].(map[string]any)
		required := map[string]bool{}
		if req, ok := s["required"].([]any); ok {
			for _, r := range req {
				name, _ := r.(string)
				required[name] = true
			}
		}
		for name, sub := range props {
			if depth > 4 && !required[name] {
				continue
			}
			if required[name] || rng.IntN(2) == 0 {
				if required[name] && flip() {
					continue
				}
				out[name] = generate(rng, sub, depth+1, broken)
			}
		}
		if flip() {
			out["unknown_key"] = "x"
		}
		if extra, ok := s["additionalProperties"].(map[string]any); ok && rng.IntN(2) == 0 {
			out["k"] = generate(rng, extra, depth+1, broken)
		}
		return out
	}
	return "untyped"
}

// BenchmarkDecode decodes a typical tool call's arguments with and without
// the quick schema check.
func BenchmarkDecode(b *testing.B) {
	a, ok := Registry().All()[0].Action("add_issue_comment")
	if !ok {
		b.Fatal("no add_issue_comment")
	}
	args := []byte(`{"owner":"acme","repo":"api","issue_number":1,"body":"Looks good to me; merging after CI."}`)
	for _, quick := range []bool{true, false} {
		b.Run(fmt.Sprintf("quick=%v", quick), func(b *testing.B) {
			twins.QuickValidation = quick
			defer func() { twins.QuickValidation = true }()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := a.Decode(args); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
