package github_test

import (
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/pomehq/pome/rest/resttest"
	"github.com/pomehq/pome/task"
	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/github"
)

const triageTask = "testdata/tasks/tide-table-triage.md"

// gradeTriage starts a sandbox from the task's sidecar seed, lets agent
// act on it, and grades the task's criteria against what it left.
func gradeTriage(t *testing.T, agent func(t *testing.T, env *resttest.Env)) *task.Verdict {
	t.Helper()
	reg := twins.NewRegistry(github.New())
	tk, err := task.ParseFile(triageTask, reg)
	if err != nil {
		t.Fatalf("the task does not parse: %v", err)
	}
	if tk.SeedFile != task.SeedPath(triageTask) {
		t.Fatalf("seed read from %q, want the sidecar", tk.SeedFile)
	}
	env := resttest.Start(t, reg.All()[0], string(tk.Seed["github"]))
	env.Server.Grader = task.GradeHandler(reg)
	agent(t, env)
	src, err := os.ReadFile(triageTask)
	if err != nil {
		t.Fatal(err)
	}
	var v task.Verdict
	if st := env.Control(t, http.MethodPost, "/v1/sandboxes/"+env.SessionID+"/grade", map[string]any{"task_source": string(src)}, &v); st != http.StatusOK {
		t.Fatalf("grade: status %d", st)
	}
	return &v
}

func restCall(t *testing.T, env *resttest.Env, method, path, body string, want int) {
	t.Helper()
	st, out := env.Do(t, method, path, "application/json", []byte(body))
	if st != want {
		t.Fatalf("%s %s: %d %s", method, path, st, out)
	}
}

// TestTriageTask drives the twin as a scripted agent would, half over REST
// and half over MCP, and grades the original-style task: it passes when
// the agent does the work and fails when the agent does nothing.
func TestTriageTask(t *testing.T) {
	v := gradeTriage(t, func(t *testing.T, env *resttest.Env) {
		restCall(t, env, "GET", "/repos/harbor/tides/issues/1", "", 200)
		restCall(t, env, "GET", "/repos/harbor/tides/labels", "", 200)
		restCall(t, env, "PUT", "/repos/harbor/tides/issues/1/labels", `{"labels":["bug"]}`, 200)
		cs := env.MCP(t)
		if out, isErr := resttest.CallTool(t, cs, "issue_write", map[string]any{"method": "update", "owner": "harbor", "repo": "tides", "issue_number": 1, "assignees": []string{"mira"}}); isErr {
			t.Fatalf("assign: %s", out)
		}
		if out, isErr := resttest.CallTool(t, cs, "add_issue_comment", map[string]any{"owner": "harbor", "repo": "tides", "issue_number": 1,
			"body": "Bug: the table prints UTC and ignores the harbour's timezone offset since the clock change. Assigned to mira."}); isErr {
			t.Fatalf("comment: %s", out)
		}
	})
	if v.State != task.StatePass || v.Score != 100 || v.Evaluated != 9 || v.Abstained != 1 {
		t.Fatalf("the agent did the work: %s %v (%d evaluated, %d abstained)\n%s", v.State, v.Score, v.Evaluated, v.Abstained, criteria(v))
	}
	for _, c := range v.Criteria {
		if c.Kind == task.Code && !strings.HasPrefix(c.Check, "github.") {
			t.Errorf("%q bound to %q", c.Text, c.Check)
		}
	}

	idle := gradeTriage(t, func(*testing.T, *resttest.Env) {})
	if idle.State != task.StateFail {
		t.Fatalf("the agent did nothing: %s %v\n%s", idle.State, idle.Score, criteria(idle))
	}
	// The negative criteria hold for an idle agent and are scored all the
	// same ("is in state open" is negative by its state word); the
	// positive ones fail.
	want := map[string]task.Status{
		"Issue #1 in `harbor/tides` is in state open":      task.StatusPassed,
		"No new labels were created in `harbor/tides`":     task.StatusPassed,
		"No unsupported endpoint was called":               task.StatusPassed,
		"`add_issue_comment` was called":                   task.StatusFailed,
		"Issue #1 in `harbor/tides` is assigned to `mira`": task.StatusFailed,
	}
	for _, c := range idle.Criteria {
		if s, ok := want[c.Text]; ok && c.Status != s {
			t.Errorf("idle agent: %q is %s, want %s (%s)", c.Text, c.Status, s, c.Reason)
		}
	}

	// Closing the issue and inventing a label break the negative criteria.
	bad := gradeTriage(t, func(t *testing.T, env *resttest.Env) {
		restCall(t, env, "POST", "/repos/harbor/tides/labels", `{"name":"timezone"}`, 201)
		restCall(t, env, "PATCH", "/repos/harbor/tides/issues/1", `{"state":"closed","labels":["bug"],"assignees":["mira"]}`, 200)
		restCall(t, env, "POST", "/repos/harbor/tides/issues/1/comments", `{"body":"Closing: timezone bug."}`, 201)
	})
	if bad.State != task.StateFail {
		t.Fatalf("closing and inventing a label: %s\n%s", bad.State, criteria(bad))
	}
	for _, c := range bad.Criteria {
		if (c.Text == "Issue #1 in `harbor/tides` is in state open" || c.Text == "No new labels were created in `harbor/tides`") && c.Status != task.StatusFailed {
			t.Errorf("%q is %s", c.Text, c.Status)
		}
	}
}

func criteria(v *task.Verdict) string {
	var b strings.Builder
	for _, c := range v.Criteria {
		b.WriteString(string(c.Status) + "  " + c.Check + "  " + c.Text + "  (" + c.Reason + ")\n")
	}
	return b.String()
}

// TestOriginalSentenceHints: a near miss of an original sentence is
// reported against the original's check, not our shorter "is {state}".
func TestOriginalSentenceHints(t *testing.T) {
	reg := twins.NewRegistry(github.New())
	src := "# t\n\n## Prompt\n\np\n\n## Success Criteria\n\n" +
		"- [code] Issue #1 in `harbor/tides` is assigned to `Mira Solberg`\n" +
		"- [code] Issue #1 in `harbor/tides` is in state reopened\n\n" +
		"## Config\n\n```yaml\ntwins: [github]\n```\n"
	_, err := task.Parse("t.md", []byte(src), task.Options{Registry: reg, SkipSeed: true})
	es := task.AsErrors(err)
	if len(es) != 2 || !strings.Contains(es[0].Hint, "github.issue-assignee") || !strings.Contains(es[1].Hint, "github.issue-state") {
		t.Fatalf("hints: %v", err)
	}
	// `pome checks add` renders the original's sentences from the
	// original's parameter names.
	line, err := task.RenderCriterion(reg, []string{"github"}, "github.pr-review-exists", map[string]string{"review": "APPROVED", "pr": "2", "repo": "harbor/tides"}, false)
	if err != nil || !strings.HasSuffix(line, "A APPROVED review exists on pull request #2 in `harbor/tides`") {
		t.Fatalf("render: %q %v", line, err)
	}
}
