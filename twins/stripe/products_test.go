package stripe

import (
	"strings"
	"testing"
	"time"

	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/twinstest"
)

func TestProductsAndPrices(t *testing.T) {
	w := world(t, "")
	p := must(t, w, "create_product", `{"name":"T-shirt","description":"Grey","metadata":{"sku":"TS-1"},"default_price_data":{"currency":"usd","unit_amount":2000}}`)
	if p["object"] != "product" || p["active"] != true || p["default_price"] == nil {
		t.Fatalf("product %v", p)
	}
	id := p["id"].(string)
	custom := must(t, w, "create_product", `{"id":"gold-plan","name":"Gold plan","active":false}`)
	if custom["id"] != "gold-plan" {
		t.Errorf("custom id %v", custom["id"])
	}
	wantErr(t, w, "create_product", `{"id":"gold-plan","name":"again"}`, twins.Invalid, "resource_already_exists")
	pr := must(t, w, "create_price", `{"product":"`+id+`","currency":"usd","unit_amount":900,"recurring":{"interval":"month"},"lookup_key":"monthly","nickname":"Monthly"}`)
	if pr["type"] != "recurring" || pr["recurring"].(map[string]any)["interval_count"] != float64(1) || pr["unit_amount_decimal"] != "900" {
		t.Fatalf("price %v", pr)
	}
	inline := must(t, w, "create_price", `{"product_data":{"name":"Sticker"},"currency":"eur","unit_amount":150,"expand":["product"]}`)
	if inline["product"].(map[string]any)["name"] != "Sticker" || inline["type"] != "one_time" {
		t.Errorf("inline product %v", inline)
	}
	if l := must(t, w, "list_prices", `{"product":"`+id+`"}`); len(l["data"].([]any)) != 2 {
		t.Errorf("prices of product: %s", listIDs(l))
	}
	if l := must(t, w, "list_prices", `{"type":"recurring"}`); listIDs(l) != pr["id"] {
		t.Errorf("recurring prices: %s", listIDs(l))
	}
	if l := must(t, w, "list_prices", `{"lookup_keys":["monthly"]}`); listIDs(l) != pr["id"] {
		t.Errorf("by lookup key: %s", listIDs(l))
	}
	if l := must(t, w, "list_products", `{"active":true}`); len(l["data"].([]any)) != 2 {
		t.Errorf("active products: %s", listIDs(l))
	}
	if got := must(t, w, "retrieve_product", `{"product":"`+id+`","expand":["default_price"]}`); got["default_price"].(map[string]any)["unit_amount"] != float64(2000) {
		t.Errorf("default price %v", got["default_price"])
	}
	if got := must(t, w, "retrieve_price", `{"price":"`+pr["id"].(string)+`"}`); got["lookup_key"] != "monthly" {
		t.Errorf("retrieve price %v", got)
	}
	cases := []struct {
		name, action, args, param string
		code                      twins.Code
	}{
		{"no name", "create_product", `{"name":""}`, "name", twins.Invalid},
		{"bad default currency", "create_product", `{"name":"x","default_price_data":{"currency":"abc","unit_amount":1}}`, "default_price_data[currency]", twins.Invalid},
		{"no product", "create_price", `{"currency":"usd","unit_amount":100}`, "product", twins.Invalid},
		{"unknown product", "create_price", `{"product":"prod_nope","currency":"usd","unit_amount":100}`, "product", twins.NotFound},
		{"no amount", "create_price", `{"product":"` + id + `","currency":"usd"}`, "unit_amount", twins.Invalid},
		{"bad interval", "create_price", `{"product":"` + id + `","currency":"usd","unit_amount":1,"recurring":{"interval":"fortnight"}}`, "recurring[interval]", twins.Invalid},
		{"duplicate lookup key", "create_price", `{"product":"` + id + `","currency":"usd","unit_amount":1,"lookup_key":"monthly"}`, "lookup_key", twins.Invalid},
		{"unknown price", "retrieve_price", `{"price":"price_nope"}`, "price", twins.NotFound},
		{"unknown product id", "retrieve_product", `{"product":"prod_nope"}`, "id", twins.NotFound},
		{"bad price type", "list_prices", `{"type":"sometimes"}`, "type", twins.Invalid},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := snapshot(t, w)
			e := wantErr(t, w, c.action, c.args, c.code, "")
			if e.Field != c.param {
				t.Errorf("param %q, want %q", e.Field, c.param)
			}
			if snapshot(t, w) != before {
				t.Error("refused call changed the world")
			}
		})
	}
}

