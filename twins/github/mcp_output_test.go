package github_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	gh "github.com/google/go-github/v84/github"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pomehq/pome/rest/resttest"
	"github.com/pomehq/pome/twins/github"
	"github.com/pomehq/pome/twins/twinstest"
)

// mcpCase is one tool call whose MCP answer is pinned by shape.
type mcpCase struct {
	name, tool string
	args       map[string]any
}

func repoArgs(extra map[string]any) map[string]any {
	out := map[string]any{"owner": "acme", "repo": "api"}
	for k, v := range extra {
		out[k] = v
	}
	return out
}

// mcpCases are read before written, in order, on the world of
// testdata/mcp/seed.json. Each golden (testdata/mcp/<name>.json) is the
// twin's answer; its shape (members, nesting, JSON types, content kinds)
// was checked against github-mcp-server's answer to the same call, the
// vendor server pointed at the twin, and the test keeps it from drifting.
var mcpCases = []mcpCase{
	{"get_me", "get_me", map[string]any{}},
	{"list_issues", "list_issues", repoArgs(nil)},
	{"list_issues_fields", "list_issues", repoArgs(map[string]any{"fields": []string{"number", "title"}})},
	{"issue_read", "issue_read", repoArgs(map[string]any{"method": "get", "issue_number": 1})},
	{"issue_read_comments", "issue_read", repoArgs(map[string]any{"method": "get_comments", "issue_number": 1})},
	{"issue_read_labels", "issue_read", repoArgs(map[string]any{"method": "get_labels", "issue_number": 1})},
	{"issue_read_parent", "issue_read", repoArgs(map[string]any{"method": "get_parent", "issue_number": 1})},
	{"list_pull_requests", "list_pull_requests", repoArgs(nil)},
	{"list_pull_requests_fields", "list_pull_requests", repoArgs(map[string]any{"fields": []string{"number", "title", "head"}})},
	{"pull_request_read", "pull_request_read", repoArgs(map[string]any{"method": "get", "pullNumber": 3})},
	{"pull_request_read_diff", "pull_request_read", repoArgs(map[string]any{"method": "get_diff", "pullNumber": 3})},
	{"pull_request_read_status", "pull_request_read", repoArgs(map[string]any{"method": "get_status", "pullNumber": 3})},
	{"pull_request_read_files", "pull_request_read", repoArgs(map[string]any{"method": "get_files", "pullNumber": 3})},
	{"pull_request_read_commits", "pull_request_read", repoArgs(map[string]any{"method": "get_commits", "pullNumber": 3})},
	{"pull_request_read_reviews", "pull_request_read", repoArgs(map[string]any{"method": "get_reviews", "pullNumber": 3})},
	{"pull_request_read_check_runs", "pull_request_read", repoArgs(map[string]any{"method": "get_check_runs", "pullNumber": 3})},
	{"get_file_contents", "get_file_contents", repoArgs(map[string]any{"path": "README.md"})},
	{"get_file_contents_dir", "get_file_contents", repoArgs(map[string]any{"path": "/"})},
	{"get_file_contents_dir_fields", "get_file_contents", repoArgs(map[string]any{"path": "src", "fields": []string{"name", "type"}})},
	{"list_branches", "list_branches", repoArgs(nil)},
	{"list_tags", "list_tags", repoArgs(nil)},
	{"get_tag", "get_tag", repoArgs(map[string]any{"tag": "v1.0.0"})},
	{"list_releases", "list_releases", repoArgs(nil)},
	{"get_latest_release", "get_latest_release", repoArgs(nil)},
	{"get_release_by_tag", "get_release_by_tag", repoArgs(map[string]any{"tag": "v1.0.0"})},
	{"list_releases_fields", "list_releases", repoArgs(map[string]any{"fields": []string{"tag_name", "name"}})},
	{"list_commits", "list_commits", repoArgs(nil)},
	{"list_commits_fields", "list_commits", repoArgs(map[string]any{"fields": []string{"sha"}})},
	{"get_commit", "get_commit", repoArgs(map[string]any{"sha": "main"})},
	{"get_commit_none", "get_commit", repoArgs(map[string]any{"sha": "main", "detail": "none"})},
	{"get_commit_full_patch", "get_commit", repoArgs(map[string]any{"sha": "main", "detail": "full_patch"})},
	{"get_label", "get_label", repoArgs(map[string]any{"name": "bug"})},
	{"list_repository_collaborators", "list_repository_collaborators", repoArgs(nil)},
	{"search_code", "search_code", map[string]any{"query": "package repo:acme/api"}},
	{"search_code_fields", "search_code", map[string]any{"query": "package repo:acme/api", "fields": []string{"name", "path"}}},
	{"search_issues", "search_issues", map[string]any{"query": "repo:acme/api orders"}},
	{"search_issues_fields", "search_issues", map[string]any{"query": "repo:acme/api orders", "fields": []string{"number", "title"}}},
	{"search_pull_requests", "search_pull_requests", map[string]any{"query": "repo:acme/api fix"}},
	{"search_repositories", "search_repositories", map[string]any{"query": "api org:acme"}},
	{"search_users", "search_users", map[string]any{"query": "alice"}},
	// Writes.
	{"issue_write_create", "issue_write", repoArgs(map[string]any{"method": "create", "title": "New bug", "labels": []string{"bug"}})},
	{"add_issue_comment", "add_issue_comment", repoArgs(map[string]any{"issue_number": 1, "body": "On it"})},
	{"add_issue_comment_reaction", "add_issue_comment", repoArgs(map[string]any{"issue_number": 1, "reaction": "+1"})},
	{"add_issue_comment_both", "add_issue_comment", repoArgs(map[string]any{"issue_number": 1, "body": "x", "reaction": "heart"})},
	{"create_branch", "create_branch", repoArgs(map[string]any{"branch": "w", "from_branch": "main"})},
	{"create_or_update_file", "create_or_update_file", repoArgs(map[string]any{"path": "w.txt", "content": "hello\n", "message": "add w", "branch": "w"})},
	{"create_pull_request", "create_pull_request", repoArgs(map[string]any{"title": "W", "head": "w", "base": "main"})},
	{"pull_request_review_write_pending", "pull_request_review_write", repoArgs(map[string]any{"method": "create", "pullNumber": 4})},
	{"add_comment_to_pending_review", "add_comment_to_pending_review", repoArgs(map[string]any{"pullNumber": 4, "path": "x.go", "body": "nit", "line": 1, "side": "RIGHT", "subjectType": "LINE"})},
	{"pull_request_review_write_submit", "pull_request_review_write", repoArgs(map[string]any{"method": "submit_pending", "pullNumber": 4, "event": "COMMENT", "body": "done"})},
	{"pull_request_read_review_comments", "pull_request_read", repoArgs(map[string]any{"method": "get_review_comments", "pullNumber": 4})},
	{"delete_file", "delete_file", repoArgs(map[string]any{"path": "w.txt", "message": "rm", "branch": "w"})},
	{"create_repository", "create_repository", map[string]any{"name": "w"}},
	{"fork_repository", "fork_repository", map[string]any{"owner": "alice", "repo": "tools"}},
	{"merge_pull_request", "merge_pull_request", repoArgs(map[string]any{"pullNumber": 3, "merge_method": "squash"})},
}

