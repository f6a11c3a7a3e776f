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

func BenchmarkMemoryUpdateWrite(b *testing.B) {
	storetest.BenchUpdateWrite(b, newMemory(b, time.Now))
}

func BenchmarkMemoryAppend(b *testing.B) {
	storetest.BenchAppend(b, newMemory(b, time.Now))
}

func BenchmarkMemoryCreate(b *testing.B) {
	storetest.BenchCreate(b, newMemory(b, time.Now))
}
