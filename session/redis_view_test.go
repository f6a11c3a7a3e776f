package session_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/pomehq/pome/session"
	"github.com/pomehq/pome/session/storetest"
)

// newCountedRedis returns a store whose round trips are counted.
func newCountedRedis(t *testing.T) (*session.RedisStore, *storetest.RoundTrips) {
	t.Helper()
	c := newRedisClient(t)
	rt := &storetest.RoundTrips{}
	c.AddHook(rt)
	s := session.NewRedisStore(c, time.Now)
	t.Cleanup(func() { s.Close() })
	return s, rt
}

// authorize reads the sandbox as the data plane does for a call on alpha.
func authorize(t *testing.T, s session.Store, sb *session.Sandbox) *session.Sandbox {
	t.Helper()
	m := session.NewManager(s, nil, session.Config{}, nil)
	got, role, err := m.Authorize(context.Background(), sb.ID, "alpha", "auth")
	if err != nil || role != session.RoleAuth {
		t.Fatalf("Authorize = %v, %v", role, err)
	}
	return got
}

// TestRedisAuthorizeThenRead: a read right after the call's authorization
// makes no round trip of its own when the world is cached at the version
// the authorization saw, and a write then costs only the save.
func TestRedisAuthorizeThenRead(t *testing.T) {
	ctx := context.Background()
	s, rt := newCountedRedis(t)
	sb := createSandbox(t, s, storetest.NewTeam(), time.Hour, "alpha")
	if _, err := readWorld(t, s, authorize(t, s, sb)); err != nil { // caches
		t.Fatal(err)
	}
	rt.N.Store(0)
	call := authorize(t, s, sb)
	if w, err := readWorld(t, s, call); err != nil || w.Counter != 0 {
		t.Fatalf("read = %+v, %v", w, err)
	}
	if n := rt.N.Load(); n != 1 {
		t.Errorf("authorize + cached read took %d round trips, want 1", n)
	}
	rt.N.Store(0)
	call = authorize(t, s, sb)
	if err := s.Update(ctx, call, storetest.Alpha, true, storetest.Increment); err != nil {
		t.Fatal(err)
	}
	if n := rt.N.Load(); n != 2 {
		t.Errorf("authorize + write took %d round trips, want 2", n)
	}
	// A later read of the same call must see the call's own write.
	if w, err := readWorld(t, s, call); err != nil || w.Counter != 1 {
		t.Errorf("read after the call's write = %+v, %v, want counter 1", w, err)
	}
}

// TestRedisAuthorizeSeesOtherReplica: a write or discard another replica
// completed before a call's authorization is seen by the call's read.
func TestRedisAuthorizeSeesOtherReplica(t *testing.T) {
	ctx := context.Background()
	a, b := newRedis(t, time.Now), newRedis(t, time.Now)
	sb := createSandbox(t, a, storetest.NewTeam(), time.Hour, "alpha")
	for i := 1; i <= 3; i++ {
		if _, err := readWorld(t, a, authorize(t, a, sb)); err != nil {
			t.Fatal(err)
		}
		if err := b.Update(ctx, authorize(t, b, sb), storetest.Alpha, true, storetest.Increment); err != nil {
			t.Fatal(err)
		}
		if w, err := readWorld(t, a, authorize(t, a, sb)); err != nil || w.Counter != i {
			t.Fatalf("round %d: read on a = %+v, %v, want counter %d", i, w, err, i)
		}
	}
	call := authorize(t, a, sb)
	if err := b.Discard(ctx, sb.ID); err != nil {
		t.Fatal(err)
	}
	m := session.NewManager(a, nil, session.Config{}, nil)
	if _, _, err := m.Authorize(ctx, sb.ID, "alpha", "auth"); !errors.Is(err, session.ErrDenied) {
		t.Errorf("Authorize after another replica's discard = %v, want ErrDenied", err)
	}
	// A call authorized before the discard overlaps it: the world as of its
	// authorization is a correct answer, and the view runs out.
	time.Sleep(1100 * time.Millisecond)
	if _, err := readWorld(t, a, call); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("read with a record a second old after a discard = %v, want ErrNotFound", err)
	}
}

