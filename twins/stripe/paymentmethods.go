package stripe

import (
	"context"
	"strings"

	"github.com/pomehq/pome/twins"
)

// CardInput is the card[…] hash of a payment method.
type CardInput struct {
	Number   string `json:"number,omitempty" jsonschema:"a card number (Stripe test numbers such as 4242424242424242)"`
	ExpMonth *int64 `json:"exp_month,omitempty"`
	ExpYear  *int64 `json:"exp_year,omitempty"`
	CVC      string `json:"cvc,omitempty"`
	Token    string `json:"token,omitempty" jsonschema:"a test token such as tok_visa, instead of number/exp_month/exp_year"`
}

// AddressInput is an address[…] hash.
type AddressInput struct {
	City       string `json:"city,omitempty"`
	Country    string `json:"country,omitempty"`
	Line1      string `json:"line1,omitempty"`
	Line2      string `json:"line2,omitempty"`
	PostalCode string `json:"postal_code,omitempty"`
	State      string `json:"state,omitempty"`
}

func (a *AddressInput) address() *Address {
	if a == nil {
		return nil
	}
	return &Address{City: strp(a.City), Country: strp(a.Country), Line1: strp(a.Line1), Line2: strp(a.Line2), PostalCode: strp(a.PostalCode), State: strp(a.State)}
}

// BillingDetailsInput is a billing_details[…] hash.
type BillingDetailsInput struct {
	Address *AddressInput `json:"address,omitempty"`
	Email   string        `json:"email,omitempty"`
	Name    string        `json:"name,omitempty"`
	Phone   string        `json:"phone,omitempty"`
}

func (b *BillingDetailsInput) details() BillingDetails {
	if b == nil {
		return BillingDetails{}
	}
	d := BillingDetails{Email: strp(b.Email), Name: strp(b.Name), Phone: strp(b.Phone)}
	if a := b.Address.address(); a != nil {
		d.Address = *a
	}
	return d
}

// CreatePaymentMethodInput creates a card payment method.
type CreatePaymentMethodInput struct {
	Type           string               `json:"type" jsonschema:"the payment method type; the twin supports card"`
	Card           *CardInput           `json:"card,omitempty"`
	BillingDetails *BillingDetailsInput `json:"billing_details,omitempty"`
	Metadata       map[string]string    `json:"metadata,omitempty"`
	AllowRedisplay string               `json:"allow_redisplay,omitempty"`
	Expand         []string             `json:"expand,omitempty"`
}

// RetrievePaymentMethodInput names a payment method.
type RetrievePaymentMethodInput struct {
	PaymentMethod string   `json:"payment_method" jsonschema:"the payment method id (pm_…)"`
	Expand        []string `json:"expand,omitempty"`
}

// AttachPaymentMethodInput attaches a payment method to a customer.
type AttachPaymentMethodInput struct {
	PaymentMethod string   `json:"payment_method" jsonschema:"the payment method id (pm_…), or a test id such as pm_card_visa"`
	Customer      string   `json:"customer" jsonschema:"the customer id (cus_…)"`
	Expand        []string `json:"expand,omitempty"`
}

// DetachPaymentMethodInput detaches a payment method from its customer.
type DetachPaymentMethodInput struct {
	PaymentMethod string   `json:"payment_method" jsonschema:"the payment method id (pm_…)"`
	Expand        []string `json:"expand,omitempty"`
}

// ListCustomerPaymentMethodsInput lists a customer's payment methods.
type ListCustomerPaymentMethodsInput struct {
	listParams
	Customer       string `json:"customer" jsonschema:"the customer id (cus_…)"`
	Type           string `json:"type,omitempty" jsonschema:"only payment methods of this type (card)"`
	AllowRedisplay string `json:"allow_redisplay,omitempty"`
}

// ListPaymentMethodsInput lists payment methods, usually of one customer.
type ListPaymentMethodsInput struct {
	listParams
	Customer string `json:"customer,omitempty" jsonschema:"only payment methods attached to this customer"`
	Type     string `json:"type,omitempty" jsonschema:"only payment methods of this type (card)"`
}

