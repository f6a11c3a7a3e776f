package load

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"
)

// The constant-rate mode offers load open-loop: request i is due at
// start + i/rate whatever happened to the requests before it, and its
// latency runs from that due time, not from when a sender got round to it.
// A server that stalls for 100 ms therefore shows 100 ms of latency on
// every request that fell due during the stall (the requests a closed-loop
// client would simply not have sent: coordinated omission).

// Schedule is the due time of each request of a constant-rate run.
type Schedule struct {
	Start time.Time
	// Rate is the offered rate in requests per second.
	Rate float64
	// Count is how many requests the run offers.
	Count int64
	// SlowOver, when set, has the run keep a timeline of the requests
	// slower than it (OpenLoopResult.Stalls).
	SlowOver time.Duration
}

// NewSchedule offers rate requests a second for d from start.
func NewSchedule(start time.Time, rate float64, d time.Duration) (Schedule, error) {
	if rate <= 0 || math.IsInf(rate, 0) || math.IsNaN(rate) {
		return Schedule{}, fmt.Errorf("rate %v: want a positive number of requests per second", rate)
	}
	if d <= 0 {
		return Schedule{}, errors.New("duration must be positive")
	}
	return Schedule{Start: start, Rate: rate, Count: int64(math.Floor(rate * d.Seconds()))}, nil
}

// Due is when request i is due: computed from the start every time, so
// rounding never accumulates over a long run.
func (s Schedule) Due(i int64) time.Time {
	return s.Start.Add(time.Duration(math.Round(float64(i) * 1e9 / s.Rate)))
}

// Clock is the time an open-loop run reads and waits on; tests give a
// simulated one.
type Clock interface {
	Now() time.Time
	// SleepUntil returns at t, or at once if t has passed or ctx is done.
	SleepUntil(ctx context.Context, t time.Time)
}

type realClock struct{}

// sleeper is one sender's own way to sleep until a time (see
// sleeper_linux.go); Close releases it.
type sleeper interface {
	SleepUntil(ctx context.Context, t time.Time)
	Close()
}

// sleeperClock is a Clock that can give each sender a sleeper of its
// own, more precise than SleepUntil.
type sleeperClock interface {
	newSleeper() (sleeper, error)
}

func (realClock) newSleeper() (sleeper, error) { return newSleeper() }

func (realClock) Now() time.Time { return time.Now() }

// SleepUntil sleeps on the runtime's timers, and can wake up to a
// millisecond late; on Linux senders sleep on a timerfd of their own
// instead (sleeper_linux.go).
func (realClock) SleepUntil(ctx context.Context, t time.Time) { sleepUntil(ctx, t) }

// sleepUntil returns at t, or at once if t has passed or ctx is done.
func sleepUntil(ctx context.Context, t time.Time) {
	d := time.Until(t)
	if d <= 0 || ctx.Err() != nil {
		return
	}
	if ctx.Done() == nil {
		time.Sleep(d)
		return
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
	case <-ctx.Done():
	}
}

// RealClock is the wall clock.
var RealClock Clock = realClock{}

// runtimeClock is the wall clock with the runtime's timers only: senders
// get no sleepers of their own (--pacing runtime).
type runtimeClock struct{}

func (runtimeClock) Now() time.Time                              { return time.Now() }
func (runtimeClock) SleepUntil(ctx context.Context, t time.Time) { sleepUntil(ctx, t) }

// How the senders of a run wait for their requests' due times.
const (
	// PacingPrecise: on a timerfd of each sender's own
	// (Linux; elsewhere as PacingRuntime).
	PacingPrecise = "precise"
	// PacingRuntime: the runtime's timers, which wake up to a millisecond
	// late when nothing else wakes the runtime, and so send requests
	// bunched at its ticks.
	PacingRuntime = "runtime"
	// PacingLoop: the loop client's own wait, epoll_pwait2's timeout in
	// nanoseconds.
	PacingLoop = "epoll"
)

