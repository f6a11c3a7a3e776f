package stripe

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/pomehq/pome/tape"
	"github.com/pomehq/pome/twins"
)

// The check vocabulary of the original Pome's Stripe twin, with its
// sentences, parameter names and readings, so that its task files grade
// here unchanged. Where one of our own checks read alike but meant
// something else, ours took another id and kept its sentence (checks.go).

// closedSet is a parameter pattern that accepts exactly these words.
func closedSet(words ...string) string {
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = regexp.QuoteMeta(w)
	}
	return strings.Join(quoted, "|")
}

var (
	// A charge id as a seed may hand-write it; wider than the ids the twin
	// mints (ch_…), as the original's slot is.
	paramAnyCharge = twins.Param{Name: "charge", Type: "charge", Pattern: `[A-Za-z0-9_-]+`, Example: "ch_test_200"}
	// Every event type the twin can emit: an author naming one it never
	// emits is stopped at lint rather than failing every run.
	paramEventTypeClosed = twins.Param{Name: "event_type", Type: "event_type", Example: "payment_intent.succeeded", Pattern: closedSet(
		"payment_intent.created", "payment_intent.requires_action", "payment_intent.processing", "payment_intent.succeeded",
		"payment_intent.payment_failed", "payment_intent.canceled", "payment_intent.amount_capturable_updated",
		"charge.succeeded", "charge.failed", "charge.captured", "charge.refunded", "refund.created",
		"customer.created", "customer.updated", "customer.deleted", "payment_method.attached", "payment_method.detached",
		"product.created", "product.updated", "price.created", "price.updated", "coupon.created",
		"invoice.created", "invoice.updated", "invoice.finalized", "invoice.paid", "invoiceitem.created",
		"payment_link.created", "charge.dispute.created", "charge.dispute.updated",
		"customer.subscription.created", "customer.subscription.updated", "customer.subscription.deleted")}
	// The error.type values of Stripe's envelope the twin answers with.
	paramErrorType = twins.Param{Name: "error_type", Type: "error_type", Example: "invalid_request_error",
		Pattern: closedSet(typeInvalidRequest, typeAPI, typeCard, typeIdempotency, typeRateLimit)}
)

