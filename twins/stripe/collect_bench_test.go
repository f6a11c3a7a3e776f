package stripe

import (
	"encoding/json"
	"runtime"
	"testing"

	"github.com/pomehq/pome/twins/twinstest"
)

// BenchmarkCollectCustomers times a full collection of a heap holding a
// world of 200,000 customers created through create_customer with the
// fields pome-bench sends (email, name, description), with their events:
// what a collection marks for the worlds a run of creates grew.
func BenchmarkCollectCustomers(b *testing.B) {
	_, w := worldWithCustomers(b, 200_000)
	twinstest.Collections(b, w)
}

// BenchmarkCustomerHeap reports what 50,000 customers created as
// BenchmarkCollectCustomers creates them add to the live heap, each:
// objects/customer and B/customer (its event, id and indexes included).
// Its time is nothing; the world is built once.
func BenchmarkCustomerHeap(b *testing.B) {
	const n = 50_000
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, w := worldWithCustomers(b, n)
	runtime.GC()
	runtime.ReadMemStats(&after)
	for b.Loop() {
	}
	b.ReportMetric(float64(after.HeapObjects-before.HeapObjects)/n, "objects/customer")
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/n, "B/customer")
	// What an event's snapshot is kept in, against its JSON.
	var kept, raw int64
	for _, e := range w.Events {
		n, _ := e.Data.Object.JSONSize()
		kept, raw = kept+int64(len(e.Data.Object)), raw+n
	}
	b.ReportMetric(float64(kept)/float64(len(w.Events)), "snapshot-B")
	b.ReportMetric(float64(raw)/float64(len(w.Events)), "snapshot-json-B")
	runtime.KeepAlive(w)
}

// BenchmarkDecodeWorld decodes the state document of a world of 10,000
// customers created as BenchmarkCollectCustomers creates them, with their
// events, as the Redis store does for a world it holds no copy of.
func BenchmarkDecodeWorld(b *testing.B) {
	_, w := worldWithCustomers(b, 10_000)
	doc, err := json.Marshal(w)
	if err != nil {
		b.Fatal(err)
	}
	tw := New()
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		if _, err := tw.DecodeWorld(doc); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSnapshotSizes reports what the snapshots of a payment's events
// are kept in against their JSON, by event type (B and json-B): a
// customer created, a payment intent created and confirmed (its charge),
// a product created. Its time is nothing.
func BenchmarkSnapshotSizes(b *testing.B) {
	ctx, w := worldWithCustomers(b, 0)
	for name, in := range map[string]string{
		"create_customer":       `{"email":"jo@example.com","name":"Jo Example"}`,
		"create_payment_intent": `{"amount":2000,"currency":"usd","payment_method":"pm_card_visa","confirm":true,"automatic_payment_methods":{"enabled":true,"allow_redirects":"never"}}`,
		"create_product":        `{"name":"Widget"}`,
	} {
		a, _ := New().Action(name)
		x, err := a.Decode(json.RawMessage(in))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := a.Run(ctx, w, x); err != nil {
			b.Fatal(name, err)
		}
	}
	for b.Loop() {
	}
	for _, e := range w.Events {
		n, _ := e.Data.Object.JSONSize()
		b.ReportMetric(float64(len(e.Data.Object)), e.Type+"-B")
		b.ReportMetric(float64(n), e.Type+"-json-B")
	}
}
