package gmail

import (
	"bytes"
	"context"
	"fmt"
	"net/mail"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/pomehq/pome/twins"
)

// rewriteHeaders returns raw with the named headers replaced (or added at
// the top when absent). Values are written without line breaks, so nothing
// we add can open a second header.
func rewriteHeaders(raw []byte, set []header) []byte {
	head, body := splitHead(raw)
	nl := "\r\n"
	if !bytes.Contains(head, []byte("\r\n")) && bytes.Contains(head, []byte("\n")) {
		nl = "\n"
	}
	var kept []string
	skipping := false
	for _, line := range strings.Split(strings.ReplaceAll(string(head), "\r\n", "\n"), "\n") {
		if line == "" {
			continue
		}
		if line[0] == ' ' || line[0] == '\t' {
			if !skipping {
				kept = append(kept, line)
			}
			continue
		}
		name, _, _ := strings.Cut(line, ":")
		skipping = slices.ContainsFunc(set, func(h header) bool { return strings.EqualFold(h.Name, strings.TrimSpace(name)) })
		if !skipping {
			kept = append(kept, line)
		}
	}
	var b bytes.Buffer
	for _, h := range set {
		if h.Value == "" {
			continue
		}
		fmt.Fprintf(&b, "%s: %s%s", h.Name, noLineBreaks(h.Value), nl)
	}
	for _, line := range kept {
		b.WriteString(line + nl)
	}
	b.WriteString(nl)
	b.Write(body)
	return b.Bytes()
}

var subjectPrefix = regexp.MustCompile(`(?i)^\s*((re|fwd?|aw|wg|sv|vs)\s*(\[\d+\])?\s*:\s*)+`)

// normSubject is the subject threads compare: reply and forward prefixes
// dropped, case and spacing ignored.
func normSubject(s string) string {
	s = subjectPrefix.ReplaceAllString(s, "")
	return strings.ToLower(strings.Join(strings.Fields(s), " "))
}

// threadByHeaders finds the thread a received message belongs to, the way
// Gmail threads incoming mail: a message it references (In-Reply-To or
// References) with the same subject.
func (mb *Mailbox) threadByHeaders(m *Message) string {
	refs := append(slices.Clone(m.References), strings.Fields(m.InReplyTo)...)
	if len(refs) == 0 {
		return ""
	}
	subj := normSubject(m.Subject)
	if mb.byHeaderID != nil {
		// The one message referenced with the same subject, found through
		// the index; with more than one, the scan below picks the newest.
		var found *Message
		ambiguous := false
		for _, r := range refs {
			for _, o := range mb.byHeaderID[r] {
				if normSubject(o.Subject) == subj {
					ambiguous = ambiguous || (found != nil && found != o)
					found = o
				}
			}
		}
		if !ambiguous {
			if found == nil {
				return ""
			}
			return found.ThreadID
		}
	}
	for i := len(mb.Messages) - 1; i >= 0; i-- {
		o := mb.Messages[i]
		if o.MessageIDHdr != "" && slices.Contains(refs, o.MessageIDHdr) && normSubject(o.Subject) == subj {
			return o.ThreadID
		}
	}
	return ""
}

// joinThread decides the thread of a message the user sends or inserts
// with a threadId: Gmail keeps it in that thread only when the subjects
// match; otherwise the message starts a thread of its own.
func (mb *Mailbox) joinThread(threadID string, m *Message) (string, error) {
	if threadID == "" {
		return "", nil
	}
	ms := mb.thread(threadID)
	if len(ms) == 0 {
		return "", notFound()
	}
	subj := normSubject(m.Subject)
	for _, o := range ms {
		if normSubject(o.Subject) == subj {
			return threadID, nil
		}
	}
	return "", nil
}

// prepareOutgoing parses a message the user sends and fills in what Gmail
// fills in: From (the user, whatever the client wrote), Date, Message-ID.
// It refuses a message without recipients.
func (w *World) prepareOutgoing(ctx context.Context, mb *Mailbox, raw []byte, id string) (*Message, []byte, error) {
	probe := &Message{}
	pm, err := fillDerived(probe, raw)
	if err != nil {
		return nil, nil, err
	}
	var set []header
	if from := fromAddress(pm.root.header("From")); from != strings.ToLower(mb.Address) && !mb.sendsAs(from) {
		set = append(set, header{"From", ownFrom(mb)})
	}
	t := w.now(ctx)
	if pm.root.header("Date") == "" {
		set = append(set, header{"Date", t.Format(time.RFC1123Z)})
	}
	if pm.root.header("Message-ID") == "" {
		set = append(set, header{"Message-ID", "<" + id + "@mail.gmail.com>"})
	}
	if len(set) > 0 {
		raw = rewriteHeaders(raw, set)
	}
	m := &Message{ID: id, InternalDate: t.UnixMilli()}
	if _, err := fillDerived(m, raw); err != nil {
		return nil, nil, err
	}
	if len(m.To)+len(m.Cc)+len(m.Bcc) == 0 {
		return nil, nil, gerr(twins.Invalid, "invalidArgument", "Recipient address required")
	}
	return m, raw, nil
}

