package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pomehq/pome/cmd/pome-bench/internal/load"
	"github.com/pomehq/pome/session"
)

// The scaling benchmarks answer "how does the cost of one call grow with
// the world's size, the tape's length and the number of open sandboxes?",
// each at three sizes, through the same real stack as the in-process
// benchmarks (rest.NewServer over a loopback httptest server). Calls are
// sent one after another from one client, so ns/op is the latency of one
// call; B/op and allocs/op include the client's. Every benchmark runs on
// the memory store, and the world and tape ones on Redis too when
// POME_TEST_REDIS_URL is set (use a database of its own and flush it
// before and after: the benchmarks discard their sandboxes, but an
// interrupted run leaves keys behind):
//
//	go test -run '^$' -bench 'ScalingWorld|ScalingTape$|ScalingSandboxes' -benchmem -benchtime 2000x ./cmd/pome-bench/
//	go test -run '^$' -bench 'ScalingTapeRead' -benchmem -benchtime 3x ./cmd/pome-bench/
//	POME_TEST_REDIS_URL=redis://127.0.0.1:6379/12 go test -timeout 60m -run '^$' \
//	  -bench 'ScalingWorld/redis|ScalingTape$/redis' -benchmem -benchtime 200x ./cmd/pome-bench/
//	POME_TEST_REDIS_URL=redis://127.0.0.1:6379/12 go test -run 'ScalingRedisMemory' -v ./cmd/pome-bench/
//
// On Redis every write copies the whole world and compares the copy with
// it to find its delta (reads use the store's cache of decoded worlds), so
// a write on the 10,000-issue world takes over ten milliseconds: use a
// small -benchtime there, and -timeout, as the default 10 minutes is not
// enough for 2000x.
//
// Setup (seeding, pre-filling tapes, creating pools) is never timed: each
// benchmark function runs once (b.Loop), and write benchmarks that must
// replace a sandbox stop the timer while they do.

var (
	// scaleWorldSizes are the issues (each with one comment) of the GitHub
	// repository and the messages of the Slack channel.
	scaleWorldSizes = []int{10, 1_000, 10_000}
	// scaleTapeLengths are the rows already on the twin's tape.
	scaleTapeLengths = []int{1_000, 10_000, 100_000}
	// scaleSandboxCounts are the sandboxes open in the store.
	scaleSandboxCounts = []int{100, 1_000, 10_000}
)

// scaleWritesPerSandbox bounds how much a write benchmark grows the world
// it measures: after this many writes the sandbox is replaced by a fresh
// one with the same seed (timer stopped), so a world of size n never holds
// more than n/8 (at least 10) written items on top of its seed. Without it
// the 10-issue world would hold thousands of new comments by the end of a
// 2,000x run and measure something else. Not replacing more often keeps
// the set-up short where seeding is slow (10,000 Slack messages).
func scaleWritesPerSandbox(n int) int { return max(10, n/8) }

var (
	scaleComment = []byte(`{"body":"Load test comment: looking into the 500 on POST /orders."}`)
	scaleMessage = []byte(`{"channel":"general","text":"Load test message: deploy looks healthy."}`)
)

// worldCall is one measured call against a seeded world of size n.
type worldCall struct {
	name  string // sub-benchmark name
	unit  string // what n counts
	twin  string
	write bool
	seed  func(tb testing.TB, n int) json.RawMessage
	// request returns method, path under the twin's API URL, body and the
	// expected status.
	request func(n int) (method, path string, body []byte, status int)
}

var worldCalls = []worldCall{
	{name: "github_get_issue_first", unit: "issues", twin: "github", seed: githubSeed,
		request: func(int) (string, string, []byte, int) {
			return http.MethodGet, "/repos/acme/api/issues/1", nil, http.StatusOK
		}},
	{name: "github_get_issue_last", unit: "issues", twin: "github", seed: githubSeed,
		request: func(n int) (string, string, []byte, int) {
			return http.MethodGet, "/repos/acme/api/issues/" + strconv.Itoa(n), nil, http.StatusOK
		}},
	{name: "github_post_comment_first", unit: "issues", twin: "github", write: true, seed: githubSeed,
		request: func(int) (string, string, []byte, int) {
			return http.MethodPost, "/repos/acme/api/issues/1/comments", scaleComment, http.StatusCreated
		}},
	{name: "github_post_comment_last", unit: "issues", twin: "github", write: true, seed: githubSeed,
		request: func(n int) (string, string, []byte, int) {
			return http.MethodPost, "/repos/acme/api/issues/" + strconv.Itoa(n) + "/comments", scaleComment, http.StatusCreated
		}},
	{name: "slack_post_message", unit: "messages", twin: "slack", write: true, seed: slackSeed,
		request: func(int) (string, string, []byte, int) {
			return http.MethodPost, "/api/chat.postMessage", scaleMessage, http.StatusOK
		}},
}

