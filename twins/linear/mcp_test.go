package linear_test

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/pomehq/pome/rest/resttest"
	"github.com/pomehq/pome/twins/linear"
)

// TestMCPToolList pins the tools/list an MCP client sees: the 22 tools of
// Linear's MCP server and archive_issue, with the read-only hints of their
// effects.
func TestMCPToolList(t *testing.T) {
	env := resttest.Start(t, linear.New(), "")
	res, err := env.MCP(t).ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
		if tl.Annotations == nil {
			t.Errorf("%s: no annotations", tl.Name)
			continue
		}
		read := strings.HasPrefix(tl.Name, "list_") || strings.HasPrefix(tl.Name, "get_") || tl.Name == "search_documentation"
		if tl.Annotations.ReadOnlyHint != read {
			t.Errorf("%s: readOnlyHint %v", tl.Name, tl.Annotations.ReadOnlyHint)
		}
	}
	b, _ := os.ReadFile("testdata/linear_mcp_tools.json")
	var want struct {
		Tools []string `json:"tools"`
	}
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	want.Tools = append(want.Tools, "archive_issue")
	slices.Sort(want.Tools)
	slices.Sort(names)
	if !slices.Equal(names, want.Tools) {
		t.Fatalf("tools\n%v\nwant\n%v", names, want.Tools)
	}
}

// TestMCPTriageRoundTrip drives a triage over MCP the way an agent
// configured for Linear's MCP server does, and reads the tape.
func TestMCPTriageRoundTrip(t *testing.T) {
	env := resttest.Start(t, linear.New(), "")
	teams := tool(t, env, "list_teams", map[string]any{})
	if dig(teams, "teams", 0, "key") != "ENG" {
		t.Fatalf("teams %v", teams)
	}
	statuses := tool(t, env, "list_issue_statuses", map[string]any{"team": "Engineering"})
	if len(dig(statuses, "statuses").([]any)) != 7 {
		t.Fatalf("statuses %v", statuses)
	}
	mine := tool(t, env, "list_issues", map[string]any{"assignee": "me"})
	if len(dig(mine, "issues").([]any)) != 0 {
		t.Fatalf("my issues %v", mine)
	}
	unassigned := tool(t, env, "list_issues", map[string]any{"assignee": nil, "state": "unstarted"})
	if dig(unassigned, "issues", 0, "identifier") != "ENG-1" || len(dig(unassigned, "issues").([]any)) != 1 {
		t.Fatalf("unassigned %v", unassigned)
	}
	got := tool(t, env, "get_issue", map[string]any{"id": "eng-1"})
	if dig(got, "status") != "Todo" || dig(got, "priority", "name") != "High" || dig(got, "labels", 0) != "Bug" ||
		!strings.HasPrefix(dig(got, "gitBranchName").(string), "pome-agent/eng-1-500-error") {
		t.Fatalf("get_issue %v", got)
	}
	saved := tool(t, env, "save_issue", map[string]any{"id": "ENG-1", "state": "In Progress", "assignee": "me", "estimate": 2,
		"labels": []string{"Bug", "Improvement"}, "blocks": []string{"ENG-2"}, "dueDate": "2026-12-09"})
	if dig(saved, "status") != "In Progress" || dig(saved, "assignee") != "Pome Agent" || dig(saved, "estimate") != 2.0 ||
		dig(saved, "dueDate") != "2026-12-09" || dig(saved, "startedAt") == nil {
		t.Fatalf("save_issue %v", saved)
	}
	rel := tool(t, env, "get_issue", map[string]any{"id": "ENG-2", "includeRelations": true})
	if dig(rel, "relations", "blockedBy", 0) != "ENG-1" {
		t.Fatalf("relations %v", rel)
	}
	comments := tool(t, env, "list_comments", map[string]any{"issueId": "ENG-1"})
	root := dig(comments, "comments", 0, "id").(string)
	reply := tool(t, env, "save_comment", map[string]any{"parentId": root, "body": "On it"})
	if dig(reply, "parentId") != root || dig(reply, "issue") != "ENG-1" {
		t.Fatalf("reply %v", reply)
	}
	sub := tool(t, env, "save_issue", map[string]any{"team": "ENG", "title": "Write a regression test", "parentId": "ENG-1"})
	if dig(sub, "identifier") != "ENG-4" || dig(sub, "parentId") == nil {
		t.Fatalf("sub-issue %v", sub)
	}
	parent := tool(t, env, "get_issue", map[string]any{"id": "ENG-1"})
	if dig(parent, "children", 0, "identifier") != "ENG-4" {
		t.Fatalf("children %v", parent)
	}

	// Refusals are tool errors that change nothing.
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"title": "no team"}, "team is required"},
		{map[string]any{"team": "NOPE", "title": "x"}, "Team"},
		{map[string]any{"id": "ENG-1", "state": "Shipped"}, "WorkflowState"},
		{map[string]any{"id": "ENG-1", "labels": []string{"Nope"}}, "IssueLabel"},
		{map[string]any{"id": "ENG-1", "priority": 7}, "priority"},
		{map[string]any{"id": "ENG-1", "parentId": "ENG-4"}, "ancestor"},
		{map[string]any{"id": "ENG-1", "milestone": "Beta"}, "milestones"},
	} {
		text, isErr := resttest.CallTool(t, env.MCP(t), "save_issue", c.args)
		if !isErr || !strings.Contains(text, c.want) {
			t.Errorf("save_issue %v: %s", c.args, text)
		}
	}
	rows := env.Tape(t)
	var writes []string
	for _, r := range rows {
		if r.Transport != "mcp" {
			t.Errorf("row %d on %s", r.Seq, r.Transport)
		}
		if r.StateMutation {
			writes = append(writes, r.ToolName())
		}
	}
	if strings.Join(writes, ",") != "save_issue,save_comment,save_issue" {
		t.Fatalf("writes on the tape: %v", writes)
	}
}

