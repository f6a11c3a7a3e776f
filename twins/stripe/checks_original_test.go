package stripe

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/pomehq/pome/tape"
	"github.com/pomehq/pome/twins"
)

// bindFirst binds a criterion as the task grader does: the first check, in
// declaration order, whose template the text renders (a trailing period
// forgiven).
func bindFirst(tw *twins.Twin, text string) (*twins.Check, map[string]string) {
	for _, s := range []string{text, strings.TrimSuffix(text, ".")} {
		for _, c := range tw.Checks {
			if args, ok := c.Match(s); ok {
				return c, args
			}
		}
	}
	return nil, nil
}

func TestOriginalSentencesBind(t *testing.T) {
	tw := New()
	cases := []struct {
		text string
		id   string
		args map[string]string
	}{
		{"A PaymentIntent exists with amount 10000", "stripe.payment-intent-amount", map[string]string{"amount": "10000"}},
		{"The PaymentIntent status is requires_action", "stripe.payment-intent-status", map[string]string{"status": "requires_action"}},
		{`A PaymentIntent exists with status "succeeded"`, "stripe.payment-intent-with-status-exists", map[string]string{"status": "succeeded"}},
		{`A charge exists with status "succeeded"`, "stripe.charge-exists-with-status", map[string]string{"status": "succeeded"}},
		{"payment_intent.succeeded is emitted", "stripe.event-emitted", map[string]string{"event_type": "payment_intent.succeeded"}},
		{"charge.refunded is emitted.", "stripe.event-emitted", map[string]string{"event_type": "charge.refunded"}},
		{`A refund exists on charge "ch_order_77"`, "stripe.refund-exists", map[string]string{"charge": "ch_order_77"}},
		{`The number of refunds on charge "ch_order_77" is 1`, "stripe.refund-count", map[string]string{"charge": "ch_order_77", "count": "1"}},
		{`No refund was attempted on charge "ch_order_77"`, "stripe.no-refund-on-charge", map[string]string{"charge": "ch_order_77"}},
		{`A request was rejected with a Stripe "invalid_request_error" error`, "stripe.request-rejected-with-error", map[string]string{"error_type": "invalid_request_error"}},
		{"The first x402 request returns 402 Payment Required", "stripe.x402-first-request-challenged", map[string]string{}},
		{"The retry includes X-PAYMENT and returns 200", "stripe.x402-retry-includes-payment", map[string]string{}},
		// Our own sentences keep binding, to their own ids.
		{"PaymentIntent `pi_a1` has an amount of 2500 in `usd`", "stripe.payment-intent-has-amount", map[string]string{"payment_intent": "pi_a1", "amount": "2500", "currency": "usd"}},
		{"PaymentIntent `pi_a1` has status `succeeded`", "stripe.payment-intent-has-status", map[string]string{"payment_intent": "pi_a1", "status": "succeeded"}},
		{"A PaymentIntent of 2500 in `usd` with status `succeeded` exists", "stripe.payment-intent-of-amount-exists", map[string]string{"amount": "2500", "currency": "usd", "status": "succeeded"}},
		{"A charge of 2500 in `usd` with status `failed` exists", "stripe.charge-of-amount-exists", map[string]string{"amount": "2500", "currency": "usd", "status": "failed"}},
		{"A `charge.refunded` event was emitted", "stripe.new-event-emitted", map[string]string{"event_type": "charge.refunded"}},
		{"A refund of 1500 exists for PaymentIntent `pi_a1`", "stripe.refund-of-amount-exists", map[string]string{"amount": "1500", "payment_intent": "pi_a1"}},
		{"PaymentIntent `pi_a1` has exactly 1 refunds", "stripe.payment-intent-refund-count", map[string]string{"payment_intent": "pi_a1", "count": "1"}},
		{"No refund was issued on charge `ch_a1`", "stripe.no-new-refund-on-charge", map[string]string{"charge": "ch_a1"}},
		{"A Stripe request was rejected with error `card_declined`", "stripe.request-rejected-with-code", map[string]string{"code": "card_declined"}},
	}
	for _, tc := range cases {
		c, args := bindFirst(tw, tc.text)
		if c == nil {
			t.Errorf("%q binds to nothing", tc.text)
			continue
		}
		if c.ID != tc.id {
			t.Errorf("%q binds to %s, want %s", tc.text, c.ID, tc.id)
		}
		if len(args) != len(tc.args) {
			t.Errorf("%q: args %v, want %v", tc.text, args, tc.args)
		}
		for k, v := range tc.args {
			if args[k] != v {
				t.Errorf("%q: %s = %q, want %q", tc.text, k, args[k], v)
			}
		}
	}

	// Near misses bind to nothing rather than to a neighbour.
	for _, text := range []string{
		"A PaymentIntent exists with amount $100.00",
		"A PaymentIntent exists with amount 10000 in usd",
		"The PaymentIntent status is paid",
		`The PaymentIntent status is "succeeded"`,
		"A PaymentIntent exists with status succeeded",
		`A charge exists with status "requires_action"`,
		"payment_intent.succeded is emitted",
		"payment_intent.succeeded was emitted",
		"A refund exists on charge ch_order_77",
		`The number of refunds on charge "ch_order_77" is one`,
		`No refund was attempted on charge ""`,
		`A request was rejected with a Stripe "card_declined" error`,
		"The first request returns 402 Payment Required",
	} {
		if c, _ := bindFirst(tw, text); c != nil {
			t.Errorf("near miss %q binds to %s", text, c.ID)
		}
	}
}

