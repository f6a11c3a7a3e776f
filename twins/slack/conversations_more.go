package slack

import (
	"context"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/pomehq/pome/twins"
)

// maxTopicLen is the longest topic or purpose Slack accepts.
const maxTopicLen = 250

func conversationAdminActions() []twins.Action {
	ch := map[string]string{"channel": "channel_id"}
	return []twins.Action{
		twins.New(twins.Spec{
			Name: "slack_get_channel_info", Title: "Get a conversation",
			Description: "Returns one conversation's details: name, topic, purpose, membership, archive state (conversations.info).",
			Effect:      twins.Read, Bindings: method("conversations.info", ch),
		}, channelInfo),
		twins.New(twins.Spec{
			Name: "slack_create_conversation", Title: "Create a channel",
			Description: "Creates a public or private channel and joins it (conversations.create). Names are lower-case " +
				"letters, digits, '-' and '_', at most 80 characters, and unique.",
			Effect: twins.Write, Bindings: method("conversations.create", map[string]string{"name": "channel_name"}),
		}, createConversation),
		twins.New(twins.Spec{
			Name: "slack_join_channel", Title: "Join a channel",
			Description: "Joins a public channel as the token's user (conversations.join).",
			Effect:      twins.Write, Bindings: method("conversations.join", ch),
		}, joinChannel),
		twins.New(twins.Spec{
			Name: "slack_leave_channel", Title: "Leave a channel",
			Description: "Leaves a channel as the token's user (conversations.leave).",
			Effect:      twins.Write, Bindings: method("conversations.leave", ch),
		}, leaveChannel),
		twins.New(twins.Spec{
			Name: "slack_invite_to_channel", Title: "Invite users to a channel",
			Description: "Adds users (comma-separated ids) to a channel the token's user is in (conversations.invite).",
			Effect:      twins.Write, Bindings: method("conversations.invite", ch),
		}, inviteToChannel),
		twins.New(twins.Spec{
			Name: "slack_kick_from_channel", Title: "Remove a user from a channel",
			Description: "Removes a member from a channel (conversations.kick).",
			Effect:      twins.Destructive, Bindings: method("conversations.kick", map[string]string{"channel": "channel_id", "user": "user_id"}),
		}, kickFromChannel),
		twins.New(twins.Spec{
			Name: "slack_archive_channel", Title: "Archive a channel",
			Description: "Archives a channel (conversations.archive); its history stays readable, nobody can post.",
			Effect:      twins.Destructive, Bindings: method("conversations.archive", ch),
		}, archiveChannel),
		twins.New(twins.Spec{
			Name: "slack_unarchive_channel", Title: "Unarchive a channel",
			Description: "Reverses conversations.archive (conversations.unarchive).",
			Effect:      twins.Write, Bindings: method("conversations.unarchive", ch),
		}, unarchiveChannel),
		twins.New(twins.Spec{
			Name: "slack_list_channel_members", Title: "List a channel's members",
			Description: "Lists the user ids of a conversation's members (conversations.members). Page with cursor.",
			Effect:      twins.Read, Bindings: method("conversations.members", ch),
		}, listChannelMembers),
		twins.New(twins.Spec{
			Name: "slack_open_conversation", Title: "Open a DM",
			Description: "Opens (or finds) a DM with one user, or a group DM with several (comma-separated ids) (conversations.open).",
			Effect:      twins.Write, Bindings: method("conversations.open", ch),
		}, openConversation),
		twins.New(twins.Spec{
			Name: "slack_set_channel_topic", Title: "Set a channel's topic",
			Description: "Sets a conversation's topic (conversations.setTopic).",
			Effect:      twins.Write, Bindings: method("conversations.setTopic", ch),
		}, setTopic),
		twins.New(twins.Spec{
			Name: "slack_set_channel_purpose", Title: "Set a channel's purpose",
			Description: "Sets a conversation's purpose (description) (conversations.setPurpose).",
			Effect:      twins.Write, Bindings: method("conversations.setPurpose", ch),
		}, setPurpose),
		twins.New(twins.Spec{
			Name: "slack_rename_channel", Title: "Rename a channel",
			Description: "Renames a channel (conversations.rename); the old name goes to previous_names.",
			Effect:      twins.Write, Bindings: method("conversations.rename", ch),
		}, renameChannel),
	}
}

