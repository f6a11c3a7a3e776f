package session

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"

	"github.com/pomehq/pome/tape"
	"github.com/pomehq/pome/twins"
)

// Held writes.
//
// A write on Redis used to take two scripts: the save of the twin's world,
// inside Update, and the append of the call's tape row, once the answer was
// shaped. A replica that died, or a Redis that stayed unreachable longer
// than Manager.Record retries, between the two left a saved write without
// its row: a tape that no longer says what happened to the state, which is
// what checks grade.
//
// When the caller can hold the call's answer until its row is stored, and
// serve the call again if need be (Call does, for a call of kind
// CallWrite: a REST write, an MCP tools/call of a tool that writes), the
// save waits for the row: Update runs the write, keeps the world it made
// and returns, still holding the twin's in-process lock and, if it took
// one, its Redis lease. Append then stores the world and the row in one
// script (saveAppendScript), which checks what a save checks (the version
// read, the lease) first. So a write is saved with its row or not at all,
// and costs one script instead of two.
//
// A save that finds the version moved on (a write that started from the
// cached world without a lease, and met another replica's write) stores
// nothing, as before; but the call's answer is already shaped, so the call
// is refused as stale (ErrStale) and the caller serves it again, this time
// under the lease (holdWrites with afterConflict), where only a lapsed
// lease can conflict. A script that cannot reach Redis lets the in-process
// lock go at once (the other writers of the twin must not queue behind
// Record's retries); given up, the call is answered as a store failure,
// its lease released (settle). A call that never appends its row (no code
// path of the data plane does, but a write must not hang on that) has its
// world saved alone when the caller settles it, and one that panics is
// abandoned, storing nothing (abandon). Call (call.go) drives all of
// this; nothing outside the package sees it.

// heldWrite marks a record whose writes wait for the call's row.
type heldWrite struct {
	// leased: the call is served again after a conflict; its write takes
	// the lease rather than start from the cached world.
	leased bool
	// stale and failed say what became of the call, as for speculation:
	// refused (serve it again), or the store failed (answer 503).
	stale, failed atomic.Bool
	// p is the write waiting for its row, if any.
	p *pendingSave
}

// take returns the write waiting for its row, if any, and forgets it.
func (h *heldWrite) take() *pendingSave {
	p := h.p
	h.p = nil
	return p
}

// pendingSave returns the write made with sb that waits for its row, or
// nil.
func (sb *Sandbox) pendingSave() *pendingSave {
	if sb.hold == nil {
		return nil
	}
	return sb.hold.p
}

// pendingSave is a twin world a write made, not yet stored.
type pendingSave struct {
	tw      *twins.Twin
	ver     int64       // the version it was made from
	before  *worldEntry // the cached world at ver
	kind    string      // what payload is: a delta or the whole document
	payload []byte
	world   any
	token   string // the Redis lease held for it; "" when none
	unlock  func() // the twin's in-process writer lock, held for it
	tried   bool   // an append was sent with it (its outcome may be unknown)
	// pw is the write when it ran on the cached world in place, which it
	// holds until stored or given up (redis_live.go); nil for a private
	// copy.
	pw *placeWrite
}

// writeHolder is a store whose writes can wait for the call's row.
type writeHolder interface {
	holdWrites(sb *Sandbox, afterConflict bool)
	settle(ctx context.Context, sb *Sandbox)
	abandon(sb *Sandbox)
}

// holdsWrites reports whether the store can hold a write's save until its
// row is taped (a store shared by replicas).
func (m *Manager) holdsWrites() bool {
	_, ok := m.Store.(writeHolder)
	return ok
}

// holdWrites marks sb, a record authorized for one attempt at a call that
// is answered only once its row is taped, so that a write the call makes
// is stored with that row, in one step. Call then holds the answer back
// until the call is recorded, serves the call again (with afterConflict)
// when sb turns out Stale, answers unavailable when storeFailed, and
// settles the attempt once it is over. It does nothing with a store that
// cannot (holdsWrites false) or on a speculative record.
func (m *Manager) holdWrites(sb *Sandbox, afterConflict bool) {
	if h, ok := m.Store.(writeHolder); ok && sb != nil && sb.spec == nil {
		h.holdWrites(sb, afterConflict)
	}
}

// settle ends one attempt at a call made with a record marked by
// holdWrites: a write still waiting for a row that was never appended is
// saved alone; one whose append failed for good is given up, its lease and
// lock released. settle is safe on any record.
func (m *Manager) settle(ctx context.Context, sb *Sandbox) {
	if h, ok := m.Store.(writeHolder); ok && sb != nil && sb.hold != nil {
		h.settle(ctx, sb)
	}
}

// abandon gives up a write still waiting for its row, storing nothing,
// and lets go of its lock and lease: for an attempt that ends in a panic,
// whose answer never leaves. abandon is safe on any record.
func (m *Manager) abandon(sb *Sandbox) {
	if h, ok := m.Store.(writeHolder); ok && sb != nil && sb.hold != nil {
		h.abandon(sb)
	}
}

