package rest

import (
	"context"
	"net/url"
)

// reqScope is what the data plane learns about a request on its way to a
// binding: the body it read and the route's path variables. It is one
// context value, filled in place, so the request is not copied for each.
type reqScope struct {
	body []byte
	vars pathVars
	// varsBuf backs vars for routes of up to six variables, so that
	// matching one allocates nothing.
	varsBuf [6]pathVar
	// form is the body as the binding's decoder parsed it as a form, for
	// the tape row, which would otherwise parse it again.
	form url.Values
}

type scopeKey struct{}

func withScope(ctx context.Context, s *reqScope) context.Context {
	return context.WithValue(ctx, scopeKey{}, s)
}

func scopeFrom(ctx context.Context) *reqScope {
	s, _ := ctx.Value(scopeKey{}).(*reqScope)
	if s == nil {
		return &reqScope{}
	}
	return s
}

// pathVar is one path variable of a matched route: its name and the
// segment it took (still escaped until bindingHandler unescapes it).
type pathVar struct{ name, value string }

// pathVars are a route's variables in path order: a handful, which the
// decoder walks once, so a slice serves where a map was built per request.
type pathVars []pathVar
