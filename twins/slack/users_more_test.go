package slack

import "testing"

func TestUsersMore(t *testing.T) {
	w := world(t, richSeed)
	u := mustCall(t, w, "slack_lookup_user_by_email", `{"email": "ALICE@globex.test"}`).Out.(UserOut)
	if u.User.Name != "alice" {
		t.Errorf("lookup = %+v", u)
	}
	wantErr(t, call(t, w, "slack_lookup_user_by_email", `{"email": "nobody@x.test"}`), "users_not_found")

	p := mustCall(t, w, "slack_get_user_profile", `{}`).Out.(ProfileOut)
	if p.Profile.RealName != "pome-agent" {
		t.Errorf("own profile = %+v", p.Profile)
	}
	mustCall(t, w, "slack_get_user_profile", `{"user_id": "U0ALICE01"}`)
	wantErr(t, call(t, w, "slack_get_user_profile", `{"user_id": "U0NOPE"}`), "user_not_found")

	r := mustCall(t, w, "slack_set_user_profile", `{"profile": "{\"status_text\": \"on call\", \"status_emoji\": \":pager:\", \"status_expiration\": 0}"}`)
	if !r.Mutated || w.me().Profile.StatusText != "on call" || w.me().Profile.StatusEmoji != ":pager:" {
		t.Errorf("set = %+v", w.me().Profile)
	}
	if again := mustCall(t, w, "slack_set_user_profile", `{"name": "status_text", "value": "on call"}`); again.Mutated {
		t.Error("unchanged profile is a mutation")
	}
	mustCall(t, w, "slack_set_user_profile", `{"profile": {"title": "SRE"}}`)
	if w.me().Profile.Title != "SRE" {
		t.Error("object profile not applied")
	}
	for _, c := range []struct{ args, err string }{
		{`{}`, "invalid_profile"},
		{`{"profile": "not json"}`, "invalid_profile"},
		{`{"profile": {"shoe_size": "42"}}`, "invalid_profile"},
		{`{"profile": {"title": 7}}`, "invalid_profile"},
	} {
		wantErr(t, call(t, w, "slack_set_user_profile", c.args), c.err)
	}
	// The admin may edit alice; a plain member may not.
	mustCall(t, w, "slack_set_user_profile", `{"user_id": "U0ALICE01", "profile": {"title": "Director"}}`)
	plain := world(t, `{"users": [{"name": "pome-agent"}, {"id": "U0ALICE01", "name": "alice"}]}`)
	wantErr(t, call(t, plain, "slack_set_user_profile", `{"user_id": "U0ALICE01", "profile": {"title": "x"}}`), "not_admin")

	convs := mustCall(t, w, "slack_list_user_conversations", `{"types": "public_channel,private_channel,im"}`).Out.(ListChannelsOut)
	if len(convs.Channels) != 2 { // eng and the DM with alice
		t.Errorf("own conversations = %+v", convs.Channels)
	}
	// alice is in secret-plans, but the token's user cannot see it.
	ac := mustCall(t, w, "slack_list_user_conversations", `{"user_id": "U0ALICE01", "types": "public_channel,private_channel"}`).Out.(ListChannelsOut)
	if len(ac.Channels) != 1 || ac.Channels[0].Name != "eng" {
		t.Errorf("alice's conversations = %+v", ac.Channels)
	}

	team := mustCall(t, w, "slack_get_team_info", `{}`).Out.(TeamOut)
	if team.Team.Name != "Globex" || team.Team.Domain != "globex" {
		t.Errorf("team = %+v", team)
	}
	wantErr(t, call(t, w, "slack_get_team_info", `{"team": "T0OTHER"}`), "team_not_found")
	emoji := mustCall(t, w, "slack_list_emoji", `{}`).Out.(EmojiOut)
	if emoji.Emoji["shipit"] == "" || emoji.Emoji["squirrel"] != "alias:shipit" {
		t.Errorf("emoji = %+v", emoji)
	}
}
