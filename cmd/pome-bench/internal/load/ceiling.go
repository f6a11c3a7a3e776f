package load

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// The ceiling mode measures each call of Calls twice in the same run, with
// the same load tool: against Pome, and against a bare net/http handler
// that answers exactly the bytes Pome answered for that call (status,
// headers, body), reached with the very same requests. Their ratio is what
// Pome's work costs beyond reading the request and writing the answer.

// Driver names.
const (
	DriverAuto = "auto" // wrk when it is installed, else the Go client
	DriverWrk  = "wrk"
	DriverGo   = "go"
)

// Targets of the ratio to the same-bytes handler, from the performance
// issue: reads at least half of it, writes at least a third.
const (
	ReadTarget  = 0.5
	WriteTarget = 0.33
)

// CeilingConfig is one run of the ceiling mode.
type CeilingConfig struct {
	Server, APIKey string
	// Sandboxes the requests of each call spread over (created before,
	// discarded after).
	Sandboxes int
	Calls     []Call
	// Rounds of every call, Pome and bare alternated.
	Rounds int
	Driver string
	// Wrk sets wrk's -t, -c and -d; with the Go client, Connections
	// clients run for Duration.
	Wrk    WrkOptions
	Warmup time.Duration
	// MaxRequests bounds a Go-client run (wrk is bounded by its time).
	MaxRequests int64
	ServerPID   int
	StorePID    int
	// Peers, when set, gives the other servers to measure each call on in
	// the same rounds (none for a call they do not serve).
	Peers func(Call) []PeerSide
	Log   io.Writer
}

func (c *CeilingConfig) logf(format string, args ...any) {
	if c.Log != nil {
		fmt.Fprintf(c.Log, format+"\n", args...)
	}
}

// Measure is one timed run of one call against one server.
type Measure struct {
	Requests uint64  `json:"requests"`
	Errors   uint64  `json:"errors"`
	PerSec   float64 `json:"req_per_sec"`
	P50US    float64 `json:"p50_us"`
	P99US    float64 `json:"p99_us"`
	P999US   float64 `json:"p999_us,omitempty"`
	// ClientCPUUS is the load tool's CPU per request (wrk's own; with the
	// Go client, this process's, which for the bare run includes the
	// handler).
	ClientCPUUS float64 `json:"client_cpu_us_per_request,omitempty"`
	// ServerCPUUS is the server's CPU per request: Pome's from
	// --server-pid, the bare handler's from this process when wrk drives.
	ServerCPUUS float64 `json:"server_cpu_us_per_request,omitempty"`
	StoreCPUUS  float64 `json:"store_cpu_us_per_request,omitempty"`
	ErrorSample string  `json:"error_sample,omitempty"`
}

// CallRound is one round of one call.
type CallRound struct {
	Pome Measure `json:"pome"`
	Bare Measure `json:"bare"`
}

// CeilingResult is one call over all rounds.
type CeilingResult struct {
	Call  string `json:"call"`
	Write bool   `json:"write"`
	// AnswerBytes is the body Pome answered, which the bare handler sends.
	AnswerBytes int         `json:"answer_bytes"`
	Rounds      []CallRound `json:"rounds"`
	// PomePerSec and BarePerSec are the medians over the rounds; Ratio is
	// the median of the rounds' ratios, MinRatio and MaxRatio their range.
	PomePerSec float64 `json:"pome_req_per_sec"`
	BarePerSec float64 `json:"bare_req_per_sec"`
	Ratio      float64 `json:"ratio"`
	MinRatio   float64 `json:"min_ratio"`
	MaxRatio   float64 `json:"max_ratio"`
	Target     float64 `json:"target"`
	// Peers are the other servers measured with the call.
	Peers []PeerResult `json:"peers,omitempty"`
}

