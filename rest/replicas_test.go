package rest_test

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/pomehq/pome/mcpserver"
	"github.com/pomehq/pome/rest"
	"github.com/pomehq/pome/rest/resttest"
	"github.com/pomehq/pome/session"
	"github.com/pomehq/pome/session/storetest"
	"github.com/pomehq/pome/tape"
	"github.com/pomehq/pome/twins"
)

// startReplicas starts two servers of the notes twin on the Redis of
// POME_TEST_REDIS_URL (skipping without one), and returns their URLs and a
// team key both accept.
func startReplicas(t *testing.T) ([]string, string) {
	t.Helper()
	url := os.Getenv("POME_TEST_REDIS_URL")
	if url == "" {
		t.Skip("POME_TEST_REDIS_URL not set")
	}
	return startReplicasOn(t, url)
}

// startReplicasOn is startReplicas on the Redis (or Redis Cluster) at url.
func startReplicasOn(t *testing.T, url string) ([]string, string) {
	t.Helper()
	key := session.NewAPIKey()
	teams, _ := session.NewTeams(map[string][]string{"replicas-" + session.NewSandboxID(): {key}})
	reg := twins.NewRegistry(notesTwin(false))
	var urls []string
	for i := 0; i < 2; i++ {
		_, u := startRedisReplica(t, url, reg, teams, urls)
		urls = append(urls, u)
	}
	return urls, key
}

// startRedisReplica starts one replica on the Redis at url, with a store
// (and so caches) of its own. Replicas advertise the first one's URL (the
// first of urls, or its own when it is the first), as replicas behind one
// load balancer do.
func startRedisReplica(t *testing.T, url string, reg *twins.Registry, teams *session.Teams, urls []string) (*rest.Server, string) {
	t.Helper()
	client, err := session.OpenRedis(url)
	if err != nil {
		t.Fatal(err)
	}
	store := session.NewRedisStore(client, nil)
	t.Cleanup(func() { store.Close() })
	hs := httptest.NewServer(nil)
	t.Cleanup(hs.Close)
	pub := hs.URL
	if len(urls) > 0 {
		pub = urls[0]
	}
	srv := rest.NewServer(rest.Config{PublicURL: pub}, reg, store, teams)
	hs.Config.Handler = srv
	return srv, hs.URL
}

// gapFreeTape reads the notes tape of sandbox sid from the server at url,
// failing the test unless its seqs run 1, 2, 3… without a gap.
func gapFreeTape(t *testing.T, url, sid, key string) []tape.Row {
	t.Helper()
	st, _, b := do(t, "GET", url+"/v1/sandboxes/"+sid+"/tapes/notes", map[string]string{"Authorization": "Bearer " + key}, "")
	var out struct{ Rows []tape.Row }
	if st != 200 || json.Unmarshal(b, &out) != nil {
		t.Fatalf("tape from %s: %d %.200s", url, st, b)
	}
	for i, r := range out.Rows {
		if r.Seq != int64(i+1) {
			t.Fatalf("tape from %s: row %d has seq %d", url, i, r.Seq)
		}
	}
	return out.Rows
}

// createOn creates a sandbox through the server at url.
func createOn(t *testing.T, url, key string, twinNames ...string) *session.Created {
	t.Helper()
	return (&realServer{URL: url}).create(t, key, twinNames...)
}

// TestTwoReplicasShareRedis starts two servers on one Redis, creates a
// sandbox on one, writes through both (REST and MCP) at once, and reads the
// same state and the same gap-free tape from either.
func TestTwoReplicasShareRedis(t *testing.T) { twoReplicasShare(t, startReplicas) }

