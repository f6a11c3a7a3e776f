package gmail

import (
	"encoding/base64"
	"testing"

	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/twinstest"
)

const settingsSeed = `{"primaryMailbox":{"email":"desk@lumen.test","displayName":"Lumen Desk",
  "labels":[{"id":"Label_vip","name":"VIP"}],
  "filters":[{"id":"filter_2","criteria":{"from":"boss@lumen.test"},"action":{"addLabelIds":["VIP"]}}],
  "forwardingAddresses":[{"forwardingEmail":"Archive@Lumen.test"}],
  "sendAs":[{"sendAsEmail":"help@lumen.test","displayName":"Help","replyToAddress":"desk@lumen.test"}]},
  "mailboxes":[{"email":"boss@lumen.test"}],
  "deliveryMode":"seeded-mailboxes"}`

func TestSettings(t *testing.T) {
	tw, w := fixture(t, settingsSeed)
	out := call(t, tw, w, "list_filters", `{}`)
	if fs := out["filter"].([]any); len(fs) != 1 || fs[0].(map[string]any)["id"] != "filter_2" {
		t.Fatalf("list_filters: %v", out)
	}
	// A new filter takes the next id a seed did not pin, and acts on mail
	// delivered from then on.
	f := call(t, tw, w, "create_filter", `{"criteria":{"subject":"invoice","negatedQuery":"from:spam@x.test"},"action":{"addLabelIds":["STARRED"],"removeLabelIds":["INBOX"]}}`)
	if f["id"] != "filter_1" {
		t.Errorf("create_filter: %v", f)
	}
	call(t, tw, w, "create_filter", `{"criteria":{"hasAttachment":true},"action":{"addLabelIds":["IMPORTANT"]}}`)
	if got := call(t, tw, w, "get_filter", `{"id":"filter_1"}`); got["criteria"].(map[string]any)["subject"] != "invoice" {
		t.Errorf("get_filter: %v", got)
	}
	twinstest.MustCall(t, tw, w, "delete_filter", `{"id":"filter_1"}`)
	if f := call(t, tw, w, "create_filter", `{"criteria":{"subject":"invoice"},"action":{"addLabelIds":["STARRED"]}}`); f["id"] != "filter_4" {
		t.Errorf("ids are not reused: %v", f)
	}
	// The boss's mailbox is another sandbox user's: mail from the agent to
	// it is delivered; mail from the boss arrives through the boss's send.
	boss := w.Mailboxes[1]
	w.Mailboxes[0], w.Mailboxes[1] = boss, w.Mailboxes[0]
	call(t, tw, w, "send_message", `{"to":["desk@lumen.test"],"subject":"Invoice due","body":"pay it"}`)
	w.Mailboxes[0], w.Mailboxes[1] = w.Mailboxes[1], boss
	got := w.me().Messages[len(w.me().Messages)-1]
	if !got.hasLabel("Label_vip") || !got.hasLabel("STARRED") || !got.hasLabel("INBOX") {
		t.Errorf("filters on delivery: %v", got.LabelIDs)
	}

	fw := call(t, tw, w, "list_forwarding_addresses", `{}`)
	if list := fw["forwardingAddresses"].([]any); len(list) != 1 || list[0].(map[string]any)["forwardingEmail"] != "archive@lumen.test" || list[0].(map[string]any)["verificationStatus"] != "pending" {
		t.Errorf("forwarding: %v", fw)
	}
	if got := call(t, tw, w, "get_forwarding_address", `{"forwardingEmail":"ARCHIVE@lumen.test"}`); got["forwardingEmail"] != "archive@lumen.test" {
		t.Errorf("get_forwarding_address: %v", got)
	}
	sa := call(t, tw, w, "list_send_as", `{}`)
	list := sa["sendAs"].([]any)
	if len(list) != 2 || list[0].(map[string]any)["sendAsEmail"] != "desk@lumen.test" || list[0].(map[string]any)["isPrimary"] != true ||
		list[1].(map[string]any)["treatAsAlias"] != true || list[1].(map[string]any)["replyToAddress"] != "desk@lumen.test" {
		t.Errorf("list_send_as: %v", sa)
	}
	if got := call(t, tw, w, "get_send_as", `{"sendAsEmail":"help@lumen.test"}`); got["displayName"] != "Help" {
		t.Errorf("get_send_as: %v", got)
	}

	for _, c := range []struct {
		action, args string
		code         twins.Code
	}{
		{"get_filter", `{"id":"filter_9"}`, twins.NotFound},
		{"delete_filter", `{"id":"filter_9"}`, twins.NotFound},
		{"create_filter", `{"action":{"addLabelIds":["STARRED"]}}`, twins.Invalid},
		{"create_filter", `{"criteria":{"from":"a@b.test"}}`, twins.Invalid},
		{"create_filter", `{"criteria":{"from":"a@b.test"},"action":{"addLabelIds":["Nope"]}}`, twins.Invalid},
		{"create_filter", `{"criteria":{"query":"older_than:3x"},"action":{"addLabelIds":["STARRED"]}}`, twins.Invalid},
		{"create_filter", `{"criteria":{"from":"a@b.test","sizeComparison":"huge"},"action":{"addLabelIds":["STARRED"]}}`, twins.Invalid},
		{"create_filter", `{"criteria":{"from":"a@b.test"},"action":{"forward":"x@y.test"}}`, twins.NotImplemented},
		{"get_forwarding_address", `{"forwardingEmail":"nobody@lumen.test"}`, twins.NotFound},
		{"get_send_as", `{"sendAsEmail":"nobody@lumen.test"}`, twins.NotFound},
		{"list_filters", `{"userId":"boss@lumen.test"}`, twins.Forbidden},
	} {
		before := mustJSON(t, w)
		r := twinstest.Call(t, tw, w, c.action, c.args)
		if r.Err == nil || r.Err.Code != c.code {
			t.Errorf("%s %s: %v, want %s", c.action, c.args, r.Err, c.code)
		}
		if mustJSON(t, w) != before {
			t.Errorf("%s %s changed the world", c.action, c.args)
		}
	}
}

