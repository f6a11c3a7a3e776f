package gmail

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/twinstest"
)

// TestSeedExampleOriginal loads the original-format example and checks
// that every key it gives arrived in the world.
func TestSeedExampleOriginal(t *testing.T) {
	tw, w := fixture(t, SeedExampleOriginal)
	if tw.SeedExampleOriginal != SeedExampleOriginal {
		t.Error("the twin does not carry the example")
	}
	if len(w.Mailboxes) != 2 || w.me().Address != "desk@lumen.test" || w.me().DisplayName != "Lumen Desk" || w.Mailboxes[1].DisplayName != "Nadia Orchard" {
		t.Fatalf("mailboxes: %+v", w.Mailboxes)
	}
	mb := w.me()
	if l := mb.label("Label_needs_reply"); l == nil || l.Name != "Needs Reply" || l.Type != "user" {
		t.Errorf("pinned label: %+v", l)
	}
	if l := mb.labelByName("Vendors"); l == nil || l.ID != "Label_1" || l.Color == nil || l.Color.BackgroundColor != "#ffffff" {
		t.Errorf("minted label: %+v", l)
	}
	outage := mb.message("msg_outage")
	if outage == nil || outage.ThreadID != "thread_outage" || outage.MessageIDHdr != "<outage-17@orchard.test>" || !outage.HasAttachment ||
		!slices.Equal(outage.LabelIDs, []string{"INBOX", "UNREAD"}) || outage.From != "nadia@orchard.test" {
		t.Fatalf("msg_outage: %+v", outage)
	}
	if want := time.Date(2026, 11, 30, 8, 15, 0, 0, time.UTC).UnixMilli(); outage.InternalDate != want {
		t.Errorf("internalDate %d, want %d", outage.InternalDate, want)
	}
	reply := mb.message("msg_outage_reply")
	if reply == nil || reply.ThreadID != "thread_outage" || reply.InReplyTo != "<outage-17@orchard.test>" ||
		!slices.Equal(reply.References, []string{"<outage-17@orchard.test>"}) || !strings.Contains(reply.From, "desk@lumen.test") {
		t.Fatalf("reply (from defaults to the mailbox): %+v", reply)
	}
	quote := mb.message("msg_quote")
	if quote == nil || quote.Subject != "Your quote" || !slices.Equal(quote.LabelIDs, []string{"INBOX", "Label_1"}) || quote.ThreadID != "msg_quote" {
		t.Fatalf("raw message: %+v", quote)
	}
	// The inline part keeps its disposition and Content-ID.
	att := call(t, tw, w, "get_message", `{"messageId":"msg_outage"}`)
	body, _ := json.Marshal(att)
	if !strings.Contains(string(body), "chart.png") {
		t.Errorf("attachments: %s", body)
	}
	raw := call(t, tw, w, "get_message", `{"messageId":"msg_outage","format":"raw"}`)
	src, _ := decodeRaw(raw["raw"].(string))
	if !strings.Contains(string(src), "Content-Disposition: inline; filename=\"chart.png\"") || !strings.Contains(string(src), "Content-ID: <chart-1>") {
		t.Errorf("inline part:\n%s", src)
	}
	if len(mb.Drafts) != 1 || mb.Drafts[0].ID != "draft_followup" || mb.Drafts[0].MessageID != "draft_followup_message" {
		t.Fatalf("drafts: %+v", mb.Drafts)
	}
	if d := mb.message("draft_followup_message"); d == nil || d.ThreadID != "thread_followup" || d.MessageIDHdr != "<followup@lumen.test>" || !d.hasLabel("DRAFT") {
		t.Errorf("draft message: %+v", d)
	}
	got := call(t, tw, w, "get_draft", `{"id":"draft_followup"}`)
	if got["id"] != "draft_followup" {
		t.Errorf("get_draft: %v", got)
	}
	if len(mb.Filters) != 1 || mb.Filters[0].ID != "filter_vendors" || !slices.Equal(mb.Filters[0].Action.AddLabelIDs, []string{"Label_1"}) {
		t.Errorf("filters: %+v", mb.Filters)
	}
	if len(mb.ForwardingAddresses) != 1 || mb.ForwardingAddresses[0].VerificationStatus != "accepted" {
		t.Errorf("forwarding: %+v", mb.ForwardingAddresses)
	}
	if len(mb.SendAs) != 1 || !mb.SendAs[0].IsPrimary || mb.SendAs[0].DisplayName != "Lumen Desk" {
		t.Errorf("sendAs: %+v", mb.SendAs)
	}
	if w.DeliveryMode != "seeded-mailboxes" || len(w.Faults) != 1 || w.Faults[0].SucceedFirst != 1 || w.Faults[0].ThrottleFor != 2 || w.Faults[0].RetryAfterSeconds != 2 {
		t.Errorf("delivery %q, faults %+v", w.DeliveryMode, w.Faults)
	}
	// The seed's clock is the twin's: two days after it, by the sandbox.
	clock := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	if d := w.now(twins.WithEnv(context.Background(), twinstest.Env("gmail"))).Sub(clock); d < 0 || d > time.Minute {
		t.Errorf("clock off by %v", d)
	}
	// Seeded ids are found by every method, and unknown ids keep Gmail's
	// answers: malformed 400, well-formed 404.
	if r := twinstest.Call(t, tw, w, "get_thread", `{"threadId":"thread_outage"}`); r.Err != nil {
		t.Errorf("get_thread: %v", r.Err)
	}
	for args, code := range map[string]twins.Code{`{"messageId":"msg_nope"}`: twins.Invalid, `{"messageId":"18f0a1b2ffff0000"}`: twins.NotFound} {
		if r := twinstest.Call(t, tw, w, "get_message", args); r.Err == nil || r.Err.Code != code {
			t.Errorf("get_message %s: %v", args, r.Err)
		}
	}
}

