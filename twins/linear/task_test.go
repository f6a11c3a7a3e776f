package linear_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/pomehq/pome/rest/resttest"
	"github.com/pomehq/pome/task"
	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/github"
	"github.com/pomehq/pome/twins/linear"
)

// Our own tasks in the original Pome's grammar, run by scripted agents
// against the twins and graded by the server's grader: an agent that does
// the work passes, one that does nothing fails.

// agent is one scripted agent.
type agent struct {
	name   string
	act    func(t *testing.T, env *resttest.Env)
	state  string
	failed []string // check ids the run must fail
}

func grade(t *testing.T, env *resttest.Env, src []byte, a agent) {
	t.Helper()
	var v task.Verdict
	if st := env.Control(t, http.MethodPost, "/v1/sandboxes/"+env.SessionID+"/grade", map[string]string{"task_source": string(src)}, &v); st != http.StatusOK {
		t.Fatalf("grade: status %d", st)
	}
	if v.State != a.state {
		t.Errorf("state %s, want %s: %+v", v.State, a.state, v.Criteria)
	}
	failed := map[string]bool{}
	for _, c := range v.Criteria {
		if c.Status == task.StatusFailed {
			failed[c.Check] = true
		}
		if c.Kind == task.Code && c.Status != task.StatusPassed && c.Status != task.StatusFailed {
			t.Errorf("%s: %s (%s)", c.Text, c.Status, c.Reason)
		}
	}
	for _, id := range a.failed {
		if !failed[id] {
			t.Errorf("%s passed", id)
		}
	}
	if len(failed) != len(a.failed) {
		t.Errorf("failed %v, want %v", failed, a.failed)
	}
}

// gql posts a GraphQL request to the named twin with its provider
// credential, sent as Linear's SDK sends an API key (the bare header).
func gql(t *testing.T, env *resttest.Env, twin, query string, vars map[string]any) map[string]any {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req, _ := http.NewRequest(http.MethodPost, env.Created.PerTwin[twin].APIURL+"/graphql", bytes.NewReader(body))
	req.Header.Set("Authorization", env.Created.ProviderCredentials[twin].Token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	var out struct {
		Data   map[string]any `json:"data"`
		Errors []any          `json:"errors"`
	}
	if err := json.Unmarshal(data, &out); err != nil || resp.StatusCode != http.StatusOK || len(out.Errors) > 0 {
		t.Fatalf("graphql: %d %s", resp.StatusCode, data)
	}
	return out.Data
}

func tool(t *testing.T, env *resttest.Env, name string, args any) map[string]any {
	t.Helper()
	text, isErr := resttest.CallTool(t, env.MCP(t), name, args)
	if isErr {
		t.Fatalf("%s: %s", name, text)
	}
	var out map[string]any
	json.Unmarshal([]byte(text), &out)
	return out
}

func dig(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			l, _ := v.([]any)
			if k >= len(l) {
				return nil
			}
			v = l[k]
		}
	}
	return v
}

