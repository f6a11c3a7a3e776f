package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pomehq/pome/task"
	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/github"
)

// freshProject makes an empty folder named name and works in it.
func freshProject(t *testing.T, name string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	return dir
}

// The daily loop on a fresh folder: init, run the starter with its agent,
// inspect, a failing run explained by fix-prompt, and eval of it.
func TestInitRunInspectFixPromptEval(t *testing.T) {
	startPome(t, twins.NewRegistry(github.New()))
	dir := freshProject(t, "Lantern Bot")
	r := runCLI(t, "init")
	if r.code != ExitOK {
		t.Fatalf("init: %+v", r)
	}
	for _, want := range []string{"wrote    tasks/label-lantern-crash.md\n", "wrote    tasks/label-lantern-crash.seed.json\n", "wrote    agents/example-agent.sh\n", "wrote    pome.json\n", "pome run "} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("init output lacks %q:\n%s", want, r.stdout)
		}
	}
	var m map[string]any
	readJSON(t, filepath.Join(dir, "pome.json"), &m)
	want := map[string]any{"$schema": manifestSchemaURL, "agent": map[string]any{"slug": "lantern-bot"}, "command": starterCommand,
		"tasks": "tasks", "artifacts_dir": "runs", "pass_threshold": 100.0}
	if g, _ := json.Marshal(m); string(g) != mustJSON(want) {
		t.Errorf("pome.json %s", g)
	}
	if st, err := os.Stat(filepath.Join(dir, "agents", "example-agent.sh")); err != nil || st.Mode()&0o100 == 0 {
		t.Errorf("agent script not executable: %v", err)
	}
	if st, err := os.Stat(filepath.Join(dir, "runs")); err != nil || !st.IsDir() {
		t.Errorf("no runs/")
	}

	// No path, no --agent: the manifest's tasks and command.
	r = runCLI(t, "run", "--agent-model", "scripted", "--agent-version", "0.3.0")
	if r.code != ExitOK || !strings.Contains(r.stdout, "PASS  Label the lantern crash report") || !strings.Contains(r.stdout, "PASS  Close the duplicate report") {
		t.Fatalf("run: %+v", r)
	}
	var sum task.Summary
	readJSON(t, filepath.Join(dir, "runs", "latest.json"), &sum)
	var meta task.Meta
	readJSON(t, filepath.Join(sum.RunDir, "meta.json"), &meta)
	var v task.Verdict
	readJSON(t, filepath.Join(sum.RunDir, "verdict.json"), &v)
	id := task.AgentIdentity{Slug: "lantern-bot", Version: "0.3.0", Model: "scripted"}
	if meta.AgentIdentity != id || v.AgentIdentity != id || meta.Agent != starterCommand {
		t.Errorf("identity: meta %+v verdict %+v", meta.AgentIdentity, v.AgentIdentity)
	}

	r = runCLI(t, "inspect", "latest")
	if r.code != ExitOK || !strings.Contains(r.stdout, "agent      "+starterCommand) || !strings.Contains(r.stdout, "POST /repos/quarry/lanterns/issues/1/labels → 200 (") {
		t.Errorf("inspect: %+v", r)
	}

	// An agent that does nothing fails; fix-prompt explains it.
	r = runCLI(t, "run", "tasks/label-lantern-crash.md", "--agent", "true")
	if r.code != ExitFail {
		t.Fatalf("failing run: %+v", r)
	}
	r = runCLI(t, "fix-prompt")
	if r.code != ExitOK || !strings.Contains(r.stdout, "# Fix the agent: Label the lantern crash report") ||
		!strings.Contains(r.stdout, "[github] Issue #1 in `quarry/lanterns` has the `bug` label applied") || !strings.Contains(r.stdout, "0 calls to the twins") {
		t.Errorf("fix-prompt: %+v", r)
	}
	readJSON(t, filepath.Join(dir, "runs", "latest.json"), &sum)
	offline(t)
	r = runCLI(t, "eval", sum.RunDir)
	if r.code != ExitFail || !strings.Contains(r.stdout, "FAIL  Label the lantern crash report") {
		t.Errorf("eval: %+v", r)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// pome.json's pass_threshold applies to tasks that set none, in the run
// and when the run is graded again.
func TestRunHonoursManifestPassThreshold(t *testing.T) {
	startPome(t, twins.NewRegistry(github.New()))
	dir := freshProject(t, "half")
	if r := runCLI(t, "init"); r.code != ExitOK {
		t.Fatal(r)
	}
	os.WriteFile(filepath.Join(dir, "pome.json"), []byte(`{"agent":{"slug":"half","version":"1.0"},"command":"true","tasks":"tasks","artifacts_dir":"out","pass_threshold":50}`), 0o644)
	// A do-nothing agent satisfies the two negative criteria of four.
	r := runCLI(t, "run", "tasks/label-lantern-crash.md")
	if r.code != ExitOK || !strings.Contains(r.stdout, "PASS  Label the lantern crash report\nscore 50 (2 of 4 evaluated criteria passed; threshold 50)") {
		t.Fatalf("%+v", r)
	}
	var sum task.Summary
	readJSON(t, filepath.Join(dir, "out", "latest.json"), &sum)
	var meta task.Meta
	readJSON(t, filepath.Join(sum.RunDir, "meta.json"), &meta)
	if meta.PassThreshold == nil || *meta.PassThreshold != 50 || meta.Version != "1.0" {
		t.Errorf("meta %+v", meta)
	}
	offline(t)
	if r := runCLI(t, "eval", sum.RunDir); r.code != ExitOK || !strings.Contains(r.stdout, "threshold 50") {
		t.Errorf("eval: %+v", r)
	}
	// A task's own threshold wins.
	src, _ := os.ReadFile(filepath.Join(dir, "tasks", "label-lantern-crash.md"))
	own := filepath.Join(dir, "own.md")
	os.WriteFile(own, []byte(strings.Replace(string(src), "timeout: 60", "timeout: 60\npassThreshold: 100", 1)), 0o644)
	if r := runCLI(t, "eval", sum.RunDir, "--task", own); r.code != ExitFail || !strings.Contains(r.stdout, "threshold 100") {
		t.Errorf("eval with the task's own threshold: %+v", r)
	}
}

func TestInitExistingProjectAndBadInput(t *testing.T) {
	isolate(t)
	dir := freshProject(t, "svc")
	os.WriteFile(filepath.Join(dir, "main.py"), []byte("print(1)\n"), 0o644)
	r := runCLI(t, "init")
	if r.code != ExitOK || strings.Contains(r.stdout, "tasks/") || !strings.Contains(r.stdout, "set \"command\" in pome.json") {
		t.Errorf("existing project: %+v", r)
	}
	var m map[string]any
	readJSON(t, filepath.Join(dir, "pome.json"), &m)
	if _, ok := m["command"]; ok || m["tasks"] != nil || m["artifacts_dir"] != "runs" {
		t.Errorf("bare manifest %v", m)
	}
	if _, err := os.Stat(filepath.Join(dir, "tasks")); err == nil {
		t.Error("bare init wrote tasks/")
	}
	// A second init keeps the manifest; --starter adds the starter files.
	os.WriteFile(filepath.Join(dir, "pome.json"), []byte(`{"agent":{"slug":"mine"}}`), 0o644)
	r = runCLI(t, "init", "--starter")
	if r.code != ExitOK || !strings.Contains(r.stdout, "kept     "+filepath.Join(dir, "pome.json")) || !strings.Contains(r.stdout, "wrote    tasks/close-duplicate-report.md") {
		t.Errorf("--starter: %+v", r)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "pome.json")); string(b) != `{"agent":{"slug":"mine"}}` {
		t.Errorf("manifest overwritten: %s", b)
	}
	os.WriteFile(filepath.Join(dir, "tasks", "label-lantern-crash.md"), []byte("mine"), 0o644)
	if r := runCLI(t, "init", "--starter"); r.code != ExitOK || !strings.Contains(r.stdout, "kept     tasks/label-lantern-crash.md") {
		t.Errorf("rerun: %+v", r)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "tasks", "label-lantern-crash.md")); string(b) != "mine" {
		t.Errorf("task overwritten")
	}

	for name, c := range map[string]struct {
		args     []string
		manifest string
		want     string
	}{
		"both modes":      {[]string{"init", "--bare", "--starter"}, "", "at most one of --bare and --starter"},
		"run, no tasks":   {[]string{"run"}, `{"agent":{"slug":"mine"},"command":"true"}`, "set \"tasks\" in pome.json"},
		"run, no command": {[]string{"run", "x.md"}, `{"agent":{"slug":"mine"},"tasks":"tasks"}`, "--agent is required"},
		"no slug":         {[]string{"run"}, `{"command":"true"}`, "agent.slug is required"},
		"threshold range": {[]string{"run"}, `{"agent":{"slug":"a"},"pass_threshold":101}`, "pass_threshold must be from 0 to 100"},
		"threshold type":  {[]string{"run"}, `{"agent":{"slug":"a"},"pass_threshold":"high"}`, "pass_threshold must be a whole number"},
		"not json":        {[]string{"run"}, `{`, "pome.json is not a JSON object"},
		"two manifests":   {[]string{"run"}, "yaml", "holds more than one manifest"},
		"yaml, bad":       {[]string{"run"}, "only-yaml", "agent.slug is required"},
	} {
		os.Remove(filepath.Join(dir, "pome.yaml"))
		switch c.manifest {
		case "":
		case "yaml":
			os.WriteFile(filepath.Join(dir, "pome.json"), []byte(`{"agent":{"slug":"a"}}`), 0o644)
			os.WriteFile(filepath.Join(dir, "pome.yaml"), []byte("agent:\n  slug: a\n"), 0o644)
		case "only-yaml":
			os.Remove(filepath.Join(dir, "pome.json"))
			os.WriteFile(filepath.Join(dir, "pome.yaml"), []byte("command: \"true\"\n"), 0o644)
		default:
			os.WriteFile(filepath.Join(dir, "pome.json"), []byte(c.manifest), 0o644)
		}
		r := runCLI(t, c.args...)
		if r.code != ExitUsage || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%s: %+v", name, r)
		}
	}
}

// pome.yaml works as pome.json does.
func TestRunReadsPomeYAML(t *testing.T) {
	startPome(t, twins.NewRegistry(github.New()))
	dir := freshProject(t, "yamlish")
	if r := runCLI(t, "init"); r.code != ExitOK {
		t.Fatal(r)
	}
	os.Remove(filepath.Join(dir, "pome.json"))
	os.WriteFile(filepath.Join(dir, "pome.yaml"), []byte("agent:\n  slug: yaml-bot\ncommand: sh agents/example-agent.sh\ntasks: tasks\nartifacts_dir: yruns\n"), 0o644)
	r := runCLI(t, "run")
	if r.code != ExitOK {
		t.Fatalf("%+v", r)
	}
	var sum task.Summary
	readJSON(t, filepath.Join(dir, "yruns", "latest.json"), &sum)
	var meta task.Meta
	readJSON(t, filepath.Join(sum.RunDir, "meta.json"), &meta)
	if meta.Slug != "yaml-bot" {
		t.Errorf("meta %+v", meta)
	}
}
