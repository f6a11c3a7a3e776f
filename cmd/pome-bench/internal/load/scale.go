package load

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/pomehq/pome/twins/scaleseed"
)

// The scale runs answer "does a write cost more as the sandbox grows?"
// for three kinds of growth: the entities in the world the write changes
// (issues, channel messages, customers, mailbox messages), the rows already
// on the twin's tape, and the sandboxes open on the server. Each point
// sends the same write a fixed number of times and reports the server's
// CPU per write (with --server-pid) and the write's latency; a series'
// spread is its largest figure over its smallest, 1.0 for a flat cost.
//
// Before the timing every sandbox of a point answers one read of the
// twin: the memory store decodes a sandbox's seed on its first call, a
// cost that grows with the world but is paid once per sandbox, not per
// write. The point reports it apart (the median of those first calls),
// so that the writes measure a world already in use. With rounds, each
// point is measured that many times, the sizes taken in a rotated order
// each round, and the point's figures are the medians.

// Scale dimensions.
const (
	DimWorld     = "world"
	DimTape      = "tape"
	DimSandboxes = "sandboxes"
)

// ScaleConfig is one scale run.
type ScaleConfig struct {
	Server, APIKey string
	Dims           []string
	// WorldSizes, TapeSizes and SandboxCounts are each dimension's points.
	WorldSizes    []int
	TapeSizes     []int
	SandboxCounts []int
	// WorldTwins are the twins whose writes the world dimension measures
	// (github, slack, stripe, gmail).
	WorldTwins []string
	// Writes is how many writes each point sends.
	Writes int
	// Concurrency is how many clients send them (1: one after another, so
	// the latency is the cost of one write).
	Concurrency int
	// Rounds is how many times each point is measured (0: once).
	Rounds    int
	ServerPID int
	StorePID  int
	Log       io.Writer
}

// ScalePoint is one size of one series.
type ScalePoint struct {
	Size   int     `json:"size"`
	Writes uint64  `json:"writes"`
	Errors uint64  `json:"errors"`
	PerSec float64 `json:"writes_per_sec"`
	P50US  float64 `json:"p50_us"`
	P99US  float64 `json:"p99_us"`
	// ServerCPUUS and StoreCPUUS are per write.
	ServerCPUUS float64 `json:"server_cpu_us_per_write,omitempty"`
	StoreCPUUS  float64 `json:"store_cpu_us_per_write,omitempty"`
	// Sandboxes is how many sandboxes the point's writes went to: in the
	// world and tape dimensions each takes at most max(20, size/5) of
	// them, so the writes never grow what is measured by more than a
	// fifth.
	Sandboxes   int    `json:"sandboxes"`
	ErrorSample string `json:"error_sample,omitempty"`
	// FirstCallUS is the median wall time of the read each sandbox
	// answered before the timing: its first call, which brings its world
	// into use.
	FirstCallUS float64 `json:"first_call_p50_us,omitempty"`
	// Costs is the point's cost (as the series' Measure) in each round,
	// when there was more than one.
	Costs []float64 `json:"costs_per_round,omitempty"`
}

// cost is the point's figure a spread is taken of: server CPU per write
// when every point of the series has it, else wall time per write per
// client.
func (p ScalePoint) cost(concurrency int, cpu bool) float64 {
	if cpu {
		return p.ServerCPUUS
	}
	if p.PerSec > 0 {
		return float64(concurrency) * 1e6 / p.PerSec
	}
	return 0
}

// ScaleSeries is one write measured at every size of one dimension.
type ScaleSeries struct {
	Dim    string       `json:"dimension"`
	Call   string       `json:"call"`
	Unit   string       `json:"unit"`
	Points []ScalePoint `json:"points"`
	// Spread is the largest cost over the smallest; Measure names the
	// cost.
	Spread  float64 `json:"spread"`
	Measure string  `json:"measure"`
}

// ScaleReport is a scale run.
type ScaleReport struct {
	Server      string        `json:"server"`
	Writes      int           `json:"writes_per_point"`
	Concurrency int           `json:"concurrency"`
	Rounds      int           `json:"rounds"`
	Machine     Machine       `json:"machine"`
	Series      []ScaleSeries `json:"series"`
	Notes       []string      `json:"notes,omitempty"`
	Started     time.Time     `json:"started"`
}

// worldWrite is the write of one twin in the world dimension, with the
// seed of a world of n entities.
type worldWrite struct {
	twin string
	unit string
	call func(n int) Call
	seed func(n int) (json.RawMessage, error)
}

