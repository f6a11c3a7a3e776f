package twins

import (
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
)

// anyJSON lists every JSON type: a schema of these types accepts what the
// schema true accepts (an integer is a number), and says so as an object.
var anyJSON = []string{"null", "boolean", "number", "string", "array", "object"}

// concrete rewrites, in place, every subschema of s that would be sent as
// the bare boolean true (an empty Schema, which jsonschema-go infers for
// json.RawMessage, any and map[string]any values) as a schema naming every
// JSON type. The two accept the same values, so validation is unchanged,
// but MCP clients that require each property schema to be an object (the
// TypeScript SDK from 1.22 on) refuse a whole tools/list over one bare true.
// additionalProperties false, which closes an object, is left as it is:
// every client accepts it there, and the official Go SDK sends it too.
func concrete(s *jsonschema.Schema) {
	seen := map[*jsonschema.Schema]bool{}
	var walk func(*jsonschema.Schema)
	walk = func(c *jsonschema.Schema) {
		if c == nil || seen[c] {
			return
		}
		seen[c] = true
		if isFalse(c) {
			return
		}
		if reflect.ValueOf(*c).IsZero() {
			c.Types = append([]string(nil), anyJSON...)
			return
		}
		v := reflect.ValueOf(c).Elem()
		for i := range v.NumField() {
			f := v.Field(i)
			switch f.Type() {
			case schemaPtr:
				walk(f.Interface().(*jsonschema.Schema))
			case schemaSlice:
				for _, e := range f.Interface().([]*jsonschema.Schema) {
					walk(e)
				}
			case schemaMap:
				for _, e := range f.Interface().(map[string]*jsonschema.Schema) {
					walk(e)
				}
			}
		}
	}
	walk(s)
}

var (
	schemaPtr   = reflect.TypeFor[*jsonschema.Schema]()
	schemaSlice = reflect.TypeFor[[]*jsonschema.Schema]()
	schemaMap   = reflect.TypeFor[map[string]*jsonschema.Schema]()
)

// isFalse reports whether c is the schema false, {"not": {}}.
func isFalse(c *jsonschema.Schema) bool {
	if c.Not == nil || !reflect.ValueOf(*c.Not).IsZero() {
		return false
	}
	rest := *c
	rest.Not = nil
	return reflect.ValueOf(rest).IsZero()
}
