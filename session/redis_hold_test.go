package session_test

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/pomehq/pome/session"
	"github.com/pomehq/pome/session/storetest"
	"github.com/pomehq/pome/tape"
)

// heldCall authorizes a call on alpha as the data plane does for a write
// whose answer it holds.
func heldCall(t *testing.T, s session.Store, sb *session.Sandbox, afterConflict bool) (*session.Manager, *session.Sandbox) {
	t.Helper()
	m := session.NewManager(s, nil, session.Config{}, nil)
	call := authorize(t, s, sb)
	m.HoldWrites(call, afterConflict)
	if !call.Holding() {
		t.Fatal("a Redis record does not hold its writes")
	}
	return m, call
}

func writeRow() *tape.Row {
	return &tape.Row{At: time.Now(), Twin: "alpha", Transport: tape.TransportREST, Method: "POST", Path: "/x", Status: 200, StateMutation: true}
}

// TestRedisHeldWriteStoredWithItsRow: a held write changes nothing in Redis
// until its row is recorded, and then the world and the row are stored in
// one round trip; from the cached world or under the lease.
func TestRedisHeldWriteStoredWithItsRow(t *testing.T) {
	ctx := context.Background()
	s, rt := newCountedRedis(t)
	sb := createSandbox(t, s, storetest.NewTeam(), time.Hour, "alpha")
	if _, err := readWorld(t, s, authorize(t, s, sb)); err != nil { // caches the world
		t.Fatal(err)
	}
	for i, leased := range []bool{false, false, true} {
		m, call := heldCall(t, s, sb, leased)
		rt.N.Store(0)
		if err := s.Update(ctx, call, storetest.Alpha, true, storetest.Increment); err != nil {
			t.Fatal(err)
		}
		updateTrips := rt.N.Load()
		if w := worldOf(t, s, sb, "alpha"); w.Counter != i {
			t.Fatalf("write %d: counter %d in Redis before its row, want %d", i+1, w.Counter, i)
		}
		if stored, total := tapeLen(t, s, sb); total != int64(i) || stored != int64(i) {
			t.Fatalf("write %d: tape %d/%d before its row", i+1, stored, total)
		}
		rt.N.Store(0)
		row := writeRow()
		if err := m.Record(ctx, call, row); err != nil || row.Seq != int64(i+1) {
			t.Fatalf("write %d: record = seq %d, %v", i+1, row.Seq, err)
		}
		recordTrips := rt.N.Load()
		m.Settle(ctx, call)
		if call.Stale() || call.StoreFailed() {
			t.Fatalf("write %d: refused (stale %v, failed %v)", i+1, call.Stale(), call.StoreFailed())
		}
		if w := worldOf(t, s, sb, "alpha"); w.Counter != i+1 {
			t.Fatalf("write %d: counter %d after its row", i+1, w.Counter)
		}
		// The first write also loads the merged script into Redis.
		if i > 0 && recordTrips != 1 {
			t.Errorf("write %d: world and row took %d round trips, want 1", i+1, recordTrips)
		}
		if !leased && i > 0 && updateTrips != 0 {
			t.Errorf("write %d from the cached world: %d round trips before its row, want 0", i+1, updateTrips)
		}
	}
	// The lease the last write took went with its save: another writer
	// does not wait it out.
	start := time.Now()
	if err := s.Update(ctx, authorize(t, s, sb), storetest.Alpha, true, storetest.Increment); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("the next write waited %v: the held write's lease was left behind", d)
	}
}

// TestRedisHeldWriteConflictStoresNothing: a held write made from the
// cached world, whose version another replica moved on before its row was
// recorded, stores neither world nor row and is refused as stale; served
// again under the lease, it lands once, and the twin's lock it held is
// free.
func TestRedisHeldWriteConflictStoresNothing(t *testing.T) {
	ctx := context.Background()
	a, b := newRedis(t, time.Now), newRedis(t, time.Now)
	sb := createSandbox(t, a, storetest.NewTeam(), time.Hour, "alpha")
	if _, err := readWorld(t, a, authorize(t, a, sb)); err != nil {
		t.Fatal(err)
	}
	m, call := heldCall(t, a, sb, false)
	if err := a.Update(ctx, call, storetest.Alpha, true, storetest.Increment); err != nil {
		t.Fatal(err)
	}
	// Replica b writes and tapes in between.
	if err := b.Update(ctx, authorize(t, b, sb), storetest.Alpha, true, storetest.Increment); err != nil {
		t.Fatal(err)
	}
	mb := session.NewManager(b, nil, session.Config{}, nil)
	if err := mb.Record(ctx, authorize(t, b, sb), writeRow()); err != nil {
		t.Fatal(err)
	}
	err := m.Record(ctx, call, writeRow())
	if !errors.Is(err, session.ErrStale) || !call.Stale() {
		t.Fatalf("record after a conflict = %v (stale %v), want ErrStale", err, call.Stale())
	}
	m.Settle(ctx, call)
	if w := worldOf(t, a, sb, "alpha"); w.Counter != 1 {
		t.Fatalf("counter %d: the refused write was stored", w.Counter)
	}
	if stored, total := tapeLen(t, a, sb); stored != 1 || total != 1 {
		t.Fatalf("tape %d/%d: the refused write took a seq", stored, total)
	}
	// Served again, as the data plane does.
	done := make(chan struct{})
	go func() {
		defer close(done)
		m, again := heldCall(t, a, sb, true)
		if err := a.Update(ctx, again, storetest.Alpha, true, storetest.Increment); err != nil {
			t.Error(err)
			return
		}
		row := writeRow()
		if err := m.Record(ctx, again, row); err != nil || row.Seq != 2 {
			t.Errorf("served again: seq %d, %v", row.Seq, err)
		}
		m.Settle(ctx, again)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the write served again is stuck: the refused one kept the twin's lock")
	}
	if w := worldOf(t, a, sb, "alpha"); w.Counter != 2 {
		t.Fatalf("counter %d after both writes, want 2", w.Counter)
	}
}