func TestSendAsDefault(t *testing.T) {
	// Without seeded aliases the account's own address is the one.
	tw, w := fixture(t, "")
	sa := call(t, tw, w, "list_send_as", `{}`)
	list := sa["sendAs"].([]any)
	if len(list) != 1 || list[0].(map[string]any)["sendAsEmail"] != "pome-agent@acme.test" || list[0].(map[string]any)["isDefault"] != true {
		t.Errorf("list_send_as: %v", sa)
	}
	if out := call(t, tw, w, "list_filters", `{}`); len(out) != 0 {
		t.Errorf("list_filters on no filters: %v", out)
	}
}

func TestSendAsFrom(t *testing.T) {
	tw, w := fixture(t, `{"primaryMailbox":{"email":"desk@lumen.test","sendAs":[
	  {"sendAsEmail":"help@lumen.test","verificationStatus":"accepted"},{"sendAsEmail":"sales@lumen.test","verificationStatus":"pending"}]}}`)
	for from, want := range map[string]string{
		"help@lumen.test":  "help@lumen.test",
		"sales@lumen.test": "desk@lumen.test", // not verified
		"ceo@lumen.test":   "desk@lumen.test",
	} {
		raw := base64.RawURLEncoding.EncodeToString([]byte("From: " + from + "\r\nTo: x@y.test\r\nSubject: s\r\n\r\nb"))
		out := call(t, tw, w, "send_message", `{"raw":"`+raw+`"}`)
		m := w.me().message(out["id"].(string))
		if fromAddress(m.From) != want {
			t.Errorf("From %s sent as %q, want %s", from, m.From, want)
		}
	}
}