func TestMCPAnswerShapes(t *testing.T) {
	seed, err := os.ReadFile(filepath.Join("testdata", "mcp", "seed.json"))
	if err != nil {
		t.Fatal(err)
	}
	env := resttest.Start(t, github.New(), string(seed))
	cs := env.MCP(t)
	for _, c := range mcpCases {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if res.IsError {
			t.Errorf("%s: error answer %s", c.name, mustJSON(t, res.Content))
			continue
		}
		// github-mcp-server's tools declare no output schema and send
		// no structured content.
		if res.StructuredContent != nil {
			t.Errorf("%s: structuredContent sent", c.name)
		}
		got := answerDoc(t, res)
		path := filepath.Join("testdata", "mcp", c.name+".json")
		raw, err := os.ReadFile(path)
		if twinstest.Updating() && (err != nil || !sameShape(raw, got)) {
			b := []byte(strings.NewReplacer(env.SessionID, "{sandbox}", env.HTTP.URL, "{server}").Replace(string(mustJSON(t, got))))
			if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("golden %s missing (run go test -update): %v", path, err)
		}
		var want any
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if diff := shapeDiff(shape(want), shape(got)); diff != "" {
			t.Errorf("%s: answer's shape differs from %s:\n%s", c.name, path, diff)
		}
	}
}

// sameShape reports whether a golden's answer has got's shape; -update
// keeps such a golden as it is, so that values which change from run to
// run (write times) do not rewrite it.
func sameShape(golden []byte, got any) bool {
	var want any
	return json.Unmarshal(golden, &want) == nil && shapeDiff(shape(want), shape(got)) == ""
}

