package rest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/pomehq/pome/rest"
	"github.com/pomehq/pome/session"
	"github.com/pomehq/pome/tape"
	"github.com/pomehq/pome/twins/all"
)

// TestKillRedisAndReplicaMidTraffic: writers keep creating GitHub issues
// through two replicas while Redis is killed (SIGKILL, no shutdown) and
// restarted from its append-only file, and one replica dies and a new one
// takes its place. Every write a client saw acknowledged (201) must be in
// the final state, and the tape must stay gap-free.
func TestKillRedisAndReplicaMidTraffic(t *testing.T) {
	r, start := durableRedis(t)
	redisCmd := start()
	waitPort(t, r.port)

	key, team := session.NewAPIKey(), "midtraffic-"+session.NewRequestID()
	replica := func() *httptest.Server { return redisReplica(t, r.url(), team, key) }
	a, b := replica(), replica()
	var live atomic.Pointer[[]string]
	live.Store(&[]string{a.URL, b.URL})

	ctl := map[string]string{"Authorization": "Bearer " + key, "Content-Type": "application/json"}
	st, body, _ := timed(t, "POST", a.URL+"/v1/sandboxes", ctl, `{"twins":["github"],"ttl_seconds":600}`)
	if st != 201 {
		t.Fatalf("%d %s", st, body)
	}
	var c session.Created
	json.Unmarshal(body, &c)
	tok := c.ProviderCredentials["github"].Token
	path := "/github/s/" + c.SessionID + "/repos/acme/api/issues"

	var mu sync.Mutex
	var acked []string
	var served, refused atomic.Int64
	var stop atomic.Bool
	client := &http.Client{Timeout: 5 * time.Second}
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; !stop.Load(); i++ {
				urls := *live.Load()
				title := fmt.Sprintf("w%d-%d", w, i)
				req, _ := http.NewRequest("POST", urls[i%len(urls)]+path, strings.NewReader(`{"title":"`+title+`"}`))
				req.Header.Set("Authorization", "Bearer "+tok)
				resp, err := client.Do(req)
				if err != nil {
					refused.Add(1)
					time.Sleep(20 * time.Millisecond)
					continue
				}
				resp.Body.Close()
				if resp.StatusCode == 201 {
					served.Add(1)
					mu.Lock()
					acked = append(acked, title)
					mu.Unlock()
				} else {
					refused.Add(1)
					time.Sleep(20 * time.Millisecond)
				}
			}
		}(w)
	}

	waitFor(func() bool { return served.Load() >= 20 })
	// Mid-traffic: Redis and replica A die without warning.
	servedBefore := served.Load()
	redisCmd.Process.Signal(syscall.SIGKILL)
	redisCmd.Wait()
	// A dead replica does not wait for its calls to finish, as Close
	// would: its connections and listener just go. (Its calls in flight
	// keep running here, waiting for Redis; whatever they store, nobody
	// was told of.)
	a.Listener.Close()
	a.CloseClientConnections()
	live.Store(&[]string{b.URL})
	time.Sleep(300 * time.Millisecond)
	start()
	waitPort(t, r.port)
	c2 := replica()
	servedAtRestart := served.Load()
	live.Store(&[]string{b.URL, c2.URL})
	trafficUntil(&stop, func() bool { return served.Load() > servedAtRestart+10 })
	wg.Wait()

	// Writes were acknowledged before the kill and after the restart, so
	// the faults landed mid-traffic. (Refusals are no witness: a write in
	// flight during a short outage waits for Redis and is stored with its
	// row, rather than refused.)
	if servedBefore == 0 || served.Load() <= servedAtRestart {
		t.Fatalf("the faults did not land mid-traffic: %d writes acknowledged before the kill, %d by the restart, %d in all", servedBefore, servedAtRestart, served.Load())
	}
	for _, url := range []string{b.URL, c2.URL} {
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
		// A write whose reply was lost in the kill is sent again by the
		// Redis client: it must still be applied once.
		titles := regexp.MustCompile(`"title":"(w\d+-\d+)"`).FindAllStringSubmatch(string(state), -1)
		seen := map[string]bool{}
		for _, m := range titles {
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
		created := 0
		taped := map[string]bool{}
		for i, row := range out.Rows {
			if row.Seq != int64(i+1) {
				t.Fatalf("tape seq gap at %d: %d", i, row.Seq)
			}
			if row.Status == 201 && row.StateMutation {
				created++
				if taped[string(row.Request.Body)] {
					t.Fatalf("call %s taped twice", row.Request.Body)
				}
				taped[string(row.Request.Body)] = true
			}
		}
		if created < len(acked) {
			t.Fatalf("tape holds %d created rows for %d acknowledged writes", created, len(acked))
		}
	}
	t.Logf("%d writes acknowledged, %d refused during the faults", served.Load(), refused.Load())
}

// durableRedis gives the test a redis-server of its own and a function
// that starts it (again) on the same port and data: durable, every write
// fsynced before it is acknowledged, so a kill loses nothing a client was
// told about. It skips without POME_TEST_REDIS_URL or redis-server.
func durableRedis(t *testing.T) (*ownRedis, func() *exec.Cmd) {
	r := startOwnRedis(t, 0)
	r.kill()
	dir := t.TempDir()
	return r, func() *exec.Cmd {
		bin, _ := exec.LookPath("redis-server")
		cmd := exec.Command(bin, "--port", fmt.Sprint(r.port), "--bind", "127.0.0.1", "--save", "",
			"--appendonly", "yes", "--appendfsync", "always", "--dir", dir)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// A paused server must be let go on before it can be killed.
		t.Cleanup(func() { cmd.Process.Signal(syscall.SIGCONT); cmd.Process.Kill(); cmd.Wait() })
		return cmd
	}
}

// redisReplica serves every twin on the Redis at url, for one team.
func redisReplica(t *testing.T, url, team, key string) *httptest.Server {
	c, err := session.OpenRedis(url)
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

func waitPort(t *testing.T, port int) {
	t.Helper()
	for i := 0; i < 200; i++ {
		if c, err := (&http.Client{Timeout: 100 * time.Millisecond}).Get(fmt.Sprintf("http://127.0.0.1:%d/", port)); err == nil {
			c.Body.Close()
			return
		} else if !strings.Contains(err.Error(), "refused") {
			return // something answers (Redis does not speak HTTP)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("port %d did not open", port)
}

// trafficUntil runs while writers keep going: it waits (up to 20 s) until
// cond holds, lets them go on for 300 ms more, and then tells them to stop.
// Fault tests use it so that a loaded machine stretches the traffic rather
// than ending it before the writes after a fault are acknowledged.
func trafficUntil(stop *atomic.Bool, cond func() bool) {
	for end := time.Now().Add(20 * time.Second); !cond() && time.Now().Before(end); {
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond)
	stop.Store(true)
}

// waitFor polls cond every 20 ms for up to 10 s.
func waitFor(cond func() bool) {
	for end := time.Now().Add(10 * time.Second); !cond() && time.Now().Before(end); {
		time.Sleep(20 * time.Millisecond)
	}
}
