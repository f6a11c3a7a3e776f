package gmail

import (
	"strings"
	"testing"

	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/twinstest"
)

// TestErrorPaths runs every refusal on a fresh rich world and checks the
// error class, Google's reason, and that nothing changed.
func TestErrorPaths(t *testing.T) {
	_, w0 := fixture(t, richSeed)
	msg := w0.me().Messages[0].ID
	draft := w0.me().Drafts[0].ID
	cases := []struct {
		action, args string
		code         twins.Code
		reason       string
	}{
		{"get_profile", `{"userId":"someone@else.test"}`, twins.Forbidden, "forbidden"},
		{"list_messages", `{"maxResults":-1}`, twins.Invalid, "invalidArgument"},
		{"list_messages", `{"pageToken":"abc"}`, twins.Invalid, "invalidArgument"},
		{"list_messages", `{"q":"after:someday"}`, twins.Invalid, "invalidArgument"},
		{"list_messages", `{"q":"newer_than:3x"}`, twins.Invalid, "invalidArgument"},
		{"get_message", `{"messageId":"zz"}`, twins.Invalid, "invalidArgument"},
		{"get_message", `{"messageId":"00000000000000aa"}`, twins.NotFound, "notFound"},
		{"get_message", `{"messageId":"` + msg + `","format":"html"}`, twins.Invalid, "invalid_arguments"},
		{"modify_message", `{"messageId":"` + msg + `","addLabelIds":["Label_77"]}`, twins.Invalid, "invalidArgument"},
		{"modify_message", `{"messageId":"` + msg + `","addLabelIds":["DRAFT"]}`, twins.Invalid, "invalidArgument"},
		{"label_message", `{"messageId":"00000000000000aa","labelIds":["STARRED"]}`, twins.NotFound, "notFound"},
		{"batch_modify_messages", `{"ids":["` + msg + `","00000000000000aa"],"addLabelIds":["STARRED"]}`, twins.NotFound, "notFound"},
		{"batch_delete_messages", `{"ids":["nothex"]}`, twins.Invalid, "invalidArgument"},
		{"delete_message", `{"messageId":"00000000000000aa"}`, twins.NotFound, "notFound"},
		{"trash_message", `{"messageId":"00000000000000aa"}`, twins.NotFound, "notFound"},
		{"get_attachment", `{"messageId":"` + msg + `","attachmentId":"bogus"}`, twins.Invalid, "invalidArgument"},
		{"get_attachment", `{"messageId":"` + msg + `","attachmentId":"` + attachmentID(msg, "7") + `"}`, twins.NotFound, "notFound"},
		{"insert_message", `{}`, twins.Invalid, "invalidArgument"},
		{"insert_message", `{"raw":"` + b64("To: a@b.c\r\n\r\nx") + `","labelIds":["NOPE"]}`, twins.Invalid, "invalidArgument"},
		{"insert_message", `{"raw":"` + b64("To: a@b.c\r\n\r\nx") + `","internalDateSource":"never"}`, twins.Invalid, "invalid_arguments"},
		{"import_message", `{"raw":"` + b64("To: a@b.c\r\n\r\nx") + `","deleted":true}`, twins.Unprocessable, "failedPrecondition"},
		{"reply_to_message", `{"messageId":"` + msg + `"}`, twins.Invalid, "invalidArgument"},
		{"reply_to_message", `{"messageId":"00000000000000aa","body":"x"}`, twins.NotFound, "notFound"},
		{"get_thread", `{"threadId":"00000000000000aa"}`, twins.NotFound, "notFound"},
		{"get_thread", `{"threadId":"` + msg + `","format":"raw"}`, twins.Invalid, "invalid_arguments"},
		{"get_thread", `{"threadId":"` + msg + `","messageFormat":"HUGE"}`, twins.Invalid, "invalid_arguments"},
		{"apply_sensitive_message_label", `{"messageId":"` + msg + `","labelOption":"INBOX"}`, twins.Invalid, "invalid_arguments"},
		{"modify_thread", `{"threadId":"` + msg + `","removeLabelIds":["Label_9"]}`, twins.Invalid, "invalidArgument"},
		{"delete_thread", `{"threadId":"x"}`, twins.Invalid, "invalidArgument"},
		{"search_threads", `{"pageToken":"1"}`, twins.Invalid, "invalidArgument"},
		{"get_label", `{"id":"Label_99"}`, twins.NotFound, "notFound"},
		{"create_label", `{"name":""}`, twins.Invalid, "invalidArgument"},
		{"create_label", `{"name":"sent"}`, twins.Invalid, "invalidArgument"},
		{"create_label", `{"name":" padded"}`, twins.Invalid, "invalidArgument"},
		{"create_label", `{"name":"receipts"}`, twins.Conflict, "duplicate"},
		{"create_label", `{"name":"New","labelListVisibility":"sometimes"}`, twins.Invalid, "invalid_arguments"},
		{"create_label", `{"name":"New","color":{"textColor":"red"}}`, twins.Invalid, "invalidArgument"},
		{"update_label", `{"id":"Label_1"}`, twins.Invalid, "invalidArgument"},
		{"update_label", `{"id":"INBOX","name":"Box"}`, twins.Invalid, "invalidArgument"},
		{"patch_label", `{"id":"Label_1","name":"Work/Urgent"}`, twins.Conflict, "duplicate"},
		{"patch_label", `{"id":"Label_404","name":"x"}`, twins.NotFound, "notFound"},
		{"delete_label", `{"id":"SENT"}`, twins.Invalid, "invalidArgument"},
		{"delete_label", `{"id":"Label_404"}`, twins.NotFound, "notFound"},
		{"get_draft", `{"id":"r123"}`, twins.NotFound, "notFound"},
		{"get_draft", `{"id":"` + draft + `","format":"x"}`, twins.Invalid, "invalid_arguments"},
		{"create_draft", `{}`, twins.Invalid, "invalidArgument"},
		{"create_draft", `{"to":["nope"]}`, twins.Invalid, "invalidArgument"},
		{"create_draft", `{"threadId":"00000000000000aa","to":["a@b.c"]}`, twins.NotFound, "notFound"},
		{"update_draft", `{"id":"r1","to":["a@b.c"]}`, twins.NotFound, "notFound"},
		{"delete_draft", `{"id":"r1"}`, twins.NotFound, "notFound"},
		{"send_draft", `{}`, twins.Invalid, "invalidArgument"},
		{"send_draft", `{"id":"r1"}`, twins.NotFound, "notFound"},
		{"list_drafts", `{"maxResults":-3}`, twins.Invalid, "invalidArgument"},
		{"list_history", `{"startHistoryId":"abc"}`, twins.Invalid, "invalidArgument"},
		{"list_history", `{"startHistoryId":"1","historyTypes":["everything"]}`, twins.Invalid, "invalidArgument"},
		{"list_history", `{"startHistoryId":"1","maxResults":-1}`, twins.Invalid, "invalidArgument"},
	}
	for _, c := range cases {
		t.Run(c.action+" "+c.args, func(t *testing.T) {
			tw, w := fixture(t, richSeed)
			before := mustJSON(t, w)
			r := twinstest.Call(t, tw, w, c.action, c.args)
			if r.Err == nil {
				t.Fatalf("no error; out %+v", r.Out)
			}
			if r.Err.Code != c.code || r.Err.Vendor != c.reason {
				t.Errorf("got %s/%s %q, want %s/%s", r.Err.Code, r.Err.Vendor, r.Err.Message, c.code, c.reason)
			}
			if r.Mutated || mustJSON(t, w) != before {
				t.Error("a refused call changed the world")
			}
			status, body := RESTError(r.Err)
			if status < 400 || !strings.Contains(mustJSON(t, body), `"domain":"global"`) {
				t.Errorf("REST %d %v", status, body)
			}
		})
	}
}