// cardPaymentMethod builds (but does not store) a card payment method from
// a number, validating it as Stripe does.
func (w *World) cardPaymentMethod(ctx context.Context, number string, expMonth, expYear *int64, cvc, param string) (*PaymentMethod, string, error) {
	number = strings.ReplaceAll(strings.ReplaceAll(number, " ", ""), "-", "")
	t := twins.EnvFrom(ctx).Now()
	if expMonth == nil {
		return nil, "", missingParam(param + "[exp_month]")
	}
	if expYear == nil {
		return nil, "", missingParam(param + "[exp_year]")
	}
	if !luhn(number) {
		return nil, "", cardError("incorrect_number", "Your card number is incorrect.", "number")
	}
	if *expMonth < 1 || *expMonth > 12 {
		return nil, "", cardError("invalid_expiry_month", "Your card's expiration month is invalid.", "exp_month")
	}
	year := *expYear
	if year < 100 {
		year += 2000
	}
	if year < int64(t.Year()) || (year == int64(t.Year()) && *expMonth < int64(t.Month())) {
		return nil, "", cardError("invalid_expiry_year", "Your card's expiration year is invalid.", "exp_year")
	}
	tc, known := findTestCard(number)
	if !known {
		tc = testCard{number: number, brand: brandOf(number), funding: "credit", behavior: behaviorSucceed}
	}
	var cvcCheck *string
	if cvc != "" {
		cvcCheck = strp("unchecked")
	}
	fp := fingerprint(number)
	pm := &PaymentMethod{
		Object: "payment_method", AllowRedisplay: "unspecified", Created: now(ctx), Livemode: false,
		Metadata: map[string]string{}, Type: "card",
		Card: &Card{
			Brand: tc.brand, Checks: CardChecks{CvcCheck: cvcCheck}, Country: strp("US"), DisplayBrand: tc.brand,
			ExpMonth: *expMonth, ExpYear: year, Fingerprint: fp, Funding: tc.funding, Last4: number[len(number)-4:],
			Networks: CardNetworks{Available: []string{tc.brand}}, ThreeDSecureUsage: ThreeDSecureUsage{Supported: true},
		},
	}
	return pm, tc.behavior, nil
}

// store adds a built payment method to the world with a fresh id.
func (w *World) storePaymentMethod(pm *PaymentMethod, behavior string) *PaymentMethod {
	pm.ID = w.newID("pm")
	w.PaymentMethods = append(w.PaymentMethods, pm)
	if behavior != behaviorSucceed {
		if w.Behaviors == nil {
			w.Behaviors = map[string]string{}
		}
		w.Behaviors[pm.Card.Fingerprint] = behavior
	}
	return pm
}

// magicCard builds the payment method a test id (pm_card_visa) or token
// (tok_visa) stands for, or returns nil when id is neither.
func (w *World) magicCard(ctx context.Context, id string) (*PaymentMethod, string) {
	number, ok := magicPaymentMethods[id]
	if !ok {
		number, ok = magicTokens[id]
	}
	if !ok {
		return nil, ""
	}
	t := twins.EnvFrom(ctx).Now()
	month, year := int64(t.Month()), int64(t.AddDate(1, 0, 0).Year())
	pm, behavior, err := w.cardPaymentMethod(ctx, number, &month, &year, "", "card")
	if err != nil {
		return nil, ""
	}
	pm.Card.Checks.CvcCheck = strp("unchecked")
	if o, ok := magicOverrides[id]; ok {
		behavior = o.behavior
		pm.Card.Fingerprint = fingerprint("test-id/" + id)
		if o.funding != "" {
			pm.Card.Funding = o.funding
		}
	}
	return pm, behavior
}

// resolvePaymentMethod finds a payment method by id; a test id creates a
// fresh payment method, as Stripe does. It mutates the world only for test
// ids, and only after the caller has validated everything else, so call it
// last.
func (w *World) resolvePaymentMethod(ctx context.Context, id, param string) (*PaymentMethod, error) {
	if pm := w.paymentMethod(id); pm != nil {
		return pm, nil
	}
	if pm, behavior := w.magicCard(ctx, id); pm != nil {
		return w.storePaymentMethod(pm, behavior), nil
	}
	return nil, noSuch("PaymentMethod", id, param)
}

// paymentMethodExists reports whether id names a stored or test payment
// method, without creating anything.
func (w *World) paymentMethodExists(id string) bool {
	if w.paymentMethod(id) != nil {
		return true
	}
	_, magic := magicPaymentMethods[id]
	_, tok := magicTokens[id]
	return magic || tok
}

// cardError is a 402 card_error raised by card validation.
func cardError(code, msg, param string) *twins.Error {
	e := twins.Errorf(twins.PaymentFailed, code, "%s", msg)
	e.Field = param
	return e
}

