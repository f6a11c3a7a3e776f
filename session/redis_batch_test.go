package session_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/pomehq/pome/session"
	"github.com/pomehq/pome/session/storetest"
)

// TestRedisStoreUnbatched runs the conformance suite with batching off,
// the comparison mode SetPipelineSenders(-1) keeps.
func TestRedisStoreUnbatched(t *testing.T) {
	redisURL(t)
	storetest.Run(t, func(t *testing.T, now func() time.Time) session.Store {
		s := newRedis(t, now)
		s.SetPipelineSenders(-1)
		return s
	})
}

// occupy keeps the store's (single) batch sender busy for about d with a
// blocking command, so that the commands queued meanwhile go out together
// in the next batch. It returns once the blocker is on the wire; wait
// returns once its batch is answered.
func occupy(t *testing.T, s *session.RedisStore, d time.Duration) (wait func()) {
	t.Helper()
	before, _ := s.PipelineStats()
	done := make(chan struct{})
	go func() {
		defer close(done)
		key := "pome:test:{block}:" + session.NewRequestID()
		cmd := redis.NewStringSliceCmd(context.Background(), "blpop", key, fmt.Sprintf("%.3f", d.Seconds()))
		if err := s.Pipe(context.Background(), cmd); err != nil || !errors.Is(cmd.Err(), redis.Nil) {
			t.Errorf("blocker: %v, %v", err, cmd.Err())
		}
	}()
	waitFor(t, "the blocker to be sent", func() bool { b, _ := s.PipelineStats(); return b > before })
	return func() { <-done }
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestRedisBatchGroupsCallers: the commands of callers that arrive while a
// batch is on the wire go out together in the next one, and each caller
// gets its own answers.
func TestRedisBatchGroupsCallers(t *testing.T) {
	ctx := context.Background()
	s := newRedis(t, time.Now)
	s.SetPipelineSenders(1)
	sb := createSandbox(t, s, storetest.NewTeam(), time.Hour, "alpha")

	blocked := occupy(t, s, 500*time.Millisecond)
	b0, c0 := s.PipelineStats()
	const callers = 20
	var wg sync.WaitGroup
	seqs := make([]int64, callers)
	for i := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i%2 == 0 {
				got, err := s.GetForTwin(ctx, sb.ID, "alpha")
				if err != nil || got.ID != sb.ID {
					t.Errorf("GetForTwin = %v, %v", got, err)
				}
				return
			}
			seq, err := s.Append(ctx, sb, storetest.NewRow(sb, "alpha", fmt.Sprintf("/%d", i)))
			if err != nil {
				t.Errorf("Append: %v", err)
			}
			seqs[i] = seq
		}()
	}
	waitFor(t, "the callers to queue", func() bool { return s.PipelineQueued() == callers })
	blocked()
	wg.Wait()
	if b, c := s.PipelineStats(); b-b0 != 1 || c-c0 != callers/2*2+callers/2 {
		t.Errorf("%d callers went out in %d batches of %d commands, want 1 of %d", callers, b-b0, c-c0, callers/2*3)
	}
	// The appends of the batch took seqs 1..10, each its own.
	seen := map[int64]bool{}
	for i := 1; i < callers; i += 2 {
		if seqs[i] < 1 || seqs[i] > callers/2 || seen[seqs[i]] {
			t.Errorf("seqs %v", seqs)
			break
		}
		seen[seqs[i]] = true
	}
}

