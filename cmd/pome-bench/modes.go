package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/pomehq/pome/cmd/pome-bench/internal/load"
)

// mode is a pome-bench subcommand.
type mode struct {
	name, summary string
	run           func(ctx context.Context, args []string, stdout, stderr io.Writer) int
}

// modes are the subcommands; without one, pome-bench runs its scenarios
// with the Go client (the original mode).
var modes = []mode{
	{"ceiling", "each call against a bare handler answering the same bytes, driven by wrk", runCeiling},
	{"rate", "open-loop load at a fixed offered rate, latency from each request's due time", runRate},
	{"scale", "write cost against world size, tape length and open sandboxes", runScale},
	{"peers", "the ceiling run with stripe-mock and emulate, installed and started beside Pome, as further sides", runPeers},
	{"same-bytes", "a bare net/http handler answering one answer (JSON on standard input) until its input ends: what rate --ceiling starts", runSameBytes},
}

func findMode(name string) *mode {
	for i := range modes {
		if modes[i].name == name {
			return &modes[i]
		}
	}
	return nil
}

// common are the flags every mode shares.
type common struct {
	server, apiKey string
	serverPID      int
	storePID       int
	asJSON, quiet  bool
	// jsonOut also writes the report as JSON to this file.
	jsonOut string
}

func (c *common) register(fs *flag.FlagSet) {
	fs.StringVar(&c.server, "server", os.Getenv("POME_SERVER"), "Pome server URL (env POME_SERVER)")
	fs.StringVar(&c.apiKey, "api-key", os.Getenv("POME_API_KEY"), "team API key (env POME_API_KEY)")
	fs.IntVar(&c.serverPID, "server-pid", 0, "pid of the server on this machine, for its CPU per request and RSS")
	fs.IntVar(&c.storePID, "store-pid", 0, "pid of the server's store (redis-server) on this machine, for its CPU per request")
	fs.BoolVar(&c.asJSON, "json", false, "print the report as JSON")
	fs.BoolVar(&c.quiet, "q", false, "no progress lines on stderr")
	fs.StringVar(&c.jsonOut, "json-out", "", "also write the report as JSON to this file")
}

func (c *common) log(stderr io.Writer) io.Writer {
	if c.quiet {
		return nil
	}
	return stderr
}

// parse parses a mode's flags; ok false means exit with code.
func parse(fs *flag.FlagSet, args []string, stderr io.Writer) (code int, ok bool) {
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0, false
		}
		return 2, false
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "pome-bench %s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
		return 2, false
	}
	return 0, true
}

// finish prints a mode's report and its error.
func finish[R any](name string, rep *R, err error, cm common, table func(io.Writer, *R) error, stdout, stderr io.Writer) int {
	asJSON := cm.asJSON
	if rep != nil && cm.jsonOut != "" {
		f, ferr := os.Create(cm.jsonOut)
		if ferr == nil {
			ferr = load.WriteJSONValue(f, rep)
			if cerr := f.Close(); ferr == nil {
				ferr = cerr
			}
		}
		if ferr != nil {
			fmt.Fprintf(stderr, "pome-bench %s: --json-out: %v\n", name, ferr)
			if err == nil {
				err = ferr
			}
		}
	}
	if rep != nil {
		var werr error
		if asJSON {
			werr = load.WriteJSONValue(stdout, rep)
		} else {
			werr = table(stdout, rep)
		}
		if werr != nil && err == nil {
			err = werr
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "pome-bench %s: %v\n", name, err)
		return 1
	}
	return 0
}

