package stripe

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/twinstest"
)

// account is a world kept the way the Redis store keeps it: as JSON,
// replaced only by calls the framework reports as mutations. Running the
// protocol tests on it proves that saved outcomes and fault counters
// survive the round trip, and that nothing relies on in-place changes.
type account struct {
	t   *testing.T
	doc []byte
	at  time.Time
}

func newAccount(t *testing.T, seed string) *account {
	t.Helper()
	doc, err := json.Marshal(world(t, seed))
	if err != nil {
		t.Fatal(err)
	}
	return &account{t: t, doc: doc, at: time.Unix(1750000000, 0)}
}

// call runs an action over REST with an optional Idempotency-Key.
func (a *account) call(name, key, args string) twinstest.Result {
	a.t.Helper()
	tw := New()
	act, ok := tw.Action(name)
	if !ok {
		a.t.Fatalf("no action %s", name)
	}
	w, err := tw.DecodeWorld(a.doc)
	if err != nil {
		a.t.Fatal(err)
	}
	env := twinstest.Env(tw.Name)
	at := a.at
	env.Now = func() time.Time { return at }
	ctx, call := twins.WithCall(twins.WithEnv(context.Background(), env))
	ctx = twins.WithTransport(ctx, twins.TransportREST)
	if key != "" {
		ctx = twins.WithHeaders(ctx, map[string][]string{"Idempotency-Key": {key}})
	}
	in, err := act.Decode(json.RawMessage(args))
	if err != nil {
		return twinstest.Result{Err: twins.AsError(err)}
	}
	out, runErr := act.Run(ctx, w, in)
	if call.Mutated() {
		if a.doc, err = json.Marshal(w); err != nil {
			a.t.Fatal(err)
		}
	}
	return twinstest.Result{Out: out, Err: twins.AsError(runErr), Mutated: call.Mutated()}
}

func (a *account) world() *World {
	a.t.Helper()
	w := new(World)
	if err := json.Unmarshal(a.doc, w); err != nil {
		a.t.Fatal(err)
	}
	return w
}

