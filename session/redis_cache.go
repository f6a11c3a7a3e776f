package session

import (
	"sync"
	"sync/atomic"
)

// DefaultWorldCacheBytes bounds the decoded worlds a RedisStore keeps in
// process (see SetWorldCacheBytes).
const DefaultWorldCacheBytes = 64 << 20

// worldCharge is what an entry costs against the cache's bound per byte of
// its document: the document itself, kept to decode private copies for
// writes, plus its decoded world, which for the twins' default worlds takes
// 1.2 to 1.8 times as much heap as its JSON (measured with
// runtime.MemStats over 2,000 decodes each).
const worldCharge = 3

// entryOverhead is charged per entry on top of its document, so that many
// tiny worlds are bounded too.
const entryOverhead = 256

// worldCache keeps decoded twin worlds of the Redis store in process, each
// with the state version ('ver' of the state hash) its document had. An
// entry is only ever used after Redis confirmed, in the round trip the call
// makes anyway, that the stored version is still the cached one, so a write
// by another replica (which bumps the version) is never missed.
//
// A cached world is immutable: reads share it (read actions must not
// change a world, as under the memory store's read lock), and writes run
// on a private copy decoded from the cached document, which replaces the
// entry only once saved.
//
// The cache is bounded by an estimate of its bytes and evicts by second
// chance (CLOCK), an approximation of least recently used: a hit only sets
// its entry's reference bit, under the read lock, so the reads of different
// sandboxes never wait on each other; eviction, under the write lock, gives
// a referenced entry one more round before it goes.
type worldCache struct {
	mu    sync.RWMutex
	max   int64 // <= 0: nothing is cached
	size  int64
	m     map[worldKey]*worldEntry
	head  worldEntry // sentinel of the LRU ring: head.next is the newest
	drops int64      // evictions, for tests
}

type worldKey struct{ id, twin string }

// worldEntry is one cached world. Every field but the ring links is fixed
// once the entry is in the cache, so a caller may keep using an entry it got
// after the cache evicted or replaced it.
type worldEntry struct {
	key     worldKey
	created int64 // the sandbox's CreatedAt (Unix ns): its incarnation
	ver     int64
	doc     []byte
	world   any
	cost    int64

	// ref is set by every hit and cleared by the eviction hand.
	ref atomic.Bool

	prev, next *worldEntry
}

func newWorldCache(max int64) *worldCache {
	c := &worldCache{max: max, m: map[worldKey]*worldEntry{}}
	c.head.prev, c.head.next = &c.head, &c.head
	return c
}

// get returns the entry of the twin's world in the sandbox incarnation
// created at created, or nil.
func (c *worldCache) get(id, twin string, created int64) *worldEntry {
	c.mu.RLock()
	defer c.mu.RUnlock()
	e := c.m[worldKey{id, twin}]
	if e == nil || e.created != created {
		return nil
	}
	e.ref.Store(true)
	return e
}

// evict drops entries from the tail until the cache fits in limit; an
// entry referenced since the hand last passed goes to the front instead,
// once.
func (c *worldCache) evict(limit int64) {
	for c.size > limit && c.head.prev != &c.head {
		e := c.head.prev
		if e.ref.Swap(false) {
			c.unlink(e)
			c.pushFront(e)
			continue
		}
		c.remove(e)
		c.drops++
	}
}

// put caches a world at version ver, unless the cache already holds a
// newer version of it. world must never change after this.
func (c *worldCache) put(id, twin string, created, ver int64, doc []byte, world any) {
	cost := int64(len(doc))*worldCharge + entryOverhead
	k := worldKey{id, twin}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old := c.m[k]; old != nil {
		if old.created == created && old.ver >= ver {
			return
		}
		c.remove(old)
	}
	if cost > c.max {
		return
	}
	e := &worldEntry{key: k, created: created, ver: ver, doc: doc, world: world, cost: cost}
	c.m[k] = e
	c.pushFront(e)
	c.size += cost
	c.evict(c.max)
}

// drop forgets the twin's world (a version that did not match Redis).
func (c *worldCache) drop(id, twin string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.m[worldKey{id, twin}]; e != nil {
		c.remove(e)
	}
}

// setMax changes the bound, evicting what no longer fits.
func (c *worldCache) setMax(n int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.max = n
	c.evict(max(n, 0))
}

// stats reports the entries and the bytes charged for them.
func (c *worldCache) stats() (entries int, bytes int64) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.m), c.size
}

func (c *worldCache) remove(e *worldEntry) {
	c.unlink(e)
	delete(c.m, e.key)
	c.size -= e.cost
}

func (c *worldCache) unlink(e *worldEntry) {
	e.prev.next, e.next.prev = e.next, e.prev
	e.prev, e.next = nil, nil
}

func (c *worldCache) pushFront(e *worldEntry) {
	e.prev, e.next = &c.head, c.head.next
	c.head.next.prev = e
	c.head.next = e
}
