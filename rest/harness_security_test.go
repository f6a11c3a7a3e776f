package rest_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/pomehq/pome/rest"
	"github.com/pomehq/pome/session"
	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/all"
)

// syncBuffer is a log sink the server's handlers may write concurrently.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// realServer is a complete server over every real twin with two teams,
// its log captured, for the security, limits and fault tests.
type realServer struct {
	URL   string
	Srv   *rest.Server
	Store session.Store
	KeyA  string
	KeyB  string
	TeamA string
	Log   *syncBuffer
	Reg   *twins.Registry
}

func startReal(t testing.TB, cfg rest.Config, store session.Store) *realServer {
	t.Helper()
	a, b := session.NewAPIKey(), session.NewAPIKey()
	// Random team names: a shared Redis may hold other runs' teams.
	teamA := "a-" + session.NewRequestID()
	teams, err := session.NewTeams(map[string][]string{teamA: {a}, "b-" + session.NewRequestID(): {b}})
	if err != nil {
		t.Fatal(err)
	}
	if store == nil {
		ms := session.NewMemoryStore(nil, 0)
		t.Cleanup(func() { ms.Close() })
		store = ms
	}
	logs := &syncBuffer{}
	cfg.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	reg := cfg.Registry
	if reg == nil {
		reg = all.Registry()
	}
	hs := httptest.NewServer(nil)
	t.Cleanup(hs.Close)
	if cfg.PublicURL == "" {
		cfg.PublicURL = hs.URL
	}
	srv := rest.NewServer(cfg, reg, store, teams)
	hs.Config.Handler = srv
	return &realServer{URL: hs.URL, Srv: srv, Store: store, KeyA: a, KeyB: b, TeamA: teamA, Log: logs, Reg: reg}
}

// create makes a sandbox for team key with the named twins.
func (s *realServer) create(t testing.TB, key string, names ...string) *session.Created {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"twins": names})
	req, _ := http.NewRequest("POST", s.URL+"/v1/sandboxes", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var c session.Created
	if err := json.NewDecoder(resp.Body).Decode(&c); err != nil || resp.StatusCode != 201 {
		t.Fatalf("create %v: %d %v", names, resp.StatusCode, err)
	}
	return &c
}

// state reads a twin's state document through the control plane.
func (s *realServer) state(t testing.TB, key, sid, twin string) string {
	t.Helper()
	st, _, b := doTB(t, "GET", s.URL+"/v1/sandboxes/"+sid+"/state/"+twin, map[string]string{"Authorization": "Bearer " + key}, "")
	if st != 200 {
		t.Fatalf("state %s: %d %s", twin, st, b)
	}
	return string(b)
}

// doTB is do for benchmarks and helpers that hold a testing.TB.
func doTB(t testing.TB, method, url string, hdr map[string]string, body string) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, bytes.NewReader([]byte(body)))
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
	var buf bytes.Buffer
	buf.ReadFrom(resp.Body)
	return resp.StatusCode, resp.Header, buf.Bytes()
}

// discard deletes team a's sandboxes now, so that a shared Redis keeps
// nothing of this run.
func (s *realServer) discard(t testing.TB, ids ...string) {
	for _, id := range ids {
		doTB(t, "DELETE", s.URL+"/v1/sandboxes/"+id+"?discard=true", map[string]string{"Authorization": "Bearer " + s.KeyA}, "")
	}
}

// newLoopbackServer serves h on a loopback httptest server closed with t.
func newLoopbackServer(t testing.TB, h http.Handler) *httptest.Server {
	hs := httptest.NewServer(h)
	t.Cleanup(hs.Close)
	return hs
}