// BenchmarkScalingWorld measures one call against a sandbox whose seeded
// world is small, medium and large: a GitHub repository with 10 / 1,000 /
// 10,000 issues (each with a comment) and a Slack #general with 10 / 1,000
// / 10,000 messages. Reading issue #1 and issue #n separates the cost of
// the world's size from the cost of finding one item in it. It also
// reports how long creating the seeded sandbox took (seed-create-ms).
func BenchmarkScalingWorld(b *testing.B) {
	for _, st := range scaleStores() {
		b.Run(st.name, func(b *testing.B) {
			srv := startScaleServer(b, st.open(b))
			for _, wc := range worldCalls {
				b.Run(wc.name, func(b *testing.B) {
					for _, n := range scaleWorldSizes {
						b.Run(fmt.Sprintf("%s=%d", wc.unit, n), func(b *testing.B) {
							benchWorldCall(b, srv, wc, n)
						})
					}
				})
			}
		})
	}
}

func benchWorldCall(b *testing.B, srv *scaleServer, wc worldCall, n int) {
	seed := map[string]json.RawMessage{wc.twin: wc.seed(b, n)}
	twinNames := []string{wc.twin}
	start := time.Now()
	sb := srv.create(b, twinNames, seed)
	createMS := float64(time.Since(start).Microseconds()) / 1000
	method, path, body, status := wc.request(n)
	var buf bytes.Buffer
	// One unmeasured call warms the connection and checks the request.
	srv.mustCall(b, method, sb.API[wc.twin]+path, sb.AuthToken, body, status, &buf)
	writes, limit := 1, scaleWritesPerSandbox(n)
	for b.Loop() {
		if wc.write && writes >= limit {
			b.StopTimer()
			srv.discard(b, sb)
			sb = srv.create(b, twinNames, seed)
			writes = 0
			b.StartTimer()
		}
		srv.mustCall(b, method, sb.API[wc.twin]+path, sb.AuthToken, body, status, &buf)
		writes++
	}
	b.StopTimer()
	b.ReportMetric(createMS, "seed-create-ms")
	srv.discard(b, sb)
}

// tapeCall is one call measured against a twin whose tape is long.
type tapeCall struct {
	name, method, path string
	body               []byte
	status             int
}

var tapeCalls = []tapeCall{
	{"github_get_issue", http.MethodGet, "/repos/acme/api/issues/1", nil, http.StatusOK},
	{"github_post_comment", http.MethodPost, "/repos/acme/api/issues/1/comments", scaleComment, http.StatusCreated},
}

// tapePool creates one default-world sandbox (github, slack, stripe) per
// tape length, each with one real get-issue call on its GitHub tape padded
// to that many rows with copies of the call's row. All of them stay open
// while any is measured, so every length is measured on the same heap
// (memory store) and the same Redis, and only the called tape differs.
func tapePool(b *testing.B, srv *scaleServer) map[int]*load.Sandbox {
	pool := map[int]*load.Sandbox{}
	var buf bytes.Buffer
	for _, rows := range scaleTapeLengths {
		sb := srv.create(b, benchTwins, nil)
		srv.mustCall(b, http.MethodGet, sb.API["github"]+"/repos/acme/api/issues/1", sb.AuthToken, nil, http.StatusOK, &buf)
		srv.fillTape(b, sb, "github", rows)
		pool[rows] = sb
	}
	return pool
}

