package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Client is a small client of a Pome server's control plane (SPEC §4). Its
// methods return the decoded response with the server's bytes in Raw, so
// that `--json` can print exactly what the server said.
type Client struct {
	// BaseURL is the server root, e.g. http://127.0.0.1:7070.
	BaseURL string
	// APIKey is the team key sent as a Bearer token on every /v1 call.
	APIKey string
	// HTTPClient performs requests (nil: http.DefaultClient).
	HTTPClient *http.Client
	// Timeout bounds each call except streams (0: one minute).
	Timeout time.Duration
}

// maxResponseBytes caps what the client reads from one response; tapes and
// state documents are large but not unbounded.
const maxResponseBytes = 256 << 20

// APIError is an error answered by the server, decoded from the control
// plane's envelope {"error":{"type","message","details"?,"request_id"}}.
type APIError struct {
	Status    int
	Type      string
	Message   string
	Details   json.RawMessage
	RequestID string
}

func (e *APIError) Error() string {
	var b strings.Builder
	msg := e.Message
	if msg == "" {
		msg = fmt.Sprintf("server answered %d %s", e.Status, http.StatusText(e.Status))
	}
	b.WriteString(msg)
	for _, line := range detailLines(e.Details) {
		b.WriteString("\n  ")
		b.WriteString(line)
	}
	var meta []string
	if e.Type != "" {
		meta = append(meta, e.Type)
	}
	meta = append(meta, "HTTP "+strconv.Itoa(e.Status))
	if e.RequestID != "" {
		meta = append(meta, "request "+e.RequestID)
	}
	fmt.Fprintf(&b, "\n  (%s)", strings.Join(meta, ", "))
	return b.String()
}

// ExitCode maps the error to SPEC §7, by the envelope's type when there is
// one and by status otherwise (e.g. a proxy in front of the server).
func (e *APIError) ExitCode() int {
	switch e.Type {
	case "invalid_auth", "forbidden":
		return ExitAuth
	case "quota_exceeded":
		return ExitQuota
	case "validation_failed", "not_found", "conflict":
		return ExitUsage
	case "rate_limited", "internal_error":
		return ExitOrchestration
	}
	switch e.Status {
	case http.StatusUnauthorized, http.StatusForbidden:
		return ExitAuth
	case http.StatusPaymentRequired:
		return ExitQuota
	case http.StatusBadRequest, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity:
		return ExitUsage
	}
	return ExitOrchestration
}

// Hint says how to fix an auth failure, the one error users can always fix
// from the command line.
func (e *APIError) Hint() string {
	switch e.ExitCode() {
	case ExitAuth:
		if e.Type == "forbidden" || e.Status == http.StatusForbidden {
			return "this team's API key may not do that; `pome login --api-key pme_…` switches keys"
		}
		return "check the API key: run `pome login --server URL --api-key pme_…` or set POME_API_KEY"
	case ExitQuota:
		return "stop sandboxes you no longer need: `pome sandbox list --state ready`, then `pome sandbox stop SID`"
	}
	return ""
}

// detailLines renders the envelope's optional details, whose shape the
// contract leaves open ("naming the field/path"), as readable lines.
func detailLines(raw json.RawMessage) []string {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return nil
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return []string{string(raw)}
	}
	switch d := v.(type) {
	case string:
		return []string{d}
	case map[string]any:
		keys := make([]string, 0, len(d))
		for k := range d {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		lines := make([]string, 0, len(keys))
		for _, k := range keys {
			lines = append(lines, k+": "+plain(d[k]))
		}
		return lines
	case []any:
		lines := make([]string, 0, len(d))
		for _, item := range d {
			if m, ok := item.(map[string]any); ok {
				where := firstString(m, "path", "field", "param", "name")
				if msg := firstString(m, "message", "error", "reason"); where != "" && msg != "" {
					lines = append(lines, where+": "+msg)
					continue
				}
			}
			lines = append(lines, plain(item))
		}
		return lines
	}
	return []string{plain(v)}
}

