package rest_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/pomehq/pome/mcpserver"
	"github.com/pomehq/pome/rest/resttest"
)

func do(t *testing.T, method, url string, hdr map[string]string, body string) (int, http.Header, []byte) {
	t.Helper()
	resp, b := doResp(t, method, url, hdr, body)
	return resp.StatusCode, resp.Header, b
}

// doResp is do for a test that needs the whole response (its framing).
func doResp(t *testing.T, method, url string, hdr map[string]string, body string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

func bearer(tok string) map[string]string { return map[string]string{"Authorization": "Bearer " + tok} }

func jsonBody(tok string) map[string]string {
	return map[string]string{"Authorization": "Bearer " + tok, "Content-Type": "application/json"}
}

func TestOpaque404(t *testing.T) {
	env := resttest.Start(t, notesTwin(false), "")
	other := resttest.Start(t, notesTwin(false), "")
	base := env.HTTP.URL
	cases := map[string]struct {
		url string
		hdr map[string]string
	}{
		"no token":              {env.APIURL + "/notes/1", nil},
		"wrong token":           {env.APIURL + "/notes/1", bearer("pst_wrong")},
		"other sandbox's token": {env.APIURL + "/notes/1", bearer(other.AuthToken)},
		"unknown sandbox":       {base + "/notes/s/ses_0000000000000000/notes/1", bearer(env.AuthToken)},
		"malformed sandbox id":  {base + "/notes/s/ses_x/notes/1", bearer(env.AuthToken)},
		"twin not served":       {base + "/slack/s/" + env.SessionID + "/api/auth.test", bearer(env.AuthToken)},
		"agent reads _pome":     {env.APIURL + "/_pome/tape", bearer(env.AgentToken)},
		"provider reads _pome":  {env.APIURL + "/_pome/state", bearer(env.Token)},
		"basic wrong":           {env.APIURL + "/notes/1", map[string]string{"Authorization": "Basic " + base64.StdEncoding.EncodeToString([]byte("nope:"))}},
	}
	var first http.Header
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			st, h, b := do(t, "GET", c.url, c.hdr, "")
			if st != 404 || string(b) != `{"message":"No twin pod for this session."}`+"\n" {
				t.Fatalf("got %d %s", st, b)
			}
			h.Del("Date")
			if first == nil {
				first = h
			} else if fmt.Sprint(first) != fmt.Sprint(h) {
				t.Fatalf("headers differ: %v vs %v", first, h)
			}
		})
	}
	// None of those refusals reached a twin or its tape.
	if rows := env.Tape(t); len(rows) != 0 {
		t.Fatalf("refused calls were taped: %d rows", len(rows))
	}
}

func TestTokenForms(t *testing.T) {
	env := resttest.Start(t, notesTwin(false), "")
	basic := base64.StdEncoding.EncodeToString([]byte(env.Token + ":"))
	for name, hdr := range map[string]map[string]string{
		"auth bearer":     bearer(env.AuthToken),
		"agent bearer":    bearer(env.AgentToken),
		"provider token":  {"Authorization": "token " + env.Token},
		"provider basic":  {"Authorization": "Basic " + basic},
		"provider bearer": bearer(env.Token),
	} {
		t.Run(name, func(t *testing.T) {
			hdr["Content-Type"] = "application/json"
			if st, _, b := do(t, "POST", env.APIURL+"/notes", hdr, `{"text":"x"}`); st != 201 {
				t.Fatalf("%d %s", st, b)
			}
		})
	}
	t.Run("token form field", func(t *testing.T) {
		st, _, b := do(t, "POST", env.APIURL+"/api/notes.create", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, "token="+env.Token+"&body=hello")
		if st != 200 {
			t.Fatalf("%d %s", st, b)
		}
	})
	t.Run("token query field", func(t *testing.T) {
		st, _, b := do(t, "GET", env.APIURL+"/notes/1?token="+env.Token, nil, "")
		if st != 200 {
			t.Fatalf("%d %s", st, b)
		}
	})
	// The token never reaches the tape.
	rows := env.Tape(t)
	raw, _ := json.Marshal(rows)
	for _, tok := range []string{env.Token, env.AuthToken, env.AgentToken} {
		if bytes.Contains(raw, []byte(tok)) {
			t.Fatalf("a token is on the tape")
		}
	}
}

