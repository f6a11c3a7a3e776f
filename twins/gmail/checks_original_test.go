package gmail

import (
	"maps"
	"testing"

	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/twinstest"
)

// binds returns the ids of every check whose template text renders, and
// the arguments of the first (the one task binding takes).
func binds(tw *twins.Twin, text string) ([]string, map[string]string) {
	var ids []string
	var first map[string]string
	for _, c := range tw.Checks {
		if args, ok := c.Match(text); ok {
			if first == nil {
				first = args
			}
			ids = append(ids, c.ID)
		}
	}
	return ids, first
}

func TestOriginalSentencesBind(t *testing.T) {
	tw := New()
	for _, c := range []struct {
		text string
		id   string
		args map[string]string
	}{
		{"Message msg_support has label Label_follow_up", "gmail.message-has-label", map[string]string{"message": "msg_support", "label": "Label_follow_up"}},
		{"Message msg_parity has label STARRED", "gmail.message-has-label", map[string]string{"message": "msg_parity", "label": "STARRED"}},
		{"Message 18f0a1b200001000 has label INBOX", "gmail.message-has-label", map[string]string{"message": "18f0a1b200001000", "label": "INBOX"}},
		{"A label named Parity Complete exists", "gmail.label-exists", map[string]string{"label": "Parity Complete"}},
		{"A label named Follow-Up_2 exists", "gmail.label-exists", map[string]string{"label": "Follow-Up_2"}},
		{"A draft addressed to alice@example.com exists", "gmail.draft-addressed-to", map[string]string{"email": "alice@example.com"}},
		{"At least two drafts exist", "gmail.draft-count-at-least", map[string]string{"count": "two"}},
		{"At least 12 drafts exist", "gmail.draft-count-at-least", map[string]string{"count": "12"}},
		{"The mailbox `pome-agent@pome-twin.test` has exactly 5 messages labeled SENT", "gmail.mailbox-label-count", map[string]string{"mailbox": "pome-agent@pome-twin.test", "count": "5", "label": "SENT"}},
		{"The mailbox `ops@lumen.test` has exactly 0 messages labeled Label_needs_reply", "gmail.mailbox-label-count", map[string]string{"mailbox": "ops@lumen.test", "count": "0", "label": "Label_needs_reply"}},
		{"Exactly one SENT message is addressed to each of the five recipients", "gmail.one-message-per-recipient", map[string]string{"label": "SENT", "count": "five"}},
		{"Exactly one SENT message is addressed to each of the 3 recipients", "gmail.one-message-per-recipient", map[string]string{"label": "SENT", "count": "3"}},
		// Ours keep binding, each to its own check.
		{`A label named "Needs Reply" exists`, "gmail.mailbox-has-label", map[string]string{"label": "Needs Reply"}},
		{`A message whose subject contains "stale" has the label "Needs Reply"`, "gmail.subject-message-has-label", map[string]string{"needle": "stale", "label": "Needs Reply"}},
		{`Exactly two message(s) have the label "INBOX"`, "gmail.label-message-count", map[string]string{"count": "two", "label": "INBOX"}},
		{"The mailbox holds at least three draft(s)", "gmail.mailbox-draft-count-at-least", map[string]string{"count": "three"}},
		{`Each recipient was sent exactly one message whose subject contains "launch"`, "gmail.one-sent-message-per-recipient", map[string]string{"needle": "launch"}},
		{"No unsupported endpoint was called", "gmail.no-unsupported-endpoint", map[string]string{}},
		{"No unsupported gmail endpoint was called", "gmail.no-unsupported-endpoint-on-gmail", map[string]string{}},
	} {
		ids, args := binds(tw, c.text)
		if len(ids) != 1 || ids[0] != c.id {
			t.Errorf("%q binds %v, want only %s", c.text, ids, c.id)
			continue
		}
		if !maps.Equal(args, c.args) {
			t.Errorf("%q: args %v, want %v", c.text, args, c.args)
		}
	}
	// Near misses bind nothing rather than something else.
	for _, text := range []string{
		"Message msg_support has label Follow Up",                                       // a name with a space is no label ref
		"Message msg.support has label INBOX",                                           // no dots in ids
		"A label named  Parity exists",                                                  // a name cannot start with a space
		"At least thirteen drafts exist",                                                // past the number words
		"The mailbox `ops@lumen.test` has exactly five messages labeled SENT",           // exact counts are digits
		"The mailbox ops@lumen.test has exactly 5 messages labeled SENT",                // the backticks are the sentence's
		"Exactly one SENT message is addressed to each of the five recipient",           // wording
		"Exactly one Needs Reply message is addressed to each of the two recipients",    // label refs have no spaces
		`A label named "Needs Reply exists`,                                             // unbalanced quote
		"A draft addressed to alice exists",                                             // not an address
		"Message msg_support has the label Label_follow_up",                             // wording
		"The mailbox `ops@lumen.test` has exactly 5 message(s) have the label \"SENT\"", // a mix of two
	} {
		if ids, _ := binds(tw, text); len(ids) != 0 {
			t.Errorf("near miss %q binds %v", text, ids)
		}
	}
}

