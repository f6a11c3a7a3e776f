package linear

import (
	"context"
	"encoding/json"

	"github.com/pomehq/pome/twins"
)

// GraphQLIn is a GraphQL request.
type GraphQLIn struct {
	Query         string          `json:"query,omitempty"`
	Variables     json.RawMessage `json:"variables,omitempty"`
	OperationName string          `json:"operationName,omitempty"`
}

var graphqlAction = twins.New(twins.Spec{
	Name: "graphql", Title: "Linear GraphQL API",
	Description: "Run a GraphQL query or mutation against Linear's GraphQL schema.",
	Effect:      twins.Write,
	Bindings:    []twins.Binding{{Method: "POST", Path: "/graphql"}},
}, func(ctx context.Context, w *World, in GraphQLIn) (json.RawMessage, error) {
	twins.Unchanged(ctx)
	return json.RawMessage(`{}`), nil
})
