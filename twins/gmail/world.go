package gmail

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pomehq/pome/twins"
)

// World is the Gmail state of one sandbox: one or more mailboxes. The first
// mailbox is the authenticated user ("me"); the others exist so that mail
// sent inside the sandbox can be delivered and seen arriving.
type World struct {
	Mailboxes []*Mailbox `json:"mailboxes"`
	// NextMessage numbers message ids across the sandbox, so that a copy
	// delivered to a second mailbox never shares an id with the original.
	NextMessage int64 `json:"next_message"`
	// NextDraft numbers draft ids across the sandbox.
	NextDraft int64 `json:"next_draft"`
	// ClockOffsetMS shifts the sandbox clock for this twin: a Gmail seed in
	// the original Pome's format may fix its own clock.
	ClockOffsetMS int64 `json:"clock_offset_ms,omitempty"`
	// DeliveryMode is "seeded-mailboxes" (mail sent to another mailbox of
	// the sandbox is delivered there; "" reads the same) or "sender-only"
	// (it lands in SENT only, the original Pome's default).
	DeliveryMode string `json:"delivery_mode,omitempty"`
	// Faults are the seeded fault injections (fault.go).
	Faults []*Fault `json:"faults,omitempty"`
}

// Mailbox is one user's mail: labels, messages (drafts are messages with
// the DRAFT label, as in Gmail), draft records and the history log.
type Mailbox struct {
	Address     string `json:"address"`
	DisplayName string `json:"display_name"`
	// HistoryID is the mailbox's last history id; every change takes the
	// next one, so a client can ask history.list what changed since.
	HistoryID uint64 `json:"history_id"`
	// NextLabel numbers user labels Label_1, Label_2, …
	NextLabel int              `json:"next_label"`
	Labels    []*Label         `json:"labels"`
	Messages  []*Message       `json:"messages"`
	Drafts    []*Draft         `json:"drafts"`
	History   []*HistoryRecord `json:"history"`
	// Settings (settings.go); NextFilter numbers filter_1, filter_2, …
	NextFilter          int                  `json:"next_filter,omitempty"`
	Filters             []*Filter            `json:"filters,omitempty"`
	ForwardingAddresses []*ForwardingAddress `json:"forwarding_addresses,omitempty"`
	SendAs              []*SendAs            `json:"send_as,omitempty"`

	// byID indexes Messages by id, so finding a message (and checking a
	// new id is free, on every send) does not scan the mailbox. It is not
	// part of the document: World.indexMessages builds it whenever a world
	// is built, decoded or copied, before any action sees the world, and
	// addMessage and removeMessage keep it current. A nil index (a world
	// still being built) means "scan".
	byID map[string]*Message
	// byThread indexes Messages by thread, each thread's in mailbox
	// order, under the same rules as byID: a reply in a thread, or a read
	// of one, does not scan the mailbox.
	byThread map[string][]*Message
	// byHeaderID indexes Messages by their Message-ID header, for a
	// message arriving with In-Reply-To or References (threadByHeaders).
	// A draft's header changes when it is sent (World.send re-indexes it).
	byHeaderID map[string][]*Message
}

// Label is a system or user label as stored; counts are computed on read.
type Label struct {
	ID                    string      `json:"id"`
	Name                  string      `json:"name"`
	Type                  string      `json:"type"`
	MessageListVisibility string      `json:"messageListVisibility,omitempty"`
	LabelListVisibility   string      `json:"labelListVisibility,omitempty"`
	Color                 *LabelColor `json:"color,omitempty"`
}

// Message is a stored message. Raw is the source of truth (base64url of the
// RFC 2822 bytes, exactly what format=raw returns); the header fields beside
// it are parsed once when the message is stored, so that checks and the
// state document read without decoding MIME.
type Message struct {
	ID           string   `json:"id"`
	ThreadID     string   `json:"threadId"`
	LabelIDs     []string `json:"labelIds"`
	InternalDate int64    `json:"internalDate"`
	HistoryID    uint64   `json:"historyId"`
	Raw          string   `json:"raw"`

	From          string   `json:"from"`
	To            []string `json:"to"`
	Cc            []string `json:"cc"`
	Bcc           []string `json:"bcc"`
	Subject       string   `json:"subject"`
	Snippet       string   `json:"snippet"`
	MessageIDHdr  string   `json:"message_id_header,omitempty"`
	InReplyTo     string   `json:"in_reply_to,omitempty"`
	References    []string `json:"references,omitempty"`
	HasAttachment bool     `json:"has_attachment"`
	SizeEstimate  int      `json:"size_estimate"`
}

