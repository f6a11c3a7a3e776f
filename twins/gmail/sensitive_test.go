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
