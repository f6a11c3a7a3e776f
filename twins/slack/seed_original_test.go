package slack

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestSeedExampleOriginalLoads(t *testing.T) {
	if tw.SeedExampleOriginal == "" {
		t.Fatal("the twin carries no original-format example")
	}
	w := world(t, tw.SeedExampleOriginal)
	if w.Team.ID != "T_LANTERN" || w.Team.Name != "Lantern Labs" || w.Team.Domain != "lantern" {
		t.Errorf("team = %+v", w.Team)
	}
	if me := w.me(); me == nil || me.ID != "U_PRIMARY" || me.Name != "pome-agent" {
		t.Errorf("auth user = %+v", me)
	}
	oskar := w.user("oskar")
	if oskar.ID != "U_OSKAR" || oskar.TZ != "Europe/London" || oskar.Profile.Title != "Release Manager" ||
		oskar.Profile.StatusText != "shipping 4.2" || oskar.Profile.StatusEmoji != ":ship:" || oskar.Profile.Email != "oskar@lantern.test" {
		t.Errorf("oskar = %+v", oskar)
	}
	if bot := w.user("B_BUILDBOT"); bot == nil || !bot.IsBot {
		t.Errorf("bot user = %+v", bot)
	}
	rel, ops := ch(t, w, "releases"), ch(t, w, "C_RELEASE_OPS")
	if rel.ID != "C_RELEASES" || rel.Type != TypePublic || rel.Creator != "U_OSKAR" || rel.Topic.Value == "" || len(rel.Members) != 4 {
		t.Errorf("releases = %+v", rel)
	}
	if ops.Type != TypePrivate || ops.Name != "release-ops" {
		t.Errorf("release-ops = %+v", ops)
	}
	// Flat replies are threads: by ts, and by the label "nightly".
	if len(rel.Messages) != 4 {
		t.Fatalf("releases holds %d messages", len(rel.Messages))
	}
	first := rel.message("1764489600.000100")
	if first == nil || first.ReplyCount != 1 || len(first.Reactions) != 1 || first.Reactions[0].Count != 2 {
		t.Errorf("first = %+v", first)
	}
	var nightly *Message
	for _, m := range rel.Messages {
		if strings.HasPrefix(m.Text, "Nightly") {
			nightly = m
		}
	}
	if nightly == nil || !tsRE.MatchString(nightly.TS) || nightly.ReplyCount != 1 || nightly.User != "B_BUILDBOT" {
		t.Fatalf("nightly = %+v", nightly)
	}
	for _, m := range rel.Messages {
		if m.Text == "thanks, buildbot" && (m.ThreadTS != nightly.TS || m.Reactions[0].Name != "lantern") {
			t.Errorf("reply to the label = %+v", m)
		}
	}
	if f := w.file("F_CHANGELOG"); f == nil || f.User != "U_OSKAR" || len(f.Channels) != 1 || !strings.Contains(f.Content, "faster sync") {
		t.Errorf("file = %+v", f)
	}
	if w.Emoji["lantern"] != "https://emoji.example.test/lantern.png" || w.Emoji["lamp"] != "alias:lantern" ||
		!strings.HasPrefix(w.Emoji["ship-it"], "https://") {
		t.Errorf("emoji = %v", w.Emoji)
	}
	// The agent reads and posts as the seed's pome-agent.
	r := mustCall(t, w, "slack_read_channel", `{"channel_id": "C_RELEASES"}`)
	if b, _ := json.Marshal(r.Out); !strings.Contains(string(b), "4.2 branches tomorrow") {
		t.Errorf("history: %s", b)
	}
	mustCall(t, w, "slack_send_message", `{"channel_id": "releases", "message": "4.2 is out"}`)
	if last := rel.Messages[len(rel.Messages)-1]; last.User != "U_PRIMARY" {
		t.Errorf("posted as %s", last.User)
	}
}

