// Package all lists every twin Pome has. It is the one place a new twin is
// added; nothing registers itself.
package all

import (
	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/github"
	"github.com/pomehq/pome/twins/gmail"
	"github.com/pomehq/pome/twins/linear"
	"github.com/pomehq/pome/twins/slack"
	"github.com/pomehq/pome/twins/stripe"
)

// Registry returns a fresh registry of every twin, in a fixed order.
func Registry() *twins.Registry {
	return twins.NewRegistry(
		github.New(),
		slack.New(),
		stripe.New(),
		gmail.New(),
		linear.New(),
	)
}
