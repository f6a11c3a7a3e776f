package stripe

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/twinstest"
)

func TestDefaultWorld(t *testing.T) {
	w := world(t, "")
	if len(w.Customers) != 1 || *w.Customers[0].Email != "alice@example.com" {
		t.Fatalf("customers %+v", w.Customers)
	}
	if len(w.PaymentIntents)+len(w.Charges)+len(w.Refunds)+len(w.Events)+len(w.PaymentMethods) != 0 {
		t.Error("the default world has no payments and no events")
	}
	// Deterministic: two default worlds are identical.
	if snapshot(t, w) != snapshot(t, world(t, "")) {
		t.Error("default world is not deterministic")
	}
	// The world survives the JSON round trip the Redis store makes.
	_, decode := twins.WorldCodec(newWorld)
	b, _ := json.Marshal(w)
	back, err := decode(b)
	if err != nil {
		t.Fatal(err)
	}
	b2, _ := json.Marshal(back)
	if string(b) != string(b2) {
		t.Error("world does not round-trip")
	}
	// Ids after a round trip keep counting from where they were.
	w2 := back.(*World)
	must(t, w2, "create_customer", `{"email":"x@example.com"}`)
	must(t, w, "create_customer", `{"email":"x@example.com"}`)
	if w.Customers[1].ID != w2.Customers[1].ID || w.Customers[1].ID == w.Customers[0].ID {
		t.Errorf("ids %s / %s", w.Customers[1].ID, w2.Customers[1].ID)
	}
}

const fullSeed = `{
  "customers": [
    {"id": "cus_alice", "email": "alice@example.com", "name": "Alice", "metadata": {"tier": "gold"}, "default_payment_method": "pm_alice_visa", "created": 1700000000}
  ],
  "payment_methods": [
    {"id": "pm_alice_visa", "card": "4242424242424242", "customer": "cus_alice"},
    {"id": "pm_declines", "card": "pm_card_chargeCustomerFail", "customer": "cus_alice"}
  ],
  "products": [{"id": "prod_tshirt", "name": "T-shirt"}],
  "prices": [{"id": "price_tshirt", "product": "prod_tshirt", "unit_amount": 2000, "currency": "usd", "default": true}],
  "payment_intents": [
    {"id": "pi_order_1001", "amount": 5000, "currency": "usd", "customer": "cus_alice", "payment_method": "pm_alice_visa", "status": "succeeded", "latest_charge": "ch_order_1001", "metadata": {"order_id": "1001"}},
    {"id": "pi_hold", "amount": 3000, "currency": "usd", "customer": "cus_alice", "payment_method": "pm_alice_visa", "status": "requires_capture", "capture_method": "manual"},
    {"id": "pi_open", "amount": 700, "currency": "eur"}
  ],
  "charges": [{"id": "ch_legacy", "amount": 1500, "currency": "usd", "customer": "cus_alice"}],
  "refunds": [{"id": "re_seed", "payment_intent": "pi_order_1001", "amount": 1000, "reason": "requested_by_customer"}],
  "balance": {"available": [{"amount": 100000, "currency": "usd"}]},
  "faults": [{"method": "POST", "path": "/v1/refunds", "attempt": 2, "when": "after", "status": 500}]
}`

func TestFullSeed(t *testing.T) {
	w := world(t, fullSeed)
	if c := w.customer("cus_alice"); c == nil || refOf(c.InvoiceSettings.DefaultPaymentMethod) != "pm_alice_visa" || c.Created != 1700000000 {
		t.Fatalf("customer %+v", c)
	}
	if p := w.product("prod_tshirt"); refOf(p.DefaultPrice) != "price_tshirt" {
		t.Errorf("default price %v", p.DefaultPrice)
	}
	ch := w.charge("ch_order_1001")
	if ch == nil || refOf(ch.PaymentIntent) != "pi_order_1001" || ch.AmountRefunded != 1000 || ch.Refunded || !ch.Captured {
		t.Fatalf("charge %+v", ch)
	}
	if hold := w.paymentIntent("pi_hold"); hold.AmountCapturable != 3000 || w.charge(refOf(hold.LatestCharge)).Captured {
		t.Errorf("hold %+v", hold)
	}
	if len(w.Events) != 0 {
		t.Error("seeds emit no events")
	}
	if len(w.Faults) != 1 || w.Faults[0].When != "after" {
		t.Errorf("faults %+v", w.Faults)
	}
	// Seeded objects behave: capture the hold, refund the rest of the order.
	must(t, w, "capture_payment_intent", `{"payment_intent":"pi_hold"}`)
	re := must(t, w, "create_refund", `{"payment_intent":"pi_order_1001"}`)
	if re["amount"] != float64(4000) {
		t.Errorf("refund of the remainder: %v", re["amount"])
	}
	// The "decline after attaching" card is attached but declines.
	r := call(t, w, "create_payment_intent", `{"amount":900,"currency":"usd","customer":"cus_alice","payment_method":"pm_declines","confirm":true,"return_url":"https://x.example"}`)
	if r.Err == nil || r.Err.Vendor != "card_declined" {
		t.Errorf("pm_declines: %+v", r.Err)
	}
	bal := must(t, w, "retrieve_balance", `{}`)
	avail := bal["available"].([]any)[0].(map[string]any)
	// 100000 seeded, minus the seeded refund (1000) and the new one (4000).
	if avail["amount"] != float64(95000) {
		t.Errorf("available %v", avail)
	}
	// The refund above was the route's first attempt; the second faults after
	// committing its refund.
	refunds := len(w.Refunds)
	r = call(t, w, "create_refund", `{"payment_intent":"pi_hold"}`)
	if r.Err == nil || r.Err.Details[faultStatusKey] != 500 || !r.Mutated || len(w.Refunds) != refunds+1 {
		t.Errorf("second refund: %+v mutated=%v refunds=%d", r.Err, r.Mutated, len(w.Refunds))
	}
	if f := w.NextFault("POST", "/v1/customers"); f != nil {
		t.Error("other routes do not fault")
	}
}

