package stripe

import (
	"strings"
	"testing"

	"github.com/pomehq/pome/twins"
)

const cardOnly = `"payment_method_types":["card"]`

func TestPaymentIntentSucceedsWithVisa(t *testing.T) {
	w := world(t, "")
	cus := w.Customers[0].ID
	out := must(t, w, "create_payment_intent", `{"amount":2000,"currency":"USD","customer":"`+cus+`","payment_method":"pm_card_visa","confirm":true,`+cardOnly+`,"metadata":{"order_id":"42"},"description":"Order 42"}`)
	if out["status"] != "succeeded" || out["amount_received"] != float64(2000) || out["currency"] != "usd" {
		t.Fatalf("PaymentIntent: %v", out)
	}
	if !strings.HasPrefix(out["id"].(string), "pi_") || !strings.HasPrefix(out["client_secret"].(string), out["id"].(string)+"_secret_") {
		t.Errorf("ids: %v %v", out["id"], out["client_secret"])
	}
	pmID, _ := out["payment_method"].(string)
	if !strings.HasPrefix(pmID, "pm_") || pmID == "pm_card_visa" {
		t.Errorf("a test id becomes a new payment method, got %q", pmID)
	}
	chID := out["latest_charge"].(string)
	ch := w.charge(chID)
	if ch == nil || ch.Status != "succeeded" || !ch.Captured || ch.AmountCaptured != 2000 || !ch.Paid || refOf(ch.PaymentIntent) != out["id"] {
		t.Fatalf("charge: %+v", ch)
	}
	if ch.PaymentMethodDetails.Card.Last4 != "4242" || ch.PaymentMethodDetails.Card.Brand != "visa" {
		t.Errorf("card details: %+v", ch.PaymentMethodDetails.Card)
	}
	txn := w.balanceTransaction(refOf(ch.BalanceTransaction))
	if txn == nil || txn.Amount != 2000 || txn.Fee != 88 || txn.Net != 1912 {
		t.Errorf("balance transaction: %+v", txn)
	}
	want := []string{"payment_intent.created", "charge.succeeded", "payment_intent.succeeded"}
	if got := eventTypes(w); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("events %v, want %v", got, want)
	}
}

func TestPaymentIntentStatusMachine(t *testing.T) {
	w := world(t, "")
	cus := w.Customers[0].ID
	pi := must(t, w, "create_payment_intent", `{"amount":1500,"currency":"usd","customer":"`+cus+`",`+cardOnly+`}`)
	id := pi["id"].(string)
	if pi["status"] != statusRequiresPaymentMethod || pi["payment_method"] != nil {
		t.Fatalf("created: %v", pi)
	}
	// Confirming without a payment method is refused and changes nothing.
	before := snapshot(t, w)
	wantErr(t, w, "confirm_payment_intent", `{"payment_intent":"`+id+`"}`, twins.Invalid, "payment_intent_unexpected_state")
	if snapshot(t, w) != before {
		t.Error("refused confirm changed the world")
	}
	up := must(t, w, "update_payment_intent", `{"payment_intent":"`+id+`","payment_method":"pm_card_mastercard"}`)
	if up["status"] != statusRequiresConfirmation {
		t.Fatalf("after update: %v", up["status"])
	}
	done := must(t, w, "confirm_payment_intent", `{"payment_intent":"`+id+`"}`)
	if done["status"] != statusSucceeded {
		t.Fatalf("after confirm: %v", done["status"])
	}
	ch := w.charge(done["latest_charge"].(string))
	if ch.PaymentMethodDetails.Card.Brand != "mastercard" {
		t.Errorf("brand %q", ch.PaymentMethodDetails.Card.Brand)
	}
	// Terminal states refuse further transitions.
	wantErr(t, w, "confirm_payment_intent", `{"payment_intent":"`+id+`"}`, twins.Invalid, "payment_intent_unexpected_state")
	wantErr(t, w, "cancel_payment_intent", `{"payment_intent":"`+id+`"}`, twins.Invalid, "payment_intent_unexpected_state")
	wantErr(t, w, "capture_payment_intent", `{"payment_intent":"`+id+`"}`, twins.Invalid, "payment_intent_unexpected_state")
	wantErr(t, w, "update_payment_intent", `{"payment_intent":"`+id+`","amount":999}`, twins.Invalid, "payment_intent_unexpected_state")
	// Metadata may change at any time.
	md := must(t, w, "update_payment_intent", `{"payment_intent":"`+id+`","metadata":{"note":"vip"}}`)
	if md["metadata"].(map[string]any)["note"] != "vip" {
		t.Errorf("metadata: %v", md["metadata"])
	}
}

