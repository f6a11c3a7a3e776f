package rest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/pomehq/pome/rest"
	"github.com/pomehq/pome/session"
	"github.com/pomehq/pome/tape"
	"github.com/pomehq/pome/twins/all"
)

// clusterURL is the Redis Cluster of POME_TEST_REDIS_CLUSTER_URL (CI starts
// one of three masters); without it the test skips.
func clusterURL(t *testing.T) string {
	t.Helper()
	url := os.Getenv("POME_TEST_REDIS_CLUSTER_URL")
	if url == "" {
		t.Skip("POME_TEST_REDIS_CLUSTER_URL not set (e.g. redis+cluster://127.0.0.1:7001,127.0.0.1:7002,127.0.0.1:7003)")
	}
	return url
}

func startClusterReplicas(t *testing.T) ([]string, string) {
	t.Helper()
	return startReplicasOn(t, clusterURL(t))
}

// The replica tests again, with both replicas on a Redis Cluster: the
// sandbox's keys on one master, its team's on another, most likely.
func TestTwoReplicasShareRedisCluster(t *testing.T) { twoReplicasShare(t, startClusterReplicas) }

func TestReplicaReadSeesOtherReplicaCluster(t *testing.T) {
	replicaReadSeesOther(t, startClusterReplicas)
}

func TestReplicaHeldWriteServedAgainCluster(t *testing.T) {
	replicaHeldWriteServedAgain(t, startClusterReplicas)
}

// ownCluster is a Redis Cluster a test started on free loopback ports in
// a temp dir, never the shared one: the test fails over and kills its
// nodes. Node i < shards is a master at first, node shards+i its replica.
// Every node keeps an append-only file fsynced before each reply, so a
// killed node restarts with every write it acknowledged; replicas never
// fail over on their own (cluster-replica-no-failover), only when told.
type ownCluster struct {
	t      *testing.T
	bin    string
	dir    string
	shards int
	nodes  []*clusterNode
}

type clusterNode struct {
	port, bus int
	cmd       *exec.Cmd
	rdb       *redis.Client
}

// clusterPort returns a free port from 20000 to 29999, below the kernel's
// ephemeral range: a node keeps its port across the restarts of a test,
// and a port the kernel hands out (":0") may be taken while the node is
// down by any connection or listener of a test running beside it (CI saw
// a restarted node never answer).
func clusterPort(t *testing.T) int {
	t.Helper()
	for range 1000 {
		p := 20000 + rand.IntN(10000)
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
		if err == nil {
			ln.Close()
			return p
		}
	}
	t.Fatal("no free port from 20000 to 29999")
	return 0
}

// startOwnCluster starts shards masters with one replica each and waits
// (with a deadline) until every node sees the cluster ok and every replica
// is in sync with its master.
func startOwnCluster(t *testing.T, shards int) *ownCluster {
	t.Helper()
	if os.Getenv("POME_TEST_REDIS_URL") == "" && os.Getenv("POME_TEST_REDIS_CLUSTER_URL") == "" {
		t.Skip("Redis tests not enabled: set POME_TEST_REDIS_URL or POME_TEST_REDIS_CLUSTER_URL")
	}
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server not installed: the Redis Cluster fault test starts its own cluster")
	}
	began := time.Now()
	c := &ownCluster{t: t, bin: bin, dir: t.TempDir(), shards: shards}
	for i := 0; i < 2*shards; i++ {
		n := &clusterNode{port: clusterPort(t), bus: clusterPort(t)}
		n.rdb = redis.NewClient(&redis.Options{Addr: n.addr(), DialTimeout: time.Second, MaxRetries: -1})
		t.Cleanup(func() { n.rdb.Close() })
		c.nodes = append(c.nodes, n)
		c.start(i)
	}
	ctx := context.Background()
	// Slots and distinct config epochs before the nodes meet, as
	// redis-cli --cluster create does.
	per := 16384 / shards
	for i := 0; i < shards; i++ {
		lo, hi := i*per, (i+1)*per-1
		if i == shards-1 {
			hi = 16383
		}
		c.must(c.nodes[i].rdb.Do(ctx, "cluster", "addslotsrange", lo, hi).Err())
		c.must(c.nodes[i].rdb.Do(ctx, "cluster", "set-config-epoch", i+1).Err())
	}
	for _, n := range c.nodes[1:] {
		c.must(c.nodes[0].rdb.Do(ctx, "cluster", "meet", "127.0.0.1", n.port, n.bus).Err())
	}
	c.waitFor("every node to know every other", func() bool {
		for _, n := range c.nodes {
			if c.info(n, "cluster", "cluster_known_nodes") != fmt.Sprint(len(c.nodes)) {
				return false
			}
		}
		return true
	})
	for i := 0; i < shards; i++ {
		id, err := c.nodes[i].rdb.Do(ctx, "cluster", "myid").Text()
		c.must(err)
		c.must(c.nodes[shards+i].rdb.Do(ctx, "cluster", "replicate", id).Err())
	}
	c.waitHealthy()
	t.Logf("Redis Cluster of %d nodes ready in %v", len(c.nodes), time.Since(began).Round(time.Millisecond))
	return c
}

