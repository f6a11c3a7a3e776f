package load

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// Call is one twin call the ceiling, constant-rate and peers modes measure,
// declared once so that every driver (wrk, the Go client, the open-loop
// scheduler) sends exactly the same request.
type Call struct {
	Name string
	Twin string
	// Write says whether the call changes the twin's world (and so is
	// held to the write target rather than the read one).
	Write  bool
	Method string
	// Path is the request's path below the twin's API URL (it may hold a
	// per-sandbox value from Prepare, as {id}).
	Path        string
	Body        []byte
	ContentType string
	// Want is the status that counts.
	Want int
	// Check, when set, also looks at the body (Slack answers refusals
	// with 200 and ok:false).
	Check func([]byte) error
	// Prepare, when set, looks up what Path needs of one sandbox (the
	// Stripe customer's id, which differs per sandbox) with one GET of
	// the twin's API, and returns the value that replaces {id}.
	Prepare func(ctx context.Context, client *http.Client, api, auth string) (string, error)
}

// Call names, as printed and as accepted by --calls.
const (
	CallGetIssue       = "github_get_issue"
	CallPostComment    = "github_post_comment"
	CallPostMessage    = "slack_post_message"
	CallHistory        = "slack_history"
	CallGetCustomer    = "stripe_get_customer"
	CallCreateCustomer = "stripe_create_customer"
	CallGmailSend      = "gmail_send"
)

func checkSlackOK(b []byte) error {
	if !bytes.Contains(b, []byte(`"ok":true`)) {
		return fmt.Errorf("slack answered ok:false: %.200s", b)
	}
	return nil
}

// gmailSendBody is a users.messages.send body: a short RFC 822 message,
// base64url as Gmail takes it.
var gmailSendBody = []byte(`{"raw":"VG86IGJvYkBleGFtcGxlLmNvbQ0KU3ViamVjdDogTG9hZCB0ZXN0DQoNCkRlcGxveSBsb29rcyBoZWFsdGh5Lg0K"}`)

// Calls are the calls of the performance targets, in the order they run:
// three reads and three writes, two per twin, each on the default worlds.
var Calls = []Call{
	{Name: CallGetIssue, Twin: "github", Method: http.MethodGet, Path: "/repos/acme/api/issues/1", Want: http.StatusOK},
	{Name: CallPostComment, Twin: "github", Write: true, Method: http.MethodPost, Path: "/repos/acme/api/issues/1/comments",
		Body: []byte(`{"body":"Load test comment: looking into the 500 on POST /orders."}`), ContentType: "application/json", Want: http.StatusCreated},
	{Name: CallHistory, Twin: "slack", Method: http.MethodPost, Path: "/api/conversations.history",
		Body: []byte(`{"channel":"general","limit":20}`), ContentType: "application/json", Want: http.StatusOK, Check: checkSlackOK},
	{Name: CallPostMessage, Twin: "slack", Write: true, Method: http.MethodPost, Path: "/api/chat.postMessage",
		Body: []byte(`{"channel":"general","text":"Load test message: deploy looks healthy."}`), ContentType: "application/json", Want: http.StatusOK, Check: checkSlackOK},
	{Name: CallGetCustomer, Twin: "stripe", Method: http.MethodGet, Path: "/v1/customers/{id}", Want: http.StatusOK, Prepare: firstStripeCustomer},
	{Name: CallCreateCustomer, Twin: "stripe", Write: true, Method: http.MethodPost, Path: "/v1/customers",
		Body: []byte("email=load%40example.com&name=Load+Test&description=pome-bench"), ContentType: "application/x-www-form-urlencoded", Want: http.StatusOK},
}

// GmailSend is the Gmail write of the scale runs (Gmail is not among the
// calls of the ratio targets).
var GmailSend = Call{Name: CallGmailSend, Twin: "gmail", Write: true, Method: http.MethodPost, Path: "/gmail/v1/users/me/messages/send",
	Body: gmailSendBody, ContentType: "application/json", Want: http.StatusOK}

// CallNames lists the names of Calls.
func CallNames() []string {
	out := make([]string, len(Calls))
	for i, c := range Calls {
		out[i] = c.Name
	}
	return out
}

