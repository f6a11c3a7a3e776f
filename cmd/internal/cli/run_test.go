package cli

import (
	"bufio"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pomehq/pome/rest"
	"github.com/pomehq/pome/session"
	"github.com/pomehq/pome/task"
	"github.com/pomehq/pome/task/tasktest"
	"github.com/pomehq/pome/twins"
)

// pomeServer is a real in-process Pome server (memory store) with the
// task grader wired, as the binary has it.
type pomeServer struct {
	URL, Key string
	srv      *rest.Server
}

func startPome(t *testing.T, reg *twins.Registry) *pomeServer {
	t.Helper()
	isolate(t)
	key := session.NewAPIKey()
	teams, err := session.NewTeams(map[string][]string{"test": {key}})
	if err != nil {
		t.Fatal(err)
	}
	store := session.NewMemoryStore(nil, 0)
	t.Cleanup(func() { store.Close() })
	hs := httptest.NewUnstartedServer(nil)
	hs.Start()
	t.Cleanup(hs.Close)
	srv := rest.NewServer(rest.Config{Addr: hs.Listener.Addr().String(), PublicURL: hs.URL}, reg, store, teams)
	srv.Grader = task.GradeHandler(reg)
	hs.Config.Handler = srv
	old := taskRegistry
	taskRegistry = func() *twins.Registry { return reg }
	t.Cleanup(func() { taskRegistry = old })
	// The key comes from the environment, which the agent must not see.
	t.Setenv("POME_SERVER", hs.URL)
	t.Setenv("POME_API_KEY", key)
	return &pomeServer{URL: hs.URL, Key: key, srv: srv}
}

// sandboxes lists the team's sandboxes with their states.
func (p *pomeServer) sandboxes(t *testing.T) map[string]string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, p.URL+"/v1/sandboxes", nil)
	req.Header.Set("Authorization", "Bearer "+p.Key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Data []struct{ ID, State string } `json:"data"`
	}
	json.NewDecoder(resp.Body).Decode(&out)
	m := map[string]string{}
	for _, s := range out.Data {
		m[s.ID] = s.State
	}
	return m
}

const notesTask = "# Announce the release\n" +
	"## Config\n```yaml\ntwins: [notes]\ntimeout: 20\n```\n" +
	"## Seed State\n```json\n{\"entries\": [{\"id\": 1, \"text\": \"draft\"}], \"next\": 2}\n```\n" +
	"## Prompt\nWrite a note saying released.\n" +
	"## Success Criteria\n" +
	"- [code] A note contains \"released\"\n" +
	"- [code] A note contains \"draft\"\n" +
	"- [code] The `create_note` tool was called on notes\n" +
	"- [model] The note is cheerful\n"

// agentScript writes an executable shell agent and returns the command.
func agentScript(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "agent.sh")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

const passingAgent = `if [ -n "$POME_PREFLIGHT" ]; then test -n "$POME_NOTES_REST_URL"; exit $?; fi
env | sort > "$POME_ARTIFACTS_DIR/env.txt"
echo "working on: $POME_TASK"
curl -sf -X POST "$POME_NOTES_REST_URL/notes" -H "Authorization: Bearer $POME_NOTES_TOKEN" -H 'Content-Type: application/json' -d '{"text":"released v2"}'
`

