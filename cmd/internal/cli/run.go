package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/pomehq/pome/task"
	"github.com/pomehq/pome/twins"
)

func (a *App) newRunCmd() *cobra.Command {
	var (
		agent, artifacts         string
		judge                    judgeFlags
		agentModel, agentVersion string
		trials, parallel         int
		timeout                  time.Duration
		asJSON                   bool
	)
	cmd := &cobra.Command{
		Use:   "run [TASK.md|DIR] [--agent CMD]",
		Short: "Run an agent against a task (or every task in DIR) and grade it",
		Long: "Creates a sandbox from the task's twins and seed, runs the agent's preflight\n" +
			"(POME_PREFLIGHT=1, 10 s) and then the agent within the task's timeout, grades\n" +
			"the sandbox, writes the run directory and stops the sandbox.\n\n" +
			"The agent gets POME_TASK, POME_TASK_TITLE, POME_TASK_FILE, POME_TWIN_NAMES,\n" +
			"POME_SESSION_ID, POME_AUTH_TOKEN, POME_RUN_ID, POME_ARTIFACTS_DIR, POME_TIMEOUT,\n" +
			"POME_TWIN_BASE_URL (the first twin's address) and, per twin,\n" +
			"POME_<TWIN>_REST_URL, POME_<TWIN>_MCP_URL and POME_<TWIN>_TOKEN; for the SDKs\n" +
			"that take the server root: POME_STRIPE_API_KEY and POME_STRIPE_API_BASE,\n" +
			"POME_GITHUB_HOST (github-mcp-server's GITHUB_HOST), POME_GMAIL_ROOT_URL,\n" +
			"POME_LINEAR_API_KEY and POME_LINEAR_API_URL (@linear/sdk's apiKey and apiUrl).\n\n" +
			wrapText("Of this program's own environment the agent inherits only what the original Pome's runner passes on: "+
				strings.Join(task.SafeParentEnv, ", ")+", and the model providers' keys "+strings.Join(task.ModelProviderEnv, ", ")+". "+
				task.EnvAllowlist+"=A,B adds names; "+task.EnvInheritAll+"=1 passes everything. POME_* variables never pass "+
				"(they hold the team key): the run sets the agent's own.", 80) + "\n\n" +
			"The run directory holds meta.json, events.jsonl, state_initial.<twin>.json,\n" +
			"state_final.<twin>.json (and state_initial.json, state_final.json for the\n" +
			"first twin), stdout.txt, stderr.log, verdict.json and task.md (the task as it\n" +
			"ran, for `pome eval`); latest.json in\n" +
			"--artifacts-dir names the last run (run_id, task, run_dir) and sums up all.\n\n" +
			"In a project with a manifest (pome.json or pome.yaml, here or in a parent;\n" +
			"`pome init` writes one), TASK defaults to its tasks, --agent to its command,\n" +
			"--artifacts-dir to its artifacts_dir, and its pass_threshold applies to tasks\n" +
			"that set no passThreshold. Its agent.slug and agent.version (or\n" +
			"--agent-version) and --agent-model are stamped into meta.json and verdict.json.\n" +
			"Relative paths in the manifest are read from its folder; the agent command\n" +
			"runs in the current folder.\n\n" +
			"[model] criteria abstain unless a judge reads them: --judge-cmd PROGRAM, or a\n" +
			"model you bring with --judge openai (POME_LLM_BASE_URL, POME_LLM_API_KEY,\n" +
			"POME_LLM_MODEL: any OpenAI-compatible endpoint) or --judge anthropic\n" +
			"(ANTHROPIC_API_KEY). The model sees the criterion, the task and the tapes and\n" +
			"answers passed/reason; its readings go into verdict.json with its name and\n" +
			"stay out of the score unless the task's ## Config sets modelScored: true.\n\n" +
			"Before any sandbox exists, the agent checks of `pome doctor` run: the\n" +
			"command's program and script resolve, and the agent would inherit no proxy\n" +
			"and no variable naming a real vendor host, nor hard-code one in its script.\n" +
			"A failure refuses the run (exit 2); there is no override.\n\n" +
			"Exit codes: 0 pass, 1 fail, 2 orchestration error, 3 auth, 4 quota,\n" +
			"5 usage or invalid task, 6 incomplete (could not grade).",
		Args: cobra.MaximumNArgs(1),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			proj, err := findProject(".")
			if err != nil {
				return err
			}
			path := ""
			if len(args) == 1 {
				path = args[0]
			} else if proj != nil && proj.M.Tasks != "" {
				path = proj.path(proj.M.Tasks)
			} else {
				return usageErrorf("give a task file or a folder of tasks, or set \"tasks\" in pome.json (`pome init` writes one)")
			}
			if strings.TrimSpace(agent) == "" && proj != nil {
				agent = proj.M.Command
			}
			if strings.TrimSpace(agent) == "" {
				return usageErrorf("--agent is required: the command that runs your agent, e.g. --agent \"python agent.py\" (or set \"command\" in pome.json)")
			}
			if err := agentWiring(agent); err != nil {
				return err
			}
			if artifacts, err = a.artifactsDir(cmd, artifacts); err != nil {
				return err
			}
			identity := task.AgentIdentity{Model: agentModel, Version: agentVersion}
			var threshold *float64
			if proj != nil {
				identity.Slug, identity.Framework = proj.M.Agent.Slug, proj.M.Agent.Framework
				if identity.Version == "" {
					identity.Version = proj.M.Agent.Version
				}
				if p := proj.M.PassThreshold; p != nil {
					f := float64(*p)
					threshold = &f
				}
			}
			if trials < 0 || parallel < 1 {
				return usageErrorf("-n must be at least 1 and --parallel at least 1")
			}
			reg, err := registry()
			if err != nil {
				return err
			}
			tasks, err := loadTasks(path, reg)
			if err != nil {
				return err
			}
			for _, t := range tasks {
				for _, w := range t.Warnings {
					fmt.Fprintf(a.Stderr, "%s:%d: warning: %s\n", t.File, w.Line, w.Msg)
				}
			}
			llm, err := judge.settings(tasks...)
			if err != nil {
				return err
			}
			c, err := a.client()
			if err != nil {
				return err
			}
			r := &task.Runner{CP: controlPlane{c}, Agent: agent, JudgeCmd: judge.cmd, LLM: llm, ArtifactsDir: artifacts, Timeout: timeout, Server: c.BaseURL,
				Identity: identity, PassThreshold: threshold}
			sum := &task.Summary{StartedAt: time.Now().UTC(), Agent: agent}
			var codes []int
			for i, t := range tasks {
				k := trials
				if k == 0 {
					k = t.Config.Runs
				}
				progress := a.progress(k)
				results := r.RunTrials(cmd.Context(), t, k, parallel, progress)
				ts := task.SummarizeTrials(t, results)
				for j, tr := range results {
					ts.Trials[j].Verdict = tr.Verdict
					codes = append(codes, trialCode(tr))
				}
				sum.Tasks = append(sum.Tasks, ts)
				if !asJSON {
					if i > 0 {
						fmt.Fprintln(a.Stdout)
					}
					a.printTrials(t, results, ts)
				}
			}
			sum.FinishedAt = time.Now().UTC()
			sum.ExitCode = worstCode(codes)
			if err := task.WriteSummary(artifacts, sum); err != nil {
				return fmt.Errorf("write %s: %w", filepath.Join(artifacts, "latest.json"), err)
			}
			if asJSON {
				data, _ := json.Marshal(sum)
				if err := printJSON(a.Stdout, data); err != nil {
					return err
				}
			}
			return outcome(sum.ExitCode, firstError(tasks, sum))
		}),
	}
	f := cmd.Flags()
	f.StringVar(&agent, "agent", "", "shell command that runs the agent (default: pome.json's command)")
	f.StringVar(&agentModel, "agent-model", "", "the model the agent uses, recorded in meta.json and verdict.json")
	f.StringVar(&agentVersion, "agent-version", "", "the agent's version, recorded in meta.json and verdict.json (default: pome.json's agent.version)")
	f.IntVarP(&trials, "trials", "n", 0, "independent trials, each in its own sandbox (default: the task's runs)")
	f.IntVar(&parallel, "parallel", 4, "trials running at the same time")
	judge.add(f, "")
	f.StringVar(&artifacts, "artifacts-dir", "runs", "where run directories and latest.json are written (default: pome.json's artifacts_dir, else runs)")
	f.DurationVar(&timeout, "timeout", 0, "agent timeout, overriding the task's")
	f.BoolVar(&asJSON, "json", false, "print the run summary (runs/latest.json) as JSON")
	return cmd
}

