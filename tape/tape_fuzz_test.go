package tape

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzRedactJSON: whatever a client sends, the tape gets valid JSON (or
// nothing for an empty body), and no credential field survives at any depth.
func FuzzRedactJSON(f *testing.F) {
	for _, s := range []string{
		`{"token":"xoxb-1-2-secret","channel":"C1","text":"hi"}`,
		`{"a":[{"b":{"access_token":"ya29.x","Password":"p"}}],"n":1e400}`,
		`[1,2,{"api_key":"sk_test_x"}]`,
		`not json at all`,
		"\xff\xfe{\"token\":1}",
		`{"token":"x"} {"second":1}`,
		strings.Repeat("[", 5000) + strings.Repeat("]", 5000),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		out := RedactJSON(body)
		if len(bytes.TrimSpace(body)) == 0 {
			if out != nil {
				t.Fatalf("empty body recorded as %s", out)
			}
			return
		}
		if out == nil {
			// Values encoding/json cannot re-encode are dropped rather
			// than stored half-redacted.
			return
		}
		if !json.Valid(out) {
			t.Fatalf("RedactJSON(%q) = %q: not JSON", body, out)
		}
		var v any
		dec := json.NewDecoder(bytes.NewReader(out))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		if _, isString := v.(string); isString {
			return // the body was not JSON; it is kept as text
		}
		var walk func(any)
		walk = func(v any) {
			switch x := v.(type) {
			case map[string]any:
				for k, vv := range x {
					if IsSecretField(k) && vv != Redacted {
						t.Fatalf("RedactJSON(%q): field %q kept %v", body, k, vv)
					}
					walk(vv)
				}
			case []any:
				for _, vv := range x {
					walk(vv)
				}
			}
		}
		walk(v)
	})
}

// FuzzTruncate: a body over the limit becomes a marker that is valid JSON,
// under the limit, keeps the original size, and never cuts a UTF-8
// sequence of a valid body in half; a body under the limit is untouched.
func FuzzTruncate(f *testing.F) {
	f.Add([]byte(`{"a":1}`), 0)
	f.Add([]byte("héllo wörld ✓"), MaxBodyBytes)
	f.Add([]byte{0xff, 0xc3}, MaxBodyBytes+3)
	f.Fuzz(func(t *testing.T, chunk []byte, pad int) {
		if pad < 0 || pad > 2*MaxBodyBytes || len(chunk) == 0 {
			return
		}
		body := bytes.Repeat(chunk, pad/len(chunk)+1)
		out := Truncate(body)
		if len(body) <= MaxBodyBytes {
			if !bytes.Equal(out, body) {
				t.Fatalf("a body under the limit was changed")
			}
			return
		}
		if len(out) > MaxBodyBytes {
			t.Fatalf("marker of %d bytes exceeds the limit", len(out))
		}
		var m struct {
			Truncated     bool   `json:"pome_truncated"`
			OriginalBytes int    `json:"original_bytes"`
			Prefix        string `json:"prefix"`
		}
		if err := json.Unmarshal(out, &m); err != nil {
			t.Fatalf("marker is not JSON: %v", err)
		}
		if !m.Truncated || m.OriginalBytes != len(body) {
			t.Fatalf("marker %+v for %d bytes", m, len(body))
		}
		if utf8.Valid(body) && !strings.HasPrefix(string(body), m.Prefix) {
			t.Fatalf("prefix of a valid UTF-8 body is not a prefix of it")
		}
	})
}