func originalChecks() []*twins.Check {
	return []*twins.Check{
		{
			ID: "stripe.payment-intent-amount", Template: "A PaymentIntent exists with amount {amount}",
			Params: []twins.Param{paramAmount}, Substrate: twins.SubstrateFinal, Polarity: twins.Positive,
			Description: "Some PaymentIntent carries exactly this amount, in the currency's smallest unit (cents for usd); nothing is asserted about its status or currency.",
			Eval: func(in *twins.Input, args map[string]string) (twins.Result, error) {
				_, w, err := worlds(in, false)
				if err != nil {
					return twins.Result{}, err
				}
				paths := matching(w.PaymentIntents, "payment_intents", func(pi *PaymentIntent) bool { return pi.Amount == atoi(args["amount"]) })
				if len(paths) == 0 {
					amounts := make([]int64, len(w.PaymentIntents))
					for i, pi := range w.PaymentIntents {
						amounts[i] = pi.Amount
					}
					return twins.Fail(fmt.Sprintf("no PaymentIntent has amount %s (amounts: %v)", args["amount"], amounts), twins.Evidence{StatePaths: []string{"/payment_intents"}}), nil
				}
				return twins.Pass(fmt.Sprintf("%d PaymentIntent(s) with amount %s", len(paths), args["amount"]), twins.Evidence{StatePaths: paths}), nil
			},
		},
		{
			ID: "stripe.payment-intent-status", Template: "The PaymentIntent status is {status}",
			Params: []twins.Param{paramPIStatus}, Substrate: twins.SubstrateFinal, Polarity: twins.Positive,
			Description: "The account's one PaymentIntent is in this status. With more than one the sentence names none of them and the check cannot be decided (an error, never a pass on an unrelated PaymentIntent); use `A PaymentIntent exists with status \"…\"` then.",
			Eval: func(in *twins.Input, args map[string]string) (twins.Result, error) {
				_, w, err := worlds(in, false)
				if err != nil {
					return twins.Result{}, err
				}
				switch len(w.PaymentIntents) {
				case 0:
					return twins.Fail("there is no PaymentIntent", twins.Evidence{StatePaths: []string{"/payment_intents"}}), nil
				case 1:
				default:
					return twins.Result{}, fmt.Errorf("ambiguous: the account holds %d PaymentIntents and the sentence names one", len(w.PaymentIntents))
				}
				pi := w.PaymentIntents[0]
				ev := twins.Evidence{StatePaths: []string{twins.Pointer("payment_intents", 0, "status")}}
				if pi.Status != args["status"] {
					return twins.Fail(fmt.Sprintf("%s has status %s", pi.ID, pi.Status), ev), nil
				}
				return twins.Pass(fmt.Sprintf("%s has status %s", pi.ID, pi.Status), ev), nil
			},
		},
		statusExists("stripe.payment-intent-with-status-exists", `A PaymentIntent exists with status "{status}"`, paramPIStatus,
			"At least one PaymentIntent is in this status, whichever and however many others exist (an x402 flow mints one per challenge).",
			"payment_intents", func(w *World) []string {
				return ids(w.PaymentIntents, func(pi *PaymentIntent) string { return pi.Status })
			}),
		statusExists("stripe.charge-exists-with-status", `A charge exists with status "{status}"`, paramChargeStatus,
			"At least one charge is in this status (succeeded, pending or failed); a succeeded charge always has its balance transaction.",
			"charges", func(w *World) []string { return ids(w.Charges, func(c *Charge) string { return c.Status }) }),
		{
			ID: "stripe.event-emitted", Template: "{event_type} is emitted",
			Params: []twins.Param{paramEventTypeClosed}, Substrate: twins.SubstrateFinal, Polarity: twins.Positive,
			Description: "The account's event log (GET /v1/events) holds at least one event of this type, whichever object it names. Seeded objects emit no events, so the log holds what happened during the run.",
			Eval: func(in *twins.Input, args map[string]string) (twins.Result, error) {
				_, w, err := worlds(in, false)
				if err != nil {
					return twins.Result{}, err
				}
				paths := matching(w.Events, "events", func(e *Event) bool { return e.Type == args["event_type"] })
				if len(paths) == 0 {
					return twins.Fail(fmt.Sprintf("no %s event among %d emitted", args["event_type"], len(w.Events)), twins.Evidence{StatePaths: []string{"/events"}}), nil
				}
				return twins.Pass(fmt.Sprintf("%d %s event(s) among %d emitted", len(paths), args["event_type"], len(w.Events)), twins.Evidence{StatePaths: paths}), nil
			},
		},
		{
			ID: "stripe.refund-exists", Template: `A refund exists on charge "{charge}"`,
			Params: []twins.Param{paramAnyCharge}, Substrate: twins.SubstrateFinal, Polarity: twins.Positive,
			Description: "At least one refund names the charge, whatever its amount or status (a partial refund counts). A charge the account does not hold fails, naming that.",
			Eval: func(in *twins.Input, args map[string]string) (twins.Result, error) {
				paths, res, ok, err := refundsOnCharge(in, args["charge"])
				if !ok || err != nil {
					return res, err
				}
				if len(paths) == 0 {
					return twins.Fail(fmt.Sprintf("charge %s has no refunds", args["charge"]), twins.Evidence{StatePaths: []string{"/refunds"}}), nil
				}
				return twins.Pass(fmt.Sprintf("charge %s has %d refund(s)", args["charge"], len(paths)), twins.Evidence{StatePaths: paths}), nil
			},
		},
		{
			ID: "stripe.refund-count", Template: `The number of refunds on charge "{charge}" is {count}`,
			Params: []twins.Param{paramAnyCharge, paramCount}, Substrate: twins.SubstrateFinal, Polarity: twins.Positive,
			PolarityOf: func(args map[string]string) twins.Polarity {
				if atoi(args["count"]) == 0 {
					return twins.Negative
				}
				return twins.Positive
			},
			Description: "Exactly this many refunds name the charge: a retried refund that landed twice shows here and nowhere else. Negative when the count is 0. A charge the account does not hold fails, naming that.",
			Eval: func(in *twins.Input, args map[string]string) (twins.Result, error) {
				paths, res, ok, err := refundsOnCharge(in, args["charge"])
				if !ok || err != nil {
					return res, err
				}
				ev := twins.Evidence{StatePaths: paths}
				if len(paths) == 0 {
					ev.StatePaths = []string{"/refunds"}
				}
				reason := fmt.Sprintf("charge %s has %d refund(s), wanted %s", args["charge"], len(paths), args["count"])
				if int64(len(paths)) != atoi(args["count"]) {
					return twins.Fail(reason, ev), nil
				}
				return twins.Pass(reason, ev), nil
			},
		},
		{
			ID: "stripe.no-refund-on-charge", Template: `No refund was attempted on charge "{charge}"`,
			Params: []twins.Param{paramAnyCharge}, Substrate: twins.SubstrateTape, Polarity: twins.Negative,
			Description: "No call on the tape (REST or MCP) asked for a refund naming the charge, or its PaymentIntent: the attempt counts, not the outcome, so a refund the twin refused (charge_already_refunded) still fails it. Listing refunds is not an attempt.",
			Eval: func(in *twins.Input, args map[string]string) (twins.Result, error) {
				names := []string{args["charge"]}
				if w, err := twins.World[World](in.Final); err == nil {
					if ch := w.charge(args["charge"]); ch != nil && refOf(ch.PaymentIntent) != "" {
						names = append(names, refOf(ch.PaymentIntent))
					}
				}
				var seqs []int64
				var statuses []int
				for i := range in.Tape {
					r := &in.Tape[i]
					if isRefundAttempt(r) && namesAny(r.Request.Body, names) {
						seqs = append(seqs, r.Seq)
						statuses = append(statuses, r.Status)
					}
				}
				if len(seqs) > 0 {
					return twins.Fail(fmt.Sprintf("%d refund attempt(s) on charge %s (statuses %v): refusing an attempt is not the same as not making it", len(seqs), args["charge"], statuses), twins.Evidence{TapeSeqs: seqs}), nil
				}
				return twins.Pass(fmt.Sprintf("no refund was attempted on charge %s (%d call(s) inspected)", args["charge"], len(in.Tape)), twins.Evidence{}), nil
			},
		},
		{
			ID: "stripe.request-rejected-with-error", Template: `A request was rejected with a Stripe "{error_type}" error`,
			Params: []twins.Param{paramErrorType}, Substrate: twins.SubstrateTape, Polarity: twins.Positive,
			Description: "Some call on the tape (REST or MCP) was answered with Stripe's error envelope carrying this error.type; it reads the type, not the HTTP status (a 400 may be invalid_request_error or idempotency_error), and asserts nothing about what the caller did next.",
			Eval: func(in *twins.Input, args map[string]string) (twins.Result, error) {
				var seqs []int64
				var seen []string
				for i := range in.Tape {
					typ := rowErrorType(&in.Tape[i])
					if typ == "" {
						continue
					}
					seen = append(seen, typ)
					if typ == args["error_type"] {
						seqs = append(seqs, in.Tape[i].Seq)
					}
				}
				if len(seqs) == 0 {
					return twins.Fail(fmt.Sprintf("no call was rejected with a %s error (error types seen: %v)", args["error_type"], seen), twins.Evidence{}), nil
				}
				return twins.Pass(fmt.Sprintf("%d call(s) rejected with a %s error", len(seqs), args["error_type"]), twins.Evidence{TapeSeqs: seqs}), nil
			},
		},
		{
			ID: "stripe.x402-first-request-challenged", Template: "The first x402 request returns 402 Payment Required",
			Substrate: twins.SubstrateTape, Polarity: twins.Positive,
			Description: "The first recorded request to the x402 protected resource was answered 402 with payment requirements. A run that never requested it fails; a card decline (also a 402) does not count.",
			Eval: func(in *twins.Input, args map[string]string) (twins.Result, error) {
				legs := x402Legs(in.Tape)
				if len(legs) == 0 {
					return twins.Fail(fmt.Sprintf("no request to the x402 protected resource was recorded (%d call(s) inspected)", len(in.Tape)), twins.Evidence{}), nil
				}
				first := legs[0]
				ev := twins.Evidence{TapeSeqs: []int64{first.Seq}}
				if st := x402Status(first); st != 402 {
					return twins.Fail(fmt.Sprintf("the first of %d x402 request(s) returned %d, not 402", len(legs), st), ev), nil
				}
				return twins.Pass(fmt.Sprintf("the first of %d x402 request(s) returned 402 Payment Required", len(legs)), ev), nil
			},
		},
		{
			ID: "stripe.x402-retry-includes-payment", Template: "The retry includes X-PAYMENT and returns 200",
			Substrate: twins.SubstrateTape, Polarity: twins.Positive,
			Description: "Some recorded request carried an X-PAYMENT header and was answered 200: the caller paid the advertised challenge and the resource unlocked. The reason says whether no payment was sent or a sent one was refused.",
			Eval: func(in *twins.Input, args map[string]string) (twins.Result, error) {
				var paid, tried []int64
				var statuses []int
				for i := range in.Tape {
					r := &in.Tape[i]
					if !carriesPayment(r) {
						continue
					}
					st := r.Status
					if r.Transport == tape.TransportMCP {
						st = x402Status(r)
					}
					tried = append(tried, r.Seq)
					statuses = append(statuses, st)
					if st == 200 {
						paid = append(paid, r.Seq)
					}
				}
				switch {
				case len(paid) > 0:
					return twins.Pass(fmt.Sprintf("%d request(s) carried X-PAYMENT and returned 200", len(paid)), twins.Evidence{TapeSeqs: paid}), nil
				case len(tried) > 0:
					return twins.Fail(fmt.Sprintf("%d request(s) carried X-PAYMENT but none returned 200 (statuses %v)", len(tried), statuses), twins.Evidence{TapeSeqs: tried}), nil
				}
				return twins.Fail(fmt.Sprintf("no recorded request carried an X-PAYMENT header (%d call(s) inspected)", len(in.Tape)), twins.Evidence{}), nil
			},
		},
	}
}

