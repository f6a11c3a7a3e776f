package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/pomehq/pome/task"
)

func (a *App) newSandboxCreateCmd() *cobra.Command {
	var (
		twins       []string
		seedPath    string
		ttl         time.Duration
		secretsPath string
		asJSON      bool
	)
	cmd := &cobra.Command{
		Use:   "create --twin T [--twin T2 …]",
		Short: "Create a sandbox and make it the default for tape and state",
		Long: "Create a sandbox running the given twins and print their addresses.\n\n" +
			"Tokens are not printed unless --json is given; --secrets-file writes them\n" +
			"as shell `export` lines (mode 0600) to load with `. FILE`. The new sandbox\n" +
			"becomes the default `session` in the config file.",
		Args: cobra.NoArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			req, err := createRequest(twins, seedPath, ttl, cmd.Flags().Changed("ttl"), a.Stdin)
			if err != nil {
				return err
			}
			c, err := a.client()
			if err != nil {
				return err
			}
			// Open the secrets file before creating anything, so that a bad
			// path fails without leaving a sandbox behind; the old file is
			// replaced only once the new content is known.
			var pending *pendingFile
			if secretsPath != "" {
				if pending, err = createPending(secretsPath, 0o600, false); err != nil {
					return usageErrorf("secrets file: %v", err)
				}
				defer func() {
					if pending != nil {
						pending.Abort()
					}
				}()
			}
			sb, err := c.CreateSandbox(cmd.Context(), req)
			if err != nil {
				return err
			}
			order := twinOrder(req.Twins, sb)
			if pending != nil {
				err := pending.Commit(secretsEnv(sb, order, serverRoot(sb, c.BaseURL)))
				pending = nil
				if err != nil {
					return &ExitError{Code: ExitOrchestration,
						Err: fmt.Errorf("sandbox %s was created, but writing %s failed: %w", sb.SessionID, secretsPath, err),
						Fix: "rerun with --json to see its tokens, or stop it with `pome sandbox stop " + sb.SessionID + "`"}
				}
			}

			if asJSON {
				if err := printJSON(a.Stdout, sb.Raw); err != nil {
					return err
				}
			} else {
				if err := printCreated(a.Stdout, sb, order, time.Now()); err != nil {
					return err
				}
				if secretsPath != "" {
					fmt.Fprintf(a.Stderr, "Tokens written to %s; load them with `. %s`.\n", secretsPath, shellQuote(secretsPath))
				} else {
					fmt.Fprintln(a.Stderr, "Tokens are not shown; pass --secrets-file FILE or --json to get them.")
				}
			}
			// Remembering the sandbox is a convenience: failing to do so
			// must not turn a created sandbox into a failed command.
			if err := writeConfigKeys(a.configPath, kv{keySession, sb.SessionID}); err != nil {
				fmt.Fprintf(a.Stderr, "warning: could not record %s as the default sandbox: %v\n", sb.SessionID, err)
			} else if !asJSON {
				fmt.Fprintf(a.Stderr, "%s is now the default sandbox for `pome tape` and `pome state`.\n", sb.SessionID)
			}
			return nil
		}),
	}
	f := cmd.Flags()
	f.StringSliceVar(&twins, "twin", nil, "twin to run: github, slack, stripe, gmail or linear (repeat or comma-separate; 1–3)")
	f.StringVar(&seedPath, "seed", "", "JSON file with the initial state: keyed by twin, or one twin's seed as it is (- reads standard input)")
	f.DurationVar(&ttl, "ttl", 0, "sandbox lifetime, e.g. 30m (default: the server's)")
	f.StringVar(&secretsPath, "secrets-file", "", "write the tokens and URLs as shell export lines to this file (mode 0600)")
	f.BoolVar(&asJSON, "json", false, "print the server's JSON, tokens included")
	return cmd
}

// createRequest validates the flags of `sandbox create` locally, so that a
// typo in a seed file is reported with its position and costs no sandbox.
func createRequest(twins []string, seedPath string, ttl time.Duration, ttlSet bool, stdin io.Reader) (CreateSandboxRequest, error) {
	var req CreateSandboxRequest
	for _, t := range twins {
		if t = strings.ToLower(strings.TrimSpace(t)); t != "" {
			req.Twins = append(req.Twins, t)
		}
	}
	if len(req.Twins) == 0 {
		return req, usageErrorf("at least one --twin is required (github, slack, stripe, gmail, linear)")
	}
	if ttlSet {
		if ttl <= 0 || ttl%time.Second != 0 {
			return req, usageErrorf("--ttl must be a positive whole number of seconds, such as 30m or 90s; got %s", ttl)
		}
		req.TTLSeconds = int64(ttl / time.Second)
	}
	if seedPath != "" {
		seed, err := readSeed(seedPath, stdin)
		if err != nil {
			return req, err
		}
		// The original Pome's seed files load as they are: a one-twin
		// seed may be flat, and a compiled sidecar's _meta is dropped.
		seeds, _, serr := task.SplitSeed(taskRegistry(), req.Twins, seed)
		if serr != nil {
			return req, &ExitError{Code: ExitUsage, Err: fmt.Errorf("seed %s: %s", seedPath, serr.Msg), Fix: serr.Hint}
		}
		if len(seeds) > 0 {
			if req.Seed, err = json.Marshal(seeds); err != nil {
				return req, err
			}
		}
	}
	return req, nil
}

