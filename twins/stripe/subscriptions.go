package stripe

import (
	"context"

	"github.com/pomehq/pome/twins"
)

// Subscription is Stripe's subscription (API version basil: the billing
// period is on each item). The twin keeps its state machine — active,
// trialing, canceled — and its items; it issues no invoices for it.
type Subscription struct {
	ID                   string                  `json:"id"`
	Object               string                  `json:"object"`
	BillingCycleAnchor   int64                   `json:"billing_cycle_anchor"`
	CancelAt             *int64                  `json:"cancel_at"`
	CancelAtPeriodEnd    bool                    `json:"cancel_at_period_end"`
	CanceledAt           *int64                  `json:"canceled_at"`
	CancellationDetails  CancellationDetails     `json:"cancellation_details"`
	CollectionMethod     string                  `json:"collection_method"`
	Created              int64                   `json:"created"`
	Currency             string                  `json:"currency"`
	Customer             string                  `json:"customer"`
	DaysUntilDue         *int64                  `json:"days_until_due"`
	DefaultPaymentMethod *string                 `json:"default_payment_method"`
	Description          *string                 `json:"description"`
	Discounts            []string                `json:"discounts"`
	EndedAt              *int64                  `json:"ended_at"`
	Items                List[*SubscriptionItem] `json:"items"`
	LatestInvoice        *string                 `json:"latest_invoice"`
	Livemode             bool                    `json:"livemode"`
	Metadata             map[string]string       `json:"metadata"`
	StartDate            int64                   `json:"start_date"`
	Status               string                  `json:"status"`
	TrialEnd             *int64                  `json:"trial_end"`
	TrialStart           *int64                  `json:"trial_start"`
}

// CancellationDetails says why a subscription was canceled.
type CancellationDetails struct {
	Comment  *string `json:"comment"`
	Feedback *string `json:"feedback"`
	Reason   *string `json:"reason"`
}

// SubscriptionItem is one price on a subscription.
type SubscriptionItem struct {
	ID                 string            `json:"id"`
	Object             string            `json:"object"`
	Created            int64             `json:"created"`
	CurrentPeriodEnd   int64             `json:"current_period_end"`
	CurrentPeriodStart int64             `json:"current_period_start"`
	Metadata           map[string]string `json:"metadata"`
	Price              *Price            `json:"price"`
	Quantity           int64             `json:"quantity"`
	Subscription       string            `json:"subscription"`
}

// SubscriptionItemInput is items[…] on create and update.
type SubscriptionItemInput struct {
	ID       string `json:"id,omitempty" jsonschema:"The ID of the subscription item to modify."`
	Price    string `json:"price,omitempty" jsonschema:"The ID of the price to switch to."`
	Quantity *int64 `json:"quantity,omitempty" jsonschema:"The quantity of the plan to subscribe to."`
	Deleted  *bool  `json:"deleted,omitempty" jsonschema:"Whether to delete this item."`
}

// CreateSubscriptionInput subscribes a customer to recurring prices.
type CreateSubscriptionInput struct {
	Customer             string                  `json:"customer" jsonschema:"the customer to subscribe (cus_…)"`
	Items                []SubscriptionItemInput `json:"items,omitempty" jsonschema:"the recurring prices, with quantity (default 1)"`
	CollectionMethod     string                  `json:"collection_method,omitempty" jsonschema:"one of charge_automatically (default) or send_invoice"`
	DaysUntilDue         *int64                  `json:"days_until_due,omitempty" jsonschema:"with collection_method send_invoice only"`
	DefaultPaymentMethod string                  `json:"default_payment_method,omitempty" jsonschema:"a payment method of the customer (pm_…)"`
	TrialPeriodDays      *int64                  `json:"trial_period_days,omitempty"`
	Description          string                  `json:"description,omitempty"`
	Metadata             map[string]string       `json:"metadata,omitempty"`
}

// UpdateSubscriptionInput changes a subscription's items or settings.
type UpdateSubscriptionInput struct {
	Subscription      string                  `json:"subscription" jsonschema:"The ID of the subscription to update."`
	ProrationBehavior string                  `json:"proration_behavior,omitempty" jsonschema:"Determines how to handle prorations when the subscription items change: one of create_prorations, none, always_invoice, none_implicit" enum:"create_prorations,none,always_invoice,none_implicit"`
	Items             []SubscriptionItemInput `json:"items,omitempty" jsonschema:"A list of subscription items to update, add, or remove."`
	CancelAtPeriodEnd *bool                   `json:"cancel_at_period_end,omitempty"`
	Description       *string                 `json:"description,omitempty"`
	Metadata          map[string]string       `json:"metadata,omitempty"`
}

