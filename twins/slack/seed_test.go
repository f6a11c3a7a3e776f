package slack

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/twinstest"
)

func TestDefaultWorld(t *testing.T) {
	w := world(t, "")
	if w.Team.Name != "Acme" || !strings.HasPrefix(w.Team.ID, "T") {
		t.Errorf("team = %+v", w.Team)
	}
	var names []string
	for _, u := range w.Users {
		names = append(names, u.Name)
		if !strings.HasPrefix(u.ID, "U") {
			t.Errorf("user id %s", u.ID)
		}
	}
	if strings.Join(names, ",") != "pome-agent,alice,bob,slackbot" {
		t.Errorf("users = %v", names)
	}
	me := w.me()
	if me == nil || me.Name != "pome-agent" || !me.IsAdmin {
		t.Errorf("auth user = %+v", me)
	}
	if len(w.Channels) != 2 {
		t.Fatalf("channels = %d", len(w.Channels))
	}
	gen, rnd := ch(t, w, "general"), ch(t, w, "random")
	if !strings.HasPrefix(gen.ID, "C") || !strings.HasPrefix(rnd.ID, "C") || !gen.IsGeneral {
		t.Errorf("channels = %+v %+v", gen, rnd)
	}
	if len(gen.Messages) != 1 || len(rnd.Messages) != 0 {
		t.Fatalf("messages: general %d, random %d", len(gen.Messages), len(rnd.Messages))
	}
	m := gen.Messages[0]
	if m.User != w.user("alice").ID || !strings.Contains(strings.ToLower(m.Text), "morning") {
		t.Errorf("greeting = %+v", m)
	}
	start := twinstest.Env("slack").Now()
	if us, ok := parseTS(m.TS); !ok || us >= start.UnixMicro() {
		t.Errorf("greeting ts %s is not before the sandbox start", m.TS)
	}
	for _, c := range w.Channels {
		for _, u := range []string{"pome-agent", "alice", "bob"} {
			if !c.isMember(w.user(u).ID) {
				t.Errorf("%s is not in #%s", u, c.Name)
			}
		}
	}
	// Deterministic: a second build is identical.
	a, _ := json.Marshal(w)
	b, _ := json.Marshal(world(t, ""))
	if string(a) != string(b) {
		t.Error("default world is not deterministic")
	}
	// And it survives the JSON round trip.
	c, _ := json.Marshal(clone(t, w))
	if string(a) != string(c) {
		t.Error("world does not survive a JSON round trip")
	}
}

const richSeed = `{
  "team": {"name": "Globex", "domain": "globex"},
  "users": [
    {"name": "pome-agent", "is_admin": true},
    {"id": "U0ALICE01", "name": "alice", "real_name": "Alice Park", "email": "alice@globex.test", "title": "EM"},
    {"name": "bob"},
    {"name": "deploybot", "is_bot": true}
  ],
  "bots": [{"name": "deploybot", "user": "deploybot"}],
  "channels": [
    {"name": "eng", "topic": "Engineering", "messages": [
      {"user": "alice", "text": "Deploy at 3?", "reactions": [{"name": "thumbsup", "users": ["bob"]}],
       "replies": [{"user": "bob", "text": "ok"}, {"user": "alice", "text": "done", "reply_broadcast": true}]},
      {"bot": "deploybot", "text": "deployed v1.2", "pinned": true}
    ]},
    {"name": "secret-plans", "type": "private_channel", "members": ["alice", "bob"]},
    {"type": "im", "members": ["pome-agent", "alice"], "messages": [{"user": "alice", "text": "hi"}]}
  ],
  "emoji": {"shipit": "https://example.test/shipit.png", "squirrel": "alias:shipit"},
  "files": [{"name": "notes.txt", "content": "hello", "channels": ["eng"]}]
}`

