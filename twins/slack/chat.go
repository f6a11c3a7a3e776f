package slack

import (
	"context"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/pomehq/pome/twins"
)

// maxTextLen is the longest text Slack accepts in one message.
const maxTextLen = 40000

// maxBlocks is the most blocks one message may carry.
const maxBlocks = 50

func chatActions() []twins.Action {
	return []twins.Action{
		twins.New(twins.Spec{
			Name:  "slack_send_message",
			Title: "Send a message",
			Description: "Sends a message to a Slack channel, or to a user's DM when channel_id is a user id. " +
				"Set thread_ts to reply in a thread and reply_broadcast to also show the reply in the channel. " +
				"The message is mrkdwn text; blocks and attachments are accepted as Slack's JSON.",
			Effect:   twins.Write,
			Bindings: method("chat.postMessage", map[string]string{"channel": "channel_id", "text": "message"}),
		}, sendMessage),
		twins.New(twins.Spec{
			Name:        "slack_update_message",
			Title:       "Edit a message",
			Description: "Replaces the text, blocks or attachments of a message the token's user posted (chat.update).",
			Effect:      twins.Write,
			Bindings:    method("chat.update", map[string]string{"channel": "channel_id", "text": "message"}),
		}, updateMessage),
		twins.New(twins.Spec{
			Name:        "slack_delete_message",
			Title:       "Delete a message",
			Description: "Deletes a message the token's user posted (chat.delete). A thread parent with replies leaves a tombstone.",
			Effect:      twins.Destructive,
			Bindings:    method("chat.delete", map[string]string{"channel": "channel_id"}),
		}, deleteMessage),
		twins.New(twins.Spec{
			Name:        "slack_get_permalink",
			Title:       "Get a message link",
			Description: "Returns the web link of a message (chat.getPermalink).",
			Effect:      twins.Read,
			Bindings:    method("chat.getPermalink", map[string]string{"channel": "channel_id"}),
		}, getPermalink),
		twins.New(twins.Spec{
			Name:  "slack_schedule_message",
			Title: "Schedule a message",
			Description: "Schedules a message for delivery at post_at (Unix seconds, in the future, at most 120 days out) " +
				"to a channel or thread (chat.scheduleMessage). Does not send now; use slack_send_message for that.",
			Effect:   twins.Write,
			Bindings: method("chat.scheduleMessage", map[string]string{"channel": "channel_id", "text": "message"}),
		}, scheduleMessage),
		twins.New(twins.Spec{
			Name:        "slack_delete_scheduled_message",
			Title:       "Cancel a scheduled message",
			Description: "Cancels a message scheduled with slack_schedule_message (chat.deleteScheduledMessage).",
			Effect:      twins.Destructive,
			Bindings:    method("chat.deleteScheduledMessage", map[string]string{"channel": "channel_id"}),
		}, deleteScheduledMessage),
		twins.New(twins.Spec{
			Name:        "slack_list_scheduled_messages",
			Title:       "List scheduled messages",
			Description: "Lists messages scheduled by the token's user, optionally in one channel (chat.scheduledMessages.list).",
			Effect:      twins.Read,
			Bindings:    method("chat.scheduledMessages.list", map[string]string{"channel": "channel_id"}),
		}, listScheduledMessages),
		twins.New(twins.Spec{
			Name:        "slack_send_ephemeral",
			Title:       "Send an ephemeral message",
			Description: "Shows a message to one member of a channel only (chat.postEphemeral); it never appears in the channel's history.",
			Effect:      twins.Write,
			Bindings:    method("chat.postEphemeral", map[string]string{"channel": "channel_id", "text": "message", "user": "user_id"}),
		}, sendEphemeral),
	}
}

// SendMessageIn is chat.postMessage's input. MCP uses Slack's MCP argument
// names (channel_id, message); the Web API's channel and text are renamed
// onto them.
type SendMessageIn struct {
	ChannelID      string `json:"channel_id" jsonschema:"Channel id (C…), channel name (#general or general), or a user id (U…) for a DM"`
	Message        string `json:"message,omitempty" jsonschema:"Message text (Slack mrkdwn); required unless blocks or attachments are given"`
	ThreadTS       string `json:"thread_ts,omitempty" jsonschema:"ts of the parent message, to reply in its thread"`
	ReplyBroadcast bool   `json:"reply_broadcast,omitempty" jsonschema:"With thread_ts: also show the reply in the channel"`
	Blocks         any    `json:"blocks,omitempty" jsonschema:"Block Kit blocks: a JSON array, or that array encoded as a string"`
	Attachments    any    `json:"attachments,omitempty" jsonschema:"Legacy attachments: a JSON array, or that array encoded as a string"`
	UnfurlLinks    *bool  `json:"unfurl_links,omitempty" jsonschema:"Unfurl text links (accepted, no effect in the twin)"`
	UnfurlMedia    *bool  `json:"unfurl_media,omitempty" jsonschema:"Unfurl media links (accepted, no effect in the twin)"`
	Mrkdwn         *bool  `json:"mrkdwn,omitempty" jsonschema:"Format text as mrkdwn (default true)"`
	Username       string `json:"username,omitempty" jsonschema:"Display name to post as"`
	IconEmoji      string `json:"icon_emoji,omitempty" jsonschema:"Emoji to use as the avatar, e.g. :robot_face:"`
	IconURL        string `json:"icon_url,omitempty" jsonschema:"Image URL to use as the avatar"`
}

