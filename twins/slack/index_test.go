package slack

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"slices"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/twinstest"
)

// Channels keep their messages in ts order without re-sorting on every
// insert (Channel.ordered). These tests pin that the order, the lookups
// and the ts issued are exactly what re-sorting and scanning gave.

// refInsert is how a message was inserted before the index: append, then
// a stable sort that parses both ts on every comparison.
func refInsert(ms []*Message, m *Message) []*Message {
	ms = append(ms, m)
	sort.SliceStable(ms, func(i, j int) bool {
		a, _ := parseTS(ms[i].TS)
		b, _ := parseTS(ms[j].TS)
		return a < b
	})
	return ms
}

// refMessage is the scanning lookup by ts.
func refMessage(ms []*Message, ts string) *Message {
	for _, m := range ms {
		if m.TS == ts {
			return m
		}
	}
	return nil
}

// refReplies is the scanning replies lookup.
func refReplies(ms []*Message, parent string) []*Message {
	var out []*Message
	for _, m := range ms {
		if m.ThreadTS == parent && m.TS != parent {
			out = append(out, m)
		}
	}
	return out
}

// refFloor is the floor nextTS computed by scanning every message.
func refFloor(floor int64, ms []*Message) int64 {
	for _, m := range ms {
		if us, ok := parseTS(m.TS); ok && us > floor {
			floor = us
		}
	}
	return floor
}

// checkChannelIndex asserts that every indexed answer about c is the
// scanned one.
func checkChannelIndex(t *testing.T, c *Channel, probes ...string) {
	t.Helper()
	if c.ordered && !messagesOrdered(c.Messages) {
		t.Fatalf("%s: marked ordered but its messages are not in ts order", c.ID)
	}
	for _, m := range c.Messages {
		probes = append(probes, m.TS)
	}
	if c.repliesFollow && !repliesFollowParents(c.Messages) {
		t.Fatalf("%s: marked as replies following parents, but a reply is not later than its parent", c.ID)
	}
	for _, ts := range append(probes, "", "0", "nope", "9999999999.999999") {
		if got, want := c.message(ts), refMessage(c.Messages, ts); got != want {
			t.Fatalf("%s: message(%q) = %p, scanning finds %p", c.ID, ts, got, want)
		}
		if got, want := c.replies(ts), refReplies(c.Messages, ts); !slices.Equal(got, want) {
			t.Fatalf("%s: replies(%q) = %d messages, scanning finds %d", c.ID, ts, len(got), len(want))
		}
	}
	for _, floor := range []int64{-1, 0, 1e15} {
		got := floor
		if us, ok := c.latestTS(); ok && us > got {
			got = us
		}
		if want := refFloor(floor, c.Messages); got != want {
			t.Fatalf("%s: ts floor from %d = %d, scanning gives %d", c.ID, floor, got, want)
		}
	}
}

func checkWorldIndex(t *testing.T, w *World) {
	t.Helper()
	for _, c := range w.Channels {
		checkChannelIndex(t, c)
	}
}

func TestInsertMatchesStableSort(t *testing.T) {
	// A small pool of ts with ties, one ts spelled two ways (same key,
	// different string), ones that do not parse (they order as 0) and
	// whole seconds.
	pool := []string{"5.000001", "1.000001", "3.5", "3.500000", "2", "2.000000", "nope", "", "0.000000", "4.000002", "1.000001", "7", "6.999999"}
	rng := rand.New(rand.NewSource(1))
	for round := range 300 {
		var start []*Message
		for range rng.Intn(6) {
			start = append(start, &Message{TS: pool[rng.Intn(len(pool))]})
		}
		ref := append([]*Message(nil), start...)
		// Start as a decoded channel (ordered unknown) or, when the start
		// happens to be in order, as an indexed one.
		c := &Channel{ID: fmt.Sprintf("C%d", round), Messages: append([]*Message(nil), start...)}
		if rng.Intn(2) == 0 {
			c.ordered = messagesOrdered(c.Messages)
		}
		if rng.Intn(2) == 0 {
			c.repliesFollow = repliesFollowParents(c.Messages)
		}
		for range 1 + rng.Intn(20) {
			m := &Message{TS: pool[rng.Intn(len(pool))]}
			if rng.Intn(2) == 0 {
				// A reply, to a parent before or after it.
				m.ThreadTS = pool[rng.Intn(len(pool))]
			}
			ref = refInsert(ref, m)
			c.insert(m)
			if len(c.Messages) != len(ref) {
				t.Fatalf("round %d: %d messages, want %d", round, len(c.Messages), len(ref))
			}
			for i := range ref {
				if c.Messages[i] != ref[i] {
					t.Fatalf("round %d: position %d holds ts %q, the stable sort puts %q there", round, i, c.Messages[i].TS, ref[i].TS)
				}
			}
			if !c.ordered {
				t.Fatalf("round %d: insert left the channel unindexed", round)
			}
			checkChannelIndex(t, c, pool...)
		}
	}
}

