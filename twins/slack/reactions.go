package slack

import (
	"context"
	"sort"
	"strings"

	"github.com/pomehq/pome/twins"
)

func reactionActions() []twins.Action {
	return []twins.Action{
		twins.New(twins.Spec{
			Name:        "slack_add_reaction",
			Title:       "Add a reaction",
			Description: "Adds an emoji reaction (name without colons, e.g. thumbsup) to a message as the token's user (reactions.add).",
			Effect:      twins.Write,
			Bindings:    method("reactions.add", map[string]string{"channel": "channel_id", "timestamp": "message_ts", "name": "emoji"}),
		}, addReactionAction),
		twins.New(twins.Spec{
			Name:        "slack_remove_reaction",
			Title:       "Remove a reaction",
			Description: "Removes the token user's emoji reaction from a message (reactions.remove).",
			Effect:      twins.Write,
			Bindings:    method("reactions.remove", map[string]string{"channel": "channel_id", "timestamp": "message_ts", "name": "emoji"}),
		}, removeReaction),
		twins.New(twins.Spec{
			Name:        "slack_get_reactions",
			Title:       "Get a message's reactions",
			Description: "Returns a message with its reactions and who added each (reactions.get).",
			Effect:      twins.Read,
			Bindings:    method("reactions.get", map[string]string{"channel": "channel_id", "timestamp": "message_ts"}),
		}, getReactions),
		twins.New(twins.Spec{
			Name:        "slack_list_reactions",
			Title:       "List a user's reactions",
			Description: "Lists the messages a user (default: the token's user) reacted to, newest first (reactions.list).",
			Effect:      twins.Read,
			Bindings:    method("reactions.list", map[string]string{"user": "user_id"}),
		}, listReactions),
	}
}

// RemoveReactionIn is reactions.remove's input.
type RemoveReactionIn = AddReactionIn

func removeReaction(ctx context.Context, w *World, in RemoveReactionIn) (OKOut, error) {
	ch, m, err := w.reactionTarget(in.ChannelID, in.Timestamp)
	if err != nil {
		return OKOut{}, err
	}
	name, err := emojiName(in.Reaction)
	if err != nil {
		return OKOut{}, err
	}
	if ch.IsArchived {
		return OKOut{}, errIsArchived(ch)
	}
	for i, r := range m.Reactions {
		if r.Name != name {
			continue
		}
		for j, u := range r.Users {
			if u == w.AuthUser {
				r.Users = append(r.Users[:j], r.Users[j+1:]...)
				r.Count = len(r.Users)
				if r.Count == 0 {
					m.Reactions = append(m.Reactions[:i], m.Reactions[i+1:]...)
				}
				return OKOut{OK: true}, nil
			}
		}
	}
	return OKOut{}, twins.Errorf(twins.NotFound, "no_reaction", "The token's user has no :%s: reaction on this message.", name)
}

// GetReactionsIn is reactions.get's input.
type GetReactionsIn struct {
	ChannelID string `json:"channel_id" jsonschema:"Channel id of the message"`
	Timestamp string `json:"message_ts" jsonschema:"ts of the message"`
	Full      bool   `json:"full,omitempty" jsonschema:"Always return the complete reaction list"`
}

// ReactedItem is a message with its reactions, as reactions.get and
// reactions.list return it.
type ReactedItem struct {
	Type    string  `json:"type"`
	Channel string  `json:"channel"`
	Message Message `json:"message"`
}

// GetReactionsOut is reactions.get's response.
type GetReactionsOut struct {
	OK bool `json:"ok"`
	ReactedItem
}

func getReactions(ctx context.Context, w *World, in GetReactionsIn) (GetReactionsOut, error) {
	ch, m, err := w.reactionTarget(in.ChannelID, in.Timestamp)
	if err != nil {
		return GetReactionsOut{}, err
	}
	v := w.view(m)
	v.Permalink = w.permalink(ch, m.TS, m.ThreadTS)
	return GetReactionsOut{OK: true, ReactedItem: ReactedItem{Type: "message", Channel: ch.ID, Message: v}}, nil
}

// ListReactionsIn is reactions.list's input.
type ListReactionsIn struct {
	UserID string `json:"user_id,omitempty" jsonschema:"Whose reactions (default: the token's user)"`
	Cursor string `json:"cursor,omitempty" jsonschema:"response_metadata.next_cursor of the previous page"`
	Limit  int    `json:"limit,omitempty" jsonschema:"Items per page (default 100)"`
	Full   bool   `json:"full,omitempty" jsonschema:"Always return the complete reaction list"`
	TeamID string `json:"team_id,omitempty" jsonschema:"Workspace id (accepted; the twin has one workspace)"`
}

