package slack_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pomehq/pome/rest/resttest"
	"github.com/pomehq/pome/twins"
	twin "github.com/pomehq/pome/twins/slack"
	"github.com/slack-go/slack"
)

// storedState is the part of the state document these tests look at.
type storedState struct {
	Channels []struct {
		Name     string `json:"name"`
		Messages []struct {
			TS   string `json:"ts"`
			Text string `json:"text"`
		} `json:"messages"`
	} `json:"channels"`
	Scheduled []struct {
		Text string `json:"text"`
	} `json:"scheduled_messages"`
}

func state(t *testing.T, env *resttest.Env) storedState {
	t.Helper()
	var s storedState
	if err := json.Unmarshal(env.State(t), &s); err != nil {
		t.Fatal(err)
	}
	return s
}

func (s storedState) holds(channel, text string) bool {
	for _, c := range s.Channels {
		if c.Name == channel {
			for _, m := range c.Messages {
				if m.Text == text {
					return true
				}
			}
		}
	}
	return false
}

// evalCheck grades a check on the sandbox as the grader does: seed, final
// state and tape.
func evalCheck(t *testing.T, env *resttest.Env, id string, args map[string]string) twins.Result {
	t.Helper()
	tw := twin.New()
	final, err := tw.DecodeWorld(env.State(t))
	if err != nil {
		t.Fatal(err)
	}
	c, _ := tw.Check(id)
	r, err := c.Evaluate(&twins.Input{Twin: tw, Final: final, Tape: env.Tape(t)}, args)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// The sandbox clock is the wall clock here, so the message is scheduled a
// second ahead and the test waits for it.
func TestSDKScheduledDelivery(t *testing.T) {
	env, api := start(t, "")
	cs := env.MCP(t)
	// Far enough ahead that both schedules, and the list before post_at,
	// are done in time on a machine busy with -race and other packages (a
	// second ahead was refused as time_in_past once in CI).
	at := time.Now().Unix() + 3
	chID, _, err := api.ScheduleMessage("general", strconv.FormatInt(at, 10), slackText("scheduled via sdk"))
	if err != nil {
		t.Fatal(err)
	}
	if _, isErr, text := mcpCall(t, cs, "slack_schedule_message", map[string]any{"channel_id": "random", "message": "scheduled via mcp", "post_at": at}); isErr {
		t.Fatal(text)
	}
	if list, _, err := api.GetScheduledMessages(&slack.GetScheduledMessagesParameters{}); err != nil || len(list) != 2 {
		t.Fatalf("before post_at: %+v %v", list, err)
	}
	time.Sleep(time.Until(time.Unix(at, 0)) + 100*time.Millisecond)

	// Both transports read the delivered messages at their scheduled ts.
	h, err := api.GetConversationHistory(&slack.GetConversationHistoryParameters{ChannelID: chID})
	if err != nil || len(h.Messages) == 0 || h.Messages[0].Text != "scheduled via sdk" || !strings.HasPrefix(h.Messages[0].Timestamp, strconv.FormatInt(at, 10)+".") {
		t.Fatalf("history = %+v %v", h, err)
	}
	_, isErr, text := mcpCall(t, cs, "slack_read_channel", map[string]any{"channel_id": "random"})
	if isErr || !strings.Contains(text, "scheduled via mcp") {
		t.Fatalf("mcp read = %s", text)
	}
	if list, _, err := api.GetScheduledMessages(&slack.GetScheduledMessagesParameters{}); err != nil || len(list) != 0 {
		t.Errorf("scheduled after post_at = %+v %v", list, err)
	}
	if l, isErr, text := mcpCall(t, cs, "slack_list_scheduled_messages", map[string]any{}); isErr || len(l["scheduled_messages"].([]any)) != 0 {
		t.Errorf("mcp scheduled after post_at = %s", text)
	}
	if link, err := api.GetPermalink(&slack.PermalinkParameters{Channel: chID, Ts: h.Messages[0].Timestamp}); err != nil || link == "" {
		t.Errorf("permalink = %q %v", link, err)
	}

	// Reads stored nothing; checks see the messages all the same.
	s := state(t, env)
	if len(s.Scheduled) != 2 || s.holds("general", "scheduled via sdk") {
		t.Errorf("reads stored the delivery: %+v", s)
	}
	r := evalCheck(t, env, "slack.message-contains", map[string]string{"channel": "general", "needle": "via sdk"})
	if !r.Passed || !strings.HasPrefix(r.Evidence.StatePaths[0], "/scheduled_messages/") {
		t.Errorf("check before a write = %+v", r)
	}

	// The next write stores both deliveries, and its own message follows.
	_, ts, err := api.PostMessage("general", slackText("after the schedule"))
	if err != nil {
		t.Fatal(err)
	}
	if ts <= h.Messages[0].Timestamp {
		t.Errorf("new ts %s not after the delivered %s", ts, h.Messages[0].Timestamp)
	}
	s = state(t, env)
	if len(s.Scheduled) != 0 || !s.holds("general", "scheduled via sdk") || !s.holds("random", "scheduled via mcp") {
		t.Errorf("after a write: %+v", s)
	}
	r = evalCheck(t, env, "slack.message-contains", map[string]string{"channel": "general", "needle": "via sdk"})
	if !r.Passed || !strings.HasPrefix(r.Evidence.StatePaths[0], "/channels/") {
		t.Errorf("check after a write = %+v", r)
	}
}
