package gmail

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"mime"
	"slices"
	"strings"

	"github.com/pomehq/pome/twins"
)

// base is the REST root of a mailbox.
const base = "/gmail/v1/users/{userId}"

// UserArg is the userId every input carries (the REST path's {userId}).
type UserArg struct {
	UserID string `json:"userId,omitempty" jsonschema:"The mailbox: me (the default) or the authenticated user's address"`
}

func restMessage(_, out any) any { return out.(MessageOut).rest() }

// ---- profile ----

type getProfileIn struct {
	UserArg
}

// Profile is Gmail's profile resource.
type Profile struct {
	EmailAddress  string `json:"emailAddress"`
	MessagesTotal int    `json:"messagesTotal"`
	ThreadsTotal  int    `json:"threadsTotal"`
	HistoryID     string `json:"historyId"`
}

var getProfile = twins.New(twins.Spec{
	Name: "get_profile", Title: "Get profile",
	Description: "Gets the authenticated user's Gmail profile: address, message and thread totals, current history id.",
	Effect:      twins.Read,
	Bindings:    []twins.Binding{{Method: "GET", Path: base + "/profile"}},
}, func(ctx context.Context, w *World, in getProfileIn) (Profile, error) {
	mb, err := w.mailbox(in.UserID)
	if err != nil {
		return Profile{}, err
	}
	threads := map[string]bool{}
	for _, m := range mb.Messages {
		threads[m.ThreadID] = true
	}
	return Profile{EmailAddress: mb.Address, MessagesTotal: len(mb.Messages), ThreadsTotal: len(threads), HistoryID: fmtHistory(mb.HistoryID)}, nil
})

// ---- messages.list ----

type listMessagesIn struct {
	UserArg
	Q                string   `json:"q,omitempty" jsonschema:"Gmail search query (from: to: subject: label: is: in: has:attachment after: before: newer_than: \"phrases\" -negation …)"`
	LabelIDs         []string `json:"labelIds,omitempty" jsonschema:"Only messages with all of these label ids"`
	MaxResults       int      `json:"maxResults,omitempty" jsonschema:"Page size (default 100, at most 500)"`
	PageToken        string   `json:"pageToken,omitempty" jsonschema:"nextPageToken of the previous page"`
	IncludeSpamTrash bool     `json:"includeSpamTrash,omitempty" jsonschema:"Include messages from SPAM and TRASH"`
}

// ListMessagesResponse is Gmail's messages.list answer.
type ListMessagesResponse struct {
	Messages           []MessageOut `json:"messages,omitempty"`
	NextPageToken      string       `json:"nextPageToken,omitempty"`
	ResultSizeEstimate int          `json:"resultSizeEstimate"`
}

var listMessages = twins.New(twins.Spec{
	Name: "list_messages", Title: "List messages",
	Description: "Lists the mailbox's messages (id and threadId), newest first, filtered by a Gmail search query and label ids, with nextPageToken pagination.",
	Effect:      twins.Read,
	Bindings:    []twins.Binding{{Method: "GET", Path: base + "/messages"}},
}, func(ctx context.Context, w *World, in listMessagesIn) (ListMessagesResponse, error) {
	mb, err := w.mailbox(in.UserID)
	if err != nil {
		return ListMessagesResponse{}, err
	}
	if in.MaxResults < 0 {
		return ListMessagesResponse{}, gerr(twins.Invalid, "invalidArgument", "Invalid maxResults").WithField("maxResults")
	}
	found, err := mb.search(in.Q, in.LabelIDs, in.IncludeSpamTrash, w.now(ctx))
	if err != nil {
		return ListMessagesResponse{}, err
	}
	pg, next, err := page(found, in.PageToken, in.MaxResults, 100, 500)
	if err != nil {
		return ListMessagesResponse{}, err
	}
	out := ListMessagesResponse{NextPageToken: next, ResultSizeEstimate: len(found)}
	for _, m := range pg {
		out.Messages = append(out.Messages, MessageOut{ID: m.ID, ThreadID: m.ThreadID})
	}
	return out, nil
})

// ---- messages.get ----

