package github

// GitHub's GraphQL API, served at …/graphql and, as GitHub Enterprise
// serves it, …/api/graphql (also at the server root, the token naming the
// sandbox), on the same world as REST and MCP.
//
// The server is github.com/graph-gophers/graphql-go rather than gqlgen: the
// schema is GitHub's own SDL (a faithful subset, gql_schema.graphql) and
// the resolvers are plain Go methods that the library checks against it
// when the schema is parsed, so a field without a resolver, or with one of
// the wrong type, fails the twin's construction (and its tests) instead of
// a query; nothing is generated, so the schema stays one hand-checked file
// beside the code. The resolvers live in this package (the gql*.go files)
// because they must read through the same lookups as the REST handlers —
// World.repo, which hides what the authenticated user may not see — and
// change state only through the twin's actions, so a GraphQL mutation
// obeys the same rules, and is taped with the same tool, as the REST or
// MCP call that does the same thing.

import (
	"context"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	graphql "github.com/graph-gophers/graphql-go"
	gqlerrors "github.com/graph-gophers/graphql-go/errors"

	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/gqlbind"
)

//go:embed gql_schema.graphql
var gqlSchemaSDL string

// gqlSchema is parsed once; parsing checks every resolver.
var gqlSchema = gqlbind.MustParseSchema(gqlSchemaSDL, &gqlRoot{})

const (
	// gqlMaxPage is GitHub's limit on first and last.
	gqlMaxPage = 100
)

// GraphQLIn is a GraphQL request: GitHub's POST body.
type GraphQLIn = gqlbind.Request

// graphqlAction serves POST …/graphql. It is the twin's GraphQL field of
// Twin (not an MCP tool): its effect is write because a document may hold
// mutations; a document that changes nothing is taped as unchanged, and
// with the tool of the action it performs (see gqlState.stamp).
var graphqlAction = twins.New(twins.Spec{
	Name: "graphql", Title: "GitHub GraphQL API",
	Description: "Run a GraphQL query or mutation against GitHub's GraphQL schema.",
	Effect:      twins.Write,
	Bindings:    []twins.Binding{{Method: "POST", Path: "/graphql"}},
}, func(ctx context.Context, w *World, in GraphQLIn) (json.RawMessage, error) {
	st := &gqlState{Call: gqlbind.NewCall(ctx), w: w, v: newView(ctx, w)}
	resp, fail := gqlbind.Exec(ctx, gqlSchema, in, &st.Call, st)
	switch fail {
	case gqlbind.NoQuery:
		return gqlFailure("A query attribute must be specified and must be a string."), nil
	case gqlbind.BadVariables:
		return gqlFailure("Variables are invalid JSON."), nil
	}
	return gqlEnvelope(resp)
})

// gqlFailure is GitHub's answer to a request it cannot run at all.
func gqlFailure(msg string) json.RawMessage {
	b, _ := json.Marshal(map[string]any{"errors": []map[string]any{{"message": msg}}})
	return b
}

// gqlErrorOut is one entry of GitHub's errors list: the type (NOT_FOUND,
// FORBIDDEN, UNPROCESSABLE, …) at the top level, as GitHub sends it.
type gqlErrorOut struct {
	Type       string               `json:"type,omitempty"`
	Path       []any                `json:"path,omitempty"`
	Extensions map[string]any       `json:"extensions,omitempty"`
	Locations  []gqlerrors.Location `json:"locations,omitempty"`
	Message    string               `json:"message"`
}

func gqlEnvelope(resp *graphql.Response) (json.RawMessage, error) {
	out := struct {
		Data   json.RawMessage `json:"data,omitempty"`
		Errors []gqlErrorOut   `json:"errors,omitempty"`
	}{Data: resp.Data}
	for _, e := range resp.Errors {
		o := gqlErrorOut{Path: e.Path, Locations: e.Locations, Message: e.Message}
		var ge *gqlError
		if errors.As(e.ResolverError, &ge) {
			o.Type, o.Message = ge.typ, ge.msg
		} else if e.Rule != "" {
			o.Extensions = map[string]any{"code": e.Rule}
		}
		out.Errors = append(out.Errors, o)
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, twins.Errorf(twins.Internal, "", "encode GraphQL response: %v", err)
	}
	return b, nil
}

// gqlError is a resolver's error in GitHub's vocabulary.
type gqlError struct {
	typ string
	msg string
}

func (e *gqlError) Error() string { return e.msg }

