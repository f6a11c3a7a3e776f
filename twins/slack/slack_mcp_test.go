package slack_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pomehq/pome/rest/resttest"
)

// mcpCall calls a tool and decodes its JSON result.
func mcpCall(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (map[string]any, bool, string) {
	t.Helper()
	text, isErr := resttest.CallTool(t, cs, name, args)
	var m map[string]any
	if !isErr {
		if err := json.Unmarshal([]byte(text), &m); err != nil {
			t.Fatalf("%s: %s: %v", name, text, err)
		}
	}
	return m, isErr, text
}

func TestMCPRoundTrip(t *testing.T) {
	env, _ := start(t, "")
	cs := env.MCP(t)
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, tool := range tools.Tools {
		have[tool.Name] = true
	}
	for _, n := range []string{"slack_send_message", "slack_read_channel", "slack_read_thread", "slack_add_reaction", "slack_read_user_profile"} {
		if !have[n] {
			t.Errorf("tool %s not listed", n)
		}
	}

	sent, isErr, text := mcpCall(t, cs, "slack_send_message", map[string]any{"channel_id": "general", "message": "hello over MCP"})
	if isErr || sent["ok"] != true || sent["ts"] == "" {
		t.Fatalf("send = %s", text)
	}
	ts := sent["ts"].(string)
	rows := env.Tape(t)
	row := rows[len(rows)-1]
	if row.Transport != "mcp" || row.ToolName() != "slack_send_message" || !row.StateMutation {
		t.Errorf("mcp row = %+v", row)
	}

	hist, isErr, text := mcpCall(t, cs, "slack_read_channel", map[string]any{"channel_id": "general", "limit": 1})
	if isErr || hist["has_more"] != true {
		t.Fatalf("read = %s", text)
	}
	msgs := hist["messages"].([]any)
	if msgs[0].(map[string]any)["ts"] != ts {
		t.Errorf("newest = %v", msgs[0])
	}

	chID := sent["channel"].(string)
	if _, isErr, text := mcpCall(t, cs, "slack_add_reaction", map[string]any{"channel_id": chID, "message_ts": ts, "emoji": "tada"}); isErr {
		t.Fatalf("react = %s", text)
	}
	reply, isErr, text := mcpCall(t, cs, "slack_send_message", map[string]any{"channel_id": chID, "message": "in thread", "thread_ts": ts})
	if isErr {
		t.Fatal(text)
	}
	thread, _, _ := mcpCall(t, cs, "slack_read_thread", map[string]any{"channel_id": chID, "message_ts": ts})
	tm := thread["messages"].([]any)
	if len(tm) != 2 || tm[1].(map[string]any)["ts"] != reply["ts"] {
		t.Errorf("thread = %v", thread)
	}

	// Errors are isError results carrying Slack's error.
	_, isErr, text = mcpCall(t, cs, "slack_send_message", map[string]any{"channel_id": "nope", "message": "x"})
	if !isErr || !strings.Contains(text, "channel_not_found") {
		t.Errorf("error = %v %s", isErr, text)
	}
	rows = env.Tape(t)
	if row := rows[len(rows)-1]; row.StateMutation {
		t.Errorf("refused MCP call reads as mutation: %+v", row)
	}
}

// The same operation over REST and MCP lands the same message shape and the
// same tool on the tape.
func TestRESTAndMCPAgree(t *testing.T) {
	env, api := start(t, "")
	cs := env.MCP(t)
	_, ts, err := api.PostMessage("random", slackText("same"))
	if err != nil {
		t.Fatal(err)
	}
	sent, _, _ := mcpCall(t, cs, "slack_send_message", map[string]any{"channel_id": "random", "message": "same"})
	rows := env.Tape(t)
	var tools []string
	for _, r := range rows {
		if r.ToolName() == "slack_send_message" {
			tools = append(tools, r.Transport)
		}
	}
	if strings.Join(tools, ",") != "rest,mcp" {
		t.Errorf("tape = %v", tools)
	}
	hist, _, _ := mcpCall(t, cs, "slack_read_channel", map[string]any{"channel_id": "random"})
	msgs := hist["messages"].([]any)
	a, b := msgs[1].(map[string]any), msgs[0].(map[string]any)
	if a["ts"] != ts || b["ts"] != sent["ts"] {
		t.Fatalf("history = %v", msgs)
	}
	for _, k := range []string{"type", "text", "user", "team"} {
		if a[k] != b[k] {
			t.Errorf("%s differs: REST %v, MCP %v", k, a[k], b[k])
		}
	}
}

// A token sent as a form field (no Authorization header) opens the twin.
func TestTokenAsFormField(t *testing.T) {
	env, _ := start(t, "")
	form := url.Values{"token": {env.Token}, "channel": {"general"}}
	resp, err := http.Post(env.APIURL+"/api/conversations.history", "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	json.NewDecoder(resp.Body).Decode(&m)
	if resp.StatusCode != 200 || m["ok"] != true {
		t.Errorf("token field: %d %v", resp.StatusCode, m)
	}
	resp2, err := http.Get(env.APIURL + "/api/auth.test?token=" + url.QueryEscape(env.Token))
	if err != nil {
		t.Fatal(err)
	}
	resp2.Body.Close()
	if resp2.StatusCode != 200 {
		t.Errorf("token query: %d", resp2.StatusCode)
	}
}

func TestMCPSearchTools(t *testing.T) {
	env, _ := start(t, "")
	cs := env.MCP(t)
	if _, isErr, text := mcpCall(t, cs, "slack_send_message", map[string]any{"channel_id": "random", "message": "incident: api 500s"}); isErr {
		t.Fatal(text)
	}
	res, isErr, text := mcpCall(t, cs, "slack_search_public", map[string]any{"query": "incident in:#random"})
	if isErr || res["messages"].(map[string]any)["total"].(float64) != 1 {
		t.Errorf("search_public = %s", text)
	}
	res, _, text = mcpCall(t, cs, "slack_search_channels", map[string]any{"query": "gen"})
	if len(res["channels"].([]any)) != 1 {
		t.Errorf("search_channels = %s", text)
	}
	res, _, text = mcpCall(t, cs, "slack_search_users", map[string]any{"query": "alice"})
	if len(res["members"].([]any)) != 1 {
		t.Errorf("search_users = %s", text)
	}
	if _, isErr, text := mcpCall(t, cs, "slack_search_emojis", map[string]any{"query": "x"}); isErr {
		t.Errorf("search_emojis = %s", text)
	}
	res, isErr, text = mcpCall(t, cs, "slack_list_channel_members", map[string]any{"channel_id": "general"})
	if isErr || len(res["members"].([]any)) != 3 {
		t.Errorf("members = %s", text)
	}
	rows := env.Tape(t)
	last := rows[len(rows)-1]
	if last.ToolName() != "slack_list_channel_members" || last.StateMutation {
		t.Errorf("row = %+v", last)
	}
}

// Each of Slack's MCP tools answers over MCP with the Web API's data.
func TestMCPSlackTools(t *testing.T) {
	env, _ := start(t, "")
	cs := env.MCP(t)
	sent, _, _ := mcpCall(t, cs, "slack_send_message", map[string]any{"channel_id": "general", "message": "hello"})
	ts := sent["ts"].(string)
	ch := sent["channel"].(string)
	auth, _, _ := mcpCall(t, cs, "slack_auth_test", map[string]any{})
	cases := []struct {
		tool string
		args map[string]any
		key  string
	}{
		{"slack_schedule_message", map[string]any{"channel_id": ch, "message": "later", "post_at": time.Now().Add(time.Hour).Unix()}, "scheduled_message_id"},
		{"slack_add_reaction", map[string]any{"channel_id": ch, "message_ts": ts, "emoji": "eyes"}, "ok"},
		{"slack_get_reactions", map[string]any{"channel_id": ch, "message_ts": ts}, "message"},
		{"slack_create_conversation", map[string]any{"channel_name": "war-room"}, "channel"},
		{"slack_read_channel", map[string]any{"channel_id": ch}, "messages"},
		{"slack_read_thread", map[string]any{"channel_id": ch, "message_ts": ts}, "messages"},
		{"slack_read_user_profile", map[string]any{"user_id": auth["user_id"]}, "user"},
		{"slack_list_channel_members", map[string]any{"channel_id": ch}, "members"},
		{"slack_search_public", map[string]any{"query": "hello"}, "messages"},
		{"slack_search_public_and_private", map[string]any{"query": "hello"}, "messages"},
		{"slack_search_channels", map[string]any{"query": "war"}, "channels"},
		{"slack_search_users", map[string]any{"query": "bob"}, "members"},
		{"slack_search_emojis", map[string]any{"query": ""}, "emoji"},
	}
	for _, c := range cases {
		out, isErr, text := mcpCall(t, cs, c.tool, c.args)
		if isErr || out["ok"] != true || out[c.key] == nil {
			t.Errorf("%s: %s", c.tool, text)
		}
	}
	// Every MCP call is on the tape under its tool name.
	seen := map[string]bool{}
	for _, r := range env.Tape(t) {
		if r.Transport == "mcp" {
			seen[r.ToolName()] = true
		}
	}
	for _, c := range cases {
		if !seen[c.tool] {
			t.Errorf("%s not on the tape", c.tool)
		}
	}
}
