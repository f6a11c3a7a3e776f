package session

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
)

// TestWorldCacheShardsKeepOneBound: puts, gets and drops from many
// goroutines over many sandboxes (so every shard is used) keep the bytes
// charged equal to what the shards hold, and within the bound once the
// puts are done. Run with -race.
func TestWorldCacheShardsKeepOneBound(t *testing.T) {
	const bound = 64 << 10
	c := newWorldCache(bound)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(g), 7))
			for i := range 3000 {
				id := fmt.Sprintf("ses_%d", rng.IntN(200))
				switch rng.IntN(4) {
				case 0, 1:
					c.put(id, "alpha", 1, int64(i), make([]byte, 100+rng.IntN(2000)), nil)
				case 2:
					c.get(id, "alpha", 1)
				case 3:
					c.drop(id, "alpha")
				}
			}
		}()
	}
	wg.Wait()
	var held int64
	for i := range c.shards {
		sh := &c.shards[i]
		n := 0
		for e := sh.head.next; e != &sh.head; e = e.next {
			held += e.cost
			n++
		}
		if n != len(sh.m) {
			t.Errorf("shard %d: %d entries on its ring, %d in its map", i, n, len(sh.m))
		}
	}
	if _, bytes := c.stats(); bytes != held || bytes > bound {
		t.Errorf("%d bytes charged, the shards hold %d; bound %d", bytes, held, bound)
	}
	// Which shards still hold a world at the end depends on how the
	// goroutines interleaved; which shards the ids map to does not.
	used := map[int]bool{}
	for i := range 200 {
		used[shardOf(fmt.Sprintf("ses_%d", i))] = true
	}
	if len(used) != shards {
		t.Errorf("the test's ids reach only %d of %d shards", len(used), shards)
	}
	if c.drops.Load() == 0 {
		t.Error("nothing was evicted under a bound this small")
	}
}

// TestWorldCacheEvictsOtherShardsFirst: a put over the bound makes room in
// other shards before its own, so the world just cached stays.
func TestWorldCacheEvictsOtherShardsFirst(t *testing.T) {
	c := newWorldCache(4 * (1000*worldCharge + entryOverhead))
	var ids []string
	for i := 0; len(ids) < 8; i++ {
		id := fmt.Sprintf("ses_%d", i)
		ids = append(ids, id)
		c.put(id, "alpha", 1, 1, make([]byte, 1000), nil)
		if c.get(id, "alpha", 1) == nil {
			t.Fatalf("%s: evicted by its own put", id)
		}
	}
	if n, _ := c.stats(); n != 4 {
		t.Errorf("%d worlds cached, room for 4", n)
	}
}