func gqlErrorf(typ, format string, args ...any) *gqlError {
	return &gqlError{typ: typ, msg: fmt.Sprintf(format, args...)}
}

// gqlFromTwin maps an action's error to GitHub's GraphQL error types.
func gqlFromTwin(err error) error {
	var te *twins.Error
	if !errors.As(err, &te) {
		return err
	}
	typ := "UNPROCESSABLE"
	switch te.Code {
	case twins.NotFound:
		typ = "NOT_FOUND"
	case twins.Forbidden:
		typ = "FORBIDDEN"
	case twins.Internal, twins.Unavailable:
		typ = "INTERNAL"
	}
	return &gqlError{typ: typ, msg: te.Message}
}

// gqlState is one GraphQL request's view of the world (gqlbind.State
// finds it in a resolver's context).
type gqlState struct {
	gqlbind.Call
	w *World
	v *view
}

func gqlFrom(ctx context.Context) *gqlState { return gqlbind.State[*gqlState](ctx) }

// Ranks of the tools a request may be taped with (gqlbind.Call.Stamp): the
// most specific action it performed wins (a repository's issue list is
// list_issues, not get_repository), a write over any read.
const (
	rankRepo = 1 + iota
	rankObject
	rankList
	rankWrite = gqlbind.RankWrite
)

func (s *gqlState) stamp(tool string, rank int) { s.Stamp(tool, rank) }

// run performs a write through the twin's action (gqlbind.Call.Run), with
// its errors in GitHub's GraphQL vocabulary.
func (s *gqlState) run(a twins.Action, in any) (any, error) {
	out, err := s.Call.Run(a, s.w, in)
	if err != nil {
		return nil, gqlFromTwin(err)
	}
	return out, nil
}

// Scalars.

// gqlTime is GitHub's DateTime: an ISO 8601 time.
type gqlTime struct{ time.Time }

func (gqlTime) ImplementsGraphQLType(name string) bool { return name == "DateTime" }

func (t *gqlTime) UnmarshalGraphQL(input any) error {
	s, ok := input.(string)
	if !ok {
		return fmt.Errorf("DateTime must be a string, got %T", input)
	}
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return fmt.Errorf("%q is not an ISO 8601 DateTime", s)
	}
	t.Time = v
	return nil
}

func (t gqlTime) MarshalJSON() ([]byte, error) { return json.Marshal(ts(t.Time)) }

func timeOf(t time.Time) gqlTime { return gqlTime{t} }

func timePtr(t *time.Time) *gqlTime {
	if t == nil {
		return nil
	}
	return &gqlTime{*t}
}

// gqlBigInt is GitHub's BigInt: an integer too large for Int, sent as a
// string.
type gqlBigInt int64

func (gqlBigInt) ImplementsGraphQLType(name string) bool { return name == "BigInt" }
func (b *gqlBigInt) UnmarshalGraphQL(input any) error {
	var s string
	switch v := input.(type) {
	case string:
		s = v
	case int32:
		*b = gqlBigInt(v)
		return nil
	default:
		return fmt.Errorf("BigInt must be a string, got %T", input)
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return fmt.Errorf("%q is not a BigInt", s)
	}
	*b = gqlBigInt(n)
	return nil
}
func (b gqlBigInt) MarshalJSON() ([]byte, error) {
	return json.Marshal(strconv.FormatInt(int64(b), 10))
}

// gqlString is a string scalar under another name (URI, GitObjectID).
type gqlURI string

func (gqlURI) ImplementsGraphQLType(name string) bool { return name == "URI" }
func (u *gqlURI) UnmarshalGraphQL(input any) error {
	s, ok := input.(string)
	if !ok {
		return fmt.Errorf("URI must be a string, got %T", input)
	}
	*u = gqlURI(s)
	return nil
}
func (u gqlURI) MarshalJSON() ([]byte, error) { return json.Marshal(string(u)) }

type gqlOID string

func (gqlOID) ImplementsGraphQLType(name string) bool { return name == "GitObjectID" }
func (o *gqlOID) UnmarshalGraphQL(input any) error {
	s, ok := input.(string)
	if !ok {
		return fmt.Errorf("GitObjectID must be a string, got %T", input)
	}
	*o = gqlOID(s)
	return nil
}
func (o gqlOID) MarshalJSON() ([]byte, error) { return json.Marshal(string(o)) }

// Connections.

// pageArgs are the paging arguments every connection takes.
type pageArgs struct {
	First, Last   *int32
	After, Before *string
}

