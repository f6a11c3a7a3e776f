package session

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/redis/go-redis/v9"
)

// Auto-pipelining ("group commit") of the Redis store's hot path.
//
// Under load most of what a call pays for its round trips is not Redis's
// work but the fixed price of a round trip: a write and a read syscall on
// each side, a wakeup of Redis's event loop, and go-redis's bookkeeping per
// command. The batcher lets concurrent callers share that price: their
// commands queue, and a few sender goroutines each take whatever is queued
// and send it to Redis as one pipeline. Nothing waits to fill a batch (there
// is no timer), so a lone call goes out at once, as it would have without
// batching; under concurrency, the calls that arrive while a batch is on the
// wire form the next one.
//
// Each command still gets its own reply or error: a pipeline is not a
// transaction, and Redis answers its commands one by one. A connection
// failure reaches every command of the batch (go-redis stamps the error on
// each), as it would have reached each of them on its own connection.

const (
	// defaultPipelineSenders is how many batches may be on the wire at
	// once. On two cores, 1, 2 and 4 senders cost about the same per call
	// (BenchmarkRedisPipelined; 2 was a little ahead); two keep Redis busy
	// while one batch's replies are read and its callers woken, and keep
	// one slow batch (large documents) from holding up every caller.
	defaultPipelineSenders = 2
	// maxBatchCmds bounds the commands of one batch, and so how long its
	// first caller waits for its last one's reply to be read.
	maxBatchCmds = 128
	// maxBatchBytes bounds the argument bytes of one batch (a save carries
	// its whole world document): go-redis reads a batch's replies under one
	// read deadline, which a few large documents must not exhaust.
	maxBatchBytes = 1 << 20
)

// batcher sends the commands of concurrent callers to Redis together. It
// is safe for concurrent use. Its senders start with the first command and
// stop at close.
type batcher struct {
	rdb redis.UniversalClient
	// ctx runs every batch. It belongs to no caller, so one caller giving
	// up never fails the others' commands; close cancels it.
	ctx    context.Context
	cancel context.CancelFunc

	mu      sync.Mutex
	wake    sync.Cond // signalled when work is queued, senders change or close
	queue   []*batchReq
	want    int // senders wanted
	running int // senders running
	closed  bool
	senders sync.WaitGroup

	// batches and cmds count the pipelines sent and the commands in them.
	batches atomic.Int64
	cmds    atomic.Int64
}

// batchReq is one caller's commands, which always go out in one batch, in
// order, one after the other (GetForTwin's two reads stay one round trip).
type batchReq struct {
	cmds []redis.Cmder
	size int // argument bytes, roughly
	// done receives once the commands have their replies (or errors).
	// It has room for that one value, so a sender never blocks on a
	// caller that gave up.
	done chan struct{}
}

// reqPool recycles requests whose caller saw them done; a request whose
// caller gave up is left to the garbage collector, since its sender may
// still be using it.
var reqPool = sync.Pool{New: func() any { return &batchReq{done: make(chan struct{}, 1)} }}

func newBatcher(rdb redis.UniversalClient, senders int) *batcher {
	ctx, cancel := context.WithCancel(context.Background())
	b := &batcher{rdb: rdb, ctx: ctx, cancel: cancel, want: senders}
	b.wake.L = &b.mu
	return b
}

// setSenders changes how many senders run (0: none, once the queue is
// empty). Surplus senders finish the queue, then stop.
func (b *batcher) setSenders(n int) {
	b.mu.Lock()
	b.want = n
	if b.running > 0 {
		// Started already: add the missing ones now.
		b.startLocked(n)
	}
	b.mu.Unlock()
	b.wake.Broadcast()
}

// startLocked starts senders until n run. b.mu is held.
func (b *batcher) startLocked(n int) {
	for ; b.running < n && !b.closed; b.running++ {
		b.senders.Add(1)
		go b.send()
	}
}

