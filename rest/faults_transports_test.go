package rest_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/pomehq/pome/session"
	"github.com/pomehq/pome/tape"
)

// faultTransport sends one issue create a way agents do, and reports
// whether the answer acknowledged it.
type faultTransport struct {
	name string
	send func(c *http.Client, base, title string) (bool, error)
}

// faultTransports are every way a write reaches the GitHub twin: REST, and
// MCP under each protocol version (no version named, 2024-11-05 as
// Claude Code's older SDKs speak it, 2025-11-25, 2026-07-28) and as the
// request of a batch.
func faultTransports(tok, agent string) []faultTransport {
	mcp := func(version string, batch bool) func(c *http.Client, base, title string) (bool, error) {
		return func(c *http.Client, base, title string) (bool, error) {
			params := `"name":"issue_write","arguments":{"method":"create","owner":"acme","repo":"api","title":"` + title + `"}`
			if version == "2026-07-28" {
				params = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},` + params
			}
			body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + params + `}}`
			if batch {
				body = "[" + body + "]"
			}
			req, _ := http.NewRequest("POST", base+"/mcp", strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+agent)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if version != "" {
				req.Header.Set("Mcp-Protocol-Version", version)
			}
			if version == "2026-07-28" {
				req.Header.Set("Mcp-Method", "tools/call")
				req.Header.Set("Mcp-Name", "issue_write")
			}
			resp, err := c.Do(req)
			if err != nil {
				return false, err
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			if batch {
				b = []byte(strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(string(b)), "["), "]"))
			}
			var a struct {
				Result *struct {
					IsError bool `json:"isError"`
				} `json:"result"`
			}
			return resp.StatusCode == 200 && json.Unmarshal(b, &a) == nil && a.Result != nil && !a.Result.IsError, nil
		}
	}
	return []faultTransport{
		{"rest", func(c *http.Client, base, title string) (bool, error) {
			req, _ := http.NewRequest("POST", base+"/repos/acme/api/issues", strings.NewReader(`{"title":"`+title+`"}`))
			req.Header.Set("Authorization", "Bearer "+tok)
			resp, err := c.Do(req)
			if err != nil {
				return false, err
			}
			resp.Body.Close()
			return resp.StatusCode == 201, nil
		}},
		{"mcp", mcp("", false)},
		{"mcp-2024", mcp("2024-11-05", false)},
		{"mcp-2025", mcp("2025-11-25", false)},
		{"mcp-2026", mcp("2026-07-28", false)},
		{"mcp-batch", mcp("2025-03-26", true)},
	}
}

// TestRedisFaultsEveryTransport: writers on every transport and protocol
// version keep creating issues through two replicas while Redis is first
// paused (SIGSTOP, then SIGCONT) and then killed (SIGKILL) and restarted
// from its append-only file. Afterwards, on every replica: every
// acknowledged write is in the state; every issue in the state has exactly
// one row marked state_mutation, and no such row names an issue the state
// lacks (the tape neither misses nor invents a change); seq is gap-free.
func TestRedisFaultsEveryTransport(t *testing.T) {
	r, start := durableRedis(t)
	redisCmd := start()
	waitPort(t, r.port)

	key, team := session.NewAPIKey(), "transports-"+session.NewRequestID()
	replica := func() *httptest.Server { return redisReplica(t, r.url(), team, key) }
	a, b := replica(), replica()
	urls := []string{a.URL, b.URL}
	ctl := map[string]string{"Authorization": "Bearer " + key, "Content-Type": "application/json"}
	st, body, _ := timed(t, "POST", a.URL+"/v1/sandboxes", ctl, `{"twins":["github"],"ttl_seconds":600}`)
	if st != 201 {
		t.Fatalf("%d %s", st, body)
	}
	var c session.Created
	json.Unmarshal(body, &c)
	sandboxPath := "/github/s/" + c.SessionID

	var mu sync.Mutex
	acked := map[string]string{} // title: transport
	var served atomic.Int64
	var stop atomic.Bool
	client := &http.Client{Timeout: 15 * time.Second}
	var wg sync.WaitGroup
	for _, tr := range faultTransports(c.ProviderCredentials["github"].Token, c.AgentToken) {
		wg.Add(1)
		go func(tr faultTransport) {
			defer wg.Done()
			for i := 0; !stop.Load(); i++ {
				title := fmt.Sprintf("%s-%d", tr.name, i)
				ok, err := tr.send(client, urls[i%2]+sandboxPath, title)
				if err != nil || !ok {
					time.Sleep(20 * time.Millisecond)
					continue
				}
				served.Add(1)
				mu.Lock()
				acked[title] = tr.name
				mu.Unlock()
			}
		}(tr)
	}

	waitFor(func() bool { return served.Load() >= 12 })
	before := served.Load()
	redisCmd.Process.Signal(syscall.SIGSTOP)
	time.Sleep(1200 * time.Millisecond)
	redisCmd.Process.Signal(syscall.SIGCONT)
	time.Sleep(500 * time.Millisecond)
	redisCmd.Process.Signal(syscall.SIGKILL)
	redisCmd.Wait()
	time.Sleep(300 * time.Millisecond)
	start()
	waitPort(t, r.port)
	atRestart := served.Load()
	trafficUntil(&stop, func() bool { return served.Load() > atRestart+12 })
	wg.Wait()
	if before == 0 || served.Load() <= atRestart {
		t.Fatalf("the faults did not land mid-traffic: %d acknowledged before, %d by the restart, %d in all", before, atRestart, served.Load())
	}

	title := regexp.MustCompile(`"title":"((?:rest|mcp[-a-z0-9]*)-\d+)"`)
	for _, url := range urls {
		waitReady(t, url)
		st, state, _ := timed(t, "GET", url+"/v1/sandboxes/"+c.SessionID+"/state/github", ctl, "")
		if st != 200 {
			t.Fatalf("state from %s: %d %s", url, st, state)
		}
		inState := map[string]int{}
		for _, m := range title.FindAllStringSubmatch(string(state), -1) {
			inState[m[1]]++
		}
		for ti, tr := range acked {
			if inState[ti] == 0 {
				t.Errorf("acknowledged %s write %q is not in the state", tr, ti)
			}
		}
		st, tp, _ := timed(t, "GET", url+"/v1/sandboxes/"+c.SessionID+"/tapes/github", ctl, "")
		var out struct{ Rows []tape.Row }
		if st != 200 || json.Unmarshal(tp, &out) != nil {
			t.Fatalf("tape from %s: %d", url, st)
		}
		mutations := map[string]int{}
		for i, row := range out.Rows {
			if row.Seq != int64(i+1) {
				t.Fatalf("tape seq gap at %d: %d", i, row.Seq)
			}
			if !row.StateMutation {
				continue
			}
			m := regexp.MustCompile(`\\?"title\\?":\\?"((?:rest|mcp[-a-z0-9]*)-\d+)`).FindStringSubmatch(string(row.Request.Body))
			if m == nil {
				t.Fatalf("a mutation row without a title: %s", row.Request.Body)
			}
			mutations[m[1]]++
		}
		for ti, n := range inState {
			if n != 1 {
				t.Errorf("issue %q is in the state %d times", ti, n)
			}
			if mutations[ti] != 1 {
				t.Errorf("issue %q is in the state with %d mutation rows", ti, mutations[ti])
			}
		}
		for ti := range mutations {
			if inState[ti] == 0 {
				t.Errorf("a row says %q changed the state, which does not hold it", ti)
			}
		}
	}
	counts := map[string]int{}
	for _, tr := range acked {
		counts[tr]++
	}
	t.Logf("acknowledged per transport: %v", counts)
}