func TestRESTErrorEnvelope(t *testing.T) {
	cases := []struct {
		err    *twins.Error
		status int
		name   string
		reason string
	}{
		{notFound(), 404, "NOT_FOUND", "notFound"},
		{gerr(twins.Conflict, "duplicate", "Label name exists or conflicts"), 409, "ALREADY_EXISTS", "duplicate"},
		{gerr(twins.Invalid, "invalidArgument", "Invalid id value"), 400, "INVALID_ARGUMENT", "invalidArgument"},
		{gerr(twins.Unprocessable, "failedPrecondition", "Precondition check failed."), 400, "FAILED_PRECONDITION", "failedPrecondition"},
		{gerr(twins.Forbidden, "forbidden", "Delegation denied"), 403, "PERMISSION_DENIED", "forbidden"},
		{&twins.Error{Code: twins.Unauthorized}, 401, "UNAUTHENTICATED", "authError"},
		{&twins.Error{Code: twins.RateLimited, Vendor: "rate_limited", Message: "slow down"}, 429, "RESOURCE_EXHAUSTED", "rateLimitExceeded"},
		{&twins.Error{Code: twins.TooLarge, Vendor: "too_large", Message: "big"}, 413, "OUT_OF_RANGE", "uploadTooLarge"},
		{&twins.Error{Code: twins.Invalid, Vendor: "invalid_json", Message: "bad"}, 400, "INVALID_ARGUMENT", "parseError"},
		{&twins.Error{Code: twins.Invalid, Vendor: "invalid_arguments", Field: "q", Message: "type"}, 400, "INVALID_ARGUMENT", "invalid"},
		{&twins.Error{Code: twins.Invalid, Vendor: "invalid_arguments", Field: "startHistoryId", Message: `missing properties: ["startHistoryId"]`}, 400, "INVALID_ARGUMENT", "required"},
		{&twins.Error{Code: twins.Internal, Message: "boom"}, 500, "INTERNAL", "backendError"},
	}
	for _, c := range cases {
		status, body := RESTError(c.err)
		e := body.(map[string]any)["error"].(map[string]any)
		errs := e["errors"].([]map[string]any)
		if status != c.status || e["code"] != c.status || e["status"] != c.name || errs[0]["reason"] != c.reason || errs[0]["domain"] != "global" || e["message"] == "" {
			t.Errorf("%v → %d %v", c.err, status, e)
		}
	}
}

