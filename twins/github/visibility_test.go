package github_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/pomehq/pome/rest/resttest"
	"github.com/pomehq/pome/twins/github"
)

// hiddenSeed holds a private repository of an organization the
// authenticated user (pome-agent) is not in, beside the default acme/api.
const hiddenSeed = `{
  "users": [{"login": "pome-agent"}, {"login": "carol"}],
  "orgs": [{"login": "acme", "members": ["pome-agent"]}, {"login": "umbrella", "members": ["carol"]}],
  "repos": [
    {"owner": "acme", "name": "api", "files": {"README.md": "# api\n"}, "issues": [{"number": 1, "title": "Visible"}]},
    {"owner": "umbrella", "name": "vault", "private": true, "collaborators": ["carol"],
     "issues": [{"number": 1, "title": "Launch codes", "body": "0000", "user": "carol",
                 "comments": [{"user": "carol", "body": "do not share"}]}]}
  ]
}`

// The red-team's case: get_repository answered 404 for a private repository
// the user may not see, but issue_read and add_issue_comment served it.
func TestPrivateRepositoryIsNotFoundOverMCP(t *testing.T) {
	env := resttest.Start(t, github.New(), hiddenSeed)
	cs := env.MCP(t)
	before := env.State(t)
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"get_repository", map[string]any{"owner": "umbrella", "repo": "vault"}},
		{"issue_read", map[string]any{"method": "get", "owner": "umbrella", "repo": "vault", "issue_number": 1}},
		{"issue_read", map[string]any{"method": "get_comments", "owner": "umbrella", "repo": "vault", "issue_number": 1}},
		{"add_issue_comment", map[string]any{"owner": "umbrella", "repo": "vault", "issue_number": 1, "body": "leaked?"}},
	} {
		text, isErr := resttest.CallTool(t, cs, c.tool, c.args)
		if !isErr {
			t.Errorf("%s on a hidden repository succeeded: %.200s", c.tool, text)
		}
		// The refusal is the one a repository that does not exist gets.
		missing := map[string]any{}
		for k, v := range c.args {
			missing[k] = v
		}
		missing["repo"] = "nosuch"
		want, _ := resttest.CallTool(t, cs, c.tool, missing)
		if strings.ReplaceAll(text, "vault", "nosuch") != want {
			t.Errorf("%s: hidden answers %.200q, missing answers %.200q", c.tool, text, want)
		}
		if strings.Contains(text, "Launch codes") || strings.Contains(text, "do not share") {
			t.Errorf("%s reveals the hidden issue: %.200s", c.tool, text)
		}
	}
	if after := env.State(t); !bytes.Equal(before, after) {
		t.Errorf("refused calls changed the state")
	}
	for _, row := range env.Tape(t) {
		if row.StateMutation {
			t.Errorf("tape row %d (%v) reads state_mutation=true", row.Seq, row.Tool)
		}
	}
	// The visible repository still answers.
	if text, isErr := resttest.CallTool(t, cs, "issue_read", map[string]any{"method": "get", "owner": "acme", "repo": "api", "issue_number": 1}); isErr {
		t.Errorf("issue_read on acme/api: %s", text)
	}
}

func TestPrivateRepositoryIsNotFoundOverREST(t *testing.T) {
	env := resttest.Start(t, github.New(), hiddenSeed)
	before := env.State(t)
	for _, c := range []struct{ method, path, body string }{
		{"GET", "/repos/umbrella/vault", ""},
		{"GET", "/repos/umbrella/vault/issues/1", ""},
		{"GET", "/repos/umbrella/vault/issues/1/comments", ""},
		{"POST", "/repos/umbrella/vault/issues/1/comments", `{"body": "leaked?"}`},
	} {
		var body []byte
		if c.body != "" {
			body = []byte(c.body)
		}
		st, got := env.Do(t, c.method, c.path, "application/json", body)
		if st != 404 {
			t.Errorf("%s %s: status %d %s, want 404", c.method, c.path, st, got)
			continue
		}
		var e struct {
			Message string `json:"message"`
		}
		if err := json.Unmarshal(got, &e); err != nil || e.Message != "Not Found" {
			t.Errorf("%s %s: body %s, want GitHub's Not Found", c.method, c.path, got)
		}
	}
	if after := env.State(t); !bytes.Equal(before, after) {
		t.Errorf("refused calls changed the state")
	}
	// Lists and searches leave it out too.
	for _, path := range []string{"/user/repos", "/orgs/umbrella/repos", "/search/issues?q=Launch", "/search/repositories?q=vault"} {
		st, got := env.Do(t, "GET", path, "", nil)
		if st != 200 || bytes.Contains(got, []byte("vault")) || bytes.Contains(got, []byte("Launch codes")) {
			t.Errorf("GET %s: %d %s", path, st, got)
		}
	}
}