func TestOriginalSeedDefaults(t *testing.T) {
	tw, w := fixture(t, `{"_meta":{"version":1},"primaryMailbox":{"email":"Agent@Lumen.test",
	  "labels":[{"id":"Label_1","name":"Pinned"},{"name":"Minted"}],
	  "messages":[{"from":"x@y.test","subject":"no labels, no recipients"},
	              {"from":"x@y.test","subject":"Re: no labels, no recipients","references":["<a@b>"]}]}}`)
	mb := w.me()
	if mb.Address != "agent@lumen.test" || w.DeliveryMode != "sender-only" || w.ClockOffsetMS != 0 || w.Faults != nil {
		t.Errorf("defaults: %q %q %d %v", mb.Address, w.DeliveryMode, w.ClockOffsetMS, w.Faults)
	}
	// A minted id never takes a pinned one, at seed time or later.
	if l := mb.labelByName("Minted"); l == nil || l.ID != "Label_2" {
		t.Errorf("minted label: %+v", l)
	}
	out := call(t, tw, w, "create_label", `{"name":"Later"}`)
	if out["id"] != "Label_3" {
		t.Errorf("create_label: %v", out)
	}
	m := mb.Messages[0]
	if len(m.LabelIDs) != 0 || len(m.To) != 0 || !hexID.MatchString(m.ID) {
		t.Errorf("message defaults: %+v", m)
	}
	// Sender-only: mail to another seeded mailbox stays in SENT.
	_, w2 := fixture(t, `{"primaryMailbox":{"email":"a@lumen.test"},"mailboxes":[{"email":"b@lumen.test"}]}`)
	call(t, tw, w2, "send_message", `{"to":["b@lumen.test"],"subject":"hi","body":"x"}`)
	if len(w2.Mailboxes[1].Messages) != 0 {
		t.Errorf("sender-only delivered: %+v", w2.Mailboxes[1].Messages)
	}
}

