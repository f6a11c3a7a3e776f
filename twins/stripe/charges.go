package stripe

import (
	"context"

	"github.com/pomehq/pome/twins"
)

// RetrieveChargeInput names a charge.
type RetrieveChargeInput struct {
	Charge string   `json:"charge" jsonschema:"the charge id (ch_…)"`
	Expand []string `json:"expand,omitempty"`
}

// ListChargesInput lists charges.
type ListChargesInput struct {
	listParams
	Customer      string `json:"customer,omitempty" jsonschema:"only charges of this customer"`
	PaymentIntent string `json:"payment_intent,omitempty" jsonschema:"only charges of this PaymentIntent"`
	Created       any    `json:"created,omitempty" jsonschema:"a unix timestamp or a range object with gt, gte, lt, lte"`
	TransferGroup string `json:"transfer_group,omitempty"`
}

// newCharge builds (but does not store) the charge a payment attempt on pi
// with pm creates.
func (w *World) newCharge(ctx context.Context, pi *PaymentIntent, pm *PaymentMethod) *Charge {
	ch := &Charge{
		ID: w.newID("ch"), Object: "charge", Amount: pi.Amount, Created: now(ctx), Currency: pi.Currency,
		Customer: ref(refOf(pi.Customer)), Description: pi.Description, FraudDetails: map[string]any{},
		Metadata: metadataOrEmpty(pi.Metadata), PaymentIntent: pi.ID, ReceiptEmail: pi.ReceiptEmail,
		StatementDescriptor: pi.StatementDescriptor, StatementDescriptorSuffix: pi.StatementDescriptorSuffix,
		CalculatedStatementDescriptor: strp("POME TWIN"), TransferGroup: pi.TransferGroup,
	}
	ch.ReceiptURL = strp("https://pay.stripe.com/receipts/payment/" + token("receipt/"+ch.ID, 40))
	if pm != nil {
		ch.PaymentMethod = strp(pm.ID)
		ch.BillingDetails = pm.BillingDetails
		if c := pm.Card; c != nil {
			amt := pi.Amount
			ch.PaymentMethodDetails = &PaymentMethodDetails{Type: "card", Card: &ChargeCard{
				AmountAuthorized: &amt, Brand: c.Brand, Checks: c.Checks, Country: c.Country, ExpMonth: c.ExpMonth,
				ExpYear: c.ExpYear, Fingerprint: c.Fingerprint, Funding: c.Funding, Last4: c.Last4, Network: c.Brand,
				ExtendedAuthorization:    map[string]any{"status": "disabled"},
				IncrementalAuthorization: map[string]any{"status": "unavailable"},
				Multicapture:             map[string]any{"status": "unavailable"},
				NetworkToken:             map[string]any{"used": false},
				Overcapture:              map[string]any{"maximum_amount_capturable": pi.Amount, "status": "unavailable"},
				RegulatedStatus:          strp("unregulated"),
				AuthorizationCode:        strp(token("auth/"+ch.ID, 6)),
				NetworkTransactionID:     strp(token("ntid/"+ch.ID, 15)),
			}}
		}
	}
	return ch
}

// stripeFee is Stripe's standard card pricing: 2.9% + 30 minor units.
func stripeFee(amount int64) int64 { return (amount*29+500)/1000 + 30 }

// chargeTransaction records the balance transaction of a captured amount.
// Card funds are pending for two days unless the card bypasses pending.
func (w *World) chargeTransaction(ctx context.Context, ch *Charge, amount int64, bypassPending bool) *BalanceTransaction {
	t := now(ctx)
	fee := stripeFee(amount)
	availableOn := t + 2*86400
	if bypassPending {
		availableOn = t
	}
	txn := &BalanceTransaction{
		ID: w.newID("txn"), Object: "balance_transaction", Amount: amount, AvailableOn: availableOn,
		BalanceType: "payments", Created: t, Currency: ch.Currency, Description: ch.Description, Fee: fee,
		FeeDetails: []FeeDetail{{Amount: fee, Currency: ch.Currency, Description: "Stripe processing fees", Type: "stripe_fee"}},
		Net:        amount - fee, ReportingCategory: "charge", Source: ch.ID, Status: "pending", Type: "charge",
	}
	if bypassPending {
		txn.Status = "available"
	}
	w.BalanceTransactions = append(w.BalanceTransactions, txn)
	return txn
}

