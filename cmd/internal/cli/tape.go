package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

func (a *App) newTapeCmd() *cobra.Command {
	var follow, asJSON bool
	cmd := &cobra.Command{
		Use:   "tape TWIN",
		Short: "Show the calls a twin served, oldest first",
		Long: "Show a twin's tape: one line per call with its sequence number, time,\n" +
			"transport, method, path (below the sandbox's base), tool, status, and * when\n" +
			"the call changed the twin's state. --json prints JSON Lines, one row each.",
		Args: cobra.ExactArgs(1),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			twin := strings.ToLower(strings.TrimSpace(args[0]))
			sid, err := a.session()
			if err != nil {
				return err
			}
			c, err := a.client()
			if err != nil {
				return err
			}
			if follow {
				return a.followTape(cmd.Context(), c, sid, twin, asJSON)
			}
			t, err := c.Tape(cmd.Context(), sid, twin)
			if err != nil {
				return err
			}
			if asJSON {
				for _, r := range t.Rows {
					if err := writeJSONLine(a.Stdout, r); err != nil {
						return err
					}
				}
				return nil
			}
			if len(t.Rows) == 0 {
				fmt.Fprintf(a.Stderr, "The %s tape of %s is empty.\n", twin, sid)
				return nil
			}
			tw := newTable(a.Stdout)
			row(tw, tapeHeader...)
			for _, raw := range t.Rows {
				cols, err := tapeColumns(raw)
				if err != nil {
					return c.unexpected("tape row: %v", err)
				}
				row(tw, cols...)
			}
			return tw.Flush()
		}),
	}
	cmd.Flags().BoolVarP(&follow, "follow", "f", false, "keep printing new rows as they are recorded, until interrupted")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON Lines, one row per line")
	addSessionFlag(cmd)
	return cmd
}

// followTape prints rows as the server streams them. Being interrupted is
// how a follow normally ends, so it is not an error.
func (a *App) followTape(ctx context.Context, c *Client, sid, twin string, asJSON bool) error {
	if !asJSON {
		fmt.Fprintln(a.Stdout, formatFollowLine(tapeHeader))
	}
	err := c.FollowTape(ctx, sid, twin, func(raw json.RawMessage) error {
		if asJSON {
			return writeJSONLine(a.Stdout, raw)
		}
		cols, err := tapeColumns(raw)
		if err != nil {
			return c.unexpected("tape row: %v", err)
		}
		_, err = fmt.Fprintln(a.Stdout, formatFollowLine(cols))
		return err
	})
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		return nil
	}
	// The sandbox going away ends a follow the way an interrupt does: what
	// was printed is the whole tape.
	var end *StreamEnded
	if errors.As(err, &end) {
		fmt.Fprintf(a.Stderr, "%s.\n", end.Error())
		return nil
	}
	return err
}

var tapeHeader = []any{"SEQ", "TIME", "TRANSPORT", "METHOD", "PATH", "TOOL", "STATUS", ""}

// formatFollowLine lays a row out in fixed-width columns: a stream cannot be
// aligned after the fact the way a whole tape is.
func formatFollowLine(cols []any) string {
	s := fmt.Sprintf("%-5v  %-12v  %-9v  %-6v  %-44v  %-24v  %-6v  %v", cols...)
	return strings.TrimRight(s, " ")
}

// tapeRowView is the part of a tape row (SPEC §6) the human output shows.
// The CLI decodes its own view instead of the server's row type so that it
// stays tolerant of rows that gain fields and does not link server code.
type tapeRowView struct {
	Seq           int64   `json:"seq"`
	At            string  `json:"at"`
	SessionID     string  `json:"session_id"`
	Twin          string  `json:"twin"`
	Transport     string  `json:"transport"`
	Method        string  `json:"method"`
	Path          string  `json:"path"`
	Tool          *string `json:"tool"`
	Status        int     `json:"status"`
	StateMutation bool    `json:"state_mutation"`
}

// tapeColumns renders one row for the human output.
func tapeColumns(raw json.RawMessage) ([]any, error) {
	var r tapeRowView
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, err
	}
	at := r.At
	if t, err := time.Parse(time.RFC3339Nano, r.At); err == nil {
		at = t.Format("15:04:05.000")
	}
	tool := "-"
	if r.Tool != nil && *r.Tool != "" {
		tool = *r.Tool
	}
	mark := ""
	if r.StateMutation {
		mark = "*"
	}
	return []any{strconv.FormatInt(r.Seq, 10), orDash(at), orDash(r.Transport), orDash(r.Method),
		shortPath(r.Path, r.Twin, r.SessionID), tool, strconv.Itoa(r.Status), mark}, nil
}

// shortPath drops the sandbox's base, /{twin}/s/{sid}, which every row of a
// tape shares and which would push the interesting part off the screen.
func shortPath(path, twin, sid string) string {
	if twin != "" && sid != "" {
		prefix := "/" + twin + "/s/" + sid
		if rest, ok := strings.CutPrefix(path, prefix); ok && (rest == "" || rest[0] == '/' || rest[0] == '?') {
			if rest == "" || rest[0] == '?' {
				rest = "/" + rest
			}
			return rest
		}
	}
	return orDash(path)
}

// writeJSONLine writes raw JSON on one line.
func writeJSONLine(w io.Writer, raw json.RawMessage) error {
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return fmt.Errorf("server sent invalid JSON: %w", err)
	}
	buf.WriteByte('\n')
	_, err := w.Write(buf.Bytes())
	return err
}
