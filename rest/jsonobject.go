package rest

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// objectMembers returns the members of body, a JSON object, as
// json.Unmarshal into a map[string]json.RawMessage would: each value's
// text (a copy, as Unmarshal makes), the last of a repeated key winning.
// ok is false when body is not valid JSON, not an object, or has a key
// written with escapes or not valid UTF-8; the caller then asks
// encoding/json, which says why or decodes the key. It reads the text twice (json.Valid, then one
// walk of the top level), where Unmarshal reads it twice and goes
// through reflection for every member: the body of nearly every write.
func objectMembers(body []byte) (map[string]json.RawMessage, bool) {
	if !json.Valid(body) {
		return nil, false
	}
	i := skipSpace(body, 0)
	if i == len(body) || body[i] != '{' {
		return nil, false
	}
	out := map[string]json.RawMessage{}
	i = skipSpace(body, i+1)
	if body[i] == '}' {
		return out, true
	}
	for {
		// body is valid JSON, so a key string starts here, a colon follows
		// it and a value the colon.
		end := i + 1
		for body[end] != '"' {
			if body[end] == '\\' {
				return nil, false
			}
			end++
		}
		if !utf8.Valid(body[i+1 : end]) {
			return nil, false
		}
		key := string(body[i+1 : end])
		i = skipSpace(body, end+1) // at the colon
		start := skipSpace(body, i+1)
		i = valueEnd(body, start)
		out[key] = bytes.Clone(body[start:i])
		i = skipSpace(body, i)
		if body[i] == '}' {
			return out, true
		}
		i = skipSpace(body, i+1) // past the comma
	}
}

// skipSpace returns the index of the first byte at or after i that is not
// JSON whitespace.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// valueEnd returns the index just past the JSON value that starts at i in
// b, which is valid JSON.
func valueEnd(b []byte, i int) int {
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for ; ; i++ {
			switch b[i] {
			case '"':
				i = stringEnd(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
	default:
		// A number or a literal: it ends at the first byte that cannot be
		// part of one.
		for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' && b[i] != '\t' && b[i] != '\n' && b[i] != '\r' {
			i++
		}
		return i
	}
}

// stringEnd returns the index just past the JSON string that starts at i
// in b, which is valid JSON.
func stringEnd(b []byte, i int) int {
	for i++; ; i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
}