func createPaymentMethod(ctx context.Context, w *World, in CreatePaymentMethodInput) (*PaymentMethod, error) {
	if in.Type != "card" {
		return nil, invalidParam("type", "", "Invalid payment method type: %q. The twin supports card payment methods.", in.Type)
	}
	if in.Card == nil {
		return nil, missingParam("card")
	}
	if err := checkMetadata(in.Metadata); err != nil {
		return nil, err
	}
	var pm *PaymentMethod
	var behavior string
	if in.Card.Token != "" {
		if pm, behavior = w.magicCard(ctx, in.Card.Token); pm == nil {
			return nil, noSuch("token", in.Card.Token, "card[token]")
		}
	} else {
		if in.Card.Number == "" {
			return nil, missingParam("card[number]")
		}
		var err error
		if pm, behavior, err = w.cardPaymentMethod(ctx, in.Card.Number, in.Card.ExpMonth, in.Card.ExpYear, in.Card.CVC, "card"); err != nil {
			return nil, err
		}
	}
	pm.BillingDetails = in.BillingDetails.details()
	pm.Metadata = metadataOrEmpty(in.Metadata)
	if in.AllowRedisplay != "" {
		pm.AllowRedisplay = in.AllowRedisplay
	}
	if err := checkExpand(w, pm, in.Expand); err != nil {
		return nil, err
	}
	w.storePaymentMethod(pm, behavior)
	return expanded(w, pm, in.Expand)
}

func retrievePaymentMethod(ctx context.Context, w *World, in RetrievePaymentMethodInput) (*PaymentMethod, error) {
	pm := w.paymentMethod(in.PaymentMethod)
	if pm == nil {
		return nil, noSuch("PaymentMethod", in.PaymentMethod, "payment_method")
	}
	return expanded(w, pm, in.Expand)
}

func attachPaymentMethod(ctx context.Context, w *World, in AttachPaymentMethodInput) (*PaymentMethod, error) {
	cus := w.liveCustomer(in.Customer)
	if cus == nil {
		return nil, noSuch("customer", in.Customer, "customer")
	}
	if !w.paymentMethodExists(in.PaymentMethod) {
		return nil, noSuch("PaymentMethod", in.PaymentMethod, "payment_method")
	}
	if pm := w.paymentMethod(in.PaymentMethod); pm != nil {
		switch refOf(pm.Customer) {
		case cus.ID:
			unchanged(ctx)
			return expanded(w, pm, in.Expand)
		case "":
		default:
			return nil, invalidParam("payment_method", "", "The payment method you provided has already been attached to a customer.")
		}
		if w.usedUnattached(pm.ID) {
			return nil, invalidParam("payment_method", "", "This PaymentMethod was previously used without being attached to a Customer or was detached from a Customer, and may not be used again.")
		}
		if b := w.behaviorOf(pm); declinesOnAttach(b) {
			code, dc, msg, _ := declineFor(b)
			return nil, cardError(code, msg, "").With("decline_code", dc)
		}
	} else {
		if _, b := w.magicCard(ctx, in.PaymentMethod); declinesOnAttach(b) {
			code, dc, msg, _ := declineFor(b)
			return nil, cardError(code, msg, "").With("decline_code", dc)
		}
	}
	if err := checkExpand(w, &PaymentMethod{}, in.Expand); err != nil {
		return nil, err
	}
	pm, err := w.resolvePaymentMethod(ctx, in.PaymentMethod, "payment_method")
	if err != nil {
		return nil, err
	}
	pm.Customer = cus.ID
	w.emit(ctx, "payment_method.attached", pm, nil)
	return expanded(w, pm, in.Expand)
}

func detachPaymentMethod(ctx context.Context, w *World, in DetachPaymentMethodInput) (*PaymentMethod, error) {
	pm := w.paymentMethod(in.PaymentMethod)
	if pm == nil {
		return nil, noSuch("PaymentMethod", in.PaymentMethod, "payment_method")
	}
	if refOf(pm.Customer) == "" {
		return nil, invalidParam("payment_method", "", "The payment method you provided is not attached to a customer so detachment is impossible.")
	}
	if err := checkExpand(w, pm, in.Expand); err != nil {
		return nil, err
	}
	prev := pm.Customer
	pm.Customer = nil
	if c := w.customer(refOf(prev)); c != nil && refOf(c.InvoiceSettings.DefaultPaymentMethod) == pm.ID {
		c.InvoiceSettings.DefaultPaymentMethod = nil
	}
	w.emit(ctx, "payment_method.detached", pm, map[string]any{"customer": prev})
	return expanded(w, pm, in.Expand)
}

