package stripe

import (
	"context"
	"fmt"

	"github.com/pomehq/pome/twins"
)

// Invoice is Stripe's invoice. Only one-off invoices exist here: drafts
// created for a customer, filled with invoice items, then finalized.
type Invoice struct {
	ID                string             `json:"id"`
	Object            string             `json:"object"`
	AccountCountry    string             `json:"account_country"`
	AccountName       *string            `json:"account_name"`
	AmountDue         int64              `json:"amount_due"`
	AmountPaid        int64              `json:"amount_paid"`
	AmountRemaining   int64              `json:"amount_remaining"`
	AttemptCount      int64              `json:"attempt_count"`
	Attempted         bool               `json:"attempted"`
	AutoAdvance       bool               `json:"auto_advance"`
	BillingReason     string             `json:"billing_reason"`
	CollectionMethod  string             `json:"collection_method"`
	Created           int64              `json:"created"`
	Currency          string             `json:"currency"`
	Customer          string             `json:"customer"`
	CustomerEmail     *string            `json:"customer_email"`
	CustomerName      *string            `json:"customer_name"`
	Description       *string            `json:"description"`
	Discounts         []string           `json:"discounts"`
	DueDate           *int64             `json:"due_date"`
	EffectiveAt       *int64             `json:"effective_at"`
	HostedInvoiceURL  *string            `json:"hosted_invoice_url"`
	InvoicePDF        *string            `json:"invoice_pdf"`
	Lines             List[*InvoiceLine] `json:"lines"`
	Livemode          bool               `json:"livemode"`
	Metadata          map[string]string  `json:"metadata"`
	Number            *string            `json:"number"`
	PeriodEnd         int64              `json:"period_end"`
	PeriodStart       int64              `json:"period_start"`
	Status            string             `json:"status"`
	StatusTransitions StatusTransitions  `json:"status_transitions"`
	Subtotal          int64              `json:"subtotal"`
	Total             int64              `json:"total"`
}

// StatusTransitions are the times an invoice changed status.
type StatusTransitions struct {
	FinalizedAt           *int64 `json:"finalized_at"`
	MarkedUncollectibleAt *int64 `json:"marked_uncollectible_at"`
	PaidAt                *int64 `json:"paid_at"`
	VoidedAt              *int64 `json:"voided_at"`
}

// InvoiceLine is one line of an invoice (Stripe's line_item object).
type InvoiceLine struct {
	ID          string            `json:"id"`
	Object      string            `json:"object"`
	Amount      int64             `json:"amount"`
	Currency    string            `json:"currency"`
	Description *string           `json:"description"`
	Invoice     string            `json:"invoice"`
	Livemode    bool              `json:"livemode"`
	Metadata    map[string]string `json:"metadata"`
	Parent      map[string]any    `json:"parent"`
	Period      Period            `json:"period"`
	Pricing     *ItemPricing      `json:"pricing"`
	Quantity    int64             `json:"quantity"`
}

// Period is a start and end time.
type Period struct {
	End   int64 `json:"end"`
	Start int64 `json:"start"`
}

// ItemPricing is how an invoice item or line is priced.
type ItemPricing struct {
	PriceDetails      map[string]string `json:"price_details"`
	Type              string            `json:"type"`
	UnitAmountDecimal *string           `json:"unit_amount_decimal"`
}

// InvoiceItem is Stripe's invoiceitem: a charge to add to an invoice.
type InvoiceItem struct {
	ID           string            `json:"id"`
	Object       string            `json:"object"`
	Amount       int64             `json:"amount"`
	Currency     string            `json:"currency"`
	Customer     string            `json:"customer"`
	Date         int64             `json:"date"`
	Description  *string           `json:"description"`
	Discountable bool              `json:"discountable"`
	Discounts    []string          `json:"discounts"`
	Invoice      *string           `json:"invoice"`
	Livemode     bool              `json:"livemode"`
	Metadata     map[string]string `json:"metadata"`
	Parent       any               `json:"parent"`
	Period       Period            `json:"period"`
	Pricing      *ItemPricing      `json:"pricing"`
	Proration    bool              `json:"proration"`
	Quantity     int64             `json:"quantity"`
	TaxRates     []string          `json:"tax_rates"`
	TestClock    *string           `json:"test_clock"`
}