func TestLabelsCRUD(t *testing.T) {
	tw, w := fixture(t, richSeed)
	out := call(t, tw, w, "create_label", `{"displayName":"Invoices","color":{"textColor":"#000000","backgroundColor":"#ffffff"}}`)
	if out["id"] != "Label_3" || out["labelId"] != "Label_3" || out["type"] != "user" || out["messageListVisibility"] != "show" {
		t.Errorf("create: %v", out)
	}
	if rest := restLabel(nil, twinstest.MustCall(t, tw, w, "get_label", `{"id":"Label_3"}`).Out).(LabelOut); rest.LabelID != "" || rest.MessagesTotal == nil {
		t.Errorf("REST label %+v", rest)
	}
	got := call(t, tw, w, "get_label", `{"id":"Label_1"}`)
	if got["messagesTotal"] != float64(1) || got["messagesUnread"] != float64(1) || got["threadsTotal"] != float64(1) {
		t.Errorf("counts: %v", got)
	}
	call(t, tw, w, "update_label", `{"id":"Label_3","name":"Bills","labelListVisibility":"labelHide"}`)
	l := w.me().label("Label_3")
	if l.Name != "Bills" || l.LabelListVisibility != "labelHide" || l.Color != nil {
		t.Errorf("PUT resets what it omits: %+v", l)
	}
	r := twinstest.MustCall(t, tw, w, "patch_label", `{"id":"Label_3","name":"Bills"}`)
	if r.Mutated {
		t.Error("patch to the same name mutated")
	}
	call(t, tw, w, "patch_label", `{"id":"Label_3","messageListVisibility":"hide"}`)
	if l.Name != "Bills" || l.MessageListVisibility != "hide" {
		t.Errorf("PATCH keeps what it omits: %+v", l)
	}
	list := call(t, tw, w, "list_labels", `{}`)["labels"].([]any)
	if len(list) != len(systemLabels)+3 {
		t.Errorf("%d labels", len(list))
	}
	r = twinstest.MustCall(t, tw, w, "delete_label", `{"id":"Label_1"}`)
	if !r.Mutated || w.me().Messages[0].hasLabel("Label_1") {
		t.Error("delete_label left the label on its message")
	}
}