// ChannelIn names one conversation.
type ChannelIn struct {
	ChannelID         string `json:"channel_id" jsonschema:"Channel id (C…), or channel name"`
	IncludeNumMembers bool   `json:"include_num_members,omitempty" jsonschema:"Include num_members"`
	IncludeLocale     bool   `json:"include_locale,omitempty" jsonschema:"Include the locale"`
}

// ChannelOut is the response of methods that return one conversation.
type ChannelOut struct {
	OK      bool         `json:"ok"`
	Channel Conversation `json:"channel"`
}

// visible resolves a conversation the token's user can see.
func (w *World) visible(ref string) (*Channel, error) {
	ch := w.channelRef(ref)
	if ch == nil || !ch.visibleTo(w.AuthUser) {
		return nil, errChannelNotFound(ref)
	}
	return ch, nil
}

func channelInfo(ctx context.Context, w *World, in ChannelIn) (ChannelOut, error) {
	ch, err := w.visible(in.ChannelID)
	if err != nil {
		return ChannelOut{}, err
	}
	return ChannelOut{OK: true, Channel: w.conversation(ch)}, nil
}

// checkChannelName applies Slack's channel name rules.
func (w *World) checkChannelName(name string, self *Channel) error {
	switch {
	case name == "":
		return twins.Errorf(twins.Invalid, "invalid_name_required", "A channel name is required.").WithField("name")
	case utf8.RuneCountInString(name) > 80:
		return twins.Errorf(twins.Invalid, "invalid_name_maxlength", "Channel names are at most 80 characters.").WithField("name")
	case strings.IndexFunc(name, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) < 0:
		return twins.Errorf(twins.Invalid, "invalid_name_punctuation", "A channel name needs a letter or a digit.").WithField("name")
	case !channelNameRE.MatchString(name):
		return twins.Errorf(twins.Invalid, "invalid_name", "Channel names are lower-case letters, digits, '-' and '_' (got %q).", name).WithField("name")
	}
	for _, c := range w.Channels {
		if c != self && c.Name == name && (c.Type == TypePublic || c.Type == TypePrivate) {
			// Slack says name_taken for a private channel the caller is
			// not in too, but names no channel it may not see.
			if !c.visibleTo(w.AuthUser) {
				return twins.Errorf(twins.Conflict, "name_taken", "A channel named %q already exists.", name).WithField("name")
			}
			return twins.Errorf(twins.Conflict, "name_taken", "A channel named %q already exists (%s).", name, c.ID).WithField("name")
		}
	}
	return nil
}

// CreateConversationIn is conversations.create's input.
type CreateConversationIn struct {
	Name      string `json:"channel_name" jsonschema:"Channel name: lower-case letters, digits, '-' and '_'"`
	IsPrivate bool   `json:"is_private,omitempty" jsonschema:"Create a private channel"`
	TeamID    string `json:"team_id,omitempty" jsonschema:"Workspace id (accepted; the twin has one workspace)"`
}

func createConversation(ctx context.Context, w *World, in CreateConversationIn) (ChannelOut, error) {
	name := strings.TrimPrefix(strings.TrimSpace(in.Name), "#")
	if err := w.checkChannelName(name, nil); err != nil {
		return ChannelOut{}, err
	}
	typ, prefix := TypePublic, "C"
	if in.IsPrivate {
		typ, prefix = TypePrivate, "G"
	}
	t := now(ctx)
	ch := &Channel{
		ID: w.newID(prefix), Name: name, Type: typ, Created: t, Creator: w.AuthUser,
		Members: []string{w.AuthUser}, PreviousNames: []string{}, Messages: []*Message{}, Bookmarks: []*Bookmark{}, Pins: []*Pin{},
	}
	w.Channels = append(w.Channels, ch)
	return ChannelOut{OK: true, Channel: w.conversation(ch)}, nil
}

// systemMessage records one of Slack's own notices (joins, topic changes).
func (w *World) systemMessage(ctx context.Context, ch *Channel, subtype, user, text string) {
	m := &Message{Type: "message", Subtype: subtype, TS: w.nextTS(ctx, ch), User: user, Text: text, Team: w.Team.ID}
	ch.insert(m)
}