func TestParseCount(t *testing.T) {
	for in, want := range map[string]int{"0": 0, "5": 5, "zero": 0, "two": 2, "Twelve": 12, "007": 7} {
		if n, err := parseCount(in); err != nil || n != want {
			t.Errorf("parseCount(%q) = %d, %v", in, n, err)
		}
	}
	for _, in := range []string{"", "thirteen", "-1", "2.5"} {
		if _, err := parseCount(in); err == nil {
			t.Errorf("parseCount(%q) accepted", in)
		}
	}
}

// origSeed is an original-format world: two mailboxes, a user label with a
// pinned id, two drafts.
const origSeed = `{
  "primaryMailbox": {"email": "ops@lumen.test", "displayName": "Lumen Ops",
    "labels": [{"id": "Label_needs_reply", "name": "Needs Reply"}, {"name": "Vendors"}],
    "messages": [
      {"id": "msg_outage", "threadId": "thread_outage", "from": "nadia@orchard.test", "to": ["ops@lumen.test"],
       "subject": "Dashboard shows stale numbers", "text": "It lags.", "labels": ["INBOX", "UNREAD"]},
      {"id": "msg_invoice", "from": "billing@paperco.test", "to": ["ops@lumen.test"],
       "subject": "Invoice 88", "text": "Due Friday.", "labels": ["INBOX", "Vendors"]}
    ],
    "drafts": [{"id": "draft_a", "to": ["bob@orchard.test"], "cc": ["carol@orchard.test"], "bcc": ["dan@orchard.test"], "subject": "Hi"}]},
  "mailboxes": [{"email": "nadia@orchard.test",
    "labels": [{"id": "Label_x", "name": "Escalations"}],
    "drafts": [{"to": ["ops@lumen.test"], "subject": "Chasing"}]}],
  "clock": "2026-12-01T00:00:00Z"
}`