func twoReplicasShare(t *testing.T, start func(*testing.T) ([]string, string)) {
	urls, key := start(t)
	ctrl := func(i int, method, path, body string) (int, []byte) {
		st, _, b := do(t, method, urls[i]+path, map[string]string{"Authorization": "Bearer " + key, "Content-Type": "application/json"}, body)
		return st, b
	}
	c := createOn(t, urls[0], key, "notes")
	tok := c.ProviderCredentials["notes"].Token

	const perReplica = 60
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		api := urls[i] + "/notes/s/" + c.SessionID
		cs := resttest.ConnectMCP(t, api+"/mcp", c.AgentToken)
		for j := 0; j < perReplica; j++ {
			wg.Add(1)
			go func(i, j int) {
				defer wg.Done()
				if j%2 == 0 {
					if st, _, b := do(t, "POST", api+"/notes", jsonBody(tok), fmt.Sprintf(`{"text":"r%d-%d"}`, i, j)); st != 201 {
						t.Errorf("%d %s", st, b)
					}
					return
				}
				if text, isErr := resttest.CallTool(t, cs, "create_note", map[string]any{"text": fmt.Sprintf("r%d-%d", i, j)}); isErr {
					t.Errorf("%s", text)
				}
			}(i, j)
		}
	}
	wg.Wait()

	var states [2]string
	var tapes [2][]tape.Row
	for i := 0; i < 2; i++ {
		_, b := ctrl(i, "GET", "/v1/sandboxes/"+c.SessionID+"/state/notes", "")
		states[i] = string(b)
		_, b = ctrl(i, "GET", "/v1/sandboxes/"+c.SessionID+"/tapes/notes", "")
		var out struct{ Rows []tape.Row }
		json.Unmarshal(b, &out)
		tapes[i] = out.Rows
	}
	if states[0] != states[1] {
		t.Fatalf("replicas disagree on state")
	}
	var w struct {
		Next  int
		Notes map[string]string
	}
	json.Unmarshal([]byte(states[0]), &w)
	if len(w.Notes) != 2*perReplica || w.Next != 2*perReplica+1 {
		t.Fatalf("lost updates: %d notes, next %d", len(w.Notes), w.Next)
	}
	if len(tapes[0]) != len(tapes[1]) {
		t.Fatalf("replicas disagree on the tape: %d vs %d", len(tapes[0]), len(tapes[1]))
	}
	creates := 0
	for i, r := range tapes[0] {
		if r.Seq != int64(i+1) {
			t.Fatalf("seq gap at %d: %d", i, r.Seq)
		}
		if r.ToolName() == "create_note" && r.StateMutation {
			creates++
		}
	}
	if creates != 2*perReplica {
		t.Fatalf("%d create rows", creates)
	}
	// Stopping through one replica closes the sandbox on the other.
	if st, _ := ctrl(1, "DELETE", "/v1/sandboxes/"+c.SessionID+"?discard=true", ""); st != 204 {
		t.Fatalf("discard: %d", st)
	}
	if st, _, _ := do(t, "GET", urls[0]+"/notes/s/"+c.SessionID+"/notes/1", bearer(tok), ""); st != 404 {
		t.Fatalf("discarded sandbox still served by replica 0: %d", st)
	}
}

// TestReplicaReadSeesOtherReplica: a replica that serves a sandbox's reads
// from the record and world it holds (speculative reads) still answers
// every read with what another replica wrote before the read began, tapes
// each call exactly once, and refuses reads once the other replica stopped
// the sandbox.
func TestReplicaReadSeesOtherReplica(t *testing.T) { replicaReadSeesOther(t, startReplicas) }

func replicaReadSeesOther(t *testing.T, start func(*testing.T) ([]string, string)) {
	urls, key := start(t)
	ctl := map[string]string{"Authorization": "Bearer " + key, "Content-Type": "application/json"}
	c := createOn(t, urls[0], key, "notes")
	tok := c.ProviderCredentials["notes"].Token
	api := func(i int) string { return urls[i] + "/notes/s/" + c.SessionID }

	const rounds = 10
	for n := 1; n <= rounds; n++ {
		note := fmt.Sprintf("%s/notes/%d", api(0), n)
		for range 2 { // the second is served from what replica 0 holds
			if st, _, b := do(t, "GET", note, bearer(tok), ""); st != 404 {
				t.Fatalf("round %d: note %d before it was written: %d %s", n, n, st, b)
			}
		}
		if st, _, b := do(t, "POST", api(1)+"/notes", jsonBody(tok), fmt.Sprintf(`{"text":"n%d"}`, n)); st != 201 {
			t.Fatalf("round %d: write on replica 1: %d %s", n, st, b)
		}
		if st, _, b := do(t, "GET", note, bearer(tok), ""); st != 200 || !strings.Contains(string(b), fmt.Sprintf("n%d", n)) {
			t.Fatalf("round %d: read on replica 0 after the write on replica 1: %d %s", n, st, b)
		}
	}
	_, _, b := do(t, "GET", urls[1]+"/v1/sandboxes/"+c.SessionID+"/tapes/notes", ctl, "")
	var out struct{ Rows []tape.Row }
	json.Unmarshal(b, &out)
	if len(out.Rows) != 4*rounds {
		t.Fatalf("%d tape rows for %d calls", len(out.Rows), 4*rounds)
	}
	for i, r := range out.Rows {
		want := []int{404, 404, 201, 200}[i%4]
		if r.Seq != int64(i+1) || r.Status != want {
			t.Fatalf("row %d: seq %d status %d, want seq %d status %d", i, r.Seq, r.Status, i+1, want)
		}
	}

	// Warm replica 0 again, stop the sandbox through replica 1: replica 0
	// refuses the agent's next read.
	for range 2 {
		if st, _, _ := do(t, "GET", api(0)+"/notes/1", bearer(tok), ""); st != 200 {
			t.Fatalf("read before the stop: %d", st)
		}
	}
	if st, _, b := do(t, "DELETE", urls[1]+"/v1/sandboxes/"+c.SessionID, ctl, ""); st != 200 && st != 204 {
		t.Fatalf("stop: %d %s", st, b)
	}
	if st, _, b := do(t, "GET", api(0)+"/notes/1", bearer(tok), ""); st != 404 {
		t.Fatalf("read on replica 0 after replica 1 stopped the sandbox: %d %s", st, b)
	}
}

