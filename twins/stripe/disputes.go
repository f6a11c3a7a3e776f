package stripe

import (
	"context"

	"github.com/pomehq/pome/twins"
)

// Dispute is Stripe's dispute of a charge. Disputes arise as in Stripe
// test mode: a charge on the dispute test card (4000000000000259,
// pm_card_createDispute, tok_createDispute) is disputed as fraudulent as
// soon as it is captured.
type Dispute struct {
	ID                  string                `json:"id"`
	Object              string                `json:"object"`
	Amount              int64                 `json:"amount"`
	BalanceTransactions []*BalanceTransaction `json:"balance_transactions"`
	Charge              string                `json:"charge"`
	Created             int64                 `json:"created"`
	Currency            string                `json:"currency"`
	Evidence            DisputeEvidence       `json:"evidence"`
	EvidenceDetails     EvidenceDetails       `json:"evidence_details"`
	IsChargeRefundable  bool                  `json:"is_charge_refundable"`
	Livemode            bool                  `json:"livemode"`
	Metadata            map[string]string     `json:"metadata"`
	PaymentIntent       *string               `json:"payment_intent"`
	Reason              string                `json:"reason"`
	Status              string                `json:"status"`
}

// DisputeEvidence is the evidence the twin keeps: the fields @stripe/mcp's
// update_dispute sends (Stripe's evidence hash has more).
type DisputeEvidence struct {
	CancellationPolicyDisclosure *string `json:"cancellation_policy_disclosure"`
	DuplicateChargeExplanation   *string `json:"duplicate_charge_explanation"`
	UncategorizedText            *string `json:"uncategorized_text"`
}

// EvidenceDetails is the evidence's deadline and submissions.
type EvidenceDetails struct {
	DueBy           *int64 `json:"due_by"`
	HasEvidence     bool   `json:"has_evidence"`
	PastDue         bool   `json:"past_due"`
	SubmissionCount int64  `json:"submission_count"`
}

// EvidenceInput is evidence[…] on update_dispute.
type EvidenceInput struct {
	CancellationPolicyDisclosure *string `json:"cancellation_policy_disclosure,omitempty" jsonschema:"An explanation of how and when the customer was shown your refund policy prior to purchase."`
	DuplicateChargeExplanation   *string `json:"duplicate_charge_explanation,omitempty" jsonschema:"An explanation of the difference between the disputed charge versus the prior charge that appears to be a duplicate."`
	UncategorizedText            *string `json:"uncategorized_text,omitempty" jsonschema:"Any additional evidence or statements."`
}

// UpdateDisputeInput stages or submits evidence.
type UpdateDisputeInput struct {
	Dispute  string            `json:"dispute" jsonschema:"The ID of the dispute to update"`
	Evidence *EvidenceInput    `json:"evidence,omitempty" jsonschema:"Evidence to upload, to respond to a dispute. Updating any field in the hash will submit all fields in the hash for review."`
	Submit   *bool             `json:"submit,omitempty" jsonschema:"Whether to immediately submit evidence to the bank. If false, evidence is staged on the dispute."`
	Metadata map[string]string `json:"metadata,omitempty"`
	Expand   []string          `json:"expand,omitempty"`
}

// ListDisputesInput lists disputes.
type ListDisputesInput struct {
	listParams
	Charge        string `json:"charge,omitempty" jsonschema:"Only return disputes associated to the charge specified by this charge ID."`
	PaymentIntent string `json:"payment_intent,omitempty" jsonschema:"Only return disputes associated to the PaymentIntent specified by this PaymentIntent ID."`
	Created       any    `json:"created,omitempty" jsonschema:"a unix timestamp or a range object with gt, gte, lt, lte"`
}

// maxEvidenceText is Stripe's limit on each text field of the evidence.
const maxEvidenceText = 20000

// disputeFee is what Stripe debits for a dispute (US accounts).
const disputeFee = 1500

// openDispute disputes a captured charge as fraudulent, debiting its
// amount and the dispute fee.
func (w *World) openDispute(ctx context.Context, ch *Charge) {
	t := now(ctx)
	due := t + 7*86400
	txn := &BalanceTransaction{
		ID: w.newID("txn"), Object: "balance_transaction", Amount: -ch.Amount, AvailableOn: t, BalanceType: "payments",
		Created: t, Currency: ch.Currency, Description: strp("Chargeback withdrawal for " + ch.ID), Fee: disputeFee,
		FeeDetails: []FeeDetail{{Amount: disputeFee, Currency: ch.Currency, Description: "Dispute fee", Type: "stripe_fee"}},
		Net:        -ch.Amount - disputeFee, ReportingCategory: "dispute", Status: "available", Type: "adjustment",
	}
	d := &Dispute{
		ID: w.newID("du"), Object: "dispute", Amount: ch.Amount, Charge: ch.ID, Created: t, Currency: ch.Currency,
		EvidenceDetails: EvidenceDetails{DueBy: &due}, Metadata: map[string]string{},
		PaymentIntent: strp(refOf(ch.PaymentIntent)), Reason: "fraudulent", Status: "needs_response",
	}
	txn.Source = d.ID
	d.BalanceTransactions = []*BalanceTransaction{txn}
	w.BalanceTransactions = append(w.BalanceTransactions, txn)
	w.Disputes = append(w.Disputes, d)
	ch.Disputed = true
	w.emit(ctx, "charge.dispute.created", d, nil)
}

