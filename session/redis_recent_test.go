package session

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// testRedisClient opens the Redis POME_TEST_REDIS_URL names, the store's
// own way (OpenRedis), closed when tb ends; without it, tb is skipped.
func testRedisClient(tb testing.TB) redis.UniversalClient {
	tb.Helper()
	url := os.Getenv("POME_TEST_REDIS_URL")
	if url == "" {
		tb.Skip("POME_TEST_REDIS_URL not set")
	}
	rdb, err := OpenRedis(url)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { rdb.Close() })
	return rdb
}

// TestRecentCallsRing: an append sent again while its id is among the
// twin's last 32 taped calls is answered its first seq and stores
// nothing, whichever of the three append scripts sent it; once 32 other
// calls took their places, the id is forgotten and a resend is a new call.
// The ring holds 32 ids however many calls came.
func TestRecentCallsRing(t *testing.T) {
	rdb := testRedisClient(t)
	ctx := context.Background()
	id := "test_recent_" + writeID()
	record := `{"id":"` + id + `"}`
	meta, state, seqKey, tapeK, bodies := metaKey(id), stateKey(id, "github"), tapeSeqKey(id, "github"), tapeKey(id, "github"), tapeBodiesKey(id, "github")
	keys := []string{meta, state, seqKey, tapeK, bodies}
	t.Cleanup(func() { rdb.Del(ctx, meta, state, seqKey, tapeK, bodies) })
	if err := rdb.Set(ctx, meta, record, time.Hour).Err(); err != nil {
		t.Fatal(err)
	}
	if err := rdb.HSet(ctx, state, "ver", 1).Err(); err != nil {
		t.Fatal(err)
	}

	// Each append script, by its own arguments: the plain one, the
	// speculative one (the record and version it was served from) and
	// the one that saves the write too (version read, an operation, no
	// lease, a delta).
	type sender func(callID string) (int64, error)
	scripts := map[string]sender{
		"append": func(callID string) (int64, error) {
			return appendScript.Run(ctx, rdb, keys, "{}", 1<<40, callID, "", "").Int64()
		},
		"checked": func(callID string) (int64, error) {
			ver, err := rdb.HGet(ctx, state, "ver").Result()
			if err != nil {
				return 0, err
			}
			return appendCheckedScript.Run(ctx, rdb, keys, "{}", 1<<40, callID, "", "", record, ver).Int64()
		},
	}
	lock := lockKey(id, "github")
	t.Cleanup(func() { rdb.Del(ctx, lock) })
	saveAppend := func(callID string) (int64, error) {
		ver, err := rdb.HGet(ctx, state, "ver").Result()
		if err != nil {
			return 0, err
		}
		return saveAppendScript.Run(ctx, rdb, []string{meta, state, seqKey, tapeK, lock}, "{}", 1<<40, callID, ver, `{"op":1}`, "", saveDelta).Int64()
	}

	rows := func() int64 { return rdb.LLen(ctx, tapeK).Val() }
	var ids []string
	var want []int64
	send := func(s sender) {
		t.Helper()
		callID := writeID()
		seq, err := s(callID)
		if err != nil || seq < 1 {
			t.Fatalf("append: seq %d, %v", seq, err)
		}
		ids, want = append(ids, callID), append(want, seq)
	}
	for range 40 {
		send(scripts["append"])
	}
	send(saveAppend)
	for range 5 {
		send(scripts["checked"])
	}
	n := rows()

	// The last 32 are recognised by every script, and nothing is stored.
	for i := len(ids) - 32; i < len(ids); i++ {
		for name, s := range scripts {
			if seq, err := s(ids[i]); err != nil || seq != want[i] {
				t.Fatalf("%s resend of call %d: seq %d, %v, want %d", name, i, seq, err, want[i])
			}
		}
		if seq, err := saveAppend(ids[i]); err != nil || seq != want[i] {
			t.Fatalf("saveAppend resend of call %d: seq %d, %v, want %d", i, seq, err, want[i])
		}
	}
	if rows() != n {
		t.Fatalf("resends stored %d rows", rows()-n)
	}
	if v, _ := rdb.HGet(ctx, state, "ver").Int64(); v != 2 {
		t.Fatalf("the state's version is %d after one save and its resends, want 2", v)
	}

	// The one before them was forgotten: its resend is a new call.
	old := len(ids) - 33
	seq, err := scripts["append"](ids[old])
	if err != nil || seq != want[len(want)-1]+1 {
		t.Fatalf("resend of a forgotten call: seq %d, %v, want a new seq %d", seq, err, want[len(want)-1]+1)
	}

	fields, err := rdb.HKeys(ctx, state).Result()
	if err != nil {
		t.Fatal(err)
	}
	calls, slots := 0, 0
	for _, f := range fields {
		switch {
		case len(f) > 2 && f[:2] == "c:":
			calls++
		case len(f) > 2 && f[:2] == "r:":
			slots++
		}
	}
	if calls != 32 || slots != 32 {
		t.Fatalf("%d calls and %d ring slots kept, want 32 and 32", calls, slots)
	}
}
