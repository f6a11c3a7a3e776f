package stripe

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"math/bits"
	"sort"
	"strconv"

	"github.com/pomehq/pome/internal/slab"
	"github.com/pomehq/pome/internal/strchunk"
	"github.com/pomehq/pome/twins"
)

// APIVersion is the Stripe API version the twin answers as; events carry it.
const APIVersion = "2025-08-27.basil"

// World is the whole state of one Stripe account in one sandbox. Objects are
// kept in creation order and stored in the same shape the API returns them,
// with expandable references held as id strings (or null).
type World struct {
	// Counters holds the next sequence number per id prefix, so ids stay
	// deterministic across the JSON round trip the Redis store makes.
	Counters map[string]int64 `json:"counters"`

	Customers           []*Customer           `json:"customers"`
	PaymentMethods      []*PaymentMethod      `json:"payment_methods"`
	PaymentIntents      []*PaymentIntent      `json:"payment_intents"`
	Charges             []*Charge             `json:"charges"`
	Refunds             []*Refund             `json:"refunds"`
	Products            []*Product            `json:"products"`
	Prices              []*Price              `json:"prices"`
	BalanceTransactions []*BalanceTransaction `json:"balance_transactions"`
	Events              []*Event              `json:"events"`
	Coupons             []*Coupon             `json:"coupons,omitempty"`
	Invoices            []*Invoice            `json:"invoices,omitempty"`
	InvoiceItems        []*InvoiceItem        `json:"invoice_items,omitempty"`
	PaymentLinks        []*PaymentLink        `json:"payment_links,omitempty"`
	Disputes            []*Dispute            `json:"disputes,omitempty"`
	Subscriptions       []*Subscription       `json:"subscriptions,omitempty"`
	// PaymentLinkItems are each payment link's line items, which Stripe
	// returns only when expanded (the twin does not expand them).
	PaymentLinkItems map[string][]PaymentLinkLineItem `json:"payment_link_items,omitempty"`

	// BalanceBase is the seeded starting balance, to which balance
	// transactions add.
	BalanceBase BalanceBase `json:"balance_base"`

	// Faults are the seeded failures to inject; see Fault.
	Faults []*Fault `json:"faults"`

	// SeedKeyHashes are the hashes of the API keys the seed lists
	// (api_keys of the original Pome's format), which open this sandbox
	// besides its issued credential (SeedCredentials).
	SeedKeyHashes []string `json:"seed_key_hashes,omitempty"`

	// X402 are the x402 payments the protected resource accepted.
	X402 []*X402Settlement `json:"x402_settlements,omitempty"`

	// Idempotency holds the saved outcomes of requests sent with an
	// Idempotency-Key (see guard), for 24 hours of sandbox clock.
	Idempotency []*IdempotencyRecord `json:"idempotency_keys,omitempty"`

	// Behaviors maps a card fingerprint to the test behaviour of that card
	// number (see cards.go); it lets seeded and created cards share one
	// table without exposing card numbers.
	Behaviors map[string]string `json:"card_behaviors,omitempty"`

	// reserved holds ids a seed names, while the seed is being built, so
	// generated ids avoid them.
	reserved []string

	// ids indexes every id the world holds or has handed out, so a create
	// checks its new id without scanning every collection (which made N
	// creates cost O(N²)). It is not part of the document: nil in a world
	// just decoded or copied, and built from the objects by the first
	// create that needs it (idTaken); from then on newID and claimID keep
	// it current. Only write paths touch it, under the store's write lock.
	// It may hold an id whose object a failed write never added, which
	// only makes newID skip that id. Ids are held as their idKey (see
	// seqIndex), which makes the set one the collector does not scan; an id
	// whose key another id has is taken too, which likewise only makes
	// newID skip it.
	ids map[uint64]struct{}
	// text keeps the ids newID hands out, many to a chunk (strchunk), the
	// events' snapshots (emit) and the customers' strings (newCustomer,
	// keepString); write paths only. Nothing is freed: an id stays taken
	// for good, an event never changes or goes, and a customer's string
	// that an update replaced is small beside the update's event.
	text strchunk.Store
	// customerSlab and eventSlab hand out the customers and events the
	// world creates, many to a block (slab): both collections only grow,
	// so a block lives as long as the world. Write paths only; worlds
	// decoded or copied hold their objects one by one, as before.
	customerSlab slab.Slab[Customer]
	eventSlab    slab.Slab[Event]
	// stringSlab holds the optional strings of the world's customers
	// (keepString).
	stringSlab slab.Slab[string]

	// lookups index each collection by id (index.go).
	lookups lookupIndexes
}

// BalanceBase is a per-currency starting balance.
type BalanceBase struct {
	Available map[string]int64 `json:"available"`
	Pending   map[string]int64 `json:"pending"`
}

