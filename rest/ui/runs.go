package ui

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/pomehq/pome/session"
	"github.com/pomehq/pome/twins"
)

// Bounds on what one answer reads from the runs directory: a directory
// left to grow for months must not make the dashboard read it all.
const (
	maxTasks        = 500
	maxRunsPerTask  = 200
	maxEvents       = 5000
	maxDocBytes     = 8 << 20
	maxOutputBytes  = 64 << 10
	maxEventLineLen = 1 << 20
)

// safeName is a task slug or run id as `pome run` makes them; anything
// else (a "..", a slash) never reaches the filesystem.
var safeName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// runMeta is the part of meta.json the listing shows. It is read here
// rather than imported from the task package, which imports rest.
type runMeta struct {
	RunID      string    `json:"run_id"`
	Trial      int       `json:"trial"`
	Task       string    `json:"task"`
	TaskFile   string    `json:"task_file,omitempty"`
	SessionID  string    `json:"session_id,omitempty"`
	Twins      []string  `json:"twins"`
	Agent      string    `json:"agent"`
	StartedAt  time.Time `json:"started_at"`
	FinishedAt time.Time `json:"finished_at"`
	State      string    `json:"state,omitempty"`
	Score      *float64  `json:"score,omitempty"`
	Error      string    `json:"error,omitempty"`
}

// verdictCounts is the part of verdict.json the listing shows.
type verdictCounts struct {
	SessionID string  `json:"session_id,omitempty"`
	State     string  `json:"state"`
	Score     float64 `json:"score"`
	Passed    int     `json:"passed"`
	Evaluated int     `json:"evaluated"`
	Excluded  int     `json:"excluded"`
	Abstained int     `json:"abstained"`
	Errors    int     `json:"errors"`
}

type runSummary struct {
	RunID      string         `json:"run_id"`
	Trial      int            `json:"trial,omitempty"`
	SessionID  string         `json:"session_id,omitempty"`
	Agent      string         `json:"agent,omitempty"`
	StartedAt  *time.Time     `json:"started_at,omitempty"`
	FinishedAt *time.Time     `json:"finished_at,omitempty"`
	State      string         `json:"state"`
	Score      *float64       `json:"score,omitempty"`
	Error      string         `json:"error,omitempty"`
	Counts     *verdictCounts `json:"counts,omitempty"`
}

type taskRuns struct {
	Slug  string       `json:"slug"`
	Task  string       `json:"task"`
	File  string       `json:"file,omitempty"`
	Twins []string     `json:"twins"`
	Runs  []runSummary `json:"runs"`
	// Total and Passed count every stored run of the task, whichever
	// `pome run` invocation made it; latest.json has the K of one.
	Total     int  `json:"total"`
	Passed    int  `json:"passed"`
	Truncated bool `json:"truncated,omitempty"`
}

func (h *handler) runsDir(w http.ResponseWriter, r *http.Request) (string, bool) {
	if h.opts.RunsDir == "" {
		writeError(w, r, http.StatusNotFound, "not_found", "this server has no runs directory configured (--runs-dir)")
		return "", false
	}
	return h.opts.RunsDir, true
}

// owned is the set of sandboxes a team's index holds. A run directory is
// the calling team's when the sandbox it ran in (session_id in meta.json or
// verdict.json) is: teams share the server's runs directory, and a team
// sees neither another team's runs nor runs whose sandbox the server no
// longer knows (the index forgets a sandbox a week past its expiry on
// Redis, and the memory store forgets every sandbox on restart).
type owned map[string]bool

func (h *handler) ownedSandboxes(w http.ResponseWriter, r *http.Request) (owned, bool) {
	list, err := h.opts.Manager.Store.List(r.Context(), teamOf(r))
	if err != nil {
		writeError(w, r, http.StatusServiceUnavailable, string(session.ErrInternal), "store unavailable")
		return nil, false
	}
	o := make(owned, len(list))
	for _, sb := range list {
		o[sb.ID] = true
	}
	return o, true
}

// has reports whether a run in sandbox sid is the team's; a run without a
// sandbox (it failed before one was created) is nobody's.
func (o owned) has(sid string) bool { return sid != "" && o[sid] }

