package load

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
)

// Pome talks to a running server's control plane with a team API key.
type Pome struct {
	Server *url.URL
	APIKey string
	Client *http.Client
}

// Sandbox is what a scenario needs of one created sandbox: its id, its
// auth_token, and each twin's REST and MCP base URLs.
type Sandbox struct {
	ID        string
	AuthToken string
	API       map[string]string
	MCP       map[string]string
}

// created is the part of the 201 body of POST /v1/sandboxes the bench reads.
type created struct {
	SessionID string `json:"session_id"`
	AuthToken string `json:"auth_token"`
	PerTwin   map[string]struct {
		APIURL string `json:"api_url"`
		MCPURL string `json:"mcp_url"`
	} `json:"per_twin"`
}

// NewPome checks the server URL and returns a control-plane client.
func NewPome(server, apiKey string, client *http.Client) (*Pome, error) {
	u, err := url.Parse(strings.TrimRight(server, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("server %q is not an http(s) URL", server)
	}
	if apiKey == "" {
		return nil, errors.New("no API key (--api-key or POME_API_KEY)")
	}
	return &Pome{Server: u, APIKey: apiKey, Client: client}, nil
}

// createBody is the POST /v1/sandboxes body for twins with default worlds.
func createBody(twins []string) []byte {
	b, _ := json.Marshal(map[string]any{"twins": twins})
	return b
}

func (p *Pome) createRequest(ctx context.Context, body []byte) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.Server.String()+"/v1/sandboxes", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+p.APIKey)
	req.Header.Set("Content-Type", "application/json")
	return req, nil
}

// parseCreated reads a create response. The twin URLs it returns are moved
// onto the server URL the bench was given: a server's public URL may name
// another host (a load balancer), and the bench only ever sends load to the
// address it was told to measure.
func (p *Pome) parseCreated(body []byte) (*Sandbox, error) {
	var c created
	if err := json.Unmarshal(body, &c); err != nil {
		return nil, fmt.Errorf("create response: %w", err)
	}
	if c.SessionID == "" || c.AuthToken == "" {
		return nil, errors.New("create response without session_id or auth_token")
	}
	sb := &Sandbox{ID: c.SessionID, AuthToken: c.AuthToken, API: map[string]string{}, MCP: map[string]string{}}
	for twin, u := range c.PerTwin {
		var err error
		if sb.API[twin], err = p.rebase(u.APIURL); err != nil {
			return nil, err
		}
		if sb.MCP[twin], err = p.rebase(u.MCPURL); err != nil {
			return nil, err
		}
	}
	return sb, nil
}

func (p *Pome) rebase(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("twin URL %q: %w", raw, err)
	}
	u.Scheme, u.Host, u.User = p.Server.Scheme, p.Server.Host, nil
	return u.String(), nil
}

// Create creates one sandbox with the given twins' default worlds.
func (p *Pome) Create(ctx context.Context, twins []string) (*Sandbox, error) {
	return p.CreateSeeded(ctx, twins, nil)
}

// CreateSeeded creates one sandbox whose twins named in seeds start from
// those seed documents (the others from their default worlds).
func (p *Pome) CreateSeeded(ctx context.Context, twins []string, seeds map[string]json.RawMessage) (*Sandbox, error) {
	body := createBody(twins)
	if len(seeds) > 0 {
		var err error
		if body, err = json.Marshal(map[string]any{"twins": twins, "seed": seeds}); err != nil {
			return nil, err
		}
	}
	req, err := p.createRequest(ctx, body)
	if err != nil {
		return nil, err
	}
	resp, err := p.Client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusCreated {
		return nil, statusError(resp.StatusCode, http.StatusCreated, answer)
	}
	return p.parseCreated(answer)
}

// Discard stops a sandbox and deletes everything it holds.
func (p *Pome) Discard(ctx context.Context, id string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, p.Server.String()+"/v1/sandboxes/"+url.PathEscape(id)+"?discard=true", nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+p.APIKey)
	resp, err := p.Client.Do(req)
	if err != nil {
		return err
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent && resp.StatusCode != http.StatusNotFound {
		return statusError(resp.StatusCode, http.StatusNoContent, body)
	}
	return nil
}

