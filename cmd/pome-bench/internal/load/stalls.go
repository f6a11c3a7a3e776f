package load

import (
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"time"
)

// Stalls: where a constant-rate run's slow requests fell.
//
// A p99 says how many requests were slow, not when. Slow requests spread
// evenly over a run point at a server that is simply too busy; slow
// requests bunched into bursts point at something that stops it for a
// while (a garbage collection, work many sandboxes do at the same moment,
// a lock), and bursts at a steady interval at a periodic cause. The
// timeline counts, for every window of stallWindow by due time, the
// requests due in it and those among them slower than the threshold; a
// stall is a run of windows in which over half of them were.

// stallWindow is the width of the timeline's windows.
const stallWindow = 10 * time.Millisecond

// timeline counts requests per window of due time; safe for concurrent
// use.
type timeline struct {
	over      time.Duration
	all, slow []atomic.Uint32
}

// newTimeline covers a schedule's requests, slow past over (0: no
// timeline, nil).
func newTimeline(s Schedule, over time.Duration) *timeline {
	if over <= 0 || s.Count <= 0 {
		return nil
	}
	n := int(s.Due(s.Count-1).Sub(s.Start)/stallWindow) + 1
	return &timeline{over: over, all: make([]atomic.Uint32, n), slow: make([]atomic.Uint32, n)}
}

// record counts one answered request, due at offset from the start.
func (t *timeline) record(offset, latency time.Duration) {
	if t == nil {
		return
	}
	w := int(offset / stallWindow)
	if w < 0 || w >= len(t.all) {
		return
	}
	t.all[w].Add(1)
	if latency > t.over {
		t.slow[w].Add(1)
	}
}

// Stalls summarises where a run's slow requests fell.
type Stalls struct {
	// OverUS is the threshold: a request answered later than this after
	// it was due is slow.
	OverUS   float64 `json:"over_us"`
	WindowMS float64 `json:"window_ms"`
	// Slow is how many requests were slow, and InStalls how many of them
	// were due within a stall.
	Slow     uint64 `json:"slow"`
	InStalls uint64 `json:"slow_in_stalls"`
	// Count, TotalMS and LongestMS describe the stalls.
	Count     int     `json:"count"`
	TotalMS   float64 `json:"total_ms"`
	LongestMS float64 `json:"longest_ms"`
	// StartsMS is when each stall began, from the run's start (at most
	// maxStallStarts of them); MedianGapMS the median time from one
	// stall's start to the next, which a periodic cause keeps steady.
	StartsMS    []float64 `json:"starts_ms"`
	MedianGapMS float64   `json:"median_gap_ms,omitempty"`
}

// maxStallStarts bounds the stall starts a report lists.
const maxStallStarts = 200

// stalls reads the timeline (nil: none kept).
func (t *timeline) stalls() *Stalls {
	if t == nil {
		return nil
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	s := &Stalls{OverUS: float64(t.over) / 1e3, WindowMS: ms(stallWindow), StartsMS: []float64{}}
	run, runSlow := 0, uint64(0)
	var starts []int
	end := func() {
		if run == 0 {
			return
		}
		s.Count++
		s.TotalMS += ms(time.Duration(run) * stallWindow)
		s.LongestMS = max(s.LongestMS, ms(time.Duration(run)*stallWindow))
		s.InStalls += runSlow
		run, runSlow = 0, 0
	}
	for w := range t.all {
		all, slow := t.all[w].Load(), t.slow[w].Load()
		s.Slow += uint64(slow)
		if all > 0 && 2*slow > all {
			if run == 0 {
				starts = append(starts, w)
			}
			run++
			runSlow += uint64(slow)
			continue
		}
		end()
	}
	end()
	for i, w := range starts {
		if i == maxStallStarts {
			break
		}
		s.StartsMS = append(s.StartsMS, ms(time.Duration(w)*stallWindow))
	}
	if len(starts) > 1 {
		gaps := make([]int, len(starts)-1)
		for i := range gaps {
			gaps[i] = starts[i+1] - starts[i]
		}
		slices.Sort(gaps)
		s.MedianGapMS = ms(time.Duration(gaps[len(gaps)/2]) * stallWindow)
	}
	return s
}

// describe is the stalls in one line for people.
func (s *Stalls) describe() string {
	if s.Slow == 0 {
		return fmt.Sprintf("no request slower than %s", fmtUS(s.OverUS))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d requests slower than %s; %d stalls (%gms windows where most were), %.0f ms in all, the longest %.0f ms, holding %.0f%% of them",
		s.Slow, fmtUS(s.OverUS), s.Count, s.WindowMS, s.TotalMS, s.LongestMS, 100*float64(s.InStalls)/float64(s.Slow))
	if s.MedianGapMS > 0 {
		fmt.Fprintf(&b, "; a stall began every %.0f ms (median)", s.MedianGapMS)
	}
	if len(s.StartsMS) > 0 {
		n := min(len(s.StartsMS), 12)
		parts := make([]string, n)
		for i, v := range s.StartsMS[:n] {
			parts[i] = fmt.Sprintf("%.2f", v/1e3)
		}
		fmt.Fprintf(&b, "; at %s s", strings.Join(parts, ", "))
		if len(s.StartsMS) > n {
			b.WriteString(", …")
		}
	}
	return b.String()
}
