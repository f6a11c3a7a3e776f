package cli

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/pomehq/pome/rest"
	"github.com/pomehq/pome/session"
	"github.com/pomehq/pome/task"
	"github.com/pomehq/pome/twins"
)

// Default ports of `pome twin start`, as the original Pome has them.
const (
	defaultTwinPort  = 3333
	defaultGmailPort = 3336
	// standaloneTTL is how long a standalone twin's sandbox lives; the
	// original's token is good for a day as well. `new-seed` starts over.
	standaloneTTL = 24 * time.Hour
)

func (a *App) newTwinCmd() *cobra.Command {
	return groupCmd("twin", "Run one twin on its own port, at the original Pome's local layout (offline)",
		a.newTwinStartCmd(), a.newTwinStatusCmd(), a.newTwinNewSeedCmd())
}

func (a *App) newTwinStartCmd() *cobra.Command {
	var (
		port     int
		seedPath string
	)
	cmd := &cobra.Command{
		Use:   "start NAME",
		Short: "Serve one twin in the foreground at http://127.0.0.1:PORT/s/<sid>/… (Ctrl-C stops it)",
		Long: "Serves one twin, in memory, in the foreground, for agents written against the\n" +
			"original Pome's local layout: the twin's API at http://127.0.0.1:PORT/s/<sid>/…,\n" +
			"its MCP server at /s/<sid>/mcp, /healthz without a token. It needs no account,\n" +
			"no key and no other server. It prints POME_<TWIN>_REST_URL, POME_<TWIN>_MCP_URL,\n" +
			"POME_AUTH_TOKEN and POME_<TWIN>_TOKEN once, and writes them to\n" +
			".pome/twin-status.json and .pome/twins/<name>.json (mode 0600) in the current\n" +
			"folder, where `pome twin status` and `pome twin new-seed` find them.\n\n" +
			"POME_AUTH_TOKEN opens the twin's API, MCP and its _pome reads (tape, state);\n" +
			"POME_<TWIN>_TOKEN is the vendor-shaped token (ghp_…, xoxb-…, sk_test_…,\n" +
			"ya29.…) an SDK sends. The twin is backed by the same code as `pome serve`,\n" +
			"so the server's other routes (/<twin>/s/<sid>/…, the SDK root mounts) answer\n" +
			"here too. The sandbox lives 24 hours; `pome twin new-seed` starts a new one.\n\n" +
			"--port defaults to $PORT, else 3333 (3336 for gmail, as in the original).\n" +
			"--seed is the twin's seed (its own shape or the original's), flat or keyed by\n" +
			"twin name; without it the twin's default world is served.\n\n" +
			"Exit codes: 0 stopped by Ctrl-C, 2 the port is taken, 5 bad name, port or seed.",
		Args: cobra.ExactArgs(1),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			reg, err := registry()
			if err != nil {
				return err
			}
			name := args[0]
			if _, ok := reg.Get(name); !ok {
				return usageErrorf("unknown twin %q (available: %s)", name, strings.Join(reg.Names(), ", "))
			}
			if !cmd.Flags().Changed("port") {
				if port, err = defaultPort(name); err != nil {
					return err
				}
			}
			if port < 1 || port > 65535 {
				return usageErrorf("invalid --port %d: give a port from 1 to 65535", port)
			}
			var seed map[string]json.RawMessage
			if seedPath != "" {
				if seed, err = readTwinSeeds(reg, []string{name}, seedPath, a.Stdin); err != nil {
					return err
				}
			}
			return a.serveTwin(cmd.Context(), reg, name, port, seed, seedPath)
		}),
	}
	cmd.Flags().IntVar(&port, "port", defaultTwinPort, "port on 127.0.0.1 (default $PORT, else 3333; 3336 for gmail)")
	cmd.Flags().StringVar(&seedPath, "seed", "", "JSON seed file (- reads standard input); default: the twin's default world")
	return cmd
}