func TestMessageLifecycle(t *testing.T) {
	tw, w := fixture(t, richSeed)
	mb := w.me()
	id := mb.Messages[0].ID
	r := twinstest.MustCall(t, tw, w, "label_message", `{"messageId":"`+id+`","labelIds":["STARRED","IMPORTANT"]}`)
	if !r.Mutated || !mb.Messages[0].hasLabel("STARRED") {
		t.Error("label_message")
	}
	if r = twinstest.MustCall(t, tw, w, "label_message", `{"messageId":"`+id+`","labelIds":["STARRED"]}`); r.Mutated {
		t.Error("labelling again is no change")
	}
	twinstest.MustCall(t, tw, w, "unlabel_message", `{"messageId":"`+id+`","labelIds":["UNREAD"]}`)
	if mb.Messages[0].hasLabel("UNREAD") {
		t.Error("unlabel_message")
	}
	twinstest.MustCall(t, tw, w, "trash_message", `{"messageId":"`+id+`"}`)
	// The thread's reply and draft still match; the trashed one does not.
	if n := len(call(t, tw, w, "list_messages", `{"q":"receipt"}`)["messages"].([]any)); n != 2 {
		t.Errorf("trash hides from lists: %d", n)
	}
	twinstest.MustCall(t, tw, w, "untrash_message", `{"messageId":"`+id+`"}`)
	ins := call(t, tw, w, "insert_message", `{"raw":"`+b64("From: dave@x.test\r\nTo: pome-agent@acme.test\r\nSubject: Inserted\r\nDate: Mon, 02 Nov 2026 10:00:00 +0000\r\n\r\nhi")+`","labelIds":["INBOX"]}`)
	imp := call(t, tw, w, "import_message", `{"raw":"`+b64("From: dave@x.test\r\nTo: pome-agent@acme.test\r\nSubject: Imported\r\nDate: Mon, 02 Nov 2026 10:00:00 +0000\r\n\r\nhi")+`"}`)
	a, b := mb.message(ins["id"].(string)), mb.message(imp["id"].(string))
	if a.InternalDate == b.InternalDate || b.InternalDate != 1793613600000 {
		t.Errorf("insert dates by receipt, import by header: %d %d", a.InternalDate, b.InternalDate)
	}
	if len(b.LabelIDs) != 0 || a.LabelIDs[0] != "INBOX" {
		t.Errorf("labels %v %v", a.LabelIDs, b.LabelIDs)
	}
	up := call(t, tw, w, "insert_message", `{"rfc822":"From: e@x.test\nTo: pome-agent@acme.test\nSubject: Uploaded\n\nbody"}`)
	if mb.message(up["id"].(string)).Subject != "Uploaded" {
		t.Error("upload body")
	}
	n := len(mb.Messages)
	twinstest.MustCall(t, tw, w, "batch_delete_messages", `{"ids":["`+a.ID+`","`+b.ID+`"]}`)
	twinstest.MustCall(t, tw, w, "delete_message", `{"messageId":"`+up["id"].(string)+`"}`)
	if len(mb.Messages) != n-3 {
		t.Errorf("deletes: %d → %d", n, len(mb.Messages))
	}
	// Deleting a draft's message deletes the draft too.
	twinstest.MustCall(t, tw, w, "delete_message", `{"messageId":"`+mb.Drafts[0].MessageID+`"}`)
	if len(mb.Drafts) != 0 {
		t.Error("draft record outlived its message")
	}
}