type getMessageIn struct {
	UserArg
	MessageID       string   `json:"messageId" jsonschema:"The message id"`
	Format          string   `json:"format,omitempty" jsonschema:"full (default), metadata, minimal or raw" enum:"full,metadata,minimal,raw"`
	MessageFormat   string   `json:"messageFormat,omitempty" jsonschema:"MINIMAL or FULL_CONTENT (default), as Google's MCP tool takes it" enum:"MESSAGE_FORMAT_UNSPECIFIED,MINIMAL,FULL_CONTENT"`
	MetadataHeaders []string `json:"metadataHeaders,omitempty" jsonschema:"With format=metadata, only these headers"`
}

func checkFormat(f string) (string, error) {
	switch f = strings.ToLower(f); f {
	case "":
		return "full", nil
	case "full", "metadata", "minimal", "raw":
		return f, nil
	}
	return "", gerr(twins.Invalid, "invalidArgument", "Invalid value at 'format', %q: must be full, metadata, minimal or raw", f).WithField("format")
}

// lookup finds a message, answering as Gmail does for malformed ids (400)
// and unknown ones (404).
// A seed may pin ids of another shape (msg_support); those exist, so they
// are found.
func (mb *Mailbox) lookup(id string) (*Message, error) {
	if m := mb.message(id); m != nil {
		return m, nil
	}
	if !hexID.MatchString(id) {
		return nil, gerr(twins.Invalid, "invalidArgument", "Invalid id value")
	}
	return nil, notFound()
}

var getMessage = twins.New(twins.Spec{
	Name: "get_message", Title: "Get message",
	Description: "Gets one message in Gmail's format full (payload with base64url part bodies), metadata, minimal or raw, with its decoded subject, sender, recipients and plain-text body.",
	Effect:      twins.Read,
	Bindings: []twins.Binding{{Method: "GET", Path: base + "/messages/{id}", Rename: map[string]string{"id": "messageId"},
		Shape: restMessage}},
}, func(ctx context.Context, w *World, in getMessageIn) (MessageOut, error) {
	mb, err := w.mailbox(in.UserID)
	if err != nil {
		return MessageOut{}, err
	}
	format, err := mcpFormat(in.Format, in.MessageFormat)
	if err != nil {
		return MessageOut{}, err
	}
	m, err := mb.lookup(in.MessageID)
	if err != nil {
		return MessageOut{}, err
	}
	return view(m, format, in.MetadataHeaders), nil
})

// ---- messages.send ----

// AttachmentIn is a file attached by an MCP caller.
type AttachmentIn struct {
	Filename string `json:"filename"`
	MimeType string `json:"mimeType,omitempty"`
	Data     string `json:"data" jsonschema:"The file content, base64 (standard or URL alphabet)"`
}

// typeByName guesses a MIME type from a file name from a fixed table (the
// system's tables differ between machines, and results must not).
func typeByName(name string) string {
	i := strings.LastIndexByte(name, '.')
	if i < 0 {
		return "application/octet-stream"
	}
	switch strings.ToLower(name[i+1:]) {
	case "txt":
		return "text/plain"
	case "html", "htm":
		return "text/html"
	case "csv":
		return "text/csv"
	case "pdf":
		return "application/pdf"
	case "png":
		return "image/png"
	case "jpg", "jpeg":
		return "image/jpeg"
	case "gif":
		return "image/gif"
	case "json":
		return "application/json"
	case "zip":
		return "application/zip"
	case "ics":
		return "text/calendar"
	}
	return "application/octet-stream"
}

// Compose is the structured message of the MCP tools (Google's
// create_draft field names).
type Compose struct {
	To          []string       `json:"to,omitempty" jsonschema:"Recipient addresses"`
	Cc          []string       `json:"cc,omitempty" jsonschema:"Cc addresses"`
	Bcc         []string       `json:"bcc,omitempty" jsonschema:"Bcc addresses"`
	Subject     string         `json:"subject,omitempty" jsonschema:"Subject line"`
	Body        string         `json:"body,omitempty" jsonschema:"Plain-text body"`
	HTMLBody    string         `json:"htmlBody,omitempty" jsonschema:"HTML body (sent as multipart/alternative with body)"`
	Attachments []AttachmentIn `json:"attachments,omitempty" jsonschema:"Files to attach"`
}

func (c Compose) empty() bool {
	return c.To == nil && c.Cc == nil && c.Bcc == nil && c.Subject == "" && c.Body == "" && c.HTMLBody == "" && c.Attachments == nil
}