// do sends cmds to Redis in one batch, with other callers' commands, and
// waits for their replies, which it leaves in cmds. size is roughly how
// many bytes their arguments hold. It returns an error only when the
// commands have no reply to read: ctx ended first (the commands may still
// run), or the batcher is closed. Otherwise each command carries its own
// error, if any.
func (b *batcher) do(ctx context.Context, size int, cmds ...redis.Cmder) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	r := reqPool.Get().(*batchReq)
	r.cmds = append(r.cmds[:0], cmds...)
	r.size = size
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		r.release()
		return redis.ErrClosed
	}
	b.queue = append(b.queue, r)
	// At least one sender, even with none wanted (batching was just
	// turned off after this caller chose it): a surplus sender empties
	// the queue before it stops.
	b.startLocked(max(b.want, 1))
	b.mu.Unlock()
	b.wake.Signal()
	select {
	case <-r.done:
		r.release()
		return nil
	case <-ctx.Done():
		select {
		case <-r.done: // answered as ctx ended: the answer is worth more
			r.release()
			return nil
		default:
		}
		// The commands stay queued or on the wire and will be answered
		// to nobody: the same as a request cancelled mid-round-trip.
		return ctx.Err()
	}
}

// release returns a request whose commands were answered to the pool.
func (r *batchReq) release() {
	clear(r.cmds)
	r.cmds = r.cmds[:0]
	reqPool.Put(r)
}

// send is a sender: it waits for queued work, takes up to a batch of it
// without waiting for more, sends it, and wakes its callers.
func (b *batcher) send() {
	defer b.senders.Done()
	var batch []*batchReq
	var cmds []redis.Cmder
	// One pipeline serves all of this sender's batches: Exec empties it.
	pipe := b.rdb.Pipeline()
	for {
		b.mu.Lock()
		for len(b.queue) == 0 && !b.closed && b.running <= b.want {
			b.wake.Wait()
		}
		if b.closed || len(b.queue) == 0 {
			b.running--
			b.mu.Unlock()
			return
		}
		batch = b.takeLocked(batch)
		more := len(b.queue) > 0
		b.mu.Unlock()
		if more {
			// Another sender may be idle: let it take the rest now.
			b.wake.Signal()
		}

		for _, r := range batch {
			cmds = append(cmds, r.cmds...)
		}
		b.exec(pipe, cmds)
		for i, r := range batch {
			r.done <- struct{}{}
			batch[i] = nil
		}
		clear(cmds)
		batch, cmds = batch[:0], cmds[:0]
	}
}

// takeLocked moves the oldest requests that fit in one batch from the
// queue to batch. The first always goes, whatever its size. b.mu is held.
func (b *batcher) takeLocked(batch []*batchReq) []*batchReq {
	n, cmds, size := 0, 0, 0
	for ; n < len(b.queue); n++ {
		r := b.queue[n]
		if n > 0 && (cmds+len(r.cmds) > maxBatchCmds || size+r.size > maxBatchBytes) {
			break
		}
		cmds += len(r.cmds)
		size += r.size
	}
	batch = append(batch, b.queue[:n]...)
	left := copy(b.queue, b.queue[n:])
	clear(b.queue[left:])
	b.queue = b.queue[:left]
	return batch
}

// exec sends one batch. A panic in go-redis or one of its hooks fails the
// batch's commands instead of the process (or of every caller waiting on
// this sender).
func (b *batcher) exec(pipe redis.Pipeliner, cmds []redis.Cmder) {
	b.batches.Add(1)
	b.cmds.Add(int64(len(cmds)))
	defer func() {
		if p := recover(); p != nil {
			pipe.Discard()
			stampErr(cmds, fmt.Errorf("redis pipeline: panic: %v", p))
		}
	}()
	execPipeline(b.ctx, pipe, cmds)
}

// execPipeline sends cmds through the empty pipeline p in one round trip
// (on a cluster client, one per node) and leaves each command's reply or
// error in it.
func execPipeline(ctx context.Context, p redis.Pipeliner, cmds []redis.Cmder) {
	_ = p.BatchProcess(ctx, cmds...)
	if _, err := p.Exec(ctx); err != nil && !anyErr(cmds) {
		// go-redis stamps a failure of the pipeline on the commands it
		// left without a reply; should it ever not, no command may pass
		// for answered.
		stampErr(cmds, err)
	}
}

func anyErr(cmds []redis.Cmder) bool {
	for _, c := range cmds {
		if c.Err() != nil {
			return true
		}
	}
	return false
}