// defaultPort is the original's: $PORT, else the twin's own default.
func defaultPort(twin string) (int, error) {
	if v := strings.TrimSpace(os.Getenv("PORT")); v != "" {
		p, err := strconv.Atoi(v)
		if err != nil {
			return 0, usageErrorf("PORT=%q is not a port number", v)
		}
		return p, nil
	}
	if twin == "gmail" {
		return defaultGmailPort, nil
	}
	return defaultTwinPort, nil
}

// readTwinSeeds reads a seed file for the named twins: a flat seed for one
// twin, or an envelope keyed by twin name. Each named twin gets its
// document (absent: its default world) and the clock, if any.
func readTwinSeeds(reg *twins.Registry, names []string, path string, stdin io.Reader) (map[string]json.RawMessage, error) {
	doc, err := readSeed(path, stdin)
	if err != nil {
		return nil, err
	}
	seeds, _, serr := task.SplitSeed(reg, names, doc)
	if serr != nil {
		return nil, &ExitError{Code: ExitUsage, Err: fmt.Errorf("seed %s: %s", path, serr.Msg), Fix: serr.Hint}
	}
	return seeds, nil
}

// seedFor is one twin's part of a seed envelope (with the clock).
func seedFor(seeds map[string]json.RawMessage, twin string) map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	for _, k := range []string{twin, "clock"} {
		if v, ok := seeds[k]; ok {
			out[k] = v
		}
	}
	return out
}

func newSecret() string {
	var b [24]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// serveTwin runs the standalone twin until ctx is done.
func (a *App) serveTwin(ctx context.Context, reg *twins.Registry, name string, port int, seed map[string]json.RawMessage, seedPath string) error {
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return &ExitError{Code: ExitOrchestration, Err: fmt.Errorf("listen on %s: %w", addr, err),
			Fix: fmt.Sprintf("another program holds port %d: pick another with --port, or see `pome twin status`", port)}
	}
	defer ln.Close()
	key := session.NewAPIKey()
	teams, err := session.NewTeams(map[string][]string{"local": {key}})
	if err != nil {
		return err
	}
	store := session.NewMemoryStore(nil, 0)
	defer store.Close()
	server := "http://" + addr
	srv := rest.NewServer(rest.Config{Addr: addr, PublicURL: server, TTL: standaloneTTL}, reg, store, teams)
	statusDir, err := filepath.Abs(twinStatusDir)
	if err != nil {
		return err
	}
	h := &twinHost{twin: name, srv: srv, team: "local", server: server, seed: seed, seedName: seedPath,
		statusDir: statusDir, adminToken: newSecret(), started: time.Now().UTC()}
	st, err := h.create(ctx, seed, seedPath)
	if err != nil {
		var se *session.Error
		if errors.As(err, &se) && se.Type == session.ErrValidationFailed {
			return &ExitError{Code: ExitUsage, Err: fmt.Errorf("seed %s: %s", seedPath, se.Message)}
		}
		return err
	}
	if err := h.writeStatus(st); err != nil {
		return err
	}
	defer h.removeStatus()

	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()

	fmt.Fprintf(a.Stdout, "Pome %s twin listening at %s\n", name, st.RESTURL)
	a.printTwinEnv(st)
	fmt.Fprintf(a.Stdout, "Health check (no auth): curl %s\n", st.HealthURL)
	fmt.Fprintf(a.Stdout, "Status: %s (`pome twin status`; `pome twin new-seed %s` starts over)\n", filepath.Join(twinStatusDir, twinStatusFile), name)
	fmt.Fprintln(a.Stdout, "Ctrl-C to stop.")

	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(shut); err != nil {
		hs.Close()
	}
	fmt.Fprintf(a.Stderr, "pome: the %s twin stopped\n", name)
	return nil
}

// printTwinEnv prints a standalone twin's environment lines, the original's
// names, ready for `export`.
func (a *App) printTwinEnv(st twinStatus) {
	prefix := envName(st.Name)
	fmt.Fprintf(a.Stdout, "%s_REST_URL=%s\n%s_MCP_URL=%s\nPOME_AUTH_TOKEN=%s\n%s=%s\n",
		prefix, st.RESTURL, prefix, st.MCPURL, st.AuthToken, st.TokenEnv, st.Token)
}