func TestRESTDecoding(t *testing.T) {
	env := resttest.Start(t, notesTwin(false), "")
	hdr := func(ct string) map[string]string {
		return map[string]string{"Authorization": "Bearer " + env.Token, "Content-Type": ct}
	}
	cases := []struct {
		name, path, ct, body string
		want                 map[string]any
	}{
		{"json", "/notes", "application/json", `{"text":"a","count":3,"flag":true,"tags":["x","y"],"unknown":1}`,
			map[string]any{"text": "a", "count": 3.0, "flag": true, "tags": []any{"x", "y"}}},
		{"json without content type", "/notes", "", `{"text":"b"}`, map[string]any{"text": "b"}},
		{"json sent as a form (curl -d)", "/notes", "application/x-www-form-urlencoded", `{"text":"b2","count":4}`, map[string]any{"text": "b2", "count": 4.0}},
		{"form coerced", "/notes", "application/x-www-form-urlencoded", `text=c&count=7&flag=true&tags=a,b`,
			map[string]any{"text": "c", "count": 7.0, "flag": true, "tags": []any{"a", "b"}}},
		{"bracket form", "/notes", "application/x-www-form-urlencoded", `text=d&metadata[k]=v&tags[]=p&tags[]=q`,
			map[string]any{"text": "d", "metadata": map[string]any{"k": "v"}, "tags": []any{"p", "q"}}},
		{"query", "/notes?text=e&count=2", "", ``, map[string]any{"text": "e", "count": 2.0}},
		{"renamed param", "/api/notes.create", "application/json", `{"body":"f"}`, map[string]any{"text": "f"}},
		{"alias without /api", "/notes.create", "application/json", `{"body":"g"}`, map[string]any{"text": "g"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st, _, b := do(t, "POST", env.APIURL+c.path, hdr(c.ct), c.body)
			if st != 201 && st != 200 {
				t.Fatalf("%d %s", st, b)
			}
			var got map[string]any
			json.Unmarshal(b, &got)
			for k, v := range c.want {
				if fmt.Sprint(got[k]) != fmt.Sprint(v) {
					t.Errorf("%s = %v, want %v (body %s)", k, got[k], v, b)
				}
			}
		})
	}
	t.Run("raw body field", func(t *testing.T) {
		st, _, b := do(t, "POST", env.APIURL+"/upload/raw", hdr("message/rfc822"), "Subject: hi\r\n\r\nbody")
		if st != 200 || !strings.Contains(string(b), `"len":19`) {
			t.Fatalf("%d %s", st, b)
		}
	})
}

func TestRESTErrors(t *testing.T) {
	env := resttest.Start(t, notesTwin(false), "")
	strict := resttest.Start(t, notesTwin(true), "")
	cases := []struct {
		name   string
		env    *resttest.Env
		method string
		path   string
		ct     string
		body   string
		status int
		want   string
	}{
		{"broken json", env, "POST", "/notes", "application/json", `{"text":`, 400, "invalid_json"},
		{"json not an object", env, "POST", "/notes", "application/json", `[1,2]`, 400, "invalid_json"},
		{"wrong type", env, "POST", "/notes", "application/json", `{"text":5}`, 400, "invalid_arguments"},
		{"uncoercible", env, "POST", "/notes", "application/x-www-form-urlencoded", `text=a&count=many`, 400, "invalid_arguments"},
		{"missing required", env, "POST", "/notes", "application/json", `{}`, 400, "invalid_arguments"},
		{"handler refusal", env, "POST", "/notes", "application/json", `{"text":""}`, 400, "no_text"},
		{"not found", env, "GET", "/notes/99", "", ``, 404, "not_found"},
		{"strict unknown param", strict, "POST", "/notes", "application/x-www-form-urlencoded", `text=a&bogus=1`, 400, "Received unknown parameter: bogus"},
		{"not implemented", env, "GET", "/nothing/here", "", ``, 501, "not_implemented"},
		{"method not bound", env, "DELETE", "/notes/1", "", ``, 501, "not_implemented"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := string(c.env.State(t))
			st, _, b := do(t, c.method, c.env.APIURL+c.path, map[string]string{"Authorization": "Bearer " + c.env.Token, "Content-Type": c.ct}, c.body)
			if st != c.status || !strings.Contains(string(b), c.want) {
				t.Fatalf("got %d %s, want %d containing %q", st, b, c.status, c.want)
			}
			if after := string(c.env.State(t)); after != before {
				t.Fatalf("state changed on a refused call:\n%s\n%s", before, after)
			}
			rows := c.env.Tape(t)
			last := rows[len(rows)-1]
			if last.StateMutation || last.Status != c.status {
				t.Fatalf("row: %+v", last)
			}
			if c.status == 501 && last.Tool != nil {
				t.Fatalf("501 taped with tool %q", *last.Tool)
			}
			if c.status != 501 && last.ToolName() == "" {
				t.Fatalf("refused call taped without its tool")
			}
		})
	}
	t.Run("501 names the twin and its surfaces", func(t *testing.T) {
		_, _, b := do(t, "GET", env.APIURL+"/nope", bearer(env.Token), "")
		var m map[string]any
		json.Unmarshal(b, &m)
		if m["twin"] != "notes" || !strings.Contains(fmt.Sprint(m["supported"]), "GET /notes/{id}") {
			t.Fatalf("%s", b)
		}
	})
}