// ListReactionsOut is reactions.list's response.
type ListReactionsOut struct {
	OK               bool             `json:"ok"`
	Items            []ReactedItem    `json:"items"`
	ResponseMetadata ResponseMetadata `json:"response_metadata"`
}

func listReactions(ctx context.Context, w *World, in ListReactionsIn) (ListReactionsOut, error) {
	user := w.AuthUser
	if in.UserID != "" {
		u := w.userByID(in.UserID)
		if u == nil {
			return ListReactionsOut{}, errUserNotFound(in.UserID)
		}
		user = u.ID
	}
	type hit struct {
		ch *Channel
		m  *Message
	}
	var hits []hit
	for _, ch := range w.Channels {
		if !ch.visibleTo(w.AuthUser) {
			continue
		}
		for _, m := range ch.Messages {
			if hasAnyReaction(m, user) {
				hits = append(hits, hit{ch, m})
			}
		}
	}
	sort.SliceStable(hits, func(i, j int) bool {
		a, _ := parseTS(hits[i].m.TS)
		b, _ := parseTS(hits[j].m.TS)
		return a > b
	})
	page, next, err := paginate(hits, func(h hit) string { return h.ch.ID + "/" + h.m.TS }, "reaction", in.Cursor, pageLimit(in.Limit, 100, 1000))
	if err != nil {
		return ListReactionsOut{}, err
	}
	out := ListReactionsOut{OK: true, Items: []ReactedItem{}, ResponseMetadata: ResponseMetadata{NextCursor: next}}
	for _, h := range page {
		out.Items = append(out.Items, ReactedItem{Type: "message", Channel: h.ch.ID, Message: w.view(h.m)})
	}
	return out, nil
}

func hasAnyReaction(m *Message, user string) bool {
	for _, r := range m.Reactions {
		for _, u := range r.Users {
			if u == user {
				return true
			}
		}
	}
	return false
}

// AddReactionIn is reactions.add's input.
type AddReactionIn struct {
	ChannelID string `json:"channel_id" jsonschema:"Channel id (C…) of the message"`
	Timestamp string `json:"message_ts" jsonschema:"ts of the message"`
	Reaction  string `json:"emoji" jsonschema:"Emoji name without colons, e.g. thumbsup"`
}

// OKOut is the response of methods that answer only ok.
type OKOut struct {
	OK bool `json:"ok"`
}

func addReactionAction(ctx context.Context, w *World, in AddReactionIn) (OKOut, error) {
	ch, m, err := w.reactionTarget(in.ChannelID, in.Timestamp)
	if err != nil {
		return OKOut{}, err
	}
	name, err := emojiName(in.Reaction)
	if err != nil {
		return OKOut{}, err
	}
	if ch.IsArchived {
		return OKOut{}, errIsArchived(ch)
	}
	for _, r := range m.Reactions {
		if r.Name == name {
			for _, u := range r.Users {
				if u == w.AuthUser {
					return OKOut{}, twins.Errorf(twins.Conflict, "already_reacted", "The token's user already reacted with :%s: to this message.", name)
				}
			}
		}
	}
	addReaction(m, name, w.AuthUser)
	return OKOut{OK: true}, nil
}

// reactionTarget resolves the message a reaction method names.
func (w *World) reactionTarget(channel, ts string) (*Channel, *Message, error) {
	ch, err := w.readable(channel)
	if err != nil {
		return nil, nil, err
	}
	if ts == "" {
		return nil, nil, twins.Errorf(twins.Invalid, "no_item_specified", "Pass the message's channel and timestamp.").WithField("timestamp")
	}
	m := ch.message(ts)
	if m == nil {
		return nil, nil, errMessageNotFound(ts)
	}
	return ch, m, nil
}

// emojiName normalises ":thumbsup:" to "thumbsup" and refuses names Slack
// could not hold.
func emojiName(s string) (string, error) {
	name := strings.Trim(strings.TrimSpace(s), ":")
	base, _, _ := strings.Cut(name, "::") // skin tones: thumbsup::skin-tone-2
	if !emojiNameRE.MatchString(base) {
		return "", twins.Errorf(twins.Invalid, "invalid_name", "%q is not an emoji name; pass the name without colons, e.g. thumbsup.", s).WithField("emoji")
	}
	return name, nil
}
