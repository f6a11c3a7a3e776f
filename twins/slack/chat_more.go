package slack

import (
	"context"
	"slices"
	"sort"
	"strings"

	"github.com/pomehq/pome/twins"
)

// maxScheduleAhead is how far ahead Slack lets a message be scheduled.
const maxScheduleAhead = 120 * 24 * 3600

// EphemeralMessage is a message shown to one user only; the twin keeps it
// so that checks can see what the agent showed.
type EphemeralMessage struct {
	ChannelID string  `json:"channel_id"`
	ForUser   string  `json:"for_user"`
	Message   Message `json:"message"`
}

// UpdateMessageIn is chat.update's input.
type UpdateMessageIn struct {
	ChannelID   string `json:"channel_id" jsonschema:"Channel id of the message"`
	TS          string `json:"ts" jsonschema:"ts of the message to edit"`
	Message     string `json:"message,omitempty" jsonschema:"New text"`
	Blocks      any    `json:"blocks,omitempty" jsonschema:"New Block Kit blocks (JSON array or its string)"`
	Attachments any    `json:"attachments,omitempty" jsonschema:"New attachments (JSON array or its string)"`
}

// UpdateMessageOut is chat.update's response.
type UpdateMessageOut struct {
	OK      bool    `json:"ok"`
	Channel string  `json:"channel"`
	TS      string  `json:"ts"`
	Text    string  `json:"text"`
	Message Message `json:"message"`
}

// ownMessage resolves a message the token's user may edit or delete.
func (w *World) ownMessage(channel, ts string, deny string) (*Channel, *Message, error) {
	ch, err := w.readable(channel)
	if err != nil {
		return nil, nil, err
	}
	m := ch.message(ts)
	if m == nil || m.Subtype == "tombstone" {
		return nil, nil, errMessageNotFound(ts)
	}
	if m.User != w.AuthUser {
		return nil, nil, twins.Errorf(twins.Forbidden, deny, "Message %s was not posted by the token's user, so it cannot be changed.", ts)
	}
	if ch.IsArchived {
		return nil, nil, errIsArchived(ch)
	}
	return ch, m, nil
}

func updateMessage(ctx context.Context, w *World, in UpdateMessageIn) (UpdateMessageOut, error) {
	ch, m, err := w.ownMessage(in.ChannelID, in.TS, "cant_update_message")
	if err != nil {
		return UpdateMessageOut{}, err
	}
	c, err := parseContent(in.Message, in.Blocks, in.Attachments)
	if err != nil {
		return UpdateMessageOut{}, err
	}
	// chat.update keeps blocks or attachments that are not passed again
	// only when text alone changes; Slack clears them when new ones come.
	ch.setText(m, c.text)
	if c.blocks != nil || in.Blocks != nil {
		m.Blocks = c.blocks
	}
	if c.attachments != nil || in.Attachments != nil {
		m.Attachments = c.attachments
	}
	m.Edited = &Edited{User: w.AuthUser, TS: w.nextTS(ctx, nil)}
	return UpdateMessageOut{OK: true, Channel: ch.ID, TS: m.TS, Text: m.Text, Message: w.view(m)}, nil
}

// DeleteMessageIn is chat.delete's input.
type DeleteMessageIn struct {
	ChannelID string `json:"channel_id" jsonschema:"Channel id of the message"`
	TS        string `json:"ts" jsonschema:"ts of the message to delete"`
}

// DeleteMessageOut is chat.delete's response.
type DeleteMessageOut struct {
	OK      bool   `json:"ok"`
	Channel string `json:"channel"`
	TS      string `json:"ts"`
}

