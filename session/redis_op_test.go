package session_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/pomehq/pome/session"
	"github.com/pomehq/pome/session/storetest"
	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/all"
)

// replicaSet is three Redis stores on one Redis, as three replicas of a
// server, each with its own Manager.
type replicaSet struct {
	stores []*session.RedisStore
	ms     []*session.Manager
}

func newReplicaSet(t *testing.T, n int) *replicaSet {
	t.Helper()
	rs := &replicaSet{}
	for range n {
		s := newRedis(t, time.Now)
		rs.stores = append(rs.stores, s)
		rs.ms = append(rs.ms, session.NewManager(s, nil, session.Config{}, nil))
	}
	return rs
}

// createWorld creates, on s, a sandbox of ww's twin seeded with n of its
// entities (discarded when the test ends), and returns it with the twin
// and ww's write action.
func createWorld(t *testing.T, s session.Store, ww worldWrite, n int) (*session.Sandbox, *twins.Twin, twins.Action) {
	t.Helper()
	ctx := context.Background()
	tw, _ := all.Registry().Get(ww.twin)
	a, _ := tw.Action(ww.action)
	raw, err := ww.seed(n)
	if err != nil {
		t.Fatal(err)
	}
	world, err := tw.NewWorld(twins.WithEnv(ctx, &twins.Env{Twin: tw.Name, Now: time.Now}), raw)
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := json.Marshal(world)
	sb := storetest.NewSandbox(storetest.NewTeam(), time.Now(), time.Hour, tw.Name)
	if err := s.Create(ctx, sb, map[string]session.SeedWorld{tw.Name: {World: world, Doc: doc}}, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Discard(ctx, sb.ID) })
	return sb, tw, a
}

// agree fails the test unless every replica's State of the twin is the
// same document (the last replica reads it cold when it caches nothing).
func (rs *replicaSet) agree(t *testing.T, sb *session.Sandbox, twin, after string) []byte {
	t.Helper()
	ctx := context.Background()
	var first []byte
	for i, s := range rs.stores {
		doc, err := s.State(ctx, sb, twin)
		if err != nil {
			t.Fatalf("%s: replica %d: State: %v", after, i, err)
		}
		if i == 0 {
			first = doc
			continue
		}
		if !bytes.Equal(doc, first) {
			t.Fatalf("%s: replica %d's world differs from replica 0's\nreplica %d: %.1500s\nreplica 0: %.1500s", after, i, i, doc, first)
		}
	}
	return first
}

// TestRedisOpsReplicate runs writes of every twin on one replica, recorded
// as operations, and checks after each that another replica that caches
// the world (and so runs the operations again on it) and one that reads it
// cold (the base and the operations after it) hold the writer's world.
func TestRedisOpsReplicate(t *testing.T) {
	redisURL(t)
	ctx := context.Background()
	for _, ww := range worldWrites {
		t.Run(ww.twin, func(t *testing.T) {
			rs := newReplicaSet(t, 3)
			sb, tw, a := createWorld(t, rs.stores[0], ww, 5)
			// Replica 1 caches the seed world.
			if err := rs.stores[1].Update(ctx, sb, tw, false, func(any) (bool, error) { return false, nil }); err != nil {
				t.Fatal(err)
			}
			in, err := a.Decode(json.RawMessage(ww.args(5)))
			if err != nil {
				t.Fatal(err)
			}
			for i := range 6 {
				// Mostly replica 0, sometimes replica 1: each catches up
				// with the other's operations before writing.
				m := rs.ms[0]
				if i%3 == 2 {
					m = rs.ms[1]
				}
				if _, err := m.Invoke(ctx, sb, tw, a, in, nil); err != nil {
					t.Fatalf("write %d: %v", i, err)
				}
				rs.agree(t, sb, tw.Name, fmt.Sprintf("write %d", i))
			}
			// The writes were saved as operations, not world deltas.
			base, ver, deltas, err := rs.stores[0].DeltaState(ctx, sb.ID, tw.Name)
			if err != nil || base != 1 || ver != 7 || deltas != 6 {
				t.Fatalf("layout: base %d, ver %d, %d deltas (%v); want 1, 7, 6", base, ver, deltas, err)
			}
			d, err := newRedisClient(t).HGet(ctx, session.StateKey(sb.ID, tw.Name), "d7").Bytes()
			if err != nil || !twins.IsOp(d) {
				t.Fatalf("delta of version 7: %.200s (%v), want an operation", d, err)
			}
			// Compaction encodes the world the writer changed in place as
			// the new base; the replicas still agree.
			rs.stores[0].SetCompaction(3, true)
			for i := range 4 {
				if _, err := rs.ms[0].Invoke(ctx, sb, tw, a, in, nil); err != nil {
					t.Fatalf("write %d after compaction: %v", i, err)
				}
				rs.agree(t, sb, tw.Name, fmt.Sprintf("write %d with compaction", i))
			}
			if base, ver, _, err := rs.stores[0].DeltaState(ctx, sb.ID, tw.Name); err != nil || base <= 7 || ver != 11 {
				t.Fatalf("after compaction: base %d, ver %d (%v); want a base past 7, ver 11", base, ver, err)
			}
		})
	}
}

