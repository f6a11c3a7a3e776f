package cli

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/pomehq/pome/rest"
	"github.com/pomehq/pome/session"
	"github.com/pomehq/pome/task"
	"github.com/pomehq/pome/twins"
)

// demoTask is the bundled cross-twin task `pome demo` runs.
//
//go:embed demo/outage-handoff.md
var demoTask []byte

const (
	demoTaskFile      = "outage-handoff.md"
	demoDefaultTrials = 5
	demoMaxTrials     = 10
)

// demoAgentCommand is the bundled agent: this binary's hidden demo-agent
// subcommand. Tests replace it (their binary is not pome).
var demoAgentCommand = func() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	return shellQuote(exe) + " demo-agent", nil
}

func (a *App) newDemoCmd() *cobra.Command {
	var (
		trials    int
		agent     string
		artifacts string
		judge     judgeFlags
		asJSON    bool
	)
	cmd := &cobra.Command{
		Use:   "demo [--trials N] [--agent CMD]",
		Short: "Run a bundled GitHub + Slack task N times against an embedded server, offline",
		Long: "Runs the bundled task \"Outage hand-off\" (label, assign and comment on a GitHub\n" +
			"issue, then tell #general on Slack) with its scripted agent, --trials times, each\n" +
			"in its own sandbox of an in-memory Pome server inside this process. It needs no\n" +
			"account, no API key, no model and no network, and prints each trial's verdict,\n" +
			"pass@1 and pass^N, and where the run directories are (as `pome run` writes\n" +
			"them: `pome inspect latest`, `pome fix-prompt` and `pome eval` read them).\n\n" +
			"--agent CMD runs your own agent on the same task instead, with the environment\n" +
			"`pome run` gives (POME_TASK, POME_GITHUB_REST_URL, POME_SLACK_TOKEN, …). The\n" +
			"[model] criterion abstains unless --judge or --judge-cmd reads it.\n\n" +
			"Exit codes: as `pome run`: 0 every trial passed, 1 one failed, 2 orchestration\n" +
			"error, 5 bad flags, 6 a trial could not be graded.",
		Args: cobra.NoArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			if trials < 1 || trials > demoMaxTrials {
				return usageErrorf("invalid --trials %d (expected 1-%d)", trials, demoMaxTrials)
			}
			if cmd.Flags().Changed("agent") && strings.TrimSpace(agent) == "" {
				return usageErrorf("--agent is empty: give the command that runs your agent")
			}
			reg, err := registry()
			if err != nil {
				return err
			}
			t, err := task.Parse(demoTaskFile, demoTask, task.Options{Registry: reg})
			if err != nil {
				return fmt.Errorf("the bundled demo task does not load with this binary's twins: %w", err)
			}
			llm, err := judge.settings(t)
			if err != nil {
				return err
			}
			bundled := agent == ""
			if bundled {
				if agent, err = demoAgentCommand(); err != nil {
					return fmt.Errorf("find the bundled agent: %w", err)
				}
			} else if err := agentWiring(agent); err != nil {
				return err
			}
			if artifacts, err = a.artifactsDir(cmd, artifacts); err != nil {
				return err
			}
			return a.runDemo(cmd.Context(), reg, t, demoRun{trials: trials, agent: agent, bundled: bundled,
				artifacts: artifacts, judgeCmd: judge.cmd, llm: llm, asJSON: asJSON})
		}),
	}
	f := cmd.Flags()
	f.IntVar(&trials, "trials", demoDefaultTrials, fmt.Sprintf("isolated trials, 1-%d", demoMaxTrials))
	f.StringVar(&agent, "agent", "", "run your own agent (a shell command) instead of the bundled one")
	f.StringVar(&artifacts, "artifacts-dir", "runs", "where run directories and latest.json are written (default: pome.json's artifacts_dir, else runs)")
	judge.add(f, "")
	f.BoolVar(&asJSON, "json", false, "print the run summary (latest.json) as JSON")
	return cmd
}

type demoRun struct {
	trials    int
	agent     string
	bundled   bool
	artifacts string
	judgeCmd  string
	llm       *task.LLMSettings
	asJSON    bool
}

// demoServer is an in-memory Pome server on a loopback port of its own,
// with the grader wired as `pome serve` has it.
type demoServer struct {
	URL, Key string
	hs       *http.Server
	store    session.Store
}

func startDemoServer(reg *twins.Registry) (*demoServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listen on a loopback port: %w", err)
	}
	key := session.NewAPIKey()
	teams, err := session.NewTeams(map[string][]string{"demo": {key}})
	if err != nil {
		ln.Close()
		return nil, err
	}
	store := session.NewMemoryStore(nil, 0)
	url := "http://" + ln.Addr().String()
	srv := rest.NewServer(rest.Config{Addr: ln.Addr().String(), PublicURL: url}, reg, store, teams)
	srv.Grader = task.GradeHandler(reg)
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(ln)
	return &demoServer{URL: url, Key: key, hs: hs, store: store}, nil
}

func (d *demoServer) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if d.hs.Shutdown(ctx) != nil {
		d.hs.Close()
	}
	d.store.Close()
}