func callNamed(name string) Call {
	for _, c := range append(Calls, GmailSend) {
		if c.Name == name {
			return c
		}
	}
	panic("no call " + name)
}

var worldWrites = []worldWrite{
	{twin: "github", unit: "issues", seed: scaleseed.GitHub, call: func(n int) Call {
		// A comment on the newest issue: the far end of the repository
		// from issue #1, where a scan would cost most.
		c := callNamed(CallPostComment)
		c.Path = "/repos/acme/api/issues/" + strconv.Itoa(n) + "/comments"
		return c
	}},
	{twin: "slack", unit: "messages", seed: scaleseed.Slack, call: func(int) Call { return callNamed(CallPostMessage) }},
	{twin: "stripe", unit: "customers", seed: scaleseed.Stripe, call: func(int) Call { return callNamed(CallCreateCustomer) }},
	{twin: "gmail", unit: "messages", seed: scaleseed.Gmail, call: func(int) Call { return GmailSend }},
}

// firstReads are the reads that bring each twin's world into use before a
// point's writes.
var firstReads = map[string]Call{
	"github": callNamed(CallGetIssue),
	"slack":  callNamed(CallHistory),
	"stripe": {Name: "stripe_list_customers", Twin: "stripe", Method: http.MethodGet, Path: "/v1/customers?limit=1", Want: http.StatusOK},
	"gmail":  {Name: "gmail_list_messages", Twin: "gmail", Method: http.MethodGet, Path: "/gmail/v1/users/me/messages?maxResults=1", Want: http.StatusOK},
}

// WorldTwins are the twins the world dimension can measure.
func WorldTwins() []string {
	out := make([]string, len(worldWrites))
	for i, w := range worldWrites {
		out[i] = w.twin
	}
	return out
}

// writesPerSandbox bounds how much a point's writes grow what it measures:
// a sandbox of size n takes at most max(20, n/5) writes, then the next
// sandbox (made alike before the timing) takes over.
func writesPerSandbox(n int) int { return max(20, n/5) }

// sandboxesFor is how many sandboxes a point of size n needs for writes.
func sandboxesFor(n, writes int) int {
	w := writesPerSandbox(n)
	return (writes + w - 1) / w
}

// turn is the sandbox write j goes to when each of n sandboxes takes per
// writes in turn: the first per go to sandbox 0, the next per to sandbox 1,
// and so on round (per 1 is plain round-robin).
func turn(j, per, n int) int { return (j / per) % n }

