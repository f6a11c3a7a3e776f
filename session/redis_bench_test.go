package session_test

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/pomehq/pome/session"
	"github.com/pomehq/pome/session/storetest"
	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/github"
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

// issuesWorld is the GitHub twin's world with one repository of n issues,
// each with one comment.
func issuesWorld(b *testing.B, tw *twins.Twin, n int) any {
	b.Helper()
	s := github.Seed{
		Clock: "2026-01-05T09:00:00Z",
		Me:    "pome-agent",
		Users: []github.SeedUser{{Login: "alice"}, {Login: "bob"}, {Login: "pome-agent"}},
		Orgs:  []github.SeedOrg{{Login: "acme", Members: []string{"alice", "bob", "pome-agent"}}},
		Repos: []github.SeedRepo{{Owner: "acme", Name: "api", DefaultBranch: "main", Collaborators: []string{"alice", "bob", "pome-agent"}}},
	}
	for i := range n {
		s.Repos[0].Issues = append(s.Repos[0].Issues, github.SeedIssue{
			Number: i + 1, Title: fmt.Sprintf("Issue %d: 500 error on POST /orders after deploy", i+1),
			Body: "Since this morning's deploy, POST /orders answers 500 for every request.", User: "alice",
			Comments: []github.SeedComment{{User: "bob", Body: "Looking into it."}},
		})
	}
	raw, err := json.Marshal(s)
	if err != nil {
		b.Fatal(err)
	}
	w, err := tw.NewWorld(context.Background(), raw)
	if err != nil {
		b.Fatal(err)
	}
	return w
}

// BenchmarkRedisWriteWorldSize measures a write Update on Redis (a comment
// added to the last issue, saved through the store's script) on worlds of
// 10, 1,000 and 10,000 issues: saved as a delta (the layout) and, for
// comparison, as the whole document (the layout before deltas). Each
// sandbox takes at most 200 writes before it is replaced (timer
// stopped), so the world measured stays the size named. doc-bytes is the
// world's document.
//
//	POME_TEST_REDIS_URL=redis://127.0.0.1:6379/15 go test -run '^$' -bench RedisWriteWorldSize -benchtime 200x ./session/
func BenchmarkRedisWriteWorldSize(b *testing.B) {
	ctx := context.Background()
	tw := github.New()
	add, _ := tw.Action("add_issue_comment")
	for _, layout := range []string{"delta", "whole"} {
		for _, n := range []int{10, 1_000, 10_000} {
			b.Run(fmt.Sprintf("%s/issues=%d", layout, n), func(b *testing.B) {
				s := newRedis(b, time.Now)
				s.SetWholeSaves(layout == "whole")
				world := issuesWorld(b, tw, n)
				doc, err := json.Marshal(world)
				if err != nil {
					b.Fatal(err)
				}
				in, err := add.Decode(json.RawMessage(fmt.Sprintf(`{"owner":"acme","repo":"api","issue_number":%d,"body":"Load test comment: looking into the 500 on POST /orders."}`, n)))
				if err != nil {
					b.Fatal(err)
				}
				env := &twins.Env{Twin: tw.Name, Now: time.Now}
				fresh := func() *session.Sandbox {
					sb := storetest.NewSandbox(storetest.NewTeam(), time.Now(), time.Hour, tw.Name)
					if err := s.Create(ctx, sb, map[string]session.SeedWorld{tw.Name: {World: world, Doc: doc}}, 0); err != nil {
						b.Fatal(err)
					}
					return sb
				}
				sb := fresh()
				write := func(w any) (bool, error) {
					cctx, _ := twins.WithCall(twins.WithEnv(ctx, env))
					_, err := add.Run(cctx, w, in)
					return err == nil, err
				}
				// One unmeasured write caches the world, as a replica
				// serving the sandbox has it.
				if err := s.Update(ctx, sb, tw, true, write); err != nil {
					b.Fatal(err)
				}
				writes := 1
				b.ReportAllocs()
				b.ResetTimer()
				for range b.N {
					if writes == 200 {
						b.StopTimer()
						s.Discard(ctx, sb.ID)
						sb = fresh()
						if err := s.Update(ctx, sb, tw, true, write); err != nil {
							b.Fatal(err)
						}
						writes = 1
						b.StartTimer()
					}
					if err := s.Update(ctx, sb, tw, true, write); err != nil {
						b.Fatal(err)
					}
					writes++
				}
				b.StopTimer()
				s.WaitCompactions()
				s.Discard(ctx, sb.ID)
				b.ReportMetric(float64(len(doc)), "doc-bytes")
			})
		}
	}
}
