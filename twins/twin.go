package twins

import (
	"context"
	"encoding/json"
	"fmt"
	"net/textproto"
	"sort"
	"time"
)

// Twin is one emulated vendor: its actions, checks, world and the few vendor
// conventions the transports need. Twin packages build it with an explicit
// constructor; nothing registers itself.
type Twin struct {
	Name  string
	Title string
	// Actions is the one list both transports, OpenAPI and the tape use.
	Actions []Action
	// Checks is the twin's closed set of assertions.
	Checks []*Check

	// NewWorld builds the twin's world from a seed (nil: the default world
	// of SPEC §9), validating it strictly; errors are *SeedError.
	NewWorld func(ctx context.Context, seed json.RawMessage) (any, error)
	// DecodeWorld restores a world from its JSON document.
	DecodeWorld func(data []byte) (any, error)
	// CopyWorld, when set, returns a private copy of a world equal to
	// what DecodeWorld makes of its document, without the JSON
	// (WorldCopier). A store that keeps worlds decoded and shared (Redis)
	// copies one for a write with it; without it, it decodes one.
	CopyWorld func(world any) any

	// RESTError renders an error as the vendor's status and body.
	RESTError func(e *Error) (status int, body any)
	// ErrorHeaders, when set, adds the vendor's headers to an error answer
	// (Stripe's Stripe-Should-Retry: false on answers that are final).
	ErrorHeaders func(e *Error) map[string]string
	// Refusal, when set, is the error every data-plane refusal on the twin's
	// vendor surface answers, rendered by RESTError in place of the opaque
	// 404 (SPEC §10): for SDKs that retry any non-2xx answer (Slack's) or
	// take a body without their envelope for a success (stripe-node). It
	// sees only the credential the caller sent, never the sandbox, so every
	// refusal class answers alike.
	Refusal func(credential string) *Error
	// TokenPrefix is the shape of the vendor credential ("ghp_", "xoxb-").
	TokenPrefix string
	// UserTokenPrefix, when set, is the shape of a second credential the
	// sandbox issues for the twin, a user's token beside a bot's ("xoxp-"
	// for Slack, whose xoxb- token is a bot user's): it opens the twin as
	// the first does, and handlers see CredentialFrom(ctx) ==
	// CredentialUser for what the vendor reserves to users.
	UserTokenPrefix string
	// BareCredential: the vendor's API keys are sent as the whole
	// Authorization header, without a scheme (Linear's lin_api_… keys);
	// Bearer still carries OAuth tokens and Pome's own.
	BareCredential bool
	// TokenInBody: the vendor accepts the token as a "token" form/query field.
	TokenInBody bool
	// StrictParams: unknown REST parameters are refused (Stripe) rather than
	// ignored (GitHub, Slack, Gmail).
	StrictParams bool
	// AliasPrefixes mounts every binding whose path starts with a key again
	// with that prefix replaced by the value: Slack's methods without
	// "/api" ({"/api/": "/"}), GitHub Enterprise's "/api/v3" ({"/": "/api/v3/"}).
	AliasPrefixes map[string]string
	// RootPaths are vendor path prefixes also served at the server's root,
	// the sandbox being named by the provider credential, for SDKs that
	// refuse a base URL with a path (stripe-go derives its routing from the
	// request path): Stripe's {"/v1/"}.
	RootPaths []string
	// GraphQL, when set, is the vendor's GraphQL endpoint: an action served
	// at its REST bindings (and their aliases) only, never listed as an
	// MCP tool or in OpenAPI. It stamps the tape with the action a request
	// performed.
	GraphQL Action
	// RequestIDHeader names the response header that carries a request id
	// in the vendor's shape ("Request-Id" for Stripe, "X-GitHub-Request-Id"
	// for GitHub), in net/http's canonical form ("X-Github-Request-Id";
	// header names are case-insensitive) so that setting it costs no copy.
	RequestIDHeader string
	// ResponseHeaders adds the vendor's fixed headers to every REST
	// response (rate-limit counters and the like) to h, an http.Header:
	// keys in its canonical form, and value slices that may be shared
	// between responses (nothing writes into a header's values).
	ResponseHeaders func(now time.Time, h map[string][]string)
	// SeedExample is a complete seed document exercising every key of the
	// twin's seed format (`pome twins TWIN --seed-example` prints it).
	SeedExample string
	// SeedExampleOriginal is a seed in the original Pome's format for this
	// twin, which NewWorld also loads (`pome twins TWIN --seed-example
	// --format original` prints it). Empty when the twin has no such format.
	SeedExampleOriginal string
	// SeedCredentials, when set, returns the credentials a world was
	// seeded with (the original Pome's Stripe api_keys), as SHA-256 hex
	// hashes: besides its issued credential, each opens the sandbox's twin
	// on the sandbox's own base URL, which names the sandbox (never at
	// the server root, where a key alone would have to find it).
	SeedCredentials func(world any) []string
	// ETags: successful GET responses carry a weak ETag of their body, and
	// a request whose If-None-Match names it gets 304 Not Modified (GitHub's
	// conditional requests).
	ETags bool

	byName map[string]Action
}