// JoinOut is conversations.join's response.
type JoinOut struct {
	OK               bool          `json:"ok"`
	Channel          Conversation  `json:"channel"`
	Warning          string        `json:"warning,omitempty"`
	ResponseMetadata *warningsMeta `json:"response_metadata,omitempty"`
}

type warningsMeta struct {
	Warnings []string `json:"warnings"`
}

func joinChannel(ctx context.Context, w *World, in ChannelIn) (JoinOut, error) {
	ch, err := w.visible(in.ChannelID)
	if err != nil {
		return JoinOut{}, err
	}
	if ch.Type != TypePublic {
		return JoinOut{}, twins.Errorf(twins.Forbidden, "method_not_supported_for_channel_type", "Only public channels can be joined; ask a member to invite you.")
	}
	if ch.IsArchived {
		return JoinOut{}, errIsArchived(ch)
	}
	if ch.isMember(w.AuthUser) {
		twins.Unchanged(ctx)
		return JoinOut{OK: true, Channel: w.conversation(ch), Warning: "already_in_channel",
			ResponseMetadata: &warningsMeta{Warnings: []string{"already_in_channel"}}}, nil
	}
	ch.Members = append(ch.Members, w.AuthUser)
	w.systemMessage(ctx, ch, "channel_join", w.AuthUser, fmt.Sprintf("<@%s> has joined the channel", w.AuthUser))
	return JoinOut{OK: true, Channel: w.conversation(ch)}, nil
}

// LeaveOut is conversations.leave's response.
type LeaveOut struct {
	OK           bool `json:"ok"`
	NotInChannel bool `json:"not_in_channel,omitempty"`
}

func leaveChannel(ctx context.Context, w *World, in ChannelIn) (LeaveOut, error) {
	ch, err := w.visible(in.ChannelID)
	if err != nil {
		return LeaveOut{}, err
	}
	if ch.IsGeneral {
		return LeaveOut{}, twins.Errorf(twins.Forbidden, "cant_leave_general", "Nobody can leave #%s, the workspace's general channel.", ch.Name)
	}
	if ch.Type == TypeIM {
		return LeaveOut{}, twins.Errorf(twins.Forbidden, "method_not_supported_for_channel_type", "A DM cannot be left.")
	}
	if ch.IsArchived {
		return LeaveOut{}, errIsArchived(ch)
	}
	if !ch.isMember(w.AuthUser) {
		twins.Unchanged(ctx)
		return LeaveOut{OK: true, NotInChannel: true}, nil
	}
	ch.Members = without(ch.Members, w.AuthUser)
	w.systemMessage(ctx, ch, "channel_leave", w.AuthUser, fmt.Sprintf("<@%s> has left the channel", w.AuthUser))
	return LeaveOut{OK: true}, nil
}

func without(list []string, x string) []string {
	out := []string{}
	for _, v := range list {
		if v != x {
			out = append(out, v)
		}
	}
	return out
}

// InviteIn is conversations.invite's input.
type InviteIn struct {
	ChannelID string `json:"channel_id" jsonschema:"Channel id (C…), or channel name"`
	Users     string `json:"users" jsonschema:"Comma-separated user ids to add"`
}

// member resolves a channel the token's user belongs to and may change.
func (w *World) member(ref string) (*Channel, error) {
	ch, err := w.readable(ref)
	if err != nil {
		return nil, err
	}
	if ch.IsArchived {
		return nil, errIsArchived(ch)
	}
	return ch, nil
}

