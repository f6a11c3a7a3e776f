// Package stripe is the Stripe twin: a stateful Stripe account in test mode
// that stripe-go and stripe-node can talk to unchanged and that agents reach
// over MCP with the Stripe agent toolkit's tool names (create_customer,
// create_payment_intent, create_refund, list_customers, …), including every
// tool of Stripe's own MCP server but its documentation search.
//
// The world is one account's test mode: there is no Connect (no
// Stripe-Account header, no other accounts) and no live mode, so every
// object in it belongs to the caller's key and nothing is hidden from it;
// the seed refuses keys that would say otherwise.
//
// # Base URLs
//
// Stripe's SDKs route by the request path and expect /v1/… at the root of
// their base URL, so the twin is also served at the server's root: point
// the SDK at the server (stripe-go: BackendConfig.URL = "https://pome.example";
// stripe-node: host/port/protocol) with the sandbox's sk_test_ key, which
// names the sandbox, and {server}/v1/customers reaches this sandbox's twin.
// The sandbox's own base URL, {server}/stripe/s/{sid}, serves the same
// paths (…/stripe/s/{sid}/v1/customers) for clients that accept a base
// path. Both take the key as a Bearer token or as the Basic user (curl -u
// sk_test_…:). Every answer carries a Request-Id header (req_…), which
// stripe-go reports as LastResponse.RequestID.
//
// # Idempotency-Key and faults
//
// A POST with an Idempotency-Key saves its outcome in the world for 24 hours
// of sandbox clock: a retry with the same key and the same parameters gets
// the saved answer — the same object, or the same error for a request that
// reached the card network (a decline) — without changing anything again
// (the tape reads state_mutation=false). The same key with other
// parameters, or on another endpoint, is refused with 400
// idempotency_error. As at Stripe, a request refused by validation saves
// nothing and may be retried with its key. Two differences: replays do not
// carry the Idempotent-Replayed header (handlers cannot set response
// headers), and since a sandbox runs its writes one at a time, a concurrent
// request with the same key waits and is replayed rather than answered 409.
//
// The seed's faults inject failures on write routes (POST and DELETE;
// see Fault): on the Nth counted attempt of a method and path, a
// "before" fault answers its status and body (Stripe's envelope for the
// status when the seed gives none) and changes nothing; an "after" fault
// lets the call commit — and save its outcome under its Idempotency-Key —
// and then answers the failure, so the client cannot know the change
// happened unless it retries with the same key. Only attempts the world
// keeps are counted: refusals, replays and writes that change nothing are
// not, and an injected fault is taped with state_mutation=true because its
// counter is part of the state. Over MCP the same faults apply (a fault
// describes the operation) and answer the body's message as a tool error.
//
// # Surface
//
// Customers (create, retrieve, update, delete, list, search), payment methods
// (create from test card numbers or tokens, retrieve, attach, detach, list),
// PaymentIntents (create, retrieve, update, confirm, capture including
// partial capture, cancel, list, search) with Stripe's status machine, the
// charges confirmation creates (retrieve, list, search), refunds (full or
// partial, by PaymentIntent or charge), products and prices (create,
// retrieve, update, list), the balance and
// its transactions, coupons, invoices and invoice items, payment links,
// subscriptions and disputes (the tools of Stripe's own MCP server,
// @stripe/mcp, with its tool and parameter names), and an event for every
// state change (list, retrieve).
// The original Pome's crypto rail is here too (payment_method_types
// ["crypto"], settled by the simulate_crypto_deposit test helper), and
// {sandbox}/x402/protected-resource, an x402 paywall paid in that rail
// (FIDELITY.md).
// Lists use Stripe's envelope and cursors (limit, starting_after,
// ending_before); expand[] expands customer, payment_method, latest_charge,
// payment_intent, charge, balance_transaction, product and default_price.
//
// Test cards behave as in Stripe test mode: pm_card_visa and 4242… succeed,
// every card, PaymentMethod and token of the testing docs' declined-payments
// tables declines as documented — pm_card_visa_chargeDeclined
// (4000000000000002) with card_declined / generic_decline,
// pm_card_visa_chargeDeclinedInsufficientFunds (4000000000009995) with
// insufficient_funds, …LostCard, …StolenCard, …ExpiredCard, …IncorrectCvc,
// …ProcessingError, …VelocityLimitExceeded, tok_visa_chargeDeclinedFraudulent,
// and pm_card_radarBlock (4100000000000019) is blocked by Radar as
// fraudulent; those cards also cannot be attached to a customer, while
// pm_card_chargeCustomerFail attaches and then declines. pm_card_authenticationRequired
// (4000002760003184) and 4000002500003155 move the PaymentIntent to
// requires_action. A decline answers 402 card_error with code, decline_code
// and the PaymentIntent, which keeps the failed charge as latest_charge and
// the error as last_payment_error. The "processing" status is never reached
// by cards (as in Stripe); seeds may set it.
//
// # Seed
//
// The seed is decoded strictly: unknown keys, wrong types and broken
// references (a PaymentIntent naming a customer the seed does not hold, a
// payment method attached to another customer) are errors naming the JSON
// path. Without a seed the world holds one customer, alice@example.com, and
// nothing else. Every list is optional; ids are generated when absent;
// "created" (unix seconds) defaults to the sandbox clock. Amounts are in the
// currency's smallest unit.
//
//	{
//	  "customers": [
//	    {"id": "cus_alice", "email": "alice@example.com", "name": "Alice",
//	     "metadata": {"tier": "gold"}, "default_payment_method": "pm_alice_visa"}
//	  ],
//	  "payment_methods": [
//	    {"id": "pm_alice_visa", "card": "4242424242424242", "customer": "cus_alice"},
//	    {"id": "pm_declines", "card": "pm_card_chargeCustomerFail", "customer": "cus_alice"}
//	  ],
//	  "products": [{"id": "prod_tshirt", "name": "T-shirt"}],
//	  "prices": [{"id": "price_tshirt", "product": "prod_tshirt", "unit_amount": 2000,
//	              "currency": "usd", "default": true}],
//	  "payment_intents": [
//	    {"id": "pi_order_1001", "amount": 5000, "currency": "usd", "customer": "cus_alice",
//	     "payment_method": "pm_alice_visa", "status": "succeeded", "latest_charge": "ch_order_1001",
//	     "metadata": {"order_id": "1001"}},
//	    {"id": "pi_hold", "amount": 3000, "currency": "usd", "customer": "cus_alice",
//	     "payment_method": "pm_alice_visa", "status": "requires_capture", "capture_method": "manual"}
//	  ],
//	  "charges": [{"id": "ch_legacy", "amount": 1500, "currency": "usd", "customer": "cus_alice"}],
//	  "refunds": [{"payment_intent": "pi_order_1001", "amount": 1000, "reason": "requested_by_customer"}],
//	  "balance": {"available": [{"amount": 100000, "currency": "usd"}]},
//	  "faults": [
//	    {"method": "POST", "path": "/v1/refunds", "attempt": 1, "when": "after", "status": 500}
//	  ]
//	}
//
// The seed may also be in the original Pome's Stripe format (api_keys,
// failure_injection, payment_intents with latest_charge_id, charges with
// payment_intent_id, refunds with charge_id, balance_transactions; see
// SeedExampleOriginal), which loads into the same world. FIDELITY.md says
// what carries over from the original twin: its checks, its seeds and
// seeded keys, its crypto rail and x402 surface.
//
// Seeded objects emit no events, so event checks see only what happened
// during the run. A succeeded or requires_capture PaymentIntent gets its
// charge (and, when captured, its balance transaction); seeded refunds
// update their charge's amount_refunded.
package stripe