func (n *clusterNode) addr() string { return fmt.Sprintf("127.0.0.1:%d", n.port) }

func (c *ownCluster) must(err error) {
	c.t.Helper()
	if err != nil {
		c.t.Fatal(err)
	}
}

// start (re)starts node i with its own dir, so that a restart finds its
// node table and append-only file again.
func (c *ownCluster) start(i int) {
	c.t.Helper()
	n := c.nodes[i]
	dir := filepath.Join(c.dir, fmt.Sprint(n.port))
	c.must(os.MkdirAll(dir, 0o755))
	n.cmd = exec.Command(c.bin, "--bind", "127.0.0.1", "--port", fmt.Sprint(n.port),
		"--cluster-enabled", "yes", "--cluster-port", fmt.Sprint(n.bus), "--cluster-config-file", "nodes.conf",
		"--cluster-node-timeout", "1000", "--cluster-replica-no-failover", "yes",
		"--repl-diskless-sync-delay", "0", "--save", "", "--appendonly", "yes", "--appendfsync", "always", "--dir", dir)
	c.must(n.cmd.Start())
	cmd := n.cmd
	c.t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	c.waitFor(fmt.Sprintf("node %s to answer", n.addr()), func() bool {
		return n.rdb.Ping(context.Background()).Err() == nil
	})
}

// kill ends node i without warning (SIGKILL).
func (c *ownCluster) kill(i int) {
	n := c.nodes[i]
	n.cmd.Process.Signal(syscall.SIGKILL)
	n.cmd.Wait()
}

// info reads one field of INFO section (or CLUSTER INFO, for "cluster")
// of node n ("" when it does not answer).
func (c *ownCluster) info(n *clusterNode, section, field string) string {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	var text string
	var err error
	if section == "cluster" {
		text, err = n.rdb.ClusterInfo(ctx).Result()
	} else {
		text, err = n.rdb.Info(ctx, section).Result()
	}
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(text, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), field+":"); ok {
			return v
		}
	}
	return ""
}

// waitHealthy waits until every node sees the cluster ok and agrees on
// which master serves every slot, and every replica is linked to its
// master.
func (c *ownCluster) waitHealthy() {
	c.t.Helper()
	c.waitFor("the cluster to be healthy", func() bool {
		var view string
		replicas := 0
		for _, n := range c.nodes {
			if c.info(n, "cluster", "cluster_state") != "ok" {
				return false
			}
			v, err := c.slotMasters(n)
			if err != nil || (view != "" && v != view) {
				return false
			}
			view = v
			if c.info(n, "replication", "master_link_status") == "up" {
				replicas++
			}
		}
		return replicas == c.shards
	})
}

