package gmail

import (
	"strings"
	"testing"

	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/twinstest"
)

func TestDefaultWorld(t *testing.T) {
	tw, w := fixture(t, "")
	if len(w.Mailboxes) != 1 || w.me().Address != "pome-agent@acme.test" {
		t.Fatalf("mailboxes: %+v", w.Mailboxes)
	}
	mb := w.me()
	if len(mb.Messages) != 2 {
		t.Fatalf("want 2 messages, got %d", len(mb.Messages))
	}
	for _, m := range mb.Messages {
		if !hexID.MatchString(m.ID) || m.ThreadID != m.ID || !m.hasLabel("INBOX") {
			t.Errorf("message %+v", m)
		}
	}
	out := call(t, tw, w, "list_messages", `{"q":"from:alice receipt"}`)
	msgs := out["messages"].([]any)
	if len(msgs) != 1 {
		t.Fatalf("alice's receipt request: %v", out)
	}
	id := msgs[0].(map[string]any)["id"].(string)
	got := call(t, tw, w, "get_message", `{"messageId":"`+id+`"}`)
	if got["subject"] != "Receipt for order #1042" || !strings.Contains(got["plaintextBody"].(string), "receipt for my order #1042") {
		t.Errorf("get_message: %v", got)
	}
	// internalDate comes from the sandbox clock: the seeded messages are
	// hours before it, newest (alice's) first in lists.
	t0 := twinstest.Env("gmail").Now().UnixMilli()
	for _, m := range mb.Messages {
		if m.InternalDate >= t0 || m.InternalDate < t0-24*3600*1000 {
			t.Errorf("internalDate %d not just before the clock %d", m.InternalDate, t0)
		}
	}
	prof := call(t, tw, w, "get_profile", `{}`)
	if prof["emailAddress"] != "pome-agent@acme.test" || prof["messagesTotal"] != float64(2) || prof["historyId"] != "1002" {
		t.Errorf("profile: %v", prof)
	}
}

func TestSeedDeterministic(t *testing.T) {
	_, a := fixture(t, "")
	_, b := fixture(t, "")
	if mustJSON(t, a) != mustJSON(t, b) {
		t.Error("two default worlds differ")
	}
}

const richSeed = `{"mailboxes":[
 {"address":"pome-agent@acme.test","name":"Pome Agent",
  "labels":[{"name":"Receipts"},{"name":"Work/Urgent","color":{"textColor":"#000000","backgroundColor":"#ffffff"}}],
  "messages":[
   {"thread":"r","from":"Alice Example <alice@example.com>","subject":"Receipt for order #1042","text":"Could you send the receipt?","date":"2026-12-01T09:00:00Z","labels":["INBOX","UNREAD","Receipts"]},
   {"thread":"r","subject":"Re: Receipt for order #1042","to":["alice@example.com"],"text":"On it.","date":"2026-12-01T10:00:00Z","labels":["SENT"]},
   {"from":"bob@acme.test","subject":"Invoice attached","text":"See attached.","date":"2026-11-20T10:00:00Z",
    "attachments":[{"filename":"invoice.txt","text":"total 42"},{"filename":"logo.png","mimeType":"image/png","data":"iVBORw0KGgo="}]},
   {"raw":"From: Carol <carol@example.org>\nTo: pome-agent@acme.test\nSubject: Raw hello\n\nRaw body here","labels":["INBOX","STARRED"]}
  ],
  "drafts":[{"to":["alice@example.com"],"subject":"Re: Receipt for order #1042","text":"Draft reply","thread":"r"}]},
 {"address":"alice@example.com","name":"Alice Example"}
]}`

func TestRichSeed(t *testing.T) {
	tw, w := fixture(t, richSeed)
	mb := w.me()
	if len(mb.Messages) != 5 || len(mb.Drafts) != 1 || len(w.Mailboxes) != 2 {
		t.Fatalf("messages %d drafts %d mailboxes %d", len(mb.Messages), len(mb.Drafts), len(w.Mailboxes))
	}
	first, reply, inv, raw, draft := mb.Messages[0], mb.Messages[1], mb.Messages[2], mb.Messages[3], mb.Messages[4]
	if reply.ThreadID != first.ID || draft.ThreadID != first.ID {
		t.Errorf("thread: %s %s %s", first.ID, reply.ThreadID, draft.ThreadID)
	}
	if reply.InReplyTo != first.MessageIDHdr || reply.From != "Pome Agent <pome-agent@acme.test>" {
		t.Errorf("reply headers: %+v", reply)
	}
	if !first.hasLabel("Label_1") || mb.labelByName("work/urgent").ID != "Label_2" {
		t.Errorf("labels: %v", first.LabelIDs)
	}
	if !inv.HasAttachment || inv.Subject != "Invoice attached" || raw.Subject != "Raw hello" || raw.From != "Carol <carol@example.org>" {
		t.Errorf("derived: %+v / %+v", inv, raw)
	}
	if !draft.hasLabel("DRAFT") || mb.Drafts[0].MessageID != draft.ID {
		t.Errorf("draft: %+v", draft)
	}
	out := call(t, tw, w, "get_thread", `{"threadId":"`+first.ID+`"}`)
	if n := len(out["messages"].([]any)); n != 3 {
		t.Errorf("thread has %d messages", n)
	}
}

