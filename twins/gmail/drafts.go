package gmail

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/pomehq/pome/twins"
)

// draftOut renders a draft: Gmail's Draft resource plus the summary fields
// of Google's MCP list_drafts.
func (mb *Mailbox) draftOut(d *Draft, format string) DraftOut {
	m := mb.message(d.MessageID)
	if m == nil {
		return DraftOut{ID: d.ID}
	}
	v := view(m, format, nil)
	out := DraftOut{
		ID: d.ID, Message: &v, Subject: m.Subject, ThreadID: m.ThreadID,
		ToRecipients: m.To, CcRecipients: m.Cc, BccRecipients: m.Bcc,
		Date: time.UnixMilli(m.InternalDate).UTC().Format(time.RFC3339),
	}
	if raw, err := decodeRaw(m.Raw); err == nil {
		if pm, err := parseMessage(raw); err == nil {
			out.PlaintextBody = pm.text()
		}
	}
	return out
}

func restDraft(_, out any) any { return out.(DraftOut).rest() }

// ---- list ----

type listDraftsIn struct {
	UserArg
	Query     string `json:"query,omitempty" jsonschema:"Gmail search query over the drafts"`
	PageSize  int    `json:"pageSize,omitempty" jsonschema:"Drafts per page (default 20, at most 50)"`
	PageToken string `json:"pageToken,omitempty" jsonschema:"nextPageToken of the previous page"`

	Q                string `json:"q,omitempty" jsonschema:"REST spelling of query"`
	MaxResults       int    `json:"maxResults,omitempty" jsonschema:"REST page size (default 100, at most 500)"`
	IncludeSpamTrash bool   `json:"includeSpamTrash,omitempty" jsonschema:"Include drafts in SPAM and TRASH"`
}

// ListDraftsResponse is Gmail's drafts.list answer.
type ListDraftsResponse struct {
	Drafts             []DraftOut `json:"drafts,omitempty"`
	NextPageToken      string     `json:"nextPageToken,omitempty"`
	ResultSizeEstimate int        `json:"resultSizeEstimate"`
}

var listDrafts = twins.New(twins.Spec{
	Name: "list_drafts", Title: "List drafts",
	Description: "Lists drafts, newest first, with their subject, recipients and body; filters with a Gmail search query and paginates with pageToken.",
	Effect:      twins.Read,
	Bindings: []twins.Binding{{Method: "GET", Path: base + "/drafts", Shape: func(_, out any) any {
		o := out.(ListDraftsResponse)
		r := ListDraftsResponse{NextPageToken: o.NextPageToken, ResultSizeEstimate: o.ResultSizeEstimate}
		for _, d := range o.Drafts {
			rd := DraftOut{ID: d.ID}
			if d.Message != nil {
				rd.Message = &MessageOut{ID: d.Message.ID, ThreadID: d.Message.ThreadID}
			}
			r.Drafts = append(r.Drafts, rd)
		}
		return r
	}}},
}, func(ctx context.Context, w *World, in listDraftsIn) (ListDraftsResponse, error) {
	mb, err := w.mailbox(in.UserID)
	if err != nil {
		return ListDraftsResponse{}, err
	}
	q := strings.TrimSpace(in.Query + " " + in.Q)
	found, err := mb.search(q, []string{"DRAFT"}, in.IncludeSpamTrash, w.now(ctx))
	if err != nil {
		return ListDraftsResponse{}, err
	}
	var ds []*Draft
	for _, m := range found {
		if d := mb.draftByMessage(m.ID); d != nil {
			ds = append(ds, d)
		}
	}
	size, def, limit := in.MaxResults, 100, 500
	if in.MaxResults == 0 && (in.PageSize != 0 || in.Query != "") {
		size, def, limit = in.PageSize, 20, 50
	}
	if size < 0 {
		return ListDraftsResponse{}, gerr(twins.Invalid, "invalidArgument", "Invalid maxResults").WithField("maxResults")
	}
	pg, next, err := page(ds, in.PageToken, size, def, limit)
	if err != nil {
		return ListDraftsResponse{}, err
	}
	out := ListDraftsResponse{NextPageToken: next, ResultSizeEstimate: len(ds)}
	for _, d := range pg {
		o := mb.draftOut(d, "minimal")
		o.Message.LabelIDs, o.Message.Snippet = nil, ""
		out.Drafts = append(out.Drafts, o)
	}
	return out, nil
})

// ---- get ----

type getDraftIn struct {
	UserArg
	ID     string `json:"id" jsonschema:"The draft id"`
	Format string `json:"format,omitempty" jsonschema:"full (default), metadata, minimal or raw" enum:"full,metadata,minimal,raw"`
}

func (mb *Mailbox) lookupDraft(id string) (*Draft, error) {
	d := mb.draft(id)
	if d == nil {
		return nil, notFound()
	}
	return d, nil
}

