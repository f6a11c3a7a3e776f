package linear

// Linear's GraphQL API, served at …/graphql on the same world as MCP.
//
// As for the GitHub twin, the server is github.com/graph-gophers/graphql-go:
// the schema is a subset of Linear's own SDL (gql_schema.graphql), and the
// resolvers are Go methods the library checks against it when the schema is
// parsed, so a field without a resolver fails the twin's construction (and
// its tests) rather than a query. The subset holds every field @linear/sdk's
// documents select for the operations served, so the SDK's own queries
// validate; what the twin does not model resolves to its zero value
// (gql_stubs.go). Mutations run the twin's actions, so a GraphQL issueCreate
// obeys the same rules as MCP's save_issue and is taped with its name.

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	graphql "github.com/graph-gophers/graphql-go"

	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/gqlbind"
)

//go:embed gql_schema.graphql
var gqlSchemaSDL string

// gqlSchema is parsed once; parsing checks every resolver.
var gqlSchema = gqlbind.MustParseSchema(gqlSchemaSDL, &gqlRoot{})

const (
	// Linear's page size: 50 by default, 250 at most.
	gqlDefaultPage = 50
	gqlMaxPage     = 250
)

// GraphQLIn is a GraphQL request: Linear's POST body.
type GraphQLIn = gqlbind.Request

// graphqlAction serves POST …/graphql, and GET …/schema.graphql answers the
// schema the endpoint serves. It is the twin's GraphQL field (not an MCP
// tool); a request is taped with the tool of the action it performed (see
// gqlState.stamp).
var graphqlAction = twins.New(twins.Spec{
	Name: "graphql", Title: "Linear GraphQL API",
	Description: "Run a GraphQL query or mutation against Linear's GraphQL schema.",
	Effect:      twins.Write,
	Bindings: []twins.Binding{
		{Method: "POST", Path: "/graphql", StatusOf: gqlStatus},
		{Method: "GET", Path: "/schema.graphql", Shape: func(any, any) any {
			return twins.Raw{ContentType: "text/plain; charset=utf-8", Body: gqlSchemaSDL}
		}},
	},
}, func(ctx context.Context, w *World, in GraphQLIn) (json.RawMessage, error) {
	st := &gqlState{Call: gqlbind.NewCall(ctx), w: w}
	resp, fail := gqlbind.Exec(ctx, gqlSchema, in, &st.Call, st)
	switch fail {
	case gqlbind.NoQuery:
		return gqlFailure("Must provide query string.", "GRAPHQL_PARSE_FAILED"), nil
	case gqlbind.BadVariables:
		return gqlFailure("Variables are invalid JSON.", "BAD_USER_INPUT"), nil
	}
	return gqlEnvelope(resp)
})

// gqlStatus is Linear's status for an answer: 400 when the request could
// not run at all (it did not parse or validate), else 200, errors or not.
func gqlStatus(_, out any) int {
	raw, _ := out.(json.RawMessage)
	var probe struct {
		Data   json.RawMessage `json:"data"`
		Errors []struct {
			Extensions struct {
				Code string `json:"code"`
			} `json:"extensions"`
		} `json:"errors"`
	}
	if json.Unmarshal(raw, &probe) == nil && len(probe.Errors) > 0 && (len(probe.Data) == 0 || string(probe.Data) == "null") {
		switch probe.Errors[0].Extensions.Code {
		case "GRAPHQL_VALIDATION_FAILED", "GRAPHQL_PARSE_FAILED", "BAD_USER_INPUT":
			return http.StatusBadRequest
		}
	}
	return http.StatusOK
}

// gqlFailure is Linear's answer to a request it cannot run at all.
func gqlFailure(msg, code string) json.RawMessage {
	b, _ := json.Marshal(map[string]any{"errors": []gqlErrorBody{{Message: msg,
		Extensions: map[string]any{"code": code, "type": "graphql error", "userError": true}}}})
	return b
}

