package stripe_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/pomehq/pome/tape"
	sg "github.com/stripe/stripe-go/v82"
)

// wantInvalid asserts a 400 invalid_request_error naming param.
func wantInvalid(t *testing.T, err error, param string) {
	t.Helper()
	var se *sg.Error
	if !asStripe(err, &se) || se.HTTPStatusCode != http.StatusBadRequest || se.Type != sg.ErrorTypeInvalidRequest || se.Param != param {
		t.Fatalf("want 400 invalid_request_error on %s, got %v", param, err)
	}
}

// wantMissing asserts Stripe's 404 resource_missing naming param.
func wantMissing(t *testing.T, err error, param string) {
	t.Helper()
	se := stripeErr(t, err, http.StatusNotFound, sg.ErrorCodeResourceMissing)
	if se.Type != sg.ErrorTypeInvalidRequest || se.Param != param {
		t.Fatalf("want resource_missing on %s, got %+v", param, se)
	}
}

func asStripe(err error, se **sg.Error) bool {
	e, ok := err.(*sg.Error)
	*se = e
	return ok
}

func TestSDKCoupons(t *testing.T) {
	sc, _ := sdk(t, "")
	pct, err := sc.V1Coupons.Create(ctx, &sg.CouponCreateParams{Name: sg.String("Spring"), PercentOff: sg.Float64(25)})
	if err != nil {
		t.Fatal(err)
	}
	if pct.Object != "coupon" || pct.PercentOff != 25 || pct.Duration != sg.CouponDurationOnce || !pct.Valid || len(pct.ID) != 8 || pct.Name != "Spring" {
		t.Fatalf("percent coupon %+v", pct)
	}
	amt, err := sc.V1Coupons.Create(ctx, &sg.CouponCreateParams{AmountOff: sg.Int64(500), Currency: sg.String("USD"),
		Duration: sg.String("repeating"), DurationInMonths: sg.Int64(3)})
	if err != nil {
		t.Fatal(err)
	}
	if amt.AmountOff != 500 || amt.Currency != "usd" || amt.DurationInMonths != 3 {
		t.Fatalf("amount coupon %+v", amt)
	}
	var ids []string
	for c, err := range sc.V1Coupons.List(ctx, &sg.CouponListParams{}) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, c.ID)
	}
	if strings.Join(ids, ",") != amt.ID+","+pct.ID {
		t.Errorf("list %v", ids)
	}
	for _, c := range []struct {
		param string
		p     *sg.CouponCreateParams
	}{
		{"percent_off", &sg.CouponCreateParams{Name: sg.String("none")}},
		{"percent_off", &sg.CouponCreateParams{PercentOff: sg.Float64(120)}},
		{"amount_off", &sg.CouponCreateParams{PercentOff: sg.Float64(5), AmountOff: sg.Int64(5), Currency: sg.String("usd")}},
		{"currency", &sg.CouponCreateParams{AmountOff: sg.Int64(500)}},
		{"duration", &sg.CouponCreateParams{PercentOff: sg.Float64(5), Duration: sg.String("weekly")}},
		{"duration_in_months", &sg.CouponCreateParams{PercentOff: sg.Float64(5), Duration: sg.String("repeating")}},
		{"duration_in_months", &sg.CouponCreateParams{PercentOff: sg.Float64(5), DurationInMonths: sg.Int64(2)}},
		{"id", &sg.CouponCreateParams{ID: sg.String(pct.ID), PercentOff: sg.Float64(5)}},
	} {
		_, err := sc.V1Coupons.Create(ctx, c.p)
		wantInvalid(t, err, c.param)
	}
	for _, err := range sc.V1Coupons.List(ctx, &sg.CouponListParams{ListParams: sg.ListParams{Limit: sg.Int64(101)}}) {
		wantInvalid(t, err, "limit")
		break
	}
}

