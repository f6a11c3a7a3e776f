package session

import (
	"sync"
	"sync/atomic"
)

// DefaultWorldCacheBytes bounds the decoded worlds a RedisStore keeps in
// process (see SetWorldCacheBytes). At 64 MiB, 100 sandboxes taking
// Stripe creates in turn outgrew it within seconds: the cache evicts the
// least recently used world, which under calls going round the sandboxes
// is the next one called, so every write decoded its world again (about
// 400 µs of CPU per create against 165 µs cached).
const DefaultWorldCacheBytes = 512 << 20

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
// A cached world is shared by the reads of this process, each under its
// liveWorld's read lock (read actions must not change a world, as under
// the memory store's read lock). A write recorded as an operation runs on
// the cached world itself, under that lock's write side, and the world
// counts as at the write's version only once the write is stored; a write
// that is not stored gives the world up (see redis_live.go). Any other
// write runs on a private copy (privateCopy), which replaces the entry
// once saved.
//
// The cache is bounded by an estimate of its bytes and evicts by second
// chance (CLOCK), an approximation of least recently used: a hit only sets
// its entry's reference bit, under a read lock, and eviction gives a
// referenced entry one more round before it goes. The entries are split
// into shards by sandbox id, each with its own lock and ring, under one
// bound: a put that takes the cache over it evicts from the other shards
// first, one shard locked at a time, and from its own last.
type worldCache struct {
	max    atomic.Int64 // <= 0: nothing is cached
	size   atomic.Int64
	drops  atomic.Int64 // evictions, for tests
	shards [shards]worldShard
}

type worldShard struct {
	mu   sync.RWMutex
	m    map[worldKey]*worldEntry
	head worldEntry // sentinel of the shard's ring: head.next is the newest
}

type worldKey struct{ id, twin string }

// worldEntry is one cached world. Every field but the ring links is fixed
// once the entry is in the cache, so a caller may keep using an entry it got
// after the cache evicted or replaced it; the world itself is used only
// under live's lock, and may be at a later version than ver (live.ver).
type worldEntry struct {
	key     worldKey
	created int64 // the sandbox's CreatedAt (Unix ns): its incarnation
	ver     int64
	// doc is the world's whole document at ver, when this process has it
	// (a world saved as a delta has none; twins without CopyWorld always
	// do).
	doc   []byte
	world any
	// live guards world; entries of the same world changed in place share
	// it.
	live *liveWorld
	// base, dlen and docLen describe the state in Redis at ver: the
	// version of its base document, the bytes of the deltas after it and
	// the base document's length (see redis_delta.go).
	base, dlen, docLen int64
	cost               int64

	// ref is set by every hit and cleared by the eviction hand.
	ref atomic.Bool

	prev, next *worldEntry
}

func newWorldCache(max int64) *worldCache {
	c := &worldCache{}
	c.max.Store(max)
	for i := range c.shards {
		sh := &c.shards[i]
		sh.m = map[worldKey]*worldEntry{}
		sh.head.prev, sh.head.next = &sh.head, &sh.head
	}
	return c
}

// get returns the entry of the twin's world in the sandbox incarnation
// created at created, or nil.
func (c *worldCache) get(id, twin string, created int64) *worldEntry {
	sh := &c.shards[shardOf(id)]
	sh.mu.RLock()
	defer sh.mu.RUnlock()
	e := sh.m[worldKey{id, twin}]
	if e == nil || e.created != created {
		return nil
	}
	e.ref.Store(true)
	return e
}

// evict drops entries until the cache fits in limit, visiting the shards
// from the one after first round to first itself.
func (c *worldCache) evict(limit int64, first int) {
	for i := 1; i <= shards && c.size.Load() > limit; i++ {
		sh := &c.shards[(first+i)%shards]
		sh.mu.Lock()
		c.evictShard(sh, limit)
		sh.mu.Unlock()
	}
}

// evictShard drops entries from the tail of sh's ring (sh locked) until the
// cache fits in limit or sh is empty; an entry referenced since the hand
// last passed goes to the front instead, once.
func (c *worldCache) evictShard(sh *worldShard, limit int64) {
	for c.size.Load() > limit && sh.head.prev != &sh.head {
		e := sh.head.prev
		if e.ref.Swap(false) {
			sh.unlink(e)
			sh.pushFront(e)
			continue
		}
		c.remove(sh, e)
		c.drops.Add(1)
	}
}

// put caches a world at version ver, unless the cache already holds a
// newer version of it. world must never change after this.
func (c *worldCache) put(id, twin string, created, ver int64, doc []byte, world any) {
	c.putEntry(id, twin, created, &worldEntry{ver: ver, doc: doc, world: world, live: newLive(ver), base: ver, docLen: int64(len(doc))})
}

// putEntry caches e (its ver, doc, world, base, dlen and docLen set),
// unless the cache already holds a newer version of the world. e.world
// must never change after this.
func (c *worldCache) putEntry(id, twin string, created int64, e *worldEntry) {
	cost := entryCost(e)
	ver := e.ver
	k := worldKey{id, twin}
	n := shardOf(id)
	sh := &c.shards[n]
	sh.mu.Lock()
	if old := sh.m[k]; old != nil {
		if old.created == created && old.ver >= ver {
			sh.mu.Unlock()
			return
		}
		c.remove(sh, old)
	}
	limit := c.max.Load()
	if cost > limit {
		sh.mu.Unlock()
		return
	}
	e.key, e.created, e.cost = k, created, cost
	sh.m[k] = e
	sh.pushFront(e)
	c.size.Add(cost)
	sh.mu.Unlock()
	c.evict(limit, n)
}

// drop forgets the twin's world (a version that did not match Redis).
func (c *worldCache) drop(id, twin string) {
	sh := &c.shards[shardOf(id)]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if e := sh.m[worldKey{id, twin}]; e != nil {
		c.remove(sh, e)
	}
}

// dropLive forgets the twin's world if the cache still holds l's.
func (c *worldCache) dropLive(id, twin string, l *liveWorld) {
	sh := &c.shards[shardOf(id)]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if e := sh.m[worldKey{id, twin}]; e != nil && e.live == l {
		c.remove(sh, e)
	}
}

// setMax changes the bound, evicting what no longer fits.
func (c *worldCache) setMax(n int64) {
	c.max.Store(n)
	c.evict(max(n, 0), 0)
}

// stats reports the entries and the bytes charged for them.
func (c *worldCache) stats() (entries int, bytes int64) {
	for i := range c.shards {
		sh := &c.shards[i]
		sh.mu.RLock()
		entries += len(sh.m)
		sh.mu.RUnlock()
	}
	return entries, c.size.Load()
}

// remove takes e out of sh (locked).
func (c *worldCache) remove(sh *worldShard, e *worldEntry) {
	sh.unlink(e)
	delete(sh.m, e.key)
	c.size.Add(-e.cost)
}

func (sh *worldShard) unlink(e *worldEntry) {
	e.prev.next, e.next.prev = e.next, e.prev
	e.prev, e.next = nil, nil
}

func (sh *worldShard) pushFront(e *worldEntry) {
	e.prev, e.next = &sh.head, sh.head.next
	sh.head.next.prev = e
	sh.head.next = e
}
