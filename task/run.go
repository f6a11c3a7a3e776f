package task

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"
)

// ControlPlane is what a run needs of a Pome server (SPEC §4). The CLI
// implements it over HTTP; its errors keep their own exit codes.
type ControlPlane interface {
	CreateSandbox(ctx context.Context, req SandboxRequest) (*Sandbox, error)
	State(ctx context.Context, sid, twin string) (json.RawMessage, error)
	// Tape returns a twin's rows and how many calls went past the tape's
	// cap (rows the server no longer holds).
	Tape(ctx context.Context, sid, twin string) (rows []json.RawMessage, dropped int64, err error)
	// Grade grades the sandbox against a task source on the server.
	Grade(ctx context.Context, sid, taskSource string) (*Verdict, error)
	StopSandbox(ctx context.Context, sid string) error
}

// SandboxRequest is the sandbox a task asks for.
type SandboxRequest struct {
	Twins      []string
	Seed       map[string]json.RawMessage
	TTL        time.Duration
	TaskSource string
}

// Sandbox is a created sandbox as an agent needs it.
type Sandbox struct {
	ID string
	// AgentToken opens the vendor surfaces of every twin, not _pome.
	AgentToken string
	Twins      map[string]TwinAccess
	// Root is the server's root URL, where vendor SDKs that take no base
	// path reach the sandbox by its provider credentials ("" unknown).
	Root string
}

// TwinAccess is one twin's addresses and vendor credential.
type TwinAccess struct {
	RESTURL string
	MCPURL  string
	Token   string
	// UserToken is the twin's user credential, where it has one (Slack's
	// xoxp-, for what Slack reserves to users, such as search).
	UserToken string
}

// Runner runs agents against tasks.
type Runner struct {
	CP ControlPlane
	// Agent is the agent's shell command.
	Agent string
	// JudgeCmd grades [model] criteria ("" leaves them abstained).
	JudgeCmd string
	// LLM, when set, grades [model] criteria with a model instead.
	LLM *LLMSettings
	// ArtifactsDir is where run directories go ("runs").
	ArtifactsDir string
	// Timeout overrides the task's timeout when positive.
	Timeout time.Duration
	// PreflightTimeout bounds the preflight (0: 10 s).
	PreflightTimeout time.Duration
	// KillGrace is how long a process group has between SIGTERM and
	// SIGKILL (0: 2 s).
	KillGrace time.Duration
	// Server is recorded in meta.json.
	Server string
	// Identity is stamped into meta.json and verdict.json.
	Identity AgentIdentity
	// PassThreshold, when set, is the threshold of tasks that set none.
	PassThreshold *float64
	// Env is the environment agents and judges start from (nil:
	// os.Environ()). Agents get only what ScrubAgentEnv keeps of it; POME_*
	// variables never pass, so that the team key and another sandbox's
	// tokens never reach an agent or a judge.
	Env []string
}

// Trial is the outcome of one run of one task.
type Trial struct {
	Task      *Task
	Index     int
	RunID     string
	Dir       string
	SessionID string
	Preflight *ProcessResult
	Agent     *ProcessResult
	// Verdict is nil when the run failed before grading.
	Verdict *Verdict
	// Err is an orchestration failure (nil when the run got a verdict).
	Err error
}

// PreflightError is an agent that failed its preflight.
type PreflightError struct {
	Result ProcessResult
	Output string
}

func (e *PreflightError) Error() string {
	what := fmt.Sprintf("exited with code %d", e.Result.ExitCode)
	if e.Result.TimedOut {
		what = "did not finish in time"
	}
	msg := "the agent failed its preflight (POME_PREFLIGHT=1): it " + what
	if out := strings.TrimSpace(e.Output); out != "" {
		msg += "\n" + indent(tail(out, 2000), "  ")
	}
	return msg
}

// ExitCode is an orchestration failure (SPEC §7).
func (e *PreflightError) ExitCode() int { return 2 }