// The rate mode's clients.
const (
	// ClientLoop: one goroutine's epoll loop over a connection per sender
	// (loop_linux.go); the default, where Linux has epoll_pwait2.
	ClientLoop = "loop"
	// ClientRaw: a goroutine and a keep-alive connection per sender, each
	// request formatted once (raw.go).
	ClientRaw = "raw"
	// ClientGo: net/http's client.
	ClientGo = "go"
)

// lateAfter is how far behind its due time a request may start before it
// counts as started late: the senders could not keep up with the offered
// rate (all were busy waiting for answers), which the latencies then show.
const lateAfter = time.Millisecond

// OpenLoopResult is what an open-loop run measured.
type OpenLoopResult struct {
	Offered   int64
	Completed uint64
	Errors    uint64
	// Late is how many requests started more than lateAfter after they
	// were due.
	Late uint64
	// Latency is from each request's due time to its answer's end;
	// StartLag from its due time to when it was sent.
	Latency  Histogram
	StartLag Histogram
	// Elapsed runs from the schedule's start to the last answer.
	Elapsed time.Duration
	// Cut says the run ended on its context (a time bound) before every
	// offered request was answered: the server fell behind the rate.
	Cut         bool
	ErrorSample string
	// Stalls is where the requests slower than the schedule's SlowOver
	// fell (nil without one).
	Stalls *Stalls
}

// AchievedRate is the rate of answers that counted.
func (r *OpenLoopResult) AchievedRate() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Completed) / r.Elapsed.Seconds()
}

// tally is what one sender of an open-loop run counted (the loop client's
// one loop is one sender).
type tally struct {
	lat, lag       Histogram
	ok, errs, late uint64
	last           time.Time
	firstErr       error
}

// sent counts a request sent lag after it was due.
func (t *tally) sent(lag time.Duration) {
	t.lag.Record(lag)
	if lag > lateAfter {
		t.late++
	}
}

// answered counts a request due at due and answered at done, failed with
// err (nil: answered right), in t and in the run's timeline.
func (t *tally) answered(tl *timeline, sched Schedule, due, done time.Time, err error) {
	if done.After(t.last) {
		t.last = done
	}
	if err != nil {
		t.errs++
		if t.firstErr == nil {
			t.firstErr = err
		}
		return
	}
	t.ok++
	t.lat.Record(done.Sub(due))
	tl.record(due.Sub(sched.Start), done.Sub(due))
}

// openLoopResult adds up the senders' tallies of a run of sched over tl
// that ended with cut.
func openLoopResult(sched Schedule, tl *timeline, cut bool, ts ...*tally) *OpenLoopResult {
	res := &OpenLoopResult{Offered: sched.Count, Cut: cut, Stalls: tl.stalls()}
	var last time.Time
	for _, t := range ts {
		res.Latency.Merge(&t.lat)
		res.StartLag.Merge(&t.lag)
		res.Completed += t.ok
		res.Errors += t.errs
		res.Late += t.late
		if t.last.After(last) {
			last = t.last
		}
		if t.firstErr != nil && res.ErrorSample == "" {
			res.ErrorSample = t.firstErr.Error()
		}
	}
	if !last.IsZero() {
		res.Elapsed = last.Sub(sched.Start)
	}
	return res
}

