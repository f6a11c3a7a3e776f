package load

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// Burner spends about a set CPU time each time it is called: the work the
// same-bytes handler does, with --ceiling-burn, besides answering. A
// handler that burns what Pome spends on a call beyond a bare handler's
// own costs what Pome costs, with nothing of Pome's in it (no collector
// work to speak of, no locks, no world): the latency of such a server at
// the same rate is what that much CPU per call reaches on this machine.
//
// It counts loop iterations rather than reading a clock: a clock read per
// step would be a system call on some machines (a thread's CPU clock is
// one everywhere), and a wall clock would stop burning once the thread was
// descheduled, spending less than asked exactly when the machine is
// busiest.
type Burner struct {
	iters int64
	d     time.Duration
}

// burnSink keeps the loop's result live, so the compiler keeps the loop;
// requests burn at once, so it is stored atomically.
var burnSink atomic.Uint64

// burnLoop runs n steps of a multiply-add generator: no memory traffic, no
// branch but the loop's, the same cost per step on every call.
func burnLoop(n int64) {
	x := uint64(n) | 1
	for i := int64(0); i < n; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	burnSink.Store(x)
}

// burnCalibration is how many steps are timed at once, and how many times:
// the fastest of the timings is the one least disturbed by other work.
const (
	burnCalibrationSteps  = 1 << 16
	burnCalibrationRounds = 40
)

// nsPerStep is the loop's cost per step on this machine, measured once.
var nsPerStep = sync.OnceValue(func() float64 {
	best := time.Duration(1 << 62)
	for range burnCalibrationRounds {
		t0 := time.Now()
		burnLoop(burnCalibrationSteps)
		best = min(best, time.Since(t0))
	}
	return max(float64(best)/burnCalibrationSteps, 0.01)
})

// NewBurner returns a burner of d a call (0 or less: one that does
// nothing). It calibrates the loop on first use, in a few milliseconds;
// call it before a measured run, not inside one.
func NewBurner(d time.Duration) Burner {
	if d <= 0 {
		return Burner{}
	}
	return Burner{iters: int64(float64(d) / nsPerStep()), d: d}
}

// Burn spends the burner's time.
func (b Burner) Burn() {
	if b.iters > 0 {
		burnLoop(b.iters)
	}
}

// Duration is the CPU time a call to Burn spends.
func (b Burner) Duration() time.Duration { return b.d }

// BurnMatch in --ceiling-burn burns, for each call, Pome's server CPU per
// call less the bare handler's own, both as measured in the same run.
const BurnMatch = "match"

// CeilingBurn is one more run of the same-bytes handler after the plain
// one: burning a set time a call, or (Match) what makes its CPU per call
// Pome's.
type CeilingBurn struct {
	Match bool
	D     time.Duration
}

// ParseCeilingBurns reads --ceiling-burn: a comma-separated list of
// durations (20us, 0.05ms; 0 for none, a run of --ceiling-garbage and
// --ceiling-keep alone) and "match".
func ParseCeilingBurns(s string) ([]CeilingBurn, error) {
	var out []CeilingBurn
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		switch {
		case f == "":
			continue
		case f == BurnMatch:
			out = append(out, CeilingBurn{Match: true})
		default:
			d, err := time.ParseDuration(f)
			if err != nil || d < 0 {
				return nil, fmt.Errorf("--ceiling-burn %q: a duration (e.g. 20us) or %q", f, BurnMatch)
			}
			out = append(out, CeilingBurn{D: d})
		}
	}
	return out, nil
}