// Draft links a draft id to its message.
type Draft struct {
	ID        string `json:"id"`
	MessageID string `json:"message_id"`
}

// HistoryRecord is one change of a mailbox, in history.list's terms.
type HistoryRecord struct {
	ID            uint64        `json:"id"`
	MessageAdded  *MessageRef   `json:"message_added,omitempty"`
	MessageDelete *MessageRef   `json:"message_deleted,omitempty"`
	LabelsAdded   *LabelsChange `json:"labels_added,omitempty"`
	LabelsRemoved *LabelsChange `json:"labels_removed,omitempty"`
}

// MessageRef is a message as a history record remembers it.
type MessageRef struct {
	ID       string   `json:"id"`
	ThreadID string   `json:"threadId"`
	LabelIDs []string `json:"labelIds"`
}

// LabelsChange is a label change on one message.
type LabelsChange struct {
	Message  MessageRef `json:"message"`
	LabelIDs []string   `json:"labelIds"`
}

// System label ids, in the order Gmail lists them.
var systemLabels = []string{
	"CHAT", "SENT", "INBOX", "IMPORTANT", "TRASH", "DRAFT", "SPAM",
	"CATEGORY_FORUMS", "CATEGORY_UPDATES", "CATEGORY_PERSONAL", "CATEGORY_PROMOTIONS", "CATEGORY_SOCIAL",
	"STARRED", "UNREAD",
}

func newSystemLabels() []*Label {
	out := make([]*Label, 0, len(systemLabels))
	for _, id := range systemLabels {
		l := &Label{ID: id, Name: id, Type: "system"}
		switch id {
		case "SENT", "INBOX", "DRAFT", "TRASH", "SPAM", "STARRED", "UNREAD", "IMPORTANT", "CHAT":
			l.MessageListVisibility = "hide"
			l.LabelListVisibility = "labelShow"
			if id == "UNREAD" || id == "SPAM" || id == "TRASH" || id == "CHAT" {
				l.LabelListVisibility = "labelHide"
			}
		}
		out = append(out, l)
	}
	return out
}

// idBase makes message ids look like Gmail's: 16 lower-case hex digits. Ids
// come from a sandbox counter, never from the clock, so that a seeded world
// has the same ids in every run.
const idBase = 0x18f0a1b200000000

// draftBase makes draft ids look like Gmail's "r" + a signed decimal.
const draftBase = 5219283746353829000

func (w *World) newMessageID() string {
	for {
		w.NextMessage++
		id := fmt.Sprintf("%016x", uint64(idBase)+uint64(w.NextMessage)*0x1000)
		if !w.messageIDUsed(id) {
			return id
		}
	}
}

// peekMessageID is the id newMessageID will return next, for a message
// whose bytes (its Message-ID header) must be built before it is stored.
func (w *World) peekMessageID() string {
	n := w.NextMessage
	id := w.newMessageID()
	w.NextMessage = n
	return id
}

func (w *World) messageIDUsed(id string) bool {
	for _, mb := range w.Mailboxes {
		if mb.message(id) != nil {
			return true
		}
	}
	return false
}

func (w *World) newDraftID() string {
	w.NextDraft++
	return "r" + strconv.FormatInt(-(draftBase+w.NextDraft), 10)
}

// me is the authenticated user's mailbox.
func (w *World) me() *Mailbox { return w.Mailboxes[0] }

// mailbox resolves a userId path parameter the way Gmail does: "me" or the
// authenticated user's own address; any other user is a delegation Gmail
// refuses.
func (w *World) mailbox(userID string) (*Mailbox, error) {
	if userID == "" || userID == "me" || strings.EqualFold(userID, w.me().Address) {
		return w.me(), nil
	}
	return nil, gerr(twins.Forbidden, "forbidden", "Delegation denied for %s", w.me().Address)
}

