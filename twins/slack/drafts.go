package slack

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/pomehq/pome/twins"
)

// Drafts: Slack's MCP server can leave a message unsent in a conversation,
// for the user to review and send from Slack (slack_send_message_draft).
// The Web API has no method for drafts, so the action has no REST binding.
// A conversation (or thread) holds at most one draft, as in Slack, where
// the tool answers draft_already_exists rather than overwrite one.

// Draft is an unsent message.
type Draft struct {
	ID        string `json:"id"`
	ChannelID string `json:"channel_id"`
	ThreadTS  string `json:"thread_ts,omitempty"`
	User      string `json:"user"`
	Text      string `json:"text"`
	Created   int64  `json:"date_created"`
}

func draftActions() []twins.Action {
	return []twins.Action{
		twins.New(twins.Spec{
			Name: "slack_send_message_draft", Title: "Draft a message",
			Description: "Leaves a message as an unsent draft in a conversation or thread, for the user to review " +
				"and send; nothing is posted. A conversation or thread holds one draft: another answers draft_already_exists. " +
				"To post now, use slack_send_message.",
			Effect: twins.Write,
		}, sendMessageDraft),
	}
}

// DraftIn is slack_send_message_draft's input, in Slack's MCP names.
type DraftIn struct {
	ChannelID string `json:"channel_id" jsonschema:"Channel id (C…), channel name, or a user id (U…) for a DM"`
	Message   string `json:"message" jsonschema:"Message text (Slack markdown)"`
	ThreadTS  string `json:"thread_ts,omitempty" jsonschema:"ts of a thread's parent message, to draft a reply there"`
}

// DraftOut is slack_send_message_draft's answer.
type DraftOut struct {
	OK        bool   `json:"ok"`
	DraftID   string `json:"draft_id"`
	ChannelID string `json:"channel_id"`
	ThreadTS  string `json:"thread_ts,omitempty"`
	Message   string `json:"message"`
}

func sendMessageDraft(ctx context.Context, w *World, in DraftIn) (DraftOut, error) {
	ch, open, err := w.postTarget(in.ChannelID)
	if err != nil {
		return DraftOut{}, err
	}
	if strings.TrimSpace(in.Message) == "" {
		return DraftOut{}, twins.Errorf(twins.Invalid, "no_text", "The draft has no text; pass message.").WithField("message")
	}
	if utf8.RuneCountInString(in.Message) > maxTextLen {
		return DraftOut{}, twins.Errorf(twins.Invalid, "msg_too_long", "The message text is longer than %d characters.", maxTextLen).WithField("message")
	}
	thread := ""
	if in.ThreadTS != "" {
		if ch == nil {
			return DraftOut{}, errThreadNotFound(in.ThreadTS)
		}
		parent, err := threadParent(ch, in.ThreadTS)
		if err != nil {
			return DraftOut{}, err
		}
		thread = parent.TS
	}
	if ch != nil {
		for _, d := range w.Drafts {
			if d.ChannelID == ch.ID && d.ThreadTS == thread && d.User == w.AuthUser {
				return DraftOut{}, twins.Errorf(twins.Conflict, "draft_already_exists",
					"%s already holds an unsent draft (%s); Slack does not overwrite it. Ask the user to send or discard it.", where(ch, thread), d.ID)
			}
		}
	}
	// Everything is valid; from here on the world changes.
	if ch == nil {
		ch = w.openIM(ctx, open)
	}
	d := &Draft{ID: w.newID("Dr"), ChannelID: ch.ID, ThreadTS: thread, User: w.AuthUser, Text: in.Message, Created: now(ctx)}
	w.Drafts = append(w.Drafts, d)
	return DraftOut{OK: true, DraftID: d.ID, ChannelID: ch.ID, ThreadTS: thread, Message: d.Text}, nil
}

func where(ch *Channel, thread string) string {
	if thread != "" {
		return "The thread " + thread + " in " + ch.ID
	}
	return "Conversation " + ch.ID
}
