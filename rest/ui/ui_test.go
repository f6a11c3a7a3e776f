package ui_test

import (
	"bytes"
	"encoding/json"
	"io"
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
	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/all"
)

// bench is a complete server (memory store, every twin) with two teams.
type bench struct {
	t    testing.TB
	url  string
	keyA string
	keyB string
}

func newBench(t testing.TB, runsDir string) *bench {
	t.Helper()
	a, b := session.NewAPIKey(), session.NewAPIKey()
	teams, err := session.NewTeams(map[string][]string{"a": {a}, "b": {b}})
	if err != nil {
		t.Fatal(err)
	}
	store := session.NewMemoryStore(nil, 0)
	t.Cleanup(func() { store.Close() })
	hs := httptest.NewServer(nil)
	t.Cleanup(hs.Close)
	hs.Config.Handler = rest.NewServer(rest.Config{Addr: hs.Listener.Addr().String(), PublicURL: hs.URL, RunsDir: runsDir, StateDeltas: true},
		all.Registry(), store, teams)
	return &bench{t: t, url: hs.URL, keyA: a, keyB: b}
}

// call sends a request with a bearer token ("" for none) and returns the
// status, headers and body.
func (b *bench) call(token, method, path, contentType string, body []byte) (int, http.Header, []byte) {
	b.t.Helper()
	req, err := http.NewRequest(method, b.url+path, bytes.NewReader(body))
	if err != nil {
		b.t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, data
}

func (b *bench) getJSON(token, path string, out any) int {
	b.t.Helper()
	st, _, data := b.call(token, http.MethodGet, path, "", nil)
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			b.t.Fatalf("GET %s: %d %s: %v", path, st, data, err)
		}
	}
	return st
}

func (b *bench) create(key string, twinNames ...string) *session.Created {
	b.t.Helper()
	body, _ := json.Marshal(map[string]any{"twins": twinNames})
	st, _, data := b.call(key, http.MethodPost, "/v1/sandboxes", "application/json", body)
	if st != http.StatusCreated {
		b.t.Fatalf("create: %d %s", st, data)
	}
	var c session.Created
	if err := json.Unmarshal(data, &c); err != nil {
		b.t.Fatal(err)
	}
	return &c
}

type errorBody struct {
	Error struct {
		Type      string `json:"type"`
		Message   string `json:"message"`
		RequestID string `json:"request_id"`
	} `json:"error"`
}

type diffBody struct {
	SessionID string          `json:"session_id"`
	Twin      string          `json:"twin"`
	Seed      json.RawMessage `json:"seed"`
	State     json.RawMessage `json:"state"`
	Changes   []twins.Change  `json:"changes"`
	Truncated bool            `json:"truncated"`
}

func TestDiffShowsWhatCallsChanged(t *testing.T) {
	b := newBench(t, "")
	c := b.create(b.keyA, "github", "slack")
	sid := c.SessionID

	var d diffBody
	if st := b.getJSON(b.keyA, "/ui/api/sandboxes/"+sid+"/diff/github", &d); st != http.StatusOK {
		t.Fatalf("diff before any call: %d", st)
	}
	if len(d.Changes) != 0 || d.Twin != "github" || d.SessionID != sid || !json.Valid(d.Seed) || !json.Valid(d.State) {
		t.Fatalf("fresh sandbox: %+v", d)
	}

	gh := c.PerTwin["github"].APIURL
	st, _, body := b.call(c.ProviderCredentials["github"].Token, http.MethodPost,
		strings.TrimPrefix(gh, b.url)+"/repos/acme/api/issues/1/comments", "application/json", []byte(`{"body":"Looking into it"}`))
	if st != http.StatusCreated {
		t.Fatalf("comment: %d %s", st, body)
	}
	if st := b.getJSON(b.keyA, "/ui/api/sandboxes/"+sid+"/diff/github", &d); st != http.StatusOK {
		t.Fatalf("diff: %d", st)
	}
	var added *twins.Change
	for i, ch := range d.Changes {
		if ch.Op == twins.OpAdded && strings.HasSuffix(ch.Path, "/comments/0") {
			added = &d.Changes[i]
		}
	}
	if added == nil || !strings.Contains(string(added.After), "Looking into it") {
		t.Fatalf("the comment is not an added change: %+v", d.Changes)
	}
	if added.Path != "/repos/0/issues/0/comments/0" {
		t.Errorf("path %q, want a JSON pointer into the state", added.Path)
	}

	// The other twin is untouched.
	if st := b.getJSON(b.keyA, "/ui/api/sandboxes/"+sid+"/diff/slack", &d); st != http.StatusOK || len(d.Changes) != 0 {
		t.Fatalf("slack: %d %+v", st, d.Changes)
	}

	// Stopped sandboxes stay readable, like their tapes.
	if st, _, _ := b.call(b.keyA, http.MethodDelete, "/v1/sandboxes/"+sid, "", nil); st != http.StatusNoContent {
		t.Fatalf("stop: %d", st)
	}
	if st := b.getJSON(b.keyA, "/ui/api/sandboxes/"+sid+"/diff/github", &d); st != http.StatusOK || len(d.Changes) == 0 {
		t.Fatalf("after stop: %d %+v", st, d.Changes)
	}
}

