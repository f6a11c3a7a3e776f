package slack

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestTokenIsABotUser(t *testing.T) {
	w := world(t, "")
	me := w.me()
	bot := w.botOfUser(me.ID)
	if bot == nil || !me.IsBot || me.Profile.BotID != bot.ID || !strings.HasPrefix(bot.ID, "B") || !strings.HasPrefix(bot.AppID, "A") {
		t.Fatalf("token user %+v, bot %+v", me, bot)
	}
	a := mustCall(t, w, "slack_auth_test", `{}`).Out.(AuthTestOut)
	if a.BotID != bot.ID || a.AppID != bot.AppID || a.UserID != me.ID || a.User != "pome-agent" {
		t.Errorf("auth.test = %+v", a)
	}
	// What it posts is signed by the bot, in the answer and in history.
	r := decode(t, mustCall(t, w, "slack_send_message", `{"channel_id": "general", "message": "deploy done"}`).Out)
	msg := r["message"].(map[string]any)
	prof, _ := msg["bot_profile"].(map[string]any)
	if msg["bot_id"] != bot.ID || msg["app_id"] != bot.AppID || msg["user"] != me.ID || prof == nil ||
		prof["name"] != "pome-agent" || prof["user_id"] != me.ID || prof["team_id"] != w.Team.ID || msg["subtype"] != nil {
		t.Errorf("posted = %v", msg)
	}
	if _, ok := prof["icons"].(map[string]any)["image_48"]; !ok {
		t.Errorf("bot_profile icons = %v", prof["icons"])
	}
	h := decode(t, mustCall(t, w, "slack_read_channel", `{"channel_id": "general", "limit": 1}`).Out)
	if last := h["messages"].([]any)[0].(map[string]any); last["bot_id"] != bot.ID || last["bot_profile"] == nil {
		t.Errorf("history = %v", last)
	}
	// Other users' messages are not.
	if greet := ch(t, w, "general").Messages[0]; greet.BotID != "" || greet.BotProfile != nil {
		t.Errorf("seeded greeting = %+v", greet)
	}
}

func TestTokenBotFromSeed(t *testing.T) {
	w := world(t, `{"users": [{"name": "pome-agent"}, {"name": "opsbot"}], "channels": [{"name": "general"}], "bots": [{"id": "B0OPS", "name": "Ops Helper", "user": "pome-agent"}]}`)
	a := mustCall(t, w, "slack_auth_test", `{}`).Out.(AuthTestOut)
	if a.BotID != "B0OPS" || len(w.Bots) != 1 {
		t.Errorf("auth.test = %+v, bots %+v", a, w.Bots)
	}
	r := decode(t, mustCall(t, w, "slack_send_message", `{"channel_id": "general", "message": "x"}`).Out)
	if r["message"].(map[string]any)["bot_profile"].(map[string]any)["name"] != "Ops Helper" {
		t.Errorf("posted = %v", r)
	}
}

func TestSlackbot(t *testing.T) {
	w := world(t, `{"users": [{"name": "ana"}], "channels": [{"name": "ops"}]}`)
	u := decode(t, mustCall(t, w, "slack_read_user_profile", `{"user_id": "USLACKBOT"}`).Out)["user"].(map[string]any)
	if u["name"] != "slackbot" || u["real_name"] != "Slackbot" || u["is_bot"] != false || u["deleted"] != false {
		t.Errorf("users.info USLACKBOT = %v", u)
	}
	// Not a member of channels a seed leaves to everyone.
	if ch(t, w, "ops").isMember(SlackbotID) {
		t.Error("slackbot joined #ops")
	}
	// A DM with Slackbot, as every user has.
	mustCall(t, w, "slack_send_message", `{"channel_id": "USLACKBOT", "message": "remind me at 5"}`)
	if im := w.imWith(SlackbotID); im == nil || len(im.Messages) != 1 {
		t.Errorf("DM with slackbot = %+v", im)
	}
	// The state document carries it through a round trip.
	b, _ := json.Marshal(clone(t, w))
	if !strings.Contains(string(b), `"id":"USLACKBOT"`) {
		t.Error("slackbot lost in the state document")
	}
}
