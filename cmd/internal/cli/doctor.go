package cli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pomehq/pome/task"
)

// vendorHosts are the real services the twins stand in for: an agent
// whose environment or script names one would leave the sandbox.
var vendorHosts = []string{"api.github.com", "uploads.github.com", "slack.com/api", "hooks.slack.com", "api.stripe.com", "gmail.googleapis.com", "www.googleapis.com/gmail"}

// proxyEnv are variables that send an agent's HTTP through another host.
var proxyEnv = []string{"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"}

// doctorFailure is the first thing doctor found wrong: one cause, one fix.
type doctorFailure struct{ check, cause, fix string }

func (a *App) newDoctorCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "doctor",
		Short: "Check the project's wiring: manifest, server and key, twins, agent command, agent environment",
		Long: "Checks, in order: the manifest (pome.json or pome.yaml, here or in a parent)\n" +
			"and its tasks; the server and the API key; that a sandbox of the twins the\n" +
			"tasks need starts and serves its state and tape; that the agent command\n" +
			"resolves (its program, and the script it names); that the agent's environment\n" +
			"(what `pome run` passes on) sets no proxy and names no real vendor host, and\n" +
			"that the agent's script hard-codes none.\n\n" +
			"Prints a line per check that passed and, at the first failure, its cause and\n" +
			"one fix. Exit codes: 0 all good, 1 a check failed.",
		Args: cobra.NoArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			for _, step := range a.doctorSteps() {
				ok, fail := step(cmd.Context())
				if fail != nil {
					fmt.Fprintf(a.Stdout, "FAIL  %s: %s\n      fix: %s\n", fail.check, fail.cause, fail.fix)
					return &verdictError{ExitFail, "pome doctor found a problem"}
				}
				fmt.Fprintf(a.Stdout, "ok    %s\n", ok)
			}
			fmt.Fprintln(a.Stdout, "All checks passed.")
			return nil
		}),
	}
}

type doctorStep func(ctx context.Context) (string, *doctorFailure)

// doctorSteps are the checks in order; each may rely on what the earlier
// ones found.
func (a *App) doctorSteps() []doctorStep {
	var (
		proj  *project
		tasks []*task.Task
		c     *Client
	)
	return []doctorStep{
		func(context.Context) (string, *doctorFailure) {
			p, err := findProject(".")
			if err != nil {
				return "", &doctorFailure{"manifest", err.Error(), hintOr(err, "correct the manifest; see "+manifestSchemaURL)}
			}
			if p == nil {
				return "", &doctorFailure{"manifest", "no pome.json or pome.yaml here or in a parent folder", "run `pome init` in the project's folder"}
			}
			proj = p
			if p.M.Tasks == "" {
				return "", &doctorFailure{"manifest", p.Path + " sets no \"tasks\"", "set \"tasks\" to the task file or folder, e.g. \"tasks\""}
			}
			reg, err := registry()
			if err != nil {
				return "", &doctorFailure{"manifest", err.Error(), "use a pome binary built with its twins"}
			}
			if tasks, err = loadTasks(p.path(p.M.Tasks), reg); err != nil {
				return "", &doctorFailure{"tasks", firstLine(taskErrors(err).Error()), "`pome checks lint " + p.M.Tasks + "` shows every problem"}
			}
			return fmt.Sprintf("manifest  %s (agent %s, %s)", p.Path, p.M.Agent.Slug, plural(len(tasks), "task")), nil
		},
		func(ctx context.Context) (string, *doctorFailure) {
			cl, err := a.client()
			if err == nil {
				_, err = cl.Usage(ctx)
			}
			if err != nil {
				return "", &doctorFailure{"server", firstLine(err.Error()), hintOr(err, "start a server (`pome serve`) and `pome login --server URL`")}
			}
			c = cl
			return "server    " + c.BaseURL + " accepts the key", nil
		},
		func(ctx context.Context) (string, *doctorFailure) {
			need := map[string]bool{}
			for _, t := range tasks {
				for _, tw := range t.Config.Twins {
					need[tw] = true
				}
			}
			names := make([]string, 0, len(need))
			for n := range need {
				names = append(names, n)
			}
			sort.Strings(names)
			sb, err := c.CreateSandbox(ctx, CreateSandboxRequest{Twins: names, TTLSeconds: 120})
			if err != nil {
				return "", &doctorFailure{"twins", "a sandbox of " + strings.Join(names, ", ") + " did not start: " + firstLine(err.Error()),
					"`pome twins` lists the twins this server offers; serve them or change the tasks' twins"}
			}
			defer c.StopSandbox(context.WithoutCancel(ctx), sb.SessionID, true)
			for _, n := range names {
				if _, err := c.State(ctx, sb.SessionID, n); err != nil {
					return "", &doctorFailure{"twins", "the " + n + " twin started but does not serve its state: " + firstLine(err.Error()), "look at the server's log"}
				}
				if _, err := c.Tape(ctx, sb.SessionID, n); err != nil {
					return "", &doctorFailure{"twins", "the " + n + " twin started but does not serve its tape: " + firstLine(err.Error()), "look at the server's log"}
				}
			}
			return "twins     a sandbox of " + strings.Join(names, ", ") + " starts and serves", nil
		},
		func(context.Context) (string, *doctorFailure) {
			if strings.TrimSpace(proj.M.Command) == "" {
				return "", &doctorFailure{"agent", proj.Path + " sets no \"command\"", "set \"command\" to the shell command that starts your agent"}
			}
			if f := checkCommand(proj.M.Command); f != nil {
				return "", f
			}
			return "agent     " + proj.M.Command + " resolves", nil
		},
		func(context.Context) (string, *doctorFailure) {
			if f := checkAgentEnv(proj.M.Command); f != nil {
				return "", f
			}
			return "env       the agent's environment names no real vendor host and no proxy", nil
		},
	}
}

