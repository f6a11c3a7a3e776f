package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pomehq/pome/task"
	"github.com/pomehq/pome/task/tasktest"
)

// runOnce runs agent against the task file once and returns the run
// directory latest.json names.
func runOnce(t *testing.T, taskPath, agent, runs string, wantCode int) string {
	t.Helper()
	r := runCLI(t, "run", taskPath, "--agent", agent, "--artifacts-dir", runs)
	if r.code != wantCode {
		t.Fatalf("pome run: %+v", r)
	}
	var sum task.Summary
	readJSON(t, filepath.Join(runs, "latest.json"), &sum)
	return sum.RunDir
}

// offline points the CLI at a server that is not there, so that a command
// that worked did so without one.
func offline(t *testing.T) {
	t.Setenv("POME_SERVER", "http://127.0.0.1:1")
}

func TestEvalRegradesOfflineWithTheSameVerdict(t *testing.T) {
	startPome(t, tasktest.Registry())
	dir := runOnce(t, writeTask(t, notesTask), agentScript(t, passingAgent), t.TempDir(), ExitOK)
	if b, _ := os.ReadFile(filepath.Join(dir, task.TaskSourceFile)); string(b) != notesTask {
		t.Fatalf("the run did not save its task: %q", b)
	}
	offline(t)
	r := runCLI(t, "eval", dir, "--json")
	if r.code != ExitOK {
		t.Fatalf("%+v", r)
	}
	var got, want task.Verdict
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatal(err)
	}
	readJSON(t, filepath.Join(dir, "verdict.json"), &want)
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if string(g) != string(w) {
		t.Errorf("eval verdict differs from the run's:\n%s\n%s", g, w)
	}

	r = runCLI(t, "eval", dir)
	if r.code != ExitOK || !strings.HasPrefix(r.stdout, "PASS  Announce the release\n") ||
		!strings.Contains(r.stdout, "passed    [notes] The `create_note` tool was called on notes") ||
		!strings.Contains(r.stdout, "graded offline: "+dir+", criteria from ") {
		t.Errorf("%+v", r)
	}
}

// A criterion edited after the run is scored against what the run saved;
// --saved grades with the task as it ran.
func TestEvalScoresAnEditedCriterion(t *testing.T) {
	startPome(t, tasktest.Registry())
	path := writeTask(t, notesTask)
	dir := runOnce(t, path, agentScript(t, passingAgent), t.TempDir(), ExitOK)
	edited := strings.Replace(notesTask, `A note contains "released"`, `A note contains "shipped"`, 1)
	if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	offline(t)
	r := runCLI(t, "eval", dir)
	if r.code != ExitFail || !strings.Contains(r.stdout, `failed    [notes] A note contains "shipped"`) || !strings.Contains(r.stdout, "criteria from "+path) {
		t.Errorf("edited: %+v", r)
	}
	r = runCLI(t, "eval", dir, "--saved")
	if r.code != ExitOK || !strings.Contains(r.stdout, "criteria from "+filepath.Join(dir, task.TaskSourceFile)) {
		t.Errorf("saved: %+v", r)
	}
	// With the task file gone, the saved copy grades.
	os.Remove(path)
	if r := runCLI(t, "eval", dir); r.code != ExitOK {
		t.Errorf("file gone: %+v", r)
	}
	other := writeTask(t, strings.Replace(notesTask, `A note contains "draft"`, `No note contains "released"`, 1))
	if r := runCLI(t, "eval", dir, "--task", other); r.code != ExitFail || !strings.Contains(r.stdout, `failed    [notes] No note contains "released"`) {
		t.Errorf("--task: %+v", r)
	}
}