// CancelSubscriptionInput names the subscription to cancel.
type CancelSubscriptionInput struct {
	Subscription string `json:"subscription" jsonschema:"The ID of the subscription to cancel."`
}

// ListSubscriptionsInput lists subscriptions.
type ListSubscriptionsInput struct {
	listParams
	Customer string `json:"customer,omitempty" jsonschema:"The ID of the customer to list subscriptions for."`
	Price    string `json:"price,omitempty" jsonschema:"The ID of the price to list subscriptions for."`
	Status   string `json:"status,omitempty" jsonschema:"The status of the subscriptions to retrieve: one of active, past_due, unpaid, canceled, incomplete, incomplete_expired, trialing, paused, ended, all. Without it, every subscription not canceled." enum:"active,past_due,unpaid,canceled,incomplete,incomplete_expired,trialing,paused,ended,all"`
}

var (
	subscriptionStatuses = []string{"active", "past_due", "unpaid", "canceled", "incomplete", "incomplete_expired", "trialing", "paused", "ended", "all"}
	// none_implicit is in @stripe/mcp's enum; it behaves as none.
	prorationBehaviors = []string{"create_prorations", "none", "always_invoice", "none_implicit"}
)

// periodEnd is the end of a billing period of price starting at t.
func periodEnd(p *Price, t int64) int64 {
	days := map[string]int64{"day": 1, "week": 7, "month": 30, "year": 365}[p.Recurring.Interval]
	return t + days*p.Recurring.IntervalCount*86400
}

// subscriptionItem validates one items[i] that adds a price.
func (w *World) subscriptionPrice(param string, it SubscriptionItemInput, currency string) (*Price, int64, error) {
	if it.Price == "" {
		return nil, 0, missingParam(param + "[price]")
	}
	p := w.price(it.Price)
	if p == nil {
		return nil, 0, noSuch("price", it.Price, param+"[price]")
	}
	if p.Recurring == nil {
		return nil, 0, invalidParam(param+"[price]", "", "The price specified is set to `type=one_time` but this field only accepts prices with `type=recurring`.")
	}
	if !p.Active {
		return nil, 0, invalidParam(param+"[price]", "", "The price specified is inactive. This field only accepts active prices.")
	}
	if currency != "" && p.Currency != currency {
		return nil, 0, invalidParam(param+"[price]", "", "The price specified has currency %s; this subscription's currency is %s.", p.Currency, currency)
	}
	q := int64(1)
	if it.Quantity != nil {
		if *it.Quantity < 1 {
			return nil, 0, invalidParam(param+"[quantity]", "parameter_invalid_integer", "Invalid positive integer")
		}
		q = *it.Quantity
	}
	return p, q, nil
}

func (w *World) newSubscriptionItem(ctx context.Context, sub *Subscription, p *Price, q int64) *SubscriptionItem {
	t := now(ctx)
	return &SubscriptionItem{
		ID: w.newID("si"), Object: "subscription_item", Created: t, CurrentPeriodStart: t, CurrentPeriodEnd: periodEnd(p, t),
		Metadata: map[string]string{}, Price: clone(p), Quantity: q, Subscription: sub.ID,
	}
}