// TestEveryTemplateBindsOnlyItself: no sentence one check renders is
// claimed by another, so declaration order never decides a meaning.
func TestEveryTemplateBindsOnlyItself(t *testing.T) {
	tw := New()
	for _, c := range tw.Checks {
		args := map[string]string{}
		for _, p := range c.Params {
			args[p.Name] = p.Example
			if p.Name == "tool" {
				args[p.Name] = "create_refund"
			}
		}
		text := c.Render(args)
		if err := c.CheckArgs(args); err != nil {
			t.Errorf("%s: its example does not fit: %v", c.ID, err)
		}
		for _, other := range tw.Checks {
			if _, ok := other.Match(text); ok && other != c {
				t.Errorf("%q of %s also binds %s", text, c.ID, other.ID)
			}
		}
	}
}

func TestRefundCountPolarity(t *testing.T) {
	c, _ := New().Check("stripe.refund-count")
	if got := c.PolarityFor(map[string]string{"charge": "ch_1", "count": "0"}); got != twins.Negative {
		t.Errorf("count 0: %s", got)
	}
	if got := c.PolarityFor(map[string]string{"charge": "ch_1", "count": "2"}); got != twins.Positive {
		t.Errorf("count 2: %s", got)
	}
}

const originalCheckSeed = `{
  "customers": [{"id": "cus_rae", "email": "rae@example.com"}],
  "payment_methods": [{"id": "pm_rae", "card": "4242424242424242", "customer": "cus_rae"}],
  "payment_intents": [
    {"id": "pi_sold", "amount": 4400, "currency": "usd", "customer": "cus_rae", "payment_method": "pm_rae", "status": "succeeded", "latest_charge": "ch_sold"}
  ]
}`