func TestRichSeed(t *testing.T) {
	w := world(t, richSeed)
	if w.Team.Name != "Globex" || w.Team.URL() != "https://globex.slack.com/" {
		t.Errorf("team = %+v", w.Team)
	}
	if w.user("alice").ID != "U0ALICE01" {
		t.Errorf("explicit id not kept")
	}
	eng := ch(t, w, "eng")
	if len(eng.Messages) != 4 {
		t.Fatalf("eng messages = %d", len(eng.Messages))
	}
	parent := eng.Messages[0]
	if parent.ReplyCount != 2 || parent.ThreadTS != parent.TS || parent.LatestReply != eng.Messages[2].TS || parent.ReplyUsersCount != 2 {
		t.Errorf("thread parent = %+v", parent)
	}
	if eng.Messages[2].Subtype != "thread_broadcast" || eng.Messages[1].ParentUserID != "U0ALICE01" {
		t.Errorf("replies = %+v %+v", eng.Messages[1], eng.Messages[2])
	}
	if len(parent.Reactions) != 1 || parent.Reactions[0].Count != 1 {
		t.Errorf("reactions = %+v", parent.Reactions)
	}
	bot := eng.Messages[3]
	if !strings.HasPrefix(bot.BotID, "B") || bot.Subtype != "bot_message" || len(bot.PinnedTo) != 1 {
		t.Errorf("bot message = %+v", bot)
	}
	priv := ch(t, w, "secret-plans")
	if !strings.HasPrefix(priv.ID, "G") || priv.isMember(w.AuthUser) {
		t.Errorf("private = %+v", priv)
	}
	var im *Channel
	for _, c := range w.Channels {
		if c.Type == TypeIM {
			im = c
		}
	}
	if im == nil || !strings.HasPrefix(im.ID, "D") || im.User != "U0ALICE01" {
		t.Errorf("im = %+v", im)
	}
	if len(w.Files) != 1 || w.Files[0].Content != "hello" || w.Files[0].Channels[0] != eng.ID || !strings.HasPrefix(w.Files[0].ID, "F") {
		t.Errorf("files = %+v", w.Files)
	}
	for _, u := range w.Users {
		if u.ID == "U0ALICE01" {
			continue
		}
		if u.ID == "U0ALICE01" {
			t.Error("generated id collides")
		}
	}
}

