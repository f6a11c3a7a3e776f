package stripe

import (
	"context"

	"strings"

	"github.com/pomehq/pome/twins"
)

// PaymentIntent statuses.
const (
	statusRequiresPaymentMethod = "requires_payment_method"
	statusRequiresConfirmation  = "requires_confirmation"
	statusRequiresAction        = "requires_action"
	statusProcessing            = "processing"
	statusRequiresCapture       = "requires_capture"
	statusSucceeded             = "succeeded"
	statusCanceled              = "canceled"
)

// AutomaticPaymentMethodsInput is automatic_payment_methods[…].
type AutomaticPaymentMethodsInput struct {
	Enabled        bool   `json:"enabled"`
	AllowRedirects string `json:"allow_redirects,omitempty" jsonschema:"always (default) or never"`
}

// PaymentMethodDataInput creates a payment method inline (payment_method_data[…]).
type PaymentMethodDataInput struct {
	Type           string               `json:"type"`
	Card           *CardInput           `json:"card,omitempty"`
	BillingDetails *BillingDetailsInput `json:"billing_details,omitempty"`
	Metadata       map[string]string    `json:"metadata,omitempty"`
}

// confirmParams are the parameters create (with confirm=true) and confirm
// share.
type confirmParams struct {
	PaymentMethod         string                  `json:"payment_method,omitempty" jsonschema:"a payment method id (pm_…) or a test id: pm_card_visa, pm_card_mastercard, pm_card_visa_chargeDeclined, pm_card_visa_chargeDeclinedInsufficientFunds, pm_card_visa_chargeDeclinedLostCard, pm_card_chargeDeclinedExpiredCard, pm_card_authenticationRequired (any of Stripe's test PaymentMethods and tok_ tokens)"`
	PaymentMethodData     *PaymentMethodDataInput `json:"payment_method_data,omitempty"`
	PaymentMethodTypes    []string                `json:"payment_method_types,omitempty"`
	PaymentMethodOptions  map[string]any          `json:"payment_method_options,omitempty"`
	ReturnURL             string                  `json:"return_url,omitempty" jsonschema:"where to send the customer after authentication; required to confirm when automatic_payment_methods allows redirects"`
	OffSession            *bool                   `json:"off_session,omitempty"`
	ErrorOnRequiresAction *bool                   `json:"error_on_requires_action,omitempty"`
	ReceiptEmail          *string                 `json:"receipt_email,omitempty"`
	CaptureMethod         string                  `json:"capture_method,omitempty" jsonschema:"automatic (default), automatic_async or manual"`
	SetupFutureUsage      *string                 `json:"setup_future_usage,omitempty"`
	Shipping              any                     `json:"shipping,omitempty"`
	UseStripeSDK          *bool                   `json:"use_stripe_sdk,omitempty"`
	MandateData           any                     `json:"mandate_data,omitempty"`
	Expand                []string                `json:"expand,omitempty" jsonschema:"fields to expand: customer, payment_method, latest_charge, latest_charge.balance_transaction"`
}

// CreatePaymentIntentInput creates a PaymentIntent.
type CreatePaymentIntentInput struct {
	Amount                    int64                         `json:"amount" jsonschema:"amount in the currency's smallest unit (cents for usd)"`
	Currency                  string                        `json:"currency" jsonschema:"three-letter ISO currency code, lowercase (usd)"`
	Customer                  string                        `json:"customer,omitempty" jsonschema:"the customer id (cus_…)"`
	Description               *string                       `json:"description,omitempty"`
	Metadata                  map[string]string             `json:"metadata,omitempty"`
	Confirm                   *bool                         `json:"confirm,omitempty" jsonschema:"confirm at once (needs a payment_method)"`
	ConfirmationMethod        string                        `json:"confirmation_method,omitempty"`
	AutomaticPaymentMethods   *AutomaticPaymentMethodsInput `json:"automatic_payment_methods,omitempty"`
	StatementDescriptor       *string                       `json:"statement_descriptor,omitempty"`
	StatementDescriptorSuffix *string                       `json:"statement_descriptor_suffix,omitempty"`
	TransferGroup             *string                       `json:"transfer_group,omitempty"`
	confirmParams
}

// RetrievePaymentIntentInput names a PaymentIntent.
type RetrievePaymentIntentInput struct {
	PaymentIntent string   `json:"payment_intent" jsonschema:"the PaymentIntent id (pi_…)"`
	ClientSecret  string   `json:"client_secret,omitempty"`
	Expand        []string `json:"expand,omitempty"`
}

// UpdatePaymentIntentInput updates a PaymentIntent.
type UpdatePaymentIntentInput struct {
	PaymentIntent             string            `json:"payment_intent" jsonschema:"the PaymentIntent id (pi_…)"`
	Amount                    *int64            `json:"amount,omitempty"`
	Currency                  string            `json:"currency,omitempty"`
	Customer                  *string           `json:"customer,omitempty"`
	Description               *string           `json:"description,omitempty"`
	Metadata                  map[string]string `json:"metadata,omitempty"`
	PaymentMethod             *string           `json:"payment_method,omitempty"`
	PaymentMethodTypes        []string          `json:"payment_method_types,omitempty"`
	ReceiptEmail              *string           `json:"receipt_email,omitempty"`
	CaptureMethod             string            `json:"capture_method,omitempty"`
	SetupFutureUsage          *string           `json:"setup_future_usage,omitempty"`
	StatementDescriptor       *string           `json:"statement_descriptor,omitempty"`
	StatementDescriptorSuffix *string           `json:"statement_descriptor_suffix,omitempty"`
	Shipping                  any               `json:"shipping,omitempty"`
	TransferGroup             *string           `json:"transfer_group,omitempty"`
	Expand                    []string          `json:"expand,omitempty"`
}