func deleteMessage(ctx context.Context, w *World, in DeleteMessageIn) (DeleteMessageOut, error) {
	ch, m, err := w.ownMessage(in.ChannelID, in.TS, "cant_delete_message")
	if err != nil {
		return DeleteMessageOut{}, err
	}
	for i, p := range ch.Pins {
		if p.TS == m.TS {
			ch.Pins = append(ch.Pins[:i], ch.Pins[i+1:]...)
			break
		}
	}
	if !m.isReply() && len(ch.replies(m.TS)) > 0 {
		// Slack keeps a deleted parent as a tombstone so its thread stays.
		ch.text.Free(m.Text)
		*m = Message{Type: "message", Subtype: "tombstone", TS: m.TS, User: "USLACKBOT", Text: "This message was deleted.",
			ThreadTS: m.ThreadTS, ReplyCount: m.ReplyCount, ReplyUsers: m.ReplyUsers, ReplyUsersCount: m.ReplyUsersCount, LatestReply: m.LatestReply}
		return DeleteMessageOut{OK: true, Channel: ch.ID, TS: in.TS}, nil
	}
	w.removeMessage(ch, m)
	if m.isReply() {
		ch.refreshThread(m.ThreadTS)
		if p := ch.message(m.ThreadTS); p != nil && p.Subtype == "tombstone" && p.ReplyCount == 0 {
			w.removeMessage(ch, p)
		}
	}
	return DeleteMessageOut{OK: true, Channel: ch.ID, TS: in.TS}, nil
}

func (w *World) removeMessage(ch *Channel, m *Message) {
	for i, x := range ch.Messages {
		if x == m {
			ch.Messages = slices.Delete(ch.Messages, i, i+1)
			ch.text.Free(m.Text)
			ch.text.Free(m.TS)
			ch.rekeepText()
			return
		}
	}
}

// PermalinkIn is chat.getPermalink's input.
type PermalinkIn struct {
	ChannelID string `json:"channel_id" jsonschema:"Channel id of the message"`
	MessageTS string `json:"message_ts" jsonschema:"ts of the message"`
}

// PermalinkOut is chat.getPermalink's response.
type PermalinkOut struct {
	OK        bool   `json:"ok"`
	Channel   string `json:"channel"`
	Permalink string `json:"permalink"`
}

func getPermalink(ctx context.Context, w *World, in PermalinkIn) (PermalinkOut, error) {
	ch, err := w.visible(in.ChannelID)
	if err != nil {
		return PermalinkOut{}, err
	}
	m := ch.message(in.MessageTS)
	if m == nil {
		return PermalinkOut{}, errMessageNotFound(in.MessageTS)
	}
	return PermalinkOut{OK: true, Channel: ch.ID, Permalink: w.permalink(ch, m.TS, m.ThreadTS)}, nil
}

// ScheduleMessageIn is chat.scheduleMessage's input.
type ScheduleMessageIn struct {
	ChannelID      string `json:"channel_id" jsonschema:"Channel id or name, or a user id for a DM"`
	Message        string `json:"message,omitempty" jsonschema:"Message text (Slack mrkdwn)"`
	PostAt         int64  `json:"post_at" jsonschema:"When to send, in Unix seconds"`
	ThreadTS       string `json:"thread_ts,omitempty" jsonschema:"ts of the parent message, to reply in its thread"`
	ReplyBroadcast bool   `json:"reply_broadcast,omitempty" jsonschema:"With thread_ts: also show the reply in the channel"`
	Blocks         any    `json:"blocks,omitempty" jsonschema:"Block Kit blocks (JSON array or its string)"`
	Attachments    any    `json:"attachments,omitempty" jsonschema:"Attachments (JSON array or its string)"`
}

// ScheduleMessageOut is chat.scheduleMessage's response.
type ScheduleMessageOut struct {
	OK                 bool    `json:"ok"`
	Channel            string  `json:"channel"`
	ScheduledMessageID string  `json:"scheduled_message_id"`
	PostAt             int64   `json:"post_at"`
	Message            Message `json:"message"`
}