// statusExists builds a check that some object of a collection is in the
// status its sentence names.
func statusExists(id, template string, p twins.Param, desc, collection string, statuses func(*World) []string) *twins.Check {
	return &twins.Check{
		ID: id, Template: template, Params: []twins.Param{p}, Substrate: twins.SubstrateFinal, Polarity: twins.Positive,
		Description: desc,
		Eval: func(in *twins.Input, args map[string]string) (twins.Result, error) {
			_, w, err := worlds(in, false)
			if err != nil {
				return twins.Result{}, err
			}
			all := statuses(w)
			paths := matching(all, collection, func(s string) bool { return s == args["status"] })
			if len(paths) == 0 {
				return twins.Fail(fmt.Sprintf("none of %d %s has status %s (statuses: %v)", len(all), collection, args["status"], all), twins.Evidence{StatePaths: []string{"/" + collection}}), nil
			}
			return twins.Pass(fmt.Sprintf("%d of %d %s have status %s", len(paths), len(all), collection, args["status"]), twins.Evidence{StatePaths: paths}), nil
		},
	}
}

// refundsOnCharge returns the pointers of the refunds naming the charge;
// ok is false, with the result to answer, when the account holds no such
// charge (a count on a charge that is not there must not pass as zero).
func refundsOnCharge(in *twins.Input, charge string) (paths []string, res twins.Result, ok bool, err error) {
	_, w, err := worlds(in, false)
	if err != nil {
		return nil, twins.Result{}, false, err
	}
	if w.charge(charge) == nil {
		return nil, twins.Fail(fmt.Sprintf("the account holds no charge %s", charge), twins.Evidence{StatePaths: []string{"/charges"}}), false, nil
	}
	return matching(w.Refunds, "refunds", func(re *Refund) bool { return refOf(re.Charge) == charge }), twins.Result{}, true, nil
}

