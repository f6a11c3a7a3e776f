package github

import "testing"

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