// compose builds RFC 2822 bytes from structured fields, refusing addresses
// that could smuggle headers.
func (c Compose) compose(ctx context.Context, w *World, mb *Mailbox, id string, replyTo *Message) ([]byte, error) {
	if err := validateAddresses("to", c.To); err != nil {
		return nil, err
	}
	if err := validateAddresses("cc", c.Cc); err != nil {
		return nil, err
	}
	if err := validateAddresses("bcc", c.Bcc); err != nil {
		return nil, err
	}
	var atts []attachment
	for i, a := range c.Attachments {
		if strings.TrimSpace(a.Filename) == "" {
			return nil, gerr(twins.Invalid, "invalidArgument", "attachments[%d]: filename is required", i).WithField("attachments")
		}
		data, err := base64.StdEncoding.DecodeString(a.Data)
		if err != nil {
			if data, err = decodeRaw(a.Data); err != nil {
				return nil, gerr(twins.Invalid, "invalidArgument", "attachments[%d]: data must be base64", i).WithField("attachments")
			}
		}
		mt := a.MimeType
		if mt == "" {
			mt = typeByName(a.Filename)
		}
		if _, _, err := mime.ParseMediaType(orDefault(mt, "application/octet-stream")); err != nil || strings.ContainsAny(mt, "\r\n") {
			return nil, gerr(twins.Invalid, "invalidArgument", "attachments[%d]: invalid mimeType", i).WithField("attachments")
		}
		atts = append(atts, attachment{Filename: a.Filename, MimeType: mt, Data: data})
	}
	cm := composed{
		From: ownFrom(mb), To: c.To, Cc: c.Cc, Bcc: c.Bcc, Subject: c.Subject, Text: c.Body, HTML: c.HTMLBody,
		Date: w.now(ctx), MessageID: "<" + id + "@mail.gmail.com>", Attachments: atts, Boundary: id,
	}
	if replyTo != nil {
		cm.InReplyTo = replyTo.MessageIDHdr
		cm.References = strings.TrimSpace(strings.Join(replyTo.References, " ") + " " + replyTo.MessageIDHdr)
	}
	return cm.build(), nil
}

type sendMessageIn struct {
	UserArg
	Raw      string `json:"raw,omitempty" jsonschema:"The whole RFC 2822 message, base64url (REST messages.send)"`
	ThreadID string `json:"threadId,omitempty" jsonschema:"Thread to send in; the subject must match the thread's"`
	RFC822   string `json:"rfc822,omitempty" jsonschema:"The message as RFC 2822 text (the upload endpoint's body)"`
	Compose
}

// outgoing returns the RFC 2822 bytes of a send or draft request: raw,
// an uploaded body, or structured fields.
func outgoing(ctx context.Context, w *World, mb *Mailbox, raw, rfc822 string, c Compose, id string, replyTo *Message) ([]byte, error) {
	switch {
	case raw != "":
		b, err := decodeRaw(raw)
		if err != nil {
			return nil, gerr(twins.Invalid, "invalidArgument", "Invalid value for ByteString: %s", truncate(raw, 40)).WithField("raw")
		}
		return b, nil
	case rfc822 != "":
		b, _, err := uploadedMessage(rfc822)
		return b, err
	case !c.empty():
		return c.compose(ctx, w, mb, id, replyTo)
	}
	return nil, gerr(twins.Invalid, "invalidArgument", "'raw' RFC822 payload message string or uploading message via /upload/* URL required")
}

var sendMessage = twins.New(twins.Spec{
	Name: "send_message", Title: "Send message",
	Description: "Sends a message: raw RFC 2822 (base64url) as Gmail's messages.send takes it, or to/cc/bcc/subject/body/htmlBody/attachments. The message lands in SENT (threadId with a matching subject keeps it in that thread) and is delivered to any other mailbox of the sandbox it is addressed to.",
	Effect:      twins.Write,
	Bindings: []twins.Binding{
		{Method: "POST", Path: base + "/messages/send", Shape: restMessage},
		{Method: "POST", Path: "/upload" + base + "/messages/send", Body: "rfc822", Shape: restMessage},
	},
}, func(ctx context.Context, w *World, in sendMessageIn) (MessageOut, error) {
	mb, err := w.mailbox(in.UserID)
	if err != nil {
		return MessageOut{}, err
	}
	if in.RFC822 != "" && in.ThreadID == "" {
		_, in.ThreadID, _ = uploadedMessage(in.RFC822)
	}
	raw, err := outgoing(ctx, w, mb, in.Raw, in.RFC822, in.Compose, w.peekMessageID(), nil)
	if err != nil {
		return MessageOut{}, err
	}
	m, err := w.send(ctx, mb, raw, in.ThreadID, nil)
	if err != nil {
		return MessageOut{}, err
	}
	return MessageOut{ID: m.ID, ThreadID: m.ThreadID, LabelIDs: slices.Clone(m.LabelIDs)}, nil
})

