package rest_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/pomehq/pome/rest"
)

type hostileCase struct {
	name, method, path, ct, body string
	// want, when set, is the exact status the vendor gives.
	want int
}

func deepJSON(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }

func deepForm(n int) string { return "metadata" + strings.Repeat("[a]", n) + "=1" }

// hostileCases are requests no real client sends, per twin: each must be
// refused in the vendor's shape without a 5xx and without touching state.
func hostileCases() map[string][]hostileCase {
	const js = "application/json"
	const form = "application/x-www-form-urlencoded"
	raw := func(s string) string {
		b, _ := json.Marshal(map[string]string{"raw": base64.URLEncoding.EncodeToString([]byte(s))})
		return string(b)
	}
	return map[string][]hostileCase{
		"github": {
			{"truncated JSON", "POST", "/repos/acme/api/issues", js, `{"title":`, 400},
			{"JSON array body", "POST", "/repos/acme/api/issues", js, `["title"]`, 400},
			{"trailing garbage", "POST", "/repos/acme/api/issues", js, `{"title":"a"}}`, 400},
			{"title is a number", "POST", "/repos/acme/api/issues", js, `{"title":123}`, 422},
			{"labels is a string map", "POST", "/repos/acme/api/issues", js, `{"title":"a","labels":{"x":1}}`, 422},
			{"issue number not a number", "PATCH", "/repos/acme/api/issues/abc", js, `{"state":"closed"}`, 0},
			{"issue number overflows", "PATCH", "/repos/acme/api/issues/99999999999999999999999", js, `{"state":"closed"}`, 0},
			{"deep nesting 10000", "POST", "/repos/acme/api/issues", js, `{"title":"a","labels":` + deepJSON(10000) + `}`, 0},
			{"form body", "POST", "/repos/acme/api/issues", form, `title=%zz`, 0},
			{"contents ../", "GET", "/repos/acme/api/contents/../../../etc/passwd", "", "", 404},
			{"contents %2e%2e", "GET", "/repos/acme/api/contents/%2e%2e/%2e%2e/etc/passwd", "", "", 404},
			{"contents %2F-encoded ..", "GET", "/repos/acme/api/contents/..%2F..%2Fetc%2Fpasswd", "", "", 404},
			{"contents absolute", "GET", "/repos/acme/api/contents//etc/passwd", "", "", 404},
			{"contents NUL", "GET", "/repos/acme/api/contents/README.md%00.txt", "", "", 404},
			{"put contents ../", "PUT", "/repos/acme/api/contents/../escape.txt", js, `{"message":"m","content":"aGk="}`, 0},
			{"put contents %2e%2e", "PUT", "/repos/acme/api/contents/docs/%2e%2e/%2e%2e/escape.txt", js, `{"message":"m","content":"aGk="}`, 0},
			{"put contents absolute", "PUT", "/repos/acme/api/contents//abs.txt", js, `{"message":"m","content":"aGk="}`, 0},
			{"put contents bad base64", "PUT", "/repos/acme/api/contents/new.txt", js, `{"message":"m","content":"!!!not base64"}`, 0},
			{"repo traversal", "GET", "/repos/acme/%2e%2e/issues/1", "", "", 404},
		},
		"slack": {
			{"bad percent escape", "POST", "/api/chat.postMessage", form, `channel=general&text=%zz`, 0},
			{"truncated JSON", "POST", "/api/chat.postMessage", js, `{"channel":"general","text":`, 0},
			{"text is an object", "POST", "/api/chat.postMessage", js, `{"channel":"general","text":{"a":1}}`, 0},
			{"channel is a list", "POST", "/api/chat.postMessage", form, `channel[]=general&channel[]=random&text=x`, 0},
			{"deep JSON", "POST", "/api/chat.postMessage", js, `{"channel":"general","text":"x","blocks":` + deepJSON(10000) + `}`, 0},
			{"deep form", "POST", "/api/chat.postMessage", form, `text=x&channel` + strings.Repeat("[a]", 10000) + `=general`, 0},
			{"multipart without boundary", "POST", "/api/files.upload", "multipart/form-data", "--x\r\n", 0},
			{"multipart truncated", "POST", "/api/files.upload", "multipart/form-data; boundary=B", "--B\r\nContent-Disposition: form-data; name=\"channels\"\r\n\r\ngen", 0},
			{"reaction on a bogus ts", "POST", "/api/reactions.add", form, `channel=general&name=x&timestamp=../../1`, 0},
		},
		"stripe": {
			{"amount not a number", "POST", "/v1/payment_intents", form, `amount=abc&currency=usd`, 400},
			{"amount as a list", "POST", "/v1/payment_intents", form, `amount[]=1&amount[]=2&currency=usd`, 400},
			{"amount overflows", "POST", "/v1/payment_intents", form, `amount=99999999999999999999999999&currency=usd`, 400},
			{"bad percent escape", "POST", "/v1/customers", form, `email=%zz`, 400},
			{"deep brackets", "POST", "/v1/customers", form, deepForm(10000), 400},
			{"unbalanced brackets", "POST", "/v1/customers", form, `metadata[a=1&metadata]b[=2&[x]=3`, 400},
			{"JSON body", "POST", "/v1/customers", js, `{"email":`, 400},
			{"customer id traversal", "GET", "/v1/customers/..%2F..%2Fbalance", "", "", 0},
			{"invalid UTF-8 key", "POST", "/v1/customers", form, "metadata[\xff]=1&email=\xfe", 0},
		},
		"gmail": {
			{"raw not base64", "POST", "/gmail/v1/users/me/messages/send", js, `{"raw":"!!!***"}`, 400},
			{"raw is a number", "POST", "/gmail/v1/users/me/messages/send", js, `{"raw":12}`, 400},
			{"truncated JSON", "POST", "/gmail/v1/users/me/messages/send", js, `{"raw":`, 400},
			{"raw without recipients", "POST", "/gmail/v1/users/me/messages/send", js, raw("Subject: x\r\n\r\nbody"), 400},
			{"raw of binary junk", "POST", "/gmail/v1/users/me/messages/send", js, raw("\x00\xff\xfe\r\n\r\n"), 400},
			{"deep JSON", "POST", "/gmail/v1/users/me/messages/send", js, `{"raw":"eA","x":` + deepJSON(10000) + `}`, 400},
			{"message id ../", "GET", "/gmail/v1/users/me/messages/../labels", "", "", 0},
			{"message id %2e%2e", "GET", "/gmail/v1/users/me/messages/%2e%2e%2flabels", "", "", 0},
			{"message id with slash", "GET", "/gmail/v1/users/me/messages/..%2F..%2Fdrafts", "", "", 0},
			{"user id traversal", "GET", "/gmail/v1/users/..%2Fother/messages", "", "", 0},
			{"attachment id traversal", "GET", "/gmail/v1/users/me/messages/x/attachments/..%2F..", "", "", 0},
			{"delete label traversal", "DELETE", "/gmail/v1/users/me/labels/..%2FINBOX", "", "", 0},
		},
	}
}

