package github_test

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"testing"

	"github.com/pomehq/pome/rest/resttest"
	"github.com/pomehq/pome/twins/github"
)

// mcpTools are github-mcp-server's tool names the twin must serve.
var mcpTools = []string{
	"issue_read", "issue_write", "add_issue_comment", "list_issues", "search_issues",
	"get_label", "list_label", "label_write",
	"pull_request_read", "create_pull_request", "update_pull_request", "merge_pull_request",
	"pull_request_review_write", "list_pull_requests", "search_pull_requests",
	"get_file_contents", "create_or_update_file", "delete_file", "push_files",
	"create_branch", "list_branches", "list_commits", "get_commit",
	"list_tags", "get_tag", "list_releases", "get_latest_release", "get_release_by_tag",
	"create_repository", "fork_repository", "search_repositories", "search_code",
	"search_users", "search_commits", "list_repository_collaborators", "get_me",
}

func TestMCPToolsListed(t *testing.T) {
	env := resttest.Start(t, github.New(), "")
	tools, err := env.MCP(t).ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, tool := range tools.Tools {
		have[tool.Name] = true
	}
	for _, n := range mcpTools {
		if !have[n] {
			t.Errorf("tool %s not listed", n)
		}
	}
}

// step is one operation done over REST in one sandbox and over MCP in
// another; both must record the same tool and the same state change.
type step struct {
	tool   string
	args   map[string]any
	method string
	path   string
	body   string
	// status is the REST status; failures are isError over MCP.
	status  int
	mutates bool
}

// Volatile parts of a state document: times and commit shas (which digest
// the commit time) differ between two sandboxes doing the same thing.
var volatile = regexp.MustCompile(`"\d{4}-\d\d-\d\dT[0-9:.]+Z"|[0-9a-f]{40}`)

func normalizedState(t *testing.T, env *resttest.Env) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(env.State(t), &v); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(v)
	return volatile.ReplaceAllString(string(b), `"~"`)
}