// loadTasks reads one task file, or every task of a directory (its *.md
// files except README.md). Every file is checked before anything runs.
func loadTasks(path string, reg *twins.Registry) ([]*task.Task, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, usageErrorf("%v", err)
	}
	files := []string{path}
	if st.IsDir() {
		files = nil
		entries, err := os.ReadDir(path)
		if err != nil {
			return nil, usageErrorf("%v", err)
		}
		for _, e := range entries {
			if !e.IsDir() && strings.HasSuffix(e.Name(), ".md") && !strings.EqualFold(e.Name(), "README.md") {
				files = append(files, filepath.Join(path, e.Name()))
			}
		}
		sort.Strings(files)
		if len(files) == 0 {
			return nil, usageErrorf("%s holds no task files (*.md)", path)
		}
	}
	var tasks []*task.Task
	var all task.Errors
	for _, f := range files {
		t, err := task.ParseFile(f, reg)
		if es := task.AsErrors(err); es != nil {
			all = append(all, es...)
			continue
		}
		if err != nil {
			return nil, usageErrorf("%v", err)
		}
		tasks = append(tasks, t)
	}
	if len(all) > 0 {
		return nil, taskErrors(all)
	}
	return tasks, nil
}

// trialCode is one trial's exit code (SPEC §7).
func trialCode(tr *task.Trial) int {
	if tr.Err != nil {
		var c interface{ ExitCode() int }
		if errors.As(tr.Err, &c) {
			return c.ExitCode()
		}
		return ExitOrchestration
	}
	return stateCode(tr.Verdict.State)
}

