package rest

import (
	"context"
	"os"
	"testing"

	"github.com/pomehq/pome/session"
)

// TestOpenStoreWorldCache: --world-cache-bytes reaches the Redis store,
// its default when unset, and 0 (taken as -1) keeps no world.
func TestOpenStoreWorldCache(t *testing.T) {
	url := os.Getenv("POME_TEST_REDIS_URL")
	if url == "" {
		t.Skip("POME_TEST_REDIS_URL not set")
	}
	for _, c := range []struct{ set, want int64 }{{0, DefaultWorldCacheBytes}, {1 << 30, 1 << 30}, {-1, -1}} {
		cfg := Config{RedisURL: url, WorldCacheBytes: c.set}
		cfg.Defaults()
		s, _, err := openStore(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		rs := s.(*session.RedisStore)
		t.Cleanup(func() { rs.Close() })
		if got := rs.WorldCacheBytes(); got != c.want {
			t.Errorf("WorldCacheBytes %d: the store keeps %d, want %d", c.set, got, c.want)
		}
	}
}
