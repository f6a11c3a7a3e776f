package gmail

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/mail"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pomehq/pome/twins"
)

// Seed is the Gmail seed document (see the package documentation).
type Seed struct {
	Mailboxes []SeedMailbox `json:"mailboxes"`

	// What only the original Pome's format (seed_original.go) gives.
	original     bool
	clock        *time.Time
	deliveryMode string
	faults       []*Fault
}

// SeedMailbox is one mailbox; the first is the authenticated user.
type SeedMailbox struct {
	Address  string        `json:"address"`
	Name     string        `json:"name,omitempty"`
	Labels   []SeedLabel   `json:"labels,omitempty"`
	Messages []SeedMessage `json:"messages,omitempty"`
	Drafts   []SeedDraft   `json:"drafts,omitempty"`
	// Settings, in Gmail's resource shapes (as in the original's format).
	Filters             []*Filter            `json:"filters,omitempty"`
	ForwardingAddresses []*ForwardingAddress `json:"forwardingAddresses,omitempty"`
	SendAs              []*SendAs            `json:"sendAs,omitempty"`
}

// SeedLabel is a user label.
type SeedLabel struct {
	Name                  string      `json:"name"`
	Color                 *LabelColor `json:"color,omitempty"`
	MessageListVisibility string      `json:"messageListVisibility,omitempty"`
	LabelListVisibility   string      `json:"labelListVisibility,omitempty"`

	id string // pinned by an original-format seed
}

// SeedMessage is a message given either as raw RFC 2822 text or as fields.
type SeedMessage struct {
	ID          string           `json:"id,omitempty"`
	Thread      string           `json:"thread,omitempty"`
	Raw         string           `json:"raw,omitempty"`
	From        string           `json:"from,omitempty"`
	To          []string         `json:"to,omitempty"`
	Cc          []string         `json:"cc,omitempty"`
	Bcc         []string         `json:"bcc,omitempty"`
	Subject     string           `json:"subject,omitempty"`
	Text        string           `json:"text,omitempty"`
	HTML        string           `json:"html,omitempty"`
	Date        string           `json:"date,omitempty"`
	Labels      []string         `json:"labels,omitempty"`
	Attachments []SeedAttachment `json:"attachments,omitempty"`

	headers seedHeaders
}

// seedHeaders are what an original-format seed pins of a message: its
// thread id and threading headers.
type seedHeaders struct {
	threadID   string
	messageID  string
	inReplyTo  string
	references []string
}

// SeedDraft is a draft of the mailbox's owner.
type SeedDraft struct {
	Thread      string           `json:"thread,omitempty"`
	To          []string         `json:"to,omitempty"`
	Cc          []string         `json:"cc,omitempty"`
	Bcc         []string         `json:"bcc,omitempty"`
	Subject     string           `json:"subject,omitempty"`
	Text        string           `json:"text,omitempty"`
	HTML        string           `json:"html,omitempty"`
	Date        string           `json:"date,omitempty"`
	Attachments []SeedAttachment `json:"attachments,omitempty"`

	id      string // draft id pinned by an original-format seed
	from    string
	headers seedHeaders
}

// SeedAttachment is a file attached to a seeded message: text content, or
// base64 data for binary files.
type SeedAttachment struct {
	Filename string `json:"filename"`
	MimeType string `json:"mimeType,omitempty"`
	Text     string `json:"text,omitempty"`
	Data     string `json:"data,omitempty"`

	inline    bool
	contentID string
}

// DefaultSeed is the default world of SPEC §9: the agent's mailbox with two
// inbox messages, one of them alice asking for a receipt.
var DefaultSeed = Seed{Mailboxes: []SeedMailbox{{
	Address: "pome-agent@acme.test",
	Name:    "Pome Agent",
	Messages: []SeedMessage{
		{
			From:    "Bob Builder <bob@acme.test>",
			To:      []string{"pome-agent@acme.test"},
			Subject: "Team lunch on Friday",
			Text:    "Hi,\n\nWe are booking a table for the team lunch on Friday at 12:30. Reply if you can make it.\n\nBob",
			Labels:  []string{"INBOX"},
		},
		{
			From:    "Alice Example <alice@example.com>",
			To:      []string{"pome-agent@acme.test"},
			Subject: "Receipt for order #1042",
			Text:    "Hello,\n\nCould you please send me the receipt for my order #1042? I need it for my expense report.\n\nThanks,\nAlice",
			Labels:  []string{"INBOX", "UNREAD"},
		},
	},
}}}

