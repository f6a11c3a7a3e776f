package gmail_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"strings"
	"testing"

	"github.com/pomehq/pome/rest/resttest"
	"github.com/pomehq/pome/tape"
	twin "github.com/pomehq/pome/twins/gmail"
	gm "google.golang.org/api/gmail/v1"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/option"
)

// bearer authenticates as Google's client does with an OAuth access token
// (Authorization: Bearer ya29.…). Media uploads go to the host root
// ("/upload/gmail/v1/…"), where the server finds the sandbox from the token.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// start serves the Gmail twin with seed ("" = default world) and returns a
// Gmail API client pointed at it.
func start(t *testing.T, seed string) (*resttest.Env, *gm.Service) {
	t.Helper()
	env := resttest.Start(t, twin.New(), seed)
	svc, err := gm.NewService(context.Background(),
		option.WithEndpoint(env.APIURL+"/"),
		option.WithHTTPClient(&http.Client{Transport: bearer{token: env.Token}}))
	if err != nil {
		t.Fatal(err)
	}
	return env, svc
}

func b64url(b []byte) string { return base64.URLEncoding.EncodeToString(b) }

// googleErr asserts err is Google's error envelope with code and reason.
func googleErr(t *testing.T, err error, code int, reason string) *googleapi.Error {
	t.Helper()
	var ge *googleapi.Error
	if !errors.As(err, &ge) {
		t.Fatalf("want googleapi.Error %d, got %v", code, err)
	}
	if ge.Code != code || len(ge.Errors) == 0 || ge.Errors[0].Reason != reason {
		t.Fatalf("got %d %+v, want %d %s", ge.Code, ge.Errors, code, reason)
	}
	return ge
}

func lastRow(t *testing.T, env *resttest.Env) tape.Row {
	t.Helper()
	rows := env.Tape(t)
	if len(rows) == 0 {
		t.Fatal("empty tape")
	}
	return rows[len(rows)-1]
}

// multipartMessage builds a message with a text body and one attachment,
// the way a program using mime/multipart does.
func multipartMessage(t *testing.T, to, subject, text, filename string, file []byte, extra ...string) []byte {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	tp, _ := mw.CreatePart(textproto.MIMEHeader{"Content-Type": {"text/plain; charset=UTF-8"}})
	tp.Write([]byte(text))
	ap, _ := mw.CreatePart(textproto.MIMEHeader{
		"Content-Type":              {"application/pdf; name=\"" + filename + "\""},
		"Content-Disposition":       {"attachment; filename=\"" + filename + "\""},
		"Content-Transfer-Encoding": {"base64"},
	})
	ap.Write([]byte(base64.StdEncoding.EncodeToString(file)))
	mw.Close()
	var msg bytes.Buffer
	fmt.Fprintf(&msg, "To: %s\r\nSubject: %s\r\n", to, subject)
	for _, h := range extra {
		fmt.Fprintf(&msg, "%s\r\n", h)
	}
	fmt.Fprintf(&msg, "MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=%s\r\n\r\n", mw.Boundary())
	msg.Write(body.Bytes())
	return msg.Bytes()
}

func TestSDKProfileAndErrors(t *testing.T) {
	env, svc := start(t, "")
	p, err := svc.Users.GetProfile("me").Do()
	if err != nil {
		t.Fatal(err)
	}
	if p.EmailAddress != "pome-agent@acme.test" || p.MessagesTotal != 2 || p.ThreadsTotal != 2 || p.HistoryId == 0 {
		t.Errorf("profile = %+v", p)
	}
	if _, err := svc.Users.GetProfile("pome-agent@acme.test").Do(); err != nil {
		t.Errorf("own address as userId: %v", err)
	}
	_, err = svc.Users.GetProfile("bob@acme.test").Do()
	googleErr(t, err, 403, "forbidden")
	_, err = svc.Users.Messages.Get("me", "0123456789abcdef").Do()
	ge := googleErr(t, err, 404, "notFound")
	if ge.Message != "Requested entity was not found." {
		t.Errorf("404 message %q", ge.Message)
	}
	_, err = svc.Users.Messages.Get("me", "nope").Do()
	googleErr(t, err, 400, "invalidArgument")
	row := lastRow(t, env)
	if row.ToolName() != "get_message" || row.Status != 400 || row.StateMutation {
		t.Errorf("row = %+v", row)
	}
	// The raw envelope is Google's, status name included.
	st, body := env.Do(t, "GET", "/gmail/v1/users/me/messages/0123456789abcdef", "", nil)
	if st != 404 || !strings.Contains(string(body), `"status":"NOT_FOUND"`) || !strings.Contains(string(body), `"domain":"global"`) {
		t.Errorf("envelope %d %s", st, body)
	}
}