func createSubscription(ctx context.Context, w *World, in CreateSubscriptionInput) (*Subscription, error) {
	cus := w.customer(in.Customer)
	if cus == nil {
		return nil, noSuch("customer", in.Customer, "customer")
	}
	if len(in.Items) == 0 {
		return nil, missingParam("items")
	}
	method := in.CollectionMethod
	switch {
	case method == "":
		method = "charge_automatically"
	case !oneOf(method, collectionMethods):
		return nil, invalidParam("collection_method", "", "Invalid collection_method: must be one of charge_automatically or send_invoice")
	}
	if in.DaysUntilDue != nil && method != "send_invoice" {
		return nil, invalidParam("days_until_due", "", "Invalid days_until_due: can only be set when collection_method=send_invoice.")
	}
	pm := in.DefaultPaymentMethod
	if pm != "" {
		p := w.paymentMethod(pm)
		if p == nil {
			return nil, noSuch("payment_method", pm, "default_payment_method")
		}
		if refOf(p.Customer) != cus.ID {
			return nil, invalidParam("default_payment_method", "", "The payment method %s does not belong to customer %s.", pm, cus.ID)
		}
	}
	if pm == "" {
		pm = refOf(cus.InvoiceSettings.DefaultPaymentMethod)
	}
	if method == "charge_automatically" && pm == "" && (in.TrialPeriodDays == nil || *in.TrialPeriodDays == 0) {
		return nil, invalidParam("default_payment_method", "resource_missing", "This customer has no attached payment source or default payment method. Please consider adding a default payment method.")
	}
	if in.TrialPeriodDays != nil && (*in.TrialPeriodDays < 0 || *in.TrialPeriodDays > 730) {
		return nil, invalidParam("trial_period_days", "parameter_invalid_integer", "Invalid trial_period_days: must be between 0 and 730.")
	}
	if err := checkMetadata(in.Metadata); err != nil {
		return nil, err
	}
	type line struct {
		p *Price
		q int64
	}
	var lines []line
	currency := ""
	for i, it := range in.Items {
		p, q, err := w.subscriptionPrice("items["+itoa(int64(i))+"]", it, currency)
		if err != nil {
			return nil, err
		}
		currency = p.Currency
		lines = append(lines, line{p, q})
	}
	t := now(ctx)
	sub := &Subscription{
		ID: w.newID("sub"), Object: "subscription", BillingCycleAnchor: t, CollectionMethod: method, Created: t,
		Currency: currency, Customer: cus.ID, DaysUntilDue: in.DaysUntilDue, DefaultPaymentMethod: strp(in.DefaultPaymentMethod),
		Description: strp(in.Description), Discounts: []string{}, Metadata: metadataOrEmpty(in.Metadata), StartDate: t, Status: "active",
	}
	if in.TrialPeriodDays != nil && *in.TrialPeriodDays > 0 {
		end := t + *in.TrialPeriodDays*86400
		sub.Status, sub.TrialStart, sub.TrialEnd, sub.BillingCycleAnchor = "trialing", &t, &end, end
	}
	sub.Items = List[*SubscriptionItem]{Object: "list", Data: []*SubscriptionItem{}, URL: "/v1/subscription_items?subscription=" + sub.ID}
	for _, l := range lines {
		sub.Items.Data = append(sub.Items.Data, w.newSubscriptionItem(ctx, sub, l.p, l.q))
	}
	w.Subscriptions = append(w.Subscriptions, sub)
	w.emit(ctx, "customer.subscription.created", sub, nil)
	return sub, nil
}

func updateSubscription(ctx context.Context, w *World, in UpdateSubscriptionInput) (*Subscription, error) {
	sub := w.subscription(in.Subscription)
	if sub == nil {
		return nil, noSuch("subscription", in.Subscription, "subscription")
	}
	if sub.Status == "canceled" {
		return nil, invalidParam("subscription", "", "A canceled subscription can only update its cancellation_details and metadata.")
	}
	if in.ProrationBehavior != "" && !oneOf(in.ProrationBehavior, prorationBehaviors) {
		return nil, invalidParam("proration_behavior", "", "Invalid proration_behavior: must be one of create_prorations, none, always_invoice, or none_implicit")
	}
	if err := checkMetadata(in.Metadata); err != nil {
		return nil, err
	}
	before := clone(sub)
	items := clone(&sub.Items).Data
	for i, it := range in.Items {
		param := "items[" + itoa(int64(i)) + "]"
		if it.ID == "" {
			if it.Deleted != nil && *it.Deleted {
				return nil, missingParam(param + "[id]")
			}
			p, q, err := w.subscriptionPrice(param, it, sub.Currency)
			if err != nil {
				return nil, err
			}
			items = append(items, w.newSubscriptionItem(ctx, sub, p, q))
			continue
		}
		at := -1
		for j, si := range items {
			if si.ID == it.ID {
				at = j
			}
		}
		if at < 0 {
			return nil, noSuch("subscription_item", it.ID, param+"[id]")
		}
		if it.Deleted != nil && *it.Deleted {
			items = append(items[:at], items[at+1:]...)
			continue
		}
		si := clone(items[at])
		if it.Price != "" {
			p, _, err := w.subscriptionPrice(param, SubscriptionItemInput{Price: it.Price}, sub.Currency)
			if err != nil {
				return nil, err
			}
			si.Price = clone(p)
		}
		if it.Quantity != nil {
			if *it.Quantity < 1 {
				return nil, invalidParam(param+"[quantity]", "parameter_invalid_integer", "Invalid positive integer")
			}
			si.Quantity = *it.Quantity
		}
		items[at] = si
	}
	if len(items) == 0 {
		return nil, invalidParam("items", "", "A subscription must have at least one active plan. To cancel a subscription, please use the cancel API endpoint on /v1/subscriptions.")
	}
	sub.Items.Data = items
	if in.CancelAtPeriodEnd != nil {
		sub.CancelAtPeriodEnd = *in.CancelAtPeriodEnd
		sub.CancelAt = nil
		if sub.CancelAtPeriodEnd {
			end := items[0].CurrentPeriodEnd
			sub.CancelAt = &end
		}
	}
	if in.Description != nil {
		sub.Description = optional(in.Description)
	}
	if in.Metadata != nil {
		sub.Metadata = mergeMetadata(sub.Metadata, in.Metadata)
	}
	prev := previousAttributes(before, sub)
	if len(prev) == 0 {
		unchanged(ctx)
		return sub, nil
	}
	w.emit(ctx, "customer.subscription.updated", sub, prev)
	return sub, nil
}