func TestEvalIncompleteRuns(t *testing.T) {
	startPome(t, tasktest.Registry())
	// The preflight fails: the run ends before any final state.
	dir := runOnce(t, writeTask(t, notesTask), agentScript(t, "exit 3\n"), t.TempDir(), ExitOrchestration)
	offline(t)
	r := runCLI(t, "eval", dir)
	if r.code != ExitIncomplete || !strings.Contains(r.stdout, "error     [notes] A note contains \"released\" — could not read the notes twin: the run directory has no state_final.notes.json") {
		t.Errorf("no final state: %+v", r)
	}

	// Calls past the tape's cap make a tape check untrustworthy.
	startPome(t, tasktest.Registry())
	dir = runOnce(t, writeTask(t, notesTask), agentScript(t, passingAgent), t.TempDir(), ExitOK)
	var meta map[string]any
	readJSON(t, filepath.Join(dir, "meta.json"), &meta)
	meta["tape_dropped"] = map[string]int{"notes": 4}
	b, _ := json.Marshal(meta)
	os.WriteFile(filepath.Join(dir, "meta.json"), b, 0o644)
	offline(t)
	r = runCLI(t, "eval", dir)
	if r.code != ExitIncomplete || !strings.Contains(r.stdout, "error     [notes] The `create_note` tool was called on notes") {
		t.Errorf("dropped rows: %+v", r)
	}
}

func TestEvalBadInput(t *testing.T) {
	startPome(t, tasktest.Registry())
	dir := runOnce(t, writeTask(t, notesTask), agentScript(t, passingAgent), t.TempDir(), ExitOK)
	offline(t)
	broken := t.TempDir()
	os.WriteFile(filepath.Join(broken, "meta.json"), []byte("{"), 0o644)
	foreign := writeTask(t, strings.ReplaceAll(notesTask, "notes", "board"))
	for name, c := range map[string]struct {
		args []string
		want string
	}{
		"not a run dir":  {[]string{t.TempDir()}, "has no meta.json: it is not a run directory"},
		"corrupt meta":   {[]string{broken}, "meta.json is not valid JSON"},
		"foreign twin":   {[]string{dir, "--task", foreign}, "criterion reads the board twin, which this run does not run (it runs notes)"},
		"no task file":   {[]string{dir, "--task", filepath.Join(t.TempDir(), "gone.md")}, "no such file"},
		"saved and task": {[]string{dir, "--saved", "--task", foreign}, "give one"},
		"no argument":    {nil, "accepts 1 arg"},
	} {
		r := runCLI(t, append([]string{"eval"}, c.args...)...)
		if r.code != ExitUsage || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%s: %+v", name, r)
		}
	}
	// A run without its saved task and whose file is gone cannot be graded.
	os.Remove(filepath.Join(dir, task.TaskSourceFile))
	var meta task.Meta
	readJSON(t, filepath.Join(dir, "meta.json"), &meta)
	os.Remove(meta.TaskFile)
	if r := runCLI(t, "eval", dir); r.code != ExitUsage || !strings.Contains(r.stderr, "give the task with --task FILE") {
		t.Errorf("no task: %+v", r)
	}
}

// [model] criteria are graded by --judge-cmd from the run's saved files.
func TestEvalJudgeCmd(t *testing.T) {
	startPome(t, tasktest.Registry())
	dir := runOnce(t, writeTask(t, notesTask), agentScript(t, passingAgent), t.TempDir(), ExitOK)
	offline(t)
	seen := filepath.Join(t.TempDir(), "judge-input.json")
	judge := agentScript(t, "cat > "+seen+"\necho '{\"passed\":false,\"reason\":\"grim\"}'\n")
	r := runCLI(t, "eval", dir, "--judge-cmd", judge)
	if r.code != ExitFail || !strings.Contains(r.stdout, "failed    [model] The note is cheerful — grim") {
		t.Fatalf("%+v", r)
	}
	var in task.JudgeInput
	readJSON(t, seen, &in)
	if in.Criterion.Text != "The note is cheerful" || len(in.Events) == 0 || !strings.Contains(string(in.StateFinal["notes"]), "released v2") || in.Task.Prompt != "Write a note saying released." {
		t.Errorf("judge input %+v", in)
	}
}