// A world decoded from a document whose messages are out of order is left
// as it is, and the next post orders it exactly as re-sorting did.
func TestDecodedOutOfOrderMessages(t *testing.T) {
	w := world(t, `{"users": [{"name": "pome-agent"}], "channels": [{"name": "general", "messages": [
	  {"user": "pome-agent", "text": "a", "ts": "1700000001.000000"},
	  {"user": "pome-agent", "text": "b", "ts": "1700000002.000000"}]}]}`)
	doc, err := json.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := json.Unmarshal(doc, &raw); err != nil {
		t.Fatal(err)
	}
	msgs := raw["channels"].([]any)[0].(map[string]any)["messages"].([]any)
	msgs[0], msgs[1] = msgs[1], msgs[0]
	doc, _ = json.Marshal(raw)
	dw, err := tw.DecodeWorld(doc)
	if err != nil {
		t.Fatal(err)
	}
	w = dw.(*World)
	c := ch(t, w, "general")
	if c.ordered {
		t.Fatal("out-of-order messages decoded as ordered")
	}
	checkWorldIndex(t, w)
	if c.Messages[0].Text != "b" || c.Messages[1].Text != "a" {
		t.Error("decoding reordered the messages")
	}
	ref := append([]*Message(nil), c.Messages...)
	out := mustCall(t, w, "slack_send_message", `{"channel_id": "general", "message": "c"}`).Out.(SendMessageOut)
	ref = refInsert(ref, c.message(out.TS))
	for i := range ref {
		if c.Messages[i] != ref[i] {
			t.Fatalf("after a post position %d holds %q, want %q", i, c.Messages[i].TS, ref[i].TS)
		}
	}
	if !c.ordered {
		t.Error("a post left the channel unindexed")
	}
	checkWorldIndex(t, w)
}

// A seed whose ts are out of order, with replies, builds the order inserting one message at a time
// gave, and thread fields as refreshThread computes them.
func TestSeedOutOfOrder(t *testing.T) {
	seed := `{"users": [{"name": "pome-agent"}, {"name": "alice"}, {"name": "bob"}], "channels": [{"name": "general", "messages": [
	  {"user": "alice", "text": "p1", "ts": "1700000050.000000", "replies": [
	    {"user": "bob", "text": "r1b", "ts": "1700000090.000000"},
	    {"user": "alice", "text": "r1a", "ts": "1700000060.000000"},
	    {"user": "bob", "text": "r1c", "ts": "1700000061.000000"}]},
	  {"user": "bob", "text": "p2", "ts": "1700000010.000000", "replies": [
	    {"user": "alice", "text": "r2a", "ts": "1700000070.000000", "reply_broadcast": true},
	    {"user": "alice", "text": "r2b", "ts": "1700000020.000000"}]},
	  {"user": "alice", "text": "p3", "ts": "1700000062.000000"},
	  {"user": "bob", "text": "p4"},
	  {"user": "alice", "text": "p5", "ts": "1700000005.000000", "replies": [{"user": "bob", "text": "r5a"}]}]}]}`
	w := world(t, seed)
	c := ch(t, w, "general")
	if !c.ordered {
		t.Fatal("seeded channel not indexed")
	}
	checkWorldIndex(t, w)
	// Expected order: the seed sequence (parent, then its replies), stably
	// sorted by ts.
	var seq []*Message
	for _, text := range []string{"p1", "r1b", "r1a", "r1c", "p2", "r2a", "r2b", "p3", "p4", "p5", "r5a"} {
		for _, m := range c.Messages {
			if m.Text == text {
				seq = append(seq, m)
			}
		}
	}
	if len(seq) != len(c.Messages) {
		t.Fatalf("%d messages, want %d", len(c.Messages), len(seq))
	}
	var ref []*Message
	for _, m := range seq {
		ref = refInsert(ref, m)
	}
	for i := range ref {
		if c.Messages[i] != ref[i] {
			t.Fatalf("position %d holds %s, inserting one by one puts %s there", i, c.Messages[i].Text, ref[i].Text)
		}
	}
	// Thread fields as the scanning refreshThread computes them, parent by
	// parent in seed order.
	before, _ := json.Marshal(w)
	cw := clone(t, w)
	cc := ch(t, cw, "general")
	cc.ordered = false // scan, as before the index
	for _, text := range []string{"p1", "p2", "p3", "p4", "p5"} {
		for _, m := range cc.Messages {
			if m.Text == text {
				cc.refreshThread(m.TS)
			}
		}
	}
	after, _ := json.Marshal(cw)
	if string(before) != string(after) {
		t.Errorf("seeded thread fields differ from refreshThread's:\n%s\n%s", before, after)
	}
	if p1 := refMessage(c.Messages, "1700000050.000000"); p1.ReplyCount != 3 || p1.LatestReply != "1700000090.000000" || len(p1.ReplyUsers) != 2 {
		t.Errorf("p1 = %+v", p1)
	}
	// A duplicate ts is still refused at its own path.
	dup := `{"users": [{"name": "pome-agent"}], "channels": [{"name": "general", "messages": [
	  {"user": "pome-agent", "text": "a", "ts": "1700000001.000000"},
	  {"user": "pome-agent", "text": "b", "ts": "1700000002.000000", "replies": [{"user": "pome-agent", "text": "c", "ts": "1700000001.000000"}]}]}]}`
	_, err := tw.NewWorld(twins.WithEnv(context.Background(), twinstest.Env(tw.Name)), json.RawMessage(dup))
	if se, ok := err.(*twins.SeedError); !ok || se.Path != "/channels/0/messages/1/replies/0/ts" {
		t.Errorf("duplicate ts: %v", err)
	}
}

