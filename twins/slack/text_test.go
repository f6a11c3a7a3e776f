package slack

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/pomehq/pome/internal/strchunk"
)

// Messages posted, edited and deleted through the actions read back as
// written, a deleted thread parent as Slack's tombstone.
func TestMessageTextKept(t *testing.T) {
	w := world(t, "")
	post := func(args string) string {
		return mustCall(t, w, "slack_send_message", args).Out.(SendMessageOut).TS
	}
	a := post(`{"channel_id": "general", "message": "first"}`)
	b := post(`{"channel_id": "general", "message": "second"}`)
	post(fmt.Sprintf(`{"channel_id": "general", "message": "a reply", "thread_ts": %q}`, b))
	c := post(`{"channel_id": "general", "message": "third"}`)
	mustCall(t, w, "slack_update_message", fmt.Sprintf(`{"channel_id": "general", "ts": %q, "message": "first, edited"}`, a))
	mustCall(t, w, "slack_delete_message", fmt.Sprintf(`{"channel_id": "general", "ts": %q}`, b))
	mustCall(t, w, "slack_delete_message", fmt.Sprintf(`{"channel_id": "general", "ts": %q}`, c))
	runtime.GC()
	ch := w.channelRef("general")
	got := map[string]string{}
	for _, m := range ch.Messages {
		got[m.TS] = m.Text
	}
	if got[a] != "first, edited" || got[b] != "This message was deleted." || got[c] != "" {
		t.Fatalf("texts after the edits: %q", got)
	}
	found := false
	for _, m := range ch.Messages {
		found = found || m.Text == "a reply" && m.ThreadTS == b
	}
	if !found {
		t.Fatal("the reply under the deleted parent is gone")
	}
}

// However messages come and go, a channel's text store holds about twice
// the live texts and ts at most, and every text and ts reads back as
// written.
func TestMessageTextBounded(t *testing.T) {
	w := world(t, "")
	ch := w.channelRef("general")
	rng := rand.New(rand.NewPCG(5, 6))
	want := map[*Message]string{}
	ts := map[*Message]string{}
	for _, m := range ch.Messages {
		want[m], ts[m] = m.Text, strings.Clone(m.TS)
	}
	text := func() string { return strings.Repeat(fmt.Sprint(rng.IntN(10)), 1+rng.IntN(600)) }
	for step := range 20_000 {
		switch op := rng.IntN(5); {
		case op < 2 || len(ch.Messages) == 0:
			at := formatTS(int64(1_700_000_000_000_000 + step))
			m := &Message{Type: "message", TS: ch.text.Keep(at), User: w.AuthUser, Text: ch.text.Keep(text())}
			ch.insert(m)
			want[m], ts[m] = m.Text, at
		case op < 4:
			m := ch.Messages[rng.IntN(len(ch.Messages))]
			delete(want, m)
			delete(ts, m)
			w.removeMessage(ch, m)
		default:
			m := ch.Messages[rng.IntN(len(ch.Messages))]
			ch.setText(m, text())
			want[m] = m.Text
		}
		live := 0
		for m, v := range want {
			live += len(v) + len(ts[m])
		}
		if held := ch.text.Held(); held > 2*live+2*strchunk.ChunkSize {
			t.Fatalf("step %d: the store holds %d bytes for %d live", step, held, live)
		}
	}
	runtime.GC()
	if len(ch.Messages) != len(want) {
		t.Fatalf("%d messages, want %d", len(ch.Messages), len(want))
	}
	for _, m := range ch.Messages {
		if m.Text != want[m] || m.TS != ts[m] {
			t.Fatalf("message %s (want %s) reads %q, want %q", m.TS, ts[m], m.Text, want[m])
		}
	}
}

// Posts by one bot share its profile while the bot stays the same; a
// change to the bot gives the posts after it a profile of their own and
// leaves the earlier ones as they were.
func TestBotProfileShared(t *testing.T) {
	w := world(t, "")
	post := func(text string) *Message {
		out := mustCall(t, w, "slack_send_message", `{"channel_id": "general", "message": "`+text+`"}`).Out.(SendMessageOut)
		return w.channelRef("general").message(out.TS)
	}
	a, b := post("one"), post("two")
	if a.BotProfile == nil {
		t.Fatal("a post by the default world's bot token carries no bot profile")
	}
	if a.BotProfile != b.BotProfile {
		t.Error("two posts by one bot hold two profiles")
	}
	bot := w.botOfUser(w.AuthUser)
	name := bot.Name
	bot.Name = "renamed"
	c := post("three")
	if c.BotProfile == a.BotProfile || c.BotProfile.Name != "renamed" || a.BotProfile.Name != name {
		t.Errorf("after a rename: earlier profile %q, later %q (shared %v)", a.BotProfile.Name, c.BotProfile.Name, c.BotProfile == a.BotProfile)
	}
}
