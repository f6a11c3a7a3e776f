package stripe

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"sort"
	"strings"

	"github.com/pomehq/pome/twins"
)

// Seed is the Stripe twin's seed document (see the package documentation
// for an example). Every list is optional; ids are optional and generated
// when absent; created defaults to the sandbox clock.
type Seed struct {
	Customers      []SeedCustomer      `json:"customers,omitempty"`
	PaymentMethods []SeedPaymentMethod `json:"payment_methods,omitempty"`
	Products       []SeedProduct       `json:"products,omitempty"`
	Prices         []SeedPrice         `json:"prices,omitempty"`
	PaymentIntents []SeedPaymentIntent `json:"payment_intents,omitempty"`
	Charges        []SeedCharge        `json:"charges,omitempty"`
	Refunds        []SeedRefund        `json:"refunds,omitempty"`
	Balance        *SeedBalance        `json:"balance,omitempty"`
	Faults         []SeedFault         `json:"faults,omitempty"`
}

// SeedCustomer is a seeded customer.
type SeedCustomer struct {
	ID          string            `json:"id,omitempty"`
	Email       string            `json:"email,omitempty"`
	Name        string            `json:"name,omitempty"`
	Description string            `json:"description,omitempty"`
	Phone       string            `json:"phone,omitempty"`
	Address     *AddressInput     `json:"address,omitempty"`
	Metadata    map[string]string `json:"metadata,omitempty"`
	Created     *int64            `json:"created,omitempty"`
	// DefaultPaymentMethod names one of the customer's seeded payment
	// methods as invoice_settings.default_payment_method.
	DefaultPaymentMethod string `json:"default_payment_method,omitempty"`
}

// SeedPaymentMethod is a seeded card. Card is a test card number
// ("4000000000000002") or a test id ("pm_card_chargeDeclined", "tok_visa").
type SeedPaymentMethod struct {
	ID             string               `json:"id,omitempty"`
	Card           string               `json:"card"`
	ExpMonth       *int64               `json:"exp_month,omitempty"`
	ExpYear        *int64               `json:"exp_year,omitempty"`
	Customer       string               `json:"customer,omitempty"`
	BillingDetails *BillingDetailsInput `json:"billing_details,omitempty"`
	Metadata       map[string]string    `json:"metadata,omitempty"`
	Created        *int64               `json:"created,omitempty"`
}

// SeedProduct is a seeded product.
type SeedProduct struct {
	ID          string            `json:"id,omitempty"`
	Name        string            `json:"name"`
	Description string            `json:"description,omitempty"`
	Active      *bool             `json:"active,omitempty"`
	Metadata    map[string]string `json:"metadata,omitempty"`
	Created     *int64            `json:"created,omitempty"`
}

// SeedPrice is a seeded price.
type SeedPrice struct {
	ID         string            `json:"id,omitempty"`
	Product    string            `json:"product"`
	UnitAmount int64             `json:"unit_amount"`
	Currency   string            `json:"currency"`
	Recurring  *RecurringInput   `json:"recurring,omitempty"`
	Nickname   string            `json:"nickname,omitempty"`
	LookupKey  string            `json:"lookup_key,omitempty"`
	Active     *bool             `json:"active,omitempty"`
	Metadata   map[string]string `json:"metadata,omitempty"`
	Created    *int64            `json:"created,omitempty"`
	// Default makes this price its product's default_price.
	Default bool `json:"default,omitempty"`
}

// SeedPaymentIntent is a seeded PaymentIntent. A succeeded or
// requires_capture PaymentIntent gets its charge (id LatestCharge when
// given); amount_received defaults to the amount when succeeded.
type SeedPaymentIntent struct {
	ID                 string            `json:"id,omitempty"`
	Amount             int64             `json:"amount"`
	Currency           string            `json:"currency"`
	Customer           string            `json:"customer,omitempty"`
	PaymentMethod      string            `json:"payment_method,omitempty"`
	Status             string            `json:"status,omitempty"`
	CaptureMethod      string            `json:"capture_method,omitempty"`
	AmountReceived     *int64            `json:"amount_received,omitempty"`
	Description        string            `json:"description,omitempty"`
	ReceiptEmail       string            `json:"receipt_email,omitempty"`
	Metadata           map[string]string `json:"metadata,omitempty"`
	LatestCharge       string            `json:"latest_charge,omitempty"`
	CancellationReason string            `json:"cancellation_reason,omitempty"`
	PaymentMethodTypes []string          `json:"payment_method_types,omitempty"`
	Created            *int64            `json:"created,omitempty"`
}