// holding reports whether sb was marked by holdWrites.
func (sb *Sandbox) holding() bool { return sb != nil && sb.hold != nil }

func (s *RedisStore) holdWrites(sb *Sandbox, afterConflict bool) {
	sb.hold = &heldWrite{leased: afterConflict}
}

// stage keeps the world a write made, encoded as kind/payload, for Append
// to store with the call's row, taking over the twin's in-process lock
// (*unlock is cleared), the lease token and pw, the write in place if it
// is one. It reports false, having kept nothing, when sb does not hold its
// writes.
func (s *RedisStore) stage(sb *Sandbox, tw *twins.Twin, before *worldEntry, kind string, payload []byte, world any, token string, unlock *func(), pw *placeWrite) (bool, error) {
	if sb.hold == nil || sb.pendingSave() != nil {
		return false, nil
	}
	sb.hold.p = &pendingSave{tw: tw, ver: before.ver, before: before, kind: kind, payload: payload, world: world, token: token, unlock: *unlock, pw: pw}
	*unlock = nil
	return true, nil
}

// release lets go of what a pending save holds in process; its lease, if
// any, is the caller's business.
func (p *pendingSave) release() {
	if p.unlock != nil {
		p.unlock()
		p.unlock = nil
	}
}

// appendSaving stores p's world and the row (its JSON after the seq) in
// one script; see saveAppendScript.
func (s *RedisStore) appendSaving(ctx context.Context, sb *Sandbox, row *tape.Row, p *pendingSave, data []byte) (int64, error) {
	keys := []string{metaKey(sb.ID), stateKey(sb.ID, row.Twin), tapeSeqKey(sb.ID, row.Twin), tapeKey(sb.ID, row.Twin), lockKey(sb.ID, row.Twin)}
	p.tried = true
	capped := s.tapeCap(sb)
	seq, err := s.runScript(uncancelled(ctx), saveAppendScript, keys,
		data, capped, callID(ctx), strconv.FormatInt(p.ver, 10), p.payload, p.token, p.kind).Int64()
	if err != nil {
		// Kept for Manager.Record's retries (the same call id), or for
		// settle to give up. The in-process lock only spares this
		// process's writers a conflict; it is not held while Redis is
		// unreachable, or they would queue behind retries that may last
		// seconds. A world changed in place is given up: whether the
		// write is stored is not known.
		p.pw.abort()
		p.release()
		return 0, fmt.Errorf("redis save and append: %w", err)
	}
	sb.hold.p = nil
	defer p.release()
	if seq > 0 {
		s.kept(sb, seq, capped, int64(len(data)))
	}
	switch {
	case seq > 0 && p.pw != nil:
		p.pw.commit(p.ver+1, p.kind, p.payload)
		row.Seq = seq
		return seq, nil
	case seq > 0:
		// The world is the state at the version after the one it was
		// made from, and from here on shared, read-only.
		s.cacheSaved(sb, row.Twin, savedEntry(p.before, p.ver+1, p.kind, p.payload, p.world, newLive(p.ver+1)))
		row.Seq = seq
		return seq, nil
	case seq == 0:
		if p.pw != nil && p.token == "" {
			s.conflict(sb.ID, row.Twin)
		}
		p.pw.abort()
		sb.hold.stale.Store(true)
		return 0, ErrStale
	default:
		p.pw.abort()
		// Gone since the call was authorized: served again, the call
		// meets the sandbox's absence rather than an answer for a write
		// that was never stored.
		sb.hold.stale.Store(true)
		return 0, ErrNotFound
	}
}

func (s *RedisStore) settle(ctx context.Context, sb *Sandbox) {
	p := sb.hold.take()
	if p == nil {
		return
	}
	if p.tried {
		// Its append failed for good, and whether the script ran is
		// unknown (a resend would tell, but the store is not answering).
		s.giveUp(ctx, sb, p)
		return
	}
	// Never appended: save the world alone, as an unheld write does.
	saved, err := s.saveEncoded(context.WithoutCancel(ctx), sb, p.tw, p.before, p.kind, p.payload, p.world, p.token, p.pw)
	switch {
	case err != nil && !errors.Is(err, ErrNotFound):
		s.giveUp(ctx, sb, p)
	case err != nil, !saved:
		// The version moved on, or the sandbox is gone: served again.
		sb.hold.stale.Store(true)
	}
	p.release()
}

func (s *RedisStore) abandon(sb *Sandbox) {
	if p := sb.hold.take(); p != nil {
		s.giveUp(context.Background(), sb, p)
	}
}

// giveUp ends p without storing it: the call is answered as a store
// failure, and p's lock and lease (if the script did not drop it) are let
// go rather than waited out by every other writer of the twin.
func (s *RedisStore) giveUp(ctx context.Context, sb *Sandbox, p *pendingSave) {
	sb.hold.failed.Store(true)
	p.pw.abort()
	p.release()
	if p.token != "" {
		releaseScript.Run(context.WithoutCancel(ctx), s.rdb, []string{lockKey(sb.ID, p.tw.Name)}, p.token)
	}
}