// Fault is a seeded failure injected on one write route: on the Attempt-th
// request (1-based) matching Method and Path, respond with Status and Body,
// either before the handler runs ("before": nothing changes) or after it
// ran ("after": the change is committed and the response is lost, which is
// what idempotency keys exist for). The write actions' protocol wrapper
// (guard) consults it at the start of every call.
type Fault struct {
	Method  string          `json:"method"`
	Path    string          `json:"path"`
	Attempt int64           `json:"attempt"`
	When    string          `json:"when"`
	Status  int             `json:"status"`
	Body    json.RawMessage `json:"body,omitempty"`
	// Seen counts matching requests so far.
	Seen int64 `json:"seen"`
}

// NextFault counts one request for method and path (the path below the
// twin's API root, e.g. "/v1/payment_intents") and returns the fault to
// inject for it, if any. The write actions call it through guard, which
// uncounts attempts whose world is not persisted.
func (w *World) NextFault(method, path string) *Fault {
	var hit *Fault
	for _, f := range w.Faults {
		if f.Method != method || !faultPathMatches(f.Path, path) {
			continue
		}
		f.Seen++
		if f.Seen == f.Attempt && hit == nil {
			hit = f
		}
	}
	return hit
}

// faultPathMatches compares a fault path with a request path; a trailing
// "*" matches any suffix.
func faultPathMatches(pattern, path string) bool {
	if n := len(pattern); n > 0 && pattern[n-1] == '*' {
		return len(path) >= n-1 && path[:n-1] == pattern[:n-1]
	}
	return pattern == path
}

// idLengths are the lengths of the random part of Stripe ids per prefix.
var idLengths = map[string]int{
	"cus": 14, "prod": 14, "pi": 24, "ch": 24, "re": 24, "pm": 24, "evt": 24,
	"txn": 24, "price": 24, "req": 14, "secret": 25, "fp": 16, "inv": 8,
	"in": 24, "ii": 24, "il": 24, "plink": 24, "du": 24, "sub": 24, "si": 14,
}

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// token derives a stable base62 string of length n from a seed string:
// the digits of the seed's SHA-256, read as a 256-bit number, from the
// least significant, continued with the hash of the hash when the number
// runs out. The division is done on four 64-bit words (a math/big version
// cost a create 4% of the server's CPU), by 62^10 while the number holds
// ten more digits, so ten digits cost four divisions of a word rather than
// forty; tokenBig in the tests is the reference it must equal.
func token(seed string, n int) string {
	sum := sha256.Sum256([]byte(seed))
	var v [4]uint64
	load := func() {
		for i := range v {
			v[i] = binary.BigEndian.Uint64(sum[8*i:])
		}
	}
	load()
	out := make([]byte, n)
	for i := 0; i < len(out); {
		if v == [4]uint64{} {
			sum = sha256.Sum256(sum[:])
			load()
		}
		var rem uint64
		if v[0]|v[1]|v[2] != 0 || v[3] >= pow62x10 {
			// At least 62^10: none of the next ten digits finds the
			// number run out, and they are those of its remainder.
			for j := range v {
				v[j], rem = bits.Div64(rem, v[j], pow62x10)
			}
			for k := 0; k < 10 && i < len(out); k++ {
				out[i] = base62[rem%62]
				rem /= 62
				i++
			}
			continue
		}
		for j := range v {
			v[j], rem = bits.Div64(rem, v[j], 62)
		}
		out[i] = base62[rem]
		i++
	}
	return string(out)
}

// pow62x10 is 62^10, the largest power of 62 under 2^64 that token's
// division uses.
const pow62x10 = 839299365868340224

// newID returns the next id for prefix ("cus", "pi", …). Ids depend only on
// the prefix and the counter, so two sandboxes built from the same seed hand
// out the same ids and a run can be replayed.
func (w *World) newID(prefix string) string {
	if w.Counters == nil {
		w.Counters = map[string]int64{}
	}
	n := idLengths[prefix]
	if n == 0 {
		n = 24
	}
	for {
		w.Counters[prefix]++
		seq := w.Counters[prefix]
		body := token(prefix+"/"+itoa(seq), n)
		if n >= 24 {
			// Stripe's long ids start with a version digit.
			body = "3" + body[1:]
		}
		id := prefix + "_" + body
		if !w.idTaken(id) {
			// Kept in the world's chunks: an id is never given up (ids
			// holds it for good), and a world of many objects then holds
			// their ids in a few chunks for the collector to mark.
			id = w.text.Keep(id)
			w.ids[idKey(id)] = struct{}{}
			return id
		}
	}
}

// newBareID returns the next id of a kind Stripe gives no prefix (coupons:
// eight characters), counted under kind.
func (w *World) newBareID(kind string, n int) string {
	if w.Counters == nil {
		w.Counters = map[string]int64{}
	}
	for {
		w.Counters[kind]++
		id := token(kind+"/"+itoa(w.Counters[kind]), n)
		if !w.idTaken(id) {
			w.ids[idKey(id)] = struct{}{}
			return id
		}
	}
}