// TestReplicaMCPReadSeesOtherReplica: MCP tools/call reads, served like
// REST GETs from the record and world a replica holds, still see every
// write another replica finished before them, and are taped once each.
func TestReplicaMCPReadSeesOtherReplica(t *testing.T) {
	urls, key := startReplicas(t)
	c := createOn(t, urls[0], key, "notes")
	tok := c.ProviderCredentials["notes"].Token
	cs := resttest.ConnectMCP(t, urls[0]+"/notes/s/"+c.SessionID+"/mcp", c.AgentToken)

	const rounds = 10
	reads := 0
	for n := 1; n <= rounds; n++ {
		for range 2 { // the second is served from what replica 0 holds
			if text, isErr := resttest.CallTool(t, cs, "get_note", map[string]any{"id": n}); !isErr {
				t.Fatalf("round %d: note %d before it was written: %s", n, n, text)
			}
			reads++
		}
		if st, _, b := do(t, "POST", urls[1]+"/notes/s/"+c.SessionID+"/notes", jsonBody(tok), fmt.Sprintf(`{"text":"n%d"}`, n)); st != 201 {
			t.Fatalf("round %d: write on replica 1: %d %s", n, st, b)
		}
		text, isErr := resttest.CallTool(t, cs, "get_note", map[string]any{"id": n})
		if isErr || !strings.Contains(text, fmt.Sprintf("n%d", n)) {
			t.Fatalf("round %d: MCP read on replica 0 after the write on replica 1: %s", n, text)
		}
		reads++
	}
	got := 0
	for _, r := range gapFreeTape(t, urls[1], c.SessionID, key) {
		if r.ToolName() == "get_note" {
			got++
		}
	}
	if got != reads {
		t.Fatalf("%d get_note rows for %d MCP reads", got, reads)
	}
}

// TestMCPReadOneRoundTrip: once a replica holds the sandbox's record and
// world, an MCP tools/call of a reading tool costs one Redis round trip
// (its tape row, checked against the record), as a REST GET does; a
// writing tool is never served that way.
func TestMCPReadOneRoundTrip(t *testing.T) {
	url := os.Getenv("POME_TEST_REDIS_URL")
	if url == "" {
		t.Skip("POME_TEST_REDIS_URL not set")
	}
	client, err := session.OpenRedis(url)
	if err != nil {
		t.Fatal(err)
	}
	rt := &storetest.RoundTrips{}
	client.AddHook(rt)
	srv := startReal(t, rest.Config{Registry: twins.NewRegistry(notesTwin(false))}, session.NewRedisStore(client, nil))
	t.Cleanup(func() { srv.Store.Close() })
	c := srv.create(t, srv.KeyA, "notes")
	cs := resttest.ConnectMCP(t, srv.URL+"/notes/s/"+c.SessionID+"/mcp", c.AgentToken)
	if text, isErr := resttest.CallTool(t, cs, "create_note", map[string]any{"text": "hello"}); isErr {
		t.Fatal(text)
	}
	for range 2 { // the first may load the record and the world
		resttest.CallTool(t, cs, "get_note", map[string]any{"id": 1})
	}
	rt.N.Store(0)
	if text, isErr := resttest.CallTool(t, cs, "get_note", map[string]any{"id": 1}); isErr || !strings.Contains(text, "hello") {
		t.Fatalf("get_note: %s", text)
	}
	if n := rt.N.Load(); n != 1 {
		t.Errorf("an MCP read took %d Redis round trips, want 1", n)
	}
	rt.N.Store(0)
	if text, isErr := resttest.CallTool(t, cs, "create_note", map[string]any{"text": "again"}); isErr {
		t.Fatal(text)
	}
	if n := rt.N.Load(); n < 2 {
		t.Errorf("an MCP write took %d Redis round trips: was it served speculatively?", n)
	}
}