func TestBodyLimit(t *testing.T) {
	env := resttest.Start(t, notesTwin(false), "")
	big := `{"text":"` + strings.Repeat("a", 11<<20) + `"}`
	st, _, b := do(t, "POST", env.APIURL+"/notes", jsonBody(env.Token), big)
	if st != 413 {
		t.Fatalf("%d %s", st, b[:min(len(b), 200)])
	}
	rows := env.Tape(t)
	if len(rows) != 1 || rows[0].Status != 413 || rows[0].StateMutation {
		t.Fatalf("rows %+v", rows)
	}
	if !bytes.Contains(rows[0].Request.Body, []byte(`"pome_truncated":true`)) {
		t.Fatalf("oversized body not marked truncated on the tape")
	}
}

func TestTapeRowsAndMutation(t *testing.T) {
	env := resttest.Start(t, notesTwin(false), "")
	do(t, "POST", env.APIURL+"/notes", jsonBody(env.Token), `{"text":"one"}`)
	do(t, "GET", env.APIURL+"/notes/1", bearer(env.Token), "")
	do(t, "POST", env.APIURL+"/tags", jsonBody(env.Token), `{"tag":"x"}`)
	do(t, "POST", env.APIURL+"/tags", jsonBody(env.Token), `{"tag":"x"}`) // no-op write
	// Reading the tape any number of times adds nothing.
	for i := 0; i < 3; i++ {
		do(t, "GET", env.APIURL+"/_pome/tape", bearer(env.AuthToken), "")
		do(t, "GET", env.APIURL+"/_pome/state", bearer(env.AuthToken), "")
	}
	rows := env.Tape(t)
	want := []struct {
		tool string
		mut  bool
		st   int
	}{{"create_note", true, 201}, {"get_note", false, 200}, {"add_tag", true, 200}, {"add_tag", false, 200}}
	if len(rows) != len(want) {
		t.Fatalf("%d rows", len(rows))
	}
	for i, w := range want {
		r := rows[i]
		if r.Seq != int64(i+1) || r.ToolName() != w.tool || r.StateMutation != w.mut || r.Status != w.st || r.Transport != "rest" || r.SessionID != env.SessionID || r.Twin != "notes" {
			t.Errorf("row %d: %+v", i, r)
		}
		if !strings.Contains(r.Path, env.SessionID) {
			t.Errorf("row %d path %s lacks the sandbox id", i, r.Path)
		}
		if r.Request.Headers["authorization"] != "[REDACTED]" {
			t.Errorf("authorization not redacted: %v", r.Request.Headers)
		}
	}
	if string(rows[0].Response.Body) == "" || !strings.Contains(string(rows[0].Request.Body), "one") {
		t.Errorf("bodies not recorded: %s / %s", rows[0].Request.Body, rows[0].Response.Body)
	}
	// JSON Lines and the _pome read agree with the control plane.
	st, _, b := do(t, "GET", env.APIURL+"/_pome/tape?format=jsonl", bearer(env.AuthToken), "")
	if st != 200 || strings.Count(string(b), "\n") != len(want) {
		t.Fatalf("jsonl: %d %s", st, b)
	}
}