// twinStatusView is a status as `twin status --json` shows it: without
// the admin token, with whether the twin answers.
type twinStatusView struct {
	twinStatus
	AdminToken string `json:"admin_token,omitempty"`
	Running    bool   `json:"running"`
	Problem    string `json:"problem,omitempty"`
}

func (a *App) newTwinStatusCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show the standalone twins started from this folder and whether they answer",
		Long: "Reads .pome/twins/*.json (written by `pome twin start`) and asks each twin\n" +
			"whether it is still the one the file describes. Tokens are shown only with\n" +
			"--json.\n\nExit codes: 0 at least one twin answers, 1 none does (or none was started\n" +
			"here).",
		Args: cobra.NoArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			files, _ := filepath.Glob(filepath.Join(twinStatusDir, "twins", "*.json"))
			sort.Strings(files)
			views := []twinStatusView{}
			for _, f := range files {
				st, err := readTwinStatus(f)
				v := twinStatusView{twinStatus: st}
				if err != nil {
					v.Name, v.Problem = strings.TrimSuffix(filepath.Base(f), ".json"), err.Error()
				} else if live, err := probeTwin(cmd.Context(), a.httpClient(), st); err != nil {
					v.Problem = "not running: " + err.Error()
				} else if live.SessionID != st.SessionID {
					v.Problem = "the status file is out of date: the twin now serves " + live.SessionID
				} else {
					v.Running = true
				}
				views = append(views, v)
			}
			running := 0
			for _, v := range views {
				if v.Running {
					running++
				}
			}
			if asJSON {
				data, _ := json.Marshal(views)
				if err := printJSON(a.Stdout, data); err != nil {
					return err
				}
			} else if len(views) == 0 {
				fmt.Fprintln(a.Stdout, "No standalone twin status found.")
			} else {
				tw := newTable(a.Stdout)
				row(tw, "TWIN", "STATE", "REST URL", "MCP URL", "SEED", "SEEDED")
				for _, v := range views {
					state := "running"
					if !v.Running {
						state = "stopped"
					}
					seeded := "-"
					if !v.SeededAt.IsZero() {
						seeded = v.SeededAt.Local().Format(time.DateTime)
					}
					row(tw, v.Name, state, orDash(v.RESTURL), orDash(v.MCPURL), orDash(v.Seed), seeded)
				}
				tw.Flush()
				for _, v := range views {
					if v.Problem != "" {
						fmt.Fprintf(a.Stdout, "%s: %s\n", v.Name, v.Problem)
					}
				}
			}
			if running == 0 {
				return &verdictError{ExitFail, "no standalone twin is running here (start one with `pome twin start NAME`)"}
			}
			return nil
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the statuses as JSON, tokens included")
	return cmd
}