func gqlEnvelope(resp *graphql.Response) (json.RawMessage, error) {
	out := struct {
		Data   json.RawMessage `json:"data,omitempty"`
		Errors []gqlErrorBody  `json:"errors,omitempty"`
	}{Data: resp.Data}
	for _, e := range resp.Errors {
		o := gqlErrorBody{Message: e.Message, Path: e.Path}
		for _, l := range e.Locations {
			o.Locations = append(o.Locations, l)
		}
		var te *twins.Error
		switch {
		case errors.As(e.ResolverError, &te):
			o.Message, o.Extensions = te.Message, extensionsOf(te)
		case e.Rule != "":
			o.Extensions = map[string]any{"code": "GRAPHQL_VALIDATION_FAILED", "type": "graphql error", "userError": true}
		case e.ResolverError == nil:
			o.Extensions = map[string]any{"code": "GRAPHQL_PARSE_FAILED", "type": "graphql error", "userError": true}
		default:
			o.Extensions = map[string]any{"code": "INPUT_ERROR", "type": "invalid input", "userError": true, "userPresentableMessage": e.Message}
		}
		out.Errors = append(out.Errors, o)
	}
	if len(out.Errors) > 0 && len(out.Data) == 0 {
		out.Data = json.RawMessage("null")
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, twins.Errorf(twins.Internal, "", "encode GraphQL response: %v", err)
	}
	return b, nil
}

// gqlState is one GraphQL request's view of the world (gqlbind.State
// finds it in a resolver's context).
type gqlState struct {
	gqlbind.Call
	w *World
}

func gqlFrom(ctx context.Context) *gqlState { return gqlbind.State[*gqlState](ctx) }

// Ranks of the tools a request may be taped with (gqlbind.Call.Stamp): the
// most specific action it performed wins (a team's issues are list_issues,
// not get_team), a write over any read.
const (
	rankObject = 1 + iota
	rankList
	rankWrite = gqlbind.RankWrite
)

func (s *gqlState) stamp(tool string, rank int) { s.Stamp(tool, rank) }

// run performs a write through the twin's action (gqlbind.Call.Run).
func (s *gqlState) run(a twins.Action, in any) (any, error) {
	return s.Call.Run(a, s.w, in)
}

// Scalars.

// gqlTime is Linear's DateTime: ISO 8601 with milliseconds, in UTC.
type gqlTime struct{ time.Time }

func (gqlTime) ImplementsGraphQLType(name string) bool { return name == "DateTime" }

func (t *gqlTime) UnmarshalGraphQL(input any) error {
	s, ok := input.(string)
	if !ok {
		return fmt.Errorf("DateTime must be a string, got %T", input)
	}
	v, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return fmt.Errorf("%q is not an ISO 8601 DateTime", s)
	}
	t.Time = v
	return nil
}

func (t gqlTime) MarshalJSON() ([]byte, error) { return json.Marshal(isoTime(t.Time)) }

func timeOf(t time.Time) gqlTime { return gqlTime{t} }

func timePtr(t *time.Time) *gqlTime {
	if t == nil {
		return nil
	}
	return &gqlTime{*t}
}

// gqlDate is Linear's TimelessDate: YYYY-MM-DD.
type gqlDate string

func (gqlDate) ImplementsGraphQLType(name string) bool { return name == "TimelessDate" }

func (d *gqlDate) UnmarshalGraphQL(input any) error {
	s, ok := input.(string)
	if !ok || len(s) < 10 || !dateRE.MatchString(s[:10]) {
		return fmt.Errorf("TimelessDate must be a YYYY-MM-DD string, got %v", input)
	}
	*d = gqlDate(s[:10])
	return nil
}

func (d gqlDate) MarshalJSON() ([]byte, error) { return json.Marshal(string(d)) }

// gqlDateOrDuration is a date or time, or an ISO 8601 duration back from
// now (-P2W), as Linear's date comparators take them.
type gqlDateOrDuration string

func (gqlDateOrDuration) ImplementsGraphQLType(name string) bool {
	return name == "DateTimeOrDuration" || name == "TimelessDateOrDuration"
}

