package gmail

import (
	"slices"
	"testing"

	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/twinstest"
)

func TestApplySensitiveLabels(t *testing.T) {
	tw, w := fixture(t, `{"primaryMailbox":{"email":"desk@lumen.test","messages":[
	  {"id":"msg_spam","from":"x@spam.test","labels":["INBOX","UNREAD"]},
	  {"id":"msg_a","threadId":"thread_old","from":"x@y.test","subject":"Old","labels":["INBOX"]},
	  {"id":"msg_b","threadId":"thread_old","from":"x@y.test","subject":"Re: Old","labels":["INBOX","SPAM"]}]}}`)
	twinstest.MustCall(t, tw, w, "apply_sensitive_message_label", `{"messageId":"msg_spam","labelOption":"SPAM"}`)
	if m := w.me().message("msg_spam"); !slices.Equal(m.LabelIDs, []string{"UNREAD", "SPAM"}) {
		t.Errorf("spam: %v", m.LabelIDs)
	}
	twinstest.MustCall(t, tw, w, "apply_sensitive_thread_label", `{"threadId":"thread_old","labelOption":"TRASH"}`)
	for _, id := range []string{"msg_a", "msg_b"} {
		if m := w.me().message(id); !slices.Equal(m.LabelIDs, []string{"TRASH"}) {
			t.Errorf("%s: %v", id, m.LabelIDs)
		}
	}
	if r := twinstest.Call(t, tw, w, "apply_sensitive_message_label", `{"messageId":"msg_spam","labelOption":"SPAM"}`); r.Err != nil || r.Mutated {
		t.Errorf("again: %v, mutated %v", r.Err, r.Mutated)
	}
	for _, args := range []string{
		`{"messageId":"msg_spam","labelOption":"LABEL_OPTION_UNSPECIFIED"}`,
		`{"messageId":"msg_spam","labelOption":"STARRED"}`,
		`{"messageId":"msg_spam"}`,
	} {
		if r := twinstest.Call(t, tw, w, "apply_sensitive_message_label", args); r.Err == nil || r.Err.Code != twins.Invalid {
			t.Errorf("%s: %v", args, r.Err)
		}
	}
	if r := twinstest.Call(t, tw, w, "apply_sensitive_thread_label", `{"threadId":"thread_nope","labelOption":"TRASH"}`); r.Err == nil {
		t.Error("unknown thread accepted")
	}
}

func TestCreateDraftReplyTo(t *testing.T) {
	tw, w := fixture(t, `{"primaryMailbox":{"email":"desk@lumen.test","messages":[
	  {"id":"msg_q","threadId":"thread_q","from":"nadia@orchard.test","to":["desk@lumen.test"],"subject":"Question","messageId":"q-1@orchard.test","labels":["INBOX"]}]}}`)
	out := call(t, tw, w, "create_draft", `{"replyToMessageId":"msg_q","to":["nadia@orchard.test"],"subject":"Re: Question","body":"Answer."}`)
	m := w.me().message(out["message"].(map[string]any)["id"].(string))
	if m.ThreadID != "thread_q" || m.InReplyTo != "<q-1@orchard.test>" {
		t.Errorf("reply draft: thread %s, In-Reply-To %s", m.ThreadID, m.InReplyTo)
	}
	for _, args := range []string{
		`{"replyToMessageId":"msg_nope","to":["a@b.test"],"body":"x"}`,
		`{"replyToMessageId":"msg_q","threadId":"msg_q","to":["a@b.test"],"body":"x"}`,
	} {
		if r := twinstest.Call(t, tw, w, "create_draft", args); r.Err == nil || r.Err.Code != twins.Invalid {
			t.Errorf("%s: %v", args, r.Err)
		}
	}
}

func TestGetMessageFormat(t *testing.T) {
	tw, w := fixture(t, "")
	id := w.me().Messages[1].ID
	full := call(t, tw, w, "get_message", `{"messageId":"`+id+`","messageFormat":"FULL_CONTENT"}`)
	min := call(t, tw, w, "get_message", `{"messageId":"`+id+`","messageFormat":"MINIMAL"}`)
	if mustJSON(t, full) == mustJSON(t, min) || mustJSON(t, min) != mustJSON(t, call(t, tw, w, "get_message", `{"messageId":"`+id+`","format":"metadata"}`)) {
		t.Errorf("MINIMAL is not metadata:\n%v\n%v", full, min)
	}
	if r := twinstest.Call(t, tw, w, "get_message", `{"messageId":"`+id+`","messageFormat":"HTML"}`); r.Err == nil || r.Err.Code != twins.Invalid {
		t.Errorf("messageFormat HTML: %v", r.Err)
	}
}

func TestCreateLabelParents(t *testing.T) {
	tw, w := fixture(t, "")
	call(t, tw, w, "create_label", `{"displayName":"Clients/Acme/Invoices"}`)
	call(t, tw, w, "create_label", `{"displayName":"Solo/Child","autoCreateParentLabels":false}`)
	call(t, tw, w, "create_label", `{"name":"Rest/Child"}`)
	var names []string
	for _, l := range w.me().Labels {
		if l.Type == "user" {
			names = append(names, l.Name)
		}
	}
	if want := []string{"Clients", "Clients/Acme", "Clients/Acme/Invoices", "Solo/Child", "Rest/Child"}; !slices.Equal(names, want) {
		t.Errorf("labels %v, want %v", names, want)
	}
}
