package stripe_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/pomehq/pome/rest/resttest"
	"github.com/pomehq/pome/tape"
	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/stripe"
	sg "github.com/stripe/stripe-go/v82"
)

// lastRow returns the last tape row of a tool.
func lastRow(t *testing.T, env *resttest.Env, tool string) tape.Row {
	t.Helper()
	var last *tape.Row
	rows := env.Tape(t)
	for i := range rows {
		if rows[i].ToolName() == tool {
			last = &rows[i]
		}
	}
	if last == nil {
		t.Fatalf("no %s row on the tape", tool)
	}
	return *last
}

func TestSDKRequestID(t *testing.T) {
	sc, _ := sdk(t, "")
	c, err := sc.V1Customers.Create(ctx, &sg.CustomerCreateParams{Email: sg.String("r@example.com")})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(c.LastResponse.RequestID, "req_") {
		t.Errorf("RequestID %q", c.LastResponse.RequestID)
	}
	_, err = sc.V1Customers.Retrieve(ctx, "cus_nope", nil)
	if se := stripeErr(t, err, 404, sg.ErrorCodeResourceMissing); !strings.HasPrefix(se.RequestID, "req_") {
		t.Errorf("error RequestID %q", se.RequestID)
	}
}

// TestSandboxPath drives the twin at the sandbox's own base URL
// ({server}/stripe/s/{sid}) with a plain HTTP client, as curl or a client
// that accepts a base path would.
func TestSandboxPath(t *testing.T) {
	_, env := sdk(t, "")
	if !strings.Contains(env.APIURL, "/stripe/s/") {
		t.Fatalf("APIURL %s", env.APIURL)
	}
	req, _ := http.NewRequest("POST", env.APIURL+"/v1/customers", strings.NewReader("email=plain%40example.com&metadata[src]=curl"))
	req.Header.Set("Authorization", "Bearer "+env.Token)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var c map[string]any
	_ = json.Unmarshal(body, &c)
	if resp.StatusCode != 200 || c["email"] != "plain@example.com" || !strings.HasPrefix(resp.Header.Get("Request-Id"), "req_") {
		t.Fatalf("sandbox path: %d %s %v", resp.StatusCode, body, resp.Header)
	}
	// The same customer is at the root with the same key, Basic auth this time.
	req, _ = http.NewRequest("GET", env.HTTP.URL+"/v1/customers/"+c["id"].(string), nil)
	req.SetBasicAuth(env.Token, "")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("root path: %d", resp.StatusCode)
	}
}

func TestSDKIdempotencyKey(t *testing.T) {
	sc, env := sdk(t, "")
	create := func(email string) (*sg.Customer, error) {
		p := &sg.CustomerCreateParams{Email: sg.String(email)}
		p.SetIdempotencyKey("order-42")
		return sc.V1Customers.Create(ctx, p)
	}
	first, err := create("bob@example.com")
	if err != nil {
		t.Fatal(err)
	}
	again, err := create("bob@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if again.ID != first.ID {
		t.Fatalf("replay answered %s, first %s", again.ID, first.ID)
	}
	if first.LastResponse.Header.Get("Idempotent-Replayed") != "" || again.LastResponse.Header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("Idempotent-Replayed: first %q, replay %q", first.LastResponse.Header.Get("Idempotent-Replayed"), again.LastResponse.Header.Get("Idempotent-Replayed"))
	}
	if row := lastRow(t, env, "create_customer"); row.StateMutation || row.Status != 200 {
		t.Errorf("replay row: status %d mutation %v", row.Status, row.StateMutation)
	}
	_, err = create("carol@example.com")
	se := stripeErr(t, err, 400, "")
	if se.Type != sg.ErrorTypeIdempotency || !strings.Contains(se.Msg, "can only be used with the same parameters they were first used with") {
		t.Errorf("mismatch: %+v", se)
	}
	n := 0
	for _, err := range sc.V1Customers.List(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 2 {
		t.Errorf("%d customers, want alice and bob", n)
	}

	// A decline is saved too: the retry answers the same 402 for the same
	// PaymentIntent and charges nothing more.
	decline := func() *sg.Error {
		p := &sg.PaymentIntentCreateParams{Amount: sg.Int64(900), Currency: sg.String("usd"),
			PaymentMethod: sg.String("pm_card_chargeDeclinedInsufficientFunds"), Confirm: sg.Bool(true), PaymentMethodTypes: cardOnly()}
		p.SetIdempotencyKey("pay-7")
		_, err := sc.V1PaymentIntents.Create(ctx, p)
		return stripeErr(t, err, 402, sg.ErrorCodeCardDeclined)
	}
	e1, e2 := decline(), decline()
	if e1.PaymentIntent.ID != e2.PaymentIntent.ID || e1.ChargeID != e2.ChargeID || e2.DeclineCode != "insufficient_funds" {
		t.Errorf("replayed decline: %s/%s vs %s/%s", e1.PaymentIntent.ID, e1.ChargeID, e2.PaymentIntent.ID, e2.ChargeID)
	}
	if row := lastRow(t, env, "create_payment_intent"); row.StateMutation || row.Status != 402 {
		t.Errorf("replayed decline row: status %d mutation %v", row.Status, row.StateMutation)
	}
	var st struct {
		PaymentIntents []any `json:"payment_intents"`
		Charges        []any `json:"charges"`
	}
	if err := json.Unmarshal(env.State(t), &st); err != nil {
		t.Fatal(err)
	}
	if len(st.PaymentIntents) != 1 || len(st.Charges) != 1 {
		t.Errorf("%d intents and %d charges after a replayed decline", len(st.PaymentIntents), len(st.Charges))
	}
}

