package session_test

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pomehq/pome/session"
	"github.com/pomehq/pome/session/storetest"
	"github.com/pomehq/pome/tape"
)

// replyCutter is a TCP proxy to Redis that, once armed with a marker, lets
// the first command carrying it through to Redis and then cuts the
// client's connection before the reply comes back: the command ran, and
// its sender only sees the connection drop, as when Redis restarts or the
// network breaks at the wrong moment. go-redis then sends it again.
type replyCutter struct {
	target string
	ln     net.Listener
	marker atomic.Pointer[[]byte]
	cuts   atomic.Int32
	wg     sync.WaitGroup
}

func newReplyCutter(t *testing.T, target string) *replyCutter {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &replyCutter{target: target, ln: ln}
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(func() { ln.Close(); p.wg.Wait() })
	return p
}

func (p *replyCutter) arm(marker string) {
	m := []byte(marker)
	p.marker.Store(&m)
}

func (p *replyCutter) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.wg.Add(1)
		go p.serve(c)
	}
}

func (p *replyCutter) serve(c net.Conn) {
	defer p.wg.Done()
	defer c.Close()
	r, err := net.Dial("tcp", p.target)
	if err != nil {
		return
	}
	defer r.Close()
	var cut atomic.Bool
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 64<<10)
		for {
			n, err := r.Read(buf)
			if n > 0 && !cut.Load() {
				if _, werr := c.Write(buf[:n]); werr != nil {
					return
				}
			}
			if err != nil {
				return
			}
		}
	}()
	buf := make([]byte, 64<<10)
	for {
		n, err := c.Read(buf)
		if n > 0 {
			if m := p.marker.Load(); m != nil && bytes.Contains(buf[:n], *m) && p.marker.CompareAndSwap(m, nil) {
				// Hold the reply back, let Redis run the command, then
				// drop the client's connection.
				cut.Store(true)
				r.Write(buf[:n])
				time.Sleep(100 * time.Millisecond)
				p.cuts.Add(1)
				c.Close()
				r.Close()
				<-done
				return
			}
			if _, werr := r.Write(buf[:n]); werr != nil {
				break
			}
		}
		if err != nil {
			break
		}
	}
	r.Close()
	<-done
}

// cutterStore is a Redis store whose client reaches Redis through a
// replyCutter.
func cutterStore(t *testing.T) (*session.RedisStore, *replyCutter) {
	t.Helper()
	raw := redisURL(t)
	if strings.Contains(raw, "+cluster://") {
		// A cluster client dials the nodes the cluster names, past any
		// proxy in front of the seed node.
		t.Skip("the reply cutter proxies one Redis server, not a cluster")
	}
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	p := newReplyCutter(t, u.Host)
	u.Host = p.ln.Addr().String()
	c, err := session.OpenRedis(u.String())
	if err != nil {
		t.Fatal(err)
	}
	s := session.NewRedisStore(c, time.Now)
	t.Cleanup(func() { s.Close() })
	// The calls to cut must be the scripts' own, not a first NOSCRIPT.
	if err := s.LoadWriteScripts(context.Background()); err != nil {
		t.Fatal(err)
	}
	return s, p
}

// TestRedisLostSaveReplyAppliesOnce: a write whose save ran in Redis but
// whose reply was lost is sent again by the client; the resend must not be
// taken for a conflict, which would run the write a second time on the
// state it already changed.
func TestRedisLostSaveReplyAppliesOnce(t *testing.T) {
	for _, batched := range []bool{true, false} {
		t.Run(map[bool]string{true: "batched", false: "unbatched"}[batched], func(t *testing.T) {
			ctx := context.Background()
			s, p := cutterStore(t)
			if !batched {
				s.SetPipelineSenders(-1)
			}
			sb := createSandbox(t, s, storetest.NewTeam(), time.Hour, "alpha")
			for i, cached := range []bool{false, true} {
				if !cached {
					// Start from Redis: the write takes the lease first.
					s.DropCachedWorld(sb.ID, "alpha")
				}
				p.arm(session.SaveScriptHash())
				runs := 0
				err := s.Update(ctx, sb, storetest.Alpha, true, func(world any) (bool, error) {
					runs++
					return storetest.Increment(world)
				})
				if err != nil {
					t.Fatal(err)
				}
				if p.cuts.Load() != int32(i+1) {
					t.Fatalf("the save's reply was not cut (%d cuts)", p.cuts.Load())
				}
				if w := worldOf(t, s, sb, "alpha"); w.Counter != i+1 || runs != 1 {
					t.Fatalf("cached=%v: counter %d after %d writes, fn ran %d times", cached, w.Counter, i+1, runs)
				}
			}
		})
	}
}