// OpenLoop sends the schedule's requests with senders goroutines: each
// takes the next request, waits for its due time, sends it with do and
// records its latency from the due time. With enough senders every
// request goes out on time; when all are busy, the next one goes out late
// and its latency says so.
func OpenLoop(ctx context.Context, sched Schedule, senders int, clock Clock, do func(ctx context.Context, sender int, i int64) error) *OpenLoopResult {
	senders = max(1, senders)
	ts := make([]*tally, senders)
	tl := newTimeline(sched, sched.SlowOver)
	var next atomic.Int64
	var wg sync.WaitGroup
	for k := range ts {
		t := &tally{}
		ts[k] = t
		wg.Add(1)
		go func(sender int) {
			defer wg.Done()
			sleepUntil := clock.SleepUntil
			if sc, ok := clock.(sleeperClock); ok {
				if sl, err := sc.newSleeper(); err == nil {
					defer sl.Close()
					sleepUntil = sl.SleepUntil
				}
			}
			for ctx.Err() == nil {
				i := next.Add(1) - 1
				if i >= sched.Count {
					return
				}
				due := sched.Due(i)
				sleepUntil(ctx, due)
				if ctx.Err() != nil {
					return
				}
				sent := clock.Now()
				err := do(ctx, sender, i)
				if ctx.Err() != nil {
					// Cut by the run's time bound, not answered wrong.
					return
				}
				t.sent(sent.Sub(due))
				t.answered(tl, sched, due, clock.Now(), err)
			}
		}(k)
	}
	wg.Wait()
	return openLoopResult(sched, tl, ctx.Err() != nil, ts...)
}

// RateConfig is one run of the constant-rate mode.
type RateConfig struct {
	Server, APIKey string
	Sandboxes      int
	Calls          []Call
	Rate           float64
	Duration       time.Duration
	// Senders bound the requests in flight (and the connections).
	Senders int
	Warmup  time.Duration
	// Store names the server's store, for the report and the target
	// (memory: p99 ≤ 5 ms, redis: ≤ 10 ms).
	Store string
	// Client is "loop" (default: one goroutine's epoll loop over a
	// connection per sender; Linux), "raw" (a goroutine and a keep-alive
	// connection per sender, requests formatted once) or "go" (net/http).
	Client string
	// Pacing is PacingPrecise (default) or PacingRuntime, for the raw and
	// go clients; the loop client waits in epoll_pwait2, to the
	// nanosecond, and reports PacingLoop.
	Pacing    string
	ServerPID int
	StorePID  int
	Log       io.Writer
	// Ceiling: after each call, the same load against a bare net/http
	// handler answering the bytes Pome answered for it, in a process of
	// its own started with BareCommand (see StartBare).
	Ceiling     bool
	BareCommand []string
	// CeilingBurns are more runs of the same-bytes handler after the plain
	// one, each spending a set CPU time a request, or Pome's CPU per
	// request less the plain handler's (Match), before it answers: the
	// latency a server reaches here at Pome's CPU cost per call. They need
	// Ceiling, and Match needs ServerPID. CeilingGarbage and CeilingKeep
	// are done on each request of those runs too (BareWork).
	CeilingBurns   []CeilingBurn
	CeilingGarbage int
	CeilingKeep    string
}

// RateResult is one call at the offered rate.
type RateResult struct {
	Call string `json:"call"`
	// Side is SideBare for the same-bytes handler's run (--ceiling), empty
	// for Pome's.
	Side string `json:"side,omitempty"`
	// BurnUS is the CPU time the same-bytes handler spent on each request
	// besides answering (--ceiling-burn), GarbageBytes what it allocated
	// and dropped, Keep what it kept (BareWork).
	BurnUS       float64 `json:"burn_us,omitempty"`
	GarbageBytes int     `json:"garbage_bytes,omitempty"`
	Keep         string  `json:"keep,omitempty"`
	OfferedRate  float64 `json:"offered_req_per_sec"`
	AchievedRate float64 `json:"achieved_req_per_sec"`
	Offered      int64   `json:"offered"`
	Completed    uint64  `json:"completed"`
	// Unanswered were offered but not answered within the run's time
	// bound (its duration plus half, at least 10 s).
	Unanswered int64   `json:"unanswered"`
	Errors     uint64  `json:"errors"`
	Late       uint64  `json:"started_late"`
	P50US      float64 `json:"p50_us"`
	P99US      float64 `json:"p99_us"`
	P999US     float64 `json:"p999_us"`
	MaxUS      float64 `json:"max_us"`
	// LagP99US is the 99th percentile of how late requests were sent.
	LagP99US    float64 `json:"start_lag_p99_us"`
	ServerCPUUS float64 `json:"server_cpu_us_per_request,omitempty"`
	StoreCPUUS  float64 `json:"store_cpu_us_per_request,omitempty"`
	ClientCPUUS float64 `json:"client_cpu_us_per_request,omitempty"`
	// MachineBusy is the share of the wall time, over every CPU, that
	// /proc/stat does not count idle during the run (all processes, the
	// kernel and the hypervisor's steal), MachineSteal the share the
	// hypervisor gave to others (BusyShare).
	MachineBusy  float64   `json:"machine_busy,omitempty"`
	MachineSteal float64   `json:"machine_steal,omitempty"`
	Mem          *MemDelta `json:"server_mem,omitempty"`
	ErrorSample  string    `json:"error_sample,omitempty"`
	// Stalls is where the requests slower than the p99 target (5 ms
	// without a store named) fell in time.
	Stalls *Stalls `json:"stalls,omitempty"`
}

