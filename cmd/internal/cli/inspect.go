package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/pomehq/pome/tape"
	"github.com/pomehq/pome/task"
)

func (a *App) newInspectCmd() *cobra.Command {
	var (
		artifacts string
		asJSON    bool
	)
	cmd := &cobra.Command{
		Use:   "inspect RUN|latest",
		Short: "Show a run: its header, the health of its trace and every tape row",
		Long: "Reads a run directory offline. RUN is a run directory (runs/<task>/<run-id>),\n" +
			"a run id under --artifacts-dir, or `latest` (the run latest.json names).\n\n" +
			"Trace health lists the rows per twin (a twin without rows was never called),\n" +
			"the rows with tool null (calls that match no action of the twin) and the calls\n" +
			"past a tape's cap, whose rows are missing. Then one line per tape row:\n" +
			"  seq twin transport METHOD path → status (latency) [mutation] tool\n\n" +
			"Exit codes: 0 shown, 5 no such run.",
		Args: cobra.ExactArgs(1),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			dir, err := a.artifactsDir(cmd, artifacts)
			if err != nil {
				return err
			}
			d, err := resolveRun(args[0], dir)
			if err != nil {
				return err
			}
			rep := inspectRun(d)
			if asJSON {
				data, _ := json.Marshal(rep)
				return printJSON(a.Stdout, data)
			}
			rep.print(a.Stdout)
			return nil
		}),
	}
	cmd.Flags().StringVar(&artifacts, "artifacts-dir", "runs", "where run directories and latest.json are (default: pome.json's artifacts_dir, else runs)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	return cmd
}

// inspection is `pome inspect`'s report.
type inspection struct {
	RunDir  string       `json:"run_dir"`
	Meta    task.Meta    `json:"meta"`
	Verdict *verdictHead `json:"verdict"`
	Health  traceHealth  `json:"health"`
	Rows    []rowLine    `json:"rows"`
}

type verdictHead struct {
	State  string  `json:"state"`
	Score  float64 `json:"score"`
	Passed int     `json:"passed"`
	Of     int     `json:"evaluated"`
}

type traceHealth struct {
	// Events is false when the run has no events.jsonl.
	Events bool             `json:"events"`
	Rows   map[string]int   `json:"rows_per_twin"`
	Null   []int64          `json:"tool_null_seqs"`
	Drops  map[string]int64 `json:"dropped"`
}

type rowLine struct {
	Seq       int64  `json:"seq"`
	Twin      string `json:"twin"`
	Transport string `json:"transport"`
	Method    string `json:"method"`
	Path      string `json:"path"`
	Status    int    `json:"status"`
	LatencyUS int64  `json:"latency_us"`
	Mutation  bool   `json:"state_mutation"`
	Tool      string `json:"tool"`
}

func inspectRun(d *task.RunDir) *inspection {
	rep := &inspection{RunDir: d.Path, Meta: d.Meta, Rows: []rowLine{},
		Health: traceHealth{Events: d.HasEvents, Rows: map[string]int{}, Null: []int64{}, Drops: map[string]int64{}}}
	if v := d.Verdict; v != nil {
		rep.Verdict = &verdictHead{State: v.State, Score: v.Score, Passed: v.Passed, Of: v.Evaluated}
	}
	for _, name := range d.Meta.Twins {
		rep.Health.Rows[name] = 0
		if n := d.Meta.TapeDropped[name]; n > 0 {
			rep.Health.Drops[name] = n
		}
	}
	for _, r := range d.Rows {
		rep.Health.Rows[r.Twin]++
		if r.Tool == nil {
			rep.Health.Null = append(rep.Health.Null, r.Seq)
		}
		rep.Rows = append(rep.Rows, newRowLine(r, d.Meta.SessionID))
	}
	return rep
}

func newRowLine(r tape.Row, sid string) rowLine {
	return rowLine{Seq: r.Seq, Twin: r.Twin, Transport: r.Transport, Method: r.Method, Path: shortPath(r.Path, r.Twin, sid),
		Status: r.Status, LatencyUS: r.LatencyUS, Mutation: r.StateMutation, Tool: r.ToolName()}
}