func stampErr(cmds []redis.Cmder, err error) {
	for _, c := range cmds {
		c.SetErr(err)
	}
}

// close stops the batcher: queued commands fail with redis.ErrClosed at
// once, as do later ones, and the batches on the wire lose their context.
// wait then waits for the senders to stop.
func (b *batcher) close() {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return
	}
	b.closed = true
	pending := b.queue
	b.queue = nil
	b.mu.Unlock()
	b.wake.Broadcast()
	b.cancel()
	for _, r := range pending {
		stampErr(r.cmds, redis.ErrClosed)
		r.done <- struct{}{}
	}
}

// wait returns once every sender stopped (after close).
func (b *batcher) wait() { b.senders.Wait() }

// firstErr is the first command's error, as a pipeline's Exec reports it.
func firstErr(cmds ...redis.Cmder) error {
	for _, c := range cmds {
		if err := c.Err(); err != nil {
			return err
		}
	}
	return nil
}

// pipe runs cmds in one round trip: batched with other callers' commands,
// or on their own when batching is off (SetPipelineSenders). size is
// roughly the bytes of their arguments. As batcher.do, its error means the
// commands have no reply; otherwise each carries its own error.
func (s *RedisStore) pipe(ctx context.Context, size int, cmds ...redis.Cmder) error {
	if !s.direct.Load() {
		return s.batch.do(ctx, size, cmds...)
	}
	if len(cmds) == 1 {
		_ = s.rdb.Process(ctx, cmds[0])
		return nil
	}
	// A copy, so that the callers' argument lists need not escape.
	execPipeline(ctx, s.rdb.Pipeline(), slices.Clone(cmds))
	return nil
}

// runScript runs script as script.Run does, in one batch: EVALSHA, then,
// should Redis no longer hold the script (it restarted, or SCRIPT FLUSH
// ran), EVAL on its own, which loads it again for the batches that follow.
func (s *RedisStore) runScript(ctx context.Context, script *redis.Script, keys []string, args ...any) *redis.Cmd {
	cmdArgs := make([]any, 0, 3+len(keys)+len(args))
	cmdArgs = append(cmdArgs, "evalsha", script.Hash(), len(keys))
	size := 0
	for _, k := range keys {
		cmdArgs = append(cmdArgs, k)
		size += len(k)
	}
	for _, a := range args {
		cmdArgs = append(cmdArgs, a)
		switch a := a.(type) {
		case string:
			size += len(a)
		case []byte:
			size += len(a)
		}
	}
	cmd := redis.NewCmd(ctx, cmdArgs...)
	if len(keys) > 0 {
		// Where a cluster client finds the key that picks the node.
		cmd.SetFirstKeyPos(3)
	}
	if err := s.pipe(ctx, size, cmd); err != nil {
		return redis.NewCmdResult(nil, err)
	}
	if err := cmd.Err(); err != nil && (errors.Is(err, redis.ErrNoScript) || redis.HasErrorPrefix(err, "NOSCRIPT")) {
		// The arguments as copied into cmd, which is answered and no
		// longer used: so the caller's own list need not escape.
		return script.Eval(ctx, s.rdb, keys, cmdArgs[3+len(keys):]...)
	}
	return cmd
}

// SetPipelineSenders sets how many batches of the hot path's commands
// (authorization, tape appends, reads and saves of worlds) may be on the
// wire to Redis at once: n == 0 is the default, n < 0 turns batching off,
// so that each call makes its own round trips as it did before batching.
// Meant to be called before serving; it is safe at any time.
func (s *RedisStore) SetPipelineSenders(n int) {
	switch {
	case n < 0:
		s.direct.Store(true)
		s.batch.setSenders(0)
		return
	case n == 0:
		n = defaultPipelineSenders
	}
	s.batch.setSenders(n)
	s.direct.Store(false)
}

// uncancelled is ctx without its cancellation, for a write that must learn
// its outcome once sent (without an allocation when ctx never ends, as the
// tape recorder's context does not).
func uncancelled(ctx context.Context) context.Context {
	if ctx.Done() == nil {
		return ctx
	}
	return context.WithoutCancel(ctx)
}
