package slack_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/slack-go/slack"

	"github.com/pomehq/pome/rest/resttest"
	twin "github.com/pomehq/pome/twins/slack"
)

func md(s string) slack.DocumentContent { return slack.DocumentContent{Type: "markdown", Markdown: s} }

// world decodes the sandbox's Slack state.
func world(t *testing.T, env *resttest.Env) *twin.World {
	t.Helper()
	w, err := twin.New().DecodeWorld(env.State(t))
	if err != nil {
		t.Fatal(err)
	}
	return w.(*twin.World)
}

// unchanged runs f, which must fail with Slack's code, and checks the
// state did not move.
func unchanged(t *testing.T, env *resttest.Env, code string, f func() error) {
	t.Helper()
	before := env.State(t)
	slackErr(t, f(), code)
	if after := env.State(t); !bytes.Equal(before, after) {
		t.Errorf("%s changed the state", code)
	}
}

// TestCanvasSDK drives the canvas methods with slack-go: create, read,
// find sections, edit each way, and every refusal, which changes nothing.
func TestCanvasSDK(t *testing.T) {
	env, api := start(t, "")
	id, err := api.CreateCanvas("Runbook", md("# Deploys\nRun the pipeline.\nWatch the graphs.\n\n## Rollback\nRevert the release."))
	if err != nil || !strings.HasPrefix(id, "F") {
		t.Fatalf("canvases.create = %q %v", id, err)
	}
	content, err := api.GetCanvasContent(id)
	if err != nil || content != "# Deploys\n\nRun the pipeline.\nWatch the graphs.\n\n## Rollback\n\nRevert the release." {
		t.Fatalf("canvases.getContent = %q %v", content, err)
	}
	h2, err := api.LookupCanvasSections(slack.LookupCanvasSectionsParams{CanvasID: id, Criteria: slack.LookupCanvasSectionsCriteria{SectionTypes: []string{"h2"}}})
	if err != nil || len(h2) != 1 {
		t.Fatalf("lookup h2 = %+v %v", h2, err)
	}
	headers, err := api.LookupCanvasSections(slack.LookupCanvasSectionsParams{CanvasID: id, Criteria: slack.LookupCanvasSectionsCriteria{SectionTypes: []string{"any_header"}}})
	if err != nil || len(headers) != 2 {
		t.Fatalf("lookup any_header = %+v %v", headers, err)
	}
	revert, err := api.LookupCanvasSections(slack.LookupCanvasSectionsParams{CanvasID: id, Criteria: slack.LookupCanvasSectionsCriteria{ContainsText: "REVERT"}})
	if err != nil || len(revert) != 1 {
		t.Fatalf("lookup text = %+v %v", revert, err)
	}

	edit := func(c slack.CanvasChange) error {
		return api.EditCanvas(slack.EditCanvasParams{CanvasID: id, Changes: []slack.CanvasChange{c}})
	}
	if err := edit(slack.CanvasChange{Operation: "insert_after", SectionID: h2[0].ID, DocumentContent: md("Page the on-call first.")}); err != nil {
		t.Fatal(err)
	}
	if err := edit(slack.CanvasChange{Operation: "insert_at_start", DocumentContent: md("Owner: platform")}); err != nil {
		t.Fatal(err)
	}
	if err := edit(slack.CanvasChange{Operation: "delete", SectionID: revert[0].ID}); err != nil {
		t.Fatal(err)
	}
	content, _ = api.GetCanvasContent(id)
	if content != "Owner: platform\n\n# Deploys\n\nRun the pipeline.\nWatch the graphs.\n\n## Rollback\n\nPage the on-call first." {
		t.Fatalf("after edits: %q", content)
	}
	if err := edit(slack.CanvasChange{Operation: "replace", DocumentContent: md("# Gone\nStart over.")}); err != nil {
		t.Fatal(err)
	}
	if content, _ = api.GetCanvasContent(id); content != "# Gone\n\nStart over." {
		t.Fatalf("after replace: %q", content)
	}

	// Refusals, each in Slack's words and without a change.
	unchanged(t, env, "canvas_not_found", func() error { _, err := api.GetCanvasContent("FNOSUCH01"); return err })
	unchanged(t, env, "canvas_not_found", func() error {
		return api.EditCanvas(slack.EditCanvasParams{CanvasID: "FNOSUCH01", Changes: []slack.CanvasChange{{Operation: "insert_at_end", DocumentContent: md("x")}}})
	})
	unchanged(t, env, "invalid_arguments", func() error { return edit(slack.CanvasChange{Operation: "insert_after", DocumentContent: md("x")}) })
	unchanged(t, env, "invalid_arguments", func() error { return edit(slack.CanvasChange{Operation: "insert_at_end", DocumentContent: md(" ")}) })
	unchanged(t, env, "invalid_arguments", func() error { return edit(slack.CanvasChange{Operation: "explode", DocumentContent: md("x")}) })
	unchanged(t, env, "canvas_editing_failed", func() error {
		return edit(slack.CanvasChange{Operation: "replace", SectionID: "temp:C:NOPE", DocumentContent: md("x")})
	})
	unchanged(t, env, "invalid_arguments", func() error {
		return api.EditCanvas(slack.EditCanvasParams{CanvasID: id, Changes: []slack.CanvasChange{
			{Operation: "insert_at_end", DocumentContent: md("a")}, {Operation: "insert_at_end", DocumentContent: md("b")}}})
	})
	unchanged(t, env, "canvas_creation_failed", func() error {
		_, err := api.CreateCanvas("Bad", slack.DocumentContent{Type: "html", Markdown: "<p>x</p>"})
		return err
	})
	unchanged(t, env, "invalid_arguments", func() error {
		_, err := api.GetCanvasContent(id, slack.GetCanvasContentOptionContentType("html"))
		return err
	})
	unchanged(t, env, "invalid_arguments", func() error {
		_, err := api.LookupCanvasSections(slack.LookupCanvasSectionsParams{CanvasID: id})
		return err
	})
	unchanged(t, env, "invalid_arguments", func() error {
		_, err := api.LookupCanvasSections(slack.LookupCanvasSectionsParams{CanvasID: id, Criteria: slack.LookupCanvasSectionsCriteria{SectionTypes: []string{"h4"}}})
		return err
	})

	// A channel's canvas: one per channel, in a channel the user can post in.
	cid, err := api.CreateChannelCanvas("general", md("# General\nWelcome."), slack.CreateChannelCanvasOptionTitle("General"))
	if err != nil {
		t.Fatal(err)
	}
	unchanged(t, env, "channel_canvas_already_exists", func() error { _, err := api.CreateChannelCanvas("general", md("again")); return err })
	unchanged(t, env, "channel_not_found", func() error { _, err := api.CreateChannelCanvas("C0NOSUCH1", md("x")); return err })
	// rename, which slack-go does not send, in a JSON body; and its refusal.
	rename := func(title string) (int, []byte) {
		body, _ := json.Marshal(map[string]any{"canvas_id": cid, "changes": []any{map[string]any{"operation": "rename", "title_content": title}}})
		return env.Do(t, "POST", "/api/canvases.edit", "application/json", body)
	}
	if status, body := rename(`{"type":"markdown","markdown":"About #general"}`); status != 200 || !bytes.Contains(body, []byte(`"ok":true`)) {
		t.Fatalf("rename: %d %s", status, body)
	}
	before := env.State(t)
	if _, body := rename(`{"type":"html"}`); !bytes.Contains(body, []byte(`"error":"invalid_arguments"`)) || !bytes.Equal(before, env.State(t)) {
		t.Fatalf("bad rename: %s", body)
	}
	w := world(t, env)
	if len(w.Canvases) != 2 || w.Canvases[1].ID != cid || w.Canvases[1].Title != "About #general" || w.Canvases[1].ChannelID == "" {
		t.Fatalf("canvases = %+v", w.Canvases)
	}

	tools := map[string]bool{}
	for _, r := range env.Tape(t) {
		if r.Tool != nil {
			tools[*r.Tool] = true
		}
	}
	for _, want := range []string{"slack_create_canvas", "slack_read_canvas", "slack_lookup_canvas_sections", "slack_update_canvas", "slack_create_channel_canvas"} {
		if !tools[want] {
			t.Errorf("no %s row on the tape (%v)", want, tools)
		}
	}
}

