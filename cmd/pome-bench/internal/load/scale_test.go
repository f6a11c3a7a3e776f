package load

import (
	"slices"
	"testing"
)

func TestTurn(t *testing.T) {
	// 3 sandboxes taking 4 writes each: 0 0 0 0 1 1 1 1 2 2 2 2, then
	// round again.
	var got []int
	for j := range 14 {
		got = append(got, turn(j, 4, 3))
	}
	want := []int{0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 0, 0}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("turns %v, want %v", got, want)
		}
	}
	if turn(5, 1, 3) != 2 {
		t.Error("per 1 is not round-robin")
	}
}

func TestSandboxesFor(t *testing.T) {
	// Writes per sandbox are max(20, n/5), so a point never grows its
	// world by more than a fifth (or 20), and enough sandboxes take the
	// writes.
	for _, c := range []struct{ n, writes, per, sbs int }{
		{10, 2000, 20, 100}, {1000, 2000, 200, 10}, {10000, 2000, 2000, 1}, {100000, 2000, 20000, 1}, {1000, 2001, 200, 11},
	} {
		if per, sbs := writesPerSandbox(c.n), sandboxesFor(c.n, c.writes); per != c.per || sbs != c.sbs {
			t.Errorf("size %d, %d writes: %d per sandbox over %d, want %d over %d", c.n, c.writes, per, sbs, c.per, c.sbs)
		}
	}
}

func TestSpread(t *testing.T) {
	if s := Spread([]float64{100, 150, 120}); s != 1.5 {
		t.Errorf("spread %v, want 1.5", s)
	}
	if Spread([]float64{100}) != 0 || Spread([]float64{0, 5}) != 0 {
		t.Error("spread of too few or zero figures")
	}
}

// TestMedianPoints: a point measured in rounds reports the median of each
// figure, every round's cost, and every round's errors.
func TestMedianPoints(t *testing.T) {
	byRound := [][]ScalePoint{
		{
			{Size: 10, Writes: 5, PerSec: 100, P50US: 30, ServerCPUUS: 150, FirstCallUS: 200},
			{Size: 10, Writes: 5, PerSec: 300, P50US: 10, ServerCPUUS: 190, FirstCallUS: 900, Errors: 1, ErrorSample: "boom"},
			{Size: 10, Writes: 5, PerSec: 200, P50US: 20, ServerCPUUS: 160, FirstCallUS: 300},
		},
		{{Size: 1000, Writes: 5, PerSec: 50, ServerCPUUS: 170}},
	}
	got := medianPoints(byRound, 1)
	if len(got) != 2 {
		t.Fatalf("%d points, want 2", len(got))
	}
	p := got[0]
	if p.PerSec != 200 || p.P50US != 20 || p.ServerCPUUS != 160 || p.FirstCallUS != 300 {
		t.Errorf("medians: %+v", p)
	}
	if !slices.Equal(p.Costs, []float64{150, 190, 160}) || p.Errors != 1 || p.ErrorSample != "boom" {
		t.Errorf("rounds: costs %v, errors %d %q", p.Costs, p.Errors, p.ErrorSample)
	}
	// Without CPU in every round, the cost is wall time per write.
	byRound[0][1].ServerCPUUS = 0
	if c := medianPoints(byRound, 1)[0].Costs; !slices.Equal(c, []float64{1e4, 1e6 / 300, 5e3}) {
		t.Errorf("wall-time costs %v", c)
	}
	if one := got[1]; one.Costs != nil || one.ServerCPUUS != 170 {
		t.Errorf("a single round: %+v", one)
	}
}
