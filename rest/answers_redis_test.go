package rest_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/pomehq/pome/rest"
	"github.com/pomehq/pome/session"
	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/github"
)

// answerReplicas is servers of the github and clock twins on one Redis,
// each with its own answer cache, as replicas behind a load balancer.
type answerReplicas struct {
	url, key string
	teams    *session.Teams
	reg      *twins.Registry
	srvs     []*rest.Server
	urls     []string
}

func startAnswerReplicas(t *testing.T) *answerReplicas {
	t.Helper()
	url := os.Getenv("POME_TEST_REDIS_URL")
	if url == "" {
		t.Skip("POME_TEST_REDIS_URL not set")
	}
	key := session.NewAPIKey()
	teams, err := session.NewTeams(map[string][]string{"answers-" + session.NewSandboxID(): {key}})
	if err != nil {
		t.Fatal(err)
	}
	r := &answerReplicas{url: url, key: key, teams: teams, reg: twins.NewRegistry(github.New(), clockTwin())}
	r.start(t)
	r.start(t)
	return r
}

// start starts one more replica, returning its index.
func (r *answerReplicas) start(t *testing.T) int {
	t.Helper()
	srv, u := startRedisReplica(t, r.url, r.reg, r.teams, r.urls)
	r.srvs = append(r.srvs, srv)
	r.urls = append(r.urls, u)
	return len(r.srvs) - 1
}

func (r *answerReplicas) hits(i int) int64 {
	h, _ := rest.AnswerCacheCounts(r.srvs[i])
	return h
}

func (r *answerReplicas) misses(i int) int64 {
	_, m := rest.AnswerCacheCounts(r.srvs[i])
	return m
}

// TestAnswerCacheTwoReplicas: on Redis, a read answered from replica A's
// cache never hides a write acknowledged on replica B (nor on a B that
// started afresh, nor on A itself); repeated reads of an unchanged world
// are served from the cache; writes, refused writes and clock reads never
// are.
func TestAnswerCacheTwoReplicas(t *testing.T) {
	r := startAnswerReplicas(t)
	c := createOn(t, r.urls[0], r.key, "github", "clock")
	tok := c.ProviderCredentials["github"].Token
	api := func(i int, twin string) string {
		return strings.Replace(c.PerTwin[twin].APIURL, r.urls[0], r.urls[i], 1)
	}
	issue := func(i int) (int, []byte) {
		t.Helper()
		st, _, b := do(t, "GET", api(i, "github")+"/repos/acme/api/issues/1", map[string]string{"Authorization": "Bearer " + tok}, "")
		var is struct {
			Comments *int `json:"comments"`
		}
		if st != 200 || json.Unmarshal(b, &is) != nil || is.Comments == nil {
			t.Fatalf("issue from replica %d: %d %.200s", i, st, b)
		}
		return *is.Comments, b
	}
	comment := func(i int, body string) int {
		t.Helper()
		st, _, _ := do(t, "POST", api(i, "github")+"/repos/acme/api/issues/1/comments", jsonBody(tok), body)
		return st
	}

	// Repeated reads of one world on A: the first runs, the next are hits
	// with the same answer.
	base, first := issue(0)
	h := r.hits(0)
	for range 2 {
		if n, b := issue(0); n != base || !bytes.Equal(b, first) {
			t.Fatalf("repeated read: %d comments, %.200s", n, b)
		}
	}
	if got := r.hits(0) - h; got != 2 {
		t.Fatalf("two repeated reads on A: %d hits, want 2", got)
	}

	// Writes acknowledged on B are seen by A's next read, every time.
	for k := 1; k <= 3; k++ {
		hB := r.hits(1)
		if st := comment(1, fmt.Sprintf(`{"body":"from B %d"}`, k)); st != 201 {
			t.Fatalf("comment on B: %d", st)
		}
		if r.hits(1) != hB {
			t.Fatal("a write was answered from the cache")
		}
		// A's first read may find its kept answer, speculatively, for the
		// version A caches; its append is then refused and the answer
		// thrown away, and the read served again runs (a miss) on the
		// version Redis holds.
		mA := r.misses(0)
		if n, _ := issue(0); n != base+k {
			t.Fatalf("after %d comments acknowledged on B, A's read says %d", k, n-base)
		}
		if r.misses(0) == mA {
			t.Fatal("A's first read after B's write did not run")
		}
		hA := r.hits(0)
		// The new world's answer is kept in turn.
		if n, _ := issue(0); n != base+k || r.hits(0) != hA+1 {
			t.Fatalf("A's second read after B's write: %d comments, %d hits, want %d and 1", n-base, r.hits(0)-hA, k)
		}
	}
	base += 3

	// A refused write changes nothing and is never kept: sent twice, it
	// runs twice; A's answer stays served from its cache.
	hA, hB := r.hits(0), r.hits(1)
	for range 2 {
		if st := comment(1, `{"body":""}`); st != 422 {
			t.Fatalf("empty comment on B: %d, want 422", st)
		}
	}
	if r.hits(1) != hB {
		t.Fatal("a refused write was answered from the cache")
	}
	if n, _ := issue(0); n != base || r.hits(0) != hA+1 {
		t.Fatalf("after refused writes: %d comments, %d hits; want %d and 1", n, r.hits(0)-hA, base)
	}

	// A replica that starts afresh in B's place writes; A sees it.
	fresh := r.start(t)
	if st := comment(fresh, `{"body":"from a fresh replica"}`); st != 201 {
		t.Fatalf("comment on the fresh replica: %d", st)
	}
	base++
	if n, _ := issue(0); n != base {
		t.Fatalf("after the fresh replica's write A's read says %d, want %d", n, base)
	}
	// And A's own write.
	if st := comment(0, `{"body":"from A"}`); st != 201 {
		t.Fatalf("comment on A: %d", st)
	}
	base++
	if n, _ := issue(0); n != base {
		t.Fatalf("after A's own write A's read says %d, want %d", n, base)
	}
	if n, _ := issue(1); n != base {
		t.Fatalf("after A's own write B's read says %d, want %d", n, base)
	}

	// Clock reads are never kept; a pure read of the same twin is.
	clock := func(path string) []byte {
		st, _, b := do(t, "GET", api(0, "clock")+path, map[string]string{"Authorization": "Bearer " + c.ProviderCredentials["clock"].Token}, "")
		if st != 200 {
			t.Fatalf("clock %s: %d %s", path, st, b)
		}
		return b
	}
	h = r.hits(0)
	if a, b := clock("/now"), clock("/now"); bytes.Equal(a, b) {
		t.Fatalf("the clock read twice answered %s both times", a)
	}
	clock("/now")
	if r.hits(0) != h {
		t.Fatalf("%d hits on clock reads", r.hits(0)-h)
	}
	clock("/count")
	clock("/count")
	if r.hits(0) != h+1 {
		t.Fatalf("%d hits on a pure read sent twice, want 1", r.hits(0)-h)
	}
}