var getDraft = twins.New(twins.Spec{
	Name: "get_draft", Title: "Get draft",
	Description: "Gets a draft and its message in the given format.",
	Effect:      twins.Read,
	Bindings:    []twins.Binding{{Method: "GET", Path: base + "/drafts/{id}", Shape: restDraft}},
}, func(ctx context.Context, w *World, in getDraftIn) (DraftOut, error) {
	mb, err := w.mailbox(in.UserID)
	if err != nil {
		return DraftOut{}, err
	}
	format, err := checkFormat(in.Format)
	if err != nil {
		return DraftOut{}, err
	}
	d, err := mb.lookupDraft(in.ID)
	if err != nil {
		return DraftOut{}, err
	}
	return mb.draftOut(d, format), nil
})

// ---- create / update ----

// DraftMessageIn is the message of a REST draft request.
type DraftMessageIn struct {
	ID       string   `json:"id,omitempty"`
	ThreadID string   `json:"threadId,omitempty"`
	LabelIDs []string `json:"labelIds,omitempty"`
	Raw      string   `json:"raw,omitempty" jsonschema:"The whole RFC 2822 message, base64url"`
}

type draftIn struct {
	UserArg
	ID       string          `json:"id,omitempty" jsonschema:"The draft id (update and send)"`
	Message  *DraftMessageIn `json:"message,omitempty" jsonschema:"REST: the draft's message (raw, threadId)"`
	ThreadID string          `json:"threadId,omitempty" jsonschema:"Thread the draft replies in"`
	// ReplyToMessageID is Google's MCP argument: the draft answers that
	// message, in its thread, with In-Reply-To and References to it.
	ReplyToMessageID string `json:"replyToMessageId,omitempty" jsonschema:"The message the draft replies to (Google's MCP argument)"`
	RFC822           string `json:"rfc822,omitempty" jsonschema:"The message as RFC 2822 text (the upload endpoint's body)"`
	Compose
}

// draftContent returns the bytes and thread of a draft request.
func draftContent(ctx context.Context, w *World, mb *Mailbox, in draftIn, id string, required bool) ([]byte, string, error) {
	raw, threadID := "", in.ThreadID
	if in.Message != nil {
		raw = in.Message.Raw
		threadID = orDefault(in.Message.ThreadID, threadID)
	}
	if in.RFC822 != "" && threadID == "" {
		_, threadID, _ = uploadedMessage(in.RFC822)
	}
	var replyTo *Message
	if threadID != "" && raw == "" && in.RFC822 == "" {
		replyTo = lastOfThread(mb, threadID)
	}
	if in.ReplyToMessageID != "" {
		m, err := mb.lookup(in.ReplyToMessageID)
		if err != nil {
			return nil, "", err
		}
		if threadID != "" && threadID != m.ThreadID {
			return nil, "", gerr(twins.Invalid, "invalidArgument", "replyToMessageId is not in thread %s", threadID).WithField("replyToMessageId")
		}
		threadID, replyTo = m.ThreadID, m
	}
	if !required && raw == "" && in.RFC822 == "" && in.Compose.empty() {
		return nil, threadID, nil
	}
	b, err := outgoing(ctx, w, mb, raw, in.RFC822, in.Compose, id, replyTo)
	return b, threadID, err
}

// storeDraft stores draft bytes as a DRAFT message.
func (w *World) storeDraft(ctx context.Context, mb *Mailbox, raw []byte, threadID string) (*Message, error) {
	m := &Message{ID: w.peekMessageID(), InternalDate: w.now(ctx).UnixMilli(), LabelIDs: []string{"DRAFT"}}
	if _, err := fillDerived(m, raw); err != nil {
		return nil, err
	}
	tid, err := mb.joinThread(threadID, m)
	if err != nil {
		return nil, err
	}
	m.ID = w.newMessageID()
	m.ThreadID = orDefault(tid, m.ID)
	mb.addMessage(m)
	return m, nil
}

var createDraft = twins.New(twins.Spec{
	Name: "create_draft", Title: "Create draft",
	Description: "Creates a draft from to/cc/bcc/subject/body/htmlBody (or Gmail's message.raw). Returns the draft id and its message.",
	Effect:      twins.Write,
	Bindings: []twins.Binding{
		{Method: "POST", Path: base + "/drafts", Shape: restDraft},
		{Method: "POST", Path: "/upload" + base + "/drafts", Body: "rfc822", Shape: restDraft},
	},
}, func(ctx context.Context, w *World, in draftIn) (DraftOut, error) {
	mb, err := w.mailbox(in.UserID)
	if err != nil {
		return DraftOut{}, err
	}
	raw, threadID, err := draftContent(ctx, w, mb, in, w.peekMessageID(), true)
	if err != nil {
		return DraftOut{}, err
	}
	m, err := w.storeDraft(ctx, mb, raw, threadID)
	if err != nil {
		return DraftOut{}, err
	}
	d := &Draft{ID: w.newDraftID(), MessageID: m.ID}
	mb.Drafts = append(mb.Drafts, d)
	out := mb.draftOut(d, "minimal")
	out.Message = &MessageOut{ID: m.ID, ThreadID: m.ThreadID, LabelIDs: slices.Clone(m.LabelIDs)}
	return out, nil
})