func firstString(m map[string]any, keys ...string) string {
	for _, k := range keys {
		if s, ok := m[k].(string); ok && s != "" {
			return s
		}
	}
	return ""
}

// plain prints strings bare and anything else as compact JSON.
func plain(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// UnreachableError means no HTTP answer came back at all.
type UnreachableError struct {
	Server string
	Err    error
}

func (e *UnreachableError) Error() string {
	var op *net.OpError
	if errors.As(e.Err, &op) && op.Op == "dial" {
		return fmt.Sprintf("cannot reach the Pome server at %s (is `pome serve` running?): %v", e.Server, op.Err)
	}
	return fmt.Sprintf("cannot reach the Pome server at %s: %v", e.Server, e.Err)
}

// Unwrap exposes the transport error.
func (e *UnreachableError) Unwrap() error { return e.Err }

// ExitCode is always an orchestration failure.
func (e *UnreachableError) ExitCode() int { return ExitOrchestration }

// Hint points at the two usual causes.
func (e *UnreachableError) Hint() string {
	return "start a server with `pome serve`, or point at yours with --server URL / POME_SERVER / `pome login --server URL`"
}

// unexpected reports a response the client cannot make sense of.
func (c *Client) unexpected(format string, args ...any) error {
	return &ExitError{Code: ExitOrchestration,
		Err: fmt.Errorf("unexpected response from %s: %s", c.BaseURL, fmt.Sprintf(format, args...))}
}

func (c *Client) httpClient() *http.Client {
	if c.HTTPClient != nil {
		return c.HTTPClient
	}
	return http.DefaultClient
}

// send performs one request and returns the response when its status is
// 2xx; any other status becomes an *APIError. The caller closes the body.
func (c *Client) send(ctx context.Context, method, path string, query url.Values, body any, accept string) (*http.Response, error) {
	u := strings.TrimRight(c.BaseURL, "/") + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return nil, usageErrorf("bad server URL %q: %v", c.BaseURL, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", accept)
	req.Header.Set("Authorization", "Bearer "+c.APIKey)
	req.Header.Set("User-Agent", "pome-cli/"+Version)

	resp, err := c.httpClient().Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &UnreachableError{Server: c.BaseURL, Err: err}
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return resp, nil
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return nil, decodeAPIError(resp.StatusCode, data)
}

// decodeAPIError reads the control plane's envelope, falling back to the
// data plane's {"message"} and then to a snippet of whatever came back.
func decodeAPIError(status int, data []byte) *APIError {
	e := &APIError{Status: status}
	var env struct {
		Error *struct {
			Type      string          `json:"type"`
			Message   string          `json:"message"`
			Details   json.RawMessage `json:"details"`
			RequestID string          `json:"request_id"`
		} `json:"error"`
		Message string `json:"message"`
	}
	if json.Unmarshal(data, &env) == nil {
		if env.Error != nil {
			e.Type, e.Message, e.Details, e.RequestID = env.Error.Type, env.Error.Message, env.Error.Details, env.Error.RequestID
			return e
		}
		if env.Message != "" {
			e.Message = env.Message
			return e
		}
	}
	if s := strings.TrimSpace(string(data)); s != "" {
		if len(s) > 200 {
			s = s[:200] + "…"
		}
		e.Message = fmt.Sprintf("server answered %d %s: %s", status, http.StatusText(status), s)
	}
	return e
}

// call performs a non-streaming request and decodes a JSON answer into out
// (unless out is nil), returning the raw bytes.
func (c *Client) call(ctx context.Context, method, path string, query url.Values, body, out any) (json.RawMessage, error) {
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	resp, err := c.send(ctx, method, path, query, body, "application/json")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes))
	if err != nil {
		return nil, &UnreachableError{Server: c.BaseURL, Err: err}
	}
	if out == nil {
		return data, nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return nil, c.unexpected("%s %s: %v", method, path, err)
	}
	return data, nil
}

