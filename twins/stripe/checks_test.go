package stripe

import (
	"encoding/json"
	"testing"

	"github.com/pomehq/pome/tape"
	"github.com/pomehq/pome/twins"
)

// evalCheck runs a check on a seed world, a final world and a tape.
func evalCheck(t *testing.T, id string, seed, final *World, rows []tape.Row, args map[string]string) twins.Result {
	t.Helper()
	tw := New()
	c, ok := tw.Check(id)
	if !ok {
		t.Fatalf("no check %s", id)
	}
	if rendered := c.Render(args); rendered != "" {
		if back, ok := c.Match(rendered); !ok || len(back) != len(args) {
			t.Fatalf("%s: %q does not bind back", id, rendered)
		}
	}
	res, err := c.Evaluate(&twins.Input{Twin: tw, Seed: seed, Final: final, Tape: rows}, args)
	if err != nil {
		t.Fatalf("%s: %v", id, err)
	}
	return res
}

const checkSeed = `{
  "customers": [{"id": "cus_alice", "email": "alice@example.com"}],
  "payment_methods": [{"id": "pm_visa", "card": "4242424242424242", "customer": "cus_alice"}],
  "payment_intents": [
    {"id": "pi_paid", "amount": 5000, "currency": "usd", "customer": "cus_alice", "payment_method": "pm_visa", "status": "succeeded", "latest_charge": "ch_paid"},
    {"id": "pi_open", "amount": 1200, "currency": "usd", "customer": "cus_alice"}
  ],
  "refunds": [{"id": "re_old", "payment_intent": "pi_paid", "amount": 500}]
}`

func TestChecks(t *testing.T) {
	seed := world(t, checkSeed)
	final := world(t, checkSeed)
	must(t, final, "create_refund", `{"payment_intent":"pi_paid","amount":1500}`)
	must(t, final, "confirm_payment_intent", `{"payment_intent":"pi_open","payment_method":"pm_visa","return_url":"https://x.example"}`)
	unchanged := world(t, checkSeed)

	cases := []struct {
		id          string
		args        map[string]string
		final, seed bool // want on final, want when final == seed
	}{
		{"stripe.payment-intent-has-amount", map[string]string{"payment_intent": "pi_paid", "amount": "5000", "currency": "usd"}, true, true},
		{"stripe.payment-intent-has-amount", map[string]string{"payment_intent": "pi_paid", "amount": "4000", "currency": "usd"}, false, false},
		{"stripe.payment-intent-has-amount", map[string]string{"payment_intent": "pi_nope", "amount": "5000", "currency": "usd"}, false, false},
		{"stripe.payment-intent-has-status", map[string]string{"payment_intent": "pi_open", "status": "succeeded"}, true, false},
		{"stripe.payment-intent-has-status", map[string]string{"payment_intent": "pi_open", "status": "requires_payment_method"}, false, true},
		{"stripe.payment-intent-of-amount-exists", map[string]string{"amount": "1200", "currency": "usd", "status": "succeeded"}, true, false},
		{"stripe.payment-intent-of-amount-exists", map[string]string{"amount": "5000", "currency": "usd", "status": "succeeded"}, true, true},
		{"stripe.charge-of-amount-exists", map[string]string{"amount": "1200", "currency": "usd", "status": "succeeded"}, true, false},
		{"stripe.charge-of-amount-exists", map[string]string{"amount": "1200", "currency": "usd", "status": "failed"}, false, false},
		{"stripe.new-event-emitted", map[string]string{"event_type": "refund.created"}, true, false},
		{"stripe.new-event-emitted", map[string]string{"event_type": "payment_intent.succeeded"}, true, false},
		{"stripe.new-event-emitted", map[string]string{"event_type": "customer.deleted"}, false, false},
		{"stripe.refund-of-amount-exists", map[string]string{"amount": "1500", "payment_intent": "pi_paid"}, true, false},
		{"stripe.refund-of-amount-exists", map[string]string{"amount": "500", "payment_intent": "pi_paid"}, true, true},
		{"stripe.refund-of-amount-exists", map[string]string{"amount": "999", "payment_intent": "pi_paid"}, false, false},
		{"stripe.payment-intent-refund-count", map[string]string{"payment_intent": "pi_paid", "count": "2"}, true, false},
		{"stripe.payment-intent-refund-count", map[string]string{"payment_intent": "pi_paid", "count": "1"}, false, true},
		{"stripe.payment-intent-refund-count", map[string]string{"payment_intent": "pi_open", "count": "0"}, true, true},
		{"stripe.no-new-refund-on-charge", map[string]string{"charge": "ch_paid"}, false, true},
		{"stripe.no-new-charges", nil, false, true},
		{"stripe.no-new-payment-intents", nil, true, true},
		{"stripe.no-new-refunds", nil, false, true},
		{"stripe.no-new-customers", nil, true, true},
		{"stripe.customer-exists", map[string]string{"email": "alice@example.com"}, true, true},
		{"stripe.customer-exists", map[string]string{"email": "bob@example.com"}, false, false},
	}
	for _, c := range cases {
		if c.args == nil {
			c.args = map[string]string{}
		}
		if got := evalCheck(t, c.id, seed, final, nil, c.args); got.Passed != c.final {
			t.Errorf("%s %v on final: passed=%v (%s)", c.id, c.args, got.Passed, got.Reason)
		} else if got.Passed && len(got.Evidence.StatePaths) == 0 {
			t.Errorf("%s: no evidence", c.id)
		}
		if got := evalCheck(t, c.id, seed, unchanged, nil, c.args); got.Passed != c.seed {
			t.Errorf("%s %v on the seed: passed=%v (%s)", c.id, c.args, got.Passed, got.Reason)
		}
	}
}

