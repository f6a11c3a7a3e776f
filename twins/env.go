package twins

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Env is what an action handler may know about the call beyond its input:
// which sandbox, which clock, and the twin's public API URL (for url fields
// in vendor responses). It carries no transport detail.
type Env struct {
	SandboxID string
	Twin      string
	// APIURL is the twin's base URL in this sandbox, without a trailing slash.
	APIURL string
	// Now is the sandbox clock.
	Now func() time.Time
}

type envKey struct{}
type callKey struct{}

// WithEnv attaches env to ctx.
func WithEnv(ctx context.Context, env *Env) context.Context {
	return context.WithValue(ctx, envKey{}, env)
}

// EnvFrom returns the call's Env. Outside a call (tests building worlds) it
// returns a wall-clock Env.
func EnvFrom(ctx context.Context) *Env {
	if e, ok := ctx.Value(envKey{}).(*Env); ok && e != nil {
		return e
	}
	return &Env{Now: time.Now}
}

// Call records what happened during one action invocation that the
// transports need to know (for the tape) but that is not part of the output.
type Call struct {
	unchanged   atomic.Bool
	keep        atomic.Bool
	bookkeeping atomic.Bool

	hmu     sync.Mutex
	headers map[string]string
	delta   json.RawMessage
	mutated atomic.Bool
	tool    atomic.Pointer[string]
}

// WithCall attaches a fresh Call record to ctx.
func WithCall(ctx context.Context) (context.Context, *Call) {
	c := &Call{}
	return context.WithValue(ctx, callKey{}, c), c
}

// CallFrom returns the Call record of ctx, or nil.
func CallFrom(ctx context.Context) *Call {
	c, _ := ctx.Value(callKey{}).(*Call)
	return c
}

// Unchanged is called by a write handler that succeeded without changing
// anything (adding a label the issue already has, say), so that the tape
// reads state_mutation=false for it.
func Unchanged(ctx context.Context) {
	if c := CallFrom(ctx); c != nil {
		c.unchanged.Store(true)
	}
}

// KeepOnError is called by a handler that fails yet must keep what it
// changed — Stripe's card decline records the failed charge and the
// PaymentIntent's last_payment_error and still answers 402. The store then
// persists the world and the tape reads state_mutation=true.
func KeepOnError(ctx context.Context) {
	if c := CallFrom(ctx); c != nil {
		c.keep.Store(true)
	}
}

// KeepBookkeeping is called by a handler that changed only the twin's own
// bookkeeping, which no vendor resource shows (a fault's call counter, so
// that a throttled call still moves the fault's window): the store persists
// the world, and the call, which changed nothing the vendor would show,
// still reads state_mutation=false on the tape.
func KeepBookkeeping(ctx context.Context) {
	if c := CallFrom(ctx); c != nil {
		c.bookkeeping.Store(true)
	}
}

// Bookkeeping reports whether the call asked KeepBookkeeping.
func (c *Call) Bookkeeping() bool { return c != nil && c.bookkeeping.Load() }

// SetResponseHeader asks the REST transport to send a header with this
// call's response, success or error (Stripe's Idempotent-Replayed). MCP has
// no headers and ignores it.
func SetResponseHeader(ctx context.Context, name, value string) {
	c := CallFrom(ctx)
	if c == nil {
		return
	}
	c.hmu.Lock()
	defer c.hmu.Unlock()
	if c.headers == nil {
		c.headers = map[string]string{}
	}
	c.headers[name] = value
}

// SetDelta records what the call changed in its twin's state (a JSON list
// of Change); the tape keeps it on the call's row.
func (c *Call) SetDelta(d json.RawMessage) {
	if c == nil {
		return
	}
	c.hmu.Lock()
	defer c.hmu.Unlock()
	c.delta = d
}

// Delta returns what SetDelta recorded, or nil.
func (c *Call) Delta() json.RawMessage {
	if c == nil {
		return nil
	}
	c.hmu.Lock()
	defer c.hmu.Unlock()
	return c.delta
}

// ResponseHeaders returns the headers handlers set on the call.
func (c *Call) ResponseHeaders() map[string]string {
	if c == nil {
		return nil
	}
	c.hmu.Lock()
	defer c.hmu.Unlock()
	if len(c.headers) == 0 {
		return nil
	}
	out := make(map[string]string, len(c.headers))
	for k, v := range c.headers {
		out[k] = v
	}
	return out
}

// Absorb counts on c what sub, a call record of an action run within c's
// call (each mutation of a GraphQL document), changed.
func (c *Call) Absorb(sub *Call) {
	if c != nil && sub.Mutated() {
		c.mutated.Store(true)
	}
}

// Mutated reports whether the call changed its twin's state.
func (c *Call) Mutated() bool { return c != nil && c.mutated.Load() }

// Tool returns the action name the call invoked, or "" if none ran.
func (c *Call) Tool() string {
	if c == nil {
		return ""
	}
	if p := c.tool.Load(); p != nil {
		return *p
	}
	return ""
}

