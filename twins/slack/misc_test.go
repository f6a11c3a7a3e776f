package slack

import (
	"net/http"
	"testing"

	"github.com/pomehq/pome/twins"
)

func TestAddReaction(t *testing.T) {
	w := world(t, "")
	gen := ch(t, w, "general")
	ts := gen.Messages[0].TS
	r := mustCall(t, w, "slack_add_reaction", `{"channel_id": "`+gen.ID+`", "message_ts": "`+ts+`", "emoji": ":thumbsup:"}`)
	if !r.Mutated || decode(t, r.Out)["ok"] != true {
		t.Fatalf("out = %+v", r)
	}
	if rs := gen.Messages[0].Reactions; len(rs) != 1 || rs[0].Name != "thumbsup" || rs[0].Count != 1 || rs[0].Users[0] != w.AuthUser {
		t.Errorf("reactions = %+v", rs)
	}
	wantErr(t, call(t, w, "slack_add_reaction", `{"channel_id": "general", "message_ts": "`+ts+`", "emoji": "thumbsup"}`), "already_reacted")
	wantErr(t, call(t, w, "slack_add_reaction", `{"channel_id": "general", "message_ts": "1.000000", "emoji": "tada"}`), "message_not_found")
	wantErr(t, call(t, w, "slack_add_reaction", `{"channel_id": "nope", "message_ts": "`+ts+`", "emoji": "tada"}`), "channel_not_found")
	wantErr(t, call(t, w, "slack_add_reaction", `{"channel_id": "general", "message_ts": "`+ts+`", "emoji": "Not An Emoji"}`), "invalid_name")
	wantErr(t, call(t, w, "slack_add_reaction", `{"channel_id": "general", "message_ts": "", "emoji": "tada"}`), "no_item_specified")
}

func TestUsers(t *testing.T) {
	w := world(t, "")
	out := mustCall(t, w, "slack_list_users", `{}`).Out.(ListUsersOut)
	// Slack's own Slackbot is a member of every workspace.
	if len(out.Members) != 4 || out.Members[0].Name != "pome-agent" || out.Members[3].ID != SlackbotID || out.ResponseMetadata.NextCursor != "" {
		t.Fatalf("users = %+v", out)
	}
	p1 := mustCall(t, w, "slack_list_users", `{"limit": 2}`).Out.(ListUsersOut)
	p2 := mustCall(t, w, "slack_list_users", `{"limit": 2, "cursor": "`+p1.ResponseMetadata.NextCursor+`"}`).Out.(ListUsersOut)
	if len(p1.Members) != 2 || len(p2.Members) != 2 || p2.Members[0].Name != "bob" {
		t.Errorf("pages = %d, %d", len(p1.Members), len(p2.Members))
	}
	alice := w.user("alice")
	u := mustCall(t, w, "slack_read_user_profile", `{"user_id": "`+alice.ID+`"}`).Out.(UserOut)
	if !u.OK || u.User.Name != "alice" || u.User.Profile.Email != "alice@acme.test" || u.User.Profile.RealName != "Alice Park" {
		t.Errorf("user = %+v", u)
	}
	wantErr(t, call(t, w, "slack_read_user_profile", `{"user_id": "U0NOPE"}`), "user_not_found")
}

func TestAuthTest(t *testing.T) {
	w := world(t, "")
	out := mustCall(t, w, "slack_auth_test", `{}`).Out.(AuthTestOut)
	if !out.OK || out.User != "pome-agent" || out.UserID != w.AuthUser || out.Team != "Acme" || out.TeamID != w.Team.ID || out.URL != "https://acme.slack.com/" {
		t.Errorf("auth.test = %+v", out)
	}
}

func TestRESTError(t *testing.T) {
	cases := []struct {
		err    *twins.Error
		status int
		code   string
	}{
		{errChannelNotFound("C1"), http.StatusOK, "channel_not_found"},
		{twins.Errorf(twins.Invalid, "no_text", "no text"), http.StatusOK, "no_text"},
		{twins.Errorf(twins.Invalid, "invalid_arguments", "missing channel_id"), http.StatusOK, "invalid_arguments"},
		{twins.Errorf(twins.Invalid, "invalid_json", "bad"), http.StatusOK, "invalid_json"},
		{twins.Errorf(twins.Unauthorized, "not_authed", "no token"), http.StatusOK, "not_authed"},
		{twins.Errorf(twins.Unauthorized, "", "bad token"), http.StatusOK, "invalid_auth"},
		{twins.Errorf(twins.RateLimited, "", "slow down"), http.StatusTooManyRequests, "ratelimited"},
		{twins.Errorf(twins.TooLarge, "", "big"), http.StatusRequestEntityTooLarge, "request_too_large"},
		{twins.Errorf(twins.Internal, "", "boom"), http.StatusOK, "internal_error"},
	}
	for _, c := range cases {
		status, body := restError(c.err)
		b := body.(errorBody)
		if status != c.status || b.OK || b.Error != c.code {
			t.Errorf("%v: got %d %+v, want %d %s", c.err, status, b, c.status, c.code)
		}
	}
	_, body := restError(twins.Errorf(twins.Invalid, "invalid_arguments", "missing channel_id"))
	if m := body.(errorBody).ResponseMetadata; m == nil || m.Messages[0] != "[ERROR] missing channel_id" {
		t.Errorf("metadata = %+v", m)
	}
}
