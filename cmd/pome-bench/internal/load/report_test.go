package load

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// TestWriteTableCPUColumns: the CPU columns appear only when some scenario
// has their figure, and a row without one shows a dash.
func TestWriteTableCPUColumns(t *testing.T) {
	rep := &Report{
		Baseline: &Result{Name: "baseline", Requests: 10, PerSec: 100, ClientCPUUS: 40},
		Scenarios: []Result{
			{Name: "github_get_issue", Requests: 10, PerSec: 30, Ratio: 0.3, ServerCPUUS: 90, ClientCPUUS: 60, StoreCPUUS: 45.5},
			{Name: "server_healthz", Requests: 10, PerSec: 70, Ratio: 0.7, ServerCPUUS: 30, ClientCPUUS: 35},
			{Name: "slack_post_message", Skipped: "no slack", ServerCPUUS: 1},
		},
	}
	var out bytes.Buffer
	if err := WriteTable(&out, rep); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{"server CPU/req", "client CPU/req", "store CPU/req", "45.5µs", "60.0µs"} {
		if !strings.Contains(text, want) {
			t.Errorf("table lacks %q:\n%s", want, text)
		}
	}
	for _, l := range strings.Split(text, "\n") {
		// The skipped scenario's row: a dash in each of its 9 figure columns.
		if f := strings.Fields(l); len(f) > 1 && f[0] == "slack_post_message" && f[1] != "skipped:" {
			if want := append([]string{f[0]}, slices.Repeat([]string{"-"}, 9)...); !slices.Equal(f, want) {
				t.Errorf("skipped row %q, want %q", l, want)
			}
		}
		if strings.Contains(l, "server_healthz") && !strings.HasSuffix(strings.TrimSpace(l), "-") {
			t.Errorf("healthz row should end with a dash for its missing store CPU: %q", l)
		}
	}
	rep.Scenarios = []Result{{Name: "github_get_issue", Requests: 10, PerSec: 30}}
	rep.Baseline = nil
	out.Reset()
	WriteTable(&out, rep)
	if strings.Contains(out.String(), "CPU/req") {
		t.Errorf("CPU columns without figures:\n%s", out.String())
	}
}