// SetTool stamps the action name before the handler runs, so that a call
// refused by validation is still taped with its tool.
func (c *Call) SetTool(name string) {
	// Stamped again with the same name (each layer a call passes through
	// stamps it), the call keeps the name it holds: storing it anew would
	// put a copy of it on the heap every time.
	if c != nil && c.Tool() != name {
		c.storeTool(name)
	}
}

func (c *Call) storeTool(name string) { c.tool.Store(&name) }

// finish records the outcome of a handler run. A write counts as a
// mutation when it succeeded without declaring itself unchanged, or when it
// failed but asked to keep its changes.
func (c *Call) finish(effect Effect, err error) {
	if c == nil {
		return
	}
	if effect == Read || c.unchanged.Load() {
		return
	}
	if err == nil || c.keep.Load() {
		c.mutated.Store(true)
	}
}

type transportKey struct{}

// Transport names for TransportFrom.
const (
	TransportREST = "rest"
	TransportMCP  = "mcp"
)

// WithTransport records which transport carries the call. Handlers should
// rarely care; where the vendor's REST API and its MCP server really differ
// (a default, an encoding), TransportFrom tells them apart.
func WithTransport(ctx context.Context, t string) context.Context {
	return context.WithValue(ctx, transportKey{}, t)
}

// TransportFrom returns the call's transport, or "" outside a transport.
func TransportFrom(ctx context.Context) string {
	t, _ := ctx.Value(transportKey{}).(string)
	return t
}

type credentialKey struct{}

// Credential kinds for CredentialFrom.
const (
	// CredentialDefault is the twin's issued credential or one of Pome's
	// own tokens.
	CredentialDefault = ""
	// CredentialUser is the twin's user credential (Twin.UserTokenPrefix).
	CredentialUser = "user"
)

// WithCredential records which kind of credential the call carries.
func WithCredential(ctx context.Context, kind string) context.Context {
	return context.WithValue(ctx, credentialKey{}, kind)
}

// CredentialFrom returns the kind of credential the call carries
// (CredentialDefault unless WithCredential said otherwise).
func CredentialFrom(ctx context.Context) string {
	k, _ := ctx.Value(credentialKey{}).(string)
	return k
}

type headersKey struct{}

// WithHeaders gives handlers read access to the vendor request headers of a
// REST call (MCP calls have none).
func WithHeaders(ctx context.Context, h map[string][]string) context.Context {
	return context.WithValue(ctx, headersKey{}, h)
}

// Header returns a request header of the call (case-insensitive name), or
// "". Few vendor behaviours need one: Stripe's Idempotency-Key and
// Stripe-Version, say.
func Header(ctx context.Context, name string) string {
	if d := ReadDepsFrom(ctx); d != nil {
		d.noteHeader(name)
	}
	h, _ := ctx.Value(headersKey{}).(map[string][]string)
	v := HeaderIn(h, name)
	if note, ok := ctx.Value(headerNoteKey{}).(func(name, value string)); ok {
		note(name, v)
	}
	return v
}

// HeaderIn is Header's lookup in a header map: the first value of the
// first header named name, case-insensitively, or "".
func HeaderIn(h map[string][]string, name string) string {
	for k, vs := range h {
		if len(vs) > 0 && strings.EqualFold(k, name) {
			return vs[0]
		}
	}
	return ""
}

type headerNoteKey struct{}

// withHeaderNote has note told of every header a handler running with ctx
// reads (Header), with the value it got (see Op).
func withHeaderNote(ctx context.Context, note func(name, value string)) context.Context {
	return context.WithValue(ctx, headerNoteKey{}, note)
}

// ReadDeps records what a read's answer depended on besides its world,
// its input, its transport and its credential: the request headers its
// action asked for (Header) and whether it read the sandbox clock. A cache
// of answers keeps one only with these, and serves it again only to a
// request with the same values of those headers, and never an answer that
// read the clock.
type ReadDeps struct {
	mu      sync.Mutex
	headers []string
	clock   bool
}

type readDepsKey struct{}

// WithReadDeps returns a context whose call records its dependencies in d.
func WithReadDeps(ctx context.Context, d *ReadDeps) context.Context {
	return context.WithValue(ctx, readDepsKey{}, d)
}

// ReadDepsFrom returns the call's ReadDeps, or nil.
func ReadDepsFrom(ctx context.Context) *ReadDeps {
	d, _ := ctx.Value(readDepsKey{}).(*ReadDeps)
	return d
}

func (d *ReadDeps) noteHeader(name string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, h := range d.headers {
		if strings.EqualFold(h, name) {
			return
		}
	}
	d.headers = append(d.headers, name)
}

// NoteClock records that the call read the sandbox clock.
func (d *ReadDeps) NoteClock() {
	d.mu.Lock()
	d.clock = true
	d.mu.Unlock()
}

// Headers returns the names of the headers the call read, in order.
func (d *ReadDeps) Headers() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.headers...)
}

// Clock reports whether the call read the sandbox clock.
func (d *ReadDeps) Clock() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.clock
}
