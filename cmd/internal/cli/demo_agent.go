package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

// The demo agent is a hidden subcommand of this binary rather than a
// shell script: it needs no curl or sh features of its own, works wherever
// the binary does, and runs through the same runner path (a child process
// with the task's environment, its preflight, its output captured) as the
// user's own agent would.
func (a *App) newDemoAgentCmd() *cobra.Command {
	return &cobra.Command{
		Use:    "demo-agent",
		Short:  "The scripted agent `pome demo` runs (reads the agent environment of `pome run`)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: runE(func(cmd *cobra.Command, _ []string) error {
			if err := runDemoAgent(cmd.Context(), os.Getenv, a.Stdout, http.DefaultClient); err != nil {
				return &ExitError{Code: ExitFail, Err: err}
			}
			return nil
		}),
	}
}

// demoStep is one call of the scripted agent.
type demoStep struct {
	what, method, url, token string
	body                     any
}

// runDemoAgent carries out the bundled demo task with plain HTTP calls, as
// an agent would after reading the prompt: GitHub's REST API for the issue,
// Slack's Web API for the notice.
func runDemoAgent(ctx context.Context, getenv func(string) string, out io.Writer, client *http.Client) error {
	need := []string{"POME_GITHUB_REST_URL", "POME_GITHUB_TOKEN", "POME_SLACK_REST_URL", "POME_SLACK_TOKEN"}
	var missing []string
	for _, k := range need {
		if getenv(k) == "" {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("the agent environment lacks %s: run me through `pome demo` or `pome run`", strings.Join(missing, ", "))
	}
	gh, ghTok := strings.TrimRight(getenv("POME_GITHUB_REST_URL"), "/"), getenv("POME_GITHUB_TOKEN")
	sl, slTok := strings.TrimRight(getenv("POME_SLACK_REST_URL"), "/"), getenv("POME_SLACK_TOKEN")
	issue := gh + "/repos/acme/api/issues/1"

	var found struct {
		Title string `json:"title"`
	}
	if err := demoCall(ctx, client, demoStep{"read acme/api#1", http.MethodGet, issue, ghTok, nil}, &found); err != nil {
		return err
	}
	if getenv("POME_PREFLIGHT") != "" {
		fmt.Fprintln(out, "preflight: the GitHub twin answers")
		return nil
	}
	fmt.Fprintf(out, "read acme/api#1: %q\n", found.Title)
	notice := fmt.Sprintf("On-call: alice has acme/api#1 (%s); it is labelled bug and assigned to her.", found.Title)
	for _, s := range []demoStep{
		{"label it bug", http.MethodPost, issue + "/labels", ghTok, map[string]any{"labels": []string{"bug"}}},
		{"assign alice", http.MethodPost, issue + "/assignees", ghTok, map[string]any{"assignees": []string{"alice"}}},
		{"comment", http.MethodPost, issue + "/comments", ghTok, map[string]any{"body": "Handed to on-call: alice has this one."}},
		{"tell #general", http.MethodPost, sl + "/api/chat.postMessage", slTok, map[string]any{"channel": "general", "text": notice}},
	} {
		var raw json.RawMessage
		if err := demoCall(ctx, client, s, &raw); err != nil {
			return err
		}
		// Slack answers its errors with 200 and ok:false.
		var res struct {
			OK    *bool  `json:"ok"`
			Error string `json:"error"`
		}
		if json.Unmarshal(raw, &res) == nil && res.OK != nil && !*res.OK {
			return fmt.Errorf("%s: Slack answered ok:false (%s)", s.what, res.Error)
		}
		fmt.Fprintf(out, "%s: done\n", s.what)
	}
	fmt.Fprintf(out, "Told #general: %s\n", notice)
	return nil
}

func demoCall(ctx context.Context, client *http.Client, s demoStep, out any) error {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	var body io.Reader
	if s.body != nil {
		data, _ := json.Marshal(s.body)
		body = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, s.method, s.url, body)
	if err != nil {
		return fmt.Errorf("%s: %w", s.what, err)
	}
	req.Header.Set("Authorization", "Bearer "+s.token)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("%s: %w", s.what, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s: %s %s answered %d: %s", s.what, s.method, s.url, resp.StatusCode, cut(strings.TrimSpace(string(raw)), 300))
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("%s: the answer is not JSON: %w", s.what, err)
	}
	return nil
}
