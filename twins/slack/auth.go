package slack

import (
	"context"

	"github.com/pomehq/pome/twins"
)

func authActions() []twins.Action {
	return []twins.Action{
		twins.New(twins.Spec{
			Name:        "slack_auth_test",
			Title:       "Check the token",
			Description: "Reports which workspace and user the token belongs to (auth.test).",
			Effect:      twins.Read,
			Bindings:    method("auth.test", nil),
		}, authTest),
	}
}

// AuthTestIn is auth.test's input: it takes no arguments.
type AuthTestIn struct{}

// AuthTestOut is auth.test's response.
type AuthTestOut struct {
	OK                  bool   `json:"ok"`
	URL                 string `json:"url"`
	Team                string `json:"team"`
	User                string `json:"user"`
	TeamID              string `json:"team_id"`
	UserID              string `json:"user_id"`
	BotID               string `json:"bot_id,omitempty"`
	AppID               string `json:"app_id,omitempty"`
	IsEnterpriseInstall bool   `json:"is_enterprise_install"`
}

func authTest(ctx context.Context, w *World, _ AuthTestIn) (AuthTestOut, error) {
	out := AuthTestOut{OK: true, URL: w.Team.URL(), Team: w.Team.Name, TeamID: w.Team.ID, UserID: w.AuthUser}
	if u := w.me(); u != nil {
		out.User = u.Name
	}
	// A user's call is no bot's: auth.test names no bot_id or app_id.
	if b := w.botOfUser(w.AuthUser); b != nil && !actsAsUser(ctx) {
		out.BotID, out.AppID = b.ID, b.AppID
	}
	return out, nil
}