func TestMCPLabelsProjectsDocuments(t *testing.T) {
	env := resttest.Start(t, linear.New(), linear.SeedExample)
	if text, isErr := resttest.CallTool(t, env.MCP(t), "create_issue_label", map[string]any{"name": "bug"}); !isErr || !strings.Contains(text, "Duplicate label") {
		t.Fatalf("duplicate label: %s", text)
	}
	l := tool(t, env, "create_issue_label", map[string]any{"name": "Frontend", "teamId": "ENG", "parent": "Area"})
	if dig(l, "team") != "Engineering" || dig(l, "parent") != "Area" {
		t.Fatalf("label %v", l)
	}
	labels := tool(t, env, "list_issue_labels", map[string]any{"team": "ENG", "name": "end"})
	if dig(labels, "labels", 0, "name") != "Backend" && dig(labels, "labels", 0, "name") != "Frontend" {
		t.Fatalf("labels %v", labels)
	}
	p := tool(t, env, "save_project", map[string]any{"name": "Payments", "addTeams": []string{"ENG"}, "lead": "alice@acme.test", "state": "started"})
	if dig(p, "lead") != "Alice Liddell" || dig(p, "teams", 0) != "Engineering" {
		t.Fatalf("project %v", p)
	}
	got := tool(t, env, "get_project", map[string]any{"query": "Orders v2", "includeResources": true, "includeMembers": true})
	if dig(got, "documents", 0, "title") != "Orders v2 spec" || dig(got, "members", 0) != "Alice Liddell" {
		t.Fatalf("get_project %v", got)
	}
	d := tool(t, env, "save_document", map[string]any{"title": "Runbook", "content": "Step one\nStep two", "team": "ENG"})
	edited := tool(t, env, "save_document", map[string]any{"id": dig(d, "id"), "patch": []map[string]any{{"op": "replace", "old_string": "Step two", "new_string": "Step 2"}}})
	if dig(edited, "content") != "Step one\nStep 2" {
		t.Fatalf("patched %v", edited)
	}
	cycles := tool(t, env, "list_cycles", map[string]any{"teamId": "ENG"})
	if dig(cycles, "cycles", 0, "name") != "Sprint 1" {
		t.Fatalf("cycles %v", cycles)
	}
	docs := tool(t, env, "search_documentation", map[string]any{"query": "estimates"})
	if dig(docs, "results", 0, "title") != "Estimates" {
		t.Fatalf("docs %v", docs)
	}
	me := tool(t, env, "get_user", map[string]any{"query": "me"})
	if dig(me, "email") != "pome-agent@acme.test" || dig(me, "isMe") != true {
		t.Fatalf("me %v", me)
	}
}