func TestBalanceFollowsTheClock(t *testing.T) {
	w := world(t, `{"balance":{"available":[{"amount":1000,"currency":"usd"}],"pending":[{"amount":50,"currency":"eur"}]}}`)
	pi := must(t, w, "create_payment_intent", `{"amount":10000,"currency":"usd","payment_method":"pm_card_visa","confirm":true,"payment_method_types":["card"]}`)
	bal := must(t, w, "retrieve_balance", `{}`)
	if bal["object"] != "balance" || amountOf(bal["available"], "usd") != 1000 || amountOf(bal["pending"], "usd") != 10000-320 || amountOf(bal["pending"], "eur") != 50 {
		t.Fatalf("balance %v", bal)
	}
	must(t, w, "create_refund", `{"payment_intent":"`+pi["id"].(string)+`","amount":3000}`)
	if bal := must(t, w, "retrieve_balance", `{}`); amountOf(bal["available"], "usd") != 1000-3000 {
		t.Errorf("refunds come out of the available balance at once: %v", bal["available"])
	}
	// Three days later the charge's funds are available.
	tw := New()
	a, _ := tw.Action("retrieve_balance")
	env := twinstest.Env("stripe")
	later := env.Now().Add(72 * time.Hour)
	env.Now = func() time.Time { return later }
	out, err := a.Run(twins.WithEnv(t.Context(), env), w, RetrieveBalanceInput{})
	if err != nil {
		t.Fatal(err)
	}
	b := out.(Balance)
	if len(b.Available) != 1 || b.Available[0].Currency != "usd" || b.Available[0].Amount != 1000-3000+10000-320 {
		t.Errorf("later balance %+v", b.Available)
	}
	l := must(t, w, "list_balance_transactions", `{"type":"charge"}`)
	if len(l["data"].([]any)) != 1 || l["data"].([]any)[0].(map[string]any)["status"] != "pending" {
		t.Errorf("transactions %v", l)
	}
	txn := l["data"].([]any)[0].(map[string]any)
	got := must(t, w, "retrieve_balance_transaction", `{"balance_transaction":"`+txn["id"].(string)+`","expand":["source"]}`)
	if got["source"].(map[string]any)["object"] != "charge" {
		t.Errorf("source %v", got["source"])
	}
	wantErr(t, w, "retrieve_balance_transaction", `{"balance_transaction":"txn_nope"}`, twins.NotFound, "resource_missing")
	wantErr(t, w, "retrieve_balance", `{"expand":["x"]}`, twins.Invalid, "")
}

func amountOf(list any, currency string) int64 {
	for _, a := range list.([]any) {
		m := a.(map[string]any)
		if m["currency"] == currency {
			return int64(m["amount"].(float64))
		}
	}
	return -1
}

func TestEvents(t *testing.T) {
	w := world(t, "")
	must(t, w, "create_customer", `{"email":"b@example.com"}`)
	pi := must(t, w, "create_payment_intent", `{"amount":2000,"currency":"usd","payment_method":"pm_card_visa","confirm":true,"payment_method_types":["card"]}`)
	all := must(t, w, "list_events", `{}`)
	if all["object"] != "list" || len(all["data"].([]any)) != 4 {
		t.Fatalf("events %v", all)
	}
	first := all["data"].([]any)[0].(map[string]any)
	if first["type"] != "payment_intent.succeeded" || first["api_version"] != APIVersion || first["object"] != "event" {
		t.Errorf("newest event %v", first)
	}
	obj := first["data"].(map[string]any)["object"].(map[string]any)
	if obj["id"] != pi["id"] || obj["status"] != "succeeded" {
		t.Errorf("event object %v", obj)
	}
	created := must(t, w, "list_events", `{"type":"payment_intent.created"}`)
	snap := created["data"].([]any)[0].(map[string]any)["data"].(map[string]any)["object"].(map[string]any)
	if snap["status"] != statusRequiresConfirmation {
		t.Errorf("the created event keeps the object as it was then: %v", snap["status"])
	}
	if l := must(t, w, "list_events", `{"types":["customer.created","charge.succeeded"]}`); len(l["data"].([]any)) != 2 {
		t.Errorf("types filter %v", listIDs(l))
	}
	id := first["id"].(string)
	if got := must(t, w, "retrieve_event", `{"event":"`+id+`"}`); got["id"] != id {
		t.Errorf("retrieve %v", got)
	}
	wantErr(t, w, "retrieve_event", `{"event":"evt_nope"}`, twins.NotFound, "resource_missing")
	wantErr(t, w, "list_events", `{"type":"a.b","types":["c.d"]}`, twins.Invalid, "")
}

