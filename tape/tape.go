// Package tape defines the rows a twin records for every call it serves, and
// the redaction and truncation applied before a row is stored anywhere.
package tape

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"
	"unicode/utf8"
	"unsafe"
)

// Transports a row can come from.
const (
	TransportREST = "rest"
	TransportMCP  = "mcp"
)

// MaxBodyBytes is the largest request or response body kept verbatim on a
// row; larger bodies are replaced by a truncation marker.
const MaxBodyBytes = 64 << 10

// Redacted replaces every secret before a row is stored.
const Redacted = "[REDACTED]"

// Row is one call served by one twin of one sandbox (SPEC §6).
type Row struct {
	Seq           int64     `json:"seq"`
	At            time.Time `json:"at"`
	SessionID     string    `json:"session_id"`
	Twin          string    `json:"twin"`
	Transport     string    `json:"transport"`
	Method        string    `json:"method"`
	Path          string    `json:"path"`
	Tool          *string   `json:"tool"`
	MCPMethod     string    `json:"mcp_method,omitempty"`
	Status        int       `json:"status"`
	StateMutation bool      `json:"state_mutation"`
	Request       Request   `json:"request"`
	Response      Response  `json:"response"`
	LatencyUS     int64     `json:"latency_us"`
	// StateDelta lists what the call changed in the twin's state (the
	// twins.Change list of a diff of the world before and after it);
	// absent when nothing changed.
	StateDelta json.RawMessage `json:"state_delta,omitempty"`
}

// Request is the recorded, redacted request.
type Request struct {
	Query   map[string]string `json:"query"`
	Body    json.RawMessage   `json:"body,omitempty"`
	Headers map[string]string `json:"headers"`
}

// Response is the recorded response body.
type Response struct {
	Body json.RawMessage `json:"body,omitempty"`
}

// ToolName returns the row's tool, or "" for rows with tool null.
func (r *Row) ToolName() string {
	if r.Tool == nil {
		return ""
	}
	return *r.Tool
}

// secretHeaders are never stored.
var secretHeaders = map[string]bool{
	"authorization":       true,
	"proxy-authorization": true,
	"cookie":              true,
	"set-cookie":          true,
	"x-api-key":           true,
}

// secretFields are body and query fields whose values are credentials.
var secretFields = map[string]bool{
	"token":         true,
	"access_token":  true,
	"refresh_token": true,
	"auth_token":    true,
	"client_secret": true,
	"api_key":       true,
	"password":      true,
}

// IsSecretField reports whether a body or query field holds a credential.
func IsSecretField(name string) bool { return secretFields[strings.ToLower(name)] }

// RedactHeaders returns the headers as a flat lower-case map with secrets
// replaced.
func RedactHeaders(h map[string][]string) map[string]string {
	out := make(map[string]string, len(h))
	for k, vs := range h {
		lk, ok := lowerHeaders[k]
		if !ok {
			lk = strings.ToLower(k)
		}
		if secretHeaders[lk] {
			out[lk] = Redacted
			continue
		}
		if len(vs) == 1 {
			out[lk] = vs[0]
		} else {
			out[lk] = strings.Join(vs, ", ")
		}
	}
	return out
}

// lowerHeaders are the lower-case forms of the header names clients send
// on nearly every call (as net/http canonicalises them), so taping them
// does not allocate a lower-case copy each time.
var lowerHeaders = func() map[string]string {
	m := map[string]string{}
	for _, k := range []string{
		"Accept", "Accept-Encoding", "Accept-Language", "Authorization", "Connection", "Content-Length",
		"Content-Type", "Cookie", "Host", "Mcp-Protocol-Version", "Mcp-Session-Id", "User-Agent",
		"X-Github-Api-Version", "Stripe-Version", "Idempotency-Key", "X-Request-Id",
	} {
		m[k] = strings.ToLower(k)
	}
	return m
}()

// RedactQuery flattens query values (repeated values joined with ",") and
// hides credential fields.
func RedactQuery(q map[string][]string) map[string]string {
	out := make(map[string]string, len(q))
	for k, vs := range q {
		if IsSecretField(k) {
			out[k] = Redacted
			continue
		}
		out[k] = strings.Join(vs, ",")
	}
	return out
}

// RedactJSON walks a JSON document and replaces credential fields at any
// depth. Non-JSON input is returned as a JSON string. The result is always
// valid UTF-8: invalid bytes become U+FFFD.
func RedactJSON(body []byte) json.RawMessage {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	// Most bodies name no credential field: keep them as sent, without a
	// decode and re-encode on every taped call. json.Valid accepts
	// invalid UTF-8 inside strings, so the bytes are checked too.
	if !mentionsSecretField(body) && json.Valid(body) {
		return ValidUTF8(bytes.TrimSpace(body))
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		s, _ := json.Marshal(string(body))
		return s
	}
	v = redactValue(v)
	out, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return out
}

// mentionsSecretField reports whether a JSON text may hold a credential
// field: any quoted key ending like one of secretFields, case-insensitively.
func mentionsSecretField(body []byte) bool {
	lower := bytes.ToLower(body)
	for f := range secretFields {
		if bytes.Contains(lower, []byte(f+`"`)) {
			return true
		}
	}
	return false
}

// RedactValue replaces credential fields in an already decoded value.
func RedactValue(v any) any { return redactValue(v) }

func redactValue(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, vv := range t {
			if IsSecretField(k) {
				t[k] = Redacted
				continue
			}
			t[k] = redactValue(vv)
		}
	case []any:
		for i := range t {
			t[i] = redactValue(t[i])
		}
	}
	return v
}