func TestPaymentIntentDeclines(t *testing.T) {
	cases := []struct {
		pm, code, decline, msg string
	}{
		{"pm_card_chargeDeclined", "card_declined", "generic_decline", "Your card was declined."},
		{"pm_card_chargeDeclinedInsufficientFunds", "card_declined", "insufficient_funds", "Your card has insufficient funds."},
		{"pm_card_chargeDeclinedExpiredCard", "expired_card", "expired_card", "Your card has expired."},
		{"pm_card_chargeDeclinedIncorrectCvc", "incorrect_cvc", "incorrect_cvc", "Your card's security code is incorrect."},
		{"pm_card_chargeDeclinedProcessingError", "processing_error", "processing_error", "An error occurred while processing your card. Try again in a little bit."},
		{"pm_card_chargeDeclinedLostCard", "card_declined", "lost_card", "Your card was declined."},
		{"pm_card_chargeDeclinedStolenCard", "card_declined", "stolen_card", "Your card was declined."},
	}
	for _, c := range cases {
		t.Run(c.pm, func(t *testing.T) {
			w := world(t, "")
			r := call(t, w, "create_payment_intent", `{"amount":3000,"currency":"usd","payment_method":"`+c.pm+`","confirm":true,`+cardOnly+`}`)
			if r.Err == nil || r.Err.Code != twins.PaymentFailed || r.Err.Vendor != c.code || r.Err.Message != c.msg {
				t.Fatalf("want 402 %s, got %+v", c.code, r.Err)
			}
			if r.Err.Details["decline_code"] != c.decline {
				t.Errorf("decline_code %v", r.Err.Details["decline_code"])
			}
			epi, ok := r.Err.Details["payment_intent"].(*PaymentIntent)
			if !ok || epi.Status != statusRequiresPaymentMethod || epi.LastPaymentError == nil || epi.LastPaymentError.DeclineCode != c.decline {
				t.Fatalf("payment_intent in the error: %+v", r.Err.Details["payment_intent"])
			}
			status, body := restError(r.Err)
			if status != 402 || body.(map[string]any)["error"].(map[string]any)["type"] != "card_error" {
				t.Errorf("REST rendering: %d %v", status, body)
			}
			// The decline is recorded: the PaymentIntent, a failed charge, events.
			pi := w.paymentIntent(epi.ID)
			if pi == nil || pi.Status != statusRequiresPaymentMethod || pi.PaymentMethod != nil || pi.LastPaymentError.Code != c.code {
				t.Fatalf("stored PaymentIntent: %+v", pi)
			}
			ch := w.charge(refOf(pi.LatestCharge))
			if ch == nil || ch.Status != "failed" || *ch.FailureCode != c.code || ch.Paid {
				t.Fatalf("failed charge: %+v", ch)
			}
			want := "payment_intent.created,charge.failed,payment_intent.payment_failed"
			if got := strings.Join(eventTypes(w), ","); got != want {
				t.Errorf("events %s, want %s", got, want)
			}
			// A new payment method then succeeds.
			ok2 := must(t, w, "confirm_payment_intent", `{"payment_intent":"`+pi.ID+`","payment_method":"pm_card_visa"}`)
			if ok2["status"] != statusSucceeded || ok2["last_payment_error"] != nil {
				t.Errorf("retry: %v", ok2)
			}
		})
	}
}

func TestPaymentIntentRequiresAction(t *testing.T) {
	for _, pm := range []string{"pm_card_authenticationRequired", "pm_card_authenticationRequiredOnSetup"} {
		t.Run(pm, func(t *testing.T) {
			w := world(t, "")
			out := must(t, w, "create_payment_intent", `{"amount":5000,"currency":"eur","payment_method":"`+pm+`","confirm":true,"return_url":"https://shop.example/done"}`)
			if out["status"] != statusRequiresAction {
				t.Fatalf("status %v", out["status"])
			}
			na := out["next_action"].(map[string]any)
			if na["type"] != "redirect_to_url" || na["redirect_to_url"].(map[string]any)["return_url"] != "https://shop.example/done" {
				t.Errorf("next_action %v", na)
			}
			if out["latest_charge"] != nil {
				t.Error("no charge before authentication")
			}
			// Off-session attempts fail with authentication_required.
			r := call(t, w, "confirm_payment_intent", `{"payment_intent":"`+out["id"].(string)+`","off_session":true,"return_url":"https://shop.example/done"}`)
			if r.Err == nil || r.Err.Vendor != "authentication_required" {
				t.Fatalf("off-session: %+v", r.Err)
			}
			// Canceling from requires_action is allowed.
			c := must(t, w, "cancel_payment_intent", `{"payment_intent":"`+out["id"].(string)+`","cancellation_reason":"abandoned"}`)
			if c["status"] != statusCanceled || c["cancellation_reason"] != "abandoned" || c["canceled_at"] == nil {
				t.Errorf("cancel: %v", c)
			}
		})
	}
}