// TestRedisHeldWriteSettledWithoutRow: a held write whose row never comes
// is saved alone when its call is settled, rather than lost or left
// holding the twin.
func TestRedisHeldWriteSettledWithoutRow(t *testing.T) {
	ctx := context.Background()
	s := newRedis(t, time.Now)
	sb := createSandbox(t, s, storetest.NewTeam(), time.Hour, "alpha")
	for i, leased := range []bool{false, true} {
		m, call := heldCall(t, s, sb, leased)
		if err := s.Update(ctx, call, storetest.Alpha, true, storetest.Increment); err != nil {
			t.Fatal(err)
		}
		m.Settle(ctx, call)
		if call.Stale() || call.StoreFailed() {
			t.Fatalf("settled write refused (stale %v, failed %v)", call.Stale(), call.StoreFailed())
		}
		if w := worldOf(t, s, sb, "alpha"); w.Counter != i+1 {
			t.Fatalf("counter %d after settling write %d", w.Counter, i+1)
		}
	}
	// A second write in one call saves the first before it starts.
	m, call := heldCall(t, s, sb, false)
	for range 2 {
		if err := s.Update(ctx, call, storetest.Alpha, true, storetest.Increment); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Record(ctx, call, writeRow()); err != nil {
		t.Fatal(err)
	}
	m.Settle(ctx, call)
	if w := worldOf(t, s, sb, "alpha"); w.Counter != 4 {
		t.Fatalf("counter %d after two writes in one call, want 4", w.Counter)
	}
}

// TestRedisLostHeldWriteReplyAppliesOnce: the merged script, sent again
// after its reply was lost, stores the world and the row once.
func TestRedisLostHeldWriteReplyAppliesOnce(t *testing.T) {
	ctx := context.Background()
	s, p := cutterStore(t)
	sb := createSandbox(t, s, storetest.NewTeam(), time.Hour, "alpha")
	for i := range 2 {
		m, call := heldCall(t, s, sb, i == 1)
		if err := s.Update(ctx, call, storetest.Alpha, true, storetest.Increment); err != nil {
			t.Fatal(err)
		}
		p.arm(session.SaveAppendScriptHash())
		row := writeRow()
		if err := m.Record(ctx, call, row); err != nil || row.Seq != int64(i+1) {
			t.Fatalf("record = seq %d, %v", row.Seq, err)
		}
		m.Settle(ctx, call)
		if p.cuts.Load() != int32(i+1) {
			t.Fatalf("the merged script's reply was not cut (%d cuts)", p.cuts.Load())
		}
		if call.Stale() || call.StoreFailed() {
			t.Fatalf("refused after a resend (stale %v, failed %v)", call.Stale(), call.StoreFailed())
		}
		if w := worldOf(t, s, sb, "alpha"); w.Counter != i+1 {
			t.Fatalf("counter %d after %d writes", w.Counter, i+1)
		}
		if stored, total := tapeLen(t, s, sb); stored != int64(i+1) || total != int64(i+1) {
			t.Fatalf("tape %d/%d after %d writes", stored, total, i+1)
		}
	}
}

// TestRedisHeldWriteOnGoneSandbox: a held write whose sandbox was
// discarded before its row stores nothing and is served again (to meet the
// sandbox's absence), not answered as if stored.
func TestRedisHeldWriteOnGoneSandbox(t *testing.T) {
	ctx := context.Background()
	s := newRedis(t, time.Now)
	sb := createSandbox(t, s, storetest.NewTeam(), time.Hour, "alpha")
	m, call := heldCall(t, s, sb, false)
	if err := s.Update(ctx, call, storetest.Alpha, true, storetest.Increment); err != nil {
		t.Fatal(err)
	}
	if err := s.Discard(ctx, sb.ID); err != nil {
		t.Fatal(err)
	}
	if err := m.Record(ctx, call, writeRow()); !errors.Is(err, session.ErrNotFound) {
		t.Fatalf("record on a gone sandbox = %v", err)
	}
	m.Settle(ctx, call)
	if !call.Stale() {
		t.Error("a write on a gone sandbox is not served again")
	}
	if _, err := s.State(ctx, sb, "alpha"); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("state after discard: %v", err)
	}
}

