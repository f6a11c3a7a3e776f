package load

import (
	"math"
	"math/bits"
	"time"
)

// subBits sets the histogram's precision: each power-of-two range of
// latencies is split into 2^subBits buckets, so a reported quantile is within
// 1/2^subBits (0.8%) of the true value. That is far below the run-to-run
// noise of a load test, and it keeps a histogram a fixed 58 KiB however
// many requests it counts, so workers can record every latency without
// allocating or sharing memory.
const (
	subBits  = 7
	subCount = 1 << subBits
	buckets  = subCount * (64 - subBits)
)

// Histogram counts latencies in log-linear buckets (the HDR histogram's
// layout). The zero value is empty and ready to use; it is not safe for
// concurrent use: each worker keeps its own and they are merged afterwards.
type Histogram struct {
	counts   [buckets]uint64
	n        uint64
	min, max int64
}

func bucketOf(v int64) int {
	if v < 0 {
		v = 0
	}
	u := uint64(v)
	if u < 2*subCount {
		return int(u)
	}
	shift := bits.Len64(u) - (subBits + 1)
	return subCount*shift + int(u>>shift)
}

// bucketRange is the half-open range of values [lo, hi) counted in bucket i.
func bucketRange(i int) (lo, hi int64) {
	if i < 2*subCount {
		return int64(i), int64(i) + 1
	}
	shift := i/subCount - 1
	q := int64(i - subCount*shift)
	return q << shift, (q + 1) << shift
}

// Record counts one latency.
func (h *Histogram) Record(d time.Duration) {
	v := int64(d)
	if h.n == 0 || v < h.min {
		h.min = v
	}
	if v > h.max {
		h.max = v
	}
	h.counts[bucketOf(v)]++
	h.n++
}

// Merge adds o's counts to h.
func (h *Histogram) Merge(o *Histogram) {
	if o.n == 0 {
		return
	}
	if h.n == 0 || o.min < h.min {
		h.min = o.min
	}
	if o.max > h.max {
		h.max = o.max
	}
	for i, c := range o.counts {
		h.counts[i] += c
	}
	h.n += o.n
}

// Count is the number of recorded latencies.
func (h *Histogram) Count() uint64 { return h.n }

// Quantile returns the latency below which a fraction q of the recorded
// latencies fall (nearest rank), as the middle of its bucket, clamped to the
// exact minimum and maximum seen.
func (h *Histogram) Quantile(q float64) time.Duration {
	if h.n == 0 {
		return 0
	}
	rank := uint64(math.Ceil(q * float64(h.n)))
	if rank < 1 {
		rank = 1
	}
	var seen uint64
	for i, c := range h.counts {
		seen += c
		if seen >= rank {
			lo, hi := bucketRange(i)
			v := lo + (hi-lo-1)/2
			v = max(v, h.min)
			v = min(v, h.max)
			return time.Duration(v)
		}
	}
	return time.Duration(h.max)
}

// Max is the largest recorded latency.
func (h *Histogram) Max() time.Duration { return time.Duration(h.max) }