// CreateSandboxRequest is the body of POST /v1/sandboxes.
type CreateSandboxRequest struct {
	Twins      []string        `json:"twins"`
	Seed       json.RawMessage `json:"seed,omitempty"`
	TTLSeconds int64           `json:"ttl_seconds,omitempty"`
	TaskSource string          `json:"task_source,omitempty"`
}

// TwinEndpoints are a twin's addresses in one sandbox.
type TwinEndpoints struct {
	APIURL     string `json:"api_url"`
	MCPURL     string `json:"mcp_url"`
	OpenAPIURL string `json:"openapi_url"`
}

// ProviderCredential is a vendor-shaped token opening one twin.
type ProviderCredential struct {
	Token  string `json:"token"`
	Header string `json:"header"`
	Scheme string `json:"scheme"`
	// UserToken is the twin's user credential, where it has one (Slack's
	// xoxp- beside its xoxb- bot token).
	UserToken string `json:"user_token,omitempty"`
}

// CreatedSandbox is the 201 answer of POST /v1/sandboxes. It holds secrets.
type CreatedSandbox struct {
	SessionID           string                        `json:"session_id"`
	ExpiresAt           string                        `json:"expires_at"`
	AuthToken           string                        `json:"auth_token"`
	AgentToken          string                        `json:"agent_token"`
	PerTwin             map[string]TwinEndpoints      `json:"per_twin"`
	ProviderCredentials map[string]ProviderCredential `json:"provider_credentials"`
	Raw                 json.RawMessage               `json:"-"`
}

// Sandbox is a sandbox as the control plane lists it. Timestamps stay
// strings: they are shown as the server wrote them.
type Sandbox struct {
	ID        string          `json:"id"`
	State     string          `json:"state"`
	Twins     []string        `json:"twins"`
	CreatedAt string          `json:"created_at"`
	ExpiresAt string          `json:"expires_at"`
	StoppedAt string          `json:"stopped_at,omitempty"`
	Raw       json.RawMessage `json:"-"`
}

// SandboxList is a page of sandboxes, newest first.
type SandboxList struct {
	Data    []Sandbox       `json:"data"`
	HasMore bool            `json:"has_more"`
	Raw     json.RawMessage `json:"-"`
}

// Tape is a twin's tape; rows stay raw so that --json prints them as sent.
type Tape struct {
	SessionID string            `json:"session_id"`
	Twin      string            `json:"twin"`
	Rows      []json.RawMessage `json:"rows"`
	Count     int               `json:"count"`
	// Dropped counts calls past the tape's cap, whose rows are gone.
	Dropped int64           `json:"dropped,omitempty"`
	Raw     json.RawMessage `json:"-"`
}

// CheckParam is one typed parameter of a check template.
type CheckParam struct {
	Name    string `json:"name"`
	Type    string `json:"type"`
	Pattern string `json:"pattern"`
	Example any    `json:"example"`
}

// Check is one assertion a twin declares (SPEC §7).
type Check struct {
	ID          string       `json:"id"`
	Template    string       `json:"template"`
	Params      []CheckParam `json:"params"`
	Substrate   string       `json:"substrate"`
	Polarity    string       `json:"polarity"`
	Description string       `json:"description"`
}

// CheckList is the answer of GET /v1/checks?twin=.
type CheckList struct {
	Twin   string          `json:"twin"`
	Checks []Check         `json:"checks"`
	Raw    json.RawMessage `json:"-"`
}

// TwinTool is one action of a twin as listed by GET /v1/twins.
type TwinTool struct {
	Name   string `json:"name"`
	Effect string `json:"effect"`
}

// TwinBinding is one REST route of a twin.
type TwinBinding struct {
	Method string `json:"method"`
	Path   string `json:"path"`
	Tool   string `json:"tool"`
}