func writeTask(t *testing.T, src string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "announce.md")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestRunPassingAgent(t *testing.T) {
	p := startPome(t, tasktest.Registry())
	// What the agent inherits is scrubbed as the original Pome scrubs it.
	t.Setenv("OPENAI_API_KEY", "sk-model-key")
	t.Setenv("DEPLOY_PASSWORD", "hunter2")
	t.Setenv("AGENT_TOOL_HOME", "/opt/tool")
	t.Setenv("POME_AGENT_ENV_ALLOWLIST", "AGENT_TOOL_HOME, NOT_SET_ANYWHERE")
	runs := filepath.Join(t.TempDir(), "runs")
	r := runCLI(t, "run", writeTask(t, notesTask), "--agent", agentScript(t, passingAgent), "--artifacts-dir", runs)
	if r.code != ExitOK {
		t.Fatalf("%+v", r)
	}
	for _, want := range []string{
		"PASS  Announce the release\n",
		"score 100 (2 of 2 evaluated criteria passed; threshold 100; 1 excluded; 1 abstained)",
		"passed    [notes] A note contains \"released\" — note 2 contains \"released\"",
		"excluded  [notes] A note contains \"draft\" — already true in the seed",
		"abstained [model] The note is cheerful — not graded",
		"agent: exited 0",
		"run: " + filepath.Join(runs, "announce") + "/",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}

	var sum task.Summary
	readJSON(t, filepath.Join(runs, "latest.json"), &sum)
	if len(sum.Tasks) != 1 || sum.Tasks[0].K != 1 || sum.Tasks[0].PassAt1 != 1 || sum.ExitCode != 0 {
		t.Fatalf("latest.json %+v", sum)
	}
	dir := sum.Tasks[0].Trials[0].Dir
	if sum.RunID == "" || sum.RunID != sum.Tasks[0].Trials[0].RunID || sum.Task != "announce" || sum.RunDir != sum.Tasks[0].Trials[0].Dir {
		t.Errorf("latest.json does not point at the run: %+v", sum)
	}
	for _, f := range []string{"meta.json", "events.jsonl", "state_initial.notes.json", "state_final.notes.json", "state_initial.json", "state_final.json", "stdout.txt", "stderr.log", "verdict.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("run directory lacks %s", f)
		}
	}
	var v task.Verdict
	readJSON(t, filepath.Join(dir, "verdict.json"), &v)
	if v.State != task.StatePass || len(v.Criteria) != 4 || v.Criteria[2].Evidence.TapeSeqs[0] != 1 {
		t.Errorf("verdict %+v", v)
	}
	var meta task.Meta
	readJSON(t, filepath.Join(dir, "meta.json"), &meta)
	if meta.SessionID == "" || meta.AgentResult == nil || meta.AgentResult.ExitCode != 0 || meta.Preflight == nil || meta.State != "pass" {
		t.Errorf("meta %+v", meta)
	}
	if p.sandboxes(t)[meta.SessionID] != session.StateStopped {
		t.Errorf("sandbox not stopped: %v", p.sandboxes(t))
	}

	// Rows of every twin, in order, each naming its twin.
	rows := readLines(t, filepath.Join(dir, "events.jsonl"))
	if len(rows) == 0 {
		t.Fatal("no events")
	}
	last := rows[len(rows)-1]
	if last["twin"] != "notes" || last["tool"] != "create_note" {
		t.Errorf("event %v", last)
	}
	initial, _ := os.ReadFile(filepath.Join(dir, "state_initial.notes.json"))
	final, _ := os.ReadFile(filepath.Join(dir, "state_final.notes.json"))
	if strings.Contains(string(initial), "released") || !strings.Contains(string(final), "released v2") {
		t.Errorf("states:\n%s\n%s", initial, final)
	}
	// The primary twin's states under the original Pome's names.
	if b, _ := os.ReadFile(filepath.Join(dir, "state_initial.json")); string(b) != string(initial) {
		t.Errorf("state_initial.json %s", b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "state_final.json")); string(b) != string(final) {
		t.Errorf("state_final.json %s", b)
	}
	if out, _ := os.ReadFile(filepath.Join(dir, "stdout.txt")); !strings.Contains(string(out), "working on: Write a note saying released.") {
		t.Errorf("stdout.txt %q", out)
	}

	// The agent's environment (SPEC §7), without the team key.
	env, _ := os.ReadFile(filepath.Join(dir, "env.txt"))
	for _, want := range []string{"POME_TASK=Write a note", "POME_TWIN_NAMES=notes", "POME_SESSION_ID=" + meta.SessionID, "POME_AUTH_TOKEN=pat_",
		"POME_NOTES_REST_URL=" + p.URL + "/notes/s/" + meta.SessionID, "POME_NOTES_MCP_URL=", "POME_NOTES_TOKEN=notes_",
		"POME_RUN_ID=" + meta.RunID, "POME_ARTIFACTS_DIR=" + dir,
		"POME_TWIN_BASE_URL=" + p.URL + "/notes/s/" + meta.SessionID + "\n",
		"\nPATH=", "\nOPENAI_API_KEY=sk-model-key\n", "AGENT_TOOL_HOME=/opt/tool\n"} {
		if !strings.Contains(string(env), want) {
			t.Errorf("agent env lacks %q:\n%s", want, env)
		}
	}
	if strings.Contains(string(env), "POME_API_KEY") || strings.Contains(string(env), p.Key) || strings.Contains(string(env), "POME_PREFLIGHT") ||
		strings.Contains(string(env), "hunter2") || strings.Contains(string(env), "POME_AGENT_ENV_ALLOWLIST") || strings.Contains(string(env), "NOT_SET_ANYWHERE") {
		t.Errorf("agent env leaks:\n%s", env)
	}
}

