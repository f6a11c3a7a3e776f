package stripe

import (
	"testing"

	"github.com/pomehq/pome/twins"
)

func TestPaymentMethods(t *testing.T) {
	w := world(t, "")
	cus := w.Customers[0].ID
	pm := must(t, w, "create_payment_method", `{"type":"card","card":{"number":"4000 0000 0000 0341","exp_month":8,"exp_year":30,"cvc":"123"},"billing_details":{"name":"Alice","email":"alice@example.com"},"metadata":{"k":"v"}}`)
	card := pm["card"].(map[string]any)
	if card["last4"] != "0341" || card["exp_year"] != float64(2030) || card["brand"] != "visa" || pm["customer"] != nil {
		t.Fatalf("created %v", pm)
	}
	id := pm["id"].(string)
	a := must(t, w, "attach_payment_method", `{"payment_method":"`+id+`","customer":"`+cus+`"}`)
	if a["customer"] != cus {
		t.Fatalf("attach %v", a)
	}
	// Attaching again to the same customer changes nothing.
	if r := call(t, w, "attach_payment_method", `{"payment_method":"`+id+`","customer":"`+cus+`"}`); r.Err != nil || r.Mutated {
		t.Errorf("re-attach: %v mutated=%v", r.Err, r.Mutated)
	}
	// The decline-after-attaching card attaches but its charges decline
	// (Stripe's testing docs: the other decline cards cannot be attached).
	r := call(t, w, "create_payment_intent", `{"amount":1000,"currency":"usd","customer":"`+cus+`","payment_method":"`+id+`","confirm":true,"payment_method_types":["card"]}`)
	if r.Err == nil || r.Err.Details["decline_code"] != "generic_decline" {
		t.Fatalf("charge: %+v", r.Err)
	}
	tok := must(t, w, "create_payment_method", `{"type":"card","card":{"token":"tok_mastercard"}}`)
	if tok["card"].(map[string]any)["brand"] != "mastercard" {
		t.Errorf("token card %v", tok["card"])
	}
	magic := must(t, w, "attach_payment_method", `{"payment_method":"pm_card_amex","customer":"`+cus+`"}`)
	if magic["id"] == "pm_card_amex" || magic["card"].(map[string]any)["brand"] != "amex" {
		t.Errorf("magic attach %v", magic)
	}
	l := must(t, w, "list_customer_payment_methods", `{"customer":"`+cus+`","type":"card","expand":["data.customer"]}`)
	if len(l["data"].([]any)) != 2 || l["url"] != "/v1/customers/"+cus+"/payment_methods" {
		t.Errorf("list %v", l)
	}
	if _, ok := l["data"].([]any)[0].(map[string]any)["customer"].(map[string]any); !ok {
		t.Error("data.customer not expanded")
	}
	if l := must(t, w, "list_payment_methods", `{"customer":"`+cus+`","type":"us_bank_account"}`); len(l["data"].([]any)) != 0 {
		t.Error("no bank accounts")
	}
	d := must(t, w, "detach_payment_method", `{"payment_method":"`+id+`"}`)
	if d["customer"] != nil {
		t.Errorf("detach %v", d)
	}
	if got := must(t, w, "retrieve_payment_method", `{"payment_method":"`+id+`"}`); got["customer"] != nil {
		t.Errorf("retrieve %v", got)
	}
}

func TestPaymentMethodErrors(t *testing.T) {
	cases := []struct {
		name, action, args string
		code               twins.Code
		vendor, param      string
	}{
		{"bad number", "create_payment_method", `{"type":"card","card":{"number":"4242424242424241","exp_month":1,"exp_year":2040}}`, twins.PaymentFailed, "incorrect_number", "number"},
		{"expired", "create_payment_method", `{"type":"card","card":{"number":"4242424242424242","exp_month":1,"exp_year":2020}}`, twins.PaymentFailed, "invalid_expiry_year", "exp_year"},
		{"bad month", "create_payment_method", `{"type":"card","card":{"number":"4242424242424242","exp_month":13,"exp_year":2040}}`, twins.PaymentFailed, "invalid_expiry_month", "exp_month"},
		{"no expiry", "create_payment_method", `{"type":"card","card":{"number":"4242424242424242"}}`, twins.Invalid, "parameter_missing", "card[exp_month]"},
		{"no card", "create_payment_method", `{"type":"card"}`, twins.Invalid, "parameter_missing", "card"},
		{"bad type", "create_payment_method", `{"type":"sepa_debit"}`, twins.Invalid, "", "type"},
		{"bad token", "create_payment_method", `{"type":"card","card":{"token":"tok_nope"}}`, twins.NotFound, "resource_missing", "card[token]"},
		{"attach declined card", "attach_payment_method", `{"payment_method":"pm_card_chargeDeclined","customer":"CUS"}`, twins.PaymentFailed, "card_declined", ""},
		{"attach to unknown customer", "attach_payment_method", `{"payment_method":"pm_card_visa","customer":"cus_nope"}`, twins.NotFound, "resource_missing", "customer"},
		{"attach unknown pm", "attach_payment_method", `{"payment_method":"pm_nope","customer":"CUS"}`, twins.NotFound, "resource_missing", "payment_method"},
		{"detach unattached", "detach_payment_method", `{"payment_method":"pm_loose"}`, twins.Invalid, "", "payment_method"},
		{"detach unknown", "detach_payment_method", `{"payment_method":"pm_nope"}`, twins.NotFound, "resource_missing", "payment_method"},
		{"retrieve unknown", "retrieve_payment_method", `{"payment_method":"pm_nope"}`, twins.NotFound, "resource_missing", "payment_method"},
		{"list unknown customer", "list_customer_payment_methods", `{"customer":"cus_nope"}`, twins.NotFound, "resource_missing", "customer"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := world(t, `{"customers":[{"id":"cus_a"}],"payment_methods":[{"id":"pm_loose","card":"4242424242424242"}]}`)
			before := snapshot(t, w)
			e := wantErr(t, w, c.action, replaceCus(c.args), c.code, c.vendor)
			if e.Field != c.param {
				t.Errorf("param %q, want %q", e.Field, c.param)
			}
			if snapshot(t, w) != before {
				t.Error("refused call changed the world")
			}
		})
	}
}

func replaceCus(s string) string {
	out := ""
	for i := 0; i < len(s); i++ {
		if i+3 <= len(s) && s[i:i+3] == "CUS" {
			out += "cus_a"
			i += 2
			continue
		}
		out += string(s[i])
	}
	return out
}
