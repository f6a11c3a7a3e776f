//go:build !linux

package load

import (
	"context"
	"errors"
)

var errNoLoop = errors.New("the loop client needs Linux's epoll_pwait2")

func loopWorks() error { return errNoLoop }

// LoopClient is the loop client, which needs Linux (loop_linux.go).
type LoopClient struct{}

// NewLoopClient fails: the loop client needs Linux.
func NewLoopClient(conns int, reqs []RawRequest) (*LoopClient, error) { return nil, errNoLoop }

// Run is never reached (NewLoopClient fails).
func (lc *LoopClient) Run(ctx context.Context, sched Schedule, check func(status int, body []byte) error) *OpenLoopResult {
	return &OpenLoopResult{Offered: sched.Count}
}

// Close does nothing.
func (lc *LoopClient) Close() {}