// BareWork is what the same-bytes handler does on each request of a
// burning run besides answering, as a model of a server's own work: CPU
// time (Burn), garbage allocated and dropped (GarbageBytes, in 112-byte
// pieces holding pointers, about the size of Pome's average allocation),
// and one 112-byte value kept for good (Keep): KeepPointers, shaped as a
// GitHub comment in a world (an id, a login and a body pointing at shared
// text, two UTC times, a nil list), or KeepFlat, the same bytes without a
// pointer. Kept values go round 100 lists, as the load goes round its
// sandboxes. It tells which part of a server's cost a latency comes from:
// the CPU alone, the collector's work for what is dropped, or for what is
// kept and must be marked on every cycle.
type BareWork struct {
	Burn         time.Duration
	GarbageBytes int
	Keep         string
}

// What a burning run keeps for each request (BareWork.Keep).
const (
	KeepPointers = "pointers"
	KeepFlat     = "flat"
)

// garbagePiece is one piece of garbage: 112 bytes of pointers (all nil).
type garbagePiece [14]*byte

// keptPointers is a kept value shaped as twins/github.Comment.
type keptPointers struct {
	ID                   int64
	User, Body           string
	CreatedAt, UpdatedAt time.Time
	Reactions            []*int
}

// keptFlat is keptPointers's size without a pointer.
type keptFlat [14]int64

// keeper holds what burning requests kept.
type keeper struct {
	mu      sync.Mutex
	n       int
	ptrs    [100][]keptPointers
	flat    [100][]keptFlat
	text    []byte
	textPos int
}

// keep keeps one value of kind.
func (k *keeper) keep(kind string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	i := k.n % len(k.ptrs)
	k.n++
	switch kind {
	case KeepPointers:
		const bodyLen = 40
		if k.textPos+bodyLen > len(k.text) {
			k.text, k.textPos = make([]byte, 8192), 0
		}
		body := unsafe.String(&k.text[k.textPos], bodyLen)
		k.textPos += bodyLen
		at := time.Unix(int64(k.n), 0).UTC()
		k.ptrs[i] = append(k.ptrs[i], keptPointers{ID: int64(k.n), User: "octocat", Body: body, CreatedAt: at, UpdatedAt: at})
	case KeepFlat:
		k.flat[i] = append(k.flat[i], keptFlat{int64(k.n)})
	}
}

// makeGarbage allocates n bytes in garbagePieces, dropped on return.
func makeGarbage(n int) {
	pieces := make([]*garbagePiece, 0, n/int(unsafe.Sizeof(garbagePiece{}))+1)
	for range cap(pieces) - 1 {
		pieces = append(pieces, new(garbagePiece))
	}
	runtime.KeepAlive(pieces)
}

// label is how a burning run is named in the report.
func (w BareWork) label() string {
	var parts []string
	if w.Burn > 0 {
		parts = append(parts, fmt.Sprintf("+%.1fµs", float64(w.Burn)/float64(time.Microsecond)))
	}
	if w.GarbageBytes > 0 {
		parts = append(parts, fmt.Sprintf("%d B dropped", w.GarbageBytes))
	}
	if w.Keep != "" {
		parts = append(parts, "kept "+w.Keep)
	}
	return strings.Join(parts, ", ")
}

func (w BareWork) check() error {
	switch {
	case w.Burn < 0:
		return fmt.Errorf("burn %v", w.Burn)
	case w.GarbageBytes < 0:
		return fmt.Errorf("garbage %d bytes", w.GarbageBytes)
	case w.Keep != "" && w.Keep != KeepPointers && w.Keep != KeepFlat:
		return fmt.Errorf("keep %q: %s or %s", w.Keep, KeepPointers, KeepFlat)
	}
	return nil
}

// worker does w on each request.
type worker struct {
	burn    Burner
	garbage int
	keep    string
	kept    *keeper
}

func newWorker(w BareWork) *worker {
	return &worker{burn: NewBurner(w.Burn), garbage: w.GarbageBytes, keep: w.Keep, kept: &keeper{}}
}

func (w *worker) do() {
	if w == nil {
		return
	}
	w.burn.Burn()
	if w.garbage > 0 {
		makeGarbage(w.garbage)
	}
	if w.keep != "" {
		w.kept.keep(w.keep)
	}
}
