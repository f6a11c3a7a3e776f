package slack

import (
	"context"
	"strings"

	"github.com/pomehq/pome/twins"
)

func conversationActions() []twins.Action {
	return []twins.Action{
		twins.New(twins.Spec{
			Name:  "slack_read_channel",
			Title: "Read a channel's messages",
			Description: "Reads a channel's message history, newest first (conversations.history). Thread replies are not " +
				"included (read them with slack_read_thread) except replies broadcast to the channel. " +
				"Page with cursor = response_metadata.next_cursor while has_more is true.",
			Effect:   twins.Read,
			Bindings: method("conversations.history", map[string]string{"channel": "channel_id"}),
		}, readChannel),
		twins.New(twins.Spec{
			Name:        "slack_read_thread",
			Title:       "Read a thread",
			Description: "Reads a thread: the parent message followed by its replies, oldest first (conversations.replies).",
			Effect:      twins.Read,
			Bindings:    method("conversations.replies", map[string]string{"channel": "channel_id", "ts": "message_ts"}),
		}, readThread),
		twins.New(twins.Spec{
			Name:  "slack_list_channels",
			Title: "List conversations",
			Description: "Lists the conversations the token can see (conversations.list): public channels by default; " +
				"types takes a comma-separated list of public_channel, private_channel, mpim, im.",
			Effect:   twins.Read,
			Bindings: method("conversations.list", nil),
		}, listChannels),
	}
}

// Conversation is a channel, DM or group DM as the conversations.* methods
// return it.
type Conversation struct {
	ID                 string `json:"id"`
	Name               string `json:"name,omitempty"`
	IsChannel          bool   `json:"is_channel"`
	IsGroup            bool   `json:"is_group"`
	IsIM               bool   `json:"is_im"`
	IsMpIM             bool   `json:"is_mpim"`
	IsPrivate          bool   `json:"is_private"`
	Created            int64  `json:"created"`
	IsArchived         bool   `json:"is_archived"`
	IsGeneral          bool   `json:"is_general"`
	Unlinked           int    `json:"unlinked"`
	NameNormalized     string `json:"name_normalized,omitempty"`
	IsShared           bool   `json:"is_shared"`
	IsOrgShared        bool   `json:"is_org_shared"`
	IsExtShared        bool   `json:"is_ext_shared"`
	IsPendingExtShared bool   `json:"is_pending_ext_shared"`
	IsMember           bool   `json:"is_member"`
	IsOpen             bool   `json:"is_open,omitempty"`
	Creator            string `json:"creator,omitempty"`
	ContextTeamID      string `json:"context_team_id"`
	// Updated is in milliseconds, as Slack reports it.
	Updated                 int64    `json:"updated"`
	ParentConversation      *string  `json:"parent_conversation"`
	PendingShared           []string `json:"pending_shared"`
	SharedTeamIDs           []string `json:"shared_team_ids"`
	PendingConnectedTeamIDs []string `json:"pending_connected_team_ids"`
	Topic                   *Topic   `json:"topic,omitempty"`
	Purpose                 *Topic   `json:"purpose,omitempty"`
	PreviousNames           []string `json:"previous_names"`
	NumMembers              int      `json:"num_members,omitempty"`
	User                    string   `json:"user,omitempty"`
	IsUserDeleted           bool     `json:"is_user_deleted,omitempty"`
	Priority                float64  `json:"priority"`
}

// conversation renders ch as the token's user sees it.
func (w *World) conversation(ch *Channel) Conversation {
	c := Conversation{
		ID: ch.ID, Created: ch.Created, IsArchived: ch.IsArchived, IsGeneral: ch.IsGeneral,
		IsMember: ch.isMember(w.AuthUser), ContextTeamID: w.Team.ID, Updated: ch.Created * 1000,
		PendingShared: []string{}, SharedTeamIDs: []string{w.Team.ID}, PendingConnectedTeamIDs: []string{},
		PreviousNames: []string{},
	}
	switch ch.Type {
	case TypeIM:
		c.IsIM, c.IsPrivate, c.IsOpen, c.User = true, true, true, ch.User
		if u := w.userByID(ch.User); u != nil {
			c.IsUserDeleted = u.Deleted
		}
		return c
	case TypeMPIM:
		c.IsMpIM, c.IsGroup, c.IsPrivate, c.IsOpen = true, true, true, true
	case TypePrivate:
		c.IsChannel, c.IsGroup, c.IsPrivate = true, false, true
	default:
		c.IsChannel = true
	}
	c.Name, c.NameNormalized, c.Creator = ch.Name, ch.Name, ch.Creator
	topic, purpose := ch.Topic, ch.Purpose
	c.Topic, c.Purpose = &topic, &purpose
	c.PreviousNames = append([]string{}, ch.PreviousNames...)
	c.NumMembers = len(ch.Members)
	return c
}