func TestDiffRefusals(t *testing.T) {
	b := newBench(t, "")
	c := b.create(b.keyA, "github")
	sid := c.SessionID
	for _, tc := range []struct {
		name, key, path string
		status          int
		typ             string
	}{
		{"no key", "", "/ui/api/sandboxes/" + sid + "/diff/github", 401, "invalid_auth"},
		{"wrong key", "pme_notakeynotakeynotakeynotakey00", "/ui/api/sandboxes/" + sid + "/diff/github", 401, "invalid_auth"},
		{"sandbox token is not a team key", c.AuthToken, "/ui/api/sandboxes/" + sid + "/diff/github", 401, "invalid_auth"},
		{"another team", b.keyB, "/ui/api/sandboxes/" + sid + "/diff/github", 404, "not_found"},
		{"twin not in sandbox", b.keyA, "/ui/api/sandboxes/" + sid + "/diff/slack", 404, "not_found"},
		{"unknown twin", b.keyA, "/ui/api/sandboxes/" + sid + "/diff/jira", 404, "not_found"},
		{"bad id", b.keyA, "/ui/api/sandboxes/nope/diff/github", 404, "not_found"},
		{"unknown endpoint", b.keyA, "/ui/api/nothing", 404, "not_found"},
		{"unknown endpoint needs a key", "", "/ui/api/nothing", 401, "invalid_auth"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var e errorBody
			if st := b.getJSON(tc.key, tc.path, &e); st != tc.status || e.Error.Type != tc.typ || e.Error.RequestID == "" {
				t.Fatalf("got %d %+v, want %d %s", st, e, tc.status, tc.typ)
			}
		})
	}

	if st, _, _ := b.call(b.keyA, http.MethodDelete, "/v1/sandboxes/"+sid+"?discard=true", "", nil); st != http.StatusNoContent {
		t.Fatalf("discard: %d", st)
	}
	var e errorBody
	if st := b.getJSON(b.keyA, "/ui/api/sandboxes/"+sid+"/diff/github", &e); st != http.StatusNotFound || e.Error.Type != "not_found" {
		t.Fatalf("discarded: %d %+v", st, e)
	}
}

