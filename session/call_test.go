package session_test

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/pomehq/pome/session"
	"github.com/pomehq/pome/session/storetest"
	"github.com/pomehq/pome/tape"
)

// callBackends are the stores Call is tested on: memory always, Redis
// when POME_TEST_REDIS_URL is set.
func callBackends(t *testing.T) map[string]func(t *testing.T) session.Store {
	b := map[string]func(t *testing.T) session.Store{
		"memory": func(t *testing.T) session.Store {
			s := session.NewMemoryStore(time.Now, 0)
			t.Cleanup(func() { s.Close() })
			return s
		},
	}
	if os.Getenv("POME_TEST_REDIS_URL") != "" {
		b["redis"] = func(t *testing.T) session.Store { return newRedis(t, time.Now) }
	}
	return b
}

// serveWrite serves an attempt as a transport serves a write on alpha:
// the write runs on the world, then the call is taped.
func serveWrite(t *testing.T, m *session.Manager, a session.Attempt) {
	t.Helper()
	if err := m.Store.Update(context.Background(), a.Sandbox, storetest.Alpha, true, storetest.Increment); err != nil {
		t.Errorf("write: %v", err)
		return
	}
	if err := m.Record(context.Background(), a.Sandbox, writeRow()); err != nil && !a.Sandbox.Stale() {
		t.Errorf("record: %v", err)
	}
}

// serveRead serves an attempt as a transport serves a read on alpha, and
// returns the counter it answered.
func serveRead(t *testing.T, m *session.Manager, a session.Attempt) int {
	t.Helper()
	w, err := readWorld(t, m.Store, a.Sandbox)
	if err != nil {
		t.Errorf("read: %v", err)
	}
	row := &tape.Row{At: time.Now(), Twin: "alpha", Transport: tape.TransportREST, Method: "GET", Path: "/x", Status: 200}
	if err := m.Record(context.Background(), a.Sandbox, row); err != nil && !a.Sandbox.Stale() {
		t.Errorf("record: %v", err)
	}
	return w.Counter
}

func kindOf(k session.CallKind) func() session.CallKind {
	return func() session.CallKind { return k }
}

func isUnavailable(err error) bool {
	var e *session.Error
	return errors.As(err, &e) && e.Type == session.ErrUnavailable
}

// TestCallServesOnce: with nothing in its way, a call is served in one
// attempt, its write and its row kept; on a store that neither speculates
// nor holds writes, the transport is not asked what the call is.
func TestCallServesOnce(t *testing.T) {
	ctx := context.Background()
	for name, open := range callBackends(t) {
		t.Run(name, func(t *testing.T) {
			s := open(t)
			m := session.NewManager(s, nil, session.Config{}, nil)
			sb := createSandbox(t, s, storetest.NewTeam(), time.Hour, "alpha")
			for _, k := range []session.CallKind{session.CallWrite, session.CallRead, session.CallOther} {
				asked := false
				kind := func() session.CallKind { asked = true; return k }
				attempts := 0
				err := m.NewCall(sb.ID, "alpha", "auth").Do(ctx, kind, func(a session.Attempt) {
					attempts++
					if a.Role != session.RoleAuth || a.Sandbox.ID != sb.ID {
						t.Errorf("attempt with role %v on %s", a.Role, a.Sandbox.ID)
					}
					if k == session.CallWrite {
						serveWrite(t, m, a)
					} else {
						serveRead(t, m, a)
					}
				})
				if err != nil || attempts != 1 {
					t.Fatalf("kind %d: Do = %v after %d attempts, want nil after 1", k, err, attempts)
				}
				if name == "memory" && asked {
					t.Errorf("kind %d: the memory store asked what the call is", k)
				}
			}
			if w := worldOf(t, s, sb, "alpha"); w.Counter != 1 {
				t.Errorf("counter %d, want 1", w.Counter)
			}
			if stored, total := tapeLen(t, s, sb); stored != 3 || total != 3 {
				t.Errorf("tape %d/%d, want 3 rows", stored, total)
			}
		})
	}
}