// readable resolves a channel argument for reading: it must be visible to
// the token's user and, as for Slack bot tokens, joined.
func (w *World) readable(ref string) (*Channel, error) {
	ch, err := w.visible(ref)
	if err != nil {
		return nil, err
	}
	if !ch.isMember(w.AuthUser) {
		return nil, errNotInChannel(ch)
	}
	return ch, nil
}

// ReadChannelIn is conversations.history's input.
type ReadChannelIn struct {
	ChannelID string `json:"channel_id" jsonschema:"Channel id (C…), or channel name"`
	Cursor    string `json:"cursor,omitempty" jsonschema:"response_metadata.next_cursor of the previous page"`
	Limit     int    `json:"limit,omitempty" jsonschema:"Messages per page (default 100, at most 999)"`
	Latest    string `json:"latest,omitempty" jsonschema:"Only messages before this ts"`
	Oldest    string `json:"oldest,omitempty" jsonschema:"Only messages after this ts"`
	Inclusive bool   `json:"inclusive,omitempty" jsonschema:"Include messages exactly at latest and oldest"`
}

// ReadChannelOut is conversations.history's response.
type ReadChannelOut struct {
	OK               bool             `json:"ok"`
	Messages         []Message        `json:"messages"`
	HasMore          bool             `json:"has_more"`
	PinCount         int              `json:"pin_count"`
	Latest           string           `json:"latest,omitempty"`
	ResponseMetadata ResponseMetadata `json:"response_metadata"`
}

func readChannel(ctx context.Context, w *World, in ReadChannelIn) (ReadChannelOut, error) {
	ch, err := w.readable(in.ChannelID)
	if err != nil {
		return ReadChannelOut{}, err
	}
	inRange, err := tsRange(in.Oldest, in.Latest, in.Inclusive)
	if err != nil {
		return ReadChannelOut{}, err
	}
	after, err := decodeCursor("next_ts", in.Cursor)
	if err != nil {
		return ReadChannelOut{}, err
	}
	// The history, newest first, is paged as paginate pages a list: the
	// page starts at the message whose ts the cursor names, and the next
	// cursor names the first message past it. The walk stops looking at
	// messages (beyond counting pins) once it has found that one, so a
	// page costs the same in a channel of any length.
	limit := pageLimit(in.Limit, 100, 999)
	started := after == ""
	var page []*Message
	next := ""
	pins := 0
	for i := len(ch.Messages) - 1; i >= 0; i-- {
		m := ch.Messages[i]
		if len(m.PinnedTo) > 0 {
			pins++
		}
		if next != "" || (!started && m.TS != after) || !m.inHistory() || !inRange(m.TS) {
			continue
		}
		started = true
		if len(page) == limit {
			next = encodeCursor("next_ts", m.TS)
			continue
		}
		page = append(page, m)
	}
	if !started {
		return ReadChannelOut{}, errInvalidCursor()
	}
	return ReadChannelOut{
		OK: true, Messages: w.views(page), HasMore: next != "", PinCount: pins, Latest: in.Latest,
		ResponseMetadata: ResponseMetadata{NextCursor: next},
	}, nil
}

// tsRange returns a filter for Slack's oldest/latest/inclusive arguments.
func tsRange(oldest, latest string, inclusive bool) (func(ts string) bool, error) {
	lo, hi := int64(-1), int64(1)<<62
	if oldest != "" && oldest != "0" {
		v, ok := parseTS(oldest)
		if !ok {
			return nil, twins.Errorf(twins.Invalid, "invalid_ts_oldest", "oldest %q is not a Slack timestamp", oldest).WithField("oldest")
		}
		lo = v
	}
	if latest != "" && latest != "0" {
		v, ok := parseTS(latest)
		if !ok {
			return nil, twins.Errorf(twins.Invalid, "invalid_ts_latest", "latest %q is not a Slack timestamp", latest).WithField("latest")
		}
		hi = v
	}
	return func(ts string) bool {
		v, _ := parseTS(ts)
		if inclusive {
			return v >= lo && v <= hi
		}
		return v > lo && v < hi
	}, nil
}

