package load

import (
	"encoding/json"
	"fmt"
	"io"
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

// WriteTable prints the report for people.
func WriteTable(w io.Writer, r *Report) error {
	fmt.Fprintf(w, "server %s  clients %d  %gs per scenario  %d sandboxes (%s)\n",
		r.Server, r.Concurrency, r.DurationSeconds, r.Sandboxes, strings.Join(r.Twins, ", "))
	fmt.Fprintf(w, "machine %d CPU %s, %s/%s, %s\n\n", r.Machine.NumCPU, r.Machine.CPUModel, r.Machine.GOOS, r.Machine.GOARCH, r.Machine.GoVersion)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "scenario\treq/s\tp50\tp99\trequests\terrors\tratio\t")
	rows := r.Scenarios
	if r.Baseline != nil {
		rows = append([]Result{*r.Baseline}, rows...)
	}
	for _, s := range rows {
		if s.Skipped != "" {
			fmt.Fprintf(tw, "%s\t-\t-\t-\t-\t-\t-\t\n", s.Name)
			continue
		}
		ratio := "-"
		if s.Ratio > 0 {
			ratio = fmt.Sprintf("%.2f", s.Ratio)
		}
		fmt.Fprintf(tw, "%s\t%.0f\t%s\t%s\t%d\t%d\t%s\t\n", s.Name, s.PerSec, fmtUS(s.P50US), fmtUS(s.P99US), s.Requests, s.Errors, ratio)
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
		fmt.Fprintf(w, "\nserver RSS: %d KiB before the %d sandboxes, %d KiB after (%.0f bytes per sandbox)\n",
			r.Pool.BeforeKiB, r.Sandboxes, r.Pool.AfterKiB, r.Pool.PerItemBytes)
	}
	for _, s := range rows {
		if s.RSS != nil && s.Name != NameBaseline {
			fmt.Fprintf(w, "server RSS during %s: %d → %d KiB (%.0f bytes per counted request)\n", s.Name, s.RSS.BeforeKiB, s.RSS.AfterKiB, s.RSS.PerItemBytes)
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