// CeilingReport is a ceiling run.
type CeilingReport struct {
	Server string `json:"server"`
	Driver string `json:"driver"`
	// DriverNote says why the driver is the one it is.
	DriverNote  string          `json:"driver_note,omitempty"`
	Threads     int             `json:"threads,omitempty"`
	Connections int             `json:"connections"`
	Seconds     float64         `json:"seconds_per_run"`
	Sandboxes   int             `json:"sandboxes"`
	Rounds      int             `json:"rounds"`
	Machine     Machine         `json:"machine"`
	Results     []CeilingResult `json:"calls"`
	Notes       []string        `json:"notes,omitempty"`
	Started     time.Time       `json:"started"`
}

// ChooseDriver resolves DriverAuto and checks that wrk is there when asked
// for; the note says what was chosen and why, for the report.
func ChooseDriver(want, wrkPath string) (driver, note string, err error) {
	switch want {
	case DriverAuto, "":
		if wrkPath != "" {
			return DriverWrk, "wrk " + wrkPath, nil
		}
		return DriverGo, "wrk is not on PATH (apt-get install wrk), so the Go client drives: its own CPU per request is more than wrk's, on the cores the server uses, so every ratio is lower than wrk would measure", nil
	case DriverWrk:
		if wrkPath == "" {
			return "", "", errors.New("--driver wrk: wrk is not on PATH (apt-get install wrk)")
		}
		return DriverWrk, "wrk " + wrkPath, nil
	case DriverGo:
		return DriverGo, "the Go client, as asked (--driver go)", nil
	}
	return "", "", fmt.Errorf("unknown driver %q (auto, wrk or go)", want)
}

// cpuProbe reads the CPU of the server, the store and this process around
// a run, and with machine set the whole machine's (the rate mode's, which
// prints how busy the machine was).
type cpuProbe struct {
	server, store int
	machine       bool
}

type cpuReading struct {
	server, store, self int64
	// machine is the whole machine's CPU (machineOK: it could be read).
	machine   MachineCPU
	machineOK bool
}

func (p cpuProbe) read() cpuReading {
	var r cpuReading
	if p.server != 0 {
		r.server, _ = ReadCPU(p.server)
	}
	if p.store != 0 {
		r.store, _ = ReadCPU(p.store)
	}
	r.self, _ = ReadCPU(os.Getpid())
	if p.machine {
		m, err := ReadMachineCPU()
		r.machine, r.machineOK = m, err == nil
	}
	return r
}

// measurer runs one timed run of a call with the chosen driver.
type measurer struct {
	driver string
	wrk    WrkOptions
	maxReq int64
	// store is the pid of Pome's store (0: none), charged to Pome's runs.
	store int
}

// Who serves a run, for its CPU figures.
const (
	servedHere    = -1 // this process (the same-bytes handler)
	servedUnknown = 0  // a process whose pid is not known
)

