package task

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/pomehq/pome/session"
	"github.com/pomehq/pome/twins"
)

// GradeRequest is the body of POST /v1/sandboxes/{sid}/grade: criterion
// lines as a task file writes them, or a whole task. An empty body grades
// the task the sandbox was created with (its task_source).
type GradeRequest struct {
	Criteria   []string `json:"criteria,omitempty"`
	TaskSource string   `json:"task_source,omitempty"`
}

// GradeHandler returns the server's grader for POST
// /v1/sandboxes/{sid}/grade (rest.Server.Grader). Problems with the
// request are validation_failed errors that name every bad line; problems
// reading the sandbox become criteria with status error, so the verdict
// says incomplete instead of failing the request.
func GradeHandler(reg *twins.Registry) func(ctx context.Context, m *session.Manager, sb *session.Sandbox, body []byte) (any, error) {
	return func(ctx context.Context, m *session.Manager, sb *session.Sandbox, body []byte) (any, error) {
		if sb.State == session.StateExpired {
			return nil, &session.Error{Type: session.ErrNotFoundType, Message: "sandbox " + sb.ID + " expired; its state and tapes are gone"}
		}
		t, err := TaskForSandbox(reg, sb.Twins, sb.TaskSource, body)
		if err != nil {
			return nil, err
		}
		p := ProviderFunc(func(ctx context.Context, name string) (*twins.Input, error) {
			tw, ok := reg.Get(name)
			if !ok {
				return nil, fmt.Errorf("unknown twin %q", name)
			}
			return m.Input(ctx, sb, tw)
		})
		v := Grade(ctx, t, p, nil)
		v.SessionID = sb.ID
		return v, nil
	}
}

// TaskForSandbox reads a grade request body into a task whose criteria
// name only the sandbox's twins. Errors are *session.Error.
func TaskForSandbox(reg *twins.Registry, sandboxTwins []string, storedSource string, body []byte) (*Task, error) {
	var req GradeRequest
	if len(bytes.TrimSpace(body)) > 0 {
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&req); err != nil {
			return nil, &session.Error{Type: session.ErrValidationFailed, Message: "invalid JSON body: " + strings.TrimPrefix(err.Error(), "json: "),
				Details: map[string]any{"field": "body"}}
		}
	}
	switch {
	case len(req.Criteria) > 0 && req.TaskSource != "":
		return nil, &session.Error{Type: session.ErrValidationFailed, Message: "send criteria or task_source, not both", Details: map[string]any{"field": "body"}}
	case len(req.Criteria) > 0:
		t := &Task{Config: Config{Twins: sandboxTwins, PassThreshold: DefaultPassThreshold}}
		var errs Errors
		for i, line := range req.Criteria {
			// Lines may come with or without their list marker.
			l := strings.TrimSpace(line)
			if strings.HasPrefix(l, "[") {
				l = "- " + l
			}
			c, err := parseCriterion(reg, sandboxTwins, l)
			if err != nil {
				err.File = fmt.Sprintf("criteria[%d]", i)
				errs = append(errs, err)
				continue
			}
			t.Criteria = append(t.Criteria, c)
		}
		if len(errs) > 0 {
			return nil, validationError("criteria", errs)
		}
		return t, nil
	}
	src := req.TaskSource
	field := "task_source"
	if src == "" {
		src = storedSource
		field = "body"
	}
	if src == "" {
		return nil, &session.Error{Type: session.ErrValidationFailed,
			Message: "nothing to grade: send {\"criteria\":[…]} or {\"task_source\":\"…\"} (this sandbox was created without a task)", Details: map[string]any{"field": "body"}}
	}
	t, err := Parse("task", []byte(src), Options{Registry: reg, SkipSeed: true})
	if err != nil {
		if es := AsErrors(err); es != nil {
			return nil, validationError(field, es)
		}
		return nil, &session.Error{Type: session.ErrInternal, Message: err.Error()}
	}
	if errs := foreignTwins(t, "task", "this sandbox", sandboxTwins); len(errs) > 0 {
		return nil, validationError(field, errs)
	}
	return t, nil
}

// foreignTwins lists the [code] criteria of t that read a twin outside
// twins, which where (a sandbox, a run) does not have.
func foreignTwins(t *Task, file, where string, twins []string) Errors {
	var errs Errors
	for _, c := range t.Criteria {
		if c.Kind == Code && !contains(twins, c.Twin) {
			errs = append(errs, &Error{File: file, Line: c.Line, Msg: fmt.Sprintf("criterion reads the %s twin, which %s does not run (it runs %s)", c.Twin, where, strings.Join(twins, ", "))})
		}
	}
	return errs
}

func validationError(field string, es Errors) *session.Error {
	list := make([]map[string]any, len(es))
	for i, e := range es {
		item := map[string]any{"message": e.Msg}
		if e.Line > 0 {
			item["line"] = e.Line
		}
		if e.File != "" && e.File != "task" {
			item["path"] = e.File
		}
		if e.Hint != "" {
			item["hint"] = e.Hint
		}
		list[i] = item
	}
	return &session.Error{Type: session.ErrValidationFailed, Message: es.Error(), Details: map[string]any{"field": field, "errors": list}}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
