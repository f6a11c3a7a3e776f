package slack

import (
	"context"
	"encoding/json"
	"sort"
	"strings"

	"github.com/pomehq/pome/twins"
)

func userMoreActions() []twins.Action {
	return []twins.Action{
		twins.New(twins.Spec{
			Name: "slack_lookup_user_by_email", Title: "Find a user by email",
			Description: "Finds a workspace member by email address (users.lookupByEmail).",
			Effect:      twins.Read, Bindings: method("users.lookupByEmail", nil),
		}, lookupByEmail),
		twins.New(twins.Spec{
			Name: "slack_get_user_profile", Title: "Get a profile",
			Description: "Returns a user's profile (default: the token's user) (users.profile.get).",
			Effect:      twins.Read, Bindings: method("users.profile.get", map[string]string{"user": "user_id"}),
		}, getProfile),
		twins.New(twins.Spec{
			Name: "slack_set_user_profile", Title: "Update a profile",
			Description: "Updates the token user's profile fields (display_name, title, status_text, …) (users.profile.set). " +
				"Admins may update another user's profile with user_id.",
			Effect: twins.Write, Bindings: method("users.profile.set", map[string]string{"user": "user_id"}),
		}, setProfile),
		twins.New(twins.Spec{
			Name: "slack_list_user_conversations", Title: "List a user's conversations",
			Description: "Lists the conversations a user (default: the token's user) belongs to (users.conversations).",
			Effect:      twins.Read, Bindings: method("users.conversations", map[string]string{"user": "user_id"}),
		}, userConversations),
		twins.New(twins.Spec{
			Name: "slack_get_team_info", Title: "Get the workspace",
			Description: "Returns the workspace's id, name and domain (team.info).",
			Effect:      twins.Read, Bindings: method("team.info", nil),
		}, teamInfo),
		twins.New(twins.Spec{
			Name: "slack_list_emoji", Title: "List custom emoji",
			Description: "Lists the workspace's custom emoji and aliases (emoji.list).",
			Effect:      twins.Read, Bindings: method("emoji.list", nil),
		}, listEmoji),
	}
}

// LookupByEmailIn is users.lookupByEmail's input.
type LookupByEmailIn struct {
	Email string `json:"email" jsonschema:"Email address"`
}

func lookupByEmail(ctx context.Context, w *World, in LookupByEmailIn) (UserOut, error) {
	for _, u := range w.Users {
		if u.Profile.Email != "" && strings.EqualFold(u.Profile.Email, strings.TrimSpace(in.Email)) {
			return UserOut{OK: true, User: *u}, nil
		}
	}
	return UserOut{}, twins.Errorf(twins.NotFound, "users_not_found", "No member has the email %q.", in.Email)
}

// ProfileIn is users.profile.get's input.
type ProfileIn struct {
	UserID        string `json:"user_id,omitempty" jsonschema:"User id (default: the token's user)"`
	IncludeLabels bool   `json:"include_labels,omitempty" jsonschema:"Include custom field labels"`
}

// ProfileOut is users.profile.get's and users.profile.set's response.
type ProfileOut struct {
	OK      bool        `json:"ok"`
	Profile UserProfile `json:"profile"`
}

func (w *World) userOrMe(id string) (*User, error) {
	if id == "" {
		if u := w.me(); u != nil {
			return u, nil
		}
	}
	u := w.userByID(id)
	if u == nil {
		return nil, errUserNotFound(id)
	}
	return u, nil
}

func getProfile(ctx context.Context, w *World, in ProfileIn) (ProfileOut, error) {
	u, err := w.userOrMe(in.UserID)
	if err != nil {
		return ProfileOut{}, err
	}
	return ProfileOut{OK: true, Profile: u.Profile}, nil
}

// SetProfileIn is users.profile.set's input: profile is a JSON object (or
// its string, as form bodies send it), or one name/value pair.
type SetProfileIn struct {
	UserID  string `json:"user_id,omitempty" jsonschema:"User id (default: the token's user; others need an admin)"`
	Profile any    `json:"profile,omitempty" jsonschema:"Fields to change, e.g. {\"title\": \"SRE\", \"status_text\": \"on call\"}"`
	Name    string `json:"name,omitempty" jsonschema:"One field to change (with value)"`
	Value   string `json:"value,omitempty" jsonschema:"The value for name"`
}

