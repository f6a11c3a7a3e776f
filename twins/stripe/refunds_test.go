package stripe

import (
	"strings"
	"testing"

	"github.com/pomehq/pome/twins"
)

const refundSeed = `{"customers":[{"id":"cus_a","email":"a@example.com"}],
 "payment_methods":[{"id":"pm_a","card":"4242424242424242","customer":"cus_a"}],
 "payment_intents":[
  {"id":"pi_paid","amount":5000,"currency":"usd","customer":"cus_a","payment_method":"pm_a","status":"succeeded","latest_charge":"ch_paid"},
  {"id":"pi_open","amount":5000,"currency":"usd","customer":"cus_a"},
  {"id":"pi_hold","amount":5000,"currency":"usd","customer":"cus_a","payment_method":"pm_a","status":"requires_capture","capture_method":"manual","latest_charge":"ch_hold"}],
 "charges":[{"id":"ch_failed","amount":900,"currency":"usd","status":"failed"}]}`

func TestRefunds(t *testing.T) {
	w := world(t, refundSeed)
	r1 := must(t, w, "create_refund", `{"payment_intent":"pi_paid","amount":1000,"reason":"requested_by_customer","metadata":{"ticket":"7"}}`)
	if r1["object"] != "refund" || r1["charge"] != "ch_paid" || r1["payment_intent"] != "pi_paid" || r1["status"] != "succeeded" || r1["reason"] != "requested_by_customer" {
		t.Fatalf("refund %v", r1)
	}
	ch := w.charge("ch_paid")
	if ch.AmountRefunded != 1000 || ch.Refunded {
		t.Fatalf("charge after partial refund %+v", ch)
	}
	txn := w.balanceTransaction(r1["balance_transaction"].(string))
	if txn.Amount != -1000 || txn.Type != "refund" || refOf(txn.Source) != r1["id"] {
		t.Errorf("refund transaction %+v", txn)
	}
	r2 := must(t, w, "create_refund", `{"charge":"ch_paid","expand":["charge","payment_intent"]}`)
	if r2["amount"] != float64(4000) || r2["charge"].(map[string]any)["refunded"] != true || r2["payment_intent"].(map[string]any)["id"] != "pi_paid" {
		t.Fatalf("second refund %v", r2)
	}
	if got := strings.Join(eventTypes(w), ","); got != "refund.created,charge.refunded,refund.created,charge.refunded" {
		t.Errorf("events %s", got)
	}
	if ev := w.Events[1]; ev.Data.PreviousAttributes["amount_refunded"] != int64(0) {
		t.Errorf("previous attributes %v", ev.Data.PreviousAttributes)
	}
	if l := must(t, w, "list_refunds", `{"charge":"ch_paid","limit":1}`); listIDs(l) != r2["id"] || l["has_more"] != true {
		t.Errorf("list %v", l)
	}
	if got := must(t, w, "retrieve_refund", `{"refund":"`+r1["id"].(string)+`"}`); got["amount"] != float64(1000) {
		t.Errorf("retrieve %v", got)
	}
	// The PaymentIntent stays succeeded.
	if w.paymentIntent("pi_paid").Status != statusSucceeded {
		t.Error("refunds do not change the PaymentIntent's status")
	}
}

func TestRefundErrors(t *testing.T) {
	cases := []struct {
		name, args    string
		code          twins.Code
		vendor, param string
	}{
		{"neither", `{}`, twins.Invalid, "parameter_missing", "charge"},
		{"unknown pi", `{"payment_intent":"pi_nope"}`, twins.NotFound, "resource_missing", "payment_intent"},
		{"unknown charge", `{"charge":"ch_nope"}`, twins.NotFound, "resource_missing", "charge"},
		{"pi not paid", `{"payment_intent":"pi_open"}`, twins.Invalid, "", "payment_intent"},
		{"uncaptured", `{"payment_intent":"pi_hold"}`, twins.Invalid, "charge_not_refundable", "charge"},
		{"failed charge", `{"charge":"ch_failed"}`, twins.Invalid, "", "charge"},
		{"mismatch", `{"charge":"ch_paid","payment_intent":"pi_open"}`, twins.Invalid, "", "payment_intent"},
		{"over-refund", `{"payment_intent":"pi_paid","amount":5001}`, twins.Invalid, "amount_too_large", "amount"},
		{"zero", `{"payment_intent":"pi_paid","amount":0}`, twins.Invalid, "parameter_invalid_integer", "amount"},
		{"bad reason", `{"payment_intent":"pi_paid","reason":"changed_mind"}`, twins.Invalid, "", "reason"},
		{"bad expand", `{"payment_intent":"pi_paid","expand":["customer"]}`, twins.Invalid, "", "expand"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := world(t, refundSeed)
			before := snapshot(t, w)
			e := wantErr(t, w, "create_refund", c.args, c.code, c.vendor)
			if e.Field != c.param {
				t.Errorf("param %q, want %q", e.Field, c.param)
			}
			if snapshot(t, w) != before {
				t.Error("refused refund changed the world")
			}
		})
	}
	w := world(t, refundSeed)
	must(t, w, "create_refund", `{"payment_intent":"pi_paid"}`)
	e := wantErr(t, w, "create_refund", `{"payment_intent":"pi_paid","amount":1}`, twins.Invalid, "charge_already_refunded")
	if e.Message != "Charge ch_paid has already been refunded." {
		t.Errorf("message %q", e.Message)
	}
	wantErr(t, w, "retrieve_refund", `{"refund":"re_nope"}`, twins.NotFound, "resource_missing")
	wantErr(t, w, "retrieve_charge", `{"charge":"ch_nope"}`, twins.NotFound, "resource_missing")
}

func TestChargesListAndSearch(t *testing.T) {
	w := world(t, refundSeed)
	if l := must(t, w, "list_charges", `{"payment_intent":"pi_paid"}`); listIDs(l) != "ch_paid" {
		t.Errorf("by PaymentIntent: %s", listIDs(l))
	}
	if l := must(t, w, "list_charges", `{"customer":"cus_a"}`); len(l["data"].([]any)) != 2 {
		t.Errorf("by customer: %s", listIDs(l))
	}
	if s := must(t, w, "search_charges", `{"query":"status:'failed'"}`); listIDs(s) != "ch_failed" {
		t.Errorf("search failed: %s", listIDs(s))
	}
	if s := must(t, w, "search_charges", `{"query":"payment_method_details.card.last4:'4242' AND amount>=5000"}`); len(s["data"].([]any)) != 2 {
		t.Errorf("search card: %s", listIDs(s))
	}
	ch := must(t, w, "retrieve_charge", `{"charge":"ch_paid","expand":["payment_intent","balance_transaction","customer"]}`)
	if ch["payment_intent"].(map[string]any)["id"] != "pi_paid" || ch["balance_transaction"].(map[string]any)["net"] != float64(5000-175) {
		t.Errorf("expanded charge %v", ch)
	}
}
