package load

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestScheduleArithmetic(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s, err := NewSchedule(start, 10_000, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if s.Count != 300_000 {
		t.Errorf("count %d, want 300000", s.Count)
	}
	for i, want := range map[int64]time.Duration{0: 0, 1: 100 * time.Microsecond, 10_000: time.Second, 299_999: 29_999_900 * time.Microsecond} {
		if got := s.Due(i).Sub(start); got != want {
			t.Errorf("due(%d) = %v, want %v", i, got, want)
		}
	}
	// A rate whose interval is not a whole number of nanoseconds does not
	// drift: the 3,000,000th request of 3 a second is due at exactly 1e6 s.
	s3, _ := NewSchedule(start, 3, 1e6*time.Second)
	if s3.Count != 3_000_000 || s3.Due(3_000_000).Sub(start) != 1e6*time.Second || s3.Due(1).Sub(start) != 333_333_333 {
		t.Errorf("rate 3: count %d, due(1) %v, due(3e6) %v", s3.Count, s3.Due(1).Sub(start), s3.Due(3_000_000).Sub(start))
	}
	for _, bad := range []float64{0, -1} {
		if _, err := NewSchedule(start, bad, time.Second); err == nil {
			t.Errorf("rate %v accepted", bad)
		}
	}
	if _, err := NewSchedule(start, 1, 0); err == nil {
		t.Error("zero duration accepted")
	}
}

// fakeClock is simulated time for one sender: sleeping moves it forward to
// the wake-up time, a call moves it forward by its service time.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *fakeClock) SleepUntil(_ context.Context, t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t.After(c.now) {
		c.now = t
	}
}
func (c *fakeClock) advance(d time.Duration) { c.mu.Lock(); c.now = c.now.Add(d); c.mu.Unlock() }

// TestOpenLoopCountsQueueing: one sender, a request due every 1 ms, each
// taking 5 ms. Request i goes out at 5i ms and ends at 5i+5 ms, so its
// latency from its due time (i ms) is 4i+5 ms: it grows with the queue. A
// closed-loop client would have reported 5 ms for every request.
func TestOpenLoopCountsQueueing(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := &fakeClock{now: start}
	sched, _ := NewSchedule(start, 1000, 100*time.Millisecond)
	r := OpenLoop(context.Background(), sched, 1, clock, func(context.Context, int, int64) error {
		clock.advance(5 * time.Millisecond)
		return nil
	})
	if r.Offered != 100 || r.Completed != 100 || r.Errors != 0 {
		t.Fatalf("%+v", r)
	}
	// The latencies are 5, 9, …, 401 ms; the histogram keeps them within
	// 1%.
	within := func(got, want time.Duration) bool { return got >= want*99/100 && got <= want*101/100 }
	if got := r.Latency.Max(); got != 401*time.Millisecond {
		t.Errorf("max %v, want 401ms", got)
	}
	if got := r.Latency.Quantile(0.5); !within(got, 201*time.Millisecond) {
		t.Errorf("p50 %v, want about 201ms (request 49)", got)
	}
	// Every request but the first went out late; the last 396 ms late.
	if r.Late != 99 || r.StartLag.Max() != 396*time.Millisecond {
		t.Errorf("late %d, max lag %v", r.Late, r.StartLag.Max())
	}
	// The run ends with the last answer, at 500 ms: 200 answers a second
	// however many were offered.
	if r.Elapsed != 500*time.Millisecond || r.AchievedRate() != 200 {
		t.Errorf("elapsed %v, achieved %v", r.Elapsed, r.AchievedRate())
	}
}

// TestOpenLoopOnTime: requests faster than the interval go out on time and
// their latency is their service time alone; errors are counted apart.
func TestOpenLoopOnTime(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := &fakeClock{now: start}
	sched, _ := NewSchedule(start, 1000, 50*time.Millisecond)
	r := OpenLoop(context.Background(), sched, 1, clock, func(_ context.Context, _ int, i int64) error {
		clock.advance(300 * time.Microsecond)
		if i == 7 {
			return errors.New("boom")
		}
		return nil
	})
	if r.Completed != 49 || r.Errors != 1 || r.Late != 0 || r.ErrorSample != "boom" {
		t.Fatalf("%+v", r)
	}
	if r.Latency.Max() != 300*time.Microsecond || r.StartLag.Max() != 0 {
		t.Errorf("max latency %v, max lag %v", r.Latency.Max(), r.StartLag.Max())
	}
	if r.Elapsed != 49*time.Millisecond+300*time.Microsecond {
		t.Errorf("elapsed %v", r.Elapsed)
	}
}