// Meta is meta.json: what ran, where and how it ended.
type Meta struct {
	RunID string `json:"run_id"`
	Trial int    `json:"trial"`
	Task  string `json:"task"`
	// Scenario and Title are the task's slug and title under the original
	// Pome's meta.json names.
	Scenario  string   `json:"scenario"`
	Title     string   `json:"title"`
	Class     string   `json:"class,omitempty"`
	TaskFile  string   `json:"task_file,omitempty"`
	SessionID string   `json:"session_id,omitempty"`
	Twins     []string `json:"twins"`
	Server    string   `json:"server,omitempty"`
	Agent     string   `json:"agent"`
	AgentIdentity
	// PassThreshold is the project's default threshold, applied because
	// the task sets none (absent when the task's own applied).
	PassThreshold  *float64       `json:"pass_threshold,omitempty"`
	TimeoutSeconds float64        `json:"timeout_seconds"`
	StartedAt      time.Time      `json:"started_at"`
	FinishedAt     time.Time      `json:"finished_at"`
	Preflight      *ProcessResult `json:"preflight,omitempty"`
	AgentResult    *ProcessResult `json:"agent_result,omitempty"`
	State          string         `json:"state,omitempty"`
	Score          *float64       `json:"score,omitempty"`
	Error          string         `json:"error,omitempty"`
	// TapeDropped counts, per twin, calls past the tape's cap: their rows
	// are missing from events.jsonl, so tape checks cannot be trusted.
	TapeDropped map[string]int64 `json:"tape_dropped,omitempty"`
}

func (r *Runner) preflightTimeout() time.Duration {
	if r.PreflightTimeout > 0 {
		return r.PreflightTimeout
	}
	return 10 * time.Second
}

func (r *Runner) grace() time.Duration {
	if r.KillGrace > 0 {
		return r.KillGrace
	}
	return 2 * time.Second
}

// Slug names a task's directory under the artifacts directory: the task
// file's name, or its title when it has no file.
func Slug(t *Task) string {
	base := strings.TrimSuffix(filepath.Base(t.File), filepath.Ext(t.File))
	if t.File == "" || base == "" || base == "." {
		base = t.Title
	}
	s := strings.Trim(regexp.MustCompile(`[^a-z0-9]+`).ReplaceAllString(strings.ToLower(base), "-"), "-")
	if s == "" {
		s = "task"
	}
	return s
}

func newRunID(now time.Time) string {
	var b [3]byte
	rand.Read(b[:])
	return now.UTC().Format("20060102T150405.000Z") + "-" + hex.EncodeToString(b[:])
}

// Run runs the agent once against t: sandbox, preflight, agent, grading,
// artifacts, and the sandbox stopped whatever happens. index numbers the
// trial (1-based) in meta.json.
func (r *Runner) Run(ctx context.Context, t *Task, index int) *Trial {
	start := time.Now()
	tr := &Trial{Task: t, Index: index, RunID: newRunID(start)}
	tr.Dir = filepath.Join(r.ArtifactsDir, Slug(t), tr.RunID)
	timeout := t.Config.Timeout
	if r.Timeout > 0 {
		timeout = r.Timeout
	}
	meta := &Meta{RunID: tr.RunID, Trial: index, Task: t.Title, Scenario: Slug(t), Title: t.Title, Class: t.Config.Class, TaskFile: t.File, Twins: t.Config.Twins, Server: r.Server,
		Agent: r.Agent, AgentIdentity: r.Identity, TimeoutSeconds: timeout.Seconds(), StartedAt: start.UTC()}
	if r.PassThreshold != nil && !t.Config.PassThresholdSet {
		meta.PassThreshold = r.PassThreshold
	}
	if err := os.MkdirAll(tr.Dir, 0o755); err != nil {
		tr.Err = fmt.Errorf("create the run directory: %w", err)
		return tr
	}
	// The task as it ran, so that `pome eval` can grade the run again
	// after the file has changed or moved.
	if err := os.WriteFile(filepath.Join(tr.Dir, TaskSourceFile), t.Source, 0o644); err != nil {
		tr.Err = fmt.Errorf("save the task: %w", err)
		return tr
	}
	defer func() {
		meta.FinishedAt = time.Now().UTC()
		meta.SessionID, meta.Preflight, meta.AgentResult = tr.SessionID, tr.Preflight, tr.Agent
		if tr.Verdict != nil {
			meta.State, meta.Score = tr.Verdict.State, &tr.Verdict.Score
		}
		if tr.Err != nil {
			meta.Error = tr.Err.Error()
		}
		if err := writeJSONFile(filepath.Join(tr.Dir, "meta.json"), meta); err != nil && tr.Err == nil {
			tr.Err = err
		}
	}()
	tr.Err = r.run(ctx, t, tr, meta, timeout)
	return tr
}

