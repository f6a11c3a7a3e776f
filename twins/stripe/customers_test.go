package stripe

import (
	"strings"
	"testing"

	"github.com/pomehq/pome/twins"
)

func TestCustomers(t *testing.T) {
	w := world(t, "")
	c := must(t, w, "create_customer", `{"email":"bob@example.com","name":"Bob","phone":"+15555550100","metadata":{"tier":"gold"},"address":{"city":"Paris","country":"FR"},"payment_method":"pm_card_visa","invoice_settings":{"default_payment_method":"pm_card_visa"}}`)
	id := c["id"].(string)
	if c["object"] != "customer" || c["email"] != "bob@example.com" || c["address"].(map[string]any)["city"] != "Paris" || c["livemode"] != false {
		t.Fatalf("created %v", c)
	}
	dpm, _ := c["invoice_settings"].(map[string]any)["default_payment_method"].(string)
	if pm := w.paymentMethod(dpm); pm == nil || refOf(pm.Customer) != id {
		t.Fatalf("default payment method %q not attached", dpm)
	}
	if got := strings.Join(eventTypes(w), ","); got != "customer.created,payment_method.attached" {
		t.Errorf("events %s", got)
	}
	r := call(t, w, "update_customer", `{"customer":"`+id+`","name":"Robert","metadata":{"tier":"","team":"b"}}`)
	if r.Err != nil || !r.Mutated {
		t.Fatal(r.Err)
	}
	u := r.JSON(t)
	if u["name"] != "Robert" || u["metadata"].(map[string]any)["team"] != "b" || u["metadata"].(map[string]any)["tier"] != nil {
		t.Errorf("updated %v", u)
	}
	ev := w.Events[len(w.Events)-1]
	if ev.Type != "customer.updated" || ev.Data.PreviousAttributes["name"] != "Bob" {
		t.Errorf("update event %+v", ev.Data.PreviousAttributes)
	}
	// An update that changes nothing is not a mutation and emits nothing.
	n := len(w.Events)
	if r := call(t, w, "update_customer", `{"customer":"`+id+`","name":"Robert"}`); r.Err != nil || r.Mutated || len(w.Events) != n {
		t.Errorf("no-op update: %+v mutated=%v", r.Err, r.Mutated)
	}
	if l := must(t, w, "list_customers", `{"email":"bob@example.com"}`); listIDs(l) != id {
		t.Errorf("by email: %s", listIDs(l))
	}
	if l := must(t, w, "list_customers", `{"email":"BOB@example.com"}`); len(l["data"].([]any)) != 0 {
		t.Error("the email filter is case-sensitive")
	}
	s := must(t, w, "search_customers", `{"query":"email:'BOB@example.com' OR name~'ali'"}`)
	if len(s["data"].([]any)) != 2 {
		t.Errorf("search %v", listIDs(s))
	}
	if s := must(t, w, "search_customers", `{"query":"metadata['team']:'b' AND -name:'Alice'"}`); listIDs(s) != id {
		t.Errorf("metadata search %s", listIDs(s))
	}
	d := must(t, w, "delete_customer", `{"customer":"`+id+`"}`)
	if d["deleted"] != true || d["id"] != id {
		t.Errorf("delete %v", d)
	}
	got := must(t, w, "retrieve_customer", `{"customer":"`+id+`"}`)
	if got["deleted"] != true {
		t.Errorf("retrieve deleted %v", got)
	}
	if shaped := deletedShape(nil, w.customer(id)); shaped.(DeletedObject).Object != "customer" {
		t.Errorf("REST shape %v", shaped)
	}
	if l := must(t, w, "list_customers", `{}`); strings.Contains(listIDs(l), id) {
		t.Error("deleted customers are not listed")
	}
	if w.Events[len(w.Events)-1].Type != "customer.deleted" {
		t.Error("no customer.deleted event")
	}
}

func TestCustomerErrors(t *testing.T) {
	cases := []struct {
		name, action, args string
		code               twins.Code
		vendor, param      string
	}{
		{"bad email", "create_customer", `{"email":"nope"}`, twins.Invalid, "email_invalid", "email"},
		{"unknown pm", "create_customer", `{"payment_method":"pm_nope"}`, twins.NotFound, "resource_missing", "payment_method"},
		{"default pm not given", "create_customer", `{"invoice_settings":{"default_payment_method":"pm_x"}}`, twins.Invalid, "", "invoice_settings[default_payment_method]"},
		{"bad tax_exempt", "create_customer", `{"tax_exempt":"maybe"}`, twins.Invalid, "", "tax_exempt"},
		{"too much metadata", "create_customer", `{"metadata":{"k":"` + strings.Repeat("v", 501) + `"}}`, twins.Invalid, "", "metadata[k]"},
		{"bad expand", "create_customer", `{"expand":["nope"]}`, twins.Invalid, "", "expand"},
		{"retrieve unknown", "retrieve_customer", `{"customer":"cus_nope"}`, twins.NotFound, "resource_missing", "id"},
		{"update unknown", "update_customer", `{"customer":"cus_nope","name":"x"}`, twins.NotFound, "resource_missing", "id"},
		{"delete unknown", "delete_customer", `{"customer":"cus_nope"}`, twins.NotFound, "resource_missing", "id"},
		{"list bad limit", "list_customers", `{"limit":0}`, twins.Invalid, "parameter_invalid_integer", "limit"},
		{"list both cursors", "list_customers", `{"starting_after":"a","ending_before":"b"}`, twins.Invalid, "", "ending_before"},
		{"list bad created", "list_customers", `{"created":{"gte":"soon"}}`, twins.Invalid, "parameter_invalid_integer", "created[gte]"},
		{"search empty", "search_customers", `{"query":""}`, twins.Invalid, "parameter_missing", "query"},
		{"search short substring", "search_customers", `{"query":"name~'al'"}`, twins.Invalid, "", "query"},
		{"search unterminated", "search_customers", `{"query":"email:'x"}`, twins.Invalid, "", "query"},
		{"search bad page", "search_customers", `{"query":"email:'x'","page":"%%%"}`, twins.Invalid, "", "page"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := world(t, "")
			before := snapshot(t, w)
			e := wantErr(t, w, c.action, c.args, c.code, c.vendor)
			if e.Field != c.param {
				t.Errorf("param %q, want %q (%s)", e.Field, c.param, e.Message)
			}
			if snapshot(t, w) != before {
				t.Error("refused call changed the world")
			}
		})
	}
}

func TestDeletedCustomerCannotPay(t *testing.T) {
	w := world(t, "")
	id := w.Customers[0].ID
	must(t, w, "delete_customer", `{"customer":"`+id+`"}`)
	wantErr(t, w, "create_payment_intent", `{"amount":1000,"currency":"usd","customer":"`+id+`"}`, twins.NotFound, "resource_missing")
	wantErr(t, w, "delete_customer", `{"customer":"`+id+`"}`, twins.NotFound, "resource_missing")
}