// RateReport is a constant-rate run.
type RateReport struct {
	Server      string       `json:"server"`
	Store       string       `json:"store,omitempty"`
	Client      string       `json:"client"`
	Pacing      string       `json:"pacing"`
	Senders     int          `json:"senders"`
	Seconds     float64      `json:"seconds"`
	Sandboxes   int          `json:"sandboxes"`
	P99TargetUS float64      `json:"p99_target_us,omitempty"`
	Machine     Machine      `json:"machine"`
	Results     []RateResult `json:"calls"`
	Notes       []string     `json:"notes,omitempty"`
	Started     time.Time    `json:"started"`
}

// P99Target is the p99 the issue sets for a store at a fixed rate.
func P99Target(store string) time.Duration {
	switch store {
	case "memory":
		return 5 * time.Millisecond
	case "redis":
		return 10 * time.Millisecond
	}
	return 0
}

// ConstantRate runs the constant-rate mode against a running Pome server.
func ConstantRate(ctx context.Context, cfg RateConfig) (*RateReport, error) {
	if cfg.Sandboxes < 1 || cfg.Senders < 1 || len(cfg.Calls) == 0 {
		return nil, errors.New("rate: sandboxes, senders and calls must be positive")
	}
	if cfg.Ceiling && len(cfg.BareCommand) == 0 {
		return nil, errors.New("rate: the ceiling needs a command for the same-bytes server")
	}
	if len(cfg.CeilingBurns) > 0 && !cfg.Ceiling {
		return nil, errors.New("rate: burning runs are runs of the ceiling")
	}
	for _, b := range cfg.CeilingBurns {
		if b.Match && cfg.ServerPID <= 0 {
			return nil, errors.New("rate: --ceiling-burn match needs the server's CPU per request (--server-pid)")
		}
	}
	if (cfg.CeilingGarbage != 0 || cfg.CeilingKeep != "") && len(cfg.CeilingBurns) == 0 {
		return nil, errors.New("rate: garbage and kept values are done in the burning runs (--ceiling-burn; 0 for no CPU time)")
	}
	if err := (BareWork{GarbageBytes: cfg.CeilingGarbage, Keep: cfg.CeilingKeep}).check(); err != nil {
		return nil, fmt.Errorf("rate: %w", err)
	}
	if _, err := NewSchedule(time.Now(), cfg.Rate, cfg.Duration); err != nil {
		return nil, err
	}
	logf := func(format string, args ...any) {
		if cfg.Log != nil {
			fmt.Fprintf(cfg.Log, format+"\n", args...)
		}
	}
	client := NewClient(cfg.Senders)
	defer client.CloseIdleConnections()
	pome, err := NewPome(cfg.Server, cfg.APIKey, client)
	if err != nil {
		return nil, err
	}
	if cfg.Client == "" {
		cfg.Client = ClientLoop
	}
	if cfg.Client != ClientLoop && cfg.Client != ClientRaw && cfg.Client != ClientGo {
		return nil, fmt.Errorf("rate: client %q: %s, %s or %s", cfg.Client, ClientLoop, ClientRaw, ClientGo)
	}
	if cfg.Pacing == "" {
		cfg.Pacing = PacingPrecise
	}
	if cfg.Pacing != PacingPrecise && cfg.Pacing != PacingRuntime {
		return nil, fmt.Errorf("rate: pacing %q: %s or %s", cfg.Pacing, PacingPrecise, PacingRuntime)
	}
	// What the report says of the client and its pacing.
	clientName, pacing := cfg.Client, cfg.Pacing
	if cfg.Client == ClientLoop {
		if cfg.Pacing != PacingPrecise {
			return nil, fmt.Errorf("rate: the %s client paces itself; --pacing %s is for the %s and %s clients", ClientLoop, cfg.Pacing, ClientRaw, ClientGo)
		}
		if err := loopWorks(); err != nil {
			logf("the %s client cannot run here (%v): the %s client instead", ClientLoop, err, ClientRaw)
			cfg.Client = ClientRaw
			clientName = fmt.Sprintf("%s (no %s client here: %v)", ClientRaw, ClientLoop, err)
		} else {
			pacing = PacingLoop
		}
	}
	clock := RealClock
	switch {
	case cfg.Client == ClientLoop:
	case cfg.Pacing == PacingRuntime:
		clock = runtimeClock{}
	default:
		if sl, err := newSleeper(); err != nil {
			pacing = PacingRuntime + " (no timerfd here: " + err.Error() + ")"
		} else {
			sl.Close()
		}
	}
	rep := &RateReport{Server: pome.Server.String(), Store: cfg.Store, Client: clientName, Pacing: pacing, Senders: cfg.Senders, Seconds: cfg.Duration.Seconds(),
		P99TargetUS: float64(P99Target(cfg.Store).Microseconds()), Machine: ThisMachine(), Started: time.Now().UTC()}
	twins := callTwins(cfg.Calls)
	logf("creating %d sandboxes (%s)", cfg.Sandboxes, strings.Join(twins, ", "))
	sbs, err := pome.CreateMany(ctx, cfg.Sandboxes, 16, twins)
	ids := make([]string, len(sbs))
	for i, sb := range sbs {
		ids[i] = sb.ID
	}
	defer func() {
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Minute)
		defer cancel()
		if failed, err := pome.DiscardMany(dctx, ids, 16); err != nil {
			rep.Notes = append(rep.Notes, fmt.Sprintf("%d of %d sandboxes not discarded: %v", failed, len(ids), err))
		}
	}()
	if err != nil {
		return rep, err
	}
	rep.Sandboxes = len(sbs)
	probe := &memProbe{pid: cfg.ServerPID, client: client, logf: logf}
	cpu := cpuProbe{server: cfg.ServerPID, store: cfg.StorePID, machine: true}
	for _, c := range cfg.Calls {
		if ctx.Err() != nil {
			break
		}
		ts, err := c.Targets(ctx, client, sbs)
		if err != nil {
			return rep, err
		}
		res, err := cfg.offer(ctx, c, ts, client, clock, cpu, probe)
		if err != nil {
			return rep, err
		}
		logf("%-24s offered %.0f/s achieved %.0f/s  p50 %s  p99 %s  p99.9 %s  errors %d  late %d", c.Name, cfg.Rate, res.AchievedRate,
			fmtUS(res.P50US), fmtUS(res.P99US), fmtUS(res.P999US), res.Errors, res.Late)
		rep.Results = append(rep.Results, res)
		if !cfg.Ceiling || ctx.Err() != nil {
			continue
		}
		// The ceiling: the same load, by the same client, against a bare
		// handler in a process of its own answering what Pome answered.
		ans, err := Capture(ctx, client, c, ts[0])
		if err != nil {
			return rep, fmt.Errorf("%s: capturing the answer for the same-bytes server: %w", c.Name, err)
		}
		pomeCPU := res.ServerCPUUS
		var plainCPU float64
		for k, burn := range append([]CeilingBurn{{}}, cfg.CeilingBurns...) {
			if ctx.Err() != nil {
				break
			}
			d := burn.D
			if burn.Match {
				d = time.Duration((pomeCPU - plainCPU) * float64(time.Microsecond))
				if d <= 0 {
					rep.Notes = append(rep.Notes, fmt.Sprintf("%s: Pome's CPU per request (%.1fµs) is not above the bare handler's (%.1fµs): no run to match it", c.Name, pomeCPU, plainCPU))
					continue
				}
			}
			work := BareWork{}
			if k > 0 {
				work = BareWork{Burn: d, GarbageBytes: cfg.CeilingGarbage, Keep: cfg.CeilingKeep}
			}
			res, err := cfg.offerBare(ctx, c, ts, client, clock, ans, work)
			if err != nil {
				return rep, err
			}
			if k == 0 {
				plainCPU = res.ServerCPUUS
			}
			rep.Results = append(rep.Results, res)
		}
	}
	return rep, ctx.Err()
}

