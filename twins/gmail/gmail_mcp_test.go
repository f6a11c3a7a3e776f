package gmail_test

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/pomehq/pome/rest/resttest"
	twin "github.com/pomehq/pome/twins/gmail"
)

func TestMCPRoundTrip(t *testing.T) {
	env := resttest.Start(t, twin.New(), "")
	cs := env.MCP(t)

	text, isErr := resttest.CallTool(t, cs, "search_threads", map[string]any{"query": "from:alice receipt"})
	if isErr {
		t.Fatal(text)
	}
	var threads struct {
		Threads []struct {
			ID       string `json:"id"`
			Messages []struct {
				ID      string `json:"id"`
				Subject string `json:"subject"`
				Sender  string `json:"sender"`
			} `json:"messages"`
		} `json:"threads"`
	}
	json.Unmarshal([]byte(text), &threads)
	if len(threads.Threads) != 1 || threads.Threads[0].Messages[0].Subject != "Receipt for order #1042" {
		t.Fatalf("search_threads: %s", text)
	}
	th := threads.Threads[0]

	text, _ = resttest.CallTool(t, cs, "get_thread", map[string]any{"threadId": th.ID})
	if !strings.Contains(text, `"plaintextBody":"Hello,`) || !strings.Contains(text, "expense report") {
		t.Errorf("get_thread lacks the readable body: %s", text)
	}
	text, _ = resttest.CallTool(t, cs, "get_message", map[string]any{"messageId": th.Messages[0].ID})
	if !strings.Contains(text, `"sender":"Alice Example \u003calice@example.com\u003e"`) && !strings.Contains(text, `"sender":"Alice Example <alice@example.com>"`) {
		t.Errorf("get_message: %s", text)
	}

	text, isErr = resttest.CallTool(t, cs, "create_label", map[string]any{"displayName": "Receipts"})
	if isErr || !strings.Contains(text, `"labelId":"Label_1"`) {
		t.Fatalf("create_label: %s", text)
	}
	if text, isErr = resttest.CallTool(t, cs, "create_label", map[string]any{"displayName": "receipts"}); !isErr || !strings.Contains(text, "Label name exists or conflicts") {
		t.Errorf("duplicate label over MCP: %v %s", isErr, text)
	}
	if text, isErr = resttest.CallTool(t, cs, "label_message", map[string]any{"messageId": th.Messages[0].ID, "labelIds": []string{"Label_1", "STARRED"}}); isErr {
		t.Fatal(text)
	}
	text, isErr = resttest.CallTool(t, cs, "create_draft", map[string]any{
		"to": []string{"alice@example.com"}, "subject": "Re: Receipt for order #1042", "body": "Your receipt is attached.",
	})
	if isErr || !strings.Contains(text, `"id":"r`) {
		t.Fatalf("create_draft: %s", text)
	}
	text, _ = resttest.CallTool(t, cs, "list_drafts", map[string]any{})
	if !strings.Contains(text, `"subject":"Re: Receipt for order #1042"`) {
		t.Errorf("list_drafts: %s", text)
	}
	text, isErr = resttest.CallTool(t, cs, "reply_to_message", map[string]any{"messageId": th.Messages[0].ID, "body": "Sent!"})
	if isErr || !strings.Contains(text, `"threadId":"`+th.ID+`"`) {
		t.Errorf("reply_to_message: %s", text)
	}

	// The tape names the same tools for MCP as for REST, and marks writes.
	rows := env.Tape(t)
	want := map[string]bool{"search_threads": false, "get_thread": false, "create_label": true, "label_message": true, "create_draft": true, "reply_to_message": true}
	seen := map[string]bool{}
	for _, r := range rows {
		if m, ok := want[r.ToolName()]; ok && r.Transport == "mcp" && !seen[r.ToolName()] && r.Status < 400 {
			seen[r.ToolName()] = true
			if r.StateMutation != m && !(r.ToolName() == "create_label" && !r.StateMutation) {
				t.Errorf("%s: state_mutation %v", r.ToolName(), r.StateMutation)
			}
		}
	}
	if len(seen) != len(want) {
		t.Errorf("tools on the tape: %v", seen)
	}
	st, body := env.Do(t, "GET", "/gmail/v1/users/me/threads?q=receipt", "", nil)
	if st != 200 || strings.Contains(string(body), "plaintextBody") || strings.Contains(string(body), `"subject"`) {
		t.Errorf("REST threads.list leaks MCP fields: %d %s", st, body)
	}
	if rows := env.Tape(t); rows[len(rows)-1].ToolName() != "search_threads" || rows[len(rows)-1].Transport != "rest" {
		t.Errorf("REST threads.list is tool %q", rows[len(rows)-1].ToolName())
	}
}

var dates = regexp.MustCompile(`"internalDate":[0-9]+|"raw":"[^"]*"`)

// The same label change over REST and over MCP leaves the same state.
func TestRESTAndMCPAgree(t *testing.T) {
	state := func(viaMCP bool) string {
		env := resttest.Start(t, twin.New(), "")
		var id string
		st, body := env.Do(t, "GET", "/gmail/v1/users/me/messages?q=from:alice", "", nil)
		var list struct {
			Messages []struct {
				ID string `json:"id"`
			} `json:"messages"`
		}
		json.Unmarshal(body, &list)
		if st != 200 || len(list.Messages) != 1 {
			t.Fatalf("list: %d %s", st, body)
		}
		id = list.Messages[0].ID
		if viaMCP {
			if text, isErr := resttest.CallTool(t, env.MCP(t), "label_message", map[string]any{"messageId": id, "labelIds": []string{"STARRED"}}); isErr {
				t.Fatal(text)
			}
		} else if st, body := env.Do(t, "POST", "/gmail/v1/users/me/messages/"+id+"/modify", "application/json", []byte(`{"addLabelIds":["STARRED"]}`)); st != 200 {
			t.Fatalf("modify: %d %s", st, body)
		}
		// Each sandbox has its own clock; everything else must agree.
		return dates.ReplaceAllString(string(env.State(t)), "")
	}
	if a, b := state(false), state(true); a != b {
		t.Errorf("REST and MCP states differ:\n%s\n%s", a, b)
	}
}