// ---- reply_to_message (MCP) ----

type replyIn struct {
	UserArg
	MessageID string `json:"messageId" jsonschema:"The message to reply to"`
	Body      string `json:"body,omitempty" jsonschema:"Plain-text reply"`
	HTMLBody  string `json:"htmlBody,omitempty" jsonschema:"HTML reply"`
	ReplyAll  bool   `json:"replyAll,omitempty" jsonschema:"Also reply to the other To and Cc recipients"`
}

var replyToMessage = twins.New(twins.Spec{
	Name: "reply_to_message", Title: "Reply to message",
	Description: "Replies to a message in its thread: Re: subject, In-Reply-To and References set, addressed to the sender (and, with replyAll, the other recipients).",
	Effect:      twins.Write,
}, func(ctx context.Context, w *World, in replyIn) (MessageOut, error) {
	mb, err := w.mailbox(in.UserID)
	if err != nil {
		return MessageOut{}, err
	}
	orig, err := mb.lookup(in.MessageID)
	if err != nil {
		return MessageOut{}, err
	}
	if in.Body == "" && in.HTMLBody == "" {
		return MessageOut{}, gerr(twins.Invalid, "invalidArgument", "body or htmlBody is required").WithField("body")
	}
	self := strings.ToLower(mb.Address)
	to := []string{fromAddress(orig.From)}
	if to[0] == self && len(orig.To) > 0 {
		// Replying to one's own message goes to its recipients, as Gmail does.
		to = slices.Clone(orig.To)
	}
	var cc []string
	if in.ReplyAll {
		for _, a := range append(slices.Clone(orig.To), orig.Cc...) {
			if a != self && !slices.Contains(to, a) && !slices.Contains(cc, a) {
				cc = append(cc, a)
			}
		}
	}
	subject := orig.Subject
	if !subjectPrefix.MatchString(subject) {
		subject = "Re: " + subject
	}
	c := Compose{To: to, Cc: cc, Subject: subject, Body: in.Body, HTMLBody: in.HTMLBody}
	raw, err := c.compose(ctx, w, mb, w.peekMessageID(), orig)
	if err != nil {
		return MessageOut{}, err
	}
	m, err := w.send(ctx, mb, raw, orig.ThreadID, nil)
	if err != nil {
		return MessageOut{}, err
	}
	return view(m, "full", nil), nil
})

// ---- insert / import ----

type insertIn struct {
	UserArg
	Raw                string   `json:"raw,omitempty" jsonschema:"The whole RFC 2822 message, base64url"`
	ThreadID           string   `json:"threadId,omitempty"`
	LabelIDs           []string `json:"labelIds,omitempty" jsonschema:"Labels of the stored message"`
	RFC822             string   `json:"rfc822,omitempty" jsonschema:"The message as RFC 2822 text (the upload endpoint's body)"`
	InternalDateSource string   `json:"internalDateSource,omitempty" jsonschema:"receivedTime or dateHeader" enum:"receivedTime,dateHeader"`
	Deleted            bool     `json:"deleted,omitempty" jsonschema:"Vault-only; refused here"`
}