// TestRedisBatchConcurrentCalls: many callers making the read path's
// calls at once share round trips, and the tape stays gap-free.
func TestRedisBatchConcurrentCalls(t *testing.T) {
	ctx := context.Background()
	s := newRedis(t, time.Now)
	sb := createSandbox(t, s, storetest.NewTeam(), time.Hour, "alpha")
	const callers, calls = 64, 30
	var wg sync.WaitGroup
	b0, _ := s.PipelineStats()
	for range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range calls {
				call, err := s.GetForTwin(ctx, sb.ID, "alpha")
				if err == nil {
					_, err = readWorld(t, s, call)
				}
				if err == nil {
					_, err = s.Append(ctx, call, storetest.NewRow(call, "alpha", "/x"))
				}
				if err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	batches, _ := s.PipelineStats()
	batches -= b0
	t.Logf("%d calls in %d batches", callers*calls*2, batches)
	if batches >= callers*calls*2 {
		t.Errorf("%d round trips for %d calls: nothing was batched", batches, callers*calls*2)
	}
	rows, err := s.Tape(ctx, sb, "alpha", 0, 0)
	if err != nil || len(rows) != callers*calls {
		t.Fatalf("tape: %d rows, %v", len(rows), err)
	}
	for i, r := range rows {
		if r.Seq != int64(i+1) {
			t.Fatalf("row %d has seq %d", i, r.Seq)
		}
	}
}

// TestRedisBatchErrorsPerCommand: in one batch, each command keeps its own
// answer, error or not.
func TestRedisBatchErrorsPerCommand(t *testing.T) {
	ctx := context.Background()
	s := newRedis(t, time.Now)
	s.SetPipelineSenders(1)
	live := createSandbox(t, s, storetest.NewTeam(), time.Hour, "alpha")
	gone := createSandbox(t, s, storetest.NewTeam(), time.Hour, "alpha")
	if err := s.Discard(ctx, gone.ID); err != nil {
		t.Fatal(err)
	}
	word := "pome:test:{word}:" + session.NewRequestID()
	c := newRedisClient(t)
	defer c.Close()
	if err := c.Set(ctx, word, "not a number", time.Minute).Err(); err != nil {
		t.Fatal(err)
	}

	blocked := occupy(t, s, 300*time.Millisecond)
	b0, _ := s.PipelineStats()
	var wg sync.WaitGroup
	run := func(f func()) {
		wg.Add(1)
		go func() { defer wg.Done(); f() }()
	}
	run(func() {
		if seq, err := s.Append(ctx, live, storetest.NewRow(live, "alpha", "/a")); err != nil || seq != 1 {
			t.Errorf("Append on a live sandbox = %d, %v", seq, err)
		}
	})
	run(func() {
		if _, err := s.Append(ctx, gone, storetest.NewRow(gone, "alpha", "/a")); !errors.Is(err, session.ErrNotFound) {
			t.Errorf("Append on a discarded sandbox = %v, want ErrNotFound", err)
		}
	})
	run(func() {
		if _, err := s.GetForTwin(ctx, gone.ID, "alpha"); !errors.Is(err, session.ErrNotFound) {
			t.Errorf("GetForTwin of a discarded sandbox = %v, want ErrNotFound", err)
		}
	})
	run(func() {
		cmd := redis.NewIntCmd(ctx, "incr", word)
		if err := s.Pipe(ctx, cmd); err != nil || cmd.Err() == nil || !strings.Contains(cmd.Err().Error(), "not an integer") {
			t.Errorf("INCR of a word = %v, %v", err, cmd.Err())
		}
	})
	run(func() {
		cmd := redis.NewStringCmd(ctx, "get", word)
		if err := s.Pipe(ctx, cmd); err != nil || cmd.Val() != "not a number" {
			t.Errorf("GET = %q, %v, %v", cmd.Val(), err, cmd.Err())
		}
	})
	waitFor(t, "the callers to queue", func() bool { return s.PipelineQueued() == 5 })
	blocked()
	wg.Wait()
	if b, _ := s.PipelineStats(); b-b0 != 1 {
		t.Errorf("%d batches, want the 5 callers in 1", b-b0)
	}
}

// TestRedisBatchNoScript: once Redis lost its scripts (a restart, SCRIPT
// FLUSH), the batched scripts load them again and answer as before.
func TestRedisBatchNoScript(t *testing.T) {
	ctx := context.Background()
	s := newRedis(t, time.Now)
	other := newRedis(t, time.Now) // a replica with nothing cached
	sb := createSandbox(t, s, storetest.NewTeam(), time.Hour, "alpha")
	c := newRedisClient(t)
	defer c.Close()
	flush := func() {
		t.Helper()
		if err := c.ScriptFlush(ctx).Err(); err != nil {
			t.Fatal(err)
		}
	}
	for round := 1; round <= 2; round++ {
		flush()
		if seq, err := s.Append(ctx, sb, storetest.NewRow(sb, "alpha", "/a")); err != nil || seq != int64(round) {
			t.Fatalf("round %d: Append after SCRIPT FLUSH = %d, %v", round, seq, err)
		}
		flush()
		// A write from the cached world saves with saveScript alone.
		if err := s.Update(ctx, authorize(t, s, sb), storetest.Alpha, true, storetest.Increment); err != nil {
			t.Fatalf("round %d: write after SCRIPT FLUSH: %v", round, err)
		}
		flush()
		// The other replica reads with readScript.
		if w, err := readWorld(t, other, sb); err != nil || w.Counter != round {
			t.Fatalf("round %d: read after SCRIPT FLUSH = %+v, %v", round, w, err)
		}
	}
	// Many callers at once, all of them told NOSCRIPT in one batch.
	flush()
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := s.Append(ctx, sb, storetest.NewRow(sb, "alpha", "/b")); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if n, total, err := s.TapeLen(ctx, sb, "alpha"); err != nil || n != 18 || total != 18 {
		t.Errorf("TapeLen = %d, %d, %v, want 18", n, total, err)
	}
}

// TestRedisBatchCancelOneWaiter: a caller that gives up returns at once,
// and the others of its batch get their answers.
func TestRedisBatchCancelOneWaiter(t *testing.T) {
	s := newRedis(t, time.Now)
	s.SetPipelineSenders(1)
	key := "pome:test:{cancel}:" + session.NewRequestID()
	blocked := occupy(t, s, 500*time.Millisecond)
	b0, _ := s.PipelineStats()

	cctx, cancel := context.WithCancel(context.Background())
	gaveUp := make(chan error, 1)
	go func() { gaveUp <- s.Pipe(cctx, redis.NewStatusCmd(cctx, "set", key+":a", "1", "ex", "60")) }()
	kept := redis.NewStatusCmd(context.Background(), "set", key+":b", "1", "ex", "60")
	keptErr := make(chan error, 1)
	go func() { keptErr <- s.Pipe(context.Background(), kept) }()
	waitFor(t, "the callers to queue", func() bool { return s.PipelineQueued() == 2 })

	cancel()
	select {
	case err := <-gaveUp:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled caller = %v, want context.Canceled", err)
		}
	case <-time.After(250 * time.Millisecond):
		t.Fatal("a cancelled caller waited for its batch")
	}
	blocked()
	if err := <-keptErr; err != nil || kept.Val() != "OK" {
		t.Fatalf("the other caller = %v, %q, %v", err, kept.Val(), kept.Err())
	}
	if b, _ := s.PipelineStats(); b-b0 != 1 {
		t.Errorf("%d batches, want 1", b-b0)
	}
	c := newRedisClient(t)
	defer c.Close()
	if v, err := c.Get(context.Background(), key+":b").Result(); err != nil || v != "1" {
		t.Errorf("GET b = %q, %v", v, err)
	}
	// A caller whose context ended before it asked sends nothing.
	if err := s.Pipe(cctx, redis.NewStatusCmd(cctx, "ping")); !errors.Is(err, context.Canceled) {
		t.Errorf("Pipe with a done context = %v", err)
	}
}

