package github

import (
	"fmt"
	"sync"
	"testing"
)

// TestRenderUserURLs pins every URL of a rendered user and organization:
// they are built as slices of one string, which must not shift them.
func TestRenderUserURLs(t *testing.T) {
	w := &World{Users: []*User{{Login: "alice", ID: 7}}, Orgs: []*Org{{Login: "acme", ID: 9}}}
	v := &view{w: w, api: "http://127.0.0.1:7070/github/s/ses_x", html: "https://github.com"}
	for _, c := range []struct {
		login, wantLogin, typ, node string
		id                          int64
	}{
		{"alice", "alice", "User", nodeID("U", 7), 7},
		{"ALICE", "alice", "User", nodeID("U", 7), 7},
		{"acme", "acme", "Organization", nodeID("O", 9), 9},
		{"ghost", "ghost", "User", nodeID("U", 0), 0},
	} {
		u := v.user(c.login)
		base := v.api + "/users/" + c.wantLogin
		want := map[string]string{
			"login": c.wantLogin, "node_id": c.node, "type": c.typ,
			"avatar_url": "https://avatars.githubusercontent.com/u/" + map[int64]string{7: "7", 9: "9", 0: "0"}[c.id] + "?v=4",
			"url":        base, "html_url": "https://github.com/" + c.wantLogin,
			"followers_url": base + "/followers", "following_url": base + "/following{/other_user}",
			"gists_url": base + "/gists{/gist_id}", "starred_url": base + "/starred{/owner}{/repo}",
			"subscriptions_url": base + "/subscriptions", "organizations_url": base + "/orgs",
			"repos_url": base + "/repos", "events_url": base + "/events{/privacy}",
			"received_events_url": base + "/received_events",
		}
		got := map[string]string{
			"login": u.Login, "node_id": u.NodeID, "type": u.Type, "avatar_url": u.AvatarURL,
			"url": u.URL, "html_url": u.HTMLURL, "followers_url": u.FollowersURL, "following_url": u.FollowingURL,
			"gists_url": u.GistsURL, "starred_url": u.StarredURL, "subscriptions_url": u.SubscriptionsURL,
			"organizations_url": u.OrganizationsURL, "repos_url": u.ReposURL, "events_url": u.EventsURL,
			"received_events_url": u.ReceivedEventsURL,
		}
		for k, w := range want {
			if got[k] != w {
				t.Errorf("%s: %s = %q, want %q", c.login, k, got[k], w)
			}
		}
		if u.ID != c.id {
			t.Errorf("%s: id %d, want %d", c.login, u.ID, c.id)
		}
	}
	if v.user("") != nil {
		t.Error("an empty login renders as a user")
	}
}

// TestRenderUserKept: a seeded account's rendering is made once per API
// base and handed out again, under a lock of its own for reads rendering
// side by side (run with -race); a login without an account is rendered
// each time and not kept; a world keeps at most maxUserRenders; a copy
// of the world starts with none, and renders the same.
func TestRenderUserKept(t *testing.T) {
	w := &World{Users: []*User{{Login: "alice", ID: 7}}, Orgs: []*Org{{Login: "acme", ID: 9}}}
	v := &view{w: w, api: "http://127.0.0.1:7070/github/s/ses_x", html: "https://github.com"}
	other := &view{w: w, api: "http://localhost:7070/github/s/ses_x", html: "https://github.com"}

	var wg sync.WaitGroup
	got := make([]*APIUser, 16)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = v.user("alice")
		}()
	}
	wg.Wait()
	first := v.user("alice")
	for i, u := range got {
		if u != first {
			t.Fatalf("render %d of alice is another value: kept renderings are not handed out", i)
		}
	}
	if v.user("acme") != v.user("acme") {
		t.Error("an organization's rendering is not kept")
	}
	o := other.user("alice")
	if o == first || o.URL != other.api+"/users/alice" {
		t.Errorf("alice under another API base: %q (same value %v)", o.URL, o == first)
	}
	if v.user("ghost") == v.user("ghost") {
		t.Error("a login without an account is kept")
	}
	if n := w.userRenders().Len(); n != 3 {
		t.Errorf("%d renderings kept, want 3 (alice twice, acme)", n)
	}

	for i := range maxUserRenders + 10 {
		(&view{w: w, api: fmt.Sprintf("http://host%d:7070/github/s/ses_x", i), html: "https://github.com"}).user("alice")
	}
	if n := w.userRenders().Len(); n != maxUserRenders {
		t.Errorf("%d renderings kept after many API bases, want the cap %d", n, maxUserRenders)
	}

	cp := New().CopyWorld(w).(*World)
	if cp.renders.Load() != nil {
		t.Error("a copy of the world shares or carries its renderings")
	}
	if c := (&view{w: cp, api: v.api, html: v.html}).user("alice"); c == first || *c != *first {
		t.Errorf("the copy renders alice as %+v (same value %v), want an equal new one", c, c == first)
	}
}