// TestCanvasMCP: Slack's MCP arguments (title/content, action/content/
// section_id) make the same canvases as the Web API's.
func TestCanvasMCP(t *testing.T) {
	env, api := start(t, "")
	cs := env.MCP(t)
	out, isErr, text := mcpCall(t, cs, "slack_create_canvas", map[string]any{"title": "Plan", "content": "## Goals\nShip it.\n\n## Risks\nNone yet."})
	if isErr {
		t.Fatal(text)
	}
	id := out["canvas_id"].(string)
	read := func() map[string]any {
		out, isErr, text := mcpCall(t, cs, "slack_read_canvas", map[string]any{"canvas_id": id})
		if isErr {
			t.Fatal(text)
		}
		return out
	}
	r := read()
	sections := r["sections"].([]any)
	if r["title"] != "Plan" || len(sections) != 4 {
		t.Fatalf("read = %v", r)
	}
	risks := sections[2].(map[string]any)["id"].(string)
	for _, c := range []map[string]any{
		{"action": "append", "content": "Owner: bob"},
		{"action": "prepend", "content": "Draft v1"},
		{"action": "append", "section_id": risks, "content": "Schedule slips."},
		{"action": "replace", "section_id": sections[3].(map[string]any)["id"], "content": "Vendor delays."},
	} {
		c["canvas_id"] = id
		if _, isErr, text := mcpCall(t, cs, "slack_update_canvas", c); isErr {
			t.Fatalf("%v: %s", c, text)
		}
	}
	want := "Draft v1\n\n## Goals\n\nShip it.\n\n## Risks\n\nSchedule slips.\n\nVendor delays.\n\nOwner: bob"
	if got := read()["content"]; got != want {
		t.Fatalf("content = %q, want %q", got, want)
	}
	// The Web API reads what MCP wrote.
	if content, err := api.GetCanvasContent(id); err != nil || content != want {
		t.Fatalf("canvases.getContent = %q %v", content, err)
	}

	before := env.State(t)
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"canvas_id": id, "content": "x"}, "invalid_arguments"},
		{map[string]any{"canvas_id": id, "action": "rewrite", "content": "x"}, "invalid_arguments"},
		{map[string]any{"canvas_id": id, "action": "append", "content": ""}, "invalid_arguments"},
		{map[string]any{"canvas_id": id, "action": "replace", "section_id": "temp:C:NOPE", "content": "x"}, "canvas_editing_failed"},
		{map[string]any{"canvas_id": id, "action": "append", "content": "x", "changes": []any{}}, "invalid_arguments"},
		{map[string]any{"canvas_id": "FNOSUCH01", "action": "append", "content": "x"}, "canvas_not_found"},
	} {
		_, isErr, text := mcpCall(t, cs, "slack_update_canvas", c.args)
		if !isErr || !strings.Contains(text, c.want) {
			t.Errorf("%v: %s, want %s", c.args, text, c.want)
		}
	}
	if _, isErr, text := mcpCall(t, cs, "slack_read_canvas", map[string]any{"canvas_id": "FNOSUCH01"}); !isErr || !strings.Contains(text, "canvas_not_found") {
		t.Errorf("read of a missing canvas: %s", text)
	}
	if !bytes.Equal(before, env.State(t)) {
		t.Error("a refused call changed the state")
	}
}

