package slack

import (
	"strings"
	"testing"
)

const searchSeed = `{"users": [{"name": "pome-agent"}, {"name": "alice", "real_name": "Alice Park", "title": "EM"}, {"name": "bob"}],
  "channels": [
    {"name": "eng", "topic": "Engineering chatter", "messages": [
      {"user": "alice", "text": "Deploy of api v1.2 done https://ci.acme.test/1", "ts": "1796050800.000000", "pinned": true},
      {"user": "bob", "text": "deploy failed on worker", "ts": "1796216400.000000", "reactions": [{"name": "eyes", "users": ["alice"]}]},
      {"user": "alice", "text": "lunch?", "ts": "1796216500.000000"}
    ]},
    {"name": "ops", "type": "private_channel", "members": ["pome-agent", "bob"], "messages": [
      {"user": "bob", "text": "deploy credentials rotated", "ts": "1796216600.000000"}]},
    {"name": "hidden", "type": "private_channel", "members": ["alice"], "messages": [
      {"user": "alice", "text": "deploy secret plan", "ts": "1796216700.000000"}]},
    {"name": "outside", "members": ["alice"], "purpose": "deploy notices", "messages": [
      {"user": "alice", "text": "deploy notice", "ts": "1796216800.000000"}]},
    {"type": "im", "members": ["pome-agent", "alice"], "messages": [{"user": "alice", "text": "can you deploy?", "ts": "1796216900.000000"}]}
  ],
  "emoji": {"shipit": "https://x.test/s.png", "ship-fast": "alias:shipit"}}`

func matchTexts(out SearchOut) string {
	var s []string
	for _, m := range out.Messages.Matches {
		s = append(s, m.Text)
	}
	return strings.Join(s, "|")
}

func TestSearchMessages(t *testing.T) {
	w := world(t, searchSeed)
	cases := []struct{ tool, query, want string }{
		{"slack_search_public_and_private", "deploy", "can you deploy?|deploy notice|deploy credentials rotated|deploy failed on worker|Deploy of api v1.2 done https://ci.acme.test/1"},
		{"slack_search_public", "deploy", "deploy notice|deploy failed on worker|Deploy of api v1.2 done https://ci.acme.test/1"},
		{"slack_search_public_and_private", "deploy in:#eng", "deploy failed on worker|Deploy of api v1.2 done https://ci.acme.test/1"},
		{"slack_search_public_and_private", "deploy in:eng from:@alice", "Deploy of api v1.2 done https://ci.acme.test/1"},
		{"slack_search_public_and_private", "deploy in:@alice", "can you deploy?"},
		{"slack_search_public_and_private", `"deploy failed"`, "deploy failed on worker"},
		{"slack_search_public_and_private", "deploy -worker in:eng", "Deploy of api v1.2 done https://ci.acme.test/1"},
		{"slack_search_public_and_private", "has:link", "Deploy of api v1.2 done https://ci.acme.test/1"},
		{"slack_search_public_and_private", "has:pin", "Deploy of api v1.2 done https://ci.acme.test/1"},
		{"slack_search_public_and_private", "has:reaction", "deploy failed on worker"},
		{"slack_search_public_and_private", "deploy before:2026-12-01", "Deploy of api v1.2 done https://ci.acme.test/1"},
		{"slack_search_public_and_private", "in:eng after:2026-11-30", "lunch?|deploy failed on worker"},
		{"slack_search_public_and_private", "in:eng on:2026-11-30", "Deploy of api v1.2 done https://ci.acme.test/1"},
		{"slack_search_public_and_private", "nothing-matches-this", ""},
	}
	for _, c := range cases {
		out := mustCall(t, w, c.tool, `{"query": `+quote(c.query)+`}`).Out.(SearchOut)
		if got := matchTexts(out); got != c.want {
			t.Errorf("%s %q:\n got %s\nwant %s", c.tool, c.query, got, c.want)
		}
	}
	p := mustCall(t, w, "slack_search_public_and_private", `{"query": "deploy", "count": 2, "page": 2, "sort": "timestamp", "sort_dir": "asc"}`).Out.(SearchOut)
	if matchTexts(p) != "deploy credentials rotated|deploy notice" || p.Messages.Paging.Pages != 3 || p.Messages.Pagination.First != 3 || p.Messages.Total != 5 {
		t.Errorf("paged = %s %+v", matchTexts(p), p.Messages.Paging)
	}
	m := mustCall(t, w, "slack_search_public", `{"query": "lunch"}`).Out.(SearchOut).Messages.Matches[0]
	if m.Channel.Name != "eng" || m.Username != "alice" || !strings.HasPrefix(m.Permalink, "https://acme.slack.com/archives/") {
		t.Errorf("match = %+v", m)
	}
	wantErr(t, call(t, w, "slack_search_public", `{"query": " "}`), "no_query")
	wantErr(t, call(t, w, "slack_search_public", `{"query": "before:tomorrow"}`), "invalid_search_query")
}

func quote(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"`
}

func TestSearchChannelsUsersEmoji(t *testing.T) {
	w := world(t, searchSeed)
	chs := mustCall(t, w, "slack_search_channels", `{"query": "deploy"}`).Out.(ListChannelsOut)
	if len(chs.Channels) != 1 || chs.Channels[0].Name != "outside" {
		t.Errorf("channels = %+v", chs.Channels)
	}
	chs = mustCall(t, w, "slack_search_channels", `{"query": "#ENG"}`).Out.(ListChannelsOut)
	if len(chs.Channels) != 1 || chs.Channels[0].Name != "eng" {
		t.Errorf("channels = %+v", chs.Channels)
	}
	if h := mustCall(t, w, "slack_search_channels", `{"query": "hidden"}`).Out.(ListChannelsOut); len(h.Channels) != 0 {
		t.Error("a private channel the user is not in was found")
	}
	us := mustCall(t, w, "slack_search_users", `{"query": "park"}`).Out.(ListUsersOut)
	if len(us.Members) != 1 || us.Members[0].Name != "alice" {
		t.Errorf("users = %+v", us.Members)
	}
	em := mustCall(t, w, "slack_search_emojis", `{"query": "ship"}`).Out.(EmojiOut)
	if len(em.Emoji) != 2 {
		t.Errorf("emoji = %+v", em.Emoji)
	}
}