// readSeed reads and checks a seed file: valid JSON, and an object (an
// envelope keyed by twin name, or one twin's seed as it is).
func readSeed(path string, stdin io.Reader) (json.RawMessage, error) {
	var data []byte
	var err error
	if path == "-" && stdin != nil {
		data, err = io.ReadAll(stdin)
	} else {
		data, err = os.ReadFile(path)
	}
	if err != nil {
		return nil, usageErrorf("seed: %v", err)
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line, col := position(data, se.Offset)
			return nil, usageErrorf("seed %s:%d:%d: invalid JSON: %v", path, line, col, err)
		}
		return nil, usageErrorf("seed %s: invalid JSON: %v", path, err)
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, usageErrorf("seed %s: want a JSON object: keyed by twin name, e.g. {\"github\": {…}}, or one twin's seed", path)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, data); err != nil {
		return nil, usageErrorf("seed %s: %v", path, err)
	}
	return buf.Bytes(), nil
}

// position turns a byte offset into a 1-based line and column.
func position(data []byte, offset int64) (line, col int) {
	if offset > int64(len(data)) {
		offset = int64(len(data))
	}
	before := data[:offset]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(offset) - bytes.LastIndexByte(before, '\n')
	return line, col
}

// twinOrder lists the sandbox's twins in the order they were asked for,
// then any others the server reports, so that output is stable.
func twinOrder(asked []string, sb *CreatedSandbox) []string {
	seen := map[string]bool{}
	var order []string
	for _, t := range asked {
		if _, ok := sb.PerTwin[t]; ok && !seen[t] {
			order = append(order, t)
			seen[t] = true
		}
	}
	var rest []string
	for t := range sb.PerTwin {
		if !seen[t] {
			rest = append(rest, t)
		}
	}
	sort.Strings(rest)
	return append(order, rest...)
}

// printCreated is the human answer of `sandbox create`: never a token.
func printCreated(w io.Writer, sb *CreatedSandbox, order []string, now time.Time) error {
	exp := sb.ExpiresAt
	if rel := relative(sb.ExpiresAt, now); rel != "" {
		exp += " (" + rel + ")"
	}
	fmt.Fprintf(w, "Sandbox %s is ready; it expires at %s.\n\n", sb.SessionID, exp)
	t := newTable(w)
	row(t, "TWIN", "API URL", "MCP URL")
	for _, name := range order {
		e := sb.PerTwin[name]
		row(t, name, orDash(e.APIURL), orDash(e.MCPURL))
	}
	if err := t.Flush(); err != nil {
		return err
	}
	if host := githubHost(sb); host != "" {
		_, err := fmt.Fprintf(w, "\ngithub-mcp-server and other GitHub Enterprise clients: GITHUB_HOST=%s\n"+
			"with the sandbox's GitHub token (POME_GITHUB_TOKEN in the secrets file), which picks the sandbox.\n", host)
		return err
	}
	return nil
}

// githubHost is the GITHUB_HOST value that GitHub Enterprise clients
// (github-mcp-server, go-github's WithEnterpriseURLs) need for the sandbox:
// the server root, where /api/v3, /api/graphql and /api/uploads are served
// and the ghp_ token names the sandbox. It is the GitHub API URL without its
// /github/s/{sid} path; "" when the sandbox has no GitHub twin.
func githubHost(sb *CreatedSandbox) string {
	e, ok := sb.PerTwin["github"]
	if !ok {
		return ""
	}
	host, found := strings.CutSuffix(strings.TrimSuffix(e.APIURL, "/"), "/github/s/"+sb.SessionID)
	if !found {
		return ""
	}
	return host
}

// secretsEnv renders the sandbox as `export` lines for sh (SPEC §8), with
// the original Pome's names beside ours: POME_TWIN_URL (and the runner's
// POME_TWIN_BASE_URL) for the first twin's address, and what the vendors'
// SDKs take at the server root.
func secretsEnv(sb *CreatedSandbox, order []string, root string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Pome sandbox %s (expires %s). Load with: . FILE\n", sb.SessionID, sb.ExpiresAt)
	export := func(name, value string) {
		fmt.Fprintf(&b, "export %s=%s\n", name, shellQuote(value))
	}
	export("POME_SESSION_ID", sb.SessionID)
	export("POME_AUTH_TOKEN", sb.AuthToken)
	export("POME_AGENT_TOKEN", sb.AgentToken)
	export("POME_EXPIRES_AT", sb.ExpiresAt)
	export("POME_TWIN_NAMES", strings.Join(order, ","))
	for _, name := range order {
		env := "POME_" + twinEnvName(name)
		export(env+"_REST_URL", sb.PerTwin[name].APIURL)
		export(env+"_MCP_URL", sb.PerTwin[name].MCPURL)
		export(env+"_TOKEN", sb.ProviderCredentials[name].Token)
		if u := sb.ProviderCredentials[name].UserToken; u != "" {
			export(env+"_USER_TOKEN", u)
		}
	}
	if len(order) > 0 {
		export("POME_TWIN_URL", sb.PerTwin[order[0]].APIURL)
		export("POME_TWIN_BASE_URL", sb.PerTwin[order[0]].APIURL)
	}
	for _, kv := range task.SDKEnv(order, root, func(twin string) string { return sb.ProviderCredentials[twin].Token }) {
		k, v, _ := strings.Cut(kv, "=")
		export(k, v)
	}
	return b.Bytes()
}

// twinEnvName upper-cases a twin name and replaces anything a shell
// variable name cannot hold.
func twinEnvName(twin string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z':
			return r - 'a' + 'A'
		case r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			return r
		}
		return '_'
	}, twin)
}

// shellQuote single-quotes s for sh. Inside single quotes nothing is
// special but the quote itself, which is written as quote, backslash-quote,
// quote: close, a literal quote, reopen.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