// isRefundAttempt reports whether a tape row asked for a refund: the
// create_refund action over either transport, or a POST to the refunds
// collection the twin did not route to it (refused before it ran).
func isRefundAttempt(r *tape.Row) bool {
	if r.ToolName() == "create_refund" {
		return true
	}
	return r.Transport == tape.TransportREST && r.Method == "POST" && strings.HasSuffix(strings.TrimRight(r.Path, "/"), "/v1/refunds")
}

// namesAny reports whether a recorded request body names one of the ids,
// as a whole word (ch_1 does not name ch_12).
func namesAny(body json.RawMessage, ids []string) bool {
	for _, id := range ids {
		re := regexp.MustCompile(`(^|[^A-Za-z0-9_-])` + regexp.QuoteMeta(id) + `($|[^A-Za-z0-9_-])`)
		if re.Match(body) {
			return true
		}
	}
	return false
}

// rowErrorType is the error.type of Stripe's envelope a tape row was
// answered with ("" when none): the REST body, or over MCP the tool
// error's text, which is that same envelope.
func rowErrorType(r *tape.Row) string {
	var env struct {
		Error *struct {
			Type string `json:"type"`
		} `json:"error"`
		Result *struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
	}
	if json.Unmarshal(r.Response.Body, &env) != nil {
		return ""
	}
	if env.Error != nil && r.Status >= 400 {
		return env.Error.Type
	}
	if env.Result != nil && env.Result.IsError && len(env.Result.Content) > 0 {
		var inner struct {
			Error *struct {
				Type string `json:"type"`
			} `json:"error"`
		}
		if json.Unmarshal([]byte(env.Result.Content[0].Text), &inner) == nil && inner.Error != nil {
			return inner.Error.Type
		}
	}
	return ""
}