func (r *Runner) run(ctx context.Context, t *Task, tr *Trial, meta *Meta, timeout time.Duration) error {
	ttl := timeout + r.preflightTimeout() + 10*time.Minute
	if ttl > 24*time.Hour {
		ttl = 24 * time.Hour
	}
	sb, err := r.CP.CreateSandbox(ctx, SandboxRequest{Twins: t.Config.Twins, Seed: t.Seed, TTL: ttl, TaskSource: string(t.Source)})
	if err != nil {
		return err
	}
	tr.SessionID = sb.ID
	stopped := false
	stop := func() error {
		if stopped {
			return nil
		}
		stopped = true
		// Stopping must happen even when the run was interrupted.
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		return r.CP.StopSandbox(sctx, sb.ID)
	}
	defer stop()

	for _, name := range t.Config.Twins {
		doc, err := r.CP.State(ctx, sb.ID, name)
		if err != nil {
			return fmt.Errorf("read the initial %s state: %w", name, err)
		}
		if err := writeStates(tr.Dir, "state_initial", name, name == t.Config.Twins[0], doc); err != nil {
			return err
		}
	}

	absDir, err := filepath.Abs(tr.Dir)
	if err != nil {
		return err
	}
	env := r.agentEnv(t, sb, tr.RunID, absDir, timeout)

	var pre bytes.Buffer
	pw := &limitedBuffer{buf: &pre, max: 64 << 10}
	res, err := runProcess(ctx, r.Agent, append(env, "POME_PREFLIGHT=1"), nil, pw, pw, r.preflightTimeout(), r.grace())
	tr.Preflight = &res
	if err != nil {
		return fmt.Errorf("start the agent: %w", err)
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if res.ExitCode != 0 || res.TimedOut {
		return &PreflightError{Result: res, Output: pre.String()}
	}

	stdout, err := createFile(filepath.Join(tr.Dir, "stdout.txt"))
	if err != nil {
		return err
	}
	defer stdout.Close()
	stderr, err := createFile(filepath.Join(tr.Dir, "stderr.log"))
	if err != nil {
		return err
	}
	defer stderr.Close()
	res, err = runProcess(ctx, r.Agent, env, nil, stdout, stderr, timeout, r.grace())
	tr.Agent = &res
	if err != nil {
		return fmt.Errorf("run the agent: %w", err)
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	// Stop before reading the final state, so that nothing the agent left
	// behind can change what is graded after it is read.
	if err := stop(); err != nil {
		return fmt.Errorf("stop sandbox %s: %w", sb.ID, err)
	}

	art := &JudgeInput{SessionID: sb.ID, RunDir: absDir,
		Task:         JudgeTask{Title: t.Title, File: t.File, Prompt: t.Prompt, Expected: t.Expected},
		StateInitial: map[string]json.RawMessage{}, StateFinal: map[string]json.RawMessage{}}
	tapes := map[string][]json.RawMessage{}
	for _, name := range t.Config.Twins {
		doc, err := r.CP.State(ctx, sb.ID, name)
		if err != nil {
			return fmt.Errorf("read the final %s state: %w", name, err)
		}
		art.StateFinal[name] = doc
		if err := writeStates(tr.Dir, "state_final", name, name == t.Config.Twins[0], doc); err != nil {
			return err
		}
		rows, dropped, err := r.CP.Tape(ctx, sb.ID, name)
		if err != nil {
			return fmt.Errorf("read the %s tape: %w", name, err)
		}
		tapes[name] = rows
		if dropped > 0 {
			if meta.TapeDropped == nil {
				meta.TapeDropped = map[string]int64{}
			}
			meta.TapeDropped[name] = dropped
		}
	}
	events := MergeTapes(t.Config.Twins, tapes)
	if err := writeJSONL(filepath.Join(tr.Dir, "events.jsonl"), events); err != nil {
		return err
	}

	v, err := r.CP.Grade(ctx, sb.ID, string(t.Source))
	if err != nil {
		return fmt.Errorf("grade: %w", err)
	}
	v.AgentIdentity = r.Identity
	if meta.PassThreshold != nil {
		v.PassThreshold = *meta.PassThreshold
		Summarize(v)
	}
	if (r.JudgeCmd != "" || r.LLM != nil) && hasModel(v) {
		for name := range art.StateFinal {
			if doc, err := os.ReadFile(filepath.Join(tr.Dir, "state_initial."+name+".json")); err == nil {
				art.StateInitial[name] = doc
			}
		}
		art.Events = events
		art.AgentStdout = readTail(filepath.Join(tr.Dir, "stdout.txt"), 256<<10)
		art.AgentStderr = readTail(filepath.Join(tr.Dir, "stderr.log"), 64<<10)
		var judge Judge = &CommandJudge{Cmd: r.JudgeCmd, Input: art, Env: r.baseEnv(), Grace: r.grace()}
		if r.LLM != nil {
			lj, err := r.LLM.Judge(t, art)
			if err != nil {
				return err
			}
			judge = lj
		}
		ApplyJudge(ctx, v, judge)
	}
	v.Task = t.Title
	tr.Verdict = v
	return writeJSONFile(filepath.Join(tr.Dir, "verdict.json"), v)
}

func hasModel(v *Verdict) bool {
	for _, c := range v.Criteria {
		if c.Kind == Model {
			return true
		}
	}
	return false
}

func (r *Runner) parentEnv() []string {
	if r.Env == nil {
		return os.Environ()
	}
	return r.Env
}

// baseEnv is what a judge starts from: Pome's environment without POME_*.
// A judge is the user's own trusted program, unlike the agent under test.
func (r *Runner) baseEnv() []string {
	return JudgeEnv(r.parentEnv())
}

// JudgeEnv is base without its POME_* variables, which hold the team key:
// what a judge program starts from.
func JudgeEnv(base []string) []string {
	out := make([]string, 0, len(base))
	for _, kv := range base {
		if !strings.HasPrefix(kv, "POME_") {
			out = append(out, kv)
		}
	}
	return out
}

// MergeTapes merges the twins' tape rows by time into one stream, each row
// naming its twin. Ties (the same microsecond on two twins) keep the task's
// twin order, then seq, so the merge is deterministic.
func MergeTapes(order []string, tapes map[string][]json.RawMessage) []json.RawMessage {
	type ev struct {
		at   time.Time
		twin int
		seq  int64
		raw  json.RawMessage
	}
	var all []ev
	for i, name := range order {
		for _, raw := range tapes[name] {
			var head struct {
				At   time.Time `json:"at"`
				Seq  int64     `json:"seq"`
				Twin string    `json:"twin"`
			}
			_ = json.Unmarshal(raw, &head)
			if head.Twin == "" {
				var m map[string]json.RawMessage
				if json.Unmarshal(raw, &m) == nil {
					m["twin"], _ = json.Marshal(name)
					raw, _ = json.Marshal(m)
				}
			}
			all = append(all, ev{head.At, i, head.Seq, raw})
		}
	}
	sort.SliceStable(all, func(i, j int) bool {
		a, b := all[i], all[j]
		if !a.at.Equal(b.at) {
			return a.at.Before(b.at)
		}
		if a.twin != b.twin {
			return a.twin < b.twin
		}
		return a.seq < b.seq
	})
	out := make([]json.RawMessage, len(all))
	for i, e := range all {
		out[i] = e.raw
	}
	return out
}

// RunTrials runs k independent trials of t, at most parallel at a time,
// calling done (serialized) as each one ends. Trials come back in index
// order.
func (r *Runner) RunTrials(ctx context.Context, t *Task, k, parallel int, done func(*Trial)) []*Trial {
	if parallel < 1 {
		parallel = 1
	}
	out := make([]*Trial, k)
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	var mu sync.Mutex
	for i := 0; i < k; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				out[i] = &Trial{Task: t, Index: i + 1, Err: ctx.Err()}
				return
			}
			defer func() { <-sem }()
			tr := r.Run(ctx, t, i+1)
			out[i] = tr
			if done != nil {
				mu.Lock()
				done(tr)
				mu.Unlock()
			}
		}(i)
	}
	wg.Wait()
	return out
}

