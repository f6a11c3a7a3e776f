package slack

import (
	"strings"
	"testing"
)

func TestSendMessage(t *testing.T) {
	w := world(t, "")
	gen := ch(t, w, "general")
	r := mustCall(t, w, "slack_send_message", `{"channel_id": "`+gen.ID+`", "message": "Triaged acme/api#1"}`)
	if !r.Mutated {
		t.Error("send is not a mutation")
	}
	out := decode(t, r.Out)
	if out["ok"] != true || out["channel"] != gen.ID || out["ts"] == "" {
		t.Fatalf("out = %v", out)
	}
	msg := out["message"].(map[string]any)
	if msg["text"] != "Triaged acme/api#1" || msg["user"] != w.AuthUser || msg["type"] != "message" || msg["ts"] != out["ts"] {
		t.Errorf("message = %v", msg)
	}
	if len(gen.Messages) != 2 || gen.Messages[1].TS != out["ts"] {
		t.Fatalf("not stored: %+v", gen.Messages)
	}

	// Names with and without '#', and increasing ts under a frozen clock.
	prev := out["ts"].(string)
	for _, ref := range []string{"general", "#general", "random", "#random"} {
		r := mustCall(t, w, "slack_send_message", `{"channel_id": "`+ref+`", "message": "hi"}`)
		ts := r.Out.(SendMessageOut).TS
		a, _ := parseTS(prev)
		b, _ := parseTS(ts)
		if b <= a {
			t.Errorf("ts %s is not after %s", ts, prev)
		}
		prev = ts
	}
}

func TestSendMessageThread(t *testing.T) {
	w := world(t, "")
	gen := ch(t, w, "general")
	parent := gen.Messages[0]
	r := mustCall(t, w, "slack_send_message", `{"channel_id": "general", "message": "on it", "thread_ts": "`+parent.TS+`"}`)
	reply := r.Out.(SendMessageOut)
	if reply.Message.ThreadTS != parent.TS || reply.Message.ParentUserID != parent.User {
		t.Errorf("reply = %+v", reply.Message)
	}
	if parent.ReplyCount != 1 || parent.LatestReply != reply.TS || parent.ThreadTS != parent.TS || parent.ReplyUsers[0] != w.AuthUser {
		t.Errorf("parent = %+v", parent)
	}
	// A reply's ts threads under its parent; broadcast shows in history.
	r = mustCall(t, w, "slack_send_message", `{"channel_id": "general", "message": "fyi", "thread_ts": "`+reply.TS+`", "reply_broadcast": true}`)
	b := r.Out.(SendMessageOut)
	if b.Message.ThreadTS != parent.TS || b.Message.Subtype != "thread_broadcast" {
		t.Errorf("broadcast = %+v", b.Message)
	}
	h := mustCall(t, w, "slack_read_channel", `{"channel_id": "general"}`).Out.(ReadChannelOut)
	if len(h.Messages) != 2 || h.Messages[0].TS != b.TS || h.Messages[1].ReplyCount != 2 {
		t.Errorf("history = %+v", h.Messages)
	}
}

func TestSendMessageBlocks(t *testing.T) {
	w := world(t, "")
	// Form bodies carry blocks as a JSON string; JSON bodies and MCP as an array.
	r := mustCall(t, w, "slack_send_message", `{"channel_id": "general", "blocks": "[{\"type\":\"section\",\"text\":{\"type\":\"mrkdwn\",\"text\":\"*hi*\"}}]"}`)
	if m := r.Out.(SendMessageOut).Message; !strings.Contains(string(m.Blocks), "section") {
		t.Errorf("blocks = %s", m.Blocks)
	}
	r = mustCall(t, w, "slack_send_message", `{"channel_id": "general", "message": "x", "blocks": [{"type": "divider"}], "attachments": [{"text": "att", "color": "#f00"}], "unfurl_links": false, "mrkdwn": true, "username": "helper", "icon_emoji": ":robot_face:"}`)
	m := r.Out.(SendMessageOut).Message
	if !strings.Contains(string(m.Attachments), "att") || m.Username != "helper" || m.Icons == nil {
		t.Errorf("message = %+v", m)
	}
}

func TestSendMessageDM(t *testing.T) {
	w := world(t, "")
	alice := w.user("alice")
	r := mustCall(t, w, "slack_send_message", `{"channel_id": "`+alice.ID+`", "message": "psst"}`)
	out := r.Out.(SendMessageOut)
	if !strings.HasPrefix(out.Channel, "D") {
		t.Fatalf("dm channel = %s", out.Channel)
	}
	// The same DM is reused.
	r = mustCall(t, w, "slack_send_message", `{"channel_id": "@alice", "message": "again"}`)
	if r.Out.(SendMessageOut).Channel != out.Channel {
		t.Error("second DM opened a new conversation")
	}
}

func TestSendMessageErrors(t *testing.T) {
	seed := `{"users": [{"name": "pome-agent"}, {"name": "alice"}, {"name": "gone", "deleted": true}],
	  "channels": [
	    {"name": "general", "messages": [{"user": "alice", "text": "hi", "ts": "1700000000.000100"}]},
	    {"name": "outside", "members": ["alice"]},
	    {"name": "hidden", "type": "private_channel", "members": ["alice"]},
	    {"name": "old", "is_archived": true}
	  ]}`
	cases := []struct{ name, args, err string }{
		{"unknown channel", `{"channel_id": "C0NOPE", "message": "x"}`, "channel_not_found"},
		{"unknown name", `{"channel_id": "#nope", "message": "x"}`, "channel_not_found"},
		{"private not member", `{"channel_id": "hidden", "message": "x"}`, "channel_not_found"},
		{"deleted user", `{"channel_id": "@gone", "message": "x"}`, "channel_not_found"},
		{"not member", `{"channel_id": "outside", "message": "x"}`, "not_in_channel"},
		{"archived", `{"channel_id": "old", "message": "x"}`, "is_archived"},
		{"no text", `{"channel_id": "general"}`, "no_text"},
		{"blank text", `{"channel_id": "general", "message": "   "}`, "no_text"},
		{"empty blocks", `{"channel_id": "general", "blocks": "[]"}`, "no_text"},
		{"too long", `{"channel_id": "general", "message": "` + strings.Repeat("a", maxTextLen+1) + `"}`, "msg_too_long"},
		{"bad blocks", `{"channel_id": "general", "message": "x", "blocks": "{not json"}`, "invalid_blocks"},
		{"blocks not objects", `{"channel_id": "general", "message": "x", "blocks": [1, 2]}`, "invalid_blocks"},
		{"bad attachments", `{"channel_id": "general", "message": "x", "attachments": "nope"}`, "invalid_attachments"},
		{"unknown thread", `{"channel_id": "general", "message": "x", "thread_ts": "1600000000.000001"}`, "thread_not_found"},
		{"missing channel", `{"message": "x"}`, "invalid_arguments"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := world(t, seed)
			wantErr(t, call(t, w, "slack_send_message", c.args), c.err)
		})
	}
}
