package session

import (
	"context"
	"net/http"

	"github.com/pomehq/pome/twins"
)

// Principal is who is calling which twin of which sandbox on the data plane,
// decided once by the router before any twin runs.
type Principal struct {
	Sandbox *Sandbox
	Twin    *twins.Twin
	Role    Role
	// Token is the presented credential, kept only to scrub it from tapes.
	Token string
	// Path and Header describe the HTTP request, for tape rows.
	Path   string
	Header http.Header
}

type principalKey struct{}

// WithPrincipal attaches p to ctx.
func WithPrincipal(ctx context.Context, p *Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// PrincipalFrom returns the request's principal, or nil.
func PrincipalFrom(ctx context.Context) *Principal {
	p, _ := ctx.Value(principalKey{}).(*Principal)
	return p
}