// x402Legs are the tape's requests for the x402 protected resource, in
// order: over REST by its path, over MCP by its tool.
func x402Legs(rows []tape.Row) []*tape.Row {
	var out []*tape.Row
	for i := range rows {
		if strings.Contains(rows[i].Path, "/x402/") || rows[i].Transport == tape.TransportMCP && rows[i].ToolName() == "get_x402_protected_resource" {
			out = append(out, &rows[i])
		}
	}
	return out
}

// x402Status is the HTTP answer of an x402 leg; an MCP leg is 402 when
// its tool answered an error (the challenge) and 200 otherwise.
func x402Status(r *tape.Row) int {
	if r.Transport != tape.TransportMCP {
		return r.Status
	}
	var env struct {
		Result *struct {
			IsError bool `json:"isError"`
		} `json:"result"`
	}
	if json.Unmarshal(r.Response.Body, &env) == nil && env.Result != nil && !env.Result.IsError {
		return 200
	}
	return 402
}

// carriesPayment reports whether a request carried an x402 payment: the
// X-PAYMENT header (in any letter case), or over MCP the x_payment
// argument.
func carriesPayment(r *tape.Row) bool {
	for k := range r.Request.Headers {
		if strings.EqualFold(k, "X-Payment") {
			return true
		}
	}
	if r.Transport == tape.TransportMCP && r.ToolName() == "get_x402_protected_resource" {
		var req struct {
			Params struct {
				Arguments struct {
					XPayment string `json:"x_payment"`
				} `json:"arguments"`
			} `json:"params"`
		}
		return json.Unmarshal(r.Request.Body, &req) == nil && req.Params.Arguments.XPayment != ""
	}
	return false
}
