package stripe

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"testing"

	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/twinstest"
)

// Creates check new ids against every id the world holds through an index
// (World.ids) instead of scanning every collection. These tests pin that
// the index never misses an id the world holds, whichever way the object
// got there, and that it is rebuilt after the world is copied or decoded.

// checkIDIndex asserts that every id the world holds is in its index.
func checkIDIndex(t *testing.T, w *World) {
	t.Helper()
	if w.ids == nil {
		return
	}
	w.eachID(func(id string) {
		if _, ok := w.ids[idKey(id)]; !ok {
			t.Fatalf("id %s is in the world but not in its index", id)
		}
	})
}

func TestIDIndexCoversEveryWayIn(t *testing.T) {
	w := world(t, `{"customers": [{"id": "cus_seeded", "email": "s@example.com"}],
	  "products": [{"id": "prod_seeded", "name": "Seeded"}]}`)
	// The first create builds the index from what the seed left.
	must(t, w, "create_customer", `{"email":"a@example.com"}`)
	checkIDIndex(t, w)
	// Ids the caller chooses join the index as generated ones do.
	must(t, w, "create_product", `{"id":"prod_chosen","name":"Chosen"}`)
	must(t, w, "create_coupon", `{"id":"SAVE10","percent_off":10,"duration":"once"}`)
	must(t, w, "create_coupon", `{"percent_off":5,"duration":"once"}`)
	pi := must(t, w, "create_payment_intent", `{"amount":1200,"currency":"usd","payment_method":"pm_card_visa","payment_method_types":["card"],"confirm":true}`)
	must(t, w, "create_refund", `{"payment_intent":"`+pi["id"].(string)+`","amount":200}`)
	checkIDIndex(t, w)
	for _, id := range []string{"cus_seeded", "prod_seeded", "prod_chosen", "SAVE10", pi["id"].(string)} {
		if !w.idTaken(id) {
			t.Errorf("%s is not taken", id)
		}
	}
	if w.idTaken("cus_nothere") {
		t.Error("an unknown id is taken")
	}
	// A copy (as the stores make) starts without the index and builds it
	// from its objects on its first create.
	cp := New().CopyWorld(w).(*World)
	if cp.ids != nil {
		t.Fatal("a copy shares or carries the index")
	}
	must(t, cp, "create_customer", `{"email":"b@example.com"}`)
	checkIDIndex(t, cp)
	if _, ok := w.ids[idKey(cp.Customers[len(cp.Customers)-1].ID)]; ok {
		t.Error("a create on the copy reached the original's index")
	}
}

// A generated id that a seed already chose is skipped, with the index
// built or not.
func TestNewIDSkipsTakenIDs(t *testing.T) {
	probe := world(t, "")
	next := probe.newID("cus")
	w := world(t, `{"customers": [{"id": "`+next+`", "email": "s@example.com"}]}`)
	c := must(t, w, "create_customer", `{"email":"a@example.com"}`)
	if c["id"] == next {
		t.Fatalf("create reused the seeded id %s", next)
	}
	checkIDIndex(t, w)
}

// checkLookups asserts that every object of w is found by its id through
// the lookup indexes, and that an unknown id is not.
func checkLookups(t *testing.T, w *World) {
	t.Helper()
	for _, c := range w.Customers {
		if w.customer(c.ID) != c {
			t.Fatalf("customer %s not found as itself", c.ID)
		}
	}
	for _, p := range w.PaymentIntents {
		if w.paymentIntent(p.ID) != p {
			t.Fatalf("payment intent %s not found as itself", p.ID)
		}
	}
	for _, c := range w.Charges {
		if w.charge(c.ID) != c {
			t.Fatalf("charge %s not found as itself", c.ID)
		}
	}
	for _, r := range w.Refunds {
		if w.refund(r.ID) != r {
			t.Fatalf("refund %s not found as itself", r.ID)
		}
	}
	for _, p := range w.Products {
		if w.product(p.ID) != p {
			t.Fatalf("product %s not found as itself", p.ID)
		}
	}
	for _, e := range w.Events {
		if w.event(e.ID) != e {
			t.Fatalf("event %s not found as itself", e.ID)
		}
	}
	for _, c := range w.Coupons {
		if w.coupon(c.ID) != c {
			t.Fatalf("coupon %s not found as itself", c.ID)
		}
	}
	if w.customer("cus_nothere") != nil || w.charge("") != nil {
		t.Fatal("an unknown id was found")
	}
}

