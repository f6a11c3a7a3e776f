package twins

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

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

// EnumTag is the struct tag that closes a string parameter to a set of
// values: `enum:"open,closed,all"`. The input schema then carries the set as
// a JSON Schema enum (on the items, for a list of strings), and Decode
// refuses any other value with the same validation error as a wrong type,
// over every transport: the schema an MCP client reads and the check a call
// meets are one and the same.
const EnumTag = "enum"

// enums copies the enum tags of struct type t (and of the structs it holds,
// by value, pointer or list) onto the properties of s, the schema inferred
// for t. It returns an error for a tag on a field that is not a string or a
// list of strings, or a tag with an empty value, so that a typo fails when
// the action is defined rather than silently allowing everything.
func enums(s *jsonschema.Schema, t reflect.Type) error {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
		t = t.Elem()
		if s != nil && s.Items != nil {
			s = s.Items
		}
	}
	if t.Kind() != reflect.Struct || s == nil {
		return nil
	}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() && !f.Anonymous {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if f.Anonymous && name == "" {
			// jsonschema-go, like encoding/json, lifts an embedded
			// struct's fields into the outer object.
			if err := enums(s, f.Type); err != nil {
				return err
			}
			continue
		}
		if name == "" {
			name = f.Name
		}
		p := s.Properties[name]
		if p == nil {
			continue
		}
		tag, tagged := f.Tag.Lookup(EnumTag)
		if !tagged {
			if err := enums(p, f.Type); err != nil {
				return err
			}
			continue
		}
		target, ft := p, f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if ft.Kind() == reflect.Slice {
			target, ft = p.Items, ft.Elem()
		}
		if ft.Kind() != reflect.String || target == nil {
			return fmt.Errorf("field %s: enum tag on %s, not a string or a list of strings", f.Name, f.Type)
		}
		var values []any
		for v := range strings.SplitSeq(tag, ",") {
			if v = strings.TrimSpace(v); v == "" {
				return fmt.Errorf("field %s: empty value in enum tag %q", f.Name, tag)
			}
			values = append(values, v)
		}
		// A pointer field also takes null (its schema says so); the enum
		// must not take that away.
		if slices.Contains(target.Types, "null") {
			values = append(values, nil)
		}
		target.Enum = values
	}
	return nil
}