func (d *gqlDateOrDuration) UnmarshalGraphQL(input any) error {
	s, ok := input.(string)
	if !ok {
		return fmt.Errorf("a date or duration must be a string, got %T", input)
	}
	*d = gqlDateOrDuration(s)
	return nil
}

func (d gqlDateOrDuration) MarshalJSON() ([]byte, error) { return json.Marshal(string(d)) }

// gqlJSON is Linear's JSONObject; its zero value is an empty list, which
// is what the fields the twin leaves empty (reactionData) hold.
type gqlJSON struct{ v any }

func (gqlJSON) ImplementsGraphQLType(name string) bool { return name == "JSONObject" || name == "JSON" }

func (j *gqlJSON) UnmarshalGraphQL(input any) error { j.v = input; return nil }

func (j gqlJSON) MarshalJSON() ([]byte, error) {
	if j.v == nil {
		return []byte("[]"), nil
	}
	return json.Marshal(j.v)
}

// Connections, as Linear pages them: first/after and last/before, the
// cursor being the id of the item it points at.

// pageArgs are the arguments every connection takes.
type pageArgs struct {
	First, Last     *int32
	After, Before   *string
	IncludeArchived *bool
	OrderBy         *string
}

// conn is one page of a connection of T.
type conn[T any] struct {
	items      []T
	ids        []string
	next, prev bool
}

type edge[T any] struct {
	cursor string
	node   T
}

func (e *edge[T]) Cursor() string { return e.cursor }
func (e *edge[T]) Node() T        { return e.node }

func (c *conn[T]) Nodes() []T {
	if c.items == nil {
		return []T{}
	}
	return c.items
}

func (c *conn[T]) Edges() []*edge[T] {
	out := make([]*edge[T], len(c.items))
	for i, it := range c.items {
		out[i] = &edge[T]{cursor: c.ids[i], node: it}
	}
	return out
}

func (c *conn[T]) PageInfo() *pageInfoR {
	p := &pageInfoR{HasNextPage: c.next, HasPreviousPage: c.prev}
	if len(c.ids) > 0 {
		p.StartCursor, p.EndCursor = &c.ids[0], &c.ids[len(c.ids)-1]
	}
	return p
}

type pageInfoR struct {
	HasNextPage, HasPreviousPage bool
	StartCursor, EndCursor       *string
}

// paginate cuts the page the arguments ask for from items whose ids are
// ids, refusing what Linear refuses.
func paginate[T any](items []T, ids []string, a pageArgs) (*conn[T], error) {
	from, to := 0, len(items)
	find := func(arg, id string) (int, error) {
		for i, x := range ids {
			if x == id {
				return i, nil
			}
		}
		return 0, twins.Errorf(twins.Invalid, "invalid_cursor", "Argument Validation Error: %s cursor %q does not name an item of this connection", arg, id)
	}
	if a.After != nil && *a.After != "" {
		i, err := find("after", *a.After)
		if err != nil {
			return nil, err
		}
		from = i + 1
	}
	if a.Before != nil && *a.Before != "" {
		i, err := find("before", *a.Before)
		if err != nil {
			return nil, err
		}
		to = max(i, from)
	}
	for arg, n := range map[string]*int32{"first": a.First, "last": a.Last} {
		if n != nil && (*n < 0 || *n > gqlMaxPage) {
			return nil, twins.Errorf(twins.Invalid, "invalid_input", "Argument Validation Error: %s must be between 0 and %d", arg, gqlMaxPage)
		}
	}
	c := &conn[T]{prev: from > 0, next: to < len(items)}
	first := a.First
	if first == nil && a.Last == nil {
		n := int32(gqlDefaultPage)
		first = &n
	}
	if first != nil && int(*first) < to-from {
		to = from + int(*first)
		c.next = true
	}
	if a.Last != nil && int(*a.Last) < to-from {
		from = to - int(*a.Last)
		c.prev = true
	}
	c.items, c.ids = items[from:to], ids[from:to]
	return c, nil
}
