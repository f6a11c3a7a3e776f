package session_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/pomehq/pome/session"
	"github.com/pomehq/pome/session/storetest"
)

// TestMemoryStoreBudgeted runs the conformance suite on a memory store
// that measures every write, which then runs on a private copy.
func TestMemoryStoreBudgeted(t *testing.T) {
	storetest.Run(t, func(t *testing.T, now func() time.Time) session.Store {
		s := newMemory(t, now)
		s.SetBudgets(session.Budgets{WorldBytes: 1 << 20, ServerWorldBytes: 1 << 30, ServerTapeBytes: 1 << 30, TeamShare: 0.5})
		return s
	}, storetest.LiveWorld()) // reads still run on the live world
}

// grow is an UpdateFunc that adds an item of n bytes.
func grow(n int) session.UpdateFunc {
	return func(world any) (bool, error) {
		w := world.(*storetest.World)
		w.Items = append(w.Items, strings.Repeat("x", n))
		return true, nil
	}
}

func createAlpha(t *testing.T, s session.Store, team string) (*session.Sandbox, error) {
	t.Helper()
	sb := storetest.NewSandbox(team, time.Now(), time.Hour, "alpha")
	return sb, s.Create(t.Context(), sb, storetest.SeedWorlds(t, "alpha"), 0)
}

func budgetOf(t *testing.T, err error) *session.BudgetError {
	t.Helper()
	var be *session.BudgetError
	if !errors.As(err, &be) || !errors.Is(err, session.ErrBudget) {
		t.Fatalf("err = %v, want a BudgetError", err)
	}
	return be
}

// TestMemoryWorldBudget: a write that would take a world past its budget
// is refused and leaves the world as it was; one that fits still runs.
func TestMemoryWorldBudget(t *testing.T) {
	s := newMemory(t, nil)
	s.SetBudgets(session.Budgets{WorldBytes: 300})
	sb, err := createAlpha(t, s, storetest.NewTeam())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Update(t.Context(), sb, storetest.Alpha, true, grow(200)); err != nil {
		t.Fatalf("write within the budget: %v", err)
	}
	before, _ := s.State(t.Context(), sb, "alpha")
	be := budgetOf(t, s.Update(t.Context(), sb, storetest.Alpha, true, grow(200)))
	if be.Budget != session.BudgetWorld || be.Limit != 300 || be.Size <= 300 || be.Twin != "alpha" {
		t.Errorf("refusal = %+v", be)
	}
	after, _ := s.State(t.Context(), sb, "alpha")
	if string(after) != string(before) {
		t.Errorf("refused write changed the world:\n%s\n%s", before, after)
	}
	if err := s.Update(t.Context(), sb, storetest.Alpha, true, storetest.Increment); err != nil {
		t.Errorf("small write after a refusal: %v", err)
	}
}

// TestMemoryServerWorldBudget: creates and growing writes stop at a
// team's share of the server's world budget while another team is still
// served, stop for everyone at the server budget, and discarding gives
// the memory back.
func TestMemoryServerWorldBudget(t *testing.T) {
	per := 2 * int64(len(storetest.SeedWorlds(t, "alpha")["alpha"].Doc))
	s := newMemory(t, nil)
	s.SetBudgets(session.Budgets{ServerWorldBytes: 10 * per, TeamShare: 0.5})
	a, b := storetest.NewTeam(), storetest.NewTeam()
	var mine []*session.Sandbox
	for i := 0; i < 5; i++ {
		sb, err := createAlpha(t, s, a)
		if err != nil {
			t.Fatalf("create %d within team a's share: %v", i, err)
		}
		mine = append(mine, sb)
	}
	_, err := createAlpha(t, s, a)
	if be := budgetOf(t, err); be.Budget != session.BudgetTeamWorld || be.Limit != 5*per || be.Used != 5*per {
		t.Errorf("create past the share: %+v", be)
	}
	if be := budgetOf(t, s.Update(t.Context(), mine[0], storetest.Alpha, true, grow(10))); be.Budget != session.BudgetTeamWorld {
		t.Errorf("growing write past the share: %+v", be)
	}
	if err := s.Update(t.Context(), mine[0], storetest.Alpha, true, func(any) (bool, error) { return false, nil }); err != nil {
		t.Errorf("write that changes nothing: %v", err)
	}
	for i := 0; i < 5; i++ {
		if _, err := createAlpha(t, s, b); err != nil {
			t.Fatalf("team b's create %d while team a is at its share: %v", i, err)
		}
	}
	if err := s.Discard(t.Context(), mine[0].ID); err != nil {
		t.Fatal(err)
	}
	if _, err := createAlpha(t, s, a); err != nil {
		t.Errorf("create after a discard freed the share: %v", err)
	}

	s.SetBudgets(session.Budgets{ServerWorldBytes: 10 * per})
	_, err = createAlpha(t, s, storetest.NewTeam())
	if be := budgetOf(t, err); be.Budget != session.BudgetServerWorld || be.Limit != 10*per {
		t.Errorf("create past the server budget: %+v", be)
	}
}