func TestPaymentIntentReturnURLRequired(t *testing.T) {
	w := world(t, "")
	before := snapshot(t, w)
	e := wantErr(t, w, "create_payment_intent", `{"amount":2000,"currency":"usd","payment_method":"pm_card_visa","confirm":true}`, twins.Invalid, "")
	if e.Field != "return_url" {
		t.Errorf("param %q", e.Field)
	}
	if snapshot(t, w) != before {
		t.Error("a refused create stored something")
	}
	out := must(t, w, "create_payment_intent", `{"amount":2000,"currency":"usd","payment_method":"pm_card_visa","confirm":true,"automatic_payment_methods":{"enabled":true,"allow_redirects":"never"}}`)
	if out["status"] != statusSucceeded {
		t.Errorf("status %v", out["status"])
	}
}

func TestManualCapture(t *testing.T) {
	w := world(t, "")
	out := must(t, w, "create_payment_intent", `{"amount":10000,"currency":"usd","payment_method":"pm_card_visa","confirm":true,"capture_method":"manual",`+cardOnly+`}`)
	id := out["id"].(string)
	if out["status"] != statusRequiresCapture || out["amount_capturable"] != float64(10000) || out["amount_received"] != float64(0) {
		t.Fatalf("authorized: %v", out)
	}
	ch := w.charge(out["latest_charge"].(string))
	if ch.Captured || ch.BalanceTransaction != nil || ch.Status != "succeeded" {
		t.Fatalf("uncaptured charge: %+v", ch)
	}
	wantErr(t, w, "create_refund", `{"payment_intent":"`+id+`"}`, twins.Invalid, "")
	wantErr(t, w, "capture_payment_intent", `{"payment_intent":"`+id+`","amount_to_capture":10001}`, twins.Invalid, "amount_too_large")
	cap := must(t, w, "capture_payment_intent", `{"payment_intent":"`+id+`","amount_to_capture":7500}`)
	if cap["status"] != statusSucceeded || cap["amount_received"] != float64(7500) || cap["amount_capturable"] != float64(0) {
		t.Fatalf("captured: %v", cap)
	}
	if !ch.Captured || ch.AmountCaptured != 7500 || ch.AmountRefunded != 2500 || ch.Refunded {
		t.Fatalf("partially captured charge: %+v", ch)
	}
	// Only the captured amount can be refunded.
	wantErr(t, w, "create_refund", `{"payment_intent":"`+id+`","amount":7501}`, twins.Invalid, "amount_too_large")
	re := must(t, w, "create_refund", `{"payment_intent":"`+id+`"}`)
	if re["amount"] != float64(7500) || !ch.Refunded {
		t.Errorf("refund %v, charge %+v", re, ch)
	}
	types := strings.Join(eventTypes(w), ",")
	if !strings.Contains(types, "payment_intent.amount_capturable_updated") || !strings.Contains(types, "charge.captured") {
		t.Errorf("events %s", types)
	}
}

func TestCancelReleasesAuthorization(t *testing.T) {
	w := world(t, "")
	out := must(t, w, "create_payment_intent", `{"amount":4000,"currency":"usd","payment_method":"pm_card_visa","confirm":true,"capture_method":"manual",`+cardOnly+`}`)
	c := must(t, w, "cancel_payment_intent", `{"payment_intent":"`+out["id"].(string)+`","cancellation_reason":"requested_by_customer"}`)
	if c["status"] != statusCanceled || c["amount_capturable"] != float64(0) {
		t.Fatalf("canceled: %v", c)
	}
	ch := w.charge(out["latest_charge"].(string))
	if !ch.Refunded || ch.AmountRefunded != 4000 {
		t.Errorf("released charge: %+v", ch)
	}
	wantErr(t, w, "cancel_payment_intent", `{"payment_intent":"`+out["id"].(string)+`","cancellation_reason":"because"}`, twins.Invalid, "payment_intent_unexpected_state")
}

