// Package gqlbind is how a twin serves its vendor's GraphQL API over its
// actions, the same way for every twin that has one (GitHub, Linear).
//
// A twin parses its vendor's schema once with graph-gophers/graphql-go and
// binds one action, its "graphql" action, to the vendor's POST route. That
// action hands each request to Exec with a state of its own that embeds a
// Call. Resolvers find the state with State, read the world through it,
// and perform every write through Call.Run, so that a mutation runs the
// very action its REST or MCP counterpart runs: the same rules, events and
// errors. Each resolver stamps the tool it stands for (Call.Stamp); the
// request is taped with the most specific tool it used, a write over any
// read, so checks read a GraphQL call like any other. A document that
// changed nothing is taped as unchanged.
//
// What differs per vendor stays with the twin: the schema and its
// resolvers, the error envelope, the answers to a request that cannot run,
// scalars and connections.
package gqlbind

import (
	"context"
	"encoding/json"
	"strings"
	"sync"

	graphql "github.com/graph-gophers/graphql-go"

	"github.com/pomehq/pome/twins"
)

// MaxQueryBytes and MaxDepth bound a document: a longer or deeper one is
// refused before it runs.
const (
	MaxQueryBytes = 256 << 10
	MaxDepth      = 25
)

// MustParseSchema parses a twin's schema once, checking every resolver of
// root against it, with the limits every twin's GraphQL keeps. Resolvers
// read one world; running them one at a time keeps the order (and the tool
// a request is taped with) the same on every run.
func MustParseSchema(sdl string, root any) *graphql.Schema {
	return graphql.MustParseSchema(sdl, root,
		graphql.UseFieldResolvers(),
		graphql.MaxDepth(MaxDepth), graphql.MaxQueryLength(MaxQueryBytes),
		graphql.MaxParallelism(1),
	)
}

// Request is a GraphQL request as vendors take it in a POST body.
type Request struct {
	Query         string          `json:"query,omitempty" jsonschema:"The GraphQL document"`
	Variables     json.RawMessage `json:"variables,omitempty" jsonschema:"Values of the document's variables"`
	OperationName string          `json:"operationName,omitempty" jsonschema:"The operation to run when the document has several"`
}

// RankWrite is the rank of a write's tool (Call.Stamp): above any read's.
// Twins rank their reads from 1 up.
const RankWrite = 10

// DefaultTool is what a request that used no action is taped with.
const DefaultTool = "graphql"

// Call is one GraphQL request's record: the request's context and the tool
// it is taped with.
type Call struct {
	ctx context.Context

	mu   sync.Mutex
	tool string
	rank int
}

// NewCall starts the record of a request served with ctx (the graphql
// action's).
func NewCall(ctx context.Context) Call { return Call{ctx: ctx} }

// Context is the request's context.
func (c *Call) Context() context.Context { return c.ctx }

// Stamp offers tool, at rank, as the tool the request is taped with: the
// highest rank wins, and among equals the first name.
func (c *Call) Stamp(tool string, rank int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if rank > c.rank || rank == c.rank && tool < c.tool {
		c.tool, c.rank = tool, rank
	}
}

// Tool is the tool the request is taped with.
func (c *Call) Tool() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tool == "" {
		return DefaultTool
	}
	return c.tool
}

// Run performs a write through action a on world, as its REST and MCP
// calls do. The action runs with a call record of its own, so that one
// mutation of a document that changes nothing does not hide another's
// change; what it changed is then counted for the request.
func (c *Call) Run(a twins.Action, world, in any) (any, error) {
	ctx, sub := twins.WithCall(c.ctx)
	c.Stamp(a.Name(), RankWrite)
	out, err := a.Run(ctx, world, in)
	if err != nil {
		return nil, err
	}
	if sub.Mutated() {
		twins.CallFrom(c.ctx).Absorb(sub)
	}
	return out, nil
}

// Failure says why a request could not run at all; each twin answers it in
// its vendor's words.
type Failure int

const (
	// Ran: the document ran (its answer may still hold errors).
	Ran Failure = iota
	// NoQuery: the request holds no document.
	NoQuery
	// BadVariables: the variables are not a JSON object.
	BadVariables
)

type stateKey struct{}

// Exec runs req against schema for the graphql action whose context is
// ctx. state, a twin's request state embedding call, is what State finds
// in the resolvers. The request is taped with call's tool, and as
// unchanged when no mutation changed anything.
func Exec(ctx context.Context, schema *graphql.Schema, req Request, call *Call, state any) (*graphql.Response, Failure) {
	rec := twins.CallFrom(ctx)
	defer func() {
		if !rec.Mutated() {
			twins.Unchanged(ctx)
		}
	}()
	if strings.TrimSpace(req.Query) == "" {
		return nil, NoQuery
	}
	var vars map[string]any
	if v := strings.TrimSpace(string(req.Variables)); v != "" && v != "null" {
		if err := json.Unmarshal(req.Variables, &vars); err != nil || vars == nil {
			return nil, BadVariables
		}
	}
	resp := schema.Exec(context.WithValue(ctx, stateKey{}, state), req.Query, req.OperationName, vars)
	rec.SetTool(call.Tool())
	return resp, Ran
}

// State is the request state Exec put in a resolver's context.
func State[S any](ctx context.Context) S { return ctx.Value(stateKey{}).(S) }
