package rest_test

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"sync"
	"testing"

	"github.com/pomehq/pome/rest"
	"github.com/pomehq/pome/rest/resttest"
	"github.com/pomehq/pome/session"
	"github.com/pomehq/pome/tape"
	"github.com/pomehq/pome/twins"
)

// TestTwoReplicasShareRedis starts two servers on one Redis, creates a
// sandbox on one, writes through both (REST and MCP) at once, and reads the
// same state and the same gap-free tape from either.
func TestTwoReplicasShareRedis(t *testing.T) {
	url := os.Getenv("POME_TEST_REDIS_URL")
	if url == "" {
		t.Skip("POME_TEST_REDIS_URL not set")
	}
	key := session.NewAPIKey()
	teams, _ := session.NewTeams(map[string][]string{"replicas-" + session.NewSandboxID(): {key}})
	reg := twins.NewRegistry(notesTwin(false))
	var urls []string
	for i := 0; i < 2; i++ {
		client, err := session.OpenRedis(url)
		if err != nil {
			t.Fatal(err)
		}
		store := session.NewRedisStore(client, nil)
		t.Cleanup(func() { store.Close() })
		hs := httptest.NewServer(nil)
		t.Cleanup(hs.Close)
		// Both replicas advertise the first one's URL, as replicas behind
		// one load balancer do.
		pub := hs.URL
		if i == 1 {
			pub = urls[0]
		}
		hs.Config.Handler = rest.NewServer(rest.Config{PublicURL: pub}, reg, store, teams)
		urls = append(urls, hs.URL)
	}
	ctrl := func(i int, method, path, body string) (int, []byte) {
		st, _, b := do(t, method, urls[i]+path, map[string]string{"Authorization": "Bearer " + key, "Content-Type": "application/json"}, body)
		return st, b
	}
	st, b := ctrl(0, "POST", "/v1/sandboxes", `{"twins":["notes"]}`)
	if st != 201 {
		t.Fatalf("%d %s", st, b)
	}
	var c session.Created
	json.Unmarshal(b, &c)
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
