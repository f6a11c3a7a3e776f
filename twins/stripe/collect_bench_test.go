package stripe

import (
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
