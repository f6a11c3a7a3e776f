package load

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"
)

// Config is one bench run.
type Config struct {
	Server string
	APIKey string
	// Concurrency is the number of clients sending at once.
	Concurrency int
	// Duration bounds each measured scenario; Warmup runs before each,
	// unmeasured, so connections and the server's caches are warm.
	Duration time.Duration
	Warmup   time.Duration
	// Sandboxes is how many sandboxes the data-plane scenarios spread
	// over. They are created before and discarded after.
	Sandboxes int
	// Twins are the twins of every sandbox the bench creates (default
	// worlds).
	Twins []string
	// Baseline measures the bare handler too, before and after the
	// scenarios, and gives every figure as a ratio to the mean of the two.
	Baseline bool
	// Scenarios selects what runs (nil: all), from AllScenarios.
	Scenarios []string
	// CreateCount bounds the sandbox-create phase; those sandboxes are
	// discarded before the pool is made, so it may be as large as the team
	// quota.
	CreateCount int
	// CreateWarmup is how many sandboxes are created, and discarded,
	// before the create phase is measured (0: none). A server fresh from
	// its start is slower at creating than it will be: its heap grows into
	// memory the system has not handed it yet (first touches of new pages),
	// where a server that has been discarding sandboxes makes new ones in
	// the memory of the old.
	CreateWarmup int
	// MaxRequests bounds each scenario's request count.
	MaxRequests int64
	// ServerPID, when set, is the server's process id on this machine: its
	// RSS is read around every step.
	ServerPID int
	// StorePID, when set, is the process id of the store the server uses
	// (redis-server) on this machine: its CPU per request is reported too,
	// since it shares the cores with the server and the client.
	StorePID int
	// MCPVersion is the MCP-Protocol-Version of the MCP scenario's calls,
	// one of MCPVersions ("": MCPProtocolVersion).
	MCPVersion string
	// ServerHeap reads the server's live heap around every step from its
	// /debug/pprof/heap (the server must run with --pprof). Each reading
	// forces a GC on the server, between timed runs only.
	ServerHeap bool
	// Log receives progress lines (nil: none).
	Log io.Writer
}

// Machine describes where the bench ran.
type Machine struct {
	GOOS      string `json:"goos"`
	GOARCH    string `json:"goarch"`
	NumCPU    int    `json:"num_cpu"`
	CPUModel  string `json:"cpu_model,omitempty"`
	GoVersion string `json:"go_version"`
}

// Report is everything a run measured.
type Report struct {
	Server          string  `json:"server"`
	Concurrency     int     `json:"concurrency"`
	DurationSeconds float64 `json:"duration_seconds"`
	// Sandboxes is how many sandboxes the data-plane scenarios spread
	// over (0 when none ran).
	Sandboxes int      `json:"sandboxes"`
	Twins     []string `json:"twins"`
	// MCPVersion is the protocol version of the MCP scenario's calls.
	MCPVersion string  `json:"mcp_protocol_version"`
	Machine    Machine `json:"machine"`
	Baseline   *Result `json:"baseline,omitempty"`
	// BaselineEnd is the baseline measured again after the last scenario.
	BaselineEnd *Result   `json:"baseline_end,omitempty"`
	Scenarios   []Result  `json:"scenarios"`
	Pool        *MemDelta `json:"server_mem_pool,omitempty"`
	// PoolSeconds is how long creating the data-plane sandboxes took (with
	// Concurrency clients): next to the create phase, which runs on an
	// empty team, it shows whether create slows as sandboxes accumulate.
	PoolSeconds float64   `json:"pool_create_seconds,omitempty"`
	Notes       []string  `json:"notes,omitempty"`
	Started     time.Time `json:"started"`
}

func (c *Config) logf(format string, args ...any) {
	if c.Log != nil {
		fmt.Fprintf(c.Log, format+"\n", args...)
	}
}

func (c *Config) mcpVersion() string {
	if c.MCPVersion == "" {
		return MCPProtocolVersion
	}
	return c.MCPVersion
}

func (c *Config) wants(name string) bool {
	return len(c.Scenarios) == 0 || slices.Contains(c.Scenarios, name)
}

// Validate checks the bounds before anything is sent.
func (c *Config) Validate() error {
	switch {
	case c.Concurrency < 1:
		return errors.New("concurrency must be at least 1")
	case c.Duration <= 0:
		return errors.New("duration must be positive")
	case c.Warmup < 0:
		return errors.New("warmup must not be negative")
	case c.Sandboxes < 1:
		return errors.New("sandboxes must be at least 1")
	case c.CreateCount < 1:
		return errors.New("create count must be at least 1")
	case c.CreateWarmup < 0:
		return errors.New("create warm-up must not be negative")
	case c.MaxRequests < 1:
		return errors.New("max requests must be at least 1")
	case len(c.Twins) == 0:
		return errors.New("at least one twin")
	case c.MCPVersion != "" && !slices.Contains(MCPVersions, c.MCPVersion):
		return fmt.Errorf("unknown MCP protocol version %q (have %s)", c.MCPVersion, strings.Join(MCPVersions, ", "))
	}
	for _, s := range c.Scenarios {
		if !slices.Contains(AllScenarios, s) {
			return fmt.Errorf("unknown scenario %q (have %s)", s, strings.Join(AllScenarios, ", "))
		}
	}
	return nil
}