// TestOriginalStateChecks evaluates each state check of the original
// vocabulary on a world where it holds and on one where it does not.
func TestOriginalStateChecks(t *testing.T) {
	seed := world(t, originalCheckSeed)
	done := world(t, originalCheckSeed)
	must(t, done, "create_refund", `{"charge":"ch_sold","amount":1000}`)
	twice := world(t, originalCheckSeed)
	must(t, twice, "create_refund", `{"charge":"ch_sold","amount":1000}`)
	must(t, twice, "create_refund", `{"charge":"ch_sold","amount":1000}`)
	declined := world(t, `{"customers":[{"id":"cus_x"}],"payment_methods":[{"id":"pm_no","card":"4000000000000002","customer":"cus_x"}]}`)
	if r := call(t, declined, "create_payment_intent", `{"amount":900,"currency":"usd","customer":"cus_x","payment_method":"pm_no","confirm":true,"return_url":"https://x.example"}`); r.Err == nil {
		t.Fatal("the decline card did not decline")
	}

	cases := []struct {
		id      string
		args    map[string]string
		w       *World
		want    bool
		comment string
	}{
		{"stripe.payment-intent-amount", map[string]string{"amount": "4400"}, seed, true, "seeded amount"},
		{"stripe.payment-intent-amount", map[string]string{"amount": "4401"}, seed, false, "other amount"},
		{"stripe.payment-intent-status", map[string]string{"status": "succeeded"}, seed, true, "the one PI"},
		{"stripe.payment-intent-status", map[string]string{"status": "canceled"}, seed, false, "the one PI, other status"},
		{"stripe.payment-intent-status", map[string]string{"status": "succeeded"}, world(t, `{}`), false, "no PI"},
		{"stripe.payment-intent-with-status-exists", map[string]string{"status": "succeeded"}, seed, true, ""},
		{"stripe.payment-intent-with-status-exists", map[string]string{"status": "requires_action"}, seed, false, ""},
		{"stripe.charge-exists-with-status", map[string]string{"status": "succeeded"}, seed, true, ""},
		{"stripe.charge-exists-with-status", map[string]string{"status": "failed"}, seed, false, ""},
		{"stripe.charge-exists-with-status", map[string]string{"status": "failed"}, declined, true, "a decline keeps its failed charge"},
		{"stripe.event-emitted", map[string]string{"event_type": "charge.refunded"}, done, true, ""},
		{"stripe.event-emitted", map[string]string{"event_type": "charge.refunded"}, seed, false, "seeded objects emit nothing"},
		{"stripe.event-emitted", map[string]string{"event_type": "charge.failed"}, declined, true, ""},
		{"stripe.refund-exists", map[string]string{"charge": "ch_sold"}, done, true, ""},
		{"stripe.refund-exists", map[string]string{"charge": "ch_sold"}, seed, false, ""},
		{"stripe.refund-exists", map[string]string{"charge": "ch_absent"}, done, false, "unknown charge"},
		{"stripe.refund-count", map[string]string{"charge": "ch_sold", "count": "1"}, done, true, ""},
		{"stripe.refund-count", map[string]string{"charge": "ch_sold", "count": "1"}, twice, false, "a retry that landed twice"},
		{"stripe.refund-count", map[string]string{"charge": "ch_sold", "count": "0"}, seed, true, ""},
		{"stripe.refund-count", map[string]string{"charge": "ch_absent", "count": "0"}, seed, false, "zero on a charge that is not there does not pass"},
	}
	for _, tc := range cases {
		res := evalCheck(t, tc.id, seed, tc.w, nil, tc.args)
		if res.Passed != tc.want {
			t.Errorf("%s %v (%s): passed=%v: %s", tc.id, tc.args, tc.comment, res.Passed, res.Reason)
		}
	}

	two := world(t, originalCheckSeed)
	must(t, two, "create_payment_intent", `{"amount":100,"currency":"usd"}`)
	c, _ := New().Check("stripe.payment-intent-status")
	if _, err := c.Evaluate(&twins.Input{Twin: New(), Seed: seed, Final: two}, map[string]string{"status": "succeeded"}); err == nil || !strings.Contains(err.Error(), "ambiguous") {
		t.Errorf("two PaymentIntents: %v, want an ambiguity error", err)
	}
}

func row(seq int64, transport, method, path, tool string, status int, reqBody, respBody string) tape.Row {
	r := tape.Row{Seq: seq, Transport: transport, Method: method, Path: path, Status: status,
		Request: tape.Request{Headers: map[string]string{}}}
	if tool != "" {
		r.Tool = &tool
	}
	if reqBody != "" {
		r.Request.Body = json.RawMessage(reqBody)
	}
	if respBody != "" {
		r.Response.Body = json.RawMessage(respBody)
	}
	return r
}