func runCeiling(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("ceiling", flag.ContinueOnError)
	var cm common
	cm.register(fs)
	cfg := load.CeilingConfig{}
	var calls string
	fs.IntVar(&cfg.Sandboxes, "sandboxes", 100, "sandboxes each call's requests spread over")
	fs.StringVar(&calls, "calls", strings.Join(load.CallNames(), ","), "calls to measure")
	fs.IntVar(&cfg.Rounds, "rounds", 3, "rounds of every call, Pome and the bare handler alternated")
	fs.StringVar(&cfg.Driver, "driver", load.DriverAuto, "load tool: auto (wrk when on PATH), wrk or go (the Go client)")
	fs.StringVar(&cfg.Wrk.Path, "wrk", "", "wrk binary (default: wrk on PATH)")
	fs.IntVar(&cfg.Wrk.Threads, "t", 2, "wrk threads")
	fs.IntVar(&cfg.Wrk.Connections, "c", 64, "connections (wrk -c, or Go clients)")
	fs.DurationVar(&cfg.Wrk.Duration, "d", 10*time.Second, "time of each run (wrk rounds it to whole seconds)")
	fs.DurationVar(&cfg.Warmup, "warmup", time.Second, "unmeasured load on Pome before a call's first round")
	if code, ok := parse(fs, args, stderr); !ok {
		return code
	}
	if cm.server == "" {
		fmt.Fprintln(stderr, "pome-bench ceiling: no server (--server or POME_SERVER)")
		return 2
	}
	var err error
	if cfg.Calls, err = load.SelectCalls(splitList(calls)); err != nil {
		fmt.Fprintf(stderr, "pome-bench ceiling: %v\n", err)
		return 2
	}
	cfg.Server, cfg.APIKey, cfg.ServerPID, cfg.StorePID, cfg.Log = cm.server, cm.apiKey, cm.serverPID, cm.storePID, cm.log(stderr)
	rep, err := load.Ceiling(ctx, cfg)
	return finish("ceiling", rep, err, cm, load.WriteCeilingTable, stdout, stderr)
}

func runRate(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("rate", flag.ContinueOnError)
	var cm common
	cm.register(fs)
	cfg := load.RateConfig{}
	var calls string
	fs.Float64Var(&cfg.Rate, "rate", 10_000, "offered requests per second")
	fs.DurationVar(&cfg.Duration, "duration", 30*time.Second, "time each call is offered for")
	fs.DurationVar(&cfg.Duration, "d", 30*time.Second, "same as --duration")
	fs.DurationVar(&cfg.Warmup, "warmup", 2*time.Second, "unmeasured load at the same rate before each call")
	fs.IntVar(&cfg.Senders, "senders", 256, "requests in flight at most (and connections)")
	fs.IntVar(&cfg.Sandboxes, "sandboxes", 100, "sandboxes the requests spread over")
	fs.StringVar(&calls, "calls", load.CallGetIssue+","+load.CallPostComment, "calls to offer, one after another: "+strings.Join(load.CallNames(), ", "))
	fs.StringVar(&cfg.Store, "store", "", "the server's store, memory or redis: prints the p99 target (5 ms or 10 ms)")
	fs.StringVar(&cfg.Pacing, "pacing", load.PacingPrecise, "how the raw and go clients' senders wait for due times: precise (on a timerfd of each sender's own, Linux) or runtime (Go's timers, up to a millisecond late, sending requests bunched at its ticks); the loop client waits in epoll_pwait2")
	fs.StringVar(&cfg.Client, "client", load.ClientLoop, "loop (one goroutine's epoll loop over a keep-alive connection per sender, requests formatted once, as wrk2 does; Linux 5.11+, else raw), raw (a goroutine per sender on such a connection) or go (net/http's client)")
	fs.BoolVar(&cfg.Ceiling, "ceiling", false, "after each call, the same load against a bare net/http handler answering the bytes Pome answered, in a process of its own (pome-bench same-bytes): the latency any Go server reaches here")
	burns := fs.String("ceiling-burn", "", "with --ceiling (which it sets), more runs of the same-bytes handler, each spending CPU time on every request before it answers: durations (e.g. 20us) and "+load.BurnMatch+" (Pome's server CPU per request less the plain handler's, measured in the run; needs --server-pid): the latency this machine gives a server that costs what Pome costs a call")
	fs.IntVar(&cfg.CeilingGarbage, "ceiling-garbage", 0, "bytes the same-bytes handler allocates and drops on each request of the --ceiling-burn runs, in 112-byte pieces holding pointers (BenchmarkHandler's B/op is Pome's)")
	fs.StringVar(&cfg.CeilingKeep, "ceiling-keep", "", "a 112-byte value the same-bytes handler keeps for good on each request of the --ceiling-burn runs: "+load.KeepPointers+" (shaped as a GitHub comment in a world, two of its five pointers set) or "+load.KeepFlat+" (the same bytes without a pointer)")
	if code, ok := parse(fs, args, stderr); !ok {
		return code
	}
	if cm.server == "" {
		fmt.Fprintln(stderr, "pome-bench rate: no server (--server or POME_SERVER)")
		return 2
	}
	if *burns != "" {
		var err error
		if cfg.CeilingBurns, err = load.ParseCeilingBurns(*burns); err != nil {
			fmt.Fprintf(stderr, "pome-bench rate: %v\n", err)
			return 2
		}
		cfg.Ceiling = cfg.Ceiling || len(cfg.CeilingBurns) > 0
	}
	if cfg.Ceiling {
		exe, err := os.Executable()
		if err != nil {
			fmt.Fprintf(stderr, "pome-bench rate: --ceiling: %v\n", err)
			return 1
		}
		cfg.BareCommand = []string{exe, "same-bytes"}
	}
	if cfg.Store != "" && load.P99Target(cfg.Store) == 0 {
		fmt.Fprintf(stderr, "pome-bench rate: --store %q: memory or redis\n", cfg.Store)
		return 2
	}
	var err error
	if cfg.Calls, err = load.SelectCalls(splitList(calls)); err != nil {
		fmt.Fprintf(stderr, "pome-bench rate: %v\n", err)
		return 2
	}
	cfg.Server, cfg.APIKey, cfg.ServerPID, cfg.StorePID, cfg.Log = cm.server, cm.apiKey, cm.serverPID, cm.storePID, cm.log(stderr)
	rep, err := load.ConstantRate(ctx, cfg)
	return finish("rate", rep, err, cm, load.WriteRateTable, stdout, stderr)
}

