package session_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/pomehq/pome/session"
	"github.com/pomehq/pome/session/storetest"
)

// readWorld reads the alpha world through a read Update, as a read
// action does, and returns a copy of it.
func readWorld(t *testing.T, s session.Store, sb *session.Sandbox) (storetest.World, error) {
	t.Helper()
	var got storetest.World
	err := s.Update(context.Background(), sb, storetest.Alpha, false, func(world any) (bool, error) {
		w := world.(*storetest.World)
		got = storetest.World{Counter: w.Counter, Items: append([]string(nil), w.Items...)}
		return false, nil
	})
	return got, err
}

// TestRedisCacheSeesOtherReplica: a world cached by one replica is not
// served once another replica wrote, for reads and for writes.
func TestRedisCacheSeesOtherReplica(t *testing.T) {
	ctx := context.Background()
	a, b := newRedis(t, time.Now), newRedis(t, time.Now)
	sb := createSandbox(t, a, storetest.NewTeam(), time.Hour, "alpha")
	for i := 1; i <= 3; i++ {
		if _, err := readWorld(t, a, sb); err != nil { // cached on a
			t.Fatal(err)
		}
		if err := b.Update(ctx, sb, storetest.Alpha, true, storetest.Increment); err != nil {
			t.Fatal(err)
		}
		w, err := readWorld(t, a, sb)
		if err != nil {
			t.Fatal(err)
		}
		if w.Counter != 2*i-1 {
			t.Fatalf("round %d: a reads counter %d after b's write, want %d", i, w.Counter, 2*i-1)
		}
		// a's write must start from b's state, not from a's cached world.
		if err := a.Update(ctx, sb, storetest.Alpha, true, storetest.Increment); err != nil {
			t.Fatal(err)
		}
		if w, _ := readWorld(t, b, sb); w.Counter != 2*i {
			t.Fatalf("round %d: b reads counter %d after a's write, want %d", i, w.Counter, 2*i)
		}
	}
	if w := worldOf(t, a, sb, "alpha"); w.Counter != 6 {
		t.Errorf("stored counter = %d, want 6", w.Counter)
	}
}

