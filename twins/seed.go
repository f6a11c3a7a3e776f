package twins

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sort"
	"strings"
	"time"
)

// DecodeSeed strictly decodes a seed document into v: unknown keys and wrong
// types are SeedErrors naming the full JSON pointer (encoding/json alone
// names only the innermost key, and a seed author needs to know which
// element of which list it was in).
func DecodeSeed(raw json.RawMessage, v any) error {
	var generic any
	gdec := json.NewDecoder(bytes.NewReader(raw))
	gdec.UseNumber()
	if err := gdec.Decode(&generic); err == nil {
		if t := reflect.TypeOf(v); t != nil && t.Kind() == reflect.Pointer {
			if err := walkShape(generic, t.Elem(), ""); err != nil {
				return err
			}
		}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			path := "/" + strings.ReplaceAll(te.Field, ".", "/")
			return SeedErrorf(path, "expected %s, got %s", te.Type.String(), te.Value)
		}
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return SeedErrorf("", "invalid JSON at byte %d: %v", se.Offset, err)
		}
		msg := err.Error()
		if strings.HasPrefix(msg, "json: unknown field ") {
			field := strings.Trim(strings.TrimPrefix(msg, "json: unknown field "), `"`)
			return SeedErrorf("/"+field, "unknown key %q", field)
		}
		return SeedErrorf("", "%v", err)
	}
	// More() reports false before a stray '}' or ']'; only the end of
	// input is clean.
	if _, err := dec.Token(); err != io.EOF {
		return SeedErrorf("", "trailing data after the seed document")
	}
	return nil
}

// Pointer joins JSON pointer segments, escaping as RFC 6901 says.
func Pointer(segs ...any) string {
	var b strings.Builder
	for _, s := range segs {
		b.WriteByte('/')
		str := fmt.Sprint(s)
		str = strings.ReplaceAll(str, "~", "~0")
		str = strings.ReplaceAll(str, "/", "~1")
		b.WriteString(str)
	}
	return b.String()
}

var (
	rawMessageType  = reflect.TypeFor[json.RawMessage]()
	unmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	timeType        = reflect.TypeFor[time.Time]()
)

// walkShape checks a decoded JSON value against the Go type it will be
// decoded into, reporting the first unknown key or wrong JSON type.
func walkShape(v any, t reflect.Type, path string) *SeedError {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if v == nil || t == rawMessageType || t.Kind() == reflect.Interface {
		return nil
	}
	if t == timeType {
		if _, ok := v.(string); !ok {
			return SeedErrorf(path, "expected an RFC 3339 timestamp string")
		}
		return nil
	}
	if t.Implements(unmarshalerType) || reflect.PointerTo(t).Implements(unmarshalerType) {
		return nil // the type decodes itself; encoding/json reports its errors
	}
	switch t.Kind() {
	case reflect.Struct:
		obj, ok := v.(map[string]any)
		if !ok {
			return SeedErrorf(path, "expected an object")
		}
		fields := map[string]reflect.Type{}
		collectFields(t, fields)
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			ft, ok := fields[k]
			if !ok {
				return SeedErrorf(path+Pointer(k), "unknown key %q", k)
			}
			if err := walkShape(obj[k], ft, path+Pointer(k)); err != nil {
				return err
			}
		}
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return nil // []byte is base64 text
		}
		arr, ok := v.([]any)
		if !ok {
			return SeedErrorf(path, "expected an array")
		}
		for i, e := range arr {
			if err := walkShape(e, t.Elem(), path+Pointer(i)); err != nil {
				return err
			}
		}
	case reflect.Map:
		obj, ok := v.(map[string]any)
		if !ok {
			return SeedErrorf(path, "expected an object")
		}
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if err := walkShape(obj[k], t.Elem(), path+Pointer(k)); err != nil {
				return err
			}
		}
	case reflect.String:
		if _, ok := v.(string); !ok {
			return SeedErrorf(path, "expected a string")
		}
	case reflect.Bool:
		if _, ok := v.(bool); !ok {
			return SeedErrorf(path, "expected true or false")
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, ok := v.(json.Number)
		if !ok {
			return SeedErrorf(path, "expected an integer")
		}
		if _, err := n.Int64(); err != nil {
			return SeedErrorf(path, "expected an integer, got %s", n)
		}
	case reflect.Float32, reflect.Float64:
		if _, ok := v.(json.Number); !ok {
			return SeedErrorf(path, "expected a number")
		}
	}
	return nil
}

// collectFields maps JSON names to field types, including the fields of
// embedded structs, as encoding/json does.
func collectFields(t reflect.Type, out map[string]reflect.Type) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		if name == "-" {
			continue
		}
		if f.Anonymous && name == "" {
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				collectFields(ft, out)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
}