// run measures c over targets. server is the pid of the process that
// serves them (servedHere, servedUnknown or a pid); withStore charges the
// store's CPU to the run.
func (m measurer) run(ctx context.Context, c Call, targets []Target, server int, withStore bool) (Measure, error) {
	probe := cpuProbe{}
	if server > 0 {
		probe.server = server
	}
	if withStore {
		probe.store = m.store
	}
	before := probe.read()
	var out Measure
	switch m.driver {
	case DriverWrk:
		r, err := Wrk(ctx, m.wrk, c, targets)
		if err != nil {
			return out, err
		}
		out = Measure{Requests: r.Requests - min(r.Requests, r.StatusErrs), Errors: r.StatusErrs + r.SocketErrs,
			PerSec: r.PerSec(), P50US: r.P50US, P99US: r.P99US, P999US: r.P999US, ClientCPUUS: r.CPUUS}
		if r.StatusErrs > 0 {
			// wrk counts wrong answers without keeping one; one request
			// sent after the run shows what the server answers.
			out.ErrorSample = fmt.Sprintf("%d answers outside 2xx/3xx", r.StatusErrs)
			client := NewClient(1)
			if _, err := Capture(ctx, client, c, targets[0]); err != nil {
				out.ErrorSample += "; one request after the run: " + err.Error()
			}
			client.CloseIdleConnections()
		}
	default:
		client := NewClient(m.wrk.Connections)
		defer client.CloseIdleConnections()
		res := Run(ctx, Options{Client: client, Concurrency: m.wrk.Connections, Duration: m.wrk.Duration, MaxRequests: m.maxReq}, c.Scenario(targets, m.wrk.Connections))
		out = Measure{Requests: res.Requests, Errors: res.Errors, PerSec: res.PerSec, P50US: res.P50US, P99US: res.P99US, ErrorSample: res.ErrorSample}
	}
	after := probe.read()
	if out.Requests > 0 {
		per := func(a, b int64) float64 { return float64(b-a) / float64(out.Requests) }
		switch {
		case server == servedHere && m.driver == DriverWrk:
			out.ServerCPUUS = per(before.self, after.self)
		case server > 0:
			out.ServerCPUUS = per(before.server, after.server)
		}
		if m.driver != DriverWrk {
			// The Go client's CPU, and for the same-bytes handler its CPU
			// too: both run in this process.
			out.ClientCPUUS = per(before.self, after.self)
		}
		if probe.store != 0 {
			out.StoreCPUUS = per(before.store, after.store)
		}
	}
	return out, nil
}

// PeerSide is another server measured with the same call in the same
// rounds (stripe-mock, emulate): the call as that server takes it, and its
// targets.
type PeerSide struct {
	Name    string
	Call    Call
	Targets []Target
	// PID is the peer's process, for its CPU per request (0: unknown).
	PID int
	// Target is the least Pome ÷ peer the performance issue asks for (0:
	// none).
	Target float64
	// AnswerBytes is the body the peer answered when checked before the
	// run: peers do not answer the same bytes as Pome.
	AnswerBytes int
}

// PeerResult is one peer's figures for one call over the rounds.
type PeerResult struct {
	Name   string    `json:"name"`
	Rounds []Measure `json:"rounds"`
	// PerSec is the median over the rounds; Ratio is the median of the
	// rounds' Pome ÷ peer.
	PerSec      float64 `json:"req_per_sec"`
	Ratio       float64 `json:"pome_over_peer"`
	Target      float64 `json:"target,omitempty"`
	AnswerBytes int     `json:"answer_bytes,omitempty"`
	// ServerCPUUS is the peer's CPU per request, averaged over the rounds.
	ServerCPUUS float64 `json:"server_cpu_us_per_request,omitempty"`
}

