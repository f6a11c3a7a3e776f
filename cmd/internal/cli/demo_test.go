package cli

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pomehq/pome/task"
	"github.com/pomehq/pome/task/tasktest"
	"github.com/pomehq/pome/twins"
)

func TestDemoBundledAgentPasses(t *testing.T) {
	withAllTwins(t)
	offline(t)
	r := runCLI(t, "demo", "--trials", "2")
	if r.code != ExitOK {
		t.Fatalf("%+v", r)
	}
	for _, want := range []string{
		"No account, no API key, no model",
		"twins github and slack ready at http://127.0.0.1:",
		"running 2 isolated trials of \"Outage hand-off: GitHub issue to the on-call channel\"",
		"trial 1  ✓  passed  100",
		"trial 2  ✓  passed  100",
		"2 of 2 passed   pass@1 1.00   pass^2 1.00",
		"[model] criteria abstained",
		"artifacts: " + filepath.Join("runs", "outage-handoff") + "/ (latest: " + filepath.Join("runs", "latest.json") + ")",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Index(r.stdout, "trial 1 ") > strings.Index(r.stdout, "trial 2 ") {
		t.Errorf("trials out of order:\n%s", r.stdout)
	}
	var sum task.Summary
	readJSON(t, filepath.Join("runs", "latest.json"), &sum)
	if len(sum.Tasks) != 1 || sum.Tasks[0].K != 2 || sum.Tasks[0].Passed != 2 || sum.ExitCode != 0 {
		t.Fatalf("latest.json %+v", sum)
	}
	// The run directory is `pome run`'s: the agent worked on both twins.
	rows := readLines(t, filepath.Join(sum.RunDir, "events.jsonl"))
	var tools []string
	for _, row := range rows {
		tools = append(tools, row["twin"].(string)+":"+row["tool"].(string))
	}
	want := "github:issue_read,github:issue_read,github:add_issue_labels,github:add_issue_assignees,github:add_issue_comment,slack:slack_send_message"
	if got := strings.Join(tools, ","); got != want {
		t.Errorf("tape %s", got)
	}
	out, _ := os.ReadFile(filepath.Join(sum.RunDir, "stdout.txt"))
	if !strings.Contains(string(out), "Told #general: On-call: alice has acme/api#1") {
		t.Errorf("agent output %s", out)
	}
	// The offline commands read it.
	if r := runCLI(t, "inspect", "latest"); r.code != ExitOK || !strings.Contains(r.stdout, "slack_send_message") {
		t.Errorf("inspect: %+v", r)
	}
	if r := runCLI(t, "eval", sum.RunDir); r.code != ExitOK {
		t.Errorf("eval: %+v", r)
	}
}

func TestDemoOwnAgent(t *testing.T) {
	withAllTwins(t)
	// Labels the issue and stops there.
	agent := agentScript(t, `[ -n "$POME_PREFLIGHT" ] && exit 0
curl -sf -X POST "$POME_GITHUB_REST_URL/repos/acme/api/issues/1/labels" -H "Authorization: Bearer $POME_GITHUB_TOKEN" -d '{"labels":["bug"]}'
`)
	r := runCLI(t, "demo", "--trials", "1", "--agent", agent)
	if r.code != ExitFail {
		t.Fatalf("%+v", r)
	}
	for _, want := range []string{
		"the bundled task and your agent (" + agent + ")",
		"trial 1  ✗  failed   50",
		"Issue #1 in `acme/api` is assigned to `alice`",
		"0 of 1 passed   pass@1 0.00   pass^1 0.00",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "your agent on the same task") {
		t.Error("the hint for the bundled agent is printed for the user's")
	}

	// An agent that fails its preflight errs the trial: exit 2.
	r = runCLI(t, "demo", "--trials", "1", "--agent", agentScript(t, "exit 3\n"))
	if r.code != ExitOrchestration || !strings.Contains(r.stdout, "trial 1  ⚠  error           the agent failed its preflight") {
		t.Fatalf("preflight: %+v", r)
	}
}

func TestDemoErrors(t *testing.T) {
	withAllTwins(t)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--trials", "0"}, ExitUsage, "invalid --trials 0 (expected 1-10)"},
		{[]string{"--trials", "11"}, ExitUsage, "invalid --trials 11"},
		{[]string{"--agent", " "}, ExitUsage, "--agent is empty"},
		{[]string{"--judge", "openai"}, ExitUsage, "--judge openai needs"},
		{[]string{"extra"}, ExitUsage, "unknown command"},
		{[]string{"--agent", "/no/such/agent"}, ExitOrchestration, "/no/such/agent"},
	} {
		r := runCLI(t, append([]string{"demo"}, c.args...)...)
		if r.code != c.code || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: %+v, want %d %q", c.args, r, c.code, c.want)
		}
	}
	if _, err := os.Stat("runs"); err == nil {
		t.Error("a refused demo wrote runs/")
	}
}

