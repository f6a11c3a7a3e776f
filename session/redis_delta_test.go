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
	"github.com/pomehq/pome/twins/github"
	"github.com/pomehq/pome/twins/twinstest"
)

// deltaWorld creates a sandbox running the GitHub twin on its default
// world in s, and returns a reference world that the test changes as the
// store's should be changed.
func deltaWorld(t *testing.T, s session.Store) (*session.Sandbox, *twins.Twin, any) {
	t.Helper()
	ctx := context.Background()
	tw := githubTwin()
	world := twinstest.World(t, tw, "")
	doc, err := json.Marshal(world)
	if err != nil {
		t.Fatal(err)
	}
	sb := storetest.NewSandbox(storetest.NewTeam(), time.Now(), time.Hour, tw.Name)
	if err := s.Create(ctx, sb, map[string]session.SeedWorld{tw.Name: {World: world, Doc: doc}}, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Discard(context.Background(), sb.ID) })
	return sb, tw, world
}

// comment adds comment i to issue #1 through the store's Update, and to
// ref (a reference world, or nil) the same way.
func comment(t *testing.T, s session.Store, sb *session.Sandbox, tw *twins.Twin, ref any, i int) {
	t.Helper()
	args := fmt.Sprintf(`{"owner":"acme","repo":"api","issue_number":1,"body":"comment %d"}`, i)
	err := s.Update(context.Background(), sb, tw, true, func(world any) (bool, error) {
		r := twinstest.Call(t, tw, world, "add_issue_comment", args)
		if r.Err != nil {
			return false, r.Err
		}
		return true, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if ref != nil {
		twinstest.MustCall(t, tw, ref, "add_issue_comment", args)
	}
}

// readDoc reads the twin's world through a read Update and encodes it.
func readDoc(t *testing.T, s session.Store, sb *session.Sandbox, tw *twins.Twin) []byte {
	t.Helper()
	var doc []byte
	err := s.Update(context.Background(), sb, tw, false, func(world any) (bool, error) {
		var err error
		doc, err = json.Marshal(world)
		return false, err
	})
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sameWorld fails unless every way to read the world gives want: a read
// on the writer, the store's State, and a read and State on a replica
// with nothing cached (base and deltas).
func sameWorld(t *testing.T, want []byte, sb *session.Sandbox, tw *twins.Twin, stores ...*session.RedisStore) {
	t.Helper()
	ctx := context.Background()
	cold := newRedis(t, time.Now)
	for i, s := range append(stores, cold) {
		if got := readDoc(t, s, sb, tw); !bytes.Equal(got, want) {
			t.Fatalf("store %d: read world\n%.400s\nwant\n%.400s", i, got, want)
		}
		got, err := s.State(ctx, sb, tw.Name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("store %d: State\n%.400s\nwant\n%.400s", i, got, want)
		}
	}
	// A replica that never served the twin rebuilds it for State alone.
	if got, err := newRedis(t, time.Now).State(ctx, sb, tw.Name); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("State on a fresh replica: %v\n%.400s", err, got)
	}
}

// TestRedisWriteSavesDelta: a write stores its delta, not the world; the
// base stays the seed; any reader, cached or cold, gets the world.
func TestRedisWriteSavesDelta(t *testing.T) {
	ctx := context.Background()
	s := newRedis(t, time.Now)
	sb, tw, ref := deltaWorld(t, s)
	for i := range 5 {
		comment(t, s, sb, tw, ref, i)
	}
	base, ver, deltas, err := s.DeltaState(ctx, sb.ID, tw.Name)
	if err != nil {
		t.Fatal(err)
	}
	if base != 1 || ver != 6 || deltas != 5 {
		t.Fatalf("base %d, version %d, %d deltas; want 1, 6, 5", base, ver, deltas)
	}
	sameWorld(t, mustJSON(t, ref), sb, tw, s)
}

// TestRedisReplicaBehindByDeltas: a replica whose cached world is several
// writes behind brings it up to date from the deltas, and then writes on
// top of it.
func TestRedisReplicaBehindByDeltas(t *testing.T) {
	a, b := newRedis(t, time.Now), newRedis(t, time.Now)
	sb, tw, ref := deltaWorld(t, a)
	comment(t, a, sb, tw, ref, 0)
	if got := readDoc(t, b, sb, tw); !bytes.Equal(got, mustJSON(t, ref)) {
		t.Fatal("b's first read differs")
	}
	for i := 1; i <= 4; i++ {
		comment(t, a, sb, tw, ref, i)
	}
	// b holds version 2 and Redis 6: b applies four deltas.
	if got := readDoc(t, b, sb, tw); !bytes.Equal(got, mustJSON(t, ref)) {
		t.Fatalf("b, four deltas behind, reads\n%.400s", got)
	}
	comment(t, b, sb, tw, ref, 5)
	comment(t, a, sb, tw, ref, 6)
	sameWorld(t, mustJSON(t, ref), sb, tw, a, b)
}

// TestRedisCompaction: past the threshold the writer stores its world as
// the new base and drops the deltas; reads before and after agree.
func TestRedisCompaction(t *testing.T) {
	ctx := context.Background()
	s := newRedis(t, time.Now)
	s.SetCompaction(3, true)
	sb, tw, ref := deltaWorld(t, s)
	for i := range 3 {
		comment(t, s, sb, tw, ref, i)
	}
	base, ver, deltas, err := s.DeltaState(ctx, sb.ID, tw.Name)
	if err != nil {
		t.Fatal(err)
	}
	if base != 4 || ver != 4 || deltas != 0 {
		t.Fatalf("after compaction: base %d, version %d, %d deltas; want 4, 4, 0", base, ver, deltas)
	}
	comment(t, s, sb, tw, ref, 3)
	if base, ver, deltas, _ = s.DeltaState(ctx, sb.ID, tw.Name); base != 4 || ver != 5 || deltas != 1 {
		t.Fatalf("a write after compaction: base %d, version %d, %d deltas; want 4, 5, 1", base, ver, deltas)
	}
	sameWorld(t, mustJSON(t, ref), sb, tw, s)

	// The default rule, in the background: 2,048 deltas at most.
	s.SetCompaction(0, false)
	for i := 4; i < 60; i++ {
		comment(t, s, sb, tw, ref, i)
	}
	s.WaitCompactions()
	sameWorld(t, mustJSON(t, ref), sb, tw, s)
}

// TestRedisCompactionRacesWrite: a replica compacts at the version it
// holds while another replica writes past it; the compaction keeps the
// newer deltas, and writers on both keep going.
func TestRedisCompactionRacesWrite(t *testing.T) {
	ctx := context.Background()
	a, b := newRedis(t, time.Now), newRedis(t, time.Now)
	sb, tw, ref := deltaWorld(t, a)
	for i := range 3 {
		comment(t, a, sb, tw, ref, i)
	}
	// a holds version 4; b writes versions 5 and 6; a then compacts at 4.
	comment(t, b, sb, tw, ref, 3)
	comment(t, b, sb, tw, ref, 4)
	if !a.CompactNow(sb, tw.Name) {
		t.Fatal("a caches nothing")
	}
	base, ver, deltas, err := a.DeltaState(ctx, sb.ID, tw.Name)
	if err != nil {
		t.Fatal(err)
	}
	if base != 4 || ver != 6 || deltas != 2 {
		t.Fatalf("base %d, version %d, %d deltas; want 4, 6, 2", base, ver, deltas)
	}
	sameWorld(t, mustJSON(t, ref), sb, tw, a, b)

	// Both replicas write while a compacts after every one of its writes
	// (in the background): every comment is kept once.
	a.SetCompaction(1, false)
	var wg sync.WaitGroup
	const each = 15
	for r, s := range []*session.RedisStore{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				comment(t, s, sb, tw, nil, 100+r*each+i)
			}
		}()
	}
	wg.Wait()
	a.WaitCompactions()
	doc := readDoc(t, newRedis(t, time.Now), sb, tw)
	for n := 100; n < 100+2*each; n++ {
		if c := bytes.Count(doc, fmt.Appendf(nil, `"comment %d"`, n)); c != 1 {
			t.Fatalf("comment %d is in the world %d times", n, c)
		}
	}
	sameWorld(t, doc, sb, tw, a, b)
}

