package session

import (
	"errors"
	"fmt"
	"sync"

	"github.com/pomehq/pome/twins"
)

// Cached worlds that writes change in place.
//
// A write that Manager.Invoke recorded as an operation (redis_op.go) runs
// on the world this process caches, not on a copy: the writer holds the
// twin's in-process lock and (unless it starts from the version its call's
// authorization saw) its Redis lease, and the world's liveWorld lock for
// writing, from before the action runs until the write is stored or given
// up. Reads of this process hold the same lock for reading while they use
// the world, so none sees a write that is not stored. A world advances to
// the write's version once Redis stored the write; a write that is not
// stored (a conflict, a failure, a panic, a refusal after the action
// changed the world) marks the world dead and drops it from the cache, and
// whoever holds it then reads the state from Redis again. Deltas other
// replicas stored are applied the same way: operations run again on the
// cached world under the write lock.

// liveWorld guards one cached world.
type liveWorld struct {
	mu sync.RWMutex
	// ver is the stored version the world is at (guarded by mu).
	ver int64
	// dead: a write changed the world and was not stored, or a delta
	// failed to apply; it must not be used again (guarded by mu).
	dead bool
}

func newLive(ver int64) *liveWorld { return &liveWorld{ver: ver} }

// read takes e's world for reading; false when it was given up. The caller
// calls unread when done with it.
func (e *worldEntry) read() bool {
	e.live.mu.RLock()
	if e.live.dead {
		e.live.mu.RUnlock()
		return false
	}
	return true
}

func (e *worldEntry) unread() { e.live.mu.RUnlock() }

// errGivenUp is a cached world that cannot be brought up to date in place:
// given up by a write or a delta, or moved on from the version a delta
// list starts at. The caller reads the whole state again.
var errGivenUp = errors.New("cached world given up")

// allOps reports whether every delta is an operation.
func allOps(ds [][]byte) bool {
	for _, d := range ds {
		if !twins.IsOp(d) {
			return false
		}
	}
	return true
}

// applyDeltas applies the deltas of versions from+1.. to world, which the
// caller holds exclusively: operations run on it in place; a world delta
// makes a new world (twins.ApplyDelta, then Twin.CopyWorld to rebuild the
// twin's indexes before the next operation or at the end). It returns the
// world at the last version, which is world itself when every delta was an
// operation. On error world is in an unknown state.
func applyDeltas(tw *twins.Twin, id string, world any, from int64, ds [][]byte) (any, error) {
	if len(ds) > 0 && tw.CopyWorld == nil {
		return nil, fmt.Errorf("%s state: stored as deltas, which this twin cannot apply", tw.Name)
	}
	stale := false // world lacks its indexes
	for i, d := range ds {
		if twins.IsOp(d) {
			if stale {
				world, stale = tw.CopyWorld(world), false
			}
			if err := twins.Replay(tw, id, world, d); err != nil {
				return nil, fmt.Errorf("%s state: version %d: %w", tw.Name, from+int64(i)+1, err)
			}
			continue
		}
		w, err := twins.ApplyDelta(world, d)
		if err != nil {
			return nil, fmt.Errorf("%s state: version %d: %w", tw.Name, from+int64(i)+1, err)
		}
		world, stale = w, true
	}
	if stale {
		// Rebuilds what the twin keeps beside the document (indexes), and
		// shares nothing with the world the deltas were applied to.
		world = tw.CopyWorld(world)
	}
	return world, nil
}

// catchUp returns the entry of the world a read answered (r), made from
// the reader's entry cached when the reply continues it: the cached entry
// itself when current, else its world brought up to date in place (all
// operations) or a new world. It may return an entry whose world is past
// r.ver (a write of this process stored since). The entry is not cached
// yet, nor its world locked. errGivenUp: read the whole state again.
func catchUp(tw *twins.Twin, id string, cached *worldEntry, r *stateRead) (*worldEntry, error) {
	switch {
	case r.short:
		if cached == nil || cached.ver != r.ver {
			return nil, fmt.Errorf("%s state: version %d answered without its document", tw.Name, r.ver)
		}
		return cached, nil
	case r.doc != nil:
		w, err := tw.DecodeWorld(r.doc)
		if err != nil {
			return nil, fmt.Errorf("%s state: %w", tw.Name, err)
		}
		e := &worldEntry{ver: r.ver, base: r.base, dlen: r.dlen, docLen: int64(len(r.doc)), live: newLive(r.ver)}
		if len(r.deltas) == 0 {
			e.doc = r.doc
		}
		if e.world, err = applyDeltas(tw, id, w, r.from, r.deltas); err != nil {
			return nil, err
		}
		return e, nil
	case cached == nil || cached.ver != r.from:
		return nil, fmt.Errorf("%s state: deltas from version %d answered without their base", tw.Name, r.from)
	}
	e := &worldEntry{ver: r.ver, base: r.base, dlen: r.dlen, docLen: cached.docLen}
	l := cached.live
	if !allOps(r.deltas) {
		// A world delta makes a new world from the one at r.from.
		if !cached.read() {
			return nil, errGivenUp
		}
		defer cached.unread()
		if l.ver != r.from {
			return nil, errGivenUp
		}
		w, err := applyDeltas(tw, id, cached.world, r.from, r.deltas)
		if err != nil {
			return nil, err
		}
		e.world, e.live = w, newLive(r.ver)
		return e, nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.dead {
		return nil, errGivenUp
	}
	e.world, e.live = cached.world, l
	if l.ver >= r.ver {
		return e, nil
	}
	if _, err := applyDeltas(tw, id, cached.world, l.ver, r.deltas[l.ver-r.from:]); err != nil {
		l.dead = true
		return nil, fmt.Errorf("%w: %w", errGivenUp, err)
	}
	l.ver = r.ver
	return e, nil
}

// placeWrite is a write running on a cached world in place: before's
// world, at before.ver, whose lock it holds for writing until commit or
// abort.
type placeWrite struct {
	s        *RedisStore
	id, twin string
	created  int64
	before   *worldEntry
	over     bool
}

// commit records that the write is stored at ver as kind/payload: the
// world is at ver, cached as such, and free.
func (w *placeWrite) commit(ver int64, kind string, payload []byte) {
	if w.over {
		return
	}
	w.over = true
	l := w.before.live
	l.ver = ver
	e := savedEntry(w.before, ver, kind, payload, w.before.world, l)
	l.mu.Unlock()
	w.s.cacheSavedAt(w.id, w.twin, w.created, e)
}

// keep frees the world of a write that changed nothing.
func (w *placeWrite) keep() {
	if w.over {
		return
	}
	w.over = true
	w.before.live.mu.Unlock()
}

// abort gives the world up: the write was not stored (or may not have
// been), and the world holds it.
func (w *placeWrite) abort() {
	if w == nil || w.over {
		return
	}
	w.over = true
	l := w.before.live
	l.dead = true
	l.mu.Unlock()
	w.s.worlds.dropLive(w.id, w.twin, l)
}
