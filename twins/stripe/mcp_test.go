package stripe_test

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/pomehq/pome/rest/resttest"
	"github.com/pomehq/pome/tape"
	"github.com/pomehq/pome/twins/stripe"
)

// TestMCPEveryTool walks every area over MCP — each tool at least once —
// through the same payment flow the stripe-go tests drive over REST, and
// checks the answers decode as the REST objects do.
func TestMCPEveryTool(t *testing.T) {
	_, env := sdk(t, `{"balance":{"available":[{"amount":50000,"currency":"usd"}]}}`)
	cs := env.MCP(t)
	call := func(tool string, args map[string]any) map[string]any {
		t.Helper()
		text, isErr := resttest.CallTool(t, cs, tool, args)
		if isErr {
			t.Fatalf("%s(%v): %s", tool, args, text)
		}
		var out map[string]any
		if err := json.Unmarshal([]byte(text), &out); err != nil {
			t.Fatalf("%s: %v: %s", tool, err, text)
		}
		return out
	}
	want := func(tool string, got any, ok bool) {
		t.Helper()
		if !ok {
			t.Errorf("%s: unexpected %v", tool, got)
		}
	}
	data := func(l map[string]any) []any { d, _ := l["data"].([]any); return d }

	cus := call("create_customer", map[string]any{"email": "mcp@example.com", "name": "Em Cee", "metadata": map[string]any{"via": "mcp"}})
	id := cus["id"].(string)
	want("retrieve_customer", cus, call("retrieve_customer", map[string]any{"customer": id})["email"] == "mcp@example.com")
	want("update_customer", cus, call("update_customer", map[string]any{"customer": id, "description": "agent"})["description"] == "agent")
	want("search_customers", nil, len(data(call("search_customers", map[string]any{"query": "email:'mcp@example.com'"}))) == 1)
	want("list_customers", nil, len(data(call("list_customers", map[string]any{"limit": 10}))) == 1)

	pm := call("create_payment_method", map[string]any{"type": "card", "card": map[string]any{"number": "4242424242424242", "exp_month": 12, "exp_year": 2034}})
	pmID := pm["id"].(string)
	want("attach_payment_method", nil, call("attach_payment_method", map[string]any{"payment_method": pmID, "customer": id})["customer"] == id)
	want("retrieve_payment_method", nil, call("retrieve_payment_method", map[string]any{"payment_method": pmID})["id"] == pmID)
	want("list_customer_payment_methods", nil, len(data(call("list_customer_payment_methods", map[string]any{"customer": id}))) == 1)
	want("list_payment_methods", nil, len(data(call("list_payment_methods", map[string]any{"customer": id, "type": "card"}))) == 1)

	pi := call("create_payment_intent", map[string]any{"amount": 8000, "currency": "usd", "customer": id, "payment_method": pmID,
		"capture_method": "manual", "payment_method_types": []string{"card"}})
	piID := pi["id"].(string)
	want("create_payment_intent", pi["status"], pi["status"] == "requires_confirmation")
	want("update_payment_intent", nil, call("update_payment_intent", map[string]any{"payment_intent": piID, "description": "order 9"})["description"] == "order 9")
	want("confirm_payment_intent", nil, call("confirm_payment_intent", map[string]any{"payment_intent": piID})["status"] == "requires_capture")
	cap := call("capture_payment_intent", map[string]any{"payment_intent": piID, "amount_to_capture": 5000})
	want("capture_payment_intent", cap, cap["status"] == "succeeded" && cap["amount_received"] == float64(5000))
	got := call("retrieve_payment_intent", map[string]any{"payment_intent": piID, "expand": []string{"latest_charge"}})
	charge, _ := got["latest_charge"].(map[string]any)
	want("retrieve_payment_intent", got, charge != nil && charge["amount_captured"] == float64(5000))
	chID := charge["id"].(string)
	want("search_payment_intents", nil, len(data(call("search_payment_intents", map[string]any{"query": "status:'succeeded'"}))) == 1)
	want("list_payment_intents", nil, len(data(call("list_payment_intents", map[string]any{"customer": id}))) == 1)
	want("retrieve_charge", nil, call("retrieve_charge", map[string]any{"charge": chID})["captured"] == true)
	want("list_charges", nil, len(data(call("list_charges", map[string]any{"payment_intent": piID}))) == 1)
	want("search_charges", nil, len(data(call("search_charges", map[string]any{"query": "amount>1000"}))) == 1)

	re := call("create_refund", map[string]any{"payment_intent": piID, "amount": 1000})
	want("retrieve_refund", nil, call("retrieve_refund", map[string]any{"refund": re["id"]})["amount"] == float64(1000))
	want("list_refunds", nil, len(data(call("list_refunds", map[string]any{"payment_intent": piID}))) == 1)
	rup := call("update_refund", map[string]any{"refund": re["id"], "metadata": map[string]string{"ticket": "T-7"}})
	rmd, _ := rup["metadata"].(map[string]any)
	want("update_refund", rup, rmd["ticket"] == "T-7" && rup["amount"] == float64(1000))
	if text, isErr := resttest.CallTool(t, cs, "create_refund", map[string]any{"payment_intent": piID, "amount": 99999}); !isErr {
		t.Errorf("over-refund over MCP: %s", text)
	}

	other := call("create_payment_intent", map[string]any{"amount": 300, "currency": "usd", "payment_method_types": []string{"card"}})
	want("cancel_payment_intent", nil, call("cancel_payment_intent", map[string]any{"payment_intent": other["id"], "cancellation_reason": "abandoned"})["status"] == "canceled")

	prod := call("create_product", map[string]any{"name": "Sticker"})
	want("retrieve_product", nil, call("retrieve_product", map[string]any{"product": prod["id"]})["name"] == "Sticker")
	want("update_product", nil, call("update_product", map[string]any{"product": prod["id"], "name": "Big sticker"})["name"] == "Big sticker")
	want("list_products", nil, len(data(call("list_products", map[string]any{}))) == 1)
	price := call("create_price", map[string]any{"product": prod["id"], "currency": "usd", "unit_amount": 250})
	want("retrieve_price", nil, call("retrieve_price", map[string]any{"price": price["id"]})["unit_amount"] == float64(250))
	want("update_price", nil, call("update_price", map[string]any{"price": price["id"], "nickname": "std"})["nickname"] == "std")
	want("list_prices", nil, len(data(call("list_prices", map[string]any{"product": prod["id"]}))) == 1)

	bal := call("retrieve_balance", map[string]any{})
	want("retrieve_balance", bal, bal["object"] == "balance")
	txns := data(call("list_balance_transactions", map[string]any{}))
	want("list_balance_transactions", txns, len(txns) == 2)
	txnID := txns[0].(map[string]any)["id"]
	want("retrieve_balance_transaction", nil, call("retrieve_balance_transaction", map[string]any{"balance_transaction": txnID})["id"] == txnID)

	events := data(call("list_events", map[string]any{"type": "payment_intent.*"}))
	want("list_events", events, len(events) >= 4)
	evID := events[0].(map[string]any)["id"]
	want("retrieve_event", nil, call("retrieve_event", map[string]any{"event": evID})["id"] == evID)

	want("detach_payment_method", nil, call("detach_payment_method", map[string]any{"payment_method": pmID})["customer"] == nil)
	want("delete_customer", nil, call("delete_customer", map[string]any{"customer": id})["deleted"] == true)

	crypto := call("create_payment_intent", map[string]any{"amount": 700, "currency": "usd", "payment_method_types": []string{"crypto"},
		"payment_method_options": map[string]any{"crypto": map[string]any{"mode": "deposit", "deposit_options": map[string]any{"networks": []string{"base"}}}}})
	want("simulate_crypto_deposit", nil, call("simulate_crypto_deposit", map[string]any{"payment_intent": crypto["id"]})["status"] == "succeeded")
	if text, isErr := resttest.CallTool(t, cs, "get_x402_protected_resource", map[string]any{}); !isErr || !strings.Contains(text, "payTo") {
		t.Errorf("get_x402_protected_resource: %s", text)
	}

	// The billing tools, with @stripe/mcp's parameter names.
	coupon := call("create_coupon", map[string]any{"name": "Launch", "percent_off": 15})
	want("create_coupon", coupon, coupon["percent_off"] == float64(15) && coupon["duration"] == "once")
	want("list_coupons", nil, len(data(call("list_coupons", map[string]any{"limit": 5}))) == 1)
	buyer := call("create_customer", map[string]any{"name": "Buyer"})["id"]
	inv := call("create_invoice", map[string]any{"customer": buyer, "days_until_due": 14})
	want("create_invoice", inv, inv["status"] == "draft" && inv["collection_method"] == "send_invoice")
	item := call("create_invoice_item", map[string]any{"customer": buyer, "price": price["id"], "invoice": inv["id"]})
	want("create_invoice_item", item, item["invoice"] == inv["id"] && item["amount"] == float64(250))
	fin := call("finalize_invoice", map[string]any{"invoice": inv["id"]})
	want("finalize_invoice", fin, fin["status"] == "open" && fin["amount_due"] == float64(250) && fin["hosted_invoice_url"] != nil)
	want("list_invoices", nil, len(data(call("list_invoices", map[string]any{"customer": buyer, "limit": 10}))) == 1)
	link := call("create_payment_link", map[string]any{"price": price["id"], "quantity": 2, "redirect_url": "https://shop.example/done"})
	want("create_payment_link", link, link["object"] == "payment_link" && link["after_completion"].(map[string]any)["type"] == "redirect")
	disputed := call("create_payment_intent", map[string]any{"amount": 1200, "currency": "usd", "payment_method": "pm_card_createDispute",
		"confirm": true, "payment_method_types": []string{"card"}})
	disputes := data(call("list_disputes", map[string]any{"payment_intent": disputed["id"], "limit": 10}))
	want("list_disputes", disputes, len(disputes) == 1)
	du := disputes[0].(map[string]any)["id"]
	upd := call("update_dispute", map[string]any{"dispute": du, "evidence": map[string]any{"duplicate_charge_explanation": "Two orders."}, "submit": true})
	want("update_dispute", upd, upd["status"] == "under_review")
	monthly := call("create_price", map[string]any{"product": prod["id"], "currency": "usd", "unit_amount": 500, "recurring": map[string]any{"interval": "month"}})
	sub := call("create_subscription", map[string]any{"customer": buyer, "items": []any{map[string]any{"price": monthly["id"]}}, "trial_period_days": 7})
	want("list_subscriptions", nil, len(data(call("list_subscriptions", map[string]any{"customer": buyer, "price": monthly["id"], "status": "trialing", "limit": 3}))) == 1)
	item0 := sub["items"].(map[string]any)["data"].([]any)[0].(map[string]any)["id"]
	upd2 := call("update_subscription", map[string]any{"subscription": sub["id"], "proration_behavior": "none_implicit",
		"items": []any{map[string]any{"id": item0, "quantity": 3}}})
	want("update_subscription", upd2, upd2["items"].(map[string]any)["data"].([]any)[0].(map[string]any)["quantity"] == float64(3))
	want("cancel_subscription", nil, call("cancel_subscription", map[string]any{"subscription": sub["id"]})["status"] == "canceled")
	for tool, args := range map[string]map[string]any{
		"cancel_subscription": {"subscription": "sub_missing"},
		"list_subscriptions":  {"status": "sleeping"},
		"update_dispute":      {"dispute": "du_missing"},
		"finalize_invoice":    {"invoice": "in_missing"},
		"create_invoice":      {"customer": "cus_missing"},
		"create_invoice_item": {"customer": buyer, "price": "price_missing", "invoice": inv["id"]},
		"create_payment_link": {"price": price["id"]},
		"create_coupon":       {"name": "none"},
	} {
		if text, isErr := resttest.CallTool(t, cs, tool, args); !isErr {
			t.Errorf("%s(%v) over MCP: %s", tool, args, text)
		}
	}

	// Every tool was called, each taped once or more as an MCP row.
	called := map[string]bool{}
	for _, r := range env.Tape(t) {
		if r.Transport == tape.TransportMCP && r.ToolName() != "" {
			called[r.ToolName()] = true
		}
	}
	var missing []string
	for _, name := range stripe.New().ActionNames() {
		if !called[name] {
			missing = append(missing, name)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("tools never called over MCP: %v", missing)
	}
}
