package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"time"

	"github.com/pomehq/pome/twins"
)

// Writes as operations: what Manager.Invoke tells a store about a write,
// so that the store can save the write as the call that made it (an
// operation) and run it again on another replica's copy of the world
// (see redis_delta.go).
//
// A twin's action is deterministic: no randomness, no clock but the
// sandbox clock its Env gives it, no state but its world. What it does to
// a world is therefore fixed by the world before it, the action's name,
// its decoded input and what it read of the call besides: the Env (the
// sandbox clock's readings, in order; the twin's API URL), the transport,
// the credential kind and the request headers it asked for. A writeOp
// records exactly those, as the run goes.

// writeOp is one write as an operation. Its JSON is what the Redis store
// saves as the write's delta.
type writeOp struct {
	Action string          `json:"op"`
	In     json.RawMessage `json:"in"`
	APIURL string          `json:"url,omitempty"`
	// Now are the sandbox clock's readings the run took, in order.
	Now        []time.Time       `json:"now,omitempty"`
	Transport  string            `json:"tr,omitempty"`
	Credential string            `json:"cred,omitempty"`
	Headers    map[string]string `json:"hdr,omitempty"`

	// mu guards what a run records (a handler may read the clock from
	// more than one goroutine).
	mu sync.Mutex
	// changed: the action's run reported a change (a mutation or
	// bookkeeping the store keeps), whatever the update then answered.
	changed bool
}

type writeOpKey struct{}

// withWriteOp attaches op to ctx for the store's Update.
func withWriteOp(ctx context.Context, op *writeOp) context.Context {
	return context.WithValue(ctx, writeOpKey{}, op)
}

// writeOpFrom returns the operation the write of ctx records, or nil.
func writeOpFrom(ctx context.Context) *writeOp {
	op, _ := ctx.Value(writeOpKey{}).(*writeOp)
	return op
}

// newWriteOp starts the record of a write of action a with input in, or
// returns nil when the input would not come back the same from its JSON
// (the store then saves the write by comparing worlds).
func newWriteOp(a twins.Action, in any) *writeOp {
	if in == nil || reflect.TypeOf(in) != a.InputType() {
		return nil
	}
	data, err := json.Marshal(in)
	if err != nil {
		return nil
	}
	back, err := decodeOpInput(a, data)
	if err != nil || !reflect.DeepEqual(back, in) {
		return nil
	}
	return &writeOp{Action: a.Name(), In: data}
}

func decodeOpInput(a twins.Action, data []byte) (any, error) {
	v := reflect.New(a.InputType())
	if err := json.Unmarshal(data, v.Interface()); err != nil {
		return nil, err
	}
	return v.Elem().Interface(), nil
}

// begin clears what an earlier run of the write recorded (a store may run
// a write more than once).
func (op *writeOp) begin() {
	op.mu.Lock()
	op.Now, op.Headers, op.changed = nil, nil, false
	op.mu.Unlock()
}

func (op *writeOp) noteNow(t time.Time) {
	op.mu.Lock()
	op.Now = append(op.Now, t)
	op.mu.Unlock()
}

func (op *writeOp) noteHeader(name, value string) {
	op.mu.Lock()
	if op.Headers == nil {
		op.Headers = map[string]string{}
	}
	op.Headers[name] = value
	op.mu.Unlock()
}

func (op *writeOp) setChanged(v bool) {
	op.mu.Lock()
	op.changed = v
	op.mu.Unlock()
}

func (op *writeOp) ranChange() bool {
	op.mu.Lock()
	defer op.mu.Unlock()
	return op.changed
}

func (op *writeOp) encode() ([]byte, error) {
	op.mu.Lock()
	defer op.mu.Unlock()
	return json.Marshal(op)
}

// isOp reports whether a stored delta is an operation (a JSON object)
// rather than a world delta (twins.WorldDelta's JSON list).
func isOp(d []byte) bool { return len(d) > 0 && d[0] == '{' }

// errReplay is a stored operation that did not run again as it ran first.
var errReplay = errors.New("operation does not replay")

// replayOp runs the stored operation data on world, in place, as the write
// that recorded it ran: on the same input, with the same clock readings,
// API URL, transport, credential and headers. id and twin name the
// sandbox's twin. A run that asks for more clock readings than were
// recorded, or panics, is an error: world is then in an unknown state and
// must be dropped.
func replayOp(tw *twins.Twin, id string, world any, data []byte) (err error) {
	var op writeOp
	if err := json.Unmarshal(data, &op); err != nil {
		return fmt.Errorf("operation: %w", err)
	}
	a, ok := tw.Action(op.Action)
	if !ok && tw.GraphQL != nil && tw.GraphQL.Name() == op.Action {
		a, ok = tw.GraphQL, true
	}
	if !ok {
		return fmt.Errorf("operation %s: no such action", op.Action)
	}
	in, err := decodeOpInput(a, op.In)
	if err != nil {
		return fmt.Errorf("operation %s: input: %w", op.Action, err)
	}
	var mu sync.Mutex
	next := 0
	var short bool
	env := &twins.Env{SandboxID: id, Twin: tw.Name, APIURL: op.APIURL, Now: func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		if next >= len(op.Now) {
			short = true
			if len(op.Now) == 0 {
				return time.Time{}
			}
			return op.Now[len(op.Now)-1]
		}
		t := op.Now[next]
		next++
		return t
	}}
	ctx := twins.WithEnv(context.Background(), env)
	if op.Transport != "" {
		ctx = twins.WithTransport(ctx, op.Transport)
	}
	if op.Credential != "" {
		ctx = twins.WithCredential(ctx, op.Credential)
	}
	hdr := make(map[string][]string, len(op.Headers))
	for k, v := range op.Headers {
		if v != "" {
			hdr[k] = []string{v}
		}
	}
	ctx = twins.WithHeaders(ctx, hdr)
	ctx, _ = twins.WithCall(ctx)
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("operation %s: %w: panic: %v", op.Action, errReplay, p)
		}
	}()
	_, _ = a.Run(ctx, world, in)
	if short || next != len(op.Now) {
		return fmt.Errorf("operation %s: %w: read the clock %d times, %d recorded", op.Action, errReplay, next, len(op.Now))
	}
	return nil
}
