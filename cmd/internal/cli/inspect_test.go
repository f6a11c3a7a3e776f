package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pomehq/pome/task"
	"github.com/pomehq/pome/task/tasktest"
)

// strayAgent passes and also calls a path the twin has no action for.
const strayAgent = passingAgent + `curl -s "$POME_NOTES_REST_URL/nothing/here" -H "Authorization: Bearer $POME_NOTES_TOKEN" >/dev/null
`

func TestInspectShowsHeaderHealthAndRows(t *testing.T) {
	startPome(t, tasktest.Registry())
	runs := t.TempDir()
	path := writeTask(t, notesTask)
	dir := runOnce(t, path, agentScript(t, strayAgent), runs, ExitOK)
	var meta task.Meta
	readJSON(t, filepath.Join(dir, "meta.json"), &meta)
	offline(t)

	r := runCLI(t, "inspect", "latest", "--artifacts-dir", runs)
	if r.code != ExitOK {
		t.Fatalf("%+v", r)
	}
	for _, want := range []string{
		"run        " + meta.RunID + "  (trial 1)\n",
		"task       Announce the release  (" + path + ")\n",
		"session    " + meta.SessionID + "\n",
		"agent run  exited 0 after ",
		"verdict    pass  score 100 (2 of 2)\n",
		"\ntrace health\n  notes  2 rows\n",
		"  tool:null  1 row (seq 2): calls that match no action of the twin\n",
		"  truncated  no\n",
		"\ntape\n",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	for _, re := range []string{
		`(?m)^  1 notes rest POST /notes → 201 \([0-9.]+(µs|ms)\) \[mutation\] create_note$`,
		// Unsupported calls answer in the twin's own error envelope, which
		// for the test twin is always 400.
		`(?m)^  2 notes rest GET /nothing/here → 400 \([0-9.]+(µs|ms)\) tool:null$`,
	} {
		if !regexp.MustCompile(re).MatchString(r.stdout) {
			t.Errorf("stdout lacks a line matching %s:\n%s", re, r.stdout)
		}
	}

	// By run id and by directory, the same report.
	for _, arg := range []string{meta.RunID, dir} {
		if o := runCLI(t, "inspect", arg, "--artifacts-dir", runs); o.code != ExitOK || o.stdout != r.stdout {
			t.Errorf("inspect %s: %+v", arg, o)
		}
	}

	r = runCLI(t, "inspect", dir, "--json")
	var rep struct {
		RunDir string `json:"run_dir"`
		Health struct {
			Events bool             `json:"events"`
			Rows   map[string]int   `json:"rows_per_twin"`
			Null   []int64          `json:"tool_null_seqs"`
			Drops  map[string]int64 `json:"dropped"`
		} `json:"health"`
		Rows []struct {
			Seq      int64  `json:"seq"`
			Path     string `json:"path"`
			Tool     string `json:"tool"`
			Mutation bool   `json:"state_mutation"`
		} `json:"rows"`
		Verdict struct{ State string } `json:"verdict"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatal(err, r.stdout)
	}
	if !rep.Health.Events || rep.Health.Rows["notes"] != 2 || len(rep.Health.Null) != 1 || rep.Health.Null[0] != 2 || len(rep.Rows) != 2 ||
		rep.Rows[0].Tool != "create_note" || !rep.Rows[0].Mutation || rep.Rows[1].Path != "/nothing/here" || rep.Verdict.State != "pass" {
		t.Errorf("json %+v", rep)
	}
}

func TestInspectTruncatedAndUngradedRuns(t *testing.T) {
	startPome(t, tasktest.Registry())
	runs := t.TempDir()
	dir := runOnce(t, writeTask(t, notesTask), agentScript(t, passingAgent), runs, ExitOK)
	var meta map[string]any
	readJSON(t, filepath.Join(dir, "meta.json"), &meta)
	meta["tape_dropped"] = map[string]int{"notes": 3}
	b, _ := json.Marshal(meta)
	os.WriteFile(filepath.Join(dir, "meta.json"), b, 0o644)
	r := runCLI(t, "inspect", dir)
	if r.code != ExitOK || !strings.Contains(r.stdout, "  truncated  notes: 3 calls past the tape's cap are missing") {
		t.Errorf("truncated: %+v", r)
	}

	// A do-nothing agent: the twin was never called.
	dir = runOnce(t, writeTask(t, notesTask), "true", runs, ExitFail)
	r = runCLI(t, "inspect", dir)
	if r.code != ExitOK || !strings.Contains(r.stdout, "  notes  0 rows  warning: the agent never called this twin\n") || strings.Contains(r.stdout, "\ntape\n") {
		t.Errorf("no calls: %+v", r)
	}

	// A failed preflight: no verdict and no tape.
	dir = runOnce(t, writeTask(t, notesTask), agentScript(t, "exit 3\n"), runs, ExitOrchestration)
	r = runCLI(t, "inspect", dir)
	for _, want := range []string{"verdict    none: the run ended before grading", "error      the agent failed its preflight", "no events.jsonl: the run ended before its tapes were read"} {
		if r.code != ExitOK || !strings.Contains(r.stdout, want) {
			t.Errorf("preflight: lacks %q: %+v", want, r)
		}
	}
}

func TestInspectBadInput(t *testing.T) {
	isolate(t)
	runs := t.TempDir()
	for name, c := range map[string]struct {
		args []string
		want string
	}{
		"no latest":   {[]string{"latest", "--artifacts-dir", runs}, "no latest run in " + runs},
		"unknown run": {[]string{"20260101T000000.000Z-abcdef", "--artifacts-dir", runs}, "neither a run directory nor the id of a run"},
		"no argument": {nil, "accepts 1 arg"},
	} {
		r := runCLI(t, append([]string{"inspect"}, c.args...)...)
		if r.code != ExitUsage || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%s: %+v", name, r)
		}
	}
}

// With no --artifacts-dir, the manifest's artifacts_dir is where runs are;
// a broken manifest says so.
func TestInspectReadsManifestArtifactsDir(t *testing.T) {
	startPome(t, tasktest.Registry())
	proj := t.TempDir()
	runOnce(t, writeTask(t, notesTask), agentScript(t, passingAgent), filepath.Join(proj, "out"), ExitOK)
	os.WriteFile(filepath.Join(proj, "pome.json"), []byte(`{"agent":{"slug":"notes-bot"},"artifacts_dir":"out"}`), 0o644)
	os.MkdirAll(filepath.Join(proj, "sub"), 0o755)
	t.Chdir(filepath.Join(proj, "sub"))
	if r := runCLI(t, "inspect", "latest"); r.code != ExitOK || !strings.Contains(r.stdout, "Announce the release") {
		t.Errorf("%+v", r)
	}
	os.WriteFile(filepath.Join(proj, "pome.json"), []byte(`{"agent":{"slug":"Notes Bot"}}`), 0o644)
	if r := runCLI(t, "inspect", "latest"); r.code != ExitUsage || !strings.Contains(r.stderr, `agent.slug "Notes Bot" must be lower-case`) {
		t.Errorf("bad manifest: %+v", r)
	}
}