var updateDraft = twins.New(twins.Spec{
	Name: "update_draft", Title: "Update draft",
	Description: "Replaces a draft's content; like Gmail, the draft keeps its id and gets a new message id.",
	Effect:      twins.Write,
	Bindings: []twins.Binding{
		{Method: "PUT", Path: base + "/drafts/{id}", Shape: restDraft},
		{Method: "PUT", Path: "/upload" + base + "/drafts/{id}", Body: "rfc822", Shape: restDraft},
	},
}, func(ctx context.Context, w *World, in draftIn) (DraftOut, error) {
	mb, err := w.mailbox(in.UserID)
	if err != nil {
		return DraftOut{}, err
	}
	d, err := mb.lookupDraft(in.ID)
	if err != nil {
		return DraftOut{}, err
	}
	old := mb.message(d.MessageID)
	raw, threadID, err := draftContent(ctx, w, mb, in, w.peekMessageID(), true)
	if err != nil {
		return DraftOut{}, err
	}
	if threadID == "" && old != nil && old.ThreadID != old.ID {
		threadID = old.ThreadID
	}
	m, err := w.storeDraft(ctx, mb, raw, threadID)
	if err != nil {
		return DraftOut{}, err
	}
	if old != nil {
		keep := d.ID
		mb.removeMessage(old.ID) // also drops the draft record
		d = &Draft{ID: keep}
		mb.Drafts = append(mb.Drafts, d)
	}
	d.MessageID = m.ID
	out := mb.draftOut(d, "minimal")
	out.Message = &MessageOut{ID: m.ID, ThreadID: m.ThreadID, LabelIDs: slices.Clone(m.LabelIDs)}
	return out, nil
})

// ---- delete ----

type draftIDIn struct {
	UserArg
	ID string `json:"id" jsonschema:"The draft id"`
}

var deleteDraft = twins.New(twins.Spec{
	Name: "delete_draft", Title: "Delete draft",
	Description: "Deletes a draft and its message for good.",
	Effect:      twins.Destructive,
	Bindings:    []twins.Binding{{Method: "DELETE", Path: base + "/drafts/{id}", Status: 204}},
}, func(ctx context.Context, w *World, in draftIDIn) (Empty, error) {
	mb, err := w.mailbox(in.UserID)
	if err != nil {
		return Empty{}, err
	}
	d, err := mb.lookupDraft(in.ID)
	if err != nil {
		return Empty{}, err
	}
	mb.removeMessage(d.MessageID)
	mb.Drafts = slices.DeleteFunc(mb.Drafts, func(x *Draft) bool { return x.ID == d.ID })
	return Empty{}, nil
})

// ---- send ----

var sendDraft = twins.New(twins.Spec{
	Name: "send_draft", Title: "Send draft",
	Description: "Sends a draft (optionally with new content in message.raw): the draft goes away and its message moves to SENT, delivered like send_message.",
	Effect:      twins.Write,
	Bindings: []twins.Binding{
		{Method: "POST", Path: base + "/drafts/send", Shape: restMessage},
		{Method: "POST", Path: "/upload" + base + "/drafts/send", Body: "rfc822", Shape: restMessage},
	},
}, func(ctx context.Context, w *World, in draftIn) (MessageOut, error) {
	mb, err := w.mailbox(in.UserID)
	if err != nil {
		return MessageOut{}, err
	}
	id := in.ID
	if id == "" && in.Message != nil {
		id = in.Message.ID
	}
	if id == "" {
		return MessageOut{}, gerr(twins.Invalid, "invalidArgument", "Invalid draft").WithField("id")
	}
	d, err := mb.lookupDraft(id)
	if err != nil {
		return MessageOut{}, err
	}
	m := mb.message(d.MessageID)
	if m == nil {
		return MessageOut{}, notFound()
	}
	raw, threadID, err := draftContent(ctx, w, mb, in, m.ID, false)
	if err != nil {
		return MessageOut{}, err
	}
	if raw == nil {
		raw, _ = decodeRaw(m.Raw)
	}
	if threadID == "" && m.ThreadID != m.ID {
		threadID = m.ThreadID
	}
	sent, err := w.send(ctx, mb, raw, threadID, m)
	if err != nil {
		return MessageOut{}, err
	}
	return MessageOut{ID: sent.ID, ThreadID: sent.ThreadID, LabelIDs: slices.Clone(sent.LabelIDs)}, nil
})
