package session_test

import (
	"context"
	"testing"
	"time"

	"github.com/pomehq/pome/session"
	"github.com/pomehq/pome/session/storetest"
)

// TestTapeSlots: reserved places keep the order they were taken in
// whatever order they are filled, a reader waits for them, and a place
// abandoned by a call that failed after reserving it still gets a row.
func TestTapeSlots(t *testing.T) {
	ctx := context.Background()
	store := newMemory(t, time.Now)
	m := session.NewManager(store, nil, session.Config{}, nil)
	sb := storetest.NewSandbox(storetest.NewTeam(), time.Now(), time.Hour, "alpha")
	if err := store.Create(ctx, sb, storetest.SeedWorlds(t, "alpha"), 0); err != nil {
		t.Fatal(err)
	}
	first, ok1 := m.ReserveTape(sb, "alpha")
	second, ok2 := m.ReserveTape(sb, "alpha")
	abandoned, ok3 := m.ReserveTape(sb, "alpha")
	if !ok1 || !ok2 || !ok3 {
		t.Fatal("the memory store refused a reservation")
	}
	if _, ok := m.ReserveTape(sb, "beta"); ok {
		t.Fatal("reserved a place on a twin the sandbox does not run")
	}
	read := make(chan int, 1)
	go func() {
		rows, err := store.Tape(ctx, sb, "alpha", 0, 0)
		if err != nil {
			t.Error(err)
		}
		read <- len(rows)
	}()
	second.Fill(storetest.NewRow(sb, "alpha", "/second"))
	select {
	case n := <-read:
		t.Fatalf("a tape read returned %d rows while a reserved place was still empty", n)
	case <-time.After(50 * time.Millisecond):
	}
	first.Fill(storetest.NewRow(sb, "alpha", "/first"))
	first.Fill(storetest.NewRow(sb, "alpha", "/again")) // ignored
	abandoned.Abandon()
	abandoned.Abandon() // ignored
	if n := <-read; n != 3 {
		t.Fatalf("the waiting read got %d rows, want 3", n)
	}
	rows, err := store.Tape(ctx, sb, "alpha", 0, 0)
	if err != nil || len(rows) != 3 {
		t.Fatalf("tape: %d rows, %v", len(rows), err)
	}
	for i, want := range []string{"/first", "/second", ""} {
		if rows[i].Seq != int64(i+1) || rows[i].Path != want {
			t.Errorf("row %d: seq %d path %q, want seq %d path %q", i, rows[i].Seq, rows[i].Path, i+1, want)
		}
	}
	if rows[2].Status != 500 || rows[2].SessionID != sb.ID || rows[2].Twin != "alpha" {
		t.Errorf("abandoned place holds %+v, want a bare 500 row of the sandbox's twin", rows[2])
	}
}