// TestHostileInput sends each twin requests no real client sends, through
// the real server: never a 5xx (a path no binding covers is the vendor's
// own unsupported answer, a 404 or Slack's 200 unknown_method), never a
// panic (the server would drop the connection), always the vendor's error
// shape, and the twin's state exactly as before. A path that tries to climb
// out of its resource (../, %2e%2e, an encoded slash) reaches nothing: it is
// a 404 or the unsupported answer of a path no binding covers.
func TestHostileInput(t *testing.T) {
	s := startReal(t, rest.Config{}, nil)
	for twin, cases := range hostileCases() {
		t.Run(twin, func(t *testing.T) {
			c := s.create(t, s.KeyA, twin)
			api := c.PerTwin[twin].APIURL
			tok := c.ProviderCredentials[twin].Token
			before := s.state(t, s.KeyA, c.SessionID, twin)
			for _, hc := range cases {
				hdr := map[string]string{"Authorization": "Bearer " + tok}
				if hc.ct != "" {
					hdr["Content-Type"] = hc.ct
				}
				st, _, b := do(t, hc.method, api+hc.path, hdr, hc.body)
				if st >= 500 {
					t.Errorf("%s: %d %.300s", hc.name, st, b)
				}
				// Slack refuses with HTTP 200 and ok:false, as slack.com does.
				slackRefusal := twin == "slack" && st == 200 && strings.Contains(string(b), `"ok":false`)
				if st < 400 && !slackRefusal {
					t.Errorf("%s: accepted with %d: %.300s", hc.name, st, b)
				}
				if hc.want != 0 && st != hc.want {
					t.Errorf("%s: status %d, want %d: %.300s", hc.name, st, hc.want, b)
				}
				if !json.Valid(b) {
					t.Errorf("%s: body is not JSON: %.300s", hc.name, b)
				}
			}
			if after := s.state(t, s.KeyA, c.SessionID, twin); after != before {
				t.Errorf("hostile requests changed %s's state", twin)
			}
			if strings.Contains(s.Log.String(), "panic") {
				t.Fatalf("the server logged a panic:\n%s", s.Log.String())
			}
		})
	}
}