// TestCallDenied: a call the sandbox does not open is ErrDenied, and
// never served.
func TestCallDenied(t *testing.T) {
	ctx := context.Background()
	for name, open := range callBackends(t) {
		t.Run(name, func(t *testing.T) {
			s := open(t)
			m := session.NewManager(s, nil, session.Config{}, nil)
			sb := createSandbox(t, s, storetest.NewTeam(), time.Hour, "alpha")
			for _, c := range []struct{ id, twin, token string }{
				{sb.ID, "alpha", "wrong"}, {sb.ID, "beta", "auth"}, {sb.ID, "alpha", ""},
				{session.NewSandboxID(), "alpha", "auth"}, {"not-an-id", "alpha", "auth"},
			} {
				for _, k := range []session.CallKind{session.CallRead, session.CallWrite} {
					err := m.NewCall(c.id, c.twin, c.token).Do(ctx, kindOf(k), func(session.Attempt) {
						t.Errorf("%+v: served", c)
					})
					if !errors.Is(err, session.ErrDenied) {
						t.Errorf("%+v kind %d: Do = %v, want ErrDenied", c, k, err)
					}
				}
			}
		})
	}
}

// downStore is a store that cannot be reached for records.
type downStore struct{ session.Store }

func (downStore) Get(context.Context, string) (*session.Sandbox, error) {
	return nil, errUnreachable
}

// TestCallStoreDownIsUnavailable: a store that cannot be reached to
// authorize the call is answered as unavailable, never as a refusal.
func TestCallStoreDownIsUnavailable(t *testing.T) {
	s := session.NewMemoryStore(time.Now, 0)
	defer s.Close()
	sb := createSandbox(t, s, storetest.NewTeam(), time.Hour, "alpha")
	m := session.NewManager(downStore{s}, nil, session.Config{}, nil)
	err := m.NewCall(sb.ID, "alpha", "auth").Do(context.Background(), kindOf(session.CallWrite), func(session.Attempt) {
		t.Error("served")
	})
	if !isUnavailable(err) || errors.Is(err, session.ErrDenied) {
		t.Fatalf("Do = %v, want unavailable", err)
	}
}

// TestCallHeldWriteOutcomes drives Call through what a store shared by
// replicas may say of a held write: a conflict served again (under the
// lease), conflicts up to the bound, a store failure, a panic.
func TestCallHeldWriteOutcomes(t *testing.T) {
	ctx := context.Background()
	for name, open := range callBackends(t) {
		t.Run(name, func(t *testing.T) {
			base := open(t)
			sb := createSandbox(t, base, storetest.NewTeam(), time.Hour, "alpha")
			// newCall starts a call of kind k on a store holding writes;
			// do serves it.
			newCall := func(k session.CallKind) (s *session.HoldingStore, do func(func(session.Attempt)) error) {
				s = &session.HoldingStore{Store: base}
				call := session.NewManager(s, nil, session.Config{}, nil).NewCall(sb.ID, "alpha", "auth")
				return s, func(serve func(session.Attempt)) error { return call.Do(ctx, kindOf(k), serve) }
			}

			t.Run("conflict served again", func(t *testing.T) {
				s, do := newCall(session.CallWrite)
				attempts := 0
				err := do(func(a session.Attempt) {
					attempts++
					if !a.Held || !a.Sandbox.Holding() {
						t.Errorf("attempt %d of a write not held", attempts)
					}
					s.Conflict.Store(attempts == 1)
				})
				if err != nil || attempts != 2 || s.HeldLeased.Load() != 1 {
					t.Fatalf("Do = %v after %d attempts (%d leased), want nil after 2 (1 leased)", err, attempts, s.HeldLeased.Load())
				}
			})

			t.Run("conflict bound", func(t *testing.T) {
				s, do := newCall(session.CallWrite)
				s.Conflict.Store(true)
				attempts := 0
				err := do(func(session.Attempt) { attempts++ })
				if !isUnavailable(err) || attempts != session.MaxWriteConflicts+1 {
					t.Fatalf("Do = %v after %d attempts, want unavailable after %d", err, attempts, session.MaxWriteConflicts+1)
				}
				if n := s.Settled.Load(); n != int32(attempts) {
					t.Errorf("%d attempts settled of %d", n, attempts)
				}
			})

			t.Run("store failure", func(t *testing.T) {
				s, do := newCall(session.CallWrite)
				s.Fail.Store(true)
				attempts := 0
				err := do(func(session.Attempt) { attempts++ })
				if !isUnavailable(err) || attempts != 1 {
					t.Fatalf("Do = %v after %d attempts, want unavailable after 1", err, attempts)
				}
			})

			t.Run("panic abandons", func(t *testing.T) {
				s, do := newCall(session.CallWrite)
				func() {
					defer func() {
						if p := recover(); p != "boom" {
							t.Errorf("recovered %v, want the attempt's panic", p)
						}
					}()
					do(func(session.Attempt) { panic("boom") })
				}()
				if s.Abandoned.Load() != 1 || s.Settled.Load() != 0 {
					t.Errorf("abandoned %d, settled %d; want 1, 0", s.Abandoned.Load(), s.Settled.Load())
				}
			})

			t.Run("reads and others are not held", func(t *testing.T) {
				for _, k := range []session.CallKind{session.CallRead, session.CallOther} {
					s, do := newCall(k)
					err := do(func(a session.Attempt) {
						if a.Sandbox.Holding() {
							t.Errorf("kind %d held", k)
						}
					})
					if err != nil || s.Settled.Load() != 0 {
						t.Errorf("kind %d: Do = %v, settled %d", k, err, s.Settled.Load())
					}
				}
			})
		})
	}
}