// TwinInfo describes one twin the server offers.
type TwinInfo struct {
	Name        string          `json:"name"`
	Title       string          `json:"title"`
	Tools       []TwinTool      `json:"tools"`
	Bindings    []TwinBinding   `json:"bindings"`
	SeedExample json.RawMessage `json:"seed_example,omitempty"`
	// SeedExampleOriginal is a seed in the original Pome's format.
	SeedExampleOriginal json.RawMessage `json:"seed_example_original,omitempty"`
}

// TwinList is the answer of GET /v1/twins.
type TwinList struct {
	Twins []TwinInfo      `json:"twins"`
	Raw   json.RawMessage `json:"-"`
}

// Usage is the team's usage for the current period.
type Usage struct {
	Team             string          `json:"team"`
	PeriodStart      string          `json:"period_start"`
	SandboxesOpen    int64           `json:"sandboxes_open"`
	SandboxesCreated int64           `json:"sandboxes_created"`
	SandboxesQuota   int64           `json:"sandboxes_quota"`
	TwinsStarted     int64           `json:"twins_started"`
	Evals            int64           `json:"evals"`
	Raw              json.RawMessage `json:"-"`
}

func sandboxPath(sid string, rest ...string) string {
	p := "/v1/sandboxes/" + url.PathEscape(sid)
	for _, r := range rest {
		p += "/" + url.PathEscape(r)
	}
	return p
}

// CreateSandbox creates a sandbox.
func (c *Client) CreateSandbox(ctx context.Context, req CreateSandboxRequest) (*CreatedSandbox, error) {
	var out CreatedSandbox
	raw, err := c.call(ctx, http.MethodPost, "/v1/sandboxes", nil, req, &out)
	if err != nil {
		return nil, err
	}
	if out.SessionID == "" {
		return nil, c.unexpected("created sandbox has no session_id")
	}
	out.Raw = raw
	return &out, nil
}

// ListSandboxes lists the team's sandboxes, optionally of one state; limit
// 0 leaves the page size to the server.
func (c *Client) ListSandboxes(ctx context.Context, state string, limit int) (*SandboxList, error) {
	q := url.Values{}
	if state != "" {
		q.Set("state", state)
	}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	var out SandboxList
	raw, err := c.call(ctx, http.MethodGet, "/v1/sandboxes", q, nil, &out)
	if err != nil {
		return nil, err
	}
	out.Raw = raw
	return &out, nil
}

// GetSandbox reads one sandbox.
func (c *Client) GetSandbox(ctx context.Context, sid string) (*Sandbox, error) {
	var out Sandbox
	raw, err := c.call(ctx, http.MethodGet, sandboxPath(sid), nil, nil, &out)
	if err != nil {
		return nil, err
	}
	out.Raw = raw
	return &out, nil
}

// StopSandbox stops a sandbox; with discard its state and tapes go too.
func (c *Client) StopSandbox(ctx context.Context, sid string, discard bool) error {
	var q url.Values
	if discard {
		q = url.Values{"discard": {"true"}}
	}
	_, err := c.call(ctx, http.MethodDelete, sandboxPath(sid), q, nil, nil)
	return err
}

// Tape reads a twin's whole tape.
func (c *Client) Tape(ctx context.Context, sid, twin string) (*Tape, error) {
	var out Tape
	raw, err := c.call(ctx, http.MethodGet, sandboxPath(sid, "tapes", twin), nil, nil, &out)
	if err != nil {
		return nil, err
	}
	out.Raw = raw
	return &out, nil
}

// StreamEnded is returned by FollowTape when the server ends the stream on
// purpose (an "end" event, e.g. when the sandbox is discarded).
type StreamEnded struct{ Reason string }

func (e *StreamEnded) Error() string {
	if e.Reason == "" {
		return "the server ended the tape stream"
	}
	return "the server ended the tape stream: " + e.Reason
}

