package slack

import (
	"context"
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
			Bindings:    method("reactions.add", map[string]string{"channel": "channel_id", "name": "reaction"}),
		}, addReactionAction),
	}
}

// AddReactionIn is reactions.add's input.
type AddReactionIn struct {
	ChannelID string `json:"channel_id" jsonschema:"Channel id (C…) of the message"`
	Timestamp string `json:"timestamp" jsonschema:"ts of the message"`
	Reaction  string `json:"reaction" jsonschema:"Emoji name without colons, e.g. thumbsup"`
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
		return "", twins.Errorf(twins.Invalid, "invalid_name", "%q is not an emoji name; pass the name without colons, e.g. thumbsup.", s).WithField("reaction")
	}
	return name, nil
}
