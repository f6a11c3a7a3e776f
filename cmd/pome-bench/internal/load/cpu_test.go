package load

import (
	"math"
	"os"
	"testing"
	"time"
)

func TestReadCPUGrowsWithWork(t *testing.T) {
	before, err := ReadCPU(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	// Spin until the reading (10 ms resolution) moves: on a busy machine
	// 50 ms of wall time may hold less than 10 ms of this process's CPU,
	// so the bound is generous and the test stops as soon as it grows.
	x := 0
	after := before
	for end := time.Now().Add(5 * time.Second); after <= before && time.Now().Before(end); {
		for i := 0; i < 1_000_000; i++ {
			x++
		}
		if after, err = ReadCPU(os.Getpid()); err != nil {
			t.Fatal(err)
		}
	}
	if after <= before {
		t.Fatalf("CPU time did not grow over 5 s of work: %d → %d µs (x=%d)", before, after, x)
	}
	if _, err := ReadCPU(1 << 30); err == nil {
		t.Fatal("ReadCPU of a pid that cannot exist did not fail")
	}
}

func TestParseProcStat(t *testing.T) {
	for _, c := range []struct {
		name, in string
		want     MachineCPU
	}{
		{"idle and iowait, steal, two CPUs",
			"cpu  100 5 40 800 20 3 7 25 60 0\ncpu0 50 2 20 400 10 1 3 12 30 0\ncpu1 50 3 20 400 10 2 4 13 30 0\nintr 1 2\n",
			MachineCPU{Idle: 820, Steal: 25, CPUs: 2}},
		{"old kernel, four fields", "cpu 10 0 5 85\ncpu0 10 0 5 85\n", MachineCPU{Idle: 85, CPUs: 1}},
	} {
		got, err := parseProcStat([]byte(c.in))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got != c.want {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
	for _, bad := range []string{"", "intr 1 2 3\n", "cpu 1 2 x 4\ncpu0 1 2 3 4\n", "cpu 1 2\n", "cpu 1 -2 3 4\ncpu0 1 2 3 4\n", "cpu 1 2 3 4\n"} {
		if got, err := parseProcStat([]byte(bad)); err == nil {
			t.Errorf("%q: read as %+v, want an error", bad, got)
		}
	}
}

// TestBusyShare: the busy share is the wall time not idle, over every CPU.
func TestBusyShare(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a := MachineCPU{Idle: 1000, Steal: 10, CPUs: 2, At: at}
	// 10 s on 2 CPUs is 2,000 ticks: 300 of them idle, 100 stolen.
	b := MachineCPU{Idle: 1300, Steal: 110, CPUs: 2, At: at.Add(10 * time.Second)}
	busy, steal := BusyShare(a, b)
	if math.Abs(busy-0.85) > 1e-9 || math.Abs(steal-0.05) > 1e-9 {
		t.Fatalf("busy %v steal %v, want 0.85 and 0.05", busy, steal)
	}
	if busy, steal := BusyShare(b, b); busy != 0 || steal != 0 {
		t.Fatalf("no time passed: busy %v steal %v, want 0", busy, steal)
	}
	// Idle counted a tick past the wall time reads as not busy, not less.
	c := MachineCPU{Idle: 3001, CPUs: 2, At: at.Add(10 * time.Second)}
	if busy, _ := BusyShare(a, c); busy != 0 {
		t.Fatalf("busy %v, want 0", busy)
	}
}

func TestReadMachineCPU(t *testing.T) {
	if _, err := os.Stat("/proc/stat"); err != nil {
		t.Skip("no /proc/stat on this system")
	}
	a, err := ReadMachineCPU()
	if err != nil {
		t.Fatal(err)
	}
	if a.Idle <= 0 || a.CPUs <= 0 || a.At.IsZero() {
		t.Fatalf("implausible reading %+v", a)
	}
}