func TestLookupIndexes(t *testing.T) {
	w := world(t, `{"customers": [{"id": "cus_seeded", "email": "s@example.com"}],
	  "products": [{"id": "prod_seeded", "name": "Seeded"}]}`)
	if w.lookups.customers.pos == nil {
		t.Fatal("a new world has no lookup index")
	}
	checkLookups(t, w)
	must(t, w, "create_customer", `{"email":"a@example.com"}`)
	must(t, w, "create_product", `{"id":"prod_chosen","name":"Chosen"}`)
	must(t, w, "create_coupon", `{"id":"SAVE10","percent_off":10,"duration":"once"}`)
	pi := must(t, w, "create_payment_intent", `{"amount":1200,"currency":"usd","payment_method":"pm_card_visa","payment_method_types":["card"],"confirm":true}`)
	must(t, w, "create_refund", `{"payment_intent":"`+pi["id"].(string)+`","amount":200}`)
	checkLookups(t, w)
	if w.lookups.customers.n != len(w.Customers) || w.lookups.events.n != len(w.Events) {
		t.Fatal("a write left its objects out of the index")
	}
	// An object appended without the index catching up is found in the
	// tail.
	tail := &Customer{ID: "cus_tail"}
	w.Customers = append(w.Customers, tail)
	if w.customer("cus_tail") != tail {
		t.Fatal("an object past the index is not found")
	}
	// A copy and a decoded world get indexes of their own.
	cp := New().CopyWorld(w).(*World)
	if cp.lookups.customers.n != len(cp.Customers) {
		t.Fatal("a copy is not indexed")
	}
	checkLookups(t, cp)
	if cp.customer("cus_tail") == tail {
		t.Fatal("the copy's index points into the original")
	}
	doc, err := json.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	dec, err := New().DecodeWorld(doc)
	if err != nil {
		t.Fatal(err)
	}
	checkLookups(t, dec.(*World))
}

// An id held twice (which only a hand-written document could do) is found
// at its first place, as a scan finds it.
func TestLookupFirstOfTwins(t *testing.T) {
	first, second := &Customer{ID: "cus_a"}, &Customer{ID: "cus_a"}
	w := &World{Customers: []*Customer{first, second}}
	w.indexAll()
	if w.customer("cus_a") != first {
		t.Fatal("the second of two customers with one id was found")
	}
}

// worldWithCustomers is a world holding n customers created through the
// action with an email, a name and a description (as pome-bench creates
// them), with their events, as a busy sandbox would.
func worldWithCustomers(tb testing.TB, n int) (context.Context, *World) {
	tb.Helper()
	ctx := twins.WithEnv(context.Background(), twinstest.Env("stripe"))
	w := twinstest.World(tb, New(), "").(*World)
	a, _ := New().Action("create_customer")
	for i := range n {
		in, err := a.Decode(json.RawMessage(`{"email":"c` + strconv.Itoa(i) + `@example.com","name":"Load Test","description":"pome-bench"}`))
		if err != nil {
			tb.Fatal(err)
		}
		if _, err := a.Run(ctx, w, in); err != nil {
			tb.Fatal(err)
		}
	}
	return ctx, w
}

var benchSizes = []int{10, 1_000, 10_000}

// BenchmarkCreateCustomer creates customers in a world already holding 10 /
// 1,000 / 10,000; the cost must not grow with the world.
func BenchmarkCreateCustomer(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("customers=%d", n), func(b *testing.B) {
			ctx, w := worldWithCustomers(b, n)
			a, _ := New().Action("create_customer")
			in, err := a.Decode(json.RawMessage(`{"email":"load@example.com","name":"Load"}`))
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := a.Run(ctx, w, in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRetrieveCustomer reads one customer of a world of 10 / 1,000 /
// 10,000; the cost must not grow with the world.
func BenchmarkRetrieveCustomer(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("customers=%d", n), func(b *testing.B) {
			ctx, w := worldWithCustomers(b, n)
			a, _ := New().Action("retrieve_customer")
			in, err := a.Decode(json.RawMessage(`{"customer":"` + w.Customers[n/2].ID + `"}`))
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := a.Run(ctx, w, in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// The indexes hold an id's hash, not the id: two ids of one hash (made
// here by hand, as no two real ids are known to share one) cost a scan,
// never a wrong answer.
func TestIndexKeyCollision(t *testing.T) {
	a, b := &Customer{ID: "cus_a"}, &Customer{ID: "cus_b"}
	w := &World{Customers: []*Customer{a, b}}
	w.indexAll()
	// cus_b's key made to name cus_a's position, as a collision would.
	w.lookups.customers.pos[idKey("cus_b")] = 0
	if w.customer("cus_b") != b || w.customer("cus_a") != a {
		t.Fatal("a key naming another id's position gave the wrong customer")
	}
	if w.customer("cus_c") != nil {
		t.Fatal("an unknown id was found")
	}
}
