package stripe

import (
	"context"

	"github.com/pomehq/pome/twins"
)

// CreateRefundInput refunds a charge, named directly or by its PaymentIntent.
type CreateRefundInput struct {
	PaymentIntent        string            `json:"payment_intent,omitempty" jsonschema:"the PaymentIntent to refund (pi_…)"`
	Charge               string            `json:"charge,omitempty" jsonschema:"the charge to refund (ch_…)"`
	Amount               *int64            `json:"amount,omitempty" jsonschema:"amount to refund in the smallest currency unit; defaults to everything not yet refunded"`
	Reason               string            `json:"reason,omitempty" jsonschema:"duplicate, fraudulent or requested_by_customer"`
	Metadata             map[string]string `json:"metadata,omitempty"`
	InstructionsEmail    string            `json:"instructions_email,omitempty"`
	RefundApplicationFee *bool             `json:"refund_application_fee,omitempty"`
	ReverseTransfer      *bool             `json:"reverse_transfer,omitempty"`
	Expand               []string          `json:"expand,omitempty" jsonschema:"fields to expand: charge, payment_intent, balance_transaction"`
}

// RetrieveRefundInput names a refund.
type RetrieveRefundInput struct {
	Refund string   `json:"refund" jsonschema:"the refund id (re_…)"`
	Expand []string `json:"expand,omitempty"`
}

// UpdateRefundInput updates a refund: Stripe lets only its metadata change.
type UpdateRefundInput struct {
	Refund   string            `json:"refund" jsonschema:"the refund id (re_…)"`
	Metadata map[string]string `json:"metadata,omitempty" jsonschema:"key-value pairs; an empty value deletes the key"`
	Expand   []string          `json:"expand,omitempty"`
}

// ListRefundsInput lists refunds.
type ListRefundsInput struct {
	listParams
	Charge        string `json:"charge,omitempty" jsonschema:"only refunds of this charge"`
	PaymentIntent string `json:"payment_intent,omitempty" jsonschema:"only refunds of this PaymentIntent"`
	Created       any    `json:"created,omitempty" jsonschema:"a unix timestamp or a range object with gt, gte, lt, lte"`
}

// refundTarget finds the charge a refund request names, checking that it
// can be refunded.
func (w *World) refundTarget(in CreateRefundInput) (*Charge, error) {
	var ch *Charge
	switch {
	case in.Charge != "":
		if ch = w.charge(in.Charge); ch == nil {
			return nil, noSuch("charge", in.Charge, "charge")
		}
		if in.PaymentIntent != "" && refOf(ch.PaymentIntent) != in.PaymentIntent {
			return nil, invalidParam("payment_intent", "", "The charge %s does not belong to the PaymentIntent %s.", ch.ID, in.PaymentIntent)
		}
	case in.PaymentIntent != "":
		pi := w.paymentIntent(in.PaymentIntent)
		if pi == nil {
			return nil, noSuch("payment_intent", in.PaymentIntent, "payment_intent")
		}
		ch = w.charge(refOf(pi.LatestCharge))
		if ch == nil || ch.Status != "succeeded" {
			return nil, invalidParam("payment_intent", "", "This PaymentIntent (%s) does not have a successful charge to refund.", pi.ID)
		}
	default:
		return nil, invalidParam("charge", "parameter_missing", "One of the following params should be provided for this request: charge or payment_intent.")
	}
	if ch.Status != "succeeded" {
		return nil, invalidParam("charge", "", "Charge %s has a status of %s and cannot be refunded.", ch.ID, ch.Status)
	}
	if !ch.Captured {
		return nil, invalidParam("charge", "charge_not_refundable", "Charge %s has not been captured. Cancel its PaymentIntent to release the authorization.", ch.ID)
	}
	if ch.Refunded || ch.AmountRefunded >= ch.Amount {
		return nil, invalidParam("charge", "charge_already_refunded", "Charge %s has already been refunded.", ch.ID)
	}
	return ch, nil
}

