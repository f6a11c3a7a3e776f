package rest_test

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/pomehq/pome/rest"
	"github.com/pomehq/pome/session"
)

// TestSoakMemoryStaysFlat runs mixed traffic (REST writes and reads, MCP,
// tape reads) over many short-lived sandboxes on loopback for a bounded
// time, then lets them expire: the memory store ends with no open
// sandbox, sweeping removes them, and the live heap returns to about
// where it started.
func TestSoakMemoryStaysFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("soak")
	}
	store := session.NewMemoryStore(nil, 0)
	t.Cleanup(func() { store.Close() })
	// Its sandboxes are swept only at the end, so the tape budget is
	// lifted: this test measures what the store keeps, not the refusals.
	// The answers of reads are kept up to a bound whoever they were for
	// (32 MiB by default, which alone would pass the test's margin): a
	// small one here, so that what is left over is not the cache.
	s := startReal(t, rest.Config{SandboxQuota: 100000, MaxServerTapeBytes: 1 << 40, MaxServerWorldBytes: 1 << 40, AnswerCacheBytes: 4 << 20}, store)
	// Live bytes, not the spans that hold them: freed sandboxes leave
	// spans part-used by what outlives them (their summaries, kept a
	// week for the sandbox list), which a leak test must not count.
	heap := func() uint64 {
		runtime.GC()
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	// Warm up once so that lazily built state (schemas, pools) is counted
	// in the baseline.
	round(t, s, 5)
	time.Sleep(1100 * time.Millisecond)
	store.Sweep()
	base := heap()
	deadline := time.Now().Add(20 * time.Second)
	rounds := 0
	for time.Now().Before(deadline) {
		round(t, s, 20)
		rounds++
	}
	time.Sleep(1100 * time.Millisecond)
	store.Sweep()
	u, err := store.Usage(context.Background(), s.TeamA)
	if err != nil {
		t.Fatal(err)
	}
	if u.SandboxesOpen != 0 {
		t.Fatalf("%d sandboxes still open after expiry", u.SandboxesOpen)
	}
	after := heap()
	t.Logf("%d rounds, %d sandboxes; live heap %d KiB → %d KiB", rounds, u.SandboxesCreated, base>>10, after>>10)
	// Generous: a leak of the sandboxes' worlds or tapes would be many
	// times the baseline after thousands of sandboxes.
	if after > 2*base+16<<20 {
		t.Fatalf("heap grew from %d KiB to %d KiB after every sandbox expired", base>>10, after>>10)
	}
}

// round creates n one-second sandboxes and sends each a mix of calls.
func round(t *testing.T, s *realServer, n int) {
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			st, b, _ := timed(t, "POST", s.URL+"/v1/sandboxes", map[string]string{"Authorization": "Bearer " + s.KeyA, "Content-Type": "application/json"}, `{"twins":["github","slack"],"ttl_seconds":1}`)
			if st != 201 {
				t.Errorf("create: %d %s", st, b)
				return
			}
			c := decodeCreated(t, b)
			gh, sl := c.PerTwin["github"].APIURL, c.PerTwin["slack"].APIURL
			for j := 0; j < 5; j++ {
				doTB(t, "POST", gh+"/repos/acme/api/issues", jsonBody(c.AgentToken), fmt.Sprintf(`{"title":"soak %d %d"}`, i, j))
				doTB(t, "POST", sl+"/api/chat.postMessage", jsonBody(c.AgentToken), `{"channel":"general","text":"soak"}`)
				doTB(t, "GET", gh+"/repos/acme/api/issues?state=all", bearer(c.AgentToken), "")
			}
			probe{"mcp", "POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`}.send(t, gh, c.AgentToken)
			doTB(t, "GET", gh+"/_pome/tape", bearer(c.AuthToken), "")
		}(i)
	}
	wg.Wait()
}
