package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"sync"
	"testing"

	"github.com/pomehq/pome/cmd/pome-bench/internal/load"
	"github.com/pomehq/pome/rest"
	"github.com/pomehq/pome/session"
	"github.com/pomehq/pome/tape"
	"github.com/pomehq/pome/twins/all"
	"github.com/pomehq/pome/twins/github"
	"github.com/pomehq/pome/twins/slack"
)

// scaleTapeCap is the tape cap of the scaling servers: above the longest
// pre-filled tape plus every call a benchmark adds, so no measured call is
// past the cap (a call past it is counted but not stored, a cheaper path).
const scaleTapeCap = 1 << 20

// scaleQuota lets one team hold the largest sandbox pool measured.
const scaleQuota = 20_000

// scaleStore is a store the scaling benchmarks run on.
type scaleStore struct {
	name string
	open func(tb testing.TB) session.Store
}

// scaleStores are the memory store and, when POME_TEST_REDIS_URL is set,
// Redis.
func scaleStores() []scaleStore {
	out := []scaleStore{{name: "memory", open: func(testing.TB) session.Store { return session.NewMemoryStore(nil, 0) }}}
	if url := os.Getenv("POME_TEST_REDIS_URL"); url != "" {
		out = append(out, scaleStore{name: "redis", open: func(tb testing.TB) session.Store {
			client, err := session.OpenRedis(url)
			if err != nil {
				tb.Fatal(err)
			}
			return session.NewRedisStore(client, nil)
		}})
	}
	return out
}

// scaleServer is a complete Pome server on a loopback httptest server with
// a team of its own, so a shared Redis holding other runs' sandboxes cannot
// push it over its quota.
type scaleServer struct {
	url    string
	key    string
	store  session.Store
	client *http.Client
	pome   *load.Pome
	// made lists every sandbox created, discarded at cleanup.
	mu   sync.Mutex
	made []string
}

func startScaleServer(tb testing.TB, store session.Store) *scaleServer {
	tb.Helper()
	if s, ok := store.(interface{ SetMaxTapeRows(int64) }); ok {
		s.SetMaxTapeRows(scaleTapeCap)
	}
	key := session.NewAPIKey()
	teams, err := session.NewTeams(map[string][]string{"scale-" + session.NewSandboxID(): {key}})
	if err != nil {
		tb.Fatal(err)
	}
	hs := httptest.NewServer(nil)
	tb.Cleanup(func() { store.Close() })
	tb.Cleanup(hs.Close)
	hs.Config.Handler = rest.NewServer(rest.Config{PublicURL: hs.URL, SandboxQuota: scaleQuota, MaxTapeRows: scaleTapeCap}, all.Registry(), store, teams)
	client := load.NewClient(16)
	pome, err := load.NewPome(hs.URL, key, client)
	if err != nil {
		tb.Fatal(err)
	}
	s := &scaleServer{url: hs.URL, key: key, store: store, client: client, pome: pome}
	// Registered last, so it runs first: discard while the server is up
	// (on Redis this is what frees the keys).
	tb.Cleanup(func() {
		s.mu.Lock()
		ids := s.made
		s.made = nil
		s.mu.Unlock()
		if len(ids) > 0 {
			if _, err := pome.DiscardMany(context.Background(), ids, 8); err != nil {
				tb.Logf("discard: %v", err)
			}
		}
		client.CloseIdleConnections()
	})
	return s
}

// create makes a sandbox of twins with seeds (twin → seed document; a twin
// without one gets its default world).
func (s *scaleServer) create(tb testing.TB, twinNames []string, seeds map[string]json.RawMessage) *load.Sandbox {
	tb.Helper()
	body := map[string]any{"twins": twinNames}
	if len(seeds) > 0 {
		body["seed"] = seeds
	}
	raw, err := json.Marshal(body)
	if err != nil {
		tb.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, s.url+"/v1/sandboxes", bytes.NewReader(raw))
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+s.key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := s.client.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	out, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		tb.Fatalf("create sandbox: %d %.300s", resp.StatusCode, out)
	}
	var c session.Created
	if err := json.Unmarshal(out, &c); err != nil {
		tb.Fatal(err)
	}
	sb := &load.Sandbox{ID: c.SessionID, AuthToken: c.AuthToken, API: map[string]string{}, MCP: map[string]string{}}
	for name, u := range c.PerTwin {
		sb.API[name], sb.MCP[name] = u.APIURL, u.MCPURL
	}
	s.mu.Lock()
	s.made = append(s.made, sb.ID)
	s.mu.Unlock()
	return sb
}

// discard drops one sandbox now.
func (s *scaleServer) discard(tb testing.TB, sb *load.Sandbox) {
	tb.Helper()
	if err := s.pome.Discard(context.Background(), sb.ID); err != nil {
		tb.Fatal(err)
	}
	s.mu.Lock()
	for i, id := range s.made {
		if id == sb.ID {
			s.made = append(s.made[:i], s.made[i+1:]...)
			break
		}
	}
	s.mu.Unlock()
}

// createMany makes n sandboxes with the default worlds of benchTwins.
func (s *scaleServer) createMany(tb testing.TB, n int) []*load.Sandbox {
	tb.Helper()
	sbs, err := s.pome.CreateMany(context.Background(), n, 8, benchTwins)
	s.mu.Lock()
	for _, sb := range sbs {
		s.made = append(s.made, sb.ID)
	}
	s.mu.Unlock()
	if err != nil {
		tb.Fatal(err)
	}
	return sbs
}