// SideBare marks a rate result of the same-bytes handler (--ceiling).
const SideBare = "bare"

// offerBare runs the same load against a same-bytes process answering ans
// that does work on each request besides.
func (cfg RateConfig) offerBare(ctx context.Context, c Call, ts []Target, client *http.Client, clock Clock, ans Answer, work BareWork) (RateResult, error) {
	bare, err := StartBare(ctx, cfg.BareCommand, ans, work)
	if err != nil {
		return RateResult{}, fmt.Errorf("%s: %w", c.Name, err)
	}
	res, err := cfg.offer(ctx, c, Rebase(ts, bare.URL), client, clock, cpuProbe{server: bare.PID, machine: true}, nil)
	if cerr := bare.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("%s: %w", c.Name, cerr)
	}
	if err != nil {
		return res, err
	}
	res.Side, res.BurnUS, res.GarbageBytes, res.Keep = SideBare, float64(work.Burn)/float64(time.Microsecond), work.GarbageBytes, work.Keep
	if cfg.Log != nil {
		fmt.Fprintf(cfg.Log, "%s: achieved %.0f/s  p50 %s  p99 %s  p99.9 %s  errors %d  late %d\n", res.label(), res.AchievedRate,
			fmtUS(res.P50US), fmtUS(res.P99US), fmtUS(res.P999US), res.Errors, res.Late)
	}
	return res, nil
}

