package gmail

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"

	"github.com/pomehq/pome/twins"
)

// The original Pome's Gmail seed format, which NewWorld loads beside ours:
//
//	{
//	  "_meta": {…},                                // the seed compiler's notes; ignored
//	  "primaryMailbox": {                          // required: the authenticated user
//	    "email": "pome-agent@acme.test", "displayName": "Pome Agent",
//	    "labels": [{"id": "Label_follow_up", "name": "Follow Up",   // id optional (Label_N)
//	                "color": {"textColor": "#000000", "backgroundColor": "#ffffff"}}],
//	    "messages": [{"id": "msg_support",          // ids as given (letters, digits, _ -)
//	                  "threadId": "thread_support", // as given; else by References, else its own id
//	                  "from": "alice@example.com",  // default: the mailbox
//	                  "to": [], "cc": [], "bcc": [], "subject": "…", "text": "…", "html": "…",
//	                  "date": "2026-07-19T12:00:00Z",
//	                  "messageId": "support-001@example.com", "inReplyTo": "…", "references": ["…"],
//	                  "labels": ["INBOX", "UNREAD", "Follow Up"],  // ids or names; default none
//	                  "attachments": [{"filename": "a.txt", "mimeType": "text/plain",
//	                                   "disposition": "attachment", "contentId": "…", "data": "<base64>"}],
//	                  "raw": "…"}],                // instead of the fields: RFC 2822 text or base64url
//	    "drafts": [{"id": "draft_ack", …}],         // the message fields, no labels; its message is draft_ack_message
//	    "filters": [{"id": "…", "criteria": {"from", "to", "subject", "query", "negatedQuery",
//	                 "hasAttachment", "excludeChats", "size", "sizeComparison"},
//	                 "action": {"addLabelIds": [], "removeLabelIds": []}}],
//	    "forwardingAddresses": [{"forwardingEmail": "…", "verificationStatus": "pending"}],
//	    "sendAs": [{"sendAsEmail": "…", "displayName": "…", "replyToAddress": "…",
//	                "isPrimary": false, "isDefault": false, "verificationStatus": "accepted"}]
//	  },
//	  "mailboxes": [{…}],                          // further mailboxes, same shape
//	  "deliveryMode": "sender-only",                // or "seeded-mailboxes": deliver to them
//	  "clock": "2026-07-20T00:00:00Z",              // this twin's clock
//	  "faults": [{"name": "rate-limited", "target": "messages.send",
//	              "succeedFirst": 2, "throttleFor": 3, "retryAfterSeconds": 1}]
//	}
//
// Strictness is ours: a key neither format defines is refused, naming its
// path.
type originalSeed struct {
	Meta           json.RawMessage   `json:"_meta,omitempty"`
	PrimaryMailbox *originalMailbox  `json:"primaryMailbox"`
	Mailboxes      []originalMailbox `json:"mailboxes,omitempty"`
	DeliveryMode   string            `json:"deliveryMode,omitempty"`
	Clock          string            `json:"clock,omitempty"`
	Faults         []SeedFault       `json:"faults,omitempty"`
}

type originalMailbox struct {
	Email               string               `json:"email"`
	DisplayName         string               `json:"displayName,omitempty"`
	Labels              []originalLabel      `json:"labels,omitempty"`
	Messages            []originalMessage    `json:"messages,omitempty"`
	Drafts              []originalDraft      `json:"drafts,omitempty"`
	Filters             []*Filter            `json:"filters,omitempty"`
	ForwardingAddresses []*ForwardingAddress `json:"forwardingAddresses,omitempty"`
	SendAs              []*SendAs            `json:"sendAs,omitempty"`
}

type originalLabel struct {
	ID    string      `json:"id,omitempty"`
	Name  string      `json:"name"`
	Color *LabelColor `json:"color,omitempty"`
}

// originalFields are the fields a message and a draft share.
type originalFields struct {
	ID          string               `json:"id,omitempty"`
	ThreadID    string               `json:"threadId,omitempty"`
	Raw         string               `json:"raw,omitempty"`
	From        string               `json:"from,omitempty"`
	To          []string             `json:"to,omitempty"`
	Cc          []string             `json:"cc,omitempty"`
	Bcc         []string             `json:"bcc,omitempty"`
	Subject     string               `json:"subject,omitempty"`
	Text        string               `json:"text,omitempty"`
	HTML        string               `json:"html,omitempty"`
	Date        string               `json:"date,omitempty"`
	MessageID   string               `json:"messageId,omitempty"`
	InReplyTo   string               `json:"inReplyTo,omitempty"`
	References  []string             `json:"references,omitempty"`
	Attachments []originalAttachment `json:"attachments,omitempty"`
}

type originalMessage struct {
	originalFields
	Labels []string `json:"labels,omitempty"`
}

type originalDraft struct {
	originalFields
}

type originalAttachment struct {
	Filename    string `json:"filename"`
	MimeType    string `json:"mimeType,omitempty"`
	Disposition string `json:"disposition,omitempty"`
	ContentID   string `json:"contentId,omitempty"`
	Data        string `json:"data"`
}

// originalOnly are top-level keys only the original's format has; a seed
// with any of them is read in that format.
var originalOnly = []string{"primaryMailbox", "deliveryMode", "clock", "faults", "_meta"}

