package session_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/pomehq/pome/session"
	"github.com/pomehq/pome/session/storetest"
)

// worldVersion is the version Manager.WorldVersion reports for alpha in sb.
func worldVersion(t *testing.T, s session.Store, sb *session.Sandbox) uint64 {
	t.Helper()
	v, ok := session.NewManager(s, nil, session.Config{}, nil).WorldVersion(sb, "alpha")
	if !ok {
		t.Fatal("the Redis store reports no world versions")
	}
	return v
}

// readVersion reads alpha with sb and returns the version the read
// reports (WithReadVersion) and the counter it found.
func readVersion(t *testing.T, s session.Store, sb *session.Sandbox) (uint64, int) {
	t.Helper()
	var v uint64
	var n int
	err := s.Update(session.WithReadVersion(context.Background(), &v), sb, storetest.Alpha, false, func(world any) (bool, error) {
		n = world.(*storetest.World).Counter
		return false, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return v, n
}

// TestRedisWorldVersions: the version a call's authorization establishes
// is the one stored in Redis, whichever replica wrote last; a read reports
// the version of the world it ran on; a speculative record reports the
// version this replica caches and is refused at its append once another
// replica wrote; and a record with which a write was made reports none.
func TestRedisWorldVersions(t *testing.T) {
	ctx := context.Background()
	a, b := newRedis(t, time.Now), newRedis(t, time.Now)
	sb := createSandbox(t, a, storetest.NewTeam(), time.Hour, "alpha")

	call := authorize(t, a, sb)
	if v := worldVersion(t, a, call); v != 1 {
		t.Fatalf("a new sandbox's version = %d, want 1", v)
	}
	if v, n := readVersion(t, a, call); v != 1 || n != 0 {
		t.Fatalf("read = version %d counter %d, want 1 and 0", v, n)
	}
	// Cached on a now: a speculative record names the cached version.
	spec := authorizeRead(t, a, sb)
	if !spec.Speculative() || worldVersion(t, a, spec) != 1 {
		t.Fatalf("speculative record: speculative %v, version %d", spec.Speculative(), worldVersion(t, a, spec))
	}

	// A write acknowledged on b.
	if err := b.Update(ctx, authorize(t, b, sb), storetest.Alpha, true, storetest.Increment); err != nil {
		t.Fatal(err)
	}
	// The speculative record still names version 1, and its append is
	// refused: what was served with it never leaves.
	if _, err := appendRow(a, spec); !errors.Is(err, session.ErrStale) {
		t.Fatalf("append with a speculative record after b's write: %v, want ErrStale", err)
	}
	// Authorized again, a's call establishes version 2, and reads it.
	call = authorize(t, a, sb)
	if v := worldVersion(t, a, call); v != 2 {
		t.Fatalf("after b's write, a's authorization established version %d, want 2", v)
	}
	if v, n := readVersion(t, a, call); v != 2 || n != 1 {
		t.Fatalf("read after b's write = version %d counter %d, want 2 and 1", v, n)
	}

	// A write made with a record ends what its authorization established:
	// the version is no longer known before a read, which reports its own.
	call = authorize(t, a, sb)
	if err := a.Update(ctx, call, storetest.Alpha, true, storetest.Increment); err != nil {
		t.Fatal(err)
	}
	if v := worldVersion(t, a, call); v != 0 {
		t.Fatalf("after a write with the record, version %d, want 0 (unknown)", v)
	}
	if v, n := readVersion(t, a, call); v != 3 || n != 2 {
		t.Fatalf("read after a's write = version %d counter %d, want 3 and 2", v, n)
	}

	// A replica that starts afresh reads the same version.
	c := newRedis(t, time.Now)
	if v := worldVersion(t, c, authorize(t, c, sb)); v != 3 {
		t.Fatalf("a fresh replica's version = %d, want 3", v)
	}
}

// TestRedisWorldVersionsRepeatAcrossIncarnations: a sandbox discarded and
// created again under the same id counts its versions from 1 again, which
// is why what is kept by version is kept per incarnation (CreatedAt).
func TestRedisWorldVersionsRepeatAcrossIncarnations(t *testing.T) {
	ctx := context.Background()
	s := newRedis(t, time.Now)
	team := storetest.NewTeam()
	sb := createSandbox(t, s, team, time.Hour, "alpha")
	if err := s.Update(ctx, authorize(t, s, sb), storetest.Alpha, true, storetest.Increment); err != nil {
		t.Fatal(err)
	}
	if v, n := readVersion(t, s, authorize(t, s, sb)); v != 2 || n != 1 {
		t.Fatalf("read = version %d counter %d, want 2 and 1", v, n)
	}
	if err := s.Discard(ctx, sb.ID); err != nil {
		t.Fatal(err)
	}
	again := storetest.NewSandbox(team, time.Now().Add(time.Millisecond), time.Hour, "alpha")
	again.ID = sb.ID
	if err := s.Create(ctx, again, storetest.SeedWorlds(t, "alpha"), 0); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		// The incarnation's own version, and its own world, not the
		// one cached for the sandbox before.
		call := authorize(t, s, again)
		if !call.CreatedAt.Equal(again.CreatedAt) {
			t.Fatalf("record of the new incarnation created at %v, want %v", call.CreatedAt, again.CreatedAt)
		}
		if v := worldVersion(t, s, call); v != 1 {
			t.Fatalf("new incarnation's version = %d, want 1", v)
		}
		if v, n := readVersion(t, s, call); v != 1 || n != 0 {
			t.Fatalf("new incarnation's read = version %d counter %d, want 1 and 0", v, n)
		}
	}
}