func (a *App) newTwinNewSeedCmd() *cobra.Command {
	var (
		seedPath string
		asJSON   bool
	)
	cmd := &cobra.Command{
		Use:   "new-seed NAME…",
		Short: "Start the running standalone twins over: a new sandbox from their seed, or from --seed",
		Long: "Starts each named standalone twin (`pome twin start`, from this folder) over\n" +
			"with a fresh sandbox: from the seed it was started with, or from --seed FILE\n" +
			"(flat for one twin, keyed by twin name for several; a twin the envelope does\n" +
			"not name gets its default world). A new sandbox has a new id and new tokens:\n" +
			"the new environment lines are printed, and the status files rewritten. The old\n" +
			"sandbox, its state and its tape are discarded. A seed the twin refuses leaves\n" +
			"the running sandbox as it was.\n\n" +
			"Exit codes: 0 done, 2 a twin does not answer, 5 not started here, or a bad seed.",
		Args: cobra.MinimumNArgs(1),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			reg, err := registry()
			if err != nil {
				return err
			}
			statuses := make([]twinStatus, len(args))
			seen := map[string]bool{}
			for i, name := range args {
				if _, ok := reg.Get(name); !ok {
					return usageErrorf("unknown twin %q (available: %s)", name, strings.Join(reg.Names(), ", "))
				}
				if seen[name] {
					return usageErrorf("twin %q is named twice", name)
				}
				seen[name] = true
				st, err := readTwinStatus(filepath.Join(twinStatusDir, "twins", name+".json"))
				if errors.Is(err, os.ErrNotExist) {
					return &ExitError{Code: ExitUsage, Err: fmt.Errorf("no standalone %s twin was started in this folder", name),
						Fix: "start one with `pome twin start " + name + "` (new-seed reads .pome/twins/" + name + ".json)"}
				}
				if err != nil {
					return usageErrorf("%v", err)
				}
				statuses[i] = st
			}
			var seeds map[string]json.RawMessage
			if seedPath != "" {
				if seeds, err = readTwinSeeds(reg, args, seedPath, a.Stdin); err != nil {
					return err
				}
			}
			var out []twinStatus
			for i, st := range statuses {
				body := map[string]any{}
				if seedPath != "" {
					body["seed"], body["seed_name"] = seedFor(seeds, st.Name), seedPath
				}
				fresh, err := a.reseed(cmd.Context(), st, body)
				if err != nil {
					return err
				}
				out = append(out, fresh)
				if asJSON {
					continue
				}
				if i > 0 {
					fmt.Fprintln(a.Stdout)
				}
				from := "its start seed"
				if fresh.Seed != "" {
					from = fresh.Seed
				}
				if seedPath == "" && fresh.Seed == "" {
					from = "its default world"
				}
				fmt.Fprintf(a.Stdout, "Pome %s twin started over from %s at %s\n", st.Name, from, fresh.RESTURL)
				a.printTwinEnv(fresh)
			}
			if asJSON {
				data, _ := json.Marshal(out)
				return printJSON(a.Stdout, data)
			}
			return nil
		}),
	}
	cmd.Flags().StringVar(&seedPath, "seed", "", "JSON seed file (- reads standard input); default: the seed each twin was started with")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the new statuses as JSON")
	return cmd
}

// reseed asks a standalone twin for a new sandbox.
func (a *App) reseed(ctx context.Context, st twinStatus, body map[string]any) (twinStatus, error) {
	data, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, st.Server+adminNewSeedPath, bytes.NewReader(data))
	if err != nil {
		return st, usageErrorf("the status of the %s twin names no usable server: %v", st.Name, err)
	}
	req.Header.Set("Authorization", "Bearer "+st.AdminToken)
	req.Header.Set("Content-Type", "application/json")
	resp, err := a.httpClient().Do(req)
	if err != nil {
		return st, &ExitError{Code: ExitOrchestration, Err: fmt.Errorf("the %s twin at %s does not answer: %w", st.Name, st.Server, err),
			Fix: "it is not running any more: start it again with `pome twin start " + st.Name + "`"}
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	var fresh twinStatus
	switch {
	case resp.StatusCode == http.StatusOK && json.Unmarshal(raw, &fresh) == nil && fresh.SessionID != "":
		return fresh, nil
	case resp.StatusCode == http.StatusUnprocessableEntity:
		var e struct {
			Message string         `json:"message"`
			Details map[string]any `json:"details"`
		}
		json.Unmarshal(raw, &e)
		msg := strings.TrimPrefix(e.Message, string(session.ErrValidationFailed)+": ")
		if f, ok := e.Details["field"].(string); ok && f != "" {
			msg += " (at " + f + ")"
		}
		return st, usageErrorf("the %s twin refused the seed: %s", st.Name, msg)
	case resp.StatusCode == http.StatusNotFound:
		return st, &ExitError{Code: ExitOrchestration, Err: fmt.Errorf("%s is not the %s twin this folder started (it answered 404)", st.Server, st.Name),
			Fix: "start it again with `pome twin start " + st.Name + "`"}
	}
	return st, &ExitError{Code: ExitOrchestration, Err: fmt.Errorf("the %s twin answered %d: %s", st.Name, resp.StatusCode, strings.TrimSpace(string(raw)))}
}

// httpClient is the client for local calls (standalone twins).
func (a *App) httpClient() *http.Client {
	if a.HTTPClient != nil {
		return a.HTTPClient
	}
	return http.DefaultClient
}
