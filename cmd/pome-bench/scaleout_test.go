package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/pomehq/pome/cmd/pome-bench/internal/load"
	"github.com/pomehq/pome/rest"
	"github.com/pomehq/pome/session"
	"github.com/pomehq/pome/tape"
	"github.com/pomehq/pome/twins/all"
)

const (
	scaleReplicas  = 3
	scaleSandboxes = 100
	// Writes per sandbox and twin, sent all at once so that every
	// sandbox's twins take concurrent writes from all replicas.
	scaleRESTWrites = 3
	scaleMCPWrites  = 2
	// scaleInFlight bounds the requests in flight: enough that each
	// sandbox's writes overlap across replicas, few enough that the test
	// also passes under -race on a busy two-core machine.
	scaleInFlight = 48
)

// TestScaleOutThreeReplicas runs three Pome servers on one Redis behind a
// round-robin proxy, creates 100 sandboxes through it and writes to every
// sandbox's GitHub, Slack and Stripe twins over REST and MCP all at once. Then, asked
// directly, every replica must return byte-identical state and tape for
// every twin, holding every write exactly once under gap-free seqs.
func TestScaleOutThreeReplicas(t *testing.T) {
	redisURL := os.Getenv("POME_TEST_REDIS_URL")
	if redisURL == "" {
		t.Skip("POME_TEST_REDIS_URL not set")
	}
	key := session.NewAPIKey()
	// A team of its own per run, so a shared Redis holding other runs'
	// sandboxes cannot push this one over its quota.
	team := "scaleout-" + session.NewSandboxID()
	teams, err := session.NewTeams(map[string][]string{team: {key}})
	if err != nil {
		t.Fatal(err)
	}

	// The proxy's address is every replica's public URL, so it must exist
	// before the replicas are built.
	front := httptest.NewServer(nil)
	defer front.Close()
	var replicas []string
	for i := 0; i < scaleReplicas; i++ {
		client, err := session.OpenRedis(redisURL)
		if err != nil {
			t.Fatal(err)
		}
		store := session.NewRedisStore(client, nil)
		defer store.Close()
		hs := httptest.NewServer(rest.NewServer(rest.Config{PublicURL: front.URL}, all.Registry(), store, teams))
		defer hs.Close()
		replicas = append(replicas, hs.URL)
	}
	rr, err := load.NewRoundRobin(replicas)
	if err != nil {
		t.Fatal(err)
	}
	front.Config.Handler = rr

	client := load.NewClient(scaleInFlight)
	defer client.CloseIdleConnections()
	pome, err := load.NewPome(front.URL, key, client)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	sbs, err := pome.CreateMany(ctx, scaleSandboxes, scaleInFlight, benchTwins)
	if err != nil {
		t.Fatal(err)
	}

	// Every write carries a marker unique across the run, so a lost write
	// is a marker missing from the state; a doubled one is an extra row.
	marker := func(sb *load.Sandbox, twin, transport string, j int) string {
		return fmt.Sprintf("m-%s-%s-%s-%d", sb.ID, twin, transport, j)
	}
	var wg sync.WaitGroup
	slots := make(chan struct{}, scaleInFlight)
	// each runs one write in its own goroutine, once a slot is free.
	each := func(f func()) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			slots <- struct{}{}
			defer func() { <-slots }()
			f()
		}()
	}
	for _, sb := range sbs {
		for j := 0; j < scaleRESTWrites; j++ {
			each(func() {
				body, _ := json.Marshal(map[string]string{"body": marker(sb, "github", "rest", j)})
				st, b := send(t, client, "POST", sb.API["github"]+"/repos/acme/api/issues/1/comments", sb.AuthToken, body, nil)
				if st != http.StatusCreated {
					t.Errorf("comment: %d %s", st, b)
				}
			})
			each(func() {
				body, _ := json.Marshal(map[string]string{"channel": "general", "text": marker(sb, "slack", "rest", j)})
				st, b := send(t, client, "POST", sb.API["slack"]+"/api/chat.postMessage", sb.AuthToken, body, nil)
				if st != http.StatusOK || !bytes.Contains(b, []byte(`"ok":true`)) {
					t.Errorf("postMessage: %d %s", st, b)
				}
			})
			each(func() {
				// Stripe's SDKs send forms.
				body := []byte(url.Values{"name": {marker(sb, "stripe", "rest", j)}}.Encode())
				st, b := send(t, client, "POST", sb.API["stripe"]+"/v1/customers", sb.AuthToken, body,
					http.Header{"Content-Type": {"application/x-www-form-urlencoded"}})
				if st != http.StatusOK {
					t.Errorf("create customer: %d %s", st, b)
				}
			})
		}
		for j := 0; j < scaleMCPWrites; j++ {
			each(func() {
				callTool(t, client, sb, "github", "add_issue_comment", map[string]any{
					"owner": "acme", "repo": "api", "issue_number": 1, "body": marker(sb, "github", "mcp", j),
				})
			})
			each(func() {
				callTool(t, client, sb, "slack", "slack_send_message", map[string]any{
					"channel_id": "general", "message": marker(sb, "slack", "mcp", j),
				})
			})
			each(func() {
				callTool(t, client, sb, "stripe", "create_customer", map[string]any{"name": marker(sb, "stripe", "mcp", j)})
			})
		}
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	for i, n := range rr.Served() {
		t.Logf("replica %d served %d requests", i, n)
		// Round robin over the creates and writes gives each replica a
		// third.
		if n < int64(scaleSandboxes*len(benchTwins)*(scaleRESTWrites+scaleMCPWrites)/scaleReplicas) {
			t.Errorf("replica %d served only %d requests", i, n)
		}
	}

	for _, sb := range sbs {
		for _, twin := range benchTwins {
			checkReplicasAgree(t, replicas, key, sb, twin, func(state []byte, rows []tape.Row) {
				for _, tr := range []string{"rest", "mcp"} {
					n := scaleRESTWrites
					if tr == "mcp" {
						n = scaleMCPWrites
					}
					for j := 0; j < n; j++ {
						m := marker(sb, twin, tr, j)
						// At least once: Stripe also copies a new
						// object into its event. Doubled writes show
						// as extra tape rows below.
						if !bytes.Contains(state, []byte(`"`+m+`"`)) {
							t.Errorf("%s %s: write %s is not in the state", sb.ID, twin, m)
						}
					}
				}
				wantRows := scaleRESTWrites + scaleMCPWrites
				if len(rows) != wantRows {
					t.Errorf("%s %s: %d tape rows, want %d", sb.ID, twin, len(rows), wantRows)
				}
				transports := map[string]int{}
				for i, r := range rows {
					if r.Seq != int64(i+1) {
						t.Errorf("%s %s: row %d has seq %d", sb.ID, twin, i, r.Seq)
					}
					if r.SessionID != sb.ID || r.Twin != twin || !r.StateMutation {
						t.Errorf("%s %s: row %d: session %s twin %s mutation %v", sb.ID, twin, i, r.SessionID, r.Twin, r.StateMutation)
					}
					transports[r.Transport]++
				}
				if transports[tape.TransportREST] != scaleRESTWrites || transports[tape.TransportMCP] != scaleMCPWrites {
					t.Errorf("%s %s: rows by transport %v", sb.ID, twin, transports)
				}
			})
		}
	}

	ids := make([]string, len(sbs))
	for i, sb := range sbs {
		ids[i] = sb.ID
	}
	if failed, err := pome.DiscardMany(ctx, ids, 16); err != nil {
		t.Fatalf("%d discards failed: %v", failed, err)
	}
	// A sandbox discarded through one replica is gone on all of them.
	for _, r := range replicas {
		u := strings.Replace(sbs[0].API["github"], front.URL, r, 1) + "/repos/acme/api/issues/1"
		if st, b := send(t, client, "GET", u, sbs[0].AuthToken, nil, nil); st != http.StatusNotFound {
			t.Errorf("discarded sandbox still served by %s: %d %s", r, st, b)
		}
	}
}

