package session

import "testing"

// A world well under its budget is written in place: up to half of the
// budget, as the noisy-neighbour benchmark's 10 MB world of a 32 MiB
// budget needs (measured too rarely, the room asked for the growth between
// measures took it off the in-place path, and every write copied it).
func TestRoomyUpToHalfTheBudget(t *testing.T) {
	s := NewMemoryStore(nil, 0)
	defer s.Close()
	const budget = 32 << 20
	s.SetBudgets(Budgets{WorldBytes: budget})
	ms := &memSandbox{team: s.team("t")}
	for _, c := range []struct {
		size  int64
		roomy bool
	}{{1 << 20, true}, {10 << 20, true}, {budget/2 - 1, true}, {budget/2 + 1<<20, false}, {budget, false}} {
		// Whatever growth its writes showed under sampleGrowth: a world
		// measured less often is asked for room for as many writes.
		for _, shown := range []int64{0, 1, 300} {
			mt := &memTwin{size: c.size, growth: shown}
			if got := s.roomy(ms, mt); got != c.roomy {
				t.Errorf("a world of %d bytes (writes of %d bytes shown) under a budget of %d: roomy %v, want %v", c.size, shown, budget, got, c.roomy)
			}
		}
	}
}

// A world whose writes have shown they add more than sampleGrowth is
// roomy only with room for that growth until its next measure: on both
// stores' sampling (the memory store's memTwin, the Redis store's
// worldSizes), so a world of large writes is measured on every write well
// before its budget.
func TestRoomyAllowsForShownGrowth(t *testing.T) {
	s := NewMemoryStore(nil, 0)
	defer s.Close()
	const budget = 2 << 20
	s.SetBudgets(Budgets{WorldBytes: budget})
	ms := &memSandbox{team: s.team("t")}
	// 640 KiB, measured every 160 writes at most: room for 640 KiB at the
	// usual growth, not for 2.5 MiB at 16 KiB a write.
	const size = 640 << 10
	if !s.roomy(ms, &memTwin{size: size}) {
		t.Fatal("a world of a third of its budget, of small writes, is not roomy")
	}
	if s.roomy(ms, &memTwin{size: size, growth: 16 << 10}) {
		t.Error("a world of a third of its budget, of 16 KiB writes, is roomy")
	}

	var w worldSizes
	w.measured("sb", "t", 0, budget)
	for range 40 {
		w.due("sb", "t", budget)
	}
	w.measured("sb", "t", 40*16<<10, budget)
	if !w.due("sb", "t", budget) {
		t.Error("Redis: the write after 40 writes of 16 KiB was not measured")
	}
	w.measured("sb", "t", 0, budget)
	for range 40 {
		w.due("sb", "t", budget)
	}
	w.measured("sb", "t", 40*100, budget)
	if w.due("sb", "t", budget) {
		t.Error("Redis: the write after 40 writes of 100 bytes was measured")
	}
}