func TestSDKSendMultipartAndFormats(t *testing.T) {
	env, svc := start(t, `{"mailboxes":[{"address":"pome-agent@acme.test","name":"Pome Agent"},{"address":"alice@example.com"}]}`)
	pdf := []byte("%PDF-1.4 receipt")
	raw := multipartMessage(t, "Alice <alice@example.com>", "Receipt for order #1042", "Attached is your receipt.", "receipt.pdf", pdf)
	sent, err := svc.Users.Messages.Send("me", &gm.Message{Raw: b64url(raw)}).Do()
	if err != nil {
		t.Fatal(err)
	}
	if len(sent.LabelIds) != 1 || sent.LabelIds[0] != "SENT" || sent.ThreadId != sent.Id || len(sent.Id) != 16 {
		t.Errorf("sent = %+v", sent)
	}
	if row := lastRow(t, env); row.ToolName() != "send_message" || !row.StateMutation || row.Status != 200 {
		t.Errorf("row = %+v", row)
	}

	full, err := svc.Users.Messages.Get("me", sent.Id).Do()
	if err != nil {
		t.Fatal(err)
	}
	if full.Payload == nil || full.Payload.MimeType != "multipart/mixed" || len(full.Payload.Parts) != 2 {
		t.Fatalf("payload = %+v", full.Payload)
	}
	text, _ := base64.URLEncoding.DecodeString(full.Payload.Parts[0].Body.Data)
	if string(text) != "Attached is your receipt." {
		t.Errorf("text part %q", text)
	}
	att := full.Payload.Parts[1]
	if att.Filename != "receipt.pdf" || att.Body.AttachmentId == "" || att.Body.Size != int64(len(pdf)) || att.PartId != "1" {
		t.Errorf("attachment part = %+v", att)
	}
	if full.Snippet != "Attached is your receipt." || full.InternalDate == 0 || full.SizeEstimate == 0 || full.HistoryId == 0 {
		t.Errorf("message = %+v", full)
	}
	got, err := svc.Users.Messages.Attachments.Get("me", sent.Id, att.Body.AttachmentId).Do()
	if err != nil {
		t.Fatal(err)
	}
	if data, _ := base64.URLEncoding.DecodeString(got.Data); !bytes.Equal(data, pdf) {
		t.Errorf("attachment data %q", data)
	}

	meta, err := svc.Users.Messages.Get("me", sent.Id).Format("metadata").MetadataHeaders("Subject", "To").Do()
	if err != nil {
		t.Fatal(err)
	}
	if len(meta.Payload.Headers) != 2 || meta.Payload.Headers[1].Value != "Receipt for order #1042" || len(meta.Payload.Parts) != 0 {
		t.Errorf("metadata = %+v", meta.Payload)
	}
	min, err := svc.Users.Messages.Get("me", sent.Id).Format("minimal").Do()
	if err != nil {
		t.Fatal(err)
	}
	if min.Payload != nil || min.Raw != "" || min.Snippet == "" {
		t.Errorf("minimal = %+v", min)
	}
	rawOut, err := svc.Users.Messages.Get("me", sent.Id).Format("raw").Do()
	if err != nil {
		t.Fatal(err)
	}
	back, err := base64.URLEncoding.DecodeString(rawOut.Raw)
	if err != nil || !bytes.Contains(back, []byte("Subject: Receipt for order #1042")) || rawOut.Payload != nil {
		t.Errorf("raw = %q %v", back, err)
	}
	_, err = svc.Users.Messages.Get("me", sent.Id).Format("weird").Do()
	// Outside the format enum: the input schema refuses it as Google
	// does a bad enum value, "Invalid value at 'format'" with reason invalid.
	googleErr(t, err, 400, "invalid")

	// The simple media upload sends RFC 2822 bytes directly.
	up, err := svc.Users.Messages.Send("me", &gm.Message{}).Media(bytes.NewReader([]byte("To: alice@example.com\r\nSubject: Uploaded\r\n\r\nvia upload"))).Do()
	if err != nil {
		t.Fatal(err)
	}
	if up.LabelIds[0] != "SENT" {
		t.Errorf("upload = %+v", up)
	}
	st, body := env.Do(t, "POST", "/upload/gmail/v1/users/me/messages/send?uploadType=media", "message/rfc822", []byte("To: alice@example.com\r\nSubject: Plain upload\r\n\r\nhello"))
	if st != 200 || !strings.Contains(string(body), `"SENT"`) {
		t.Errorf("media upload %d %s", st, body)
	}
	// Alice's mailbox received all three.
	state := string(env.State(t))
	for _, s := range []string{"Receipt for order #1042", "Uploaded", "Plain upload"} {
		if strings.Count(state, `"subject":"`+s+`"`) != 2 {
			t.Errorf("%q is not in both mailboxes", s)
		}
	}
}

