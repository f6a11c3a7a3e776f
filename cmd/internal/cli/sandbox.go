package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

func (a *App) newSandboxCmd() *cobra.Command {
	return groupCmd("sandbox", "Create, list, inspect and stop sandboxes",
		a.newSandboxCreateCmd(),
		a.newSandboxListCmd(),
		a.newSandboxGetCmd(),
		a.newSandboxStopCmd(),
	)
}

func (a *App) newSandboxListCmd() *cobra.Command {
	var state string
	var limit int
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the team's sandboxes, newest first",
		Args:  cobra.NoArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			if limit < 0 {
				return usageErrorf("--limit must not be negative")
			}
			serverState, ok := listStates[state]
			if !ok {
				return usageErrorf("unknown --state %q: give running, ready, done, stopped, expired or all", state)
			}
			c, err := a.client()
			if err != nil {
				return err
			}
			list, err := c.ListSandboxes(cmd.Context(), serverState, limit)
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(a.Stdout, list.Raw)
			}
			if len(list.Data) == 0 {
				fmt.Fprintln(a.Stderr, "No sandboxes.")
				return nil
			}
			now := time.Now()
			t := newTable(a.Stdout)
			row(t, "ID", "STATE", "TWINS", "CREATED", "EXPIRES")
			for _, s := range list.Data {
				row(t, s.ID, s.State, strings.Join(s.Twins, ","), s.CreatedAt, expiry(s, now))
			}
			if err := t.Flush(); err != nil {
				return err
			}
			if list.HasMore {
				fmt.Fprintln(a.Stderr, "More sandboxes exist; raise --limit to see them.")
			}
			return nil
		}),
	}
	cmd.Flags().StringVar(&state, "state", "all", "only sandboxes in this state: running (ready), done (stopped), expired, or all")
	cmd.Flags().IntVar(&limit, "limit", 0, "at most this many sandboxes (default: the server's page size)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the server's JSON")
	return cmd
}

// listStates maps --state to the server's filter: the original Pome's
// names (running, done, all) beside the server's own (ready, stopped).
// running is ready here: a sandbox serves from the moment it exists.
var listStates = map[string]string{"": "", "all": "", "running": "ready", "ready": "ready", "done": "stopped", "stopped": "stopped", "expired": "expired"}

// expiry shows when a ready sandbox ends; other states have already ended.
func expiry(s Sandbox, now time.Time) string {
	if s.State != "ready" {
		return orDash(s.ExpiresAt)
	}
	if rel := relative(s.ExpiresAt, now); rel != "" {
		return s.ExpiresAt + " (" + rel + ")"
	}
	return orDash(s.ExpiresAt)
}

func (a *App) newSandboxGetCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "get [SID]",
		Short: "Show one sandbox (default: the last one created)",
		Args:  cobra.MaximumNArgs(1),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			sid, err := a.sessionArg(args)
			if err != nil {
				return err
			}
			c, err := a.client()
			if err != nil {
				return err
			}
			s, err := c.GetSandbox(cmd.Context(), sid)
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(a.Stdout, s.Raw)
			}
			t := newTable(a.Stdout)
			row(t, "id:", s.ID)
			row(t, "state:", s.State)
			row(t, "twins:", strings.Join(s.Twins, ", "))
			row(t, "created:", s.CreatedAt)
			row(t, "expires:", expiry(*s, time.Now()))
			if s.StoppedAt != "" {
				row(t, "stopped:", s.StoppedAt)
			}
			return t.Flush()
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the server's JSON")
	addSessionFlag(cmd)
	return cmd
}

// sessionArg takes the sandbox id from the command line, else from the
// configured default.
func (a *App) sessionArg(args []string) (string, error) {
	if len(args) > 0 && strings.TrimSpace(args[0]) != "" {
		return strings.TrimSpace(args[0]), nil
	}
	return a.session()
}

func (a *App) newSandboxStopCmd() *cobra.Command {
	var discard bool
	cmd := &cobra.Command{
		Use:   "stop SID",
		Short: "Stop a sandbox; its state and tapes stay readable unless --discard",
		// Stopping is explicit about its target: no default sandbox here.
		Args: cobra.ExactArgs(1),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			c, err := a.client()
			if err != nil {
				return err
			}
			sid := strings.TrimSpace(args[0])
			if err := c.StopSandbox(cmd.Context(), sid, discard); err != nil {
				return err
			}
			if discard {
				fmt.Fprintf(a.Stdout, "Stopped %s and discarded its state and tapes.\n", sid)
			} else {
				fmt.Fprintf(a.Stdout, "Stopped %s; its state and tapes stay readable until the retention period ends.\n", sid)
			}
			return nil
		}),
	}
	cmd.Flags().BoolVar(&discard, "discard", false, "delete state and tapes now")
	return cmd
}