// SeedCharge is a seeded charge without a PaymentIntent (a legacy or
// imported charge).
type SeedCharge struct {
	ID            string            `json:"id,omitempty"`
	Amount        int64             `json:"amount"`
	Currency      string            `json:"currency"`
	Customer      string            `json:"customer,omitempty"`
	PaymentMethod string            `json:"payment_method,omitempty"`
	Status        string            `json:"status,omitempty"`
	Captured      *bool             `json:"captured,omitempty"`
	Description   string            `json:"description,omitempty"`
	FailureCode   string            `json:"failure_code,omitempty"`
	Metadata      map[string]string `json:"metadata,omitempty"`
	Created       *int64            `json:"created,omitempty"`
}

// SeedRefund is a seeded refund of a charge, named directly or through
// its PaymentIntent.
type SeedRefund struct {
	ID            string            `json:"id,omitempty"`
	Charge        string            `json:"charge,omitempty"`
	PaymentIntent string            `json:"payment_intent,omitempty"`
	Amount        *int64            `json:"amount,omitempty"`
	Reason        string            `json:"reason,omitempty"`
	Metadata      map[string]string `json:"metadata,omitempty"`
	Created       *int64            `json:"created,omitempty"`
}

// SeedBalance is the starting balance, before seeded charges and refunds.
type SeedBalance struct {
	Available []SeedAmount `json:"available,omitempty"`
	Pending   []SeedAmount `json:"pending,omitempty"`
}

// SeedAmount is one currency's amount.
type SeedAmount struct {
	Amount   int64  `json:"amount"`
	Currency string `json:"currency"`
}

// SeedFault injects a failure; see Fault.
type SeedFault struct {
	Method  string          `json:"method"`
	Path    string          `json:"path"`
	Attempt int64           `json:"attempt,omitempty"`
	When    string          `json:"when,omitempty"`
	Status  int             `json:"status"`
	Body    json.RawMessage `json:"body,omitempty"`
}

// DefaultSeed is the default world of SPEC §9: one customer, no payments.
const DefaultSeed = `{"customers":[{"email":"alice@example.com","name":"Alice Example"}]}`