func TestSeedErrors(t *testing.T) {
	cases := map[string]struct{ seed, path string }{
		"unknown key":               {`{"customers":[],"accounts":[]}`, "/accounts"},
		"not a list":                {`{"customers":{"id":"cus_a"}}`, "/customers"},
		"nested wrong type":         {`{"balance":{"available":[{"amount":"lots","currency":"usd"}]}}`, "/balance/available/0/amount"},
		"unknown nested key":        {`{"customers":[{"email":"a@example.com","colour":"red"}]}`, "/customers/0/colour"},
		"wrong type":                {`{"customers":[{"email":42}]}`, "/customers/0/email"},
		"bad customer id prefix":    {`{"customers":[{"id":"alice"}]}`, "/customers/0/id"},
		"duplicate id":              {`{"customers":[{"id":"cus_a"},{"id":"cus_a"}]}`, "/customers/1/id"},
		"bad email":                 {`{"customers":[{"email":"not-an-email"}]}`, "/customers/0/email"},
		"pm for unknown customer":   {`{"payment_methods":[{"card":"4242424242424242","customer":"cus_x"}]}`, "/payment_methods/0/customer"},
		"bad card number":           {`{"payment_methods":[{"card":"4242424242424241"}]}`, "/payment_methods/0/card"},
		"unknown test card":         {`{"payment_methods":[{"card":"pm_card_bogus"}]}`, "/payment_methods/0/card"},
		"price of unknown product":  {`{"prices":[{"product":"prod_x","unit_amount":100,"currency":"usd"}]}`, "/prices/0/product"},
		"pi unknown customer":       {`{"payment_intents":[{"amount":1000,"currency":"usd","customer":"cus_x"}]}`, "/payment_intents/0/customer"},
		"pi bad status":             {`{"payment_intents":[{"amount":1000,"currency":"usd","status":"paid"}]}`, "/payment_intents/0/status"},
		"pi succeeded without pm":   {`{"payment_intents":[{"amount":1000,"currency":"usd","status":"succeeded"}]}`, "/payment_intents/0/payment_method"},
		"pi amount too small":       {`{"payment_intents":[{"amount":10,"currency":"usd"}]}`, "/payment_intents/0/amount"},
		"pi bad currency":           {`{"payment_intents":[{"amount":1000,"currency":"zzz"}]}`, "/payment_intents/0/currency"},
		"pi pm of another customer": {`{"customers":[{"id":"cus_a"},{"id":"cus_b"}],"payment_methods":[{"id":"pm_a","card":"4242424242424242","customer":"cus_a"}],"payment_intents":[{"amount":1000,"currency":"usd","customer":"cus_b","payment_method":"pm_a"}]}`, "/payment_intents/0/payment_method"},
		"capture without manual":    {`{"payment_methods":[{"id":"pm_a","card":"4242424242424242"}],"payment_intents":[{"amount":1000,"currency":"usd","payment_method":"pm_a","status":"requires_capture"}]}`, "/payment_intents/0/capture_method"},
		"refund too large":          {`{"charges":[{"id":"ch_a","amount":1000,"currency":"usd"}],"refunds":[{"charge":"ch_a","amount":1001}]}`, "/refunds/0/amount"},
		"refund unknown charge":     {`{"refunds":[{"charge":"ch_x"}]}`, "/refunds/0/charge"},
		"fault bad when":            {`{"faults":[{"method":"POST","path":"/v1/refunds","when":"during","status":500}]}`, "/faults/0/when"},
		"fault bad status":          {`{"faults":[{"method":"POST","path":"/v1/refunds","status":200}]}`, "/faults/0/status"},
		"fault on a read":           {`{"faults":[{"method":"GET","path":"/v1/refunds","status":500}]}`, "/faults/0/method"},
		"fault bad path":            {`{"faults":[{"method":"POST","path":"refunds","status":500}]}`, "/faults/0/path"},
		"fault bad body":            {`{"faults":[{"method":"POST","path":"/v1/refunds","status":500,"body":[1]}]}`, "/faults/0/body"},
		"default pm not attached":   {`{"customers":[{"id":"cus_a","default_payment_method":"pm_a"}],"payment_methods":[{"id":"pm_a","card":"4242424242424242"}]}`, "/customers/0/default_payment_method"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := New().NewWorld(twins.WithEnv(context.Background(), twinstest.Env("stripe")), json.RawMessage(c.seed))
			var se *twins.SeedError
			if !errors.As(err, &se) {
				t.Fatalf("want a SeedError, got %v", err)
			}
			if se.Path != c.path {
				t.Errorf("path %q, want %q (%s)", se.Path, c.path, se.Message)
			}
		})
	}
}
