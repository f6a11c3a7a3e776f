package gmail

import (
	"slices"
	"strconv"
	"strings"
	"time"
)

// The types in this file are Gmail's REST resources, field for field as
// google.golang.org/api/gmail/v1 decodes them. Actions that Google's Gmail
// MCP server also offers return these resources with a few readable extras
// (subject, sender, plaintextBody, …) that Google's MCP tools return; the
// REST bindings strip the extras (see restMessage), so an SDK sees exactly
// Gmail's shape.

// MessagePartHeader is one header of a message part.
type MessagePartHeader struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// MessagePartBody is a part's body: inline data or an attachment id.
type MessagePartBody struct {
	AttachmentID string `json:"attachmentId,omitempty"`
	Size         int    `json:"size"`
	Data         string `json:"data,omitempty"`
}

// MessagePart is one node of a message's MIME tree. Parts holds nested
// MessagePart values; it is typed []any because the schema inference the
// transports share cannot describe a recursive type.
type MessagePart struct {
	PartID   string              `json:"partId"`
	MimeType string              `json:"mimeType"`
	Filename string              `json:"filename"`
	Headers  []MessagePartHeader `json:"headers"`
	Body     MessagePartBody     `json:"body"`
	Parts    []any               `json:"parts,omitempty"`
}

// MessageOut is Gmail's Message resource, plus the readable fields of
// Google's MCP tools (omitted over REST).
type MessageOut struct {
	ID           string       `json:"id"`
	ThreadID     string       `json:"threadId"`
	LabelIDs     []string     `json:"labelIds,omitempty"`
	Snippet      string       `json:"snippet,omitempty"`
	HistoryID    string       `json:"historyId,omitempty"`
	InternalDate string       `json:"internalDate,omitempty"`
	Payload      *MessagePart `json:"payload,omitempty"`
	SizeEstimate int          `json:"sizeEstimate,omitempty"`
	Raw          string       `json:"raw,omitempty"`

	Subject       string       `json:"subject,omitempty" jsonschema:"MCP only: the Subject header"`
	Sender        string       `json:"sender,omitempty" jsonschema:"MCP only: the From header"`
	ToRecipients  []string     `json:"toRecipients,omitempty" jsonschema:"MCP only: To addresses"`
	CcRecipients  []string     `json:"ccRecipients,omitempty" jsonschema:"MCP only: Cc addresses"`
	BccRecipients []string     `json:"bccRecipients,omitempty" jsonschema:"MCP only: Bcc addresses"`
	Date          string       `json:"date,omitempty" jsonschema:"MCP only: the message date (RFC 3339)"`
	PlaintextBody string       `json:"plaintextBody,omitempty" jsonschema:"MCP only: the decoded plain-text body"`
	HTMLBody      string       `json:"htmlBody,omitempty" jsonschema:"MCP only: the decoded HTML body"`
	Attachments   []Attachment `json:"attachments,omitempty" jsonschema:"MCP only: attachment names, types, sizes and ids"`
}

// Attachment describes one attachment in MCP results.
type Attachment struct {
	AttachmentID string `json:"attachmentId"`
	Filename     string `json:"filename"`
	MimeType     string `json:"mimeType"`
	Size         int    `json:"size"`
}

// rest returns the message without the MCP-only fields.
func (m MessageOut) rest() MessageOut {
	m.Subject, m.Sender, m.Date, m.PlaintextBody, m.HTMLBody = "", "", "", "", ""
	m.ToRecipients, m.CcRecipients, m.BccRecipients, m.Attachments = nil, nil, nil, nil
	return m
}

// ThreadOut is Gmail's Thread resource.
type ThreadOut struct {
	ID        string       `json:"id"`
	Snippet   string       `json:"snippet,omitempty"`
	HistoryID string       `json:"historyId,omitempty"`
	Messages  []MessageOut `json:"messages,omitempty"`
}

func (t ThreadOut) rest() ThreadOut {
	if t.Messages != nil {
		ms := make([]MessageOut, len(t.Messages))
		for i, m := range t.Messages {
			ms[i] = m.rest()
		}
		t.Messages = ms
	}
	return t
}

// LabelColor is a label's colours.
type LabelColor struct {
	TextColor       string `json:"textColor,omitempty"`
	BackgroundColor string `json:"backgroundColor,omitempty"`
}

// LabelOut is Gmail's Label resource (labelId is the MCP spelling of id).
type LabelOut struct {
	ID                    string      `json:"id"`
	Name                  string      `json:"name"`
	MessageListVisibility string      `json:"messageListVisibility,omitempty"`
	LabelListVisibility   string      `json:"labelListVisibility,omitempty"`
	Type                  string      `json:"type"`
	MessagesTotal         *int        `json:"messagesTotal,omitempty"`
	MessagesUnread        *int        `json:"messagesUnread,omitempty"`
	ThreadsTotal          *int        `json:"threadsTotal,omitempty"`
	ThreadsUnread         *int        `json:"threadsUnread,omitempty"`
	Color                 *LabelColor `json:"color,omitempty"`

	LabelID string `json:"labelId,omitempty" jsonschema:"MCP only: the label id"`
}