func TestSDKReplyInThread(t *testing.T) {
	_, svc := start(t, "")
	list, err := svc.Users.Messages.List("me").Q("from:alice is:unread").Do()
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Messages) != 1 {
		t.Fatalf("list = %+v", list)
	}
	orig, err := svc.Users.Messages.Get("me", list.Messages[0].Id).Format("metadata").MetadataHeaders("Message-ID", "Subject").Do()
	if err != nil {
		t.Fatal(err)
	}
	var msgID, subj string
	for _, h := range orig.Payload.Headers {
		switch h.Name {
		case "Message-ID":
			msgID = h.Value
		case "Subject":
			subj = h.Value
		}
	}
	raw := multipartMessage(t, "alice@example.com", "Re: "+subj, "Here is your receipt.", "receipt.pdf", []byte("pdf"),
		"In-Reply-To: "+msgID, "References: "+msgID)
	sent, err := svc.Users.Messages.Send("me", &gm.Message{Raw: b64url(raw), ThreadId: orig.ThreadId}).Do()
	if err != nil {
		t.Fatal(err)
	}
	if sent.ThreadId != orig.ThreadId {
		t.Errorf("reply thread %s, want %s", sent.ThreadId, orig.ThreadId)
	}
	th, err := svc.Users.Threads.Get("me", orig.ThreadId).Do()
	if err != nil {
		t.Fatal(err)
	}
	if len(th.Messages) != 2 || th.Messages[1].Id != sent.Id || th.Messages[1].Payload == nil {
		t.Errorf("thread = %+v", th)
	}
	threads, err := svc.Users.Threads.List("me").Q("has:attachment").Do()
	if err != nil {
		t.Fatal(err)
	}
	if len(threads.Threads) != 1 || threads.Threads[0].Id != orig.ThreadId || threads.Threads[0].Messages != nil {
		t.Errorf("threads.list = %+v", threads)
	}
}