// Every kind of change keeps the index right, and so does the JSON round
// trip the Redis store puts the world through.
func TestMessageIndexAfterEveryChange(t *testing.T) {
	w := world(t, "")
	gen := ch(t, w, "general")
	step := func(name string) {
		t.Helper()
		checkWorldIndex(t, w)
		for _, c := range w.Channels {
			if !c.ordered && len(c.Messages) > 0 {
				t.Fatalf("after %s: %s lost its index", name, c.Name)
			}
			if !c.repliesFollow && len(c.Messages) > 0 && repliesFollowParents(c.Messages) {
				t.Fatalf("after %s: %s lost its thread index", name, c.Name)
			}
		}
		cw := clone(t, w)
		for _, c := range cw.Channels {
			if !c.ordered {
				t.Fatalf("after %s: decoded %s has no index", name, c.Name)
			}
		}
		checkWorldIndex(t, cw)
		a, _ := json.Marshal(w)
		b, _ := json.Marshal(cw)
		if string(a) != string(b) {
			t.Fatalf("after %s: the round trip changed the world", name)
		}
	}
	step("seed")
	p := mustCall(t, w, "slack_send_message", `{"channel_id": "general", "message": "parent"}`).Out.(SendMessageOut)
	step("post")
	r1 := mustCall(t, w, "slack_send_message", `{"channel_id": "general", "message": "reply", "thread_ts": "`+p.TS+`"}`).Out.(SendMessageOut)
	step("reply")
	mustCall(t, w, "slack_send_message", `{"channel_id": "general", "message": "broadcast", "thread_ts": "`+p.TS+`", "reply_broadcast": true}`)
	step("broadcast reply")
	mustCall(t, w, "slack_update_message", `{"channel_id": "general", "ts": "`+r1.TS+`", "message": "edited"}`)
	step("update")
	mustCall(t, w, "slack_delete_message", `{"channel_id": "general", "ts": "`+r1.TS+`"}`)
	step("delete reply")
	mustCall(t, w, "slack_delete_message", `{"channel_id": "general", "ts": "`+p.TS+`"}`)
	step("delete parent (tombstone)")
	top := mustCall(t, w, "slack_send_message", `{"channel_id": "general", "message": "plain"}`).Out.(SendMessageOut)
	mustCall(t, w, "slack_delete_message", `{"channel_id": "general", "ts": "`+top.TS+`"}`)
	step("delete message")
	mustCall(t, w, "slack_upload_file", `{"content": "a,b\n1,2", "filename": "report.csv", "channels": "general", "initial_comment": "numbers"}`)
	step("file share")
	mustCall(t, w, "slack_create_conversation", `{"channel_name": "incident-42"}`)
	mustCall(t, w, "slack_send_message", `{"channel_id": "incident-42", "message": "first"}`)
	step("create conversation")
	var alice string
	for _, u := range w.Users {
		if u.ID != w.AuthUser && !u.IsBot && !u.Deleted {
			alice = u.ID
			break
		}
	}
	mustCall(t, w, "slack_send_message", `{"channel_id": "`+alice+`", "message": "dm"}`)
	step("post opening a DM")
	// Scheduled messages land by the clock, out of order with messages
	// posted after they were scheduled, and as thread replies.
	at := t0.Add(time.Hour)
	mustCall(t, w, "slack_schedule_message", `{"channel_id": "general", "message": "scheduled", "post_at": `+unix(at)+`}`)
	q := mustCall(t, w, "slack_send_message", `{"channel_id": "general", "message": "thread for later"}`).Out.(SendMessageOut)
	mustCall(t, w, "slack_schedule_message", `{"channel_id": "general", "message": "scheduled reply", "thread_ts": "`+q.TS+`", "post_at": `+unix(at)+`}`)
	step("schedule")
	late := at.Add(time.Minute)
	// A read sees them delivered but leaves the world alone; a write stores
	// them.
	mustCallAt(t, w, late, "slack_read_channel", `{"channel_id": "general"}`)
	step("read with deliveries due")
	mustCallAt(t, w, late, "slack_send_message", `{"channel_id": "general", "message": "after delivery"}`)
	step("write storing deliveries")
	if n := len(gen.Messages); n == 0 {
		t.Fatal("no messages")
	}
	for _, text := range []string{"scheduled", "scheduled reply", "after delivery"} {
		found := false
		for _, m := range ch(t, w, "general").Messages {
			found = found || m.Text == text
		}
		if !found {
			t.Errorf("%q not in #general", text)
		}
	}
}