func TestStaticPages(t *testing.T) {
	b := newBench(t, "")
	st, hdr, body := b.call("", http.MethodGet, "/ui/", "", nil)
	if st != http.StatusOK || !strings.Contains(string(body), `<script src="app.js"`) {
		t.Fatalf("/ui/: %d %s", st, body)
	}
	csp := hdr.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'none'", "script-src 'self'", "connect-src 'self'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %q", csp, want)
		}
	}
	if hdr.Get("Cache-Control") != "no-cache" || hdr.Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("headers: %v", hdr)
	}
	for path, ctype := range map[string]string{"/ui/app.js": "javascript", "/ui/app.css": "text/css"} {
		st, hdr, body := b.call("", http.MethodGet, path, "", nil)
		if st != http.StatusOK || !strings.Contains(hdr.Get("Content-Type"), ctype) || len(body) < 100 {
			t.Errorf("%s: %d %s", path, st, hdr.Get("Content-Type"))
		}
	}
	// Nothing in the pages loads from another origin.
	for _, name := range []string{"index.html", "app.js", "app.css"} {
		_, _, body := b.call("", http.MethodGet, "/ui/"+name, "", nil)
		for _, bad := range []string{"http://", "https://", "innerHTML"} {
			if bytes.Contains(body, []byte(bad)) {
				t.Errorf("%s contains %q", name, bad)
			}
		}
	}
	if st, hdr, _ := b.call("", http.MethodGet, "/ui", "", nil); st != http.StatusMovedPermanently || hdr.Get("Location") != "/ui/" {
		t.Errorf("/ui: %d %q", st, hdr.Get("Location"))
	}
	if st, _, _ := b.call("", http.MethodPost, "/ui/", "", nil); st != http.StatusMethodNotAllowed {
		t.Errorf("POST /ui/: %d", st)
	}
	if st, _, _ := b.call("", http.MethodGet, "/ui/nothing.js", "", nil); st != http.StatusNotFound {
		t.Errorf("missing asset: %d", st)
	}
	// The control plane and the data plane are untouched by the mount.
	if st, _, _ := b.call("", http.MethodGet, "/healthz", "", nil); st != http.StatusOK {
		t.Errorf("healthz: %d", st)
	}
}

// writeRun lays out one run directory the way task.Runner writes it, with
// the task package's own types so that a change there shows up here.
func writeRun(t *testing.T, dir, slug, runID string, trial int, state, sid string, seed, final string, events []string) {
	t.Helper()
	runDir := filepath.Join(dir, slug, runID)
	if err := os.MkdirAll(runDir, 0o755); err != nil {
		t.Fatal(err)
	}
	score := 100.0
	if state != task.StatePass {
		score = 0
	}
	start := time.Date(2026, 12, 2, 15, 0, trial, 0, time.UTC)
	meta := task.Meta{RunID: runID, Trial: trial, Task: "Bug triage", TaskFile: "tasks/" + slug + ".md", SessionID: sid,
		Twins: []string{"github"}, Agent: "sh agent.sh", TimeoutSeconds: 120, StartedAt: start, FinishedAt: start.Add(3 * time.Second),
		State: state, Score: &score}
	status := task.StatusPassed
	if state != task.StatePass {
		status = task.StatusFailed
	}
	verdict := task.Verdict{Task: "Bug triage", SessionID: sid, State: state, Score: score, PassThreshold: 100, Evaluated: 1,
		Criteria: []task.CriterionResult{
			{Text: "Issue #1 in `acme/api` has the `bug` label applied", Kind: task.Code, Twin: "github", Check: "github.issue-has-label",
				Params: map[string]string{"repo": "acme/api", "number": "1", "label": "bug"}, Status: status, Reason: "label bug is on #1",
				Evidence: twinsEvidence([]int64{1}, []string{"/repos/0/issues/0/labels"})},
			{Text: "The agent explained its reasoning", Kind: task.Model, Params: map[string]string{}, Status: task.StatusAbstained,
				Reason: "no judge", Evidence: twinsEvidence(nil, nil)},
		}}
	verdict.Abstained = 1
	if state == task.StatePass {
		verdict.Passed = 1
	}
	mustJSON(t, filepath.Join(runDir, "meta.json"), meta)
	mustJSON(t, filepath.Join(runDir, "verdict.json"), verdict)
	write(t, filepath.Join(runDir, "state_initial.github.json"), seed)
	write(t, filepath.Join(runDir, "state_final.github.json"), final)
	write(t, filepath.Join(runDir, "events.jsonl"), strings.Join(events, "\n")+"\n")
	write(t, filepath.Join(runDir, "stdout.txt"), strings.Repeat("x", 70<<10)+"done\n")
	write(t, filepath.Join(runDir, "stderr.log"), "")
}

