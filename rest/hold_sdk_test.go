package rest_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/pomehq/pome/mcpserver"
	"github.com/pomehq/pome/tape"
)

// TestSDKPathWriteWhoseClientLeft: on Redis, where a write is stored with
// its row, a write on the SDK's MCP path whose client goes away while the
// tool runs leaves nothing behind it: the next write is served at once (no
// lock or lease left held), and the state and the tape agree on the write
// that lost its client (in the state exactly when one row says it changed
// the state).
func TestSDKPathWriteWhoseClientLeft(t *testing.T) {
	urls, key := startReplicas(t)
	mcpserver.FastPath = false
	defer func() { mcpserver.FastPath = true }()
	c := createOn(t, urls[0], key, "notes")
	api := urls[0] + "/notes/s/" + c.SessionID
	text := "left-" + c.SessionID
	gate := &noteGate{entered: make(chan struct{}), release: make(chan struct{})}
	noteGates.Store(text, gate)
	defer noteGates.Delete(text)

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_note","arguments":{"text":"` + text + `"}}}`
		req, _ := http.NewRequestWithContext(ctx, "POST", api+"/mcp", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+c.AgentToken)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	<-gate.entered
	cancel()
	<-done
	time.Sleep(50 * time.Millisecond) // the server sees the client gone
	close(gate.release)

	client := &http.Client{Timeout: 5 * time.Second}
	req, _ := http.NewRequest("POST", api+"/notes", strings.NewReader(`{"text":"after"}`))
	req.Header.Set("Authorization", "Bearer "+c.ProviderCredentials["notes"].Token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("the next write was not served: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != 201 {
		t.Fatalf("the next write: %d", resp.StatusCode)
	}

	ctl := map[string]string{"Authorization": "Bearer " + key}
	_, _, b := do(t, "GET", urls[1]+"/v1/sandboxes/"+c.SessionID+"/state/notes", ctl, "")
	inState := strings.Contains(string(b), text)
	_, _, tp := do(t, "GET", urls[1]+"/v1/sandboxes/"+c.SessionID+"/tapes/notes", ctl, "")
	var out struct{ Rows []tape.Row }
	json.Unmarshal(tp, &out)
	rows := 0
	for i, r := range out.Rows {
		if r.Seq != int64(i+1) {
			t.Fatalf("seq gap at %d", i)
		}
		if r.StateMutation && strings.Contains(string(r.Request.Body), text) {
			rows++
		}
	}
	if (inState && rows != 1) || (!inState && rows != 0) {
		t.Fatalf("the state holds the write: %v; rows that say it changed the state: %d", inState, rows)
	}
}
