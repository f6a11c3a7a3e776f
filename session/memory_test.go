package session_test

import (
	"testing"
	"time"

	"github.com/pomehq/pome/session"
	"github.com/pomehq/pome/session/storetest"
)

func newMemory(tb testing.TB, now func() time.Time) *session.MemoryStore {
	// The sweep interval is long on purpose: the suite must pass on the
	// store's lazy expiry checks alone, as between two sweeps.
	s := session.NewMemoryStore(now, time.Hour)
	tb.Cleanup(func() { s.Close() })
	return s
}

func TestMemoryStore(t *testing.T) {
	storetest.Run(t, func(t *testing.T, now func() time.Time) session.Store {
		return newMemory(t, now)
	}, storetest.LiveWorld())
}

func TestMemorySweep(t *testing.T) {
	now := time.Now()
	clock := func() time.Time { return now }
	s := newMemory(t, clock)
	team := storetest.NewTeam()
	sb := storetest.NewSandbox(team, now, time.Minute, "alpha")
	if err := s.Create(t.Context(), sb, storetest.SeedWorlds(t, "alpha"), 0); err != nil {
		t.Fatal(err)
	}
	now = now.Add(2 * time.Minute)
	s.Sweep()
	list, err := s.List(t.Context(), team)
	if err != nil || len(list) != 1 || list[0].State != session.StateExpired {
		t.Fatalf("List after sweep = %v, %v; want the sandbox as expired", list, err)
	}
	now = now.Add(8 * 24 * time.Hour)
	s.Sweep()
	if list, _ := s.List(t.Context(), team); len(list) != 0 {
		t.Errorf("List a week after expiry = %v, want it forgotten", list)
	}
}

// TestMemoryListChurn: a team that creates and discards sandboxes without
// end, or creates past the list's bound, keeps a bounded list and a
// bounded record of its order.
func TestMemoryListChurn(t *testing.T) {
	s := newMemory(t, time.Now)
	s.SetMaxListed(50)
	team := storetest.NewTeam()
	for i := range 2000 {
		sb := storetest.NewSandbox(team, time.Now(), time.Hour, "alpha")
		if err := s.Create(t.Context(), sb, storetest.SeedWorlds(t, "alpha"), 0); err != nil {
			t.Fatal(err)
		}
		if i%2 == 0 {
			if err := s.Discard(t.Context(), sb.ID); err != nil {
				t.Fatal(err)
			}
		}
	}
	list, err := s.List(t.Context(), team)
	if err != nil || len(list) != 50 {
		t.Errorf("List after 2,000 creates under a bound of 50: %d entries, %v", len(list), err)
	}
	if n := s.ListedBacklog(team); n > 2*50+64 {
		t.Errorf("the list's order holds %d ids for 50 entries", n)
	}
	churn := storetest.NewTeam()
	for range 2000 {
		sb := storetest.NewSandbox(churn, time.Now(), time.Hour, "alpha")
		if err := s.Create(t.Context(), sb, storetest.SeedWorlds(t, "alpha"), 0); err != nil {
			t.Fatal(err)
		}
		if err := s.Discard(t.Context(), sb.ID); err != nil {
			t.Fatal(err)
		}
	}
	if n := s.ListedBacklog(churn); n > 64+1 {
		t.Errorf("after 2,000 creates and discards the list's order holds %d ids", n)
	}
}

func BenchmarkMemoryUpdateWrite(b *testing.B) {
	storetest.BenchUpdateWrite(b, newMemory(b, time.Now))
}

func BenchmarkMemoryAppend(b *testing.B) {
	storetest.BenchAppend(b, newMemory(b, time.Now))
}

func BenchmarkMemoryCreate(b *testing.B) {
	storetest.BenchCreate(b, newMemory(b, time.Now))
}