func TestMCPMatchesREST(t *testing.T) {
	env := resttest.Start(t, notesTwin(false), "")
	cs := env.MCP(t)
	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools.Tools) != 4 {
		t.Fatalf("%d tools", len(tools.Tools))
	}
	for _, tool := range tools.Tools {
		if tool.Name == "get_note" && !tool.Annotations.ReadOnlyHint {
			t.Errorf("get_note not read-only")
		}
		if tool.Name == "create_note" && (tool.Annotations.ReadOnlyHint || *tool.Annotations.DestructiveHint) {
			t.Errorf("create_note hints wrong")
		}
	}
	text, isErr := resttest.CallTool(t, cs, "create_note", map[string]any{"text": "via mcp"})
	if isErr || !strings.Contains(text, `"id":1`) {
		t.Fatalf("%v %s", isErr, text)
	}
	do(t, "POST", env.APIURL+"/notes", jsonBody(env.Token), `{"text":"via rest"}`)
	text, isErr = resttest.CallTool(t, cs, "get_note", map[string]any{"id": 2})
	if isErr || !strings.Contains(text, "via rest") {
		t.Fatalf("MCP does not see the REST write: %s", text)
	}
	text, isErr = resttest.CallTool(t, cs, "get_note", map[string]any{"id": 42})
	if !isErr || !strings.Contains(text, "Not Found") {
		t.Fatalf("error result: %v %s", isErr, text)
	}
	text, isErr = resttest.CallTool(t, cs, "create_note", map[string]any{"text": 5})
	if !isErr || !strings.Contains(text, "invalid") {
		t.Fatalf("bad args: %v %s", isErr, text)
	}

	rows := env.Tape(t)
	var mcpCreate, restCreate *int
	for i, r := range rows {
		switch {
		case r.Transport == "mcp" && r.ToolName() == "create_note" && r.StateMutation:
			mcpCreate = &i
		case r.Transport == "rest" && r.ToolName() == "create_note":
			restCreate = &i
		}
		if r.Transport == "mcp" && r.MCPMethod != "tools/call" && (r.Tool != nil || r.StateMutation) {
			t.Errorf("%s row has tool or mutation: %+v", r.MCPMethod, r)
		}
		if r.Transport == "mcp" && r.MCPMethod == "tools/call" && r.ToolName() == "" {
			t.Errorf("tools/call row without tool")
		}
	}
	if mcpCreate == nil || restCreate == nil {
		t.Fatalf("create rows missing: %+v", rows)
	}
	methods := map[string]bool{}
	for _, r := range rows {
		methods[r.MCPMethod] = true
	}
	// Newer protocol versions discover the server instead of initializing.
	if !(methods["initialize"] || methods["server/discover"]) || !methods["tools/list"] {
		t.Fatalf("initialize/tools/list not taped: %v", methods)
	}
	// Failed calls never count as mutations.
	for _, r := range rows {
		if r.ToolName() == "get_note" && r.StateMutation {
			t.Fatalf("read taped as mutation")
		}
	}
}

