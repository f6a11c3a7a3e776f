package session

import (
	"errors"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// Speculative reads.
//
// A read on Redis makes two round trips: the authorization reads the
// sandbox record and the twin's state version, and the tape append stores
// the call's row. When this process already holds both the record and the
// twin's world (from earlier calls), a read can skip the first: it is
// authorized against the record as last read and answered from the world
// as last read, and the append then checks, in its own script, that the
// record is still exactly that record and the state still that version.
// If they are, nothing changed between the moment the record was read and
// the moment the row was stored, so the answer is the one a call
// authorized and run at that moment would have had, and it is kept. If
// either changed (a write, a Stop, a Discard, expiry, on any replica), the
// append stores nothing and reports ErrStale; the caller throws the answer
// away and serves the call again the ordinary way. Either way the tape
// gets exactly one row for the call and its seq stays gap-free.
//
// The same holds for an answer a transport kept for the cached world's
// version (WorldVersion reports that version for a speculative record):
// it is served into the held answer, and leaves only once the append found
// the state still at that version.
//
// A write is never speculative: Update refuses one made with a speculative
// record (ErrStale), so that a write always starts from an authorization
// Redis has just confirmed.

// ErrStale reports that a speculative record (GetCached) no longer matches
// what Redis holds: nothing was stored, and the call must be served again
// with a fresh record.
var ErrStale = errors.New("sandbox record changed since it was read")

// speculation is what a speculative record was built from.
type speculation struct {
	raw string // the record's JSON as last read from Redis
	ver int64  // the twin's state version of the cached world
	// stale is set once the store refused the record: the call's answer
	// is to be thrown away. failed is set when the store could not be
	// reached to check it: the answer is to be replaced by a 503.
	stale, failed atomic.Bool
}

// Speculative reports whether sb was read from this process's caches
// rather than from the store (see RedisStore.GetCached).
func (sb *Sandbox) Speculative() bool { return sb != nil && sb.spec != nil }

// Stale reports whether the store refused sb, a speculative record, as
// out of date, or refused the held write made with it (redis_hold.go): the
// call made with it must be served again.
func (sb *Sandbox) Stale() bool {
	return sb != nil && (sb.spec != nil && sb.spec.stale.Load() || sb.hold != nil && sb.hold.stale.Load())
}

// storeFailed reports whether the store failed when it was to check sb, a
// speculative record, or to store the held write made with it: the call
// made with it must be answered as a store failure (a retryable 503), as
// its authorization would have been.
func (sb *Sandbox) storeFailed() bool {
	return sb != nil && (sb.spec != nil && sb.spec.failed.Load() || sb.hold != nil && sb.hold.failed.Load())
}

func (sb *Sandbox) refuseStale() error {
	sb.spec.stale.Store(true)
	return ErrStale
}

// speculativeGetter is a store that can hand out a record for a read from
// what it holds in process, checked later (RedisStore).
type speculativeGetter interface {
	GetCached(id, twin string) (*Sandbox, bool)
}

// GetCached returns the sandbox record as this process last read it, with
// a view of the twin's world as cached, when it holds both; no round trip.
// The record is speculative: Append checks it (see the top of this file).
func (s *RedisStore) GetCached(id, twin string) (*Sandbox, bool) {
	if s.direct.Load() {
		// Batching off is the plain, one-step-at-a-time mode: no guesses.
		return nil, false
	}
	raw, sb, ok := s.metas.last(id)
	if !ok || !s.now().Before(sb.RetainUntil) {
		return nil, false
	}
	e := s.worlds.get(id, twin, sb.CreatedAt.UnixNano())
	if e == nil {
		return nil, false
	}
	sb.view = &twinView{twin: twin, ver: e.ver, at: time.Now()}
	sb.spec = &speculation{raw: raw, ver: e.ver}
	return sb, true
}

// appendCheckedScript is appendScript for a speculative record: it stores
// the row only if the record and the twin's state version are still the
// ones the call was served from, and answers -3 (nothing stored) if not.
// KEYS: meta, state, tapeseq, tape, tapebodies. ARGV: row JSON after
// `{"seq":0,` (or its reference form), cap, call id, body hash or empty,
// body or empty (as appendScript's), the record as read, the state
// version.
var appendCheckedScript = redis.NewScript(luaExpiry + luaRecentCalls + luaAppendReplay + `
if redis.call('GET', KEYS[1]) ~= ARGV[6] then return -3 end
if st[1] ~= ARGV[7] then return -3 end
local at = expiry(KEYS[1])
local bhash, body = ARGV[4], ARGV[5]
` + luaAppendRow)

// appendFor picks the append script for sb, and the arguments it takes
// after appendScript's.
func appendFor(sb *Sandbox) (*redis.Script, []any) {
	if sb.spec == nil {
		return appendScript, nil
	}
	return appendCheckedScript, []any{sb.spec.raw, sb.spec.ver}
}