// TestRedisOpsConcurrentReplicas has two replicas write one twin at once,
// each write run in place on its replica's cached world and saved as an
// operation: none is lost, and all replicas end with the same world.
func TestRedisOpsConcurrentReplicas(t *testing.T) {
	redisURL(t)
	ctx := context.Background()
	rs := newReplicaSet(t, 3)
	sb, tw, a := createWorld(t, rs.stores[0], worldWrites[1], 3) // slack: each write adds a message
	const perWorker, workers = 15, 4
	var wg sync.WaitGroup
	errs := make(chan error, workers*perWorker)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m, s := rs.ms[w%2], rs.stores[w%2]
			for i := range perWorker {
				in, err := a.Decode(json.RawMessage(fmt.Sprintf(`{"channel_id":"general","message":"worker %d write %d"}`, w, i)))
				if err != nil {
					errs <- err
					return
				}
				// Half the writes start from the version an authorization
				// saw (no lease first), as a served call's do.
				call := sb
				if i%2 == 0 {
					if c, err := s.GetForTwin(ctx, sb.ID, tw.Name); err == nil {
						call = c
					}
				}
				if _, err := m.Invoke(ctx, call, tw, a, in, nil); err != nil {
					errs <- err
				}
				// Reads on the same replica meanwhile.
				if err := s.Update(ctx, sb, tw, false, func(w any) (bool, error) {
					_, err := json.Marshal(w)
					return false, err
				}); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	final := rs.agree(t, sb, tw.Name, "concurrent writes")
	for w := range workers {
		for i := range perWorker {
			if !bytes.Contains(final, fmt.Appendf(nil, "worker %d write %d", w, i)) {
				t.Fatalf("write %d of worker %d is lost", i, w)
			}
		}
	}
}

// TestRedisOpsRefused checks that a write the twin refuses, run on a
// replica's cached world, changes nothing there nor in Redis, and that the
// replica's next write starts from the world as it was.
func TestRedisOpsRefused(t *testing.T) {
	redisURL(t)
	ctx := context.Background()
	ww := worldWrites[0]
	rs := newReplicaSet(t, 2)
	sb, tw, a := createWorld(t, rs.stores[0], ww, 3)
	good, _ := a.Decode(json.RawMessage(ww.args(3)))
	if _, err := rs.ms[0].Invoke(ctx, sb, tw, a, good, nil); err != nil {
		t.Fatal(err)
	}
	before := rs.agree(t, sb, tw.Name, "first write")
	bad, err := a.Decode(json.RawMessage(ww.args(404)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rs.ms[0].Invoke(ctx, sb, tw, a, bad, nil); err == nil {
		t.Fatal("a comment on a missing issue was accepted")
	}
	if after := rs.agree(t, sb, tw.Name, "refused write"); !bytes.Equal(after, before) {
		t.Fatalf("a refused write changed the world:\n%.1500s\nwas\n%.1500s", after, before)
	}
	if _, err := rs.ms[0].Invoke(ctx, sb, tw, a, good, nil); err != nil {
		t.Fatal(err)
	}
	rs.agree(t, sb, tw.Name, "write after the refused one")
}

// listWorld is the world of listTwin: a list of items.
type listWorld struct {
	Items []string `json:"items"`
}

type listIn struct {
	Item  string `json:"item"`
	Panic bool   `json:"panic,omitempty"`
}

// listTwin is a twin whose one write appends an item, and then panics
// when asked to: a write that changed its world and never finished.
func listTwin() *twins.Twin {
	newWorld, decode := twins.WorldCodec(func(context.Context, json.RawMessage) (*listWorld, error) {
		return &listWorld{Items: []string{"seed"}}, nil
	})
	return (&twins.Twin{
		Name: "lists", NewWorld: newWorld, DecodeWorld: decode, CopyWorld: twins.WorldCopier[listWorld](nil),
		Actions: []twins.Action{twins.New(twins.Spec{Name: "append", Effect: twins.Write},
			func(_ context.Context, w *listWorld, in listIn) (struct{}, error) {
				w.Items = append(w.Items, in.Item)
				if in.Panic {
					panic("append: asked to")
				}
				return struct{}{}, nil
			})},
	}).Finish()
}

// TestRedisOpsPanic checks that a write that panics after changing the
// cached world in place leaves nothing of it: not in Redis, not in the
// world the writer's process serves next.
func TestRedisOpsPanic(t *testing.T) {
	redisURL(t)
	ctx := context.Background()
	tw := listTwin()
	a, _ := tw.Action("append")
	rs := newReplicaSet(t, 2)
	world, _ := tw.NewWorld(ctx, nil)
	doc, _ := json.Marshal(world)
	sb := storetest.NewSandbox(storetest.NewTeam(), time.Now(), time.Hour, tw.Name)
	if err := rs.stores[0].Create(ctx, sb, map[string]session.SeedWorld{tw.Name: {World: world, Doc: doc}}, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rs.stores[0].Discard(ctx, sb.ID) })
	// Replica 1 serves the twin too (it knows it, and caches its world).
	if err := rs.stores[1].Update(ctx, sb, tw, false, func(any) (bool, error) { return false, nil }); err != nil {
		t.Fatal(err)
	}
	invoke := func(in listIn) (panicked bool) {
		defer func() { panicked = recover() != nil }()
		if _, err := rs.ms[0].Invoke(ctx, sb, tw, a, in, nil); err != nil {
			t.Fatal(err)
		}
		return false
	}
	invoke(listIn{Item: "one"})
	if !invoke(listIn{Item: "lost", Panic: true}) {
		t.Fatal("the write did not panic")
	}
	if got := string(rs.agree(t, sb, tw.Name, "panicked write")); got != `{"items":["seed","one"]}` {
		t.Fatalf("after a panicked write: %s", got)
	}
	invoke(listIn{Item: "two"})
	if got := string(rs.agree(t, sb, tw.Name, "write after it")); got != `{"items":["seed","one","two"]}` {
		t.Fatalf("after the next write: %s", got)
	}
}