// TestRedisCallRetriesStaleRead: a read served from the record and world
// this replica holds, after another replica wrote, is refused when taped
// and served again: the answer that stands sees the write, and the tape
// has one row for it.
func TestRedisCallRetriesStaleRead(t *testing.T) {
	ctx := context.Background()
	a, b := newRedis(t, time.Now), newRedis(t, time.Now)
	sb := createSandbox(t, a, storetest.NewTeam(), time.Hour, "alpha")
	if _, err := readWorld(t, a, authorize(t, a, sb)); err != nil { // caches record and world
		t.Fatal(err)
	}
	mb := session.NewManager(b, nil, session.Config{}, nil)
	if err := b.Update(ctx, authorize(t, b, sb), storetest.Alpha, true, storetest.Increment); err != nil {
		t.Fatal(err)
	}
	if err := mb.Record(ctx, authorize(t, b, sb), writeRow()); err != nil {
		t.Fatal(err)
	}
	m := session.NewManager(a, nil, session.Config{}, nil)
	var answers []int
	var speculative []bool
	err := m.NewCall(sb.ID, "alpha", "auth").Do(ctx, kindOf(session.CallRead), func(at session.Attempt) {
		speculative = append(speculative, at.Sandbox.Speculative())
		if at.Sandbox.Speculative() && !at.Held {
			t.Error("a speculative attempt is not held")
		}
		answers = append(answers, serveRead(t, m, at))
	})
	if err != nil || len(answers) != 2 {
		t.Fatalf("Do = %v after %d attempts, want nil after 2", err, len(answers))
	}
	if !speculative[0] || speculative[1] {
		t.Errorf("speculative per attempt = %v, want [true false]", speculative)
	}
	if answers[1] != 1 {
		t.Errorf("the answer that stands read counter %d, want 1 (the other replica's write)", answers[1])
	}
	if stored, total := tapeLen(t, a, sb); stored != 2 || total != 2 {
		t.Errorf("tape %d/%d, want the write's row and one for the read", stored, total)
	}
}

