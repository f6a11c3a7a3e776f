package load

import (
	"bytes"
	"strings"
	"testing"
)

func TestChooseDriver(t *testing.T) {
	for _, c := range []struct {
		want, wrk, got string
		fails          bool
	}{
		{"auto", "/usr/bin/wrk", "wrk", false},
		{"auto", "", "go", false},
		{"wrk", "", "", true},
		{"go", "/usr/bin/wrk", "go", false},
		{"ab", "", "", true},
	} {
		got, note, err := ChooseDriver(c.want, c.wrk)
		if (err != nil) != c.fails || got != c.got {
			t.Errorf("ChooseDriver(%q, %q) = %q, %v", c.want, c.wrk, got, err)
		}
		// Falling back says so, for the report.
		if c.want == "auto" && c.wrk == "" && !strings.Contains(note, "not on PATH") {
			t.Errorf("fallback note %q", note)
		}
	}
}

// TestCeilingSummary: medians over the rounds, the ratio as the median of
// the rounds' ratios with its range, each peer's ratio from the same
// rounds' Pome figures, and the verdicts in the table.
func TestCeilingSummary(t *testing.T) {
	r := CeilingResult{Call: "github_get_issue", Target: ReadTarget, AnswerBytes: 2357, Rounds: []CallRound{
		{Pome: Measure{PerSec: 100}, Bare: Measure{PerSec: 400}},
		{Pome: Measure{PerSec: 300}, Bare: Measure{PerSec: 500}},
		{Pome: Measure{PerSec: 200}, Bare: Measure{PerSec: 300}},
	}, Peers: []PeerResult{{Name: "emulate", Target: EmulateTarget, Rounds: []Measure{{PerSec: 50}, {PerSec: 50}, {PerSec: 100}}}}}
	r.summarize()
	if r.PomePerSec != 200 || r.BarePerSec != 400 {
		t.Errorf("medians %v and %v, want 200 and 400", r.PomePerSec, r.BarePerSec)
	}
	// Ratios 0.25, 0.6, 0.667: median 0.6.
	if r.Ratio != 0.6 || r.MinRatio != 0.25 || r.MaxRatio < 0.66 || r.MaxRatio > 0.67 {
		t.Errorf("ratio %v (%v–%v)", r.Ratio, r.MinRatio, r.MaxRatio)
	}
	// Pome over emulate per round: 2, 6, 2 → 2.
	if p := r.Peers[0]; p.PerSec != 50 || p.Ratio != 2 {
		t.Errorf("peer %+v", p)
	}
	w := CeilingResult{Call: "github_post_comment", Write: true, Target: WriteTarget, Rounds: []CallRound{{Pome: Measure{PerSec: 30}, Bare: Measure{PerSec: 100}}}}
	w.summarize()
	var out bytes.Buffer
	if err := WriteCeilingTable(&out, &CeilingReport{Driver: DriverWrk, Threads: 2, Connections: 64, Seconds: 10, Rounds: 3, Results: []CeilingResult{r, w}}); err != nil {
		t.Fatal(err)
	}
	verdicts := map[string]string{}
	for _, l := range strings.Split(out.String(), "\n") {
		f := strings.Fields(l)
		if len(f) > 8 && (f[1] == "2357" || f[0] == "github_post_comment") {
			verdicts[f[0]] = f[7]
		}
		if len(f) > 1 && f[1] == "emulate" {
			verdicts["emulate"] = f[8]
		}
	}
	if verdicts["github_get_issue"] != "met" || verdicts["github_post_comment"] != "missed" || verdicts["emulate"] != "missed" {
		t.Errorf("verdicts %v in\n%s", verdicts, out.String())
	}
	if !strings.Contains(out.String(), "driver wrk -t2 -c64 -d10s") {
		t.Errorf("no driver line:\n%s", out.String())
	}
}

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		in   []float64
		want float64
	}{{nil, 0}, {[]float64{3}, 3}, {[]float64{3, 1}, 2}, {[]float64{5, 1, 3}, 3}} {
		if got := median(c.in); got != c.want {
			t.Errorf("median(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}