// idTaken guards generated ids against ids a seed or a caller chose. It
// builds the index if the world has none yet.
func (w *World) idTaken(id string) bool {
	for _, r := range w.reserved {
		if r == id {
			return true
		}
	}
	if w.ids == nil {
		w.ids = w.allIDs()
	}
	_, ok := w.ids[idKey(id)]
	return ok
}

// claimID records an id a caller chose (a product's or coupon's id) for an
// object being added, so no generated id takes it later.
func (w *World) claimID(id string) {
	if w.ids != nil {
		w.ids[idKey(id)] = struct{}{}
	}
}

// allIDs is the set of every object id the world holds.
func (w *World) allIDs() map[uint64]struct{} {
	ids := make(map[uint64]struct{}, len(w.Customers)+len(w.PaymentIntents)+len(w.Charges)+len(w.BalanceTransactions)+len(w.Events))
	w.eachID(func(id string) { ids[idKey(id)] = struct{}{} })
	return ids
}

// eachID calls add with the id of every object the world holds.
func (w *World) eachID(add func(id string)) {
	for _, c := range w.Customers {
		add(c.ID)
	}
	for _, p := range w.PaymentMethods {
		add(p.ID)
	}
	for _, p := range w.PaymentIntents {
		add(p.ID)
	}
	for _, c := range w.Charges {
		add(c.ID)
	}
	for _, r := range w.Refunds {
		add(r.ID)
	}
	for _, p := range w.Products {
		add(p.ID)
	}
	for _, p := range w.Prices {
		add(p.ID)
	}
	for _, t := range w.BalanceTransactions {
		add(t.ID)
	}
	for _, e := range w.Events {
		add(e.ID)
	}
	for _, c := range w.Coupons {
		add(c.ID)
	}
	for _, in := range w.Invoices {
		add(in.ID)
	}
	for _, ii := range w.InvoiceItems {
		add(ii.ID)
	}
	for _, pl := range w.PaymentLinks {
		add(pl.ID)
	}
	for _, d := range w.Disputes {
		add(d.ID)
	}
	for _, sub := range w.Subscriptions {
		add(sub.ID)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// now is the sandbox clock in unix seconds.
func now(ctx context.Context) int64 { return twins.EnvFrom(ctx).Now().Unix() }

// refOf reads an expandable reference held as an id string.
func refOf(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case *string:
		if t != nil {
			return *t
		}
	}
	return ""
}

// keepString returns a pointer to v, an optional string field of one of
// the world's customers (email, name, …), kept with the world's other text
// and pointers (World.text, World.stringSlab) instead of as two objects of
// its own. What a field held before an update stays there: the update's
// event keeps a snapshot many times its size for good anyway.
func (w *World) keepString(v string) *string {
	p := w.stringSlab.New()
	*p = w.text.Keep(v)
	return p
}

// ref stores an id as an expandable reference: null when empty.
func ref(id string) any {
	if id == "" {
		return nil
	}
	return id
}

// strp returns a pointer to s, or nil for "".
func strp(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// newestFirst orders objects the way Stripe lists them: by creation time,
// newest first, ties broken by creation order.
func newestFirst[T any](items []T, created func(T) int64) []T {
	out := make([]T, len(items))
	for i := range items {
		out[len(items)-1-i] = items[i]
	}
	sort.SliceStable(out, func(i, j int) bool { return created(out[i]) > created(out[j]) })
	return out
}

// clone deep-copies an object through JSON, so that expansions and event
// snapshots never alias the world.
func clone[T any](v *T) *T {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	out := new(T)
	if err := json.Unmarshal(b, out); err != nil {
		panic(err)
	}
	return out
}

// mergeMetadata applies Stripe's metadata update rules: keys are merged, and
// a key set to "" is removed.
func mergeMetadata(dst map[string]string, upd map[string]string) map[string]string {
	if len(dst) == 0 {
		// Never written into: an empty map may be noMetadata, which every
		// new customer shares.
		dst = make(map[string]string, len(upd))
	}
	for k, v := range upd {
		if v == "" {
			delete(dst, k)
			continue
		}
		dst[k] = v
	}
	return dst
}

// noMetadata is the metadata of a new customer: one empty map for all of
// them rather than an object each, for the collector to mark in a world
// of many. Nothing writes into it: mergeMetadata, the one writer of an
// object's metadata, writes into a new map when the old one is empty.
var noMetadata = map[string]string{}

func metadataOrEmpty(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		if v != "" {
			out[k] = v
		}
	}
	return out
}

// mustRoundTrip decodes v's JSON into out; world objects always marshal.
func mustRoundTrip(v any, out any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		panic(err)
	}
}
