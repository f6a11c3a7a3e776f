package stripe

// Lookups by id go through an index per collection, so that finding an
// object (every retrieve, and every write that names a customer, a payment
// method or a charge) costs the same in a world of ten objects as in one of
// ten thousand.
//
// Collections only grow: objects are appended and never removed or
// reordered (a deleted customer stays, marked deleted). An index maps the
// ids of a collection's first n objects to their positions; an object
// past n (appended since the index last caught up) is found by scanning
// that short tail, so a lookup is right whether or not its index is
// current. Indexes are not part of the state document: every world the
// twin builds, decodes or copies gets them (World.indexAll) before any
// action sees it, and each write catches them up when it ends (guard),
// under the store's write lock; reads only read them.

// seqIndex indexes one append-only collection.
//
// Its map is keyed by a hash of the id (idKey), not the id: a map of
// strings is a map of pointers the collector scans on every collection,
// entry by entry, where one of integers is skipped whole; in a world of
// many customers and their events, the two indexes and the id set
// (World.ids) were among the largest things a collection read
// (BenchmarkCollectCustomers). Two ids of one hash cost a scan, never a
// wrong answer: find checks the id at the position it got, and only the
// first of such ids is indexed.
type seqIndex struct {
	pos map[uint64]int32 // idKey(id) → position, for the first n objects
	n   int
}

// idKey is the key an id has in the world's indexes and id set: its 64-bit
// FNV-1a hash, the same in every process, so that what a collision does
// (World.ids: newID skips an id) happens alike wherever a run is replayed.
func idKey(id string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(id); i++ {
		h ^= uint64(id[i])
		h *= 1099511628211
	}
	return h
}

// lookupIndexes are the World's indexes, one per collection.
type lookupIndexes struct {
	customers, paymentMethods, paymentIntents, charges, refunds, products, prices,
	balanceTransactions, events, coupons, invoices, disputes, subscriptions seqIndex
}

// find returns the first object of items whose id is id, or nil.
func find[T any](ix *seqIndex, items []*T, id string, idOf func(*T) string) *T {
	from := 0
	if ix.pos != nil && ix.n <= len(items) {
		if i, ok := ix.pos[idKey(id)]; ok && idOf(items[i]) == id {
			return items[i]
		} else if !ok {
			from = ix.n
		}
	}
	for _, it := range items[from:] {
		if idOf(it) == id {
			return it
		}
	}
	return nil
}

// catchUp indexes the objects appended to items since ix last caught up.
// An id seen before keeps its first position, as a scan finds it first.
func catchUp[T any](ix *seqIndex, items []*T, idOf func(*T) string) {
	if ix.pos == nil || ix.n > len(items) {
		ix.pos, ix.n = make(map[uint64]int32, len(items)), 0
	}
	for i := ix.n; i < len(items); i++ {
		k := idKey(idOf(items[i]))
		if _, seen := ix.pos[k]; !seen {
			ix.pos[k] = int32(i)
		}
	}
	ix.n = len(items)
}

// The id of each kind of object, for find and catchUp.
var (
	customerID           = func(c *Customer) string { return c.ID }
	paymentMethodID      = func(p *PaymentMethod) string { return p.ID }
	paymentIntentID      = func(p *PaymentIntent) string { return p.ID }
	chargeID             = func(c *Charge) string { return c.ID }
	refundID             = func(r *Refund) string { return r.ID }
	productID            = func(p *Product) string { return p.ID }
	priceID              = func(p *Price) string { return p.ID }
	balanceTransactionID = func(t *BalanceTransaction) string { return t.ID }
	eventID              = func(e *Event) string { return e.ID }
	couponID             = func(c *Coupon) string { return c.ID }
	invoiceID            = func(in *Invoice) string { return in.ID }
	disputeID            = func(d *Dispute) string { return d.ID }
	subscriptionID       = func(s *Subscription) string { return s.ID }
)

// indexAll catches every collection's index up with its objects.
func (w *World) indexAll() {
	ix := &w.lookups
	catchUp(&ix.customers, w.Customers, customerID)
	catchUp(&ix.paymentMethods, w.PaymentMethods, paymentMethodID)
	catchUp(&ix.paymentIntents, w.PaymentIntents, paymentIntentID)
	catchUp(&ix.charges, w.Charges, chargeID)
	catchUp(&ix.refunds, w.Refunds, refundID)
	catchUp(&ix.products, w.Products, productID)
	catchUp(&ix.prices, w.Prices, priceID)
	catchUp(&ix.balanceTransactions, w.BalanceTransactions, balanceTransactionID)
	catchUp(&ix.events, w.Events, eventID)
	catchUp(&ix.coupons, w.Coupons, couponID)
	catchUp(&ix.invoices, w.Invoices, invoiceID)
	catchUp(&ix.disputes, w.Disputes, disputeID)
	catchUp(&ix.subscriptions, w.Subscriptions, subscriptionID)
}

// Lookups. Each returns nil when the id is unknown.

func (w *World) customer(id string) *Customer {
	return find(&w.lookups.customers, w.Customers, id, customerID)
}

func (w *World) paymentMethod(id string) *PaymentMethod {
	return find(&w.lookups.paymentMethods, w.PaymentMethods, id, paymentMethodID)
}

func (w *World) paymentIntent(id string) *PaymentIntent {
	return find(&w.lookups.paymentIntents, w.PaymentIntents, id, paymentIntentID)
}

func (w *World) charge(id string) *Charge {
	return find(&w.lookups.charges, w.Charges, id, chargeID)
}

func (w *World) refund(id string) *Refund {
	return find(&w.lookups.refunds, w.Refunds, id, refundID)
}

func (w *World) product(id string) *Product {
	return find(&w.lookups.products, w.Products, id, productID)
}

func (w *World) price(id string) *Price {
	return find(&w.lookups.prices, w.Prices, id, priceID)
}

func (w *World) balanceTransaction(id string) *BalanceTransaction {
	return find(&w.lookups.balanceTransactions, w.BalanceTransactions, id, balanceTransactionID)
}

func (w *World) event(id string) *Event {
	return find(&w.lookups.events, w.Events, id, eventID)
}

func (w *World) coupon(id string) *Coupon {
	return find(&w.lookups.coupons, w.Coupons, id, couponID)
}

func (w *World) invoice(id string) *Invoice {
	return find(&w.lookups.invoices, w.Invoices, id, invoiceID)
}

func (w *World) dispute(id string) *Dispute {
	return find(&w.lookups.disputes, w.Disputes, id, disputeID)
}

func (w *World) subscription(id string) *Subscription {
	return find(&w.lookups.subscriptions, w.Subscriptions, id, subscriptionID)
}
