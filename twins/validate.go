package twins

import (
	"encoding/json"
	"math"
	"slices"
)

// quickSchema answers, for the few JSON Schema keywords the inferred input
// schemas use (type, properties, required, additionalProperties, items,
// and enum of scalar values),
// whether a decoded JSON value certainly satisfies the schema. It is a
// shortcut in front of the full validator, never a replacement: when it
// cannot say yes, the full validator decides and words the error, so a
// call it would refuse gets exactly the refusal it got before. The full
// validator reflects over every value and allocates for each keyword; on a
// small tool call it was about a tenth of the call's cost.
//
// A schema holding any keyword outside that set compiles to nil, which
// never says yes.
type quickSchema struct {
	// any accepts every value (the schema true, or {} with nothing else).
	any bool
	// none refuses every value (the schema false).
	none bool
	// types is a bit set of jsonTypeBit values; 0 means no type keyword.
	types    uint8
	props    map[string]*quickSchema
	required []string
	// extra is additionalProperties: nil allows any other key, else each
	// other key's value must satisfy it (none refuses them all).
	extra *quickSchema
	items *quickSchema
	// enum, when set, lists the scalar values allowed (strings, null, …).
	enum []any
}

const (
	typeNull uint8 = 1 << iota
	typeBoolean
	typeInteger
	typeNumber
	typeString
	typeArray
	typeObject
)

var typeBits = map[string]uint8{
	"null": typeNull, "boolean": typeBoolean, "integer": typeInteger, "number": typeNumber,
	"string": typeString, "array": typeArray, "object": typeObject,
}

// quickKeywords are the keywords compileQuick understands; description and
// title do not constrain a value.
var quickKeywords = map[string]bool{
	"type": true, "properties": true, "required": true, "additionalProperties": true,
	"items": true, "enum": true, "description": true, "title": true,
}

// compileQuick builds the shortcut from a schema's JSON form (so that
// whatever the schema library adds later shows up as an unknown keyword
// rather than being silently ignored). It returns nil when the schema uses
// anything else.
func compileQuick(schemaJSON []byte) *quickSchema {
	var v any
	if err := json.Unmarshal(schemaJSON, &v); err != nil {
		return nil
	}
	return compileQuickValue(v)
}

func compileQuickValue(v any) *quickSchema {
	switch t := v.(type) {
	case bool:
		if t {
			return &quickSchema{any: true}
		}
		return &quickSchema{none: true}
	case map[string]any:
		q := &quickSchema{}
		for k := range t {
			if !quickKeywords[k] {
				return nil
			}
		}
		switch ty := t["type"].(type) {
		case nil:
		case string:
			bit, ok := typeBits[ty]
			if !ok {
				return nil
			}
			q.types = bit
		case []any:
			for _, e := range ty {
				s, _ := e.(string)
				bit, ok := typeBits[s]
				if !ok {
					return nil
				}
				q.types |= bit
			}
		default:
			return nil
		}
		if props, ok := t["properties"]; ok {
			m, ok := props.(map[string]any)
			if !ok {
				return nil
			}
			q.props = make(map[string]*quickSchema, len(m))
			for name, sub := range m {
				c := compileQuickValue(sub)
				if c == nil {
					return nil
				}
				q.props[name] = c
			}
		}
		if req, ok := t["required"]; ok {
			list, ok := req.([]any)
			if !ok {
				return nil
			}
			for _, e := range list {
				s, ok := e.(string)
				if !ok {
					return nil
				}
				q.required = append(q.required, s)
			}
		}
		if extra, ok := t["additionalProperties"]; ok {
			if q.extra = compileQuickValue(extra); q.extra == nil {
				return nil
			}
			if q.extra.any {
				q.extra = nil
			}
		}
		if items, ok := t["items"]; ok {
			if q.items = compileQuickValue(items); q.items == nil {
				return nil
			}
		}
		if e, ok := t["enum"]; ok {
			list, ok := e.([]any)
			if !ok || len(list) == 0 {
				return nil
			}
			for _, v := range list {
				switch v.(type) {
				case nil, bool, string, float64:
				default:
					return nil
				}
			}
			q.enum = list
		}
		q.any = q.types == 0 && q.props == nil && q.required == nil && q.extra == nil && q.items == nil && q.enum == nil
		return q
	}
	return nil
}

// accepts reports whether v, as decoded by encoding/json into an any
// (nil, bool, float64, string, []any, map[string]any), certainly satisfies
// the schema. false means "ask the full validator", not "invalid".
func (q *quickSchema) accepts(v any) bool {
	if q == nil || q.none {
		return false
	}
	if q.any {
		return true
	}
	if q.types != 0 && q.types&typeOf(v) == 0 {
		return false
	}
	if q.enum != nil && !slices.Contains(q.enum, v) {
		return false
	}
	switch t := v.(type) {
	case map[string]any:
		for _, r := range q.required {
			if _, ok := t[r]; !ok {
				return false
			}
		}
		for k, sub := range t {
			if p, ok := q.props[k]; ok {
				if !p.accepts(sub) {
					return false
				}
			} else if q.extra != nil && !q.extra.accepts(sub) {
				return false
			}
		}
	case []any:
		if q.items != nil {
			for _, e := range t {
				if !q.items.accepts(e) {
					return false
				}
			}
		}
	}
	return true
}

// typeOf is the set of schema types v satisfies: an integral number is
// both an integer and a number, as the full validator has it. A value of
// any other Go type satisfies none, so the full validator judges it.
func typeOf(v any) uint8 {
	switch t := v.(type) {
	case nil:
		return typeNull
	case bool:
		return typeBoolean
	case float64:
		if _, frac := math.Modf(t); frac == 0 {
			return typeInteger | typeNumber
		}
		return typeNumber
	case string:
		return typeString
	case []any:
		return typeArray
	case map[string]any:
		return typeObject
	}
	return 0
}
