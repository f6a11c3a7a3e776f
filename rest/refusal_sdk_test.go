package rest_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	gh "github.com/google/go-github/v84/github"
	"github.com/slack-go/slack"
	sg "github.com/stripe/stripe-go/v82"
	gm "google.golang.org/api/gmail/v1"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/option"

	"github.com/pomehq/pome/rest/resttest"
	"github.com/pomehq/pome/session"
	"github.com/pomehq/pome/tape"
	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/all"
)

// counting counts the requests an SDK sends (its retries included) and
// adds a bearer token where the SDK is given none of its own (Google's).
type counting struct {
	n     atomic.Int32
	token string
}

func (c *counting) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	if c.token != "" {
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", "Bearer "+c.token)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// sdkCall is one call through a vendor SDK configured as its users do,
// with a transport that counts what it sends.
type sdkCall struct {
	twin string
	// token is the credential the SDK is given.
	token func(env *resttest.Env) string
	call  func(ctx context.Context, env *resttest.Env, token string, hc *http.Client) error
	// check inspects the SDK's error.
	check func(t *testing.T, err error)
}

// maxRefusalWait bounds how long an SDK may take to give up: any retry
// with back-off (stripe-go's, Google's) would take longer.
const maxRefusalWait = 2 * time.Second

// TestSDKsStopAtOnce: with each vendor's Go SDK configured as its docs say,
// a refused credential and a call the twin does not implement are errors
// the SDK returns at once, after exactly one request (stripe-go is given
// two retries, which it uses for any answer it takes as transient), with
// the vendor's own error type and a message a user can act on.
func TestSDKsStopAtOnce(t *testing.T) {
	twinNames := []string{"github", "slack", "stripe", "gmail"}
	env := resttest.StartMulti(t, all.Registry(), twinNames[:1], nil)
	// A sandbox per twin: a sandbox holds only a few.
	sbs := map[string]*session.Created{}
	for _, twin := range twinNames {
		var c session.Created
		if st := env.Control(t, http.MethodPost, "/v1/sandboxes", map[string]any{"twins": []string{twin}}, &c); st != http.StatusCreated {
			t.Fatalf("create a %s sandbox: %d", twin, st)
		}
		sbs[twin] = &c
	}
	provider := func(twin string) func(*resttest.Env) string {
		return func(*resttest.Env) string { return sbs[twin].ProviderCredentials[twin].Token }
	}
	// A credential of the vendor's shape that no sandbox issued.
	forged := func(tok string) func(*resttest.Env) string { return func(*resttest.Env) string { return tok } }
	apiURL := func(_ *resttest.Env, twin string) string { return sbs[twin].PerTwin[twin].APIURL }

	github := func(ctx context.Context, env *resttest.Env, tok string, hc *http.Client) (*gh.Client, error) {
		return gh.NewClient(hc).WithAuthToken(tok).WithEnterpriseURLs(apiURL(env, "github")+"/", apiURL(env, "github")+"/")
	}
	slackAPI := func(env *resttest.Env, tok string, hc *http.Client) *slack.Client {
		return slack.New(tok, slack.OptionAPIURL(apiURL(env, "slack")+"/api/"), slack.OptionHTTPClient(hc))
	}
	stripeAPI := func(env *resttest.Env, tok string, hc *http.Client) *sg.Client {
		return sg.NewClient(tok, sg.WithBackends(sg.NewBackendsWithConfig(&sg.BackendConfig{
			URL: sg.String(env.HTTP.URL), HTTPClient: hc, MaxNetworkRetries: sg.Int64(2),
			LeveledLogger: &sg.LeveledLogger{Level: sg.LevelNull},
		})))
	}
	gmailAPI := func(ctx context.Context, env *resttest.Env, hc *http.Client) (*gm.Service, error) {
		// googleapis' rootUrl: the server root, the ya29. token naming
		// the sandbox.
		return gm.NewService(ctx, option.WithEndpoint(env.HTTP.URL+"/"), option.WithHTTPClient(hc))
	}
	cases := map[string]sdkCall{
		"go-github refused": {"github", forged("ghp_" + strings.Repeat("z", 36)),
			func(ctx context.Context, env *resttest.Env, tok string, hc *http.Client) error {
				c, err := github(ctx, env, tok, hc)
				if err != nil {
					return err
				}
				_, _, err = c.Issues.Get(ctx, "acme", "api", 1)
				return err
			},
			func(t *testing.T, err error) {
				var er *gh.ErrorResponse
				if !errors.As(err, &er) || er.Response.StatusCode != 404 || er.Message != "No twin pod for this session." {
					t.Errorf("want the opaque 404, got %v", err)
				}
			}},
		"go-github unsupported": {"github", provider("github"),
			func(ctx context.Context, env *resttest.Env, tok string, hc *http.Client) error {
				c, err := github(ctx, env, tok, hc)
				if err != nil {
					return err
				}
				_, _, err = c.Actions.ListRepositoryWorkflowRuns(ctx, "acme", "api", nil)
				return err
			},
			func(t *testing.T, err error) {
				var er *gh.ErrorResponse
				if !errors.As(err, &er) || er.Response.StatusCode != 404 || !strings.Contains(er.Message, "Pome's github twin does not implement GET /api/v3/repos/acme/api/actions/runs") {
					t.Errorf("want GitHub's 404 with the twin's explanation, got %v", err)
				}
			}},
		"slack-go refused": {"slack", forged("xoxb-" + strings.Repeat("7", 30)),
			func(ctx context.Context, env *resttest.Env, tok string, hc *http.Client) error {
				_, err := slackAPI(env, tok, hc).AuthTestContext(ctx)
				return err
			},
			func(t *testing.T, err error) {
				var se slack.SlackErrorResponse
				if !errors.As(err, &se) || se.Err != "invalid_auth" {
					t.Errorf("want invalid_auth, got %T %v", err, err)
				}
			}},
		"slack-go unsupported": {"slack", provider("slack"),
			func(ctx context.Context, env *resttest.Env, tok string, hc *http.Client) error {
				_, err := slackAPI(env, tok, hc).GetDNDInfoContext(ctx, nil)
				return err
			},
			func(t *testing.T, err error) {
				var se slack.SlackErrorResponse
				if !errors.As(err, &se) || se.Err != "unknown_method" || len(se.ResponseMetadata.Messages) != 1 ||
					!strings.Contains(se.ResponseMetadata.Messages[0], "Pome's slack twin does not implement POST /api/dnd.info") {
					t.Errorf("want unknown_method with the twin's explanation, got %T %v %v", err, err, se.ResponseMetadata.Messages)
				}
			}},
		"stripe-go refused": {"stripe", forged("sk_test_" + strings.Repeat("9", 40)),
			func(ctx context.Context, env *resttest.Env, tok string, hc *http.Client) error {
				_, err := stripeAPI(env, tok, hc).V1Customers.Retrieve(ctx, "cus_nope", nil)
				return err
			},
			func(t *testing.T, err error) {
				var se *sg.Error
				if !errors.As(err, &se) || se.HTTPStatusCode != 401 || se.Type != sg.ErrorTypeInvalidRequest || !strings.HasPrefix(se.Msg, "Invalid API Key provided: sk_test_") {
					t.Errorf("want Stripe's 401 invalid key, got %v", err)
				}
			}},
		"stripe-go unsupported": {"stripe", provider("stripe"),
			func(ctx context.Context, env *resttest.Env, tok string, hc *http.Client) error {
				for _, err := range stripeAPI(env, tok, hc).V1CheckoutSessions.List(ctx, nil) {
					return err
				}
				return nil
			},
			func(t *testing.T, err error) {
				var se *sg.Error
				if !errors.As(err, &se) || se.HTTPStatusCode != 404 || se.Type != sg.ErrorTypeInvalidRequest || !strings.Contains(se.Msg, "Pome's Stripe twin does not implement it") {
					t.Errorf("want Stripe's 404 with the twin's explanation, got %v", err)
				}
			}},
		"gmail refused": {"gmail", forged("ya29." + strings.Repeat("k", 40)),
			func(ctx context.Context, env *resttest.Env, tok string, hc *http.Client) error {
				svc, err := gmailAPI(ctx, env, hc)
				if err != nil {
					return err
				}
				_, err = svc.Users.Labels.List("me").Context(ctx).Do()
				return err
			},
			func(t *testing.T, err error) {
				var ge *googleapi.Error
				if !errors.As(err, &ge) || ge.Code != 401 || !strings.Contains(ge.Message, "invalid authentication credentials") {
					t.Errorf("want Google's 401, got %v", err)
				}
			}},
		"gmail unsupported": {"gmail", provider("gmail"),
			func(ctx context.Context, env *resttest.Env, tok string, hc *http.Client) error {
				svc, err := gmailAPI(ctx, env, hc)
				if err != nil {
					return err
				}
				_, err = svc.Users.Settings.GetVacation("me").Context(ctx).Do()
				return err
			},
			func(t *testing.T, err error) {
				var ge *googleapi.Error
				if !errors.As(err, &ge) || ge.Code != 404 || !strings.Contains(ge.Message, "does not implement GET /gmail/v1/users/me/settings/vacation") {
					t.Errorf("want Google's 404 with the twin's explanation, got %v", err)
				}
			}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			tok := c.token(env)
			ct := &counting{}
			if c.twin == "gmail" {
				ct.token = tok
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			start := time.Now()
			err := c.call(ctx, env, tok, &http.Client{Transport: ct})
			took := time.Since(start)
			if err == nil {
				t.Fatal("no error")
			}
			c.check(t, err)
			if n := ct.n.Load(); n != 1 {
				t.Errorf("%d requests sent, want 1 (no retry)", n)
			}
			if took > maxRefusalWait {
				t.Errorf("took %s to fail", took)
			}
		})
	}
	// Each unsupported call is on its twin's tape with tool null, and its
	// no-unsupported-endpoint check catches it.
	for _, twin := range twinNames {
		var tp struct {
			Rows []tape.Row `json:"rows"`
		}
		if st := env.Control(t, http.MethodGet, "/v1/sandboxes/"+sbs[twin].SessionID+"/tapes/"+twin, nil, &tp); st != http.StatusOK {
			t.Fatalf("%s tape: %d", twin, st)
		}
		rows := tp.Rows
		var hit *tape.Row
		for i := range rows {
			if rows[i].Tool == nil {
				hit = &rows[i]
			}
		}
		if hit == nil {
			t.Errorf("%s: the unsupported call is not on the tape with tool null", twin)
			continue
		}
		tw, _ := all.Registry().Get(twin)
		chk, ok := tw.Check(twin + ".no-unsupported-endpoint")
		if !ok {
			t.Fatalf("%s: no no-unsupported-endpoint check", twin)
		}
		res, err := chk.Eval(&twins.Input{Twin: tw, Tape: rows}, nil)
		if err != nil || res.Passed {
			t.Errorf("%s: no-unsupported-endpoint passed a tape with an unsupported call: %+v %v", twin, res, err)
		}
	}
}