// TestMemoryStoreDoesNotHold: the embedded store saves at once; HoldWrites
// leaves its records alone.
func TestMemoryStoreDoesNotHold(t *testing.T) {
	s := session.NewMemoryStore(time.Now, 0)
	m := session.NewManager(s, nil, session.Config{}, nil)
	sb := createSandbox(t, s, storetest.NewTeam(), time.Hour, "alpha")
	m.HoldWrites(sb, false)
	if m.HoldsWrites() || sb.Holding() {
		t.Error("the embedded store claims to hold writes")
	}
}

// failScript is a go-redis hook that, while on, fails every command (or
// pipeline) that runs the script with the given hash, as an unreachable
// Redis would, without sending it.
type failScript struct {
	hash string
	on   atomic.Bool
}

var errUnreachable = errors.New("redis unreachable (test)")

func (f *failScript) hits(cmd redis.Cmder) bool {
	for _, a := range cmd.Args() {
		if s, ok := a.(string); ok && s == f.hash {
			return true
		}
	}
	return false
}

func (f *failScript) DialHook(next redis.DialHook) redis.DialHook { return next }

func (f *failScript) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if f.on.Load() && f.hits(cmd) {
			cmd.SetErr(errUnreachable)
			return errUnreachable
		}
		return next(ctx, cmd)
	}
}

func (f *failScript) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		if f.on.Load() && slices.ContainsFunc(cmds, f.hits) {
			for _, c := range cmds {
				c.SetErr(errUnreachable)
			}
			return errUnreachable
		}
		return next(ctx, cmds)
	}
}

// TestRedisHeldWriteStoreFailure: a held write whose merged script cannot
// reach Redis stores nothing; settled, the call is answered as a store
// failure, and neither its Redis lease nor its in-process lock is left for
// other writers to wait out.
func TestRedisHeldWriteStoreFailure(t *testing.T) {
	ctx := context.Background()
	c := newRedisClient(t)
	f := &failScript{hash: session.SaveAppendScriptHash()}
	c.AddHook(f)
	a := session.NewRedisStore(c, time.Now)
	t.Cleanup(func() { a.Close() })
	b := newRedis(t, time.Now)
	sb := createSandbox(t, a, storetest.NewTeam(), time.Hour, "alpha")
	want := 0
	for _, leased := range []bool{false, true} {
		_, call := heldCall(t, a, sb, leased)
		if err := a.Update(ctx, call, storetest.Alpha, true, storetest.Increment); err != nil {
			t.Fatal(err)
		}
		f.on.Store(true)
		if _, err := a.Append(ctx, call, writeRow()); err == nil {
			t.Fatal("append through an unreachable Redis succeeded")
		}
		f.on.Store(false)
		session.NewManager(a, nil, session.Config{}, nil).Settle(ctx, call)
		if !call.StoreFailed() || call.Stale() {
			t.Fatalf("leased=%v: failed %v, stale %v; want a store failure", leased, call.StoreFailed(), call.Stale())
		}
		if w := worldOf(t, a, sb, "alpha"); w.Counter != want {
			t.Fatalf("leased=%v: counter %d after a write that never reached Redis, want %d", leased, w.Counter, want)
		}
		if stored, total := tapeLen(t, a, sb); stored != 0 || total != 0 {
			t.Fatalf("leased=%v: tape %d/%d", leased, stored, total)
		}
		// Another replica (the lease) and this one (its lock) write at once.
		for _, s := range []*session.RedisStore{b, a} {
			start := time.Now()
			s.DropCachedWorld(sb.ID, "alpha") // through the lease
			if err := s.Update(ctx, authorize(t, s, sb), storetest.Alpha, true, storetest.Increment); err != nil {
				t.Fatal(err)
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("leased=%v: the next write waited %v", leased, d)
			}
			want++
		}
	}
}

// TestRedisHeldWriteAbandoned: a held write given up (its attempt
// panicked) stores nothing and leaves neither lease nor lock behind.
func TestRedisHeldWriteAbandoned(t *testing.T) {
	ctx := context.Background()
	a, b := newRedis(t, time.Now), newRedis(t, time.Now)
	sb := createSandbox(t, a, storetest.NewTeam(), time.Hour, "alpha")
	for i, leased := range []bool{false, true} {
		m, call := heldCall(t, a, sb, leased)
		if err := a.Update(ctx, call, storetest.Alpha, true, storetest.Increment); err != nil {
			t.Fatal(err)
		}
		m.Abandon(call)
		m.Settle(ctx, call) // nothing left to settle
		if !call.StoreFailed() {
			t.Error("an abandoned write is not reported failed")
		}
		if w := worldOf(t, a, sb, "alpha"); w.Counter != 2*i {
			t.Fatalf("leased=%v: counter %d, want %d: the abandoned write was stored", leased, w.Counter, 2*i)
		}
		for _, s := range []*session.RedisStore{b, a} {
			start := time.Now()
			s.DropCachedWorld(sb.ID, "alpha")
			if err := s.Update(ctx, authorize(t, s, sb), storetest.Alpha, true, storetest.Increment); err != nil {
				t.Fatal(err)
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("leased=%v: the next write waited %v", leased, d)
			}
		}
	}
}