func (a *App) runDemo(ctx context.Context, reg *twins.Registry, t *task.Task, run demoRun) error {
	out := a.Stdout
	if run.asJSON {
		// The story goes to stderr so that stdout stays one JSON document.
		out = a.Stderr
	}
	fmt.Fprintln(out, "pome demo · everything runs on this machine")
	if run.bundled {
		fmt.Fprintln(out, "No account, no API key, no model: an in-memory Pome server, the bundled task and its scripted agent.")
	} else {
		fmt.Fprintf(out, "No account, no API key: an in-memory Pome server, the bundled task and your agent (%s).\n", run.agent)
	}
	start := time.Now()
	srv, err := startDemoServer(reg)
	if err != nil {
		return err
	}
	defer srv.Close()
	fmt.Fprintf(out, "twins %s ready at %s (%.1fs)\n", strings.Join(t.Config.Twins, " and "), srv.URL, time.Since(start).Seconds())
	noun := "trials"
	if run.trials == 1 {
		noun = "trial"
	}
	fmt.Fprintf(out, "running %d isolated %s of %q …\n", run.trials, noun, t.Title)

	c := &Client{BaseURL: srv.URL, APIKey: srv.Key, HTTPClient: a.HTTPClient}
	r := &task.Runner{CP: controlPlane{c}, Agent: run.agent, JudgeCmd: run.judgeCmd, LLM: run.llm, ArtifactsDir: run.artifacts,
		Server: srv.URL, Identity: task.AgentIdentity{Slug: demoSlug(run.bundled)}}
	sum := &task.Summary{StartedAt: time.Now().UTC(), Agent: run.agent}
	// One after another, so each line appears, in order, as its trial ends.
	var results []*task.Trial
	for i := 1; i <= run.trials; i++ {
		if ctx.Err() != nil {
			results = append(results, &task.Trial{Task: t, Index: i, Err: ctx.Err()})
			continue
		}
		tr := r.Run(ctx, t, i)
		fmt.Fprintln(out, demoTrialLine(tr))
		results = append(results, tr)
	}
	ts := task.SummarizeTrials(t, results)
	var codes []int
	for j, tr := range results {
		ts.Trials[j].Verdict = tr.Verdict
		codes = append(codes, trialCode(tr))
	}
	sum.Tasks = append(sum.Tasks, ts)
	sum.FinishedAt = time.Now().UTC()
	sum.ExitCode = worstCode(codes)
	if err := task.WriteSummary(run.artifacts, sum); err != nil {
		return fmt.Errorf("write %s: %w", filepath.Join(run.artifacts, "latest.json"), err)
	}

	fmt.Fprintln(out, "─────")
	fmt.Fprintf(out, "%d of %d passed   pass@1 %.2f   pass^%d %.2f\n", ts.Passed, ts.K, ts.PassAt1, ts.K, ts.PassPowK)
	if note := modelNote(results); note != "" {
		fmt.Fprintln(out, note)
	}
	fmt.Fprintf(out, "artifacts: %s (latest: %s)\n", filepath.Join(run.artifacts, task.Slug(t))+string(filepath.Separator), filepath.Join(run.artifacts, "latest.json"))
	fmt.Fprintln(out, "next: pome inspect latest · pome fix-prompt · pome eval <run dir>")
	if run.bundled {
		fmt.Fprintln(out, "your agent on the same task: pome demo --agent \"python agent.py\"")
	}
	if run.asJSON {
		data, _ := json.Marshal(sum)
		if err := printJSON(a.Stdout, data); err != nil {
			return err
		}
	}
	return outcome(sum.ExitCode, firstError([]*task.Task{t}, sum))
}

func demoSlug(bundled bool) string {
	if bundled {
		return "pome-demo-agent"
	}
	return ""
}

// demoTrialLine is one trial's verdict in words, as the original's demo
// prints it, with its score and, when it failed, the first criterion that
// did.
func demoTrialLine(tr *task.Trial) string {
	secs := ""
	if tr.Agent != nil {
		secs = fmt.Sprintf("%.1fs", float64(tr.Agent.DurationMS)/1000)
	}
	if tr.Verdict == nil {
		reason := "it ended before grading"
		if tr.Err != nil {
			reason = firstLine(tr.Err.Error())
		}
		return fmt.Sprintf("trial %d  ⚠  error           %s", tr.Index, reason)
	}
	v := tr.Verdict
	switch v.State {
	case task.StatePass:
		return fmt.Sprintf("trial %d  ✓  passed  %3g  %6s", tr.Index, v.Score, secs)
	case task.StateFail:
		return fmt.Sprintf("trial %d  ✗  failed  %3g  %6s  %s", tr.Index, v.Score, secs, firstFailed(v))
	}
	return fmt.Sprintf("trial %d  ⚠  incomplete     %6s  %s", tr.Index, secs, v.Reason)
}

func firstFailed(v *task.Verdict) string {
	for _, c := range v.Criteria {
		if (c.Status == task.StatusFailed || c.Status == task.StatusError) && !c.Advisory {
			return c.Text
		}
	}
	return ""
}

// modelNote says what happened to the [model] criteria across trials.
func modelNote(results []*task.Trial) string {
	abstained, advisory, model := 0, 0, ""
	for _, tr := range results {
		if tr.Verdict == nil {
			continue
		}
		abstained += tr.Verdict.Abstained
		advisory += tr.Verdict.Advisory
		if tr.Verdict.JudgeModel != "" {
			model = tr.Verdict.JudgeModel
		}
	}
	switch {
	case advisory > 0:
		return fmt.Sprintf("[model] criteria read by %s, not scored (see verdict.json)", model)
	case abstained > 0:
		return "[model] criteria abstained: --judge openai|anthropic reads them with your own model"
	}
	return ""
}