// TestOriginalSeedKeys loads each key of the original's format alone and
// checks what it became.
func TestOriginalSeedKeys(t *testing.T) {
	t.Run("_meta and legacy wrapping", func(t *testing.T) {
		inner := `{"_meta": {"version": 1, "source_hash": "sha256:x", "model": "m", "compiled_at": "2026-01-01T00:00:00Z"},
		  "team": {"id": "T_WRAP"}, "channels": [{"name": "ops"}]}`
		meta := `"_meta": {"version": 1, "source_hash": "sha256:y", "model": "m", "compiled_at": "2026-01-02T00:00:00Z"}`
		for _, seed := range []string{inner, `{"slack": {"seed": ` + inner + `}}`, `{"seed": ` + inner + `}`,
			`{` + meta + `, "slack": {"seed": ` + inner + `}}`, `{"slack": {` + meta + `, "seed": ` + inner + `}}`} {
			w := world(t, seed)
			if w.Team.ID != "T_WRAP" || w.channelRef("ops") == nil {
				t.Errorf("%s: team %+v", seed, w.Team)
			}
		}
	})
	t.Run("is_private", func(t *testing.T) {
		w := world(t, `{"channels": [{"name": "a", "is_private": true}, {"name": "b", "is_private": false}, {"name": "c", "is_private": true, "type": "private_channel"}]}`)
		if ch(t, w, "a").Type != TypePrivate || ch(t, w, "b").Type != TypePublic || ch(t, w, "c").Type != TypePrivate {
			t.Errorf("types: %s %s %s", ch(t, w, "a").Type, ch(t, w, "b").Type, ch(t, w, "c").Type)
		}
		if !strings.HasPrefix(ch(t, w, "a").ID, "G") {
			t.Errorf("private id %s", ch(t, w, "a").ID)
		}
	})
	t.Run("original ids", func(t *testing.T) {
		w := world(t, `{"team": {"id": "T_ACME"}, "users": [{"id": "U_DANA", "name": "dana"}, {"id": "U1", "name": "short"}],
		  "channels": [{"id": "C_GENERAL", "name": "general", "members": ["U_DANA", "pome-agent"]},
		               {"id": "G_SEC", "name": "sec", "is_private": true, "members": ["dana"]},
		               {"id": "C_PRIV", "name": "priv", "is_private": true, "members": ["pome-agent"]}],
		  "files": [{"id": "F_NOTES", "name": "notes.txt", "channels": ["C_GENERAL"]}]}`)
		if w.Team.ID != "T_ACME" || w.user("U_DANA") == nil || w.user("U1") == nil || w.channelByID("C_GENERAL") == nil || w.file("F_NOTES") == nil {
			t.Fatalf("ids not kept: %+v", w)
		}
		// Methods and mentions take them as they are.
		mustCall(t, w, "slack_send_message", `{"channel_id": "C_GENERAL", "message": "hi <@U_DANA>"}`)
		r := mustCall(t, w, "slack_read_user_profile", `{"user_id": "U_DANA"}`)
		if b, _ := json.Marshal(r.Out); !strings.Contains(string(b), `"dana"`) {
			t.Errorf("profile: %s", b)
		}
		wantErr(t, call(t, w, "slack_read_channel", `{"channel_id": "G_SEC"}`), "channel_not_found")
		mustCall(t, w, "slack_read_channel", `{"channel_id": "C_PRIV"}`)
	})
	t.Run("reactions {name, user}", func(t *testing.T) {
		w := world(t, `{"users": [{"name": "ana"}, {"name": "ben"}], "channels": [{"name": "x", "messages": [
		  {"user": "ana", "text": "vote", "reactions": [{"name": "+1", "user": "ana"}, {"name": "+1", "user": "ben"}, {"name": "eyes", "users": ["ben"]}]}]}]}`)
		m := ch(t, w, "x").Messages[0]
		if len(m.Reactions) != 2 || m.Reactions[0].Count != 2 || m.Reactions[1].Users[0] != w.user("ben").ID {
			t.Errorf("reactions = %+v %+v", m.Reactions[0], m.Reactions[1])
		}
	})
	t.Run("profile", func(t *testing.T) {
		w := world(t, `{"users": [{"name": "ana", "title": "SRE", "profile": {"title": "SRE", "phone": "+1 555 0100", "first_name": "Ana", "last_name": "de Vries", "real_name": "Ana de Vries", "status_expiration": 1800000000}}]}`)
		p := w.user("ana").Profile
		if p.Title != "SRE" || p.Phone != "+1 555 0100" || p.FirstName != "Ana" || p.LastName != "de Vries" || p.RealName != "Ana de Vries" || p.StatusExpiration != 1800000000 {
			t.Errorf("profile = %+v", p)
		}
	})
	t.Run("emoji list", func(t *testing.T) {
		w := world(t, `{"emoji": [{"name": "party-parrot", "url": "https://e.test/pp.gif"}, {"name": "pp", "alias": "party-parrot"}, {"name": "plain"}]}`)
		r := mustCall(t, w, "slack_list_emoji", `{}`)
		b, _ := json.Marshal(r.Out)
		if !strings.Contains(string(b), `"pp":"alias:party-parrot"`) || !strings.Contains(string(b), `"plain":"https://emoji.slack-edge.com/`) {
			t.Errorf("emoji.list = %s", b)
		}
	})
	t.Run("the agent as U_PRIMARY", func(t *testing.T) {
		w := world(t, `{"users": [{"id": "U_PRIMARY", "name": "assistant"}, {"name": "ana"}]}`)
		if me := w.me(); me == nil || me.Name != "assistant" {
			t.Errorf("auth user = %+v", me)
		}
	})
}