// offer offers c's requests to ts at the configured rate, after the
// warm-up, with the run's client, and measures the run: the server's CPU
// from cpu, its memory from probe (nil: not read).
func (cfg RateConfig) offer(ctx context.Context, c Call, ts []Target, client *http.Client, clock Clock, cpu cpuProbe, probe *memProbe) (RateResult, error) {
	// runSched offers one schedule with the run's client.
	var runSched func(ctx context.Context, sched Schedule) *OpenLoopResult
	openLoop := func(do func(ctx context.Context, sender int, i int64) error) {
		runSched = func(ctx context.Context, sched Schedule) *OpenLoopResult {
			return OpenLoop(ctx, sched, cfg.Senders, clock, do)
		}
	}
	switch cfg.Client {
	case ClientGo:
		openLoop(func(ctx context.Context, _ int, i int64) error {
			req, err := c.Request(ctx, ts[i%int64(len(ts))])
			if err != nil {
				return err
			}
			resp, err := client.Do(req)
			if err != nil {
				return err
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				return err
			}
			return c.CheckResponse(resp.StatusCode, body)
		})
	default:
		raws := make([]RawRequest, len(ts))
		for k, t := range ts {
			var err error
			if raws[k], err = FormatRaw(c, t); err != nil {
				return RateResult{}, err
			}
		}
		if cfg.Client == ClientLoop {
			lc, err := NewLoopClient(cfg.Senders, raws)
			if err != nil {
				return RateResult{}, err
			}
			defer lc.Close()
			runSched = func(ctx context.Context, sched Schedule) *OpenLoopResult {
				return lc.Run(ctx, sched, c.CheckResponse)
			}
			break
		}
		conns := make([]RawConn, cfg.Senders)
		defer func() {
			for k := range conns {
				conns[k].Close()
			}
		}()
		openLoop(func(_ context.Context, sender int, i int64) error {
			status, body, err := conns[sender].Do(raws[i%int64(len(raws))])
			if err != nil {
				return err
			}
			return c.CheckResponse(status, body)
		})
	}
	if cfg.Warmup > 0 {
		if ws, err := NewSchedule(time.Now(), cfg.Rate, cfg.Warmup); err == nil {
			runSched(ctx, ws)
		}
	}
	var before memReading
	if probe != nil && probe.enabled() {
		before = probe.read(ctx)
	}
	c0 := cpu.read()
	sched, _ := NewSchedule(time.Now().Add(10*time.Millisecond), cfg.Rate, cfg.Duration)
	sched.SlowOver = P99Target(cfg.Store)
	if sched.SlowOver == 0 {
		sched.SlowOver = P99Target("memory")
	}
	// A server that falls behind would stretch the run without end:
	// the requests still unsent at the bound are not sent.
	rctx, cancel := context.WithTimeout(ctx, cfg.Duration+max(10*time.Second, cfg.Duration/2))
	r := runSched(rctx, sched)
	cancel()
	c1 := cpu.read()
	us := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }
	res := RateResult{Call: c.Name, OfferedRate: cfg.Rate, AchievedRate: r.AchievedRate(), Offered: r.Offered, Unanswered: r.Offered - int64(r.Completed+r.Errors),
		Completed: r.Completed, Errors: r.Errors, Late: r.Late, ErrorSample: r.ErrorSample,
		P50US: us(r.Latency.Quantile(0.5)), P99US: us(r.Latency.Quantile(0.99)), P999US: us(r.Latency.Quantile(0.999)),
		MaxUS: us(r.Latency.Max()), LagP99US: us(r.StartLag.Quantile(0.99)), Stalls: r.Stalls}
	if n := float64(r.Completed); n > 0 {
		if cpu.server != 0 {
			res.ServerCPUUS = float64(c1.server-c0.server) / n
		}
		if cpu.store != 0 {
			res.StoreCPUUS = float64(c1.store-c0.store) / n
		}
		res.ClientCPUUS = float64(c1.self-c0.self) / n
	}
	if c0.machineOK && c1.machineOK {
		res.MachineBusy, res.MachineSteal = BusyShare(c0.machine, c1.machine)
	}
	if probe != nil && probe.enabled() {
		res.Mem = newDelta(before, probe.read(ctx), r.Completed)
	}
	return res, nil
}

