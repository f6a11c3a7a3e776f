package gmail

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"testing"

	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/twinstest"
)

// seedWithMessages is a seed whose first mailbox holds n messages, one
// thread each, as a busy inbox would.
func seedWithMessages(tb testing.TB, n int) json.RawMessage {
	tb.Helper()
	msgs := make([]map[string]any, n)
	for i := range msgs {
		msgs[i] = map[string]any{
			"from": "alice@example.com", "to": []string{"pome-agent@acme.test"},
			"subject": "Order #" + strconv.Itoa(i+1), "text": "Where is my order?",
			"date": "2026-12-01T09:30:00Z", "labels": []string{"INBOX", "UNREAD"},
		}
	}
	raw, err := json.Marshal(map[string]any{"mailboxes": []any{
		map[string]any{"address": "pome-agent@acme.test", "name": "Pome Agent", "messages": msgs},
		map[string]any{"address": "alice@example.com", "name": "Alice Example"},
	}})
	if err != nil {
		tb.Fatal(err)
	}
	return raw
}

// Mailboxes find messages through an index (Mailbox.byID). This test pins
// that it holds exactly the mailbox's messages after every kind of change,
// and that a copied or decoded world gets its own.
func checkMessageIndex(t *testing.T, w *World) {
	t.Helper()
	for _, mb := range w.Mailboxes {
		if mb.byID == nil {
			t.Fatalf("%s: no message index", mb.Address)
		}
		if len(mb.byID) != len(mb.Messages) {
			t.Fatalf("%s: index holds %d messages, the mailbox %d", mb.Address, len(mb.byID), len(mb.Messages))
		}
		for _, m := range mb.Messages {
			if mb.byID[m.ID] != m {
				t.Fatalf("%s: message %s is not indexed as itself", mb.Address, m.ID)
			}
		}
		// The thread index holds each thread's messages in mailbox order,
		// and no thread without one.
		threads := map[string][]*Message{}
		for _, m := range mb.Messages {
			threads[m.ThreadID] = append(threads[m.ThreadID], m)
		}
		if len(mb.byThread) != len(threads) {
			t.Fatalf("%s: thread index holds %d threads, the mailbox %d", mb.Address, len(mb.byThread), len(threads))
		}
		for id, ms := range threads {
			if !slices.Equal(mb.byThread[id], ms) {
				t.Fatalf("%s: thread %s indexed as %d messages, the mailbox holds %d", mb.Address, id, len(mb.byThread[id]), len(ms))
			}
		}
		// The Message-ID header index holds every message with one, under it.
		n := 0
		for _, m := range mb.Messages {
			if m.MessageIDHdr != "" {
				n++
				if !slices.Contains(mb.byHeaderID[m.MessageIDHdr], m) {
					t.Fatalf("%s: message %s is not indexed under its header %s", mb.Address, m.ID, m.MessageIDHdr)
				}
			}
		}
		indexed := 0
		for _, ms := range mb.byHeaderID {
			indexed += len(ms)
		}
		if indexed != n {
			t.Fatalf("%s: header index holds %d messages, the mailbox %d with a Message-ID", mb.Address, indexed, n)
		}
	}
}

// TestThreadByHeadersIndexed: a message referencing one stored message
// with its subject joins that message's thread; referencing several, the
// newest one's, as a scan from the newest finds; none, no thread.
func TestThreadByHeadersIndexed(t *testing.T) {
	older := &Message{ID: "a", ThreadID: "t1", MessageIDHdr: "<a@x>", Subject: "Order"}
	newer := &Message{ID: "b", ThreadID: "t2", MessageIDHdr: "<b@x>", Subject: "Re: Order"}
	other := &Message{ID: "c", ThreadID: "t3", MessageIDHdr: "<c@x>", Subject: "Lunch"}
	w := &World{Mailboxes: []*Mailbox{{Address: "me@x", Messages: []*Message{older, newer, other}}}}
	w.indexMessages()
	mb := w.me()
	for _, c := range []struct {
		refs []string
		subj string
		want string
	}{
		{[]string{"<a@x>"}, "Re: Order", "t1"},
		{[]string{"<a@x>", "<b@x>"}, "Re: Order", "t2"},
		{[]string{"<b@x>", "<a@x>"}, "Re: Order", "t2"},
		{[]string{"<c@x>"}, "Re: Order", ""},
		{[]string{"<z@x>"}, "Re: Order", ""},
		{[]string{"<c@x>", "<a@x>"}, "Lunch", "t3"},
	} {
		if got := mb.threadByHeaders(&Message{References: c.refs, Subject: c.subj}); got != c.want {
			t.Errorf("refs %v, subject %q: thread %q, want %q", c.refs, c.subj, got, c.want)
		}
	}
}