// TestRedisDeltasAfterStop: Stop moves the state key, deltas and all, to
// the new retention; the world reads back whole afterwards, and a write
// made before the Stop is in it.
func TestRedisDeltasAfterStop(t *testing.T) {
	ctx := context.Background()
	s := newRedis(t, time.Now)
	sb, tw, ref := deltaWorld(t, s)
	for i := range 3 {
		comment(t, s, sb, tw, ref, i)
	}
	retain := time.Now().Add(3 * time.Hour)
	stopped, err := s.Stop(ctx, sb.ID, time.Now(), retain)
	if err != nil {
		t.Fatal(err)
	}
	raw := newRedisClient(t)
	defer raw.Close()
	ttl, err := raw.PTTL(ctx, session.StateKey(sb.ID, tw.Name)).Result()
	if err != nil {
		t.Fatal(err)
	}
	if ttl < 2*time.Hour || ttl > 3*time.Hour {
		t.Fatalf("state key expires in %v, want the new retention (3h)", ttl)
	}
	if _, _, deltas, _ := s.DeltaState(ctx, sb.ID, tw.Name); deltas != 3 {
		t.Fatalf("%d deltas after Stop, want 3", deltas)
	}
	sameWorld(t, mustJSON(t, ref), stopped, tw, s)
}

