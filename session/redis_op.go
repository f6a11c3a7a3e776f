package session

import (
	"context"
	"sync"

	"github.com/pomehq/pome/twins"
)

// writeOp is what Manager.Invoke tells a store about a write it runs: the
// write as an operation (twins.Op), which the Redis store saves as the
// write's delta and other replicas run again (redis_delta.go).
type writeOp struct {
	op *twins.Op
	mu sync.Mutex
	// changed: the action's last run reported a change (a mutation or
	// bookkeeping the store keeps), whatever the update then answered (a
	// budget may refuse it).
	changed bool
}

// opSaver is a store that saves writes as operations (Invoke records
// them only for such a store).
type opSaver interface{ savesOps() }

func (s *RedisStore) savesOps() {}

type writeOpKey struct{}

// withWriteOp attaches w to ctx for the store's Update.
func withWriteOp(ctx context.Context, w *writeOp) context.Context {
	return context.WithValue(ctx, writeOpKey{}, w)
}

// writeOpFrom returns the operation the write of ctx records, or nil.
func writeOpFrom(ctx context.Context) *writeOp {
	w, _ := ctx.Value(writeOpKey{}).(*writeOp)
	return w
}

// begin starts a run of the write (a store may run it more than once).
func (w *writeOp) begin() {
	w.op.Reset()
	w.setChanged(false)
}

func (w *writeOp) setChanged(v bool) {
	w.mu.Lock()
	w.changed = v
	w.mu.Unlock()
}

func (w *writeOp) ranChange() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.changed
}

func (w *writeOp) encode() ([]byte, error) { return w.op.Encode() }
