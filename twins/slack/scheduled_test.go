package slack

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pomehq/pome/tape"
	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/twinstest"
)

// t0 is the test clock of twinstest.Env.
var t0 = time.Date(2026, 12, 2, 15, 0, 0, 0, time.UTC)

// callAt runs an action with the sandbox clock at at; like call, it
// asserts that a refused call leaves the world alone.
func callAt(t *testing.T, w *World, at time.Time, name, args string) twinstest.Result {
	t.Helper()
	a, ok := tw.Action(name)
	if !ok {
		t.Fatalf("no action %s", name)
	}
	env := twinstest.Env(tw.Name)
	env.Now = func() time.Time { return at }
	ctx, c := twins.WithCall(twins.WithEnv(context.Background(), env))
	in, err := a.Decode(json.RawMessage(args))
	if err != nil {
		return twinstest.Result{Err: twins.AsError(err)}
	}
	before, _ := json.Marshal(w)
	out, err := a.Run(ctx, w, in)
	r := twinstest.Result{Out: out, Err: twins.AsError(err), Mutated: c.Mutated()}
	after, _ := json.Marshal(w)
	if (r.Err != nil || a.Spec().Effect == twins.Read) && string(before) != string(after) {
		t.Errorf("%s(%s) at %s changed the stored world (err %v)", name, args, at.Format(time.TimeOnly), r.Err)
	}
	return r
}

func mustCallAt(t *testing.T, w *World, at time.Time, name, args string) twinstest.Result {
	t.Helper()
	r := callAt(t, w, at, name, args)
	if r.Err != nil {
		t.Fatalf("%s(%s): %v", name, args, r.Err)
	}
	return r
}

func unix(at time.Time) string { return strconv.FormatInt(at.Unix(), 10) }

// tapeAt is a tape whose last call was at at, which is when checks read
// the workspace.
func tapeAt(at time.Time) []tape.Row { return []tape.Row{{Seq: 1, At: at}} }