// SendMessageOut is chat.postMessage's response.
type SendMessageOut struct {
	OK      bool    `json:"ok"`
	Channel string  `json:"channel"`
	TS      string  `json:"ts"`
	Message Message `json:"message"`
}

func sendMessage(ctx context.Context, w *World, in SendMessageIn) (SendMessageOut, error) {
	ch, open, err := w.postTarget(in.ChannelID)
	if err != nil {
		return SendMessageOut{}, err
	}
	content, err := parseContent(in.Message, in.Blocks, in.Attachments)
	if err != nil {
		return SendMessageOut{}, err
	}
	var parent *Message
	if in.ThreadTS != "" {
		if ch == nil {
			return SendMessageOut{}, errThreadNotFound(in.ThreadTS)
		}
		if parent, err = threadParent(ch, in.ThreadTS); err != nil {
			return SendMessageOut{}, err
		}
	}
	// Everything is valid; from here on the world changes.
	if ch == nil {
		ch = w.openIM(ctx, open)
	}
	m := w.newMessage(ctx, ch, content)
	m.Username = in.Username
	if in.IconEmoji != "" || in.IconURL != "" {
		m.Icons = &Icons{Emoji: in.IconEmoji, Image: in.IconURL}
	}
	if parent != nil {
		m.ThreadTS = parent.TS
		m.ParentUserID = parent.User
		if in.ReplyBroadcast {
			m.Subtype = "thread_broadcast"
		}
	}
	ch.insert(m)
	if parent != nil {
		ch.refreshThread(parent.TS)
	}
	return SendMessageOut{OK: true, Channel: ch.ID, TS: m.TS, Message: w.view(m)}, nil
}

// content is a message body after validation.
type content struct {
	text        string
	blocks      json.RawMessage
	attachments json.RawMessage
}

// parseContent validates text, blocks and attachments as chat.postMessage
// does. Blocks and attachments arrive as JSON arrays (JSON bodies, MCP) or
// as strings holding the array (form bodies, which is how SDKs send them).
func parseContent(text string, blocks, attachments any) (content, error) {
	c := content{text: text}
	var err error
	if c.blocks, err = jsonArray(blocks); err != nil {
		return c, twins.Errorf(twins.Invalid, "invalid_blocks", "blocks must be a JSON array of Block Kit blocks: %v", err).WithField("blocks")
	}
	if n := arrayLen(c.blocks); n > maxBlocks {
		return c, twins.Errorf(twins.Invalid, "invalid_blocks", "a message holds at most %d blocks, got %d", maxBlocks, n).WithField("blocks")
	}
	if c.blocks, err = assignBlockIDs(c.blocks); err != nil {
		return c, twins.Errorf(twins.Invalid, "invalid_blocks", "%v", err).WithField("blocks")
	}
	if c.attachments, err = jsonArray(attachments); err != nil {
		return c, twins.Errorf(twins.Invalid, "invalid_attachments", "attachments must be a JSON array: %v", err).WithField("attachments")
	}
	c.attachments = numberAttachments(c.attachments)
	if strings.TrimSpace(text) == "" && arrayLen(c.blocks) == 0 && arrayLen(c.attachments) == 0 {
		return c, twins.Errorf(twins.Invalid, "no_text", "The message has no text; pass message (text), blocks or attachments.").WithField("message")
	}
	if utf8.RuneCountInString(text) > maxTextLen {
		return c, twins.Errorf(twins.Invalid, "msg_too_long", "The message text is longer than %d characters.", maxTextLen).WithField("message")
	}
	return c, nil
}

