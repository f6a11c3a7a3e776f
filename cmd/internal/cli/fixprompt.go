package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/pomehq/pome/tape"
	"github.com/pomehq/pome/task"
)

// Bounds that keep a fix prompt pasteable.
const (
	fixMaxRows    = 50
	fixBodyChars  = 600
	fixOutputTail = 2000
)

func (a *App) newFixPromptCmd() *cobra.Command {
	var artifacts string
	cmd := &cobra.Command{
		Use:   "fix-prompt [RUN|DIR] [TASK]",
		Short: "Print a prompt for a coding assistant from the newest failed run",
		Long: "Offline, from a run's verdict and tapes, prints a prompt to paste into a coding\n" +
			"assistant: the task, what each failed criterion expected, the tape rows it cites\n" +
			"as evidence, and what the agent did instead.\n\n" +
			"RUN is one run directory. DIR (default: --artifacts-dir, pome.json's\n" +
			"artifacts_dir, else runs) holds runs/<task>/<run-id>; of each task its newest\n" +
			"run counts, and the newest of those that failed is the one explained. TASK\n" +
			"(a task slug or task file) looks at that task's runs only.\n\n" +
			"Exit codes: 0 a prompt was printed, or nothing failed (said on stderr);\n" +
			"1 the newest run is incomplete (could not be graded: fix the run, not the\n" +
			"agent); 5 bad input (no such run, no runs).",
		Args: cobra.MaximumNArgs(2),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			target, err := a.artifactsDir(cmd, artifacts)
			if err != nil {
				return err
			}
			if len(args) > 0 {
				target = args[0]
			}
			slug := ""
			if len(args) == 2 {
				if isRunDir(target) {
					return usageErrorf("TASK picks among the runs of a folder; %s is one run already", target)
				}
				slug = task.Slug(&task.Task{File: args[1], Title: args[1]})
			}
			d, err := pickFailedRun(target, slug, a.Stderr)
			if err != nil || d == nil {
				return err
			}
			writeFixPrompt(a.Stdout, d)
			return nil
		}),
	}
	cmd.Flags().StringVar(&artifacts, "artifacts-dir", "runs", "where run directories are (default: pome.json's artifacts_dir, else runs)")
	return cmd
}

// pickFailedRun finds the run to explain: target itself when it is a run,
// else the newest failed run among each task's newest. It returns nil,
// nil when nothing failed (and says so on stderr).
func pickFailedRun(target, slug string, stderr io.Writer) (*task.RunDir, error) {
	if isRunDir(target) {
		d, err := readRunDir(target)
		if err != nil {
			return nil, err
		}
		return judgeFixable(d, stderr)
	}
	runs, err := findRuns(target, slug)
	if err != nil {
		return nil, &ExitError{Code: ExitUsage, Err: err, Fix: "give a run directory or the folder `pome run` wrote runs to (--artifacts-dir)"}
	}
	if len(runs) == 0 {
		what := "no runs"
		if slug != "" {
			what = "no runs of task " + slug
		}
		return nil, &ExitError{Code: ExitUsage, Err: fmt.Errorf("%s holds %s", target, what), Fix: "run the task first: `pome run TASK.md`"}
	}
	// Each task's newest run: an older failure may already be fixed.
	seen := map[string]bool{}
	var newest []*task.RunDir
	for _, d := range runs {
		if key := d.Meta.Scenario; !seen[key] {
			seen[key] = true
			newest = append(newest, d)
		}
	}
	for _, d := range newest {
		if d.Verdict != nil && d.Verdict.State == task.StateFail {
			return d, nil
		}
	}
	for _, d := range newest {
		if d.Verdict == nil || d.Verdict.State != task.StatePass {
			return judgeFixable(d, stderr)
		}
	}
	fmt.Fprintf(stderr, "Nothing to fix: the newest run of every task under %s passed.\n", target)
	return nil, nil
}

// judgeFixable lets a failed run through and explains why another is not
// one to hand to a coding assistant.
func judgeFixable(d *task.RunDir, stderr io.Writer) (*task.RunDir, error) {
	v := d.Verdict
	switch {
	case v != nil && v.State == task.StateFail:
		return d, nil
	case v != nil && v.State == task.StatePass:
		fmt.Fprintf(stderr, "Nothing to fix: %s passed.\n", d.Path)
		return nil, nil
	}
	why := "it ended before grading"
	if d.Meta.Error != "" {
		why += ": " + strings.SplitN(d.Meta.Error, "\n", 2)[0]
	} else if v != nil {
		why = "it could not be graded completely: " + v.Reason
	}
	return nil, &ExitError{Code: ExitFail, Err: fmt.Errorf("the newest run of %s (%s) is incomplete, so there is no failure to explain: %s", d.Meta.Scenario, d.Path, why),
		Fix: "`pome inspect " + d.Path + "` shows the run; fix what kept it from being graded and run it again"}
}