func updateDispute(ctx context.Context, w *World, in UpdateDisputeInput) (*Dispute, error) {
	d := w.dispute(in.Dispute)
	if d == nil {
		return nil, noSuch("dispute", in.Dispute, "dispute")
	}
	if d.Status != "needs_response" && d.Status != "warning_needs_response" {
		return nil, invalidParam("evidence", "", "This dispute is in status %s and its evidence can no longer be updated.", d.Status)
	}
	if e := in.Evidence; e != nil {
		for name, v := range map[string]*string{
			"cancellation_policy_disclosure": e.CancellationPolicyDisclosure,
			"duplicate_charge_explanation":   e.DuplicateChargeExplanation, "uncategorized_text": e.UncategorizedText,
		} {
			if v != nil && len(*v) > maxEvidenceText {
				return nil, invalidParam("evidence["+name+"]", "", "Invalid string: must be at most %d characters long.", maxEvidenceText)
			}
		}
	}
	if err := checkMetadata(in.Metadata); err != nil {
		return nil, err
	}
	if err := checkExpand(w, d, in.Expand); err != nil {
		return nil, err
	}
	before := clone(d)
	if e := in.Evidence; e != nil {
		if e.CancellationPolicyDisclosure != nil {
			d.Evidence.CancellationPolicyDisclosure = optional(e.CancellationPolicyDisclosure)
		}
		if e.DuplicateChargeExplanation != nil {
			d.Evidence.DuplicateChargeExplanation = optional(e.DuplicateChargeExplanation)
		}
		if e.UncategorizedText != nil {
			d.Evidence.UncategorizedText = optional(e.UncategorizedText)
		}
		ev := d.Evidence
		d.EvidenceDetails.HasEvidence = ev.CancellationPolicyDisclosure != nil || ev.DuplicateChargeExplanation != nil || ev.UncategorizedText != nil
	}
	if in.Metadata != nil {
		d.Metadata = mergeMetadata(d.Metadata, in.Metadata)
	}
	// Stripe submits by default when the request carries evidence.
	if in.Submit == nil || *in.Submit {
		d.Status = "under_review"
		d.EvidenceDetails.SubmissionCount++
	}
	prev := previousAttributes(before, d)
	if len(prev) == 0 {
		unchanged(ctx)
		return d, nil
	}
	w.emit(ctx, "charge.dispute.updated", d, prev)
	return d, nil
}

func listDisputes(ctx context.Context, w *World, in ListDisputesInput) (List[*Dispute], error) {
	created, err := parseRange("created", in.Created)
	if err != nil {
		return List[*Dispute]{}, err
	}
	var items []*Dispute
	for _, d := range w.Disputes {
		if (in.Charge != "" && d.Charge != in.Charge) || (in.PaymentIntent != "" && refOf(d.PaymentIntent) != in.PaymentIntent) ||
			!created.contains(d.Created) {
			continue
		}
		items = append(items, d)
	}
	items = newestFirst(items, func(d *Dispute) int64 { return d.Created })
	return paginate(w, items, func(d *Dispute) string { return d.ID }, in.listParams, "/v1/disputes", "dispute", expander[Dispute](w))
}

func disputeActions() []twins.Action {
	return []twins.Action{
		writeAction(twins.Spec{
			Name: "update_dispute", Title: "Update a dispute",
			Description: "Stage or submit evidence on a dispute that needs a response; submit defaults to true, as at Stripe, and moves it to under_review.",
			Effect:      twins.Write,
			Bindings:    []twins.Binding{{Method: "POST", Path: "/v1/disputes/{dispute}"}},
		}, updateDispute),
		twins.New(twins.Spec{
			Name: "list_disputes", Title: "List disputes",
			Description: "List disputes, newest first, optionally for one charge or PaymentIntent. A charge on the test card pm_card_createDispute (4000000000000259) is disputed once captured.",
			Effect:      twins.Read,
			Bindings:    []twins.Binding{{Method: "GET", Path: "/v1/disputes"}},
		}, listDisputes),
	}
}