// Action returns the named action.
func (t *Twin) Action(name string) (Action, bool) {
	if t.byName == nil {
		return nil, false
	}
	a, ok := t.byName[name]
	return a, ok
}

// Check returns the check with the given id.
func (t *Twin) Check(id string) (*Check, bool) {
	for _, c := range t.Checks {
		if c.ID == id {
			return c, true
		}
	}
	return nil, false
}

// Finish indexes the actions and adds the tape checks every twin has. Twin
// constructors call it last; it panics on duplicate names.
func (t *Twin) Finish() *Twin {
	if k := t.RequestIDHeader; k != "" && textproto.CanonicalMIMEHeaderKey(k) != k {
		panic(fmt.Sprintf("twin %s: request id header %q is not in canonical form", t.Name, k))
	}
	t.byName = make(map[string]Action, len(t.Actions))
	for _, a := range t.Actions {
		if _, dup := t.byName[a.Name()]; dup {
			panic(fmt.Sprintf("twin %s: duplicate action %s", t.Name, a.Name()))
		}
		t.byName[a.Name()] = a
	}
	t.Checks = append(t.Checks, TapeChecks(t)...)
	seen := map[string]bool{}
	for _, c := range t.Checks {
		if seen[c.ID] {
			panic(fmt.Sprintf("twin %s: duplicate check %s", t.Name, c.ID))
		}
		seen[c.ID] = true
	}
	return t
}

// ActionNames returns the action names, sorted.
func (t *Twin) ActionNames() []string {
	out := make([]string, 0, len(t.Actions))
	for _, a := range t.Actions {
		out = append(out, a.Name())
	}
	sort.Strings(out)
	return out
}

// Registry is the set of twins a server offers, in a fixed order.
type Registry struct {
	list   []*Twin
	byName map[string]*Twin
}

// NewRegistry builds a registry from an explicit list.
func NewRegistry(list ...*Twin) *Registry {
	r := &Registry{byName: map[string]*Twin{}}
	for _, t := range list {
		if _, dup := r.byName[t.Name]; dup {
			panic("duplicate twin " + t.Name)
		}
		r.list = append(r.list, t)
		r.byName[t.Name] = t
	}
	return r
}

// Get returns the named twin.
func (r *Registry) Get(name string) (*Twin, bool) {
	t, ok := r.byName[name]
	return t, ok
}

// All returns the twins in registration order.
func (r *Registry) All() []*Twin { return r.list }

// Names returns the twin names in registration order.
func (r *Registry) Names() []string {
	out := make([]string, len(r.list))
	for i, t := range r.list {
		out[i] = t.Name
	}
	return out
}

// SeedError is a seed that does not fit its twin; Path is a JSON pointer
// into the twin's seed document.
type SeedError struct {
	Path    string
	Message string
}

func (e *SeedError) Error() string {
	if e.Path == "" {
		return e.Message
	}
	return e.Path + ": " + e.Message
}

// SeedErrorf builds a SeedError.
func SeedErrorf(path, format string, args ...any) *SeedError {
	return &SeedError{Path: path, Message: fmt.Sprintf(format, args...)}
}

// WorldCodec adapts a typed world constructor to the Twin's NewWorld and
// DecodeWorld fields.
func WorldCodec[W any](build func(ctx context.Context, seed json.RawMessage) (*W, error)) (
	newWorld func(context.Context, json.RawMessage) (any, error), decode func([]byte) (any, error)) {
	newWorld = func(ctx context.Context, seed json.RawMessage) (any, error) {
		w, err := build(ctx, seed)
		if err != nil {
			return nil, err
		}
		return w, nil
	}
	decode = func(data []byte) (any, error) {
		w := new(W)
		if err := json.Unmarshal(data, w); err != nil {
			return nil, err
		}
		return w, nil
	}
	return newWorld, decode
}