func TestFlatThreads(t *testing.T) {
	w := world(t, `{"users": [{"name": "ana"}], "channels": [{"name": "x", "messages": [
	  {"ts": "1700000000.000100", "user": "ana", "text": "parent"},
	  {"user": "ana", "text": "reply one", "thread_ts": "1700000000.000100"},
	  {"ts": "1700000000.000300", "user": "pome-agent", "text": "reply two", "thread_ts": "1700000000.000100"},
	  {"ts": "topic-b", "user": "ana", "text": "second parent"},
	  {"ts": "1700000000.000200", "thread_ts": "1700000000.000200", "user": "ana", "text": "its own parent"}
	]}]}`)
	c := ch(t, w, "x")
	parent := c.message("1700000000.000100")
	// "reply one" got a ts of its own in document order, later than both.
	var one *Message
	for _, m := range c.Messages {
		if m.Text == "reply one" {
			one = m
		}
	}
	if parent.ReplyCount != 2 || parent.LatestReply != one.TS || one.ThreadTS != parent.TS || len(parent.ReplyUsers) != 2 {
		t.Errorf("parent = %+v", parent)
	}
	// History lists the three parents; the thread its parent and replies.
	r := mustCall(t, w, "slack_read_channel", `{"channel_id": "x"}`)
	if n := len(decode(t, r.Out)["messages"].([]any)); n != 3 {
		t.Errorf("history holds %d messages", n)
	}
	r = mustCall(t, w, "slack_read_thread", `{"channel_id": "x", "message_ts": "1700000000.000100"}`)
	if n := len(decode(t, r.Out)["messages"].([]any)); n != 3 {
		t.Errorf("thread holds %d messages", n)
	}
	// A thread_ts equal to the message's own ts is a parent, as Slack writes it.
	if m := c.message("1700000000.000200"); m == nil || m.isReply() {
		t.Errorf("self thread_ts = %+v", m)
	}
}