// Scale runs the scale mode against a running Pome server.
func Scale(ctx context.Context, cfg ScaleConfig) (*ScaleReport, error) {
	if cfg.Writes < 1 || cfg.Concurrency < 1 {
		return nil, errors.New("scale: writes and concurrency must be positive")
	}
	for _, d := range cfg.Dims {
		if !slices.Contains([]string{DimWorld, DimTape, DimSandboxes}, d) {
			return nil, fmt.Errorf("scale: unknown dimension %q (world, tape, sandboxes)", d)
		}
	}
	for _, t := range cfg.WorldTwins {
		if !slices.Contains(WorldTwins(), t) {
			return nil, fmt.Errorf("scale: no world write for twin %q (have %s)", t, strings.Join(WorldTwins(), ", "))
		}
	}
	logf := func(format string, args ...any) {
		if cfg.Log != nil {
			fmt.Fprintf(cfg.Log, format+"\n", args...)
		}
	}
	client := NewClient(16)
	defer client.CloseIdleConnections()
	pome, err := NewPome(cfg.Server, cfg.APIKey, client)
	if err != nil {
		return nil, err
	}
	rep := &ScaleReport{Server: pome.Server.String(), Writes: cfg.Writes, Concurrency: cfg.Concurrency, Rounds: max(1, cfg.Rounds), Machine: ThisMachine(), Started: time.Now().UTC()}
	s := &scaler{cfg: cfg, pome: pome, cpu: cpuProbe{server: cfg.ServerPID, store: cfg.StorePID}, logf: logf, rep: rep}
	defer s.discardAll(ctx)

	// measure makes the sandboxes of one point, prepares them, brings
	// their worlds into use, sends the writes and discards them.
	measure := func(dim string, c Call, size, sandboxes, per int, twins []string, seeds map[string]json.RawMessage, prep func([]*Sandbox) error) (ScalePoint, error) {
		if ctx.Err() != nil {
			return ScalePoint{}, ctx.Err()
		}
		sbs, err := s.create(ctx, sandboxes, twins, seeds)
		if err != nil {
			return ScalePoint{}, fmt.Errorf("%s %s at %d: %w", dim, c.Name, size, err)
		}
		defer s.discard(ctx, sbs)
		if prep != nil {
			if err := prep(sbs); err != nil {
				return ScalePoint{}, err
			}
		}
		first, err := s.firstCalls(ctx, c.Twin, sbs)
		if err != nil {
			return ScalePoint{}, fmt.Errorf("%s %s at %d: first calls: %w", dim, c.Name, size, err)
		}
		p, err := s.point(ctx, c, sbs, size, per)
		p.FirstCallUS = first
		return p, err
	}
	rounds := max(1, cfg.Rounds)
	// series measures one write at every size, rounds times.
	series := func(dim, call, unit string, sizes []int, point func(n int) (ScalePoint, error)) error {
		se := ScaleSeries{Dim: dim, Call: call, Unit: unit}
		byRound := make([][]ScalePoint, len(sizes))
		for r := range rounds {
			for k := range sizes {
				i := (k + r) % len(sizes)
				p, err := point(sizes[i])
				byRound[i] = append(byRound[i], p)
				if err != nil {
					se.Points = medianPoints(byRound, cfg.Concurrency)
					rep.Series = append(rep.Series, se.summarize(cfg.Concurrency))
					return err
				}
			}
		}
		se.Points = medianPoints(byRound, cfg.Concurrency)
		rep.Series = append(rep.Series, se.summarize(cfg.Concurrency))
		return nil
	}
	for _, dim := range cfg.Dims {
		switch dim {
		case DimWorld:
			for _, ww := range worldWrites {
				if !slices.Contains(cfg.WorldTwins, ww.twin) {
					continue
				}
				err := series(DimWorld, ww.call(1).Name, ww.unit, cfg.WorldSizes, func(n int) (ScalePoint, error) {
					seed, err := ww.seed(n)
					if err != nil {
						return ScalePoint{}, err
					}
					return measure(DimWorld, ww.call(n), n, sandboxesFor(n, cfg.Writes), writesPerSandbox(n), []string{ww.twin},
						map[string]json.RawMessage{ww.twin: seed}, nil)
				})
				if err != nil {
					return rep, err
				}
			}
		case DimTape:
			c := callNamed(CallPostComment)
			err := series(DimTape, c.Name, "rows on the GitHub tape", cfg.TapeSizes, func(n int) (ScalePoint, error) {
				fill := func(sbs []*Sandbox) error {
					logf("filling %d tapes to %d rows", len(sbs), n)
					return s.fillTapes(ctx, sbs, n)
				}
				return measure(DimTape, c, n, sandboxesFor(n, cfg.Writes), writesPerSandbox(n), []string{"github"}, nil, fill)
			})
			if err != nil {
				return rep, err
			}
		case DimSandboxes:
			c := callNamed(CallPostComment)
			err := series(DimSandboxes, c.Name, "open sandboxes", cfg.SandboxCounts, func(n int) (ScalePoint, error) {
				// The writes go round all the open sandboxes.
				return measure(DimSandboxes, c, n, n, 1, []string{"github", "slack", "stripe"}, nil, nil)
			})
			if err != nil {
				return rep, err
			}
		}
	}
	return rep, ctx.Err()
}

// scaler holds what the points of a scale run share.
type scaler struct {
	cfg  ScaleConfig
	pome *Pome
	cpu  cpuProbe
	logf func(string, ...any)
	rep  *ScaleReport
	mu   sync.Mutex
	open []string
}

// create makes n sandboxes with 8 clients, remembering each for the final
// discard.
func (s *scaler) create(ctx context.Context, n int, twins []string, seeds map[string]json.RawMessage) ([]*Sandbox, error) {
	s.logf("creating %d sandboxes (%s)", n, strings.Join(twins, ", "))
	out := make([]*Sandbox, n)
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
		next     int
	)
	for range min(8, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				stop := i >= n || firstErr != nil || ctx.Err() != nil
				mu.Unlock()
				if stop {
					return
				}
				sb, err := s.pome.CreateSeeded(ctx, twins, seeds)
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = err
				}
				out[i] = sb
				mu.Unlock()
				if sb != nil {
					s.mu.Lock()
					s.open = append(s.open, sb.ID)
					s.mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	return out, ctx.Err()
}

func (s *scaler) discard(ctx context.Context, sbs []*Sandbox) {
	ids := make([]string, 0, len(sbs))
	for _, sb := range sbs {
		if sb != nil {
			ids = append(ids, sb.ID)
		}
	}
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Minute)
	defer cancel()
	if failed, err := s.pome.DiscardMany(dctx, ids, 16); err != nil {
		s.rep.Notes = append(s.rep.Notes, fmt.Sprintf("%d of %d sandboxes not discarded: %v", failed, len(ids), err))
	}
	s.mu.Lock()
	s.open = slices.DeleteFunc(s.open, func(id string) bool { return slices.Contains(ids, id) })
	s.mu.Unlock()
}

