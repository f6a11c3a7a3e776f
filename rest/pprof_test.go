package rest_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/pomehq/pome/rest"
	"github.com/pomehq/pome/session"
	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/github"
)

// TestPprofTakesTeamKey: with --pprof, profiles need a team API key as the
// control plane does, and the command line (which may carry a
// --redis-url password) is never served; without --pprof nothing is there.
func TestPprofTakesTeamKey(t *testing.T) {
	key := session.NewAPIKey()
	teams, err := session.NewTeams(map[string][]string{"ops": {key}})
	if err != nil {
		t.Fatal(err)
	}
	serve := func(pprof bool) *httptest.Server {
		store := session.NewMemoryStore(nil, 0)
		t.Cleanup(func() { store.Close() })
		hs := httptest.NewServer(rest.NewServer(rest.Config{Pprof: pprof}, twins.NewRegistry(github.New()), store, teams))
		t.Cleanup(hs.Close)
		return hs
	}
	get := func(base, path string, hdr ...string) (int, string) {
		req, _ := http.NewRequest(http.MethodGet, base+path, nil)
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(data)
	}
	hs := serve(true)
	for _, path := range []string{"/debug/pprof/", "/debug/pprof/heap?debug=1", "/debug/pprof/goroutine", "/debug/pprof/symbol", "/debug/pprof/cmdline"} {
		if st, body := get(hs.URL, path); st != http.StatusUnauthorized {
			t.Errorf("%s without a key: %d %.80s", path, st, body)
		}
		if st, body := get(hs.URL, path, "Authorization", "Bearer pme_"+strings.Repeat("x", 32)); st != http.StatusUnauthorized {
			t.Errorf("%s with a wrong key: %d %.80s", path, st, body)
		}
	}
	if st, body := get(hs.URL, "/debug/pprof/heap?debug=1", "Authorization", "Bearer "+key); st != http.StatusOK || !strings.Contains(body, "HeapAlloc") {
		t.Errorf("heap with the key: %d %.80s", st, body)
	}
	if st, _ := get(hs.URL, "/debug/pprof/", "x-api-key", key); st != http.StatusOK {
		t.Errorf("index with x-api-key: %d", st)
	}
	st, body := get(hs.URL, "/debug/pprof/cmdline", "Authorization", "Bearer "+key)
	if st != http.StatusNotFound || strings.Contains(body, "rest.test") {
		t.Errorf("cmdline with the key: %d %s", st, body)
	}

	off := serve(false)
	if st, _ := get(off.URL, "/debug/pprof/heap", "Authorization", "Bearer "+key); st == http.StatusOK {
		t.Errorf("pprof served without --pprof")
	}
}