// TestReplicaHeldWriteServedAgain: a write that replica 0 starts from the
// world it holds, and that replica 1's write overtakes before it is
// stored, is stored neither with nor without its row: it is served again
// under the twin's lease, answered once from the newer state, and taped
// once; over REST and over MCP.
func TestReplicaHeldWriteServedAgain(t *testing.T) { replicaHeldWriteServedAgain(t, startReplicas) }

func replicaHeldWriteServedAgain(t *testing.T, start func(*testing.T) ([]string, string)) {
	urls, key := start(t)
	ctl := map[string]string{"Authorization": "Bearer " + key, "Content-Type": "application/json"}
	// mcp-sdk: the SDK's path (the fast path off); mcp-batch: the write as
	// the one request of a JSON-RPC batch.
	for _, transport := range []string{"rest", "mcp", "mcp-sdk", "mcp-batch"} {
		t.Run(transport, func(t *testing.T) {
			if transport == "mcp-sdk" {
				mcpserver.FastPath = false
				defer func() { mcpserver.FastPath = true }()
			}
			c := createOn(t, urls[0], key, "notes")
			tok := c.ProviderCredentials["notes"].Token
			api := func(i int) string { return urls[i] + "/notes/s/" + c.SessionID }
			if st, _, b := do(t, "POST", api(0)+"/notes", jsonBody(tok), `{"text":"first"}`); st != 201 {
				t.Fatalf("first write: %d %s", st, b)
			}
			for range 2 { // replica 0 holds the record and the world
				do(t, "GET", api(0)+"/notes/1", bearer(tok), "")
			}
			text := "gated-" + transport + "-" + c.SessionID
			gate := &noteGate{entered: make(chan struct{}), release: make(chan struct{})}
			noteGates.Store(text, gate)
			defer noteGates.Delete(text)
			answer := make(chan string, 1)
			go func() {
				if transport == "mcp-batch" {
					call := `[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_note","arguments":{"text":"` + text + `"}}}]`
					hdr := map[string]string{"Authorization": "Bearer " + c.AgentToken, "Content-Type": "application/json",
						"Accept": "application/json, text/event-stream", "Mcp-Protocol-Version": "2025-03-26"}
					st, _, b := do(t, "POST", api(0)+"/mcp", hdr, call)
					answer <- fmt.Sprintf("%d %s", st, b)
					return
				}
				if transport != "rest" {
					cs := resttest.ConnectMCP(t, api(0)+"/mcp", c.AgentToken)
					out, isErr := resttest.CallTool(t, cs, "create_note", map[string]any{"text": text})
					if isErr {
						out = "error: " + out
					}
					answer <- out
					return
				}
				st, _, b := do(t, "POST", api(0)+"/notes", jsonBody(tok), `{"text":"`+text+`"}`)
				answer <- fmt.Sprintf("%d %s", st, b)
			}()
			<-gate.entered
			if st, _, b := do(t, "POST", api(1)+"/notes", jsonBody(tok), `{"text":"overtaking"}`); st != 201 || !strings.Contains(string(b), `"id":2`) {
				t.Fatalf("overtaking write on replica 1: %d %s", st, b)
			}
			close(gate.release)
			got := <-answer
			if !strings.Contains(got, `"id":3`) || strings.Contains(got, "error") {
				t.Fatalf("the overtaken write answered %s, want note 3", got)
			}
			if n := gate.runs.Load(); n != 2 {
				t.Errorf("the overtaken write ran %d times, want 2 (once more after the conflict)", n)
			}
			_, _, b := do(t, "GET", urls[1]+"/v1/sandboxes/"+c.SessionID+"/state/notes", ctl, "")
			var st struct{ Notes map[string]string }
			json.Unmarshal(b, &st)
			if len(st.Notes) != 3 || st.Notes["3"] != text || st.Notes["2"] != "overtaking" {
				t.Fatalf("state after both writes: %s", b)
			}
			gated := 0
			for _, r := range gapFreeTape(t, urls[0], c.SessionID, key) {
				if strings.Contains(string(r.Request.Body), text) && r.ToolName() == "create_note" {
					gated++
					if !strings.Contains(string(r.Response.Body), `:3`) {
						t.Errorf("the overtaken write's row answered %s", r.Response.Body)
					}
				}
			}
			if gated != 1 {
				t.Fatalf("the overtaken write has %d rows, want 1", gated)
			}
		})
	}
}