// discardAll discards what an interrupted point left open.
func (s *scaler) discardAll(ctx context.Context) {
	s.mu.Lock()
	ids := slices.Clone(s.open)
	s.mu.Unlock()
	if len(ids) == 0 {
		return
	}
	sbs := make([]*Sandbox, len(ids))
	for i, id := range ids {
		sbs[i] = &Sandbox{ID: id}
	}
	s.discard(ctx, sbs)
}

// firstCalls sends each sandbox one read of twin, one sandbox at a time
// (so that each figure is one call's, not a share of the machine), and
// returns the median wall time of those reads.
func (s *scaler) firstCalls(ctx context.Context, twin string, sbs []*Sandbox) (float64, error) {
	c, ok := firstReads[twin]
	if !ok {
		return 0, fmt.Errorf("no first read for twin %q", twin)
	}
	ts, err := c.Targets(ctx, s.pome.Client, sbs)
	if err != nil {
		return 0, err
	}
	took := make([]float64, len(ts))
	for i, t := range ts {
		if ctx.Err() != nil {
			break
		}
		start := time.Now()
		if err := s.read(ctx, c, t); err != nil {
			return 0, err
		}
		took[i] = float64(time.Since(start).Microseconds())
	}
	return median(took), ctx.Err()
}

// read sends c to t once and checks the answer.
func (s *scaler) read(ctx context.Context, c Call, t Target) error {
	req, err := c.Request(ctx, t)
	if err != nil {
		return err
	}
	resp, err := s.pome.Client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return err
	}
	return c.CheckResponse(resp.StatusCode, body)
}

// medianPoints folds each size's rounds into one point: the median of each
// figure, the errors summed, and each round's cost kept when there were
// several.
func medianPoints(byRound [][]ScalePoint, concurrency int) []ScalePoint {
	var out []ScalePoint
	for _, ps := range byRound {
		if len(ps) == 0 {
			continue
		}
		if len(ps) == 1 {
			out = append(out, ps[0])
			continue
		}
		p := ps[len(ps)-1]
		fig := func(f func(ScalePoint) float64) float64 {
			xs := make([]float64, len(ps))
			for i, q := range ps {
				xs[i] = f(q)
			}
			return median(xs)
		}
		p.PerSec = fig(func(q ScalePoint) float64 { return q.PerSec })
		p.P50US = fig(func(q ScalePoint) float64 { return q.P50US })
		p.P99US = fig(func(q ScalePoint) float64 { return q.P99US })
		p.ServerCPUUS = fig(func(q ScalePoint) float64 { return q.ServerCPUUS })
		p.StoreCPUUS = fig(func(q ScalePoint) float64 { return q.StoreCPUUS })
		p.FirstCallUS = fig(func(q ScalePoint) float64 { return q.FirstCallUS })
		cpu := true
		for _, q := range ps {
			cpu = cpu && q.ServerCPUUS > 0
		}
		p.Costs = nil
		p.Errors = 0
		for _, q := range ps {
			p.Costs = append(p.Costs, q.cost(concurrency, cpu))
			p.Errors += q.Errors
			if p.ErrorSample == "" {
				p.ErrorSample = q.ErrorSample
			}
		}
		out = append(out, p)
	}
	return out
}

// fillTapes puts rows GitHub get-issue rows on each sandbox's tape (8
// clients; not timed).
func (s *scaler) fillTapes(ctx context.Context, sbs []*Sandbox, rows int) error {
	c := callNamed(CallGetIssue)
	client := NewClient(8)
	defer client.CloseIdleConnections()
	for _, sb := range sbs {
		ts, err := c.Targets(ctx, client, []*Sandbox{sb})
		if err != nil {
			return err
		}
		res := Run(ctx, Options{Client: client, Concurrency: 8, Duration: time.Hour, MaxRequests: int64(rows)}, c.Scenario(ts, 8))
		if res.Errors > 0 || res.Requests != uint64(rows) {
			return fmt.Errorf("filling a tape: %d of %d rows, %d errors (%s)", res.Requests, rows, res.Errors, res.ErrorSample)
		}
	}
	return nil
}