// billingCatalog creates a customer with a one-time and a recurring price.
func billingCatalog(t *testing.T, sc *sg.Client) (cus *sg.Customer, once, monthly *sg.Price) {
	t.Helper()
	cus, err := sc.V1Customers.Create(ctx, &sg.CustomerCreateParams{Email: sg.String("dana@example.com"), Name: sg.String("Dana")})
	if err != nil {
		t.Fatal(err)
	}
	prod, err := sc.V1Products.Create(ctx, &sg.ProductCreateParams{Name: sg.String("Consulting hour")})
	if err != nil {
		t.Fatal(err)
	}
	once, err = sc.V1Prices.Create(ctx, &sg.PriceCreateParams{Product: sg.String(prod.ID), Currency: sg.String("usd"), UnitAmount: sg.Int64(12000)})
	if err != nil {
		t.Fatal(err)
	}
	monthly, err = sc.V1Prices.Create(ctx, &sg.PriceCreateParams{Product: sg.String(prod.ID), Currency: sg.String("usd"), UnitAmount: sg.Int64(900),
		Recurring: &sg.PriceCreateRecurringParams{Interval: sg.String("month")}})
	if err != nil {
		t.Fatal(err)
	}
	return cus, once, monthly
}

func TestSDKInvoices(t *testing.T) {
	sc, _ := sdk(t, "")
	cus, once, monthly := billingCatalog(t, sc)
	inv, err := sc.V1Invoices.Create(ctx, &sg.InvoiceCreateParams{Customer: sg.String(cus.ID), DaysUntilDue: sg.Int64(30)})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(inv.ID, "in_") || inv.Status != sg.InvoiceStatusDraft || inv.CollectionMethod != sg.InvoiceCollectionMethodSendInvoice ||
		inv.DueDate != inv.Created+30*86400 || inv.Customer.ID != cus.ID || inv.AmountDue != 0 || inv.Number != "" || inv.CustomerEmail != "dana@example.com" {
		t.Fatalf("draft %+v", inv)
	}
	ii, err := sc.V1InvoiceItems.Create(ctx, &sg.InvoiceItemCreateParams{Customer: sg.String(cus.ID),
		Pricing: &sg.InvoiceItemCreatePricingParams{Price: sg.String(once.ID)}, Invoice: sg.String(inv.ID), Quantity: sg.Int64(2)})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(ii.ID, "ii_") || ii.Amount != 24000 || ii.Invoice.ID != inv.ID || ii.Pricing.PriceDetails.Price != once.ID || ii.Quantity != 2 {
		t.Fatalf("item %+v", ii)
	}
	fin, err := sc.V1Invoices.FinalizeInvoice(ctx, inv.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if fin.Status != sg.InvoiceStatusOpen || fin.AmountDue != 24000 || fin.Total != 24000 || fin.Number == "" || fin.HostedInvoiceURL == "" ||
		fin.StatusTransitions.FinalizedAt == 0 || len(fin.Lines.Data) != 1 || fin.Lines.Data[0].Amount != 24000 {
		t.Fatalf("finalized %+v", fin)
	}
	// A draft with nothing on it is paid as soon as it is finalized.
	empty, err := sc.V1Invoices.Create(ctx, &sg.InvoiceCreateParams{Customer: sg.String(cus.ID)})
	if err != nil {
		t.Fatal(err)
	}
	if empty.CollectionMethod != sg.InvoiceCollectionMethodChargeAutomatically {
		t.Errorf("default collection_method %s", empty.CollectionMethod)
	}
	if paid, err := sc.V1Invoices.FinalizeInvoice(ctx, empty.ID, nil); err != nil || paid.Status != sg.InvoiceStatusPaid {
		t.Fatalf("empty invoice: %v %+v", err, paid)
	}
	var open []string
	for i, err := range sc.V1Invoices.List(ctx, &sg.InvoiceListParams{Customer: sg.String(cus.ID), Status: sg.String("open")}) {
		if err != nil {
			t.Fatal(err)
		}
		open = append(open, i.ID)
	}
	if len(open) != 1 || open[0] != inv.ID {
		t.Errorf("open invoices %v", open)
	}

	// Error paths.
	_, err = sc.V1Invoices.FinalizeInvoice(ctx, inv.ID, nil)
	if se := stripeErr(t, err, 400, "invoice_not_editable"); se.Type != sg.ErrorTypeInvalidRequest {
		t.Errorf("re-finalize %+v", se)
	}
	_, err = sc.V1Invoices.FinalizeInvoice(ctx, "in_missing", nil)
	stripeErr(t, err, 404, sg.ErrorCodeResourceMissing)
	_, err = sc.V1Invoices.Create(ctx, &sg.InvoiceCreateParams{Customer: sg.String("cus_missing")})
	wantMissing(t, err, "customer")
	_, err = sc.V1Invoices.Create(ctx, &sg.InvoiceCreateParams{Customer: sg.String(cus.ID), CollectionMethod: sg.String("charge_automatically"), DaysUntilDue: sg.Int64(3)})
	wantInvalid(t, err, "days_until_due")
	_, err = sc.V1Invoices.Create(ctx, &sg.InvoiceCreateParams{})
	wantInvalid(t, err, "customer")
	for _, err := range sc.V1Invoices.List(ctx, &sg.InvoiceListParams{Status: sg.String("late")}) {
		wantInvalid(t, err, "status")
		break
	}
	draft, err := sc.V1Invoices.Create(ctx, &sg.InvoiceCreateParams{Customer: sg.String(cus.ID)})
	if err != nil {
		t.Fatal(err)
	}
	item := func(price, invoice string) error {
		_, err := sc.V1InvoiceItems.Create(ctx, &sg.InvoiceItemCreateParams{Customer: sg.String(cus.ID),
			Pricing: &sg.InvoiceItemCreatePricingParams{Price: sg.String(price)}, Invoice: sg.String(invoice)})
		return err
	}
	wantInvalid(t, item(monthly.ID, draft.ID), "price")
	wantMissing(t, item("price_missing", draft.ID), "price")
	wantMissing(t, item(once.ID, "in_missing"), "invoice")
	err = item(once.ID, inv.ID)
	if se := stripeErr(t, err, 400, "invoice_not_editable"); se.Param != "invoice" {
		t.Errorf("item on an open invoice %+v", se)
	}
	_, err = sc.V1InvoiceItems.Create(ctx, &sg.InvoiceItemCreateParams{Customer: sg.String(cus.ID), Invoice: sg.String(draft.ID)})
	wantInvalid(t, err, "price")
	// Nothing of the refused calls changed the draft.
	if got, _ := sc.V1Invoices.FinalizeInvoice(ctx, draft.ID, nil); got == nil || got.AmountDue != 0 {
		t.Errorf("draft after refusals %+v", got)
	}
}

func TestSDKPaymentLinks(t *testing.T) {
	sc, _ := sdk(t, "")
	_, once, _ := billingCatalog(t, sc)
	pl, err := sc.V1PaymentLinks.Create(ctx, &sg.PaymentLinkCreateParams{LineItems: []*sg.PaymentLinkCreateLineItemParams{{Price: sg.String(once.ID), Quantity: sg.Int64(1)}}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(pl.ID, "plink_") || !pl.Active || !strings.HasPrefix(pl.URL, "https://buy.stripe.com/test_") ||
		pl.AfterCompletion.Type != sg.PaymentLinkAfterCompletionTypeHostedConfirmation || pl.Currency != "usd" {
		t.Fatalf("link %+v", pl)
	}
	rd, err := sc.V1PaymentLinks.Create(ctx, &sg.PaymentLinkCreateParams{
		LineItems:       []*sg.PaymentLinkCreateLineItemParams{{Price: sg.String(once.ID), Quantity: sg.Int64(3)}},
		AfterCompletion: &sg.PaymentLinkCreateAfterCompletionParams{Type: sg.String("redirect"), Redirect: &sg.PaymentLinkCreateAfterCompletionRedirectParams{URL: sg.String("https://shop.example/thanks")}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if rd.AfterCompletion.Type != sg.PaymentLinkAfterCompletionTypeRedirect || rd.AfterCompletion.Redirect.URL != "https://shop.example/thanks" {
		t.Fatalf("redirect %+v", rd.AfterCompletion)
	}
	_, err = sc.V1PaymentLinks.Create(ctx, &sg.PaymentLinkCreateParams{})
	wantInvalid(t, err, "line_items")
	_, err = sc.V1PaymentLinks.Create(ctx, &sg.PaymentLinkCreateParams{LineItems: []*sg.PaymentLinkCreateLineItemParams{{Price: sg.String("price_missing"), Quantity: sg.Int64(1)}}})
	wantMissing(t, err, "line_items[0][price]")
	_, err = sc.V1PaymentLinks.Create(ctx, &sg.PaymentLinkCreateParams{LineItems: []*sg.PaymentLinkCreateLineItemParams{{Price: sg.String(once.ID)}}})
	wantInvalid(t, err, "line_items[0][quantity]")
	_, err = sc.V1PaymentLinks.Create(ctx, &sg.PaymentLinkCreateParams{LineItems: []*sg.PaymentLinkCreateLineItemParams{{Price: sg.String(once.ID), Quantity: sg.Int64(1)}},
		AfterCompletion: &sg.PaymentLinkCreateAfterCompletionParams{Type: sg.String("redirect")}})
	wantInvalid(t, err, "after_completion[redirect][url]")
	// The flat form is @stripe/mcp's, not Stripe's REST API.
	flat := &sg.PaymentLinkCreateParams{}
	flat.AddExtra("price", once.ID)
	flat.AddExtra("quantity", "1")
	_, err = sc.V1PaymentLinks.Create(ctx, flat)
	wantInvalid(t, err, "price")
}

func TestSDKDisputes(t *testing.T) {
	sc, _ := sdk(t, "")
	pi, err := sc.V1PaymentIntents.Create(ctx, &sg.PaymentIntentCreateParams{
		Amount: sg.Int64(4200), Currency: sg.String("usd"), PaymentMethodTypes: cardOnly(),
		PaymentMethod: sg.String("pm_card_createDispute"), Confirm: sg.Bool(true),
	})
	if err != nil {
		t.Fatal(err)
	}
	if pi.Status != sg.PaymentIntentStatusSucceeded {
		t.Fatalf("status %s", pi.Status)
	}
	var found []*sg.Dispute
	for d, err := range sc.V1Disputes.List(ctx, &sg.DisputeListParams{PaymentIntent: sg.String(pi.ID)}) {
		if err != nil {
			t.Fatal(err)
		}
		found = append(found, d)
	}
	if len(found) != 1 {
		t.Fatalf("%d disputes", len(found))
	}
	d := found[0]
	if !strings.HasPrefix(d.ID, "du_") || d.Amount != 4200 || d.Charge.ID != pi.LatestCharge.ID || d.Reason != sg.DisputeReasonFraudulent ||
		d.Status != sg.DisputeStatusNeedsResponse || d.EvidenceDetails.DueBy == 0 || len(d.BalanceTransactions) != 1 || d.BalanceTransactions[0].Net != -5700 {
		t.Fatalf("dispute %+v", d)
	}
	ch, err := sc.V1Charges.Retrieve(ctx, d.Charge.ID, nil)
	if err != nil || !ch.Disputed {
		t.Fatalf("charge %v %+v", err, ch)
	}
	// A visa charge is not disputed.
	if _, err := sc.V1PaymentIntents.Create(ctx, &sg.PaymentIntentCreateParams{Amount: sg.Int64(900), Currency: sg.String("usd"),
		PaymentMethodTypes: cardOnly(), PaymentMethod: sg.String("pm_card_visa"), Confirm: sg.Bool(true)}); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, err := range sc.V1Disputes.List(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 1 {
		t.Errorf("%d disputes in all", n)
	}

	staged, err := sc.V1Disputes.Update(ctx, d.ID, &sg.DisputeUpdateParams{Submit: sg.Bool(false),
		Evidence: &sg.DisputeUpdateEvidenceParams{UncategorizedText: sg.String("The customer signed for the parcel.")}})
	if err != nil {
		t.Fatal(err)
	}
	if staged.Status != sg.DisputeStatusNeedsResponse || staged.Evidence.UncategorizedText != "The customer signed for the parcel." || !staged.EvidenceDetails.HasEvidence {
		t.Fatalf("staged %+v", staged)
	}
	_, err = sc.V1Disputes.Update(ctx, d.ID, &sg.DisputeUpdateParams{Evidence: &sg.DisputeUpdateEvidenceParams{UncategorizedText: sg.String(strings.Repeat("x", 20001))}})
	wantInvalid(t, err, "evidence[uncategorized_text]")
	sub, err := sc.V1Disputes.Update(ctx, d.ID, &sg.DisputeUpdateParams{Submit: sg.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	if sub.Status != sg.DisputeStatusUnderReview || sub.EvidenceDetails.SubmissionCount != 1 {
		t.Fatalf("submitted %+v", sub)
	}
	_, err = sc.V1Disputes.Update(ctx, d.ID, &sg.DisputeUpdateParams{Submit: sg.Bool(true)})
	wantInvalid(t, err, "evidence")
	_, err = sc.V1Disputes.Update(ctx, "du_missing", &sg.DisputeUpdateParams{Submit: sg.Bool(true)})
	wantMissing(t, err, "dispute")
}

func TestSDKSubscriptions(t *testing.T) {
	sc, env := sdk(t, "")
	cus, once, monthly := billingCatalog(t, sc)
	items := []*sg.SubscriptionCreateItemParams{{Price: sg.String(monthly.ID), Quantity: sg.Int64(2)}}
	_, err := sc.V1Subscriptions.Create(ctx, &sg.SubscriptionCreateParams{Customer: sg.String(cus.ID), Items: items})
	wantInvalid(t, err, "default_payment_method")
	pm, err := sc.V1PaymentMethods.Attach(ctx, "pm_card_visa", &sg.PaymentMethodAttachParams{Customer: sg.String(cus.ID)})
	if err != nil {
		t.Fatal(err)
	}
	sub, err := sc.V1Subscriptions.Create(ctx, &sg.SubscriptionCreateParams{Customer: sg.String(cus.ID), Items: items, DefaultPaymentMethod: sg.String(pm.ID)})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(sub.ID, "sub_") || sub.Status != sg.SubscriptionStatusActive || len(sub.Items.Data) != 1 ||
		sub.Items.Data[0].Price.ID != monthly.ID || sub.Items.Data[0].Quantity != 2 || sub.Items.Data[0].CurrentPeriodEnd <= sub.Items.Data[0].CurrentPeriodStart {
		t.Fatalf("subscription %+v", sub)
	}
	trial, err := sc.V1Subscriptions.Create(ctx, &sg.SubscriptionCreateParams{Customer: sg.String(cus.ID), TrialPeriodDays: sg.Int64(14),
		Items: []*sg.SubscriptionCreateItemParams{{Price: sg.String(monthly.ID)}}})
	if err != nil || trial.Status != sg.SubscriptionStatusTrialing || trial.TrialEnd != trial.Created+14*86400 {
		t.Fatalf("trial %v %+v", err, trial)
	}
	list := func(p *sg.SubscriptionListParams) []string {
		t.Helper()
		var ids []string
		for s, err := range sc.V1Subscriptions.List(ctx, p) {
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, s.ID)
		}
		return ids
	}
	if got := list(&sg.SubscriptionListParams{Status: sg.String("trialing")}); len(got) != 1 || got[0] != trial.ID {
		t.Errorf("trialing %v", got)
	}
	upd, err := sc.V1Subscriptions.Update(ctx, sub.ID, &sg.SubscriptionUpdateParams{ProrationBehavior: sg.String("none"),
		Items: []*sg.SubscriptionUpdateItemParams{{ID: sg.String(sub.Items.Data[0].ID), Quantity: sg.Int64(5)}}})
	if err != nil || upd.Items.Data[0].Quantity != 5 {
		t.Fatalf("update %v %+v", err, upd)
	}
	bad := []struct {
		param string
		p     *sg.SubscriptionUpdateParams
	}{
		{"proration_behavior", &sg.SubscriptionUpdateParams{ProrationBehavior: sg.String("later")}},
		{"items[0][price]", &sg.SubscriptionUpdateParams{Items: []*sg.SubscriptionUpdateItemParams{{Price: sg.String(once.ID)}}}},
		{"items", &sg.SubscriptionUpdateParams{Items: []*sg.SubscriptionUpdateItemParams{{ID: sg.String(sub.Items.Data[0].ID), Deleted: sg.Bool(true)}}}},
	}
	for _, b := range bad {
		_, err := sc.V1Subscriptions.Update(ctx, sub.ID, b.p)
		wantInvalid(t, err, b.param)
	}
	_, err = sc.V1Subscriptions.Update(ctx, sub.ID, &sg.SubscriptionUpdateParams{Items: []*sg.SubscriptionUpdateItemParams{{ID: sg.String("si_missing"), Quantity: sg.Int64(1)}}})
	wantMissing(t, err, "items[0][id]")
	_, err = sc.V1Subscriptions.Update(ctx, "sub_missing", &sg.SubscriptionUpdateParams{Description: sg.String("x")})
	wantMissing(t, err, "subscription")

	canceled, err := sc.V1Subscriptions.Cancel(ctx, sub.ID, nil)
	if err != nil || canceled.Status != sg.SubscriptionStatusCanceled || canceled.CanceledAt == 0 || canceled.CancellationDetails.Reason != "cancellation_requested" {
		t.Fatalf("cancel %v %+v", err, canceled)
	}
	_, err = sc.V1Subscriptions.Cancel(ctx, sub.ID, nil)
	wantInvalid(t, err, "subscription")
	_, err = sc.V1Subscriptions.Cancel(ctx, "sub_missing", nil)
	wantMissing(t, err, "subscription")
	_, err = sc.V1Subscriptions.Update(ctx, sub.ID, &sg.SubscriptionUpdateParams{Description: sg.String("x")})
	wantInvalid(t, err, "subscription")
	// By default the list leaves canceled subscriptions out; status=all has them.
	if got := list(&sg.SubscriptionListParams{Customer: sg.String(cus.ID)}); len(got) != 1 || got[0] != trial.ID {
		t.Errorf("default list %v", got)
	}
	if got := list(&sg.SubscriptionListParams{Status: sg.String("all"), Price: sg.String(monthly.ID)}); len(got) != 2 {
		t.Errorf("all %v", got)
	}
	for _, err := range sc.V1Subscriptions.List(ctx, &sg.SubscriptionListParams{Status: sg.String("sleeping")}) {
		wantInvalid(t, err, "status")
		break
	}
	// Each REST call is taped with its tool.
	taped := map[string]int{}
	for _, r := range env.Tape(t) {
		if r.Transport == tape.TransportREST {
			taped[r.ToolName()]++
		}
	}
	for tool, n := range map[string]int{"create_subscription": 3, "update_subscription": 7, "cancel_subscription": 3, "list_subscriptions": 4} {
		if taped[tool] != n {
			t.Errorf("%s taped %d times over REST, want %d", tool, taped[tool], n)
		}
	}
}