func TestSDKListSearchAndPagination(t *testing.T) {
	seed := `{"mailboxes":[{"address":"pome-agent@acme.test","labels":[{"name":"Receipts"}],"messages":[
	  {"from":"alice@example.com","subject":"Receipt 1","text":"first","date":"2026-11-01T10:00:00Z","labels":["INBOX","Receipts"]},
	  {"from":"alice@example.com","subject":"Receipt 2","text":"second","date":"2026-11-02T10:00:00Z","labels":["INBOX","UNREAD","Receipts"]},
	  {"from":"alice@example.com","subject":"Receipt 3","text":"third \"exact phrase\" here","date":"2026-11-03T10:00:00Z","labels":["INBOX","STARRED"]},
	  {"from":"bob@acme.test","subject":"Lunch","text":"pizza","date":"2026-11-04T10:00:00Z","labels":["INBOX"]},
	  {"from":"bob@acme.test","subject":"Old junk","text":"spam","date":"2026-11-05T10:00:00Z","labels":["TRASH"]}
	]}]}`
	_, svc := start(t, seed)
	count := func(q string, opts ...func(*gm.UsersMessagesListCall)) int {
		t.Helper()
		c := svc.Users.Messages.List("me").Q(q)
		for _, o := range opts {
			o(c)
		}
		r, err := c.Do()
		if err != nil {
			t.Fatalf("q=%q: %v", q, err)
		}
		return len(r.Messages)
	}
	cases := map[string]int{
		"":                                 4,
		"from:alice":                       3,
		"from:alice -subject:2":            2,
		"label:receipts":                   2,
		"is:unread":                        1,
		"is:starred":                       1,
		"in:trash":                         1,
		"in:anywhere":                      5,
		"\"exact phrase\"":                 1,
		"pizza":                            1,
		"after:2026/11/02":                 3,
		"before:2026/11/02":                1,
		"subject:receipt OR subject:lunch": 4,
		"{from:bob subject:\"receipt 1\"}": 2,
		"subject:(2 receipt)":              1,
		"subject:{lunch 3}":                2,
		"-subject:(receipt 2)":             3,
		"subject:(receipt OR lunch)":       4,
		"newer_than:1d":                    0,
		"older_than:1d":                    4,
	}
	for q, want := range cases {
		if got := count(q); got != want {
			t.Errorf("q=%q: %d messages, want %d", q, got, want)
		}
	}
	if got := count("", func(c *gm.UsersMessagesListCall) { c.LabelIds("INBOX", "UNREAD") }); got != 1 {
		t.Errorf("labelIds INBOX+UNREAD: %d", got)
	}
	if got := count("", func(c *gm.UsersMessagesListCall) { c.IncludeSpamTrash(true) }); got != 5 {
		t.Errorf("includeSpamTrash: %d", got)
	}
	var ids []string
	token := ""
	for pages := 0; ; pages++ {
		r, err := svc.Users.Messages.List("me").MaxResults(3).PageToken(token).Do()
		if err != nil {
			t.Fatal(err)
		}
		if r.ResultSizeEstimate != 4 {
			t.Errorf("resultSizeEstimate %d", r.ResultSizeEstimate)
		}
		for _, m := range r.Messages {
			ids = append(ids, m.Id)
		}
		if token = r.NextPageToken; token == "" {
			if pages != 1 {
				t.Errorf("%d pages", pages+1)
			}
			break
		}
	}
	if len(ids) != 4 {
		t.Errorf("paged ids %v", ids)
	}
	_, err := svc.Users.Messages.List("me").PageToken("garbage").Do()
	googleErr(t, err, 400, "invalidArgument")
}