// needs is the twin each data-plane scenario calls.
var needs = map[string]string{
	NameGetIssue: "github", NamePostComment: "github", NameMCPToolsCall: "github",
	NamePostMessage: "slack",
}

// Bench runs the configured scenarios against the server and returns the
// report. Every sandbox it creates is discarded before it returns, also
// when ctx is cancelled or a step fails.
func Bench(ctx context.Context, cfg Config) (*Report, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	client := NewClient(cfg.Concurrency)
	defer client.CloseIdleConnections()
	pome, err := NewPome(cfg.Server, cfg.APIKey, client)
	if err != nil {
		return nil, err
	}
	rep := &Report{
		Server: pome.Server.String(), Concurrency: cfg.Concurrency, DurationSeconds: cfg.Duration.Seconds(),
		Twins: cfg.Twins, MCPVersion: cfg.mcpVersion(), Machine: ThisMachine(), Started: time.Now().UTC(),
	}
	opt := Options{Client: client, Concurrency: cfg.Concurrency, Duration: cfg.Duration, MaxRequests: cfg.MaxRequests}
	probe := &memProbe{pid: cfg.ServerPID, client: client, logf: cfg.logf}
	if cfg.ServerHeap {
		probe.heapURL, probe.apiKey = pome.Server.String()+"/debug/pprof/heap?gc=1&debug=1", pome.APIKey
	}
	measure := func(sc Scenario, opt Options, warmup time.Duration) Result {
		if warmup > 0 {
			w := opt
			w.Duration = warmup
			Run(ctx, w, sc)
		}
		var before memReading
		if probe.enabled() {
			before = probe.read(ctx)
		}
		cpu0, cpuErr := int64(0), error(nil)
		if cfg.ServerPID != 0 {
			cpu0, cpuErr = ReadCPU(cfg.ServerPID)
		}
		self0, selfErr := ReadCPU(os.Getpid())
		store0, storeErr := int64(0), error(nil)
		if cfg.StorePID != 0 {
			store0, storeErr = ReadCPU(cfg.StorePID)
		}
		res := Run(ctx, opt, sc)
		if cfg.StorePID != 0 && storeErr == nil && res.Requests > 0 {
			if store1, err := ReadCPU(cfg.StorePID); err == nil {
				res.StoreCPUUS = float64(store1-store0) / float64(res.Requests)
			}
		}
		if self1, err := ReadCPU(os.Getpid()); err == nil && selfErr == nil && res.Requests > 0 {
			res.ClientCPUUS = float64(self1-self0) / float64(res.Requests)
		}
		if cfg.ServerPID != 0 && cpuErr == nil && res.Requests > 0 {
			if cpu1, err := ReadCPU(cfg.ServerPID); err == nil {
				res.ServerCPUUS = float64(cpu1-cpu0) / float64(res.Requests)
			}
		}
		if probe.enabled() {
			res.Mem = newDelta(before, probe.read(ctx), res.Requests)
		}
		cfg.logf("%-20s %10.0f req/s  p50 %s  p99 %s  errors %d", res.Name, res.PerSec, fmtUS(res.P50US), fmtUS(res.P99US), res.Errors)
		return res
	}

	runBaseline := func(name string) (*Result, error) {
		b, err := StartBaseline()
		if err != nil {
			return nil, fmt.Errorf("baseline: %w", err)
		}
		defer b.Close()
		sc := BaselineScenario(b.URL)
		sc.Name = name
		res := measure(sc, opt, cfg.Warmup)
		// The baseline runs in this process: the server's memory and CPU
		// say nothing about it.
		res.Mem, res.ServerCPUUS, res.StoreCPUUS = nil, 0, 0
		return &res, nil
	}
	withBaseline := cfg.Baseline && cfg.wants(NameBaseline)
	if withBaseline {
		if rep.Baseline, err = runBaseline(NameBaseline); err != nil {
			return nil, err
		}
	}

	// Discards run on their own context: a cancelled run still cleans up.
	cleanup := func(ids []string) {
		if len(ids) == 0 {
			return
		}
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Minute)
		defer cancel()
		if failed, err := pome.DiscardMany(dctx, ids, cfg.Concurrency); err != nil {
			rep.Notes = append(rep.Notes, fmt.Sprintf("%d of %d sandboxes not discarded: %v", failed, len(ids), err))
		}
	}

	if cfg.wants(NameHealthz) && ctx.Err() == nil {
		rep.Scenarios = append(rep.Scenarios, measure(pome.HealthzScenario(), opt, cfg.Warmup))
	}

	if cfg.wants(NameCreate) && ctx.Err() == nil {
		// The warm-up is counted, not timed like the others: it creates
		// sandboxes in batches of at most CreateCount (what the team's
		// quota must allow for the measured run anyway), each discarded
		// before the next.
		for left := cfg.CreateWarmup; left > 0 && ctx.Err() == nil; {
			var warm []string
			wopt := opt
			wopt.MaxRequests = min(opt.MaxRequests, int64(min(left, cfg.CreateCount)))
			Run(ctx, wopt, pome.CreateScenario(cfg.Twins, &warm))
			cleanup(warm)
			if len(warm) == 0 {
				// Refused: the measured run will say why.
				break
			}
			left -= len(warm)
		}
		var made []string
		copt := opt
		copt.MaxRequests = min(opt.MaxRequests, int64(cfg.CreateCount))
		res := measure(pome.CreateScenario(cfg.Twins, &made), copt, 0)
		cleanup(made)
		rep.Scenarios = append(rep.Scenarios, res)
	}

	var data []string
	for _, name := range []string{NameGetIssue, NamePostComment, NamePostMessage, NameMCPToolsCall} {
		if !cfg.wants(name) {
			continue
		}
		if !slices.Contains(cfg.Twins, needs[name]) {
			rep.Scenarios = append(rep.Scenarios, Result{Name: name, Skipped: "no " + needs[name] + " twin in --twins"})
			continue
		}
		data = append(data, name)
	}
	if len(data) > 0 && ctx.Err() == nil {
		cfg.logf("creating %d sandboxes (%s)", cfg.Sandboxes, strings.Join(cfg.Twins, ", "))
		var before memReading
		if probe.enabled() {
			before = probe.read(ctx)
		}
		t0 := time.Now()
		sbs, err := pome.CreateMany(ctx, cfg.Sandboxes, cfg.Concurrency, cfg.Twins)
		rep.PoolSeconds = time.Since(t0).Seconds()
		rep.Sandboxes = len(sbs)
		ids := make([]string, len(sbs))
		for i, sb := range sbs {
			ids[i] = sb.ID
		}
		defer cleanup(ids)
		if err != nil {
			return rep, err
		}
		if probe.enabled() {
			rep.Pool = newDelta(before, probe.read(ctx), uint64(len(sbs)))
		}
		for _, name := range data {
			if ctx.Err() != nil {
				break
			}
			var sc Scenario
			switch name {
			case NameGetIssue:
				sc = GetIssueScenario(sbs, cfg.Concurrency)
			case NamePostComment:
				sc = PostCommentScenario(sbs, cfg.Concurrency)
			case NamePostMessage:
				sc = PostMessageScenario(sbs, cfg.Concurrency)
			case NameMCPToolsCall:
				sc = MCPToolsCallScenario(sbs, cfg.Concurrency, cfg.mcpVersion())
			}
			rep.Scenarios = append(rep.Scenarios, measure(sc, opt, cfg.Warmup))
		}
	}

	// The baseline is measured again at the end: on a shared machine the
	// capacity left to this run can change while it runs, and the two
	// readings say by how much. Ratios use their mean.
	if withBaseline && len(rep.Scenarios) > 0 && ctx.Err() == nil {
		if rep.BaselineEnd, err = runBaseline(NameBaseline + "_end"); err != nil {
			return rep, err
		}
	}
	if rep.Baseline != nil && rep.Baseline.PerSec > 0 {
		ref := rep.Baseline.PerSec
		if e := rep.BaselineEnd; e != nil && e.PerSec > 0 {
			ref = (rep.Baseline.PerSec + e.PerSec) / 2
			e.Ratio = e.PerSec / ref
			if d := e.PerSec/rep.Baseline.PerSec - 1; d > 0.2 || d < -0.2 {
				rep.Notes = append(rep.Notes, fmt.Sprintf("the baseline moved %+.0f%% between the start and the end of the run: the machine's spare capacity changed, so the ratios are uncertain by about that much", d*100))
			}
		}
		rep.Baseline.Ratio = rep.Baseline.PerSec / ref
		for i := range rep.Scenarios {
			rep.Scenarios[i].Ratio = rep.Scenarios[i].PerSec / ref
		}
	}
	return rep, ctx.Err()
}

// ThisMachine describes the machine the bench runs on.
func ThisMachine() Machine {
	m := Machine{GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, NumCPU: runtime.NumCPU(), GoVersion: runtime.Version()}
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPUModel = strings.TrimSpace(v)
				break
			}
		}
	}
	return m
}