// latestIsOwned reports whether latest.json is the team's: no trial of it ran
// in a sandbox of another team, and at least one ran in one of the team's
// (trials without a sandbox belong to the same `pome run`).
func (o owned) latestIsOwned(doc []byte) bool {
	var sum struct {
		Tasks []struct {
			Trials []struct {
				SessionID string `json:"session_id"`
			} `json:"trials"`
		} `json:"tasks"`
	}
	if json.Unmarshal(doc, &sum) != nil {
		return false
	}
	mine := false
	for _, t := range sum.Tasks {
		for _, tr := range t.Trials {
			if tr.SessionID == "" {
				continue
			}
			if !o.has(tr.SessionID) {
				return false
			}
			mine = true
		}
	}
	return mine
}

// runs answers GET /ui/api/runs: every task's run directories of the
// calling team, newest first, and runs/latest.json (the last `pome run`,
// with pass@1 and pass^K) when it is the team's.
func (h *handler) runs(w http.ResponseWriter, r *http.Request) {
	dir, ok := h.runsDir(w, r)
	if !ok {
		return
	}
	mine, ok := h.ownedSandboxes(w, r)
	if !ok {
		return
	}
	out := struct {
		RunsDir   string          `json:"runs_dir"`
		Latest    json.RawMessage `json:"latest"`
		Tasks     []taskRuns      `json:"tasks"`
		Truncated bool            `json:"truncated,omitempty"`
	}{RunsDir: dir, Latest: json.RawMessage("null"), Tasks: []taskRuns{}}
	if doc, err := readDoc(filepath.Join(dir, "latest.json")); err == nil && json.Valid(doc) && mine.latestIsOwned(doc) {
		out.Latest = doc
	}
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		writeError(w, r, http.StatusInternalServerError, "internal_error", "read the runs directory: "+err.Error())
		return
	}
	for _, e := range entries {
		if !e.IsDir() || !safeName.MatchString(e.Name()) {
			continue
		}
		if len(out.Tasks) == maxTasks {
			out.Truncated = true
			break
		}
		if t, ok := readTask(filepath.Join(dir, e.Name()), e.Name(), mine); ok {
			out.Tasks = append(out.Tasks, t)
		}
	}
	writeJSON(w, http.StatusOK, out)
}

func readTask(dir, slug string, mine owned) (taskRuns, bool) {
	t := taskRuns{Slug: slug, Twins: []string{}, Runs: []runSummary{}}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return t, false
	}
	// Run ids start with a UTC timestamp, so name order is time order.
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() > entries[j].Name() })
	for _, e := range entries {
		if !e.IsDir() || !safeName.MatchString(e.Name()) {
			continue
		}
		runDir := filepath.Join(dir, e.Name())
		var meta runMeta
		metaErr := readJSON(filepath.Join(runDir, "meta.json"), &meta)
		var counts verdictCounts
		verdictErr := readJSON(filepath.Join(runDir, "verdict.json"), &counts)
		if metaErr != nil && verdictErr != nil {
			continue // not a run directory
		}
		if !mine.has(cmp.Or(meta.SessionID, counts.SessionID)) {
			continue
		}
		t.Total++
		if len(t.Runs) == maxRunsPerTask {
			t.Truncated = true
			continue
		}
		s := runSummary{RunID: e.Name(), Trial: meta.Trial, SessionID: meta.SessionID, Agent: meta.Agent,
			State: meta.State, Score: meta.Score, Error: meta.Error}
		if !meta.StartedAt.IsZero() {
			s.StartedAt = &meta.StartedAt
		}
		if !meta.FinishedAt.IsZero() {
			s.FinishedAt = &meta.FinishedAt
		}
		if verdictErr == nil {
			s.Counts = &counts
			s.State = counts.State
			score := counts.Score
			s.Score = &score
		}
		if s.State == "" {
			s.State = "error"
		}
		if s.State == "pass" {
			t.Passed++
		}
		if t.Task == "" {
			t.Task, t.File = meta.Task, meta.TaskFile
			if meta.Twins != nil {
				t.Twins = meta.Twins
			}
		}
		t.Runs = append(t.Runs, s)
	}
	if t.Total == 0 {
		return t, false
	}
	if t.Task == "" {
		t.Task = slug
	}
	return t, true
}

