package twins

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

func TestQuickSchemaKeywords(t *testing.T) {
	schema := `{"type":"object","required":["n"],"additionalProperties":false,"properties":{
		"n":{"type":"integer","description":"a count"},
		"x":{"type":"number"},
		"s":{"type":["null","string"]},
		"l":{"type":"array","items":{"type":"string"}},
		"m":{"type":"object","additionalProperties":{"type":"boolean"}},
		"e":{"type":["null","string"],"enum":["up","down",null]},
		"el":{"type":"array","items":{"type":"string","enum":["a"]}},
		"any":{}}}`
	q := compileQuick([]byte(schema))
	if q == nil {
		t.Fatal("schema not compiled")
	}
	for _, c := range []struct {
		args string
		want bool
	}{
		{`{"n":1}`, true},
		{`{"n":1.0}`, true},
		{`{"n":1.5}`, false},
		{`{"n":"1"}`, false},
		{`{}`, false},
		{`{"n":1,"extra":1}`, false},
		{`{"n":1,"x":2}`, true},
		{`{"n":1,"x":2.5}`, true},
		{`{"n":1,"x":"2"}`, false},
		{`{"n":1,"s":null}`, true},
		{`{"n":1,"s":"a"}`, true},
		{`{"n":1,"s":1}`, false},
		{`{"n":1,"l":["a","b"]}`, true},
		{`{"n":1,"l":["a",2]}`, false},
		{`{"n":1,"l":"a"}`, false},
		{`{"n":1,"m":{"a":true}}`, true},
		{`{"n":1,"m":{"a":1}}`, false},
		{`{"n":1,"any":[{"z":null}]}`, true},
		{`{"n":1,"e":"up"}`, true},
		{`{"n":1,"e":null}`, true},
		{`{"n":1,"e":"UP"}`, false},
		{`{"n":1,"e":""}`, false},
		{`{"n":1,"el":["a","a"]}`, true},
		{`{"n":1,"el":["a","b"]}`, false},
		{`[]`, false},
	} {
		var v any
		if err := json.Unmarshal([]byte(c.args), &v); err != nil {
			t.Fatal(err)
		}
		if got := q.accepts(v); got != c.want {
			t.Errorf("%s: accepts %v, want %v", c.args, got, c.want)
		}
		// Whatever the shortcut accepts, the full validator must accept.
		var s jsonschema.Schema
		if err := json.Unmarshal([]byte(schema), &s); err != nil {
			t.Fatal(err)
		}
		rs, err := s.Resolve(nil)
		if err != nil {
			t.Fatal(err)
		}
		if full := rs.Validate(v); (full == nil) != c.want {
			t.Errorf("%s: full validator says %v, the table says valid=%v", c.args, full, c.want)
		}
	}
}

func TestQuickSchemaRefusesUnknownKeywords(t *testing.T) {
	for _, schema := range []string{
		`{"type":"string","enum":[["a"]]}`,
		`{"type":"string","enum":[]}`,
		`{"type":"string","enum":"a"}`,
		`{"type":"object","properties":{"a":{"type":"integer","minimum":1}}}`,
		`{"type":"array","items":{"pattern":"^a"}}`,
		`{"$ref":"#/$defs/x","$defs":{"x":{}}}`,
		`{"type":"object","additionalProperties":{"const":1}}`,
		`{"type":"decimal"}`,
		`{"type":[1]}`,
		`{"required":"a"}`,
		`not json`,
	} {
		if q := compileQuick([]byte(schema)); q != nil {
			t.Errorf("%s compiled; it must be left to the full validator", schema)
		}
	}
	if q := compileQuick([]byte(`false`)); q == nil || q.accepts(nil) {
		t.Error("the schema false must compile and accept nothing")
	}
	var nilQuick *quickSchema
	if nilQuick.accepts(map[string]any{}) {
		t.Error("a nil shortcut must never accept")
	}
}

// Values json.Unmarshal never produces are the full validator's to judge.
func TestQuickSchemaLeavesOtherGoTypesToTheValidator(t *testing.T) {
	q := compileQuick([]byte(`{"type":"integer"}`))
	for _, v := range []any{int64(1), json.Number("1"), []string{"a"}} {
		if q.accepts(v) {
			t.Errorf("accepted %T", v)
		}
	}
}

// TestSeveralWrongArgumentsGetOneAnswer: the validator walks properties in
// map order, so with several wrong arguments it names a different one from
// run to run. Decode must answer the same call the same way every time,
// naming the first wrong argument by name, and still report a missing
// required one when nothing present is wrong.
func TestSeveralWrongArgumentsGetOneAnswer(t *testing.T) {
	type in struct {
		Title string `json:"title"`
		Body  string `json:"body"`
		N     int    `json:"n,omitempty"`
	}
	a := New(Spec{Name: "x", Effect: Read}, func(ctx context.Context, w *struct{}, i in) (struct{}, error) { return struct{}{}, nil })
	for _, quick := range []bool{true, false} {
		QuickValidation = quick
		for _, c := range []struct{ args, field, text string }{
			{`{"title":5,"body":true,"n":"x"}`, "body", `"boolean", want "string"`},
			{`{"title":5,"n":"x","extra":1}`, "n", `"string", want "integer"`},
			{`{"n":"x"}`, "n", `want "integer"`},
			{`{"n":2,"extra":1}`, "title", `missing properties`},
		} {
			var first string
			for i := range 100 {
				_, err := a.Decode(json.RawMessage(c.args))
				var te *Error
				if !errors.As(err, &te) {
					t.Fatalf("%s: got %v, want a twins error", c.args, err)
				}
				if i == 0 {
					first = te.Error()
					if te.Field != c.field || !strings.Contains(first, c.text) {
						t.Fatalf("%s: field %q, %q; want field %q and %q", c.args, te.Field, first, c.field, c.text)
					}
				} else if te.Error() != first {
					t.Fatalf("%s: answered %q, then %q", c.args, first, te.Error())
				}
			}
		}
	}
	QuickValidation = true
}