// slotMasters is node n's view of which master serves which slots.
// (Replicas show in CLUSTER SLOTS only once their master has sent them
// something, which an idle master does every 10 s.)
func (c *ownCluster) slotMasters(n *clusterNode) (string, error) {
	slots, err := n.rdb.ClusterSlots(context.Background()).Result()
	if err != nil {
		return "", err
	}
	if len(slots) != c.shards {
		return "", fmt.Errorf("%d slot ranges, want %d", len(slots), c.shards)
	}
	var b strings.Builder
	for _, s := range slots {
		fmt.Fprintf(&b, "%d-%d:%s;", s.Start, s.End, s.Nodes[0].Addr)
	}
	return b.String(), nil
}

// waitFor polls cond until it holds, failing the test after 20 s.
func (c *ownCluster) waitFor(what string, cond func() bool) {
	c.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			c.t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// masterOf returns the index of the node serving key as master, and the
// index of its replica.
func (c *ownCluster) masterOf(key string) (int, int) {
	c.t.Helper()
	ctx := context.Background()
	slot, err := c.nodes[0].rdb.ClusterKeySlot(ctx, key).Result()
	c.must(err)
	slots, err := c.nodes[0].rdb.ClusterSlots(ctx).Result()
	c.must(err)
	master := -1
	for _, s := range slots {
		if int64(s.Start) <= slot && slot <= int64(s.End) {
			for i, n := range c.nodes {
				if n.addr() == s.Nodes[0].Addr {
					master = i
				}
			}
		}
	}
	for i, n := range c.nodes {
		if master >= 0 && c.info(n, "replication", "master_port") == fmt.Sprint(c.nodes[master].port) {
			return master, i
		}
	}
	c.t.Fatalf("no master with a replica serves slot %d", slot)
	return -1, -1
}

// url is the cluster as `pome serve --redis-url` takes it, with short
// client timeouts so that an outage fails requests fast.
func (c *ownCluster) url() string {
	var addrs []string
	for _, n := range c.nodes[:c.shards] {
		addrs = append(addrs, n.addr())
	}
	return "redis+cluster://" + strings.Join(addrs, ",") + "?dial_timeout=200ms&read_timeout=500ms&write_timeout=500ms"
}

// TestRedisClusterFailoverAndKillMidTraffic: writers keep creating GitHub
// issues through two replicas on a Redis Cluster of three masters (one
// replica each) while the master serving the sandbox is failed over to its
// replica (CLUSTER FAILOVER), and then that new master is killed (SIGKILL)
// and restarted from its append-only file. Every write a client saw
// acknowledged (201) must be in the final state and taped once, and the
// tape must stay gap-free.
func TestRedisClusterFailoverAndKillMidTraffic(t *testing.T) {
	cl := startOwnCluster(t, 3)
	key, team := session.NewAPIKey(), "cluster-faults-"+session.NewRequestID()
	replica := func() *httptest.Server {
		c, err := session.OpenRedis(cl.url())
		if err != nil {
			t.Fatal(err)
		}
		store := session.NewRedisStore(c, nil)
		t.Cleanup(func() { store.Close() })
		teams, _ := session.NewTeams(map[string][]string{team: {key}})
		hs := httptest.NewServer(rest.NewServer(rest.Config{}, all.Registry(), store, teams))
		t.Cleanup(hs.Close)
		return hs
	}
	urls := []string{replica().URL, replica().URL}

	ctl := map[string]string{"Authorization": "Bearer " + key, "Content-Type": "application/json"}
	st, body, _ := timed(t, "POST", urls[0]+"/v1/sandboxes", ctl, `{"twins":["github"],"ttl_seconds":600}`)
	if st != 201 {
		t.Fatalf("%d %s", st, body)
	}
	var c session.Created
	json.Unmarshal(body, &c)
	tok := c.ProviderCredentials["github"].Token
	path := "/github/s/" + c.SessionID + "/repos/acme/api/issues"
	master, standby := cl.masterOf("pome:{" + c.SessionID + "}:meta")

	// Writers run until stop closes, each at most maxPerWriter requests,
	// so the traffic is bounded whatever the faults do.
	const writers, maxPerWriter = 8, 300
	var mu sync.Mutex
	var acked []string
	var served, refused atomic.Int64
	stop := make(chan struct{})
	client := &http.Client{Timeout: 5 * time.Second}
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < maxPerWriter; i++ {
				select {
				case <-stop:
					return
				default:
				}
				title := fmt.Sprintf("w%d-%d", w, i)
				req, _ := http.NewRequest("POST", urls[i%len(urls)]+path, strings.NewReader(`{"title":"`+title+`"}`))
				req.Header.Set("Authorization", "Bearer "+tok)
				resp, err := client.Do(req)
				if err == nil {
					resp.Body.Close()
				}
				if err == nil && resp.StatusCode == 201 {
					served.Add(1)
					mu.Lock()
					acked = append(acked, title)
					mu.Unlock()
					continue
				}
				refused.Add(1)
				time.Sleep(20 * time.Millisecond)
			}
		}(w)
	}
	// more waits until n more writes than now were acknowledged, so each
	// fault lands mid-traffic.
	more := func(what string, n int64) int64 {
		t.Helper()
		from := served.Load()
		cl.waitFor(fmt.Sprintf("%d writes acknowledged %s", n, what), func() bool { return served.Load() >= from+n })
		return served.Load()
	}

	began := time.Now()
	more("before the failover", 25)
	failing := time.Now()
	ctx := context.Background()
	cl.must(cl.nodes[standby].rdb.Do(ctx, "cluster", "failover").Err())
	cl.waitFor("the replica to take over", func() bool {
		return cl.info(cl.nodes[standby], "replication", "role") == "master"
	})
	failedOver := time.Since(failing)
	atFailover := more("after the failover", 25)

	// The new master dies without warning and comes back from its
	// append-only file; its replica (the old master) may not take over.
	killed := time.Now()
	cl.kill(standby)
	time.Sleep(300 * time.Millisecond) // an outage the writers run into
	cl.start(standby)
	cl.waitHealthy()
	recovered := time.Since(killed)
	atRestart := more("after the restart", 25)
	close(stop)
	wg.Wait()
	trafficFor := time.Since(began)

	if cl.info(cl.nodes[master], "replication", "role") != "slave" {
		t.Fatalf("the old master %s serves again: the failover did not hold", cl.nodes[master].addr())
	}
	for _, url := range urls {
		waitReady(t, url)
		st, state, _ := timed(t, "GET", url+"/v1/sandboxes/"+c.SessionID+"/state/github", ctl, "")
		if st != 200 {
			t.Fatalf("state from %s: %d %s", url, st, state)
		}
		for _, title := range acked {
			if !strings.Contains(string(state), `"`+title+`"`) {
				t.Fatalf("acknowledged write %q lost (of %d acknowledged)", title, len(acked))
			}
		}
		seen := map[string]bool{}
		for _, m := range regexp.MustCompile(`"title":"(w\d+-\d+)"`).FindAllStringSubmatch(string(state), -1) {
			if seen[m[1]] {
				t.Fatalf("write %q applied twice", m[1])
			}
			seen[m[1]] = true
		}
		st, tp, _ := timed(t, "GET", url+"/v1/sandboxes/"+c.SessionID+"/tapes/github", ctl, "")
		var out struct{ Rows []tape.Row }
		if st != 200 || json.Unmarshal(tp, &out) != nil {
			t.Fatalf("tape from %s: %d", url, st)
		}
		taped := map[string]bool{}
		for i, row := range out.Rows {
			if row.Seq != int64(i+1) {
				t.Fatalf("tape seq gap at %d: %d", i, row.Seq)
			}
			if row.Status == 201 && row.StateMutation {
				if taped[string(row.Request.Body)] {
					t.Fatalf("call %s taped twice", row.Request.Body)
				}
				taped[string(row.Request.Body)] = true
			}
		}
		for _, title := range acked {
			if !taped[`{"title":"`+title+`"}`] {
				t.Fatalf("acknowledged write %q not on the tape", title)
			}
		}
	}
	t.Logf("%d writes acknowledged in %v (%d by the failover, %d by the restart), %d refused; failover in %v, kill to healthy again in %v",
		served.Load(), trafficFor.Round(time.Millisecond), atFailover, atRestart, refused.Load(), failedOver.Round(time.Millisecond), recovered.Round(time.Millisecond))
}
