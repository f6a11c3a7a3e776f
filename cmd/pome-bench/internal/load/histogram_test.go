package load

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestBucketsTile checks that consecutive buckets cover the value range
// without gaps or overlaps and that every value lands in the bucket whose
// range holds it.
func TestBucketsTile(t *testing.T) {
	var next int64
	for i := 0; i < subCount*40; i++ {
		lo, hi := bucketRange(i)
		if lo != next || hi <= lo {
			t.Fatalf("bucket %d is [%d,%d), want it to start at %d", i, lo, hi, next)
		}
		if bucketOf(lo) != i || bucketOf(hi-1) != i {
			t.Fatalf("bucket %d [%d,%d): bucketOf(lo)=%d bucketOf(hi-1)=%d", i, lo, hi, bucketOf(lo), bucketOf(hi-1))
		}
		next = hi
	}
}

// TestQuantileWithinPrecision compares the histogram's quantiles with the
// exact ones of a sorted sample spread over five orders of magnitude.
func TestQuantileWithinPrecision(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var h, a, b Histogram
	var all []int64
	for i := 0; i < 100000; i++ {
		v := int64(1000 * (1 + r.ExpFloat64()*r.ExpFloat64()*50))
		all = append(all, v)
		h.Record(time.Duration(v))
		// Merging two halves must give the same answer as one histogram.
		if i%2 == 0 {
			a.Record(time.Duration(v))
		} else {
			b.Record(time.Duration(v))
		}
	}
	a.Merge(&b)
	slices.Sort(all)
	for _, q := range []float64{0, 0.5, 0.9, 0.99, 0.999, 1} {
		rank := int(q*float64(len(all))+0.999999) - 1
		rank = max(rank, 0)
		want := float64(all[rank])
		got := float64(h.Quantile(q))
		if d := (got - want) / want; d > 0.01 || d < -0.01 {
			t.Errorf("q%.3f: got %.0f want %.0f (%.2f%% off)", q, got, want, d*100)
		}
		if a.Quantile(q) != h.Quantile(q) {
			t.Errorf("q%.3f: merged %v, single %v", q, a.Quantile(q), h.Quantile(q))
		}
	}
	if h.Count() != 100000 || h.Max() != time.Duration(all[len(all)-1]) {
		t.Errorf("count %d max %v", h.Count(), h.Max())
	}
}