// Summary is runs/latest.json: every task of the last `pome run`.
type Summary struct {
	// RunID, Task and RunDir point at the run written last (its id, task
	// slug and directory), the pointer the original Pome's latest.json is.
	RunID      string        `json:"run_id,omitempty"`
	Task       string        `json:"task,omitempty"`
	RunDir     string        `json:"run_dir,omitempty"`
	StartedAt  time.Time     `json:"started_at"`
	FinishedAt time.Time     `json:"finished_at"`
	Agent      string        `json:"agent"`
	ExitCode   int           `json:"exit_code"`
	Tasks      []TaskSummary `json:"tasks"`
}

// TaskSummary is one task's trials and their pass rates.
type TaskSummary struct {
	Task   string `json:"task"`
	File   string `json:"file,omitempty"`
	Slug   string `json:"slug"`
	K      int    `json:"k"`
	Passed int    `json:"passed"`
	// PassAt1 is the share of trials that passed; PassPowK is 1 when all
	// K passed (pass^K: the agent can be relied on K times in a row).
	PassAt1  float64        `json:"pass_at_1"`
	PassPowK float64        `json:"pass_pow_k"`
	Trials   []TrialSummary `json:"trials"`
}

// TrialSummary is one trial in the summary.
type TrialSummary struct {
	RunID     string   `json:"run_id,omitempty"`
	Dir       string   `json:"dir,omitempty"`
	SessionID string   `json:"session_id,omitempty"`
	State     string   `json:"state,omitempty"`
	Score     *float64 `json:"score,omitempty"`
	Error     string   `json:"error,omitempty"`
	Verdict   *Verdict `json:"verdict,omitempty"`
}

