package stripe

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/pomehq/pome/twins"
)

// This file holds what Stripe does around every write, whatever the
// endpoint: Idempotency-Key replays and the seeded faults. Both live in the
// world (not in the transport) so that they survive the JSON round trip of
// the store and are the same over every store.

// idempotencyTTL is how long Stripe keeps an idempotency key: 24 hours.
const idempotencyTTL = 24 * 60 * 60

// IdempotencyRecord is the saved outcome of a POST sent with an
// Idempotency-Key: the request's fingerprint (action and canonical
// parameters) and either its output or its error, as JSON so that a replay
// after the store's round trip answers byte for byte the same.
type IdempotencyRecord struct {
	Key         string          `json:"key"`
	Action      string          `json:"action"`
	Fingerprint string          `json:"fingerprint"`
	Created     int64           `json:"created"`
	Output      json.RawMessage `json:"output,omitempty"`
	Error       *SavedError     `json:"error,omitempty"`
}

// SavedError is a twin error in a form that survives JSON.
type SavedError struct {
	Code    twins.Code      `json:"code"`
	Vendor  string          `json:"vendor,omitempty"`
	Message string          `json:"message"`
	Field   string          `json:"field,omitempty"`
	Details json.RawMessage `json:"details,omitempty"`
}

func saveError(e *twins.Error) *SavedError {
	s := &SavedError{Code: e.Code, Vendor: e.Vendor, Message: e.Message, Field: e.Field}
	if len(e.Details) > 0 {
		b, err := json.Marshal(e.Details)
		if err != nil {
			panic(err)
		}
		s.Details = b
	}
	return s
}

func (s *SavedError) error() *twins.Error {
	e := &twins.Error{Code: s.Code, Vendor: s.Vendor, Message: s.Message, Field: s.Field}
	if len(s.Details) == 0 {
		return e
	}
	// Objects stay raw JSON, so the replayed envelope is byte for byte the
	// first one; strings are strings again for code that reads them.
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(s.Details, &raw); err != nil {
		panic(err)
	}
	e.Details = make(map[string]any, len(raw))
	for k, v := range raw {
		var str string
		if json.Unmarshal(v, &str) == nil {
			e.Details[k] = str
			continue
		}
		e.Details[k] = v
	}
	return e
}

// callState is what the protocol wrapper needs to know about a handler run
// beyond its result: whether it declared itself unchanged or asked to keep
// its changes despite failing. Together they say whether the store will
// persist the world, and so whether the wrapper's own bookkeeping (fault
// counters, saved outcomes) persists with it.
type callState struct {
	unchanged bool
	keep      bool
}

type callStateKey struct{}

// unchanged marks a successful write that changed nothing.
func unchanged(ctx context.Context) {
	twins.Unchanged(ctx)
	if s, ok := ctx.Value(callStateKey{}).(*callState); ok {
		s.unchanged = true
	}
}

// keepOnError marks a failing write whose changes must be kept (a decline
// records the failed charge and answers 402).
func keepOnError(ctx context.Context) {
	twins.KeepOnError(ctx)
	if s, ok := ctx.Value(callStateKey{}).(*callState); ok {
		s.keep = true
	}
}

// writeAction defines a write action whose handler runs inside Stripe's
// request protocol (see guard).
func writeAction[In, Out any](spec twins.Spec, h twins.Handler[World, In, Out]) twins.Action {
	return twins.New(spec, guard(spec, h))
}