// CreateInvoiceInput creates a draft invoice.
type CreateInvoiceInput struct {
	Customer         string            `json:"customer" jsonschema:"The ID of the customer to create the invoice for."`
	DaysUntilDue     *int64            `json:"days_until_due,omitempty" jsonschema:"The number of days until the invoice is due. Only with collection_method send_invoice, which it implies when collection_method is not given."`
	CollectionMethod string            `json:"collection_method,omitempty" jsonschema:"one of charge_automatically (Stripe's default) or send_invoice"`
	AutoAdvance      *bool             `json:"auto_advance,omitempty"`
	Currency         string            `json:"currency,omitempty" jsonschema:"three-letter ISO currency code; defaults to usd"`
	Description      string            `json:"description,omitempty"`
	Metadata         map[string]string `json:"metadata,omitempty"`
	Expand           []string          `json:"expand,omitempty"`
}

// FinalizeInvoiceInput names the draft invoice to finalize.
type FinalizeInvoiceInput struct {
	Invoice     string   `json:"invoice" jsonschema:"The ID of the invoice to finalize."`
	AutoAdvance *bool    `json:"auto_advance,omitempty"`
	Expand      []string `json:"expand,omitempty"`
}

// ListInvoicesInput lists invoices.
type ListInvoicesInput struct {
	listParams
	Customer         string `json:"customer,omitempty" jsonschema:"The ID of the customer to list invoices for."`
	Status           string `json:"status,omitempty" jsonschema:"one of draft, open, paid, uncollectible, void"`
	CollectionMethod string `json:"collection_method,omitempty" jsonschema:"one of charge_automatically, send_invoice"`
	Created          any    `json:"created,omitempty" jsonschema:"a unix timestamp or a range object with gt, gte, lt, lte"`
}

// CreateInvoiceItemInput adds a price to a customer's draft invoice.
type CreateInvoiceItemInput struct {
	Customer string `json:"customer" jsonschema:"The ID of the customer to create the invoice item for."`
	Price    string `json:"price,omitempty" jsonschema:"The ID of the price for the item (a one-time price)."`
	Pricing  *struct {
		Price string `json:"price,omitempty" jsonschema:"the same as price, as API version 2025-03-31.basil names it"`
	} `json:"pricing,omitempty"`
	Invoice     string            `json:"invoice,omitempty" jsonschema:"The ID of the invoice to create the item for (a draft of the same customer)."`
	Quantity    *int64            `json:"quantity,omitempty" jsonschema:"how many units of the price; default 1"`
	Amount      *int64            `json:"amount,omitempty" jsonschema:"an amount in the smallest currency unit, instead of price"`
	Currency    string            `json:"currency,omitempty" jsonschema:"the currency of amount"`
	Description string            `json:"description,omitempty"`
	Metadata    map[string]string `json:"metadata,omitempty"`
	Expand      []string          `json:"expand,omitempty"`
}

var (
	invoiceStatuses   = []string{"draft", "open", "paid", "uncollectible", "void"}
	collectionMethods = []string{"charge_automatically", "send_invoice"}
)

func oneOf(v string, set []string) bool {
	for _, s := range set {
		if v == s {
			return true
		}
	}
	return false
}