// SummarizeTrials sums up a task's trials.
func SummarizeTrials(t *Task, trials []*Trial) TaskSummary {
	s := TaskSummary{Task: t.Title, File: t.File, Slug: Slug(t), K: len(trials), Trials: []TrialSummary{}}
	for _, tr := range trials {
		ts := TrialSummary{RunID: tr.RunID, Dir: tr.Dir, SessionID: tr.SessionID}
		if tr.Verdict != nil {
			ts.State = tr.Verdict.State
			score := tr.Verdict.Score
			ts.Score = &score
			if tr.Verdict.State == StatePass {
				s.Passed++
			}
		}
		if tr.Err != nil {
			ts.Error = tr.Err.Error()
		}
		s.Trials = append(s.Trials, ts)
	}
	if s.K > 0 {
		s.PassAt1 = float64(s.Passed) / float64(s.K)
		if s.Passed == s.K {
			s.PassPowK = 1
		}
	}
	return s
}

// WriteSummary writes <dir>/latest.json, pointing it at the last trial of
// the last task that has a run directory.
func WriteSummary(dir string, s *Summary) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for i := len(s.Tasks) - 1; i >= 0 && s.RunID == ""; i-- {
		for j := len(s.Tasks[i].Trials) - 1; j >= 0; j-- {
			if tr := s.Tasks[i].Trials[j]; tr.RunID != "" && tr.Dir != "" {
				s.RunID, s.Task, s.RunDir = tr.RunID, s.Tasks[i].Slug, tr.Dir
				break
			}
		}
	}
	return writeJSONFile(filepath.Join(dir, "latest.json"), s)
}

func writeJSONFile(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}

// writeStates writes a twin's state as <base>.<twin>.json and, for the
// primary twin (the task's first), also as <base>.json, the file the
// original Pome's run directory holds.
func writeStates(dir, base, twin string, primary bool, doc json.RawMessage) error {
	if err := writeDoc(filepath.Join(dir, base+"."+twin+".json"), doc); err != nil {
		return err
	}
	if primary {
		return writeDoc(filepath.Join(dir, base+".json"), doc)
	}
	return nil
}

// writeDoc writes a server document indented, as it is meant for reading.
func writeDoc(path string, doc json.RawMessage) error {
	var buf bytes.Buffer
	if err := json.Indent(&buf, doc, "", "  "); err != nil {
		buf.Reset()
		buf.Write(doc)
	}
	buf.WriteByte('\n')
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

func writeJSONL(path string, rows []json.RawMessage) error {
	var buf bytes.Buffer
	for _, r := range rows {
		if err := json.Compact(&buf, r); err != nil {
			return fmt.Errorf("tape row is not JSON: %w", err)
		}
		buf.WriteByte('\n')
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

func readTail(path string, max int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return tail(string(data), max)
}

func tail(s string, max int) string {
	if len(s) <= max {
		return s
	}
	return "…" + s[len(s)-max:]
}

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}

// limitedBuffer keeps the first max bytes written and drops the rest, so a
// chatty preflight cannot fill memory.
type limitedBuffer struct {
	mu  sync.Mutex
	buf *bytes.Buffer
	max int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if room := l.max - l.buf.Len(); room > 0 {
		if len(p) > room {
			l.buf.Write(p[:room])
		} else {
			l.buf.Write(p)
		}
	}
	return len(p), nil
}
