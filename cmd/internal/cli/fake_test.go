package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// testSID is the sandbox the fake control plane knows.
const testSID = "ses_L2RwKae6MWKMg1v2"

// testKey is the team API key the fake control plane accepts.
const testKey = "pme_0123456789abcdef0123456789abcdef"

// fakeRequest is what the fake control plane saw.
type fakeRequest struct {
	Method, Path, RawQuery, Auth string
	Body                         []byte
}

// fakeServer imitates a Pome control plane with the wire shapes of SPEC §4
// and §6. Setting failStatus makes every /v1 call answer that error.
type fakeServer struct {
	*httptest.Server
	t *testing.T

	mu         sync.Mutex
	requests   []fakeRequest
	failStatus int
	failType   string
	// team is reported by /v1/usage; empty means "acme".
	team string
	// follow, when set, serves ?follow=1 instead of the default stream.
	follow http.HandlerFunc
}

func newFakeServer(t *testing.T) *fakeServer {
	t.Helper()
	f := &fakeServer{t: t}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/usage", f.usage)
	mux.HandleFunc("POST /v1/sandboxes", f.create)
	mux.HandleFunc("GET /v1/sandboxes", f.list)
	mux.HandleFunc("GET /v1/sandboxes/{sid}", f.get)
	mux.HandleFunc("DELETE /v1/sandboxes/{sid}", f.stop)
	mux.HandleFunc("GET /v1/sandboxes/{sid}/tapes/{twin}", f.tape)
	mux.HandleFunc("GET /v1/sandboxes/{sid}/state/{twin}", f.state)
	mux.HandleFunc("GET /v1/checks", f.checks)
	mux.HandleFunc("GET /v1/twins", f.twins)
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		f.mu.Lock()
		f.requests = append(f.requests, fakeRequest{r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Get("Authorization"), body})
		failStatus, failType := f.failStatus, f.failType
		f.mu.Unlock()
		if r.Header.Get("Authorization") != "Bearer "+testKey {
			apiError(w, http.StatusUnauthorized, "invalid_auth", "Invalid API key.", nil)
			return
		}
		if failStatus != 0 {
			apiError(w, failStatus, failType, "Injected failure.", nil)
			return
		}
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(f.Close)
	return f
}

// seen returns the requests received so far.
func (f *fakeServer) seen() []fakeRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]fakeRequest(nil), f.requests...)
}

// last returns the last request received.
func (f *fakeServer) last() fakeRequest {
	s := f.seen()
	if len(s) == 0 {
		f.t.Fatal("the fake server received no request")
	}
	return s[len(s)-1]
}

func (f *fakeServer) fail(status int, typ string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failStatus, f.failType = status, typ
}

