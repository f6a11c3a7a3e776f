package session

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// BenchmarkRedisAppendScript: what Redis spends on a read's tape append
// (appendCheckedScript, a speculative read's): a 3,000-byte row holding
// its answer (whole_row), the same row holding a 2,400-byte answer by
// reference, the answer already stored (by_reference, see
// redis_bodies.go), and a script that only receives the whole row's keys
// and arguments (with a 457-byte sandbox record) and returns: the part of
// a read's cost that is the script's own work. 64 appends a pipeline,
// spread over 100 sandboxes; redis-µs/call is the Redis server's CPU
// (INFO cpu), so the server must be local and otherwise idle.
//
//	POME_TEST_REDIS_URL=redis://127.0.0.1:6379/15 go test -run '^$' -bench RedisAppendScript ./session/
func BenchmarkRedisAppendScript(b *testing.B) {
	// A single server: INFO cpu is read from the one it answers on.
	rdb := testRedisClient(b)
	ctx := context.Background()
	record, row, answer := strings.Repeat("m", 457), strings.Repeat("r", 3000), strings.Repeat("a", 2400)
	hash := bodyHash([]byte(answer))
	ref := make([]byte, bodyRefHead, bodyRefHead+600)
	if err := encodeBodyRef(ref, hash, 300); err != nil {
		b.Fatal(err)
	}
	ref = append(ref, strings.Repeat("r", 600)...)
	for _, c := range []struct {
		name      string
		script    *redis.Script
		row, hash string
	}{
		{"whole_row", appendCheckedScript, row, ""},
		{"by_reference", appendCheckedScript, string(ref), hash},
		{"arguments_only", redis.NewScript(`return 1`), row, ""},
	} {
		b.Run(c.name, func(b *testing.B) {
			const sandboxes = 100
			id := func(i int) string { return fmt.Sprintf("bench_append_%d", i%sandboxes) }
			for i := range sandboxes {
				rdb.Set(ctx, metaKey(id(i)), record, 0)
				rdb.PExpire(ctx, metaKey(id(i)), time.Hour)
				rdb.HSet(ctx, stateKey(id(i), "github"), "ver", 1)
				rdb.HSet(ctx, tapeBodiesKey(id(i), "github"), hash, answer)
			}
			b.Cleanup(func() {
				for i := range sandboxes {
					rdb.Del(ctx, metaKey(id(i)), stateKey(id(i), "github"), tapeKey(id(i), "github"), tapeSeqKey(id(i), "github"), tapeBodiesKey(id(i), "github"))
				}
			})
			if err := c.script.Load(ctx, rdb).Err(); err != nil {
				b.Fatal(err)
			}
			cpu0 := redisServerCPU(b, rdb)
			n := 0
			for b.Loop() {
				// Every row is kept (the cap, ARGV[2], is far off): about
				// 3 KB of Redis memory a call (600 bytes by reference)
				// until the clean-up.
				p := rdb.Pipeline()
				for range 64 {
					keys := []string{metaKey(id(n)), stateKey(id(n), "github"), tapeSeqKey(id(n), "github"), tapeKey(id(n), "github"), tapeBodiesKey(id(n), "github")}
					c.script.EvalSha(ctx, p, keys, c.row, 1<<40, writeID(), c.hash, "", record, "1")
					n++
				}
				cmds, err := p.Exec(ctx)
				if err != nil {
					b.Fatal(err)
				}
				if v, _ := cmds[0].(*redis.Cmd).Int64(); v < 1 {
					b.Fatalf("the append answered %d", v)
				}
			}
			b.ReportMetric((redisServerCPU(b, rdb)-cpu0)*1e6/float64(n), "redis-µs/call")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n)/1e3, "µs/call")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// redisServerCPU is the Redis server's CPU time so far, in seconds.
func redisServerCPU(b *testing.B, rdb redis.UniversalClient) float64 {
	info, err := rdb.Info(context.Background(), "cpu").Result()
	if err != nil {
		b.Fatal(err)
	}
	var total float64
	for _, line := range strings.Split(info, "\r\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && (k == "used_cpu_sys" || k == "used_cpu_user") {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				b.Fatal(err)
			}
			total += f
		}
	}
	return total
}
