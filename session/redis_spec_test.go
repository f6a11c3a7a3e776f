package session_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/pomehq/pome/session"
	"github.com/pomehq/pome/session/storetest"
	"github.com/pomehq/pome/tape"
)

// authorizeRead reads the sandbox as the data plane does for a GET on alpha.
func authorizeRead(t *testing.T, s session.Store, sb *session.Sandbox) *session.Sandbox {
	t.Helper()
	m := session.NewManager(s, nil, session.Config{}, nil)
	got, role, err := m.AuthorizeRead(context.Background(), sb.ID, "alpha", "auth")
	if err != nil || role != session.RoleAuth {
		t.Fatalf("AuthorizeRead = %v, %v", role, err)
	}
	return got
}

func appendRow(s session.Store, sb *session.Sandbox) (int64, error) {
	return s.Append(context.Background(), sb, &tape.Row{Twin: "alpha", Method: "GET", Path: "/x", Status: 200, Transport: tape.TransportREST})
}

func tapeLen(t *testing.T, s session.Store, sb *session.Sandbox) (int64, int64) {
	t.Helper()
	n, total, err := s.TapeLen(context.Background(), sb, "alpha")
	if err != nil {
		t.Fatal(err)
	}
	return n, total
}

// TestRedisSpeculativeRead: once the process holds the record and the
// world, a read is authorized and served with no round trip, and its row
// is taped in one.
func TestRedisSpeculativeRead(t *testing.T) {
	s, rt := newCountedRedis(t)
	sb := createSandbox(t, s, storetest.NewTeam(), time.Hour, "alpha")
	if got := authorizeRead(t, s, sb); got.Speculative() {
		t.Fatal("speculative before anything was cached")
	}
	if _, err := readWorld(t, s, authorize(t, s, sb)); err != nil { // caches both
		t.Fatal(err)
	}
	// Twice: the first append may also load its script into Redis.
	for want := int64(1); want <= 2; want++ {
		rt.N.Store(0)
		call := authorizeRead(t, s, sb)
		if !call.Speculative() {
			t.Fatal("not speculative with the record and the world cached")
		}
		if w, err := readWorld(t, s, call); err != nil || w.Counter != 0 {
			t.Fatalf("read = %+v, %v", w, err)
		}
		if seq, err := appendRow(s, call); err != nil || seq != want {
			t.Fatalf("append = %d, %v, want seq %d", seq, err, want)
		}
		if call.Stale() || call.StoreFailed() {
			t.Error("a record that still holds was refused")
		}
	}
	if n := rt.N.Load(); n != 1 {
		t.Errorf("speculative read and its row took %d round trips, want 1", n)
	}
}

// TestRedisSpeculativeReadRefusedAfterChange: a write, a Stop or a Discard
// on another replica after the record was cached makes the append refuse
// the speculative call, store nothing and take no seq; the call served
// again sees the change.
func TestRedisSpeculativeReadRefusedAfterChange(t *testing.T) {
	ctx := context.Background()
	for _, change := range []string{"write", "stop", "discard"} {
		t.Run(change, func(t *testing.T) {
			a, b := newRedis(t, time.Now), newRedis(t, time.Now)
			sb := createSandbox(t, a, storetest.NewTeam(), time.Hour, "alpha")
			if _, err := readWorld(t, a, authorize(t, a, sb)); err != nil {
				t.Fatal(err)
			}
			if _, err := appendRow(a, authorize(t, a, sb)); err != nil {
				t.Fatal(err)
			}
			call := authorizeRead(t, a, sb)
			if !call.Speculative() {
				t.Fatal("not speculative")
			}
			switch change {
			case "write":
				if err := b.Update(ctx, authorize(t, b, sb), storetest.Alpha, true, storetest.Increment); err != nil {
					t.Fatal(err)
				}
			case "stop":
				if _, err := b.Stop(ctx, sb.ID, time.Now(), time.Now().Add(time.Hour)); err != nil {
					t.Fatal(err)
				}
			case "discard":
				if err := b.Discard(ctx, sb.ID); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := readWorld(t, a, call); err != nil {
				t.Fatal(err)
			}
			if _, err := appendRow(a, call); !errors.Is(err, session.ErrStale) || !call.Stale() {
				t.Fatalf("append after another replica's %s = %v, stale %v; want ErrStale", change, err, call.Stale())
			}
			m := session.NewManager(a, nil, session.Config{}, nil)
			again, _, err := m.Authorize(ctx, sb.ID, "alpha", "auth")
			switch change {
			case "write":
				if w, err := readWorld(t, a, again); err != nil || w.Counter != 1 {
					t.Errorf("served again: %+v, %v; want the other replica's write", w, err)
				}
				if n, total := tapeLen(t, a, sb); n != 1 || total != 1 {
					t.Errorf("tape %d rows, %d calls after a refused append; want 1, 1", n, total)
				}
			case "stop":
				if err != nil || again.State != session.StateStopped {
					t.Errorf("served again: state %v, %v; want stopped", again, err)
				}
			case "discard":
				if !errors.Is(err, session.ErrDenied) {
					t.Errorf("served again: %v, want ErrDenied", err)
				}
			}
		})
	}
}

// TestRedisSpeculativeWriteRefused: a write is never made with a
// speculative record; it is refused before anything is stored, and the
// call's row with it.
func TestRedisSpeculativeWriteRefused(t *testing.T) {
	ctx := context.Background()
	s := newRedis(t, time.Now)
	sb := createSandbox(t, s, storetest.NewTeam(), time.Hour, "alpha")
	if _, err := readWorld(t, s, authorize(t, s, sb)); err != nil {
		t.Fatal(err)
	}
	call := authorizeRead(t, s, sb)
	if err := s.Update(ctx, call, storetest.Alpha, true, storetest.Increment); !errors.Is(err, session.ErrStale) {
		t.Fatalf("write with a speculative record = %v, want ErrStale", err)
	}
	if _, err := appendRow(s, call); !errors.Is(err, session.ErrStale) {
		t.Fatalf("append after the refused write = %v, want ErrStale", err)
	}
	if w := worldOf(t, s, sb, "alpha"); w.Counter != 0 {
		t.Errorf("counter = %d after a refused write", w.Counter)
	}
	if n, total := tapeLen(t, s, sb); n != 0 || total != 0 {
		t.Errorf("tape %d rows, %d calls; want none", n, total)
	}
}

// TestRedisSpeculativeDeniedIsRechecked: a record that would refuse the
// call is never the last word; the refusal comes from a fresh read.
func TestRedisSpeculativeDeniedIsRechecked(t *testing.T) {
	ctx := context.Background()
	s := newRedis(t, time.Now)
	sb := createSandbox(t, s, storetest.NewTeam(), time.Hour, "alpha")
	if _, err := readWorld(t, s, authorize(t, s, sb)); err != nil {
		t.Fatal(err)
	}
	m := session.NewManager(s, nil, session.Config{}, nil)
	if _, _, err := m.AuthorizeRead(ctx, sb.ID, "alpha", "wrong"); !errors.Is(err, session.ErrDenied) {
		t.Errorf("wrong token: %v", err)
	}
	if _, _, err := m.AuthorizeRead(ctx, sb.ID, "beta", "auth"); !errors.Is(err, session.ErrDenied) {
		t.Errorf("twin not in the sandbox: %v", err)
	}
}
