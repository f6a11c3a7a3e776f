package session_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/pomehq/pome/session"
	"github.com/pomehq/pome/session/storetest"
)

// redisURL is the server the Redis tests use; without it they skip (CI
// always sets it).
func redisURL(tb testing.TB) string {
	tb.Helper()
	url := os.Getenv("POME_TEST_REDIS_URL")
	if url == "" {
		tb.Skip("POME_TEST_REDIS_URL not set")
	}
	return url
}

// newRedisClient opens a client of its own, as a separate replica would.
func newRedisClient(tb testing.TB) redis.UniversalClient {
	tb.Helper()
	c, err := session.OpenRedis(redisURL(tb))
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

func newRedis(tb testing.TB, now func() time.Time) *session.RedisStore {
	tb.Helper()
	s := session.NewRedisStore(newRedisClient(tb), now)
	tb.Cleanup(func() { s.Close() })
	if err := s.Ping(context.Background()); err != nil {
		tb.Fatalf("redis: %v", err)
	}
	return s
}

func TestRedisStore(t *testing.T) {
	redisURL(t)
	storetest.Run(t, func(t *testing.T, now func() time.Time) session.Store {
		return newRedis(t, now)
	})
}

// TestRedisKeyNames pins the key layout: replicas of different versions
// share one Redis, so a change here is a migration.
func TestRedisKeyNames(t *testing.T) {
	id := "ses_L2RwKae6MWKMg1v2"
	pins := map[string]string{
		session.MetaKey(id):                 "pome:{ses_L2RwKae6MWKMg1v2}:meta",
		session.StateKey(id, "github"):      "pome:{ses_L2RwKae6MWKMg1v2}:github:state",
		session.SeedKey(id, "github"):       "pome:{ses_L2RwKae6MWKMg1v2}:github:seed",
		session.TapeKey(id, "github"):       "pome:{ses_L2RwKae6MWKMg1v2}:github:tape",
		session.TapeSeqKey(id, "github"):    "pome:{ses_L2RwKae6MWKMg1v2}:github:tapeseq",
		session.TapeBodiesKey(id, "github"): "pome:{ses_L2RwKae6MWKMg1v2}:github:tapebodies",
		session.LockKey(id, "github"):       "pome:{ses_L2RwKae6MWKMg1v2}:github:lock",
		session.TeamIndexKey("acme"):        "pome:team:{acme}:sandboxes",
		session.TeamOpenKey("acme"):         "pome:team:{acme}:open",
		session.TeamUsageKey("acme"):        "pome:team:{acme}:usage",
		session.StateKey(id, "slack"):       "pome:{ses_L2RwKae6MWKMg1v2}:slack:state",
		session.TeamUsageKey("team_Z9-x_1"): "pome:team:{team_Z9-x_1}:usage",
		session.BudgetKeys("")[0]:           "pome:{budget}:totals",
		session.BudgetKeys("")[1]:           "pome:{budget}:held",
		session.BudgetKeys("")[2]:           "pome:{budget}:retain",
		session.BudgetKeys("t1")[0]:         "pome:{budgett1}:totals",
	}
	for got, want := range pins {
		if got != want {
			t.Errorf("key %q, want %q", got, want)
		}
	}
	got := session.SandboxKeys(id, []string{"github", "slack"})
	want := []string{
		"pome:{ses_L2RwKae6MWKMg1v2}:meta",
		"pome:{ses_L2RwKae6MWKMg1v2}:github:state",
		"pome:{ses_L2RwKae6MWKMg1v2}:github:seed",
		"pome:{ses_L2RwKae6MWKMg1v2}:github:tape",
		"pome:{ses_L2RwKae6MWKMg1v2}:github:tapeseq",
		"pome:{ses_L2RwKae6MWKMg1v2}:github:tapebodies",
		"pome:{ses_L2RwKae6MWKMg1v2}:slack:state",
		"pome:{ses_L2RwKae6MWKMg1v2}:slack:seed",
		"pome:{ses_L2RwKae6MWKMg1v2}:slack:tape",
		"pome:{ses_L2RwKae6MWKMg1v2}:slack:tapeseq",
		"pome:{ses_L2RwKae6MWKMg1v2}:slack:tapebodies",
	}
	if !slices.Equal(got, want) {
		t.Errorf("SandboxKeys = %q\nwant %q", got, want)
	}
	// One slot per sandbox, whatever the twin: what makes the scripts legal
	// on Redis Cluster.
	for _, k := range append(got, session.LockKey(id, "github")) {
		if hashTag(k) != id {
			t.Errorf("key %s has hash tag %q, want %q", k, hashTag(k), id)
		}
	}
	for _, k := range []string{session.TeamIndexKey("acme"), session.TeamOpenKey("acme"), session.TeamUsageKey("acme")} {
		if hashTag(k) != "acme" {
			t.Errorf("key %s has hash tag %q, want acme", k, hashTag(k))
		}
	}
}

// hashTag is the part of a key Redis Cluster hashes.
func hashTag(key string) string {
	for i := 0; i < len(key); i++ {
		if key[i] == '{' {
			for j := i + 1; j < len(key); j++ {
				if key[j] == '}' {
					if j > i+1 {
						return key[i+1 : j]
					}
					return key
				}
			}
			return key
		}
	}
	return key
}

func createSandbox(t *testing.T, s session.Store, team string, ttl time.Duration, twinNames ...string) *session.Sandbox {
	t.Helper()
	sb := storetest.NewSandbox(team, time.Now(), ttl, twinNames...)
	if err := s.Create(context.Background(), sb, storetest.SeedWorlds(t, twinNames...), 0); err != nil {
		t.Fatal(err)
	}
	return sb
}

// TestRedisTwoReplicas runs concurrent writers through two stores on two
// clients, as two replicas behind a load balancer would: the Redis lease
// and the state version, not the in-process lock, must keep every update.
func TestRedisTwoReplicas(t *testing.T) {
	ctx := context.Background()
	a, b := newRedis(t, time.Now), newRedis(t, time.Now)
	sb := createSandbox(t, a, storetest.NewTeam(), time.Hour, "alpha")
	const perReplica = 250
	var wg sync.WaitGroup
	errs := make(chan error, 2*perReplica)
	for range perReplica {
		for _, s := range []*session.RedisStore{a, b} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs <- s.Update(ctx, sb, storetest.Alpha, true, storetest.Increment)
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
	if w := worldOf(t, b, sb, "alpha"); w.Counter != 2*perReplica {
		t.Errorf("counter after 2×%d concurrent increments = %d", perReplica, w.Counter)
	}
	if n := a.LocalLocks() + b.LocalLocks(); n != 0 {
		t.Errorf("%d local locks left after every update returned, want 0", n)
	}
}

func worldOf(t *testing.T, s session.Store, sb *session.Sandbox, twin string) storetest.World {
	t.Helper()
	doc, err := s.State(context.Background(), sb, twin)
	if err != nil {
		t.Fatal(err)
	}
	var w storetest.World
	if err := json.Unmarshal(doc, &w); err != nil {
		t.Fatalf("state %s: %v", doc, err)
	}
	return w
}

// TestRedisLeaseLapse has a writer lose its lease mid-update while another
// replica saves: the version check must make the first writer run again on
// the newer state rather than overwrite it.
func TestRedisLeaseLapse(t *testing.T) {
	ctx := context.Background()
	a, b := newRedis(t, time.Now), newRedis(t, time.Now)
	raw := newRedisClient(t)
	defer raw.Close()
	sb := createSandbox(t, a, storetest.NewTeam(), time.Hour, "alpha")
	runs := 0
	err := a.Update(ctx, sb, storetest.Alpha, true, func(world any) (bool, error) {
		runs++
		if runs == 1 {
			// The lease lapses (as if this update took longer than its TTL)
			// and the other replica takes it and saves.
			if err := raw.Del(ctx, session.LockKey(sb.ID, "alpha")).Err(); err != nil {
				return false, err
			}
			if err := b.Update(ctx, sb, storetest.Alpha, true, storetest.Increment); err != nil {
				return false, err
			}
		}
		return storetest.Increment(world)
	})
	if err != nil {
		t.Fatal(err)
	}
	if runs != 2 {
		t.Errorf("fn ran %d times, want a rerun after the conflict", runs)
	}
	if w := worldOf(t, a, sb, "alpha"); w.Counter != 2 {
		t.Errorf("counter = %d, want both increments kept", w.Counter)
	}
	if n, _ := raw.Exists(ctx, session.LockKey(sb.ID, "alpha")).Result(); n != 0 {
		t.Errorf("lease left behind after the update")
	}
}

// TestRedisUpdateWaitHonoursContext: a writer queued behind a slow one gives
// up when its request does, and leaves no local lock behind.
func TestRedisUpdateWaitHonoursContext(t *testing.T) {
	ctx := context.Background()
	s := newRedis(t, time.Now)
	sb := createSandbox(t, s, storetest.NewTeam(), time.Hour, "alpha")
	entered, release := make(chan struct{}), make(chan struct{})
	done := make(chan error)
	go func() {
		done <- s.Update(ctx, sb, storetest.Alpha, true, func(world any) (bool, error) {
			close(entered)
			<-release
			return storetest.Increment(world)
		})
	}()
	<-entered
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if err := s.Update(short, sb, storetest.Alpha, true, storetest.Increment); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("queued Update = %v, want its deadline", err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if w := worldOf(t, s, sb, "alpha"); w.Counter != 1 {
		t.Errorf("counter = %d, want only the first update", w.Counter)
	}
	if n := s.LocalLocks(); n != 0 {
		t.Errorf("%d local locks left, want 0", n)
	}
}

// expiresAt is the absolute expiry of a key in Unix ms (-2 gone, -1 none).
func expiresAt(t *testing.T, c redis.UniversalClient, key string) int64 {
	t.Helper()
	at, err := c.Do(context.Background(), "PEXPIRETIME", key).Int64()
	if err != nil {
		t.Fatal(err)
	}
	return at
}

// TestRedisKeysExpire checks that every key of a sandbox carries the
// sandbox's expiry after each kind of write, and that Stop moves them all,
// even for a writer holding the record from before the stop.
func TestRedisKeysExpire(t *testing.T) {
	ctx := context.Background()
	s := newRedis(t, time.Now)
	raw := newRedisClient(t)
	defer raw.Close()
	twinNames := []string{"alpha", "beta"}
	sb := createSandbox(t, s, storetest.NewTeam(), time.Hour, twinNames...)
	keys := session.SandboxKeys(sb.ID, twinNames)
	check := func(when string, want time.Time, keys []string) {
		t.Helper()
		for _, k := range keys {
			if ttl := raw.PTTL(ctx, k).Val(); ttl <= 0 {
				t.Errorf("%s: %s has PTTL %v, want > 0", when, k, ttl)
			}
			if at := expiresAt(t, raw, k); at != want.UnixMilli() {
				t.Errorf("%s: %s expires at %d, want %d", when, k, at, want.UnixMilli())
			}
		}
	}
	created := []string{keys[0], session.StateKey(sb.ID, "alpha"), session.SeedKey(sb.ID, "alpha"),
		session.StateKey(sb.ID, "beta"), session.SeedKey(sb.ID, "beta")}
	check("after Create", sb.RetainUntil, created)

	if err := s.Update(ctx, sb, storetest.Alpha, true, storetest.Increment); err != nil {
		t.Fatal(err)
	}
	check("after Update", sb.RetainUntil, created)
	for _, twin := range twinNames {
		// A read made twice, whose answer the tape then keeps by
		// reference: every key exists.
		for range 2 {
			if _, err := s.Append(ctx, sb, readRow(sb, twin, "/x", 2048)); err != nil {
				t.Fatal(err)
			}
		}
	}
	check("after Append", sb.RetainUntil, keys)

	retain := time.Now().Add(24 * time.Hour)
	if _, err := s.Stop(ctx, sb.ID, time.Now(), retain); err != nil {
		t.Fatal(err)
	}
	check("after Stop", retain, keys)
	// sb is the record from before the stop, as a replica serving a call
	// at that moment holds it: its writes must keep the new retention.
	if err := s.Update(ctx, sb, storetest.Alpha, true, storetest.Increment); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append(ctx, sb, storetest.NewRow(sb, "alpha", "/y")); err != nil {
		t.Fatal(err)
	}
	check("after writes with a stale record", retain, keys)
	// A released lease is gone, not left to expire.
	if n := raw.Exists(ctx, session.LockKey(sb.ID, "alpha")).Val(); n != 0 {
		t.Errorf("lease still held after the updates returned")
	}
}

// TestRedisKeysGone checks that expiry and discard leave no key of the
// sandbox behind, and that discard also forgets it in the team index.
func TestRedisKeysGone(t *testing.T) {
	ctx := context.Background()
	s := newRedis(t, time.Now)
	raw := newRedisClient(t)
	defer raw.Close()
	team := storetest.NewTeam()
	twinNames := []string{"alpha", "beta"}
	fill := func(sb *session.Sandbox) {
		if err := s.Update(ctx, sb, storetest.Alpha, true, storetest.Increment); err != nil {
			t.Fatal(err)
		}
		for _, twin := range twinNames {
			for range 2 {
				if _, err := s.Append(ctx, sb, readRow(sb, twin, "/x", 2048)); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	allKeys := func(sb *session.Sandbox) []string {
		keys := session.SandboxKeys(sb.ID, twinNames)
		for _, twin := range twinNames {
			keys = append(keys, session.LockKey(sb.ID, twin))
		}
		return keys
	}

	expiring := createSandbox(t, s, team, 500*time.Millisecond, twinNames...)
	fill(expiring)
	discarded := createSandbox(t, s, team, time.Hour, twinNames...)
	fill(discarded)
	if n := raw.Exists(ctx, session.SandboxKeys(discarded.ID, twinNames)...).Val(); n != 11 {
		t.Fatalf("%d of 11 keys exist before discard", n)
	}
	if err := s.Discard(ctx, discarded.ID); err != nil {
		t.Fatal(err)
	}
	if n := raw.Exists(ctx, allKeys(discarded)...).Val(); n != 0 {
		t.Errorf("%d keys left after discard", n)
	}
	if raw.HExists(ctx, session.TeamIndexKey(team), discarded.ID).Val() {
		t.Errorf("discarded sandbox still in the team index")
	}
	if raw.ZScore(ctx, session.TeamOpenKey(team), discarded.ID).Err() != redis.Nil {
		t.Errorf("discarded sandbox still in the open set")
	}

	deadline := time.Now().Add(5 * time.Second)
	for raw.Exists(ctx, allKeys(expiring)...).Val() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("keys of an expired sandbox still exist: %d", raw.Exists(ctx, allKeys(expiring)...).Val())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if time.Now().Before(expiring.RetainUntil.Add(-time.Millisecond)) {
		t.Errorf("keys gone before the sandbox's retention")
	}
}

func TestOpenRedis(t *testing.T) {
	for _, url := range []string{"redis://127.0.0.1:6379/0", "rediss://user:pw@redis.example:6380/2"} {
		c, err := session.OpenRedis(url)
		if err != nil {
			t.Errorf("OpenRedis(%s): %v", url, err)
			continue
		}
		opts := c.(*redis.Client).Options()
		if tls := opts.TLSConfig != nil; tls != (url[:7] == "rediss:") {
			t.Errorf("OpenRedis(%s): TLS %v", url, tls)
		}
		c.Close()
	}
	for _, url := range []string{"http://127.0.0.1:6379", "127.0.0.1:6379", "redis://127.0.0.1:6379/notadb"} {
		if c, err := session.OpenRedis(url); err == nil {
			c.Close()
			t.Errorf("OpenRedis(%s) accepted it", url)
		}
	}
}

func BenchmarkRedisUpdateWrite(b *testing.B) {
	storetest.BenchUpdateWrite(b, newRedis(b, time.Now))
}

func BenchmarkRedisAppend(b *testing.B) {
	storetest.BenchAppend(b, newRedis(b, time.Now))
}

func BenchmarkRedisCreate(b *testing.B) {
	storetest.BenchCreate(b, newRedis(b, time.Now))
}

// TestRedisTapeRowsWithoutSeq: a row is stored without its seq (the list
// index says it) and read back with it; a row stored whole, as an earlier
// version stored it, is read back as it is, in its place.
func TestRedisTapeRowsWithoutSeq(t *testing.T) {
	ctx := context.Background()
	s := newRedis(t, time.Now)
	raw := newRedisClient(t)
	defer raw.Close()
	sb := createSandbox(t, s, storetest.NewTeam(), time.Hour, "alpha")
	key := session.TapeKey(sb.ID, "alpha")
	if _, err := s.Append(ctx, sb, storetest.NewRow(sb, "alpha", "/one")); err != nil {
		t.Fatal(err)
	}
	stored := raw.LIndex(ctx, key, 0).Val()
	if !strings.HasPrefix(stored, `"`) || strings.Contains(stored, `"seq"`) || !strings.Contains(stored, `"/one"`) {
		t.Fatalf("stored row: %s", stored)
	}
	// An earlier version's row, whole, then one of this version's.
	old := `{"seq":2,"at":"2026-01-01T00:00:00Z","twin":"alpha","path":"/old"}`
	raw.RPush(ctx, key, old)
	raw.Incr(ctx, session.TapeSeqKey(sb.ID, "alpha"))
	if _, err := s.Append(ctx, sb, storetest.NewRow(sb, "alpha", "/three")); err != nil {
		t.Fatal(err)
	}
	rows, err := s.TapeRaw(ctx, sb, "alpha", 0, 0)
	if err != nil || len(rows) != 3 {
		t.Fatalf("%v %d rows", err, len(rows))
	}
	if string(rows[1]) != old {
		t.Errorf("earlier version's row: %s", rows[1])
	}
	for i, want := range []string{"/one", "/old", "/three"} {
		var r struct {
			Seq  int64
			Path string
		}
		if err := json.Unmarshal(rows[i], &r); err != nil || r.Seq != int64(i+1) || r.Path != want {
			t.Errorf("row %d: %v %s", i+1, err, rows[i])
		}
	}
	// Read from a seq on, the seqs still come from the list index.
	rows, err = s.TapeRaw(ctx, sb, "alpha", 2, 1)
	if err != nil || len(rows) != 1 || !strings.HasPrefix(string(rows[0]), `{"seq":3,`) {
		t.Fatalf("after 2: %v %q", err, rows)
	}
}