// senderGoroutines counts the goroutines running a batch sender.
func senderGoroutines() int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return strings.Count(string(buf[:n]), "session.(*batcher).send(")
		}
		buf = make([]byte, 2*len(buf))
	}
}

// checkNoSenders fails unless the sender goroutines are back to before
// soon: one that has just stopped may still be on its way out.
func checkNoSenders(t *testing.T, before int) {
	t.Helper()
	deadline := time.Now().Add(time.Second)
	for {
		n := senderGoroutines()
		if n == before {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("%d sender goroutines after Close, %d before", n, before)
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// hangingServer accepts connections and reads them without ever answering,
// as a Redis stopped with SIGSTOP does.
func hangingServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			go io.Copy(io.Discard, c)
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return ln.Addr().String()
}

// TestRedisBatchClose: closing the store fails the commands still waiting
// for a batch at once and those on the wire with the client, and leaves no
// sender running; later commands fail too.
func TestRedisBatchClose(t *testing.T) {
	redisURL(t)
	before := senderGoroutines()
	c, err := session.OpenRedis("redis://" + hangingServer(t) + "/0?read_timeout=30s&write_timeout=30s&dial_timeout=1s&max_retries=0")
	if err != nil {
		t.Fatal(err)
	}
	s := session.NewRedisStore(c, time.Now)
	s.SetPipelineSenders(1)
	ctx := context.Background()
	const callers = 6
	errs := make(chan error, callers)
	call := func(i int) {
		_, err := s.GetForTwin(ctx, fmt.Sprintf("ses_%d", i), "alpha")
		errs <- err
	}
	go call(0)
	waitFor(t, "a batch on the wire", func() bool { b, _ := s.PipelineStats(); return b == 1 })
	for i := 1; i < callers; i++ {
		go call(i)
	}
	waitFor(t, "the rest queued", func() bool { return s.PipelineQueued() == callers-1 })
	start := time.Now()
	if err := s.Close(); err != nil {
		t.Logf("Close: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Close took %v", d)
	}
	closed := 0
	for range callers {
		select {
		case err := <-errs:
			if err == nil {
				t.Error("a command of a closed store succeeded")
			}
			if errors.Is(err, redis.ErrClosed) {
				closed++
			}
		case <-time.After(5 * time.Second):
			t.Fatal("a caller still waits after Close")
		}
	}
	if closed < callers-1 {
		t.Errorf("%d of the %d queued callers got ErrClosed", closed, callers-1)
	}
	if _, err := s.GetForTwin(ctx, "ses_x", "alpha"); !errors.Is(err, redis.ErrClosed) {
		t.Errorf("GetForTwin after Close = %v, want ErrClosed", err)
	}
	if n := s.PipelineSenders(); n != 0 {
		t.Errorf("%d senders still counted after Close", n)
	}
	checkNoSenders(t, before)
}

// TestRedisBatchNoLeak: a store that served batches leaves no sender
// running once closed.
func TestRedisBatchNoLeak(t *testing.T) {
	redisURL(t)
	before := senderGoroutines()
	s := session.NewRedisStore(newRedisClient(t), time.Now)
	s.SetPipelineSenders(4)
	sb := createSandbox(t, s, storetest.NewTeam(), time.Hour, "alpha")
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				if _, err := s.GetForTwin(context.Background(), sb.ID, "alpha"); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if n := senderGoroutines(); n <= before {
		t.Errorf("no sender ran (%d before, %d now)", before, n)
	}
	s.Discard(context.Background(), sb.ID)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	checkNoSenders(t, before)
}

// TestRedisBatchConnectionFailure: when Redis cannot be reached, every
// caller of a batch gets an error, promptly; none hangs.
func TestRedisBatchConnectionFailure(t *testing.T) {
	redisURL(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	c, err := session.OpenRedis("redis://" + addr + "/0?dial_timeout=200ms&max_retries=0")
	if err != nil {
		t.Fatal(err)
	}
	s := session.NewRedisStore(c, time.Now)
	defer s.Close()
	sb := storetest.NewSandbox(storetest.NewTeam(), time.Now(), time.Hour, "alpha")
	var wg sync.WaitGroup
	for i := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var err error
			if i%2 == 0 {
				_, err = s.GetForTwin(context.Background(), sb.ID, "alpha")
			} else {
				_, err = s.Append(context.Background(), sb, storetest.NewRow(sb, "alpha", "/a"))
			}
			if err == nil || errors.Is(err, session.ErrNotFound) {
				t.Errorf("call with Redis unreachable = %v", err)
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("callers hang with Redis unreachable")
	}
}

// TestRedisBatchingOff: with batching off, the hot path makes its round
// trips itself, and turning it back on batches again.
func TestRedisBatchingOff(t *testing.T) {
	ctx := context.Background()
	s := newRedis(t, time.Now)
	sb := createSandbox(t, s, storetest.NewTeam(), time.Hour, "alpha")
	s.SetPipelineSenders(-1)
	b0, _ := s.PipelineStats()
	if _, err := s.GetForTwin(ctx, sb.ID, "alpha"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append(ctx, sb, storetest.NewRow(sb, "alpha", "/a")); err != nil {
		t.Fatal(err)
	}
	if b, _ := s.PipelineStats(); b != b0 {
		t.Errorf("%d batches with batching off", b-b0)
	}
	waitFor(t, "the senders to stop", func() bool { return s.PipelineSenders() == 0 })
	s.SetPipelineSenders(3)
	if _, err := s.Append(ctx, sb, storetest.NewRow(sb, "alpha", "/a")); err != nil {
		t.Fatal(err)
	}
	if b, _ := s.PipelineStats(); b != b0+1 {
		t.Errorf("%d batches after turning batching on, want 1", b-b0)
	}
	if n := s.PipelineSenders(); n != 3 {
		t.Errorf("%d senders, want 3", n)
	}
}
