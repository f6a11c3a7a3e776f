package slack_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/slack-go/slack"

	"github.com/pomehq/pome/rest/resttest"
	"github.com/pomehq/pome/session"
)

// userClient is a slack-go client with the sandbox's xoxp- user token.
func userClient(t *testing.T, env *resttest.Env) (string, *slack.Client) {
	t.Helper()
	tok := env.Created.ProviderCredentials["slack"].UserToken
	if !strings.HasPrefix(tok, "xoxp-") {
		t.Fatalf("no xoxp- user token issued: %+v", env.Created.ProviderCredentials["slack"])
	}
	return tok, slack.New(tok, slack.OptionAPIURL(env.APIURL+"/api/"))
}

// TestUserTokenSearch: the sandbox's xoxp- user token searches over REST,
// where its xoxb- bot token gets not_allowed_token_type; it is the token
// user's own, without the bot identity, and never reaches the tape.
func TestUserTokenSearch(t *testing.T) {
	env, bot := start(t, "")
	tok, user := userClient(t, env)
	for _, text := range []string{"deploy started", "deploy done https://ci.acme.test/9", "lunch"} {
		if _, _, err := bot.PostMessage("random", slackText(text)); err != nil {
			t.Fatal(err)
		}
	}
	res, err := user.SearchMessages("deploy in:#random has:link", slack.NewSearchParameters())
	if err != nil {
		t.Fatalf("search.messages with the user token: %v", err)
	}
	if res.Total != 1 || len(res.Matches) != 1 || !strings.Contains(res.Matches[0].Text, "ci.acme.test") {
		t.Fatalf("search = %+v", res)
	}
	if _, err := bot.SearchMessages("deploy", slack.NewSearchParameters()); err == nil || err.Error() != "not_allowed_token_type" {
		t.Fatalf("search.messages with the bot token: %v", err)
	}

	// auth.test: the same user, and no bot behind the user token.
	ua, err := user.AuthTest()
	if err != nil {
		t.Fatal(err)
	}
	ba, err := bot.AuthTest()
	if err != nil {
		t.Fatal(err)
	}
	if ua.UserID != ba.UserID || ua.TeamID != ba.TeamID || ua.BotID != "" || ba.BotID == "" {
		t.Fatalf("auth.test user %+v, bot %+v", ua, ba)
	}
	// A message the user token posts is the user's, not the bot's.
	ch, ts, err := user.PostMessage("general", slackText("posted by hand"))
	if err != nil {
		t.Fatal(err)
	}
	hist, err := bot.GetConversationHistory(&slack.GetConversationHistoryParameters{ChannelID: ch, Limit: 1})
	if err != nil || len(hist.Messages) != 1 || hist.Messages[0].Timestamp != ts {
		t.Fatalf("history = %+v %v", hist, err)
	}
	if m := hist.Messages[0]; m.BotID != "" || m.BotProfile != nil || m.User != ba.UserID {
		t.Errorf("user-token message = %+v", m.Msg)
	}

	raw, err := json.Marshal(env.Tape(t))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte(tok)) || bytes.Contains(raw, []byte(env.Token)) {
		t.Error("a token is on the tape")
	}
	if !bytes.Contains(raw, []byte(`"slack_search_public_and_private"`)) {
		t.Error("the user token's search is not on the tape")
	}
}

// TestUserTokenMCP: over MCP every token acts as the user, as Slack's MCP
// server does: search answers, and neither posts nor auth.test carry the
// bot identity, while the bot token's REST post does.
func TestUserTokenMCP(t *testing.T) {
	env, bot := start(t, "")
	tok, _ := userClient(t, env)
	if _, _, err := bot.PostMessage("random", slackText("release train leaves at noon")); err != nil {
		t.Fatal(err)
	}
	hist, err := bot.GetConversationHistory(&slack.GetConversationHistoryParameters{ChannelID: "random", Limit: 1})
	if err != nil || len(hist.Messages) != 1 || hist.Messages[0].BotID == "" {
		t.Fatalf("the bot token's REST post carries no bot_id: %+v %v", hist, err)
	}
	for name, token := range map[string]string{"user token": tok, "bot token": env.Token} {
		cs := env.MCP(t, "slack", token)
		out, isErr, text := mcpCall(t, cs, "slack_search_public_and_private", map[string]any{"query": "release train"})
		if isErr || out["messages"].(map[string]any)["total"] != float64(1) {
			t.Fatalf("%s: search over MCP: %s", name, text)
		}
		out, isErr, text = mcpCall(t, cs, "slack_send_message", map[string]any{"channel_id": "general", "message": "hello from the user"})
		if isErr {
			t.Fatal(text)
		}
		msg, _ := out["message"].(map[string]any)
		if msg == nil || msg["bot_id"] != nil || msg["bot_profile"] != nil {
			t.Errorf("%s: post over MCP = %s", name, text)
		}
		if out, isErr, text := mcpCall(t, cs, "slack_auth_test", map[string]any{}); isErr || out["bot_id"] != nil || out["user_id"] == "" {
			t.Errorf("%s: auth.test over MCP = %s", name, text)
		}
	}
	raw, err := json.Marshal(env.Tape(t))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte(tok)) || bytes.Contains(raw, []byte(env.Token)) {
		t.Error("a token is on the MCP tape")
	}
}

// TestUserTokenOtherSandbox: sandbox A's user token opens nothing of
// sandbox B on the same server; the refusal is the one every unknown
// token gets, over REST and MCP alike.
func TestUserTokenOtherSandbox(t *testing.T) {
	a, _ := start(t, "")
	var b session.Created
	if status := a.Control(t, http.MethodPost, "/v1/sandboxes", map[string]any{"twins": []string{"slack"}}, &b); status != http.StatusCreated {
		t.Fatalf("create B: %d", status)
	}
	tokA := a.Created.ProviderCredentials["slack"].UserToken
	bURL := b.PerTwin["slack"].APIURL
	call := func(url, tok string) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, url+"/api/search.messages", strings.NewReader("query=deploy"))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	gotStatus, gotBody := call(bURL, tokA)
	wantStatus, wantBody := call(bURL, "xoxp-"+strings.Repeat("1", 40))
	if gotStatus != wantStatus || gotBody != wantBody || strings.Contains(gotBody, `"ok":true`) {
		t.Fatalf("A's user token on B: %d %s; an unknown token: %d %s", gotStatus, gotBody, wantStatus, wantBody)
	}
	if status, body := call(bURL, b.ProviderCredentials["slack"].UserToken); status != http.StatusOK || !strings.Contains(body, `"ok":true`) {
		t.Fatalf("B's own user token on B: %d %s", status, body)
	}
	// Over MCP too: A's user token cannot open B's MCP endpoint, and is
	// refused exactly as an unknown token is (MCP's refusal is the opaque
	// 404, where Slack's REST surface answers invalid_auth).
	mcp := func(tok string) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, b.PerTwin["slack"].MCPURL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp.StatusCode, string(body)
	}
	gotStatus, gotBody = mcp(tokA)
	wantStatus, wantBody = mcp("xoxp-" + strings.Repeat("1", 40))
	if gotStatus != wantStatus || gotBody != wantBody || gotStatus == http.StatusOK {
		t.Fatalf("A's user token on B's MCP: %d %s; an unknown token: %d %s", gotStatus, gotBody, wantStatus, wantBody)
	}
}