func TestSDKLabelsAndModify(t *testing.T) {
	env, svc := start(t, "")
	l, err := svc.Users.Labels.Create("me", &gm.Label{Name: "Receipts", LabelListVisibility: "labelShow", MessageListVisibility: "show"}).Do()
	if err != nil {
		t.Fatal(err)
	}
	if l.Id != "Label_1" || l.Type != "user" || l.Name != "Receipts" {
		t.Errorf("label = %+v", l)
	}
	_, err = svc.Users.Labels.Create("me", &gm.Label{Name: "receipts"}).Do()
	ge := googleErr(t, err, 409, "duplicate")
	if !strings.Contains(ge.Body, `"ALREADY_EXISTS"`) {
		t.Errorf("409 body %s", ge.Body)
	}
	_, err = svc.Users.Labels.Create("me", &gm.Label{Name: "INBOX"}).Do()
	googleErr(t, err, 400, "invalidArgument")

	list, _ := svc.Users.Messages.List("me").Q("from:alice").Do()
	id := list.Messages[0].Id
	m, err := svc.Users.Messages.Modify("me", id, &gm.ModifyMessageRequest{AddLabelIds: []string{l.Id, "STARRED"}, RemoveLabelIds: []string{"UNREAD"}}).Do()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(m.LabelIds, ",") != "INBOX,Label_1,STARRED" {
		t.Errorf("labels after modify %v", m.LabelIds)
	}
	if row := lastRow(t, env); row.ToolName() != "modify_message" || !row.StateMutation {
		t.Errorf("row %+v", row)
	}
	// The same change again changes nothing, and the tape says so.
	if _, err := svc.Users.Messages.Modify("me", id, &gm.ModifyMessageRequest{AddLabelIds: []string{l.Id}}).Do(); err != nil {
		t.Fatal(err)
	}
	if row := lastRow(t, env); row.StateMutation {
		t.Errorf("no-op modify was a mutation")
	}
	_, err = svc.Users.Messages.Modify("me", id, &gm.ModifyMessageRequest{AddLabelIds: []string{"Label_99"}}).Do()
	googleErr(t, err, 400, "invalidArgument")

	got, err := svc.Users.Labels.Get("me", l.Id).Do()
	if err != nil {
		t.Fatal(err)
	}
	if got.MessagesTotal != 1 || got.ThreadsTotal != 1 || got.MessagesUnread != 0 {
		t.Errorf("counts %+v", got)
	}
	inbox, _ := svc.Users.Labels.Get("me", "INBOX").Do()
	if inbox.MessagesTotal != 2 || inbox.MessagesUnread != 0 || inbox.Type != "system" {
		t.Errorf("INBOX %+v", inbox)
	}
	p, err := svc.Users.Labels.Patch("me", l.Id, &gm.Label{Name: "Receipts/2026"}).Do()
	if err != nil || p.Name != "Receipts/2026" {
		t.Errorf("patch %+v %v", p, err)
	}
	all, err := svc.Users.Labels.List("me").Do()
	if err != nil || len(all.Labels) != 15 || all.Labels[14].MessagesTotal != 0 {
		t.Errorf("labels.list %d %v", len(all.Labels), err)
	}
	if err := svc.Users.Labels.Delete("me", l.Id).Do(); err != nil {
		t.Fatal(err)
	}
	m, _ = svc.Users.Messages.Get("me", id).Format("minimal").Do()
	if strings.Contains(strings.Join(m.LabelIds, ","), "Label_1") {
		t.Errorf("deleted label still on message %v", m.LabelIds)
	}
	err = svc.Users.Labels.Delete("me", "INBOX").Do()
	googleErr(t, err, 400, "invalidArgument")

	// Trash, untrash, batchModify, delete.
	if m, err = svc.Users.Messages.Trash("me", id).Do(); err != nil || !strings.Contains(strings.Join(m.LabelIds, ","), "TRASH") {
		t.Errorf("trash %v %v", m, err)
	}
	if r, _ := svc.Users.Messages.List("me").Do(); len(r.Messages) != 1 {
		t.Errorf("trashed message still listed")
	}
	if m, err = svc.Users.Messages.Untrash("me", id).Do(); err != nil || strings.Contains(strings.Join(m.LabelIds, ","), "TRASH") {
		t.Errorf("untrash %v %v", m, err)
	}
	all2, _ := svc.Users.Messages.List("me").Do()
	ids := []string{all2.Messages[0].Id, all2.Messages[1].Id}
	if err := svc.Users.Messages.BatchModify("me", &gm.BatchModifyMessagesRequest{Ids: ids, AddLabelIds: []string{"IMPORTANT"}}).Do(); err != nil {
		t.Fatal(err)
	}
	if r, _ := svc.Users.Messages.List("me").Q("is:important").Do(); len(r.Messages) != 2 {
		t.Errorf("batchModify: %d important", len(r.Messages))
	}
	if err := svc.Users.Messages.Delete("me", id).Do(); err != nil {
		t.Fatal(err)
	}
	if row := lastRow(t, env); row.Status != 204 || row.ToolName() != "delete_message" {
		t.Errorf("delete row %+v", row)
	}
	if err := svc.Users.Messages.BatchDelete("me", &gm.BatchDeleteMessagesRequest{Ids: []string{ids[0], ids[1]}}).Do(); err == nil {
		t.Error("batchDelete with a deleted id succeeded")
	}
}

