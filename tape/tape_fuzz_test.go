package tape

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
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
		"{\"title\":\"bad \xff\xc3 bytes\"}",
		"{\"token\":\"\xe2\x82\"}",
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
		assertJSON(t, "RedactJSON", body, out)
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
		// What the transports tape: a redacted body, then truncated.
		if red := RedactJSON(body); red != nil {
			assertJSON(t, "Truncate(RedactJSON)", body, Truncate(red))
		}
		out := Truncate(body)
		if !utf8.Valid(out) {
			t.Fatalf("Truncate kept invalid UTF-8")
		}
		if len(body) <= MaxBodyBytes {
			if utf8.Valid(body) && !bytes.Equal(out, body) {
				t.Fatalf("a valid body under the limit was changed")
			}
			if json.Valid(body) && !json.Valid(out) {
				t.Fatalf("a JSON body under the limit is no longer JSON")
			}
			return
		}
		assertJSON(t, "Truncate", body, out)
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

// assertJSON fails unless out, what fn made of in, is valid UTF-8 and
// valid JSON: what every stored tape row must be.
func assertJSON(t *testing.T, fn string, in, out []byte) {
	t.Helper()
	if !utf8.Valid(out) {
		t.Fatalf("%s(%q) = %q: not UTF-8", fn, in, out)
	}
	if !json.Valid(out) {
		t.Fatalf("%s(%q) = %q: not JSON", fn, in, out)
	}
}

// FuzzScrub: scrubbing a secret out of a taped body keeps it valid UTF-8
// JSON whatever the secret is, and leaves no token-shaped secret in any
// decoded string, also when the body spells it with \u escapes.
func FuzzScrub(f *testing.F) {
	f.Add([]byte(`{"echo":"pst_abcdefghijk"}`), "pst_abcdefghijk")
	f.Add([]byte(`{"a":"12345678","b":1}`), `5678","b`)
	f.Add([]byte(`{"a":"\u0070st_abcdefghijk"}`), "pst_abcdefghijk")
	f.Add([]byte("{\"a\":\"\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\"}"), "\x82\xac\xe2\x82\xac\xe2\x82\xac")
	f.Fuzz(func(t *testing.T, body []byte, secret string) {
		in := RedactJSON(body)
		if in == nil {
			return
		}
		out := Scrub(in, secret)
		assertJSON(t, "Scrub", in, out)
		if len(secret) < 8 || secret == "REDACTED" || strings.Trim(secret, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != "" {
			return
		}
		var v any
		if err := json.Unmarshal(out, &v); err != nil {
			t.Fatal(err)
		}
		var walk func(any)
		walk = func(v any) {
			switch x := v.(type) {
			case string:
				if strings.Contains(x, secret) {
					t.Fatalf("Scrub(%q, %q) = %s: the secret is still there", in, secret, out)
				}
			case map[string]any:
				for k, vv := range x {
					walk(k)
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

// FuzzRowJSON: a row built from anything a client can send — path, query,
// header values, a body with invalid UTF-8 or cut anywhere — encodes as one
// line of valid UTF-8 JSON.
func FuzzRowJSON(f *testing.F) {
	f.Add("/repos/acme/api/issues", "q", "v", "ua", []byte(`{"title":"x"}`), []byte(`{"id":1}`))
	f.Add("/p\xff", "k\xc3", "v\xe2\x82", "bad\xffutf8", []byte("{\"t\":\"\xff\"}"), []byte("[\"\xc3\"]"))
	f.Add("/", "", "", "", []byte("\"\u2028\n\""), []byte("{\n\"a\": \"\xff\"\n}"))
	f.Fuzz(func(t *testing.T, path, qk, qv, hv string, req, resp []byte) {
		tool := path
		r := Row{Seq: 1, At: time.Unix(0, 0).UTC(), SessionID: "ses_x", Twin: "github", Transport: TransportREST,
			Method: "POST", Path: path, Tool: &tool, Status: 200,
			Request: Request{
				Query:   RedactQuery(map[string][]string{qk: {qv, qv}}),
				Body:    Scrub(Truncate(RedactJSON(req)), "pst_abcdefghijk"),
				Headers: RedactHeaders(map[string][]string{"User-Agent": {hv}, hv: {qv}}),
			},
		}
		// A response body is taped as the twin wrote it when it is JSON.
		if json.Valid(resp) {
			r.Response.Body = Truncate(resp)
			r.StateDelta = resp
		}
		out := r.AppendJSON(nil)
		assertJSON(t, "AppendJSON", req, out)
		if bytes.ContainsAny(out, "\n\r") {
			t.Fatalf("row is not one line: %q", out)
		}
	})
}