func scheduleMessage(ctx context.Context, w *World, in ScheduleMessageIn) (ScheduleMessageOut, error) {
	ch, dm, err := w.postTarget(in.ChannelID)
	if err != nil {
		return ScheduleMessageOut{}, err
	}
	c, err := parseContent(in.Message, in.Blocks, in.Attachments)
	if err != nil {
		return ScheduleMessageOut{}, err
	}
	t := now(ctx)
	switch {
	case in.PostAt <= t:
		return ScheduleMessageOut{}, twins.Errorf(twins.Invalid, "time_in_past", "post_at %d is not in the future (now %d).", in.PostAt, t).WithField("post_at")
	case in.PostAt > t+maxScheduleAhead:
		return ScheduleMessageOut{}, twins.Errorf(twins.Invalid, "time_too_far", "post_at %d is more than 120 days ahead.", in.PostAt).WithField("post_at")
	}
	threadTS := ""
	if in.ThreadTS != "" {
		if ch == nil {
			return ScheduleMessageOut{}, errThreadNotFound(in.ThreadTS)
		}
		p, err := threadParent(ch, in.ThreadTS)
		if err != nil {
			return ScheduleMessageOut{}, err
		}
		threadTS = p.TS
	}
	if ch == nil {
		ch = w.openIM(ctx, dm)
	}
	id := w.newID("Q")
	s := &ScheduledMessage{
		ID: id, ChannelID: ch.ID, PostAt: in.PostAt, DateCreated: t, Text: c.text, User: w.AuthUser,
		// The suffix keeps two messages scheduled for the same second
		// apart once delivered.
		TS:       formatTS(in.PostAt*1e6 + int64(w.Counters["Q"]%1e6)),
		ThreadTS: threadTS, ReplyBroadcast: in.ReplyBroadcast && threadTS != "",
		Blocks: c.blocks, Attachments: c.attachments,
	}
	w.Scheduled = append(w.Scheduled, s)
	msg := Message{Type: "message", User: w.AuthUser, Text: c.text, Team: w.Team.ID, Blocks: c.blocks, Attachments: c.attachments}
	return ScheduleMessageOut{OK: true, Channel: ch.ID, ScheduledMessageID: s.ID, PostAt: s.PostAt, Message: msg}, nil
}

// DeleteScheduledIn is chat.deleteScheduledMessage's input.
type DeleteScheduledIn struct {
	ChannelID          string `json:"channel_id" jsonschema:"Channel id the message is scheduled in"`
	ScheduledMessageID string `json:"scheduled_message_id" jsonschema:"id returned by slack_schedule_message"`
}

func deleteScheduledMessage(ctx context.Context, w *World, in DeleteScheduledIn) (OKOut, error) {
	ch, err := w.visible(in.ChannelID)
	if err != nil {
		return OKOut{}, err
	}
	for i, s := range w.Scheduled {
		if s.ID == in.ScheduledMessageID && s.ChannelID == ch.ID {
			w.Scheduled = append(w.Scheduled[:i], w.Scheduled[i+1:]...)
			return OKOut{OK: true}, nil
		}
	}
	return OKOut{}, twins.Errorf(twins.NotFound, "invalid_scheduled_message_id", "No scheduled message %q in %s.", in.ScheduledMessageID, ch.ID)
}

// ListScheduledIn is chat.scheduledMessages.list's input.
type ListScheduledIn struct {
	ChannelID string `json:"channel_id,omitempty" jsonschema:"Only this channel"`
	Cursor    string `json:"cursor,omitempty" jsonschema:"response_metadata.next_cursor of the previous page"`
	Limit     int    `json:"limit,omitempty" jsonschema:"Messages per page (default 100)"`
	Latest    string `json:"latest,omitempty" jsonschema:"Only messages scheduled before this Unix time"`
	Oldest    string `json:"oldest,omitempty" jsonschema:"Only messages scheduled after this Unix time"`
}

// ScheduledView is a scheduled message as chat.scheduledMessages.list shows it.
type ScheduledView struct {
	ID          string `json:"id"`
	ChannelID   string `json:"channel_id"`
	PostAt      int64  `json:"post_at"`
	DateCreated int64  `json:"date_created"`
	Text        string `json:"text"`
}

