// Package load drives HTTP load against a running Pome server and a bare
// baseline handler with the same client, and reports throughput and latency
// per scenario. It starts no Pome server itself.
package load

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Scenario is one kind of request, measured on its own.
type Scenario struct {
	Name string
	// Next builds the k-th request of worker w. Workers call it
	// concurrently.
	Next func(ctx context.Context, w, k int) (*http.Request, error)
	// Check decides whether a response counts: only requests that got the
	// expected answer are counted and timed; the rest are errors.
	Check func(status int, body []byte) error
}

// Options bound one measured run. Both bounds hold: a run ends at whichever
// of Duration and MaxRequests comes first, or when ctx is done.
type Options struct {
	Client      *http.Client
	Concurrency int
	Duration    time.Duration
	MaxRequests int64
}

// Result is one scenario's figures.
type Result struct {
	Name     string  `json:"name"`
	Requests uint64  `json:"requests"`
	Errors   uint64  `json:"errors"`
	Seconds  float64 `json:"seconds"`
	PerSec   float64 `json:"req_per_sec"`
	P50US    float64 `json:"p50_us"`
	P99US    float64 `json:"p99_us"`
	MaxUS    float64 `json:"max_us"`
	// Ratio is PerSec over the baseline's (0 when there is no baseline).
	Ratio float64 `json:"ratio_to_baseline,omitempty"`
	// ErrorSample is the first error seen, to say what went wrong.
	ErrorSample string `json:"error_sample,omitempty"`
	// Skipped says why the scenario did not run.
	Skipped string `json:"skipped,omitempty"`
	// Mem is the server's memory around the run, when it can be read.
	Mem *MemDelta `json:"server_mem,omitempty"`
	// ServerCPUUS is the CPU time the server process used per counted
	// request (user plus system, µs), when its pid is given. Unlike the
	// throughput it hardly depends on what else runs on the machine.
	ServerCPUUS float64 `json:"server_cpu_us_per_request,omitempty"`
	// ClientCPUUS is the CPU time this process (the load generator, and
	// for the baseline also the bare handler it serves) used per counted
	// request. With ServerCPUUS it accounts for the machine's CPU: a
	// scenario's ratio is about (baseline's client CPU) / (its client CPU
	// + its server CPU) when both saturate the same cores.
	ClientCPUUS float64 `json:"client_cpu_us_per_request,omitempty"`
	// StoreCPUUS is the CPU time the store's process (redis-server) used
	// per counted request, when its pid is given.
	StoreCPUUS float64 `json:"store_cpu_us_per_request,omitempty"`
}

// maxConsecutiveErrors ends a worker that gets nothing but errors (a server
// that went away), so a broken run fails fast instead of spinning until its
// deadline.
const maxConsecutiveErrors = 1000

// NewClient returns the one client used for every request: keep-alives on
// and enough idle connections per host that no worker ever dials again
// after its first request, so the figures measure the server and not TCP
// set-up.
func NewClient(concurrency int) *http.Client {
	tr := &http.Transport{
		// Every target is given explicitly; an environment proxy would
		// measure the proxy.
		Proxy:               nil,
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        2 * concurrency,
		MaxIdleConnsPerHost: 2 * concurrency,
		IdleConnTimeout:     90 * time.Second,
		// Responses are small JSON; asking for gzip would add work on both
		// sides that the baseline does not do.
		DisableCompression: true,
	}
	return &http.Client{Transport: tr, Timeout: 30 * time.Second}
}

// Run measures sc with opt.Concurrency workers. A warm-up is the same call
// with its result thrown away.
func Run(ctx context.Context, opt Options, sc Scenario) Result {
	ctx, cancel := context.WithTimeout(ctx, opt.Duration)
	defer cancel()
	budget := atomic.Int64{}
	budget.Store(opt.MaxRequests)

	type worker struct {
		hist      Histogram
		ok, errs  uint64
		firstErr  error
		firstErrT time.Time
	}
	ws := make([]*worker, opt.Concurrency)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range ws {
		w := &worker{}
		ws[i] = w
		wg.Add(1)
		go func(id int) {
			defer wg.Done()
			var buf bytes.Buffer
			fail := func(err error) {
				w.errs++
				if w.firstErr == nil {
					w.firstErr, w.firstErrT = err, time.Now()
				}
			}
			streak := 0
			for k := 0; ctx.Err() == nil && budget.Add(-1) >= 0 && streak < maxConsecutiveErrors; k++ {
				req, err := sc.Next(ctx, id, k)
				if err != nil {
					fail(err)
					streak++
					continue
				}
				t0 := time.Now()
				resp, err := opt.Client.Do(req)
				if err != nil {
					// A request cut by the run's own deadline is not the
					// server's error.
					if ctx.Err() == nil {
						fail(err)
						streak++
					}
					continue
				}
				buf.Reset()
				_, rerr := buf.ReadFrom(resp.Body)
				resp.Body.Close()
				d := time.Since(t0)
				if rerr != nil {
					if ctx.Err() == nil {
						fail(rerr)
						streak++
					}
					continue
				}
				if err := sc.Check(resp.StatusCode, buf.Bytes()); err != nil {
					fail(err)
					streak++
					continue
				}
				streak = 0
				w.ok++
				w.hist.Record(d)
			}
		}(i)
	}
	wg.Wait()
	elapsed := time.Since(start)

	var h Histogram
	res := Result{Name: sc.Name, Seconds: elapsed.Seconds()}
	var firstT time.Time
	for _, w := range ws {
		h.Merge(&w.hist)
		res.Requests += w.ok
		res.Errors += w.errs
		if w.firstErr != nil && (res.ErrorSample == "" || w.firstErrT.Before(firstT)) {
			res.ErrorSample, firstT = w.firstErr.Error(), w.firstErrT
		}
	}
	if elapsed > 0 {
		res.PerSec = float64(res.Requests) / elapsed.Seconds()
	}
	us := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }
	res.P50US, res.P99US, res.MaxUS = us(h.Quantile(0.50)), us(h.Quantile(0.99)), us(h.Max())
	return res
}

// expectStatus is a Check that accepts exactly one status.
func expectStatus(want int) func(int, []byte) error {
	return func(status int, body []byte) error {
		if status != want {
			return statusError(status, want, body)
		}
		return nil
	}
}

func statusError(status, want int, body []byte) error {
	if len(body) > 200 {
		body = body[:200]
	}
	return fmt.Errorf("status %d, want %d: %s", status, want, bytes.TrimSpace(body))
}
