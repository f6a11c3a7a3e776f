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
		mt := &memTwin{size: c.size}
		if got := s.roomy(ms, mt); got != c.roomy {
			t.Errorf("a world of %d bytes under a budget of %d: roomy %v, want %v", c.size, budget, got, c.roomy)
		}
	}
}