// checkReplicasAgree reads a twin's state and tape from every replica
// directly and requires byte-identical answers before handing the first to
// check.
func checkReplicasAgree(t *testing.T, replicas []string, key string, sb *load.Sandbox, twin string, check func(state []byte, rows []tape.Row)) {
	t.Helper()
	var state, tapeBody []byte
	for i, r := range replicas {
		st, s := send(t, nil, "GET", r+"/v1/sandboxes/"+sb.ID+"/state/"+twin, key, nil, nil)
		if st != http.StatusOK {
			t.Fatalf("replica %d state %s %s: %d %s", i, sb.ID, twin, st, s)
		}
		st, tb := send(t, nil, "GET", r+"/v1/sandboxes/"+sb.ID+"/tapes/"+twin, key, nil, nil)
		if st != http.StatusOK {
			t.Fatalf("replica %d tape %s %s: %d %s", i, sb.ID, twin, st, tb)
		}
		if i == 0 {
			state, tapeBody = s, tb
			continue
		}
		if !bytes.Equal(s, state) {
			t.Errorf("%s %s: replica %d's state differs from replica 0's", sb.ID, twin, i)
		}
		if !bytes.Equal(tb, tapeBody) {
			t.Errorf("%s %s: replica %d's tape differs from replica 0's", sb.ID, twin, i)
		}
	}
	var out struct {
		Rows  []tape.Row `json:"rows"`
		Count int        `json:"count"`
	}
	if err := json.Unmarshal(tapeBody, &out); err != nil || out.Count != len(out.Rows) {
		t.Fatalf("tape %s %s: %v (count %d, %d rows)", sb.ID, twin, err, out.Count, len(out.Rows))
	}
	check(state, out.Rows)
}

// callTool sends one stateless MCP tools/call, as pome-bench does, and
// fails the test on anything but a successful result.
func callTool(t *testing.T, client *http.Client, sb *load.Sandbox, twin, tool string, args map[string]any) {
	body, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args},
	})
	h := http.Header{"Accept": {"application/json, text/event-stream"}}
	h.Set("MCP-Protocol-Version", load.MCPProtocolVersion)
	st, b := send(t, client, "POST", sb.MCP[twin], sb.AuthToken, body, h)
	if err := load.CheckMCPResult(st, b); err != nil {
		t.Errorf("%s %s: %v", twin, tool, err)
	}
}

// send makes one request with a bearer token and returns status and body;
// transport errors fail the test.
func send(t *testing.T, client *http.Client, method, u, token string, body []byte, h http.Header) (int, []byte) {
	if client == nil {
		client = http.DefaultClient
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, u, rd)
	if err != nil {
		t.Error(err)
		return 0, nil
	}
	for k, v := range h {
		req.Header[k] = v
	}
	if body != nil && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := client.Do(req)
	if err != nil {
		t.Error(err)
		return 0, nil
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Error(err)
	}
	return resp.StatusCode, b
}
