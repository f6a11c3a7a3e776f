package load

import (
	"context"
	"slices"
	"testing"
	"time"
)

// TestSleeperNeverEarly: a sender's sleeper returns at its time or after,
// never before (the latency of a request sent early would be understated),
// and at once for a time already past.
func TestSleeperNeverEarly(t *testing.T) {
	sl, err := newSleeper()
	if err != nil {
		t.Skipf("no precise sleeper here: %v", err)
	}
	defer sl.Close()
	ctx := context.Background()
	for _, d := range []time.Duration{0, -time.Millisecond, 50 * time.Microsecond, 400 * time.Microsecond, 2 * time.Millisecond, 5 * time.Millisecond} {
		for range 5 {
			due := time.Now().Add(d)
			sl.SleepUntil(ctx, due)
			if now := time.Now(); now.Before(due) {
				t.Fatalf("sleep of %v returned %v before its time", d, due.Sub(now))
			}
		}
	}
	// Past times return without waiting for anything: a thousand of them
	// would take 5 s if each waited even 5 ms.
	start := time.Now()
	for range 1000 {
		sl.SleepUntil(ctx, start.Add(-time.Second))
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("1,000 sleeps until a past time took %v", took)
	}
}

// TestSleepEndsWithContext: a sleep ends when its context does, not at its
// time (a run cut by its bound, or by ^C, stops its senders at once), and
// later sleeps under that context return at once; a sleeper then given a
// live context sleeps again, never early. For the timerfd sleeper and the
// runtime's timers (the clock of --pacing runtime, and off Linux).
func TestSleepEndsWithContext(t *testing.T) {
	sleepers := map[string]func(context.Context, time.Time){"runtime": RealClock.SleepUntil}
	if sl, err := newSleeper(); err == nil {
		defer sl.Close()
		sleepers["timerfd"] = sl.SleepUntil
	}
	for name, sleep := range sleepers {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(20*time.Millisecond, cancel)
			start := time.Now()
			sleep(ctx, start.Add(time.Minute))
			if took := time.Since(start); took > 10*time.Second {
				t.Fatalf("a sleep of a minute whose context ended after 20ms took %v", took)
			}
			start = time.Now()
			for range 100 {
				sleep(ctx, time.Now().Add(time.Minute))
			}
			if took := time.Since(start); took > 10*time.Second {
				t.Fatalf("100 sleeps under an ended context took %v", took)
			}
			live := context.Background()
			for range 3 {
				due := time.Now().Add(5 * time.Millisecond)
				sleep(live, due)
				if now := time.Now(); now.Before(due) {
					t.Fatalf("a sleep under a live context after an ended one returned %v before its time", due.Sub(now))
				}
			}
		})
	}
}

// BenchmarkSleepLateness: how late a sleep until 200 µs from now returns,
// on the runtime's timers and on a timerfd (late-µs/op; lower is better).
func BenchmarkSleepLateness(b *testing.B) {
	ctx := context.Background()
	for _, c := range []struct {
		name string
		new  func() (sleeper, error)
	}{
		{"runtime", func() (sleeper, error) { return runtimeSleeper{}, nil }},
		{"timerfd", newSleeper},
	} {
		b.Run(c.name, func(b *testing.B) {
			sl, err := c.new()
			if err != nil {
				b.Skip(err)
			}
			defer sl.Close()
			var late []time.Duration
			for b.Loop() {
				due := time.Now().Add(200 * time.Microsecond)
				sl.SleepUntil(ctx, due)
				late = append(late, time.Since(due))
			}
			slices.Sort(late)
			b.ReportMetric(float64(late[len(late)/2].Microseconds()), "p50-late-µs")
			b.ReportMetric(float64(late[len(late)*99/100].Microseconds()), "p99-late-µs")
		})
	}
}

// runtimeSleeper sleeps on the runtime's timers, as senders did.
type runtimeSleeper struct{}

func (runtimeSleeper) SleepUntil(ctx context.Context, t time.Time) { realClock{}.SleepUntil(ctx, t) }
func (runtimeSleeper) Close()                                      {}