// writeSummary writes latest.json for a `pome run` of two trials of one
// task in sandbox sid, the first passing.
func writeSummary(t *testing.T, dir, slug, sid, pass, fail string) {
	t.Helper()
	sum := task.Summary{Agent: "sh agent.sh", ExitCode: 1, Tasks: []task.TaskSummary{{Task: "Bug triage", Slug: slug, K: 2, Passed: 1,
		PassAt1: 0.5, PassPowK: 0, Trials: []task.TrialSummary{{RunID: pass, SessionID: sid, State: "pass"}, {RunID: fail, SessionID: sid, State: "fail"}}}}}
	if err := task.WriteSummary(dir, &sum); err != nil {
		t.Fatal(err)
	}
}

func twinsEvidence(seqs []int64, paths []string) twins.Evidence {
	if seqs == nil {
		seqs = []int64{}
	}
	if paths == nil {
		paths = []string{}
	}
	return twins.Evidence{TapeSeqs: seqs, StatePaths: paths}
}

func mustJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	write(t, path, string(data))
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestRunsListAndDetail(t *testing.T) {
	dir := t.TempDir()
	seed := `{"repos":[{"name":"api","issues":[{"number":1,"labels":[]}]}]}`
	final := `{"repos":[{"name":"api","issues":[{"number":1,"labels":["bug"]}]}]}`
	row := `{"seq":1,"at":"2026-12-02T15:00:01Z","session_id":"ses_AAAAAAAAAAAAAAAA","twin":"github","transport":"rest","method":"POST","path":"/github/s/ses_AAAAAAAAAAAAAAAA/repos/acme/api/issues/1/labels","tool":"issue_write","status":200,"state_mutation":true,"request":{"query":{},"headers":{}},"response":{},"latency_us":10}`
	b := newBench(t, dir)
	sid := b.create(b.keyA, "github").SessionID
	writeRun(t, dir, "github-bug-triage", "20261202T150001.000Z-aaaaaa", 1, task.StatePass, sid, seed, final, []string{row})
	writeRun(t, dir, "github-bug-triage", "20261202T150002.000Z-bbbbbb", 2, task.StateFail, sid, seed, seed, nil)
	writeSummary(t, dir, "github-bug-triage", sid, "20261202T150001.000Z-aaaaaa", "20261202T150002.000Z-bbbbbb")
	// Things that are not runs are skipped, not shown as broken ones.
	os.MkdirAll(filepath.Join(dir, "empty-task", "not-a-run"), 0o755)
	write(t, filepath.Join(dir, "stray.txt"), "x")

	var list struct {
		RunsDir string `json:"runs_dir"`
		Latest  struct {
			Tasks []struct {
				Slug     string  `json:"slug"`
				K        int     `json:"k"`
				PassAt1  float64 `json:"pass_at_1"`
				PassPowK float64 `json:"pass_pow_k"`
			} `json:"tasks"`
		} `json:"latest"`
		Tasks []struct {
			Slug   string   `json:"slug"`
			Task   string   `json:"task"`
			Twins  []string `json:"twins"`
			Total  int      `json:"total"`
			Passed int      `json:"passed"`
			Runs   []struct {
				RunID  string `json:"run_id"`
				State  string `json:"state"`
				Counts *struct {
					Evaluated int `json:"evaluated"`
				} `json:"counts"`
			} `json:"runs"`
		} `json:"tasks"`
	}
	if st := b.getJSON(b.keyA, "/ui/api/runs", &list); st != http.StatusOK {
		t.Fatalf("runs: %d", st)
	}
	if len(list.Latest.Tasks) != 1 || list.Latest.Tasks[0].K != 2 || list.Latest.Tasks[0].PassAt1 != 0.5 {
		t.Errorf("latest: %+v", list.Latest)
	}
	if len(list.Tasks) != 1 {
		t.Fatalf("tasks: %+v", list.Tasks)
	}
	tk := list.Tasks[0]
	if tk.Slug != "github-bug-triage" || tk.Task != "Bug triage" || tk.Total != 2 || tk.Passed != 1 || len(tk.Twins) != 1 {
		t.Errorf("task: %+v", tk)
	}
	if len(tk.Runs) != 2 || tk.Runs[0].RunID != "20261202T150002.000Z-bbbbbb" || tk.Runs[0].State != "fail" ||
		tk.Runs[1].State != "pass" || tk.Runs[1].Counts == nil || tk.Runs[1].Counts.Evaluated != 1 {
		t.Errorf("runs, newest first: %+v", tk.Runs)
	}

	var run struct {
		Meta    task.Meta         `json:"meta"`
		Verdict task.Verdict      `json:"verdict"`
		Events  []json.RawMessage `json:"events"`
		Diffs   map[string]struct {
			Changes []twins.Change `json:"changes"`
		} `json:"diffs"`
		Stdout string   `json:"stdout"`
		Files  []string `json:"files"`
	}
	if st := b.getJSON(b.keyA, "/ui/api/runs/github-bug-triage/20261202T150001.000Z-aaaaaa", &run); st != http.StatusOK {
		t.Fatalf("run: %d", st)
	}
	if run.Meta.Trial != 1 || run.Verdict.State != task.StatePass || len(run.Verdict.Criteria) != 2 ||
		run.Verdict.Criteria[0].Evidence.TapeSeqs[0] != 1 {
		t.Errorf("meta/verdict: %+v %+v", run.Meta, run.Verdict)
	}
	if len(run.Events) != 1 || !strings.Contains(string(run.Events[0]), `"tool":"issue_write"`) {
		t.Errorf("events: %s", run.Events)
	}
	ch := run.Diffs["github"].Changes
	if len(ch) != 1 || ch[0].Op != twins.OpAdded || ch[0].Path != "/repos/0/issues/0/labels/0" {
		t.Errorf("diff: %+v", ch)
	}
	if !strings.HasPrefix(run.Stdout, "…") || !strings.HasSuffix(run.Stdout, "done\n") || len(run.Stdout) > 65<<10 {
		t.Errorf("stdout is not the tail: %d bytes", len(run.Stdout))
	}
	if len(run.Files) != 7 {
		t.Errorf("files: %v", run.Files)
	}

	for _, path := range []string{
		"/ui/api/runs/github-bug-triage/nope",
		"/ui/api/runs/github-bug-triage/..",
		"/ui/api/runs/..%2F..%2Fetc/passwd",
		"/ui/api/runs/.hidden/x",
	} {
		// Dot segments are cleaned by a redirect that stays under
		// /ui/api/; everything else is a plain 404.
		st, hdr, body := b.call(b.keyA, http.MethodGet, path, "", nil)
		redirected := st/100 == 3 && strings.HasPrefix(hdr.Get("Location"), "/ui/api/")
		if st != http.StatusNotFound && !redirected {
			t.Errorf("%s: %d %s %s", path, st, hdr.Get("Location"), body)
		}
	}
	if st := b.getJSON("", "/ui/api/runs", nil); st != http.StatusUnauthorized {
		t.Errorf("runs without a key: %d", st)
	}
}

