package main

import (
	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/github"
	"github.com/pomehq/pome/twins/slack"
)

// registry is every twin this binary serves, in the order they are listed.
// rest keeps no list of its own so that it never imports a twin package;
// adding a twin to Pome is one line here.
func registry() *twins.Registry {
	return twins.NewRegistry(
		github.New(),
		slack.New(),
	)
}