// stateCode is a verdict state's exit code.
func stateCode(state string) int {
	switch state {
	case task.StatePass:
		return ExitOK
	case task.StateFail:
		return ExitFail
	}
	return ExitIncomplete
}

// worstCode folds trial codes into one: a run that could not happen beats
// one that could not be graded, which beats a failure.
func worstCode(codes []int) int {
	for _, want := range []int{ExitAuth, ExitQuota, ExitUsage, ExitOrchestration, ExitIncomplete, ExitFail} {
		for _, c := range codes {
			if c == want {
				return want
			}
		}
	}
	return ExitOK
}

// verdictError carries a fail or incomplete outcome as an exit code whose
// explanation was already printed.
type verdictError struct {
	code int
	msg  string
}

func (e *verdictError) Error() string { return e.msg }
func (e *verdictError) ExitCode() int { return e.code }

func outcome(code int, firstErr error) error {
	switch code {
	case ExitOK:
		return nil
	case ExitFail:
		return &verdictError{code, "the agent did not pass"}
	case ExitIncomplete:
		return &verdictError{code, "the run could not be graded completely (see the criteria above)"}
	}
	if firstErr != nil {
		var c interface{ ExitCode() int }
		if errors.As(firstErr, &c) {
			return firstErr
		}
		return &ExitError{Code: code, Err: firstErr}
	}
	return &verdictError{code, "the run failed"}
}

func firstError(tasks []*task.Task, sum *task.Summary) error {
	for _, ts := range sum.Tasks {
		for _, tr := range ts.Trials {
			if tr.Error != "" {
				return errors.New(tr.Error)
			}
		}
	}
	return nil
}