func TestConcurrentWritesBothTransports(t *testing.T) {
	env := resttest.Start(t, notesTwin(false), "")
	const n = 100
	var wg sync.WaitGroup
	errs := make(chan string, n)
	cs := env.MCP(t)
	// Rows written by the MCP handshake are counted out below.
	base := len(env.Tape(t))
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			if i%2 == 0 {
				st, _, b := do(t, "POST", env.APIURL+"/notes", jsonBody(env.Token), fmt.Sprintf(`{"text":"n%d"}`, i))
				if st != 201 {
					errs <- string(b)
				}
				return
			}
			if text, isErr := resttest.CallTool(t, cs, "create_note", map[string]any{"text": fmt.Sprintf("n%d", i)}); isErr {
				errs <- text
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
	rows := env.Tape(t)[base:]
	if len(rows) != n {
		t.Fatalf("%d rows, want %d", len(rows), n)
	}
	for i, r := range rows {
		if r.Seq != int64(base+i+1) {
			t.Fatalf("seq gap at %d: %d", i, r.Seq)
		}
	}
	var st struct {
		Next  int               `json:"next"`
		Notes map[string]string `json:"notes"`
	}
	json.Unmarshal(env.State(t), &st)
	if st.Next != n+1 || len(st.Notes) != n {
		t.Fatalf("lost updates: next=%d notes=%d", st.Next, len(st.Notes))
	}
}

func TestStopAndDiscard(t *testing.T) {
	env := resttest.Start(t, notesTwin(false), "")
	do(t, "POST", env.APIURL+"/notes", jsonBody(env.Token), `{"text":"kept"}`)
	if st := env.Control(t, "DELETE", "/v1/sandboxes/"+env.SessionID, nil, nil); st != 204 {
		t.Fatalf("stop: %d", st)
	}
	// Agent surfaces are closed…
	for _, tok := range []string{env.Token, env.AgentToken, env.AuthToken} {
		if st, _, _ := do(t, "GET", env.APIURL+"/notes/1", bearer(tok), ""); st != 404 {
			t.Fatalf("stopped sandbox served REST: %d", st)
		}
	}
	if st, _, _ := do(t, "POST", env.MCPURL, map[string]string{"Authorization": "Bearer " + env.AgentToken, "Content-Type": "application/json", "Accept": "application/json, text/event-stream"}, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`); st != 404 {
		t.Fatalf("stopped sandbox served MCP: %d", st)
	}
	// …but state and tape stay readable.
	if st, _, b := do(t, "GET", env.APIURL+"/_pome/state", bearer(env.AuthToken), ""); st != 200 || !strings.Contains(string(b), "kept") {
		t.Fatalf("state after stop: %d %s", st, b)
	}
	if rows := env.Tape(t); len(rows) != 1 {
		t.Fatalf("tape after stop: %d rows", len(rows))
	}
	var sb map[string]any
	env.Control(t, "GET", "/v1/sandboxes/"+env.SessionID, nil, &sb)
	if sb["state"] != "stopped" || sb["stopped_at"] == nil {
		t.Fatalf("sandbox: %v", sb)
	}
	if st := env.Control(t, "DELETE", "/v1/sandboxes/"+env.SessionID+"?discard=true", nil, nil); st != 204 {
		t.Fatalf("discard: %d", st)
	}
	if st, _, _ := do(t, "GET", env.APIURL+"/_pome/state", bearer(env.AuthToken), ""); st != 404 {
		t.Fatalf("discarded state readable: %d", st)
	}
	if st := env.Control(t, "GET", "/v1/sandboxes/"+env.SessionID, nil, nil); st != 404 {
		t.Fatalf("discarded sandbox found: %d", st)
	}
}

func TestOpenAPI(t *testing.T) {
	env := resttest.Start(t, notesTwin(false), "")
	st, _, b := do(t, "GET", env.APIURL+"/openapi.json", bearer(env.AgentToken), "")
	if st != 200 {
		t.Fatalf("%d", st)
	}
	var doc struct {
		OpenAPI string                               `json:"openapi"`
		Paths   map[string]map[string]map[string]any `json:"paths"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.OpenAPI != "3.1.0" || doc.Paths["/notes/{id}"]["get"]["x-pome-tool"] != "get_note" || doc.Paths["/notes"]["post"]["requestBody"] == nil {
		t.Fatalf("%s", b)
	}
	for _, a := range notesTwin(false).Actions {
		for _, bd := range a.Spec().Bindings {
			if doc.Paths[bd.Path][strings.ToLower(bd.Method)] == nil {
				t.Errorf("binding %s %s missing", bd.Method, bd.Path)
			}
		}
	}
	if rows := env.Tape(t); len(rows) != 0 {
		t.Fatalf("openapi read was taped")
	}
}

func TestRootPaths(t *testing.T) {
	env := resttest.Start(t, notesTwin(false), "")
	other := resttest.Start(t, notesTwin(false), "")
	do(t, "POST", env.APIURL+"/notes", jsonBody(env.Token), `{"text":"root"}`)
	// The provider credential names the sandbox; the path is the vendor's.
	st, h, b := do(t, "GET", env.HTTP.URL+"/v1/notes/1", bearer(env.Token), "")
	if st != 200 || !strings.Contains(string(b), "root") {
		t.Fatalf("%d %s", st, b)
	}
	if !strings.HasPrefix(h.Get("Request-Id"), "req_") {
		t.Fatalf("Request-Id header: %v", h)
	}
	basic := base64.StdEncoding.EncodeToString([]byte(env.Token + ":"))
	if st, _, _ := do(t, "GET", env.HTTP.URL+"/v1/notes/1", map[string]string{"Authorization": "Basic " + basic}, ""); st != 200 {
		t.Fatalf("basic: %d", st)
	}
	rows := env.Tape(t)
	if last := rows[len(rows)-1]; !strings.HasPrefix(last.Path, "/notes/s/"+env.SessionID+"/v1/notes/1") || last.ToolName() != "get_note" {
		t.Fatalf("root call taped as %+v", last)
	}
	// Another server's sandbox id in a forged token is refused opaquely,
	// and a sandbox token is not a provider credential at the root.
	forged := "nt_" + strings.TrimPrefix(other.SessionID, "ses_") + strings.Repeat("x", 36)
	if st, _, b := do(t, "GET", env.HTTP.URL+"/v1/notes/1", bearer(forged), ""); st != 404 || !strings.Contains(string(b), "No twin pod") {
		t.Fatalf("forged: %d %s", st, b)
	}
	if st, _, b := do(t, "GET", env.HTTP.URL+"/v1/notes/1", bearer(env.AuthToken), ""); st != 401 || !strings.Contains(string(b), "invalid_auth") {
		t.Fatalf("sandbox token at the root: %d %s", st, b)
	}
}

// TestMCPFastPathMatchesSDK sends the same tools/call through the fast path
// and through the SDK and requires the same answer, the same state change
// and the same tape row.
func TestMCPFastPathMatchesSDK(t *testing.T) {
	post := func(env *resttest.Env, version, body string) (int, http.Header, string) {
		hdr := map[string]string{"Authorization": "Bearer " + env.AgentToken, "Content-Type": "application/json",
			"Accept": "application/json, text/event-stream"}
		if version != "" {
			hdr["Mcp-Protocol-Version"] = version
		}
		if version == "2026-07-28" {
			// The 2026 protocol names the method and the tool in headers.
			var req struct {
				Method string
				Params struct{ Name string }
			}
			if err := json.Unmarshal([]byte(body), &req); err == nil {
				hdr["Mcp-Method"], hdr["Mcp-Name"] = req.Method, req.Params.Name
			}
		}
		st, h, b := do(t, "POST", env.MCPURL, hdr, body)
		return st, h, string(b)
	}
	const meta2026 = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"roots":{}},"io.modelcontextprotocol/clientInfo":{"name":"agent","version":"1.0"}}`
	type call struct{ version, body string }
	calls := []call{
		{"2025-11-25", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_note","arguments":{"text":"fast","tags":["a"]}}}`},
		{"2025-11-25", `{"jsonrpc":"2.0","id":"x2","method":"tools/call","params":{"name":"get_note","arguments":{"id":1}}}`},
		{"2025-11-25", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_note","arguments":{"id":99}}}`},
		{"2025-11-25", `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"create_note","arguments":{"text":7}}}`},
		{"2025-11-25", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"add_tag","arguments":{"tag":"t"}}}`},
		{"2025-11-25", `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"add_tag","arguments":{"tag":"t"}}}`},
		{"2025-06-18", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":{"progressToken":"p7"},"name":"get_note","arguments":{"id":1}}}`},
		// The protocol Go SDK clients speak by default.
		{"2026-07-28", `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{` + meta2026 + `,"name":"create_note","arguments":{"text":"new"}}}`},
		{"2026-07-28", `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{` + meta2026 + `,"name":"get_note","arguments":{"id":2}}}`},
		{"2026-07-28", `{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{` + meta2026 + `,"name":"get_note","arguments":{"id":99}}}`},
		{"2026-07-28", `{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{` + meta2026 + `,"name":"create_note","arguments":{"text":7}}}`},
		// Arguments json.Marshal escapes: the row is marshalled, not built.
		{"2026-07-28", `{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{` + meta2026 + `,"name":"create_note","arguments":{"text":"<b>bold</b> & more"}}}`},
		{"2025-11-25", `{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"_meta":{"progressToken":13},"name":"create_note","arguments":{"text":"<i>"}}}`},
		// The oldest protocol, and none named (the SDK takes 2025-03-26).
		{"2024-11-05", `{"jsonrpc":"2.0","id":21,"method":"tools/call","params":{"name":"create_note","arguments":{"text":"old"}}}`},
		{"2024-11-05", `{"jsonrpc":"2.0","id":22,"method":"tools/call","params":{"name":"get_note","arguments":{"id":99}}}`},
		{"", `{"jsonrpc":"2.0","id":23,"method":"tools/call","params":{"name":"create_note","arguments":{"text":"none"}}}`},
		{"", `{"jsonrpc":"2.0","id":24,"method":"tools/call","params":{"name":"create_note","arguments":{"text":7}}}`},
		// tools/list, kept after its first answer: each twice, the second
		// from what was kept.
		{"2025-11-25", `{"jsonrpc":"2.0","id":14,"method":"tools/list"}`},
		{"2025-11-25", `{"jsonrpc":"2.0","id":"l15","method":"tools/list"}`},
		{"2025-03-26", `{"jsonrpc":"2.0","id":16,"method":"tools/list","params":{}}`},
		{"2025-03-26", `{"jsonrpc":"2.0","id":17,"method":"tools/list","params":{}}`},
		{"2026-07-28", `{"jsonrpc":"2.0","id":18,"method":"tools/list","params":{` + meta2026 + `}}`},
		{"2026-07-28", `{"jsonrpc":"2.0","id":19,"method":"tools/list","params":{` + meta2026 + `}}`},
		{"2025-11-25", `{"jsonrpc":"2.0","id":20,"method":"tools/list","params":{"cursor":"bogus"}}`},
	}
	type outcome struct {
		answers []string
		state   string
		rows    []string
	}
	run := func(fast bool) outcome {
		mcpserver.FastPath = fast
		defer func() { mcpserver.FastPath = true }()
		env := resttest.Start(t, notesTwin(false), "")
		var o outcome
		for _, c := range calls {
			st, h, b := post(env, c.version, c.body)
			if st != 200 || !json.Valid([]byte(b)) {
				t.Fatalf("fast=%v %s: %d %s", fast, c.body, st, b)
			}
			// Byte for byte, with the headers a client may read.
			o.answers = append(o.answers, fmt.Sprintf("%d %s | %s | %s", st, h.Get("Content-Type"), h.Get("Cache-Control"), strings.TrimSpace(b)))
		}
		o.state = string(env.State(t))
		for _, r := range env.Tape(t) {
			o.rows = append(o.rows, fmt.Sprintf("%d %s %s %v %s %s", r.Seq, r.MCPMethod, r.ToolName(), r.StateMutation, r.Request.Body, r.Response.Body))
		}
		return o
	}
	fast, sdk := run(true), run(false)
	for i := range calls {
		if fast.answers[i] != sdk.answers[i] {
			t.Errorf("call %d:\nfast %s\n sdk %s", i, fast.answers[i], sdk.answers[i])
		}
	}
	if !strings.Contains(fast.answers[8], `"resultType":"complete"`) || !strings.Contains(fast.answers[8], `"io.modelcontextprotocol/serverInfo"`) {
		t.Errorf("a 2026 answer without the protocol's fields: %s", fast.answers[8])
	}
	if fast.state != sdk.state {
		t.Errorf("state differs:\n%s\n%s", fast.state, sdk.state)
	}
	if strings.Join(fast.rows, "\n") != strings.Join(sdk.rows, "\n") {
		t.Errorf("tape differs:\nfast %s\n sdk %s", strings.Join(fast.rows, "\n"), strings.Join(sdk.rows, "\n"))
	}
	// What the fast path does not take still works: initialize, unknown
	// tools, bad JSON.
	env := resttest.Start(t, notesTwin(false), "")
	for _, c := range []struct{ version, body string }{
		{"2025-11-25", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`},
		{"2025-11-25", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"nope","arguments":{}}}`},
		{"2025-11-25", `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`},
	} {
		if st, _, b := post(env, c.version, c.body); st != 200 || !strings.Contains(b, `"jsonrpc":"2.0"`) {
			t.Errorf("%s: %d %s", c.body, st, b)
		}
	}
	if st, _, _ := post(env, "2025-11-25", `{"jsonrpc":`); st < 400 || st >= 500 {
		t.Errorf("bad JSON: %d", st)
	}
}