// usedUnattached reports whether a payment method that belongs to no
// customer was already used by a PaymentIntent; Stripe refuses to reuse or
// attach such a payment method.
func (w *World) usedUnattached(pmID string) bool {
	for _, pi := range w.PaymentIntents {
		if refOf(pi.PaymentMethod) == pmID && refOf(pi.Customer) == "" && pi.LatestCharge != nil {
			return true
		}
	}
	return false
}

func listCustomerPaymentMethods(ctx context.Context, w *World, in ListCustomerPaymentMethodsInput) (List[*PaymentMethod], error) {
	if w.liveCustomer(in.Customer) == nil {
		return List[*PaymentMethod]{}, noSuch("customer", in.Customer, "customer")
	}
	return w.listPaymentMethods(in.listParams, in.Customer, in.Type, "/v1/customers/"+in.Customer+"/payment_methods")
}

func listPaymentMethods(ctx context.Context, w *World, in ListPaymentMethodsInput) (List[*PaymentMethod], error) {
	if in.Customer != "" && w.liveCustomer(in.Customer) == nil {
		return List[*PaymentMethod]{}, noSuch("customer", in.Customer, "customer")
	}
	return w.listPaymentMethods(in.listParams, in.Customer, in.Type, "/v1/payment_methods")
}

func (w *World) listPaymentMethods(p listParams, customer, typ, url string) (List[*PaymentMethod], error) {
	if typ != "" && typ != "card" {
		return List[*PaymentMethod]{Object: "list", Data: []*PaymentMethod{}, URL: url}, nil
	}
	var items []*PaymentMethod
	for _, pm := range w.PaymentMethods {
		if customer != "" && refOf(pm.Customer) != customer {
			continue
		}
		items = append(items, pm)
	}
	items = newestFirst(items, func(p *PaymentMethod) int64 { return p.Created })
	return paginate(w, items, func(p *PaymentMethod) string { return p.ID }, p, url, "PaymentMethod", expander[PaymentMethod](w))
}

// checkExpand validates expand paths against an object's type before a
// handler mutates anything.
func checkExpand[T any](w *World, obj *T, paths []string) error {
	if len(paths) == 0 {
		return nil
	}
	_, err := expanded(w, obj, paths)
	return err
}

func paymentMethodActions() []twins.Action {
	return []twins.Action{
		writeAction(twins.Spec{
			Name: "create_payment_method", Title: "Create a payment method",
			Description: "Create a card payment method from a card number (Stripe test numbers: 4242424242424242 succeeds, 4000000000000002 declines, 4000000000009995 has insufficient funds, 4000002500003155 requires authentication) or a test token (card[token]=tok_visa).",
			Effect:      twins.Write,
			Bindings:    []twins.Binding{{Method: "POST", Path: "/v1/payment_methods"}},
		}, createPaymentMethod),
		twins.New(twins.Spec{
			Name: "retrieve_payment_method", Title: "Retrieve a payment method",
			Description: "Retrieve a payment method by id.",
			Effect:      twins.Read,
			Bindings:    []twins.Binding{{Method: "GET", Path: "/v1/payment_methods/{payment_method}"}},
		}, retrievePaymentMethod),
		writeAction(twins.Spec{
			Name: "attach_payment_method", Title: "Attach a payment method to a customer",
			Description: "Attach a payment method (or a test id such as pm_card_visa, which creates a new one) to a customer. Cards that decline fail to attach, except pm_card_chargeCustomerFail.",
			Effect:      twins.Write,
			Bindings:    []twins.Binding{{Method: "POST", Path: "/v1/payment_methods/{payment_method}/attach"}},
		}, attachPaymentMethod),
		writeAction(twins.Spec{
			Name: "detach_payment_method", Title: "Detach a payment method",
			Description: "Detach a payment method from its customer; it cannot be used again.",
			Effect:      twins.Write,
			Bindings:    []twins.Binding{{Method: "POST", Path: "/v1/payment_methods/{payment_method}/detach"}},
		}, detachPaymentMethod),
		twins.New(twins.Spec{
			Name: "list_customer_payment_methods", Title: "List a customer's payment methods",
			Description: "List the payment methods attached to a customer, newest first.",
			Effect:      twins.Read,
			Bindings:    []twins.Binding{{Method: "GET", Path: "/v1/customers/{customer}/payment_methods"}},
		}, listCustomerPaymentMethods),
		twins.New(twins.Spec{
			Name: "list_payment_methods", Title: "List payment methods",
			Description: "List payment methods, optionally only those of one customer, newest first.",
			Effect:      twins.Read,
			Bindings:    []twins.Binding{{Method: "GET", Path: "/v1/payment_methods"}},
		}, listPaymentMethods),
	}
}