// progress returns a per-trial callback that shows progress on a terminal,
// or nil when there is one trial or stderr is not a terminal.
func (a *App) progress(k int) func(*task.Trial) {
	if k < 2 || !isTerminal(a.Stderr) {
		return nil
	}
	done, passed := 0, 0
	fmt.Fprintf(a.Stderr, "  0/%d trials finished", k)
	return func(tr *task.Trial) {
		done++
		if tr.Verdict != nil && tr.Verdict.State == task.StatePass {
			passed++
		}
		fmt.Fprintf(a.Stderr, "\r  %d/%d trials finished, %d passed", done, k, passed)
		if done == k {
			fmt.Fprintln(a.Stderr)
		}
	}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func (a *App) printTrials(t *task.Task, trials []*task.Trial, ts task.TaskSummary) {
	if len(trials) == 1 {
		a.printTrial(t, trials[0])
		return
	}
	tw := newTable(a.Stdout)
	row(tw, "TRIAL", "STATE", "SCORE", "SESSION", "RUN")
	for _, tr := range trials {
		state, score := "error", "-"
		if tr.Verdict != nil {
			state, score = tr.Verdict.State, fmt.Sprintf("%g", tr.Verdict.Score)
		}
		row(tw, tr.Index, state, score, orDash(tr.SessionID), orDash(tr.Dir))
	}
	tw.Flush()
	for _, tr := range trials {
		if tr.Err != nil {
			fmt.Fprintf(a.Stdout, "trial %d: %v\n", tr.Index, tr.Err)
		}
	}
	word := "FAIL"
	if ts.Passed == ts.K {
		word = "PASS"
	}
	fmt.Fprintf(a.Stdout, "%s %d/%d  %s\npass@1 %.2f  pass^%d %.2f\n", word, ts.Passed, ts.K, t.Title, ts.PassAt1, ts.K, ts.PassPowK)
}

func (a *App) printTrial(t *task.Task, tr *task.Trial) {
	if tr.Verdict == nil {
		fmt.Fprintf(a.Stdout, "ERROR  %s\n", t.Title)
		if tr.Dir != "" {
			fmt.Fprintf(a.Stdout, "run: %s\n", tr.Dir)
		}
		return
	}
	a.printVerdict(tr.Verdict, t.Title)
	if r := tr.Agent; r != nil {
		switch {
		case r.TimedOut:
			fmt.Fprintf(a.Stdout, "agent: killed at the deadline, after %s\n", (time.Duration(r.DurationMS) * time.Millisecond).Round(time.Second))
		default:
			fmt.Fprintf(a.Stdout, "agent: exited %d after %s\n", r.ExitCode, (time.Duration(r.DurationMS) * time.Millisecond).Round(time.Millisecond))
		}
	}
	fmt.Fprintf(a.Stdout, "run: %s\n", tr.Dir)
}

// printVerdict is the human verdict: state and title, score, a line per
// criterion with its reason.
func (a *App) printVerdict(v *task.Verdict, title string) {
	fmt.Fprintf(a.Stdout, "%s  %s\n", strings.ToUpper(v.State), title)
	fmt.Fprintf(a.Stdout, "score %g (%d of %d evaluated criteria passed; threshold %g", v.Score, v.Passed, v.Evaluated, v.PassThreshold)
	if v.Excluded > 0 {
		fmt.Fprintf(a.Stdout, "; %d excluded", v.Excluded)
	}
	if v.Abstained > 0 {
		fmt.Fprintf(a.Stdout, "; %d abstained", v.Abstained)
	}
	if v.Advisory > 0 {
		fmt.Fprintf(a.Stdout, "; %d [model] read by %s, not scored", v.Advisory, v.JudgeModel)
	}
	fmt.Fprintln(a.Stdout, ")")
	if v.Reason != "" {
		fmt.Fprintf(a.Stdout, "incomplete: %s\n", v.Reason)
	}
	for _, c := range v.Criteria {
		tag := criterionTag(c)
		reason := c.Reason
		if c.Status == task.StatusExcluded && reason == task.ReasonAlreadyTrue {
			reason = "already true in the seed (mark it always-scored to count it)"
		}
		fmt.Fprintf(a.Stdout, "  %-9s %s %s — %s\n", c.Status, tag, c.Text, reason)
	}
}

// wrapText breaks s into lines of at most width columns, at spaces.
func wrapText(s string, width int) string {
	var b strings.Builder
	col := 0
	for i, w := range strings.Fields(s) {
		if i > 0 && col+1+len(w) > width {
			b.WriteByte('\n')
			col = 0
		} else if i > 0 {
			b.WriteByte(' ')
			col++
		}
		b.WriteString(w)
		col += len(w)
	}
	return b.String()
}

// criterionTag says what graded a criterion: its twin's check, or a
// [model] reading and by which model, and whether it counts.
func criterionTag(c task.CriterionResult) string {
	switch {
	case c.Kind == task.Code:
		return "[" + c.Twin + "]"
	case c.JudgeModel != "" && c.Advisory:
		return "[model: " + c.JudgeModel + ", not scored]"
	case c.JudgeModel != "":
		return "[model: " + c.JudgeModel + "]"
	}
	return "[model]"
}