// checkAgentEnv reports a proxy or a real vendor host in what the agent
// would inherit, or a vendor host hard-coded in the script it runs.
func checkAgentEnv(command string) *doctorFailure {
	for _, kv := range task.ScrubAgentEnv(os.Environ()) {
		k, v, _ := strings.Cut(kv, "=")
		for _, p := range proxyEnv {
			if k == p && v != "" {
				return &doctorFailure{"environment", "the agent gets " + k + "=" + v + ", which sends its calls through another host instead of the twins",
					"unset " + k + " (or drop it from " + task.EnvAllowlist + ")"}
			}
		}
		if h := vendorHost(v); h != "" {
			return &doctorFailure{"environment", "the agent gets " + k + ", which points at the real " + h,
				"unset " + k + "; the agent finds the twins in POME_<TWIN>_REST_URL and POME_<TWIN>_MCP_URL"}
		}
	}
	if script := commandScript(command); script != "" {
		if line, h := scanForHosts(script); h != "" {
			return &doctorFailure{"environment", fmt.Sprintf("%s:%d hard-codes the real %s", script, line, h),
				"read the address from POME_" + twinOfHost(h) + "_REST_URL (or POME_TWIN_BASE_URL) instead"}
		}
	}
	return nil
}

// agentWiring is the part of doctor `pome run` applies before it starts
// an agent: the command resolves and the agent cannot reach a real vendor.
func agentWiring(command string) error {
	f := checkCommand(command)
	if f == nil {
		f = checkAgentEnv(command)
	}
	if f == nil {
		return nil
	}
	return &ExitError{Code: ExitOrchestration, Err: fmt.Errorf("refusing to start the agent: %s", f.cause), Fix: f.fix}
}

func hintOr(err error, fallback string) string {
	var h interface{ Hint() string }
	if errors.As(err, &h) && h.Hint() != "" {
		return h.Hint()
	}
	return fallback
}

func firstLine(s string) string { return strings.SplitN(s, "\n", 2)[0] }

// commandWords splits a shell command into words, dropping leading
// VAR=value assignments; enough to find the program and its script.
func commandWords(cmd string) []string {
	words := strings.Fields(cmd)
	for len(words) > 0 && strings.Contains(words[0], "=") && !strings.HasPrefix(words[0], "=") {
		words = words[1:]
	}
	return words
}

// commandScript is the file the command runs: its program when that is a
// path, else its first argument that names an existing file.
func commandScript(cmd string) string {
	words := commandWords(cmd)
	if len(words) == 0 {
		return ""
	}
	if strings.Contains(words[0], "/") {
		return words[0]
	}
	for _, w := range words[1:] {
		if strings.HasPrefix(w, "-") {
			continue
		}
		if st, err := os.Stat(w); err == nil && !st.IsDir() {
			return w
		}
		return ""
	}
	return ""
}

// checkCommand reports a command whose program cannot be found or whose
// script is missing.
func checkCommand(cmd string) *doctorFailure {
	// A command with shell syntax is the shell's to read; only plain
	// "program args…" commands are looked into.
	if strings.ContainsAny(cmd, ";&|$`()<>'\"\\{}[]*?~") {
		return nil
	}
	words := commandWords(cmd)
	if len(words) == 0 {
		return &doctorFailure{"agent", "the command " + quoteCmd(cmd) + " holds no program", "set \"command\" to the shell command that starts your agent"}
	}
	prog := words[0]
	if _, err := exec.LookPath(prog); err != nil {
		return &doctorFailure{"agent", "the command's program " + prog + " is not found (from " + mustCwd() + ")", "install it, fix \"command\" in pome.json, or run pome from the project's folder"}
	}
	// An interpreter's script argument: sh agent.sh, python bot.py.
	if len(words) > 1 && !strings.HasPrefix(words[1], "-") && looksLikeScript(words[1]) {
		if _, err := os.Stat(words[1]); err != nil {
			return &doctorFailure{"agent", "the command runs " + words[1] + ", which does not exist (from " + mustCwd() + ")", "fix \"command\" in pome.json, or run pome from the project's folder"}
		}
	}
	return nil
}

func looksLikeScript(w string) bool {
	switch filepath.Ext(w) {
	case ".sh", ".py", ".js", ".mjs", ".ts", ".rb", ".pl":
		return true
	}
	return false
}

func quoteCmd(s string) string { return fmt.Sprintf("%q", s) }

func mustCwd() string {
	d, _ := os.Getwd()
	return d
}

func vendorHost(s string) string {
	for _, h := range vendorHosts {
		if strings.Contains(s, h) {
			return h
		}
	}
	return ""
}

// scanForHosts finds the first line of a script (up to 1 MiB) that names a
// vendor host.
func scanForHosts(path string) (int, string) {
	data, err := os.ReadFile(path)
	if err != nil || len(data) > 1<<20 {
		return 0, ""
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		if h := vendorHost(sc.Text()); h != "" {
			return n, h
		}
	}
	return 0, ""
}

func twinOfHost(h string) string {
	switch {
	case strings.Contains(h, "github"):
		return "GITHUB"
	case strings.Contains(h, "slack"):
		return "SLACK"
	case strings.Contains(h, "stripe"):
		return "STRIPE"
	}
	return "GMAIL"
}
