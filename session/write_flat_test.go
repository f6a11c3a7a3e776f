package session_test

import (
	"context"
	"encoding/json"
	"math"
	"runtime"
	"testing"
	"time"

	"github.com/pomehq/pome/session"
)

// TestRedisWriteFlat checks that a write on Redis does the same work on a
// world of 10,000 entities as on one of 10 (see writeFlat).
func TestRedisWriteFlat(t *testing.T) {
	redisURL(t)
	writeFlat(t, session.Budgets{}, func(t *testing.T) session.Store { return newRedis(t, time.Now) })
}

// TestMemoryWriteFlat is TestRedisWriteFlat on the memory store with the
// server's default budgets, under which a write runs on the world in
// place and the world is measured only every so many writes.
func TestMemoryWriteFlat(t *testing.T) {
	// The server's default budgets: writes are measured against them.
	writeFlat(t, session.Budgets{WorldBytes: 32 << 20, ServerWorldBytes: 4 << 30}, func(t *testing.T) session.Store {
		return newMemory(t, time.Now)
	})
}

// writeFlat checks that each twin's write of BenchmarkRedisWriteWorldSize,
// served through Manager.Invoke, does the same work on a world of 10,000
// entities as on one of 10: the memory it allocates per write, a measure
// of its work that a busy machine does not blur as it does time, within
// 15% (and a few allocations). A write that copied, compared or encoded
// its world would allocate in proportion to it, megabytes.
func writeFlat(t *testing.T, budgets session.Budgets, newStore func(t *testing.T) session.Store) {
	if testing.Short() {
		t.Skip("builds worlds of 10,000 entities")
	}
	ctx := context.Background()
	for _, ww := range worldWrites {
		t.Run(ww.twin, func(t *testing.T) {
			s := newStore(t)
			m := session.NewManager(s, nil, session.Config{Budgets: budgets}, nil)
			var allocs, bytes [2]float64
			for i, n := range []int{10, 10_000} {
				sb, tw, a := createWorld(t, s, ww, n)
				in, err := a.Decode(json.RawMessage(ww.args(n)))
				if err != nil {
					t.Fatal(err)
				}
				write := func() {
					if _, err := m.Invoke(ctx, sb, tw, a, in, nil); err != nil {
						t.Fatal(err)
					}
				}
				write() // caches the world
				// The memory statistics are the process's: other goroutines
				// (a client still redialling a server an earlier test shut)
				// add to them, so the least of three batches is kept.
				const runs, batches = 30, 3
				allocs[i], bytes[i] = math.Inf(1), math.Inf(1)
				for range batches {
					var ms0, ms1 runtime.MemStats
					runtime.ReadMemStats(&ms0)
					for range runs {
						write()
					}
					runtime.ReadMemStats(&ms1)
					allocs[i] = min(allocs[i], float64(ms1.Mallocs-ms0.Mallocs)/runs)
					bytes[i] = min(bytes[i], float64(ms1.TotalAlloc-ms0.TotalAlloc)/runs)
				}
				s.Discard(ctx, sb.ID)
			}
			t.Logf("per write at 10 and 10,000 entities: %.0f and %.0f allocations, %.0f and %.0f bytes", allocs[0], allocs[1], bytes[0], bytes[1])
			// A write that copied, compared or encoded a world of 10,000
			// entities would allocate tens of thousands of times, and
			// megabytes: 16 KiB of slack in bytes still tells them apart.
			if allocs[1] > allocs[0]*1.15+10 || bytes[1] > bytes[0]*1.15+16<<10 {
				t.Fatalf("a write on a world of 10,000 entities allocates %.0f times (%.0f bytes), on one of 10 %.0f (%.0f bytes): it grows with the world", allocs[1], bytes[1], allocs[0], bytes[0])
			}
		})
	}
}