func storeMessage(ctx context.Context, w *World, in insertIn, defaultSource string) (MessageOut, error) {
	mb, err := w.mailbox(in.UserID)
	if err != nil {
		return MessageOut{}, err
	}
	if in.Deleted {
		return MessageOut{}, gerr(twins.Unprocessable, "failedPrecondition", "Precondition check failed.")
	}
	src := orDefault(in.InternalDateSource, defaultSource)
	if src != "receivedTime" && src != "dateHeader" {
		return MessageOut{}, gerr(twins.Invalid, "invalidArgument", "Invalid value at 'internal_date_source', %q", src).WithField("internalDateSource")
	}
	var raw []byte
	switch {
	case in.Raw != "":
		if raw, err = decodeRaw(in.Raw); err != nil {
			return MessageOut{}, gerr(twins.Invalid, "invalidArgument", "Invalid value for ByteString: %s", truncate(in.Raw, 40)).WithField("raw")
		}
	case in.RFC822 != "":
		var tid string
		if raw, tid, err = uploadedMessage(in.RFC822); err != nil {
			return MessageOut{}, err
		}
		in.ThreadID = orDefault(in.ThreadID, tid)
	default:
		return MessageOut{}, gerr(twins.Invalid, "invalidArgument", "'raw' RFC822 payload message string or uploading message via /upload/* URL required")
	}
	labels, err := mb.checkLabels(in.LabelIDs)
	if err != nil {
		return MessageOut{}, err
	}
	m, err := w.receive(ctx, mb, raw, in.ThreadID, labels, src == "dateHeader")
	if err != nil {
		return MessageOut{}, err
	}
	return MessageOut{ID: m.ID, ThreadID: m.ThreadID, LabelIDs: slices.Clone(m.LabelIDs)}, nil
}

var insertMessage = twins.New(twins.Spec{
	Name: "insert_message", Title: "Insert message",
	Description: "Stores a raw RFC 2822 message directly in the mailbox with the given labels, without sending it (Gmail's messages.insert).",
	Effect:      twins.Write,
	Bindings: []twins.Binding{
		{Method: "POST", Path: base + "/messages", Shape: restMessage},
		{Method: "POST", Path: "/upload" + base + "/messages", Body: "rfc822", Shape: restMessage},
	},
}, func(ctx context.Context, w *World, in insertIn) (MessageOut, error) {
	return storeMessage(ctx, w, in, "receivedTime")
})

var importMessage = twins.New(twins.Spec{
	Name: "import_message", Title: "Import message",
	Description: "Imports a raw RFC 2822 message into the mailbox as if received, dated by its Date header by default (Gmail's messages.import).",
	Effect:      twins.Write,
	Bindings: []twins.Binding{
		{Method: "POST", Path: base + "/messages/import", Shape: restMessage},
		{Method: "POST", Path: "/upload" + base + "/messages/import", Body: "rfc822", Shape: restMessage},
	},
}, func(ctx context.Context, w *World, in insertIn) (MessageOut, error) {
	return storeMessage(ctx, w, in, "dateHeader")
})

// ---- labels on messages ----

