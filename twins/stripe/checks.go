package stripe

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/pomehq/pome/tape"
	"github.com/pomehq/pome/twins"
)

// Check parameters of the Stripe vocabulary.
var (
	paramPaymentIntent = twins.Param{Name: "payment_intent", Type: "payment_intent", Pattern: `pi_[A-Za-z0-9_]+`, Example: "pi_3MtwBwLkdIwHu7ix28a3tqPa"}
	paramCharge        = twins.Param{Name: "charge", Type: "charge", Pattern: `ch_[A-Za-z0-9_]+`, Example: "ch_3MtwBwLkdIwHu7ix2ZD7yEvO"}
	paramAmount        = twins.Param{Name: "amount", Type: "integer", Pattern: `[0-9]+`, Example: "2000"}
	paramCurrency      = twins.Param{Name: "currency", Type: "currency", Pattern: `[a-z]{3}`, Example: "usd"}
	paramPIStatus      = twins.Param{Name: "status", Type: "payment_intent_status", Pattern: `requires_payment_method|requires_confirmation|requires_action|processing|requires_capture|succeeded|canceled`, Example: "succeeded"}
	paramChargeStatus  = twins.Param{Name: "status", Type: "charge_status", Pattern: `succeeded|pending|failed`, Example: "succeeded"}
	paramEventType     = twins.Param{Name: "event_type", Type: "event_type", Pattern: `[a-z_]+(?:\.[a-z_]+)+`, Example: "payment_intent.succeeded"}
	paramCount         = twins.Param{Name: "count", Type: "integer", Pattern: `[0-9]+`, Example: "1"}
	paramErrorCode     = twins.Param{Name: "code", Type: "error_code", Pattern: `[a-z_]+`, Example: "card_declined"}
	paramEmail         = twins.Param{Name: "email", Type: "email", Pattern: "[^`\\s]+@[^`\\s]+", Example: "alice@example.com"}
)

// worlds decodes the seed and final worlds a check reads.
func worlds(in *twins.Input, seed bool) (*World, *World, error) {
	final, err := twins.World[World](in.Final)
	if err != nil {
		return nil, nil, err
	}
	if !seed {
		return nil, final, nil
	}
	s, err := twins.World[World](in.Seed)
	if err != nil {
		return nil, nil, err
	}
	return s, final, nil
}

func paymentIntentIndex(w *World, id string) int {
	for i, pi := range w.PaymentIntents {
		if pi.ID == id {
			return i
		}
	}
	return -1
}

func atoi(s string) int64 {
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}

// checks is the original Pome's vocabulary (checks_original.go) followed
// by ours.
func checks() []*twins.Check {
	return append(originalChecks(), ownChecks()...)
}

