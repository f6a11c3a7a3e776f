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
	// Spin for 50 ms of CPU: the reading has 10 ms resolution.
	x := 0
	for end := time.Now().Add(50 * time.Millisecond); time.Now().Before(end); {
		x++
	}
	after, err := ReadCPU(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if after <= before {
		t.Fatalf("CPU time did not grow over 50 ms of work: %d → %d µs (x=%d)", before, after, x)
	}
	if _, err := ReadCPU(1 << 30); err == nil {
		t.Fatal("ReadCPU of a pid that cannot exist did not fail")
	}
}
