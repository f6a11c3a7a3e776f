package load

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// loopServer answers /r/<i>: by length, by chunks (i%5 == 1), closing the
// connection (i%5 == 2) or with 204 (i%5 == 3), and the others with 500
// when fail is set. It records when each request arrived, how many
// connections it saw and the most requests in flight at once.
type loopServer struct {
	*httptest.Server
	mu       sync.Mutex
	arrived  map[int]time.Time
	conns    atomic.Int32
	inflight atomic.Int32
	peak     atomic.Int32
	delay    time.Duration
	fail     atomic.Bool
}

func newLoopServer(t *testing.T, delay time.Duration) *loopServer {
	s := &loopServer{arrived: map[int]time.Time{}, delay: delay}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		now := time.Now()
		n := s.inflight.Add(1)
		defer s.inflight.Add(-1)
		for p := s.peak.Load(); n > p && !s.peak.CompareAndSwap(p, n); p = s.peak.Load() {
		}
		i, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/r/"))
		s.mu.Lock()
		s.arrived[i] = now
		s.mu.Unlock()
		time.Sleep(s.delay)
		if s.fail.Load() {
			w.WriteHeader(500)
			return
		}
		body := []byte("answer " + strconv.Itoa(i))
		switch i % 5 {
		case 1:
			w.Write(body[:3])
			w.(http.Flusher).Flush()
			w.Write(body[3:])
		case 2:
			w.Header().Set("Connection", "close")
			w.Write(body)
		case 3:
			w.WriteHeader(http.StatusNoContent)
		default:
			w.Write(body)
		}
	}))
	s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.conns.Add(1)
		}
	}
	s.Start()
	t.Cleanup(s.Close)
	return s
}

// loopRequests formats n requests, request i for /r/i.
func loopRequests(t *testing.T, url string, n int) []RawRequest {
	reqs := make([]RawRequest, n)
	for i := range reqs {
		tg, err := NewTarget(fmt.Sprintf("%s/r/%d", url, i), "Bearer tok")
		if err != nil {
			t.Fatal(err)
		}
		if reqs[i], err = FormatRaw(Call{Method: http.MethodGet}, tg); err != nil {
			t.Fatal(err)
		}
	}
	return reqs
}

// checkLoopAnswer wants each request's own answer.
func checkLoopAnswer(status int, body []byte) error {
	if status == http.StatusNoContent && len(body) == 0 {
		return nil
	}
	if status != 200 || !strings.HasPrefix(string(body), "answer ") {
		return fmt.Errorf("%d %q", status, body)
	}
	return nil
}

// TestLoopClient: every request goes out no earlier than it is due, on one
// of the client's connections (a new one only after the server closed
// one), its answer is read whatever its framing, and the run counts each
// once.
func TestLoopClient(t *testing.T) {
	srv := newLoopServer(t, 0)
	const n, conns = 200, 8
	lc, err := NewLoopClient(conns, loopRequests(t, srv.URL, n))
	if err != nil {
		t.Fatal(err)
	}
	defer lc.Close()
	// The server sees them as it accepts them.
	for end := time.Now().Add(5 * time.Second); srv.conns.Load() < conns && time.Now().Before(end); {
		time.Sleep(time.Millisecond)
	}
	if got := srv.conns.Load(); got != conns {
		t.Fatalf("%d connections opened before the run, want %d", got, conns)
	}
	sched, _ := NewSchedule(time.Now().Add(5*time.Millisecond), 2000, n*time.Second/2000)
	sched.SlowOver = 5 * time.Millisecond
	res := lc.Run(context.Background(), sched, checkLoopAnswer)
	if res.Offered != n || res.Completed != n || res.Errors != 0 || res.Cut {
		t.Fatalf("offered %d completed %d errors %d (%s) cut %v", res.Offered, res.Completed, res.Errors, res.ErrorSample, res.Cut)
	}
	if res.Latency.Count() != n || res.StartLag.Count() != n || res.Elapsed < sched.Due(n-1).Sub(sched.Start) || res.Stalls == nil {
		t.Fatalf("latencies %d, lags %d, elapsed %s, stalls %v", res.Latency.Count(), res.StartLag.Count(), res.Elapsed, res.Stalls)
	}
	srv.mu.Lock()
	for i := range n {
		at, ok := srv.arrived[i]
		if !ok {
			t.Errorf("request %d never arrived", i)
		} else if due := sched.Due(int64(i)); at.Before(due) {
			t.Errorf("request %d arrived %s before it was due", i, due.Sub(at))
		}
	}
	srv.mu.Unlock()
	// A new connection for each answer that closed its own (i%5 == 2),
	// when that connection was needed again: at most one each, and all
	// but the last of each connection's.
	if got := srv.conns.Load(); got > conns+n/5 || got < n/5 {
		t.Errorf("%d connections, want %d to %d", got, n/5, conns+n/5)
	}
	// The client keeps its connections for the next run.
	res = lc.Run(context.Background(), sched.shifted(time.Now()), checkLoopAnswer)
	if res.Completed != n || res.Errors != 0 {
		t.Fatalf("second run: completed %d errors %d (%s)", res.Completed, res.Errors, res.ErrorSample)
	}
}

