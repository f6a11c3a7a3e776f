package tape

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"
)

// AppendJSON appends the row's JSON encoding to b: what json.Marshal
// produces, except that the request and response bodies are written as
// they are instead of re-scanned (encoding/json compacts every
// json.RawMessage it writes, which was the largest cost of taping a call),
// so a body sent with spaces keeps them. A body holding a line break is
// compacted, so a row always fits on one line of JSON Lines.
func (r *Row) AppendJSON(b []byte) []byte {
	b, _, _ = r.appendJSON(b, false)
	return b
}

// AppendJSONSplit is AppendJSON leaving out the response body where it
// would be written as it is: the row's encoding is then b[:cut], body and
// b[cut:] (cut indexes the returned b), and body is r.Response.Body itself,
// not a copy. A caller that keeps rows can keep the body shared with
// whatever else holds it (an answer served again and again) instead of
// copying it into every row. Where the body is rewritten (compacted, or
// made valid UTF-8), or there is none, body is nil and b holds the whole
// row.
func (r *Row) AppendJSONSplit(b []byte) (out, body []byte, cut int) {
	return r.appendJSON(b, true)
}

func (r *Row) appendJSON(b []byte, split bool) (out, body []byte, cut int) {
	b = append(b, `{"seq":`...)
	b = strconv.AppendInt(b, r.Seq, 10)
	b = append(b, `,"at":`...)
	b = appendTime(b, r.At)
	b = appendField(b, "session_id", r.SessionID)
	b = appendField(b, "twin", r.Twin)
	b = appendField(b, "transport", r.Transport)
	b = appendField(b, "method", r.Method)
	b = appendField(b, "path", r.Path)
	b = append(b, `,"tool":`...)
	if r.Tool == nil {
		b = append(b, "null"...)
	} else {
		b = appendString(b, *r.Tool)
	}
	if r.MCPMethod != "" {
		b = appendField(b, "mcp_method", r.MCPMethod)
	}
	b = append(b, `,"status":`...)
	b = strconv.AppendInt(b, int64(r.Status), 10)
	b = append(b, `,"state_mutation":`...)
	b = strconv.AppendBool(b, r.StateMutation)
	b = append(b, `,"request":{"query":`...)
	b = appendMap(b, r.Request.Query)
	if len(r.Request.Body) > 0 {
		b = append(b, `,"body":`...)
		b = appendRaw(b, r.Request.Body)
	}
	b = append(b, `,"headers":`...)
	b = appendMap(b, r.Request.Headers)
	b = append(b, `},"response":{`...)
	if len(r.Response.Body) > 0 {
		b = append(b, `"body":`...)
		if split && verbatim(r.Response.Body) {
			body, cut = r.Response.Body, len(b)
		} else {
			b = appendRaw(b, r.Response.Body)
		}
	}
	b = append(b, `},"latency_us":`...)
	b = strconv.AppendInt(b, r.LatencyUS, 10)
	if len(r.StateDelta) > 0 {
		b = append(b, `,"state_delta":`...)
		b = appendRaw(b, r.StateDelta)
	}
	return append(b, '}'), body, cut
}

// verbatim tells whether appendRaw writes raw as it is.
func verbatim(raw []byte) bool {
	return bytes.IndexByte(raw, '\n') < 0 && bytes.IndexByte(raw, '\r') < 0 && utf8.Valid(raw)
}

func appendField(b []byte, name, v string) []byte {
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	return appendString(b, v)
}

func appendTime(b []byte, t time.Time) []byte {
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b, '"')
}

func appendMap(b []byte, m map[string]string) []byte {
	if m == nil {
		return append(b, "null"...)
	}
	return appendObject(b, m, func(b []byte, _ string, v string) []byte { return appendString(b, v) })
}

// appendObject writes m as a JSON object in key order, each value by
// value.
func appendObject[V any](b []byte, m map[string]V, value func(b []byte, k string, v V) []byte) []byte {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, k)
		b = append(b, ':')
		b = value(b, k, m[k])
	}
	return append(b, '}')
}

// appendRaw writes a body that is already JSON; only one holding a newline
// (pretty-printed) is compacted. Invalid UTF-8 bytes, which encoding/json
// lets through inside strings, become U+FFFD: a row is always UTF-8.
func appendRaw(b []byte, raw json.RawMessage) []byte {
	raw = ValidUTF8(raw)
	if bytes.IndexByte(raw, '\n') < 0 && bytes.IndexByte(raw, '\r') < 0 {
		return append(b, raw...)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return appendString(b, string(raw))
	}
	return append(b, buf.Bytes()...)
}

const hexDigits = "0123456789abcdef"

// appendString quotes s exactly as encoding/json does: HTML-safe escapes,
// U+2028/U+2029 escaped, invalid UTF-8 replaced by U+FFFD.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// FormJSON is a form body as the tape shows it: a JSON object of its
// fields in key order, one value as a string, several as a list, and
// credential fields (IsSecretField) redacted. It writes the JSON itself:
// a map of generic values through encoding/json cost a Stripe create a
// twentieth of its CPU.
func FormJSON(form map[string][]string) json.RawMessage {
	size := 2
	for k, vs := range form {
		size += len(k) + 4
		for _, v := range vs {
			size += len(v) + 3
		}
	}
	return appendObject(make([]byte, 0, size), form, func(b []byte, k string, vs []string) []byte {
		switch {
		case IsSecretField(k):
			return appendString(b, Redacted)
		case len(vs) == 1:
			return appendString(b, vs[0])
		case vs == nil:
			return append(b, "null"...)
		}
		b = append(b, '[')
		for j, v := range vs {
			if j > 0 {
				b = append(b, ',')
			}
			b = appendString(b, v)
		}
		return append(b, ']')
	})
}
