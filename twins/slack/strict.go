package slack

import (
	"bytes"
	"encoding/json"
	"reflect"
	"sort"
	"strings"

	"github.com/pomehq/pome/twins"
)

var rawMessageType = reflect.TypeFor[json.RawMessage]()

// checkShape walks a seed document against the Go type it decodes into and
// reports the first unknown key or wrong JSON type with its full JSON
// pointer. encoding/json names only the innermost key of an unknown field,
// and a seed author needs to know which message it was in.
func checkShape(raw json.RawMessage) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil // DecodeSeed reports syntax errors with their offset
	}
	if err := walkShape(v, reflect.TypeFor[Seed](), ""); err != nil {
		return err
	}
	return nil
}

func walkShape(v any, t reflect.Type, path string) *twins.SeedError {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if v == nil || t == rawMessageType || t.Kind() == reflect.Interface {
		return nil
	}
	if t.Implements(shapedType) {
		return reflect.Zero(t).Interface().(shaped).checkShape(v, path)
	}
	switch t.Kind() {
	case reflect.Struct:
		obj, ok := v.(map[string]any)
		if !ok {
			return twins.SeedErrorf(path, "expected an object")
		}
		fields := map[string]reflect.Type{}
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name != "" && name != "-" {
				fields[name] = f.Type
			}
		}
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			ft, ok := fields[k]
			if !ok {
				return twins.SeedErrorf(path+twins.Pointer(k), "unknown key %q", k)
			}
			if err := walkShape(obj[k], ft, path+twins.Pointer(k)); err != nil {
				return err
			}
		}
	case reflect.Slice:
		arr, ok := v.([]any)
		if !ok {
			return twins.SeedErrorf(path, "expected an array")
		}
		for i, e := range arr {
			if err := walkShape(e, t.Elem(), path+twins.Pointer(i)); err != nil {
				return err
			}
		}
	case reflect.Map:
		obj, ok := v.(map[string]any)
		if !ok {
			return twins.SeedErrorf(path, "expected an object")
		}
		for k, e := range obj {
			if err := walkShape(e, t.Elem(), path+twins.Pointer(k)); err != nil {
				return err
			}
		}
	case reflect.String:
		if _, ok := v.(string); !ok {
			return twins.SeedErrorf(path, "expected a string")
		}
	case reflect.Bool:
		if _, ok := v.(bool); !ok {
			return twins.SeedErrorf(path, "expected true or false")
		}
	case reflect.Int, reflect.Int64, reflect.Float64:
		if _, ok := v.(json.Number); !ok {
			return twins.SeedErrorf(path, "expected a number")
		}
	}
	return nil
}