func (l LabelOut) rest() LabelOut { l.LabelID = ""; return l }

// DraftOut is Gmail's Draft resource, plus the summary fields of Google's
// MCP list_drafts.
type DraftOut struct {
	ID      string      `json:"id"`
	Message *MessageOut `json:"message,omitempty"`

	Subject       string   `json:"subject,omitempty" jsonschema:"MCP only: the draft's subject"`
	ThreadID      string   `json:"threadId,omitempty" jsonschema:"MCP only: the draft's thread"`
	ToRecipients  []string `json:"toRecipients,omitempty" jsonschema:"MCP only: To addresses"`
	CcRecipients  []string `json:"ccRecipients,omitempty" jsonschema:"MCP only: Cc addresses"`
	BccRecipients []string `json:"bccRecipients,omitempty" jsonschema:"MCP only: Bcc addresses"`
	PlaintextBody string   `json:"plaintextBody,omitempty" jsonschema:"MCP only: the decoded plain-text body"`
	Date          string   `json:"date,omitempty" jsonschema:"MCP only: the draft date (RFC 3339)"`
}

func (d DraftOut) rest() DraftOut {
	out := DraftOut{ID: d.ID}
	if d.Message != nil {
		m := d.Message.rest()
		out.Message = &m
	}
	return out
}

// Empty is the body of Gmail's 204 answers.
type Empty struct{}

func fmtHistory(h uint64) string { return strconv.FormatUint(h, 10) }

// threadHistory is the newest history id among a thread's messages.
func threadHistory(ms []*Message) uint64 {
	var h uint64
	for _, m := range ms {
		h = max(h, m.HistoryID)
	}
	return h
}

// view renders a stored message in one of Gmail's formats. MCP extras are
// filled for every format but raw; REST strips them.
func view(m *Message, format string, metadataHeaders []string) MessageOut {
	out := MessageOut{
		ID: m.ID, ThreadID: m.ThreadID, LabelIDs: slices.Clone(m.LabelIDs), Snippet: m.Snippet,
		HistoryID: fmtHistory(m.HistoryID), InternalDate: strconv.FormatInt(m.InternalDate, 10),
		SizeEstimate: m.SizeEstimate,
	}
	if out.LabelIDs == nil {
		out.LabelIDs = []string{}
	}
	raw, err := decodeRaw(m.Raw)
	if err != nil {
		return out
	}
	if format == "raw" {
		out.Raw = m.Raw
		return out
	}
	pm, err := parseMessage(raw)
	if err != nil {
		return out
	}
	out.Subject = m.Subject
	out.Sender = m.From
	out.ToRecipients = m.To
	out.CcRecipients = m.Cc
	out.BccRecipients = m.Bcc
	out.Date = time.UnixMilli(m.InternalDate).UTC().Format(time.RFC3339)
	switch format {
	case "minimal":
		return out
	case "metadata":
		p := &MessagePart{PartID: "", MimeType: pm.root.mimeType, Filename: "", Headers: headersOut(pm.root.headers, metadataHeaders)}
		out.Payload = p
		return out
	}
	out.Payload = partOut(m.ID, pm.root, "")
	out.PlaintextBody = pm.text()
	out.HTMLBody = pm.htmlBody()
	for _, a := range pm.attachments() {
		out.Attachments = append(out.Attachments, Attachment{
			AttachmentID: attachmentID(m.ID, a.id), Filename: a.filename, MimeType: a.mimeType, Size: len(a.body),
		})
	}
	return out
}

func headersOut(hs []header, only []string) []MessagePartHeader {
	out := []MessagePartHeader{}
	for _, h := range hs {
		if len(only) > 0 && !slices.ContainsFunc(only, func(n string) bool { return strings.EqualFold(n, h.Name) }) {
			continue
		}
		out = append(out, MessagePartHeader{Name: h.Name, Value: h.Value})
	}
	return out
}

func partOut(msgID string, p *part, id string) *MessagePart {
	out := &MessagePart{PartID: id, MimeType: p.mimeType, Filename: p.filename, Headers: headersOut(p.headers, nil)}
	switch {
	case len(p.parts) > 0:
		for i, c := range p.parts {
			cid := strconv.Itoa(i)
			if id != "" {
				cid = id + "." + cid
			}
			out.Parts = append(out.Parts, *partOut(msgID, c, cid))
		}
	case p.isAttachment():
		out.Body = MessagePartBody{AttachmentID: attachmentID(msgID, id), Size: len(p.body)}
	default:
		out.Body = MessagePartBody{Size: len(p.body)}
		if len(p.body) > 0 {
			out.Body.Data = encodeRaw(p.body)
		}
	}
	return out
}