func TestDemoJSONAndModelJudge(t *testing.T) {
	withAllTwins(t)
	srv, sent := chatServer(t, `{"passed": true, "reason": "it names alice"}`)
	t.Setenv("POME_LLM_BASE_URL", srv.URL+"/v1")
	t.Setenv("POME_LLM_MODEL", "judge-8b")
	r := runCLI(t, "demo", "--trials", "1", "--judge", "openai", "--json")
	if r.code != ExitOK {
		t.Fatalf("%+v", r)
	}
	var sum task.Summary
	if err := json.Unmarshal([]byte(r.stdout), &sum); err != nil || sum.Tasks[0].Passed != 1 {
		t.Fatalf("stdout is not the summary: %v\n%s", err, r.stdout)
	}
	v := sum.Tasks[0].Trials[0].Verdict
	if v == nil || v.Advisory != 1 || v.JudgeModel != "judge-8b" {
		t.Fatalf("verdict %+v", v)
	}
	if !strings.Contains(r.stderr, "[model] criteria read by judge-8b, not scored") || !strings.Contains(r.stderr, "trial 1  ✓  passed") {
		t.Errorf("stderr %s", r.stderr)
	}
	prompt := sent()[0]["messages"].([]any)[1].(map[string]any)["content"].(string)
	if !strings.Contains(prompt, "The Slack message says who is on the outage") || !strings.Contains(prompt, "slack_send_message") {
		t.Errorf("prompt %s", prompt)
	}
}

func TestDemoAgentNeedsItsEnvironment(t *testing.T) {
	var out strings.Builder
	err := runDemoAgent(context.Background(), func(string) string { return "" }, &out, nil)
	if err == nil || !strings.Contains(err.Error(), "lacks POME_GITHUB_REST_URL, POME_GITHUB_TOKEN, POME_SLACK_REST_URL, POME_SLACK_TOKEN") {
		t.Fatalf("%v", err)
	}
	r := runCLI(t, "demo-agent")
	if r.code != ExitFail || !strings.Contains(r.stderr, "run me through `pome demo`") {
		t.Fatalf("%+v", r)
	}
}

// The demo agent stops at the first call that does not go through.
func TestDemoAgentStopsOnRefusals(t *testing.T) {
	cases := []struct {
		name    string
		handler http.HandlerFunc
		want    string
	}{
		{"github refuses", func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, `{"message":"Not Found"}`, 404)
		}, "read acme/api#1: GET"},
		{"not JSON", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "<html>") }, "the answer is not JSON"},
		{"slack ok:false", func(w http.ResponseWriter, r *http.Request) {
			if strings.Contains(r.URL.Path, "chat.postMessage") {
				io.WriteString(w, `{"ok":false,"error":"channel_not_found"}`)
				return
			}
			io.WriteString(w, `{"title":"x"}`)
		}, "tell #general: Slack answered ok:false (channel_not_found)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(c.handler)
			defer srv.Close()
			env := map[string]string{"POME_GITHUB_REST_URL": srv.URL, "POME_GITHUB_TOKEN": "g", "POME_SLACK_REST_URL": srv.URL, "POME_SLACK_TOKEN": "s"}
			var out strings.Builder
			err := runDemoAgent(context.Background(), func(k string) string { return env[k] }, &out, http.DefaultClient)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("%v, want %q", err, c.want)
			}
		})
	}
}

// A binary whose twins cannot load the bundled task says so.
func TestDemoNeedsItsTwins(t *testing.T) {
	isolate(t)
	t.Chdir(t.TempDir())
	old := taskRegistry
	taskRegistry = func() *twins.Registry { return tasktest.Registry() }
	defer func() { taskRegistry = old }()
	r := runCLI(t, "demo")
	if r.code != ExitOrchestration || !strings.Contains(r.stderr, "the bundled demo task does not load with this binary's twins") {
		t.Fatalf("%+v", r)
	}
}
