// Command pome-bench measures a running Pome server: sandbox creation and
// the twins' hot calls (GitHub get-issue and comment, Slack
// chat.postMessage, an MCP tools/call), spread over many sandboxes, each as
// requests per second with p50/p99 latency and as a ratio to a bare Go HTTP
// handler measured with the same client on the same machine.
//
// It starts no Pome server:
//
//	pome-bench --server http://127.0.0.1:7070 --api-key pme_… [-c 64] [-d 10s] [--sandboxes 1000] [--json]
//
// Every sandbox it creates is discarded before it exits.
//
// Its modes measure the performance targets (docs/PERFORMANCE.md):
//
//	pome-bench ceiling --server … --api-key …   each call against a bare handler answering Pome's bytes, with wrk
//	pome-bench peers   --server … --api-key …   the same, with stripe-mock and emulate beside Pome
//	pome-bench rate    --server … --api-key … --rate 10000 --duration 30s   latency at a fixed offered rate
//	pome-bench scale   --server … --api-key …   write cost against world size, tape length and sandboxes
//
// With --proxy it is instead a tiny round-robin load balancer in front of
// Pome replicas, for trying scale-out by hand (configs/scaleout.sh):
//
//	pome-bench --proxy 127.0.0.1:7070 --to http://127.0.0.1:7071,http://127.0.0.1:7072,http://127.0.0.1:7073
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"github.com/pomehq/pome/cmd/pome-bench/internal/load"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		if m := findMode(args[0]); m != nil {
			return m.run(ctx, args[1:], stdout, stderr)
		}
	}
	fs := flag.NewFlagSet("pome-bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := load.Config{}
	var twins, scenarios string
	var asJSON, quiet bool
	fs.StringVar(&cfg.Server, "server", os.Getenv("POME_SERVER"), "Pome server URL (env POME_SERVER)")
	fs.StringVar(&cfg.APIKey, "api-key", os.Getenv("POME_API_KEY"), "team API key (env POME_API_KEY)")
	fs.IntVar(&cfg.Concurrency, "c", 64, "concurrent clients")
	fs.DurationVar(&cfg.Duration, "d", 10*time.Second, "measured time per scenario")
	fs.DurationVar(&cfg.Warmup, "warmup", time.Second, "unmeasured load before each scenario")
	fs.IntVar(&cfg.Sandboxes, "sandboxes", 1000, "sandboxes the data-plane scenarios spread over (within the team's quota)")
	fs.StringVar(&twins, "twins", "github,slack,stripe", "twins of every sandbox created, default worlds")
	fs.BoolVar(&cfg.Baseline, "baseline", true, "also measure a bare net/http handler and print ratios to it")
	fs.StringVar(&scenarios, "scenarios", strings.Join(load.AllScenarios, ","), "scenarios to run")
	fs.IntVar(&cfg.CreateCount, "create-count", 1000, "at most this many sandboxes in the create phase (discarded after it)")
	fs.IntVar(&cfg.CreateWarmup, "create-warmup", 5000, "sandboxes created and discarded before the create phase is measured, in batches of --create-count (0: none)")
	fs.Int64Var(&cfg.MaxRequests, "max-requests", 5_000_000, "at most this many requests per scenario")
	fs.IntVar(&cfg.ServerPID, "server-pid", 0, "pid of the server on this machine, to report its RSS growth")
	fs.IntVar(&cfg.StorePID, "store-pid", 0, "pid of the server's store on this machine (redis-server), to report its CPU per request")
	fs.StringVar(&cfg.MCPVersion, "mcp-version", load.MCPProtocolVersion, "MCP-Protocol-Version of the MCP scenario: "+strings.Join(load.MCPVersions, " or "))
	fs.BoolVar(&cfg.ServerHeap, "server-heap", false, "read the server's live heap around every step from /debug/pprof/heap (server run with --pprof)")
	fs.BoolVar(&asJSON, "json", false, "print the report as JSON")
	fs.BoolVar(&quiet, "q", false, "no progress lines on stderr")
	var cpuProfile string
	fs.StringVar(&cpuProfile, "cpuprofile", "", "write this process's CPU profile (the load generator's own cost) to this file")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: pome-bench [flags]  (the scenarios, with the Go client)\n       pome-bench MODE [flags]\n\nModes:\n")
		width := 0
		for _, m := range modes {
			width = max(width, len(m.name))
		}
		for _, m := range modes {
			fmt.Fprintf(stderr, "  %-*s %s\n", width, m.name, m.summary)
		}
		fmt.Fprintf(stderr, "\nFlags:\n")
		fs.PrintDefaults()
	}
	var proxyAddr, proxyTo string
	fs.StringVar(&proxyAddr, "proxy", "", "instead of measuring, serve a round-robin proxy on this address over --to")
	fs.StringVar(&proxyTo, "to", "", "replica URLs for --proxy, comma-separated")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "pome-bench: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if proxyAddr != "" {
		return serveProxy(ctx, proxyAddr, splitList(proxyTo), stderr)
	}
	if cfg.Server == "" {
		fmt.Fprintln(stderr, "pome-bench: no server (--server or POME_SERVER)")
		return 2
	}
	cfg.Twins = splitList(twins)
	cfg.Scenarios = splitList(scenarios)
	if !quiet {
		cfg.Log = stderr
	}
	if cpuProfile != "" {
		f, err := os.Create(cpuProfile)
		if err != nil {
			fmt.Fprintf(stderr, "pome-bench: --cpuprofile: %v\n", err)
			return 1
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintf(stderr, "pome-bench: --cpuprofile: %v\n", err)
			return 1
		}
		defer pprof.StopCPUProfile()
	}
	rep, err := load.Bench(ctx, cfg)
	if rep != nil {
		write := load.WriteTable
		if asJSON {
			write = load.WriteJSON
		}
		if werr := write(stdout, rep); werr != nil && err == nil {
			err = werr
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "pome-bench: %v\n", err)
		return 1
	}
	return 0
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// serveProxy balances requests over replicas until ctx ends.
func serveProxy(ctx context.Context, addr string, replicas []string, stderr io.Writer) int {
	rr, err := load.NewRoundRobin(replicas)
	if err != nil {
		fmt.Fprintf(stderr, "pome-bench: --proxy: %v (give them with --to)\n", err)
		return 2
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintf(stderr, "pome-bench: --proxy: %v\n", err)
		return 1
	}
	srv := &http.Server{Handler: rr, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(shutdown)
	}()
	fmt.Fprintf(stderr, "pome-bench: round-robin proxy on http://%s over %s\n", ln.Addr(), strings.Join(replicas, ", "))
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintf(stderr, "pome-bench: --proxy: %v\n", err)
		return 1
	}
	served := rr.Served()
	fmt.Fprintf(stderr, "pome-bench: requests per replica: %v\n", served)
	return 0
}