// TestRedisCacheDiscard: a discarded sandbox is not served from the cache,
// whichever replica discarded it.
func TestRedisCacheDiscard(t *testing.T) {
	ctx := context.Background()
	a, b := newRedis(t, time.Now), newRedis(t, time.Now)
	for _, discarder := range []*session.RedisStore{a, b} {
		sb := createSandbox(t, a, storetest.NewTeam(), time.Hour, "alpha")
		if err := a.Update(ctx, sb, storetest.Alpha, true, storetest.Increment); err != nil {
			t.Fatal(err)
		}
		if _, err := readWorld(t, a, sb); err != nil {
			t.Fatal(err)
		}
		if err := discarder.Discard(ctx, sb.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := readWorld(t, a, sb); !errors.Is(err, session.ErrNotFound) {
			t.Errorf("read after discard = %v, want ErrNotFound", err)
		}
		if err := a.Update(ctx, sb, storetest.Alpha, true, storetest.Increment); !errors.Is(err, session.ErrNotFound) {
			t.Errorf("write after discard = %v, want ErrNotFound", err)
		}
	}
}

// TestRedisCacheNewIncarnation: a sandbox id used again after its keys
// went (which random ids make practically impossible) does not get the old
// sandbox's cached world, though both start at version 1.
func TestRedisCacheNewIncarnation(t *testing.T) {
	ctx := context.Background()
	s, other := newRedis(t, time.Now), newRedis(t, time.Now)
	sb := createSandbox(t, s, storetest.NewTeam(), time.Hour, "alpha")
	// other caches the first sandbox's world at version 1 and never hears
	// of the discard.
	if w, err := readWorld(t, other, sb); err != nil || w.Items[0] != "seed" {
		t.Fatalf("read = %+v, %v", w, err)
	}
	if err := s.Discard(ctx, sb.ID); err != nil {
		t.Fatal(err)
	}
	again := storetest.NewSandbox(sb.Team, sb.CreatedAt.Add(time.Millisecond), time.Hour, "alpha")
	again.ID = sb.ID
	worlds := storetest.SeedWorlds(t, "alpha")
	worlds["alpha"] = session.SeedWorld{Doc: []byte(`{"counter":7,"items":["other"]}`)}
	if err := s.Create(ctx, again, worlds, 0); err != nil {
		t.Fatal(err)
	}
	if w, err := readWorld(t, other, again); err != nil || w.Counter != 7 {
		t.Errorf("read of the new sandbox = %+v, %v, want its own seed", w, err)
	}
	if err := other.Update(ctx, again, storetest.Alpha, true, storetest.Increment); err != nil {
		t.Fatal(err)
	}
	if w := worldOf(t, s, again, "alpha"); w.Counter != 8 || w.Items[0] != "other" {
		t.Errorf("stored world after a write = %+v, want the new sandbox's seed plus one", w)
	}
}

// TestRedisCacheBound: however many sandboxes are read, the cache stays
// within its bound, and evicted worlds are read again from Redis.
func TestRedisCacheBound(t *testing.T) {
	s := newRedis(t, time.Now)
	const bound = 8 << 10
	s.SetWorldCacheBytes(bound)
	team := storetest.NewTeam()
	var sbs []*session.Sandbox
	for i := range 100 {
		sb := createSandbox(t, s, team, time.Hour, "alpha")
		sbs = append(sbs, sb)
		if i%2 == 0 {
			if err := s.Update(context.Background(), sb, storetest.Alpha, true, storetest.Increment); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := readWorld(t, s, sb); err != nil {
			t.Fatal(err)
		}
		if n, bytes := s.WorldCacheStats(); bytes > bound || n == 0 {
			t.Fatalf("after %d sandboxes: %d worlds, %d bytes cached; bound %d", i+1, n, bytes, bound)
		}
	}
	n, _ := s.WorldCacheStats()
	if n >= 100 {
		t.Fatalf("%d worlds cached under a bound of %d bytes", n, bound)
	}
	for i, sb := range sbs {
		w, err := readWorld(t, s, sb)
		if err != nil {
			t.Fatal(err)
		}
		if want := 1 - i%2; w.Counter != want {
			t.Errorf("sandbox %d: counter %d, want %d", i, w.Counter, want)
		}
	}
	// Shrinking the bound evicts at once; a negative one caches nothing.
	s.SetWorldCacheBytes(1 << 10)
	if _, bytes := s.WorldCacheStats(); bytes > 1<<10 {
		t.Errorf("%d bytes cached after shrinking the bound to 1 KiB", bytes)
	}
	s.SetWorldCacheBytes(-1)
	if _, err := readWorld(t, s, sbs[0]); err != nil {
		t.Fatal(err)
	}
	if n, _ := s.WorldCacheStats(); n != 0 {
		t.Errorf("%d worlds cached with the cache off", n)
	}
}

// TestRedisCacheNoHalfWrites: readers on two replicas never see a world a
// write is in the middle of changing (a write works on a private copy, and
// the cache only ever holds saved worlds), and a write that changes its
// copy but reports no mutation leaves nothing behind. Run with -race, it
// also shows no cached world is written while shared.
func TestRedisCacheNoHalfWrites(t *testing.T) {
	ctx := context.Background()
	a, b := newRedis(t, time.Now), newRedis(t, time.Now)
	sb := createSandbox(t, a, storetest.NewTeam(), time.Hour, "alpha")
	// The invariant every saved world keeps: one item per increment, past
	// the seed's.
	step := func(world any) (bool, error) {
		w := world.(*storetest.World)
		w.Counter++
		time.Sleep(50 * time.Microsecond) // widen the half-written window
		w.Items = append(w.Items, fmt.Sprint(w.Counter))
		return true, nil
	}
	abandon := func(world any) (bool, error) {
		w := world.(*storetest.World)
		w.Counter += 100
		w.Items = nil
		return false, errors.New("refused")
	}
	check := func(w storetest.World) error {
		if len(w.Items) != w.Counter+1 {
			return fmt.Errorf("world with counter %d and %d items", w.Counter, len(w.Items))
		}
		return nil
	}
	const writes = 60
	var wg sync.WaitGroup
	stop := make(chan struct{})
	errs := make(chan error, 64)
	for _, s := range []*session.RedisStore{a, b} {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for i := range writes {
				fn := step
				if i%5 == 4 {
					fn = abandon
				}
				if err := s.Update(ctx, sb, storetest.Alpha, true, fn); err != nil && err.Error() != "refused" {
					errs <- err
					return
				}
			}
		}()
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				err := s.Update(ctx, sb, storetest.Alpha, false, func(world any) (bool, error) {
					return false, check(*world.(*storetest.World))
				})
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	go func() {
		// Stop the readers once the writers are done (or the test is
		// hopeless).
		deadline := time.Now().Add(20 * time.Second)
		for {
			if w, err := readWorld(t, a, sb); err != nil || w.Counter >= 2*writes*4/5 || time.Now().After(deadline) {
				close(stop)
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for _, s := range []*session.RedisStore{a, b} {
		w, err := readWorld(t, s, sb)
		if err != nil {
			t.Fatal(err)
		}
		if w.Counter != 2*writes*4/5 || check(w) != nil {
			t.Errorf("final world has counter %d and %d items, want %d and one more", w.Counter, len(w.Items), 2*writes*4/5)
		}
	}
}
