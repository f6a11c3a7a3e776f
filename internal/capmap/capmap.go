// Package capmap is a map that keeps at most a fixed number of entries,
// safe for concurrent use: for values computed once and handed out again
// (rendered answers, kept renderings), where the keys a client can make
// up must not grow it without bound.
package capmap

import "sync"

// Map keeps up to Max entries; a Put past that is dropped, so the value is
// computed again next time. The zero Map with Max set is ready to use.
type Map[K comparable, V any] struct {
	Max int

	mu sync.RWMutex
	m  map[K]V
}

// Get returns the value kept for k, if any.
func (c *Map[K, V]) Get(k K) (V, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	v, ok := c.m[k]
	return v, ok
}

// Put keeps v for k, unless a value is kept for k already or the map is
// full; it returns the value kept for k, or v when none is. Goroutines
// that computed a value for k side by side thus all go on with the first
// one kept.
func (c *Map[K, V]) Put(k K, v V) V {
	c.mu.Lock()
	defer c.mu.Unlock()
	if kept, ok := c.m[k]; ok {
		return kept
	}
	if c.m == nil {
		c.m = map[K]V{}
	}
	if len(c.m) < c.Max {
		c.m[k] = v
	}
	return v
}

// Len is the number of entries kept.
func (c *Map[K, V]) Len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.m)
}