func runSameBytes(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("same-bytes", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:0", "address to listen on")
	if code, ok := parse(fs, args, stderr); !ok {
		return code
	}
	if err := load.ServeSameBytes(ctx, *addr, os.Stdin, stdout); err != nil {
		fmt.Fprintf(stderr, "pome-bench same-bytes: %v\n", err)
		return 1
	}
	return 0
}

func runScale(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("scale", flag.ContinueOnError)
	var cm common
	cm.register(fs)
	cfg := load.ScaleConfig{}
	var dims, world, tape, sandboxes, twins string
	fs.StringVar(&dims, "dims", "world,tape,sandboxes", "dimensions to run: world, tape, sandboxes")
	fs.StringVar(&world, "world-sizes", "10,1000,10000", "entities in the world a write changes (issues, messages, customers)")
	fs.StringVar(&tape, "tape-sizes", "1000,10000,100000", "rows on the tape before the writes (the server's --max-tape-rows must be above the largest plus the writes)")
	fs.StringVar(&sandboxes, "sandbox-counts", "10,1000,10000", "open sandboxes the writes go round (within the team's quota)")
	fs.StringVar(&twins, "twins", strings.Join(load.WorldTwins(), ","), "twins whose write the world dimension measures")
	fs.IntVar(&cfg.Writes, "writes", 2000, "writes per point")
	fs.IntVar(&cfg.Concurrency, "c", 1, "clients sending the writes (1: one after another)")
	fs.IntVar(&cfg.Rounds, "rounds", 1, "times each point is measured, the sizes in a rotated order each round (figures: the medians)")
	if code, ok := parse(fs, args, stderr); !ok {
		return code
	}
	if cm.server == "" {
		fmt.Fprintln(stderr, "pome-bench scale: no server (--server or POME_SERVER)")
		return 2
	}
	if cfg.Rounds < 1 || cfg.Writes < 1 || cfg.Concurrency < 1 {
		fmt.Fprintln(stderr, "pome-bench scale: --rounds, --writes and -c must be at least 1")
		return 2
	}
	var err error
	for _, l := range []struct {
		name, v string
		dst     *[]int
	}{{"--world-sizes", world, &cfg.WorldSizes}, {"--tape-sizes", tape, &cfg.TapeSizes}, {"--sandbox-counts", sandboxes, &cfg.SandboxCounts}} {
		if *l.dst, err = parseSizes(l.v); err != nil {
			fmt.Fprintf(stderr, "pome-bench scale: %s: %v\n", l.name, err)
			return 2
		}
	}
	cfg.Dims, cfg.WorldTwins = splitList(dims), splitList(twins)
	cfg.Server, cfg.APIKey, cfg.ServerPID, cfg.StorePID, cfg.Log = cm.server, cm.apiKey, cm.serverPID, cm.storePID, cm.log(stderr)
	rep, err := load.Scale(ctx, cfg)
	return finish("scale", rep, err, cm, load.WriteScaleTable, stdout, stderr)
}

// parseSizes reads a comma-separated list of positive counts.
func parseSizes(s string) ([]int, error) {
	var out []int
	for _, p := range splitList(s) {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%q is not a positive count", p)
		}
		out = append(out, n)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no sizes")
	}
	return out, nil
}

