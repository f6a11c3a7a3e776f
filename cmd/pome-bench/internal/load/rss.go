package load

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"
)

// MemDelta is the server's memory before and after a step: its resident
// set from /proc/PID/status (when the server runs on this machine and its
// pid is given) and its live Go heap after a forced GC from the server's
// pprof endpoint (when it serves one). RSS is what the machine pays, but it
// moves in steps with the GC's headroom; the live heap is what the step
// really retained.
type MemDelta struct {
	RSSBeforeKiB int64 `json:"rss_before_kib,omitempty"`
	RSSAfterKiB  int64 `json:"rss_after_kib,omitempty"`
	HeapBefore   int64 `json:"heap_live_before_bytes,omitempty"`
	HeapAfter    int64 `json:"heap_live_after_bytes,omitempty"`
	// Items is what the step added (sandboxes, or counted requests); the
	// per-item figures divide the growth by it.
	Items       uint64  `json:"items"`
	RSSPerItem  float64 `json:"rss_per_item_bytes,omitempty"`
	HeapPerItem float64 `json:"heap_per_item_bytes,omitempty"`
	rssKnown    bool
	heapKnown   bool
}

// memProbe reads the server's memory as configured.
type memProbe struct {
	pid     int
	heapURL string
	// apiKey opens /debug/pprof/, which takes a team API key.
	apiKey string
	client *http.Client
	logf   func(string, ...any)
}

// memReading is one probe.
type memReading struct {
	rssKiB, heap  int64
	rssOK, heapOK bool
}

func (p *memProbe) enabled() bool { return p.pid != 0 || p.heapURL != "" }

func (p *memProbe) read(ctx context.Context) memReading {
	var m memReading
	var err error
	if p.pid != 0 {
		if m.rssKiB, err = ReadRSS(p.pid); err != nil {
			p.logf("read server RSS: %v", err)
		} else {
			m.rssOK = true
		}
	}
	if p.heapURL != "" {
		if m.heap, err = readLiveHeap(ctx, p.client, p.heapURL, p.apiKey); err != nil {
			p.logf("read server heap: %v", err)
		} else {
			m.heapOK = true
		}
	}
	return m
}

func newDelta(before, after memReading, n uint64) *MemDelta {
	d := &MemDelta{Items: n}
	if before.rssOK && after.rssOK {
		d.RSSBeforeKiB, d.RSSAfterKiB, d.rssKnown = before.rssKiB, after.rssKiB, true
		if n > 0 {
			d.RSSPerItem = float64(after.rssKiB-before.rssKiB) * 1024 / float64(n)
		}
	}
	if before.heapOK && after.heapOK {
		d.HeapBefore, d.HeapAfter, d.heapKnown = before.heap, after.heap, true
		if n > 0 {
			d.HeapPerItem = float64(after.heap-before.heap) / float64(n)
		}
	}
	return d
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
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
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

// readLiveHeap asks a server's net/http/pprof for its heap profile after a
// GC (gc=1) in text form, whose trailer carries runtime.MemStats; HeapAlloc
// is then the live heap.
func readLiveHeap(ctx context.Context, client *http.Client, u, apiKey string) (int64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+apiKey)
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		io.Copy(io.Discard, resp.Body)
		return 0, fmt.Errorf("%s: status %d (is the server running with --pprof?)", u, resp.StatusCode)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "# HeapAlloc = "); ok {
			return strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("%s: no HeapAlloc line", u)
}

// userHZ is the unit of the CPU times in /proc/PID/stat: the kernel
// reports them in USER_HZ ticks, 100 per second on Linux.
const userHZ = 100

// ReadCPU returns the CPU time pid has used so far (user plus system), in
// microseconds, at the 10 ms resolution of /proc/PID/stat.
func ReadCPU(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name (field 2) is in parentheses and may hold spaces;
	// the fields after its closing one start with the state (field 3).
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields after the name", pid, len(f))
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64) // field 14
	stime, err2 := strconv.ParseInt(f[12], 10, 64) // field 15
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: bad CPU times", pid)
	}
	return (utime + stime) * 1e6 / userHZ, nil
}

// MachineCPU is the whole machine's CPU time so far, from /proc/stat: the
// time its CPUs were idle (idle and iowait) and the time the hypervisor
// gave a virtual CPU to others (steal), in USER_HZ ticks summed over the
// CPUs, with how many CPUs there are and when it was read. Read around a
// run, it says how much of the machine the run left: on a machine the load
// tool shares with the server, a latency target can be out of reach
// because the CPUs are busy, not because the server is slow.
//
// The busy share is what of the wall time was not idle. The kernel counts
// idle time exactly on a tickless CPU, but user and system time by
// sampling its tick, which misses short bursts between idle stretches: a
// run at 2,000 comments a second read 10% busy from those samples with the
// server and the load tool alone using 34% of the two CPUs.
type MachineCPU struct {
	Idle, Steal int64
	CPUs        int
	At          time.Time
}

// ReadMachineCPU reads /proc/stat.
func ReadMachineCPU() (MachineCPU, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return MachineCPU{}, err
	}
	m, err := parseProcStat(b)
	m.At = time.Now()
	return m, err
}

// parseProcStat reads the "cpu" line (user nice system idle iowait irq
// softirq steal …; kernels before 2.6.11 stop after iowait or idle, the
// missing fields count 0) and counts the "cpuN" lines.
func parseProcStat(b []byte) (MachineCPU, error) {
	var m MachineCPU
	lines := strings.Split(string(b), "\n")
	f := strings.Fields(lines[0])
	if len(f) < 5 || f[0] != "cpu" {
		return MachineCPU{}, fmt.Errorf("/proc/stat: first line %.40q is not the CPUs' total", lines[0])
	}
	var v [8]int64
	for i := range v {
		if i+1 >= len(f) {
			break
		}
		n, err := strconv.ParseInt(f[i+1], 10, 64)
		if err != nil || n < 0 {
			return MachineCPU{}, fmt.Errorf("/proc/stat: field %d of the cpu line is %q", i+1, f[i+1])
		}
		v[i] = n
	}
	m.Idle, m.Steal = v[3]+v[4], v[7]
	for _, l := range lines[1:] {
		if len(l) > 3 && strings.HasPrefix(l, "cpu") && l[3] >= '0' && l[3] <= '9' {
			m.CPUs++
		}
	}
	if m.CPUs == 0 {
		return MachineCPU{}, errors.New("/proc/stat: no cpuN line")
	}
	return m, nil
}

// BusyShare is the share of the machine's CPU time between two readings
// that was not idle, and the share the hypervisor took (steal); both 0
// when no time passed between them.
func BusyShare(before, after MachineCPU) (busy, steal float64) {
	wall := after.At.Sub(before.At).Seconds() * userHZ * float64(after.CPUs)
	if wall <= 0 {
		return 0, 0
	}
	busy = 1 - float64(after.Idle-before.Idle)/wall
	return min(max(busy, 0), 1), min(max(float64(after.Steal-before.Steal)/wall, 0), 1)
}