// SelectCalls returns the calls named (all of Calls for none), in Calls'
// order.
func SelectCalls(names []string) ([]Call, error) {
	if len(names) == 0 {
		return Calls, nil
	}
	var out []Call
	for _, n := range names {
		found := false
		for _, c := range append(Calls, GmailSend) {
			if c.Name == n {
				out, found = append(out, c), true
			}
		}
		if !found {
			return nil, fmt.Errorf("unknown call %q (have %s, %s)", n, strings.Join(CallNames(), ", "), CallGmailSend)
		}
	}
	return out, nil
}

// firstStripeCustomer returns the id of the first customer of a Stripe
// world.
func firstStripeCustomer(ctx context.Context, client *http.Client, api, auth string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, api+"/v1/customers?limit=1", nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("Authorization", auth)
	resp, err := client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", statusError(resp.StatusCode, http.StatusOK, body)
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &list); err != nil || len(list.Data) == 0 || list.Data[0].ID == "" {
		return "", fmt.Errorf("no customer in %.200s", body)
	}
	return list.Data[0].ID, nil
}

// Target is one fully resolved request of a call: what a driver sends to
// one sandbox.
type Target struct {
	// URL is absolute; PathQuery is its path and query, what wrk puts on
	// the request line.
	URL       string
	PathQuery string
	Auth      string
}

// Targets resolves c for each sandbox, running its Prepare when it has
// one.
func (c Call) Targets(ctx context.Context, client *http.Client, sbs []*Sandbox) ([]Target, error) {
	out := make([]Target, 0, len(sbs))
	for _, sb := range sbs {
		api, ok := sb.API[c.Twin]
		if !ok {
			return nil, fmt.Errorf("%s: sandbox %s has no %s twin", c.Name, sb.ID, c.Twin)
		}
		auth := "Bearer " + sb.AuthToken
		path := c.Path
		if c.Prepare != nil {
			id, err := c.Prepare(ctx, client, api, auth)
			if err != nil {
				return nil, fmt.Errorf("%s: sandbox %s: %w", c.Name, sb.ID, err)
			}
			path = strings.ReplaceAll(path, "{id}", url.PathEscape(id))
		}
		t, err := NewTarget(api+path, auth)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// NewTarget splits an absolute URL for the drivers.
func NewTarget(raw, auth string) (Target, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return Target{}, fmt.Errorf("target %q is not an absolute URL", raw)
	}
	return Target{URL: raw, PathQuery: u.RequestURI(), Auth: auth}, nil
}

// Request builds the call's request to t.
func (c Call) Request(ctx context.Context, t Target) (*http.Request, error) {
	var rd io.Reader
	if c.Body != nil {
		rd = bytes.NewReader(c.Body)
	}
	req, err := http.NewRequestWithContext(ctx, c.Method, t.URL, rd)
	if err != nil {
		return nil, err
	}
	if c.ContentType != "" {
		req.Header.Set("Content-Type", c.ContentType)
	}
	if t.Auth != "" {
		req.Header.Set("Authorization", t.Auth)
	}
	return req, nil
}

// CheckResponse is the call's Check in the form Scenario takes.
func (c Call) CheckResponse(status int, body []byte) error {
	if status != c.Want {
		return statusError(status, c.Want, body)
	}
	if c.Check != nil {
		return c.Check(body)
	}
	return nil
}

// Scenario drives c over targets with the Go client, spreading requests as
// the other scenarios do: request k of worker w goes to target
// (w + k·concurrency) mod len(targets).
func (c Call) Scenario(targets []Target, concurrency int) Scenario {
	return Scenario{
		Name: c.Name,
		Next: func(ctx context.Context, w, k int) (*http.Request, error) {
			return c.Request(ctx, targets[(w+k*concurrency)%len(targets)])
		},
		Check: c.CheckResponse,
	}
}

// Rebase moves every target onto another server (the same-bytes handler):
// same path, same auth, same body, so the handler reads the very request
// Pome read.
func Rebase(ts []Target, base string) []Target {
	out := make([]Target, len(ts))
	for i, t := range ts {
		out[i] = Target{URL: strings.TrimRight(base, "/") + t.PathQuery, PathQuery: t.PathQuery, Auth: t.Auth}
	}
	return out
}