func createInvoice(ctx context.Context, w *World, in CreateInvoiceInput) (*Invoice, error) {
	if in.Customer == "" {
		return nil, missingParam("customer")
	}
	cus := w.customer(in.Customer)
	if cus == nil {
		return nil, noSuch("customer", in.Customer, "customer")
	}
	method := in.CollectionMethod
	switch {
	case method == "" && in.DaysUntilDue != nil:
		method = "send_invoice"
	case method == "":
		method = "charge_automatically"
	case !oneOf(method, collectionMethods):
		return nil, invalidParam("collection_method", "", "Invalid collection_method: must be one of charge_automatically or send_invoice")
	}
	if in.DaysUntilDue != nil && method != "send_invoice" {
		return nil, invalidParam("days_until_due", "", "Invalid days_until_due: can only be set when collection_method=send_invoice.")
	}
	if in.DaysUntilDue != nil && *in.DaysUntilDue < 0 {
		return nil, invalidParam("days_until_due", "parameter_invalid_integer", "Invalid non-negative integer")
	}
	currency := "usd"
	if in.Currency != "" {
		c, err := checkCurrency("currency", in.Currency)
		if err != nil {
			return nil, err
		}
		currency = c
	}
	if err := checkMetadata(in.Metadata); err != nil {
		return nil, err
	}
	if err := checkExpand(w, &Invoice{}, in.Expand); err != nil {
		return nil, err
	}
	t := now(ctx)
	inv := &Invoice{
		ID: w.newID("in"), Object: "invoice", AccountCountry: "US", AutoAdvance: in.AutoAdvance != nil && *in.AutoAdvance,
		BillingReason: "manual", CollectionMethod: method, Created: t, Currency: currency, Customer: cus.ID,
		CustomerEmail: cus.Email, CustomerName: cus.Name, Description: strp(in.Description), Discounts: []string{},
		Metadata: metadataOrEmpty(in.Metadata), PeriodEnd: t, PeriodStart: t, Status: "draft",
	}
	if in.DaysUntilDue != nil {
		due := t + *in.DaysUntilDue*86400
		inv.DueDate = &due
	}
	inv.Lines = List[*InvoiceLine]{Object: "list", Data: []*InvoiceLine{}, URL: "/v1/invoices/" + inv.ID + "/lines"}
	w.Invoices = append(w.Invoices, inv)
	w.emit(ctx, "invoice.created", inv, nil)
	return inv, nil
}

func finalizeInvoice(ctx context.Context, w *World, in FinalizeInvoiceInput) (*Invoice, error) {
	inv := w.invoice(in.Invoice)
	if inv == nil {
		return nil, noSuch("invoice", in.Invoice, "invoice")
	}
	if inv.Status != "draft" {
		return nil, twins.Errorf(twins.Invalid, "invoice_not_editable", "This invoice is already finalized, you can't re-finalize a non-draft invoice.")
	}
	if err := checkExpand(w, inv, in.Expand); err != nil {
		return nil, err
	}
	t := now(ctx)
	w.Counters["invoice_number"]++
	prefix := token("invoice-prefix/"+inv.Customer, 8)
	inv.Number = strp(fmt.Sprintf("%s-%04d", prefix, w.Counters["invoice_number"]))
	inv.Status = "open"
	inv.StatusTransitions.FinalizedAt = &t
	inv.EffectiveAt = &t
	inv.HostedInvoiceURL = strp("https://invoice.stripe.com/i/acct_pome/test_" + token("hosted/"+inv.ID, 40))
	inv.InvoicePDF = strp("https://pay.stripe.com/invoice/acct_pome/test_" + token("hosted/"+inv.ID, 40) + "/pdf")
	if in.AutoAdvance != nil {
		inv.AutoAdvance = *in.AutoAdvance
	}
	w.emit(ctx, "invoice.finalized", inv, map[string]any{"status": "draft"})
	if inv.AmountDue == 0 {
		// Stripe marks an invoice with nothing to pay paid at once.
		inv.Status = "paid"
		inv.StatusTransitions.PaidAt = &t
		w.emit(ctx, "invoice.paid", inv, map[string]any{"status": "open"})
	}
	return inv, nil
}