// TestRedisViewEndsWithWrite: once a call wrote, its reads ask Redis even
// when the cache holds the version the call's authorization saw again (as
// it does when a reader that fetched that version before the write puts it
// back after the written world was evicted).
func TestRedisViewEndsWithWrite(t *testing.T) {
	ctx := context.Background()
	s := newRedis(t, time.Now)
	sb := createSandbox(t, s, storetest.NewTeam(), time.Hour, "alpha")
	seed, err := readWorld(t, s, sb)
	if err != nil {
		t.Fatal(err)
	}
	call := authorize(t, s, sb)
	if err := s.Update(ctx, call, storetest.Alpha, true, storetest.Increment); err != nil {
		t.Fatal(err)
	}
	s.SetWorldCacheBytes(-1) // evicts the written world
	s.SetWorldCacheBytes(0)
	s.CacheWorld(sb, "alpha", 1, []byte(`{"counter":0,"items":["seed"]}`), &seed)
	if w, err := readWorld(t, s, call); err != nil || w.Counter != 1 {
		t.Errorf("read after the call's write = counter %d, %v, want 1", w.Counter, err)
	}
}

// TestRedisAuthorizeSeesStop: a Stop on another replica is seen by the
// next authorization on this one, which reads the record every call.
func TestRedisAuthorizeSeesStop(t *testing.T) {
	ctx := context.Background()
	a, b := newRedis(t, time.Now), newRedis(t, time.Now)
	sb := createSandbox(t, a, storetest.NewTeam(), time.Hour, "alpha")
	for range 3 {
		if got := authorize(t, a, sb); got.State != session.StateReady {
			t.Fatalf("state %q before the stop", got.State)
		}
	}
	if _, err := b.Stop(ctx, sb.ID, time.Now(), time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if got := authorize(t, a, sb); got.State != session.StateStopped || got.StoppedAt == nil {
		t.Errorf("after another replica's stop: state %q, stopped at %v", got.State, got.StoppedAt)
	}
}

// TestRedisUnleasedWriteYieldsToLease: a write that starts from the world
// its authorization saw, without the lease, does not save while another
// replica holds the lease; it reruns the ordinary way once that is gone.
func TestRedisUnleasedWriteYieldsToLease(t *testing.T) {
	ctx := context.Background()
	s := newRedis(t, time.Now)
	raw := newRedisClient(t)
	defer raw.Close()
	sb := createSandbox(t, s, storetest.NewTeam(), time.Hour, "alpha")
	if _, err := readWorld(t, s, sb); err != nil {
		t.Fatal(err)
	}
	call := authorize(t, s, sb)
	// Another replica is mid-update: it holds the lease for 300ms.
	if err := raw.Set(ctx, session.LockKey(sb.ID, "alpha"), "other", 300*time.Millisecond).Err(); err != nil {
		t.Fatal(err)
	}
	runs := 0
	start := time.Now()
	err := s.Update(ctx, call, storetest.Alpha, true, func(world any) (bool, error) {
		runs++
		return storetest.Increment(world)
	})
	if err != nil {
		t.Fatal(err)
	}
	if runs != 2 || time.Since(start) < 250*time.Millisecond {
		t.Errorf("fn ran %d times in %v, want a refused save then a rerun once the lease was gone", runs, time.Since(start))
	}
	if w := worldOf(t, s, sb, "alpha"); w.Counter != 1 {
		t.Errorf("counter = %d, want 1", w.Counter)
	}
}

// TestRedisAuthorizedWritesTwoReplicas: calls on two replicas, each
// authorized and then writing (so most start without the lease), lose no
// update.
func TestRedisAuthorizedWritesTwoReplicas(t *testing.T) {
	ctx := context.Background()
	a, b := newRedis(t, time.Now), newRedis(t, time.Now)
	sb := createSandbox(t, a, storetest.NewTeam(), time.Hour, "alpha")
	const perReplica = 150
	var wg sync.WaitGroup
	errs := make(chan error, 2*perReplica)
	for _, s := range []*session.RedisStore{a, b} {
		m := session.NewManager(s, nil, session.Config{}, nil)
		for i := range perReplica {
			wg.Add(1)
			go func() {
				defer wg.Done()
				call, _, err := m.Authorize(ctx, sb.ID, "alpha", "auth")
				if err == nil && i%3 == 0 {
					_, err = readWorld(t, s, call)
				}
				if err == nil {
					err = s.Update(ctx, call, storetest.Alpha, true, storetest.Increment)
				}
				errs <- err
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range []*session.RedisStore{a, b} {
		if w, _ := readWorld(t, s, authorize(t, s, sb)); w.Counter != 2*perReplica {
			t.Errorf("counter after 2×%d concurrent calls = %d", perReplica, w.Counter)
		}
	}
}