// FollowTape streams a twin's tape (server-sent events, one row per data
// line) and calls fn for every row until the server closes the stream (nil,
// or *StreamEnded when it said why), fn fails, or ctx is done (ctx.Err()).
func (c *Client) FollowTape(ctx context.Context, sid, twin string, fn func(row json.RawMessage) error) error {
	q := url.Values{"follow": {"1"}}
	resp, err := c.send(ctx, http.MethodGet, sandboxPath(sid, "tapes", twin), q, nil, "text/event-stream")
	if err != nil {
		return err
	}
	defer resp.Body.Close()

	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if mt == "application/json" {
		// A server that does not stream answers with the whole tape once;
		// showing it beats failing.
		var t Tape
		if err := json.NewDecoder(io.LimitReader(resp.Body, maxResponseBytes)).Decode(&t); err != nil {
			return c.unexpected("tape: %v", err)
		}
		for _, r := range t.Rows {
			if err := fn(r); err != nil {
				return err
			}
		}
		return nil
	}

	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), maxResponseBytes)
	var event string
	var data []string
	dispatch := func() error {
		defer func() { event, data = "", nil }()
		if len(data) == 0 {
			return nil
		}
		joined := strings.Join(data, "\n")
		switch event {
		case "", "message", "row":
		case "error":
			return decodeAPIError(http.StatusInternalServerError, []byte(joined))
		case "end":
			var end struct {
				Reason string `json:"reason"`
			}
			_ = json.Unmarshal([]byte(joined), &end)
			return &StreamEnded{Reason: end.Reason}
		default:
			// Keep-alives and events this client does not know.
			return nil
		}
		// Rows normally come one per data line; a decoder also copes with
		// a row split over several lines of one event.
		dec := json.NewDecoder(strings.NewReader(joined))
		for {
			var row json.RawMessage
			err := dec.Decode(&row)
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return c.unexpected("tape event: %v", err)
			}
			if err := fn(row); err != nil {
				return err
			}
		}
	}
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if line == "" {
			if err := dispatch(); err != nil {
				return err
			}
			continue
		}
		if strings.HasPrefix(line, ":") {
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "data":
			data = append(data, value)
		case "event":
			event = value
		}
	}
	if err := sc.Err(); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &UnreachableError{Server: c.BaseURL, Err: err}
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return dispatch()
}

// State reads a twin's current state document.
func (c *Client) State(ctx context.Context, sid, twin string) (json.RawMessage, error) {
	raw, err := c.call(ctx, http.MethodGet, sandboxPath(sid, "state", twin), nil, nil, nil)
	if err != nil {
		return nil, err
	}
	if !json.Valid(raw) {
		return nil, c.unexpected("state is not JSON")
	}
	return raw, nil
}

// Checks lists the checks one twin declares.
func (c *Client) Checks(ctx context.Context, twin string) (*CheckList, error) {
	var out CheckList
	raw, err := c.call(ctx, http.MethodGet, "/v1/checks", url.Values{"twin": {twin}}, nil, &out)
	if err != nil {
		return nil, err
	}
	out.Raw = raw
	return &out, nil
}

// Twins lists the twins the server offers.
func (c *Client) Twins(ctx context.Context) (*TwinList, error) {
	var out TwinList
	raw, err := c.call(ctx, http.MethodGet, "/v1/twins", nil, nil, &out)
	if err != nil {
		return nil, err
	}
	out.Raw = raw
	return &out, nil
}

// Usage reads the team's usage. It is also the cheapest authenticated call,
// which is why `pome login` uses it to verify a key.
func (c *Client) Usage(ctx context.Context) (*Usage, error) {
	var out Usage
	raw, err := c.call(ctx, http.MethodGet, "/v1/usage", nil, nil, &out)
	if err != nil {
		return nil, err
	}
	out.Raw = raw
	return &out, nil
}