// Ceiling runs the ceiling mode against a running Pome server.
func Ceiling(ctx context.Context, cfg CeilingConfig) (*CeilingReport, error) {
	driver, note, err := ChooseDriver(cfg.Driver, WrkPathOr(cfg.Wrk.Path))
	if err != nil {
		return nil, err
	}
	if cfg.Sandboxes < 1 || cfg.Rounds < 1 || cfg.Wrk.Connections < 1 || cfg.Wrk.Duration <= 0 || len(cfg.Calls) == 0 {
		return nil, errors.New("ceiling: sandboxes, rounds, connections, duration and calls must all be positive")
	}
	if driver == DriverWrk && cfg.Wrk.Threads < 1 {
		return nil, errors.New("ceiling: wrk needs at least one thread")
	}
	client := NewClient(cfg.Wrk.Connections)
	defer client.CloseIdleConnections()
	pome, err := NewPome(cfg.Server, cfg.APIKey, client)
	if err != nil {
		return nil, err
	}
	rep := &CeilingReport{Server: pome.Server.String(), Driver: driver, DriverNote: note, Connections: cfg.Wrk.Connections,
		Seconds: cfg.Wrk.Duration.Seconds(), Rounds: cfg.Rounds, Machine: ThisMachine(), Started: time.Now().UTC()}
	if driver == DriverWrk {
		rep.Threads = cfg.Wrk.Threads
	}
	m := measurer{driver: driver, wrk: cfg.Wrk, maxReq: cfg.MaxRequests, store: cfg.StorePID}
	if m.maxReq <= 0 {
		m.maxReq = 5_000_000
	}
	if driver == DriverWrk && m.wrk.Path == "" {
		m.wrk.Path = WrkPath()
	}

	twins := callTwins(cfg.Calls)
	cfg.logf("creating %d sandboxes (%s)", cfg.Sandboxes, strings.Join(twins, ", "))
	sbs, err := pome.CreateMany(ctx, cfg.Sandboxes, min(cfg.Wrk.Connections, 16), twins)
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

	type prepared struct {
		call    Call
		targets []Target
		bare    *Server
		bareTs  []Target
		peers   []PeerSide
		res     *CeilingResult
	}
	var ps []*prepared
	defer func() {
		for _, p := range ps {
			if p.bare != nil {
				p.bare.Close()
			}
		}
	}()
	for _, c := range cfg.Calls {
		ts, err := c.Targets(ctx, client, sbs)
		if err != nil {
			return rep, err
		}
		ps = append(ps, &prepared{call: c, targets: ts})
	}
	// All rounds of a call run before the next call starts: Calls puts
	// each twin's read before its write, so no read is measured on a world
	// that an earlier round's writes have grown (a channel's history after
	// 50,000 posts is another call). The bare answer is captured right
	// before the call's first timed run, so it is what Pome answers then.
	for _, p := range ps {
		for r := 0; r < cfg.Rounds && ctx.Err() == nil; r++ {
			c := p.call
			if p.res == nil {
				if cfg.Warmup > 0 {
					w := m
					w.wrk.Duration = cfg.Warmup
					if _, err := w.run(ctx, c, p.targets, servedUnknown, false); err != nil {
						return rep, fmt.Errorf("%s warm-up: %w", c.Name, err)
					}
				}
				ans, err := Capture(ctx, client, c, p.targets[0])
				if err != nil {
					return rep, err
				}
				if p.bare, err = Serve("127.0.0.1:0", NewSameBytesHandler(ans)); err != nil {
					return rep, err
				}
				p.bareTs = Rebase(p.targets, p.bare.URL)
				target := ReadTarget
				if c.Write {
					target = WriteTarget
				}
				p.res = &CeilingResult{Call: c.Name, Write: c.Write, AnswerBytes: len(ans.Body), Target: target}
				if cfg.Peers != nil {
					p.peers = cfg.Peers(c)
					for _, ps := range p.peers {
						p.res.Peers = append(p.res.Peers, PeerResult{Name: ps.Name, Target: ps.Target, AnswerBytes: ps.AnswerBytes})
					}
				}
			}
			var round CallRound
			// Alternate which goes first, so a drift of the machine's
			// speed within a round does not favour one side.
			order := []bool{false, true}
			if r%2 == 1 {
				order = []bool{true, false}
			}
			for _, bare := range order {
				ts, dst, who := p.targets, &round.Pome, "pome"
				if bare {
					ts, dst, who = p.bareTs, &round.Bare, "bare"
				}
				server := cfg.ServerPID
				if bare {
					server = servedHere
				}
				res, err := m.run(ctx, c, ts, server, !bare)
				if err != nil {
					return rep, fmt.Errorf("%s (%s): %w", c.Name, who, err)
				}
				*dst = res
				cfg.logf("round %d %-24s %s %10.0f req/s  p50 %s  p99 %s  errors %d", r+1, c.Name, who, res.PerSec, fmtUS(res.P50US), fmtUS(res.P99US), res.Errors)
			}
			p.res.Rounds = append(p.res.Rounds, round)
			for i, ps := range p.peers {
				res, err := m.run(ctx, ps.Call, ps.Targets, ps.PID, false)
				if err != nil {
					return rep, fmt.Errorf("%s (%s): %w", c.Name, ps.Name, err)
				}
				cfg.logf("round %d %-24s %s %10.0f req/s  p50 %s  p99 %s  errors %d", r+1, c.Name, ps.Name, res.PerSec, fmtUS(res.P50US), fmtUS(res.P99US), res.Errors)
				p.res.Peers[i].Rounds = append(p.res.Peers[i].Rounds, res)
			}
		}
	}
	for _, p := range ps {
		if p.res != nil {
			p.res.summarize()
			rep.Results = append(rep.Results, *p.res)
		}
	}
	return rep, ctx.Err()
}

