package session_test

import (
	"context"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/pomehq/pome/session"
	"github.com/pomehq/pome/session/storetest"
)

// redisClusterURL is the Redis Cluster the cluster tests use (CI starts
// one of three masters); without it they skip.
func redisClusterURL(tb testing.TB) string {
	tb.Helper()
	url := os.Getenv("POME_TEST_REDIS_CLUSTER_URL")
	if url == "" {
		tb.Skip("POME_TEST_REDIS_CLUSTER_URL not set (e.g. redis+cluster://127.0.0.1:7001,127.0.0.1:7002,127.0.0.1:7003)")
	}
	return url
}

func newRedisCluster(tb testing.TB, now func() time.Time) *session.RedisStore {
	tb.Helper()
	c, err := session.OpenRedis(redisClusterURL(tb))
	if err != nil {
		tb.Fatal(err)
	}
	if _, ok := c.(*redis.ClusterClient); !ok {
		tb.Fatalf("POME_TEST_REDIS_CLUSTER_URL opened a %T, want a cluster client", c)
	}
	s := session.NewRedisStore(c, now)
	tb.Cleanup(func() { s.Close() })
	if err := s.Ping(context.Background()); err != nil {
		tb.Fatalf("redis cluster: %v", err)
	}
	return s
}

// TestRedisClusterStore runs the conformance suite on a Redis Cluster,
// which refuses any script or transaction whose keys span slots
// (CROSSSLOT) and spreads sandboxes and teams over its masters.
func TestRedisClusterStore(t *testing.T) {
	redisClusterURL(t)
	storetest.Run(t, func(t *testing.T, now func() time.Time) session.Store {
		return newRedisCluster(t, now)
	})
}

// TestRedisClusterStoreBudgeted runs the conformance suite on a Redis
// Cluster with the server budgets on, so that creates, stops, discards
// and appends run the budget script on its own slot too.
func TestRedisClusterStoreBudgeted(t *testing.T) {
	redisClusterURL(t)
	scope := session.NewRequestID()
	storetest.Run(t, func(t *testing.T, now func() time.Time) session.Store {
		s := newRedisCluster(t, now)
		s.SetBudgetScope(scope)
		s.SetBudgets(session.Budgets{ServerWorldBytes: 1 << 30, ServerTapeBytes: 1 << 30, TeamShare: 0.5})
		return s
	})
}

// TestRedisClusterKeysOneSlot: every key of a sandbox is in one slot, and
// every key of a team in one slot, as the cluster itself computes them.
func TestRedisClusterKeysOneSlot(t *testing.T) {
	ctx := context.Background()
	c, err := session.OpenRedis(redisClusterURL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	id := session.NewSandboxID()
	keys := append(session.SandboxKeys(id, []string{"github", "slack"}), session.LockKey(id, "github"))
	teams := []string{session.TeamIndexKey("acme"), session.TeamOpenKey("acme"), session.TeamUsageKey("acme")}
	for _, group := range [][]string{keys, teams, session.BudgetKeys(""), session.BudgetKeys("x")} {
		var slots []int64
		for _, k := range group {
			slot, err := c.ClusterKeySlot(ctx, k).Result()
			if err != nil {
				t.Fatal(err)
			}
			slots = append(slots, slot)
		}
		if len(slices.Compact(slices.Clone(slots))) != 1 {
			t.Errorf("keys %q are in slots %v, want one", group, slots)
		}
	}
}

func TestOpenRedisCluster(t *testing.T) {
	for _, tc := range []struct {
		url   string
		addrs []string
		user  string
		pass  string
		tls   bool
	}{
		{"redis+cluster://127.0.0.1:7001", []string{"127.0.0.1:7001"}, "", "", false},
		{"redis+cluster://127.0.0.1:7001,127.0.0.1:7002,127.0.0.1:7003/", []string{"127.0.0.1:7001", "127.0.0.1:7002", "127.0.0.1:7003"}, "", "", false},
		{"rediss+cluster://u:p%40ss@a.example:6380,[::1]:6381/0?dial_timeout=200ms&max_redirects=5", []string{"a.example:6380", "[::1]:6381"}, "u", "p@ss", true},
		{"REDIS+CLUSTER://:secret@10.0.0.1:7000,10.0.0.2:7000", []string{"10.0.0.1:7000", "10.0.0.2:7000"}, "", "secret", false},
	} {
		c, err := session.OpenRedis(tc.url)
		if err != nil {
			t.Errorf("OpenRedis(%s): %v", tc.url, err)
			continue
		}
		cc, ok := c.(*redis.ClusterClient)
		if !ok {
			t.Errorf("OpenRedis(%s) = %T, want a cluster client", tc.url, c)
			c.Close()
			continue
		}
		o := cc.Options()
		if !slices.Equal(o.Addrs, tc.addrs) || o.Username != tc.user || o.Password != tc.pass || (o.TLSConfig != nil) != tc.tls {
			t.Errorf("OpenRedis(%s): addrs %q user %q password %q TLS %v", tc.url, o.Addrs, o.Username, o.Password, o.TLSConfig != nil)
		}
		if tc.url[:7] == "rediss+" && (o.DialTimeout != 200*time.Millisecond || o.MaxRedirects != 5) {
			t.Errorf("OpenRedis(%s): options not passed on: dial %v, redirects %d", tc.url, o.DialTimeout, o.MaxRedirects)
		}
		c.Close()
	}
	for _, url := range []string{
		"redis+cluster://",
		"redis+cluster://127.0.0.1",
		"redis+cluster://127.0.0.1:7001,",
		"redis+cluster://127.0.0.1:7001,:7002",
		"redis+cluster://127.0.0.1:7001/2",
		"redis+cluster://127.0.0.1:7001?addr=127.0.0.1:7002",
		"redis+cluster://127.0.0.1:7001?no_such_option=1",
	} {
		if c, err := session.OpenRedis(url); err == nil {
			c.Close()
			t.Errorf("OpenRedis(%s) accepted it", url)
		}
	}
}