func ownChecks() []*twins.Check {
	return []*twins.Check{
		{
			ID: "stripe.payment-intent-has-amount", Template: "PaymentIntent `{payment_intent}` has an amount of {amount} in `{currency}`",
			Params: []twins.Param{paramPaymentIntent, paramAmount, paramCurrency}, Substrate: twins.SubstrateFinal, Polarity: twins.Positive,
			Description: "The PaymentIntent exists and its amount (in the currency's smallest unit, e.g. cents) and currency are the given ones.",
			Eval: paymentIntentEval([]string{"amount", "currency"}, func(pi *PaymentIntent, args map[string]string) (bool, string) {
				return pi.Amount == atoi(args["amount"]) && pi.Currency == args["currency"], fmt.Sprintf("%s is for %d %s", pi.ID, pi.Amount, pi.Currency)
			}),
		},
		{
			ID: "stripe.payment-intent-has-status", Template: "PaymentIntent `{payment_intent}` has status `{status}`",
			Params: []twins.Param{paramPaymentIntent, paramPIStatus}, Substrate: twins.SubstrateFinal, Polarity: twins.Positive,
			Description: "The PaymentIntent exists and is in the given status.",
			Eval: paymentIntentEval([]string{"status"}, func(pi *PaymentIntent, args map[string]string) (bool, string) {
				return pi.Status == args["status"], fmt.Sprintf("%s has status %s", pi.ID, pi.Status)
			}),
		},
		{
			ID: "stripe.payment-intent-of-amount-exists", Template: "A PaymentIntent of {amount} in `{currency}` with status `{status}` exists",
			Params: []twins.Param{paramAmount, paramCurrency, paramPIStatus}, Substrate: twins.SubstrateFinal, Polarity: twins.Positive,
			Description: "Some PaymentIntent has the amount (smallest currency unit), currency and status.",
			Eval: func(in *twins.Input, args map[string]string) (twins.Result, error) {
				_, w, err := worlds(in, false)
				if err != nil {
					return twins.Result{}, err
				}
				paths := matching(w.PaymentIntents, "payment_intents", func(pi *PaymentIntent) bool {
					return pi.Amount == atoi(args["amount"]) && pi.Currency == args["currency"] && pi.Status == args["status"]
				})
				if len(paths) == 0 {
					return twins.Fail(fmt.Sprintf("no PaymentIntent of %s %s is %s (%d PaymentIntents)", args["amount"], args["currency"], args["status"], len(w.PaymentIntents)), twins.Evidence{StatePaths: []string{"/payment_intents"}}), nil
				}
				return twins.Pass(fmt.Sprintf("%d matching PaymentIntent(s)", len(paths)), twins.Evidence{StatePaths: paths}), nil
			},
		},
		{
			ID: "stripe.charge-of-amount-exists", Template: "A charge of {amount} in `{currency}` with status `{status}` exists",
			Params: []twins.Param{paramAmount, paramCurrency, paramChargeStatus}, Substrate: twins.SubstrateFinal, Polarity: twins.Positive,
			Description: "Some charge has the amount (smallest currency unit), currency and status (succeeded, pending or failed).",
			Eval: func(in *twins.Input, args map[string]string) (twins.Result, error) {
				_, w, err := worlds(in, false)
				if err != nil {
					return twins.Result{}, err
				}
				paths := matching(w.Charges, "charges", func(ch *Charge) bool {
					return ch.Amount == atoi(args["amount"]) && ch.Currency == args["currency"] && ch.Status == args["status"]
				})
				if len(paths) == 0 {
					return twins.Fail(fmt.Sprintf("no %s charge of %s %s (%d charges)", args["status"], args["amount"], args["currency"], len(w.Charges)), twins.Evidence{StatePaths: []string{"/charges"}}), nil
				}
				return twins.Pass(fmt.Sprintf("%d matching charge(s)", len(paths)), twins.Evidence{StatePaths: paths}), nil
			},
		},
		{
			ID: "stripe.new-event-emitted", Template: "A `{event_type}` event was emitted",
			Params: []twins.Param{paramEventType}, Substrate: twins.SubstrateSeedFinal, Polarity: twins.Positive,
			Description: "The twin emitted an event of this type after the seed (e.g. payment_intent.succeeded, charge.refunded, customer.created).",
			Eval: func(in *twins.Input, args map[string]string) (twins.Result, error) {
				seed, w, err := worlds(in, true)
				if err != nil {
					return twins.Result{}, err
				}
				old := idSet(seed.Events, func(e *Event) string { return e.ID })
				paths := matching(w.Events, "events", func(e *Event) bool { return !old[e.ID] && e.Type == args["event_type"] })
				if len(paths) == 0 {
					return twins.Fail(fmt.Sprintf("no %s event among %d new events", args["event_type"], len(w.Events)-len(old)), twins.Evidence{StatePaths: []string{"/events"}}), nil
				}
				return twins.Pass(fmt.Sprintf("%d %s event(s)", len(paths), args["event_type"]), twins.Evidence{StatePaths: paths}), nil
			},
		},
		{
			ID: "stripe.refund-of-amount-exists", Template: "A refund of {amount} exists for PaymentIntent `{payment_intent}`",
			Params: []twins.Param{paramAmount, paramPaymentIntent}, Substrate: twins.SubstrateFinal, Polarity: twins.Positive,
			Description: "A succeeded refund of exactly this amount (smallest currency unit) was made on the PaymentIntent's charge.",
			Eval: func(in *twins.Input, args map[string]string) (twins.Result, error) {
				_, w, err := worlds(in, false)
				if err != nil {
					return twins.Result{}, err
				}
				var paths []string
				var amounts []int64
				for i, re := range w.Refunds {
					if refOf(re.PaymentIntent) != args["payment_intent"] {
						continue
					}
					amounts = append(amounts, re.Amount)
					if re.Amount == atoi(args["amount"]) && re.Status == "succeeded" {
						paths = append(paths, twins.Pointer("refunds", i))
					}
				}
				if len(paths) == 0 {
					return twins.Fail(fmt.Sprintf("refunds for %s: %v", args["payment_intent"], amounts), twins.Evidence{StatePaths: []string{"/refunds"}}), nil
				}
				return twins.Pass(fmt.Sprintf("%d refund(s) of %s", len(paths), args["amount"]), twins.Evidence{StatePaths: paths}), nil
			},
		},
		{
			ID: "stripe.payment-intent-refund-count", Template: "PaymentIntent `{payment_intent}` has exactly {count} refunds",
			Params: []twins.Param{paramPaymentIntent, paramCount}, Substrate: twins.SubstrateFinal, Polarity: twins.Positive,
			Description: "The number of refunds on the PaymentIntent's charges is exactly the count (0 included).",
			Eval: func(in *twins.Input, args map[string]string) (twins.Result, error) {
				_, w, err := worlds(in, false)
				if err != nil {
					return twins.Result{}, err
				}
				paths := matching(w.Refunds, "refunds", func(re *Refund) bool { return refOf(re.PaymentIntent) == args["payment_intent"] })
				ev := twins.Evidence{StatePaths: paths}
				if len(paths) == 0 {
					ev.StatePaths = []string{"/refunds"}
				}
				if int64(len(paths)) != atoi(args["count"]) {
					return twins.Fail(fmt.Sprintf("%s has %d refund(s)", args["payment_intent"], len(paths)), ev), nil
				}
				return twins.Pass(fmt.Sprintf("%s has %d refund(s)", args["payment_intent"], len(paths)), ev), nil
			},
		},
		{
			ID: "stripe.no-new-refund-on-charge", Template: "No refund was issued on charge `{charge}`",
			Params: []twins.Param{paramCharge}, Substrate: twins.SubstrateSeedFinal, Polarity: twins.Negative,
			Description: "No refund the seed did not hold names the charge.",
			Eval: func(in *twins.Input, args map[string]string) (twins.Result, error) {
				seed, w, err := worlds(in, true)
				if err != nil {
					return twins.Result{}, err
				}
				old := idSet(seed.Refunds, func(re *Refund) string { return re.ID })
				paths := matching(w.Refunds, "refunds", func(re *Refund) bool { return !old[re.ID] && refOf(re.Charge) == args["charge"] })
				if len(paths) > 0 {
					return twins.Fail(fmt.Sprintf("%d new refund(s) on %s", len(paths), args["charge"]), twins.Evidence{StatePaths: paths}), nil
				}
				return twins.Pass("no new refund on "+args["charge"], twins.Evidence{StatePaths: []string{"/refunds"}}), nil
			},
		},
		{
			ID: "stripe.request-rejected-with-code", Template: "A Stripe request was rejected with error `{code}`",
			Params: []twins.Param{paramErrorCode}, Substrate: twins.SubstrateTape, Polarity: twins.Positive,
			Description: "Some call on the tape was answered with a Stripe error whose code, decline_code or type is the given one (card_declined, insufficient_funds, resource_missing, card_error, …).",
			Eval: func(in *twins.Input, args map[string]string) (twins.Result, error) {
				var seqs []int64
				for i := range in.Tape {
					if rowRejectedWith(&in.Tape[i], args["code"]) {
						seqs = append(seqs, in.Tape[i].Seq)
					}
				}
				if len(seqs) == 0 {
					return twins.Fail("no call was rejected with "+args["code"], twins.Evidence{}), nil
				}
				return twins.Pass(fmt.Sprintf("%d call(s) rejected with %s", len(seqs), args["code"]), twins.Evidence{TapeSeqs: seqs}), nil
			},
		},
		newObjectsCheck("stripe.no-new-charges", "No new charge was created", "charges",
			func(w *World) []string { return ids(w.Charges, func(c *Charge) string { return c.ID }) }),
		newObjectsCheck("stripe.no-new-payment-intents", "No new PaymentIntent was created", "payment_intents",
			func(w *World) []string { return ids(w.PaymentIntents, func(p *PaymentIntent) string { return p.ID }) }),
		newObjectsCheck("stripe.no-new-refunds", "No new refund was created", "refunds",
			func(w *World) []string { return ids(w.Refunds, func(r *Refund) string { return r.ID }) }),
		newObjectsCheck("stripe.no-new-customers", "No new customer was created", "customers",
			func(w *World) []string { return ids(w.Customers, func(c *Customer) string { return c.ID }) }),
		{
			ID: "stripe.customer-exists", Template: "A customer with email `{email}` exists",
			Params: []twins.Param{paramEmail}, Substrate: twins.SubstrateFinal, Polarity: twins.Positive,
			Description: "A customer that is not deleted has exactly this email address.",
			Eval: func(in *twins.Input, args map[string]string) (twins.Result, error) {
				_, w, err := worlds(in, false)
				if err != nil {
					return twins.Result{}, err
				}
				for i, c := range w.Customers {
					if !c.Deleted && c.Email != nil && *c.Email == args["email"] {
						return twins.Pass(c.ID+" has email "+args["email"], twins.Evidence{StatePaths: []string{twins.Pointer("customers", i, "email")}}), nil
					}
				}
				return twins.Fail("no customer with email "+args["email"], twins.Evidence{StatePaths: []string{"/customers"}}), nil
			},
		},
	}
}