func TestRunsWithoutDirectory(t *testing.T) {
	// A runs directory that does not exist yet (no `pome run` so far) is
	// an empty list, not an error.
	b := newBench(t, filepath.Join(t.TempDir(), "runs"))
	var list struct {
		Tasks  []any           `json:"tasks"`
		Latest json.RawMessage `json:"latest"`
	}
	if st := b.getJSON(b.keyA, "/ui/api/runs", &list); st != http.StatusOK || list.Tasks == nil || len(list.Tasks) != 0 || string(list.Latest) != "null" {
		t.Fatalf("%d %+v", st, list)
	}
	// No directory configured at all.
	b = newBench(t, "")
	var e errorBody
	if st := b.getJSON(b.keyA, "/ui/api/runs", &e); st != http.StatusNotFound || !strings.Contains(e.Error.Message, "--runs-dir") {
		t.Fatalf("%d %+v", st, e)
	}
}

// TestRunsAreScopedToTeam: two teams share the server's runs directory;
// each sees only the runs made in its own sandboxes, cannot open the
// other's by id, and gets latest.json only when it is its own run. A run
// whose sandbox the server does not know is nobody's.
func TestRunsAreScopedToTeam(t *testing.T) {
	dir := t.TempDir()
	b := newBench(t, dir)
	sidA := b.create(b.keyA, "github").SessionID
	sidB := b.create(b.keyB, "github").SessionID
	doc := `{"repos":[]}`
	writeRun(t, dir, "task-a", "20261202T150001.000Z-aaaaaa", 1, task.StatePass, sidA, doc, doc, nil)
	writeRun(t, dir, "shared", "20261202T150002.000Z-aaaaaa", 1, task.StatePass, sidA, doc, doc, nil)
	writeRun(t, dir, "shared", "20261202T150003.000Z-bbbbbb", 1, task.StateFail, sidB, doc, doc, nil)
	writeRun(t, dir, "task-b", "20261202T150004.000Z-bbbbbb", 1, task.StateFail, sidB, doc, doc, nil)
	writeRun(t, dir, "orphan", "20261202T150005.000Z-cccccc", 1, task.StatePass, "ses_AAAAAAAAAAAAAAAA", doc, doc, nil)
	writeSummary(t, dir, "task-b", sidB, "20261202T150004.000Z-bbbbbb", "20261202T150004.000Z-bbbbbb")

	type listing struct {
		Latest json.RawMessage `json:"latest"`
		Tasks  []struct {
			Slug  string `json:"slug"`
			Total int    `json:"total"`
			Runs  []struct {
				RunID     string `json:"run_id"`
				SessionID string `json:"session_id"`
			} `json:"runs"`
		} `json:"tasks"`
	}
	seen := func(key string) (map[string]int, json.RawMessage) {
		var l listing
		if st := b.getJSON(key, "/ui/api/runs", &l); st != http.StatusOK {
			t.Fatalf("runs: %d", st)
		}
		got := map[string]int{}
		for _, tk := range l.Tasks {
			got[tk.Slug] = tk.Total
			for _, r := range tk.Runs {
				if r.SessionID != map[string]string{b.keyA: sidA, b.keyB: sidB}[key] {
					t.Errorf("run %s/%s of sandbox %s listed", tk.Slug, r.RunID, r.SessionID)
				}
			}
		}
		return got, l.Latest
	}
	gotA, latestA := seen(b.keyA)
	if len(gotA) != 2 || gotA["task-a"] != 1 || gotA["shared"] != 1 {
		t.Errorf("team a sees %v", gotA)
	}
	if string(latestA) != "null" {
		t.Errorf("team a sees team b's latest run: %s", latestA)
	}
	gotB, latestB := seen(b.keyB)
	if len(gotB) != 2 || gotB["task-b"] != 1 || gotB["shared"] != 1 {
		t.Errorf("team b sees %v", gotB)
	}
	if !strings.Contains(string(latestB), sidB) {
		t.Errorf("team b does not see its latest run: %s", latestB)
	}

	for _, c := range []struct{ key, path string }{
		{b.keyA, "/ui/api/runs/task-b/20261202T150004.000Z-bbbbbb"},
		{b.keyA, "/ui/api/runs/shared/20261202T150003.000Z-bbbbbb"},
		{b.keyB, "/ui/api/runs/task-a/20261202T150001.000Z-aaaaaa"},
		{b.keyA, "/ui/api/runs/orphan/20261202T150005.000Z-cccccc"},
		{b.keyB, "/ui/api/runs/orphan/20261202T150005.000Z-cccccc"},
	} {
		var e errorBody
		// Answered as a run that does not exist: no oracle for the ids.
		if st := b.getJSON(c.key, c.path, &e); st != http.StatusNotFound || e.Error.Message != "no run "+strings.TrimPrefix(c.path, "/ui/api/runs/") {
			t.Errorf("%s: %d %+v", c.path, st, e)
		}
	}
	if st := b.getJSON(b.keyA, "/ui/api/runs/shared/20261202T150002.000Z-aaaaaa", nil); st != http.StatusOK {
		t.Errorf("team a's own run: %d", st)
	}
}
