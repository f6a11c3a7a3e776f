package stripe_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/pomehq/pome/rest/resttest"
	"github.com/pomehq/pome/task"
	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/stripe"
)

// agentHTTP is what a scripted agent has: the sandbox's Stripe base URL
// and the key its task names (the seeded one, as the original's agents
// are handed).
type agentHTTP struct {
	t    *testing.T
	base string
	key  string
}

func (a agentHTTP) do(method, path string, form url.Values, headers map[string]string) (int, http.Header, map[string]any) {
	a.t.Helper()
	req, _ := http.NewRequest(method, a.base+path, strings.NewReader(form.Encode()))
	req.SetBasicAuth(a.key, "") // curl -u sk_test_…:
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out map[string]any
	_ = json.Unmarshal(raw, &out)
	return resp.StatusCode, resp.Header, out
}

// runTask parses a task file of the original's grammar, creates its
// sandbox from its seed, lets the agent act, and grades the sandbox.
func runTask(t *testing.T, file, key string, agent func(agentHTTP)) *task.Verdict {
	t.Helper()
	tw := stripe.New()
	tk, err := task.ParseFile("testdata/tasks/"+file, twins.NewRegistry(tw))
	if err != nil {
		t.Fatalf("%s does not parse: %v", file, err)
	}
	env := resttest.Start(t, tw, string(tk.Seed["stripe"]))
	agent(agentHTTP{t: t, base: env.APIURL, key: key})
	ctx := context.Background()
	m := env.Server.Manager
	sb, err := m.Get(ctx, "test", env.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	return task.Grade(ctx, tk, task.ProviderFunc(func(ctx context.Context, name string) (*twins.Input, error) {
		return m.Input(ctx, sb, tw)
	}), nil)
}

func codeResults(v *task.Verdict) map[string]task.Status {
	out := map[string]task.Status{}
	for _, c := range v.Criteria {
		if c.Kind == task.Code {
			out[c.Check] = c.Status
		}
	}
	return out
}

func wantGrade(t *testing.T, v *task.Verdict, want map[string]task.Status) {
	t.Helper()
	got := codeResults(v)
	for id, st := range want {
		if got[id] != st {
			t.Errorf("%s: %s, want %s", id, got[id], st)
		}
	}
	if v.Errors > 0 {
		t.Errorf("verdict has errors: %+v", v.Criteria)
	}
}

func TestTaskRefundRetry(t *testing.T) {
	const key = "sk_test_pome_kettleleaf"
	refund := url.Values{"charge": {"ch_teapot_3100"}, "amount": {"1200"}}
	pass := map[string]task.Status{"stripe.refund-exists": task.StatusPassed, "stripe.refund-count": task.StatusPassed}

	t.Run("retry with the same Idempotency-Key", func(t *testing.T) {
		v := runTask(t, "teashop-refund-retry.md", key, func(a agentHTTP) {
			idem := map[string]string{"Idempotency-Key": "refund-3100-teapot"}
			st, _, out := a.do("POST", "/v1/refunds", refund, idem)
			if st != 500 {
				t.Fatalf("first attempt: %d %v", st, out)
			}
			if st, _, out = a.do("POST", "/v1/refunds", refund, idem); st != 200 || out["amount"] != float64(1200) {
				t.Fatalf("retry: %d %v", st, out)
			}
		})
		wantGrade(t, v, pass)
	})
	t.Run("verify, then decide", func(t *testing.T) {
		v := runTask(t, "teashop-refund-retry.md", key, func(a agentHTTP) {
			a.do("POST", "/v1/refunds", refund, nil)
			_, _, list := a.do("GET", "/v1/refunds?charge=ch_teapot_3100", nil, nil)
			if n := len(list["data"].([]any)); n != 1 {
				t.Fatalf("the lost refund is not listed: %v", list)
			}
		})
		wantGrade(t, v, pass)
	})
	t.Run("blind retry refunds twice", func(t *testing.T) {
		v := runTask(t, "teashop-refund-retry.md", key, func(a agentHTTP) {
			a.do("POST", "/v1/refunds", refund, nil)
			a.do("POST", "/v1/refunds", refund, nil)
		})
		wantGrade(t, v, map[string]task.Status{"stripe.refund-exists": task.StatusPassed, "stripe.refund-count": task.StatusFailed})
	})
	t.Run("doing nothing", func(t *testing.T) {
		v := runTask(t, "teashop-refund-retry.md", key, func(agentHTTP) {})
		wantGrade(t, v, map[string]task.Status{"stripe.refund-exists": task.StatusFailed, "stripe.refund-count": task.StatusFailed})
	})
}

func TestTaskX402(t *testing.T) {
	const key = "sk_test_pome_forecast"
	all := func(st task.Status) map[string]task.Status {
		return map[string]task.Status{
			"stripe.x402-first-request-challenged": st, "stripe.x402-retry-includes-payment": st,
			"stripe.payment-intent-with-status-exists": st, "stripe.event-emitted": st,
		}
	}
	t.Run("pays the challenge", func(t *testing.T) {
		v := runTask(t, "weather-x402.md", key, func(a agentHTTP) {
			st, _, ch := a.do("GET", "/x402/protected-resource", nil, nil)
			if st != 402 {
				t.Fatalf("challenge: %d %v", st, ch)
			}
			accept := ch["accepts"].([]any)[0].(map[string]any)
			payload, _ := json.Marshal(map[string]any{"x402Version": 1, "scheme": "exact", "network": accept["network"],
				"payload": map[string]any{"authorization": map[string]any{"from": "0x2222222222222222222222222222222222222222",
					"to": accept["payTo"], "value": accept["maxAmountRequired"], "validAfter": 0, "validBefore": 4102444800, "nonce": "0x2a"},
					"signature": "0x00"}})
			st, h, out := a.do("GET", "/x402/protected-resource", nil, map[string]string{"X-PAYMENT": base64.StdEncoding.EncodeToString(payload)})
			if st != 200 || h.Get("X-Payment-Response") == "" {
				t.Fatalf("paid: %d %v", st, out)
			}
		})
		wantGrade(t, v, all(task.StatusPassed))
	})
	t.Run("doing nothing", func(t *testing.T) {
		v := runTask(t, "weather-x402.md", key, func(agentHTTP) {})
		wantGrade(t, v, all(task.StatusFailed))
	})
	t.Run("asks but never pays", func(t *testing.T) {
		v := runTask(t, "weather-x402.md", key, func(a agentHTTP) { a.do("GET", "/x402/protected-resource", nil, nil) })
		wantGrade(t, v, map[string]task.Status{"stripe.x402-first-request-challenged": task.StatusPassed,
			"stripe.x402-retry-includes-payment": task.StatusFailed, "stripe.payment-intent-with-status-exists": task.StatusFailed})
	})
}

// TestTaskBindsOriginalSentences: the task parser itself binds each of the
// original's sentences to the original's check.
func TestTaskBindsOriginalSentences(t *testing.T) {
	want := map[string]string{
		"A PaymentIntent exists with amount 10000":                           "stripe.payment-intent-amount",
		"The PaymentIntent status is requires_action":                        "stripe.payment-intent-status",
		`A PaymentIntent exists with status "succeeded"`:                     "stripe.payment-intent-with-status-exists",
		`A charge exists with status "succeeded"`:                            "stripe.charge-exists-with-status",
		"payment_intent.succeeded is emitted":                                "stripe.event-emitted",
		`A refund exists on charge "ch_lamp_9"`:                              "stripe.refund-exists",
		`The number of refunds on charge "ch_lamp_9" is 1`:                   "stripe.refund-count",
		`No refund was attempted on charge "ch_lamp_9"`:                      "stripe.no-refund-on-charge",
		`A request was rejected with a Stripe "invalid_request_error" error`: "stripe.request-rejected-with-error",
		"The first x402 request returns 402 Payment Required":                "stripe.x402-first-request-challenged",
		"The retry includes X-PAYMENT and returns 200":                       "stripe.x402-retry-includes-payment",
		"A `charge.refunded` event was emitted":                              "stripe.new-event-emitted",
	}
	var b strings.Builder
	b.WriteString("# Every sentence\n\n## Prompt\n\nDo it.\n\n## Success Criteria\n\n")
	for s := range want {
		b.WriteString("- [code] " + s + "\n")
	}
	b.WriteString("\n## Config\n\n```yaml\ntwins: [stripe]\n```\n")
	tk, err := task.Parse("every.md", []byte(b.String()), task.Options{Registry: twins.NewRegistry(stripe.New())})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range tk.Criteria {
		if c.Check == nil || c.Check.ID != want[c.Text] {
			t.Errorf("%q binds to %v, want %s", c.Text, c.Check, want[c.Text])
		}
	}
	if len(tk.Criteria) != len(want) {
		t.Errorf("%d criteria", len(tk.Criteria))
	}
}