// paymentIntentEval evaluates a check on the PaymentIntent the check names:
// it fails when there is no such PaymentIntent, and otherwise holds
// decides, citing the PaymentIntent's fields, with the same reason either way.
func paymentIntentEval(fields []string, holds func(pi *PaymentIntent, args map[string]string) (bool, string)) func(*twins.Input, map[string]string) (twins.Result, error) {
	return func(in *twins.Input, args map[string]string) (twins.Result, error) {
		_, w, err := worlds(in, false)
		if err != nil {
			return twins.Result{}, err
		}
		i := paymentIntentIndex(w, args["payment_intent"])
		if i < 0 {
			return twins.Fail("no PaymentIntent "+args["payment_intent"], twins.Evidence{StatePaths: []string{"/payment_intents"}}), nil
		}
		ev := twins.Evidence{}
		for _, f := range fields {
			ev.StatePaths = append(ev.StatePaths, twins.Pointer("payment_intents", i, f))
		}
		ok, reason := holds(w.PaymentIntents[i], args)
		if !ok {
			return twins.Fail(reason, ev), nil
		}
		return twins.Pass(reason, ev), nil
	}
}

// matching returns the JSON pointers of the items of collection that match;
// nil when none does.
func matching[T any](items []T, collection string, match func(T) bool) []string {
	var paths []string
	for i, it := range items {
		if match(it) {
			paths = append(paths, twins.Pointer(collection, i))
		}
	}
	return paths
}