func TestEvidencePointsIntoTheState(t *testing.T) {
	seed := world(t, checkSeed)
	final := world(t, checkSeed)
	must(t, final, "create_refund", `{"payment_intent":"pi_paid","amount":1500}`)
	res := evalCheck(t, "stripe.refund-of-amount-exists", seed, final, nil, map[string]string{"amount": "1500", "payment_intent": "pi_paid"})
	var doc map[string]any
	b, _ := json.Marshal(final)
	_ = json.Unmarshal(b, &doc)
	for _, p := range res.Evidence.StatePaths {
		if p != "/refunds/1" {
			t.Errorf("path %s", p)
		}
		if doc["refunds"].([]any)[1].(map[string]any)["amount"] != float64(1500) {
			t.Errorf("pointer %s does not reach the refund", p)
		}
	}
}

func TestRequestRejectedCheck(t *testing.T) {
	tool := "create_payment_intent"
	rows := []tape.Row{
		{Seq: 1, Transport: tape.TransportREST, Status: 200, Tool: &tool, Response: tape.Response{Body: json.RawMessage(`{"id":"pi_1","status":"succeeded"}`)}},
		{Seq: 2, Transport: tape.TransportREST, Status: 402, Tool: &tool, Response: tape.Response{Body: json.RawMessage(`{"error":{"type":"card_error","code":"card_declined","decline_code":"insufficient_funds"}}`)}},
		{Seq: 3, Transport: tape.TransportMCP, Status: 200, Tool: &tool, Response: tape.Response{Body: json.RawMessage(`{"result":{"isError":true,"content":[{"type":"text","text":"{\"error\":{\"code\":\"resource_missing\"}}"}]}}`)}},
	}
	for code, want := range map[string]bool{"card_declined": true, "insufficient_funds": true, "card_error": true, "resource_missing": true, "amount_too_large": false} {
		res := evalCheck(t, "stripe.request-rejected-with-code", nil, nil, rows, map[string]string{"code": code})
		if res.Passed != want {
			t.Errorf("%s: passed=%v", code, res.Passed)
		}
		if want && len(res.Evidence.TapeSeqs) != 1 {
			t.Errorf("%s: seqs %v", code, res.Evidence.TapeSeqs)
		}
	}
}