// guard wraps a write handler with Stripe's request protocol, in this order:
//
//  1. A seeded fault for the call's method and path is counted; a "before"
//     fault on this attempt answers its status and body and the handler
//     does not run.
//  2. With an Idempotency-Key (POST only, as Stripe), a saved outcome for the
//     key is replayed — the same output, or the same error — without running
//     the handler; the same key with other parameters is refused with a 400
//     idempotency_error.
//  3. The handler runs. When its outcome is persisted (a success that
//     changed something, or a failure that keeps its changes such as a
//     decline) it is saved under the key; Stripe likewise saves nothing for
//     requests refused by validation, which may be retried with the key.
//  4. An "after" fault then answers its status and body in place of the
//     outcome: the change is committed and the response lost, which is what
//     idempotency keys exist for.
//
// An attempt whose outcome the store does not persist (a refusal, a replay,
// a write that changed nothing) does not count towards a fault's attempt
// number: the count lives in the world and only persisted worlds keep it.
func guard[In, Out any](spec twins.Spec, h twins.Handler[World, In, Out]) twins.Handler[World, In, Out] {
	var b twins.Binding
	if len(spec.Bindings) > 0 {
		b = spec.Bindings[0]
	}
	action := spec.Name
	return func(ctx context.Context, w *World, in In) (Out, error) {
		var zero Out
		st := &callState{}
		ctx = context.WithValue(ctx, callStateKey{}, st)
		// The input as a JSON object is needed only to match a seeded fault
		// or to fingerprint an idempotent request; most calls have neither,
		// and skip the round trip through JSON.
		var args map[string]any
		argsOf := func() map[string]any {
			if args == nil {
				args = inputArgs(in)
			}
			return args
		}

		seen := w.faultCounts()
		var fault *Fault
		if len(w.Faults) > 0 {
			fault = w.NextFault(b.Method, boundPath(b.Path, argsOf()))
		}
		if fault != nil && fault.When == "before" {
			keepOnError(ctx)
			return zero, faultError(fault)
		}

		key := ""
		if b.Method == http.MethodPost {
			key = twins.Header(ctx, "Idempotency-Key")
		}
		fp := ""
		if key != "" {
			fp = requestFingerprint(action, argsOf())
			if rec := w.idempotencyRecord(key, now(ctx)); rec != nil {
				w.restoreFaultCounts(seen)
				if rec.Fingerprint != fp {
					return zero, idempotencyMismatch(key)
				}
				unchanged(ctx)
				twins.SetResponseHeader(ctx, "Idempotent-Replayed", "true")
				return replay[Out](rec)
			}
		}

		out, err := h(ctx, w, in)
		// What the handler appended joins the lookup indexes (index.go).
		w.indexAll()
		if persisted := (err == nil && !st.unchanged) || (err != nil && st.keep); !persisted {
			w.restoreFaultCounts(seen)
			return out, err
		}
		if key != "" {
			w.saveIdempotency(ctx, key, action, fp, out, err)
		}
		if fault != nil {
			keepOnError(ctx)
			return zero, faultError(fault)
		}
		return out, err
	}
}

// inputArgs is the input as a JSON object, for paths and fingerprints.
func inputArgs(in any) map[string]any {
	var m map[string]any
	mustRoundTrip(in, &m)
	return m
}

// boundPath fills a binding's {placeholders} from the input, giving the
// request path a fault is matched against (over MCP too: a fault describes
// the operation, not the transport).
func boundPath(tmpl string, args map[string]any) string {
	var sb strings.Builder
	for {
		i := strings.IndexByte(tmpl, '{')
		if i < 0 {
			sb.WriteString(tmpl)
			return sb.String()
		}
		j := strings.IndexByte(tmpl[i:], '}')
		if j < 0 {
			sb.WriteString(tmpl)
			return sb.String()
		}
		name := tmpl[i+1 : i+j]
		if k := strings.IndexByte(name, ':'); k >= 0 {
			name = name[:k]
		}
		sb.WriteString(tmpl[:i])
		if v, ok := args[name]; ok && v != nil {
			sb.WriteString(fmt.Sprint(v))
		}
		tmpl = tmpl[i+j+1:]
	}
}

// requestFingerprint identifies a request: the action and its parameters in
// canonical JSON (object keys sorted), hashed to keep the state small.
func requestFingerprint(action string, args map[string]any) string {
	b, err := json.Marshal(args)
	if err != nil {
		panic(err)
	}
	sum := sha256.Sum256(append([]byte(action+"\n"), b...))
	return hex.EncodeToString(sum[:])
}

// idempotencyRecord returns the live record for key, if any.
func (w *World) idempotencyRecord(key string, at int64) *IdempotencyRecord {
	for _, r := range w.Idempotency {
		if r.Key == key && at < r.Created+idempotencyTTL {
			return r
		}
	}
	return nil
}

