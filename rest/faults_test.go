package rest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pomehq/pome/rest"
	"github.com/pomehq/pome/session"
	"github.com/pomehq/pome/twins/all"
)

// ownRedis is a redis-server this test started on a free loopback port,
// never the shared one: the fault tests stop and kill it.
type ownRedis struct {
	port int
	cmd  *exec.Cmd
}

func startOwnRedis(t *testing.T, port int) *ownRedis {
	t.Helper()
	if os.Getenv("POME_TEST_REDIS_URL") == "" {
		t.Skip("POME_TEST_REDIS_URL not set")
	}
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server not installed")
	}
	if port == 0 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port = ln.Addr().(*net.TCPAddr).Port
		ln.Close()
	}
	cmd := exec.Command(bin, "--port", fmt.Sprint(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", t.TempDir())
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := &ownRedis{port: port, cmd: cmd}
	t.Cleanup(r.kill)
	for i := 0; i < 100; i++ {
		if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
			c.Close()
			return r
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("own redis-server did not start")
	return nil
}

func (r *ownRedis) kill() {
	if r.cmd.Process != nil {
		r.cmd.Process.Kill()
		r.cmd.Wait()
	}
}

// url names the instance with short client timeouts, so that an outage
// fails requests fast instead of holding them for go-redis's defaults.
func (r *ownRedis) url() string {
	return fmt.Sprintf("redis://127.0.0.1:%d/0?dial_timeout=200ms&read_timeout=200ms&write_timeout=200ms&max_retries=1", r.port)
}

func (r *ownRedis) server(t *testing.T, key, team string) (string, func()) {
	t.Helper()
	c, err := session.OpenRedis(r.url())
	if err != nil {
		t.Fatal(err)
	}
	store := session.NewRedisStore(c, nil)
	teams, _ := session.NewTeams(map[string][]string{team: {key}})
	srv := rest.NewServer(rest.Config{}, all.Registry(), store, teams)
	hs := newLoopbackServer(t, srv)
	return hs.URL, func() { hs.Close(); store.Close() }
}

func timed(t *testing.T, method, url string, hdr map[string]string, body string) (int, []byte, time.Duration) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	client := &http.Client{Timeout: 10 * time.Second}
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v after %v", method, url, err, time.Since(start))
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b, time.Since(start)
}

// TestRedisFaults: a server restart loses no sandbox, state or tape; while
// Redis hangs (SIGSTOP) or is gone (killed), requests fail fast with 503,
// never a hang or a misleading 404; when Redis answers again, service
// resumes by itself, and every write acknowledged before the fault is
// still there.
func TestRedisFaults(t *testing.T) {
	r := startOwnRedis(t, 0)
	key, team := session.NewAPIKey(), "faults-"+session.NewRequestID()
	url1, stop1 := r.server(t, key, team)
	ctl := map[string]string{"Authorization": "Bearer " + key, "Content-Type": "application/json"}
	st, b, _ := timed(t, "POST", url1+"/v1/sandboxes", ctl, `{"twins":["github"]}`)
	if st != 201 {
		t.Fatalf("%d %s", st, b)
	}
	var c session.Created
	json.Unmarshal(b, &c)
	tok := c.ProviderCredentials["github"].Token
	path := "/github/s/" + c.SessionID + "/repos/acme/api/issues"
	var acked []string
	for i := 0; i < 10; i++ {
		st, b, _ := timed(t, "POST", url1+path, jsonBody(tok), fmt.Sprintf(`{"title":"before restart %d"}`, i))
		if st != 201 {
			t.Fatalf("%d %s", st, b)
		}
		acked = append(acked, fmt.Sprintf("before restart %d", i))
	}
	stop1()

	// A new process on the same Redis serves the same sandbox.
	url2, stop2 := r.server(t, key, team)
	defer stop2()
	checkAcked := func(url string) {
		t.Helper()
		st, b, _ := timed(t, "GET", url+"/v1/sandboxes/"+c.SessionID+"/state/github", ctl, "")
		if st != 200 {
			t.Fatalf("state: %d %s", st, b)
		}
		for _, title := range acked {
			if !strings.Contains(string(b), title) {
				t.Fatalf("acknowledged write %q lost", title)
			}
		}
		st, b, _ = timed(t, "GET", url+"/v1/sandboxes/"+c.SessionID+"/tapes/github", ctl, "")
		if st != 200 || strings.Count(string(b), `"state_mutation":true`) != len(acked) {
			t.Fatalf("tape after restart: %d, %d mutating rows, want %d", st, strings.Count(string(b), `"state_mutation":true`), len(acked))
		}
	}
	checkAcked(url2)

	outage := func(what string) {
		t.Helper()
		for _, q := range []struct{ method, url, body string }{
			{"POST", url2 + path, `{"title":"during outage"}`},
			{"GET", url2 + "/github/s/" + c.SessionID + "/repos/acme/api/issues/1", ""},
			{"POST", url2 + "/github/s/" + c.SessionID + "/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`},
			{"GET", url2 + "/v1/sandboxes/" + c.SessionID, ""},
			{"POST", url2 + "/v1/sandboxes", `{"twins":["slack"]}`},
			{"GET", url2 + "/readyz", ""},
		} {
			hdr := jsonBody(tok)
			hdr["Accept"] = "application/json, text/event-stream"
			if strings.Contains(q.url, "/v1/") {
				hdr = ctl
			}
			st, b, d := timed(t, q.method, q.url, hdr, q.body)
			if st != http.StatusServiceUnavailable || d > 3*time.Second {
				t.Errorf("%s: %s %s: %d after %v: %.200s", what, q.method, q.url, st, d, b)
			}
		}
	}
	// Redis hangs: connections open, nothing answers.
	r.cmd.Process.Signal(syscall.SIGSTOP)
	outage("redis stopped")
	r.cmd.Process.Signal(syscall.SIGCONT)
	waitReady(t, url2)
	checkAcked(url2)
	st, b, _ = timed(t, "POST", url2+path, jsonBody(tok), `{"title":"after the outage"}`)
	if st != 201 {
		t.Fatalf("after the outage: %d %s", st, b)
	}
	acked = append(acked, "after the outage")
	checkAcked(url2)
	// The refused writes left nothing behind.
	if st, b, _ := timed(t, "GET", url2+"/v1/sandboxes/"+c.SessionID+"/state/github", ctl, ""); st != 200 || strings.Contains(string(b), "during outage") {
		t.Fatalf("a write refused during the outage is visible: %d", st)
	}

	// Redis is gone: connections refused. It comes back empty (it keeps
	// nothing on disk), and service resumes for new sandboxes.
	port := r.port
	r.kill()
	outage("redis killed")
	startOwnRedis(t, port)
	waitReady(t, url2)
	if st, b, _ := timed(t, "POST", url2+"/v1/sandboxes", ctl, `{"twins":["slack"]}`); st != 201 {
		t.Fatalf("create after Redis returned: %d %s", st, b)
	}
}

func waitReady(t *testing.T, url string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if st, _, _ := timed(t, "GET", url+"/readyz", nil, ""); st == 200 {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("server not ready after Redis returned")
}

// TestGracefulShutdownDrains: cancelling rest.Run's context lets a request
// that is already in flight finish with its answer, while new connections
// are refused.
func TestGracefulShutdownDrains(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	key := session.NewAPIKey()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- rest.Run(ctx, rest.Config{Addr: addr, Registry: all.Registry(), Teams: map[string][]string{"drain": {key}}}, io.Discard)
	}()
	base := "http://" + addr
	for i := 0; ; i++ {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			break
		}
		if i > 200 {
			t.Fatal("server did not start")
		}
		time.Sleep(10 * time.Millisecond)
	}
	ctl := map[string]string{"Authorization": "Bearer " + key, "Content-Type": "application/json"}
	st, b, _ := timed(t, "POST", base+"/v1/sandboxes", ctl, `{"twins":["github"]}`)
	if st != 201 {
		t.Fatalf("%d %s", st, b)
	}
	var c session.Created
	json.Unmarshal(b, &c)

	// A request whose body is still arriving when shutdown begins.
	pr, pw := io.Pipe()
	req, _ := http.NewRequest("POST", base+"/github/s/"+c.SessionID+"/repos/acme/api/issues", pr)
	req.Header.Set("Authorization", "Bearer "+c.ProviderCredentials["github"].Token)
	req.Header.Set("Content-Type", "application/json")
	type result struct {
		status int
		err    error
	}
	res := make(chan result, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			res <- result{0, err}
			return
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		res <- result{resp.StatusCode, nil}
	}()
	pw.Write([]byte(`{"title":"in fl`))
	time.Sleep(100 * time.Millisecond)
	cancel()
	time.Sleep(200 * time.Millisecond)
	// New connections are refused once shutdown began.
	if _, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		t.Errorf("server still accepts connections during shutdown")
	}
	pw.Write([]byte(`ight"}`))
	pw.Close()
	select {
	case r := <-res:
		if r.err != nil || r.status != 201 {
			t.Fatalf("in-flight request: %d %v", r.status, r.err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("in-flight request never answered")
	}
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
}