// TestAnswerCacheTwoReplicasReadsAfterAcknowledgedWrites: writers on both
// replicas at once (so writes run in place, conflict and give their
// cached worlds up), readers on both: a read sent after a write was
// acknowledged, on either replica, always sees it.
func TestAnswerCacheTwoReplicasReadsAfterAcknowledgedWrites(t *testing.T) {
	r := startAnswerReplicas(t)
	c := createOn(t, r.urls[0], r.key, "github")
	tok := c.ProviderCredentials["github"].Token
	api := func(i int) string { return strings.Replace(c.PerTwin["github"].APIURL, r.urls[0], r.urls[i], 1) }
	comments := func(i int) int {
		_, _, b := do(t, "GET", api(i)+"/repos/acme/api/issues/1", map[string]string{"Authorization": "Bearer " + tok}, "")
		var is struct {
			Comments int `json:"comments"`
		}
		json.Unmarshal(b, &is)
		return is.Comments
	}
	base := comments(0)
	const writers, perWriter = 4, 8
	var mu sync.Mutex
	acked := 0
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perWriter {
				st, _, _ := do(t, "POST", api(w%2)+"/repos/acme/api/issues/1/comments", jsonBody(tok), fmt.Sprintf(`{"body":"w%d-%d"}`, w, i))
				if st != 201 {
					t.Errorf("comment: %d", st)
					return
				}
				mu.Lock()
				acked++
				floor := acked
				mu.Unlock()
				// Read on the other replica, then on the writer's.
				for _, rd := range []int{(w + 1) % 2, w % 2} {
					if got := comments(rd); got < base+floor {
						t.Errorf("a read on replica %d after %d acknowledged comments saw %d", rd, floor, got-base)
						return
					}
				}
			}
		}()
	}
	for rd := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 30 {
				comments(rd)
			}
		}()
	}
	wg.Wait()
	for i := range 2 {
		if got := comments(i); got != base+writers*perWriter {
			t.Fatalf("replica %d: %d comments at the end, want %d", i, got-base, writers*perWriter)
		}
	}
	if r.hits(0)+r.hits(1) == 0 {
		t.Log("no read was served from the cache (every read met a newer world)")
	}
}