// saveIdempotency stores the outcome under key, dropping expired records.
func (w *World) saveIdempotency(ctx context.Context, key, action, fp string, out any, err error) {
	t := now(ctx)
	kept := w.Idempotency[:0]
	for _, r := range w.Idempotency {
		if t < r.Created+idempotencyTTL && r.Key != key {
			kept = append(kept, r)
		}
	}
	rec := &IdempotencyRecord{Key: key, Action: action, Fingerprint: fp, Created: t}
	if err != nil {
		rec.Error = saveError(twins.AsError(err))
	} else {
		b, merr := json.Marshal(out)
		if merr != nil {
			panic(merr)
		}
		rec.Output = b
	}
	w.Idempotency = append(kept, rec)
}

// replay answers a saved outcome.
func replay[Out any](rec *IdempotencyRecord) (Out, error) {
	var out Out
	if rec.Error != nil {
		return out, rec.Error.error()
	}
	if err := json.Unmarshal(rec.Output, &out); err != nil {
		return out, twins.Errorf(twins.Internal, "", "saved response for idempotency key %s: %v", rec.Key, err)
	}
	return out, nil
}

// idempotencyMismatch is Stripe's 400 for a key reused with other parameters.
func idempotencyMismatch(key string) *twins.Error {
	e := twins.Errorf(twins.Invalid, "", "Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '%s' if you meant to execute a different request.", key)
	return e.With("type", typeIdempotency)
}

// faultCounts snapshots the fault counters, so an attempt that is not
// persisted can be uncounted.
func (w *World) faultCounts() []int64 {
	out := make([]int64, len(w.Faults))
	for i, f := range w.Faults {
		out[i] = f.Seen
	}
	return out
}

func (w *World) restoreFaultCounts(seen []int64) {
	for i, f := range w.Faults {
		if i < len(seen) {
			f.Seen = seen[i]
		}
	}
}

// Keys of the Details a fault error carries to restError, which renders
// the fault's own status and body.
const (
	faultStatusKey = "pome_fault_status"
	faultBodyKey   = "pome_fault_body"
)

// faultError is the answer of an injected fault: the seeded status and body
// over REST (Stripe's envelope for the status when the seed gives none),
// the body's message over MCP.
func faultError(f *Fault) *twins.Error {
	body := f.Body
	if len(body) == 0 {
		body = defaultFaultBody(f.Status)
	}
	msg := http.StatusText(f.Status)
	var env struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &env) == nil && env.Error.Message != "" {
		msg = env.Error.Message
	}
	code := twins.Internal
	switch {
	case f.Status == http.StatusTooManyRequests:
		code = twins.RateLimited
	case f.Status == http.StatusPaymentRequired:
		code = twins.PaymentFailed
	case f.Status == http.StatusNotFound:
		code = twins.NotFound
	case f.Status == http.StatusConflict:
		code = twins.Conflict
	case f.Status == http.StatusUnauthorized:
		code = twins.Unauthorized
	case f.Status < 500:
		code = twins.Invalid
	}
	e := &twins.Error{Code: code, Vendor: "injected_fault", Message: msg}
	return e.With(faultStatusKey, f.Status).With(faultBodyKey, json.RawMessage(body))
}

// defaultFaultBody is the envelope Stripe sends with a status.
func defaultFaultBody(status int) json.RawMessage {
	typ, code, msg := typeAPI, "", "An unknown error occurred while processing your request. Please try again."
	switch {
	case status == http.StatusTooManyRequests:
		typ, code, msg = typeRateLimit, "rate_limit", "Request rate limit exceeded. You can learn more about rate limits here https://stripe.com/docs/rate-limits."
	case status == http.StatusConflict:
		typ, code, msg = typeInvalidRequest, "lock_timeout", "This object cannot be accessed right now because another API request or Stripe process is currently accessing it."
	case status == http.StatusPaymentRequired:
		typ, code, msg = typeCard, "card_declined", "Your card was declined."
	case status < 500:
		typ, msg = typeInvalidRequest, http.StatusText(status)
	}
	e := map[string]any{"type": typ, "message": msg}
	if code != "" {
		e["code"] = code
		e["doc_url"] = docURL(code)
	}
	b, err := json.Marshal(map[string]any{"error": e})
	if err != nil {
		panic(err)
	}
	return b
}