// idSet is the set of the items' ids, e.g. of what the seed already held.
func idSet[T any](items []T, id func(T) string) map[string]bool {
	set := map[string]bool{}
	for _, it := range items {
		set[id(it)] = true
	}
	return set
}

func ids[T any](items []T, id func(T) string) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = id(it)
	}
	return out
}

// newObjectsCheck builds a seed-versus-final check that no object of a kind
// appeared that the seed did not hold.
func newObjectsCheck(id, template, collection string, list func(*World) []string) *twins.Check {
	return &twins.Check{
		ID: id, Template: template, Substrate: twins.SubstrateSeedFinal, Polarity: twins.Negative,
		Description: "Every object in /" + collection + " of the final state was already in the seed.",
		Eval: func(in *twins.Input, args map[string]string) (twins.Result, error) {
			seed, w, err := worlds(in, true)
			if err != nil {
				return twins.Result{}, err
			}
			old := idSet(list(seed), func(id string) string { return id })
			paths := matching(list(w), collection, func(id string) bool { return !old[id] })
			if len(paths) > 0 {
				return twins.Fail(fmt.Sprintf("%d new object(s) in %s", len(paths), collection), twins.Evidence{StatePaths: paths}), nil
			}
			return twins.Pass("nothing new in "+collection, twins.Evidence{StatePaths: []string{"/" + collection}}), nil
		},
	}
}

// rowRejectedWith reports whether a tape row is an error answer carrying
// code as its Stripe code, decline_code or type. REST rows hold the error
// envelope; MCP rows hold a tool error whose text is that envelope.
func rowRejectedWith(r *tape.Row, code string) bool {
	if len(r.Response.Body) == 0 {
		return false
	}
	var env struct {
		Error *struct {
			Code        string `json:"code"`
			DeclineCode string `json:"decline_code"`
			Type        string `json:"type"`
		} `json:"error"`
		Result *struct {
			IsError bool `json:"isError"`
		} `json:"result"`
	}
	_ = json.Unmarshal(r.Response.Body, &env)
	if env.Error != nil && r.Status >= 400 {
		return env.Error.Code == code || env.Error.DeclineCode == code || env.Error.Type == code
	}
	if r.Transport == tape.TransportMCP && env.Result != nil && env.Result.IsError {
		return bytes.Contains(r.Response.Body, []byte(code))
	}
	return false
}