// BenchmarkScalingTape measures one call to a twin whose tape already holds
// 1,000 / 10,000 / 100,000 rows. Appending a row must not cost more on a
// longer tape. Every call adds a row, so a tape ends b.N rows longer than
// its name says; the comment benchmark also grows issue #1 by b.N comments,
// the same at every length.
func BenchmarkScalingTape(b *testing.B) {
	for _, st := range scaleStores() {
		b.Run(st.name, func(b *testing.B) {
			srv := startScaleServer(b, st.open(b))
			pool := tapePool(b, srv)
			for _, tc := range tapeCalls {
				b.Run(tc.name, func(b *testing.B) {
					for _, rows := range scaleTapeLengths {
						b.Run(fmt.Sprintf("rows=%d", rows), func(b *testing.B) {
							sb := pool[rows]
							url := sb.API["github"] + tc.path
							var buf bytes.Buffer
							for b.Loop() {
								srv.mustCall(b, tc.method, url, sb.AuthToken, tc.body, tc.status, &buf)
							}
						})
					}
				})
			}
		})
	}
}

// BenchmarkScalingTapeRead reads a whole tape back (GET {api}/_pome/tape
// with the auth token) at 1,000 / 10,000 / 100,000 rows. Its cost is
// expected to grow linearly with the rows; ns/row and MB/s show whether it
// does. The 100,000-row read is hundreds of MB, so run it with a small
// -benchtime (5x).
func BenchmarkScalingTapeRead(b *testing.B) {
	for _, st := range scaleStores() {
		b.Run(st.name, func(b *testing.B) {
			srv := startScaleServer(b, st.open(b))
			pool := tapePool(b, srv)
			for _, rows := range scaleTapeLengths {
				b.Run(fmt.Sprintf("rows=%d", rows), func(b *testing.B) {
					sb := pool[rows]
					url := sb.API["github"] + "/_pome/tape"
					var size int64
					for b.Loop() {
						size = srv.readAll(b, url, sb.AuthToken, rows)
					}
					b.SetBytes(size)
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(rows), "ns/row")
				})
			}
		})
	}
}

// readAll GETs url, discarding the body as it arrives, and returns its
// size. It checks the row count the answer reports.
func (s *scaleServer) readAll(tb testing.TB, url, auth string, rows int) int64 {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+auth)
	resp, err := s.client.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		tb.Fatalf("GET tape: %d %.300s", resp.StatusCode, b)
	}
	// json.Marshal sorts the keys, so the answer starts with its count.
	head := make([]byte, 32)
	h, err := io.ReadFull(resp.Body, head)
	if err != nil {
		tb.Fatal(err)
	}
	num, ok := bytes.CutPrefix(head[:h], []byte(`{"count":`))
	if !ok {
		tb.Fatalf("tape answer starts %q", head[:h])
	}
	if i := bytes.IndexByte(num, ','); i >= 0 {
		num = num[:i]
	}
	if got, err := strconv.Atoi(string(num)); err != nil || got < rows {
		tb.Fatalf("tape answer counts %q rows, want at least %d", num, rows)
	}
	n, err := io.Copy(io.Discard, resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	return int64(h) + n
}

// BenchmarkScalingSandboxes measures GitHub get-issue with 100 / 1,000 /
// 10,000 sandboxes (github, slack, stripe default worlds) open in the
// memory store. Calls go round-robin over every open sandbox, so each call
// finds a different sandbox and its world. The pool grows between sizes, so
// the 10,000 set-up creates 9,000 more.
func BenchmarkScalingSandboxes(b *testing.B) {
	srv := startScaleServer(b, session.NewMemoryStore(nil, 0))
	var sbs []*load.Sandbox
	for _, n := range scaleSandboxCounts {
		b.Run(fmt.Sprintf("github_get_issue/sandboxes=%d", n), func(b *testing.B) {
			if len(sbs) < n {
				sbs = append(sbs, srv.createMany(b, n-len(sbs))...)
			}
			urls := make([]string, n)
			for i, sb := range sbs[:n] {
				urls[i] = sb.API["github"] + "/repos/acme/api/issues/1"
			}
			var buf bytes.Buffer
			i := 0
			for b.Loop() {
				srv.mustCall(b, http.MethodGet, urls[i], sbs[i].AuthToken, nil, http.StatusOK, &buf)
				if i++; i == n {
					i = 0
				}
			}
		})
	}
}

