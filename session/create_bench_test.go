package session_test

import (
	"context"
	"testing"
	"time"

	"github.com/pomehq/pome/session"
	"github.com/pomehq/pome/twins/all"
)

// benchCreate measures Manager.Create of a sandbox with the default
// github, slack and stripe worlds, what POST /v1/sandboxes does past its
// decoding; the sandboxes are discarded as they go so that the store does
// not grow over the run. With parallel, GOMAXPROCS×p goroutines create at
// once (go test -cpu to vary it).
func benchCreate(b *testing.B, s session.Store, parallel int) {
	m := session.NewManager(s, all.Registry(), session.Config{
		TTL: time.Hour, MaxTwins: 3, SandboxQuota: 1 << 30, PublicURL: "http://127.0.0.1:7070",
		Budgets: session.Budgets{WorldBytes: 32 << 20, ServerWorldBytes: 4 << 30, ServerTapeBytes: 2 << 30},
	}, nil)
	req := session.CreateRequest{Twins: []string{"github", "slack", "stripe"}}
	ctx := context.Background()
	one := func() {
		c, err := m.Create(ctx, "bench", req)
		if err != nil {
			b.Fatal(err)
		}
		if err := m.Stop(ctx, "bench", c.SessionID, true); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	if parallel == 0 {
		for b.Loop() {
			one()
		}
		return
	}
	b.SetParallelism(parallel)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			one()
		}
	})
}

func BenchmarkManagerCreateMemory(b *testing.B) {
	benchCreate(b, newMemory(b, nil), 0)
}

func BenchmarkManagerCreateMemoryParallel(b *testing.B) {
	benchCreate(b, newMemory(b, nil), 8)
}

func BenchmarkManagerCreateRedis(b *testing.B) {
	redisURL(b)
	benchCreate(b, newRedis(b, nil), 0)
}
