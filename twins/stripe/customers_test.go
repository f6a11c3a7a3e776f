package stripe

import (
	"encoding/json"
	"fmt"
	"reflect"
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

// Customers and events are kept in blocks, their strings and snapshots in
// shared chunks, and new customers share one empty metadata map: none of
// that may let one object's change reach another's. Enough customers to
// fill several blocks are created, a third of them updated (email, name
// and metadata), and every customer and every event must still read as
// answered, the untouched customers with empty metadata. (The actions are
// run directly: twinstest's checks encode the whole world on every call.)
func TestKeptCustomersStayApart(t *testing.T) {
	ctx, w := worldWithCustomers(t, 0)
	tw := New()
	must := func(t *testing.T, w *World, name, args string) map[string]any {
		t.Helper()
		a, _ := tw.Action(name)
		in, err := a.Decode(json.RawMessage(args))
		if err != nil {
			t.Fatal(err)
		}
		out, err := a.Run(ctx, w, in)
		if err != nil {
			t.Fatalf("%s(%s): %v", name, args, err)
		}
		var m map[string]any
		b, _ := json.Marshal(out)
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	const n = 300
	created := make([]map[string]any, n)
	for i := range n {
		created[i] = must(t, w, "create_customer", fmt.Sprintf(`{"email":"c%d@example.com","name":"C %d","description":"d%d"}`, i, i, i))
	}
	for i := 0; i < n; i += 3 {
		id := created[i]["id"].(string)
		must(t, w, "update_customer", fmt.Sprintf(`{"customer":%q,"email":"new%d@example.com","name":"New %d","metadata":{"k":"v%d"}}`, id, i, i, i))
	}
	if len(noMetadata) != 0 {
		t.Fatalf("the shared empty metadata was written to: %v", noMetadata)
	}
	for i := range n {
		got := must(t, w, "retrieve_customer", fmt.Sprintf(`{"customer":%q}`, created[i]["id"]))
		email, name, meta := fmt.Sprintf("c%d@example.com", i), fmt.Sprintf("C %d", i), map[string]any{}
		if i%3 == 0 {
			email, name, meta = fmt.Sprintf("new%d@example.com", i), fmt.Sprintf("New %d", i), map[string]any{"k": fmt.Sprintf("v%d", i)}
		}
		if got["email"] != email || got["name"] != name || got["description"] != fmt.Sprintf("d%d", i) || !reflect.DeepEqual(got["metadata"], meta) {
			t.Fatalf("customer %d reads %v %v %v %v", i, got["email"], got["name"], got["description"], got["metadata"])
		}
	}
	// Each customer.created event still holds the customer as created.
	seen := 0
	for _, e := range w.Events {
		if e.Type != "customer.created" {
			continue
		}
		js, err := e.Data.Object.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		var obj map[string]any
		if err := json.Unmarshal(js, &obj); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(obj, created[seen]) {
			t.Fatalf("event %s holds %v, not the customer as created %v", e.ID, obj, created[seen])
		}
		seen++
	}
	if seen != n {
		t.Fatalf("%d customer.created events, want %d", seen, n)
	}
}