func TestCheckoutTriageTask(t *testing.T) {
	const file = "testdata/tasks/checkout-triage.md"
	reg := twins.NewRegistry(linear.New())
	tk, err := task.ParseFile(file, reg)
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	agents := []agent{
		{"works over MCP", func(t *testing.T, env *resttest.Env) {
			found := tool(t, env, "list_issues", map[string]any{"team": "Web", "query": "Checkout button"})
			id := dig(found, "issues", 0, "identifier").(string)
			comments := tool(t, env, "list_comments", map[string]any{"issueId": id})
			lead := dig(comments, "comments", 0, "id").(string)
			tool(t, env, "create_issue_label", map[string]any{"name": "Frontend", "teamId": "WEB"})
			tool(t, env, "save_issue", map[string]any{"id": id, "state": "In Progress", "assignee": "eve@larkspur.test",
				"estimate": 3, "labels": []string{"Customer report", "Frontend"}})
			tool(t, env, "save_comment", map[string]any{"issueId": id, "parentId": lead, "body": "I'm on it; fix due today."})
			tool(t, env, "save_issue", map[string]any{"team": "WEB", "title": "Add Safari to the visual regression suite"})
		}, task.StatePass, nil},
		{"works over GraphQL", func(t *testing.T, env *resttest.Env) {
			d := gql(t, env, "linear", `query { issues(filter: {title: {eq: "Checkout button is misaligned"}}) { nodes { id team { id states { nodes { id name } } } comments { nodes { id } } } } users(filter: {email: {eq: "eve@larkspur.test"}}) { nodes { id } } }`, nil)
			issue := dig(d, "issues", "nodes", 0)
			var progress string
			for _, s := range dig(issue, "team", "states", "nodes").([]any) {
				if dig(s, "name") == "In Progress" {
					progress = dig(s, "id").(string)
				}
			}
			teamID := dig(issue, "team", "id")
			label := gql(t, env, "linear", `mutation($t: String) { issueLabelCreate(input: {name: "Frontend", teamId: $t}) { issueLabel { id } } }`, map[string]any{"t": teamID})
			gql(t, env, "linear", `mutation($id: String!, $in: IssueUpdateInput!) { issueUpdate(id: $id, input: $in) { success } }`, map[string]any{
				"id": dig(issue, "id"), "in": map[string]any{"stateId": progress, "assigneeId": dig(d, "users", "nodes", 0, "id"), "estimate": 3,
					"addedLabelIds": []any{dig(label, "issueLabelCreate", "issueLabel", "id")}}})
			gql(t, env, "linear", `mutation($in: CommentCreateInput!) { commentCreate(input: $in) { success } }`, map[string]any{
				"in": map[string]any{"issueId": dig(issue, "id"), "parentId": dig(issue, "comments", "nodes", 0, "id"), "body": "I am on it."}})
			gql(t, env, "linear", `mutation($t: String!) { issueCreate(input: {teamId: $t, title: "Add Safari to the visual regression suite"}) { success } }`, map[string]any{"t": teamID})
		}, task.StatePass, nil},
		{"does nothing", func(t *testing.T, env *resttest.Env) {}, task.StateFail, []string{
			"linear.issue-state", "linear.issue-assignee", "linear.issue-estimate", "linear.issue-has-label",
			"linear.issue-threaded-reply", "linear.issue-comment-contains", "linear.issue-exists"}},
		{"comments at the top level and guesses an endpoint", func(t *testing.T, env *resttest.Env) {
			tool(t, env, "save_comment", map[string]any{"issueId": "WEB-1", "body": "I'm on it."})
			tool(t, env, "save_issue", map[string]any{"id": "WEB-1", "state": "started", "assignee": "Eve", "estimate": 3})
			tool(t, env, "save_issue", map[string]any{"team": "Web", "title": "Add Safari to the visual regression suite"})
			env.Do(t, http.MethodGet, "/v1/issues/WEB-1", "", nil)
		}, task.StateFail, []string{"linear.issue-has-label", "linear.issue-threaded-reply", "linear.no-unsupported-endpoint"}},
	}
	for _, a := range agents {
		t.Run(a.name, func(t *testing.T) {
			env := resttest.Start(t, reg.All()[0], string(tk.Seed["linear"]))
			env.Server.Grader = task.GradeHandler(reg)
			a.act(t, env)
			grade(t, env, src, a)
		})
	}
}

func TestOrdersHandoffTask(t *testing.T) {
	const file = "testdata/tasks/orders-handoff.md"
	reg := twins.NewRegistry(github.New(), linear.New())
	tk, err := task.ParseFile(file, reg)
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	seeds := map[string]string{}
	for k, v := range tk.Seed {
		if k == "github" || k == "linear" {
			seeds[k] = string(v)
		}
	}
	agents := []agent{
		{"hands the bug over", func(t *testing.T, env *resttest.Env) {
			st, body := env.Do(t, http.MethodGet, "/repos/acme/api/issues/1", "", nil)
			if st != http.StatusOK || !strings.Contains(string(body), "POST /orders") {
				t.Fatalf("github issue: %d %s", st, body)
			}
			d := gql(t, env, "linear", `query { teams(filter: {key: {eq: "ENG"}}) { nodes { id states { nodes { id name } } labels { nodes { id name } } } } }`, nil)
			team := dig(d, "teams", "nodes", 0)
			var progress, incident any
			for _, s := range dig(team, "states", "nodes").([]any) {
				if dig(s, "name") == "In Progress" {
					progress = dig(s, "id")
				}
			}
			for _, l := range dig(team, "labels", "nodes").([]any) {
				if dig(l, "name") == "Incident" {
					incident = dig(l, "id")
				}
			}
			created := gql(t, env, "linear", `mutation($in: IssueCreateInput!) { issueCreate(input: $in) { issue { id identifier } } }`, map[string]any{
				"in": map[string]any{"teamId": dig(team, "id"), "title": "Orders API returns 500 after deploy", "priority": 1,
					"stateId": progress, "labelIds": []any{incident}}})
			id := dig(created, "issueCreate", "issue", "identifier").(string)
			gql(t, env, "linear", `mutation($in: CommentCreateInput!) { commentCreate(input: $in) { success } }`, map[string]any{
				"in": map[string]any{"issueId": id, "body": "Handed over from GitHub: acme/api#1 (https://github.com/acme/api/issues/1)"}})
			st, body = env.Do(t, http.MethodPost, "/repos/acme/api/issues/1/comments", "application/json", []byte(`{"body":"Tracked in Linear as `+id+`."}`))
			if st != http.StatusCreated {
				t.Fatalf("github comment: %d %s", st, body)
			}
		}, task.StatePass, nil},
		{"does nothing", func(t *testing.T, env *resttest.Env) {}, task.StateFail, []string{
			"linear.issue-state", "linear.issue-has-label", "linear.issue-comment-contains", "linear.tool-was-called"}},
	}
	for _, a := range agents {
		t.Run(a.name, func(t *testing.T) {
			env := resttest.StartMulti(t, reg, []string{"github", "linear"}, seeds)
			env.Server.Grader = task.GradeHandler(reg)
			a.act(t, env)
			grade(t, env, src, a)
		})
	}
}
