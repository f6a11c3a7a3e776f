package load

import (
	"testing"
	"time"
	"unsafe"
)

func TestParseCeilingBurns(t *testing.T) {
	got, err := ParseCeilingBurns(" 20us, match ,0.05ms,")
	if err != nil {
		t.Fatal(err)
	}
	want := []CeilingBurn{{D: 20 * time.Microsecond}, {Match: true}, {D: 50 * time.Microsecond}}
	if len(got) != len(want) {
		t.Fatalf("%+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("%d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if got, err := ParseCeilingBurns("0"); err != nil || len(got) != 1 || got[0] != (CeilingBurn{}) {
		t.Errorf("0: %+v, %v", got, err)
	}
	for _, bad := range []string{"20", "-5us", "fast", "20us,more"} {
		if _, err := ParseCeilingBurns(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// A burner of nothing does nothing; one of d keeps d.
func TestBurnerZero(t *testing.T) {
	if b := NewBurner(0); b.iters != 0 || b.Duration() != 0 {
		t.Errorf("%+v", b)
	}
	NewBurner(-time.Second).Burn()
	if b := NewBurner(30 * time.Microsecond); b.iters <= 0 || b.Duration() != 30*time.Microsecond {
		t.Errorf("%+v", b)
	}
}

// A worker keeps one value of its kind a request, round its lists, and
// drops its garbage; the kinds hold what they say.
func TestWorkerKeeps(t *testing.T) {
	for _, kind := range []string{KeepPointers, KeepFlat} {
		w := newWorker(BareWork{GarbageBytes: 1000, Keep: kind})
		for range 250 {
			w.do()
		}
		n := 0
		for i := range w.kept.ptrs {
			n += len(w.kept.ptrs[i]) + len(w.kept.flat[i])
		}
		if n != 250 || w.kept.n != 250 {
			t.Errorf("%s: %d kept, want 250", kind, n)
		}
		if kind == KeepPointers && (len(w.kept.ptrs[3]) != 3 || w.kept.ptrs[3][0].User != "octocat" || len(w.kept.ptrs[3][0].Body) != 40 || w.kept.ptrs[3][0].CreatedAt.Location() != time.UTC) {
			t.Errorf("%s: %+v", kind, w.kept.ptrs[3])
		}
		if kind == KeepFlat && (len(w.kept.flat[7]) != 3 || len(w.kept.flat[70]) != 2) {
			t.Errorf("%s: lists 7 and 70 hold %d and %d", kind, len(w.kept.flat[7]), len(w.kept.flat[70]))
		}
	}
	var none *worker
	none.do() // a plain handler's: nothing
	if unsafe.Sizeof(keptPointers{}) != 112 || unsafe.Sizeof(keptFlat{}) != 112 || unsafe.Sizeof(garbagePiece{}) != 112 {
		t.Errorf("sizes %d %d %d, want 112", unsafe.Sizeof(keptPointers{}), unsafe.Sizeof(keptFlat{}), unsafe.Sizeof(garbagePiece{}))
	}
	if l := (BareWork{Burn: 20 * time.Microsecond, GarbageBytes: 11000, Keep: KeepPointers}).label(); l != "+20.0µs, 11000 B dropped, kept pointers" {
		t.Errorf("label %q", l)
	}
}

// Requests burn at once: the handler's loop shares nothing but an atomic
// sink (run with -race).
func TestBurnConcurrently(t *testing.T) {
	b := NewBurner(50 * time.Microsecond)
	done := make(chan struct{})
	for range 4 {
		go func() {
			defer func() { done <- struct{}{} }()
			for range 20 {
				b.Burn()
			}
		}()
	}
	for range 4 {
		<-done
	}
	// Every burn of b's steps ends on the same value: the loop ran them all.
	want := uint64(b.iters) | 1
	for range b.iters {
		want = want*6364136223846793005 + 1442695040888963407
	}
	if got := burnSink.Load(); got != want {
		t.Errorf("sink %d, want %d: the loop did not run its %d steps", got, want, b.iters)
	}
}