func TestCreatePaymentIntentErrors(t *testing.T) {
	cases := []struct {
		name, args string
		code       twins.Code
		vendor     string
		param      string
	}{
		{"unknown customer", `{"amount":2000,"currency":"usd","customer":"cus_nope"}`, twins.NotFound, "resource_missing", "customer"},
		{"unknown payment method", `{"amount":2000,"currency":"usd","payment_method":"pm_nope"}`, twins.NotFound, "resource_missing", "payment_method"},
		{"bad currency", `{"amount":2000,"currency":"xyz"}`, twins.Invalid, "", "currency"},
		{"too small", `{"amount":10,"currency":"usd"}`, twins.Invalid, "amount_too_small", "amount"},
		{"zero", `{"amount":0,"currency":"usd"}`, twins.Invalid, "parameter_invalid_integer", "amount"},
		{"too large", `{"amount":100000000,"currency":"usd"}`, twins.Invalid, "amount_too_large", "amount"},
		{"bad capture method", `{"amount":2000,"currency":"usd","capture_method":"later"}`, twins.Invalid, "", "capture_method"},
		{"both apm and types", `{"amount":2000,"currency":"usd","automatic_payment_methods":{"enabled":true},"payment_method_types":["card"]}`, twins.Invalid, "", "automatic_payment_methods"},
		{"unsupported type", `{"amount":2000,"currency":"usd","payment_method_types":["ideal"]}`, twins.Invalid, "payment_method_type_unsupported", "payment_method_types"},
		{"confirm without pm", `{"amount":2000,"currency":"usd","confirm":true,` + cardOnly + `}`, twins.Invalid, "payment_intent_unexpected_state", ""},
		{"return_url without confirm", `{"amount":2000,"currency":"usd","return_url":"https://x.example"}`, twins.Invalid, "", "return_url"},
		{"bad expand", `{"amount":2000,"currency":"usd","expand":["nope"]}`, twins.Invalid, "", "expand"},
		{"metadata too long", `{"amount":2000,"currency":"usd","metadata":{"` + strings.Repeat("k", 41) + `":"v"}}`, twins.Invalid, "", "metadata"},
		{"missing amount", `{"currency":"usd"}`, twins.Invalid, "invalid_arguments", "amount"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := world(t, "")
			before := snapshot(t, w)
			e := wantErr(t, w, "create_payment_intent", c.args, c.code, c.vendor)
			if c.param != "" && e.Field != c.param {
				t.Errorf("param %q, want %q", e.Field, c.param)
			}
			if snapshot(t, w) != before {
				t.Error("refused call changed the world")
			}
		})
	}
}

func TestPaymentMethodOwnership(t *testing.T) {
	w := world(t, `{"customers":[{"id":"cus_a","email":"a@example.com"},{"id":"cus_b","email":"b@example.com"}],
		"payment_methods":[{"id":"pm_a","card":"4242424242424242","customer":"cus_a"},{"id":"pm_loose","card":"4242424242424242"}]}`)
	wantErr(t, w, "create_payment_intent", `{"amount":2000,"currency":"usd","payment_method":"pm_a"}`, twins.Invalid, "")
	wantErr(t, w, "create_payment_intent", `{"amount":2000,"currency":"usd","customer":"cus_b","payment_method":"pm_a"}`, twins.Invalid, "")
	must(t, w, "create_payment_intent", `{"amount":2000,"currency":"usd","customer":"cus_a","payment_method":"pm_a","confirm":true,`+cardOnly+`}`)
	must(t, w, "create_payment_intent", `{"amount":2000,"currency":"usd","customer":"cus_a","payment_method":"pm_a","confirm":true,`+cardOnly+`}`)
	// An unattached card can be used once only.
	must(t, w, "create_payment_intent", `{"amount":2000,"currency":"usd","payment_method":"pm_loose","confirm":true,`+cardOnly+`}`)
	wantErr(t, w, "create_payment_intent", `{"amount":2000,"currency":"usd","payment_method":"pm_loose"}`, twins.Invalid, "")
}