// TestRedisCallHeldWriteConflictServedAgain: a held write made from the
// cached world, which meets another replica's write before its row is
// stored, stores nothing and is served again, under the lease, once.
func TestRedisCallHeldWriteConflictServedAgain(t *testing.T) {
	ctx := context.Background()
	a, b := newRedis(t, time.Now), newRedis(t, time.Now)
	sb := createSandbox(t, a, storetest.NewTeam(), time.Hour, "alpha")
	if _, err := readWorld(t, a, authorize(t, a, sb)); err != nil {
		t.Fatal(err)
	}
	m, mb := session.NewManager(a, nil, session.Config{}, nil), session.NewManager(b, nil, session.Config{}, nil)
	attempts := 0
	err := m.NewCall(sb.ID, "alpha", "auth").Do(ctx, kindOf(session.CallWrite), func(at session.Attempt) {
		attempts++
		if !at.Held {
			t.Errorf("attempt %d of a write on Redis not held", attempts)
		}
		if err := a.Update(ctx, at.Sandbox, storetest.Alpha, true, storetest.Increment); err != nil {
			t.Error(err)
			return
		}
		if attempts == 1 {
			// Replica b writes and tapes in between.
			if err := b.Update(ctx, authorize(t, b, sb), storetest.Alpha, true, storetest.Increment); err != nil {
				t.Error(err)
			}
			if err := mb.Record(ctx, authorize(t, b, sb), writeRow()); err != nil {
				t.Error(err)
			}
		}
		err := m.Record(ctx, at.Sandbox, writeRow())
		if attempts == 1 && !errors.Is(err, session.ErrStale) {
			t.Errorf("record after a conflict = %v, want ErrStale", err)
		}
		if attempts > 1 && err != nil {
			t.Errorf("record served again = %v", err)
		}
	})
	if err != nil || attempts != 2 {
		t.Fatalf("Do = %v after %d attempts, want nil after 2", err, attempts)
	}
	if w := worldOf(t, a, sb, "alpha"); w.Counter != 2 {
		t.Errorf("counter %d, want 2: each write once", w.Counter)
	}
	if stored, total := tapeLen(t, a, sb); stored != 2 || total != 2 {
		t.Errorf("tape %d/%d, want 2 rows", stored, total)
	}
}

// TestRedisCallStoreFailure: a held write whose world and row cannot be
// stored is answered as unavailable, and nothing of it is kept.
func TestRedisCallStoreFailure(t *testing.T) {
	ctx := context.Background()
	c := newRedisClient(t)
	f := &failScript{hash: session.SaveAppendScriptHash()}
	c.AddHook(f)
	a := session.NewRedisStore(c, time.Now)
	t.Cleanup(func() { a.Close() })
	sb := createSandbox(t, a, storetest.NewTeam(), time.Hour, "alpha")
	m := session.NewManager(a, nil, session.Config{}, nil)
	err := m.NewCall(sb.ID, "alpha", "auth").Do(ctx, kindOf(session.CallWrite), func(at session.Attempt) {
		if err := a.Update(ctx, at.Sandbox, storetest.Alpha, true, storetest.Increment); err != nil {
			t.Error(err)
			return
		}
		// Appended once, as Record's retries would give up in the end.
		f.on.Store(true)
		defer f.on.Store(false)
		if _, err := a.Append(ctx, at.Sandbox, writeRow()); err == nil {
			t.Error("append through an unreachable Redis succeeded")
		}
	})
	if !isUnavailable(err) {
		t.Fatalf("Do = %v, want unavailable", err)
	}
	if w := worldOf(t, a, sb, "alpha"); w.Counter != 0 {
		t.Errorf("counter %d after a write that never reached Redis", w.Counter)
	}
	if stored, total := tapeLen(t, a, sb); stored != 0 || total != 0 {
		t.Errorf("tape %d/%d", stored, total)
	}
}

// TestRedisCallAbandonsOnPanic: a held write whose attempt panics is
// stored nowhere, and leaves no lock or lease for the next write.
func TestRedisCallAbandonsOnPanic(t *testing.T) {
	ctx := context.Background()
	a, b := newRedis(t, time.Now), newRedis(t, time.Now)
	sb := createSandbox(t, a, storetest.NewTeam(), time.Hour, "alpha")
	m := session.NewManager(a, nil, session.Config{}, nil)
	func() {
		defer func() { recover() }()
		m.NewCall(sb.ID, "alpha", "auth").Do(ctx, kindOf(session.CallWrite), func(at session.Attempt) {
			if err := a.Update(ctx, at.Sandbox, storetest.Alpha, true, storetest.Increment); err != nil {
				t.Error(err)
			}
			panic("boom")
		})
	}()
	if w := worldOf(t, a, sb, "alpha"); w.Counter != 0 {
		t.Fatalf("counter %d: the abandoned write was stored", w.Counter)
	}
	for _, s := range []*session.RedisStore{b, a} {
		start := time.Now()
		s.DropCachedWorld(sb.ID, "alpha")
		if err := s.Update(ctx, authorize(t, s, sb), storetest.Alpha, true, storetest.Increment); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("the next write waited %v", d)
		}
	}
}
