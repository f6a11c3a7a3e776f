package load

import (
	"context"
	"strings"
	"testing"
	"time"
)

// oneSender offers a request a millisecond for a second to one sender on
// simulated time, each taking what service advances the clock by, with
// the timeline kept for requests slower than slowOver.
func oneSender(slowOver time.Duration, service func(clock *fakeClock, i int64)) *OpenLoopResult {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := &fakeClock{now: start}
	sched, _ := NewSchedule(start, 1000, time.Second)
	sched.SlowOver = slowOver
	return OpenLoop(context.Background(), sched, 1, clock, func(_ context.Context, _ int, i int64) error {
		service(clock, i)
		return nil
	})
}

// TestStallsFound: a request a millisecond, each taking 0.1 ms but two
// taking 30 ms, 400 ms apart. The requests queued behind each slow one are
// slow too, for about 30 ms: two stalls, found where and as long as they
// were, holding every slow request.
func TestStallsFound(t *testing.T) {
	r := oneSender(5*time.Millisecond, func(clock *fakeClock, i int64) {
		if i == 300 || i == 700 {
			clock.advance(30 * time.Millisecond)
		} else {
			clock.advance(100 * time.Microsecond)
		}
	})
	s := r.Stalls
	if s == nil {
		t.Fatal("no stalls reported")
	}
	if s.Count != 2 || len(s.StartsMS) != 2 || s.StartsMS[0] != 300 || s.StartsMS[1] != 700 {
		t.Fatalf("stalls %d starting at %v, want 2 at 300 and 700 ms", s.Count, s.StartsMS)
	}
	if s.LongestMS != 30 || s.TotalMS != 60 || s.MedianGapMS != 400 {
		t.Errorf("longest %v ms, total %v ms, median gap %v ms; want 30, 60, 400", s.LongestMS, s.TotalMS, s.MedianGapMS)
	}
	// Request 300 takes 30.1 ms; each after it is due 1 ms later and
	// answered 0.1 ms later, so 0.9 ms faster, down to 5 ms: 28 of them.
	if s.Slow != 56 || s.InStalls != s.Slow || s.OverUS != 5000 {
		t.Errorf("slow %d, in stalls %d, over %v µs; want 56, 56, 5000", s.Slow, s.InStalls, s.OverUS)
	}
	d := s.describe()
	for _, want := range []string{"56 requests slower than 5.00ms", "2 stalls", "60 ms in all", "longest 30 ms", "100%", "every 400 ms", "at 0.30, 0.70 s"} {
		if !strings.Contains(d, want) {
			t.Errorf("description %q lacks %q", d, want)
		}
	}
}

// TestStallsNone: evenly spread slow requests make no stall, and a run
// without a threshold keeps no timeline.
func TestStallsNone(t *testing.T) {
	// One request in 20 takes 6 ms; the five queued behind it take 5 ms
	// or less from their due time, which is not over the threshold.
	r := oneSender(5*time.Millisecond, func(clock *fakeClock, i int64) {
		if i%20 == 0 {
			clock.advance(6 * time.Millisecond)
		}
	})
	s := r.Stalls
	if s == nil || s.Slow != 50 || s.Count != 0 || s.InStalls != 0 || s.MedianGapMS != 0 || len(s.StartsMS) != 0 {
		t.Fatalf("%+v", s)
	}
	if d := s.describe(); !strings.Contains(d, "0 stalls") {
		t.Errorf("description %q", d)
	}
	if d := (&Stalls{OverUS: 5000}).describe(); d != "no request slower than 5.00ms" {
		t.Errorf("description %q", d)
	}

	r = oneSender(0, func(*fakeClock, int64) {})
	if r.Stalls != nil {
		t.Errorf("stalls without a threshold: %+v", r.Stalls)
	}
}