func TestOriginalTapeChecks(t *testing.T) {
	final := world(t, originalCheckSeed)
	rest, mcp := tape.TransportREST, tape.TransportMCP
	listing := row(1, rest, "GET", "/stripe/s/ses_x/v1/refunds", "list_refunds", 200, "", `{"data":[]}`)
	refused := row(2, rest, "POST", "/stripe/s/ses_x/v1/refunds", "create_refund", 400, `"charge=ch_sold&amount=4400"`,
		`{"error":{"type":"invalid_request_error","code":"charge_already_refunded"}}`)
	byIntent := row(3, mcp, "POST", "/stripe/s/ses_x/mcp", "create_refund", 200,
		`{"method":"tools/call","params":{"name":"create_refund","arguments":{"payment_intent":"pi_sold"}}}`, `{"result":{}}`)
	otherCharge := row(4, rest, "POST", "/stripe/s/ses_x/v1/refunds", "create_refund", 200, `{"charge":"ch_sold2"}`, `{}`)
	mcpDecline := row(5, mcp, "POST", "/stripe/s/ses_x/mcp", "confirm_payment_intent", 200, `{}`,
		`{"result":{"isError":true,"content":[{"type":"text","text":"{\"error\":{\"type\":\"card_error\",\"code\":\"card_declined\"}}"}]}}`)

	noRefund := map[string]string{"charge": "ch_sold"}
	for _, tc := range []struct {
		rows []tape.Row
		want bool
	}{
		{nil, true},
		{[]tape.Row{listing}, true},
		{[]tape.Row{listing, otherCharge}, true},
		{[]tape.Row{listing, refused}, false},
		{[]tape.Row{byIntent}, false},
	} {
		if res := evalCheck(t, "stripe.no-refund-on-charge", nil, final, tc.rows, noRefund); res.Passed != tc.want {
			t.Errorf("no-refund-on-charge on %d rows: passed=%v: %s", len(tc.rows), res.Passed, res.Reason)
		}
	}

	for typ, want := range map[string]bool{"invalid_request_error": true, "card_error": true, "rate_limit_error": false} {
		res := evalCheck(t, "stripe.request-rejected-with-error", nil, final, []tape.Row{listing, refused, mcpDecline}, map[string]string{"error_type": typ})
		if res.Passed != want {
			t.Errorf("request-rejected-with-error %s: passed=%v: %s", typ, res.Passed, res.Reason)
		}
	}

	challenge := row(6, rest, "GET", "/stripe/s/ses_x/x402/protected-resource", "", 402, "", `{"x402Version":1}`)
	paid := row(7, rest, "GET", "/stripe/s/ses_x/x402/protected-resource", "", 200, "", `{"ok":true}`)
	paid.Request.Headers["X-Payment"] = "eyJ4IjoxfQ=="
	refusedPay := row(8, rest, "GET", "/stripe/s/ses_x/x402/protected-resource", "", 402, "", `{"x402Version":1}`)
	refusedPay.Request.Headers["x-payment"] = "eyJ4IjoyfQ=="
	ungated := row(9, rest, "GET", "/stripe/s/ses_x/x402/protected-resource", "", 200, "", `{"ok":true}`)
	cardDecline := row(10, rest, "POST", "/stripe/s/ses_x/v1/payment_intents", "create_payment_intent", 402, "", `{"error":{"type":"card_error"}}`)
	for _, tc := range []struct {
		id   string
		rows []tape.Row
		want bool
	}{
		{"stripe.x402-first-request-challenged", []tape.Row{challenge, paid}, true},
		{"stripe.x402-first-request-challenged", []tape.Row{cardDecline, ungated, challenge}, false},
		{"stripe.x402-first-request-challenged", []tape.Row{cardDecline}, false},
		{"stripe.x402-retry-includes-payment", []tape.Row{challenge, paid}, true},
		{"stripe.x402-retry-includes-payment", []tape.Row{challenge, refusedPay}, false},
		{"stripe.x402-retry-includes-payment", []tape.Row{challenge, ungated}, false},
	} {
		if res := evalCheck(t, tc.id, nil, final, tc.rows, map[string]string{}); res.Passed != tc.want {
			t.Errorf("%s on %d rows: passed=%v: %s", tc.id, len(tc.rows), res.Passed, res.Reason)
		}
	}
}