func setProfile(ctx context.Context, w *World, in SetProfileIn) (ProfileOut, error) {
	u, err := w.userOrMe(in.UserID)
	if err != nil {
		return ProfileOut{}, err
	}
	if u.ID != w.AuthUser {
		if me := w.me(); me == nil || !me.IsAdmin {
			return ProfileOut{}, twins.Errorf(twins.Forbidden, "not_admin", "Only admins can change another user's profile.")
		}
	}
	fields := map[string]any{}
	switch p := in.Profile.(type) {
	case nil:
	case string:
		if strings.TrimSpace(p) != "" {
			if err := json.Unmarshal([]byte(p), &fields); err != nil {
				return ProfileOut{}, twins.Errorf(twins.Invalid, "invalid_profile", "profile must be a JSON object: %v", err).WithField("profile")
			}
		}
	case map[string]any:
		fields = p
	default:
		return ProfileOut{}, twins.Errorf(twins.Invalid, "invalid_profile", "profile must be a JSON object").WithField("profile")
	}
	if in.Name != "" {
		fields[in.Name] = in.Value
	}
	if len(fields) == 0 {
		return ProfileOut{}, twins.Errorf(twins.Invalid, "invalid_profile", "Pass profile (a JSON object) or name and value.").WithField("profile")
	}
	p := u.Profile
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := fields[k]
		s, isStr := v.(string)
		switch k {
		case "display_name":
			p.DisplayName, p.DisplayNameNormalized = s, s
		case "real_name":
			p.RealName, p.RealNameNormalized = s, s
		case "first_name":
			p.FirstName = s
		case "last_name":
			p.LastName = s
		case "title":
			p.Title = s
		case "phone":
			p.Phone = s
		case "status_text":
			p.StatusText = s
		case "status_emoji":
			p.StatusEmoji = s
		case "status_expiration":
			n, ok := v.(float64)
			if !ok {
				return ProfileOut{}, twins.Errorf(twins.Invalid, "invalid_profile", "status_expiration must be a number").WithField("profile")
			}
			p.StatusExpiration, isStr = int64(n), true
		case "email":
			return ProfileOut{}, twins.Errorf(twins.Forbidden, "cannot_update_admin_user", "The email address cannot be changed through the API in the twin.")
		default:
			return ProfileOut{}, twins.Errorf(twins.Invalid, "invalid_profile", "Unknown profile field %q.", k).WithField("profile")
		}
		if !isStr {
			return ProfileOut{}, twins.Errorf(twins.Invalid, "invalid_profile", "%s must be a string", k).WithField("profile")
		}
	}
	if p == u.Profile {
		twins.Unchanged(ctx)
	}
	u.Profile = p
	u.RealName = p.RealName
	u.Updated = now(ctx)
	return ProfileOut{OK: true, Profile: u.Profile}, nil
}

// UserConversationsIn is users.conversations' input.
type UserConversationsIn struct {
	UserID          string `json:"user_id,omitempty" jsonschema:"User id (default: the token's user)"`
	Types           string `json:"types,omitempty" jsonschema:"Comma-separated: public_channel (default), private_channel, mpim, im"`
	ExcludeArchived bool   `json:"exclude_archived,omitempty" jsonschema:"Leave archived channels out"`
	Cursor          string `json:"cursor,omitempty" jsonschema:"response_metadata.next_cursor of the previous page"`
	Limit           int    `json:"limit,omitempty" jsonschema:"Conversations per page (default 100)"`
}

func userConversations(ctx context.Context, w *World, in UserConversationsIn) (ListChannelsOut, error) {
	u, err := w.userOrMe(in.UserID)
	if err != nil {
		return ListChannelsOut{}, err
	}
	types, err := parseTypes(in.Types)
	if err != nil {
		return ListChannelsOut{}, err
	}
	var list []*Channel
	for _, ch := range w.Channels {
		if types[ch.Type] && ch.isMember(u.ID) && ch.visibleTo(w.AuthUser) && !(in.ExcludeArchived && ch.IsArchived) {
			list = append(list, ch)
		}
	}
	return w.channelPage(list, in.Cursor, pageLimit(in.Limit, 100, 1000))
}

// TeamIn is team.info's input.
type TeamIn struct {
	Team string `json:"team,omitempty" jsonschema:"Workspace id (accepted; the twin has one workspace)"`
}

// TeamView is the workspace as team.info returns it.
type TeamView struct {
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	Domain      string   `json:"domain"`
	EmailDomain string   `json:"email_domain"`
	URL         string   `json:"url"`
	Icon        TeamIcon `json:"icon"`
	IsVerified  bool     `json:"is_verified"`
}

// TeamIcon is the workspace icon in its sizes.
type TeamIcon struct {
	Image34      string `json:"image_34"`
	Image44      string `json:"image_44"`
	Image68      string `json:"image_68"`
	Image88      string `json:"image_88"`
	Image102     string `json:"image_102"`
	Image132     string `json:"image_132"`
	Image230     string `json:"image_230"`
	ImageDefault bool   `json:"image_default"`
}

// TeamOut is team.info's response.
type TeamOut struct {
	OK   bool     `json:"ok"`
	Team TeamView `json:"team"`
}

func teamInfo(ctx context.Context, w *World, in TeamIn) (TeamOut, error) {
	if in.Team != "" && in.Team != w.Team.ID {
		return TeamOut{}, twins.Errorf(twins.NotFound, "team_not_found", "No workspace %q.", in.Team)
	}
	img := func(n string) string {
		return "https://a.slack-edge.com/80588/img/avatars-teams/ava_0001-" + n + ".png"
	}
	icon := TeamIcon{Image34: img("34"), Image44: img("44"), Image68: img("68"), Image88: img("88"),
		Image102: img("102"), Image132: img("132"), Image230: img("230"), ImageDefault: true}
	return TeamOut{OK: true, Team: TeamView{ID: w.Team.ID, Name: w.Team.Name, Domain: w.Team.Domain, EmailDomain: w.Team.EmailDomain, URL: w.Team.URL(), Icon: icon}}, nil
}

// EmojiIn is emoji.list's input.
type EmojiIn struct {
	IncludeCategories bool `json:"include_categories,omitempty" jsonschema:"Accepted; the twin lists custom emoji only"`
}

// EmojiOut is emoji.list's response.
type EmojiOut struct {
	OK      bool              `json:"ok"`
	Emoji   map[string]string `json:"emoji"`
	CacheTS string            `json:"cache_ts"`
}

func listEmoji(ctx context.Context, w *World, _ EmojiIn) (EmojiOut, error) {
	out := EmojiOut{OK: true, Emoji: map[string]string{}, CacheTS: formatTS(twins.EnvFrom(ctx).Now().UnixMicro())}
	for k, v := range w.Emoji {
		out.Emoji[k] = v
	}
	return out, nil
}
