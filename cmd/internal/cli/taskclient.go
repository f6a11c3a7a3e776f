package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/pomehq/pome/rest"
	"github.com/pomehq/pome/task"
	"github.com/pomehq/pome/twins"
)

// taskRegistry supplies the twins task files bind to: the twins this binary
// serves, so that `pome checks lint` and `pome run` refuse a criterion
// before any sandbox exists. Tests replace it.
var taskRegistry = func() *twins.Registry {
	if rest.DefaultRegistry != nil {
		return rest.DefaultRegistry()
	}
	return nil
}

func registry() (*twins.Registry, error) {
	reg := taskRegistry()
	if reg == nil {
		return nil, &ExitError{Code: ExitOrchestration, Err: errors.New("this pome binary has no twins built in, so it cannot read task files")}
	}
	return reg, nil
}

// Grade grades a sandbox on the server (POST /v1/sandboxes/{sid}/grade).
func (c *Client) Grade(ctx context.Context, sid string, body task.GradeRequest) (*task.Verdict, error) {
	var v task.Verdict
	if _, err := c.call(ctx, http.MethodPost, sandboxPath(sid, "grade"), nil, body, &v); err != nil {
		return nil, err
	}
	if v.State == "" {
		return nil, c.unexpected("the verdict has no state")
	}
	return &v, nil
}

// controlPlane runs tasks through the CLI's client, so that server errors
// keep the exit codes the client gives them.
type controlPlane struct{ c *Client }

func (cp controlPlane) CreateSandbox(ctx context.Context, req task.SandboxRequest) (*task.Sandbox, error) {
	body := CreateSandboxRequest{Twins: req.Twins, TTLSeconds: int64(req.TTL / time.Second), TaskSource: req.TaskSource}
	if len(req.Seed) > 0 {
		seed, err := json.Marshal(req.Seed)
		if err != nil {
			return nil, err
		}
		body.Seed = seed
	}
	created, err := cp.c.CreateSandbox(ctx, body)
	if err != nil {
		return nil, err
	}
	sb := &task.Sandbox{ID: created.SessionID, AgentToken: created.AgentToken, Twins: map[string]task.TwinAccess{}, Root: serverRoot(created, cp.c.BaseURL)}
	for _, name := range req.Twins {
		ep, ok := created.PerTwin[name]
		if !ok {
			return nil, cp.c.unexpected("the created sandbox has no %s twin", name)
		}
		sb.Twins[name] = task.TwinAccess{RESTURL: ep.APIURL, MCPURL: ep.MCPURL, Token: created.ProviderCredentials[name].Token,
			UserToken: created.ProviderCredentials[name].UserToken}
	}
	return sb, nil
}

// serverRoot is the server's public root URL as the sandbox's own
// addresses give it: a twin's API URL is <root>/<twin>/s/<sid>. It falls
// back to the address the CLI talks to.
func serverRoot(sb *CreatedSandbox, fallback string) string {
	for name, ep := range sb.PerTwin {
		if root, ok := strings.CutSuffix(ep.APIURL, "/"+name+"/s/"+sb.SessionID); ok && root != "" {
			return root
		}
	}
	return strings.TrimRight(fallback, "/")
}

func (cp controlPlane) State(ctx context.Context, sid, twin string) (json.RawMessage, error) {
	return cp.c.State(ctx, sid, twin)
}

func (cp controlPlane) Tape(ctx context.Context, sid, twin string) ([]json.RawMessage, int64, error) {
	t, err := cp.c.Tape(ctx, sid, twin)
	if err != nil {
		return nil, 0, err
	}
	return t.Rows, t.Dropped, nil
}

func (cp controlPlane) Grade(ctx context.Context, sid, source string) (*task.Verdict, error) {
	return cp.c.Grade(ctx, sid, task.GradeRequest{TaskSource: source})
}

func (cp controlPlane) StopSandbox(ctx context.Context, sid string) error {
	return cp.c.StopSandbox(ctx, sid, false)
}

// taskErrors makes task validation errors a usage failure (exit 5) that
// lists every problem.
func taskErrors(err error) error {
	if es := task.AsErrors(err); es != nil {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("the task cannot be graded as written:\n%s", indentLines(es.Error())),
			Fix: "`pome checks lint FILE` checks a task without running it; `pome checks TWIN` lists the sentences criteria can use"}
	}
	return err
}

func indentLines(s string) string {
	out := "  "
	for _, r := range s {
		out += string(r)
		if r == '\n' {
			out += "  "
		}
	}
	return out
}