func outJSON(t *testing.T, r twinstest.Result) string {
	t.Helper()
	if r.Err != nil {
		t.Fatalf("unexpected error %v", r.Err)
	}
	b, err := json.Marshal(r.Out)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestIdempotentReplay(t *testing.T) {
	a := newAccount(t, "")
	first := a.call("create_customer", "k1", `{"email":"bob@example.com","metadata":{"a":"1"}}`)
	if !first.Mutated {
		t.Fatal("the first request must change state")
	}
	again := a.call("create_customer", "k1", `{"metadata":{"a":"1"},"email":"bob@example.com"}`)
	if again.Mutated {
		t.Error("a replay must not change state")
	}
	if outJSON(t, first) != outJSON(t, again) {
		t.Errorf("replay differs:\n%s\n%s", outJSON(t, first), outJSON(t, again))
	}
	if n := len(a.world().Customers); n != 2 {
		t.Errorf("%d customers, want alice and one bob", n)
	}
	// The same key with other parameters is refused, and changes nothing.
	before := string(a.doc)
	r := a.call("create_customer", "k1", `{"email":"carol@example.com"}`)
	if r.Err == nil || r.Err.Details["type"] != typeIdempotency || r.Mutated ||
		!strings.Contains(r.Err.Message, "Keys for idempotent requests can only be used with the same parameters they were first used with.") {
		t.Fatalf("mismatch: %+v", r.Err)
	}
	status, body := restError(r.Err)
	if b, _ := json.Marshal(body); status != 400 || !strings.Contains(string(b), `"type":"idempotency_error"`) {
		t.Errorf("mismatch renders %d %s", status, b)
	}
	// Another endpoint with the same key is other parameters too.
	if r := a.call("create_product", "k1", `{"name":"T-shirt"}`); r.Err == nil || r.Err.Details["type"] != typeIdempotency {
		t.Errorf("other endpoint: %+v", r.Err)
	}
	if string(a.doc) != before {
		t.Error("refusals changed the world")
	}
	// Without a key the request runs again.
	a.call("create_customer", "", `{"email":"bob@example.com","metadata":{"a":"1"}}`)
	if n := len(a.world().Customers); n != 3 {
		t.Errorf("%d customers", n)
	}
	// After 24 hours of sandbox clock the key is forgotten.
	a.at = a.at.Add(24*time.Hour - time.Second)
	if r := a.call("create_customer", "k1", `{"email":"bob@example.com","metadata":{"a":"1"}}`); r.Mutated {
		t.Error("a key is kept for 24 hours")
	}
	a.at = a.at.Add(time.Second)
	if r := a.call("create_customer", "k1", `{"email":"carol@example.com"}`); r.Err != nil || !r.Mutated {
		t.Errorf("expired key: %+v", r.Err)
	}
	if recs := a.world().Idempotency; len(recs) != 1 || recs[0].Key != "k1" {
		t.Errorf("expired records are dropped: %+v", recs)
	}
}

func TestIdempotentErrors(t *testing.T) {
	a := newAccount(t, "")
	args := `{"amount":1500,"currency":"usd","payment_method":"pm_card_chargeDeclined","confirm":true,"payment_method_types":["card"]}`
	first := a.call("create_payment_intent", "decline-1", args)
	if first.Err == nil || first.Err.Code != twins.PaymentFailed || !first.Mutated {
		t.Fatalf("decline: %+v mutated=%v", first.Err, first.Mutated)
	}
	w := a.world()
	if len(w.PaymentIntents) != 1 || w.PaymentIntents[0].LastPaymentError == nil || len(w.Charges) != 1 {
		t.Fatalf("the decline was not kept: %d intents, %d charges", len(w.PaymentIntents), len(w.Charges))
	}
	again := a.call("create_payment_intent", "decline-1", args)
	if again.Err == nil || again.Mutated {
		t.Fatalf("replayed decline: %+v mutated=%v", again.Err, again.Mutated)
	}
	s1, b1 := restError(first.Err)
	s2, b2 := restError(again.Err)
	j1, _ := json.Marshal(b1)
	j2, _ := json.Marshal(b2)
	if s1 != 402 || s2 != 402 || string(j1) != string(j2) {
		t.Errorf("replayed error differs:\n%d %s\n%d %s", s1, j1, s2, j2)
	}
	if again.Err.Error() != first.Err.Error() {
		t.Errorf("MCP text differs: %q vs %q", again.Err.Error(), first.Err.Error())
	}
	if w := a.world(); len(w.PaymentIntents) != 1 || len(w.Charges) != 1 {
		t.Error("the replay charged again")
	}
	// A request refused by validation saves nothing: fixed, it may be
	// retried with the same key.
	if r := a.call("create_customer", "fix-me", `{"email":"not-an-email"}`); r.Err == nil {
		t.Fatal("bad email accepted")
	}
	if r := a.call("create_customer", "fix-me", `{"email":"dan@example.com"}`); r.Err != nil || !r.Mutated {
		t.Errorf("retry after a validation error: %+v", r.Err)
	}
}

func TestFaults(t *testing.T) {
	a := newAccount(t, `{"customers":[{"id":"cus_a","email":"a@example.com"}],
		"payment_methods":[{"id":"pm_a","card":"4242424242424242","customer":"cus_a"}],
		"payment_intents":[{"id":"pi_paid","amount":5000,"currency":"usd","customer":"cus_a","payment_method":"pm_a","status":"succeeded"}],
		"faults":[
			{"method":"POST","path":"/v1/customers","attempt":1,"when":"before","status":503},
			{"method":"POST","path":"/v1/refunds","attempt":1,"when":"after","status":500,
			 "body":{"error":{"type":"api_error","message":"lost"}}},
			{"method":"POST","path":"/v1/payment_intents/*","attempt":2,"when":"before","status":429},
			{"method":"DELETE","path":"/v1/customers/cus_a","attempt":1,"when":"before","status":500}
		]}`)
	// before: nothing happens, the counter is kept, the next attempt works.
	r := a.call("create_customer", "", `{"email":"b@example.com"}`)
	if r.Err == nil || r.Err.Details[faultStatusKey] != 503 {
		t.Fatalf("before fault: %+v", r.Err)
	}
	st, body := restError(r.Err)
	if b, _ := json.Marshal(body); st != 503 || !strings.Contains(string(b), `"type":"api_error"`) {
		t.Errorf("default fault body: %d %s", st, b)
	}
	if n := len(a.world().Customers); n != 1 {
		t.Errorf("a before fault created a customer")
	}
	if r := a.call("create_customer", "", `{"email":"b@example.com"}`); r.Err != nil {
		t.Fatalf("second attempt: %v", r.Err)
	}

	// after: the refund is committed and the answer lost; the retry with the
	// same key gets the saved refund and refunds nothing more.
	r = a.call("create_refund", "refund-1", `{"payment_intent":"pi_paid","amount":1000}`)
	if r.Err == nil || r.Err.Message != "lost" || !r.Mutated {
		t.Fatalf("after fault: %+v", r.Err)
	}
	if st, body := restError(r.Err); st != 500 || string(body.(json.RawMessage)) != `{"error":{"type":"api_error","message":"lost"}}` {
		t.Errorf("seeded fault body: %d %s", st, body)
	}
	if w := a.world(); len(w.Refunds) != 1 || w.Charges[0].AmountRefunded != 1000 {
		t.Fatalf("after fault did not commit: %d refunds", len(w.Refunds))
	}
	retry := a.call("create_refund", "refund-1", `{"payment_intent":"pi_paid","amount":1000}`)
	if retry.Err != nil || retry.Mutated {
		t.Fatalf("retry: %+v mutated=%v", retry.Err, retry.Mutated)
	}
	if w := a.world(); len(w.Refunds) != 1 || outJSON(t, retry) == "" || retry.JSON(t)["id"] != w.Refunds[0].ID {
		t.Errorf("the retry refunded again or answered another refund")
	}

	// Refusals and no-op writes do not count as attempts: the capture of a
	// succeeded PaymentIntent is refused twice, then the second counted
	// attempt (an update) faults.
	for range 2 {
		if r := a.call("capture_payment_intent", "", `{"payment_intent":"pi_paid"}`); r.Err == nil || r.Err.Vendor != "payment_intent_unexpected_state" {
			t.Fatalf("capture: %+v", r.Err)
		}
	}
	if r := a.call("update_payment_intent", "", `{"payment_intent":"pi_paid","metadata":{"n":"1"}}`); r.Err != nil {
		t.Fatalf("first counted attempt: %v", r.Err)
	}
	if r := a.call("update_payment_intent", "", `{"payment_intent":"pi_paid","metadata":{"n":"2"}}`); r.Err == nil || r.Err.Code != twins.RateLimited {
		t.Fatalf("second counted attempt: %+v", r.Err)
	}
	if a.world().PaymentIntents[0].Metadata["n"] != "1" {
		t.Error("a before fault changed the PaymentIntent")
	}
	// DELETE routes fault too; the path is filled from the input.
	if r := a.call("delete_customer", "", `{"customer":"cus_a"}`); r.Err == nil || r.Err.Code != twins.Internal {
		t.Fatalf("delete fault: %+v", r.Err)
	}
	if a.world().customer("cus_a").Deleted {
		t.Error("a before fault deleted the customer")
	}
}

func TestBoundPath(t *testing.T) {
	args := map[string]any{"payment_intent": "pi_1", "amount": 5}
	for tmpl, want := range map[string]string{
		"/v1/payment_intents/{payment_intent}/confirm": "/v1/payment_intents/pi_1/confirm",
		"/v1/refunds":         "/v1/refunds",
		"/v1/x/{missing}":     "/v1/x/",
		"/v1/y/{path:.+}/end": "/v1/y//end",
	} {
		if got := boundPath(tmpl, args); got != want {
			t.Errorf("%s: %s, want %s", tmpl, got, want)
		}
	}
}