func listInvoices(ctx context.Context, w *World, in ListInvoicesInput) (List[*Invoice], error) {
	if in.Status != "" && !oneOf(in.Status, invoiceStatuses) {
		return List[*Invoice]{}, invalidParam("status", "", "Invalid status: must be one of draft, open, paid, uncollectible, or void")
	}
	if in.CollectionMethod != "" && !oneOf(in.CollectionMethod, collectionMethods) {
		return List[*Invoice]{}, invalidParam("collection_method", "", "Invalid collection_method: must be one of charge_automatically or send_invoice")
	}
	if in.Customer != "" && w.customer(in.Customer) == nil {
		return List[*Invoice]{}, noSuch("customer", in.Customer, "customer")
	}
	created, err := parseRange("created", in.Created)
	if err != nil {
		return List[*Invoice]{}, err
	}
	var items []*Invoice
	for _, inv := range w.Invoices {
		if (in.Customer != "" && inv.Customer != in.Customer) || (in.Status != "" && inv.Status != in.Status) ||
			(in.CollectionMethod != "" && inv.CollectionMethod != in.CollectionMethod) || !created.contains(inv.Created) {
			continue
		}
		items = append(items, inv)
	}
	items = newestFirst(items, func(i *Invoice) int64 { return i.Created })
	return paginate(w, items, func(i *Invoice) string { return i.ID }, in.listParams, "/v1/invoices", "invoice", expander[Invoice](w))
}

func createInvoiceItem(ctx context.Context, w *World, in CreateInvoiceItemInput) (*InvoiceItem, error) {
	if in.Customer == "" {
		return nil, missingParam("customer")
	}
	cus := w.customer(in.Customer)
	if cus == nil {
		return nil, noSuch("customer", in.Customer, "customer")
	}
	quantity := int64(1)
	if in.Quantity != nil {
		if *in.Quantity < 1 {
			return nil, invalidParam("quantity", "parameter_invalid_integer", "Invalid positive integer")
		}
		quantity = *in.Quantity
	}
	if in.Pricing != nil && in.Pricing.Price != "" {
		if in.Price != "" {
			return nil, invalidParam("pricing[price]", "", "You may only specify one of these parameters: price, pricing[price].")
		}
		in.Price = in.Pricing.Price
	}
	var amount, unit int64
	var currency string
	var pricing *ItemPricing
	switch {
	case in.Price != "" && in.Amount != nil:
		return nil, invalidParam("amount", "", "You may only specify one of these parameters: amount, price.")
	case in.Price != "":
		p := w.price(in.Price)
		if p == nil {
			return nil, noSuch("price", in.Price, "price")
		}
		if p.Type != "one_time" {
			return nil, invalidParam("price", "", "The price specified is set to `type=recurring` but this field only accepts prices with `type=one_time`.")
		}
		if !p.Active {
			return nil, invalidParam("price", "", "The price specified is inactive. This field only accepts active prices.")
		}
		if p.UnitAmount == nil {
			return nil, invalidParam("price", "", "The price specified has no unit_amount.")
		}
		unit, currency = *p.UnitAmount, p.Currency
		amount = unit * quantity
		pricing = &ItemPricing{
			PriceDetails: map[string]string{"price": p.ID, "product": refOf(p.Product)}, Type: "price_details",
			UnitAmountDecimal: strp(itoa(unit)),
		}
	case in.Amount != nil:
		if in.Currency == "" {
			return nil, missingParam("currency")
		}
		c, err := checkCurrency("currency", in.Currency)
		if err != nil {
			return nil, err
		}
		amount, currency = *in.Amount, c
		unit = amount / quantity
		pricing = &ItemPricing{Type: "price_details", UnitAmountDecimal: strp(itoa(unit))}
	default:
		return nil, invalidParam("price", "parameter_missing", "You must pass either `price`, `pricing[price]` or `amount`.")
	}
	var inv *Invoice
	if in.Invoice != "" {
		if inv = w.invoice(in.Invoice); inv == nil {
			return nil, noSuch("invoice", in.Invoice, "invoice")
		}
		if inv.Customer != cus.ID {
			return nil, invalidParam("invoice", "", "The invoice's customer (%s) does not match the invoice item's customer (%s).", inv.Customer, cus.ID)
		}
		if inv.Status != "draft" {
			return nil, twins.Errorf(twins.Invalid, "invoice_not_editable", "You can only add invoice items to draft invoices; invoice %s is %s.", inv.ID, inv.Status).WithField("invoice")
		}
		if inv.Currency != currency {
			return nil, invalidParam("currency", "", "The currency of the invoice item (%s) must match the invoice's currency (%s).", currency, inv.Currency)
		}
	}
	if err := checkMetadata(in.Metadata); err != nil {
		return nil, err
	}
	if err := checkExpand(w, &InvoiceItem{}, in.Expand); err != nil {
		return nil, err
	}
	t := now(ctx)
	ii := &InvoiceItem{
		ID: w.newID("ii"), Object: "invoiceitem", Amount: amount, Currency: currency, Customer: cus.ID, Date: t,
		Description: strp(in.Description), Discountable: true, Discounts: []string{}, Metadata: metadataOrEmpty(in.Metadata),
		Period: Period{End: t, Start: t}, Pricing: pricing, Quantity: quantity, TaxRates: []string{},
	}
	if inv != nil {
		ii.Invoice = strp(inv.ID)
		before := map[string]any{"amount_due": inv.AmountDue, "subtotal": inv.Subtotal, "total": inv.Total}
		inv.Lines.Data = append(inv.Lines.Data, &InvoiceLine{
			ID: w.newID("il"), Object: "line_item", Amount: amount, Currency: currency, Description: ii.Description,
			Invoice: inv.ID, Metadata: ii.Metadata, Period: ii.Period, Pricing: pricing, Quantity: quantity,
			Parent: map[string]any{"type": "invoice_item_details", "invoice_item_details": map[string]any{"invoice_item": ii.ID}},
		})
		inv.Subtotal += amount
		inv.Total += amount
		inv.AmountDue += amount
		inv.AmountRemaining += amount
		w.emit(ctx, "invoice.updated", inv, before)
	}
	w.InvoiceItems = append(w.InvoiceItems, ii)
	w.emit(ctx, "invoiceitem.created", ii, nil)
	return ii, nil
}