var hexID = regexp.MustCompile(`^[0-9a-f]{16}$`)

// reservedNames are label names Gmail refuses for user labels.
var reservedNames = append(slices.Clone(systemLabels), "CHATS", "DRAFTS", "MUTED", "OUTBOX", "SCHEDULED", "SNOOZED", "ALL MAIL", "BIN", "STARRED")

// build constructs the world from a seed (nil: the default world), in our
// format or in the original Pome's (seed_original.go).
func build(ctx context.Context, raw json.RawMessage) (*World, error) {
	seed := DefaultSeed
	if raw != nil {
		orig, isOrig, err := decodeOriginal(raw)
		switch {
		case err != nil:
			return nil, err
		case isOrig:
			seed = *orig
		default:
			seed = Seed{}
			if err := twins.DecodeSeed(raw, &seed); err != nil {
				return nil, err
			}
		}
	}
	if len(seed.Mailboxes) == 0 {
		return nil, twins.SeedErrorf("/mailboxes", "at least one mailbox is required (the first is the authenticated user)")
	}
	w := &World{DeliveryMode: seed.deliveryMode, Faults: seed.faults}
	if seed.clock != nil {
		w.ClockOffsetMS = seed.clock.Sub(w.now(ctx)).Milliseconds()
	}
	t0 := w.now(ctx)
	// Pass 1: mailboxes and labels, so that messages may be delivered to and
	// reference any of them.
	for i, sm := range seed.Mailboxes {
		p := func(segs ...any) string { return seed.pointer(i, segs...) }
		a, err := mail.ParseAddress(sm.Address)
		if err != nil || a.Address != sm.Address {
			return nil, twins.SeedErrorf(p(seed.addressKey()), "%q is not a plain email address", sm.Address)
		}
		if w.byAddress(sm.Address) != nil {
			return nil, twins.SeedErrorf(p(seed.addressKey()), "mailbox %q is listed twice", sm.Address)
		}
		// The message index is kept from the start: each id minted below
		// is checked against the messages stored so far.
		mb := &Mailbox{Address: sm.Address, DisplayName: noLineBreaks(sm.Name), HistoryID: 1000, Labels: newSystemLabels(), Messages: []*Message{}, Drafts: []*Draft{}, History: []*HistoryRecord{},
			byID: map[string]*Message{}, byThread: map[string][]*Message{}, byHeaderID: map[string][]*Message{}}
		pinned := map[string]bool{}
		for j, sl := range sm.Labels {
			if sl.id == "" {
				continue
			}
			if !seedIDPattern.MatchString(sl.id) {
				return nil, twins.SeedErrorf(p("labels", j, "id"), "label id %q must be 1 to 128 letters, digits, _ or -", sl.id)
			}
			if mb.label(sl.id) != nil || pinned[sl.id] {
				return nil, twins.SeedErrorf(p("labels", j, "id"), "label id %q is already taken", sl.id)
			}
			pinned[sl.id] = true
		}
		for j, sl := range sm.Labels {
			if err := validLabelName(sl.Name); err != nil {
				return nil, twins.SeedErrorf(p("labels", j, "name"), "%s", err.(*twins.Error).Message)
			}
			if mb.labelByName(sl.Name) != nil {
				return nil, twins.SeedErrorf(p("labels", j, "name"), "label %q is defined twice", sl.Name)
			}
			if err := validVisibility(sl.MessageListVisibility, sl.LabelListVisibility); err != nil {
				return nil, twins.SeedErrorf(p("labels", j), "%s", err.(*twins.Error).Message)
			}
			id := sl.id
			for id == "" || (sl.id == "" && pinned[id]) {
				id = mb.newLabelID()
			}
			mb.Labels = append(mb.Labels, &Label{
				ID: id, Name: sl.Name, Type: "user",
				MessageListVisibility: orDefault(sl.MessageListVisibility, "show"),
				LabelListVisibility:   orDefault(sl.LabelListVisibility, "labelShow"), Color: sl.Color,
			})
		}
		if err := seedFilters(mb, sm.Filters, p); err != nil {
			return nil, err
		}
		if err := seedSettings(mb, sm.ForwardingAddresses, sm.SendAs, p); err != nil {
			return nil, err
		}
		w.Mailboxes = append(w.Mailboxes, mb)
	}
	// Pass 2: explicit message ids first, so generated ids avoid them. Ours
	// are Gmail's 16 hex digits, unique in the sandbox; the original's are
	// any seed id (msg_support), unique in their mailbox.
	explicit := map[string]string{}
	taken := map[string]bool{}
	for i, sm := range seed.Mailboxes {
		pin := func(id, path string) error {
			key := id
			if seed.original {
				key = strconv.Itoa(i) + "/" + id
			}
			if prev, dup := explicit[key]; dup {
				return twins.SeedErrorf(path, "id %q is already used at %s", id, prev)
			}
			explicit[key] = path
			taken[id] = true
			return nil
		}
		for j, m := range sm.Messages {
			if m.ID == "" {
				continue
			}
			path := seed.pointer(i, "messages", j, "id")
			switch {
			case seed.original && !seedIDPattern.MatchString(m.ID):
				return nil, twins.SeedErrorf(path, "message id %q must be 1 to 128 letters, digits, _ or -", m.ID)
			case !seed.original && !hexID.MatchString(m.ID):
				return nil, twins.SeedErrorf(path, "message id %q must be 16 lower-case hex digits, like Gmail's", m.ID)
			}
			if err := pin(m.ID, path); err != nil {
				return nil, err
			}
		}
		for j, d := range sm.Drafts {
			if d.id == "" {
				continue
			}
			path := seed.pointer(i, "drafts", j, "id")
			if !seedIDPattern.MatchString(d.id) || len(d.id) > 120 {
				return nil, twins.SeedErrorf(path, "draft id %q must be 1 to 120 letters, digits, _ or -", d.id)
			}
			if err := pin(d.id+"_message", path); err != nil {
				return nil, err
			}
			for k, o := range sm.Drafts[:j] {
				if o.id == d.id {
					return nil, twins.SeedErrorf(path, "draft id %q is already used at %s", d.id, seed.pointer(i, "drafts", k, "id"))
				}
			}
		}
	}
	mint := func() string {
		id := w.newMessageID()
		for taken[id] {
			id = w.newMessageID()
		}
		return id
	}
	for i, sm := range seed.Mailboxes {
		mb := w.Mailboxes[i]
		threads := map[string]string{} // seed thread key → thread id
		n := len(sm.Messages) + len(sm.Drafts)
		for j, s := range sm.Messages {
			p := func(segs ...any) string { return seed.pointer(i, append([]any{"messages", j}, segs...)...) }
			id := s.ID
			if id == "" {
				id = mint()
			}
			date, err := seedDate(s.Date, t0.Add(-time.Duration(n-j)*time.Hour), p("date"))
			if err != nil {
				return nil, err
			}
			labels, err := seedLabels(mb, s.Labels, func(k int) string { return p("labels", k) })
			if err != nil {
				return nil, err
			}
			m := &Message{ID: id, InternalDate: date.UnixMilli()}
			var rawBytes []byte
			if s.Raw != "" {
				if s.From != "" || s.To != nil || s.Cc != nil || s.Bcc != nil || s.Subject != "" || s.Text != "" || s.HTML != "" || s.Attachments != nil || s.headers.hasHeaders() {
					return nil, twins.SeedErrorf(p("raw"), "a message is either raw or fields (from, to, subject, text, …), not both")
				}
				rawBytes = []byte(crlf(s.Raw))
			} else {
				from := s.From
				if from == "" {
					if !slices.Contains(labels, "SENT") {
						return nil, twins.SeedErrorf(p("from"), "from is required for a message the mailbox received")
					}
					from = ownFrom(mb)
				}
				if _, err := mail.ParseAddress(from); err != nil {
					return nil, twins.SeedErrorf(p("from"), "%q is not an address: %v", from, err)
				}
				to := s.To
				if to == nil && !slices.Contains(labels, "SENT") {
					to = []string{mb.Address}
				}
				if err := seedAddresses(to, s.Cc, s.Bcc, p); err != nil {
					return nil, err
				}
				atts, err := seedAttachments(s.Attachments, func(k int, f string) string { return p("attachments", k, f) })
				if err != nil {
					return nil, err
				}
				c := composed{
					From: from, To: to, Cc: s.Cc, Bcc: s.Bcc, Subject: s.Subject, Text: s.Text, HTML: s.HTML,
					Date: date, MessageID: "<" + id + "@mail.gmail.com>", Attachments: atts, Boundary: id,
				}
				if key := s.Thread; key != "" {
					if prev := lastOfThread(mb, threads[key]); prev != nil {
						c.InReplyTo = prev.MessageIDHdr
						c.References = strings.TrimSpace(strings.Join(prev.References, " ") + " " + prev.MessageIDHdr)
					}
				}
				if err := s.headers.apply(&c, p); err != nil {
					return nil, err
				}
				rawBytes = c.build()
			}
			if _, err := fillDerived(m, rawBytes); err != nil {
				return nil, twins.SeedErrorf(p("raw"), "%s", twins.AsError(err).Message)
			}
			m.ThreadID = id
			switch {
			case s.headers.threadID != "":
				if !seedIDPattern.MatchString(s.headers.threadID) {
					return nil, twins.SeedErrorf(p("threadId"), "thread id %q must be 1 to 128 letters, digits, _ or -", s.headers.threadID)
				}
				m.ThreadID = s.headers.threadID
			case s.Thread != "":
				if tid, ok := threads[s.Thread]; ok {
					m.ThreadID = tid
				} else {
					threads[s.Thread] = id
				}
			case seed.original:
				m.ThreadID = orDefault(mb.threadByHeaders(m), id)
			}
			m.LabelIDs = labels
			m.HistoryID = mb.bump()
			mb.Messages = append(mb.Messages, m)
			mb.index(m)
		}
		for j, s := range sm.Drafts {
			p := func(segs ...any) string { return seed.pointer(i, append([]any{"drafts", j}, segs...)...) }
			date, err := seedDate(s.Date, t0.Add(-time.Duration(len(sm.Drafts)-j)*time.Minute), p("date"))
			if err != nil {
				return nil, err
			}
			if err := seedAddresses(s.To, s.Cc, s.Bcc, p); err != nil {
				return nil, err
			}
			atts, err := seedAttachments(s.Attachments, func(k int, f string) string { return p("attachments", k, f) })
			if err != nil {
				return nil, err
			}
			id := s.id + "_message"
			if s.id == "" {
				id = mint()
			}
			from := ownFrom(mb)
			if s.from != "" {
				if _, err := mail.ParseAddress(s.from); err != nil {
					return nil, twins.SeedErrorf(p("from"), "%q is not an address: %v", s.from, err)
				}
				from = s.from
			}
			c := composed{From: from, To: s.To, Cc: s.Cc, Bcc: s.Bcc, Subject: s.Subject, Text: s.Text, HTML: s.HTML, Date: date, Attachments: atts, Boundary: id}
			threadID := id
			switch {
			case s.headers.threadID != "":
				if !seedIDPattern.MatchString(s.headers.threadID) {
					return nil, twins.SeedErrorf(p("threadId"), "thread id %q must be 1 to 128 letters, digits, _ or -", s.headers.threadID)
				}
				threadID = s.headers.threadID
			case s.Thread != "":
				tid, ok := threads[s.Thread]
				if !ok {
					return nil, twins.SeedErrorf(p("thread"), "no message of this mailbox is in thread %q", s.Thread)
				}
				threadID = tid
				if prev := lastOfThread(mb, tid); prev != nil {
					c.InReplyTo = prev.MessageIDHdr
					c.References = strings.TrimSpace(strings.Join(prev.References, " ") + " " + prev.MessageIDHdr)
				}
			}
			if err := s.headers.apply(&c, p); err != nil {
				return nil, err
			}
			m := &Message{ID: id, ThreadID: threadID, InternalDate: date.UnixMilli(), LabelIDs: []string{"DRAFT"}}
			if _, err := fillDerived(m, c.build()); err != nil {
				return nil, twins.SeedErrorf(p(), "%s", twins.AsError(err).Message)
			}
			m.HistoryID = mb.bump()
			mb.Messages = append(mb.Messages, m)
			mb.index(m)
			draftID := s.id
			if draftID == "" {
				draftID = w.newDraftID()
			}
			mb.Drafts = append(mb.Drafts, &Draft{ID: draftID, MessageID: id})
		}
	}
	return w, nil
}