// TestRedisLostAppendReplyAppendsOnce: an append whose reply was lost is
// sent again, by the client and then by Record's own retries; the tape
// must still hold the call once.
func TestRedisLostAppendReplyAppendsOnce(t *testing.T) {
	ctx := context.Background()
	s, p := cutterStore(t)
	sb := createSandbox(t, s, storetest.NewTeam(), time.Hour, "alpha")
	m := &session.Manager{Store: s}
	for i := range 3 {
		p.arm(session.AppendScriptHash())
		row := &tape.Row{At: time.Now(), Twin: "alpha", Transport: tape.TransportREST, Method: "POST", Path: "/x", Status: 200}
		if err := m.Record(ctx, sb, row); err != nil {
			t.Fatal(err)
		}
		if row.Seq != int64(i+1) {
			t.Errorf("row %d got seq %d", i+1, row.Seq)
		}
	}
	if p.cuts.Load() != 3 {
		t.Fatalf("%d appends cut, want 3", p.cuts.Load())
	}
	rows, err := s.Tape(ctx, sb, "alpha", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 {
		t.Fatalf("tape holds %d rows after 3 calls", len(rows))
	}
	stored, total, err := s.TapeLen(ctx, sb, "alpha")
	if err != nil || stored != 3 || total != 3 {
		t.Fatalf("tape length %d, %d calls counted (%v), want 3 and 3", stored, total, err)
	}
}

// TestRedisLostSpeculativeAppendReplyAppendsOnce: the append of a
// speculative read, resent after its reply was lost, finds the record and
// version unchanged, as the first time; it must still not store the row
// twice.
func TestRedisLostSpeculativeAppendReplyAppendsOnce(t *testing.T) {
	ctx := context.Background()
	s, p := cutterStore(t)
	sb := createSandbox(t, s, storetest.NewTeam(), time.Hour, "alpha")
	if _, err := readWorld(t, s, authorize(t, s, sb)); err != nil { // caches both
		t.Fatal(err)
	}
	call := authorizeRead(t, s, sb)
	if !call.Speculative() {
		t.Fatal("not speculative with the record and the world cached")
	}
	p.arm(session.AppendCheckedScriptHash())
	m := &session.Manager{Store: s}
	row := &tape.Row{At: time.Now(), Twin: "alpha", Transport: tape.TransportREST, Method: "GET", Path: "/x", Status: 200}
	if err := m.Record(ctx, call, row); err != nil || row.Seq != 1 {
		t.Fatalf("record = seq %d, %v", row.Seq, err)
	}
	if p.cuts.Load() != 1 {
		t.Fatal("the append's reply was not cut")
	}
	if stored, total := tapeLen(t, s, sb); stored != 1 || total != 1 {
		t.Fatalf("tape length %d, %d calls counted, want 1 and 1", stored, total)
	}
}

// TestRedisRecentCallsStayBounded: the ids kept to recognise resends are
// the latest ones, well formed, within their bounds: the last 8 saves in
// one list, the last 32 taped calls in the state's ring of fields (a seq
// under each "c:ID", the id under "r:" and the seq modulo 32).
func TestRedisRecentCallsStayBounded(t *testing.T) {
	ctx := context.Background()
	s := newRedis(t, time.Now)
	raw := newRedisClient(t)
	defer raw.Close()
	sb := createSandbox(t, s, storetest.NewTeam(), time.Hour, "alpha")
	m := &session.Manager{Store: s}
	for range 100 {
		if err := m.Record(ctx, sb, &tape.Row{At: time.Now(), Twin: "alpha", Transport: tape.TransportREST, Method: "GET", Path: "/x", Status: 200}); err != nil {
			t.Fatal(err)
		}
		if err := s.Update(ctx, sb, storetest.Alpha, true, storetest.Increment); err != nil {
			t.Fatal(err)
		}
	}
	state, err := raw.HGetAll(ctx, session.StateKey(sb.ID, "alpha")).Result()
	if err != nil {
		t.Fatal(err)
	}
	list := state["saves"]
	if len(list) != 240 {
		t.Errorf("saves: %d bytes kept, want 240", len(list))
	}
	if !regexp.MustCompile(`^(,[0-9A-Za-z]{16}=[0-9]{12})+$`).MatchString(list) {
		t.Errorf("saves: malformed list %q", list)
	}
	if !strings.Contains(list[:31], "=000000000101,") {
		t.Errorf("saves: newest entry is not first: %.40q", list)
	}
	if _, ok := state["calls"]; ok {
		t.Error("taped calls kept in a list too")
	}
	id := regexp.MustCompile(`^[0-9A-Za-z]{16}$`)
	seqs := map[int]string{} // seq -> id, from the "c:" fields
	ring := map[int]string{} // slot -> id, from the "r:" fields
	for f, v := range state {
		switch {
		case strings.HasPrefix(f, "c:"):
			n, err := strconv.Atoi(v)
			if err != nil || !id.MatchString(f[2:]) {
				t.Fatalf("malformed call field %q = %q", f, v)
			}
			seqs[n] = f[2:]
		case strings.HasPrefix(f, "r:"):
			n, err := strconv.Atoi(f[2:])
			if err != nil || n < 0 || n >= 32 || !id.MatchString(v) {
				t.Fatalf("malformed ring field %q = %q", f, v)
			}
			ring[n] = v
		}
	}
	if len(seqs) != 32 || len(ring) != 32 {
		t.Fatalf("%d calls and %d ring slots kept, want 32 and 32", len(seqs), len(ring))
	}
	for seq := 69; seq <= 100; seq++ {
		if seqs[seq] == "" || ring[seq%32] != seqs[seq] {
			t.Errorf("call %d: kept as %q, its ring slot names %q", seq, seqs[seq], ring[seq%32])
		}
	}
}

// TestRedisLostCreateReplyCreatesOnce: a create whose scripts ran but whose
// replies were lost is sent again; it must succeed, once, and be counted
// once against the team's quota and usage.
func TestRedisLostCreateReplyCreatesOnce(t *testing.T) {
	ctx := context.Background()
	for _, script := range []string{"create", "quota"} {
		t.Run(script, func(t *testing.T) {
			s, p := cutterStore(t)
			team := storetest.NewTeam()
			p.arm(map[string]string{"create": session.CreateScriptHash(), "quota": session.QuotaScriptHash()}[script])
			sb := storetest.NewSandbox(team, time.Now(), time.Hour, "alpha")
			if err := s.Create(ctx, sb, storetest.SeedWorlds(t, "alpha"), 1); err != nil {
				t.Fatalf("create, its reply lost once: %v", err)
			}
			if p.cuts.Load() != 1 {
				t.Fatal("the script's reply was not cut")
			}
			u, err := s.Usage(ctx, team)
			if err != nil {
				t.Fatal(err)
			}
			if u.SandboxesCreated != 1 || u.SandboxesOpen != 1 || u.TwinsStarted != 1 {
				t.Errorf("usage after one create: %+v", u)
			}
			list, err := s.List(ctx, team)
			if err != nil || len(list) != 1 {
				t.Errorf("list after one create: %d sandboxes, %v", len(list), err)
			}
			// A different sandbox under the same id is still refused.
			other := storetest.NewSandbox(team, time.Now(), time.Hour, "alpha")
			other.ID = sb.ID
			if err := s.Create(ctx, other, storetest.SeedWorlds(t, "alpha"), 0); !errors.Is(err, session.ErrExists) {
				t.Errorf("create over a taken id = %v, want ErrExists", err)
			}
		})
	}
}

// TestRedisLostStopReplyStopsOnce: a Stop whose reply was lost, sent again,
// must still finish: the sandbox leaves the team's open set and the index
// says stopped.
func TestRedisLostStopReplyStopsOnce(t *testing.T) {
	ctx := context.Background()
	s, p := cutterStore(t)
	team := storetest.NewTeam()
	sb := createSandbox(t, s, team, time.Hour, "alpha")
	p.arm(session.StopScriptHash())
	now := time.Now()
	got, err := s.Stop(ctx, sb.ID, now, now.Add(time.Hour))
	if err != nil || got.State != session.StateStopped {
		t.Fatalf("stop = %v, %v", got, err)
	}
	if p.cuts.Load() != 1 {
		t.Fatal("the stop's reply was not cut")
	}
	u, err := s.Usage(ctx, team)
	if err != nil || u.SandboxesOpen != 0 {
		t.Errorf("open sandboxes after the stop: %+v, %v", u, err)
	}
	list, err := s.List(ctx, team)
	if err != nil || len(list) != 1 || list[0].State != session.StateStopped {
		t.Fatalf("list after the stop: %+v, %v", list, err)
	}
}

// TestRedisLostLeaseReplyIsNotWaitedOut: a lease taken by a script whose
// reply was lost is the writer's own when the script is sent again; the
// write goes on at once instead of waiting for the lease to lapse.
func TestRedisLostLeaseReplyIsNotWaitedOut(t *testing.T) {
	ctx := context.Background()
	s, p := cutterStore(t)
	s.SetPipelineSenders(-1)
	sb := createSandbox(t, s, storetest.NewTeam(), time.Hour, "alpha")
	s.DropCachedWorld(sb.ID, "alpha")
	p.arm(session.LockReadScriptHash())
	start := time.Now()
	if err := s.Update(ctx, sb, storetest.Alpha, true, storetest.Increment); err != nil {
		t.Fatal(err)
	}
	if p.cuts.Load() != 1 {
		t.Fatal("the lease script's reply was not cut")
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("the write took %v: it waited out its own lease", took)
	}
	if w := worldOf(t, s, sb, "alpha"); w.Counter != 1 {
		t.Errorf("counter %d, want 1", w.Counter)
	}
}