// ConfirmPaymentIntentInput confirms a PaymentIntent.
type ConfirmPaymentIntentInput struct {
	PaymentIntent string `json:"payment_intent" jsonschema:"the PaymentIntent id (pi_…)"`
	ClientSecret  string `json:"client_secret,omitempty"`
	confirmParams
}

// CapturePaymentIntentInput captures an authorized PaymentIntent.
type CapturePaymentIntentInput struct {
	PaymentIntent             string            `json:"payment_intent" jsonschema:"the PaymentIntent id (pi_…)"`
	AmountToCapture           *int64            `json:"amount_to_capture,omitempty" jsonschema:"capture less than the authorized amount; the rest is released"`
	FinalCapture              *bool             `json:"final_capture,omitempty"`
	Metadata                  map[string]string `json:"metadata,omitempty"`
	StatementDescriptor       *string           `json:"statement_descriptor,omitempty"`
	StatementDescriptorSuffix *string           `json:"statement_descriptor_suffix,omitempty"`
	Expand                    []string          `json:"expand,omitempty"`
}

// CancelPaymentIntentInput cancels a PaymentIntent.
type CancelPaymentIntentInput struct {
	PaymentIntent      string   `json:"payment_intent" jsonschema:"the PaymentIntent id (pi_…)"`
	CancellationReason string   `json:"cancellation_reason,omitempty" jsonschema:"duplicate, fraudulent, requested_by_customer or abandoned"`
	Expand             []string `json:"expand,omitempty"`
}

// ListPaymentIntentsInput lists PaymentIntents.
type ListPaymentIntentsInput struct {
	listParams
	Customer string `json:"customer,omitempty" jsonschema:"only PaymentIntents of this customer"`
	Created  any    `json:"created,omitempty" jsonschema:"a unix timestamp or a range object with gt, gte, lt, lte"`
}

var updatableStatuses = []string{statusRequiresPaymentMethod, statusRequiresConfirmation, statusRequiresAction}

