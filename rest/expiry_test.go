package rest_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/pomehq/pome/rest"
	"github.com/pomehq/pome/session"
)

// TestExpiryToTheSecond on both stores: a sandbox with ttl_seconds=4 (room
// for setup on a loaded machine)
// serves just before its expiry and is the opaque 404 just after; a
// stopped sandbox's state stays readable until its retention and is gone
// after; with Redis, SCAN finds none of an expired sandbox's keys.
func TestExpiryToTheSecond(t *testing.T) {
	backends := map[string]func() session.Store{"memory": func() session.Store { return session.NewMemoryStore(nil, 0) }}
	url := os.Getenv("POME_TEST_REDIS_URL")
	if url != "" {
		backends["redis"] = func() session.Store {
			c, err := session.OpenRedis(url)
			if err != nil {
				t.Fatal(err)
			}
			return session.NewRedisStore(c, nil)
		}
	}
	for name, newStore := range backends {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			store := newStore()
			t.Cleanup(func() { store.Close() })
			s := startReal(t, rest.Config{Retention: 2 * time.Second}, store)
			ctl := map[string]string{"Authorization": "Bearer " + s.KeyA, "Content-Type": "application/json"}
			st, b, _ := timed(t, "POST", s.URL+"/v1/sandboxes", ctl, `{"twins":["github"],"ttl_seconds":4}`)
			if st != 201 {
				t.Fatalf("%d %s", st, b)
			}
			c := decodeCreated(t, b)
			stopped := s.create(t, s.KeyA, "github")
			issue := c.PerTwin["github"].APIURL + "/repos/acme/api/issues/1"
			tok := c.ProviderCredentials["github"].Token
			if st, _, _ := timed(t, "DELETE", s.URL+"/v1/sandboxes/"+stopped.SessionID, ctl, ""); st != 204 {
				t.Fatalf("stop: %d", st)
			}
			stopAt := time.Now()
			// Stopped: readable until retention, gone after.
			if st, _, _ := timed(t, "GET", s.URL+"/v1/sandboxes/"+stopped.SessionID+"/state/github", ctl, ""); st != 200 {
				t.Fatalf("stopped sandbox's state within retention: %d", st)
			}
			sleepUntil(c.ExpiresAt.Add(-400 * time.Millisecond))
			if st, _, _ := timed(t, "GET", issue, bearer(tok), ""); st != 200 {
				t.Fatalf("0.4 s before expiry: %d", st)
			}
			sleepUntil(c.ExpiresAt.Add(100 * time.Millisecond))
			if st, _, _ := timed(t, "GET", issue, bearer(tok), ""); st != 404 {
				t.Fatalf("0.1 s after expiry: %d", st)
			}
			if st, b, _ := timed(t, "GET", s.URL+"/v1/sandboxes/"+c.SessionID, ctl, ""); st != 200 || !jsonHas(b, `"state":"expired"`) {
				t.Fatalf("expired sandbox: %d %s", st, b)
			}
			sleepUntil(stopAt.Add(2*time.Second + 300*time.Millisecond))
			if st, _, _ := timed(t, "GET", s.URL+"/v1/sandboxes/"+stopped.SessionID+"/state/github", ctl, ""); st != 404 {
				t.Fatalf("stopped sandbox's state after retention: %d", st)
			}
			if ms, ok := store.(*session.MemoryStore); ok {
				ms.Sweep()
			}
			if url == "" || name != "redis" {
				return
			}
			opts, _ := redis.ParseURL(url)
			rdb := redis.NewClient(opts)
			defer rdb.Close()
			for _, id := range []string{c.SessionID, stopped.SessionID} {
				keys, _, err := rdb.Scan(context.Background(), 0, "pome:{"+id+"}:*", 1000).Result()
				if err != nil {
					t.Fatal(err)
				}
				if len(keys) > 0 {
					t.Fatalf("keys of %s left after expiry: %v", id, keys)
				}
			}
		})
	}
}

func sleepUntil(at time.Time) { time.Sleep(time.Until(at)) }

func jsonHas(b []byte, s string) bool { return strings.Contains(string(b), s) }

func decodeCreated(t *testing.T, b []byte) *session.Created {
	t.Helper()
	var c session.Created
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	return &c
}
