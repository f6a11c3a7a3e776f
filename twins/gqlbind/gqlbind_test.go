package gqlbind_test

import (
	"context"
	"encoding/json"
	"testing"

	graphql "github.com/graph-gophers/graphql-go"

	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/gqlbind"
)

// A toy twin: a counter, an action that adds to it (or changes nothing for
// zero), and a GraphQL schema over both.
type world struct{ N int32 }

type addIn struct {
	By int32 `json:"by"`
}

var add = twins.New(twins.Spec{Name: "add_to_counter", Effect: twins.Write},
	func(ctx context.Context, w *world, in addIn) (int32, error) {
		if in.By < 0 {
			return 0, twins.Errorf(twins.Invalid, "", "by must not be negative")
		}
		if in.By == 0 {
			twins.Unchanged(ctx)
		}
		w.N += in.By
		return w.N, nil
	})

type state struct {
	gqlbind.Call
	w *world
}

type root struct{}

func (*root) Counter(ctx context.Context) int32 {
	s := gqlbind.State[*state](ctx)
	s.Stamp("get_counter", 1)
	return s.w.N
}

func (*root) Add(ctx context.Context, args struct{ By int32 }) (int32, error) {
	s := gqlbind.State[*state](ctx)
	out, err := s.Run(add, s.w, addIn{By: args.By})
	if err != nil {
		return 0, err
	}
	return out.(int32), nil
}

var schema = graphql.MustParseSchema(`
schema { query: Query mutation: Mutation }
type Query { counter: Int! }
type Mutation { add(by: Int!): Int! }`, &root{}, graphql.MaxParallelism(1))

// exec serves one request as a twin's graphql action does, and returns the
// response, the failure, and the tape's tool and mutation for it.
func exec(t *testing.T, w *world, req gqlbind.Request) (*graphql.Response, gqlbind.Failure, string, bool) {
	t.Helper()
	ctx, rec := twins.WithCall(context.Background())
	st := &state{Call: gqlbind.NewCall(ctx), w: w}
	resp, fail := gqlbind.Exec(ctx, schema, req, &st.Call, st)
	return resp, fail, rec.Tool(), rec.Mutated()
}

func TestExecTapesTheMostSpecificTool(t *testing.T) {
	w := &world{}
	resp, fail, tool, mutated := exec(t, w, gqlbind.Request{Query: `{ counter }`})
	if fail != gqlbind.Ran || len(resp.Errors) > 0 || tool != "get_counter" || mutated {
		t.Fatalf("read: %v %v tool=%s mutated=%v", fail, resp.Errors, tool, mutated)
	}
	// A write outranks the read of the same document, and its change
	// counts for the request.
	resp, _, tool, mutated = exec(t, w, gqlbind.Request{Query: `mutation($n: Int!) { add(by: $n) }`, Variables: json.RawMessage(`{"n": 2}`)})
	if len(resp.Errors) > 0 || tool != "add_to_counter" || !mutated || w.N != 2 {
		t.Fatalf("write: %v tool=%s mutated=%v n=%d", resp.Errors, tool, mutated, w.N)
	}
	// A write that changed nothing leaves the request unchanged, and so
	// does one the action refused; neither hides a change beside it.
	if _, _, tool, mutated = exec(t, w, gqlbind.Request{Query: `mutation { add(by: 0) }`}); tool != "add_to_counter" || mutated {
		t.Fatalf("no-op write: tool=%s mutated=%v", tool, mutated)
	}
	resp, _, _, mutated = exec(t, w, gqlbind.Request{Query: `mutation { a: add(by: -1) b: add(by: 0) }`})
	if len(resp.Errors) != 1 || mutated {
		t.Fatalf("refused write: %v mutated=%v", resp.Errors, mutated)
	}
	if _, _, _, mutated = exec(t, w, gqlbind.Request{Query: `mutation { a: add(by: 0) b: add(by: 1) }`}); !mutated || w.N != 3 {
		t.Fatalf("a no-op beside a change: mutated=%v n=%d", mutated, w.N)
	}
	// A document that used no action is taped with the default tool.
	if _, _, tool, _ = exec(t, w, gqlbind.Request{Query: `{ __typename }`}); tool != gqlbind.DefaultTool {
		t.Fatalf("no action: tool=%s", tool)
	}
}

func TestExecFailures(t *testing.T) {
	for _, c := range []struct {
		name string
		req  gqlbind.Request
		want gqlbind.Failure
	}{
		{"no query", gqlbind.Request{Query: "  "}, gqlbind.NoQuery},
		{"variables not JSON", gqlbind.Request{Query: `{ counter }`, Variables: json.RawMessage(`{`)}, gqlbind.BadVariables},
		{"variables not an object", gqlbind.Request{Query: `{ counter }`, Variables: json.RawMessage(`[1]`)}, gqlbind.BadVariables},
		{"null variables", gqlbind.Request{Query: `{ counter }`, Variables: json.RawMessage(`null`)}, gqlbind.Ran},
	} {
		w := &world{}
		resp, fail, _, mutated := exec(t, w, c.req)
		if fail != c.want || mutated || (fail != gqlbind.Ran) != (resp == nil) {
			t.Errorf("%s: failure %v (want %v) mutated=%v", c.name, fail, c.want, mutated)
		}
	}
}

func TestStampRanks(t *testing.T) {
	c := gqlbind.NewCall(context.Background())
	if c.Tool() != gqlbind.DefaultTool {
		t.Fatalf("fresh call taped as %s", c.Tool())
	}
	c.Stamp("list_issues", 2)
	c.Stamp("get_repository", 1)
	c.Stamp("get_issue", 2)
	if c.Tool() != "get_issue" {
		t.Fatalf("among equals the first name wins: %s", c.Tool())
	}
	c.Stamp("zz_write", gqlbind.RankWrite)
	c.Stamp("list_issues", 2)
	if c.Tool() != "zz_write" {
		t.Fatalf("a write outranks reads: %s", c.Tool())
	}
}