// TestOpenLoopSendsEachOnce: with many senders every request is sent once.
func TestOpenLoopSendsEachOnce(t *testing.T) {
	start := time.Now()
	sched, _ := NewSchedule(start.Add(-time.Hour), 1e6, 5*time.Millisecond) // all due already
	var mu sync.Mutex
	seen := map[int64]int{}
	r := OpenLoop(context.Background(), sched, 16, RealClock, func(_ context.Context, _ int, i int64) error {
		mu.Lock()
		seen[i]++
		mu.Unlock()
		return nil
	})
	if int64(len(seen)) != sched.Count || r.Completed != uint64(sched.Count) {
		t.Fatalf("sent %d distinct of %d, completed %d", len(seen), sched.Count, r.Completed)
	}
	for i, n := range seen {
		if n != 1 {
			t.Fatalf("request %d sent %d times", i, n)
		}
	}
}

// TestOpenLoopCut: a run ended by its time bound stops sending, and the
// request cut short is neither an answer nor an error.
func TestOpenLoopCut(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := &fakeClock{now: start}
	sched, _ := NewSchedule(start, 1000, time.Second)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := OpenLoop(ctx, sched, 1, clock, func(_ context.Context, _ int, i int64) error {
		clock.advance(100 * time.Microsecond)
		if i == 10 {
			cancel()
			return context.Canceled
		}
		return nil
	})
	if !r.Cut || r.Completed != 10 || r.Errors != 0 || r.Offered != 1000 {
		t.Fatalf("%+v", r)
	}
}

// TestRateTableVerdict: a call meets the p99 target only with every
// offered request answered, none wrongly.
func TestRateTableVerdict(t *testing.T) {
	rep := &RateReport{Store: "memory", P99TargetUS: 5000, Results: []RateResult{
		{Call: "fast", OfferedRate: 100, P50US: 300, P99US: 900},
		{Call: "slow", OfferedRate: 100, P50US: 300, P99US: 9000},
		{Call: "cut", OfferedRate: 100, P50US: 300, P99US: 900, Unanswered: 5},
		{Call: "wrong", OfferedRate: 100, P50US: 300, P99US: 900, Errors: 1},
	}}
	var out bytes.Buffer
	if err := WriteRateTable(&out, rep); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, l := range strings.Split(out.String(), "\n") {
		if f := strings.Fields(l); len(f) > 2 {
			got[f[0]] = f[len(f)-1]
		}
	}
	want := map[string]string{"fast": "met", "slow": "missed", "cut": "missed", "wrong": "missed"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %q, want %q\n%s", k, got[k], v, out.String())
		}
	}
}

// TestRateTableMachine: the table says how busy the machine was and how
// many CPUs' worth each process took at the achieved rate.
func TestRateTableMachine(t *testing.T) {
	rep := &RateReport{Machine: Machine{NumCPU: 2}, Results: []RateResult{
		{Call: "busy", OfferedRate: 10000, AchievedRate: 10000, ServerCPUUS: 117, ClientCPUUS: 50, MachineBusy: 0.864, MachineSteal: 0.02},
		{Call: "unread", OfferedRate: 100, AchievedRate: 100},
	}}
	var out bytes.Buffer
	if err := WriteRateTable(&out, rep); err != nil {
		t.Fatal(err)
	}
	want := "busy: the machine's 2 CPUs were 86% busy and 2% taken by the hypervisor (CPUs' worth: the server 1.17, the load tool 0.50)"
	if !strings.Contains(out.String(), want) {
		t.Errorf("no line %q in\n%s", want, out.String())
	}
	if strings.Contains(out.String(), "unread: the machine") {
		t.Errorf("a run whose machine was not read is described:\n%s", out.String())
	}
}

// sleeperFake is a simulated clock that also hands each sender a sleeper
// of its own, as the real clock does on Linux.
type sleeperFake struct {
	fakeClock
	made, closed, slept atomic.Int64
}

func (c *sleeperFake) newSleeper() (sleeper, error) {
	c.made.Add(1)
	return fakeSleeper{c}, nil
}

type fakeSleeper struct{ c *sleeperFake }

func (s fakeSleeper) SleepUntil(ctx context.Context, t time.Time) {
	s.c.slept.Add(1)
	s.c.fakeClock.SleepUntil(ctx, t)
}
func (s fakeSleeper) Close() { s.c.closed.Add(1) }

// TestOpenLoopSendersSleepOnTheirOwn: where the clock offers sleepers,
// each sender sleeps on one of its own (and closes it), for every request.
func TestOpenLoopSendersSleepOnTheirOwn(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := &sleeperFake{fakeClock: fakeClock{now: start}}
	sched, _ := NewSchedule(start, 1000, 100*time.Millisecond)
	r := OpenLoop(context.Background(), sched, 4, clock, func(context.Context, int, int64) error { return nil })
	if r.Completed != 100 {
		t.Fatalf("%+v", r)
	}
	if made, closed, slept := clock.made.Load(), clock.closed.Load(), clock.slept.Load(); made != 4 || closed != 4 || slept != 100 {
		t.Fatalf("sleepers made %d, closed %d, sleeps %d; want 4, 4 and 100", made, closed, slept)
	}
}
