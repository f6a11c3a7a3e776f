package session

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sync"
)

// metaCacheEntries bounds the decoded sandbox records a RedisStore keeps:
// about 1.5 KB each, so some 12 MB at most.
const metaCacheEntries = 8192

// metaCache keeps sandbox records decoded, keyed by the exact JSON they
// were decoded from. It saves the decoding only: every call still reads
// the record from Redis, and a record that changed (a Stop) no longer
// matches, so nothing is ever answered from it that Redis did not just
// say. It is split into shards by sandbox id, each holding its part of the
// bound.
type metaCache struct {
	shards [shards]metaShard
}

type metaShard struct {
	mu sync.Mutex
	m  map[string]metaEntry
}

type metaEntry struct {
	raw string
	sb  *Sandbox // never handed out: callers get copies (share)
}

// decode returns the record encoded as raw, decoded afresh or a copy
// (share) of the one decoded from the same bytes before.
func (c *metaCache) decode(id, raw string) (*Sandbox, error) {
	sh := &c.shards[shardOf(id)]
	sh.mu.Lock()
	e, ok := sh.m[id]
	sh.mu.Unlock()
	if ok && e.raw == raw {
		return e.sb.share(), nil
	}
	var sb Sandbox
	if err := json.Unmarshal([]byte(raw), &sb); err != nil {
		return nil, fmt.Errorf("sandbox %s: %w", id, err)
	}
	keep := sb.clone()
	sh.mu.Lock()
	if sh.m == nil {
		sh.m = map[string]metaEntry{}
	}
	if _, ok := sh.m[id]; !ok && len(sh.m) >= metaCacheEntries/shards {
		// Evict one entry, whichever the map yields first.
		for k := range sh.m {
			delete(sh.m, k)
			break
		}
	}
	sh.m[id] = metaEntry{raw: raw, sb: keep}
	sh.mu.Unlock()
	return &sb, nil
}

// last returns the record of id as last decoded, with the JSON it was
// decoded from.
func (c *metaCache) last(id string) (string, *Sandbox, bool) {
	sh := &c.shards[shardOf(id)]
	sh.mu.Lock()
	e, ok := sh.m[id]
	sh.mu.Unlock()
	if !ok {
		return "", nil, false
	}
	return e.raw, e.sb.share(), true
}

// forget drops a record (its sandbox was discarded).
func (c *metaCache) forget(id string) {
	sh := &c.shards[shardOf(id)]
	sh.mu.Lock()
	delete(sh.m, id)
	sh.mu.Unlock()
}

func (c *metaCache) len() int {
	n := 0
	for i := range c.shards {
		sh := &c.shards[i]
		sh.mu.Lock()
		n += len(sh.m)
		sh.mu.Unlock()
	}
	return n
}

// share copies the record kept in the cache for a caller, its maps,
// slices and times shared with the one kept: as MemoryStore.Get's copies
// share theirs, since no caller changes a record it was handed in place
// (a change is a new record, stored). A deep copy of the maps on every call
// was 6% of the bytes a read allocated on Redis.
func (sb *Sandbox) share() *Sandbox {
	c := *sb
	c.view, c.spec, c.hold = nil, nil, nil
	return &c
}

// clone copies the record deeply enough that changing the copy, its
// slices, maps or times never changes sb. It drops the twin view and the
// speculation, which belong to the call that read sb.
func (sb *Sandbox) clone() *Sandbox {
	c := *sb
	c.Twins = slices.Clone(sb.Twins)
	c.ProviderHashes = maps.Clone(sb.ProviderHashes)
	c.UserHashes = maps.Clone(sb.UserHashes)
	if sb.SeedHashes != nil {
		c.SeedHashes = make(map[string][]string, len(sb.SeedHashes))
		for k, v := range sb.SeedHashes {
			c.SeedHashes[k] = slices.Clone(v)
		}
	}
	if sb.StoppedAt != nil {
		t := *sb.StoppedAt
		c.StoppedAt = &t
	}
	if sb.ClockStart != nil {
		t := *sb.ClockStart
		c.ClockStart = &t
	}
	c.view, c.spec, c.hold = nil, nil, nil
	return &c
}
