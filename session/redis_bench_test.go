package session_test

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pomehq/pome/session"
	"github.com/pomehq/pome/session/storetest"
	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/all"
	"github.com/pomehq/pome/twins/github"
	"github.com/pomehq/pome/twins/scaleseed"
)

// benchGitHub creates a sandbox running the GitHub twin on its default
// world, a realistic document for the data-plane benchmarks below.
func benchGitHub(b *testing.B, s session.Store) (*session.Sandbox, *twins.Twin) {
	b.Helper()
	ctx := context.Background()
	tw := github.New()
	world, err := tw.NewWorld(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	doc, err := json.Marshal(world)
	if err != nil {
		b.Fatal(err)
	}
	sb := storetest.NewSandbox(storetest.NewTeam(), time.Now(), time.Hour, tw.Name)
	if err := s.Create(ctx, sb, map[string]session.SeedWorld{tw.Name: {World: world, Doc: doc}}, 0); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Discard(ctx, sb.ID) })
	b.ReportMetric(float64(len(doc)), "doc-bytes")
	return sb, tw
}

// BenchmarkRedisReadCached measures a read Update of the GitHub twin on
// Redis, one caller at a time and many at once. Past the first call the
// decoded world comes from the store's cache, checked by its version.
func BenchmarkRedisReadCached(b *testing.B) {
	s := newRedis(b, time.Now)
	sb, tw := benchGitHub(b, s)
	ctx := context.Background()
	read := func(world any) (bool, error) { return false, nil }
	b.Run("serial", func(b *testing.B) {
		for b.Loop() {
			if err := s.Update(ctx, sb, tw, false, read); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if err := s.Update(ctx, sb, tw, false, read); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}

// BenchmarkRedisWrite measures a write Update of the GitHub twin on Redis
// that reports a mutation, so each call takes the lease and saves.
func BenchmarkRedisWrite(b *testing.B) {
	s := newRedis(b, time.Now)
	sb, tw := benchGitHub(b, s)
	ctx := context.Background()
	write := func(world any) (bool, error) { return true, nil }
	for b.Loop() {
		if err := s.Update(ctx, sb, tw, true, write); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRedisAuthorize measures the data-plane authorization of a call
// (the sandbox record, read from Redis every call).
func BenchmarkRedisAuthorize(b *testing.B) {
	s := newRedis(b, time.Now)
	sb, tw := benchGitHub(b, s)
	ctx := context.Background()
	for b.Loop() {
		if _, err := s.Get(ctx, sb.ID); err != nil {
			b.Fatal(err)
		}
	}
	_ = tw
}

// BenchmarkRedisCall measures the store's part of a data-plane call on the
// GitHub twin: the authorization, then a read or a write.
func BenchmarkRedisCall(b *testing.B) {
	s := newRedis(b, time.Now)
	sb, tw := benchGitHub(b, s)
	ctx := context.Background()
	m := session.NewManager(s, nil, session.Config{}, nil)
	for _, write := range []bool{false, true} {
		name := "read"
		if write {
			name = "write"
		}
		fn := func(world any) (bool, error) { return write, nil }
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				call, _, err := m.Authorize(ctx, sb.ID, tw.Name, "auth")
				if err != nil {
					b.Fatal(err)
				}
				if err := s.Update(ctx, call, tw, write, fn); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRedisPipelined measures the read path of a data-plane call on
// Redis (the authorization's GetForTwin, a read Update served from the
// cached world, and the tape append) from 64 goroutines at once, as 64
// concurrent HTTP clients make it, with the hot path's commands batched
// by 1, 2 or 4 senders and with batching off. cmds/batch is how many
// commands the average round trip carried.
func BenchmarkRedisPipelined(b *testing.B) {
	s := newRedis(b, time.Now)
	ctx := context.Background()
	read := func(world any) (bool, error) { return false, nil }
	for _, senders := range []int{-1, 1, 2, 4} {
		name := "off"
		if senders > 0 {
			name = fmt.Sprintf("senders=%d", senders)
		}
		b.Run(name, func(b *testing.B) {
			s.SetPipelineSenders(senders)
			sb, tw := benchGitHub(b, s)
			row := storetest.NewRow(sb, tw.Name, "/repos/acme/api/issues/1")
			row.Method, row.Status, row.StateMutation = "GET", 200, false
			// About what a get-issue answer weighs.
			row.Response.Body = json.RawMessage(`{"body":"` + strings.Repeat("x", 1500) + `"}`)
			batches0, cmds0 := s.PipelineStats()
			b.SetParallelism(max(1, 64/runtime.GOMAXPROCS(0)))
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					call, err := s.GetForTwin(ctx, sb.ID, tw.Name)
					if err == nil {
						err = s.Update(ctx, call, tw, false, read)
					}
					if err == nil {
						r := *row
						_, err = s.Append(ctx, call, &r)
					}
					if err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.StopTimer()
			if batches, cmds := s.PipelineStats(); batches > batches0 {
				b.ReportMetric(float64(cmds-cmds0)/float64(batches-batches0), "cmds/batch")
			}
		})
	}
}

// worldWrite is one write of BenchmarkRedisWriteWorldSize: a twin, the
// seed of its world holding n entities, and the write's arguments.
type worldWrite struct {
	twin, action, unit string
	seed               func(n int) (json.RawMessage, error)
	args               func(n int) string
}

// worldWrites are the writes pome-bench's scale mode measures (a comment on
// the newest of n issues, a message to a channel of n messages, a customer
// among n, a message sent from a mailbox of n), on the same seeds.
var worldWrites = []worldWrite{
	{twin: "github", action: "add_issue_comment", unit: "issues", seed: scaleseed.GitHub, args: func(n int) string {
		return fmt.Sprintf(`{"owner":"acme","repo":"api","issue_number":%d,"body":"Load test comment: looking into the 500 on POST /orders."}`, n)
	}},
	{twin: "slack", action: "slack_send_message", unit: "messages", seed: scaleseed.Slack, args: func(int) string {
		return `{"channel_id":"general","message":"Load test message: deploy looks healthy."}`
	}},
	{twin: "stripe", action: "create_customer", unit: "customers", seed: scaleseed.Stripe, args: func(int) string {
		return `{"email":"load@example.com","name":"Load Test","description":"pome-bench"}`
	}},
	{twin: "gmail", action: "send_message", unit: "messages", seed: scaleseed.Gmail, args: func(int) string {
		return `{"userId":"me","raw":"VG86IGJvYkBleGFtcGxlLmNvbQ0KU3ViamVjdDogTG9hZCB0ZXN0DQoNCkRlcGxveSBsb29rcyBoZWFsdGh5Lg0K"}`
	}},
}

// BenchmarkRedisWriteWorldSize measures a write on Redis, served as a
// data-plane call serves it (Manager.Invoke: the action run through the
// store's Update, saved through its script), for each twin of pome-bench's
// scale mode on worlds of 10, 1,000 and 10,000 entities: as the store
// saves it (ops: run on the cached world in place, saved as the
// operation), and, for comparison, run on a private copy and saved as its
// world delta (copy: what every write cost before operations, and what a
// write that cannot be recorded as one still costs). Each sandbox takes at
// most 200 writes before it is replaced (timer stopped), so the world
// measured stays the size named. cpu-ns/op is this process's CPU time
// (user and system) per write; doc-bytes is the world's document.
//
//	POME_TEST_REDIS_URL=redis://127.0.0.1:6379/15 go test -run '^$' -bench RedisWriteWorldSize -benchtime 400x ./session/
func BenchmarkRedisWriteWorldSize(b *testing.B) {
	ctx := context.Background()
	reg := all.Registry()
	for _, layout := range []string{"ops", "copy"} {
		for _, ww := range worldWrites {
			tw, _ := reg.Get(ww.twin)
			a, ok := tw.Action(ww.action)
			if !ok {
				b.Fatalf("%s has no action %s", ww.twin, ww.action)
			}
			for _, n := range []int{10, 1_000, 10_000} {
				b.Run(fmt.Sprintf("%s/%s/%s=%d", layout, ww.twin, ww.unit, n), func(b *testing.B) {
					s := newRedis(b, time.Now)
					m := session.NewManager(s, nil, session.Config{}, nil)
					raw, err := ww.seed(n)
					if err != nil {
						b.Fatal(err)
					}
					world, err := tw.NewWorld(twins.WithEnv(ctx, &twins.Env{Twin: tw.Name, Now: time.Now}), raw)
					if err != nil {
						b.Fatal(err)
					}
					doc, err := json.Marshal(world)
					if err != nil {
						b.Fatal(err)
					}
					in, err := a.Decode(json.RawMessage(ww.args(n)))
					if err != nil {
						b.Fatal(err)
					}
					fresh := func() *session.Sandbox {
						sb := storetest.NewSandbox(storetest.NewTeam(), time.Now(), time.Hour, tw.Name)
						if err := s.Create(ctx, sb, map[string]session.SeedWorld{tw.Name: {World: world, Doc: doc}}, 0); err != nil {
							b.Fatal(err)
						}
						return sb
					}
					write := func(sb *session.Sandbox) {
						var err error
						if layout == "ops" {
							_, err = m.Invoke(ctx, sb, tw, a, in, nil)
						} else {
							env := m.Env(sb, tw)
							err = s.Update(ctx, sb, tw, true, func(w any) (bool, error) {
								cctx, call := twins.WithCall(twins.WithEnv(ctx, env))
								_, err := a.Run(cctx, w, in)
								return call.Mutated(), err
							})
						}
						if err != nil {
							b.Fatal(err)
						}
					}
					sb := fresh()
					// One unmeasured write caches the world, as a replica
					// serving the sandbox has it.
					write(sb)
					writes := 1
					b.ReportAllocs()
					cpu0 := cpuTime()
					b.ResetTimer()
					for range b.N {
						if writes == 200 {
							b.StopTimer()
							cpu := cpuTime()
							s.Discard(ctx, sb.ID)
							sb = fresh()
							write(sb)
							writes = 1
							cpu0 += cpuTime() - cpu
							b.StartTimer()
						}
						write(sb)
						writes++
					}
					b.StopTimer()
					b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
					s.WaitCompactions()
					s.Discard(ctx, sb.ID)
					b.ReportMetric(float64(len(doc)), "doc-bytes")
				})
			}
		}
	}
}

// cpuTime is the CPU time (user and system) this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
