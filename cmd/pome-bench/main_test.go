package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/pomehq/pome/cmd/pome-bench/internal/load"
	"github.com/pomehq/pome/session"
)

// TestRunAgainstServer runs the whole command, briefly, against an
// in-process server: every scenario must count requests and no errors, and
// every sandbox it made must be gone afterwards.
func TestRunAgainstServer(t *testing.T) {
	store := session.NewMemoryStore(nil, 0)
	// The quota holds one create phase's sandboxes; the warm-up makes more
	// than twice that, discarding as it goes.
	url, key := startPome(t, store, 20)
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{
		"--server", url, "--api-key", key, "-c", "4", "-d", "200ms", "--warmup", "50ms",
		"--sandboxes", "6", "--create-count", "20", "--create-warmup", "45", "--json",
		// The server runs in this process, so its pid is ours.
		"--server-pid", strconv.Itoa(os.Getpid()), "--server-heap",
		// Any process will do as the store's; this one works hard enough.
		"--store-pid", strconv.Itoa(os.Getpid()),
	}, &out, &errOut)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, errOut.String(), out.String())
	}
	var rep load.Report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if rep.Baseline == nil || rep.Baseline.Requests == 0 || rep.BaselineEnd == nil || rep.BaselineEnd.Requests == 0 {
		t.Fatalf("baseline: %+v, at the end %+v", rep.Baseline, rep.BaselineEnd)
	}
	if rep.Baseline.ClientCPUUS <= 0 {
		t.Errorf("baseline: no client CPU per request: %+v", rep.Baseline)
	}
	// Ratios are to the mean of the two baselines.
	if r := rep.Baseline.Ratio + rep.BaselineEnd.Ratio; r < 1.999 || r > 2.001 {
		t.Errorf("baseline ratios %v and %v do not average to 1", rep.Baseline.Ratio, rep.BaselineEnd.Ratio)
	}
	seen := map[string]bool{}
	for _, s := range rep.Scenarios {
		seen[s.Name] = true
		if s.Name == load.NameGetIssue && (s.StoreCPUUS <= 0 || s.ClientCPUUS <= 0 || s.ServerCPUUS <= 0) {
			t.Errorf("%s: CPU per request not reported: client %v, server %v, store %v", s.Name, s.ClientCPUUS, s.ServerCPUUS, s.StoreCPUUS)
		}
		if s.Requests == 0 || s.Errors != 0 || s.Skipped != "" || s.Ratio <= 0 || s.P50US <= 0 || s.P99US < s.P50US {
			t.Errorf("%s: %+v", s.Name, s)
		}
	}
	for _, name := range load.AllScenarios[1:] {
		if !seen[name] {
			t.Errorf("scenario %s missing", name)
		}
	}
	if p := rep.Pool; p == nil || p.Items != 6 || p.RSSAfterKiB <= 0 || p.HeapAfter <= 0 {
		t.Errorf("pool memory: %+v", rep.Pool)
	}
	for _, n := range rep.Notes {
		// A drifting baseline is expected on a busy machine; anything
		// else is not.
		if !strings.Contains(n, "baseline moved") {
			t.Errorf("note: %s", n)
		}
	}
	// The create phase's warm-up made its sandboxes (and discarded them,
	// below) before the measured ones: the server counts both, and the pool.
	var created int
	for _, s := range rep.Scenarios {
		if s.Name == load.NameCreate {
			created = int(s.Requests)
		}
	}
	u, err := store.Usage(context.Background(), "bench")
	if err != nil {
		t.Fatal(err)
	}
	if want := created + 45 + 6; u.SandboxesCreated != want {
		t.Errorf("server created %d sandboxes, want %d: 45 warm-up (in batches of 20), %d measured, 6 in the pool", u.SandboxesCreated, want, created)
	}
	list, err := store.List(context.Background(), "bench")
	if err != nil {
		t.Fatal(err)
	}
	for _, sb := range list {
		if _, err := store.Get(context.Background(), sb.ID); err == nil {
			t.Errorf("sandbox %s left behind", sb.ID)
		}
	}
}

// TestMCPScenario2026: the MCP scenario speaks the 2026 protocol when asked,
// as Go SDK clients do, and the server answers every call.
func TestMCPScenario2026(t *testing.T) {
	url, key := startPome(t, session.NewMemoryStore(nil, 0), 0)
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{
		"--server", url, "--api-key", key, "-c", "2", "-d", "100ms", "--warmup", "0", "-q", "--json",
		"--sandboxes", "2", "--twins", "github", "--scenarios", "mcp_tools_call", "--baseline=false",
		"--mcp-version", "2026-07-28",
	}, &out, &errOut)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut.String())
	}
	var rep load.Report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if rep.MCPVersion != "2026-07-28" || len(rep.Scenarios) != 1 || rep.Scenarios[0].Requests == 0 || rep.Scenarios[0].Errors != 0 {
		t.Fatalf("%s", out.String())
	}
}

// TestScenarioWithoutTwinIsSkipped: a sandbox without Slack cannot post to
// it, and the report says so rather than counting errors.
func TestScenarioWithoutTwinIsSkipped(t *testing.T) {
	url, key := startPome(t, session.NewMemoryStore(nil, 0), 0)
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{
		"--server", url, "--api-key", key, "-c", "2", "-d", "50ms", "--warmup", "0", "-q",
		"--sandboxes", "2", "--twins", "github", "--scenarios", "slack_post_message,github_get_issue", "--baseline=false",
	}, &out, &errOut)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut.String())
	}
	if !bytes.Contains(out.Bytes(), []byte("slack_post_message skipped: no slack twin")) {
		t.Fatalf("%s", out.String())
	}
}

// TestBadFlags: a run that cannot be bounded or aimed never starts.
func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--api-key", "k"},
		{"--server", "ftp://x", "--api-key", "k"},
		{"--server", "http://127.0.0.1:1", "--api-key", "k", "-c", "0"},
		{"--server", "http://127.0.0.1:1", "--api-key", "k", "--create-warmup", "-1"},
		{"--server", "http://127.0.0.1:1", "--api-key", "k", "--scenarios", "nope"},
		{"--server", "http://127.0.0.1:1", "--api-key", "k", "--mcp-version", "2024-11-05"},
	} {
		var out, errOut bytes.Buffer
		if code := run(context.Background(), args, &out, &errOut); code == 0 {
			t.Errorf("%v: exit 0", args)
		}
	}
}

func TestProxyNeedsReplicas(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"--proxy", "127.0.0.1:0"}, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "--to") {
		t.Fatalf("exit %d, stderr %q; want 2 and a hint about --to", code, errOut.String())
	}
}

// TestUsageListsModes: -h lists every mode with its summary, the summaries
// in one column whatever the names' lengths.
func TestUsageListsModes(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"-h"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	column := -1
	for _, m := range modes {
		var line string
		for _, l := range strings.Split(errOut.String(), "\n") {
			if strings.HasPrefix(l, "  "+m.name+" ") {
				line = l
			}
		}
		at := strings.Index(line, m.summary)
		if at < 0 {
			t.Fatalf("mode %s not listed with its summary:\n%s", m.name, errOut.String())
		}
		if column >= 0 && at != column {
			t.Errorf("mode %s: summary at column %d, others at %d:\n%s", m.name, at, column, errOut.String())
		}
		column = at
	}
}