func TestSeedErrors(t *testing.T) {
	cases := []seedErrorCase{
		{"unknown top-level key", `{"teams": {}}`, "/teams"},
		{"wrong type", `{"users": {"name": "x"}}`, "/users"},
		{"bad user name", `{"users": [{"name": "Alice Smith"}]}`, "/users/0/name"},
		{"duplicate user", `{"users": [{"name": "a"}, {"name": "a"}]}`, "/users/1/name"},
		{"bad user id", `{"users": [{"id": "C123", "name": "a"}]}`, "/users/0/id"},
		{"duplicate id", `{"users": [{"id": "U0AAA", "name": "a"}, {"id": "U0AAA", "name": "b"}]}`, "/users/1/id"},
		{"auth user missing", `{"auth_user": "carol", "users": [{"name": "a"}]}`, "/auth_user"},
		{"bad channel name", `{"channels": [{"name": "General Chat"}]}`, "/channels/0/name"},
		{"duplicate channel", `{"channels": [{"name": "x"}, {"name": "x"}]}`, "/channels/1/name"},
		{"bad channel type", `{"channels": [{"name": "x", "type": "group"}]}`, "/channels/0/type"},
		{"unknown member", `{"channels": [{"name": "x", "members": ["zed"]}]}`, "/channels/0/members/0"},
		{"dm without members", `{"channels": [{"type": "im"}]}`, "/channels/0/members"},
		{"dm with three", `{"users": [{"name": "a"}, {"name": "b"}], "channels": [{"type": "im", "members": ["a", "b", "pome-agent"]}]}`, "/channels/0/members"},
		{"message author unknown", `{"channels": [{"name": "x", "messages": [{"user": "zed", "text": "hi"}]}]}`, "/channels/0/messages/0/user"},
		{"message without author", `{"channels": [{"name": "x", "messages": [{"text": "hi"}]}]}`, "/channels/0/messages/0/user"},
		{"message without text", `{"channels": [{"name": "x", "messages": [{"user": "pome-agent", "text": ""}]}]}`, "/channels/0/messages/0/text"},
		{"bad ts", `{"channels": [{"name": "x", "messages": [{"user": "pome-agent", "text": "a", "ts": "1700000000.1"}]}]}`, "/channels/0/messages/0/ts"},
		{"duplicate ts", `{"channels": [{"name": "x", "messages": [{"user": "pome-agent", "text": "a", "ts": "1700000000.000001"}, {"user": "pome-agent", "text": "b", "ts": "1700000000.000001"}]}]}`, "/channels/0/messages/1/ts"},
		{"reply before parent", `{"channels": [{"name": "x", "messages": [{"user": "pome-agent", "text": "a", "ts": "1700000000.000002", "replies": [{"user": "pome-agent", "text": "b", "ts": "1700000000.000001"}]}]}]}`, "/channels/0/messages/0/replies/0/ts"},
		{"reaction by unknown user", `{"channels": [{"name": "x", "messages": [{"user": "pome-agent", "text": "a", "reactions": [{"name": "wave", "users": ["zed"]}]}]}]}`, "/channels/0/messages/0/reactions/0/users/0"},
		{"bad emoji", `{"emoji": {"Bad Name": "https://x"}}`, "/emoji/Bad Name"},
		{"dangling alias", `{"emoji": {"a": "alias:b"}}`, "/emoji/a"},
		{"file in unknown channel", `{"files": [{"name": "a.txt", "channels": ["nope"]}]}`, "/files/0/channels/0"},
		{"unknown bot", `{"channels": [{"name": "x", "messages": [{"bot": "nobot", "text": "a"}]}]}`, "/channels/0/messages/0/bot"},
		{"blocks not array", `{"channels": [{"name": "x", "messages": [{"user": "pome-agent", "text": "a", "blocks": {"type": "section"}}]}]}`, "/channels/0/messages/0/blocks"},
		{"unknown message key", `{"channels": [{"name": "x", "messages": [{"user": "pome-agent", "text": "a", "thread": "1"}]}]}`, "/channels/0/messages/0/thread"},
	}
	wantSeedErrors(t, cases)
}

// seedErrorCase is a seed that must fail at a JSON pointer.
type seedErrorCase struct {
	name, seed, path string
}

func wantSeedErrors(t *testing.T, cases []seedErrorCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := tw.NewWorld(twins.WithEnv(t.Context(), twinstest.Env("slack")), json.RawMessage(c.seed))
			se, ok := err.(*twins.SeedError)
			if !ok {
				t.Fatalf("want SeedError at %s, got %v", c.path, err)
			}
			if se.Path != c.path {
				t.Errorf("path = %q (%s), want %q", se.Path, se.Message, c.path)
			}
		})
	}
}

func TestSeedAddsAuthUser(t *testing.T) {
	w := world(t, `{"users": [{"name": "alice"}], "channels": [{"name": "ops"}]}`)
	me := w.me()
	if me == nil || me.Name != "pome-agent" || !me.IsAdmin {
		t.Fatalf("auth user = %+v", me)
	}
}

func TestSeedCannotRedefineSlackbot(t *testing.T) {
	for _, seed := range []string{`{"users": [{"name": "slackbot"}]}`, `{"users": [{"id": "USLACKBOT", "name": "helper"}]}`} {
		_, err := tw.NewWorld(twins.WithEnv(t.Context(), twinstest.Env("slack")), json.RawMessage(seed))
		if se, ok := err.(*twins.SeedError); !ok || se.Path != "/users/0" {
			t.Errorf("%s: %v", seed, err)
		}
	}
}