// shifted is s starting at t.
func (s Schedule) shifted(t time.Time) Schedule {
	s.Start = t
	return s
}

// TestLoopClientBoundsInFlight: with the server slower than the rate, no
// more requests are in flight than the client has connections, and those
// that waited for one count as sent late, their latency from their due
// time.
func TestLoopClientBoundsInFlight(t *testing.T) {
	srv := newLoopServer(t, 20*time.Millisecond)
	const n, conns = 40, 2
	lc, err := NewLoopClient(conns, loopRequests(t, srv.URL, n))
	if err != nil {
		t.Fatal(err)
	}
	defer lc.Close()
	sched, _ := NewSchedule(time.Now(), 1000, n*time.Millisecond)
	res := lc.Run(context.Background(), sched, checkLoopAnswer)
	if res.Completed != n || res.Errors != 0 {
		t.Fatalf("completed %d errors %d (%s)", res.Completed, res.Errors, res.ErrorSample)
	}
	if p := srv.peak.Load(); p > conns {
		t.Errorf("%d requests in flight at once on %d connections", p, conns)
	}
	// 40 requests in 40 ms, two at a time each taking 20 ms: most wait.
	if res.Late < n/2 || res.Latency.Max() < 300*time.Millisecond {
		t.Errorf("late %d, slowest %s: the wait for a connection is not counted", res.Late, res.Latency.Max())
	}
}

// TestLoopClientErrors: wrong answers count as errors, a run cut by its
// context leaves its requests unanswered and the next run starts on fresh
// connections, and a server that cannot be reached fails the client at
// once.
func TestLoopClientErrors(t *testing.T) {
	srv := newLoopServer(t, 0)
	srv.fail.Store(true)
	lc, err := NewLoopClient(4, loopRequests(t, srv.URL, 10))
	if err != nil {
		t.Fatal(err)
	}
	defer lc.Close()
	sched, _ := NewSchedule(time.Now(), 1000, 10*time.Millisecond)
	res := lc.Run(context.Background(), sched, checkLoopAnswer)
	if res.Errors != 10 || res.Completed != 0 || !strings.Contains(res.ErrorSample, "500") {
		t.Fatalf("errors %d completed %d sample %q", res.Errors, res.Completed, res.ErrorSample)
	}

	// A server that answers nothing: the run ends on its context.
	hang := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-hang:
		case <-r.Context().Done():
		}
	}))
	defer slow.Close()
	defer close(hang)
	lc2, err := NewLoopClient(4, loopRequests(t, slow.URL, 1))
	if err != nil {
		t.Fatal(err)
	}
	defer lc2.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	sched, _ = NewSchedule(time.Now(), 1000, 10*time.Millisecond)
	res = lc2.Run(ctx, sched, checkLoopAnswer)
	cancel()
	if !res.Cut || res.Completed != 0 || res.Errors != 0 {
		t.Fatalf("cut %v completed %d errors %d", res.Cut, res.Completed, res.Errors)
	}
	// Its connections were closed with their requests unanswered: a
	// server answering again is reached on new ones.
	hangOnce := lc2.l
	for k := range hangOnce.conns {
		if st := hangOnce.conns[k].state; st != loopClosed && st != loopIdle {
			t.Errorf("connection %d left in state %d after a cut run", k, st)
		}
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	if _, err := NewLoopClient(1, []RawRequest{{Addr: addr, Bytes: []byte("GET / HTTP/1.1\r\n\r\n")}}); err == nil {
		t.Error("a client for a closed port")
	}
	if _, err := NewLoopClient(1, []RawRequest{{Addr: addr}, {Addr: "127.0.0.1:1"}}); err == nil {
		t.Error("a client for two addresses")
	}
}

// TestLoopClientServerCloses: a server that closes the connection in the
// middle of an answer, or closes idle connections, costs that request an
// error and nothing else.
func TestLoopClientServerCloses(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var served atomic.Int32
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				buf := make([]byte, 4096)
				for {
					if _, err := conn.Read(buf); err != nil {
						return
					}
					k := served.Add(1)
					if k%4 == 0 {
						// Half an answer, then gone.
						io.WriteString(conn, "HTTP/1.1 200 OK\r\nContent-Length: 20\r\n\r\nanswer")
						return
					}
					io.WriteString(conn, "HTTP/1.1 200 OK\r\nContent-Length: 8\r\n\r\nanswer 1")
				}
			}()
		}
	}()
	req := RawRequest{Addr: ln.Addr().String(), Bytes: []byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n")}
	lc, err := NewLoopClient(2, []RawRequest{req})
	if err != nil {
		t.Fatal(err)
	}
	defer lc.Close()
	sched, _ := NewSchedule(time.Now(), 2000, 20*time.Millisecond)
	res := lc.Run(context.Background(), sched, checkLoopAnswer)
	if res.Completed+res.Errors != 40 || res.Errors != 10 || !strings.Contains(res.ErrorSample, "middle of an answer") {
		t.Fatalf("completed %d errors %d (%s)", res.Completed, res.Errors, res.ErrorSample)
	}
}
