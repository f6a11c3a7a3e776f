package main

import (
	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/all"
)

// registry is every twin this binary serves.
func registry() *twins.Registry { return all.Registry() }
