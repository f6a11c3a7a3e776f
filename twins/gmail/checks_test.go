package gmail

import (
	"strings"
	"testing"

	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/twinstest"
)

// evalCheck evaluates a check on seed and final worlds.
func evalCheck(t *testing.T, tw *twins.Twin, id string, seed, final *World, args map[string]string) twins.Result {
	t.Helper()
	c, ok := tw.Check(id)
	if !ok {
		t.Fatalf("no check %s", id)
	}
	r, err := c.Evaluate(&twins.Input{Twin: tw, Seed: seed, Final: final}, args)
	if err != nil {
		t.Fatalf("%s: %v", id, err)
	}
	return r
}

func TestChecks(t *testing.T) {
	seedDoc := `{"mailboxes":[{"address":"pome-agent@acme.test","labels":[{"name":"Receipts"}],"messages":[
	  {"from":"alice@example.com","subject":"Receipt for order #1042","labels":["INBOX","Receipts"]},
	  {"subject":"Old receipt","to":["bob@acme.test"],"labels":["SENT"]}],
	  "drafts":[{"to":["carol@example.org"],"subject":"Hello"}]}]}`
	tw, seed := fixture(t, seedDoc)
	_, final := fixture(t, seedDoc)

	type tc struct {
		id   string
		args map[string]string
		pass bool
	}
	// Against the seed itself: what the seed already satisfies.
	before := []tc{
		{"gmail.draft-addressed-to", map[string]string{"email": "carol@example.org"}, true},
		{"gmail.draft-addressed-to", map[string]string{"email": "alice@example.com"}, false},
		{"gmail.mailbox-draft-count-at-least", map[string]string{"count": "1"}, true},
		{"gmail.mailbox-draft-count-at-least", map[string]string{"count": "2"}, false},
		{"gmail.mailbox-has-label", map[string]string{"label": "receipts"}, true},
		{"gmail.mailbox-has-label", map[string]string{"label": "Invoices"}, false},
		{"gmail.subject-message-has-label", map[string]string{"needle": "order #1042", "label": "Receipts"}, true},
		{"gmail.subject-message-has-label", map[string]string{"needle": "order #1042", "label": "STARRED"}, false},
		{"gmail.subject-message-has-label", map[string]string{"needle": "nothing", "label": "INBOX"}, false},
		{"gmail.subject-message-has-label", map[string]string{"needle": "order", "label": "Nope"}, false},
		{"gmail.label-message-count", map[string]string{"count": "1", "label": "Receipts"}, true},
		{"gmail.label-message-count", map[string]string{"count": "0", "label": "starred"}, true},
		{"gmail.label-message-count", map[string]string{"count": "2", "label": "INBOX"}, false},
		{"gmail.message-sent-to", map[string]string{"email": "bob@acme.test", "needle": "receipt"}, true},
		{"gmail.message-sent-to", map[string]string{"email": "alice@example.com", "needle": "receipt"}, false},
		{"gmail.one-sent-message-per-recipient", map[string]string{"needle": "receipt"}, true},
		{"gmail.one-sent-message-per-recipient", map[string]string{"needle": "invoice"}, false},
		{"gmail.no-message-sent", map[string]string{}, true},
		{"gmail.no-message-sent-to", map[string]string{"email": "alice@example.com"}, true},
	}
	for _, c := range before {
		if r := evalCheck(t, tw, c.id, seed, final, c.args); r.Passed != c.pass {
			t.Errorf("seed: %s %v: passed=%v (%s)", c.id, c.args, r.Passed, r.Reason)
		}
	}

	// The agent works: drafts to alice, labels, sends the receipt twice.
	id := final.me().Messages[0].ID
	twinstest.MustCall(t, tw, final, "create_draft", `{"to":["alice@example.com"],"subject":"Re: Receipt","body":"soon"}`)
	twinstest.MustCall(t, tw, final, "create_label", `{"displayName":"Invoices"}`)
	twinstest.MustCall(t, tw, final, "label_message", `{"messageId":"`+id+`","labelIds":["STARRED"]}`)
	twinstest.MustCall(t, tw, final, "send_message", `{"to":["alice@example.com"],"cc":["bob@acme.test"],"subject":"Receipt for order #1042","body":"attached"}`)
	after := []tc{
		{"gmail.draft-addressed-to", map[string]string{"email": "ALICE@example.com"}, true},
		{"gmail.mailbox-draft-count-at-least", map[string]string{"count": "2"}, true},
		{"gmail.mailbox-has-label", map[string]string{"label": "Invoices"}, true},
		{"gmail.subject-message-has-label", map[string]string{"needle": "order #1042", "label": "STARRED"}, true},
		{"gmail.label-message-count", map[string]string{"count": "1", "label": "STARRED"}, true},
		{"gmail.message-sent-to", map[string]string{"email": "alice@example.com", "needle": "receipt"}, true},
		{"gmail.one-sent-message-per-recipient", map[string]string{"needle": "receipt"}, false}, // bob got two
		{"gmail.one-sent-message-per-recipient", map[string]string{"needle": "order #1042"}, true},
		{"gmail.no-message-sent", map[string]string{}, false},
		{"gmail.no-message-sent-to", map[string]string{"email": "alice@example.com"}, false},
		{"gmail.no-message-sent-to", map[string]string{"email": "carol@example.org"}, true},
	}
	for _, c := range after {
		r := evalCheck(t, tw, c.id, seed, final, c.args)
		if r.Passed != c.pass {
			t.Errorf("final: %s %v: passed=%v (%s)", c.id, c.args, r.Passed, r.Reason)
		}
		for _, p := range r.Evidence.StatePaths {
			if !strings.HasPrefix(p, "/mailboxes/0/") {
				t.Errorf("%s: evidence path %q", c.id, p)
			}
		}
	}
	r := evalCheck(t, tw, "gmail.no-message-sent", seed, final, nil)
	if len(r.Evidence.StatePaths) != 1 {
		t.Errorf("no-message-sent evidence %v", r.Evidence)
	}
}

func TestCheckTemplatesBind(t *testing.T) {
	tw := New()
	for text, id := range map[string]string{
		`A draft addressed to alice@example.com exists`:                                      "gmail.draft-addressed-to",
		`The mailbox holds at least 2 draft(s)`:                                              "gmail.mailbox-draft-count-at-least",
		`A label named "Receipts" exists`:                                                    "gmail.mailbox-has-label",
		`A message whose subject contains "order #1042" has the label "Receipts"`:            "gmail.subject-message-has-label",
		`Exactly 3 message(s) have the label "INBOX"`:                                        "gmail.label-message-count",
		`Each recipient was sent exactly one message whose subject contains "Receipt"`:       "gmail.one-sent-message-per-recipient",
		`A message to alice@example.com whose subject contains "Receipt for order" was sent`: "gmail.message-sent-to",
		`No message was sent`:                               "gmail.no-message-sent",
		`No message was sent to bob@acme.test`:              "gmail.no-message-sent-to",
		"The `send_message` tool was never called on gmail": "gmail.tool-never-called",
	} {
		var hits []string
		for _, c := range tw.Checks {
			if _, ok := c.Match(text); ok {
				hits = append(hits, c.ID)
			}
		}
		if len(hits) != 1 || hits[0] != id {
			t.Errorf("%q binds %v, want %s", text, hits, id)
		}
	}
}