func statusIn(s string, list []string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func checkAmount(param string, amount int64, currency string) error {
	if amount < 1 {
		return invalidParam(param, "parameter_invalid_integer", "This value must be greater than or equal to 1.")
	}
	if m := minimumCharge[currency]; amount < m {
		return invalidParam(param, "amount_too_small", "Amount must be at least %s", amountString(m, currency))
	}
	if amount > 99999999 {
		return invalidParam(param, "amount_too_large", "Amount must be no more than %s", amountString(99999999, currency))
	}
	return nil
}

func checkCaptureMethod(m string) error {
	switch m {
	case "", "automatic", "automatic_async", "manual":
		return nil
	}
	return invalidParam("capture_method", "", "Invalid capture_method: must be one of automatic, automatic_async, or manual")
}

// pendingPaymentMethod is a payment method a confirm will use: one that
// exists, or one that will be created from a test id or inline data once
// validation has passed.
type pendingPaymentMethod struct {
	existing *PaymentMethod
	magic    string
	data     *PaymentMethodDataInput
}

func (p *pendingPaymentMethod) none() bool {
	return p.existing == nil && p.magic == "" && p.data == nil
}

// checkPaymentMethod validates a payment method reference for use by a
// PaymentIntent of the given customer, without creating anything.
func (w *World) checkPaymentMethod(ctx context.Context, id string, data *PaymentMethodDataInput, customer string) (*pendingPaymentMethod, error) {
	p := &pendingPaymentMethod{}
	if data != nil {
		if id != "" {
			return nil, invalidParam("payment_method_data", "", "You may only specify one of these parameters: payment_method, payment_method_data.")
		}
		if data.Type != "card" {
			return nil, invalidParam("payment_method_data[type]", "", "Invalid payment method type: %q. The twin supports card payment methods.", data.Type)
		}
		if data.Card == nil {
			return nil, missingParam("payment_method_data[card]")
		}
		if data.Card.Token != "" {
			if _, ok := magicTokens[data.Card.Token]; !ok {
				return nil, noSuch("token", data.Card.Token, "payment_method_data[card][token]")
			}
		} else if _, _, err := w.cardPaymentMethod(ctx, data.Card.Number, data.Card.ExpMonth, data.Card.ExpYear, data.Card.CVC, "payment_method_data[card]"); err != nil {
			return nil, err
		}
		p.data = data
		return p, nil
	}
	if id == "" {
		return p, nil
	}
	if pm := w.paymentMethod(id); pm != nil {
		owner := refOf(pm.Customer)
		switch {
		case owner != "" && customer == "":
			return nil, invalidParam("payment_method", "", "The provided PaymentMethod belongs to a Customer, but you did not provide a Customer. Please include the Customer in the `customer` parameter on the PaymentIntent.")
		case owner != "" && owner != customer:
			return nil, invalidParam("payment_method", "", "The provided PaymentMethod belongs to customer %s, not %s.", owner, customer)
		case owner == "" && w.usedUnattached(pm.ID):
			return nil, invalidParam("payment_method", "", "The provided PaymentMethod was previously used with a PaymentIntent without Customer attachment, shared with a connected account without Customer attachment, or was detached from a Customer. It may not be used again. To use a PaymentMethod multiple times, you must attach it to a Customer first.")
		}
		p.existing = pm
		return p, nil
	}
	if _, ok := magicPaymentMethods[id]; ok {
		p.magic = id
		return p, nil
	}
	if _, ok := magicTokens[id]; ok {
		p.magic = id
		return p, nil
	}
	return nil, noSuch("PaymentMethod", id, "payment_method")
}

// materialize creates the payment method a validated reference stands for.
func (w *World) materialize(ctx context.Context, p *pendingPaymentMethod) *PaymentMethod {
	switch {
	case p.existing != nil:
		return p.existing
	case p.magic != "":
		pm, behavior := w.magicCard(ctx, p.magic)
		return w.storePaymentMethod(pm, behavior)
	case p.data != nil:
		var pm *PaymentMethod
		var behavior string
		if p.data.Card.Token != "" {
			pm, behavior = w.magicCard(ctx, p.data.Card.Token)
		} else {
			pm, behavior, _ = w.cardPaymentMethod(ctx, p.data.Card.Number, p.data.Card.ExpMonth, p.data.Card.ExpYear, p.data.Card.CVC, "payment_method_data[card]")
		}
		pm.BillingDetails = p.data.BillingDetails.details()
		pm.Metadata = metadataOrEmpty(p.data.Metadata)
		return w.storePaymentMethod(pm, behavior)
	}
	return nil
}

// checkConfirm validates a confirmation of pi (which may be a not yet
// stored PaymentIntent) with the chosen payment method.
func checkConfirm(pi *PaymentIntent, pm *pendingPaymentMethod, returnURL string) error {
	if pm.none() && refOf(pi.PaymentMethod) == "" {
		return unexpectedState("You cannot confirm this PaymentIntent because it's missing a payment method. You can either update the PaymentIntent with a payment method and then confirm it again, or confirm it again directly with a payment method.")
	}
	if apm := pi.AutomaticPaymentMethods; apm != nil && apm.Enabled && apm.AllowRedirects != "never" && returnURL == "" {
		return invalidParam("return_url", "", "A `return_url` must be specified because this Payment Intent is configured to automatically accept the payment methods enabled in the Dashboard, some of which may require a full page redirect to succeed. If you do not want to accept redirect-based payment methods, set `automatic_payment_methods[enabled]` to `true` and `automatic_payment_methods[allow_redirects]` to `never` when creating Setup Intents and Payment Intents.")
	}
	return nil
}

// validateConfirmParams checks the confirm parameters that do not depend on
// the payment method.
func validateConfirmParams(p *confirmParams) error {
	if err := checkCaptureMethod(p.CaptureMethod); err != nil {
		return err
	}
	if p.ReceiptEmail != nil {
		if err := checkEmail(p.ReceiptEmail); err != nil {
			e := twins.AsError(err)
			e.Field = "receipt_email"
			return e
		}
	}
	for _, t := range p.PaymentMethodTypes {
		if t != "card" {
			return invalidParam("payment_method_types", "payment_method_type_unsupported", "The payment method type %q is invalid. The twin supports card.", t)
		}
	}
	return nil
}

func createPaymentIntent(ctx context.Context, w *World, in CreatePaymentIntentInput) (*PaymentIntent, error) {
	if wantsCrypto(&in) {
		return createCryptoPaymentIntent(ctx, w, in)
	}
	currency, err := checkCurrency("currency", in.Currency)
	if err != nil {
		return nil, err
	}
	if err := checkAmount("amount", in.Amount, currency); err != nil {
		return nil, err
	}
	if in.Customer != "" && w.liveCustomer(in.Customer) == nil {
		return nil, noSuch("customer", in.Customer, "customer")
	}
	if err := checkMetadata(in.Metadata); err != nil {
		return nil, err
	}
	if err := validateConfirmParams(&in.confirmParams); err != nil {
		return nil, err
	}
	if in.AutomaticPaymentMethods != nil && len(in.PaymentMethodTypes) > 0 {
		return nil, invalidParam("automatic_payment_methods", "", "You may only specify one of these parameters: automatic_payment_methods, payment_method_types.")
	}
	switch in.ConfirmationMethod {
	case "", "automatic", "manual":
	default:
		return nil, invalidParam("confirmation_method", "", "Invalid confirmation_method: must be one of automatic or manual")
	}
	confirm := in.Confirm != nil && *in.Confirm
	if !confirm && in.ReturnURL != "" {
		return nil, invalidParam("return_url", "", "You may only specify `return_url` when `confirm` is true.")
	}
	pending, err := w.checkPaymentMethod(ctx, in.PaymentMethod, in.PaymentMethodData, in.Customer)
	if err != nil {
		return nil, err
	}
	if err := checkExpand(w, &PaymentIntent{}, in.Expand); err != nil {
		return nil, err
	}

	pi := &PaymentIntent{
		Object: "payment_intent", Amount: in.Amount, AmountDetails: map[string]any{"tip": map[string]any{}},
		CaptureMethod: "automatic_async", ConfirmationMethod: "automatic", Created: now(ctx), Currency: currency,
		Customer: ref(in.Customer), Description: in.Description, Metadata: metadataOrEmpty(in.Metadata),
		PaymentMethodOptions: map[string]any{"card": map[string]any{
			"installments": nil, "mandate_options": nil, "network": nil, "request_three_d_secure": "automatic",
		}},
		PaymentMethodTypes: []string{"card"}, ReceiptEmail: in.ReceiptEmail, SetupFutureUsage: in.SetupFutureUsage,
		Shipping: in.Shipping, StatementDescriptor: in.StatementDescriptor, StatementDescriptorSuffix: in.StatementDescriptorSuffix,
		Status: statusRequiresPaymentMethod, TransferGroup: in.TransferGroup,
	}
	if in.CaptureMethod != "" {
		pi.CaptureMethod = in.CaptureMethod
	}
	if in.ConfirmationMethod != "" {
		pi.ConfirmationMethod = in.ConfirmationMethod
	}
	switch {
	case len(in.PaymentMethodTypes) > 0:
		pi.PaymentMethodTypes = in.PaymentMethodTypes
	case in.AutomaticPaymentMethods != nil:
		allow := in.AutomaticPaymentMethods.AllowRedirects
		if allow == "" {
			allow = "always"
		}
		pi.AutomaticPaymentMethods = &AutomaticPaymentMethods{Enabled: in.AutomaticPaymentMethods.Enabled, AllowRedirects: allow}
		if !in.AutomaticPaymentMethods.Enabled {
			pi.AutomaticPaymentMethods = nil
		}
	default:
		// Since API version 2023-08-16 Stripe enables automatic payment
		// methods unless payment_method_types is given.
		pi.AutomaticPaymentMethods = &AutomaticPaymentMethods{Enabled: true, AllowRedirects: "always"}
	}
	if confirm {
		if err := checkConfirm(pi, pending, in.ReturnURL); err != nil {
			return nil, err
		}
	}

	pi.ID = w.newID("pi")
	pi.ClientSecret = pi.ID + "_secret_" + token("secret/"+pi.ID, 25)
	if pm := w.materialize(ctx, pending); pm != nil {
		pi.PaymentMethod = pm.ID
		pi.Status = statusRequiresConfirmation
	}
	w.PaymentIntents = append(w.PaymentIntents, pi)
	w.emit(ctx, "payment_intent.created", pi, nil)
	if confirm {
		if err := w.confirm(ctx, pi, &in.confirmParams); err != nil {
			return nil, err
		}
	}
	return expanded(w, pi, in.Expand)
}

// confirm runs a validated confirmation: it charges the PaymentIntent's
// payment method and moves the status machine. A decline changes the
// world (a failed charge, last_payment_error, events) and returns the 402
// card error Stripe answers with.
func (w *World) confirm(ctx context.Context, pi *PaymentIntent, p *confirmParams) error {
	if p.CaptureMethod != "" {
		pi.CaptureMethod = p.CaptureMethod
	}
	if p.ReceiptEmail != nil {
		pi.ReceiptEmail = strp(*p.ReceiptEmail)
	}
	if p.SetupFutureUsage != nil {
		pi.SetupFutureUsage = strp(*p.SetupFutureUsage)
	}
	if p.Shipping != nil {
		pi.Shipping = p.Shipping
	}
	pm := w.paymentMethod(refOf(pi.PaymentMethod))
	behavior := w.behaviorOf(pm)
	pi.NextAction = nil
	offSession := p.OffSession != nil && *p.OffSession
	errorOnAction := p.ErrorOnRequiresAction != nil && *p.ErrorOnRequiresAction

	if behavior == behaviorAuthAlways || behavior == behaviorAuthSetup {
		if offSession || errorOnAction {
			return w.decline(ctx, pi, pm, "authentication_required", "authentication_required",
				"Your card was declined. This transaction requires authentication.", false)
		}
		pi.Status = statusRequiresAction
		if p.ReturnURL != "" {
			pi.NextAction = &NextAction{Type: "redirect_to_url", RedirectToURL: &RedirectToURL{
				ReturnURL: p.ReturnURL,
				URL:       "https://hooks.stripe.com/3d_secure_2/hosted?merchant=acct_pome&payment_intent=" + pi.ID + "&payment_intent_client_secret=" + pi.ClientSecret,
			}}
		} else {
			pi.NextAction = &NextAction{Type: "use_stripe_sdk", UseStripeSDK: map[string]any{
				"type": "three_d_secure_redirect", "stripe_js": "https://hooks.stripe.com/redirect/authenticate/" + pi.ID,
			}}
		}
		w.emit(ctx, "payment_intent.requires_action", pi, nil)
		return nil
	}
	if behavior != behaviorSucceed && behavior != behaviorBypass && behavior != behaviorDispute {
		code, dc, msg, _ := declineFor(behavior)
		return w.decline(ctx, pi, pm, code, dc, msg, true)
	}
	w.authorize(ctx, pi, pm, behavior == behaviorBypass)
	return nil
}

// decline records a failed payment attempt. withCharge says whether the
// attempt reached the card network (Stripe creates a failed charge then).
func (w *World) decline(ctx context.Context, pi *PaymentIntent, pm *PaymentMethod, code, declineCode, msg string, withCharge bool) error {
	var chargeID *string
	if withCharge {
		ch := w.newCharge(ctx, pi, pm)
		ch.Status = "failed"
		ch.Paid = false
		ch.FailureCode = strp(code)
		ch.FailureMessage = strp(msg)
		ch.Outcome = &Outcome{
			NetworkStatus: strp("declined_by_network"), Reason: strp(declineCode), RiskLevel: "normal", RiskScore: 20,
			SellerMessage: strp("The bank did not return any further details with this decline."), Type: "issuer_declined",
		}
		if w.behaviorOf(pm) == behaviorRadarBlock {
			// Radar stops it before the card network sees it.
			ch.Outcome = &Outcome{
				NetworkStatus: strp("not_sent_to_network"), Reason: strp("highest_risk_level"), RiskLevel: "highest", RiskScore: 95,
				SellerMessage: strp("Stripe blocked this payment as too risky."), Type: "blocked",
			}
		}
		w.Charges = append(w.Charges, ch)
		pi.LatestCharge = ch.ID
		chargeID = strp(ch.ID)
		w.emit(ctx, "charge.failed", ch, nil)
	}
	var pmCopy *PaymentMethod
	if pm != nil {
		pmCopy = clone(pm)
	}
	pi.LastPaymentError = &PaymentError{
		Charge: chargeID, Code: code, DeclineCode: declineCode, DocURL: docURL(code), Message: msg,
		PaymentMethod: pmCopy, Type: typeCard,
	}
	pi.PaymentMethod = nil
	pi.Status = statusRequiresPaymentMethod
	pi.NextAction = nil
	w.emit(ctx, "payment_intent.payment_failed", pi, nil)
	// Stripe keeps all of this and still answers 402.
	keepOnError(ctx)

	e := twins.Errorf(twins.PaymentFailed, code, "%s", msg)
	e.With("decline_code", declineCode).With("payment_intent", clone(pi))
	if chargeID != nil {
		e.With("charge", *chargeID)
	}
	if pmCopy != nil {
		e.With("payment_method", pmCopy)
	}
	return e
}

// authorize records a successful card authorization: a charge, and either
// the capture (automatic) or requires_capture (manual).
func (w *World) authorize(ctx context.Context, pi *PaymentIntent, pm *PaymentMethod, bypassPending bool) {
	ch := w.newCharge(ctx, pi, pm)
	ch.Status = "succeeded"
	ch.Paid = true
	ch.Outcome = &Outcome{
		NetworkStatus: strp("approved_by_network"), RiskLevel: "normal", RiskScore: 32,
		SellerMessage: strp("Payment complete."), Type: "authorized",
	}
	if pm != nil && pm.Card != nil && pm.Card.Checks.CvcCheck != nil {
		pm.Card.Checks.CvcCheck = strp("pass")
		ch.PaymentMethodDetails.Card.Checks.CvcCheck = strp("pass")
	}
	w.Charges = append(w.Charges, ch)
	pi.LatestCharge = ch.ID
	pi.LastPaymentError = nil
	if pi.CaptureMethod == "manual" {
		pi.Status = statusRequiresCapture
		pi.AmountCapturable = pi.Amount
		w.emit(ctx, "charge.succeeded", ch, nil)
		w.emit(ctx, "payment_intent.amount_capturable_updated", pi, nil)
		return
	}
	ch.Captured = true
	ch.AmountCaptured = ch.Amount
	txn := w.chargeTransaction(ctx, ch, ch.Amount, bypassPending)
	ch.BalanceTransaction = txn.ID
	pi.Status = statusSucceeded
	pi.AmountReceived = pi.Amount
	w.emit(ctx, "charge.succeeded", ch, nil)
	w.emit(ctx, "payment_intent.succeeded", pi, nil)
	if w.behaviorOf(pm) == behaviorDispute {
		w.openDispute(ctx, ch)
	}
}

func (w *World) livePaymentIntent(id string) (*PaymentIntent, error) {
	pi := w.paymentIntent(id)
	if pi == nil {
		return nil, noSuch("payment_intent", id, "intent")
	}
	return pi, nil
}

func retrievePaymentIntent(ctx context.Context, w *World, in RetrievePaymentIntentInput) (*PaymentIntent, error) {
	pi, err := w.livePaymentIntent(in.PaymentIntent)
	if err != nil {
		return nil, err
	}
	if in.ClientSecret != "" && in.ClientSecret != pi.ClientSecret {
		return nil, invalidParam("client_secret", "", "The client_secret provided does not match the client_secret associated with the PaymentIntent.")
	}
	return expanded(w, pi, in.Expand)
}

func updatePaymentIntent(ctx context.Context, w *World, in UpdatePaymentIntentInput) (*PaymentIntent, error) {
	pi, err := w.livePaymentIntent(in.PaymentIntent)
	if err != nil {
		return nil, err
	}
	restricted := in.Amount != nil || in.Currency != "" || in.Customer != nil || in.PaymentMethod != nil ||
		in.CaptureMethod != "" || len(in.PaymentMethodTypes) > 0 || in.SetupFutureUsage != nil
	if restricted && isCrypto(pi) {
		// Its deposit address was minted for this amount and currency.
		return nil, invalidParam("", "parameter_invalid_string", "Only metadata can be updated on crypto PaymentIntents.")
	}
	if restricted && !statusIn(pi.Status, updatableStatuses) {
		return nil, unexpectedState("You cannot update this PaymentIntent because it has a status of %s. Updates are only allowed when the PaymentIntent has one of the following statuses: %s.", pi.Status, strings.Join(updatableStatuses, ", "))
	}
	currency := pi.Currency
	if in.Currency != "" {
		if currency, err = checkCurrency("currency", in.Currency); err != nil {
			return nil, err
		}
	}
	amount := pi.Amount
	if in.Amount != nil {
		amount = *in.Amount
	}
	if in.Amount != nil || in.Currency != "" {
		if err := checkAmount("amount", amount, currency); err != nil {
			return nil, err
		}
	}
	customer := refOf(pi.Customer)
	if in.Customer != nil {
		if *in.Customer != "" && w.liveCustomer(*in.Customer) == nil {
			return nil, noSuch("customer", *in.Customer, "customer")
		}
		if customer != "" && *in.Customer != customer {
			return nil, invalidParam("customer", "", "You cannot update the customer of a PaymentIntent once it is set.")
		}
		customer = *in.Customer
	}
	if err := checkCaptureMethod(in.CaptureMethod); err != nil {
		return nil, err
	}
	if err := checkMetadata(in.Metadata); err != nil {
		return nil, err
	}
	if in.ReceiptEmail != nil {
		if err := checkEmail(in.ReceiptEmail); err != nil {
			return nil, err
		}
	}
	var pending *pendingPaymentMethod
	if in.PaymentMethod != nil && *in.PaymentMethod != "" {
		if pending, err = w.checkPaymentMethod(ctx, *in.PaymentMethod, nil, customer); err != nil {
			return nil, err
		}
	}
	if err := checkExpand(w, pi, in.Expand); err != nil {
		return nil, err
	}

	before := clone(pi)
	pi.Amount, pi.Currency, pi.Customer = amount, currency, ref(customer)
	if in.Description != nil {
		pi.Description = strp(*in.Description)
	}
	if in.Metadata != nil {
		pi.Metadata = mergeMetadata(pi.Metadata, in.Metadata)
	}
	if in.ReceiptEmail != nil {
		pi.ReceiptEmail = strp(*in.ReceiptEmail)
	}
	if in.CaptureMethod != "" {
		pi.CaptureMethod = in.CaptureMethod
	}
	if in.SetupFutureUsage != nil {
		pi.SetupFutureUsage = strp(*in.SetupFutureUsage)
	}
	if in.StatementDescriptor != nil {
		pi.StatementDescriptor = strp(*in.StatementDescriptor)
	}
	if in.StatementDescriptorSuffix != nil {
		pi.StatementDescriptorSuffix = strp(*in.StatementDescriptorSuffix)
	}
	if in.TransferGroup != nil {
		pi.TransferGroup = strp(*in.TransferGroup)
	}
	if in.Shipping != nil {
		pi.Shipping = in.Shipping
	}
	if len(in.PaymentMethodTypes) > 0 {
		pi.PaymentMethodTypes = in.PaymentMethodTypes
		pi.AutomaticPaymentMethods = nil
	}
	if in.PaymentMethod != nil {
		if *in.PaymentMethod == "" {
			pi.PaymentMethod = nil
			pi.Status = statusRequiresPaymentMethod
		} else {
			pi.PaymentMethod = w.materialize(ctx, pending).ID
			pi.Status = statusRequiresConfirmation
		}
		pi.NextAction = nil
	}
	if len(previousAttributes(before, pi)) == 0 {
		unchanged(ctx)
	}
	return expanded(w, pi, in.Expand)
}

func confirmPaymentIntent(ctx context.Context, w *World, in ConfirmPaymentIntentInput) (*PaymentIntent, error) {
	pi, err := w.livePaymentIntent(in.PaymentIntent)
	if err != nil {
		return nil, err
	}
	if isCrypto(pi) {
		// The crypto rail settles by deposit: confirming changes nothing.
		if pi.Status == statusCanceled {
			return nil, unexpectedState("The PaymentIntent has a status of 'canceled'. The requested action could not be performed.")
		}
		unchanged(ctx)
		return expanded(w, pi, in.Expand)
	}
	switch pi.Status {
	case statusRequiresPaymentMethod, statusRequiresConfirmation, statusRequiresAction:
	case statusSucceeded:
		return nil, unexpectedState("You cannot confirm this PaymentIntent because it has already succeeded after being previously confirmed.").With("payment_intent", clone(pi))
	default:
		return nil, unexpectedState("You cannot confirm this PaymentIntent because it has a status of %s. Only a PaymentIntent with one of the following statuses may be confirmed: requires_confirmation, requires_action, requires_payment_method.", pi.Status).With("payment_intent", clone(pi))
	}
	if err := validateConfirmParams(&in.confirmParams); err != nil {
		return nil, err
	}
	pending, err := w.checkPaymentMethod(ctx, in.PaymentMethod, in.PaymentMethodData, refOf(pi.Customer))
	if err != nil {
		return nil, err
	}
	if err := checkConfirm(pi, pending, in.ReturnURL); err != nil {
		return nil, err
	}
	if err := checkExpand(w, pi, in.Expand); err != nil {
		return nil, err
	}
	if len(in.PaymentMethodTypes) > 0 {
		pi.PaymentMethodTypes = in.PaymentMethodTypes
	}
	if pm := w.materialize(ctx, pending); pm != nil {
		pi.PaymentMethod = pm.ID
	}
	if err := w.confirm(ctx, pi, &in.confirmParams); err != nil {
		return nil, err
	}
	return expanded(w, pi, in.Expand)
}

func capturePaymentIntent(ctx context.Context, w *World, in CapturePaymentIntentInput) (*PaymentIntent, error) {
	pi, err := w.livePaymentIntent(in.PaymentIntent)
	if err != nil {
		return nil, err
	}
	if pi.Status != statusRequiresCapture {
		return nil, unexpectedState("This PaymentIntent could not be captured because it has a status of %s. Only a PaymentIntent with one of the following statuses may be captured: requires_capture.", pi.Status).With("payment_intent", clone(pi))
	}
	amount := pi.AmountCapturable
	if in.AmountToCapture != nil {
		amount = *in.AmountToCapture
		if amount < 1 {
			return nil, invalidParam("amount_to_capture", "parameter_invalid_integer", "This value must be greater than or equal to 1.")
		}
		if amount > pi.AmountCapturable {
			return nil, invalidParam("amount_to_capture", "amount_too_large", "The amount to capture (%s) must be less than or equal to the amount capturable (%s).", amountString(amount, pi.Currency), amountString(pi.AmountCapturable, pi.Currency))
		}
	}
	if err := checkMetadata(in.Metadata); err != nil {
		return nil, err
	}
	if err := checkExpand(w, pi, in.Expand); err != nil {
		return nil, err
	}
	ch := w.charge(refOf(pi.LatestCharge))
	if ch == nil {
		return nil, twins.Errorf(twins.Internal, "", "PaymentIntent %s is authorized without a charge", pi.ID)
	}
	if in.Metadata != nil {
		pi.Metadata = mergeMetadata(pi.Metadata, in.Metadata)
	}
	ch.Captured = true
	ch.AmountCaptured = amount
	// Stripe releases the uncaptured remainder and reports it as refunded.
	ch.AmountRefunded = ch.Amount - amount
	txn := w.chargeTransaction(ctx, ch, amount, w.behaviorOf(w.paymentMethod(refOf(ch.PaymentMethod))) == behaviorBypass)
	ch.BalanceTransaction = txn.ID
	pi.Status = statusSucceeded
	pi.AmountReceived = amount
	pi.AmountCapturable = 0
	w.emit(ctx, "charge.captured", ch, map[string]any{"captured": false, "amount_captured": 0})
	w.emit(ctx, "payment_intent.succeeded", pi, nil)
	return expanded(w, pi, in.Expand)
}

var cancelableStatuses = []string{statusRequiresPaymentMethod, statusRequiresCapture, statusRequiresConfirmation, statusRequiresAction, statusProcessing}

func cancelPaymentIntent(ctx context.Context, w *World, in CancelPaymentIntentInput) (*PaymentIntent, error) {
	pi, err := w.livePaymentIntent(in.PaymentIntent)
	if err != nil {
		return nil, err
	}
	if !statusIn(pi.Status, cancelableStatuses) {
		return nil, unexpectedState("You cannot cancel this PaymentIntent because it has a status of %s. Only a PaymentIntent with one of the following statuses may be canceled: %s.", pi.Status, strings.Join(cancelableStatuses, ", ")).With("payment_intent", clone(pi))
	}
	switch in.CancellationReason {
	case "", "duplicate", "fraudulent", "requested_by_customer", "abandoned":
	default:
		return nil, invalidParam("cancellation_reason", "", "Invalid cancellation_reason: must be one of duplicate, fraudulent, requested_by_customer, or abandoned")
	}
	if err := checkExpand(w, pi, in.Expand); err != nil {
		return nil, err
	}
	if pi.Status == statusRequiresCapture {
		// Canceling an authorization releases the held funds.
		if ch := w.charge(refOf(pi.LatestCharge)); ch != nil {
			prev := map[string]any{"amount_refunded": ch.AmountRefunded, "refunded": ch.Refunded}
			ch.AmountRefunded = ch.Amount
			ch.Refunded = true
			w.emit(ctx, "charge.refunded", ch, prev)
		}
	}
	t := now(ctx)
	pi.Status = statusCanceled
	pi.CanceledAt = &t
	pi.CancellationReason = strp(in.CancellationReason)
	pi.AmountCapturable = 0
	pi.NextAction = nil
	w.emit(ctx, "payment_intent.canceled", pi, nil)
	return expanded(w, pi, in.Expand)
}

func listPaymentIntents(ctx context.Context, w *World, in ListPaymentIntentsInput) (List[*PaymentIntent], error) {
	created, err := parseRange("created", in.Created)
	if err != nil {
		return List[*PaymentIntent]{}, err
	}
	var items []*PaymentIntent
	for _, pi := range w.PaymentIntents {
		if (in.Customer != "" && refOf(pi.Customer) != in.Customer) || !created.contains(pi.Created) {
			continue
		}
		items = append(items, pi)
	}
	items = newestFirst(items, func(p *PaymentIntent) int64 { return p.Created })
	return paginate(w, items, func(p *PaymentIntent) string { return p.ID }, in.listParams, "/v1/payment_intents", "payment_intent", expander[PaymentIntent](w))
}

var paymentIntentSearchFields = map[string]string{
	"amount": "number", "created": "number", "currency": "string", "customer": "string", "status": "string", "metadata": "metadata",
}

func searchPaymentIntents(ctx context.Context, w *World, in SearchInput) (SearchResult[*PaymentIntent], error) {
	q, err := parseQuery(in.Query, paymentIntentSearchFields)
	if err != nil {
		return SearchResult[*PaymentIntent]{}, err
	}
	var items []*PaymentIntent
	for _, pi := range newestFirst(w.PaymentIntents, func(p *PaymentIntent) int64 { return p.Created }) {
		if q.matches(func(field, key string) (any, bool) {
			switch field {
			case "amount":
				return pi.Amount, true
			case "created":
				return pi.Created, true
			case "currency":
				return pi.Currency, true
			case "customer":
				return refOf(pi.Customer), refOf(pi.Customer) != ""
			case "status":
				return pi.Status, true
			case "metadata":
				v, ok := pi.Metadata[key]
				return v, ok
			}
			return nil, false
		}) {
			items = append(items, pi)
		}
	}
	return searchPage(w, items, in, "/v1/payment_intents/search", expander[PaymentIntent](w))
}

func paymentIntentActions() []twins.Action {
	return []twins.Action{
		writeAction(twins.Spec{
			Name: "create_payment_intent", Title: "Create a PaymentIntent",
			Description: "Create a PaymentIntent for an amount (smallest currency unit) and currency, optionally for a customer and with a payment method; confirm=true confirms at once. Declines answer a card_error and leave the PaymentIntent in requires_payment_method.",
			Effect:      twins.Write,
			Bindings:    []twins.Binding{{Method: "POST", Path: "/v1/payment_intents"}},
		}, createPaymentIntent),
		twins.New(twins.Spec{
			Name: "search_payment_intents", Title: "Search PaymentIntents",
			Description: "Search PaymentIntents with Stripe's query language: status:'succeeded', customer:'cus_…', amount>1000, currency:'usd', metadata['order_id']:'…', joined with AND or OR.",
			Effect:      twins.Read,
			Bindings:    []twins.Binding{{Method: "GET", Path: "/v1/payment_intents/search"}},
		}, searchPaymentIntents),
		twins.New(twins.Spec{
			Name: "retrieve_payment_intent", Title: "Retrieve a PaymentIntent",
			Description: "Retrieve a PaymentIntent by id.",
			Effect:      twins.Read,
			Bindings:    []twins.Binding{{Method: "GET", Path: "/v1/payment_intents/{payment_intent}"}},
		}, retrievePaymentIntent),
		writeAction(twins.Spec{
			Name: "update_payment_intent", Title: "Update a PaymentIntent",
			Description: "Update a PaymentIntent; amount, currency, customer and payment method can change only before it is confirmed, description and metadata at any time.",
			Effect:      twins.Write,
			Bindings:    []twins.Binding{{Method: "POST", Path: "/v1/payment_intents/{payment_intent}"}},
		}, updatePaymentIntent),
		writeAction(twins.Spec{
			Name: "confirm_payment_intent", Title: "Confirm a PaymentIntent",
			Description: "Confirm a PaymentIntent, charging its payment method: it becomes succeeded (or requires_capture with capture_method=manual), requires_action for cards that need 3D Secure, or fails with a card_error.",
			Effect:      twins.Write,
			Bindings:    []twins.Binding{{Method: "POST", Path: "/v1/payment_intents/{payment_intent}/confirm"}},
		}, confirmPaymentIntent),
		writeAction(twins.Spec{
			Name: "capture_payment_intent", Title: "Capture a PaymentIntent",
			Description: "Capture the funds of a PaymentIntent in requires_capture; amount_to_capture captures part and releases the rest.",
			Effect:      twins.Write,
			Bindings:    []twins.Binding{{Method: "POST", Path: "/v1/payment_intents/{payment_intent}/capture"}},
		}, capturePaymentIntent),
		writeAction(twins.Spec{
			Name: "cancel_payment_intent", Title: "Cancel a PaymentIntent",
			Description: "Cancel a PaymentIntent that has not succeeded; an authorization in requires_capture is released.",
			Effect:      twins.Write,
			Bindings:    []twins.Binding{{Method: "POST", Path: "/v1/payment_intents/{payment_intent}/cancel"}},
		}, cancelPaymentIntent),
		twins.New(twins.Spec{
			Name: "list_payment_intents", Title: "List PaymentIntents",
			Description: "List PaymentIntents, newest first, optionally for one customer or a creation time range.",
			Effect:      twins.Read,
			Bindings:    []twins.Binding{{Method: "GET", Path: "/v1/payment_intents"}},
		}, listPaymentIntents),
	}
}