func inviteToChannel(ctx context.Context, w *World, in InviteIn) (ChannelOut, error) {
	ch, err := w.member(in.ChannelID)
	if err != nil {
		return ChannelOut{}, err
	}
	if ch.Type == TypeIM {
		return ChannelOut{}, twins.Errorf(twins.Forbidden, "method_not_supported_for_channel_type", "Nobody can be invited to a DM.")
	}
	var add []string
	for _, ref := range strings.Split(in.Users, ",") {
		ref = strings.TrimSpace(ref)
		if ref == "" {
			continue
		}
		u := w.userByID(ref)
		if u == nil || u.Deleted {
			return ChannelOut{}, errUserNotFound(ref)
		}
		if u.ID == w.AuthUser {
			return ChannelOut{}, twins.Errorf(twins.Invalid, "cant_invite_self", "The token's user cannot invite itself; use conversations.join.")
		}
		if ch.isMember(u.ID) {
			return ChannelOut{}, twins.Errorf(twins.Conflict, "already_in_channel", "User %s is already in #%s.", u.ID, ch.Name)
		}
		add = append(add, u.ID)
	}
	if len(add) == 0 {
		return ChannelOut{}, twins.Errorf(twins.Invalid, "no_user", "Pass users, a comma-separated list of user ids.").WithField("users")
	}
	for _, id := range add {
		if !ch.isMember(id) {
			ch.Members = append(ch.Members, id)
			w.systemMessage(ctx, ch, "channel_join", id, fmt.Sprintf("<@%s> has joined the channel", id))
		}
	}
	return ChannelOut{OK: true, Channel: w.conversation(ch)}, nil
}

// KickIn is conversations.kick's input.
type KickIn struct {
	ChannelID string `json:"channel_id" jsonschema:"Channel id (C…), or channel name"`
	UserID    string `json:"user_id" jsonschema:"User id to remove"`
}

func kickFromChannel(ctx context.Context, w *World, in KickIn) (OKOut, error) {
	ch, err := w.member(in.ChannelID)
	if err != nil {
		return OKOut{}, err
	}
	u := w.userByID(in.UserID)
	switch {
	case u == nil:
		return OKOut{}, errUserNotFound(in.UserID)
	case u.ID == w.AuthUser:
		return OKOut{}, twins.Errorf(twins.Invalid, "cant_kick_self", "Use conversations.leave to leave a channel.")
	case ch.IsGeneral:
		return OKOut{}, twins.Errorf(twins.Forbidden, "cant_kick_from_general", "Nobody can be removed from #%s.", ch.Name)
	case ch.Type == TypeIM || ch.Type == TypeMPIM:
		return OKOut{}, twins.Errorf(twins.Forbidden, "method_not_supported_for_channel_type", "Nobody can be removed from a DM.")
	case !ch.isMember(u.ID):
		return OKOut{}, twins.Errorf(twins.NotFound, "not_in_channel", "User %s is not in #%s.", u.ID, ch.Name)
	}
	if me := w.me(); me == nil || (!me.IsAdmin && ch.Creator != w.AuthUser) {
		return OKOut{}, twins.Errorf(twins.Forbidden, "restricted_action", "Only admins and the channel's creator can remove members.")
	}
	ch.Members = without(ch.Members, u.ID)
	return OKOut{OK: true}, nil
}

func archiveChannel(ctx context.Context, w *World, in ChannelIn) (OKOut, error) {
	ch, err := w.readable(in.ChannelID)
	if err != nil {
		return OKOut{}, err
	}
	switch {
	case ch.IsArchived:
		return OKOut{}, twins.Errorf(twins.Conflict, "already_archived", "#%s is already archived.", ch.Name)
	case ch.IsGeneral:
		return OKOut{}, twins.Errorf(twins.Forbidden, "cant_archive_general", "#%s cannot be archived.", ch.Name)
	case ch.Type == TypeIM || ch.Type == TypeMPIM:
		return OKOut{}, twins.Errorf(twins.Forbidden, "method_not_supported_for_channel_type", "A DM cannot be archived.")
	}
	w.systemMessage(ctx, ch, "channel_archive", w.AuthUser, fmt.Sprintf("<@%s> archived the channel", w.AuthUser))
	ch.IsArchived = true
	return OKOut{OK: true}, nil
}

func unarchiveChannel(ctx context.Context, w *World, in ChannelIn) (OKOut, error) {
	ch, err := w.visible(in.ChannelID)
	if err != nil {
		return OKOut{}, err
	}
	if !ch.IsArchived {
		return OKOut{}, twins.Errorf(twins.Conflict, "not_archived", "#%s is not archived.", ch.Name)
	}
	ch.IsArchived = false
	if !ch.isMember(w.AuthUser) {
		ch.Members = append(ch.Members, w.AuthUser)
	}
	w.systemMessage(ctx, ch, "channel_unarchive", w.AuthUser, fmt.Sprintf("<@%s> un-archived the channel", w.AuthUser))
	return OKOut{OK: true}, nil
}

