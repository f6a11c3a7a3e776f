package cli

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/pomehq/pome/task"
	"github.com/pomehq/pome/task/tasktest"
)

// chatServer speaks OpenAI's chat completions and records what it was sent.
func chatServer(t *testing.T, answer string) (*httptest.Server, func() []map[string]any) {
	t.Helper()
	var mu sync.Mutex
	var got []map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			http.Error(w, `{"error":{"message":"no such path"}}`, 404)
			return
		}
		data, _ := io.ReadAll(r.Body)
		var body map[string]any
		json.Unmarshal(data, &body)
		mu.Lock()
		got = append(got, body)
		mu.Unlock()
		json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": answer}}}})
	}))
	t.Cleanup(srv.Close)
	return srv, func() []map[string]any { mu.Lock(); defer mu.Unlock(); return append([]map[string]any(nil), got...) }
}

func TestRunWithModelJudge(t *testing.T) {
	startPome(t, tasktest.Registry())
	srv, sent := chatServer(t, `{"passed": false, "reason": "the note is flat"}`)
	t.Setenv("POME_LLM_BASE_URL", srv.URL+"/v1")
	t.Setenv("POME_LLM_MODEL", "judge-8b")
	runs := filepath.Join(t.TempDir(), "runs")
	r := runCLI(t, "run", writeTask(t, notesTask), "--agent", agentScript(t, passingAgent), "--artifacts-dir", runs, "--judge", "openai")
	// The model said no, but its reading stays out of the score.
	if r.code != ExitOK {
		t.Fatalf("%+v", r)
	}
	for _, want := range []string{
		"score 100 (2 of 2 evaluated criteria passed; threshold 100; 1 excluded; 1 [model] read by judge-8b, not scored)",
		"failed    [model: judge-8b, not scored] The note is cheerful — the note is flat",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	reqs := sent()
	if len(reqs) != 1 || reqs[0]["model"] != "judge-8b" {
		t.Fatalf("sent %v", reqs)
	}
	prompt := reqs[0]["messages"].([]any)[1].(map[string]any)["content"].(string)
	for _, want := range []string{"The note is cheerful", "Write a note saying released.", "create_note", "released v2"} {
		if !strings.Contains(prompt, want) {
			t.Errorf("prompt lacks %q:\n%s", want, prompt)
		}
	}
	var sum task.Summary
	readJSON(t, filepath.Join(runs, "latest.json"), &sum)
	var v task.Verdict
	readJSON(t, filepath.Join(sum.RunDir, "verdict.json"), &v)
	if c := v.Criteria[3]; v.JudgeModel != "judge-8b" || v.Advisory != 1 || c.JudgeModel != "judge-8b" || !c.Advisory || c.Status != task.StatusFailed {
		t.Fatalf("verdict %+v", v)
	}

	// A task that scores model readings fails on the same answer.
	scored := strings.Replace(notesTask, "timeout: 20\n", "timeout: 20\nmodelScored: true\n", 1)
	r = runCLI(t, "run", writeTask(t, scored), "--agent", agentScript(t, passingAgent), "--artifacts-dir", runs, "--judge", "openai")
	if r.code != ExitFail || !strings.Contains(r.stdout, "failed    [model: judge-8b] The note is cheerful") {
		t.Fatalf("scored: %+v", r)
	}
}

func TestJudgeFlagErrors(t *testing.T) {
	p := startPome(t, tasktest.Registry())
	path := writeTask(t, notesTask)
	agent := agentScript(t, passingAgent)
	cases := []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"openai without key", nil, []string{"--judge", "openai"}, "--judge openai needs POME_LLM_API_KEY"},
		{"openai without model", map[string]string{"POME_LLM_BASE_URL": "http://127.0.0.1:9/v1"}, []string{"--judge", "openai"}, "--judge openai needs a model"},
		{"anthropic without key", nil, []string{"--judge", "anthropic"}, "--judge anthropic needs ANTHROPIC_API_KEY"},
		{"unknown provider", nil, []string{"--judge", "gemini"}, `unknown judge "gemini"`},
		{"both judges", map[string]string{"ANTHROPIC_API_KEY": "k"}, []string{"--judge", "anthropic", "--judge-cmd", "cat"}, "give one"},
		{"model without judge", nil, []string{"--judge-model", "m"}, "--judge-model needs --judge"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("ANTHROPIC_API_KEY", "")
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			before := len(p.sandboxes(t))
			r := runCLI(t, append([]string{"run", path, "--agent", agent}, c.args...)...)
			if r.code != ExitUsage || !strings.Contains(r.stderr, c.want) {
				t.Fatalf("%+v, want %q", r, c.want)
			}
			if len(p.sandboxes(t)) != before {
				t.Error("a sandbox was created before the judge was checked")
			}
		})
	}
}