func TestUpdateProductAndPrice(t *testing.T) {
	w := world(t, `{"products":[{"id":"prod_a","name":"A"},{"id":"prod_b","name":"B"}],
		"prices":[{"id":"price_a","product":"prod_a","unit_amount":500,"currency":"usd","default":true},
		          {"id":"price_a2","product":"prod_a","unit_amount":900,"currency":"usd","lookup_key":"std"},
		          {"id":"price_b","product":"prod_b","unit_amount":100,"currency":"usd"},
		          {"id":"price_old","product":"prod_b","unit_amount":50,"currency":"usd","active":false}]}`)
	r := twinstest.MustCall(t, New(), w, "update_product", `{"product":"prod_a","name":"A+","description":"better","metadata":{"k":"v"},"default_price":"price_a2"}`)
	p := r.JSON(t)
	if !r.Mutated || p["name"] != "A+" || p["description"] != "better" || p["default_price"] != "price_a2" || p["metadata"].(map[string]any)["k"] != "v" {
		t.Fatalf("updated %v", p)
	}
	ev := w.Events[len(w.Events)-1]
	if ev.Type != "product.updated" || ev.Data.PreviousAttributes["name"] != "A" || ev.Data.PreviousAttributes["default_price"] != "price_a" {
		t.Errorf("event %s %v", ev.Type, ev.Data.PreviousAttributes)
	}
	// Clearing: empty description, removing the metadata key and the default
	// price, then archiving.
	p = must(t, w, "update_product", `{"product":"prod_a","description":"","metadata":{"k":""},"default_price":"","active":false}`)
	if p["description"] != nil || len(p["metadata"].(map[string]any)) != 0 || p["default_price"] != nil || p["active"] != false {
		t.Errorf("cleared %v", p)
	}
	events := len(w.Events)
	if r := call(t, w, "update_product", `{"product":"prod_a","name":"A+"}`); r.Err != nil || r.Mutated || len(w.Events) != events {
		t.Errorf("a no-op update: %+v mutated=%v", r.Err, r.Mutated)
	}

	pr := must(t, w, "update_price", `{"price":"price_b","nickname":"Basic","active":false,"tax_behavior":"exclusive","metadata":{"tier":"1"}}`)
	if pr["nickname"] != "Basic" || pr["active"] != false || pr["tax_behavior"] != "exclusive" || pr["unit_amount"] != float64(100) {
		t.Fatalf("price %v", pr)
	}
	// A lookup key moves only with transfer_lookup_key.
	wantErr(t, w, "update_price", `{"price":"price_b","lookup_key":"std"}`, twins.Invalid, "")
	must(t, w, "update_price", `{"price":"price_b","lookup_key":"std","transfer_lookup_key":true}`)
	if w.price("price_a2").LookupKey != nil || *w.price("price_b").LookupKey != "std" {
		t.Error("lookup key not transferred")
	}
	if got := eventTypes(w)[len(w.Events)-2:]; got[0] != "price.updated" || got[1] != "price.updated" {
		t.Errorf("events %v", got)
	}

	cases := []struct {
		name, action, args, param string
		code                      twins.Code
	}{
		{"unknown product", "update_product", `{"product":"prod_nope","name":"x"}`, "id", twins.NotFound},
		{"empty name", "update_product", `{"product":"prod_b","name":""}`, "name", twins.Invalid},
		{"unknown default price", "update_product", `{"product":"prod_b","default_price":"price_nope"}`, "default_price", twins.NotFound},
		{"default price of another product", "update_product", `{"product":"prod_b","default_price":"price_a"}`, "default_price", twins.Invalid},
		{"inactive default price", "update_product", `{"product":"prod_b","default_price":"price_old"}`, "default_price", twins.Invalid},
		{"bad metadata", "update_product", `{"product":"prod_b","metadata":{"` + strings.Repeat("k", 41) + `":"x"}}`, "metadata", twins.Invalid},
		{"bad expand", "update_product", `{"product":"prod_b","expand":["nope"]}`, "expand", twins.Invalid},
		{"unknown price", "update_price", `{"price":"price_nope","active":true}`, "price", twins.NotFound},
		{"bad tax behavior", "update_price", `{"price":"price_a","tax_behavior":"sometimes"}`, "tax_behavior", twins.Invalid},
		{"tax behavior is fixed once set", "update_price", `{"price":"price_b","tax_behavior":"inclusive"}`, "tax_behavior", twins.Invalid},
		{"taken lookup key", "update_price", `{"price":"price_a","lookup_key":"std"}`, "lookup_key", twins.Invalid},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := snapshot(t, w)
			e := wantErr(t, w, c.action, c.args, c.code, "")
			if c.param != "expand" && e.Field != c.param {
				t.Errorf("param %q, want %q", e.Field, c.param)
			}
			if snapshot(t, w) != before {
				t.Error("refused call changed the world")
			}
		})
	}
	// A product with a default price cannot be archived while it keeps it.
	must(t, w, "update_product", `{"product":"prod_a","default_price":"price_a","active":true}`)
	wantErr(t, w, "update_product", `{"product":"prod_a","active":false}`, twins.Invalid, "")
}