// A task in the original Pome's grammar runs: its class is recorded in
// meta.json and the verdict, its sidecar seed (with _meta) is the seed, and
// a stale sidecar is a warning, not a refusal.
func TestRunOriginalGrammarTask(t *testing.T) {
	startPome(t, tasktest.Registry())
	dir := t.TempDir()
	path := filepath.Join(dir, "restraint.md")
	os.WriteFile(path, []byte("# Leave the notes alone\n## Task\nRead the notes; write nothing.\n"+
		"## Checks\nThe agent must not write.\n- [code] No new note was written\n- [code] No note contains \"spam\"\n"+
		"## Seed State\nA notebook with the note \"agenda\".\n"+
		"## Config\n```yaml\ntwins: [notes]\nclass: restraint\n```\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "restraint.seed.json"), []byte(`{"_meta": {"version": 1, "source_hash": "sha256:0000", "model": "m", "compiled_at": "2026-01-01T00:00:00Z"}, "entries": [{"id": 1, "text": "agenda"}]}`), 0o644)
	runs := t.TempDir()
	r := runCLI(t, "run", path, "--agent", "true", "--artifacts-dir", runs)
	if r.code != ExitOK || !strings.Contains(r.stderr, path+":8: warning: the Seed State prose changed since") {
		t.Fatalf("%+v", r)
	}
	var sum task.Summary
	readJSON(t, filepath.Join(runs, "latest.json"), &sum)
	var meta task.Meta
	readJSON(t, filepath.Join(sum.RunDir, "meta.json"), &meta)
	var v task.Verdict
	readJSON(t, filepath.Join(sum.RunDir, "verdict.json"), &v)
	if meta.Class != "restraint" || meta.Scenario != "restraint" || meta.Title != "Leave the notes alone" || v.Class != "restraint" || v.State != task.StatePass {
		t.Errorf("meta %+v\nverdict %+v", meta, v)
	}
	if b, _ := os.ReadFile(filepath.Join(sum.RunDir, "state_initial.json")); !strings.Contains(string(b), "agenda") {
		t.Errorf("state_initial.json %s", b)
	}
}

func TestRunDoNothingAgentFails(t *testing.T) {
	startPome(t, tasktest.Registry())
	runs := t.TempDir()
	r := runCLI(t, "run", writeTask(t, notesTask), "--agent", "true", "--artifacts-dir", runs)
	if r.code != ExitFail {
		t.Fatalf("%+v", r)
	}
	if !strings.HasPrefix(r.stdout, "FAIL  Announce the release\n") || !strings.Contains(r.stdout, "failed    [notes] A note contains \"released\" — none of 1 notes") {
		t.Errorf("stdout:\n%s", r.stdout)
	}
}

func TestRunTimeoutKillsAgentGroupAndStillGrades(t *testing.T) {
	startPome(t, tasktest.Registry())
	runs := t.TempDir()
	agent := agentScript(t, `[ -n "$POME_PREFLIGHT" ] && exit 0
(sleep 2; touch "$POME_ARTIFACTS_DIR/late") &
curl -sf -X POST "$POME_NOTES_REST_URL/notes" -H "Authorization: Bearer $POME_NOTES_TOKEN" -H 'Content-Type: application/json' -d '{"text":"released"}' >/dev/null
sleep 30
`)
	start := time.Now()
	r := runCLI(t, "run", writeTask(t, notesTask), "--agent", agent, "--artifacts-dir", runs, "--timeout", "1s")
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("run took %s", took)
	}
	if r.code != ExitOK || !strings.Contains(r.stdout, "agent: killed at the deadline") {
		t.Fatalf("%+v", r)
	}
	var sum task.Summary
	readJSON(t, filepath.Join(runs, "latest.json"), &sum)
	dir := sum.Tasks[0].Trials[0].Dir
	var meta task.Meta
	readJSON(t, filepath.Join(dir, "meta.json"), &meta)
	if !meta.AgentResult.TimedOut || !meta.AgentResult.Killed {
		t.Errorf("meta %+v", meta.AgentResult)
	}
	if _, err := os.Stat(filepath.Join(dir, "verdict.json")); err != nil {
		t.Error("no verdict after a timeout")
	}
	time.Sleep(2500 * time.Millisecond)
	if _, err := os.Stat(filepath.Join(dir, "late")); err == nil {
		t.Error("the agent's background child outlived the deadline")
	}
}

func TestRunBrokenPreflight(t *testing.T) {
	p := startPome(t, tasktest.Registry())
	runs := t.TempDir()
	agent := agentScript(t, `if [ -n "$POME_PREFLIGHT" ]; then echo "OPENAI_API_KEY is not set" >&2; exit 7; fi
touch "$POME_ARTIFACTS_DIR/ran"
`)
	r := runCLI(t, "run", writeTask(t, notesTask), "--agent", agent, "--artifacts-dir", runs)
	if r.code != ExitOrchestration || !strings.Contains(r.stderr, "failed its preflight") || !strings.Contains(r.stderr, "OPENAI_API_KEY is not set") {
		t.Fatalf("%+v", r)
	}
	var sum task.Summary
	readJSON(t, filepath.Join(runs, "latest.json"), &sum)
	tr := sum.Tasks[0].Trials[0]
	if _, err := os.Stat(filepath.Join(tr.Dir, "ran")); err == nil {
		t.Error("the agent ran after a failed preflight")
	}
	if st := p.sandboxes(t)[tr.SessionID]; st != session.StateStopped {
		t.Errorf("sandbox %s is %q", tr.SessionID, st)
	}
}

func TestRunRefusesUnbindableTask(t *testing.T) {
	p := startPome(t, tasktest.Registry())
	src := strings.Replace(notesTask, "- [model] The note is cheerful\n", "- [code] The note is cheerful\n", 1)
	r := runCLI(t, "run", writeTask(t, src), "--agent", "true", "--artifacts-dir", t.TempDir())
	if r.code != ExitUsage || !strings.Contains(r.stderr, "announce.md:17: criterion binds to no notes check") {
		t.Fatalf("%+v", r)
	}
	if n := len(p.sandboxes(t)); n != 0 {
		t.Errorf("%d sandboxes created for an invalid task", n)
	}
}

func TestRunMultipleTrials(t *testing.T) {
	p := startPome(t, tasktest.Registry())
	runs := t.TempDir()
	r := runCLI(t, "run", writeTask(t, notesTask), "--agent", agentScript(t, passingAgent), "--artifacts-dir", runs, "-n", "3", "--parallel", "2")
	if r.code != ExitOK {
		t.Fatalf("%+v", r)
	}
	for _, want := range []string{"TRIAL  STATE  SCORE", "PASS 3/3  Announce the release", "pass@1 1.00  pass^3 1.00"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	var sum task.Summary
	readJSON(t, filepath.Join(runs, "latest.json"), &sum)
	seen := map[string]bool{}
	for _, tr := range sum.Tasks[0].Trials {
		seen[tr.SessionID] = true
		if tr.Verdict == nil || tr.State != "pass" {
			t.Errorf("trial %+v", tr)
		}
	}
	if len(seen) != 3 || len(p.sandboxes(t)) != 3 {
		t.Errorf("trials did not get their own sandboxes: %v", seen)
	}

	// A flaky agent (the first trial to start does nothing): pass@1 is the
	// share of passes, pass^K is 0.
	flaky := agentScript(t, `[ -n "$POME_PREFLIGHT" ] && exit 0
lock="`+runs+`/first"
if mkdir "$lock" 2>/dev/null; then exit 0; fi
curl -sf -X POST "$POME_NOTES_REST_URL/notes" -H "Authorization: Bearer $POME_NOTES_TOKEN" -H 'Content-Type: application/json' -d '{"text":"released"}' >/dev/null
`)
	r = runCLI(t, "run", writeTask(t, notesTask), "--agent", flaky, "--artifacts-dir", runs, "-n", "3", "--json")
	if r.code != ExitFail {
		t.Fatalf("%+v", r)
	}
	if err := json.Unmarshal([]byte(r.stdout), &sum); err != nil {
		t.Fatal(err)
	}
	ts := sum.Tasks[0]
	if ts.Passed != 2 || ts.PassAt1 < 0.66 || ts.PassAt1 > 0.67 || ts.PassPowK != 0 || sum.ExitCode != ExitFail {
		t.Errorf("summary %+v", ts)
	}
}

func TestRunDirectoryOfTasks(t *testing.T) {
	startPome(t, tasktest.Registry())
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.md"), []byte(notesTask), 0o644)
	os.WriteFile(filepath.Join(dir, "b.md"), []byte(strings.Replace(notesTask, "# Announce the release", "# Second", 1)), 0o644)
	os.WriteFile(filepath.Join(dir, "README.md"), []byte("not a task"), 0o644)
	runs := t.TempDir()
	r := runCLI(t, "run", dir, "--agent", agentScript(t, passingAgent), "--artifacts-dir", runs)
	if r.code != ExitOK || !strings.Contains(r.stdout, "PASS  Announce the release") || !strings.Contains(r.stdout, "PASS  Second") {
		t.Fatalf("%+v", r)
	}
	for _, slug := range []string{"a", "b"} {
		if _, err := os.Stat(filepath.Join(runs, slug)); err != nil {
			t.Errorf("no run directory for %s", slug)
		}
	}
}

func TestGradeSessionDrivenByHand(t *testing.T) {
	p := startPome(t, tasktest.Registry())
	r := runCLI(t, "sandbox", "create", "--twin", "notes", "--json")
	if r.code != ExitOK {
		t.Fatalf("%+v", r)
	}
	var created CreatedSandbox
	json.Unmarshal([]byte(r.stdout), &created)
	path := writeTask(t, notesTask)

	r = runCLI(t, "grade", path, "--session", created.SessionID)
	if r.code != ExitFail || !strings.HasPrefix(r.stdout, "FAIL  Announce the release") {
		t.Fatalf("before: %+v", r)
	}
	req, _ := http.NewRequest(http.MethodPost, created.PerTwin["notes"].APIURL+"/notes", strings.NewReader(`{"text":"released, draft"}`))
	req.Header.Set("Authorization", "Bearer "+created.AgentToken)
	req.Header.Set("Content-Type", "application/json")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 201 {
		t.Fatalf("%v %v", resp, err)
	}
	judge := agentScript(t, `cat > /dev/null; echo '{"passed": true, "reason": "very cheerful"}'`)
	r = runCLI(t, "grade", path, "--session", created.SessionID, "--judge-cmd", judge, "--json")
	if r.code != ExitOK {
		t.Fatalf("after: %+v", r)
	}
	var v task.Verdict
	json.Unmarshal([]byte(r.stdout), &v)
	// The default world has no draft note, so nothing is excluded here.
	if v.State != "pass" || v.Evaluated != 4 || v.Criteria[3].Reason != "very cheerful" {
		t.Errorf("%+v", v)
	}
	_ = p
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func readLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, m)
	}
	return out
}