// answerDoc is an MCP answer as a JSON value: per content, its kind and
// its text (decoded when it is JSON) or resource.
func answerDoc(t *testing.T, res *mcp.CallToolResult) any {
	t.Helper()
	var out []any
	for _, ct := range res.Content {
		switch c := ct.(type) {
		case *mcp.TextContent:
			var v any
			if json.Unmarshal([]byte(c.Text), &v) == nil {
				out = append(out, map[string]any{"type": "text", "json": v})
			} else {
				out = append(out, map[string]any{"type": "text", "text": c.Text})
			}
		case *mcp.EmbeddedResource:
			var v any
			if err := json.Unmarshal(mustJSON(t, c.Resource), &v); err != nil {
				t.Fatal(err)
			}
			out = append(out, map[string]any{"type": "resource", "resource": v})
		default:
			t.Fatalf("unexpected content %T", ct)
		}
	}
	return out
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// shape maps each path of a JSON value (array elements as []) to its
// JSON type; plain text is one type, whatever it says.
func shape(v any) map[string]string {
	m := map[string]string{}
	var walk func(v any, path string)
	walk = func(v any, path string) {
		switch x := v.(type) {
		case map[string]any:
			m[path] = "object"
			for k, e := range x {
				walk(e, path+"."+k)
			}
		case []any:
			m[path] = "array"
			for _, e := range x {
				walk(e, path+"[]")
			}
		case string:
			m[path] = "string"
		case float64:
			m[path] = "number"
		case bool:
			m[path] = "bool"
		case nil:
			m[path] = "null"
		}
	}
	walk(v, "$")
	return m
}

func shapeDiff(want, got map[string]string) string {
	var lines []string
	for p, w := range want {
		if g := got[p]; g != w {
			lines = append(lines, fmt.Sprintf("  %s: want %s, got %q", p, w, g))
		}
	}
	for p, g := range got {
		if _, ok := want[p]; !ok {
			lines = append(lines, fmt.Sprintf("  %s: unexpected %s", p, g))
		}
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// TestMCPFieldsMatchAnswers checks that every field a tool's fields
// parameter offers is one its items can carry, and that picking fields
// leaves only those.
func TestMCPFieldsMatchAnswers(t *testing.T) {
	seed, err := os.ReadFile(filepath.Join("testdata", "mcp", "seed.json"))
	if err != nil {
		t.Fatal(err)
	}
	tw := github.New()
	env := resttest.Start(t, tw, string(seed))
	cs := env.MCP(t)
	for _, c := range []struct {
		tool  string
		args  map[string]any
		items func(v any) []any
	}{
		{"list_issues", repoArgs(nil), func(v any) []any { return v.(map[string]any)["issues"].([]any) }},
		{"list_pull_requests", repoArgs(nil), func(v any) []any { return v.([]any) }},
		{"list_commits", repoArgs(nil), func(v any) []any { return v.([]any) }},
		{"list_releases", repoArgs(nil), func(v any) []any { return v.([]any) }},
		{"search_code", map[string]any{"query": "package repo:acme/api"}, func(v any) []any { return v.(map[string]any)["items"].([]any) }},
		// Issue search answers whole issue objects; its fields are a
		// chosen few of their members.
		{"search_pull_requests", map[string]any{"query": "repo:acme/api fix"}, func(v any) []any { return v.(map[string]any)["items"].([]any) }},
	} {
		curated := strings.HasPrefix(c.tool, "search_issues") || strings.HasPrefix(c.tool, "search_pull")
		a, _ := tw.Action(c.tool)
		var offered []string
		for _, e := range a.InputSchema().Properties["fields"].Items.Enum {
			offered = append(offered, e.(string))
		}
		text, isErr := resttest.CallTool(t, cs, c.tool, c.args)
		var v any
		if isErr || json.Unmarshal([]byte(text), &v) != nil {
			t.Fatalf("%s: %s", c.tool, text)
		}
		items := c.items(v)
		if len(items) == 0 {
			t.Fatalf("%s: no items", c.tool)
		}
		for _, it := range items {
			for k := range it.(map[string]any) {
				if !curated && !slices.Contains(offered, k) {
					t.Errorf("%s: item member %s is not among the fields offered %v", c.tool, k, offered)
				}
			}
		}
		args := map[string]any{"fields": offered[:2]}
		for k, val := range c.args {
			args[k] = val
		}
		text, isErr = resttest.CallTool(t, cs, c.tool, args)
		if isErr || json.Unmarshal([]byte(text), &v) != nil {
			t.Fatalf("%s fields: %s", c.tool, text)
		}
		for _, it := range c.items(v) {
			for k := range it.(map[string]any) {
				if !slices.Contains(offered[:2], k) {
					t.Errorf("%s fields %v: kept %s", c.tool, offered[:2], k)
				}
			}
		}
	}
}

// TestMCPAnswerSizes measures what an agent reads: a tool's MCP answer
// against the REST object(s) the same call answers. FIDELITY.md quotes its
// log (go test ./twins/github -run TestMCPAnswerSizes -v).
func TestMCPAnswerSizes(t *testing.T) {
	seed, err := os.ReadFile(filepath.Join("testdata", "mcp", "seed.json"))
	if err != nil {
		t.Fatal(err)
	}
	env := resttest.Start(t, github.New(), string(seed))
	cs := env.MCP(t)
	for _, c := range []struct {
		tool string
		args map[string]any
		rest string
	}{
		{"get_me", map[string]any{}, "/user"},
		{"list_issues", repoArgs(map[string]any{"state": "OPEN"}), "/repos/acme/api/issues?state=open"},
		{"list_pull_requests", repoArgs(nil), "/repos/acme/api/pulls"},
		{"issue_read", repoArgs(map[string]any{"method": "get", "issue_number": 1}), "/repos/acme/api/issues/1"},
		{"pull_request_read", repoArgs(map[string]any{"method": "get", "pullNumber": 3}), "/repos/acme/api/pulls/3"},
		{"get_file_contents", repoArgs(map[string]any{"path": "README.md"}), "/repos/acme/api/contents/README.md"},
	} {
		text, isErr := resttest.CallTool(t, cs, c.tool, c.args)
		if isErr {
			t.Fatalf("%s: %s", c.tool, text)
		}
		status, body := env.Do(t, "GET", c.rest, "", nil)
		if status != 200 {
			t.Fatalf("GET %s: %d", c.rest, status)
		}
		t.Logf("%-18s MCP %5d bytes, REST %6d bytes (GET %s)", c.tool, len(text), len(body), c.rest)
		if len(text) >= len(body) {
			t.Errorf("%s: the MCP answer (%d bytes) is not smaller than the REST object (%d)", c.tool, len(text), len(body))
		}
	}
}

// TestAddReplyToPullRequestComment: github-mcp-server's reply-and-react
// tool over MCP, and GitHub's two REST routes it stands for, through
// go-github.
func TestAddReplyToPullRequestComment(t *testing.T) {
	seed, err := os.ReadFile(filepath.Join("testdata", "mcp", "seed.json"))
	if err != nil {
		t.Fatal(err)
	}
	env := resttest.Start(t, github.New(), string(seed))
	ctx := context.Background()
	c := client(t, env)
	root, _, err := c.PullRequests.CreateComment(ctx, "acme", "api", 3, &gh.PullRequestComment{Body: gh.Ptr("why?"), Path: gh.Ptr("orders.go"), Line: gh.Ptr(1)})
	if err != nil {
		t.Fatal(err)
	}
	// REST: a reply lands in the root's thread; a reaction is 201, then 200.
	reply, resp, err := c.PullRequests.CreateCommentInReplyTo(ctx, "acme", "api", 3, "because", root.GetID())
	if err != nil || resp.StatusCode != 201 || reply.GetInReplyTo() != root.GetID() || reply.GetPath() != "orders.go" {
		t.Fatalf("reply: %v %+v", err, reply)
	}
	for _, want := range []int{201, 200} {
		rx, resp, err := c.Reactions.CreatePullRequestCommentReaction(ctx, "acme", "api", root.GetID(), "eyes")
		if err != nil || resp.StatusCode != want || rx.GetContent() != "eyes" {
			t.Fatalf("reaction: %v %d %+v", err, resp.StatusCode, rx)
		}
	}
	// MCP: {id, url} for one, {comment, reaction} for both; a reply to a
	// reply joins the root's thread.
	cs := env.MCP(t)
	call := func(args map[string]any) map[string]any {
		t.Helper()
		text, isErr := resttest.CallTool(t, cs, "add_reply_to_pull_request_comment", repoArgs(args))
		var out map[string]any
		if isErr || json.Unmarshal([]byte(text), &out) != nil {
			t.Fatalf("%v: %s", args, text)
		}
		return out
	}
	one := call(map[string]any{"pullNumber": 3, "commentId": reply.GetID(), "body": "and more"})
	if _, ok := one["id"].(string); !ok || !strings.Contains(fmt.Sprint(one["url"]), "/pull/3#discussion_r") {
		t.Errorf("reply: %v", one)
	}
	both := call(map[string]any{"pullNumber": 3, "commentId": root.GetID(), "body": "ok", "reaction": "rocket"})
	if both["comment"] == nil || !strings.Contains(fmt.Sprint(both["reaction"]), "/pulls/comments/") {
		t.Errorf("both: %v", both)
	}
	comments, _, err := c.PullRequests.ListComments(ctx, "acme", "api", 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	var inThread int
	for _, cm := range comments {
		if cm.GetInReplyTo() == root.GetID() {
			inThread++
		}
	}
	if inThread != 3 {
		t.Errorf("%d replies in the root's thread, want 3", inThread)
	}
	// Refusals: nothing to do, a body without its pull request, an
	// unknown comment.
	for _, args := range []map[string]any{
		{"commentId": root.GetID()},
		{"commentId": root.GetID(), "body": "x"},
		{"pullNumber": 3, "commentId": 999999, "reaction": "+1"},
	} {
		if text, isErr := resttest.CallTool(t, cs, "add_reply_to_pull_request_comment", repoArgs(args)); !isErr {
			t.Errorf("%v: answered %s", args, text)
		}
	}
}