func retrieveCharge(ctx context.Context, w *World, in RetrieveChargeInput) (*Charge, error) {
	ch := w.charge(in.Charge)
	if ch == nil {
		return nil, noSuch("charge", in.Charge, "id")
	}
	return expanded(w, ch, in.Expand)
}

func listCharges(ctx context.Context, w *World, in ListChargesInput) (List[*Charge], error) {
	created, err := parseRange("created", in.Created)
	if err != nil {
		return List[*Charge]{}, err
	}
	var items []*Charge
	for _, ch := range w.Charges {
		if (in.Customer != "" && refOf(ch.Customer) != in.Customer) ||
			(in.PaymentIntent != "" && refOf(ch.PaymentIntent) != in.PaymentIntent) ||
			(in.TransferGroup != "" && (ch.TransferGroup == nil || *ch.TransferGroup != in.TransferGroup)) ||
			!created.contains(ch.Created) {
			continue
		}
		items = append(items, ch)
	}
	items = newestFirst(items, func(c *Charge) int64 { return c.Created })
	return paginate(w, items, func(c *Charge) string { return c.ID }, in.listParams, "/v1/charges", "charge", expander[Charge](w))
}

var chargeSearchFields = map[string]string{
	"amount": "number", "created": "number", "currency": "string", "customer": "string", "status": "string",
	"payment_intent": "string", "refunded": "string", "disputed": "string", "metadata": "metadata",
	"payment_method_details.card.last4": "string", "payment_method_details.card.brand": "string",
}

func searchCharges(ctx context.Context, w *World, in SearchInput) (SearchResult[*Charge], error) {
	q, err := parseQuery(in.Query, chargeSearchFields)
	if err != nil {
		return SearchResult[*Charge]{}, err
	}
	var items []*Charge
	for _, ch := range newestFirst(w.Charges, func(c *Charge) int64 { return c.Created }) {
		if q.matches(func(field, key string) (any, bool) {
			switch field {
			case "amount":
				return ch.Amount, true
			case "created":
				return ch.Created, true
			case "currency":
				return ch.Currency, true
			case "customer":
				return refOf(ch.Customer), refOf(ch.Customer) != ""
			case "status":
				return ch.Status, true
			case "payment_intent":
				return refOf(ch.PaymentIntent), refOf(ch.PaymentIntent) != ""
			case "refunded":
				return ch.Refunded, true
			case "disputed":
				return ch.Disputed, true
			case "metadata":
				v, ok := ch.Metadata[key]
				return v, ok
			case "payment_method_details.card.last4", "payment_method_details.card.brand":
				if ch.PaymentMethodDetails == nil || ch.PaymentMethodDetails.Card == nil {
					return nil, false
				}
				if field == "payment_method_details.card.last4" {
					return ch.PaymentMethodDetails.Card.Last4, true
				}
				return ch.PaymentMethodDetails.Card.Brand, true
			}
			return nil, false
		}) {
			items = append(items, ch)
		}
	}
	return searchPage(w, items, in, "/v1/charges/search", expander[Charge](w))
}

func chargeActions() []twins.Action {
	return []twins.Action{
		twins.New(twins.Spec{
			Name: "search_charges", Title: "Search charges",
			Description: "Search charges with Stripe's query language: status:'failed', customer:'cus_…', amount>1000, refunded:'true', metadata['k']:'v'.",
			Effect:      twins.Read,
			Bindings:    []twins.Binding{{Method: "GET", Path: "/v1/charges/search"}},
		}, searchCharges),
		twins.New(twins.Spec{
			Name: "retrieve_charge", Title: "Retrieve a charge",
			Description: "Retrieve a charge by id, with its amount_captured, amount_refunded and refunded state.",
			Effect:      twins.Read,
			Bindings:    []twins.Binding{{Method: "GET", Path: "/v1/charges/{charge}"}},
		}, retrieveCharge),
		twins.New(twins.Spec{
			Name: "list_charges", Title: "List charges",
			Description: "List charges, newest first, optionally for one customer or PaymentIntent.",
			Effect:      twins.Read,
			Bindings:    []twins.Binding{{Method: "GET", Path: "/v1/charges"}},
		}, listCharges),
	}
}