// WrkPathOr is path when set, else wrk's place on PATH ("" when absent).
func WrkPathOr(path string) string {
	if path != "" {
		return path
	}
	return WrkPath()
}

// callTwins are the twins the calls need, in a stable order.
func callTwins(calls []Call) []string {
	var out []string
	for _, c := range calls {
		if !slices.Contains(out, c.Twin) {
			out = append(out, c.Twin)
		}
	}
	return out
}

// summarize fills the medians and the ratio's range from the rounds.
func (r *CeilingResult) summarize() {
	var pome, bare, ratios []float64
	for _, rd := range r.Rounds {
		pome = append(pome, rd.Pome.PerSec)
		bare = append(bare, rd.Bare.PerSec)
		if rd.Bare.PerSec > 0 {
			ratios = append(ratios, rd.Pome.PerSec/rd.Bare.PerSec)
		}
	}
	r.PomePerSec, r.BarePerSec = median(pome), median(bare)
	for i := range r.Peers {
		p := &r.Peers[i]
		var rates, ratios []float64
		for k, m := range p.Rounds {
			rates = append(rates, m.PerSec)
			if m.PerSec > 0 && k < len(r.Rounds) {
				ratios = append(ratios, r.Rounds[k].Pome.PerSec/m.PerSec)
			}
		}
		p.PerSec, p.Ratio = median(rates), median(ratios)
		var cpu float64
		for _, m := range p.Rounds {
			cpu += m.ServerCPUUS / float64(len(p.Rounds))
		}
		p.ServerCPUUS = cpu
	}
	r.Ratio = median(ratios)
	if len(ratios) > 0 {
		r.MinRatio, r.MaxRatio = slices.Min(ratios), slices.Max(ratios)
	}
}

// median of xs (0 for none): the middle value, or the mean of the two
// middle ones.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	} else {
		return (s[n/2-1] + s[n/2]) / 2
	}
}

// verdict says whether a ratio meets its target.
func verdict(ratio, target float64) string {
	if ratio >= target {
		return "met"
	}
	return "missed"
}