func TestScheduledDelivery(t *testing.T) {
	w := world(t, "")
	seed := clone(t, w)
	gen := ch(t, w, "general")
	greeting := gen.Messages[0].TS
	due := t0.Add(time.Minute)

	s1 := mustCallAt(t, w, t0, "slack_schedule_message", `{"channel_id": "general", "message": "standup in 5", "post_at": `+unix(due)+`}`).Out.(ScheduleMessageOut)
	mustCallAt(t, w, t0, "slack_schedule_message", `{"channel_id": "general", "message": "threaded note", "post_at": `+unix(due)+`, "thread_ts": "`+greeting+`"}`)
	mustCallAt(t, w, t0, "slack_schedule_message", `{"channel_id": "random", "message": "much later", "post_at": `+unix(t0.Add(2*time.Hour))+`}`)
	ts1 := w.Scheduled[0].TS
	if !strings.HasPrefix(ts1, unix(due)+".") || w.Scheduled[1].TS == ts1 {
		t.Fatalf("scheduled ts %s and %s: want post_at with distinct suffixes", ts1, w.Scheduled[1].TS)
	}

	// Before post_at nothing shows.
	before := t0.Add(59 * time.Second)
	if h := mustCallAt(t, w, before, "slack_read_channel", `{"channel_id": "general"}`).Out.(ReadChannelOut); len(h.Messages) != 1 {
		t.Errorf("history before post_at = %d messages", len(h.Messages))
	}

	// After it, every read sees the message at its scheduled ts, and
	// nothing is stored yet (reads never write).
	after := due.Add(time.Second)
	h := mustCallAt(t, w, after, "slack_read_channel", `{"channel_id": "general"}`).Out.(ReadChannelOut)
	if len(h.Messages) != 2 || h.Messages[0].TS != ts1 || h.Messages[0].Text != "standup in 5" || h.Messages[0].User != w.AuthUser {
		t.Fatalf("history after post_at = %+v", h.Messages)
	}
	if p := h.Messages[1]; p.TS != greeting || p.ReplyCount != 1 || p.LatestReply != w.Scheduled[1].TS {
		t.Errorf("thread parent = %+v", p)
	}
	th := mustCallAt(t, w, after, "slack_read_thread", `{"channel_id": "general", "message_ts": "`+greeting+`"}`).Out.(ReadThreadOut)
	if len(th.Messages) != 2 || th.Messages[1].Text != "threaded note" || th.Messages[1].ThreadTS != greeting {
		t.Errorf("thread = %+v", th.Messages)
	}
	list := mustCallAt(t, w, after, "slack_list_scheduled_messages", `{}`).Out.(ListScheduledOut)
	if len(list.ScheduledMessages) != 1 || list.ScheduledMessages[0].Text != "much later" {
		t.Errorf("scheduled list = %+v", list.ScheduledMessages)
	}
	link := mustCallAt(t, w, after, "slack_get_permalink", `{"channel_id": "general", "message_ts": "`+ts1+`"}`).Out.(PermalinkOut)
	if !strings.HasSuffix(link.Permalink, "/p"+strings.ReplaceAll(ts1, ".", "")) {
		t.Errorf("permalink = %s", link.Permalink)
	}
	found := mustCallAt(t, w, after, "slack_search_public", `{"query": "standup"}`).Out.(SearchOut)
	if found.Messages.Total != 1 {
		t.Errorf("search = %+v", found.Messages)
	}
	if len(w.Scheduled) != 3 || len(gen.Messages) != 1 {
		t.Fatalf("a read stored the delivery: %d scheduled, %d messages", len(w.Scheduled), len(gen.Messages))
	}

	// Checks see the workspace as of the last call; the evidence points
	// where the message still lives in the state document.
	args := map[string]string{"channel": "general", "needle": "standup"}
	c, _ := tw.Check("slack.message-contains")
	r, err := c.Evaluate(&twins.Input{Twin: tw, Seed: seed, Final: w, Tape: tapeAt(after)}, args)
	if err != nil || !r.Passed || r.Evidence.StatePaths[0] != "/scheduled_messages/0" {
		t.Errorf("message-contains after post_at = %+v, %v", r, err)
	}
	if r, _ := c.Evaluate(&twins.Input{Twin: tw, Seed: seed, Final: w, Tape: tapeAt(before)}, args); r.Passed {
		t.Errorf("message-contains before post_at = %+v", r)
	}
	nn, _ := tw.Check("slack.no-new-messages")
	if r, _ := nn.Evaluate(&twins.Input{Twin: tw, Seed: seed, Final: w, Tape: tapeAt(after)}, map[string]string{"channel": "general"}); r.Passed || len(r.Evidence.StatePaths) != 2 {
		t.Errorf("no-new-messages after post_at = %+v", r)
	}

	// A refused write stores nothing (callAt asserts it) …
	wantErr(t, callAt(t, w, after, "slack_send_message", `{"channel_id": "nope", "message": "x"}`), "channel_not_found")
	// … and the next successful write stores the delivery first, so what
	// it adds comes after.
	later := after.Add(time.Second)
	sent := mustCallAt(t, w, later, "slack_send_message", `{"channel_id": "general", "message": "follow-up"}`).Out.(SendMessageOut)
	gen = ch(t, w, "general")
	if len(w.Scheduled) != 1 || len(gen.Messages) != 4 {
		t.Fatalf("after a write: %d scheduled, %d messages", len(w.Scheduled), len(gen.Messages))
	}
	if m := gen.message(ts1); m == nil || gen.Messages[3].TS != sent.TS || gen.message(greeting).ReplyCount != 1 {
		t.Errorf("stored messages = %+v", gen.Messages)
	}
	assertSorted(t, gen)
	r, _ = c.Evaluate(&twins.Input{Twin: tw, Seed: seed, Final: w, Tape: tapeAt(later)}, args)
	if !r.Passed || r.Evidence.StatePaths[0] != "/channels/0/messages/1" {
		t.Errorf("message-contains after the write = %+v", r)
	}
	// Deleting a delivered message's schedule is too late.
	wantErr(t, callAt(t, w, later, "slack_delete_scheduled_message", `{"channel_id": "general", "scheduled_message_id": "`+s1.ScheduledMessageID+`"}`), "invalid_scheduled_message_id")
}

// A message scheduled earlier but delivered after later posts still sits at
// its post_at in history, which stays ordered by ts.
func TestScheduledOrdering(t *testing.T) {
	w := world(t, "")
	mustCallAt(t, w, t0, "slack_schedule_message", `{"channel_id": "general", "message": "at one minute", "post_at": `+unix(t0.Add(time.Minute))+`}`)
	mustCallAt(t, w, t0.Add(90*time.Second), "slack_send_message", `{"channel_id": "random", "message": "elsewhere"}`)
	mustCallAt(t, w, t0.Add(10*time.Second), "slack_schedule_message", `{"channel_id": "general", "message": "at two minutes", "post_at": `+unix(t0.Add(2*time.Minute))+`}`)
	// The clock passes both; a read sees them in order among the others.
	h := mustCallAt(t, w, t0.Add(3*time.Minute), "slack_read_channel", `{"channel_id": "general"}`).Out.(ReadChannelOut)
	if len(h.Messages) != 3 || h.Messages[0].Text != "at two minutes" || h.Messages[1].Text != "at one minute" {
		t.Fatalf("history = %+v", h.Messages)
	}
	mustCallAt(t, w, t0.Add(3*time.Minute), "slack_send_message", `{"channel_id": "general", "message": "now"}`)
	assertSorted(t, ch(t, w, "general"))

	// A message that took the scheduled ts first pushes it on by one
	// microsecond, the same way for readers and writers.
	mustCallAt(t, w, t0.Add(3*time.Minute), "slack_schedule_message", `{"channel_id": "general", "message": "clash", "post_at": `+unix(t0.Add(4*time.Minute))+`}`)
	gen := ch(t, w, "general")
	taken := w.Scheduled[0].TS
	gen.insert(&Message{Type: "message", TS: taken, User: w.AuthUser, Text: "squatter"})
	at := t0.Add(5 * time.Minute)
	h = mustCallAt(t, w, at, "slack_read_channel", `{"channel_id": "general"}`).Out.(ReadChannelOut)
	us, _ := parseTS(taken)
	if h.Messages[0].Text != "clash" || h.Messages[0].TS != formatTS(us+1) {
		t.Errorf("clash = %+v", h.Messages[0])
	}
	mustCallAt(t, w, at, "slack_add_reaction", `{"channel_id": "general", "message_ts": "`+formatTS(us+1)+`", "emoji": "tada"}`)
	if m := ch(t, w, "general").message(formatTS(us + 1)); m == nil || m.Text != "clash" || len(m.Reactions) != 1 {
		t.Errorf("stored clash = %+v", m)
	}
}