func TestMCPAndRESTAgree(t *testing.T) {
	rest := resttest.Start(t, github.New(), "")
	mcp := resttest.Start(t, github.New(), "")
	cs := mcp.MCP(t)

	// The REST side needs main's sha to create a ref, as a REST client would.
	st, body := rest.Do(t, "GET", "/repos/acme/api/git/ref/heads/main", "", nil)
	if st != 200 {
		t.Fatalf("get ref: %d %s", st, body)
	}
	var ref struct {
		Object struct{ SHA string } `json:"object"`
	}
	_ = json.Unmarshal(body, &ref)

	own := func(m map[string]any) map[string]any {
		m["owner"], m["repo"] = "acme", "api"
		return m
	}
	steps := []step{
		{tool: "issue_read", args: own(map[string]any{"method": "get", "issue_number": 1}), method: "GET", path: "/repos/acme/api/issues/1", status: 200},
		{tool: "list_issues", args: own(map[string]any{"state": "OPEN"}), method: "GET", path: "/repos/acme/api/issues?state=open", status: 200},
		{tool: "issue_write", args: own(map[string]any{"method": "create", "title": "Checkout fails", "body": "Since v2.", "labels": []string{"bug"}, "assignees": []string{"alice"}}),
			method: "POST", path: "/repos/acme/api/issues", body: `{"title":"Checkout fails","body":"Since v2.","labels":["bug"],"assignees":["alice"]}`, status: 201, mutates: true},
		{tool: "issue_write", args: own(map[string]any{"method": "update", "issue_number": 2, "state": "closed", "state_reason": "not_planned"}),
			method: "PATCH", path: "/repos/acme/api/issues/2", body: `{"state":"closed","state_reason":"not_planned"}`, status: 200, mutates: true},
		{tool: "issue_write", args: own(map[string]any{"method": "create", "title": "x", "assignees": []string{"mallory"}}),
			method: "POST", path: "/repos/acme/api/issues", body: `{"title":"x","assignees":["mallory"]}`, status: 422},
		{tool: "add_issue_comment", args: own(map[string]any{"issue_number": 1, "body": "On it."}),
			method: "POST", path: "/repos/acme/api/issues/1/comments", body: `{"body":"On it."}`, status: 201, mutates: true},
		{tool: "add_issue_assignees", args: own(map[string]any{"issue_number": 1, "assignees": []string{"bob"}}),
			method: "POST", path: "/repos/acme/api/issues/1/assignees", body: `{"assignees":["bob"]}`, status: 201, mutates: true},
		// Assigning again changes nothing.
		{tool: "add_issue_assignees", args: own(map[string]any{"issue_number": 1, "assignees": []string{"bob"}}),
			method: "POST", path: "/repos/acme/api/issues/1/assignees", body: `{"assignees":["bob"]}`, status: 201},
		{tool: "issue_read", args: own(map[string]any{"method": "get", "issue_number": 99}), method: "GET", path: "/repos/acme/api/issues/99", status: 404},
		{tool: "label_write", args: own(map[string]any{"method": "create", "name": "p1", "color": "ff0000"}),
			method: "POST", path: "/repos/acme/api/labels", body: `{"name":"p1","color":"ff0000"}`, status: 201, mutates: true},
		{tool: "label_write", args: own(map[string]any{"method": "create", "name": "P1", "color": "ff0000"}),
			method: "POST", path: "/repos/acme/api/labels", body: `{"name":"P1","color":"ff0000"}`, status: 422},
		{tool: "create_branch", args: own(map[string]any{"branch": "fix", "from_branch": "main"}),
			method: "POST", path: "/repos/acme/api/git/refs", body: `{"ref":"refs/heads/fix","sha":"` + ref.Object.SHA + `"}`, status: 201, mutates: true},
		{tool: "create_or_update_file", args: own(map[string]any{"path": "orders.go", "content": "package api\n", "message": "Add orders", "branch": "fix"}),
			method: "PUT", path: "/repos/acme/api/contents/orders.go", body: `{"content":"cGFja2FnZSBhcGkK","message":"Add orders","branch":"fix"}`, status: 201, mutates: true},
		{tool: "create_pull_request", args: own(map[string]any{"title": "Add orders", "head": "fix", "base": "main"}),
			method: "POST", path: "/repos/acme/api/pulls", body: `{"title":"Add orders","head":"fix","base":"main"}`, status: 201, mutates: true},
		{tool: "pull_request_read", args: own(map[string]any{"method": "get", "pullNumber": 3}), method: "GET", path: "/repos/acme/api/pulls/3", status: 200},
		{tool: "pull_request_read", args: own(map[string]any{"method": "get_files", "pullNumber": 3}), method: "GET", path: "/repos/acme/api/pulls/3/files", status: 200},
		{tool: "update_pull_request", args: own(map[string]any{"pullNumber": 3, "title": "Add orders (v2)"}),
			method: "PATCH", path: "/repos/acme/api/pulls/3", body: `{"title":"Add orders (v2)"}`, status: 200, mutates: true},
		{tool: "pull_request_review_write", args: own(map[string]any{"method": "create", "pullNumber": 3, "event": "COMMENT", "body": "LGTM"}),
			method: "POST", path: "/repos/acme/api/pulls/3/reviews", body: `{"event":"COMMENT","body":"LGTM"}`, status: 200, mutates: true},
		// Approving one's own pull request is refused on both surfaces.
		{tool: "pull_request_review_write", args: own(map[string]any{"method": "create", "pullNumber": 3, "event": "APPROVE"}),
			method: "POST", path: "/repos/acme/api/pulls/3/reviews", body: `{"event":"APPROVE"}`, status: 422},
		{tool: "list_pull_requests", args: own(map[string]any{}), method: "GET", path: "/repos/acme/api/pulls", status: 200},
		{tool: "merge_pull_request", args: own(map[string]any{"pullNumber": 3}),
			method: "PUT", path: "/repos/acme/api/pulls/3/merge", body: `{}`, status: 200, mutates: true},
		{tool: "merge_pull_request", args: own(map[string]any{"pullNumber": 3}),
			method: "PUT", path: "/repos/acme/api/pulls/3/merge", body: `{}`, status: 405},
		{tool: "search_issues", args: map[string]any{"query": "repo:acme/api Checkout"}, method: "GET", path: "/search/issues?q=repo:acme/api+is:issue+Checkout", status: 200},
		{tool: "get_me", args: map[string]any{}, method: "GET", path: "/user", status: 200},
		{tool: "get_file_contents", args: own(map[string]any{"path": "orders.go", "ref": "main"}), method: "GET", path: "/repos/acme/api/contents/orders.go?ref=main", status: 200},
		{tool: "get_file_contents", args: own(map[string]any{"path": "nope.go"}), method: "GET", path: "/repos/acme/api/contents/nope.go", status: 404},
		{tool: "list_branches", args: own(map[string]any{}), method: "GET", path: "/repos/acme/api/branches", status: 200},
		{tool: "list_commits", args: own(map[string]any{"sha": "main"}), method: "GET", path: "/repos/acme/api/commits?sha=main", status: 200},
		{tool: "get_commit", args: own(map[string]any{"sha": "main"}), method: "GET", path: "/repos/acme/api/commits/main", status: 200},
		{tool: "get_label", args: own(map[string]any{"name": "bug"}), method: "GET", path: "/repos/acme/api/labels/bug", status: 200},
		{tool: "list_label", args: own(map[string]any{}), method: "GET", path: "/repos/acme/api/labels", status: 200},
		{tool: "list_tags", args: own(map[string]any{}), method: "GET", path: "/repos/acme/api/tags", status: 200},
		{tool: "list_releases", args: own(map[string]any{}), method: "GET", path: "/repos/acme/api/releases", status: 200},
		{tool: "get_latest_release", args: own(map[string]any{}), method: "GET", path: "/repos/acme/api/releases/latest", status: 404},
		{tool: "list_repository_collaborators", args: own(map[string]any{}), method: "GET", path: "/repos/acme/api/collaborators", status: 200},
		{tool: "create_repository", args: map[string]any{"name": "scratch", "private": false, "autoInit": true},
			method: "POST", path: "/user/repos", body: `{"name":"scratch","private":false,"auto_init":true}`, status: 201, mutates: true},
		{tool: "fork_repository", args: own(map[string]any{}), method: "POST", path: "/repos/acme/api/forks", body: `{}`, status: 202, mutates: true},
		{tool: "search_code", args: map[string]any{"query": "package api"}, method: "GET", path: "/search/code?q=%22package+api%22", status: 200},
		{tool: "search_repositories", args: map[string]any{"query": "scratch"}, method: "GET", path: "/search/repositories?q=scratch", status: 200},
		{tool: "search_users", args: map[string]any{"query": "alice"}, method: "GET", path: "/search/users?q=alice", status: 200},
		{tool: "search_commits", args: map[string]any{"query": "repo:acme/api orders"}, method: "GET", path: "/search/commits?q=repo:acme/api+orders", status: 200},
		{tool: "search_code", args: map[string]any{"query": "x repo:acme/nope"}, method: "GET", path: "/search/code?q=x+repo:acme/nope", status: 422},
	}
	for i, s := range steps {
		var rb []byte
		ct := ""
		if s.body != "" {
			rb, ct = []byte(s.body), "application/json"
		}
		status, out := rest.Do(t, s.method, s.path, ct, rb)
		if status != s.status {
			t.Fatalf("step %d %s %s: status %d, want %d: %s", i, s.method, s.path, status, s.status, out)
		}
		text, isErr := resttest.CallTool(t, cs, s.tool, s.args)
		if isErr != (s.status >= 400) {
			t.Fatalf("step %d %s over MCP: isError=%v: %s", i, s.tool, isErr, text)
		}
		rr, mr := rest.Tape(t), mcp.Tape(t)
		r, m := rr[len(rr)-1], mr[len(mr)-1]
		if r.ToolName() != s.tool || m.ToolName() != s.tool {
			t.Errorf("step %d: tape tools rest=%q mcp=%q, want %q", i, r.ToolName(), m.ToolName(), s.tool)
		}
		if r.StateMutation != s.mutates || m.StateMutation != s.mutates {
			t.Errorf("step %d %s: state_mutation rest=%v mcp=%v, want %v", i, s.tool, r.StateMutation, m.StateMutation, s.mutates)
		}
		if r.Transport != "rest" || m.Transport != "mcp" {
			t.Errorf("step %d: transports %q %q", i, r.Transport, m.Transport)
		}
		if a, b := normalizedState(t, rest), normalizedState(t, mcp); a != b {
			t.Fatalf("step %d %s: states differ\nrest: %s\n mcp: %s", i, s.tool, a, b)
		}
	}
	if s := normalizedState(t, rest); len(s) < 2000 || !regexp.MustCompile(`Checkout fails`).MatchString(s) {
		t.Errorf("state document too small to compare: %s", s)
	}
	// The merge landed the file on main in both sandboxes.
	for _, env := range []*resttest.Env{rest, mcp} {
		if st, _ := env.Do(t, http.MethodGet, "/repos/acme/api/contents/orders.go?ref=main", "", nil); st != 200 {
			t.Errorf("orders.go on main after merge: %d", st)
		}
	}
}
