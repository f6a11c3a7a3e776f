package load

import (
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
