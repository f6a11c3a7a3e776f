package session

import "context"

// A call's consistency.
//
// Every data-plane call, whichever transport carries it (a REST request, a
// GraphQL query, an MCP request or one request of an MCP batch), is served
// through a Call, which owns the protocol that keeps its answer, its
// state change and its tape row in agreement:
//
//   - begin: the call is authorized against the sandbox record. A call
//     that only reads (CallRead) may be authorized against the record
//     this process already holds (a speculative record, redis_spec.go),
//     checked only when its row is taped. A call that may write
//     (CallWrite) has, on a store shared by replicas, its write held
//     until its row is taped, and both are stored in one step
//     (redis_hold.go).
//   - run: the caller serves the attempt with the record. When the
//     attempt is held (Attempt.Held) its answer must not leave yet. An
//     attempt that panics abandons the write it holds, storing nothing.
//     Once it returns, the attempt is settled: a held write whose row
//     never came is saved alone, one whose row could not be stored is
//     given up.
//   - commit or retry: a held answer stands when the store kept the
//     record, the write and the row; it is thrown away and the call
//     served again, the ordinary way, when the store refused them as
//     stale; a held write that keeps conflicting (maxWriteConflicts) or a
//     store that failed is answered as unavailable.
//
// So an acknowledged call has exactly one row, and an answer that leaves
// describes a state change that is stored with that row. The transports
// keep only what is theirs: which calls read or write (CallKind), where a
// held answer waits, and how a refusal is written in the twin's envelope.

// CallKind says what a call may do to its twin's state, as its transport
// can tell before running it.
type CallKind uint8

const (
	// CallOther is a call that is neither: Pome's own reads (tape, state,
	// OpenAPI), a HEAD, an MCP request that is not one tools/call. It is
	// authorized against the store and its answer sent as it is made.
	CallOther CallKind = iota
	// CallRead only reads twin state (a REST GET, an MCP tools/call of a
	// read-only tool). A kind that misjudges a call costs only a refused
	// attempt served again.
	CallRead
	// CallWrite may write twin state (any other REST method, an MCP
	// tools/call of a tool that writes).
	CallWrite
)

// maxWriteConflicts bounds how often a held write is served again. After
// the first conflict it runs under the twin's lease, where only a lease
// that lapsed (a write stalled for seconds) can conflict again.
const maxWriteConflicts = 4

// Call is one data-plane call, served by Do in one or more attempts. A
// Call is served once: each call of a transport starts its own.
type Call struct {
	m                *Manager
	id, twin, token  string
	speculate, holds bool
	conflicts        int
}

// Attempt is one attempt at a call: the sandbox record it is served with
// and the caller's role in the sandbox.
type Attempt struct {
	// Sandbox is the record authorized for this attempt alone: a store may
	// serve reads made with it as of its authorization, and Do reads what
	// the store made of the attempt from it.
	Sandbox *Sandbox
	Role    Role
	// Held says the attempt's answer must be held back: it is the call's
	// answer only if Do then returns nil, and is thrown away if Do serves
	// the call again or fails.
	Held bool
}

// NewCall starts a call on the twin of sandbox id, presenting token.
func (m *Manager) NewCall(id, twin, token string) *Call {
	return &Call{m: m, id: id, twin: twin, token: token}
}

// Do serves the call. kind says what the call may do to the twin's state;
// it is asked only when the store makes use of the answer (a store shared
// by replicas), so a transport that must parse the request to tell pays
// that only there. serve runs once per attempt, with that attempt's
// record, and must serve the call completely (run it and tape it) before
// it returns. Do returns nil once an attempt's answer stands: the caller
// then sends it if it was held (an unheld answer has left already).
// Otherwise it returns ErrDenied, which the caller answers as the twin's
// opaque refusal, or an *Error of type ErrUnavailable: the store failed,
// and nothing of the call was kept; the caller answers a retryable
// unavailable. If serve panics, the write the attempt holds is abandoned
// and the panic goes on.
func (c *Call) Do(ctx context.Context, kind func() CallKind, serve func(Attempt)) error {
	if kind != nil && (c.m.speculates() || c.m.holdsWrites()) {
		k := kind()
		c.speculate = k == CallRead
		c.holds = k == CallWrite && c.m.holdsWrites()
	}
	for {
		a, err := c.begin(ctx)
		if err != nil {
			return err
		}
		c.run(ctx, a, serve)
		done, err := c.commit(a)
		if done {
			return err
		}
	}
}

// begin authorizes the next attempt and marks its record for the call's
// kind.
func (c *Call) begin(ctx context.Context) (Attempt, error) {
	for {
		authorize := c.m.Authorize
		if c.speculate {
			authorize = c.m.authorizeRead
		}
		sb, role, err := authorize(ctx, c.id, c.twin, c.token)
		if err != nil {
			// ErrDenied, or the store failing (storeFailure).
			return Attempt{}, err
		}
		if sb.Speculative() && sb.State != StateReady {
			// A record this process holds that says the sandbox is not
			// ready is not trusted to refuse the call: read it again.
			c.speculate = false
			continue
		}
		if c.holds {
			c.m.holdWrites(sb, c.conflicts > 0)
		}
		return Attempt{Sandbox: sb, Role: role, Held: sb.Speculative() || sb.holding()}, nil
	}
}

// run serves one attempt and settles it. A write the attempt holds for
// its row is abandoned, stored nowhere, if the attempt panics (net/http
// recovers the panic; the twin's lock and lease must not stay).
func (c *Call) run(ctx context.Context, a Attempt, serve func(Attempt)) {
	if a.Sandbox.holding() {
		defer func() {
			if p := recover(); p != nil {
				c.m.abandon(a.Sandbox)
				panic(p)
			}
		}()
	}
	serve(a)
	c.m.settle(ctx, a.Sandbox)
}

// commit decides what becomes of a settled attempt: done with nil (its
// answer stands), done with an unavailable error, or not done (serve the
// call again).
func (c *Call) commit(a Attempt) (done bool, err error) {
	sb := a.Sandbox
	if !a.Held {
		return true, nil
	}
	switch {
	case sb.storeFailed(), sb.holding() && sb.Stale() && c.conflicts >= maxWriteConflicts:
		return true, storeFailure(nil)
	case !sb.Stale():
		return true, nil
	}
	if sb.holding() {
		c.conflicts++
	}
	c.speculate = false
	return false, nil
}