// Reads run concurrently on one live world (the memory store's read lock):
// none of them may write the index, even while scheduled messages are due
// and every read delivers them on its own copy. Run with -race.
func TestConcurrentReadsLeaveIndexAlone(t *testing.T) {
	w := world(t, "")
	p := mustCall(t, w, "slack_send_message", `{"channel_id": "general", "message": "parent"}`).Out.(SendMessageOut)
	mustCall(t, w, "slack_send_message", `{"channel_id": "general", "message": "reply", "thread_ts": "`+p.TS+`"}`)
	at := t0.Add(time.Hour)
	mustCall(t, w, "slack_schedule_message", `{"channel_id": "general", "message": "due", "thread_ts": "`+p.TS+`", "post_at": `+unix(at)+`}`)
	env := twinstest.Env(tw.Name)
	env.Now = func() time.Time { return at.Add(time.Minute) }
	twinstest.ConcurrentReads(t, tw, w, env, []twinstest.Read{
		{Name: "slack_read_channel", Args: `{"channel_id": "general"}`},
		{Name: "slack_read_thread", Args: `{"channel_id": "general", "message_ts": "` + p.TS + `"}`},
		{Name: "slack_get_permalink", Args: `{"channel_id": "general", "message_ts": "` + p.TS + `"}`},
	})
	checkWorldIndex(t, w)
}

// seedWithMessages is the default seed with n messages in #general, as
// pome-bench's scaling benchmark seeds it.
func seedWithMessages(tb testing.TB, n int) json.RawMessage {
	tb.Helper()
	s := DefaultSeed()
	msgs := make([]SeedMessage, n)
	for i := range msgs {
		user := "alice"
		if i%2 == 1 {
			user = "bob"
		}
		msgs[i] = SeedMessage{User: user, Text: "Message " + strconv.Itoa(i+1) + ": deploy looks healthy."}
	}
	for i := range s.Channels {
		if s.Channels[i].Name == "general" {
			s.Channels[i].Messages = msgs
		}
	}
	raw, err := json.Marshal(s)
	if err != nil {
		tb.Fatal(err)
	}
	return raw
}

var benchSizes = []int{10, 1_000, 10_000}

// benchSend gives a world with n messages in #general, a context to call
// it with, and the action that posts.
func benchSend(b *testing.B, n int) (context.Context, any, twins.Action) {
	b.Helper()
	ctx := twins.WithEnv(context.Background(), twinstest.Env(tw.Name))
	w, err := tw.NewWorld(ctx, seedWithMessages(b, n))
	if err != nil {
		b.Fatal(err)
	}
	a, _ := tw.Action("slack_send_message")
	return ctx, w, a
}