// seedIDPattern is what an original-format seed may pin as an id.
var seedIDPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,128}$`)

func seedDate(s string, def time.Time, path string) (time.Time, error) {
	if s == "" {
		return def, nil
	}
	d, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, twins.SeedErrorf(path, "date must be RFC 3339: %v", err)
	}
	return d.UTC().Truncate(time.Millisecond), nil
}

func seedAddresses(to, cc, bcc []string, p func(segs ...any) string) error {
	for _, f := range []struct {
		name string
		list []string
	}{{"to", to}, {"cc", cc}, {"bcc", bcc}} {
		for k, a := range f.list {
			if _, err := mail.ParseAddress(a); err != nil || strings.ContainsAny(a, "\r\n") {
				return twins.SeedErrorf(p(f.name, k), "%q is not an address", a)
			}
		}
	}
	return nil
}

func (h seedHeaders) hasHeaders() bool {
	return h.messageID != "" || h.inReplyTo != "" || h.references != nil
}

// apply pins the Message-ID, In-Reply-To and References headers a seed
// gives, in angle brackets as RFC 5322 writes them.
func (h seedHeaders) apply(c *composed, p func(segs ...any) string) error {
	angle := func(v string, key ...any) (string, error) {
		v = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(v), "<"), ">")
		if v == "" || strings.ContainsAny(v, "<> \t\r\n") {
			return "", twins.SeedErrorf(p(key...), "%q is not a message id", v)
		}
		return "<" + v + ">", nil
	}
	var err error
	if h.messageID != "" {
		if c.MessageID, err = angle(h.messageID, "messageId"); err != nil {
			return err
		}
	}
	if h.inReplyTo != "" {
		if c.InReplyTo, err = angle(h.inReplyTo, "inReplyTo"); err != nil {
			return err
		}
	}
	if h.references != nil {
		refs := make([]string, len(h.references))
		for k, r := range h.references {
			if refs[k], err = angle(r, "references", k); err != nil {
				return err
			}
		}
		c.References = strings.Join(refs, " ")
	}
	return nil
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// ownFrom is the From header Gmail writes for the mailbox's owner.
func ownFrom(mb *Mailbox) string {
	return formatAddress(mb.DisplayName, mb.Address)
}

// lastOfThread is the message a reply in the thread answers.
func lastOfThread(mb *Mailbox, threadID string) *Message {
	if threadID == "" {
		return nil
	}
	// A reply answers the newest message that was mailed, never a draft.
	ms := mb.thread(threadID)
	for i := len(ms) - 1; i >= 0; i-- {
		if !ms[i].hasLabel("DRAFT") {
			return ms[i]
		}
	}
	return nil
}

// seedLabels resolves a seeded message's labels: system ids or user label
// names (or ids). No labels means a received inbox message, unread.
func seedLabels(mb *Mailbox, names []string, path func(int) string) ([]string, error) {
	if names == nil {
		return []string{"INBOX", "UNREAD"}, nil
	}
	out := []string{}
	for k, n := range names {
		l := mb.label(n)
		if l == nil {
			l = mb.labelByName(n)
		}
		if l == nil {
			return nil, twins.SeedErrorf(path(k), "label %q is neither a system label nor one of this mailbox's labels", n)
		}
		if l.ID == "DRAFT" {
			return nil, twins.SeedErrorf(path(k), "seed drafts under \"drafts\", not with the DRAFT label")
		}
		if !slices.Contains(out, l.ID) {
			out = append(out, l.ID)
		}
	}
	return out, nil
}

func seedAttachments(in []SeedAttachment, path func(int, string) string) ([]attachment, error) {
	var out []attachment
	for k, a := range in {
		if strings.TrimSpace(a.Filename) == "" {
			return nil, twins.SeedErrorf(path(k, "filename"), "filename is required")
		}
		if a.Text != "" && a.Data != "" {
			return nil, twins.SeedErrorf(path(k, "data"), "give text or data, not both")
		}
		data := []byte(a.Text)
		if a.Data != "" {
			b, err := base64.StdEncoding.DecodeString(a.Data)
			if err != nil {
				if b, err = decodeRaw(a.Data); err != nil {
					return nil, twins.SeedErrorf(path(k, "data"), "data must be base64: %v", err)
				}
			}
			data = b
		}
		mt := a.MimeType
		if mt == "" {
			mt = "application/octet-stream"
			if a.Text != "" {
				mt = "text/plain"
			}
		}
		out = append(out, attachment{Filename: a.Filename, MimeType: mt, Data: data, Inline: a.inline, ContentID: a.contentID})
	}
	return out, nil
}
