package twins

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"time"
)

// Writes as operations.
//
// An action is deterministic: no randomness, no clock but the sandbox
// clock its Env gives it, no state but its world. What a write does to a
// world is therefore fixed by the world before it, the action's name, its
// decoded input and what it read of the call besides: the Env (the
// sandbox clock's readings, in order; the twin's API URL), the transport,
// the credential kind and the request headers it asked for. An Op records
// exactly those as the write runs (Recording), and Replay runs the write
// again, on another copy of the world before it, to the same world after
// it. A store shared by replicas saves a write as its Op (the Redis
// store), and every action test checks that its writes replay
// (twinstest.Call).

// Op is one write as an operation. Its JSON is what a store saves.
type Op struct {
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
}

// NewOp starts the record of a write of action a with the decoded input
// in, or returns nil when the input would not come back the same from its
// JSON (such a write cannot be saved as an operation).
func NewOp(a Action, in any) *Op {
	if in == nil || reflect.TypeOf(in) != a.InputType() {
		return nil
	}
	data, err := json.Marshal(in)
	if err != nil {
		return nil
	}
	back, err := opInput(a, data)
	if err != nil || !reflect.DeepEqual(back, in) {
		return nil
	}
	return &Op{Action: a.Name(), In: data}
}

func opInput(a Action, data []byte) (any, error) {
	v := reflect.New(a.InputType())
	if err := json.Unmarshal(data, v.Interface()); err != nil {
		return nil, err
	}
	return v.Elem().Interface(), nil
}

// Recording returns ctx set to record into op what a handler run with it
// reads of the call: its Env's clock and API URL, its transport and
// credential kind (as ctx has them now), and the headers it asks for.
func (op *Op) Recording(ctx context.Context) context.Context {
	env := *EnvFrom(ctx)
	now := env.Now
	env.Now = func() time.Time {
		t := now()
		op.mu.Lock()
		op.Now = append(op.Now, t)
		op.mu.Unlock()
		return t
	}
	op.APIURL = env.APIURL
	op.Transport = TransportFrom(ctx)
	op.Credential = CredentialFrom(ctx)
	return withHeaderNote(WithEnv(ctx, &env), func(name, value string) {
		op.mu.Lock()
		if op.Headers == nil {
			op.Headers = map[string]string{}
		}
		op.Headers[name] = value
		op.mu.Unlock()
	})
}

// Reset forgets what an earlier run recorded, for a write run again.
func (op *Op) Reset() {
	op.mu.Lock()
	op.Now, op.Headers = nil, nil
	op.mu.Unlock()
}

// Encode returns op's JSON.
func (op *Op) Encode() ([]byte, error) {
	op.mu.Lock()
	defer op.mu.Unlock()
	return json.Marshal(op)
}

// IsOp reports whether a stored change is an Op (a JSON object) rather
// than a WorldDelta (a JSON list).
func IsOp(d []byte) bool { return len(d) > 0 && d[0] == '{' }

// ErrReplay is an operation that did not run again as it ran first.
var ErrReplay = errors.New("operation does not replay")

// Replay runs the operation data (Op's JSON) on world, in place, as the
// write that recorded it ran: the same input, clock readings, API URL,
// transport, credential and headers, in sandbox id. world must be the
// world that write started from. A run that reads the clock other than
// as recorded, or panics, fails with ErrReplay; world is then in an
// unknown state.
func Replay(tw *Twin, id string, world any, data []byte) (err error) {
	var op Op
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
	in, err := opInput(a, op.In)
	if err != nil {
		return fmt.Errorf("operation %s: input: %w", op.Action, err)
	}
	var mu sync.Mutex
	next, over := 0, false
	env := &Env{SandboxID: id, Twin: tw.Name, APIURL: op.APIURL, Now: func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		if next >= len(op.Now) {
			over = true
			if len(op.Now) == 0 {
				return time.Time{}
			}
			return op.Now[len(op.Now)-1]
		}
		next++
		return op.Now[next-1]
	}}
	ctx := WithEnv(context.Background(), env)
	if op.Transport != "" {
		ctx = WithTransport(ctx, op.Transport)
	}
	if op.Credential != "" {
		ctx = WithCredential(ctx, op.Credential)
	}
	hdr := make(map[string][]string, len(op.Headers))
	for k, v := range op.Headers {
		if v != "" {
			hdr[k] = []string{v}
		}
	}
	ctx, _ = WithCall(WithHeaders(ctx, hdr))
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("operation %s: %w: panic: %v", op.Action, ErrReplay, p)
		}
	}()
	_, _ = a.Run(ctx, world, in)
	mu.Lock()
	defer mu.Unlock()
	if over || next != len(op.Now) {
		return fmt.Errorf("operation %s: %w: the clock was read %d times, %d recorded", op.Action, ErrReplay, next, len(op.Now))
	}
	return nil
}