import (
	"context"
	"encoding/json"

	"github.com/pomehq/pome/twins"
)

// New returns the Stripe twin.
func New() *twins.Twin {
	// Every world the twin makes gets the lookup indexes the state document
	// leaves out (index.go).
	newWorldFn, decodeJSON := twins.WorldCodec(func(ctx context.Context, seed json.RawMessage) (*World, error) {
		w, err := newWorld(ctx, seed)
		if err != nil {
			return nil, err
		}
		w.indexAll()
		return w, nil
	})
	decode := func(data []byte) (any, error) {
		w, err := decodeJSON(data)
		if err != nil {
			return nil, err
		}
		w.(*World).indexAll()
		return w, nil
	}
	var actions []twins.Action
	// Search routes come before the retrieve routes of the same prefix, so
	// /v1/customers/search is not read as a customer id.
	for _, group := range [][]twins.Action{
		customerActions(), paymentMethodActions(), paymentIntentActions(), chargeActions(),
		refundActions(), productActions(), balanceActions(), eventActions(), cryptoActions(), x402Actions(),
		couponActions(), invoiceActions(), paymentLinkActions(), disputeActions(), subscriptionActions(),
	} {
		actions = append(actions, group...)
	}
	return (&twins.Twin{
		Name:                "stripe",
		Title:               "Stripe",
		Actions:             withIDAliases(orderSearchFirst(actions)),
		Checks:              checks(),
		NewWorld:            newWorldFn,
		DecodeWorld:         decode,
		CopyWorld:           twins.WorldCopier((*World).indexAll),
		RESTError:           restError,
		ErrorHeaders:        errorHeaders,
		Refusal:             refusal,
		TokenPrefix:         "sk_test_",
		SeedExample:         SeedExample,
		SeedExampleOriginal: SeedExampleOriginal,
		SeedCredentials:     SeedCredentials,
		StrictParams:        true,
		// stripe-go and stripe-node route by the request path and want
		// /v1/… at the root of their base URL.
		RootPaths:       []string{"/v1/"},
		RequestIDHeader: "Request-Id",
	}).Finish()
}

// orderSearchFirst moves search actions ahead of the others, keeping the
// order otherwise, because routers match in registration order.
func orderSearchFirst(actions []twins.Action) []twins.Action {
	var search, rest []twins.Action
	for _, a := range actions {
		if len(a.Name()) > 7 && a.Name()[:7] == "search_" {
			search = append(search, a)
		} else {
			rest = append(rest, a)
		}
	}
	return append(search, rest...)
}
