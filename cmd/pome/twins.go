package main

import (
	"github.com/pomehq/pome/rest"
	"github.com/pomehq/pome/task"
	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/all"
)

// registry is every twin this binary serves.
func registry() *twins.Registry { return all.Registry() }

// grader is the grading engine behind POST /v1/sandboxes/{sid}/grade.
func grader(reg *twins.Registry) rest.GraderFunc { return task.GradeHandler(reg) }
