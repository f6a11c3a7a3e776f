package main

import (
	"net/http/httptest"
	"testing"

	"github.com/pomehq/pome/rest"
	"github.com/pomehq/pome/session"
	"github.com/pomehq/pome/twins/all"
)

// benchTwins are the twins of every sandbox the tests create: the bench's
// default, three default worlds, the most a sandbox may hold.
var benchTwins = []string{"github", "slack", "stripe"}

// startPome serves a complete Pome server on a loopback httptest server
// over store and returns its URL and a team API key.
func startPome(tb testing.TB, store session.Store, quota int) (url, key string) {
	_, url, key = startServer(tb, store, quota)
	return url, key
}

// startServer is startPome that also returns the server, for a benchmark
// that calls its handler directly.
func startServer(tb testing.TB, store session.Store, quota int) (srv *rest.Server, url, key string) {
	tb.Helper()
	key = session.NewAPIKey()
	teams, err := session.NewTeams(map[string][]string{"bench": {key}})
	if err != nil {
		tb.Fatal(err)
	}
	hs := httptest.NewServer(nil)
	tb.Cleanup(hs.Close)
	tb.Cleanup(func() { store.Close() })
	srv = rest.NewServer(rest.Config{PublicURL: hs.URL, SandboxQuota: quota, Pprof: true}, all.Registry(), store, teams)
	hs.Config.Handler = srv
	return srv, hs.URL, key
}