// TestMemoryServerTapeBudget: past its team's share of the server's tape
// budget a tape keeps no further row, even once room is made again, and
// says how many it dropped; another team's tapes keep theirs; the team's
// creates are refused until it frees some.
func TestMemoryServerTapeBudget(t *testing.T) {
	s := newMemory(t, nil)
	s.SetBudgets(session.Budgets{ServerTapeBytes: 8 << 10, TeamShare: 0.5})
	a, b := storetest.NewTeam(), storetest.NewTeam()
	sa, err := createAlpha(t, s, a)
	if err != nil {
		t.Fatal(err)
	}
	sb, err := createAlpha(t, s, b)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 100; i++ {
		seq, err := s.Append(t.Context(), sa, storetest.NewRow(sa, "alpha", "/a"))
		if err != nil || seq != int64(i+1) {
			t.Fatalf("append %d: seq %d, %v", i, seq, err)
		}
	}
	stored, total, _ := s.TapeLen(t.Context(), sa, "alpha")
	if total != 100 || stored == 0 || stored >= 100 {
		t.Fatalf("team a's tape: %d stored of %d; want a prefix under its share", stored, total)
	}
	rows, _ := s.Tape(t.Context(), sa, "alpha", 0, 0)
	for i, r := range rows {
		if r.Seq != int64(i+1) {
			t.Fatalf("row %d has seq %d: kept rows must be the prefix", i, r.Seq)
		}
	}
	if _, err := s.Append(t.Context(), sb, storetest.NewRow(sb, "alpha", "/b")); err != nil {
		t.Fatal(err)
	}
	if stored, total, _ := s.TapeLen(t.Context(), sb, "alpha"); stored != 1 || total != 1 {
		t.Errorf("team b's tape: %d stored of %d, want its row kept", stored, total)
	}
	_, err = createAlpha(t, s, a)
	if be := budgetOf(t, err); be.Budget != session.BudgetTeamTape {
		t.Errorf("team a's create with its tape share spent: %+v", be)
	}
	s.SetBudgets(session.Budgets{ServerTapeBytes: 1 << 30})
	s.Append(t.Context(), sa, storetest.NewRow(sa, "alpha", "/a"))
	if again, total, _ := s.TapeLen(t.Context(), sa, "alpha"); again != stored || total != 101 {
		t.Errorf("after the budget grew: %d stored of %d, want still %d: a tape that dropped a row keeps none after it", again, total, stored)
	}
	s.SetBudgets(session.Budgets{ServerTapeBytes: 8 << 10, TeamShare: 0.5})
	if err := s.Discard(t.Context(), sa.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := createAlpha(t, s, a); err != nil {
		t.Errorf("create after the discard freed the tape share: %v", err)
	}
}

// BenchmarkMemoryUpdateWriteBudgeted is BenchmarkMemoryUpdateWrite on a
// store that measures every write against the budgets.
func BenchmarkMemoryUpdateWriteBudgeted(b *testing.B) {
	s := newMemory(b, time.Now)
	s.SetBudgets(session.Budgets{WorldBytes: 1 << 20, ServerWorldBytes: 1 << 30, ServerTapeBytes: 1 << 30})
	storetest.BenchUpdateWrite(b, s)
}

// TestMemoryWorldBudgetSampled: a world far under its budget is written in
// place and measured only now and then, yet the budget still holds: once
// the world nears it, writes are measured on a copy again, and the one
// that would pass it is refused and changes nothing.
func TestMemoryWorldBudgetSampled(t *testing.T) {
	const limit = 2 << 20
	s := newMemory(t, nil)
	s.SetBudgets(session.Budgets{WorldBytes: limit})
	sb, err := createAlpha(t, s, storetest.NewTeam())
	if err != nil {
		t.Fatal(err)
	}
	writes := 0
	for ; writes < 1000; writes++ {
		before, _ := s.State(t.Context(), sb, "alpha")
		if err := s.Update(t.Context(), sb, storetest.Alpha, true, grow(16<<10)); err != nil {
			budgetOf(t, err)
			if after, _ := s.State(t.Context(), sb, "alpha"); string(after) != string(before) {
				t.Fatal("the refused write changed the world")
			}
			if len(before) > limit {
				t.Fatalf("the world reached %d bytes, over its budget of %d", len(before), limit)
			}
			break
		}
	}
	if writes == 0 || writes == 1000 {
		t.Fatalf("%d writes before a refusal", writes)
	}
}