// TestMCPFastPathAnswerHasLength: the fast path flushes its answer before
// taping; without a length that answer went out chunked, its end in a
// second write.
func TestMCPFastPathAnswerHasLength(t *testing.T) {
	env := resttest.Start(t, notesTwin(false), "")
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_note","arguments":{"text":"x"}}}`
	resp, b := doResp(t, "POST", env.MCPURL, map[string]string{"Authorization": "Bearer " + env.AgentToken, "Content-Type": "application/json",
		"Accept": "application/json, text/event-stream", "Mcp-Protocol-Version": "2025-11-25"}, body)
	if resp.StatusCode != 200 || len(resp.TransferEncoding) != 0 || resp.ContentLength != int64(len(b)) {
		t.Fatalf("%d transfer-encoding %v content-length %d for %d bytes: %s", resp.StatusCode, resp.TransferEncoding, resp.ContentLength, len(b), b)
	}
}

func TestETags(t *testing.T) {
	env := resttest.Start(t, notesTwin(false), "")
	do(t, "POST", env.APIURL+"/notes", jsonBody(env.Token), `{"text":"v1"}`)
	st, h, _ := do(t, "GET", env.APIURL+"/notes/1", bearer(env.Token), "")
	etag := h.Get("ETag")
	if st != 200 || !strings.HasPrefix(etag, `W/"`) {
		t.Fatalf("%d etag %q", st, etag)
	}
	hdr := bearer(env.Token)
	hdr["If-None-Match"] = etag
	if st, _, b := do(t, "GET", env.APIURL+"/notes/1", hdr, ""); st != 304 || len(b) != 0 {
		t.Fatalf("conditional GET: %d %s", st, b)
	}
	hdr["If-None-Match"] = `W/"other"`
	if st, _, _ := do(t, "GET", env.APIURL+"/notes/1", hdr, ""); st != 200 {
		t.Fatalf("stale etag: %d", st)
	}
	// Writes carry no ETag.
	if _, h, _ := do(t, "POST", env.APIURL+"/notes", jsonBody(env.Token), `{"text":"v2"}`); h.Get("ETag") != "" {
		t.Fatalf("POST with ETag")
	}
	rows := env.Tape(t)
	if rows[2].Status != 304 || rows[2].ToolName() != "get_note" {
		t.Fatalf("304 row: %+v", rows[2])
	}
}

