package main

import (
	"net/http/httptest"
	"testing"

	"github.com/pomehq/pome/rest"
	"github.com/pomehq/pome/session"
	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/github"
	"github.com/pomehq/pome/twins/slack"
)

// benchTwins are the twins the in-process tests serve. The bench's data
// scenarios call GitHub and Slack; Stripe is left out until it has a
// constructor, so these tests never wait on it.
var benchTwins = []string{"github", "slack"}

func registry() *twins.Registry {
	return twins.NewRegistry(github.New(), slack.New())
}

// startPome serves a complete Pome server on a loopback httptest server
// over store and returns its URL and a team API key.
func startPome(tb testing.TB, store session.Store, quota int) (url, key string) {
	tb.Helper()
	key = session.NewAPIKey()
	teams, err := session.NewTeams(map[string][]string{"bench": {key}})
	if err != nil {
		tb.Fatal(err)
	}
	hs := httptest.NewServer(nil)
	tb.Cleanup(hs.Close)
	tb.Cleanup(func() { store.Close() })
	hs.Config.Handler = rest.NewServer(rest.Config{PublicURL: hs.URL, SandboxQuota: quota}, registry(), store, teams)
	return hs.URL, key
}