func runPeers(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("peers", flag.ContinueOnError)
	var cm common
	cm.register(fs)
	cfg := load.PeersConfig{}
	cc := &cfg.Ceiling
	var calls, without string
	fs.IntVar(&cc.Sandboxes, "sandboxes", 100, "Pome sandboxes each call's requests spread over")
	fs.StringVar(&calls, "calls", strings.Join(load.CallNames(), ","), "calls to measure")
	fs.IntVar(&cc.Rounds, "rounds", 3, "rounds of every call: Pome, the bare handler and each peer")
	fs.StringVar(&cc.Driver, "driver", load.DriverAuto, "load tool: auto (wrk when on PATH), wrk or go (the Go client)")
	fs.StringVar(&cc.Wrk.Path, "wrk", "", "wrk binary (default: wrk on PATH)")
	fs.IntVar(&cc.Wrk.Threads, "t", 2, "wrk threads")
	fs.IntVar(&cc.Wrk.Connections, "c", 64, "connections (wrk -c, or Go clients)")
	fs.DurationVar(&cc.Wrk.Duration, "d", 10*time.Second, "time of each run (wrk rounds it to whole seconds)")
	fs.DurationVar(&cc.Warmup, "warmup", time.Second, "unmeasured load on Pome before a call's first round")
	fs.StringVar(&cfg.CacheDir, "cache", load.DefaultCacheDir(), "where the peers are installed (outside the repository)")
	fs.BoolVar(&cfg.Install, "install", true, "install a missing peer (go install for stripe-mock, npm for emulate and its Node)")
	fs.StringVar(&cfg.StripeMockAddr, "stripe-mock-addr", "127.0.0.1:7690", "where stripe-mock listens")
	fs.IntVar(&cfg.EmulatePort, "emulate-port", 7680, "emulate's first port (GitHub; Slack and Stripe take the next two)")
	fs.IntVar(&cfg.Tokens, "tokens", 200, "tokens emulate's load is spread over (it allows 5,000 requests an hour per token; its GitHub gets a user for each)")
	fs.StringVar(&without, "without", "", "peers to leave out: stripe-mock, emulate")
	if code, ok := parse(fs, args, stderr); !ok {
		return code
	}
	if cm.server == "" {
		fmt.Fprintln(stderr, "pome-bench peers: no server (--server or POME_SERVER)")
		return 2
	}
	var err error
	if cc.Calls, err = load.SelectCalls(splitList(calls)); err != nil {
		fmt.Fprintf(stderr, "pome-bench peers: %v\n", err)
		return 2
	}
	cfg.Without = splitList(without)
	cc.Server, cc.APIKey, cc.ServerPID, cc.StorePID, cc.Log = cm.server, cm.apiKey, cm.serverPID, cm.storePID, cm.log(stderr)
	cfg.Log = cm.log(stderr)
	rep, err := load.Peers(ctx, cfg)
	return finish("peers", rep, err, cm, load.WriteCeilingTable, stdout, stderr)
}
