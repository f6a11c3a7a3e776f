package twins

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// DecodeSeed strictly decodes a seed document into v: unknown keys and wrong
// types are SeedErrors naming the JSON path.
func DecodeSeed(raw json.RawMessage, v any) error {
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
	if dec.More() {
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