// label names the result in the report: the call, and for the ceiling's
// run the bare handler's.
func (c RateResult) label() string {
	if w := (BareWork{Burn: time.Duration(c.BurnUS * float64(time.Microsecond)), GarbageBytes: c.GarbageBytes, Keep: c.Keep}); c.Side == SideBare && w != (BareWork{}) {
		l := w.label()
		if !strings.HasPrefix(l, "+") {
			l = ", " + l
		}
		return fmt.Sprintf("%s (bare%s)", c.Call, l)
	}
	if c.Side == SideBare {
		return c.Call + " (bare)"
	}
	return c.Call
}

// describeMachine says how busy the machine was during the run, and whose
// CPU that was: the CPUs' worth of each process is its CPU per request at
// the achieved rate.
func (c RateResult) describeMachine(cpus int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "the machine's %d CPUs were %.0f%% busy", cpus, 100*c.MachineBusy)
	if c.MachineSteal >= 0.005 {
		fmt.Fprintf(&b, " and %.0f%% taken by the hypervisor", 100*c.MachineSteal)
	}
	var parts []string
	server := "the server"
	if c.Side == SideBare {
		server = "the bare handler"
	}
	for _, p := range []struct {
		who string
		us  float64
	}{{server, c.ServerCPUUS}, {"the store", c.StoreCPUUS}, {"the load tool", c.ClientCPUUS}} {
		if p.us > 0 {
			parts = append(parts, fmt.Sprintf("%s %.2f", p.who, p.us*c.AchievedRate/1e6))
		}
	}
	if len(parts) > 0 {
		fmt.Fprintf(&b, " (CPUs' worth: %s)", strings.Join(parts, ", "))
	}
	return b.String()
}

