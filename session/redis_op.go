package session

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
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

// VerifyOperations makes the store check, for tests, every write it saves
// as an operation: the operation is run again on the world before the
// write, decoded from its document as a replica that reads it cold has it,
// and must make the writer's world, byte for byte; a write that reported
// no change must have left the world's document as it was. Each write
// then costs two encodings and a decoding of its world. A write that fails
// the check is still saved; OperationFaults reports it. Call it before
// serving.
func (s *RedisStore) VerifyOperations() { s.verify = &opVerifier{} }

// OperationFaults returns what VerifyOperations found: one line per write
// whose operation did not replay to the writer's world.
func (s *RedisStore) OperationFaults() []string {
	if s.verify == nil {
		return nil
	}
	s.verify.mu.Lock()
	defer s.verify.mu.Unlock()
	return append([]string(nil), s.verify.faults...)
}

type opVerifier struct {
	mu     sync.Mutex
	faults []string
}

// unchanged checks that world, which a write that reported no change ran
// on, still has the document before.
func (v *opVerifier) unchanged(tw *twins.Twin, before []byte, world any) {
	after, err := json.Marshal(world)
	if err == nil && bytes.Equal(after, before) {
		return
	}
	v.mu.Lock()
	v.faults = append(v.faults, fmt.Sprintf("%s: a write that reported no change changed the world (%v)\nbefore: %.1500s\nafter:  %.1500s", tw.Name, err, before, after))
	v.mu.Unlock()
}

// check replays op (JSON) on the world whose document is before and
// compares the result with world, the writer's.
func (v *opVerifier) check(tw *twins.Twin, id string, before, op []byte, world any) {
	fault := func(format string, args ...any) {
		v.mu.Lock()
		v.faults = append(v.faults, fmt.Sprintf("%s: %.300s: ", tw.Name, op)+fmt.Sprintf(format, args...))
		v.mu.Unlock()
	}
	replica, err := tw.DecodeWorld(before)
	if err != nil {
		fault("decode the world before: %v", err)
		return
	}
	if err := twins.Replay(tw, id, replica, op); err != nil {
		fault("%v", err)
		return
	}
	got, err1 := json.Marshal(replica)
	want, err2 := json.Marshal(world)
	if err1 != nil || err2 != nil {
		fault("encode: %v, %v", err1, err2)
		return
	}
	if !bytes.Equal(got, want) {
		fault("replays to\n%.2000s\nthe writer has\n%.2000s", got, want)
	}
}
