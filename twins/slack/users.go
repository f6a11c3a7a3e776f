package slack

import (
	"context"

	"github.com/pomehq/pome/twins"
)

func userActions() []twins.Action {
	return []twins.Action{
		twins.New(twins.Spec{
			Name:        "slack_list_users",
			Title:       "List users",
			Description: "Lists the workspace's members, deleted ones included (users.list). Page with cursor = response_metadata.next_cursor.",
			Effect:      twins.Read,
			Bindings:    method("users.list", nil),
		}, listUsers),
		twins.New(twins.Spec{
			Name:        "slack_read_user_profile",
			Title:       "Read a user's profile",
			Description: "Reads a user's account and profile by user id (users.info).",
			Effect:      twins.Read,
			Bindings:    method("users.info", map[string]string{"user": "user_id"}),
		}, readUserProfile),
	}
}

// ListUsersIn is users.list's input.
type ListUsersIn struct {
	Cursor        string `json:"cursor,omitempty" jsonschema:"response_metadata.next_cursor of the previous page"`
	Limit         int    `json:"limit,omitempty" jsonschema:"Users per page (default: all, at most 1000)"`
	IncludeLocale bool   `json:"include_locale,omitempty" jsonschema:"Include each user's locale"`
	TeamID        string `json:"team_id,omitempty" jsonschema:"Workspace id (accepted; the twin has one workspace)"`
}

// ListUsersOut is users.list's response.
type ListUsersOut struct {
	OK               bool             `json:"ok"`
	Members          []User           `json:"members"`
	CacheTS          int64            `json:"cache_ts"`
	ResponseMetadata ResponseMetadata `json:"response_metadata"`
}

func listUsers(ctx context.Context, w *World, in ListUsersIn) (ListUsersOut, error) {
	page, next, err := paginate(w.Users, func(u *User) string { return u.ID }, "user", in.Cursor, pageLimit(in.Limit, 1000, 1000))
	if err != nil {
		return ListUsersOut{}, err
	}
	out := ListUsersOut{OK: true, Members: []User{}, CacheTS: now(ctx), ResponseMetadata: ResponseMetadata{NextCursor: next}}
	for _, u := range page {
		out.Members = append(out.Members, *u)
	}
	return out, nil
}

// ReadUserProfileIn is users.info's input.
type ReadUserProfileIn struct {
	UserID        string `json:"user_id" jsonschema:"User id (U…)"`
	IncludeLocale bool   `json:"include_locale,omitempty" jsonschema:"Include the user's locale"`
}

// UserOut is users.info's response.
type UserOut struct {
	OK   bool `json:"ok"`
	User User `json:"user"`
}

func readUserProfile(ctx context.Context, w *World, in ReadUserProfileIn) (UserOut, error) {
	u := w.userByID(in.UserID)
	if u == nil {
		return UserOut{}, errUserNotFound(in.UserID)
	}
	return UserOut{OK: true, User: *u}, nil
}