func TestOriginalSeedDelivery(t *testing.T) {
	// seeded-mailboxes delivers, and the recipient's filters act on it.
	tw, w := fixture(t, `{"primaryMailbox":{"email":"a@lumen.test"},
	  "mailboxes":[{"email":"b@lumen.test","labels":[{"id":"Label_vip","name":"VIP"}],
	    "filters":[{"criteria":{"from":"a@lumen.test","subject":"urgent"},"action":{"addLabelIds":["VIP","STARRED"],"removeLabelIds":["INBOX"]}},
	               {"criteria":{"query":"has:attachment"},"action":{"addLabelIds":["IMPORTANT"]}}]}],
	  "deliveryMode":"seeded-mailboxes"}`)
	call(t, tw, w, "send_message", `{"to":["b@lumen.test"],"subject":"Urgent: call me","body":"x"}`)
	call(t, tw, w, "send_message", `{"to":["b@lumen.test"],"subject":"lunch","body":"x"}`)
	got := w.Mailboxes[1].Messages
	if len(got) != 2 {
		t.Fatalf("delivered %d", len(got))
	}
	if m := got[0]; !m.hasLabel("Label_vip") || !m.hasLabel("STARRED") || m.hasLabel("INBOX") || m.hasLabel("IMPORTANT") {
		t.Errorf("filtered: %v", m.LabelIDs)
	}
	if m := got[1]; m.hasLabel("Label_vip") || !m.hasLabel("INBOX") {
		t.Errorf("unfiltered: %v", m.LabelIDs)
	}
	if w.Mailboxes[1].Filters[0].ID != "filter_1" {
		t.Errorf("filter id %q", w.Mailboxes[1].Filters[0].ID)
	}
}