func TestSeedErrors(t *testing.T) {
	tw := New()
	cases := []struct{ name, seed, path string }{
		{"unknown key", `{"mailboxes":[{"address":"a@b.c"}],"extra":1}`, "/extra"},
		{"wrong type", `{"mailboxes":[{"address":"a@b.c","labels":"x"}]}`, "/mailboxes/0/labels"},
		{"no mailbox", `{"mailboxes":[]}`, "/mailboxes"},
		{"bad address", `{"mailboxes":[{"address":"Alice <a@b.c>"}]}`, "/mailboxes/0/address"},
		{"duplicate mailbox", `{"mailboxes":[{"address":"a@b.c"},{"address":"A@b.c"}]}`, "/mailboxes/1/address"},
		{"system label name", `{"mailboxes":[{"address":"a@b.c","labels":[{"name":"Inbox"}]}]}`, "/mailboxes/0/labels/0/name"},
		{"duplicate label", `{"mailboxes":[{"address":"a@b.c","labels":[{"name":"X"},{"name":"x"}]}]}`, "/mailboxes/0/labels/1/name"},
		{"bad visibility", `{"mailboxes":[{"address":"a@b.c","labels":[{"name":"X","labelListVisibility":"nope"}]}]}`, "/mailboxes/0/labels/0"},
		{"undefined label", `{"mailboxes":[{"address":"a@b.c","messages":[{"from":"x@y.z","labels":["INBOX","Nope"]}]}]}`, "/mailboxes/0/messages/0/labels/1"},
		{"draft label", `{"mailboxes":[{"address":"a@b.c","messages":[{"from":"x@y.z","labels":["DRAFT"]}]}]}`, "/mailboxes/0/messages/0/labels/0"},
		{"bad id", `{"mailboxes":[{"address":"a@b.c","messages":[{"id":"xyz","from":"x@y.z"}]}]}`, "/mailboxes/0/messages/0/id"},
		{"duplicate id", `{"mailboxes":[{"address":"a@b.c","messages":[{"id":"00000000000000aa","from":"x@y.z"},{"id":"00000000000000aa","from":"x@y.z"}]}]}`, "/mailboxes/0/messages/1/id"},
		{"bad date", `{"mailboxes":[{"address":"a@b.c","messages":[{"from":"x@y.z","date":"yesterday"}]}]}`, "/mailboxes/0/messages/0/date"},
		{"missing from", `{"mailboxes":[{"address":"a@b.c","messages":[{"subject":"hi"}]}]}`, "/mailboxes/0/messages/0/from"},
		{"bad recipient", `{"mailboxes":[{"address":"a@b.c","messages":[{"from":"x@y.z","to":["not an address"]}]}]}`, "/mailboxes/0/messages/0/to/0"},
		{"raw and fields", `{"mailboxes":[{"address":"a@b.c","messages":[{"raw":"Subject: x\n\nbody","subject":"y"}]}]}`, "/mailboxes/0/messages/0/raw"},
		{"bad raw", `{"mailboxes":[{"address":"a@b.c","messages":[{"raw":"To: not an address at all <<\n\nbody"}]}]}`, "/mailboxes/0/messages/0/raw"},
		{"attachment without name", `{"mailboxes":[{"address":"a@b.c","messages":[{"from":"x@y.z","attachments":[{"text":"x"}]}]}]}`, "/mailboxes/0/messages/0/attachments/0/filename"},
		{"attachment bad data", `{"mailboxes":[{"address":"a@b.c","messages":[{"from":"x@y.z","attachments":[{"filename":"f","data":"!!!"}]}]}]}`, "/mailboxes/0/messages/0/attachments/0/data"},
		{"draft unknown thread", `{"mailboxes":[{"address":"a@b.c","drafts":[{"thread":"nope"}]}]}`, "/mailboxes/0/drafts/0/thread"},
		{"draft bad cc", `{"mailboxes":[{"address":"a@b.c","drafts":[{"cc":["x"]}]}]}`, "/mailboxes/0/drafts/0/cc/0"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := tw.NewWorld(twins.WithEnv(t.Context(), twinstest.Env("gmail")), []byte(c.seed))
			se, ok := err.(*twins.SeedError)
			if !ok {
				t.Fatalf("want SeedError, got %v", err)
			}
			if se.Path != c.path {
				t.Errorf("path %q, want %q (%s)", se.Path, c.path, se.Message)
			}
		})
	}
}
