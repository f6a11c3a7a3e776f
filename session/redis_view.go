package session

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// viewMaxAge bounds how long after the authorization round trip a read may
// still be served as of it. A call uses its record within milliseconds; the
// bound only keeps a record held longer than one call (which nothing in
// Pome does) from serving an old world.
const viewMaxAge = time.Second

// twinView is the version of one twin's state that RedisStore.GetForTwin
// saw in the same round trip as the sandbox record, which a call reads
// just before it runs. Copies of the record share it.
type twinView struct {
	twin string
	ver  int64
	at   time.Time
	// ended is set by the first write made with the record: from then on
	// a read must see that write, so it asks Redis again.
	ended atomic.Bool
}

// serves reports whether a read of twin through the record may take the
// world at version ver without asking Redis: the view saw exactly that
// version, moments ago, and no write was made with the record since.
//
// That read returns the state as of the authorization, which happened
// after the call began: a write or a Stop or Discard that completed before
// the call began is seen, and one that completed after the authorization
// overlaps the call, so answering with the state before it is a correct
// (linearizable) answer, as it would be had the call run a moment sooner.
func (v *twinView) serves(twin string, ver int64) bool {
	return v != nil && v.twin == twin && v.ver == ver && !v.ended.Load() && time.Since(v.at) < viewMaxAge
}

// end stops the view serving reads (a write was made with the record).
func (v *twinView) end() {
	if v != nil {
		v.ended.Store(true)
	}
}

// GetForTwin reads the sandbox record, as Get does, and in the same round
// trip the version of the twin's state. When this store caches the world
// at that version, a read made with the returned record then needs no
// round trip of its own (see twinView.serves), and the first write made
// with it starts from the cached world without taking the lease (see
// writeUnleased).
func (s *RedisStore) GetForTwin(ctx context.Context, id, twin string) (*Sandbox, error) {
	// Both reads go out in one batch, one after the other on one
	// connection, as the pipeline of their own they were before batching.
	meta := redis.NewStringCmd(ctx, "get", metaKey(id))
	ver := redis.NewStringCmd(ctx, "hget", stateKey(id, twin), "ver")
	if err := s.pipe(ctx, 0, meta, ver); err != nil {
		return nil, err
	}
	if err := firstErr(meta, ver); err != nil && !errors.Is(err, redis.Nil) {
		return nil, err
	}
	raw, err := meta.Result()
	if err != nil {
		return nil, notFound(err)
	}
	sb, err := s.decodeMeta(id, raw)
	if err != nil {
		return nil, err
	}
	if v, err := ver.Int64(); err == nil {
		sb.view = &twinView{twin: twin, ver: v, at: time.Now()}
	}
	return sb, nil
}

// WorldVersion reports the version of the twin's state that sb's
// authorization established: the version GetForTwin read from Redis in the
// authorization's own round trip, or, for a speculative record
// (GetCached), the version of the world this process caches, which the
// call's tape append then checks against Redis before the call's answer
// may leave (Attempt.Held). Either way an answer kept for that version
// is what a read run now on the world would answer, under the same
// guarantee as that read (see twinView.serves and redis_spec.go). Without
// a view that still serves (a write was made with sb, or sb was read
// without one) it reports 0: the read itself then says which version it
// ran on (WithReadVersion).
//
// Versions are the state hash's 'ver', which only grows: every stored
// write adds one, in the script that stores it, whichever replica wrote;
// a compaction keeps it; a write that was not stored leaves it and gives
// up the world it changed (redis_live.go), so a number names one world of
// one incarnation of the sandbox. The incarnation (CreatedAt) is not in
// the number: callers key what they keep by it (a sandbox discarded and
// created again under the same id counts from 1 again).
func (s *RedisStore) WorldVersion(sb *Sandbox, twin string) (uint64, bool) {
	if v := sb.view; v != nil && v.serves(twin, v.ver) {
		return uint64(v.ver), true
	}
	return 0, true
}