// byAddress returns the sandbox mailbox receiving mail for addr.
func (w *World) byAddress(addr string) *Mailbox {
	for _, mb := range w.Mailboxes {
		if strings.EqualFold(mb.Address, addr) {
			return mb
		}
	}
	return nil
}

func (mb *Mailbox) message(id string) *Message {
	if mb.byID != nil {
		return mb.byID[id]
	}
	for _, m := range mb.Messages {
		if m.ID == id {
			return m
		}
	}
	return nil
}

// indexMessages builds every mailbox's message index. The twin's
// constructor, decoder and copier call it on every world they make, before
// any action sees it.
func (w *World) indexMessages() {
	for _, mb := range w.Mailboxes {
		mb.byID = make(map[string]*Message, len(mb.Messages))
		mb.byThread = map[string][]*Message{}
		mb.byHeaderID = map[string][]*Message{}
		for _, m := range mb.Messages {
			mb.index(m)
		}
	}
}

// messageIndex is the place of a message in the mailbox's list, or -1. The
// search starts from the newest message, the one most often looked for
// (a draft just made, a message just sent), and stops at once for an id
// the index does not know.
func (mb *Mailbox) messageIndex(id string) int {
	if mb.byID != nil && mb.byID[id] == nil {
		return -1
	}
	for i := len(mb.Messages) - 1; i >= 0; i-- {
		if mb.Messages[i].ID == id {
			return i
		}
	}
	return -1
}

func (mb *Mailbox) label(id string) *Label {
	for _, l := range mb.Labels {
		if l.ID == id {
			return l
		}
	}
	return nil
}

// labelByName finds a label by name, case-insensitively as Gmail compares
// label names.
func (mb *Mailbox) labelByName(name string) *Label {
	for _, l := range mb.Labels {
		if strings.EqualFold(l.Name, name) {
			return l
		}
	}
	return nil
}

func (mb *Mailbox) draft(id string) *Draft {
	for _, d := range mb.Drafts {
		if d.ID == id {
			return d
		}
	}
	return nil
}

func (mb *Mailbox) draftByMessage(msgID string) *Draft {
	for _, d := range mb.Drafts {
		if d.MessageID == msgID {
			return d
		}
	}
	return nil
}

// thread returns a thread's messages, oldest first.
func (mb *Mailbox) thread(id string) []*Message {
	var out []*Message
	if mb.byThread != nil {
		out = slices.Clone(mb.byThread[id])
	} else {
		for _, m := range mb.Messages {
			if m.ThreadID == id {
				out = append(out, m)
			}
		}
	}
	sortOldestFirst(out)
	return out
}

func sortOldestFirst(ms []*Message) {
	slices.SortStableFunc(ms, func(a, b *Message) int {
		if a.InternalDate != b.InternalDate {
			if a.InternalDate < b.InternalDate {
				return -1
			}
			return 1
		}
		return strings.Compare(a.ID, b.ID)
	})
}

// newestFirst is Gmail's list order.
func newestFirst(ms []*Message) {
	slices.SortStableFunc(ms, func(a, b *Message) int {
		if a.InternalDate != b.InternalDate {
			if a.InternalDate > b.InternalDate {
				return -1
			}
			return 1
		}
		return strings.Compare(b.ID, a.ID)
	})
}

func (m *Message) hasLabel(id string) bool { return slices.Contains(m.LabelIDs, id) }

func (m *Message) ref() MessageRef {
	return MessageRef{ID: m.ID, ThreadID: m.ThreadID, LabelIDs: slices.Clone(m.LabelIDs)}
}

// bump takes the mailbox's next history id.
func (mb *Mailbox) bump() uint64 {
	mb.HistoryID++
	return mb.HistoryID
}

// addMessage stores m and logs messageAdded.
func (mb *Mailbox) addMessage(m *Message) {
	h := mb.bump()
	m.HistoryID = h
	mb.Messages = append(mb.Messages, m)
	if mb.byID != nil {
		mb.index(m)
	}
	ref := m.ref()
	mb.History = append(mb.History, &HistoryRecord{ID: h, MessageAdded: &ref})
}

