package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/pomehq/pome/cmd/pome-bench/internal/load"
	"github.com/pomehq/pome/session"
)

// The in-process benchmarks put the same requests as pome-bench through a
// real loopback HTTP connection to rest.NewServer on the memory store, so
// the figures include net/http on both sides as a deployed server's do and
// compare directly with BenchmarkBaseline. They run with -cpu to set the
// server's parallelism:
//
//	go test -run '^$' -bench . -benchmem ./cmd/pome-bench/

// benchSandboxes is how many sandboxes a data-plane benchmark spreads over:
// more than the parallel goroutines, so they rarely share one.
const benchSandboxes = 64

// runScenario drives sc from b.RunParallel goroutines, each one a worker of
// the scenario, and fails on the first answer that would not count.
func runScenario(b *testing.B, client *http.Client, sc load.Scenario) {
	b.Helper()
	var workers atomic.Int64
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		w := int(workers.Add(1) - 1)
		var buf bytes.Buffer
		for k := 0; pb.Next(); k++ {
			req, err := sc.Next(context.Background(), w, k)
			if err != nil {
				b.Error(err)
				return
			}
			resp, err := client.Do(req)
			if err != nil {
				b.Error(err)
				return
			}
			buf.Reset()
			buf.ReadFrom(resp.Body)
			resp.Body.Close()
			if err := sc.Check(resp.StatusCode, buf.Bytes()); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkBaseline is the ceiling: the bare handler that returns a fixed
// 300-byte JSON, with the same client.
func BenchmarkBaseline(b *testing.B) {
	hs := httptest.NewServer(http.HandlerFunc(load.ServeBaseline))
	defer hs.Close()
	client := load.NewClient(64)
	defer client.CloseIdleConnections()
	runScenario(b, client, load.BaselineScenario(hs.URL))
}

// dataPlane starts a server and creates the sandboxes a data-plane
// benchmark spreads over.
func dataPlane(b *testing.B) ([]*load.Sandbox, *http.Client) {
	b.Helper()
	url, key := startPome(b, session.NewMemoryStore(nil, 0), 0)
	client := load.NewClient(64)
	b.Cleanup(client.CloseIdleConnections)
	pome, err := load.NewPome(url, key, client)
	if err != nil {
		b.Fatal(err)
	}
	sbs, err := pome.CreateMany(context.Background(), benchSandboxes, 8, benchTwins)
	if err != nil {
		b.Fatal(err)
	}
	return sbs, client
}

// BenchmarkGetIssueInProcess is GitHub GET …/issues/1: a read and its tape
// row.
func BenchmarkGetIssueInProcess(b *testing.B) {
	sbs, client := dataPlane(b)
	runScenario(b, client, load.GetIssueScenario(sbs, benchSandboxes))
}

// BenchmarkPostCommentInProcess is GitHub POST …/issues/1/comments: a state
// write and its tape row.
func BenchmarkPostCommentInProcess(b *testing.B) {
	sbs, client := dataPlane(b)
	runScenario(b, client, load.PostCommentScenario(sbs, benchSandboxes))
}

// BenchmarkPostMessageInProcess is Slack chat.postMessage.
func BenchmarkPostMessageInProcess(b *testing.B) {
	sbs, client := dataPlane(b)
	runScenario(b, client, load.PostMessageScenario(sbs, benchSandboxes))
}

// BenchmarkMCPToolsCallInProcess is a stateless MCP tools/call of
// issue_read, under each protocol version the bench speaks.
func BenchmarkMCPToolsCallInProcess(b *testing.B) {
	sbs, client := dataPlane(b)
	for _, v := range load.MCPVersions {
		b.Run(v, func(b *testing.B) {
			runScenario(b, client, load.MCPToolsCallScenario(sbs, benchSandboxes, v))
		})
	}
}

// BenchmarkCreateSandbox creates sandboxes with the default worlds of the
// served twins one after another, so ns/op is the latency of one create.
// Sandboxes are discarded in batches with the timer stopped, to stay within
// the team's quota without timing the discards.
func BenchmarkCreateSandbox(b *testing.B) {
	const batch = 500
	url, key := startPome(b, session.NewMemoryStore(nil, 0), batch)
	client := load.NewClient(8)
	defer client.CloseIdleConnections()
	pome, err := load.NewPome(url, key, client)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	var ids []string
	discard := func() {
		if _, err := pome.DiscardMany(ctx, ids, 8); err != nil {
			b.Fatal(err)
		}
		ids = ids[:0]
	}
	b.ResetTimer()
	for b.Loop() {
		sb, err := pome.Create(ctx, benchTwins)
		if err != nil {
			b.Fatal(err)
		}
		ids = append(ids, sb.ID)
		if len(ids) == batch {
			b.StopTimer()
			discard()
			b.StartTimer()
		}
	}
	b.StopTimer()
	discard()
}