// TestScalingRedisMemory measures what Redis itself holds per idle sandbox
// (github, slack, stripe default worlds) and per tape row, with MEMORY
// USAGE on every key (exact: SAMPLES 0) and, as a cross-check, the change
// in INFO memory's used_memory (instance-wide, so anything else using the
// same Redis at the time shows up in it).
func TestScalingRedisMemory(t *testing.T) {
	url := os.Getenv("POME_TEST_REDIS_URL")
	if url == "" {
		t.Skip("POME_TEST_REDIS_URL not set")
	}
	if testing.Short() {
		t.Skip("-short")
	}
	mc, err := session.OpenRedis(url)
	if err != nil {
		t.Fatal(err)
	}
	defer mc.Close()
	ctx := context.Background()
	usedMemory := func() int64 {
		info, err := mc.Info(ctx, "memory").Result()
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(info, "\n") {
			if v, ok := strings.CutPrefix(strings.TrimSpace(line), "used_memory:"); ok {
				n, err := strconv.ParseInt(v, 10, 64)
				if err != nil {
					t.Fatal(err)
				}
				return n
			}
		}
		t.Fatal("INFO memory without used_memory")
		return 0
	}
	keyUsage := func(key string) int64 {
		n, err := mc.MemoryUsage(ctx, key, 0).Result()
		if err != nil {
			t.Fatalf("MEMORY USAGE %s: %v", key, err)
		}
		return n
	}
	sandboxKeys := func(id string) []string {
		var keys []string
		var cursor uint64
		for {
			ks, next, err := mc.Scan(ctx, cursor, "pome:{"+id+"}:*", 1000).Result()
			if err != nil {
				t.Fatal(err)
			}
			keys = append(keys, ks...)
			if cursor = next; cursor == 0 {
				break
			}
		}
		return keys
	}

	store := scaleStores()[1].open(t)
	srv := startScaleServer(t, store)

	// Idle sandboxes.
	const idle = 200
	before := usedMemory()
	sbs := srv.createMany(t, idle)
	after := usedMemory()
	t.Logf("idle sandbox (github, slack, stripe default worlds): used_memory grew %d B for %d sandboxes = %d B each", after-before, idle, (after-before)/idle)
	var total int64
	for _, k := range sandboxKeys(sbs[0].ID) {
		u := keyUsage(k)
		total += u
		t.Logf("  MEMORY USAGE %-60s %7d B", k, u)
	}
	t.Logf("idle sandbox: MEMORY USAGE over its %d keys = %d B", len(sandboxKeys(sbs[0].ID)), total)

	// Tape rows: one real call, then that row's copies appended through the
	// store up to rows, for each kind of call on its own sandbox.
	const rows = 5_000
	kinds := []struct {
		name, twin, method, path string
		body                     []byte
		status                   int
	}{
		{"github get-issue", "github", http.MethodGet, "/repos/acme/api/issues/1", nil, http.StatusOK},
		{"github comment", "github", http.MethodPost, "/repos/acme/api/issues/1/comments", scaleComment, http.StatusCreated},
		{"slack chat.postMessage", "slack", http.MethodPost, "/api/chat.postMessage", scaleMessage, http.StatusOK},
	}
	var buf bytes.Buffer
	for i, k := range kinds {
		sb := sbs[1+i]
		stateKey := "pome:{" + sb.ID + "}:" + k.twin + ":state"
		idleState := keyUsage(stateKey)
		srv.mustCall(t, k.method, sb.API[k.twin]+k.path, sb.AuthToken, k.body, k.status, &buf)
		tapeKey := "pome:{" + sb.ID + "}:" + k.twin + ":tape"
		one := keyUsage(tapeKey)
		row := srv.lastRow(t, sb, k.twin)
		enc, _ := json.Marshal(&row)
		before := usedMemory()
		srv.fillTape(t, sb, k.twin, rows)
		after := usedMemory()
		full := keyUsage(tapeKey)
		t.Logf("tape row, %s (%d B of JSON): MEMORY USAGE of the tape %d B at 1 row, %d B at %d rows = %d B per row; used_memory %d B per row",
			k.name, len(enc), one, full, rows, (full-one)/(rows-1), (after-before)/(rows-1))
		// What the twin's state keeps besides its world once called many
		// times: the ids of its last taped calls (and, for a write, its
		// saves and delta).
		t.Logf("  MEMORY USAGE of the %s state: %d B idle, %d B after %d calls", k.twin, idleState, keyUsage(stateKey), rows)
	}
}