// call sends one request with the sandbox's auth token and returns the
// status and body; the body is read into buf (reset first).
func (s *scaleServer) call(tb testing.TB, method, url, auth string, body []byte, buf *bytes.Buffer) int {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		tb.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Authorization", "Bearer "+auth)
	resp, err := s.client.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	buf.Reset()
	buf.ReadFrom(resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// mustCall is call that fails unless the status is want (and, for Slack,
// the answer is ok:true).
func (s *scaleServer) mustCall(tb testing.TB, method, url, auth string, body []byte, want int, buf *bytes.Buffer) {
	if got := s.call(tb, method, url, auth, body, buf); got != want {
		tb.Fatalf("%s %s: status %d, want %d: %.300s", method, url, got, want, buf.Bytes())
	}
	if bytes.Contains(buf.Bytes(), []byte(`"ok":false`)) {
		tb.Fatalf("%s %s: %.300s", method, url, buf.Bytes())
	}
}

// storeSandbox is the stored record of a created sandbox, for appending
// to its tape through the store.
func (s *scaleServer) storeSandbox(tb testing.TB, sb *load.Sandbox) *session.Sandbox {
	tb.Helper()
	rec, err := s.store.Get(context.Background(), sb.ID)
	if err != nil {
		tb.Fatal(err)
	}
	return rec
}

// fillTape makes the twin's tape hold rows rows by appending copies of its
// last row (written by a real call made before) through the store, as the
// server does for every call.
func (s *scaleServer) fillTape(tb testing.TB, sb *load.Sandbox, twin string, rows int) {
	tb.Helper()
	ctx := context.Background()
	rec := s.storeSandbox(tb, sb)
	stored, _, err := s.store.TapeLen(ctx, rec, twin)
	if err != nil {
		tb.Fatal(err)
	}
	if stored == 0 {
		tb.Fatal("fillTape needs one real row to copy")
	}
	last, err := s.store.Tape(ctx, rec, twin, stored-1, 1)
	if err != nil || len(last) != 1 {
		tb.Fatalf("read last tape row: %v (%d rows)", err, len(last))
	}
	todo := rows - int(stored)
	if todo <= 0 {
		return
	}
	// Concurrent appends: Redis hands out seqs atomically, and a round
	// trip per row one at a time would make the set-up slow.
	const workers = 16
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		n := todo / workers
		if w < todo%workers {
			n++
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < n; i++ {
				r := last[0]
				if _, err := s.store.Append(ctx, rec, &r); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		tb.Fatal(err)
	}
	if got, _, err := s.store.TapeLen(ctx, rec, twin); err != nil || got != int64(rows) {
		tb.Fatalf("tape holds %d rows (%v), want %d", got, err, rows)
	}
}

// githubSeed is a GitHub seed in the public seed format whose repository
// acme/api has n issues (numbers 1..n), each with one comment, so the world
// holds n issues and n comments.
func githubSeed(tb testing.TB, n int) json.RawMessage {
	tb.Helper()
	s := github.Seed{
		Clock: "2026-01-05T09:00:00Z",
		Me:    "pome-agent",
		Users: []github.SeedUser{{Login: "alice", Name: "Alice"}, {Login: "bob", Name: "Bob"}, {Login: "pome-agent", Name: "Pome Agent"}},
		Orgs:  []github.SeedOrg{{Login: "acme", Name: "Acme", Members: []string{"alice", "bob", "pome-agent"}}},
		Repos: []github.SeedRepo{{
			Owner: "acme", Name: "api", Description: "Acme orders API", DefaultBranch: "main",
			Files:         map[string]string{"README.md": "# api\n\nThe Acme orders API.\n"},
			Labels:        []github.SeedLabel{{Name: "bug", Color: "d73a4a"}, {Name: "feature", Color: "a2eeef"}},
			Collaborators: []string{"alice", "bob", "pome-agent"},
		}},
	}
	issues := make([]github.SeedIssue, n)
	for i := range issues {
		label := "bug"
		if i%2 == 1 {
			label = "feature"
		}
		issues[i] = github.SeedIssue{
			Number: i + 1,
			Title:  "Issue " + strconv.Itoa(i+1) + ": 500 error on POST /orders after deploy",
			Body:   "Since this morning's deploy, POST /orders answers 500 for every request.",
			User:   "alice", Labels: []string{label},
			Comments: []github.SeedComment{{User: "bob", Body: "Looking into it."}},
		}
	}
	s.Repos[0].Issues = issues
	raw, err := json.Marshal(s)
	if err != nil {
		tb.Fatal(err)
	}
	return raw
}

// slackSeed is a Slack seed in the public seed format whose #general holds
// n messages.
func slackSeed(tb testing.TB, n int) json.RawMessage {
	tb.Helper()
	s := slack.DefaultSeed()
	msgs := make([]slack.SeedMessage, n)
	for i := range msgs {
		user := "alice"
		if i%2 == 1 {
			user = "bob"
		}
		msgs[i] = slack.SeedMessage{User: user, Text: fmt.Sprintf("Message %d: deploy looks healthy.", i+1)}
	}
	for i := range s.Channels {
		if s.Channels[i].Name == "general" {
			s.Channels[i].Messages = msgs
		}
	}
	raw, err := json.Marshal(s)
	if err != nil {
		tb.Fatal(err)
	}
	return raw
}

// lastRow returns the last row of a twin's tape, as stored.
func (s *scaleServer) lastRow(tb testing.TB, sb *load.Sandbox, twin string) tape.Row {
	tb.Helper()
	ctx := context.Background()
	rec := s.storeSandbox(tb, sb)
	n, _, err := s.store.TapeLen(ctx, rec, twin)
	if err != nil || n == 0 {
		tb.Fatalf("tape of %s: %d rows, %v", twin, n, err)
	}
	rows, err := s.store.Tape(ctx, rec, twin, n-1, 1)
	if err != nil || len(rows) != 1 {
		tb.Fatalf("last row: %v", err)
	}
	return rows[0]
}