// TestBodyLimitEveryTwin: an enormous body is a 413 in each vendor's own
// error shape, on every twin, changes nothing, and the tape keeps a
// truncated marker rather than the body.
func TestBodyLimitEveryTwin(t *testing.T) {
	const limit = 64 << 10
	s := startReal(t, rest.Config{MaxBodyBytes: limit}, nil)
	big := strings.Repeat("a", 4*limit)
	cases := []struct {
		twin, method, path, ct, body string
		shape                        func(m map[string]any) bool
	}{
		{"github", "POST", "/repos/acme/api/issues", "application/json", `{"title":"` + big + `"}`, func(m map[string]any) bool {
			return m["message"] == "Request body too large" && m["documentation_url"] != nil
		}},
		{"slack", "POST", "/api/chat.postMessage", "application/x-www-form-urlencoded", "channel=general&text=" + big, func(m map[string]any) bool {
			return m["ok"] == false && m["error"] == "request_too_large"
		}},
		{"stripe", "POST", "/v1/customers", "application/x-www-form-urlencoded", "description=" + big, func(m map[string]any) bool {
			e, _ := m["error"].(map[string]any)
			return e != nil && e["type"] == "invalid_request_error" && e["message"] != nil
		}},
		{"gmail", "POST", "/gmail/v1/users/me/messages/send", "application/json", `{"raw":"` + big + `"}`, func(m map[string]any) bool {
			e, _ := m["error"].(map[string]any)
			return e != nil && e["code"] == float64(413) && e["status"] != nil && e["message"] != nil
		}},
	}
	for _, c := range cases {
		t.Run(c.twin, func(t *testing.T) {
			cr := s.create(t, s.KeyA, c.twin)
			before := s.state(t, s.KeyA, cr.SessionID, c.twin)
			hdr := map[string]string{"Authorization": "Bearer " + cr.ProviderCredentials[c.twin].Token, "Content-Type": c.ct}
			st, _, b := do(t, c.method, cr.PerTwin[c.twin].APIURL+c.path, hdr, c.body)
			var m map[string]any
			json.Unmarshal(b, &m)
			if st != 413 || !c.shape(m) {
				t.Fatalf("%d %.400s", st, b)
			}
			if after := s.state(t, s.KeyA, cr.SessionID, c.twin); after != before {
				t.Fatalf("an oversized request changed state")
			}
			// Over MCP the same limit holds, and is not a 5xx.
			mcpBody := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"a":"` + big + `"}}}`
			st, _, b = do(t, "POST", cr.PerTwin[c.twin].MCPURL, map[string]string{"Authorization": "Bearer " + cr.AgentToken, "Content-Type": "application/json", "Accept": "application/json, text/event-stream"}, mcpBody)
			if st >= 500 || st < 400 {
				t.Fatalf("oversized MCP request: %d %.300s", st, b)
			}
			st, _, b = do(t, "GET", cr.PerTwin[c.twin].APIURL+"/_pome/tape", bearer(cr.AuthToken), "")
			if st != 200 || !strings.Contains(string(b), `pome_truncated`) || len(b) > 3*limit {
				t.Fatalf("tape of an oversized call: %d, %d bytes", st, len(b))
			}
		})
	}
}

// TestHostileMCP: unknown methods, malformed JSON-RPC, batches, unknown
// tools and arguments of the wrong shape are JSON-RPC errors or isError
// results, never a 5xx, and change no state.
func TestHostileMCP(t *testing.T) {
	s := startReal(t, rest.Config{}, nil)
	c := s.create(t, s.KeyA, "github", "slack")
	hdr := map[string]string{"Authorization": "Bearer " + c.AgentToken, "Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
	init := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	bodies := map[string]string{
		"not JSON":                   `{{{`,
		"empty":                      ``,
		"JSON string":                `"hello"`,
		"no jsonrpc field":           `{"id":1,"method":"tools/list"}`,
		"wrong jsonrpc version":      `{"jsonrpc":"1.0","id":1,"method":"tools/list"}`,
		"id is an object":            `{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}`,
		"method is a number":         `{"jsonrpc":"2.0","id":1,"method":7}`,
		"unknown method":             `{"jsonrpc":"2.0","id":1,"method":"pome/shutdown"}`,
		"resources on a tool server": `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"file:///etc/passwd"}}`,
		"batch":                      `[` + init + `,{"jsonrpc":"2.0","id":2,"method":"tools/list"}]`,
		"empty batch":                `[]`,
		"unknown tool":               `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"rm_rf","arguments":{}}}`,
		"arguments not an object":    `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"issue_write","arguments":[1,2]}}`,
		"arguments wrong types":      `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"issue_write","arguments":{"method":"create","owner":"acme","repo":"api","title":{"x":1}}}}`,
		"params missing":             `{"jsonrpc":"2.0","id":1,"method":"tools/call"}`,
		"deep arguments":             `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"issue_write","arguments":{"method":"create","owner":"acme","repo":"api","title":"t","labels":` + deepJSON(10000) + `}}}`,
		"invalid UTF-8":              "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"issue_write\",\"arguments\":{\"method\":\"create\",\"owner\":\"acme\",\"repo\":\"\xff\",\"title\":\"t\"}}}",
	}
	for _, twin := range []string{"github", "slack"} {
		before := s.state(t, s.KeyA, c.SessionID, twin)
		for name, body := range bodies {
			st, _, b := do(t, "POST", c.PerTwin[twin].MCPURL, hdr, body)
			if st >= 500 {
				t.Errorf("%s %s: %d %.300s", twin, name, st, b)
			}
			if st == 200 && strings.Contains(name, "arguments") && !strings.Contains(string(b), `"isError":true`) && !strings.Contains(string(b), `"error"`) {
				t.Errorf("%s %s: accepted: %.300s", twin, name, b)
			}
		}
		if after := s.state(t, s.KeyA, c.SessionID, twin); after != before {
			t.Errorf("hostile MCP requests changed %s's state", twin)
		}
	}
	_ = fmt.Sprint
}

// TestGmailHeaderInjection: a line break inside a composed field or inside
// a raw message's header value never becomes a header of its own: no hidden
// Bcc, no extra recipient receives the message, and what the sender wrote
// stays inside the field it was written in (or the call is refused).
func TestGmailHeaderInjection(t *testing.T) {
	s := startReal(t, rest.Config{}, nil)
	c := s.create(t, s.KeyA, "gmail")
	api := c.PerTwin["gmail"].APIURL + "/gmail/v1/users/me"
	hdr := jsonBody(c.ProviderCredentials["gmail"].Token)
	raw := func(m string) string {
		b, _ := json.Marshal(map[string]string{"raw": base64.URLEncoding.EncodeToString([]byte(m))})
		return string(b)
	}
	bodies := map[string]string{
		"CRLF in subject":     `{"to":["alice@acme.test"],"subject":"hi\r\nBcc: evil@evil.test\r\nX-Injected: 1","body":"x"}`,
		"LF in subject":       `{"to":["alice@acme.test"],"subject":"hi\nBcc: evil@evil.test","body":"x"}`,
		"CRLF in recipient":   `{"to":["alice@acme.test\r\nBcc: evil@evil.test"],"subject":"hi","body":"x"}`,
		"CRLF CRLF in cc":     `{"to":["alice@acme.test"],"cc":["bob@acme.test\r\n\r\nBcc: evil@evil.test"],"subject":"hi","body":"x"}`,
		"raw encoded-word":    raw("To: alice@acme.test\r\nSubject: =?UTF-8?Q?hi=0D=0ABcc:_evil@evil.test?=\r\n\r\nx"),
		"raw quoted name":     raw("To: \"A\r\nBcc: evil@evil.test\" <alice@acme.test>\r\nSubject: hi\r\n\r\nx"),
		"raw folded subject":  raw("To: alice@acme.test\r\nSubject: hi\r\n Bcc: evil@evil.test\r\n\r\nx"),
		"raw bare CR":         raw("To: alice@acme.test\r\nSubject: hi\rBcc: evil@evil.test\r\n\r\nx"),
		"raw NUL in subject":  raw("To: alice@acme.test\r\nSubject: hi\x00Bcc: evil@evil.test\r\n\r\nx"),
		"raw injected header": raw("To: alice@acme.test\r\nSubject: hi\r\nX-Injected: 1\r\n\r\nx"),
	}
	for name, body := range bodies {
		st, _, b := do(t, "POST", api+"/messages/send", hdr, body)
		if st >= 500 {
			t.Errorf("%s: %d %s", name, st, b)
			continue
		}
		if st != 200 {
			t.Logf("%s: refused with %d", name, st)
			continue // refused: nothing was sent
		}
		var sent struct{ ID string }
		json.Unmarshal(b, &sent)
		st, _, b = do(t, "GET", api+"/messages/"+sent.ID+"?format=metadata", hdr, "")
		if st != 200 {
			t.Fatalf("%s: read back: %d %s", name, st, b)
		}
		var msg struct {
			Payload struct {
				Headers []struct{ Name, Value string }
			}
		}
		json.Unmarshal(b, &msg)
		for _, h := range msg.Payload.Headers {
			if strings.ContainsAny(h.Value, "\r\n") {
				t.Errorf("%s: header %s keeps a line break: %q", name, h.Name, h.Value)
			}
			if h.Name == "Bcc" || (h.Name != "Subject" && strings.Contains(h.Value, "evil@evil.test")) {
				t.Errorf("%s: smuggled recipient in %s: %q", name, h.Name, h.Value)
			}
			if h.Name == "X-Injected" && name != "raw injected header" {
				t.Errorf("%s: smuggled header X-Injected", name)
			}
		}
	}
	// Nobody outside the sandbox's mailboxes, nor any hidden recipient,
	// was delivered anything.
	if st := s.state(t, s.KeyA, c.SessionID, "gmail"); strings.Contains(st, `"evil@evil.test"`) && strings.Contains(st, `"bcc"`) {
		t.Errorf("a smuggled Bcc reached the state")
	}
}