// jsonArray normalises a blocks/attachments argument to a JSON array, nil
// when absent or empty.
func jsonArray(v any) (json.RawMessage, error) {
	switch t := v.(type) {
	case nil:
		return nil, nil
	case string:
		if strings.TrimSpace(t) == "" {
			return nil, nil
		}
		var arr []any
		if err := json.Unmarshal([]byte(t), &arr); err != nil {
			return nil, err
		}
		if len(arr) == 0 {
			return nil, nil
		}
		return json.Marshal(arr)
	case []any:
		if len(t) == 0 {
			return nil, nil
		}
		for _, e := range t {
			if _, ok := e.(map[string]any); !ok {
				return nil, errNotObjects
			}
		}
		return json.Marshal(t)
	}
	return nil, errNotObjects
}

// numberAttachments gives each attachment the id Slack assigns (1, 2, …)
// and a fallback (its text) when the caller sent none, as Slack's stored
// messages show.
func numberAttachments(raw json.RawMessage) json.RawMessage {
	if raw == nil {
		return nil
	}
	var list []map[string]any
	if json.Unmarshal(raw, &list) != nil {
		return raw
	}
	for i, a := range list {
		a["id"] = i + 1
		if _, ok := a["fallback"]; !ok {
			if t, ok := a["text"].(string); ok {
				a["fallback"] = t
			}
		}
	}
	out, err := json.Marshal(list)
	if err != nil {
		return raw
	}
	return out
}

type constError string

func (e constError) Error() string { return string(e) }

const errNotObjects = constError("expected an array of objects")

func arrayLen(raw json.RawMessage) int {
	if len(raw) == 0 {
		return 0
	}
	var arr []json.RawMessage
	if json.Unmarshal(raw, &arr) != nil {
		return 0
	}
	return len(arr)
}

// postTarget resolves where a message goes: a channel the token's user may
// post in, or (for a user id) the DM with that user, which is opened when
// the message is posted. Exactly one of ch and dmUser is set on success.
func (w *World) postTarget(ref string) (ch *Channel, dmUser *User, err error) {
	ref = strings.TrimSpace(ref)
	if c := w.channelRef(ref); c != nil {
		if !c.visibleTo(w.AuthUser) {
			return nil, nil, errChannelNotFound(ref)
		}
		if c.IsArchived {
			return nil, nil, errIsArchived(c)
		}
		if !c.isMember(w.AuthUser) {
			return nil, nil, errNotInChannel(c)
		}
		return c, nil, nil
	}
	if strings.HasPrefix(ref, "U") || strings.HasPrefix(ref, "W") || strings.HasPrefix(ref, "@") {
		if u := w.user(ref); u != nil && !u.Deleted {
			if im := w.imWith(u.ID); im != nil {
				return im, nil, nil
			}
			return nil, u, nil
		}
	}
	return nil, nil, errChannelNotFound(ref)
}

// imWith finds the token user's DM with user.
func (w *World) imWith(user string) *Channel {
	for _, c := range w.Channels {
		if c.Type == TypeIM && c.isMember(w.AuthUser) && c.User == user {
			return c
		}
	}
	return nil
}

// openIM creates the token user's DM with u.
func (w *World) openIM(ctx context.Context, u *User) *Channel {
	members := []string{w.AuthUser, u.ID}
	ch := &Channel{
		ID: w.newID("D"), Name: u.ID, Type: TypeIM, User: u.ID, Created: now(ctx), Creator: w.AuthUser,
		Members: members, PreviousNames: []string{}, Messages: []*Message{}, Bookmarks: []*Bookmark{}, Pins: []*Pin{},
	}
	w.Channels = append(w.Channels, ch)
	return ch
}

// threadParent finds the parent of the thread ts belongs to; a reply's ts
// threads under its parent, as in Slack.
func threadParent(ch *Channel, ts string) (*Message, error) {
	m := ch.message(ts)
	if m == nil {
		return nil, errThreadNotFound(ts)
	}
	if m.isReply() {
		if p := ch.message(m.ThreadTS); p != nil {
			return p, nil
		}
	}
	return m, nil
}

// newMessage builds a message by the token's user with a fresh ts.
func (w *World) newMessage(ctx context.Context, ch *Channel, c content) *Message {
	m := &Message{
		Type: "message", TS: ch.text.Keep(w.nextTS(ctx, ch)), User: w.AuthUser, Text: ch.text.Keep(c.text), Team: w.Team.ID,
		Blocks: c.blocks, Attachments: c.attachments,
	}
	// A user token, and Slack's MCP server, post as the user, not as the
	// app's bot.
	if !actsAsUser(ctx) {
		w.signAsBotShared(m, w.AuthUser)
	}
	return m
}