func apiError(w http.ResponseWriter, status int, typ, msg string, details any) {
	e := map[string]any{"type": typ, "message": msg, "request_id": "req_test123"}
	if details != nil {
		e["details"] = details
	}
	writeJSON(w, status, map[string]any{"error": e})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func (f *fakeServer) usage(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	team := f.team
	f.mu.Unlock()
	if team == "" {
		team = "acme"
	}
	writeJSON(w, 200, map[string]any{
		"team": team, "period_start": "2026-12-01T00:00:00Z", "sandboxes_open": 2,
		"sandboxes_created": 7, "sandboxes_quota": 1000, "twins_started": 9, "evals": 3,
	})
}

var knownTwins = map[string]bool{"github": true, "slack": true, "stripe": true, "gmail": true}

// tokens are vendor-shaped; the Slack one holds characters a shell would
// otherwise interpret, to prove the secrets file quotes them.
// fakeSlackUserToken is the fake server's Slack user credential.
const fakeSlackUserToken = "xoxp-fakeUserToken"

var fakeTokens = map[string]string{
	"github": "ghp_fakeGithubToken123",
	"slack":  `xoxb-it's-$HOME-"q"`,
	"stripe": "sk_test_fake",
	"gmail":  "ya29.fake",
}

func (f *fakeServer) create(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Twins      []string        `json:"twins"`
		Seed       json.RawMessage `json:"seed"`
		TTLSeconds int             `json:"ttl_seconds"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		apiError(w, 422, "validation_failed", "Body is not JSON.", nil)
		return
	}
	if len(req.Twins) == 0 || len(req.Twins) > 3 {
		apiError(w, 422, "validation_failed", "A sandbox runs 1 to 3 twins.", map[string]any{"field": "twins"})
		return
	}
	for i, t := range req.Twins {
		if !knownTwins[t] {
			apiError(w, 422, "validation_failed", fmt.Sprintf("Unknown twin %q.", t),
				[]any{map[string]any{"path": fmt.Sprintf("twins[%d]", i), "message": "unknown twin"}})
			return
		}
	}
	base := "http://" + r.Host
	perTwin := map[string]any{}
	creds := map[string]any{}
	for _, t := range req.Twins {
		api := base + "/" + t + "/s/" + testSID
		perTwin[t] = map[string]any{"api_url": api, "mcp_url": api + "/mcp", "openapi_url": api + "/openapi.json"}
		cred := map[string]any{"token": fakeTokens[t], "header": "Authorization", "scheme": "Bearer"}
		if t == "slack" {
			cred["user_token"] = fakeSlackUserToken
		}
		creds[t] = cred
	}
	writeJSON(w, 201, map[string]any{
		"session_id":           testSID,
		"expires_at":           "2026-12-02T15:30:00Z",
		"auth_token":           "pst_fakeAuthToken",
		"agent_token":          "pat_fakeAgentToken",
		"per_twin":             perTwin,
		"provider_credentials": creds,
	})
}

func testSandbox() map[string]any {
	return map[string]any{"id": testSID, "state": "ready", "twins": []string{"github", "slack"},
		"created_at": "2026-12-02T15:00:00Z", "expires_at": "2026-12-02T15:30:00Z"}
}

func (f *fakeServer) list(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, 200, map[string]any{"data": []any{
		testSandbox(),
		map[string]any{"id": "ses_0000000000000001", "state": "stopped", "twins": []string{"stripe"},
			"created_at": "2026-12-01T10:00:00Z", "expires_at": "2026-12-01T10:30:00Z", "stopped_at": "2026-12-01T10:10:00Z"},
	}, "has_more": false})
}

func (f *fakeServer) get(w http.ResponseWriter, r *http.Request) {
	if r.PathValue("sid") != testSID {
		apiError(w, 404, "not_found", "No such sandbox.", nil)
		return
	}
	writeJSON(w, 200, testSandbox())
}

func (f *fakeServer) stop(w http.ResponseWriter, r *http.Request) {
	if r.PathValue("sid") != testSID {
		apiError(w, 404, "not_found", "No such sandbox.", nil)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// tapeRows are two GitHub rows shaped as in SPEC §6: an MCP handshake and a
// REST write.
func tapeRows() []map[string]any {
	tool := "add_issue_comment"
	return []map[string]any{
		{"seq": 1, "at": "2026-12-02T15:01:00.000001Z", "session_id": testSID, "twin": "github",
			"transport": "mcp", "method": "POST", "path": "/github/s/" + testSID + "/mcp",
			"tool": nil, "status": 200, "state_mutation": false,
			"request":  map[string]any{"query": map[string]any{}, "headers": map[string]any{"authorization": "[REDACTED]"}},
			"response": map[string]any{"body": map[string]any{}}, "latency_us": 80},
		{"seq": 2, "at": "2026-12-02T15:01:02.123456Z", "session_id": testSID, "twin": "github",
			"transport": "rest", "method": "POST", "path": "/github/s/" + testSID + "/repos/acme/api/issues/1/comments",
			"tool": tool, "status": 201, "state_mutation": true,
			"request": map[string]any{"query": map[string]any{}, "body": map[string]any{"body": "On it"},
				"headers": map[string]any{"authorization": "[REDACTED]"}},
			"response": map[string]any{"body": map[string]any{"id": 1}}, "latency_us": 412},
	}
}

func (f *fakeServer) tape(w http.ResponseWriter, r *http.Request) {
	sid, twin := r.PathValue("sid"), r.PathValue("twin")
	if sid != testSID {
		apiError(w, 404, "not_found", "No such sandbox.", nil)
		return
	}
	if !knownTwins[twin] {
		apiError(w, 404, "not_found", "This sandbox runs no twin "+twin+".", nil)
		return
	}
	if r.URL.Query().Get("follow") == "1" {
		f.mu.Lock()
		h := f.follow
		f.mu.Unlock()
		if h != nil {
			h(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		fmt.Fprint(w, ": keep-alive\n\n")
		fmt.Fprint(w, "event: ping\ndata: {}\n\n")
		for _, row := range tapeRows() {
			b, _ := json.Marshal(row)
			fmt.Fprintf(w, "data: %s\n\n", b)
			w.(http.Flusher).Flush()
		}
		return
	}
	rows := tapeRows()
	writeJSON(w, 200, map[string]any{"session_id": sid, "twin": twin, "rows": rows, "count": len(rows)})
}

func (f *fakeServer) state(w http.ResponseWriter, r *http.Request) {
	if r.PathValue("sid") != testSID {
		apiError(w, 404, "not_found", "No such sandbox.", nil)
		return
	}
	writeJSON(w, 200, map[string]any{"repos": map[string]any{"acme/api": map[string]any{"issues": []any{map[string]any{"number": 1}}}}})
}

func (f *fakeServer) checks(w http.ResponseWriter, r *http.Request) {
	twin := r.URL.Query().Get("twin")
	if !knownTwins[twin] {
		apiError(w, 422, "validation_failed", "Unknown twin.", map[string]any{"twin": "unknown twin " + twin})
		return
	}
	writeJSON(w, 200, map[string]any{"twin": twin, "checks": []any{
		map[string]any{"id": twin + ".tool-was-called", "template": "The {tool} tool was called",
			"params":    []any{map[string]any{"name": "tool", "type": "string", "pattern": "^[a-z_]+$", "example": "issue_read"}},
			"substrate": "tape", "polarity": "positive", "description": "At least one tape row names the tool."},
		map[string]any{"id": twin + ".no-mutations", "template": "No call changed state",
			"params": []any{}, "substrate": "tape", "polarity": "negative", "description": "No row has state_mutation."},
	}})
}

func (f *fakeServer) twins(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, 200, map[string]any{"twins": []any{
		map[string]any{"name": "github", "title": "GitHub",
			"tools":    []any{map[string]any{"name": "issue_read", "effect": "read"}, map[string]any{"name": "issue_write", "effect": "write"}},
			"bindings": []any{map[string]any{"method": "GET", "path": "/repos/{owner}/{repo}/issues/{issue_number}", "tool": "issue_read"}}},
		map[string]any{"name": "slack", "title": "Slack",
			"tools":    []any{map[string]any{"name": "slack_send_message", "effect": "write"}},
			"bindings": []any{}},
	}})
}

// result is one CLI invocation's outcome.
type result struct {
	stdout, stderr string
	code           int
}

// isolate points HOME and XDG_CONFIG_HOME at a fresh directory and clears
// every POME_* variable, so that no test sees the developer's settings. It
// returns the config file path the CLI will use by default.
func isolate(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("HOME", dir)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "xdg"))
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); strings.HasPrefix(name, "POME_") {
			t.Setenv(name, "")
			os.Unsetenv(name)
		}
	}
	return filepath.Join(dir, "xdg", "pome", "config.yaml")
}

// runCLI runs the CLI in-process.
func runCLI(t *testing.T, args ...string) result {
	t.Helper()
	return runApp(t, &App{Stdin: strings.NewReader("")}, context.Background(), args...)
}

func runApp(t *testing.T, a *App, ctx context.Context, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	a.Stdout, a.Stderr = &out, &errb
	code := a.Run(ctx, args)
	return result{out.String(), errb.String(), code}
}

// writeConfig writes a config file with the given content.
func writeConfig(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// loggedIn writes a config file pointing at f with the test key.
func loggedIn(t *testing.T, f *fakeServer) string {
	t.Helper()
	path := isolate(t)
	writeConfig(t, path, "server: "+f.URL+"\napi_key: "+testKey+"\n")
	return path
}