func createRefund(ctx context.Context, w *World, in CreateRefundInput) (*Refund, error) {
	ch, err := w.refundTarget(in)
	if err != nil {
		return nil, err
	}
	remaining := ch.Amount - ch.AmountRefunded
	amount := remaining
	if in.Amount != nil {
		amount = *in.Amount
		if amount < 1 {
			return nil, invalidParam("amount", "parameter_invalid_integer", "Invalid positive integer")
		}
		if amount > remaining {
			return nil, invalidParam("amount", "amount_too_large", "Refund amount (%s) is greater than unrefunded amount on charge (%s)", amountString(amount, ch.Currency), amountString(remaining, ch.Currency))
		}
	}
	switch in.Reason {
	case "", "duplicate", "fraudulent", "requested_by_customer":
	default:
		return nil, invalidParam("reason", "", "Invalid reason: must be one of duplicate, fraudulent, or requested_by_customer")
	}
	if err := checkMetadata(in.Metadata); err != nil {
		return nil, err
	}
	if err := checkExpand(w, &Refund{}, in.Expand); err != nil {
		return nil, err
	}

	t := now(ctx)
	re := &Refund{
		ID: w.newID("re"), Object: "refund", Amount: amount, Charge: ch.ID, Created: t, Currency: ch.Currency,
		DestinationDetails: map[string]any{"card": map[string]any{
			"reference": nil, "reference_status": "pending", "reference_type": "acquirer_reference_number", "type": "refund",
		}, "type": "card"},
		Metadata: metadataOrEmpty(in.Metadata), PaymentIntent: ref(refOf(ch.PaymentIntent)), Reason: strp(in.Reason),
		Status: "succeeded",
	}
	txn := &BalanceTransaction{
		ID: w.newID("txn"), Object: "balance_transaction", Amount: -amount, AvailableOn: t, BalanceType: "payments",
		Created: t, Currency: ch.Currency, Description: strp("REFUND FOR CHARGE"), FeeDetails: []FeeDetail{},
		Net: -amount, ReportingCategory: "refund", Source: re.ID, Status: "available", Type: "refund",
	}
	w.BalanceTransactions = append(w.BalanceTransactions, txn)
	re.BalanceTransaction = txn.ID
	w.Refunds = append(w.Refunds, re)
	prev := map[string]any{"amount_refunded": ch.AmountRefunded, "refunded": ch.Refunded}
	ch.AmountRefunded += amount
	ch.Refunded = ch.AmountRefunded >= ch.Amount
	w.emit(ctx, "refund.created", re, nil)
	w.emit(ctx, "charge.refunded", ch, prev)
	return expanded(w, re, in.Expand)
}

func retrieveRefund(ctx context.Context, w *World, in RetrieveRefundInput) (*Refund, error) {
	re := w.refund(in.Refund)
	if re == nil {
		return nil, noSuch("refund", in.Refund, "id")
	}
	return expanded(w, re, in.Expand)
}

func updateRefund(ctx context.Context, w *World, in UpdateRefundInput) (*Refund, error) {
	re := w.refund(in.Refund)
	if re == nil {
		return nil, noSuch("refund", in.Refund, "id")
	}
	if err := checkMetadata(in.Metadata); err != nil {
		return nil, err
	}
	before := clone(re)
	if in.Metadata != nil {
		re.Metadata = mergeMetadata(re.Metadata, in.Metadata)
	}
	prev := previousAttributes(before, re)
	if len(prev) == 0 {
		unchanged(ctx)
		return expanded(w, re, in.Expand)
	}
	w.emit(ctx, "refund.updated", re, prev)
	return expanded(w, re, in.Expand)
}

func listRefunds(ctx context.Context, w *World, in ListRefundsInput) (List[*Refund], error) {
	created, err := parseRange("created", in.Created)
	if err != nil {
		return List[*Refund]{}, err
	}
	var items []*Refund
	for _, re := range w.Refunds {
		if (in.Charge != "" && refOf(re.Charge) != in.Charge) ||
			(in.PaymentIntent != "" && refOf(re.PaymentIntent) != in.PaymentIntent) || !created.contains(re.Created) {
			continue
		}
		items = append(items, re)
	}
	items = newestFirst(items, func(r *Refund) int64 { return r.Created })
	return paginate(w, items, func(r *Refund) string { return r.ID }, in.listParams, "/v1/refunds", "refund", expander[Refund](w))
}

func refundActions() []twins.Action {
	return []twins.Action{
		writeAction(twins.Spec{
			Name: "create_refund", Title: "Create a refund",
			Description: "Refund a charge, named by payment_intent or charge; amount refunds part of it (default: all that is not yet refunded). Refunding more than remains is refused.",
			Effect:      twins.Write,
			Bindings:    []twins.Binding{{Method: "POST", Path: "/v1/refunds"}},
		}, createRefund),
		twins.New(twins.Spec{
			Name: "retrieve_refund", Title: "Retrieve a refund",
			Description: "Retrieve a refund by id.",
			Effect:      twins.Read,
			Bindings:    []twins.Binding{{Method: "GET", Path: "/v1/refunds/{refund}"}},
		}, retrieveRefund),
		writeAction(twins.Spec{
			Name: "update_refund", Title: "Update a refund",
			Description: "Update a refund's metadata, the one thing Stripe lets change on a refund.",
			Effect:      twins.Write,
			Bindings:    []twins.Binding{{Method: "POST", Path: "/v1/refunds/{refund}"}},
		}, updateRefund),
		twins.New(twins.Spec{
			Name: "list_refunds", Title: "List refunds",
			Description: "List refunds, newest first, optionally for one charge or PaymentIntent.",
			Effect:      twins.Read,
			Bindings:    []twins.Binding{{Method: "GET", Path: "/v1/refunds"}},
		}, listRefunds),
	}
}