// TestSendMessageDraft: a draft is kept unsent, one per conversation or
// thread, and posts nothing.
func TestSendMessageDraft(t *testing.T) {
	env, api := start(t, "")
	cs := env.MCP(t)
	_, ts, err := api.PostMessage("general", slackText("standup in 5"))
	if err != nil {
		t.Fatal(err)
	}
	out, isErr, text := mcpCall(t, cs, "slack_send_message_draft", map[string]any{"channel_id": "general", "message": "I'll be late"})
	if isErr || out["ok"] != true || out["draft_id"] == "" {
		t.Fatalf("draft: %s", text)
	}
	if _, isErr, text := mcpCall(t, cs, "slack_send_message_draft", map[string]any{"channel_id": "general", "message": "another", "thread_ts": ts}); isErr {
		t.Fatalf("draft in a thread: %s", text)
	}
	users, err := api.GetUsers()
	if err != nil {
		t.Fatal(err)
	}
	var bob string
	for _, u := range users {
		if u.Name == "bob" {
			bob = u.ID
		}
	}
	if out, isErr, text := mcpCall(t, cs, "slack_send_message_draft", map[string]any{"channel_id": bob, "message": "lunch?"}); isErr || !strings.HasPrefix(out["channel_id"].(string), "D") {
		t.Fatalf("draft to a user: %s", text)
	}

	before := env.State(t)
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"channel_id": "general", "message": "again"}, "draft_already_exists"},
		{map[string]any{"channel_id": "general", "message": "reply", "thread_ts": ts}, "draft_already_exists"},
		{map[string]any{"channel_id": "general", "message": "   "}, "no_text"},
		{map[string]any{"channel_id": "general", "message": "x", "thread_ts": "1.000001"}, "thread_not_found"},
		{map[string]any{"channel_id": "C0NOSUCH1", "message": "x"}, "channel_not_found"},
	} {
		_, isErr, text := mcpCall(t, cs, "slack_send_message_draft", c.args)
		if !isErr || !strings.Contains(text, c.want) {
			t.Errorf("%v: %s, want %s", c.args, text, c.want)
		}
	}
	if !bytes.Equal(before, env.State(t)) {
		t.Error("a refused draft changed the state")
	}
	w := world(t, env)
	if len(w.Drafts) != 3 || w.Drafts[0].Text != "I'll be late" || w.Drafts[1].ThreadTS != ts {
		raw, _ := json.Marshal(w.Drafts)
		t.Fatalf("drafts = %s", raw)
	}
	// Nothing was posted: #general holds only the message sent above.
	hist, err := api.GetConversationHistory(&slack.GetConversationHistoryParameters{ChannelID: w.Drafts[0].ChannelID})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range hist.Messages {
		if m.Text == "I'll be late" {
			t.Error("a draft was posted")
		}
	}
	// Slack's Web API has no draft method: the twin serves none.
	if a, _ := twin.New().Action("slack_send_message_draft"); len(a.Spec().Bindings) != 0 {
		t.Error("slack_send_message_draft has a REST binding")
	}
}
