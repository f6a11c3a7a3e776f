package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
)

// client builds the control-plane client from the resolved configuration.
// A missing API key fails here, before any request, because the server's
// 401 would not say which of flag, env and config file to fix.
func (a *App) client() (*Client, error) {
	server, err := normalizeServer(a.v.GetString(keyServer))
	if err != nil {
		return nil, err
	}
	key := strings.TrimSpace(a.v.GetString(keyAPIKey))
	if key == "" {
		return nil, &ExitError{
			Code: ExitAuth,
			Err:  fmt.Errorf("no API key configured for %s", server),
			Fix:  "run `pome login --server " + server + " --api-key pme_…`, set POME_API_KEY, or pass --api-key",
		}
	}
	return &Client{BaseURL: server, APIKey: key, HTTPClient: a.HTTPClient}, nil
}

// normalizeServer accepts "host:port" as a shorthand for http://host:port
// and rejects anything that is not an http(s) URL with a host.
func normalizeServer(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		s = defaultServer
	}
	if !strings.Contains(s, "://") {
		s = "http://" + s
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", usageErrorf("server %q is not an http(s) URL such as %s", s, defaultServer)
	}
	return strings.TrimRight(s, "/"), nil
}

// session resolves the sandbox a command reads: --session, POME_SESSION_ID,
// then the config file's `session` (set by `pome sandbox create`).
func (a *App) session() (string, error) {
	sid := strings.TrimSpace(a.v.GetString(keySession))
	if sid == "" {
		return "", &ExitError{
			Code: ExitUsage,
			Err:  errors.New("no sandbox selected"),
			Fix:  "pass --session SID, set POME_SESSION_ID, or run `pome sandbox create --twin …` (the new sandbox becomes the default)",
		}
	}
	return sid, nil
}

// addSessionFlag declares --session, bound to the `session` config key.
func addSessionFlag(cmd *cobra.Command) {
	cmd.Flags().String("session", "", "sandbox id (env POME_SESSION_ID; default: the last sandbox created)")
	bindKey(cmd.Flags(), "session", keySession)
}

// printJSON pretty-prints raw JSON from the server.
func printJSON(w io.Writer, raw []byte) error {
	var buf bytes.Buffer
	if err := json.Indent(&buf, bytes.TrimSpace(raw), "", "  "); err != nil {
		return fmt.Errorf("server sent invalid JSON: %w", err)
	}
	buf.WriteByte('\n')
	_, err := w.Write(buf.Bytes())
	return err
}

// newTable aligns columns separated by tabs; Flush writes them.
func newTable(w io.Writer) *tabwriter.Writer {
	return tabwriter.NewWriter(&trimWriter{w: w}, 0, 0, 2, ' ', 0)
}

// trimWriter drops the spaces tabwriter pads an empty last column with, so
// that lines do not end in whitespace. tabwriter writes a line in pieces, so
// a partial line is held until its newline arrives; every table row ends in
// one.
type trimWriter struct {
	w    io.Writer
	line []byte
}

func (t *trimWriter) Write(p []byte) (int, error) {
	t.line = append(t.line, p...)
	i := bytes.LastIndexByte(t.line, '\n')
	if i < 0 {
		return len(p), nil
	}
	var out bytes.Buffer
	for _, l := range bytes.SplitAfter(t.line[:i+1], []byte("\n")) {
		if body, ok := bytes.CutSuffix(l, []byte("\n")); ok {
			out.Write(bytes.TrimRight(body, " "))
			out.WriteByte('\n')
		}
	}
	t.line = append(t.line[:0], t.line[i+1:]...)
	if _, err := t.w.Write(out.Bytes()); err != nil {
		return 0, err
	}
	return len(p), nil
}

// row writes one tab-separated table line.
func row(w io.Writer, cols ...any) {
	for i, c := range cols {
		if i > 0 {
			fmt.Fprint(w, "\t")
		}
		fmt.Fprint(w, c)
	}
	fmt.Fprintln(w)
}

// orDash shows an empty value as "-" so that columns stay aligned.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// relative renders an RFC 3339 time as "in 29m" / "3m ago", or "" when the
// server's timestamp does not parse.
func relative(ts string, now time.Time) string {
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return ""
	}
	d := t.Sub(now)
	past := d < 0
	if past {
		d = -d
	}
	var s string
	switch {
	case d < time.Minute:
		s = d.Round(time.Second).String()
	case d < time.Hour:
		s = fmt.Sprintf("%dm", int(d.Round(time.Minute)/time.Minute))
	default:
		s = strings.TrimSuffix(d.Round(time.Minute).String(), "0s")
	}
	if past {
		return s + " ago"
	}
	return "in " + s
}