// decodeOriginal reads raw in the original's format when it is one.
func decodeOriginal(raw json.RawMessage) (*Seed, bool, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		return nil, false, nil // our decoder names the fault
	}
	isOrig := false
	for _, k := range originalOnly {
		if _, ok := top[k]; ok {
			isOrig = true
		}
	}
	if !isOrig {
		return nil, false, nil
	}
	var o originalSeed
	if err := twins.DecodeSeed(raw, &o); err != nil {
		return nil, true, err
	}
	if len(bytes.TrimSpace(o.Meta)) > 0 && !bytes.HasPrefix(bytes.TrimSpace(o.Meta), []byte("{")) && string(bytes.TrimSpace(o.Meta)) != "null" {
		return nil, true, twins.SeedErrorf("/_meta", "expected an object")
	}
	if o.PrimaryMailbox == nil {
		return nil, true, twins.SeedErrorf("/primaryMailbox", "primaryMailbox is required (the authenticated user's mailbox)")
	}
	s := &Seed{original: true, deliveryMode: "sender-only"}
	switch o.DeliveryMode {
	case "", "sender-only":
	case "seeded-mailboxes":
		s.deliveryMode = o.DeliveryMode
	default:
		return nil, true, twins.SeedErrorf("/deliveryMode", "deliveryMode must be sender-only or seeded-mailboxes, got %q", o.DeliveryMode)
	}
	if o.Clock != "" {
		t, err := time.Parse(time.RFC3339, o.Clock)
		if err != nil {
			return nil, true, twins.SeedErrorf("/clock", "clock must be an RFC 3339 timestamp: %v", err)
		}
		t = t.UTC().Truncate(time.Millisecond)
		s.clock = &t
	}
	faults, err := seedFaults(o.Faults)
	if err != nil {
		return nil, true, err
	}
	s.faults = faults
	for i, om := range append([]originalMailbox{*o.PrimaryMailbox}, o.Mailboxes...) {
		mb, err := om.convert(func(segs ...any) string { return s.pointer(i, segs...) })
		if err != nil {
			return nil, true, err
		}
		s.Mailboxes = append(s.Mailboxes, mb)
	}
	return s, true, nil
}

// pointer is the JSON pointer of something in the i-th mailbox as the seed
// wrote it.
func (s *Seed) pointer(i int, segs ...any) string {
	switch {
	case !s.original:
		return twins.Pointer(append([]any{"mailboxes", i}, segs...)...)
	case i == 0:
		return twins.Pointer(append([]any{"primaryMailbox"}, segs...)...)
	}
	return twins.Pointer(append([]any{"mailboxes", i - 1}, segs...)...)
}

// addressKey is the key of a mailbox's address in the seed's format.
func (s *Seed) addressKey() string {
	if s.original {
		return "email"
	}
	return "address"
}

func (om originalMailbox) convert(p func(segs ...any) string) (SeedMailbox, error) {
	addr := strings.ToLower(strings.TrimSpace(om.Email))
	mb := SeedMailbox{Address: addr, Name: om.DisplayName, Filters: om.Filters, ForwardingAddresses: om.ForwardingAddresses, SendAs: om.SendAs}
	for _, l := range om.Labels {
		mb.Labels = append(mb.Labels, SeedLabel{Name: strings.TrimSpace(l.Name), Color: l.Color, id: l.ID})
	}
	for j, m := range om.Messages {
		f, err := m.originalFields.fields(addr, func(segs ...any) string { return p(append([]any{"messages", j}, segs...)...) })
		if err != nil {
			return mb, err
		}
		// A message with no labels is in no label, as the original seeds it.
		f.Labels = append([]string{}, m.Labels...)
		mb.Messages = append(mb.Messages, f)
	}
	for j, d := range om.Drafts {
		f, err := d.originalFields.fields(addr, func(segs ...any) string { return p(append([]any{"drafts", j}, segs...)...) })
		if err != nil {
			return mb, err
		}
		mb.Drafts = append(mb.Drafts, SeedDraft{
			To: f.To, Cc: f.Cc, Bcc: f.Bcc, Subject: f.Subject, Text: f.Text, HTML: f.HTML, Date: f.Date,
			Attachments: f.Attachments, id: d.ID, from: d.From, headers: f.headers,
		})
		if d.Raw != "" {
			return mb, twins.SeedErrorf(p("drafts", j, "raw"), "a raw draft is not supported; give its fields")
		}
	}
	return mb, nil
}

// fields turns the original's message fields into ours: the sender
// defaults to the mailbox, nobody is added as a recipient, and a raw
// message may be base64url as well as text.
func (f originalFields) fields(mailbox string, p func(segs ...any) string) (SeedMessage, error) {
	m := SeedMessage{
		ID: f.ID, From: f.From, To: f.To, Cc: f.Cc, Bcc: f.Bcc, Subject: f.Subject, Text: f.Text, HTML: f.HTML, Date: f.Date,
		headers: seedHeaders{threadID: f.ThreadID, messageID: f.MessageID, inReplyTo: f.InReplyTo, references: f.References},
	}
	if f.Raw != "" {
		m.Raw = f.Raw
		if !strings.Contains(f.Raw, "\n") {
			b, err := decodeRaw(f.Raw)
			if err != nil {
				return m, twins.SeedErrorf(p("raw"), "raw must be RFC 2822 text or base64url: %v", err)
			}
			m.Raw = string(b)
		}
		return m, nil
	}
	if m.From == "" {
		m.From = mailbox
	}
	if m.To == nil {
		m.To = []string{}
	}
	for k, a := range f.Attachments {
		at := SeedAttachment{Filename: a.Filename, MimeType: a.MimeType, Data: a.Data, contentID: a.ContentID}
		switch a.Disposition {
		case "", "attachment":
		case "inline":
			at.inline = true
		default:
			return m, twins.SeedErrorf(p("attachments", k, "disposition"), "disposition must be attachment or inline, got %q", a.Disposition)
		}
		m.Attachments = append(m.Attachments, at)
	}
	return m, nil
}