// String is the row as inspect and fix-prompt show it.
func (l rowLine) String() string {
	s := fmt.Sprintf("%d %s %s %s %s → %d (%s)", l.Seq, l.Twin, orDash(l.Transport), orDash(l.Method), l.Path, l.Status, latency(l.LatencyUS))
	if l.Mutation {
		s += " [mutation]"
	}
	if l.Tool == "" {
		return s + " tool:null"
	}
	return s + " " + l.Tool
}

// latency renders microseconds the way a person reads them.
func latency(us int64) string {
	d := time.Duration(us) * time.Microsecond
	switch {
	case d < time.Millisecond:
		return d.String()
	case d < time.Second:
		return d.Round(100 * time.Microsecond).String()
	}
	return d.Round(10 * time.Millisecond).String()
}

func (rep *inspection) print(w io.Writer) {
	m := rep.Meta
	// Fixed-width labels: the header reads the same whichever lines a run
	// has.
	head := func(label, value string) { fmt.Fprintf(w, "%-9s  %s\n", label, value) }
	head("run", m.RunID+fmt.Sprintf("  (trial %d)", m.Trial))
	head("dir", rep.RunDir)
	task := m.Title
	if m.TaskFile != "" {
		task += "  (" + m.TaskFile + ")"
	}
	head("task", task)
	if m.Class != "" {
		head("class", m.Class)
	}
	head("twins", strings.Join(m.Twins, ", "))
	head("agent", orDash(m.Agent))
	head("session", orDash(m.SessionID))
	head("started", m.StartedAt.Format(time.RFC3339)+"  took "+m.FinishedAt.Sub(m.StartedAt).Round(time.Millisecond).String())
	if r := m.AgentResult; r != nil {
		how := fmt.Sprintf("exited %d", r.ExitCode)
		if r.TimedOut {
			how = "killed at the deadline"
		}
		head("agent run", fmt.Sprintf("%s after %s", how, (time.Duration(r.DurationMS)*time.Millisecond).Round(time.Millisecond)))
	}
	if v := rep.Verdict; v != nil {
		head("verdict", fmt.Sprintf("%s  score %g (%d of %d)", v.State, v.Score, v.Passed, v.Of))
	} else {
		head("verdict", "none: the run ended before grading")
	}
	if m.Error != "" {
		head("error", strings.SplitN(m.Error, "\n", 2)[0])
	}

	fmt.Fprintln(w, "\ntrace health")
	h := rep.Health
	if !h.Events {
		fmt.Fprintln(w, "  no events.jsonl: the run ended before its tapes were read")
	}
	tw := newTable(w)
	for _, name := range m.Twins {
		note := ""
		if h.Rows[name] == 0 && h.Events {
			note = "warning: the agent never called this twin"
		}
		row(tw, "  "+name, plural(h.Rows[name], "row"), note)
	}
	tw.Flush()
	if len(h.Null) == 0 {
		fmt.Fprintln(w, "  tool:null  none")
	} else {
		seqs := make([]string, len(h.Null))
		for i, s := range h.Null {
			seqs[i] = fmt.Sprint(s)
		}
		fmt.Fprintf(w, "  tool:null  %s (seq %s): calls that match no action of the twin\n", plural(len(h.Null), "row"), strings.Join(seqs, ", "))
	}
	if len(h.Drops) == 0 {
		fmt.Fprintln(w, "  truncated  no")
	}
	for _, name := range m.Twins {
		if n := h.Drops[name]; n > 0 {
			fmt.Fprintf(w, "  truncated  %s: %s past the tape's cap are missing; tape checks on it cannot be trusted\n", name, plural(int(n), "call"))
		}
	}

	if len(rep.Rows) > 0 {
		fmt.Fprintln(w, "\ntape")
	}
	for _, l := range rep.Rows {
		fmt.Fprintln(w, "  "+l.String())
	}
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