func TestThreadsActions(t *testing.T) {
	tw, w := fixture(t, richSeed)
	tid := w.me().Messages[0].ID
	res := call(t, tw, w, "search_threads", `{"query":"receipt"}`)
	threads := res["threads"].([]any)
	if len(threads) != 1 {
		t.Fatalf("search_threads %v", res)
	}
	th := threads[0].(map[string]any)
	msgs := th["messages"].([]any)
	first := msgs[0].(map[string]any)
	if th["id"] != tid || len(msgs) != 3 || first["sender"] != "Alice Example <alice@example.com>" || first["payload"] != nil {
		t.Errorf("thread summary %v", th)
	}
	rest := searchThreads.Spec().Bindings[0].Shape(nil, twinstest.MustCall(t, tw, w, "search_threads", `{"q":"receipt"}`).Out).(ListThreadsResponse)
	if rest.Threads[0].Messages != nil || rest.Threads[0].Snippet == "" {
		t.Errorf("REST threads.list %+v", rest)
	}
	// Pagination over the MCP spelling.
	p1 := call(t, tw, w, "search_threads", `{"pageSize":2}`)
	p2 := call(t, tw, w, "search_threads", `{"pageSize":2,"pageToken":"`+p1["nextPageToken"].(string)+`"}`)
	if len(p1["threads"].([]any)) != 2 || len(p2["threads"].([]any)) != 1 || p2["nextPageToken"] != nil {
		t.Errorf("pages %v / %v", p1, p2)
	}
	min := call(t, tw, w, "get_thread", `{"threadId":"`+tid+`","messageFormat":"MINIMAL"}`)
	m0 := min["messages"].([]any)[0].(map[string]any)
	if m0["plaintextBody"] != nil || m0["payload"].(map[string]any)["parts"] != nil {
		t.Errorf("MINIMAL carries bodies: %v", m0)
	}
	twinstest.MustCall(t, tw, w, "label_thread", `{"threadId":"`+tid+`","labelIds":["Label_2"]}`)
	for _, m := range w.me().thread(tid) {
		if !m.hasLabel("Label_2") {
			t.Errorf("label_thread missed %s", m.ID)
		}
	}
	twinstest.MustCall(t, tw, w, "unlabel_thread", `{"threadId":"`+tid+`","labelIds":["Label_2"]}`)
	twinstest.MustCall(t, tw, w, "modify_thread", `{"threadId":"`+tid+`","addLabelIds":["STARRED"]}`)
	twinstest.MustCall(t, tw, w, "trash_thread", `{"threadId":"`+tid+`"}`)
	if n := len(call(t, tw, w, "search_threads", `{}`)["threads"].([]any)); n != 2 {
		t.Errorf("after trash_thread %d threads", n)
	}
	twinstest.MustCall(t, tw, w, "untrash_thread", `{"threadId":"`+tid+`"}`)
	twinstest.MustCall(t, tw, w, "delete_thread", `{"threadId":"`+tid+`"}`)
	if len(w.me().thread(tid)) != 0 || len(w.me().Drafts) != 0 {
		t.Error("delete_thread left messages or the thread's draft")
	}
}