// A message whose channel was archived, or whose author left, before its
// time is never posted and leaves the schedule.
func TestScheduledUndeliverable(t *testing.T) {
	w := world(t, "")
	at := unix(t0.Add(time.Minute))
	mustCallAt(t, w, t0, "slack_schedule_message", `{"channel_id": "random", "message": "to archived", "post_at": `+at+`}`)
	mustCallAt(t, w, t0, "slack_archive_channel", `{"channel_id": "random"}`)
	mustCallAt(t, w, t0, "slack_create_conversation", `{"channel_name": "ops"}`)
	mustCallAt(t, w, t0, "slack_schedule_message", `{"channel_id": "ops", "message": "after leaving", "post_at": `+at+`}`)
	mustCallAt(t, w, t0, "slack_leave_channel", `{"channel_id": "ops"}`)
	later := t0.Add(2 * time.Minute)
	if l := mustCallAt(t, w, later, "slack_list_scheduled_messages", `{}`).Out.(ListScheduledOut); len(l.ScheduledMessages) != 0 {
		t.Errorf("list = %+v", l.ScheduledMessages)
	}
	mustCallAt(t, w, later, "slack_join_channel", `{"channel_id": "ops"}`)
	for _, name := range []string{"ops", "random"} {
		for _, m := range ch(t, w, name).Messages {
			if m.Subtype == "" {
				t.Errorf("#%s got %q", name, m.Text)
			}
		}
	}
	if len(w.Scheduled) != 0 {
		t.Errorf("after a write: scheduled %+v", w.Scheduled)
	}
}

// Reads of a world with due messages run concurrently without writing
// (the memory store's read lock; -race checks it), and a world that went
// through JSON (the Redis store) delivers the same messages.
func TestScheduledConcurrentReadsAndRoundTrip(t *testing.T) {
	w := world(t, "")
	greeting := ch(t, w, "general").Messages[0].TS
	for i := 0; i < 3; i++ {
		mustCallAt(t, w, t0, "slack_schedule_message", `{"channel_id": "general", "message": "m`+strconv.Itoa(i)+`", "thread_ts": "`+greeting+`", "reply_broadcast": true, "post_at": `+unix(t0.Add(time.Minute))+`}`)
	}
	after := t0.Add(time.Hour)
	want := mustCallAt(t, w, after, "slack_read_channel", `{"channel_id": "general"}`).Out.(ReadChannelOut)
	if len(want.Messages) != 4 || want.Messages[0].Subtype != "thread_broadcast" {
		t.Fatalf("history = %+v", want.Messages)
	}
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, c := range []struct{ name, args string }{
				{"slack_read_channel", `{"channel_id": "general"}`},
				{"slack_read_thread", `{"channel_id": "general", "message_ts": "` + greeting + `"}`},
				{"slack_search_public", `{"query": "m1"}`},
				{"slack_list_scheduled_messages", `{}`},
			} {
				a, _ := tw.Action(c.name)
				in, err := a.Decode(json.RawMessage(c.args))
				if err != nil {
					t.Error(err)
					return
				}
				env := twinstest.Env(tw.Name)
				env.Now = func() time.Time { return after }
				if _, err := a.Run(twins.WithEnv(context.Background(), env), w, in); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	got := mustCallAt(t, clone(t, w), after, "slack_read_channel", `{"channel_id": "general"}`).Out.(ReadChannelOut)
	a, _ := json.Marshal(want)
	b, _ := json.Marshal(got)
	if string(a) != string(b) {
		t.Errorf("after a JSON round trip:\n%s\nwant\n%s", b, a)
	}
}

func assertSorted(t *testing.T, c *Channel) {
	t.Helper()
	var last int64
	for _, m := range c.Messages {
		us, _ := parseTS(m.TS)
		if us <= last {
			t.Errorf("#%s out of order at %s", c.Name, m.TS)
		}
		last = us
	}
}