// run answers GET /ui/api/runs/{slug}/{run}: one run directory's meta,
// verdict, merged tape (events.jsonl), seed-versus-final diffs and the
// agent's output tails.
func (h *handler) run(w http.ResponseWriter, r *http.Request) {
	dir, ok := h.runsDir(w, r)
	if !ok {
		return
	}
	slug, id := r.PathValue("slug"), r.PathValue("run")
	if !safeName.MatchString(slug) || !safeName.MatchString(id) {
		writeError(w, r, http.StatusNotFound, "not_found", "no run "+slug+"/"+id)
		return
	}
	mine, ok := h.ownedSandboxes(w, r)
	if !ok {
		return
	}
	runDir := filepath.Join(dir, slug, id)
	// Another team's run is answered as one that does not exist.
	if st, err := os.Stat(runDir); err != nil || !st.IsDir() || !mine.has(runSandbox(runDir)) {
		writeError(w, r, http.StatusNotFound, "not_found", "no run "+slug+"/"+id)
		return
	}
	type twinDiff struct {
		Changes   []twins.Change `json:"changes"`
		Truncated bool           `json:"truncated"`
		Error     string         `json:"error,omitempty"`
	}
	out := struct {
		Slug            string              `json:"slug"`
		RunID           string              `json:"run_id"`
		Meta            json.RawMessage     `json:"meta"`
		Verdict         json.RawMessage     `json:"verdict"`
		Events          []json.RawMessage   `json:"events"`
		EventsTruncated bool                `json:"events_truncated,omitempty"`
		Diffs           map[string]twinDiff `json:"diffs"`
		Stdout          string              `json:"stdout"`
		Stderr          string              `json:"stderr"`
		Files           []string            `json:"files"`
	}{Slug: slug, RunID: id, Meta: json.RawMessage("null"), Verdict: json.RawMessage("null"),
		Events: []json.RawMessage{}, Diffs: map[string]twinDiff{}, Files: []string{}}

	if doc, err := readDoc(filepath.Join(runDir, "meta.json")); err == nil && json.Valid(doc) {
		out.Meta = doc
	}
	if doc, err := readDoc(filepath.Join(runDir, "verdict.json")); err == nil && json.Valid(doc) {
		out.Verdict = doc
	}
	out.Events, out.EventsTruncated = readEvents(filepath.Join(runDir, "events.jsonl"))
	out.Stdout = readTail(filepath.Join(runDir, "stdout.txt"))
	out.Stderr = readTail(filepath.Join(runDir, "stderr.log"))
	entries, _ := os.ReadDir(runDir)
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		name := e.Name()
		out.Files = append(out.Files, name)
		twin, ok := strings.CutPrefix(name, "state_initial.")
		if !ok || !strings.HasSuffix(twin, ".json") {
			continue
		}
		twin = strings.TrimSuffix(twin, ".json")
		var d twinDiff
		seed, err1 := readDoc(filepath.Join(runDir, name))
		final, err2 := readDoc(filepath.Join(runDir, "state_final."+twin+".json"))
		if err := errors.Join(err1, err2); err != nil {
			d.Error = "no final state recorded"
		} else if d.Changes, d.Truncated, err = twins.Diff(seed, final); err != nil {
			d.Error = err.Error()
		}
		if d.Changes == nil {
			d.Changes = []twins.Change{}
		}
		out.Diffs[twin] = d
	}
	writeJSON(w, http.StatusOK, out)
}

// runSandbox is the sandbox a run directory ran in ("" when it names none).
func runSandbox(runDir string) string {
	var doc struct {
		SessionID string `json:"session_id"`
	}
	if readJSON(filepath.Join(runDir, "meta.json"), &doc) == nil && doc.SessionID != "" {
		return doc.SessionID
	}
	doc.SessionID = ""
	readJSON(filepath.Join(runDir, "verdict.json"), &doc)
	return doc.SessionID
}

func readDoc(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxDocBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxDocBytes {
		return nil, errors.New(filepath.Base(path) + " is too large to show")
	}
	return data, nil
}

func readJSON(path string, v any) error {
	doc, err := readDoc(path)
	if err != nil {
		return err
	}
	return json.Unmarshal(doc, v)
}

func readEvents(path string) ([]json.RawMessage, bool) {
	out := []json.RawMessage{}
	f, err := os.Open(path)
	if err != nil {
		return out, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), maxEventLineLen)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || !json.Valid(line) {
			continue
		}
		if len(out) == maxEvents {
			return out, true
		}
		out = append(out, json.RawMessage(append([]byte(nil), line...)))
	}
	// A line too long to scan ends the read; say the list is cut.
	return out, sc.Err() != nil
}

// readTail returns the end of an agent output file: the end is where an
// agent says why it stopped.
func readTail(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return ""
	}
	prefix := ""
	if st.Size() > maxOutputBytes {
		if _, err := f.Seek(st.Size()-maxOutputBytes, io.SeekStart); err != nil {
			return ""
		}
		prefix = "…"
	}
	data, _ := io.ReadAll(io.LimitReader(f, maxOutputBytes))
	return prefix + strings.ToValidUTF8(string(data), "\uFFFD")
}