// WriteRateTable prints a constant-rate report for people.
func WriteRateTable(w io.Writer, r *RateReport) error {
	store := r.Store
	if store == "" {
		store = "(not given)"
	}
	pacing := r.Pacing
	if pacing == "" {
		pacing = PacingPrecise
	}
	fmt.Fprintf(w, "server %s  store %s  %gs per call  %d senders  %s client  %s pacing  %d sandboxes\n", r.Server, store, r.Seconds, r.Senders, r.Client, pacing, r.Sandboxes)
	fmt.Fprintf(w, "machine %d CPU %s, %s/%s, %s\n\n", r.Machine.NumCPU, r.Machine.CPUModel, r.Machine.GOOS, r.Machine.GOARCH, r.Machine.GoVersion)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "call\toffered/s\tachieved/s\tp50\tp99\tp99.9\tmax\tsent late\tunanswered\terrors\tserver CPU/req\tstore CPU/req\tRSS per call\t"
	if r.P99TargetUS > 0 {
		head += "p99 target\t\t"
	}
	fmt.Fprintln(tw, head)
	for _, c := range r.Results {
		cpu := func(v float64) string {
			if v > 0 {
				return fmt.Sprintf("%.1fµs", v)
			}
			return "-"
		}
		rss := "-"
		if c.Mem != nil && c.Mem.rssKnown {
			rss = fmt.Sprintf("%.0f B", c.Mem.RSSPerItem)
		}
		line := fmt.Sprintf("%s\t%.0f\t%.0f\t%s\t%s\t%s\t%s\t%d\t%d\t%d\t%s\t%s\t%s\t", c.label(), c.OfferedRate, c.AchievedRate,
			fmtUS(c.P50US), fmtUS(c.P99US), fmtUS(c.P999US), fmtUS(c.MaxUS), c.Late, c.Unanswered, c.Errors, cpu(c.ServerCPUUS), cpu(c.StoreCPUUS), rss)
		if r.P99TargetUS > 0 {
			// The target is Pome's; the ceiling's row shows what a bare
			// handler reaches under the same load, beside it.
			v := "met"
			if c.P99US > r.P99TargetUS || c.Errors > 0 || c.Unanswered > 0 {
				v = "missed"
			}
			if c.Side == SideBare {
				v = "(ceiling)"
			}
			line += fmtUS(r.P99TargetUS) + "\t" + v + "\t"
		}
		fmt.Fprintln(tw, line)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, c := range r.Results {
		if c.ErrorSample != "" {
			fmt.Fprintf(w, "%s first error: %s\n", c.label(), c.ErrorSample)
		}
		if c.Mem != nil {
			fmt.Fprintf(w, "server memory during %s (%d calls): %s\n", c.label(), c.Mem.Items, c.Mem.describe("call"))
		}
		if c.Stalls != nil {
			fmt.Fprintf(w, "%s: %s\n", c.label(), c.Stalls.describe())
		}
		if c.MachineBusy > 0 {
			fmt.Fprintf(w, "%s: %s\n", c.label(), c.describeMachine(r.Machine.NumCPU))
		}
	}
	fmt.Fprintf(w, "\nLatency runs from each request's due time (start + i/rate), so time a request waited for a free sender counts; \"sent late\" are requests sent over %v after they were due.\n", lateAfter)
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	return nil
}
