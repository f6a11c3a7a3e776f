package rest_test

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pomehq/pome/rest"
	"github.com/pomehq/pome/rest/resttest"
	"github.com/pomehq/pome/session"
	"github.com/pomehq/pome/tape"
	"github.com/pomehq/pome/twins/all"
)

// replicas starts n servers over stores from newStore sharing one team
// key; with one shared Redis they are replicas behind a load balancer.
func replicas(t *testing.T, n int, newStore func() session.Store) (urls []string, key string) {
	t.Helper()
	key = session.NewAPIKey()
	teams, err := session.NewTeams(map[string][]string{"conc-" + session.NewRequestID(): {key}})
	if err != nil {
		t.Fatal(err)
	}
	reg := all.Registry()
	for i := 0; i < n; i++ {
		store := newStore()
		t.Cleanup(func() { store.Close() })
		hs := httptest.NewServer(nil)
		t.Cleanup(hs.Close)
		pub := hs.URL
		if i > 0 {
			pub = urls[0]
		}
		hs.Config.Handler = rest.NewServer(rest.Config{PublicURL: pub, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, reg, store, teams)
		urls = append(urls, hs.URL)
	}
	return urls, key
}

// stores returns the backends the concurrency tests run on: one memory
// store, and two replicas on the shared Redis when it is configured.
func stores(t *testing.T) map[string]func() ([]string, string) {
	out := map[string]func() ([]string, string){
		"memory": func() ([]string, string) {
			ms := session.NewMemoryStore(nil, 0)
			return replicas(t, 1, func() session.Store { return ms })
		},
	}
	if url := os.Getenv("POME_TEST_REDIS_URL"); url != "" {
		out["redis-2-replicas"] = func() ([]string, string) {
			return replicas(t, 2, func() session.Store {
				c, err := session.OpenRedis(url)
				if err != nil {
					t.Fatal(err)
				}
				return session.NewRedisStore(c, nil)
			})
		}
	}
	return out
}

// TestConcurrentWritersLoseNothing: 500 writers at once on one sandbox,
// half over REST and half over MCP, spread over every replica: every write
// is acknowledged, GitHub issue numbers and Stripe customer ids never
// collide, the state holds every one of them, and each twin's tape is
// gap-free with one mutating row per write.
func TestConcurrentWritersLoseNothing(t *testing.T) {
	const writers = 500
	for name, start := range stores(t) {
		t.Run(name, func(t *testing.T) {
			urls, key := start()
			hdr := map[string]string{"Authorization": "Bearer " + key, "Content-Type": "application/json"}
			st, _, b := doTB(t, "POST", urls[0]+"/v1/sandboxes", hdr, `{"twins":["github","stripe"]}`)
			if st != 201 {
				t.Fatalf("%d %s", st, b)
			}
			var c session.Created
			json.Unmarshal(b, &c)
			t.Cleanup(func() { doTB(t, "DELETE", urls[0]+"/v1/sandboxes/"+c.SessionID+"?discard=true", hdr, "") })
			for _, twin := range []string{"github", "stripe"} {
				// One MCP session per replica; the handler is stateless, so
				// calls on one session run concurrently.
				var sessions []*mcp.ClientSession
				for _, u := range urls {
					sessions = append(sessions, resttest.ConnectMCP(t, u+"/"+twin+"/s/"+c.SessionID+"/mcp", c.AgentToken))
				}
				base := len(tapeOf(t, urls[0], hdr, c.SessionID, twin))
				ids := make(chan string, writers)
				var wg sync.WaitGroup
				for i := 0; i < writers; i++ {
					wg.Add(1)
					go func(i int) {
						defer wg.Done()
						replica := i % len(urls)
						api := urls[replica] + "/" + twin + "/s/" + c.SessionID
						tok := c.ProviderCredentials[twin].Token
						var out map[string]any
						if i%2 == 0 {
							var st int
							var b []byte
							if twin == "github" {
								st, _, b = doTB(t, "POST", api+"/repos/acme/api/issues", jsonBody(tok), fmt.Sprintf(`{"title":"w%d"}`, i))
							} else {
								st, _, b = doTB(t, "POST", api+"/v1/customers", map[string]string{"Authorization": "Bearer " + tok, "Content-Type": "application/x-www-form-urlencoded"}, fmt.Sprintf("email=w%d%%40x.test", i))
							}
							if st != 201 && st != 200 {
								t.Errorf("REST write %d: %d %s", i, st, b)
								return
							}
							json.Unmarshal(b, &out)
						} else {
							cs := sessions[replica]
							var text string
							var isErr bool
							if twin == "github" {
								text, isErr = resttest.CallTool(t, cs, "issue_write", map[string]any{"method": "create", "owner": "acme", "repo": "api", "title": fmt.Sprintf("w%d", i)})
							} else {
								text, isErr = resttest.CallTool(t, cs, "create_customer", map[string]any{"email": fmt.Sprintf("w%d@x.test", i)})
							}
							if isErr {
								t.Errorf("MCP write %d: %s", i, text)
								return
							}
							json.Unmarshal([]byte(text), &out)
						}
						if twin == "github" {
							// REST answers the issue; MCP github-mcp-server's
							// {id, url}, the url ending in the number.
							n := fmt.Sprint(out["number"])
							if u, ok := out["url"].(string); ok && out["number"] == nil {
								n = u[strings.LastIndex(u, "/")+1:]
							}
							ids <- n
						} else {
							ids <- fmt.Sprint(out["id"])
						}
					}(i)
				}
				wg.Wait()
				close(ids)
				seen := map[string]bool{}
				for id := range ids {
					if id == "" || id == "<nil>" || seen[id] {
						t.Fatalf("%s: id %q missing or handed out twice", twin, id)
					}
					seen[id] = true
				}
				if len(seen) != writers {
					t.Fatalf("%s: %d distinct ids for %d writes", twin, len(seen), writers)
				}
				// Every replica reads the same state, holding every write.
				var states []string
				for _, u := range urls {
					_, _, b := doTB(t, "GET", u+"/v1/sandboxes/"+c.SessionID+"/state/"+twin, hdr, "")
					states = append(states, string(b))
				}
				for _, st := range states[1:] {
					if st != states[0] {
						t.Fatalf("%s: replicas disagree on state", twin)
					}
				}
				for id := range seen {
					needle := `"number":` + id
					if twin == "stripe" {
						needle = `"` + id + `"`
					}
					if !strings.Contains(states[0], needle) {
						t.Fatalf("%s: acknowledged write %s missing from state", twin, id)
					}
				}
				rows := tapeOf(t, urls[len(urls)-1], hdr, c.SessionID, twin)
				mut := 0
				for i, r := range rows {
					if r.Seq != int64(i+1) {
						t.Fatalf("%s: tape seq gap at %d: %d", twin, i, r.Seq)
					}
					if r.StateMutation {
						mut++
					}
				}
				if len(rows)-base < writers || mut != writers {
					t.Fatalf("%s: %d new rows, %d mutating, want %d", twin, len(rows)-base, mut, writers)
				}
			}
		})
	}
}

func tapeOf(t *testing.T, url string, hdr map[string]string, sid, twin string) []tape.Row {
	t.Helper()
	st, _, b := doTB(t, "GET", url+"/v1/sandboxes/"+sid+"/tapes/"+twin, hdr, "")
	if st != 200 {
		t.Fatalf("tape: %d %s", st, b)
	}
	var out struct{ Rows []tape.Row }
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out.Rows
}