func TestOriginalSeedErrors(t *testing.T) {
	tw := New()
	for _, c := range []struct{ seed, path string }{
		{`{"primaryMailbox":{"email":"a@lumen.test","nickname":"x"}}`, "/primaryMailbox/nickname"},
		{`{"primaryMailbox":{"email":"a@lumen.test"},"extra":1}`, "/extra"},
		{`{"_meta":{}}`, "/primaryMailbox"},
		{`{"_meta":[1],"primaryMailbox":{"email":"a@lumen.test"}}`, "/_meta"},
		{`{"primaryMailbox":{"email":"not an address"}}`, "/primaryMailbox/email"},
		{`{"primaryMailbox":{"email":"a@lumen.test"},"mailboxes":[{"email":"A@lumen.test"}]}`, "/mailboxes/0/email"},
		{`{"primaryMailbox":{"email":"a@lumen.test","labels":[{"id":"has space","name":"x"}]}}`, "/primaryMailbox/labels/0/id"},
		{`{"primaryMailbox":{"email":"a@lumen.test","labels":[{"id":"INBOX","name":"x"}]}}`, "/primaryMailbox/labels/0/id"},
		{`{"primaryMailbox":{"email":"a@lumen.test","labels":[{"id":"L","name":"x"},{"id":"L","name":"y"}]}}`, "/primaryMailbox/labels/1/id"},
		{`{"primaryMailbox":{"email":"a@lumen.test","labels":[{"name":"x"},{"name":"X"}]}}`, "/primaryMailbox/labels/1/name"},
		{`{"primaryMailbox":{"email":"a@lumen.test","messages":[{"id":"msg 1"}]}}`, "/primaryMailbox/messages/0/id"},
		{`{"primaryMailbox":{"email":"a@lumen.test","messages":[{"id":"m"},{"id":"m"}]}}`, "/primaryMailbox/messages/1/id"},
		{`{"primaryMailbox":{"email":"a@lumen.test","messages":[{"threadId":"t.1"}]}}`, "/primaryMailbox/messages/0/threadId"},
		{`{"primaryMailbox":{"email":"a@lumen.test","messages":[{"labels":["Nope"]}]}}`, "/primaryMailbox/messages/0/labels/0"},
		{`{"primaryMailbox":{"email":"a@lumen.test","messages":[{"messageId":"a b@c"}]}}`, "/primaryMailbox/messages/0/messageId"},
		{`{"primaryMailbox":{"email":"a@lumen.test","messages":[{"references":["ok@x","a b@c"]}]}}`, "/primaryMailbox/messages/0/references/1"},
		{`{"primaryMailbox":{"email":"a@lumen.test","messages":[{"raw":"Subject: x\n\ny","subject":"x"}]}}`, "/primaryMailbox/messages/0/raw"},
		{`{"primaryMailbox":{"email":"a@lumen.test","messages":[{"raw":"!!!"}]}}`, "/primaryMailbox/messages/0/raw"},
		{`{"primaryMailbox":{"email":"a@lumen.test","messages":[{"date":"yesterday"}]}}`, "/primaryMailbox/messages/0/date"},
		{`{"primaryMailbox":{"email":"a@lumen.test","messages":[{"attachments":[{"filename":"a","data":"x","disposition":"side"}]}]}}`, "/primaryMailbox/messages/0/attachments/0/disposition"},
		{`{"primaryMailbox":{"email":"a@lumen.test","drafts":[{"id":"d"},{"id":"d"}]}}`, "/primaryMailbox/drafts/1/id"},
		{`{"primaryMailbox":{"email":"a@lumen.test","drafts":[{"labels":["INBOX"]}]}}`, "/primaryMailbox/drafts/0/labels"},
		{`{"primaryMailbox":{"email":"a@lumen.test","drafts":[{"raw":"Subject: x\n\ny"}]}}`, "/primaryMailbox/drafts/0/raw"},
		{`{"primaryMailbox":{"email":"a@lumen.test","filters":[{"criteria":{"query":"after:someday"}}]}}`, "/primaryMailbox/filters/0/criteria/query"},
		{`{"primaryMailbox":{"email":"a@lumen.test","filters":[{"action":{"forward":"b@lumen.test"}}]}}`, "/primaryMailbox/filters/0/action/forward"},
		{`{"primaryMailbox":{"email":"a@lumen.test","filters":[{"action":{"addLabelIds":["Nope"]}}]}}`, "/primaryMailbox/filters/0/action/addLabelIds/0"},
		{`{"primaryMailbox":{"email":"a@lumen.test","filters":[{"criteria":{"sizeComparison":"bigger"}}]}}`, "/primaryMailbox/filters/0/criteria/sizeComparison"},
		{`{"primaryMailbox":{"email":"a@lumen.test","filters":[{"criteria":{"colour":"red"}}]}}`, "/primaryMailbox/filters/0/criteria/colour"},
		{`{"primaryMailbox":{"email":"a@lumen.test","forwardingAddresses":[{"forwardingEmail":"nope"}]}}`, "/primaryMailbox/forwardingAddresses/0/forwardingEmail"},
		{`{"primaryMailbox":{"email":"a@lumen.test","forwardingAddresses":[{"forwardingEmail":"b@lumen.test","verificationStatus":"maybe"}]}}`, "/primaryMailbox/forwardingAddresses/0/verificationStatus"},
		{`{"primaryMailbox":{"email":"a@lumen.test","sendAs":[{"sendAsEmail":"nope"}]}}`, "/primaryMailbox/sendAs/0/sendAsEmail"},
		{`{"primaryMailbox":{"email":"a@lumen.test","sendAs":[{"sendAsEmail":"b@lumen.test","replyToAddress":"x"}]}}`, "/primaryMailbox/sendAs/0/replyToAddress"},
		{`{"primaryMailbox":{"email":"a@lumen.test"},"deliveryMode":"everyone"}`, "/deliveryMode"},
		{`{"primaryMailbox":{"email":"a@lumen.test"},"clock":"noon"}`, "/clock"},
		{`{"primaryMailbox":{"email":"a@lumen.test"},"faults":[{"name":"kaboom"}]}`, "/faults/0/name"},
		{`{"primaryMailbox":{"email":"a@lumen.test"},"faults":[{"name":"rate-limited","target":"messages.list"}]}`, "/faults/0/target"},
		{`{"primaryMailbox":{"email":"a@lumen.test"},"faults":[{"name":"rate-limited","throttleFor":0}]}`, "/faults/0/throttleFor"},
		{`{"primaryMailbox":{"email":"a@lumen.test"},"faults":[{"name":"rate-limited","retryAfterSeconds":3601}]}`, "/faults/0/retryAfterSeconds"},
		{`{"primaryMailbox":{"email":"a@lumen.test"},"faults":[{"name":"rate-limited","succeedFirst":-1}]}`, "/faults/0/succeedFirst"},
		{`{"primaryMailbox":{"email":"a@lumen.test"},"faults":[{"name":"rate-limited","when":"before"}]}`, "/faults/0/when"},
		// Our format stays ours: the original's keys are not mixed into it.
		{`{"mailboxes":[{"address":"a@lumen.test","messages":[{"threadId":"t"}]}]}`, "/mailboxes/0/messages/0/threadId"},
		{`{"mailboxes":[{"address":"a@lumen.test","messages":[{"id":"msg_support","from":"x@y.test"}]}]}`, "/mailboxes/0/messages/0/id"},
		{`{"mailboxes":[{"address":"a@lumen.test","filters":[{"criteria":{"from":"x"},"action":{"forward":"b@lumen.test"}}]}]}`, "/mailboxes/0/filters/0/action/forward"},
		{`{"mailboxes":[{"address":"a@lumen.test","filters":[{"id":"f"},{"id":"f"}]}]}`, "/mailboxes/0/filters/1/id"},
		{`{"mailboxes":[{"address":"a@lumen.test","filters":[{"id":"f 1"}]}]}`, "/mailboxes/0/filters/0/id"},
		{`{"mailboxes":[{"address":"a@lumen.test","filters":[{"criteria":{"size":-1}}]}]}`, "/mailboxes/0/filters/0/criteria/size"},
	} {
		_, err := tw.NewWorld(twins.WithEnv(context.Background(), twinstest.Env("gmail")), json.RawMessage(c.seed))
		var se *twins.SeedError
		if !errors.As(err, &se) || se.Path != c.path {
			t.Errorf("%s: error %v, want one at %s", c.seed, err, c.path)
		}
	}
}