func TestOriginalChecks(t *testing.T) {
	tw, seed := fixture(t, origSeed)
	_, final := fixture(t, origSeed)
	type tc struct {
		id   string
		args map[string]string
		pass bool
	}
	eval := func(when string, w *World, cases []tc) {
		t.Helper()
		for _, c := range cases {
			if r := evalCheck(t, tw, c.id, seed, w, c.args); r.Passed != c.pass {
				t.Errorf("%s: %s %v: passed=%v (%s)", when, c.id, c.args, r.Passed, r.Reason)
			}
		}
	}
	eval("seed", seed, []tc{
		{"gmail.message-has-label", map[string]string{"message": "msg_invoice", "label": "Vendors"}, true}, // by name
		{"gmail.message-has-label", map[string]string{"message": "msg_outage", "label": "inbox"}, true},    // system, any case
		{"gmail.message-has-label", map[string]string{"message": "msg_outage", "label": "Label_needs_reply"}, false},
		{"gmail.message-has-label", map[string]string{"message": "msg_outage", "label": "STARRED"}, false},
		{"gmail.label-exists", map[string]string{"label": "needs reply"}, true},
		{"gmail.label-exists", map[string]string{"label": "Escalations"}, true},        // another mailbox's
		{"gmail.label-exists", map[string]string{"label": "Label_needs_reply"}, false}, // ids are not names
		{"gmail.label-exists", map[string]string{"label": "Parity Complete"}, false},
		{"gmail.draft-count-at-least", map[string]string{"count": "two"}, true}, // both mailboxes count
		{"gmail.draft-count-at-least", map[string]string{"count": "3"}, false},
		{"gmail.draft-addressed-to", map[string]string{"email": "CAROL@orchard.test"}, true},
		{"gmail.draft-addressed-to", map[string]string{"email": "ops@lumen.test"}, true},
		{"gmail.draft-addressed-to", map[string]string{"email": "dan@orchard.test"}, false}, // Bcc is not addressing
		{"gmail.mailbox-label-count", map[string]string{"mailbox": "ops@lumen.test", "count": "2", "label": "INBOX"}, true},
		{"gmail.mailbox-label-count", map[string]string{"mailbox": "ops@lumen.test", "count": "0", "label": "Label_needs_reply"}, true},
		{"gmail.mailbox-label-count", map[string]string{"mailbox": "nadia@orchard.test", "count": "1", "label": "INBOX"}, false},
		{"gmail.one-message-per-recipient", map[string]string{"label": "SENT", "count": "two"}, false},
	})
	// The agent works: labels the outage, creates a label, sends twice to
	// nadia and once to erin, drafts once more.
	twinstest.MustCall(t, tw, final, "label_message", `{"messageId":"msg_outage","labelIds":["Label_needs_reply","STARRED"]}`)
	twinstest.MustCall(t, tw, final, "create_label", `{"displayName":"Parity Complete"}`)
	twinstest.MustCall(t, tw, final, "send_message", `{"to":["nadia@orchard.test"],"subject":"Fixed","body":"Numbers are fresh."}`)
	twinstest.MustCall(t, tw, final, "send_message", `{"to":["erin@orchard.test"],"subject":"Fixed","body":"Numbers are fresh."}`)
	eval("after the first sends", final, []tc{
		{"gmail.message-has-label", map[string]string{"message": "msg_outage", "label": "Label_needs_reply"}, true},
		{"gmail.message-has-label", map[string]string{"message": "msg_outage", "label": "Needs"}, false},
		{"gmail.message-has-label", map[string]string{"message": "msg_outage", "label": "STARRED"}, true},
		{"gmail.label-exists", map[string]string{"label": "Parity Complete"}, true},
		{"gmail.mailbox-label-count", map[string]string{"mailbox": "ops@lumen.test", "count": "1", "label": "Label_needs_reply"}, true},
		{"gmail.mailbox-label-count", map[string]string{"mailbox": "ops@lumen.test", "count": "0", "label": "Label_needs_reply"}, false},
		{"gmail.mailbox-label-count", map[string]string{"mailbox": "OPS@lumen.test", "count": "2", "label": "SENT"}, true},
		{"gmail.one-message-per-recipient", map[string]string{"label": "SENT", "count": "two"}, true},
		{"gmail.one-message-per-recipient", map[string]string{"label": "SENT", "count": "3"}, false}, // one short
	})
	twinstest.MustCall(t, tw, final, "send_message", `{"to":["nadia@orchard.test"],"subject":"Fixed","body":"Again."}`)
	twinstest.MustCall(t, tw, final, "create_draft", `{"to":["erin@orchard.test"],"subject":"More"}`)
	eval("after the duplicate", final, []tc{
		{"gmail.one-message-per-recipient", map[string]string{"label": "SENT", "count": "three"}, false}, // nadia twice
		{"gmail.one-message-per-recipient", map[string]string{"label": "SENT", "count": "two"}, false},
		{"gmail.mailbox-label-count", map[string]string{"mailbox": "ops@lumen.test", "count": "2", "label": "SENT"}, false},
		{"gmail.draft-count-at-least", map[string]string{"count": "three"}, true},
		{"gmail.draft-addressed-to", map[string]string{"email": "erin@orchard.test"}, true},
	})

	// What cannot be attested is an error, not a verdict.
	for _, c := range []tc{
		{"gmail.message-has-label", map[string]string{"message": "msg_nowhere", "label": "INBOX"}, false},
		{"gmail.mailbox-label-count", map[string]string{"mailbox": "ghost@lumen.test", "count": "0", "label": "INBOX"}, false},
	} {
		ch, _ := tw.Check(c.id)
		if _, err := ch.Evaluate(&twins.Input{Twin: tw, Seed: seed, Final: final}, c.args); err == nil {
			t.Errorf("%s %v: no error", c.id, c.args)
		}
	}
}

func TestOriginalMessageIDHeldTwice(t *testing.T) {
	// The original mints ids per mailbox, so one id may be in two.
	tw, w := fixture(t, `{"primaryMailbox":{"email":"a@lumen.test","messages":[{"id":"msg_1","from":"x@y.test","labels":["INBOX"]}]},
	  "mailboxes":[{"email":"b@lumen.test","messages":[{"id":"msg_1","from":"x@y.test","labels":["STARRED"]}]}]}`)
	c, _ := tw.Check("gmail.message-has-label")
	if _, err := c.Evaluate(&twins.Input{Twin: tw, Seed: w, Final: w}, map[string]string{"message": "msg_1", "label": "INBOX"}); err == nil {
		t.Error("an id in two mailboxes was attested")
	}
}

func TestCountPolarity(t *testing.T) {
	tw := New()
	for _, c := range []struct {
		id   string
		args map[string]string
		want twins.Polarity
	}{
		{"gmail.mailbox-label-count", map[string]string{"count": "0"}, twins.Negative},
		{"gmail.mailbox-label-count", map[string]string{"count": "5"}, twins.Positive},
		{"gmail.label-message-count", map[string]string{"count": "zero"}, twins.Negative},
		{"gmail.label-message-count", map[string]string{"count": "0"}, twins.Negative},
		{"gmail.label-message-count", map[string]string{"count": "two"}, twins.Positive},
		{"gmail.message-has-label", map[string]string{}, twins.Positive},
	} {
		ch, _ := tw.Check(c.id)
		if got := ch.PolarityFor(c.args); got != c.want {
			t.Errorf("%s %v: polarity %s, want %s", c.id, c.args, got, c.want)
		}
	}
}