// ReadThreadIn is conversations.replies' input.
type ReadThreadIn struct {
	ChannelID string `json:"channel_id" jsonschema:"Channel id (C…), or channel name"`
	MessageTS string `json:"message_ts" jsonschema:"ts of the thread's parent message (or of any reply in it)"`
	Cursor    string `json:"cursor,omitempty" jsonschema:"response_metadata.next_cursor of the previous page"`
	Limit     int    `json:"limit,omitempty" jsonschema:"Messages per page (default 1000)"`
	Latest    string `json:"latest,omitempty" jsonschema:"Only messages before this ts"`
	Oldest    string `json:"oldest,omitempty" jsonschema:"Only messages after this ts"`
	Inclusive bool   `json:"inclusive,omitempty" jsonschema:"Include messages exactly at latest and oldest"`
}

// ReadThreadOut is conversations.replies' response.
type ReadThreadOut struct {
	OK               bool             `json:"ok"`
	Messages         []Message        `json:"messages"`
	HasMore          bool             `json:"has_more"`
	ResponseMetadata ResponseMetadata `json:"response_metadata"`
}

func readThread(ctx context.Context, w *World, in ReadThreadIn) (ReadThreadOut, error) {
	ch, err := w.readable(in.ChannelID)
	if err != nil {
		return ReadThreadOut{}, err
	}
	parent, err := threadParent(ch, in.MessageTS)
	if err != nil {
		return ReadThreadOut{}, err
	}
	inRange, err := tsRange(in.Oldest, in.Latest, in.Inclusive)
	if err != nil {
		return ReadThreadOut{}, err
	}
	list := []*Message{parent}
	for _, r := range ch.replies(parent.TS) {
		if inRange(r.TS) {
			list = append(list, r)
		}
	}
	page, next, err := paginate(list, func(m *Message) string { return m.TS }, "next_ts", in.Cursor, pageLimit(in.Limit, 1000, 1000))
	if err != nil {
		return ReadThreadOut{}, err
	}
	return ReadThreadOut{OK: true, Messages: w.views(page), HasMore: next != "", ResponseMetadata: ResponseMetadata{NextCursor: next}}, nil
}

// ListChannelsIn is conversations.list's input.
type ListChannelsIn struct {
	Types           string `json:"types,omitempty" jsonschema:"Comma-separated: public_channel (default), private_channel, mpim, im"`
	ExcludeArchived bool   `json:"exclude_archived,omitempty" jsonschema:"Leave archived channels out"`
	Cursor          string `json:"cursor,omitempty" jsonschema:"response_metadata.next_cursor of the previous page"`
	Limit           int    `json:"limit,omitempty" jsonschema:"Conversations per page (default 100, at most 1000)"`
	TeamID          string `json:"team_id,omitempty" jsonschema:"Workspace id (accepted; the twin has one workspace)"`
}

// ListChannelsOut is conversations.list's response.
type ListChannelsOut struct {
	OK               bool             `json:"ok"`
	Channels         []Conversation   `json:"channels"`
	ResponseMetadata ResponseMetadata `json:"response_metadata"`
}

func listChannels(ctx context.Context, w *World, in ListChannelsIn) (ListChannelsOut, error) {
	types, err := parseTypes(in.Types)
	if err != nil {
		return ListChannelsOut{}, err
	}
	var list []*Channel
	for _, ch := range w.Channels {
		if types[ch.Type] && ch.visibleTo(w.AuthUser) && !(in.ExcludeArchived && ch.IsArchived) {
			list = append(list, ch)
		}
	}
	return w.channelPage(list, in.Cursor, pageLimit(in.Limit, 100, 1000))
}

// channelPage pages channels by id and renders the page as a
// conversations.list answer, which the user and search lists share.
func (w *World) channelPage(list []*Channel, cursor string, limit int) (ListChannelsOut, error) {
	page, next, err := paginate(list, func(c *Channel) string { return c.ID }, "team", cursor, limit)
	if err != nil {
		return ListChannelsOut{}, err
	}
	out := ListChannelsOut{OK: true, Channels: []Conversation{}, ResponseMetadata: ResponseMetadata{NextCursor: next}}
	for _, ch := range page {
		out.Channels = append(out.Channels, w.conversation(ch))
	}
	return out, nil
}

// parseTypes reads conversations.list's types argument.
func parseTypes(s string) (map[string]bool, error) {
	out := map[string]bool{}
	if strings.TrimSpace(s) == "" {
		out[TypePublic] = true
		return out, nil
	}
	for _, t := range strings.Split(s, ",") {
		t = strings.TrimSpace(t)
		switch t {
		case TypePublic, TypePrivate, TypeIM, TypeMPIM:
			out[t] = true
		case "":
		default:
			return nil, twins.Errorf(twins.Invalid, "invalid_types", "types has %q; use public_channel, private_channel, mpim or im", t).WithField("types")
		}
	}
	return out, nil
}