func cancelSubscription(ctx context.Context, w *World, in CancelSubscriptionInput) (*Subscription, error) {
	sub := w.subscription(in.Subscription)
	if sub == nil {
		return nil, noSuch("subscription", in.Subscription, "subscription")
	}
	if sub.Status == "canceled" {
		return nil, invalidParam("subscription", "", "This subscription has already been canceled.")
	}
	t := now(ctx)
	sub.Status = "canceled"
	sub.CanceledAt, sub.EndedAt = &t, &t
	sub.CancellationDetails.Reason = strp("cancellation_requested")
	w.emit(ctx, "customer.subscription.deleted", sub, nil)
	return sub, nil
}

func listSubscriptions(ctx context.Context, w *World, in ListSubscriptionsInput) (List[*Subscription], error) {
	if in.Status != "" && !oneOf(in.Status, subscriptionStatuses) {
		return List[*Subscription]{}, invalidParam("status", "", "Invalid status: must be one of active, past_due, unpaid, canceled, incomplete, incomplete_expired, trialing, paused, ended, or all")
	}
	var items []*Subscription
	for _, s := range w.Subscriptions {
		switch {
		case in.Customer != "" && s.Customer != in.Customer:
			continue
		case in.Status == "" && s.Status == "canceled":
			continue
		case in.Status == "ended" && s.Status != "canceled":
			continue
		case in.Status != "" && in.Status != "all" && in.Status != "ended" && s.Status != in.Status:
			continue
		}
		if in.Price != "" {
			has := false
			for _, si := range s.Items.Data {
				has = has || si.Price.ID == in.Price
			}
			if !has {
				continue
			}
		}
		items = append(items, s)
	}
	items = newestFirst(items, func(s *Subscription) int64 { return s.Created })
	return paginate(w, items, func(s *Subscription) string { return s.ID }, in.listParams, "/v1/subscriptions", "subscription", expander[Subscription](w))
}

func subscriptionActions() []twins.Action {
	return []twins.Action{
		writeAction(twins.Spec{
			Name: "create_subscription", Title: "Create a subscription",
			Description: "Subscribe a customer to recurring prices (items[]); charge_automatically needs a default payment method unless the subscription starts with a trial.",
			Effect:      twins.Write,
			Bindings:    []twins.Binding{{Method: "POST", Path: "/v1/subscriptions"}},
		}, createSubscription),
		twins.New(twins.Spec{
			Name: "list_subscriptions", Title: "List subscriptions",
			Description: "List subscriptions, newest first, by customer, price or status (one of active, past_due, unpaid, canceled, incomplete, incomplete_expired, trialing, paused, ended, all; default: all but canceled).",
			Effect:      twins.Read,
			Bindings:    []twins.Binding{{Method: "GET", Path: "/v1/subscriptions"}},
		}, listSubscriptions),
		writeAction(twins.Spec{
			Name: "update_subscription", Title: "Update a subscription",
			Description: "Change a subscription's items (items[] with id to change or delete one, without id to add a price), cancel_at_period_end or metadata; proration_behavior is one of create_prorations, none, always_invoice, none_implicit.",
			Effect:      twins.Write,
			Bindings:    []twins.Binding{{Method: "POST", Path: "/v1/subscriptions/{subscription}"}},
		}, updateSubscription),
		writeAction(twins.Spec{
			Name: "cancel_subscription", Title: "Cancel a subscription",
			Description: "Cancel a subscription at once.",
			Effect:      twins.Write,
			Bindings:    []twins.Binding{{Method: "DELETE", Path: "/v1/subscriptions/{subscription}"}},
		}, cancelSubscription),
	}
}