// send stores an outgoing message in the sender's mailbox (SENT, and INBOX
// too when the user wrote to themself) and delivers a copy, without Bcc, to
// every other mailbox of the sandbox it is addressed to. A draft being sent
// (draftMsg) becomes the sent message in place.
func (w *World) send(ctx context.Context, mb *Mailbox, raw []byte, threadID string, draftMsg *Message) (*Message, error) {
	saved := w.NextMessage // a refused send leaves the counter as it was
	id := ""
	if draftMsg != nil {
		id = draftMsg.ID
	} else {
		id = w.newMessageID()
	}
	m, raw, err := w.prepareOutgoing(ctx, mb, raw, id)
	if err != nil {
		w.NextMessage = saved
		return nil, err
	}
	tid, err := mb.joinThread(threadID, m)
	if err != nil {
		w.NextMessage = saved
		return nil, err
	}
	// Validation is over; from here on the world changes.
	self := slices.Contains(append(append(slices.Clone(m.To), m.Cc...), m.Bcc...), strings.ToLower(mb.Address))
	if draftMsg != nil {
		keepThread := draftMsg.ThreadID
		labels := draftMsg.LabelIDs
		// The sent message has a Message-ID header of its own.
		mb.unindexHeaderID(draftMsg)
		*draftMsg = *m
		if mb.byHeaderID != nil {
			mb.indexHeaderID(draftMsg)
		}
		draftMsg.ThreadID = keepThread
		draftMsg.LabelIDs = labels
		add := []string{"SENT"}
		if self {
			add = append(add, "INBOX", "UNREAD")
		}
		mb.relabel(draftMsg, add, []string{"DRAFT"})
		mb.Drafts = slices.DeleteFunc(mb.Drafts, func(d *Draft) bool { return d.MessageID == draftMsg.ID })
		m = draftMsg
	} else {
		m.ThreadID = orDefault(tid, m.ID)
		m.LabelIDs = []string{"SENT"}
		if self {
			m.LabelIDs = []string{"UNREAD", "SENT", "INBOX"}
		}
		mb.addMessage(m)
	}
	w.deliver(ctx, mb, m, raw)
	return m, nil
}

// deliver puts a copy of m into each other sandbox mailbox it is addressed
// to, threaded by that mailbox's own history, and runs that mailbox's
// filters on it. In "sender-only" delivery mode nothing is delivered.
func (w *World) deliver(ctx context.Context, from *Mailbox, m *Message, raw []byte) {
	if w.DeliveryMode == "sender-only" {
		return
	}
	var done []*Mailbox
	stripped := rewriteHeaders(raw, []header{{Name: "Bcc"}})
	for _, addr := range append(append(slices.Clone(m.To), m.Cc...), m.Bcc...) {
		rcpt := w.byAddress(addr)
		if rcpt == nil || rcpt == from || slices.Contains(done, rcpt) {
			continue
		}
		done = append(done, rcpt)
		c := &Message{ID: w.newMessageID(), InternalDate: w.now(ctx).UnixMilli()}
		if _, err := fillDerived(c, stripped); err != nil {
			continue
		}
		c.ThreadID = orDefault(rcpt.threadByHeaders(c), c.ID)
		c.LabelIDs = []string{"UNREAD", "CATEGORY_PERSONAL", "INBOX"}
		rcpt.addMessage(c)
		rcpt.applyFilters(c, w.now(ctx))
	}
}

// receive stores a message given by insert or import.
func (w *World) receive(ctx context.Context, mb *Mailbox, raw []byte, threadID string, labels []string, dateHeader bool) (*Message, error) {
	saved := w.NextMessage
	id := w.newMessageID()
	m := &Message{ID: id, InternalDate: w.now(ctx).UnixMilli()}
	pm, err := fillDerived(m, raw)
	if err != nil {
		w.NextMessage = saved
		return nil, err
	}
	if dateHeader {
		if d, err := mail.ParseDate(pm.root.header("Date")); err == nil {
			m.InternalDate = d.UTC().UnixMilli()
		}
	}
	tid, err := mb.joinThread(threadID, m)
	if err != nil {
		w.NextMessage = saved
		return nil, err
	}
	if tid == "" {
		tid = mb.threadByHeaders(m)
	}
	m.ThreadID = orDefault(tid, m.ID)
	m.LabelIDs = labels
	mb.addMessage(m)
	return m, nil
}