// MembersIn is conversations.members' input.
type MembersIn struct {
	ChannelID string `json:"channel_id" jsonschema:"Channel id (C…), or channel name"`
	Cursor    string `json:"cursor,omitempty" jsonschema:"response_metadata.next_cursor of the previous page"`
	Limit     int    `json:"limit,omitempty" jsonschema:"Members per page (default 100, at most 1000)"`
}

// MembersOut is conversations.members' response.
type MembersOut struct {
	OK               bool             `json:"ok"`
	Members          []string         `json:"members"`
	ResponseMetadata ResponseMetadata `json:"response_metadata"`
}

func listChannelMembers(ctx context.Context, w *World, in MembersIn) (MembersOut, error) {
	ch, err := w.visible(in.ChannelID)
	if err != nil {
		return MembersOut{}, err
	}
	page, next, err := paginate(ch.Members, func(id string) string { return id }, "user", in.Cursor, pageLimit(in.Limit, 100, 1000))
	if err != nil {
		return MembersOut{}, err
	}
	return MembersOut{OK: true, Members: append([]string{}, page...), ResponseMetadata: ResponseMetadata{NextCursor: next}}, nil
}

// OpenIn is conversations.open's input.
type OpenIn struct {
	ChannelID string `json:"channel_id,omitempty" jsonschema:"An existing DM or group DM to resume"`
	Users     string `json:"users,omitempty" jsonschema:"Comma-separated user ids: one for a DM, several for a group DM"`
	ReturnIM  bool   `json:"return_im,omitempty" jsonschema:"Return the whole conversation"`
}

// OpenOut is conversations.open's response.
type OpenOut struct {
	OK          bool         `json:"ok"`
	NoOp        bool         `json:"no_op,omitempty"`
	AlreadyOpen bool         `json:"already_open,omitempty"`
	Channel     Conversation `json:"channel"`
}

func openConversation(ctx context.Context, w *World, in OpenIn) (OpenOut, error) {
	if in.ChannelID != "" {
		ch, err := w.visible(in.ChannelID)
		if err != nil {
			return OpenOut{}, err
		}
		twins.Unchanged(ctx)
		return OpenOut{OK: true, NoOp: true, AlreadyOpen: true, Channel: w.conversation(ch)}, nil
	}
	var users []*User
	seen := map[string]bool{}
	for _, ref := range strings.Split(in.Users, ",") {
		ref = strings.TrimSpace(ref)
		if ref == "" || seen[ref] {
			continue
		}
		seen[ref] = true
		u := w.userByID(ref)
		if u == nil || u.Deleted {
			return OpenOut{}, errUserNotFound(ref)
		}
		users = append(users, u)
	}
	switch {
	case len(users) == 0:
		return OpenOut{}, twins.Errorf(twins.Invalid, "users_list_not_supplied", "Pass users (comma-separated ids) or channel.").WithField("users")
	case len(users) > 8:
		return OpenOut{}, twins.Errorf(twins.Invalid, "too_many_users", "A group DM holds at most 8 people besides you.").WithField("users")
	case len(users) == 1:
		if im := w.imWith(users[0].ID); im != nil {
			twins.Unchanged(ctx)
			return OpenOut{OK: true, NoOp: true, AlreadyOpen: true, Channel: w.conversation(im)}, nil
		}
		return OpenOut{OK: true, Channel: w.conversation(w.openIM(ctx, users[0]))}, nil
	}
	members := []string{w.AuthUser}
	for _, u := range users {
		if u.ID != w.AuthUser {
			members = append(members, u.ID)
		}
	}
	for _, c := range w.Channels {
		if c.Type == TypeMPIM && sameSet(c.Members, members) {
			twins.Unchanged(ctx)
			return OpenOut{OK: true, NoOp: true, AlreadyOpen: true, Channel: w.conversation(c)}, nil
		}
	}
	ch := &Channel{
		ID: w.newID("G"), Type: TypeMPIM, Created: now(ctx), Creator: w.AuthUser, Members: members,
		PreviousNames: []string{}, Messages: []*Message{}, Bookmarks: []*Bookmark{}, Pins: []*Pin{},
	}
	ch.Name = mpimName(w, members)
	w.Channels = append(w.Channels, ch)
	return OpenOut{OK: true, Channel: w.conversation(ch)}, nil
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	m := map[string]bool{}
	for _, x := range a {
		m[x] = true
	}
	for _, x := range b {
		if !m[x] {
			return false
		}
	}
	return true
}

