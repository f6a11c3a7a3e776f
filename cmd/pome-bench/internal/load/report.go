package load

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
)

// fmtUS prints a latency in microseconds with a unit a reader takes in at a
// glance.
func fmtUS(us float64) string {
	switch {
	case us == 0:
		return "-"
	case us < 1000:
		return fmt.Sprintf("%.0fµs", us)
	case us < 1e6:
		return fmt.Sprintf("%.2fms", us/1e3)
	default:
		return fmt.Sprintf("%.2fs", us/1e6)
	}
}

// cpuColumn is one CPU-per-request column of the table.
type cpuColumn struct {
	head string
	of   func(Result) float64
}

var cpuColumns = []cpuColumn{
	{"server CPU/req", func(r Result) float64 { return r.ServerCPUUS }},
	{"client CPU/req", func(r Result) float64 { return r.ClientCPUUS }},
	{"store CPU/req", func(r Result) float64 { return r.StoreCPUUS }},
}

// WriteTable prints the report for people.
func WriteTable(w io.Writer, r *Report) error {
	fmt.Fprintf(w, "server %s  clients %d  %gs per scenario  twins %s\n",
		r.Server, r.Concurrency, r.DurationSeconds, strings.Join(r.Twins, ", "))
	if r.MCPVersion != "" && slices.ContainsFunc(r.Scenarios, func(s Result) bool { return s.Name == NameMCPToolsCall }) {
		fmt.Fprintf(w, "MCP protocol version %s\n", r.MCPVersion)
	}
	if r.Sandboxes > 0 {
		fmt.Fprintf(w, "data plane spread over %d sandboxes, created in %.2fs (%.0f/s)\n", r.Sandboxes, r.PoolSeconds, float64(r.Sandboxes)/r.PoolSeconds)
	}
	fmt.Fprintf(w, "machine %d CPU %s, %s/%s, %s\n\n", r.Machine.NumCPU, r.Machine.CPUModel, r.Machine.GOOS, r.Machine.GOARCH, r.Machine.GoVersion)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	// A CPU column shows only when some scenario has its figure.
	var cols []cpuColumn
	for _, c := range cpuColumns {
		if slices.ContainsFunc(r.Scenarios, func(s Result) bool { return c.of(s) > 0 }) {
			cols = append(cols, c)
		}
	}
	head := "scenario\treq/s\tp50\tp99\trequests\terrors\tratio\t"
	for _, c := range cols {
		head += c.head + "\t"
	}
	fmt.Fprintln(tw, head)
	rows := r.Scenarios
	if r.Baseline != nil {
		rows = append([]Result{*r.Baseline}, rows...)
	}
	if r.BaselineEnd != nil {
		rows = append(rows, *r.BaselineEnd)
	}
	for _, s := range rows {
		line := s.Name + "\t-\t-\t-\t-\t-\t-\t"
		if s.Skipped == "" {
			ratio := "-"
			if s.Ratio > 0 {
				ratio = fmt.Sprintf("%.2f", s.Ratio)
			}
			line = fmt.Sprintf("%s\t%.0f\t%s\t%s\t%d\t%d\t%s\t", s.Name, s.PerSec, fmtUS(s.P50US), fmtUS(s.P99US), s.Requests, s.Errors, ratio)
		}
		for _, c := range cols {
			if us := c.of(s); us > 0 && s.Skipped == "" {
				line += fmt.Sprintf("%.1fµs\t", us)
			} else {
				line += "-\t"
			}
		}
		fmt.Fprintln(tw, line)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, s := range rows {
		switch {
		case s.Skipped != "":
			fmt.Fprintf(w, "%s skipped: %s\n", s.Name, s.Skipped)
		case s.ErrorSample != "":
			fmt.Fprintf(w, "%s first error: %s\n", s.Name, s.ErrorSample)
		}
	}
	if r.Pool != nil {
		fmt.Fprintf(w, "\nserver memory for %d sandboxes: %s\n", r.Pool.Items, r.Pool.describe("sandbox"))
	}
	for _, s := range rows {
		if s.Mem != nil {
			fmt.Fprintf(w, "server memory during %s (%d requests): %s\n", s.Name, s.Mem.Items, s.Mem.describe("request"))
		}
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	return nil
}

// WriteJSON prints the report for machines.
func WriteJSON(w io.Writer, r *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// describe prints what is known of a memory delta.
func (d *MemDelta) describe(item string) string {
	var parts []string
	if d.rssKnown {
		parts = append(parts, fmt.Sprintf("RSS %d → %d KiB (%.0f bytes per %s)", d.RSSBeforeKiB, d.RSSAfterKiB, d.RSSPerItem, item))
	}
	if d.heapKnown {
		parts = append(parts, fmt.Sprintf("live heap %.1f → %.1f MiB (%.0f bytes per %s)", float64(d.HeapBefore)/(1<<20), float64(d.HeapAfter)/(1<<20), d.HeapPerItem, item))
	}
	if len(parts) == 0 {
		return "not readable"
	}
	return strings.Join(parts, "; ")
}

// WriteJSONValue prints any mode's report for machines.
func WriteJSONValue(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