// TestSeedExample keeps our own format's example valid, settings included.
func TestSeedExample(t *testing.T) {
	_, w := fixture(t, SeedExample)
	mb := w.me()
	if len(w.Mailboxes) != 2 || len(mb.Filters) != 1 || mb.Filters[0].Action.AddLabelIDs[0] != "Label_1" ||
		len(mb.ForwardingAddresses) != 1 || len(mb.SendAs) != 1 || w.DeliveryMode != "" {
		t.Errorf("example world: %+v", mb)
	}
}

func TestSeedSettingsDuplicates(t *testing.T) {
	tw := New()
	for seed, path := range map[string]string{
		`{"primaryMailbox":{"email":"a@lumen.test","forwardingAddresses":[{"forwardingEmail":"x@lumen.test"},{"forwardingEmail":"X@lumen.test"}]}}`: "/primaryMailbox/forwardingAddresses/1/forwardingEmail",
		`{"primaryMailbox":{"email":"a@lumen.test","sendAs":[{"sendAsEmail":"x@lumen.test"},{"sendAsEmail":"x@lumen.test"}]}}`:                      "/primaryMailbox/sendAs/1/sendAsEmail",
		`{"primaryMailbox":{"email":"a@lumen.test","sendAs":[{"sendAsEmail":"x@lumen.test","verificationStatus":"maybe"}]}}`:                        "/primaryMailbox/sendAs/0/verificationStatus",
	} {
		_, err := tw.NewWorld(twins.WithEnv(context.Background(), twinstest.Env("gmail")), json.RawMessage(seed))
		var se *twins.SeedError
		if !errors.As(err, &se) || se.Path != path {
			t.Errorf("%s: %v, want an error at %s", seed, err, path)
		}
	}
}