// index adds m, the mailbox's newest message, to its indexes. A message's
// thread is set before it is stored and never changes after.
func (mb *Mailbox) index(m *Message) {
	mb.byID[m.ID] = m
	mb.byThread[m.ThreadID] = append(mb.byThread[m.ThreadID], m)
	mb.indexHeaderID(m)
}

// indexHeaderID adds m to the Message-ID header index once it has a
// header; a mailbox not indexed yet gets every message in it at once
// (indexMessages), as unindexHeaderID leaves such a mailbox alone.
func (mb *Mailbox) indexHeaderID(m *Message) {
	if mb.byHeaderID == nil || m.MessageIDHdr == "" {
		return
	}
	mb.byHeaderID[m.MessageIDHdr] = append(mb.byHeaderID[m.MessageIDHdr], m)
}

// unindexHeaderID drops m from the Message-ID header index (before its
// header changes, or it goes).
func (mb *Mailbox) unindexHeaderID(m *Message) {
	if mb.byHeaderID == nil || m.MessageIDHdr == "" {
		return
	}
	dropFrom(mb.byHeaderID, m.MessageIDHdr, m)
}

// dropFrom removes m from index[key], and the key once none is left.
func dropFrom(index map[string][]*Message, key string, m *Message) {
	if rest := slices.DeleteFunc(index[key], func(x *Message) bool { return x == m }); len(rest) > 0 {
		index[key] = rest
	} else {
		delete(index, key)
	}
}

// removeMessage deletes a message for good and logs messageDeleted.
func (mb *Mailbox) removeMessage(id string) {
	i := mb.messageIndex(id)
	if i < 0 {
		return
	}
	m := mb.Messages[i]
	mb.Messages = slices.Delete(mb.Messages, i, i+1)
	if mb.byID != nil {
		delete(mb.byID, id)
		dropFrom(mb.byThread, m.ThreadID, m)
		mb.unindexHeaderID(m)
	}
	h := mb.bump()
	ref := m.ref()
	mb.History = append(mb.History, &HistoryRecord{ID: h, MessageDelete: &ref})
	if d := mb.draftByMessage(id); d != nil {
		mb.Drafts = slices.DeleteFunc(mb.Drafts, func(x *Draft) bool { return x == d })
	}
}

// relabel applies label changes to m, logging one record per direction; it
// reports whether anything changed.
func (mb *Mailbox) relabel(m *Message, add, remove []string) bool {
	var added, removed []string
	for _, id := range add {
		if !m.hasLabel(id) && !slices.Contains(added, id) {
			added = append(added, id)
		}
	}
	for _, id := range remove {
		if m.hasLabel(id) && !slices.Contains(removed, id) && !slices.Contains(added, id) {
			removed = append(removed, id)
		}
	}
	if len(added) == 0 && len(removed) == 0 {
		return false
	}
	m.LabelIDs = append(m.LabelIDs, added...)
	m.LabelIDs = slices.DeleteFunc(m.LabelIDs, func(id string) bool { return slices.Contains(removed, id) })
	h := mb.bump()
	m.HistoryID = h
	if len(added) > 0 {
		mb.History = append(mb.History, &HistoryRecord{ID: h, LabelsAdded: &LabelsChange{Message: m.ref(), LabelIDs: added}})
	}
	if len(removed) > 0 {
		rec := &HistoryRecord{ID: h, LabelsRemoved: &LabelsChange{Message: m.ref(), LabelIDs: removed}}
		if len(added) > 0 {
			// Gmail gives each change its own history id.
			h = mb.bump()
			m.HistoryID = h
			rec.ID = h
		}
		mb.History = append(mb.History, rec)
	}
	return true
}

// now is the sandbox clock in Gmail's millisecond resolution, shifted by
// the seed's own clock when it has one.
func (w *World) now(ctx context.Context) time.Time {
	t := twins.EnvFrom(ctx).Now().UTC().Truncate(time.Millisecond)
	return t.Add(time.Duration(w.ClockOffsetMS) * time.Millisecond)
}

// newLabelID mints the next Label_N that no label of the mailbox has (a
// seed may pin ids of its own, Label_1 among them).
func (mb *Mailbox) newLabelID() string {
	for {
		mb.NextLabel++
		id := fmt.Sprintf("Label_%d", mb.NextLabel)
		if mb.label(id) == nil {
			return id
		}
	}
}
