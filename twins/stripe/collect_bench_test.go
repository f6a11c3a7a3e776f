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
