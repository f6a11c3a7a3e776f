// Package gcfloor keeps the Go garbage collector from running more often
// than a server with a small live heap needs.
//
// With GOGC at 100 the collector runs each time the heap has grown by as
// much as is live. A `pome serve` whose sandboxes live in Redis holds a few
// tens of megabytes, so under load it collects many times a second and
// spends a tenth of its CPU doing so (see docs/PERFORMANCE.md). A floor
// raises the GC percent while the live heap is small, so that the heap may
// grow to the floor before the next collection, and gives it back to the
// base percent as the live heap grows past half the floor: a large heap
// costs no more memory than without it.
package gcfloor

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
)

// maxPercent bounds the raised GC percent, so that a nearly empty heap
// does not make a single collection wait for floor bytes of garbage from
// next to nothing live.
const maxPercent = 2000

// Percent is the GC percent that lets a heap with live bytes grow to
// floor before the next collection, never under base (the percent the
// process runs with otherwise) nor over maxPercent.
func Percent(live, floor uint64, base int) int {
	if live == 0 || floor <= live {
		return base
	}
	p := (floor - live) * 100 / live
	if p > maxPercent {
		p = maxPercent
	}
	return max(int(p), base)
}

// Base is the GC percent the process was started with: GOGC's value, 100
// when it is unset, and -1 when GOGC=off.
func Base() int {
	v := strings.TrimSpace(os.Getenv("GOGC"))
	if v == "" {
		return 100
	}
	if strings.EqualFold(v, "off") {
		return -1
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 100
	}
	return n
}

// Current returns the GC percent in force (GOGC, as set or as raised).
func Current() int {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return -1
	}
	return int(s[0].Value.Uint64())
}

// Start applies the floor after every collection from now on, until stop
// is called (which puts back the base percent). A floor of 0, or GOGC=off,
// leaves the collector as it is.
func Start(floor uint64) (stop func()) {
	base := Base()
	if floor == 0 || base < 0 {
		return func() {}
	}
	t := &tuner{floor: floor, base: base, current: base}
	t.sample = []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	t.arm()
	return func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		if !t.stopped {
			t.stopped = true
			debug.SetGCPercent(base)
		}
	}
}

type tuner struct {
	floor  uint64
	base   int
	sample []metrics.Sample

	mu      sync.Mutex
	current int
	stopped bool
}

// sentinel is garbage whose finalizer runs once per collection that finds
// it; it is large enough never to be batched with other tiny objects.
type sentinel struct{ _ [64]byte }

// arm leaves a sentinel for the next collection, whose finalizer adjusts
// the percent and arms the next.
func (t *tuner) arm() {
	s := new(sentinel)
	runtime.SetFinalizer(s, func(*sentinel) {
		if t.adjust() {
			t.arm()
		}
	})
}

// adjust sets the percent for the live heap now; it reports false once
// stopped.
func (t *tuner) adjust() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped {
		return false
	}
	metrics.Read(t.sample)
	if t.sample[0].Value.Kind() != metrics.KindUint64 {
		return true
	}
	p := Percent(t.sample[0].Value.Uint64(), t.floor, t.base)
	// Setting the percent has a cost of its own: small changes wait.
	if p == t.current || (p != t.base && abs(p-t.current) < t.current/8) {
		return true
	}
	t.current = p
	debug.SetGCPercent(p)
	return true
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