// conn is one page of a connection of T, with GitHub's cursors (opaque:
// the base64 of the item's position).
type conn[T any] struct {
	items      []T
	start      int
	total      int
	next, prev bool
}

type edge[T any] struct {
	cursor string
	node   T
}

func (e *edge[T]) Cursor() string { return e.cursor }
func (e *edge[T]) Node() T        { return e.node }

func cursorAt(i int) string {
	return base64.StdEncoding.EncodeToString([]byte("cursor:" + strconv.Itoa(i+1)))
}

func cursorIndex(c string) (int, bool) {
	b, err := base64.StdEncoding.DecodeString(c)
	if err != nil {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimPrefix(string(b), "cursor:"))
	if err != nil || !strings.HasPrefix(string(b), "cursor:") || n < 0 {
		return 0, false
	}
	return n - 1, true
}

// paginate cuts all to the page the arguments ask for, refusing what
// GitHub refuses: more than 100 records, a negative count, a bad cursor.
func paginate2[T any](all []T, a pageArgs, name string) (*conn[T], error) {
	from, to := 0, len(all)
	if a.After != nil && *a.After != "" {
		i, ok := cursorIndex(*a.After)
		if !ok {
			return nil, gqlErrorf("INVALID_CURSOR_ARGUMENTS", "`%s` does not appear to be a valid cursor.", *a.After)
		}
		from = min(i+1, len(all))
	}
	if a.Before != nil && *a.Before != "" {
		i, ok := cursorIndex(*a.Before)
		if !ok {
			return nil, gqlErrorf("INVALID_CURSOR_ARGUMENTS", "`%s` does not appear to be a valid cursor.", *a.Before)
		}
		to = max(min(i, len(all)), from)
	}
	for arg, n := range map[string]*int32{"first": a.First, "last": a.Last} {
		if n == nil {
			continue
		}
		if *n < 0 {
			return nil, gqlErrorf("UNPROCESSABLE", "`%s` on the `%s` connection cannot be less than zero.", arg, name)
		}
		if *n > gqlMaxPage {
			return nil, gqlErrorf("EXCESSIVE_PAGINATION", "Requesting %d records on the `%s` connection exceeds the `%s` limit of %d records.", *n, name, arg, gqlMaxPage)
		}
	}
	c := &conn[T]{total: len(all), prev: from > 0, next: to < len(all)}
	if a.First != nil && int(*a.First) < to-from {
		to = from + int(*a.First)
		c.next = true
	}
	if a.Last != nil && int(*a.Last) < to-from {
		from = to - int(*a.Last)
		c.prev = true
	}
	c.items, c.start = all[from:to], from
	return c, nil
}

// Nodes and Edges are nullable lists in GitHub's schema, hence pointers.
func (c *conn[T]) Nodes() *[]T { return &c.items }

func (c *conn[T]) Edges() *[]*edge[T] {
	out := make([]*edge[T], len(c.items))
	for i, it := range c.items {
		out[i] = &edge[T]{cursor: cursorAt(c.start + i), node: it}
	}
	return &out
}

func (c *conn[T]) TotalCount() int32 { return int32(c.total) }

func (c *conn[T]) PageInfo() *gqlPageInfo {
	p := &gqlPageInfo{HasNextPage: c.next, HasPreviousPage: c.prev}
	if len(c.items) > 0 {
		s, e := cursorAt(c.start), cursorAt(c.start+len(c.items)-1)
		p.StartCursor, p.EndCursor = &s, &e
	}
	return p
}

type gqlPageInfo struct {
	HasNextPage, HasPreviousPage bool
	StartCursor, EndCursor       *string
}

// Node ids are the REST node_ids (nodeID): kind, then the base64 of
// "kind:id".

func parseNodeID(id string) (kind string, n int64, ok bool) {
	k, enc, found := strings.Cut(id, "_kwDO")
	if !found {
		return "", 0, false
	}
	b, err := base64.RawURLEncoding.DecodeString(enc)
	if err != nil {
		return "", 0, false
	}
	pk, num, found := strings.Cut(string(b), ":")
	if !found || pk != k {
		return "", 0, false
	}
	v, err := strconv.ParseInt(num, 10, 64)
	return k, v, err == nil
}

func nodeNotFound(id graphql.ID) *gqlError {
	return gqlErrorf("NOT_FOUND", "Could not resolve to a node with the global id of '%s'", string(id))
}