func TestListAndSearchPaymentIntents(t *testing.T) {
	w := world(t, `{"customers":[{"id":"cus_a","email":"a@example.com"},{"id":"cus_b","email":"b@example.com"}],
		"payment_intents":[
			{"id":"pi_1","amount":1000,"currency":"usd","customer":"cus_a","created":100,"metadata":{"order":"1"}},
			{"id":"pi_2","amount":2000,"currency":"usd","customer":"cus_b","created":200},
			{"id":"pi_3","amount":3000,"currency":"eur","customer":"cus_a","created":300},
			{"id":"pi_4","amount":4000,"currency":"usd","created":400,"status":"canceled"}]}`)
	l := must(t, w, "list_payment_intents", `{"limit":2}`)
	data := l["data"].([]any)
	if len(data) != 2 || data[0].(map[string]any)["id"] != "pi_4" || l["has_more"] != true || l["object"] != "list" || l["url"] != "/v1/payment_intents" {
		t.Fatalf("page 1: %v", l)
	}
	l2 := must(t, w, "list_payment_intents", `{"limit":2,"starting_after":"pi_3"}`)
	if ids := listIDs(l2); ids != "pi_2,pi_1" || l2["has_more"] != false {
		t.Fatalf("page 2: %s %v", ids, l2["has_more"])
	}
	l3 := must(t, w, "list_payment_intents", `{"limit":1,"ending_before":"pi_2"}`)
	if ids := listIDs(l3); ids != "pi_3" || l3["has_more"] != true {
		t.Fatalf("ending_before: %s %v", ids, l3["has_more"])
	}
	if ids := listIDs(must(t, w, "list_payment_intents", `{"customer":"cus_a"}`)); ids != "pi_3,pi_1" {
		t.Errorf("by customer: %s", ids)
	}
	if ids := listIDs(must(t, w, "list_payment_intents", `{"created":{"gte":"200","lt":400}}`)); ids != "pi_3,pi_2" {
		t.Errorf("by created: %s", ids)
	}
	wantErr(t, w, "list_payment_intents", `{"starting_after":"pi_nope"}`, twins.NotFound, "resource_missing")
	wantErr(t, w, "list_payment_intents", `{"limit":101}`, twins.Invalid, "parameter_invalid_integer")

	s := must(t, w, "search_payment_intents", `{"query":"currency:'usd' AND amount>1500"}`)
	if ids := listIDs(s); ids != "pi_4,pi_2" || s["object"] != "search_result" {
		t.Errorf("search: %s %v", ids, s)
	}
	if ids := listIDs(must(t, w, "search_payment_intents", `{"query":"metadata['order']:'1' OR status:'canceled'"}`)); ids != "pi_4,pi_1" {
		t.Errorf("search or: %s", ids)
	}
	p1 := must(t, w, "search_payment_intents", `{"query":"-status:'canceled'","limit":2}`)
	if ids := listIDs(p1); ids != "pi_3,pi_2" || p1["next_page"] == nil {
		t.Fatalf("search page 1: %s %v", ids, p1["next_page"])
	}
	p2 := must(t, w, "search_payment_intents", `{"query":"-status:'canceled'","limit":2,"page":"`+p1["next_page"].(string)+`"}`)
	if ids := listIDs(p2); ids != "pi_1" || p2["has_more"] != false || p2["next_page"] != nil {
		t.Errorf("search page 2: %s", ids)
	}
	wantErr(t, w, "search_payment_intents", `{"query":"amount:1000 AND status:'x' OR currency:'usd'"}`, twins.Invalid, "")
	wantErr(t, w, "search_payment_intents", `{"query":"colour:'red'"}`, twins.Invalid, "")
}

func TestExpand(t *testing.T) {
	w := world(t, "")
	cus := w.Customers[0].ID
	out := must(t, w, "create_payment_intent", `{"amount":2000,"currency":"usd","customer":"`+cus+`","payment_method":"pm_card_visa","confirm":true,`+cardOnly+`,"expand":["customer","latest_charge.balance_transaction","payment_method"]}`)
	if c, ok := out["customer"].(map[string]any); !ok || c["email"] != "alice@example.com" {
		t.Errorf("customer: %v", out["customer"])
	}
	lc, ok := out["latest_charge"].(map[string]any)
	if !ok || lc["object"] != "charge" {
		t.Fatalf("latest_charge: %v", out["latest_charge"])
	}
	if bt, ok := lc["balance_transaction"].(map[string]any); !ok || bt["object"] != "balance_transaction" {
		t.Errorf("nested: %v", lc["balance_transaction"])
	}
	// The world keeps ids.
	pi := w.paymentIntent(out["id"].(string))
	if _, ok := pi.Customer.(string); !ok {
		t.Errorf("world holds %T", pi.Customer)
	}
	l := must(t, w, "list_payment_intents", `{"expand":["data.customer"]}`)
	if _, ok := l["data"].([]any)[0].(map[string]any)["customer"].(map[string]any); !ok {
		t.Errorf("list expand: %v", l)
	}
	wantErr(t, w, "list_payment_intents", `{"expand":["customer"]}`, twins.Invalid, "")
	wantErr(t, w, "retrieve_payment_intent", `{"payment_intent":"`+pi.ID+`","expand":["latest_charge.nope"]}`, twins.Invalid, "")
}

func listIDs(l map[string]any) string {
	var ids []string
	for _, d := range l["data"].([]any) {
		ids = append(ids, d.(map[string]any)["id"].(string))
	}
	return strings.Join(ids, ",")
}