// point sends cfg.Writes writes of c, each sandbox taking per of them in
// turn, so that no sandbox's world or tape grows by more than per.
func (s *scaler) point(ctx context.Context, c Call, sbs []*Sandbox, size, per int) (ScalePoint, error) {
	ts, err := c.Targets(ctx, s.pome.Client, sbs)
	if err != nil {
		return ScalePoint{}, err
	}
	conc := s.cfg.Concurrency
	client := NewClient(conc)
	defer client.CloseIdleConnections()
	var seq struct {
		sync.Mutex
		n int
	}
	sc := Scenario{
		Name: c.Name,
		Next: func(ctx context.Context, _, _ int) (*http.Request, error) {
			seq.Lock()
			j := seq.n
			seq.n++
			seq.Unlock()
			return c.Request(ctx, ts[turn(j, per, len(ts))])
		},
		Check: c.CheckResponse,
	}
	c0 := s.cpu.read()
	res := Run(ctx, Options{Client: client, Concurrency: conc, Duration: time.Hour, MaxRequests: int64(s.cfg.Writes)}, sc)
	c1 := s.cpu.read()
	p := ScalePoint{Size: size, Writes: res.Requests, Errors: res.Errors, PerSec: res.PerSec, P50US: res.P50US, P99US: res.P99US,
		Sandboxes: len(sbs), ErrorSample: res.ErrorSample}
	if n := float64(res.Requests); n > 0 {
		if s.cpu.server != 0 {
			p.ServerCPUUS = float64(c1.server-c0.server) / n
		}
		if s.cpu.store != 0 {
			p.StoreCPUUS = float64(c1.store-c0.store) / n
		}
	}
	s.logf("%-24s size %-7d %8.0f writes/s  p50 %s  server CPU %.1fµs  errors %d", c.Name, size, p.PerSec, fmtUS(p.P50US), p.ServerCPUUS, p.Errors)
	if res.Errors > 0 {
		return p, fmt.Errorf("%s at size %d: %d errors, first: %s", c.Name, size, res.Errors, res.ErrorSample)
	}
	return p, nil
}

func (se ScaleSeries) summarize(concurrency int) ScaleSeries {
	// CPU is read in 10 ms ticks: a point too short to show any cannot be
	// compared by it.
	cpu := len(se.Points) > 0
	for _, p := range se.Points {
		cpu = cpu && p.ServerCPUUS > 0
	}
	se.Measure = "wall time per write per client"
	if cpu {
		se.Measure = "server CPU per write"
	}
	var costs []float64
	for _, p := range se.Points {
		costs = append(costs, p.cost(concurrency, cpu))
	}
	se.Spread = Spread(costs)
	return se
}

// Spread is the largest of xs over the smallest (0 with fewer than two, or
// with a zero among them).
func Spread(xs []float64) float64 {
	if len(xs) < 2 || slices.Min(xs) <= 0 {
		return 0
	}
	return slices.Max(xs) / slices.Min(xs)
}

// WriteScaleTable prints a scale report for people.
func WriteScaleTable(w io.Writer, r *ScaleReport) error {
	rounds := ""
	if r.Rounds > 1 {
		rounds = fmt.Sprintf("  %d rounds (medians)", r.Rounds)
	}
	fmt.Fprintf(w, "server %s  %d writes per point  %d client(s)%s\n", r.Server, r.Writes, r.Concurrency, rounds)
	fmt.Fprintf(w, "machine %d CPU %s, %s/%s, %s\n\n", r.Machine.NumCPU, r.Machine.CPUModel, r.Machine.GOOS, r.Machine.GOARCH, r.Machine.GoVersion)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "dimension\tcall\tsize\tunit\twrites/s\tp50\tp99\tserver CPU/write\tstore CPU/write\tsandboxes\tfirst call p50\t")
	cpu := func(v float64) string {
		if v > 0 {
			return fmt.Sprintf("%.1fµs", v)
		}
		return "-"
	}
	for _, se := range r.Series {
		for _, p := range se.Points {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%.0f\t%s\t%s\t%s\t%s\t%d\t%s\t\n", se.Dim, se.Call, p.Size, se.Unit, p.PerSec, fmtUS(p.P50US), fmtUS(p.P99US),
				cpu(p.ServerCPUUS), cpu(p.StoreCPUUS), p.Sandboxes, fmtUS(p.FirstCallUS))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	for _, se := range r.Series {
		sizes := make([]string, len(se.Points))
		for i, p := range se.Points {
			sizes[i] = strconv.Itoa(p.Size)
		}
		fmt.Fprintf(w, "spread %-9s %-24s over %s %s: %.2f (%s, largest over smallest)\n", se.Dim, se.Call, strings.Join(sizes, " / "), se.Unit, se.Spread, se.Measure)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	return nil
}