func TestMessageIndex(t *testing.T) {
	tw := New()
	w := twinstest.World(t, tw, SeedExample).(*World)
	checkMessageIndex(t, w)
	sent := call(t, tw, w, "send_message", `{"to": ["alice@example.com"], "subject": "Receipt", "body": "Attached."}`)
	draft := call(t, tw, w, "create_draft", `{"to": ["alice@example.com"], "subject": "Later", "body": "Soon."}`)
	call(t, tw, w, "send_draft", `{"id": "`+draft["id"].(string)+`"}`)
	gone := call(t, tw, w, "create_draft", `{"to": ["alice@example.com"], "subject": "Never", "body": "No."}`)
	call(t, tw, w, "delete_draft", `{"id": "`+gone["id"].(string)+`"}`)
	call(t, tw, w, "delete_message", `{"messageId": "`+sent["id"].(string)+`"}`)
	checkMessageIndex(t, w)
	// A seeded draft has no Message-ID header; sent, it has one.
	seeded := w.me().Drafts[0]
	if m := w.me().message(seeded.MessageID); m.MessageIDHdr != "" {
		t.Fatalf("the example's draft has a Message-ID (%s): the case below needs one without", m.MessageIDHdr)
	}
	call(t, tw, w, "send_draft", `{"id": "`+seeded.ID+`"}`)
	checkMessageIndex(t, w)
	// Replies join a thread; deleting one leaves the rest of it; deleting
	// the last of a thread drops it.
	first := call(t, tw, w, "send_message", `{"to": ["alice@example.com"], "subject": "Order", "body": "One."}`)
	tid := first["threadId"].(string)
	reply := call(t, tw, w, "send_message", `{"to": ["alice@example.com"], "subject": "Re: Order", "body": "Two.", "threadId": "`+tid+`"}`)
	if reply["threadId"] != tid {
		t.Fatalf("the reply went to thread %v, want %s", reply["threadId"], tid)
	}
	rd := call(t, tw, w, "create_draft", `{"to": ["alice@example.com"], "subject": "Re: Order", "body": "Three?", "threadId": "`+tid+`"}`)
	if got := len(w.me().thread(tid)); got != 3 {
		t.Fatalf("thread %s holds %d messages, want 3", tid, got)
	}
	checkMessageIndex(t, w)
	call(t, tw, w, "delete_draft", `{"id": "`+rd["id"].(string)+`"}`)
	call(t, tw, w, "delete_message", `{"messageId": "`+first["id"].(string)+`"}`)
	checkMessageIndex(t, w)
	call(t, tw, w, "delete_message", `{"messageId": "`+reply["id"].(string)+`"}`)
	checkMessageIndex(t, w)
	if _, ok := w.me().byThread[tid]; ok {
		t.Errorf("thread %s is still indexed with none of its messages left", tid)
	}
	if w.me().message(sent["id"].(string)) != nil {
		t.Error("a deleted message is still found")
	}
	cp := tw.CopyWorld(w).(*World)
	checkMessageIndex(t, cp)
	if cp.me().message(cp.me().Messages[0].ID) == w.me().Messages[0] {
		t.Error("the copy's index points into the original")
	}
	doc, err := json.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	dec, err := tw.DecodeWorld(doc)
	if err != nil {
		t.Fatal(err)
	}
	checkMessageIndex(t, dec.(*World))
}

var benchSizes = []int{10, 1_000, 10_000}