func newWorld(ctx context.Context, raw json.RawMessage) (*World, error) {
	if len(raw) == 0 || string(raw) == "null" {
		raw = json.RawMessage(DefaultSeed)
	}
	var top map[string]json.RawMessage
	if err := twins.DecodeSeed(raw, &top); err != nil {
		return nil, err
	}
	if top == nil {
		return nil, twins.SeedErrorf("", "the Stripe seed is a JSON object")
	}
	if meta, ok := top["_meta"]; ok {
		if err := decodeMeta(meta); err != nil {
			return nil, err
		}
		delete(top, "_meta")
		var err error
		if raw, err = json.Marshal(top); err != nil {
			return nil, err
		}
	}
	if inner, ok := top["seed"]; ok && len(top) == 1 {
		// The original Pome's legacy wrapping, {"stripe": {"seed": {…}}},
		// reaches the twin as {"seed": {…}}.
		w, err := newWorld(ctx, inner)
		return w, prefixSeedError("/seed", err)
	}
	if isOriginalSeed(top) {
		return newOriginalWorld(ctx, top)
	}
	var s Seed
	if err := decodeSeed(raw, &s); err != nil {
		return nil, err
	}
	w := emptyWorld()
	b := &seedBuilder{w: w, ctx: ctx, ids: map[string]string{}}
	steps := []func(*Seed) error{b.customers, b.paymentMethods, b.defaultPaymentMethods, b.products, b.prices,
		b.paymentIntents, b.charges, b.refunds, b.balance, b.faults}
	for _, step := range steps {
		if err := step(&s); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// decodeSeed decodes the seed strictly, one list entry at a time, so that
// an error names the entry's full JSON path (/customers/2/email) rather
// than only the field.
func decodeSeed(raw json.RawMessage, s *Seed) error {
	var top map[string]json.RawMessage
	if err := twins.DecodeSeed(raw, &top); err != nil {
		return err
	}
	if top == nil {
		return twins.SeedErrorf("", "the Stripe seed is a JSON object")
	}
	rv := reflect.ValueOf(s).Elem()
	fields := map[string]reflect.Value{}
	for i := 0; i < rv.NumField(); i++ {
		name, _, _ := strings.Cut(rv.Type().Field(i).Tag.Get("json"), ",")
		fields[name] = rv.Field(i)
	}
	keys := make([]string, 0, len(top))
	for k := range top {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		f, ok := fields[k]
		if !ok {
			return twins.SeedErrorf(twins.Pointer(k), "unknown key %q (known: customers, payment_methods, products, prices, payment_intents, charges, refunds, balance, faults, _meta; or the original Pome's format: api_keys, failure_injection, payment_intents, charges, refunds, balance_transactions)", k)
		}
		if f.Kind() != reflect.Slice {
			if err := twins.DecodeSeed(top[k], f.Addr().Interface()); err != nil {
				return prefixSeedError(twins.Pointer(k), err)
			}
			continue
		}
		var items []json.RawMessage
		if err := json.Unmarshal(top[k], &items); err != nil {
			return twins.SeedErrorf(twins.Pointer(k), "expected a list")
		}
		list := reflect.MakeSlice(f.Type(), len(items), len(items))
		for i, item := range items {
			if err := twins.DecodeSeed(item, list.Index(i).Addr().Interface()); err != nil {
				return prefixSeedError(twins.Pointer(k, i), err)
			}
		}
		f.Set(list)
	}
	return nil
}

func prefixSeedError(prefix string, err error) error {
	var se *twins.SeedError
	if errors.As(err, &se) {
		return &twins.SeedError{Path: prefix + se.Path, Message: se.Message}
	}
	return err
}

type seedBuilder struct {
	w   *World
	ctx context.Context
	ids map[string]string // id → JSON pointer of the seed entry that holds it
}

// claim reserves a seed id, checking its prefix and uniqueness.
func (b *seedBuilder) claim(path, id, prefix string) error {
	if id == "" {
		return nil
	}
	if prefix != "" && !strings.HasPrefix(id, prefix+"_") {
		return twins.SeedErrorf(path, "id %q must start with %s_", id, prefix)
	}
	if prev, dup := b.ids[id]; dup {
		return twins.SeedErrorf(path, "id %q is already used at %s", id, prev)
	}
	b.ids[id] = path
	return nil
}

func (b *seedBuilder) created(c *int64) int64 {
	if c != nil {
		return *c
	}
	return now(b.ctx)
}

func (b *seedBuilder) id(given, prefix string) string {
	if given != "" {
		return given
	}
	return b.w.newID(prefix)
}

func seedMetadata(path string, m map[string]string) error {
	if err := checkMetadata(m); err != nil {
		return twins.SeedErrorf(path, "%s", twins.AsError(err).Message)
	}
	return nil
}

// Ids chosen by the seed are claimed before any are generated, so that a
// generated id never collides with one the seed names later.
func (b *seedBuilder) claimAll(s *Seed) error {
	for i, c := range s.Customers {
		if err := b.claim(twins.Pointer("customers", i, "id"), c.ID, "cus"); err != nil {
			return err
		}
	}
	for i, p := range s.PaymentMethods {
		if err := b.claim(twins.Pointer("payment_methods", i, "id"), p.ID, "pm"); err != nil {
			return err
		}
	}
	for i, p := range s.Products {
		if err := b.claim(twins.Pointer("products", i, "id"), p.ID, ""); err != nil {
			return err
		}
	}
	for i, p := range s.Prices {
		if err := b.claim(twins.Pointer("prices", i, "id"), p.ID, "price"); err != nil {
			return err
		}
	}
	for i, p := range s.PaymentIntents {
		if err := b.claim(twins.Pointer("payment_intents", i, "id"), p.ID, "pi"); err != nil {
			return err
		}
		if err := b.claim(twins.Pointer("payment_intents", i, "latest_charge"), p.LatestCharge, "ch"); err != nil {
			return err
		}
	}
	for i, c := range s.Charges {
		if err := b.claim(twins.Pointer("charges", i, "id"), c.ID, "ch"); err != nil {
			return err
		}
	}
	for i, r := range s.Refunds {
		if err := b.claim(twins.Pointer("refunds", i, "id"), r.ID, "re"); err != nil {
			return err
		}
	}
	// Reserve the claimed ids so newID skips them.
	for id := range b.ids {
		b.w.reserved = append(b.w.reserved, id)
	}
	return nil
}

func (b *seedBuilder) customers(s *Seed) error {
	if err := b.claimAll(s); err != nil {
		return err
	}
	for i, sc := range s.Customers {
		path := twins.Pointer("customers", i)
		if sc.Email != "" {
			if err := checkEmail(&sc.Email); err != nil {
				return twins.SeedErrorf(path+"/email", "invalid email address %q", sc.Email)
			}
		}
		if err := seedMetadata(path+"/metadata", sc.Metadata); err != nil {
			return err
		}
		c := b.w.newCustomer(b.ctx, b.id(sc.ID, "cus"))
		c.Created = b.created(sc.Created)
		c.Email, c.Name, c.Description, c.Phone = strp(sc.Email), strp(sc.Name), strp(sc.Description), strp(sc.Phone)
		c.Address = sc.Address.address()
		c.Metadata = metadataOrEmpty(sc.Metadata)
		b.w.Customers = append(b.w.Customers, c)
	}
	return nil
}

func (b *seedBuilder) paymentMethods(s *Seed) error {
	for i, sp := range s.PaymentMethods {
		path := twins.Pointer("payment_methods", i)
		if sp.Customer != "" && b.w.customer(sp.Customer) == nil {
			return twins.SeedErrorf(path+"/customer", "no customer %q in the seed", sp.Customer)
		}
		if err := seedMetadata(path+"/metadata", sp.Metadata); err != nil {
			return err
		}
		var pm *PaymentMethod
		var behavior string
		switch {
		case sp.Card == "":
			return twins.SeedErrorf(path+"/card", "card is required: a test card number or a test id such as pm_card_visa")
		case strings.HasPrefix(sp.Card, "pm_card_") || strings.HasPrefix(sp.Card, "tok_"):
			if pm, behavior = b.w.magicCard(b.ctx, sp.Card); pm == nil {
				return twins.SeedErrorf(path+"/card", "unknown test payment method %q", sp.Card)
			}
			if sp.ExpMonth != nil {
				pm.Card.ExpMonth = *sp.ExpMonth
			}
			if sp.ExpYear != nil {
				pm.Card.ExpYear = *sp.ExpYear
			}
		default:
			t := twins.EnvFrom(b.ctx).Now()
			month, year := int64(t.Month()), int64(t.Year()+1)
			if sp.ExpMonth != nil {
				month = *sp.ExpMonth
			}
			if sp.ExpYear != nil {
				year = *sp.ExpYear
			}
			var err error
			if pm, behavior, err = b.w.cardPaymentMethod(b.ctx, sp.Card, &month, &year, "", "card"); err != nil {
				e := twins.AsError(err)
				field := "card"
				if e.Field == "exp_month" || e.Field == "exp_year" {
					field = e.Field
				}
				return twins.SeedErrorf(path+"/"+field, "%s", e.Message)
			}
		}
		pm.Created = b.created(sp.Created)
		pm.BillingDetails = sp.BillingDetails.details()
		pm.Metadata = metadataOrEmpty(sp.Metadata)
		pm.Customer = ref(sp.Customer)
		b.w.storePaymentMethod(pm, behavior)
		if sp.ID != "" {
			pm.ID = sp.ID
		}
	}
	return nil
}

func (b *seedBuilder) defaultPaymentMethods(s *Seed) error {
	for i, sc := range s.Customers {
		if sc.DefaultPaymentMethod == "" {
			continue
		}
		path := twins.Pointer("customers", i, "default_payment_method")
		pm := b.w.paymentMethod(sc.DefaultPaymentMethod)
		c := b.w.Customers[i]
		if pm == nil {
			return twins.SeedErrorf(path, "no payment method %q in the seed", sc.DefaultPaymentMethod)
		}
		if refOf(pm.Customer) != c.ID {
			return twins.SeedErrorf(path, "payment method %q is not attached to customer %q", pm.ID, c.ID)
		}
		c.InvoiceSettings.DefaultPaymentMethod = pm.ID
	}
	return nil
}

func (b *seedBuilder) products(s *Seed) error {
	for i, sp := range s.Products {
		path := twins.Pointer("products", i)
		if sp.Name == "" {
			return twins.SeedErrorf(path+"/name", "name is required")
		}
		if err := seedMetadata(path+"/metadata", sp.Metadata); err != nil {
			return err
		}
		t := b.created(sp.Created)
		p := &Product{
			ID: b.id(sp.ID, "prod"), Object: "product", Active: true, Created: t, Description: strp(sp.Description),
			Images: []string{}, MarketingFeatures: []any{}, Metadata: metadataOrEmpty(sp.Metadata), Name: sp.Name,
			Type: "service", Updated: t,
		}
		if sp.Active != nil {
			p.Active = *sp.Active
		}
		b.w.Products = append(b.w.Products, p)
	}
	return nil
}

func (b *seedBuilder) prices(s *Seed) error {
	for i, sp := range s.Prices {
		path := twins.Pointer("prices", i)
		prod := b.w.product(sp.Product)
		if prod == nil {
			return twins.SeedErrorf(path+"/product", "no product %q in the seed", sp.Product)
		}
		currency, err := checkCurrency("currency", sp.Currency)
		if err != nil {
			return twins.SeedErrorf(path+"/currency", "unsupported currency %q", sp.Currency)
		}
		if sp.UnitAmount < 0 {
			return twins.SeedErrorf(path+"/unit_amount", "unit_amount must not be negative")
		}
		if err := checkRecurring("recurring", sp.Recurring); err != nil {
			return twins.SeedErrorf(path+"/recurring", "%s", twins.AsError(err).Message)
		}
		if err := seedMetadata(path+"/metadata", sp.Metadata); err != nil {
			return err
		}
		amt := sp.UnitAmount
		p := b.w.newPrice(b.ctx, prod.ID, currency, &amt, sp.Recurring)
		if sp.ID != "" {
			p.ID = sp.ID
		}
		p.Created = b.created(sp.Created)
		p.Nickname, p.LookupKey, p.Metadata = strp(sp.Nickname), strp(sp.LookupKey), metadataOrEmpty(sp.Metadata)
		if sp.Active != nil {
			p.Active = *sp.Active
		}
		if sp.Default {
			prod.DefaultPrice = p.ID
		}
		b.w.Prices = append(b.w.Prices, p)
	}
	return nil
}

// payment checks what a seeded PaymentIntent and a seeded charge both
// carry: currency, amount, and the customer and payment method they name.
// It returns the normalized currency and the payment method, if any.
func (b *seedBuilder) payment(path, currency string, amount int64, customer, paymentMethod string) (string, *PaymentMethod, error) {
	cur, err := checkCurrency("currency", currency)
	if err != nil {
		return "", nil, twins.SeedErrorf(path+"/currency", "unsupported currency %q", currency)
	}
	if err := checkAmount("amount", amount, cur); err != nil {
		return "", nil, twins.SeedErrorf(path+"/amount", "%s", twins.AsError(err).Message)
	}
	if customer != "" && b.w.customer(customer) == nil {
		return "", nil, twins.SeedErrorf(path+"/customer", "no customer %q in the seed", customer)
	}
	var pm *PaymentMethod
	if paymentMethod != "" {
		if pm = b.w.paymentMethod(paymentMethod); pm == nil {
			return "", nil, twins.SeedErrorf(path+"/payment_method", "no payment method %q in the seed", paymentMethod)
		}
	}
	return cur, pm, nil
}

var seedStatuses = []string{statusRequiresPaymentMethod, statusRequiresConfirmation, statusRequiresAction,
	statusProcessing, statusRequiresCapture, statusSucceeded, statusCanceled}

func (b *seedBuilder) paymentIntents(s *Seed) error {
	for i, sp := range s.PaymentIntents {
		path := twins.Pointer("payment_intents", i)
		currency, pm, err := b.payment(path, sp.Currency, sp.Amount, sp.Customer, sp.PaymentMethod)
		if err != nil {
			return err
		}
		if pm != nil {
			if owner := refOf(pm.Customer); owner != "" && owner != sp.Customer {
				return twins.SeedErrorf(path+"/payment_method", "payment method %q belongs to customer %q", pm.ID, owner)
			}
		}
		status := sp.Status
		if status == "" {
			status = statusRequiresPaymentMethod
			if pm != nil {
				status = statusRequiresConfirmation
			}
		}
		if !statusIn(status, seedStatuses) {
			return twins.SeedErrorf(path+"/status", "unknown status %q (one of %s)", status, strings.Join(seedStatuses, ", "))
		}
		needsPM := status != statusRequiresPaymentMethod && status != statusCanceled
		if needsPM && pm == nil {
			return twins.SeedErrorf(path+"/payment_method", "a PaymentIntent in status %s needs a payment_method", status)
		}
		if status == statusRequiresPaymentMethod && pm != nil {
			return twins.SeedErrorf(path+"/payment_method", "a PaymentIntent in status requires_payment_method has no payment_method")
		}
		if err := checkCaptureMethod(sp.CaptureMethod); err != nil {
			return twins.SeedErrorf(path+"/capture_method", "%s", twins.AsError(err).Message)
		}
		if status == statusRequiresCapture && sp.CaptureMethod != "manual" {
			return twins.SeedErrorf(path+"/capture_method", "a PaymentIntent in status requires_capture has capture_method manual")
		}
		if sp.LatestCharge != "" && status != statusSucceeded && status != statusRequiresCapture {
			return twins.SeedErrorf(path+"/latest_charge", "only succeeded and requires_capture PaymentIntents have a seeded charge")
		}
		received := sp.Amount
		if sp.AmountReceived != nil {
			received = *sp.AmountReceived
			if status != statusSucceeded || received < 1 || received > sp.Amount {
				return twins.SeedErrorf(path+"/amount_received", "amount_received applies to succeeded PaymentIntents and is between 1 and the amount")
			}
		}
		if err := seedMetadata(path+"/metadata", sp.Metadata); err != nil {
			return err
		}
		for j, t := range sp.PaymentMethodTypes {
			if t != "card" {
				return twins.SeedErrorf(twins.Pointer("payment_intents", i, "payment_method_types", j), "the twin supports card only")
			}
		}

		id := b.id(sp.ID, "pi")
		created := b.created(sp.Created)
		pi := &PaymentIntent{
			ID: id, Object: "payment_intent", Amount: sp.Amount, AmountDetails: map[string]any{"tip": map[string]any{}},
			CaptureMethod: "automatic_async", ClientSecret: id + "_secret_" + token("secret/"+id, 25),
			ConfirmationMethod: "automatic", Created: created, Currency: currency, Customer: ref(sp.Customer),
			Description: strp(sp.Description), Metadata: metadataOrEmpty(sp.Metadata),
			PaymentMethodOptions: map[string]any{"card": map[string]any{
				"installments": nil, "mandate_options": nil, "network": nil, "request_three_d_secure": "automatic",
			}},
			PaymentMethodTypes: []string{"card"}, ReceiptEmail: strp(sp.ReceiptEmail), Status: status,
			AutomaticPaymentMethods: &AutomaticPaymentMethods{Enabled: true, AllowRedirects: "always"},
		}
		if len(sp.PaymentMethodTypes) > 0 {
			pi.PaymentMethodTypes = sp.PaymentMethodTypes
			pi.AutomaticPaymentMethods = nil
		}
		if sp.CaptureMethod != "" {
			pi.CaptureMethod = sp.CaptureMethod
		}
		if pm != nil {
			pi.PaymentMethod = pm.ID
		}
		switch status {
		case statusRequiresAction:
			pi.NextAction = &NextAction{Type: "use_stripe_sdk", UseStripeSDK: map[string]any{
				"type": "three_d_secure_redirect", "stripe_js": "https://hooks.stripe.com/redirect/authenticate/" + id,
			}}
		case statusCanceled:
			pi.CanceledAt = &created
			pi.CancellationReason = strp(sp.CancellationReason)
		case statusSucceeded, statusRequiresCapture:
			ch := b.w.newCharge(b.ctx, pi, pm)
			if sp.LatestCharge != "" {
				ch.ID = sp.LatestCharge
			}
			ch.Created = created
			ch.Status, ch.Paid = "succeeded", true
			ch.Outcome = &Outcome{NetworkStatus: strp("approved_by_network"), RiskLevel: "normal", RiskScore: 32,
				SellerMessage: strp("Payment complete."), Type: "authorized"}
			if status == statusSucceeded {
				ch.Captured, ch.AmountCaptured = true, received
				ch.AmountRefunded = sp.Amount - received
				pi.AmountReceived = received
				txn := b.w.chargeTransaction(b.ctx, ch, received, b.w.behaviorOf(pm) == behaviorBypass)
				txn.Created, txn.AvailableOn = created, created+2*86400
				ch.BalanceTransaction = txn.ID
			} else {
				pi.AmountCapturable = sp.Amount
			}
			b.w.Charges = append(b.w.Charges, ch)
			pi.LatestCharge = ch.ID
		}
		b.w.PaymentIntents = append(b.w.PaymentIntents, pi)
	}
	return nil
}

func (b *seedBuilder) charges(s *Seed) error {
	for i, sc := range s.Charges {
		path := twins.Pointer("charges", i)
		currency, pm, err := b.payment(path, sc.Currency, sc.Amount, sc.Customer, sc.PaymentMethod)
		if err != nil {
			return err
		}
		status := sc.Status
		if status == "" {
			status = "succeeded"
		}
		if status != "succeeded" && status != "failed" && status != "pending" {
			return twins.SeedErrorf(path+"/status", "unknown status %q (succeeded, pending or failed)", status)
		}
		if sc.FailureCode != "" && status != "failed" {
			return twins.SeedErrorf(path+"/failure_code", "only failed charges have a failure_code")
		}
		if err := seedMetadata(path+"/metadata", sc.Metadata); err != nil {
			return err
		}
		holder := &PaymentIntent{Amount: sc.Amount, Currency: currency, Customer: ref(sc.Customer),
			Description: strp(sc.Description), Metadata: sc.Metadata}
		ch := b.w.newCharge(b.ctx, holder, pm)
		if sc.ID != "" {
			ch.ID = sc.ID
		}
		ch.PaymentIntent = nil
		ch.Created = b.created(sc.Created)
		ch.Status = status
		switch status {
		case "failed":
			code := sc.FailureCode
			if code == "" {
				code = "card_declined"
			}
			ch.FailureCode, ch.FailureMessage = strp(code), strp("Your card was declined.")
			ch.Outcome = &Outcome{NetworkStatus: strp("declined_by_network"), RiskLevel: "normal", RiskScore: 20,
				SellerMessage: strp("The bank did not return any further details with this decline."), Type: "issuer_declined"}
		default:
			ch.Paid = true
			ch.Outcome = &Outcome{NetworkStatus: strp("approved_by_network"), RiskLevel: "normal", RiskScore: 32,
				SellerMessage: strp("Payment complete."), Type: "authorized"}
			if status == "succeeded" && (sc.Captured == nil || *sc.Captured) {
				ch.Captured, ch.AmountCaptured = true, sc.Amount
				txn := b.w.chargeTransaction(b.ctx, ch, sc.Amount, false)
				txn.Created, txn.AvailableOn = ch.Created, ch.Created+2*86400
				ch.BalanceTransaction = txn.ID
			}
		}
		b.w.Charges = append(b.w.Charges, ch)
	}
	return nil
}

func (b *seedBuilder) refunds(s *Seed) error {
	for i, sr := range s.Refunds {
		path := twins.Pointer("refunds", i)
		var ch *Charge
		switch {
		case sr.Charge != "":
			if ch = b.w.charge(sr.Charge); ch == nil {
				return twins.SeedErrorf(path+"/charge", "no charge %q in the seed", sr.Charge)
			}
		case sr.PaymentIntent != "":
			pi := b.w.paymentIntent(sr.PaymentIntent)
			if pi == nil {
				return twins.SeedErrorf(path+"/payment_intent", "no PaymentIntent %q in the seed", sr.PaymentIntent)
			}
			if ch = b.w.charge(refOf(pi.LatestCharge)); ch == nil {
				return twins.SeedErrorf(path+"/payment_intent", "PaymentIntent %q has no charge to refund", pi.ID)
			}
		default:
			return twins.SeedErrorf(path, "a refund names a charge or a payment_intent")
		}
		if !ch.Captured || ch.Status != "succeeded" {
			return twins.SeedErrorf(path, "charge %q is not a captured, succeeded charge", ch.ID)
		}
		remaining := ch.Amount - ch.AmountRefunded
		amount := remaining
		if sr.Amount != nil {
			amount = *sr.Amount
		}
		if amount < 1 || amount > remaining {
			return twins.SeedErrorf(path+"/amount", "refund amount %d is not between 1 and the %d left to refund on %s", amount, remaining, ch.ID)
		}
		switch sr.Reason {
		case "", "duplicate", "fraudulent", "requested_by_customer":
		default:
			return twins.SeedErrorf(path+"/reason", "unknown reason %q", sr.Reason)
		}
		if err := seedMetadata(path+"/metadata", sr.Metadata); err != nil {
			return err
		}
		t := b.created(sr.Created)
		re := &Refund{
			ID: b.id(sr.ID, "re"), Object: "refund", Amount: amount, Charge: ch.ID, Created: t, Currency: ch.Currency,
			DestinationDetails: map[string]any{"card": map[string]any{
				"reference": nil, "reference_status": "available", "reference_type": "acquirer_reference_number", "type": "refund",
			}, "type": "card"},
			Metadata: metadataOrEmpty(sr.Metadata), PaymentIntent: ref(refOf(ch.PaymentIntent)), Reason: strp(sr.Reason), Status: "succeeded",
		}
		txn := &BalanceTransaction{
			ID: b.w.newID("txn"), Object: "balance_transaction", Amount: -amount, AvailableOn: t, BalanceType: "payments",
			Created: t, Currency: ch.Currency, Description: strp("REFUND FOR CHARGE"), FeeDetails: []FeeDetail{},
			Net: -amount, ReportingCategory: "refund", Source: re.ID, Status: "available", Type: "refund",
		}
		b.w.BalanceTransactions = append(b.w.BalanceTransactions, txn)
		re.BalanceTransaction = txn.ID
		b.w.Refunds = append(b.w.Refunds, re)
		ch.AmountRefunded += amount
		ch.Refunded = ch.AmountRefunded >= ch.Amount
	}
	return nil
}

func (b *seedBuilder) balance(s *Seed) error {
	if s.Balance == nil {
		return nil
	}
	add := func(kind string, list []SeedAmount, into map[string]int64) error {
		for i, a := range list {
			c, err := checkCurrency("currency", a.Currency)
			if err != nil {
				return twins.SeedErrorf(twins.Pointer("balance", kind, i, "currency"), "unsupported currency %q", a.Currency)
			}
			into[c] += a.Amount
		}
		return nil
	}
	if err := add("available", s.Balance.Available, b.w.BalanceBase.Available); err != nil {
		return err
	}
	return add("pending", s.Balance.Pending, b.w.BalanceBase.Pending)
}

func (b *seedBuilder) faults(s *Seed) error { return b.faultList("faults", s.Faults) }

// faultList checks and adds the faults of the seed's list named key.
func (b *seedBuilder) faultList(key string, list []SeedFault) error {
	for i, sf := range list {
		path := twins.Pointer(key, i)
		switch sf.Method {
		case "POST", "DELETE":
		default:
			// Faults are counted in the world, which only writes persist.
			return twins.SeedErrorf(path+"/method", "method must be POST or DELETE (faults are injected on writes)")
		}
		if !strings.HasPrefix(sf.Path, "/v1/") {
			return twins.SeedErrorf(path+"/path", "path is a Stripe path such as /v1/payment_intents")
		}
		when := sf.When
		if when == "" {
			when = "before"
		}
		if when != "before" && when != "after" {
			return twins.SeedErrorf(path+"/when", "when is before or after")
		}
		attempt := sf.Attempt
		if attempt == 0 {
			attempt = 1
		}
		if attempt < 0 {
			return twins.SeedErrorf(path+"/attempt", "attempt counts from 1")
		}
		if sf.Status < 400 || sf.Status > 599 {
			return twins.SeedErrorf(path+"/status", "status is an HTTP error status (400–599)")
		}
		if len(sf.Body) > 0 {
			var obj map[string]any
			if err := json.Unmarshal(sf.Body, &obj); err != nil {
				return twins.SeedErrorf(path+"/body", "body is a JSON object")
			}
		}
		b.w.Faults = append(b.w.Faults, &Fault{Method: sf.Method, Path: sf.Path, Attempt: attempt, When: when, Status: sf.Status, Body: sf.Body})
	}
	return nil
}