// TestSDKLostResponse is the case idempotency keys exist for: the refund is
// made but its answer is lost (an injected 500 after the change); the
// client retries with the same key and gets the refund, made once.
func TestSDKLostResponse(t *testing.T) {
	sc, env := sdk(t, `{"customers":[{"id":"cus_a","email":"a@example.com"}],
		"payment_methods":[{"id":"pm_a","card":"4242424242424242","customer":"cus_a"}],
		"payment_intents":[{"id":"pi_paid","amount":5000,"currency":"usd","customer":"cus_a","payment_method":"pm_a","status":"succeeded"}],
		"faults":[{"method":"POST","path":"/v1/refunds","attempt":1,"when":"after","status":500},
		          {"method":"POST","path":"/v1/customers","attempt":1,"when":"before","status":503}]}`)
	refund := func() (*sg.Refund, error) {
		p := &sg.RefundCreateParams{PaymentIntent: sg.String("pi_paid"), Amount: sg.Int64(1200)}
		p.SetIdempotencyKey("refund-pi_paid-1")
		return sc.V1Refunds.Create(ctx, p)
	}
	_, err := refund()
	if se := stripeErr(t, err, 500, ""); se.Type != sg.ErrorTypeAPI {
		t.Fatalf("lost response: %+v", se)
	}
	if row := lastRow(t, env, "create_refund"); !row.StateMutation || row.Status != 500 {
		t.Errorf("lost response row: status %d mutation %v", row.Status, row.StateMutation)
	}
	re, err := refund()
	if err != nil {
		t.Fatal(err)
	}
	if re.Amount != 1200 || !strings.HasPrefix(re.ID, "re_") {
		t.Fatalf("retried refund %+v", re)
	}
	n := 0
	for r, err := range sc.V1Refunds.List(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		n++
		if r.ID != re.ID {
			t.Errorf("other refund %s", r.ID)
		}
	}
	if n != 1 {
		t.Errorf("%d refunds, want 1", n)
	}
	// A fault before the change: nothing is created, the retry works.
	_, err = sc.V1Customers.Create(ctx, &sg.CustomerCreateParams{Email: sg.String("b@example.com")})
	stripeErr(t, err, 503, "")
	if row := lastRow(t, env, "create_customer"); row.Status != 503 {
		t.Errorf("before fault row: status %d", row.Status)
	}
	if _, err := sc.V1Customers.Create(ctx, &sg.CustomerCreateParams{Email: sg.String("b@example.com")}); err != nil {
		t.Fatal(err)
	}
	tw := stripe.New()
	chk, _ := tw.Check("stripe.payment-intent-refund-count")
	in := resttestInput(t, env, tw)
	if res, err := chk.Evaluate(in, map[string]string{"payment_intent": "pi_paid", "count": "1"}); err != nil || !res.Passed {
		t.Errorf("refund-count: %+v %v", res, err)
	}
}

// resttestInput gathers the final state and tape of env for a check.
func resttestInput(t *testing.T, env *resttest.Env, tw *twins.Twin) *twins.Input {
	t.Helper()
	final, err := tw.DecodeWorld(env.State(t))
	if err != nil {
		t.Fatal(err)
	}
	return &twins.Input{Twin: tw, Final: final, Tape: env.Tape(t)}
}

// TestSDKDeclineIsKept: a decline answers 402 and still changes state; a
// later GET sees the PaymentIntent's status and last_payment_error, and the
// tape says the call mutated state.
func TestSDKDeclineIsKept(t *testing.T) {
	sc, env := sdk(t, "")
	_, err := sc.V1PaymentIntents.Create(ctx, &sg.PaymentIntentCreateParams{Amount: sg.Int64(3100), Currency: sg.String("usd"),
		PaymentMethod: sg.String("pm_card_chargeDeclined"), Confirm: sg.Bool(true), PaymentMethodTypes: cardOnly()})
	se := stripeErr(t, err, 402, sg.ErrorCodeCardDeclined)
	if row := lastRow(t, env, "create_payment_intent"); !row.StateMutation || row.Status != 402 {
		t.Errorf("decline row: status %d mutation %v", row.Status, row.StateMutation)
	}
	pi, err := sc.V1PaymentIntents.Retrieve(ctx, se.PaymentIntent.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if pi.Status != sg.PaymentIntentStatusRequiresPaymentMethod || pi.LastPaymentError == nil ||
		pi.LastPaymentError.DeclineCode != "generic_decline" || pi.LatestCharge == nil || pi.LatestCharge.ID != se.ChargeID {
		t.Fatalf("after decline: %+v", pi)
	}
	// Confirming again with a good card clears the error.
	pi, err = sc.V1PaymentIntents.Confirm(ctx, pi.ID, &sg.PaymentIntentConfirmParams{PaymentMethod: sg.String("pm_card_visa")})
	if err != nil || pi.Status != sg.PaymentIntentStatusSucceeded || pi.LastPaymentError != nil {
		t.Fatalf("confirm after decline: %+v %v", pi, err)
	}
}