// BenchmarkPostMessage posts to a channel of 10 / 1,000 / 10,000
// messages; the cost must not grow with the channel.
func BenchmarkPostMessage(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("messages=%d", n), func(b *testing.B) {
			ctx, w, a := benchSend(b, n)
			in, err := a.Decode(json.RawMessage(`{"channel_id": "general", "message": "Load test message: deploy looks healthy."}`))
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := a.Run(ctx, w, in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSeedMessages builds a world with 10 / 1,000 / 10,000 messages in
// one channel; the cost per message must stay about the same.
func BenchmarkSeedMessages(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("messages=%d", n), func(b *testing.B) {
			ctx := twins.WithEnv(context.Background(), twinstest.Env(tw.Name))
			seed := seedWithMessages(b, n)
			for b.Loop() {
				if _, err := tw.NewWorld(ctx, seed); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/message")
		})
	}
}

// A scheduled message delivered into a channel that already holds a later
// message (here a seeded one from the future) lands before it, exactly
// where re-sorting put it.
func TestScheduledDeliveryLandsInOrder(t *testing.T) {
	w := world(t, `{"users": [{"name": "pome-agent"}], "channels": [{"name": "general", "messages": [
	  {"user": "pome-agent", "text": "past", "ts": "1700000000.000000"},
	  {"user": "pome-agent", "text": "future", "ts": "1924992000.000000"}]}]}`)
	at := t0.Add(time.Hour)
	mustCall(t, w, "slack_schedule_message", `{"channel_id": "general", "message": "scheduled", "post_at": `+unix(at)+`}`)
	later := at.Add(time.Minute)
	read := mustCallAt(t, w, later, "slack_read_channel", `{"channel_id": "general"}`).Out.(ReadChannelOut)
	mustCallAt(t, w, later, "slack_send_message", `{"channel_id": "general", "message": "now"}`)
	var got []string
	for _, m := range ch(t, w, "general").Messages {
		got = append(got, m.Text)
	}
	if fmt.Sprint(got) != "[past scheduled future now]" {
		t.Errorf("order = %v", got)
	}
	var seen []string
	for _, m := range read.Messages {
		seen = append(seen, m.Text)
	}
	if fmt.Sprint(seen) != "[future scheduled past]" {
		t.Errorf("history read with the delivery due = %v", seen)
	}
	checkWorldIndex(t, w)
}

// BenchmarkThreadReply posts a message and a reply to it in a channel of
// 10 / 1,000 / 10,000 messages; finding the thread's replies must not scan
// the channel, so the cost must not grow with it.
func BenchmarkThreadReply(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("messages=%d", n), func(b *testing.B) {
			ctx, w, a := benchSend(b, n)
			parent, err := a.Decode(json.RawMessage(`{"channel_id": "general", "message": "Deploy started."}`))
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				out, err := a.Run(ctx, w, parent)
				if err != nil {
					b.Fatal(err)
				}
				reply, err := a.Decode(json.RawMessage(`{"channel_id": "general", "message": "Done.", "thread_ts": "` + out.(SendMessageOut).TS + `"}`))
				if err != nil {
					b.Fatal(err)
				}
				if _, err := a.Run(ctx, w, reply); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkReadChannel reads the newest 20 messages of a channel of 10 /
// 1,000 / 10,000 (conversations.history, as pome-bench's slack_history),
// and the page after them: the cost must not grow with the channel.
func BenchmarkReadChannel(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("messages=%d", n), func(b *testing.B) {
			ctx, w, _ := benchSend(b, n)
			a, _ := tw.Action("slack_read_channel")
			in, err := a.Decode(json.RawMessage(`{"channel_id": "general", "limit": 20}`))
			if err != nil {
				b.Fatal(err)
			}
			first, err := a.Run(ctx, w, in)
			if err != nil {
				b.Fatal(err)
			}
			cursor := first.(ReadChannelOut).ResponseMetadata.NextCursor
			next, err := a.Decode(json.RawMessage(`{"channel_id": "general", "limit": 20, "cursor": "` + cursor + `"}`))
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := a.Run(ctx, w, in); err != nil {
					b.Fatal(err)
				}
				if cursor != "" {
					if _, err := a.Run(ctx, w, next); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