// ValidUTF8 returns raw with every invalid UTF-8 byte replaced by U+FFFD
// (raw itself when it is valid). encoding/json reads such bytes inside
// strings without complaint, and there they are the only place a valid
// document can hold them, so a JSON document stays one.
func ValidUTF8(raw []byte) json.RawMessage {
	if utf8.Valid(raw) {
		return raw
	}
	return bytes.ToValidUTF8(raw, []byte("\uFFFD"))
}

// Scrub replaces every occurrence of each secret in raw with the redaction
// marker; it catches credentials sent in places no field name announces.
// A secret that spans JSON syntax (a quote, a comma) or cuts a UTF-8
// sequence would break the document if replaced byte for byte, and one
// written with \u escapes is not found byte for byte: then the secret is
// replaced inside each decoded string instead.
func Scrub(raw json.RawMessage, secrets ...string) json.RawMessage {
	orig, replaced, any8 := raw, false, false
	for _, s := range secrets {
		if len(s) < 8 {
			continue
		}
		any8 = true
		if containsString(raw, s) {
			raw = bytes.ReplaceAll(raw, []byte(s), []byte(Redacted))
			replaced = true
		}
	}
	if replaced && !(utf8.Valid(raw) && json.Valid(raw)) {
		return scrubDecoded(orig, raw, secrets)
	}
	if any8 && bytes.Contains(raw, []byte(`\u`)) {
		return scrubDecoded(raw, raw, secrets)
	}
	return raw
}

// containsString reports whether s is within b, without the copy of s
// that bytes.Contains(b, []byte(s)) makes of a secret longer than 32 bytes
// (every taped row is scrubbed for the caller's token).
func containsString(b []byte, s string) bool {
	return strings.Contains(unsafe.String(unsafe.SliceData(b), len(b)), s)
}

// scrubDecoded decodes doc and replaces the secrets in its strings; it
// returns fallback when no decoded string held one, and fallback as a JSON
// string when doc is not JSON.
func scrubDecoded(doc, fallback json.RawMessage, secrets []string) json.RawMessage {
	var v any
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		out, _ := json.Marshal(string(fallback))
		return out
	}
	changed := false
	v = scrubValue(v, secrets, &changed)
	if !changed && utf8.Valid(fallback) && json.Valid(fallback) {
		return fallback
	}
	out, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage(`"` + Redacted + `"`)
	}
	return out
}

// scrubValue replaces the secrets in every string, key and number of v.
func scrubValue(v any, secrets []string, changed *bool) any {
	scrub := func(s string) string {
		for _, sec := range secrets {
			if len(sec) >= 8 && strings.Contains(s, sec) {
				s = strings.ReplaceAll(s, sec, Redacted)
				*changed = true
			}
		}
		return s
	}
	switch t := v.(type) {
	case string:
		return scrub(t)
	case json.Number:
		if s := scrub(string(t)); s != string(t) {
			return s
		}
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, vv := range t {
			out[scrub(k)] = scrubValue(vv, secrets, changed)
		}
		return out
	case []any:
		for i := range t {
			t[i] = scrubValue(t[i], secrets, changed)
		}
	}
	return v
}

// truncated is the marker that replaces a body over MaxBodyBytes.
type truncated struct {
	Truncated     bool   `json:"pome_truncated"`
	OriginalBytes int    `json:"original_bytes"`
	Prefix        string `json:"prefix"`
}

// Truncate replaces a body over MaxBodyBytes with an explicit marker that
// keeps its size and a prefix. A body it keeps has its invalid UTF-8 bytes
// replaced by U+FFFD (see ValidUTF8).
func Truncate(body json.RawMessage) json.RawMessage {
	if len(body) <= MaxBodyBytes {
		if b := ValidUTF8(body); len(b) <= MaxBodyBytes {
			return b
		}
	}
	return TruncatedBody(body, len(body))
}

// TruncatedBody is the marker for a body of size bytes of which head is the
// start; it keeps a valid UTF-8 prefix well under MaxBodyBytes.
func TruncatedBody(head []byte, size int) json.RawMessage {
	prefix := head
	if len(prefix) > MaxBodyBytes-1024 {
		prefix = prefix[:MaxBodyBytes-1024]
	}
	// Do not cut a UTF-8 sequence in half.
	for len(prefix) > 0 && prefix[len(prefix)-1]&0xC0 == 0x80 {
		prefix = prefix[:len(prefix)-1]
	}
	if len(prefix) > 0 && prefix[len(prefix)-1] >= 0xC0 {
		prefix = prefix[:len(prefix)-1]
	}
	out, _ := json.Marshal(truncated{Truncated: true, OriginalBytes: size, Prefix: string(prefix)})
	// JSON escaping can grow a prefix up to six times (invalid UTF-8 and
	// control bytes become \ufffd-style escapes, <>& are escaped too), so a
	// binary body would make a marker far over the limit it enforces:
	// shorten the prefix until the marker fits.
	for len(out) > MaxBodyBytes-1024 && len(prefix) > 0 {
		prefix = validPrefix(prefix[:len(prefix)*(MaxBodyBytes-1024)/len(out)])
		out, _ = json.Marshal(truncated{Truncated: true, OriginalBytes: size, Prefix: string(prefix)})
	}
	return out
}

// validPrefix drops a UTF-8 sequence cut in half at the end of b.
func validPrefix(b []byte) []byte {
	for len(b) > 0 && b[len(b)-1]&0xC0 == 0x80 {
		b = b[:len(b)-1]
	}
	if len(b) > 0 && b[len(b)-1] >= 0xC0 {
		b = b[:len(b)-1]
	}
	return b
}