func TestDraftsMCP(t *testing.T) {
	tw, w := fixture(t, richSeed)
	tid := w.me().Messages[0].ID
	d := call(t, tw, w, "create_draft", `{"to":["alice@example.com"],"cc":["bob@acme.test"],"subject":"Re: Receipt for order #1042","body":"Attached","htmlBody":"<p>Attached</p>","threadId":"`+tid+`",
	  "attachments":[{"filename":"receipt.txt","data":"dG90YWwgNDI="}]}`)
	m := w.me().message(d["message"].(map[string]any)["id"].(string))
	if m.ThreadID != tid || !m.HasAttachment || m.InReplyTo == "" || !m.hasLabel("DRAFT") {
		t.Errorf("draft message %+v", m)
	}
	list := call(t, tw, w, "list_drafts", `{"query":"to:alice"}`)
	ds := list["drafts"].([]any)
	if len(ds) != 2 {
		t.Fatalf("list_drafts %v", list)
	}
	first := ds[0].(map[string]any)
	if first["subject"] != "Re: Receipt for order #1042" || first["plaintextBody"] != "Attached" {
		t.Errorf("MCP draft summary %v", first)
	}
	full := call(t, tw, w, "get_draft", `{"id":"`+d["id"].(string)+`"}`)
	if full["message"].(map[string]any)["htmlBody"] != "<p>Attached</p>" {
		t.Errorf("get_draft %v", full)
	}
	upd := call(t, tw, w, "update_draft", `{"id":"`+d["id"].(string)+`","to":["alice@example.com"],"subject":"Re: Receipt for order #1042","body":"v2"}`)
	newMsg := upd["message"].(map[string]any)["id"].(string)
	if newMsg == m.ID || w.me().message(m.ID) != nil || w.me().message(newMsg).ThreadID != tid {
		t.Errorf("update_draft: %v", upd)
	}
	sent := call(t, tw, w, "send_draft", `{"id":"`+d["id"].(string)+`"}`)
	if sent["threadId"] != tid || sent["labelIds"].([]any)[0] != "SENT" {
		t.Errorf("send_draft %v", sent)
	}
	// Alice has a mailbox in this sandbox: the reply arrived in her inbox.
	if got := w.byAddress("alice@example.com").Messages; len(got) != 1 || got[0].Subject != "Re: Receipt for order #1042" {
		t.Errorf("alice got %+v", got)
	}
	if r := twinstest.MustCall(t, tw, w, "delete_draft", `{"id":"`+w.me().Drafts[0].ID+`"}`); !r.Mutated || len(w.me().Drafts) != 0 {
		t.Error("delete_draft")
	}
	// A draft without recipients cannot be sent.
	d2 := call(t, tw, w, "create_draft", `{"subject":"Nobody"}`)
	r := twinstest.Call(t, tw, w, "send_draft", `{"id":"`+d2["id"].(string)+`"}`)
	if r.Err == nil || !strings.Contains(r.Err.Message, "Recipient address required") || r.Mutated {
		t.Errorf("send without recipients: %v", r.Err)
	}
}

func TestHistory(t *testing.T) {
	tw, w := fixture(t, "")
	start := call(t, tw, w, "get_profile", `{}`)["historyId"].(string)
	id := w.me().Messages[0].ID
	call(t, tw, w, "label_message", `{"messageId":"`+id+`","labelIds":["STARRED"]}`)
	call(t, tw, w, "modify_message", `{"messageId":"`+id+`","addLabelIds":["IMPORTANT"],"removeLabelIds":["STARRED"]}`)
	sent := call(t, tw, w, "send_message", `{"to":["alice@example.com"],"subject":"x","body":"y"}`)
	call(t, tw, w, "delete_message", `{"messageId":"`+sent["id"].(string)+`"}`)
	h := twinstest.MustCall(t, tw, w, "list_history", `{"startHistoryId":"`+start+`"}`).Out.(ListHistoryResponse)
	var kinds []string
	for _, r := range h.History {
		switch {
		case r.MessagesAdded != nil:
			kinds = append(kinds, "added")
		case r.MessagesDeleted != nil:
			kinds = append(kinds, "deleted")
		case r.LabelsAdded != nil:
			kinds = append(kinds, "labelAdded:"+strings.Join(r.LabelsAdded[0].LabelIDs, ","))
		case r.LabelsRemoved != nil:
			kinds = append(kinds, "labelRemoved:"+strings.Join(r.LabelsRemoved[0].LabelIDs, ","))
		}
	}
	if strings.Join(kinds, " ") != "labelAdded:STARRED labelAdded:IMPORTANT labelRemoved:STARRED added deleted" {
		t.Errorf("history kinds %v", kinds)
	}
	if h.HistoryID != fmtHistory(w.me().HistoryID) {
		t.Errorf("historyId %s", h.HistoryID)
	}
	only := twinstest.MustCall(t, tw, w, "list_history", `{"startHistoryId":"`+start+`","labelId":"SENT"}`).Out.(ListHistoryResponse)
	if len(only.History) != 2 {
		t.Errorf("labelId=SENT: %+v", only.History)
	}
	pg := twinstest.MustCall(t, tw, w, "list_history", `{"startHistoryId":"`+start+`","maxResults":2}`).Out.(ListHistoryResponse)
	if len(pg.History) != 2 || pg.NextPageToken == "" {
		t.Errorf("paged history %+v", pg)
	}
}
