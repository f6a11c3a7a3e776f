package load

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// RSSDelta is a server's resident set before and after something, read
// from /proc/PID/status. It only means anything when the server runs on
// this machine.
type RSSDelta struct {
	BeforeKiB int64 `json:"before_kib"`
	AfterKiB  int64 `json:"after_kib"`
	// PerItemBytes is the growth divided by the number of items the step
	// added (sandboxes, or counted requests), when there were any.
	PerItemBytes float64 `json:"per_item_bytes,omitempty"`
}

// ReadRSS returns VmRSS of pid in KiB.
func ReadRSS(pid int) (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			f := strings.Fields(rest)
			if len(f) == 2 && f[1] == "kB" {
				return strconv.ParseInt(f[0], 10, 64)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
}

// newDelta builds a delta from two readings over n items.
func newDelta(before, after int64, n uint64) *RSSDelta {
	d := &RSSDelta{BeforeKiB: before, AfterKiB: after}
	if n > 0 {
		d.PerItemBytes = float64(after-before) * 1024 / float64(n)
	}
	return d
}