// meanOf averages one figure of a side over the rounds (0s left out).
func meanOf(rounds []CallRound, bare bool, f func(Measure) float64) float64 {
	var sum float64
	n := 0
	for _, r := range rounds {
		m := r.Pome
		if bare {
			m = r.Bare
		}
		if v := f(m); v > 0 {
			sum += v
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// WriteCeilingTable prints a ceiling report for people.
func WriteCeilingTable(w io.Writer, r *CeilingReport) error {
	fmt.Fprintf(w, "server %s  driver %s", r.Server, r.Driver)
	if r.Driver == DriverWrk {
		fmt.Fprintf(w, " -t%d -c%d -d%gs", r.Threads, r.Connections, r.Seconds)
	} else {
		fmt.Fprintf(w, "  %d clients, %gs per run", r.Connections, r.Seconds)
	}
	fmt.Fprintf(w, "  %d sandboxes  %d rounds\n", r.Sandboxes, r.Rounds)
	if r.DriverNote != "" {
		fmt.Fprintf(w, "driver: %s\n", r.DriverNote)
	}
	fmt.Fprintf(w, "machine %d CPU %s, %s/%s, %s\n\n", r.Machine.NumCPU, r.Machine.CPUModel, r.Machine.GOOS, r.Machine.GOARCH, r.Machine.GoVersion)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "call\tbytes\tpome req/s\tbare req/s\tpome/bare\trange\ttarget\t\tpome p50\tpome p99\tpome CPU/req\tbare CPU/req\tclient CPU/req pome\tbare\terrors\t")
	for _, c := range r.Results {
		cpu := func(bare bool, f func(Measure) float64) string {
			if v := meanOf(c.Rounds, bare, f); v > 0 {
				return fmt.Sprintf("%.1fµs", v)
			}
			return "-"
		}
		var errs uint64
		for _, rd := range c.Rounds {
			errs += rd.Pome.Errors + rd.Bare.Errors
		}
		fmt.Fprintf(tw, "%s\t%d\t%.0f\t%.0f\t%.2f\t%.2f–%.2f\t%.2f\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t\n",
			c.Call, c.AnswerBytes, c.PomePerSec, c.BarePerSec, c.Ratio, c.MinRatio, c.MaxRatio, c.Target, verdict(c.Ratio, c.Target),
			fmtUS(meanOf(c.Rounds, false, func(m Measure) float64 { return m.P50US })),
			fmtUS(meanOf(c.Rounds, false, func(m Measure) float64 { return m.P99US })),
			cpu(false, func(m Measure) float64 { return m.ServerCPUUS }),
			cpu(true, func(m Measure) float64 { return m.ServerCPUUS }),
			cpu(false, func(m Measure) float64 { return m.ClientCPUUS }),
			cpu(true, func(m Measure) float64 { return m.ClientCPUUS }),
			errs)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, c := range r.Results {
		for i, rd := range c.Rounds {
			for _, s := range []struct {
				who string
				m   Measure
			}{{"pome", rd.Pome}, {"bare", rd.Bare}} {
				if s.m.ErrorSample != "" {
					fmt.Fprintf(w, "%s round %d (%s) first error: %s\n", c.Call, i+1, s.who, s.m.ErrorSample)
				}
			}
		}
	}
	if slices.ContainsFunc(r.Results, func(c CeilingResult) bool { return len(c.Peers) > 0 }) {
		fmt.Fprintln(w)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "call\tpeer\tpeer bytes\tpeer req/s\tpome req/s\tpome/peer\trange\ttarget\t\tpeer CPU/req\tpeer errors\t")
		for _, c := range r.Results {
			for _, p := range c.Peers {
				var ratios []float64
				var errs uint64
				for k, m := range p.Rounds {
					errs += m.Errors
					if m.PerSec > 0 && k < len(c.Rounds) {
						ratios = append(ratios, c.Rounds[k].Pome.PerSec/m.PerSec)
					}
				}
				rng, target, v := "-", "-", ""
				if len(ratios) > 0 {
					rng = fmt.Sprintf("%.2f–%.2f", slices.Min(ratios), slices.Max(ratios))
				}
				if p.Target > 0 {
					target, v = fmt.Sprintf("%.2f", p.Target), verdict(p.Ratio, p.Target)
				}
				cpu := "-"
				if p.ServerCPUUS > 0 {
					cpu = fmt.Sprintf("%.1fµs", p.ServerCPUUS)
				}
				fmt.Fprintf(tw, "%s\t%s\t%d\t%.0f\t%.0f\t%.2f\t%s\t%s\t%s\t%s\t%d\t\n", c.Call, p.Name, p.AnswerBytes, p.PerSec, c.PomePerSec, p.Ratio, rng, target, v, cpu, errs)
			}
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		for _, c := range r.Results {
			for _, p := range c.Peers {
				for i, m := range p.Rounds {
					if m.ErrorSample != "" {
						fmt.Fprintf(w, "%s round %d (%s) first error: %s\n", c.Call, i+1, p.Name, m.ErrorSample)
					}
				}
			}
		}
	}
	fmt.Fprintln(w, "\npome/bare is the median over the rounds of Pome's req/s over that of a bare net/http handler answering the bytes Pome answered, measured by the same tool in the same round.")
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	return nil
}
