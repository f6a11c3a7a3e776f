package load

import "testing"

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
