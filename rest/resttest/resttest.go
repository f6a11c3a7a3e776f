// Package resttest starts a complete in-process Pome server (memory store)
// with one sandbox, for end-to-end tests of twins through real HTTP: vendor
// SDKs point at APIURL, MCP clients at MCPURL.
package resttest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pomehq/pome/rest"
	"github.com/pomehq/pome/session"
	"github.com/pomehq/pome/tape"
	"github.com/pomehq/pome/twins"
)

// NewStore returns the store tests run on: the memory store, or Redis when
// POME_TEST_STORE=redis and POME_TEST_REDIS_URL are set (CI runs the twin
// suites both ways, so every world also survives the JSON round trip the
// Redis store puts it through on every call). On Redis every write saved
// as an operation is also run again as another replica would run it, and
// the test fails if that makes a world other than the writer's.
func NewStore(t testing.TB) session.Store {
	t.Helper()
	var store session.Store = session.NewMemoryStore(nil, 0)
	if url := os.Getenv("POME_TEST_REDIS_URL"); url != "" && os.Getenv("POME_TEST_STORE") == "redis" {
		client, err := session.OpenRedis(url)
		if err != nil {
			t.Fatal(err)
		}
		rs := session.NewRedisStore(client, nil)
		rs.VerifyOperations()
		t.Cleanup(func() {
			for _, f := range rs.OperationFaults() {
				t.Errorf("a write does not replay: %s", f)
			}
		})
		store = rs
	}
	t.Cleanup(func() { store.Close() })
	return store
}

// Env is a running server with one sandbox.
type Env struct {
	HTTP   *httptest.Server
	Server *rest.Server
	APIKey string

	SessionID  string
	AuthToken  string
	AgentToken string
	// Twin is the first twin's name; APIURL, MCPURL and Token are its.
	Twin   string
	APIURL string
	MCPURL string
	Token  string
	// Created is the whole create response, for multi-twin sandboxes.
	Created *session.Created
}

// Start serves tw alone and creates a sandbox with it; seed is the twin's
// seed document ("" for the default world).
func Start(t testing.TB, tw *twins.Twin, seed string) *Env {
	t.Helper()
	seeds := map[string]string{}
	if seed != "" {
		seeds[tw.Name] = seed
	}
	return StartMulti(t, twins.NewRegistry(tw), []string{tw.Name}, seeds)
}

// StartMulti serves reg and creates a sandbox with the named twins.
func StartMulti(t testing.TB, reg *twins.Registry, names []string, seeds map[string]string) *Env {
	t.Helper()
	key := session.NewAPIKey()
	teams, err := session.NewTeams(map[string][]string{"test": {key}})
	if err != nil {
		t.Fatal(err)
	}
	store := NewStore(t)
	hs := httptest.NewUnstartedServer(nil)
	hs.Start()
	t.Cleanup(hs.Close)
	srv := rest.NewServer(rest.Config{Addr: hs.Listener.Addr().String(), PublicURL: hs.URL}, reg, store, teams)
	hs.Config.Handler = srv

	env := &Env{HTTP: hs, Server: srv, APIKey: key}
	body := map[string]any{"twins": names}
	if len(seeds) > 0 {
		s := map[string]json.RawMessage{}
		for k, v := range seeds {
			s[k] = json.RawMessage(v)
		}
		body["seed"] = s
	}
	var created session.Created
	status := env.Control(t, http.MethodPost, "/v1/sandboxes", body, &created)
	if status != http.StatusCreated {
		t.Fatalf("create sandbox: status %d", status)
	}
	env.Created = &created
	env.SessionID, env.AuthToken, env.AgentToken = created.SessionID, created.AuthToken, created.AgentToken
	env.Twin = names[0]
	env.APIURL = created.PerTwin[env.Twin].APIURL
	env.MCPURL = created.PerTwin[env.Twin].MCPURL
	env.Token = created.ProviderCredentials[env.Twin].Token
	return env
}

// Control calls the control plane with the team key, decoding the JSON
// answer into out (if non-nil), and returns the status.
func (e *Env) Control(t testing.TB, method, path string, body, out any) int {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, e.HTTP.URL+path, rd)
	req.Header.Set("Authorization", "Bearer "+e.APIKey)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if out != nil && len(data) > 0 {
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatalf("%s %s: decode %s: %v", method, path, data, err)
		}
	}
	return resp.StatusCode
}

// Tape returns the named twin's tape (default: the first twin's).
func (e *Env) Tape(t testing.TB, twin ...string) []tape.Row {
	t.Helper()
	name := e.Twin
	if len(twin) > 0 {
		name = twin[0]
	}
	var out struct {
		Rows []tape.Row `json:"rows"`
	}
	if st := e.Control(t, http.MethodGet, "/v1/sandboxes/"+e.SessionID+"/tapes/"+name, nil, &out); st != http.StatusOK {
		t.Fatalf("tape: status %d", st)
	}
	return out.Rows
}

// State returns the named twin's state document.
func (e *Env) State(t testing.TB, twin ...string) json.RawMessage {
	t.Helper()
	name := e.Twin
	if len(twin) > 0 {
		name = twin[0]
	}
	var out json.RawMessage
	if st := e.Control(t, http.MethodGet, "/v1/sandboxes/"+e.SessionID+"/state/"+name, nil, &out); st != http.StatusOK {
		t.Fatalf("state: status %d", st)
	}
	return out
}

// Do sends a request to the first twin's REST surface with the provider
// token and returns status and body.
func (e *Env) Do(t testing.TB, method, path, contentType string, body []byte) (int, []byte) {
	t.Helper()
	req, _ := http.NewRequest(method, e.APIURL+path, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+e.Token)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, data
}

// MCP connects an MCP client (the go-sdk's) to the named twin with token
// (default: the first twin, the agent token).
func (e *Env) MCP(t testing.TB, twinAndToken ...string) *mcp.ClientSession {
	t.Helper()
	url, tok := e.MCPURL, e.AgentToken
	if len(twinAndToken) > 0 {
		url = e.Created.PerTwin[twinAndToken[0]].MCPURL
	}
	if len(twinAndToken) > 1 {
		tok = twinAndToken[1]
	}
	return ConnectMCP(t, url, tok)
}

// ConnectMCP opens an MCP client session to url with a bearer token.
func ConnectMCP(t testing.TB, url, token string) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "pome-test", Version: "1"}, nil)
	transport := &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{token}}}
	cs, err := client.Connect(context.Background(), transport, nil)
	if err != nil {
		t.Fatalf("mcp connect %s: %v", url, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// CallTool calls a tool and returns its JSON text and whether it is an error.
func CallTool(t testing.TB, cs *mcp.ClientSession, name string, args any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	if len(res.Content) == 0 {
		return "", res.IsError
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("call %s: content %T", name, res.Content[0])
	}
	return tc.Text, res.IsError
}

type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", fmt.Sprintf("Bearer %s", b.token))
	return http.DefaultTransport.RoundTrip(r)
}
