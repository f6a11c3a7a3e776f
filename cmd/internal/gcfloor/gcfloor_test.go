package gcfloor

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func TestPercent(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		live, floor uint64
		base, want  int
	}{
		{10 * mib, 128 * mib, 100, 1180}, // grows to the floor
		{40 * mib, 128 * mib, 100, 220},
		{64 * mib, 128 * mib, 100, 100}, // half the floor: the base
		{500 * mib, 128 * mib, 100, 100},
		{1 * mib, 128 * mib, 100, maxPercent},
		{0, 128 * mib, 100, 100},
		{40 * mib, 128 * mib, 400, 400}, // never under the base
		{40 * mib, 0, 100, 100},
	} {
		if got := Percent(c.live, c.floor, c.base); got != c.want {
			t.Errorf("Percent(%d MiB, %d MiB, %d) = %d, want %d", c.live/mib, c.floor/mib, c.base, got, c.want)
		}
	}
}

func TestBase(t *testing.T) {
	for env, want := range map[string]int{"": 100, "200": 200, "off": -1, "OFF": -1, "x": 100} {
		t.Setenv("GOGC", env)
		if got := Base(); got != want {
			t.Errorf("GOGC=%q: Base() = %d, want %d", env, got, want)
		}
	}
}

// TestStartRaisesAndStopRestores: with a small live heap, collections
// raise the percent toward the floor; stop puts the base back and later
// collections leave it there.
func TestStartRaisesAndStopRestores(t *testing.T) {
	t.Setenv("GOGC", "")
	defer debug.SetGCPercent(100)
	stop := Start(1 << 30)
	deadline := time.Now().Add(5 * time.Second)
	for Current() == 100 {
		if time.Now().After(deadline) {
			stop()
			t.Fatal("the percent was never raised")
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if p := Current(); p <= 100 || p > maxPercent {
		t.Errorf("raised to %d, want within (100, %d]", p, maxPercent)
	}
	stop()
	if p := Current(); p != 100 {
		t.Errorf("after stop: %d, want 100", p)
	}
	for range 3 {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if p := Current(); p != 100 {
		t.Errorf("collections after stop changed the percent to %d", p)
	}
}

func TestStartLeavesGOGCOffAlone(t *testing.T) {
	t.Setenv("GOGC", "off")
	stop := Start(1 << 30)
	defer stop()
	runtime.GC()
	time.Sleep(10 * time.Millisecond)
	if p := Current(); p != 100 {
		// The test process itself runs with the default; the tuner must
		// not have touched it.
		t.Errorf("percent %d with GOGC=off", p)
	}
}