// TopicIn is conversations.setTopic's input.
type TopicIn struct {
	ChannelID string `json:"channel_id" jsonschema:"Channel id (C…), or channel name"`
	Topic     string `json:"topic" jsonschema:"The new topic (at most 250 characters)"`
}

// PurposeIn is conversations.setPurpose's input.
type PurposeIn struct {
	ChannelID string `json:"channel_id" jsonschema:"Channel id (C…), or channel name"`
	Purpose   string `json:"purpose" jsonschema:"The new purpose (at most 250 characters)"`
}

func setTopic(ctx context.Context, w *World, in TopicIn) (ChannelOut, error) {
	return w.setTopicOrPurpose(ctx, in.ChannelID, in.Topic, "topic")
}

func setPurpose(ctx context.Context, w *World, in PurposeIn) (ChannelOut, error) {
	return w.setTopicOrPurpose(ctx, in.ChannelID, in.Purpose, "purpose")
}

func (w *World) setTopicOrPurpose(ctx context.Context, ref, value, which string) (ChannelOut, error) {
	ch, err := w.member(ref)
	if err != nil {
		return ChannelOut{}, err
	}
	if utf8.RuneCountInString(value) > maxTopicLen {
		return ChannelOut{}, twins.Errorf(twins.Invalid, "too_long", "The %s is longer than %d characters.", which, maxTopicLen).WithField(which)
	}
	target := &ch.Topic
	if which == "purpose" {
		target = &ch.Purpose
	}
	if target.Value == value {
		twins.Unchanged(ctx)
		return ChannelOut{OK: true, Channel: w.conversation(ch)}, nil
	}
	*target = Topic{Value: value, Creator: w.AuthUser, LastSet: now(ctx)}
	text := fmt.Sprintf("set the channel %s: %s", which, value)
	if value == "" {
		text = fmt.Sprintf("cleared the channel %s", which)
	}
	w.systemMessage(ctx, ch, "channel_"+which, w.AuthUser, text)
	return ChannelOut{OK: true, Channel: w.conversation(ch)}, nil
}

// RenameIn is conversations.rename's input.
type RenameIn struct {
	ChannelID string `json:"channel_id" jsonschema:"Channel id (C…)"`
	Name      string `json:"name" jsonschema:"The new name"`
}

func renameChannel(ctx context.Context, w *World, in RenameIn) (ChannelOut, error) {
	ch, err := w.member(in.ChannelID)
	if err != nil {
		return ChannelOut{}, err
	}
	if ch.Type == TypeIM || ch.Type == TypeMPIM {
		return ChannelOut{}, twins.Errorf(twins.Forbidden, "method_not_supported_for_channel_type", "A DM has no name to change.")
	}
	name := strings.TrimPrefix(strings.TrimSpace(in.Name), "#")
	if name == ch.Name {
		twins.Unchanged(ctx)
		return ChannelOut{OK: true, Channel: w.conversation(ch)}, nil
	}
	if err := w.checkChannelName(name, ch); err != nil {
		return ChannelOut{}, err
	}
	if me := w.me(); me == nil || (!me.IsAdmin && ch.Creator != w.AuthUser) {
		return ChannelOut{}, twins.Errorf(twins.Forbidden, "not_authorized", "Only admins and the channel's creator can rename it.")
	}
	old := ch.Name
	ch.PreviousNames = append(ch.PreviousNames, old)
	ch.Name = name
	w.systemMessage(ctx, ch, "channel_name", w.AuthUser, fmt.Sprintf("renamed the channel from \"%s\" to \"%s\"", old, name))
	return ChannelOut{OK: true, Channel: w.conversation(ch)}, nil
}