// CreateMany creates n sandboxes with concurrency workers. On the first
// error it stops creating and returns what it made so far with the error, so
// that the caller can discard them.
func (p *Pome) CreateMany(ctx context.Context, n, concurrency int, twins []string) ([]*Sandbox, error) {
	out := make([]*Sandbox, n)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
		next     int
	)
	for w := 0; w < min(concurrency, n); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				stop := firstErr != nil || i >= n
				mu.Unlock()
				if stop {
					return
				}
				sb, err := p.Create(ctx, twins)
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = fmt.Errorf("create sandbox %d of %d: %w", i+1, n, err)
					cancel()
				}
				out[i] = sb
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	made := out[:0]
	for _, sb := range out {
		if sb != nil {
			made = append(made, sb)
		}
	}
	return made, firstErr
}

// DiscardMany discards ids with concurrency workers and returns how many
// failed and the first error.
func (p *Pome) DiscardMany(ctx context.Context, ids []string, concurrency int) (int, error) {
	ch := make(chan string)
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		failed   int
		firstErr error
	)
	for w := 0; w < min(concurrency, len(ids)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for id := range ch {
				if err := p.Discard(ctx, id); err != nil {
					mu.Lock()
					failed++
					if firstErr == nil {
						firstErr = fmt.Errorf("discard %s: %w", id, err)
					}
					mu.Unlock()
				}
			}
		}()
	}
	for _, id := range ids {
		ch <- id
	}
	close(ch)
	wg.Wait()
	return failed, firstErr
}

// CreateScenario creates sandboxes with the given twins and keeps their ids
// in *made for the caller to discard after the run.
func (p *Pome) CreateScenario(twins []string, made *[]string) Scenario {
	body := createBody(twins)
	var mu sync.Mutex
	return Scenario{
		Name: "sandbox_create",
		Next: func(ctx context.Context, _, _ int) (*http.Request, error) {
			return p.createRequest(ctx, body)
		},
		Check: func(status int, b []byte) error {
			if status != http.StatusCreated {
				return statusError(status, http.StatusCreated, b)
			}
			var c created
			if err := json.Unmarshal(b, &c); err != nil || c.SessionID == "" {
				return fmt.Errorf("create response without session_id: %.200s", b)
			}
			mu.Lock()
			*made = append(*made, c.SessionID)
			mu.Unlock()
			return nil
		},
	}
}

// Scenario names, as printed and as accepted by --scenarios.
const (
	NameBaseline     = "baseline"
	NameHealthz      = "server_healthz"
	NameCreate       = "sandbox_create"
	NameGetIssue     = "github_get_issue"
	NamePostComment  = "github_post_comment"
	NamePostMessage  = "slack_post_message"
	NameMCPToolsCall = "mcp_tools_call"
)

// AllScenarios is every scenario in the order they run.
var AllScenarios = []string{NameBaseline, NameHealthz, NameCreate, NameGetIssue, NamePostComment, NamePostMessage, NameMCPToolsCall}

// MCPProtocolVersion is the MCP-Protocol-Version header sent with tools/call
// by default, the one the figures in docs/PERFORMANCE.md were measured
// with. Pome's MCP endpoint is stateless, so a tools/call needs no
// initialize before it.
const MCPProtocolVersion = "2025-11-25"

// MCPVersion2026 is the stateless protocol Go SDK clients speak by default:
// each call also names its method and tool in headers and carries the
// client's version and capabilities in params._meta.
const MCPVersion2026 = "2026-07-28"

// MCPVersions are the versions the MCP scenario can speak.
var MCPVersions = []string{MCPProtocolVersion, MCPVersion2026}

// HealthzScenario is GET /healthz on the Pome server: a handler that does
// almost nothing, so its cost is the server's floor (net/http, the router,
// a small JSON answer) to set the twin calls' costs against.
func (p *Pome) HealthzScenario() Scenario {
	u := p.Server.JoinPath("/healthz").String()
	return Scenario{
		Name: NameHealthz,
		Next: func(ctx context.Context, _, _ int) (*http.Request, error) {
			return http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		},
		Check: expectStatus(http.StatusOK),
	}
}

// mcpIssueRead is the JSON-RPC body of the MCP scenario; mcpIssueRead2026
// that of the 2026 protocol.
var (
	mcpIssueRead     = []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"issue_read","arguments":{"owner":"acme","repo":"api","issue_number":1,"method":"get"}}}`)
	mcpIssueRead2026 = []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"pome-bench","version":"1"}},"name":"issue_read","arguments":{"owner":"acme","repo":"api","issue_number":1,"method":"get"}}}`)
)