// writeFixPrompt writes the prompt for a failed run.
func writeFixPrompt(w io.Writer, d *task.RunDir) {
	m, v := d.Meta, d.Verdict
	prompt, expected := taskText(d)
	fmt.Fprintf(w, "# Fix the agent: %s\n\n", m.Title)
	fmt.Fprintf(w, "An AI agent failed a Pome task. It ran against stateful twins of %s, which answer\n"+
		"like the vendors' APIs and record every call; the task's criteria were checked on\n"+
		"the twins' final state and call tapes. Read what was expected, what the agent did,\n"+
		"and find the cause in the agent's code, tools or prompt. Propose a concrete change\n"+
		"to the agent; do not change the task or its criteria.\n\n", strings.Join(m.Twins, ", "))

	fmt.Fprintf(w, "## Task\n%s", m.Title)
	if m.TaskFile != "" {
		fmt.Fprintf(w, " (%s)", m.TaskFile)
	}
	fmt.Fprintln(w)
	if prompt != "" {
		fmt.Fprintf(w, "\n## What the agent was told\n%s\n", prompt)
	}
	if expected != "" {
		fmt.Fprintf(w, "\n## Expected behaviour\n%s\n", expected)
	}

	fmt.Fprintf(w, "\n## Verdict\n%s: score %g, %d of %d evaluated criteria passed (threshold %g)\nrun %s, session %s\n",
		v.State, v.Score, v.Passed, v.Evaluated, v.PassThreshold, d.Path, orDash(m.SessionID))

	fmt.Fprintln(w, "\n## Failed criteria")
	n := 0
	for _, c := range v.Criteria {
		if c.Status != task.StatusFailed {
			continue
		}
		n++
		fmt.Fprintf(w, "\n### %d. %s %s\n", n, criterionTag(c), c.Text)
		if c.Check != "" {
			fmt.Fprintf(w, "Expected: check %s%s holds on the final state and tape.\n", c.Check, params(c.Params))
		}
		fmt.Fprintf(w, "Found: %s\n", orDash(c.Reason))
		if len(c.Evidence.StatePaths) > 0 {
			fmt.Fprintf(w, "State it read: %s\n", strings.Join(c.Evidence.StatePaths, ", "))
		}
		if len(c.Evidence.TapeSeqs) == 0 {
			fmt.Fprintln(w, "Evidence rows: none cited")
			continue
		}
		fmt.Fprintln(w, "Evidence rows:")
		for _, seq := range c.Evidence.TapeSeqs {
			if r, ok := findRow(d, c.Twin, seq); ok {
				writeRow(w, r, m.SessionID, true)
			} else {
				fmt.Fprintf(w, "  %d %s (not in events.jsonl)\n", seq, c.Twin)
			}
		}
	}

	fmt.Fprintln(w, "\n## What the agent did instead")
	writes := 0
	for _, r := range d.Rows {
		if r.StateMutation {
			writes++
		}
	}
	fmt.Fprintf(w, "%s to the twins, %d of them changing state:\n", plural(len(d.Rows), "call"), writes)
	for i, r := range d.Rows {
		if i == fixMaxRows {
			fmt.Fprintf(w, "  (%d more calls left out; `pome inspect %s` lists them all)\n", len(d.Rows)-fixMaxRows, d.Path)
			break
		}
		writeRow(w, r, m.SessionID, r.StateMutation || r.Status >= 400)
	}
	for _, name := range m.Twins {
		if n := m.TapeDropped[name]; n > 0 {
			fmt.Fprintf(w, "  (%s: %s past the tape's cap are missing)\n", name, plural(int(n), "call"))
		}
	}
	if r := m.AgentResult; r != nil {
		how := fmt.Sprintf("exited %d", r.ExitCode)
		if r.TimedOut {
			how = "was killed at the deadline"
		}
		fmt.Fprintf(w, "The agent %s after %s.\n", how, (time.Duration(r.DurationMS) * time.Millisecond).Round(time.Millisecond))
	}
	for _, f := range []struct{ name, title string }{{"stdout.txt", "Agent output (end)"}, {"stderr.log", "Agent errors (end)"}} {
		if out := readTailFile(filepath.Join(d.Path, f.name)); out != "" {
			fmt.Fprintf(w, "\n%s:\n```\n%s\n```\n", f.title, out)
		}
	}

	var ok []string
	for _, c := range v.Criteria {
		if c.Status == task.StatusPassed {
			ok = append(ok, "- "+c.Text)
		}
	}
	if len(ok) > 0 {
		fmt.Fprintf(w, "\n## Criteria that passed (keep them passing)\n%s\n", strings.Join(ok, "\n"))
	}
}

// taskText is the task's prompt and expected behaviour, from the copy the
// run saved ("" when it cannot be read).
func taskText(d *task.RunDir) (prompt, expected string) {
	reg := taskRegistry()
	if reg == nil || d.TaskSource == nil {
		return "", ""
	}
	t, err := task.Parse(task.TaskSourceFile, d.TaskSource, task.Options{Registry: reg, SkipSeed: true})
	if err != nil {
		return "", ""
	}
	return t.Prompt, t.Expected
}

func params(p map[string]string) string {
	if len(p) == 0 {
		return ""
	}
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%q", k, p[k])
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

func findRow(d *task.RunDir, twin string, seq int64) (tape.Row, bool) {
	for _, r := range d.Rows {
		if r.Twin == twin && r.Seq == seq {
			return r, true
		}
	}
	return tape.Row{}, false
}

// writeRow writes a row's line and, with bodies, its request and response
// bodies cut to a readable length.
func writeRow(w io.Writer, r tape.Row, sid string, bodies bool) {
	fmt.Fprintf(w, "  %s\n", newRowLine(r, sid))
	if !bodies {
		return
	}
	if b := strings.TrimSpace(string(r.Request.Body)); b != "" && b != "null" {
		fmt.Fprintf(w, "    request:  %s\n", cut(b, fixBodyChars))
	}
	if b := strings.TrimSpace(string(r.Response.Body)); b != "" && b != "null" {
		fmt.Fprintf(w, "    response: %s\n", cut(b, fixBodyChars))
	}
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}

func readTailFile(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	s := strings.TrimSpace(string(data))
	if len(s) > fixOutputTail {
		s = "…" + s[len(s)-fixOutputTail:]
	}
	return s
}