// checkLabels validates label ids a caller wants on a message; DRAFT is
// Gmail's to manage, never the caller's.
func (mb *Mailbox) checkLabels(ids []string) ([]string, error) {
	out := []string{}
	for _, id := range ids {
		if mb.label(id) == nil || id == "DRAFT" {
			return nil, gerr(twins.Invalid, "invalidArgument", "Invalid label: %s", id)
		}
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out, nil
}

type modifyIn struct {
	UserArg
	MessageID      string   `json:"messageId" jsonschema:"The message id"`
	AddLabelIDs    []string `json:"addLabelIds,omitempty" jsonschema:"Label ids to add"`
	RemoveLabelIDs []string `json:"removeLabelIds,omitempty" jsonschema:"Label ids to remove"`
}

func modify(ctx context.Context, w *World, userID, id string, add, remove []string) (MessageOut, error) {
	mb, err := w.mailbox(userID)
	if err != nil {
		return MessageOut{}, err
	}
	m, err := mb.lookup(id)
	if err != nil {
		return MessageOut{}, err
	}
	if add, err = mb.checkLabels(add); err != nil {
		return MessageOut{}, err
	}
	if remove, err = mb.checkLabels(remove); err != nil {
		return MessageOut{}, err
	}
	if !mb.relabel(m, add, remove) {
		twins.Unchanged(ctx)
	}
	return MessageOut{ID: m.ID, ThreadID: m.ThreadID, LabelIDs: slices.Clone(m.LabelIDs)}, nil
}

var modifyMessage = twins.New(twins.Spec{
	Name: "modify_message", Title: "Modify message labels",
	Description: "Adds and removes labels on one message (Gmail's messages.modify).",
	Effect:      twins.Write,
	Bindings: []twins.Binding{{Method: "POST", Path: base + "/messages/{id}/modify", Rename: map[string]string{"id": "messageId"},
		Shape: restMessage}},
}, func(ctx context.Context, w *World, in modifyIn) (MessageOut, error) {
	return modify(ctx, w, in.UserID, in.MessageID, in.AddLabelIDs, in.RemoveLabelIDs)
})

type labelMessageIn struct {
	UserArg
	MessageID string   `json:"messageId" jsonschema:"The message id"`
	LabelIDs  []string `json:"labelIds" jsonschema:"Label ids: system ids (INBOX, STARRED, UNREAD, IMPORTANT, TRASH, SPAM) or user label ids from list_labels"`
}

var labelMessage = twins.New(twins.Spec{
	Name: "label_message", Title: "Label message",
	Description: "Adds one or more labels to a message. Use list_labels for user label ids.",
	Effect:      twins.Write,
}, func(ctx context.Context, w *World, in labelMessageIn) (MessageOut, error) {
	return modify(ctx, w, in.UserID, in.MessageID, in.LabelIDs, nil)
})

var unlabelMessage = twins.New(twins.Spec{
	Name: "unlabel_message", Title: "Unlabel message",
	Description: "Removes one or more labels from a message. Use list_labels for user label ids.",
	Effect:      twins.Write,
}, func(ctx context.Context, w *World, in labelMessageIn) (MessageOut, error) {
	return modify(ctx, w, in.UserID, in.MessageID, nil, in.LabelIDs)
})

type batchModifyIn struct {
	UserArg
	IDs            []string `json:"ids" jsonschema:"Message ids (at most 1000)"`
	AddLabelIDs    []string `json:"addLabelIds,omitempty"`
	RemoveLabelIDs []string `json:"removeLabelIds,omitempty"`
}

func (mb *Mailbox) lookupAll(ids []string) ([]*Message, error) {
	if len(ids) > 1000 {
		return nil, gerr(twins.Invalid, "invalidArgument", "Too many ids: at most 1000")
	}
	var out []*Message
	for _, id := range ids {
		m, err := mb.lookup(id)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	return out, nil
}

var batchModifyMessages = twins.New(twins.Spec{
	Name: "batch_modify_messages", Title: "Batch modify messages",
	Description: "Adds and removes labels on many messages at once (Gmail's messages.batchModify).",
	Effect:      twins.Write,
	Bindings:    []twins.Binding{{Method: "POST", Path: base + "/messages/batchModify", Status: 204}},
}, func(ctx context.Context, w *World, in batchModifyIn) (Empty, error) {
	mb, err := w.mailbox(in.UserID)
	if err != nil {
		return Empty{}, err
	}
	ms, err := mb.lookupAll(in.IDs)
	if err != nil {
		return Empty{}, err
	}
	add, err := mb.checkLabels(in.AddLabelIDs)
	if err != nil {
		return Empty{}, err
	}
	remove, err := mb.checkLabels(in.RemoveLabelIDs)
	if err != nil {
		return Empty{}, err
	}
	changed := false
	for _, m := range ms {
		changed = mb.relabel(m, add, remove) || changed
	}
	if !changed {
		twins.Unchanged(ctx)
	}
	return Empty{}, nil
})

type messageIDIn struct {
	UserArg
	MessageID string `json:"messageId" jsonschema:"The message id"`
}

var trashMessage = twins.New(twins.Spec{
	Name: "trash_message", Title: "Trash message",
	Description: "Moves a message to the trash (adds TRASH).",
	Effect:      twins.Write,
	Bindings: []twins.Binding{{Method: "POST", Path: base + "/messages/{id}/trash", Rename: map[string]string{"id": "messageId"},
		Shape: restMessage}},
}, func(ctx context.Context, w *World, in messageIDIn) (MessageOut, error) {
	return modify(ctx, w, in.UserID, in.MessageID, []string{"TRASH"}, []string{"SPAM"})
})

var untrashMessage = twins.New(twins.Spec{
	Name: "untrash_message", Title: "Untrash message",
	Description: "Takes a message out of the trash.",
	Effect:      twins.Write,
	Bindings: []twins.Binding{{Method: "POST", Path: base + "/messages/{id}/untrash", Rename: map[string]string{"id": "messageId"},
		Shape: restMessage}},
}, func(ctx context.Context, w *World, in messageIDIn) (MessageOut, error) {
	return modify(ctx, w, in.UserID, in.MessageID, nil, []string{"TRASH"})
})

var deleteMessage = twins.New(twins.Spec{
	Name: "delete_message", Title: "Delete message",
	Description: "Deletes a message immediately and for good, bypassing the trash.",
	Effect:      twins.Destructive,
	Bindings: []twins.Binding{{Method: "DELETE", Path: base + "/messages/{id}", Rename: map[string]string{"id": "messageId"},
		Status: 204}},
}, func(ctx context.Context, w *World, in messageIDIn) (Empty, error) {
	mb, err := w.mailbox(in.UserID)
	if err != nil {
		return Empty{}, err
	}
	m, err := mb.lookup(in.MessageID)
	if err != nil {
		return Empty{}, err
	}
	mb.removeMessage(m.ID)
	return Empty{}, nil
})

type batchDeleteIn struct {
	UserArg
	IDs []string `json:"ids" jsonschema:"Message ids (at most 1000)"`
}

var batchDeleteMessages = twins.New(twins.Spec{
	Name: "batch_delete_messages", Title: "Batch delete messages",
	Description: "Deletes many messages for good (Gmail's messages.batchDelete).",
	Effect:      twins.Destructive,
	Bindings:    []twins.Binding{{Method: "POST", Path: base + "/messages/batchDelete", Status: 204}},
}, func(ctx context.Context, w *World, in batchDeleteIn) (Empty, error) {
	mb, err := w.mailbox(in.UserID)
	if err != nil {
		return Empty{}, err
	}
	ms, err := mb.lookupAll(in.IDs)
	if err != nil {
		return Empty{}, err
	}
	if len(ms) == 0 {
		twins.Unchanged(ctx)
	}
	for _, m := range ms {
		mb.removeMessage(m.ID)
	}
	return Empty{}, nil
})

// ---- attachments ----

type getAttachmentIn struct {
	UserArg
	MessageID    string `json:"messageId" jsonschema:"The message id"`
	AttachmentID string `json:"attachmentId" jsonschema:"The attachment id from the message payload"`
}

var getAttachment = twins.New(twins.Spec{
	Name: "get_attachment", Title: "Get attachment",
	Description: "Gets an attachment's content, base64url in data.",
	Effect:      twins.Read,
	Bindings: []twins.Binding{{Method: "GET", Path: base + "/messages/{messageId}/attachments/{id}",
		Rename: map[string]string{"id": "attachmentId"}}},
}, func(ctx context.Context, w *World, in getAttachmentIn) (MessagePartBody, error) {
	mb, err := w.mailbox(in.UserID)
	if err != nil {
		return MessagePartBody{}, err
	}
	m, err := mb.lookup(in.MessageID)
	if err != nil {
		return MessagePartBody{}, err
	}
	msgID, partID, ok := parseAttachmentID(in.AttachmentID)
	if !ok || msgID != m.ID {
		return MessagePartBody{}, gerr(twins.Invalid, "invalidArgument", "Invalid attachment token")
	}
	raw, _ := decodeRaw(m.Raw)
	pm, err := parseMessage(raw)
	if err != nil {
		return MessagePartBody{}, notFound()
	}
	for _, a := range pm.attachments() {
		if a.id == partID {
			return MessagePartBody{AttachmentID: in.AttachmentID, Size: len(a.body), Data: encodeRaw(a.body)}, nil
		}
	}
	return MessagePartBody{}, notFound()
})

// uploadedMessage reads the body of an /upload/ request: the message itself
// (uploadType=media), or, as the Go client sends whenever it uploads, a
// multipart/related envelope of the JSON metadata and the message. The
// metadata's threadId comes back too.
func uploadedMessage(body string) ([]byte, string, error) {
	b := []byte(body)
	if strings.HasPrefix(body, "--") {
		line, _, _ := strings.Cut(body, "\n")
		boundary := strings.TrimSpace(strings.TrimPrefix(line, "--"))
		parts := splitMultipart(b, boundary)
		if len(parts) >= 2 {
			var meta struct {
				ThreadID string `json:"threadId"`
			}
			_, mb := splitHead(parts[0])
			_ = json.Unmarshal(mb, &meta)
			_, msg := splitHead(parts[len(parts)-1])
			return msg, meta.ThreadID, nil
		}
	}
	if len(strings.TrimSpace(body)) == 0 {
		return nil, "", gerr(twins.Invalid, "invalidArgument", "'raw' RFC822 payload message string or uploading message via /upload/* URL required")
	}
	return b, "", nil
}