// eval reads [model] criteria with a model from the run directory alone;
// the task's judge: names the model when the environment does not.
func TestEvalWithModelJudge(t *testing.T) {
	startPome(t, tasktest.Registry())
	withJudge := strings.Replace(notesTask, "timeout: 20\n", "timeout: 20\njudge: task-named-model\n", 1)
	dir := runOnce(t, writeTask(t, withJudge), agentScript(t, passingAgent), t.TempDir(), ExitOK)
	offline(t)
	srv, sent := chatServer(t, `{"passed": true, "reason": "cheerful enough"}`)
	t.Setenv("POME_LLM_BASE_URL", srv.URL+"/v1")
	r := runCLI(t, "eval", dir, "--judge", "openai", "--json")
	if r.code != ExitOK {
		t.Fatalf("%+v", r)
	}
	var v task.Verdict
	json.Unmarshal([]byte(r.stdout), &v)
	if c := v.Criteria[3]; c.Status != task.StatusPassed || c.JudgeModel != "task-named-model" || c.Reason != "cheerful enough" || v.Advisory != 1 {
		t.Fatalf("verdict %+v", v)
	}
	prompt := sent()[0]["messages"].([]any)[1].(map[string]any)["content"].(string)
	if sent()[0]["model"] != "task-named-model" || !strings.Contains(prompt, "create_note") {
		t.Fatalf("sent %v", sent())
	}
	// --judge-model wins over the task's.
	r = runCLI(t, "eval", dir, "--judge", "openai", "--judge-model", "flagged", "--json")
	if r.code != ExitOK || sent()[1]["model"] != "flagged" {
		t.Fatalf("%+v %v", r, sent())
	}
}

// --judge anthropic speaks Anthropic's messages API, with the original's
// default judge when nothing names a model.
func TestRunWithAnthropicJudge(t *testing.T) {
	startPome(t, tasktest.Registry())
	var mu sync.Mutex
	var got []*http.Request
	var bodies []map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		var body map[string]any
		json.Unmarshal(data, &body)
		mu.Lock()
		got, bodies = append(got, r), append(bodies, body)
		mu.Unlock()
		json.NewEncoder(w).Encode(map[string]any{"type": "message", "role": "assistant",
			"content": []any{map[string]any{"type": "text", "text": `{"passed": true, "reason": "upbeat"}`}}})
	}))
	defer srv.Close()
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-local")
	t.Setenv("ANTHROPIC_BASE_URL", srv.URL)
	runs := t.TempDir()
	r := runCLI(t, "run", writeTask(t, notesTask), "--agent", agentScript(t, passingAgent), "--artifacts-dir", runs, "--judge", "anthropic")
	if r.code != ExitOK || !strings.Contains(r.stdout, "passed    [model: "+task.DefaultJudgeModel+", not scored] The note is cheerful — upbeat") {
		t.Fatalf("%+v", r)
	}
	if len(got) != 1 || got[0].URL.Path != "/v1/messages" || got[0].Header.Get("x-api-key") != "sk-ant-local" ||
		got[0].Header.Get("anthropic-version") == "" || bodies[0]["model"] != task.DefaultJudgeModel {
		t.Fatalf("sent %v %v", got, bodies)
	}
}
