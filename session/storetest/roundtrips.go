package storetest

import (
	"context"
	"sync/atomic"

	"github.com/redis/go-redis/v9"
)

// RoundTrips is a go-redis hook that counts the round trips a client
// makes (a pipeline is one), for tests that pin how many a call costs.
type RoundTrips struct{ N atomic.Int64 }

func (r *RoundTrips) DialHook(next redis.DialHook) redis.DialHook { return next }

func (r *RoundTrips) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		r.N.Add(1)
		return next(ctx, cmd)
	}
}

func (r *RoundTrips) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		r.N.Add(1)
		return next(ctx, cmds)
	}
}