func invoiceActions() []twins.Action {
	return []twins.Action{
		writeAction(twins.Spec{
			Name: "create_invoice", Title: "Create an invoice",
			Description: "Create a draft invoice for a customer. days_until_due sets its due date and implies collection_method send_invoice; collection_method is one of charge_automatically, send_invoice.",
			Effect:      twins.Write,
			Bindings:    []twins.Binding{{Method: "POST", Path: "/v1/invoices"}},
		}, createInvoice),
		twins.New(twins.Spec{
			Name: "list_invoices", Title: "List invoices",
			Description: "List invoices, newest first, optionally for one customer, by status (one of draft, open, paid, uncollectible, void) or collection_method.",
			Effect:      twins.Read,
			Bindings:    []twins.Binding{{Method: "GET", Path: "/v1/invoices"}},
		}, listInvoices),
		writeAction(twins.Spec{
			Name: "finalize_invoice", Title: "Finalize an invoice",
			Description: "Finalize a draft invoice: it gets a number and a hosted_invoice_url and becomes open (paid when nothing is due).",
			Effect:      twins.Write,
			Bindings:    []twins.Binding{{Method: "POST", Path: "/v1/invoices/{invoice}/finalize"}},
		}, finalizeInvoice),
		writeAction(twins.Spec{
			Name: "create_invoice_item", Title: "Create an invoice item",
			Description: "Add an item to a customer's draft invoice: a one-time price (price, times quantity) or an amount with currency.",
			Effect:      twins.Write,
			Bindings:    []twins.Binding{{Method: "POST", Path: "/v1/invoiceitems"}},
		}, createInvoiceItem),
	}
}
