// Package examples is Pome's bundled library of example tasks, each with a
// scripted reference agent (plain sh and curl) that passes it, so that
// `pome run` can be tried without a model. The files are embedded in the
// binary: `pome tasks --copy DIR` writes them out.
package examples

import "embed"

// FS holds tasks/<name>.md and agents/<name>.sh for every example.
//
//go:embed tasks agents README.md
var FS embed.FS