// benchWorld is a world with n messages in the agent's mailbox, the context
// to call it with, and the named action with its decoded input.
func benchWorld(b *testing.B, n int, action, args string) (context.Context, *World, twins.Action, any) {
	b.Helper()
	tw := New()
	ctx := twins.WithEnv(context.Background(), twinstest.Env(tw.Name))
	w, err := tw.NewWorld(ctx, seedWithMessages(b, n))
	if err != nil {
		b.Fatal(err)
	}
	a, _ := tw.Action(action)
	in, err := a.Decode(json.RawMessage(args))
	if err != nil {
		b.Fatal(err)
	}
	return ctx, w.(*World), a, in
}

// BenchmarkSendMessage sends mail to another mailbox of the sandbox from a
// mailbox of 10 / 1,000 / 10,000 messages; the cost must not grow with it.
func BenchmarkSendMessage(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("messages=%d", n), func(b *testing.B) {
			ctx, w, a, in := benchWorld(b, n, "send_message",
				`{"to": ["alice@example.com"], "subject": "Your order", "body": "It ships today."}`)
			for b.Loop() {
				if _, err := a.Run(ctx, w, in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkModifyMessage labels one message of a mailbox of 10 / 1,000 /
// 10,000 messages; the cost must not grow with the mailbox.
func BenchmarkModifyMessage(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("messages=%d", n), func(b *testing.B) {
			ctx, w, _, _ := benchWorld(b, n, "send_message", `{}`)
			id := w.me().Messages[n/2].ID
			a, _ := New().Action("modify_message")
			add, err := a.Decode(json.RawMessage(`{"messageId": "` + id + `", "addLabelIds": ["STARRED"]}`))
			if err != nil {
				b.Fatal(err)
			}
			del, err := a.Decode(json.RawMessage(`{"messageId": "` + id + `", "removeLabelIds": ["STARRED"]}`))
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := a.Run(ctx, w, add); err != nil {
					b.Fatal(err)
				}
				if _, err := a.Run(ctx, w, del); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkNewWorld builds a world from a seed of 10 / 1,000 / 10,000
// messages: a sandbox's first call pays it. Its cost per message must not
// grow with the mailbox.
func BenchmarkNewWorld(b *testing.B) {
	tw := New()
	ctx := twins.WithEnv(context.Background(), twinstest.Env(tw.Name))
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("messages=%d", n), func(b *testing.B) {
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

// BenchmarkModifyThread labels a thread of a mailbox of 10 / 1,000 /
// 10,000 messages: the thread is found through its index, so the cost must
// not grow with the mailbox.
func BenchmarkModifyThread(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("messages=%d", n), func(b *testing.B) {
			tw := New()
			ctx := twins.WithEnv(context.Background(), twinstest.Env(tw.Name))
			w, err := tw.NewWorld(ctx, seedWithMessages(b, n))
			if err != nil {
				b.Fatal(err)
			}
			tid := w.(*World).me().Messages[n/2].ThreadID
			a, _ := tw.Action("modify_thread")
			in, err := a.Decode(json.RawMessage(`{"threadId": "` + tid + `", "addLabelIds": ["STARRED"]}`))
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

// BenchmarkInsertDelete inserts a message into a mailbox of 10 / 1,000 /
// 10,000 messages and deletes it for good, so the mailbox keeps its size:
// neither may cost more in a larger mailbox.
func BenchmarkInsertDelete(b *testing.B) {
	raw := base64.URLEncoding.EncodeToString([]byte("From: dave@x.test\r\nTo: pome-agent@acme.test\r\nSubject: Hello\r\n\r\nhi"))
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("messages=%d", n), func(b *testing.B) {
			ctx, w, insert, in := benchWorld(b, n, "insert_message", `{"raw": "`+raw+`", "labelIds": ["INBOX"]}`)
			del, _ := New().Action("delete_message")
			for b.Loop() {
				out, err := insert.Run(ctx, w, in)
				if err != nil {
					b.Fatal(err)
				}
				id := out.(MessageOut).ID
				din, err := del.Decode(json.RawMessage(`{"messageId": "` + id + `"}`))
				if err != nil {
					b.Fatal(err)
				}
				if _, err := del.Run(ctx, w, din); err != nil {
					b.Fatal(err)
				}
			}
			if len(w.me().Messages) != n {
				b.Fatalf("the mailbox holds %d messages, want %d", len(w.me().Messages), n)
			}
		})
	}
}