// TestPathVariablesUnescapedOnce: %2541 is the literal "%41", and an escaped
// slash stays inside its path variable.
func TestPathVariablesUnescapedOnce(t *testing.T) {
	env := resttest.Start(t, notesTwin(false), "")
	do(t, "POST", env.APIURL+"/notes", jsonBody(env.Token), `{"text":"one"}`)
	if st, _, b := do(t, "GET", env.APIURL+"/notes/%31", bearer(env.Token), ""); st != 200 || !strings.Contains(string(b), "one") {
		t.Fatalf("escaped digit: %d %s", st, b)
	}
	// "%2531" is "%31", not "1": not an integer, so a 400 from the twin.
	if st, _, b := do(t, "GET", env.APIURL+"/notes/%2531", bearer(env.Token), ""); st != 400 {
		t.Fatalf("double-escaped id: %d %s", st, b)
	}
	// An escaped slash is part of the id: the twin refuses it, no 501.
	if st, _, b := do(t, "GET", env.APIURL+"/notes/1%2F2", bearer(env.Token), ""); st != 400 {
		t.Fatalf("escaped slash: %d %s", st, b)
	}
}

// TestTapeCap: past the cap the tape says how many calls it lacks, and a
// tape check refuses to decide rather than pass on a partial tape.
func TestTapeCap(t *testing.T) {
	env := resttest.Start(t, notesTwin(false), "")
	env.Server.Manager.Store.(interface{ SetMaxTapeRows(int64) }).SetMaxTapeRows(3)
	for i := 0; i < 5; i++ {
		do(t, "POST", env.APIURL+"/notes", jsonBody(env.Token), fmt.Sprintf(`{"text":"n%d"}`, i))
	}
	var out map[string]any
	env.Control(t, "GET", "/v1/sandboxes/"+env.SessionID+"/tapes/notes", nil, &out)
	if out["count"] != 3.0 || out["truncated"] != true || out["dropped"] != 2.0 {
		t.Fatalf("%v", out)
	}
	st, h, _ := do(t, "GET", env.APIURL+"/_pome/tape?format=jsonl", bearer(env.AuthToken), "")
	if st != 200 || h.Get("Pome-Tape-Dropped") != "2" {
		t.Fatalf("jsonl: %d %v", st, h)
	}
	// The state still holds every write.
	var w struct{ Next int }
	json.Unmarshal(env.State(t), &w)
	if w.Next != 6 {
		t.Fatalf("next %d", w.Next)
	}
	sb, err := env.Server.Manager.Get(t.Context(), "test", env.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	in, err := env.Server.Manager.Input(t.Context(), sb, notesTwin(false))
	if err != nil {
		t.Fatal(err)
	}
	c, _ := in.Twin.Check("notes.tool-never-called")
	if _, err := c.Evaluate(in, map[string]string{"tool": "get_note"}); err == nil || !strings.Contains(err.Error(), "2 calls are not on it") {
		t.Fatalf("tape check on a capped tape: %v", err)
	}
}

// TestStateDeltaOnTape: every row that changed state carries what it
// changed, over both transports; reads and no-op writes carry nothing.
func TestStateDeltaOnTape(t *testing.T) {
	env := resttest.Start(t, notesTwin(false), "")
	env.Server.Manager.Config.StateDeltas = true
	do(t, "POST", env.APIURL+"/notes", jsonBody(env.Token), `{"text":"first"}`)
	do(t, "GET", env.APIURL+"/notes/1", bearer(env.Token), "")
	do(t, "POST", env.APIURL+"/tags", jsonBody(env.Token), `{"tag":"x"}`)
	do(t, "POST", env.APIURL+"/tags", jsonBody(env.Token), `{"tag":"x"}`)
	cs := env.MCP(t)
	resttest.CallTool(t, cs, "create_note", map[string]any{"text": "second"})
	byTool := map[string][]string{}
	for _, r := range env.Tape(t) {
		if r.ToolName() == "" {
			continue
		}
		byTool[r.ToolName()] = append(byTool[r.ToolName()], string(r.StateDelta))
		if !r.StateMutation && len(r.StateDelta) > 0 {
			t.Errorf("row %d changed nothing but has a delta %s", r.Seq, r.StateDelta)
		}
	}
	var first, second []struct{ Op, Path string }
	json.Unmarshal([]byte(byTool["create_note"][0]), &first)
	json.Unmarshal([]byte(byTool["create_note"][1]), &second)
	want := func(ch []struct{ Op, Path string }, path string) bool {
		for _, c := range ch {
			if c.Path == path && c.Op == "added" {
				return true
			}
		}
		return false
	}
	if !want(first, "/notes/1") || !want(second, "/notes/2") {
		t.Fatalf("create deltas: %v / %v", byTool["create_note"][0], byTool["create_note"][1])
	}
	if byTool["get_note"][0] != "" || byTool["add_tag"][1] != "" || !strings.Contains(byTool["add_tag"][0], `"/tags"`) {
		t.Fatalf("deltas: %v", byTool)
	}
}
