package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pomehq/pome/cmd/pome-bench/internal/load"
)

// The noisy-neighbour measurement answers "how much does a sandbox being
// flooded with writes slow down another sandbox on the same server?". One
// client calls a quiet sandbox (default worlds) one call after another,
// alternating a get-issue and a comment, for noisyPhase with nothing else
// running, then for noisyPhase again while noisyWriters clients post
// comments as fast as they can to the last issue of a noisy sandbox whose
// repository holds noisyIssues issues (about 9 MB of state). It reports the
// quiet sandbox's p50 and p99 in each phase and the noisy writes per
// second, on the memory store and, with POME_TEST_REDIS_URL, on Redis:
//
//	go test -run '^$' -bench NoisyNeighbour -benchtime 1x -timeout 10m ./cmd/pome-bench/
//	POME_TEST_REDIS_URL=redis://127.0.0.1:6379/15 go test -run '^$' -bench 'NoisyNeighbour/redis' -benchtime 1x -timeout 10m ./cmd/pome-bench/
//
// Everything runs on loopback in this process, and each phase is bounded
// by time (the whole benchmark takes under a minute per store, seeding
// included).

const (
	noisyIssues  = 20_000
	noisyWriters = 8
	noisyPhase   = 4 * time.Second
)

func BenchmarkNoisyNeighbour(b *testing.B) {
	for _, st := range scaleStores() {
		b.Run(st.name, func(b *testing.B) {
			srv := startScaleServer(b, st.open(b))
			start := time.Now()
			noisy := srv.create(b, []string{"github"}, map[string]json.RawMessage{"github": githubSeed(b, noisyIssues)})
			b.Logf("noisy sandbox of %d issues created in %v", noisyIssues, time.Since(start).Round(time.Millisecond))
			quiet := srv.create(b, []string{"github"}, nil)
			var buf bytes.Buffer
			srv.mustCall(b, http.MethodGet, quiet.API["github"]+"/repos/acme/api/issues/1", quiet.AuthToken, nil, http.StatusOK, &buf)
			noisyURL := noisy.API["github"] + "/repos/acme/api/issues/" + strconv.Itoa(noisyIssues) + "/comments"
			srv.mustCall(b, http.MethodPost, noisyURL, noisy.AuthToken, scaleComment, http.StatusCreated, &buf)

			for b.Loop() {
				alone := noisyQuiet(b, srv, quiet, noisyPhase)
				stop := make(chan struct{})
				var writes, failed atomic.Int64
				var wg sync.WaitGroup
				for range noisyWriters {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for {
							select {
							case <-stop:
								return
							default:
							}
							if status, err := noisyCall(srv, http.MethodPost, noisyURL, noisy.AuthToken, scaleComment); err != nil || status != http.StatusCreated {
								failed.Add(1)
								continue
							}
							writes.Add(1)
						}
					}()
				}
				// Let the writers reach their pace before measuring.
				time.Sleep(500 * time.Millisecond)
				w0 := writes.Load()
				flooded := noisyQuiet(b, srv, quiet, noisyPhase)
				w1 := writes.Load()
				close(stop)
				wg.Wait()
				if n := failed.Load(); n > 0 {
					b.Errorf("%d noisy writes failed", n)
				}
				b.ReportMetric(ms(alone.Quantile(0.50)), "alone-p50-ms")
				b.ReportMetric(ms(alone.Quantile(0.99)), "alone-p99-ms")
				b.ReportMetric(ms(flooded.Quantile(0.50)), "flooded-p50-ms")
				b.ReportMetric(ms(flooded.Quantile(0.99)), "flooded-p99-ms")
				b.ReportMetric(float64(w1-w0)/noisyPhase.Seconds(), "noisy-writes/s")
				b.Logf("quiet sandbox: alone p50 %v p99 %v (%d calls); flooded p50 %v p99 %v (%d calls); noisy writes %.1f/s",
					alone.Quantile(0.50), alone.Quantile(0.99), alone.Count(),
					flooded.Quantile(0.50), flooded.Quantile(0.99), flooded.Count(), float64(w1-w0)/noisyPhase.Seconds())
			}
		})
	}
}

// noisyQuiet calls the quiet sandbox for d, one call at a time, and
// returns the calls' latencies.
func noisyQuiet(b *testing.B, srv *scaleServer, quiet *load.Sandbox, d time.Duration) *load.Histogram {
	h := &load.Histogram{}
	get := quiet.API["github"] + "/repos/acme/api/issues/1"
	post := get + "/comments"
	for i, end := 0, time.Now().Add(d); time.Now().Before(end); i++ {
		method, url, body, want := http.MethodGet, get, []byte(nil), http.StatusOK
		if i%2 == 1 {
			method, url, body, want = http.MethodPost, post, scaleComment, http.StatusCreated
		}
		t0 := time.Now()
		status, err := noisyCall(srv, method, url, quiet.AuthToken, body)
		h.Record(time.Since(t0))
		if err != nil || status != want {
			b.Fatalf("quiet %s %s: %d %v", method, url, status, err)
		}
	}
	return h
}

// noisyCall makes one call, safe from any goroutine.
func noisyCall(srv *scaleServer, method, url, auth string, body []byte) (int, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		return 0, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Authorization", "Bearer "+auth)
	resp, err := srv.client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return resp.StatusCode, fmt.Errorf("read answer: %w", err)
	}
	return resp.StatusCode, nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