func TestSDKDraftsAndHistory(t *testing.T) {
	env, svc := start(t, "")
	p, _ := svc.Users.GetProfile("me").Do()
	start := p.HistoryId

	raw := "To: alice@example.com\r\nSubject: Receipt for order #1042\r\n\r\nDraft body"
	d, err := svc.Users.Drafts.Create("me", &gm.Draft{Message: &gm.Message{Raw: b64url([]byte(raw))}}).Do()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(d.Id, "r") || d.Message == nil || d.Message.Id == "" || d.Message.LabelIds[0] != "DRAFT" {
		t.Errorf("draft = %+v", d)
	}
	ds, err := svc.Users.Drafts.List("me").Do()
	if err != nil || len(ds.Drafts) != 1 || ds.Drafts[0].Id != d.Id || ds.Drafts[0].Message.Id != d.Message.Id {
		t.Errorf("drafts.list %+v %v", ds, err)
	}
	upd, err := svc.Users.Drafts.Update("me", d.Id, &gm.Draft{Id: d.Id, Message: &gm.Message{Raw: b64url([]byte(raw + " v2"))}}).Do()
	if err != nil {
		t.Fatal(err)
	}
	if upd.Id != d.Id || upd.Message.Id == d.Message.Id {
		t.Errorf("update kept the message id: %+v", upd)
	}
	got, err := svc.Users.Drafts.Get("me", d.Id).Do()
	if err != nil {
		t.Fatal(err)
	}
	body, _ := base64.URLEncoding.DecodeString(got.Message.Payload.Body.Data)
	if string(body) != "Draft body v2" {
		t.Errorf("draft body %q", body)
	}
	sent, err := svc.Users.Drafts.Send("me", &gm.Draft{Id: d.Id}).Do()
	if err != nil {
		t.Fatal(err)
	}
	if sent.LabelIds[0] != "SENT" || sent.Id != upd.Message.Id {
		t.Errorf("sent = %+v", sent)
	}
	if row := lastRow(t, env); row.ToolName() != "send_draft" || !row.StateMutation {
		t.Errorf("row %+v", row)
	}
	_, err = svc.Users.Drafts.Get("me", d.Id).Do()
	googleErr(t, err, 404, "notFound")
	_, err = svc.Users.Drafts.Send("me", &gm.Draft{Id: d.Id}).Do()
	googleErr(t, err, 404, "notFound")

	h, err := svc.Users.History.List("me").StartHistoryId(start).Do()
	if err != nil {
		t.Fatal(err)
	}
	var added, deleted, labelsAdded, labelsRemoved int
	for _, r := range h.History {
		added += len(r.MessagesAdded)
		deleted += len(r.MessagesDeleted)
		labelsAdded += len(r.LabelsAdded)
		labelsRemoved += len(r.LabelsRemoved)
	}
	// create (added), update (added + deleted), send (SENT added, DRAFT removed).
	if added != 2 || deleted != 1 || labelsAdded != 1 || labelsRemoved != 1 || h.HistoryId <= start {
		t.Errorf("history: +%d -%d +l%d -l%d id %d: %+v", added, deleted, labelsAdded, labelsRemoved, h.HistoryId, h.History)
	}
	only, err := svc.Users.History.List("me").StartHistoryId(start).HistoryTypes("messageDeleted").Do()
	if err != nil || len(only.History) != 1 {
		t.Errorf("historyTypes filter: %+v %v", only, err)
	}
	empty, err := svc.Users.History.List("me").StartHistoryId(h.HistoryId).Do()
	if err != nil || len(empty.History) != 0 || empty.HistoryId != h.HistoryId {
		t.Errorf("history after the end: %+v %v", empty, err)
	}
	_, err = svc.Users.History.List("me").Do()
	googleErr(t, err, 400, "required")
	_, err = svc.Users.History.List("me").StartHistoryId(1).HistoryTypes("bogus").Do()
	googleErr(t, err, 400, "invalidArgument")
}