func TestOriginalSeedErrors(t *testing.T) {
	cases := []seedErrorCase{
		{"unknown key in _meta", `{"_meta": {"version": 1, "hash": "x"}}`, "/_meta/hash"},
		{"wrong _meta type", `{"_meta": {"version": "one"}}`, "/_meta/version"},
		{"unknown key inside the wrapping", `{"slack": {"seed": {"channels": [{"name": "x", "colour": "red"}]}}}`, "/slack/seed/channels/0/colour"},
		{"bad reference inside the wrapping", `{"slack": {"seed": {"channels": [{"name": "x", "members": ["zed"]}]}}}`, "/slack/seed/channels/0/members/0"},
		{"beside the wrapping", `{"slack": {"seed": {}}, "github": {}}`, "/github"},
		{"beside seed in the wrapping", `{"slack": {"seed": {}, "version": 2}}`, "/slack/version"},
		{"wrapping without seed", `{"slack": {"channels": []}}`, "/slack"},
		{"task envelope leftover", `{"seed": {"teams": {}}}`, "/seed/teams"},
		{"bad _meta beside the wrapping", `{"_meta": {"version": 1, "author": "x"}, "slack": {"seed": {}}}`, "/_meta/author"},
		{"bad _meta inside the wrapping", `{"slack": {"_meta": {"version": "1"}, "seed": {}}}`, "/slack/_meta/version"},
		{"is_private not a bool", `{"channels": [{"name": "x", "is_private": 1}]}`, "/channels/0/is_private"},
		{"is_private against type", `{"channels": [{"name": "x", "is_private": true, "type": "public_channel"}]}`, "/channels/0/is_private"},
		{"is_private on a DM", `{"users": [{"name": "a"}], "channels": [{"type": "im", "is_private": false, "members": ["a", "pome-agent"]}]}`, "/channels/0/is_private"},
		{"id with lower case", `{"users": [{"id": "U_dana", "name": "dana"}]}`, "/users/0/id"},
		{"team id prefix", `{"team": {"id": "X_ACME"}}`, "/team/id"},
		{"channel id prefix", `{"channels": [{"id": "U_GENERAL", "name": "general"}]}`, "/channels/0/id"},
		{"thread_ts to nothing", `{"channels": [{"name": "x", "messages": [{"user": "pome-agent", "text": "a", "thread_ts": "1700000000.000100"}]}]}`, "/channels/0/messages/0/thread_ts"},
		{"thread_ts to a later message", `{"channels": [{"name": "x", "messages": [{"user": "pome-agent", "text": "a", "thread_ts": "later"}, {"ts": "later", "user": "pome-agent", "text": "b"}]}]}`, "/channels/0/messages/0/thread_ts"},
		{"thread_ts to a reply", `{"channels": [{"name": "x", "messages": [{"ts": "p", "user": "pome-agent", "text": "a"}, {"ts": "r", "thread_ts": "p", "user": "pome-agent", "text": "b"}, {"thread_ts": "r", "user": "pome-agent", "text": "c"}]}]}`, "/channels/0/messages/2/thread_ts"},
		{"thread_ts with replies", `{"channels": [{"name": "x", "messages": [{"ts": "p", "user": "pome-agent", "text": "a"}, {"thread_ts": "p", "user": "pome-agent", "text": "b", "replies": [{"user": "pome-agent", "text": "c"}]}]}]}`, "/channels/0/messages/1/replies"},
		{"reply before its parent", `{"channels": [{"name": "x", "messages": [{"ts": "1700000000.000200", "user": "pome-agent", "text": "a"}, {"ts": "1700000000.000100", "thread_ts": "1700000000.000200", "user": "pome-agent", "text": "b"}]}]}`, "/channels/0/messages/1/ts"},
		{"duplicate label", `{"channels": [{"name": "x", "messages": [{"ts": "a", "user": "pome-agent", "text": "a"}, {"ts": "a", "user": "pome-agent", "text": "b"}]}]}`, "/channels/0/messages/1/ts"},
		{"reaction user unknown", `{"channels": [{"name": "x", "messages": [{"user": "pome-agent", "text": "a", "reactions": [{"name": "wave", "user": "zed"}]}]}]}`, "/channels/0/messages/0/reactions/0/user"},
		{"reaction user and users", `{"channels": [{"name": "x", "messages": [{"user": "pome-agent", "text": "a", "reactions": [{"name": "wave", "user": "pome-agent", "users": ["pome-agent"]}]}]}]}`, "/channels/0/messages/0/reactions/0/user"},
		{"reaction without user", `{"channels": [{"name": "x", "messages": [{"user": "pome-agent", "text": "a", "reactions": [{"name": "wave"}]}]}]}`, "/channels/0/messages/0/reactions/0/users"},
		{"unknown profile key", `{"users": [{"name": "a", "profile": {"skype": "a"}}]}`, "/users/0/profile/skype"},
		{"profile contradicts", `{"users": [{"name": "a", "title": "SRE", "profile": {"title": "CEO"}}]}`, "/users/0/profile/title"},
		{"emoji neither shape", `{"emoji": "party"}`, "/emoji"},
		{"emoji list unknown key", `{"emoji": [{"name": "a", "image": "x"}]}`, "/emoji/0/image"},
		{"emoji list bad name", `{"emoji": [{"name": "Bad"}]}`, "/emoji/0/name"},
		{"emoji list duplicate", `{"emoji": [{"name": "a"}, {"name": "a"}]}`, "/emoji/1/name"},
		{"emoji list url and alias", `{"emoji": [{"name": "a"}, {"name": "b", "url": "https://x", "alias": "a"}]}`, "/emoji/1/alias"},
		{"emoji list dangling alias", `{"emoji": [{"name": "b", "alias": "a"}]}`, "/emoji/0/alias"},
	}
	wantSeedErrors(t, cases)
}