// dataScenario spreads requests over the sandboxes: worker w's k-th request
// goes to sandbox (w + k*concurrency) mod len(sbs), so every sandbox gets
// traffic and no two workers hammer the same one in lock step.
func dataScenario(name string, sbs []*Sandbox, concurrency int, method string, target func(*Sandbox) string, body []byte, header http.Header, check func(int, []byte) error) Scenario {
	urls := make([]string, len(sbs))
	auth := make([]string, len(sbs))
	for i, sb := range sbs {
		urls[i] = target(sb)
		auth[i] = "Bearer " + sb.AuthToken
	}
	return Scenario{
		Name: name,
		Next: func(ctx context.Context, w, k int) (*http.Request, error) {
			i := (w + k*concurrency) % len(sbs)
			var rd io.Reader
			if body != nil {
				rd = bytes.NewReader(body)
			}
			req, err := http.NewRequestWithContext(ctx, method, urls[i], rd)
			if err != nil {
				return nil, err
			}
			for k, v := range header {
				req.Header[k] = v
			}
			req.Header.Set("Authorization", auth[i])
			return req, nil
		},
		Check: check,
	}
}

var jsonHeader = http.Header{"Content-Type": {"application/json"}}

// GetIssueScenario reads issue #1 of the default world's acme/api.
func GetIssueScenario(sbs []*Sandbox, concurrency int) Scenario {
	return dataScenario(NameGetIssue, sbs, concurrency, http.MethodGet,
		func(sb *Sandbox) string { return sb.API["github"] + "/repos/acme/api/issues/1" },
		nil, nil, expectStatus(http.StatusOK))
}

// PostCommentScenario comments on issue #1: a state write and its tape row.
func PostCommentScenario(sbs []*Sandbox, concurrency int) Scenario {
	return dataScenario(NamePostComment, sbs, concurrency, http.MethodPost,
		func(sb *Sandbox) string { return sb.API["github"] + "/repos/acme/api/issues/1/comments" },
		[]byte(`{"body":"Load test comment: looking into the 500 on POST /orders."}`), jsonHeader,
		expectStatus(http.StatusCreated))
}

// PostMessageScenario posts to #general. Slack answers refusals with 200
// and ok:false, so only ok:true counts.
func PostMessageScenario(sbs []*Sandbox, concurrency int) Scenario {
	return dataScenario(NamePostMessage, sbs, concurrency, http.MethodPost,
		func(sb *Sandbox) string { return sb.API["slack"] + "/api/chat.postMessage" },
		[]byte(`{"channel":"general","text":"Load test message: deploy looks healthy."}`), jsonHeader,
		func(status int, b []byte) error {
			if status != http.StatusOK {
				return statusError(status, http.StatusOK, b)
			}
			if !bytes.Contains(b, []byte(`"ok":true`)) {
				return fmt.Errorf("slack answered ok:false: %.200s", b)
			}
			return nil
		})
}

// MCPToolsCallScenario calls issue_read over MCP under protocol version
// (one of MCPVersions). A tool error is a 200 with isError, so the body is
// checked too.
func MCPToolsCallScenario(sbs []*Sandbox, concurrency int, version string) Scenario {
	h := http.Header{
		"Content-Type": {"application/json"},
		"Accept":       {"application/json, text/event-stream"},
	}
	h.Set("MCP-Protocol-Version", version)
	body := mcpIssueRead
	if version == MCPVersion2026 {
		h.Set("Mcp-Method", "tools/call")
		h.Set("Mcp-Name", "issue_read")
		body = mcpIssueRead2026
	}
	return dataScenario(NameMCPToolsCall, sbs, concurrency, http.MethodPost,
		func(sb *Sandbox) string { return sb.MCP["github"] },
		body, h, CheckMCPResult)
}

// CheckMCPResult accepts a 200 JSON-RPC answer with a result that is not a
// tool error. It looks at bytes rather than decoding: the client shares the
// machine with the server, and a full decode of every answer would take CPU
// from the server being measured. The markers cannot appear by accident
// inside the result, where any quote is escaped.
func CheckMCPResult(status int, b []byte) error {
	if status != http.StatusOK {
		return statusError(status, http.StatusOK, b)
	}
	if !bytes.Contains(b, []byte(`"result":`)) || bytes.Contains(b, []byte(`"isError":true`)) {
		return fmt.Errorf("MCP tools/call failed: %.200s", b)
	}
	return nil
}