// TestRedisReadsWholeDocumentLayout: a state stored by a build before
// deltas (the whole document, no base) is read as it is, and the first
// write on it starts a delta history with that document as its base.
func TestRedisReadsWholeDocumentLayout(t *testing.T) {
	ctx := context.Background()
	s := newRedis(t, time.Now)
	sb, tw, ref := deltaWorld(t, s)
	twinstest.MustCall(t, tw, ref, "add_issue_comment", `{"owner":"acme","repo":"api","issue_number":1,"body":"old build"}`)
	raw := newRedisClient(t)
	defer raw.Close()
	key := session.StateKey(sb.ID, tw.Name)
	// What the earlier save script left: doc and ver, nothing else.
	if err := raw.Del(ctx, key).Err(); err != nil {
		t.Fatal(err)
	}
	if err := raw.HSet(ctx, key, "doc", mustJSON(t, ref), "ver", 7).Err(); err != nil {
		t.Fatal(err)
	}
	raw.PExpireAt(ctx, key, sb.RetainUntil)
	sameWorld(t, mustJSON(t, ref), sb, tw, s)
	comment(t, s, sb, tw, ref, 1)
	base, ver, deltas, err := s.DeltaState(ctx, sb.ID, tw.Name)
	if err != nil {
		t.Fatal(err)
	}
	if base != 7 || ver != 8 || deltas != 1 {
		t.Fatalf("base %d, version %d, %d deltas; want 7, 8, 1", base, ver, deltas)
	}
	sameWorld(t, mustJSON(t, ref), sb, tw, s)
}

// TestRedisHeldWriteSavesDelta: a held write (stored with its row in one
// script) stores a delta too.
func TestRedisHeldWriteSavesDelta(t *testing.T) {
	ctx := context.Background()
	s := newRedis(t, time.Now)
	sb, tw, ref := deltaWorld(t, s)
	m := session.NewManager(s, nil, session.Config{}, nil)
	for i := range 3 {
		call, _, err := m.Authorize(ctx, sb.ID, tw.Name, "auth")
		if err != nil {
			t.Fatal(err)
		}
		m.HoldWrites(call, false)
		comment(t, s, call, tw, ref, i)
		row := storetest.NewRow(call, tw.Name, "/repos/acme/api/issues/1/comments")
		if _, err := s.Append(ctx, call, row); err != nil {
			t.Fatal(err)
		}
		m.Settle(ctx, call)
	}
	if _, ver, deltas, _ := s.DeltaState(ctx, sb.ID, tw.Name); ver != 4 || deltas != 3 {
		t.Fatalf("version %d, %d deltas; want 4, 3", ver, deltas)
	}
	sameWorld(t, mustJSON(t, ref), sb, tw, s)
}

func githubTwin() *twins.Twin { return github.New() }