// ListScheduledOut is chat.scheduledMessages.list's response.
type ListScheduledOut struct {
	OK                bool             `json:"ok"`
	ScheduledMessages []ScheduledView  `json:"scheduled_messages"`
	ResponseMetadata  ResponseMetadata `json:"response_metadata"`
}

func listScheduledMessages(ctx context.Context, w *World, in ListScheduledIn) (ListScheduledOut, error) {
	only := ""
	if in.ChannelID != "" {
		ch, err := w.visible(in.ChannelID)
		if err != nil {
			return ListScheduledOut{}, err
		}
		only = ch.ID
	}
	inRange, err := tsRange(in.Oldest, in.Latest, true)
	if err != nil {
		return ListScheduledOut{}, err
	}
	var list []*ScheduledMessage
	for _, s := range w.Scheduled {
		if (only == "" || s.ChannelID == only) && s.User == w.AuthUser && inRange(formatTS(s.PostAt*1e6)) {
			list = append(list, s)
		}
	}
	sort.SliceStable(list, func(i, j int) bool { return list[i].PostAt < list[j].PostAt })
	page, next, err := paginate(list, func(s *ScheduledMessage) string { return s.ID }, "scheduled", in.Cursor, pageLimit(in.Limit, 100, 1000))
	if err != nil {
		return ListScheduledOut{}, err
	}
	out := ListScheduledOut{OK: true, ScheduledMessages: []ScheduledView{}, ResponseMetadata: ResponseMetadata{NextCursor: next}}
	for _, s := range page {
		out.ScheduledMessages = append(out.ScheduledMessages, ScheduledView{ID: s.ID, ChannelID: s.ChannelID, PostAt: s.PostAt, DateCreated: s.DateCreated, Text: s.Text})
	}
	return out, nil
}

// SendEphemeralIn is chat.postEphemeral's input.
type SendEphemeralIn struct {
	ChannelID   string `json:"channel_id" jsonschema:"Channel id or name"`
	UserID      string `json:"user_id" jsonschema:"The member who will see the message"`
	Message     string `json:"message,omitempty" jsonschema:"Message text (Slack mrkdwn)"`
	ThreadTS    string `json:"thread_ts,omitempty" jsonschema:"Show it in this thread"`
	Blocks      any    `json:"blocks,omitempty" jsonschema:"Block Kit blocks (JSON array or its string)"`
	Attachments any    `json:"attachments,omitempty" jsonschema:"Attachments (JSON array or its string)"`
}

// SendEphemeralOut is chat.postEphemeral's response.
type SendEphemeralOut struct {
	OK        bool   `json:"ok"`
	MessageTS string `json:"message_ts"`
}

func sendEphemeral(ctx context.Context, w *World, in SendEphemeralIn) (SendEphemeralOut, error) {
	ch, _, err := w.postTarget(in.ChannelID)
	if err != nil {
		return SendEphemeralOut{}, err
	}
	if ch == nil {
		return SendEphemeralOut{}, errChannelNotFound(in.ChannelID)
	}
	u := w.user(in.UserID)
	if u == nil {
		return SendEphemeralOut{}, errUserNotFound(in.UserID)
	}
	if !ch.isMember(u.ID) {
		return SendEphemeralOut{}, twins.Errorf(twins.Forbidden, "user_not_in_channel", "User %s is not a member of %s.", u.ID, ch.ID)
	}
	c, err := parseContent(in.Message, in.Blocks, in.Attachments)
	if err != nil {
		return SendEphemeralOut{}, err
	}
	ts := w.nextTS(ctx, nil)
	m := Message{Type: "message", Subtype: "ephemeral", TS: ts, User: w.AuthUser, Text: c.text, Team: w.Team.ID,
		Blocks: c.blocks, Attachments: c.attachments, ThreadTS: strings.TrimSpace(in.ThreadTS)}
	w.Ephemeral = append(w.Ephemeral, &EphemeralMessage{ChannelID: ch.ID, ForUser: u.ID, Message: m})
	return SendEphemeralOut{OK: true, MessageTS: ts}, nil
}
