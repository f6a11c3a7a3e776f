package stripe

import (
	"context"
	"net/mail"
	"reflect"
	"strings"

	"github.com/pomehq/pome/twins"
)

// InvoiceSettingsInput is invoice_settings[…] on a customer.
type InvoiceSettingsInput struct {
	DefaultPaymentMethod *string `json:"default_payment_method,omitempty"`
	Footer               *string `json:"footer,omitempty"`
}

// customerFields are the writable customer fields shared by create and
// update.
type customerFields struct {
	Email            *string               `json:"email,omitempty" jsonschema:"the customer's email address"`
	Name             *string               `json:"name,omitempty" jsonschema:"the customer's full name or business name"`
	Description      *string               `json:"description,omitempty"`
	Phone            *string               `json:"phone,omitempty"`
	Address          *AddressInput         `json:"address,omitempty"`
	Metadata         map[string]string     `json:"metadata,omitempty" jsonschema:"key-value pairs; on update an empty value deletes the key"`
	InvoiceSettings  *InvoiceSettingsInput `json:"invoice_settings,omitempty"`
	PreferredLocales []string              `json:"preferred_locales,omitempty"`
	TaxExempt        *string               `json:"tax_exempt,omitempty"`
	Balance          *int64                `json:"balance,omitempty"`
	Expand           []string              `json:"expand,omitempty"`
}

// CreateCustomerInput creates a customer.
type CreateCustomerInput struct {
	customerFields
	PaymentMethod string `json:"payment_method,omitempty" jsonschema:"a payment method to attach to the new customer"`
}

// RetrieveCustomerInput names a customer.
type RetrieveCustomerInput struct {
	Customer string   `json:"customer" jsonschema:"the customer id (cus_…)"`
	Expand   []string `json:"expand,omitempty"`
}

// UpdateCustomerInput updates a customer; only the fields given change.
type UpdateCustomerInput struct {
	Customer string `json:"customer" jsonschema:"the customer id (cus_…)"`
	customerFields
}

// DeleteCustomerInput deletes a customer.
type DeleteCustomerInput struct {
	Customer string `json:"customer" jsonschema:"the customer id (cus_…)"`
}

// ListCustomersInput lists customers.
type ListCustomersInput struct {
	listParams
	Email     string `json:"email,omitempty" jsonschema:"a case-sensitive filter on the customer's email"`
	Created   any    `json:"created,omitempty" jsonschema:"a unix timestamp or a range object with gt, gte, lt, lte"`
	TestClock string `json:"test_clock,omitempty"`
}

// SearchInput is Stripe's search request.
type SearchInput struct {
	Query  string   `json:"query" jsonschema:"a Stripe search query, e.g. email:'alice@example.com' or name~'ali' AND metadata['tier']:'gold'"`
	Limit  *int64   `json:"limit,omitempty" jsonschema:"how many results to return, 1 to 100 (default 10)"`
	Page   string   `json:"page,omitempty" jsonschema:"the next_page cursor of a previous search"`
	Expand []string `json:"expand,omitempty"`
}

// liveCustomer returns a customer that has not been deleted.
func (w *World) liveCustomer(id string) *Customer {
	if c := w.customer(id); c != nil && !c.Deleted {
		return c
	}
	return nil
}

// checkMetadata applies Stripe's metadata limits.
func checkMetadata(m map[string]string) error {
	if len(m) > 50 {
		return invalidParam("metadata", "", "Invalid metadata: metadata cannot have more than 50 keys.")
	}
	for k, v := range m {
		if len(k) > 40 {
			return invalidParam("metadata", "", "Invalid metadata: metadata keys must be at most 40 characters long.")
		}
		if len(v) > 500 {
			return invalidParam("metadata["+k+"]", "", "Invalid metadata: metadata values must be at most 500 characters long.")
		}
	}
	return nil
}

func checkEmail(e *string) error {
	if e == nil || *e == "" {
		return nil
	}
	if a, err := mail.ParseAddress(*e); err != nil || a.Address != *e || !strings.Contains(*e, ".") {
		return invalidParam("email", "email_invalid", "Invalid email address: %s", *e)
	}
	return nil
}

// validate checks customer fields before anything changes.
func (f *customerFields) validate(w *World, cus *Customer) error {
	if err := checkEmail(f.Email); err != nil {
		return err
	}
	if err := checkMetadata(f.Metadata); err != nil {
		return err
	}
	if f.TaxExempt != nil {
		switch *f.TaxExempt {
		case "none", "exempt", "reverse", "":
		default:
			return invalidParam("tax_exempt", "", "Invalid tax_exempt: must be one of none, exempt, or reverse")
		}
	}
	if f.InvoiceSettings != nil && f.InvoiceSettings.DefaultPaymentMethod != nil && *f.InvoiceSettings.DefaultPaymentMethod != "" {
		id := *f.InvoiceSettings.DefaultPaymentMethod
		pm := w.paymentMethod(id)
		if pm == nil {
			return noSuch("PaymentMethod", id, "invoice_settings[default_payment_method]")
		}
		if cus == nil || refOf(pm.Customer) != cus.ID {
			return invalidParam("invoice_settings[default_payment_method]", "",
				"The customer does not have a payment method with the ID %s. The payment method must be attached to the customer.", id)
		}
	}
	return checkExpand(w, &Customer{}, f.Expand)
}

// apply writes the given fields onto c, a customer of w.
func (f *customerFields) apply(w *World, c *Customer) {
	set := func(dst **string, v *string) {
		if v != nil {
			*dst = w.keepString(*v)
		}
	}
	set(&c.Email, f.Email)
	set(&c.Name, f.Name)
	set(&c.Description, f.Description)
	set(&c.Phone, f.Phone)
	if f.Address != nil {
		c.Address = f.Address.address()
	}
	if f.Metadata != nil {
		c.Metadata = mergeMetadata(c.Metadata, f.Metadata)
	}
	if f.InvoiceSettings != nil {
		if v := f.InvoiceSettings.DefaultPaymentMethod; v != nil {
			c.InvoiceSettings.DefaultPaymentMethod = ref(*v)
		}
		if v := f.InvoiceSettings.Footer; v != nil {
			c.InvoiceSettings.Footer = w.keepString(*v)
		}
	}
	if f.PreferredLocales != nil {
		c.PreferredLocales = f.PreferredLocales
	}
	if f.TaxExempt != nil && *f.TaxExempt != "" {
		c.TaxExempt = *f.TaxExempt
	}
	if f.Balance != nil {
		c.Balance = *f.Balance
	}
}

// newCustomer builds a customer with Stripe's defaults.
func (w *World) newCustomer(ctx context.Context, id string) *Customer {
	if id == "" {
		id = w.newID("cus")
	}
	c := w.customerSlab.New()
	*c = blankCustomer(id, now(ctx), w.text.Keep(strings.ToUpper(token("inv/"+id, 8))))
	return c
}

// blankCustomer is a customer as created, before the create's fields.
func blankCustomer(id string, created int64, invoicePrefix string) Customer {
	return Customer{
		ID: id, Object: "customer", Created: created, Metadata: noMetadata,
		InvoicePrefix: invoicePrefix, NextInvoiceSequence: 1,
		PreferredLocales: []string{}, TaxExempt: "none",
	}
}

func createCustomer(ctx context.Context, w *World, in CreateCustomerInput) (*Customer, error) {
	// A new customer's default payment method can only be the one attached
	// by this same call, so it is checked here rather than against the
	// customer's (not yet existing) payment methods.
	fields := in.customerFields
	var defaultPM *string
	if fields.InvoiceSettings != nil {
		is := *fields.InvoiceSettings
		defaultPM, is.DefaultPaymentMethod = is.DefaultPaymentMethod, nil
		fields.InvoiceSettings = &is
	}
	if err := fields.validate(w, nil); err != nil {
		return nil, err
	}
	if defaultPM != nil && *defaultPM != "" && *defaultPM != in.PaymentMethod {
		return nil, invalidParam("invoice_settings[default_payment_method]", "", "The customer does not have a payment method with the ID %s. The payment method must be attached to the customer.", *defaultPM)
	}
	if in.PaymentMethod != "" {
		if !w.paymentMethodExists(in.PaymentMethod) {
			return nil, noSuch("PaymentMethod", in.PaymentMethod, "payment_method")
		}
		if pm := w.paymentMethod(in.PaymentMethod); pm != nil && refOf(pm.Customer) != "" {
			return nil, invalidParam("payment_method", "", "The payment method you provided has already been attached to a customer.")
		}
	}
	c := w.newCustomer(ctx, "")
	fields.apply(w, c)
	w.Customers = append(w.Customers, c)
	var attached *PaymentMethod
	if in.PaymentMethod != "" {
		pm, err := w.resolvePaymentMethod(ctx, in.PaymentMethod, "payment_method")
		if err != nil {
			return nil, err
		}
		pm.Customer = c.ID
		if defaultPM != nil && *defaultPM != "" {
			c.InvoiceSettings.DefaultPaymentMethod = pm.ID
		}
		attached = pm
	}
	w.emit(ctx, "customer.created", c, nil)
	if attached != nil {
		w.emit(ctx, "payment_method.attached", attached, nil)
	}
	return expanded(w, c, in.Expand)
}

func retrieveCustomer(ctx context.Context, w *World, in RetrieveCustomerInput) (*Customer, error) {
	c := w.customer(in.Customer)
	if c == nil {
		return nil, noSuch("customer", in.Customer, "id")
	}
	if c.Deleted {
		return c, nil
	}
	return expanded(w, c, in.Expand)
}

// deletedShape renders a deleted customer the way Stripe's retrieve does.
func deletedShape(_, out any) any {
	if c, ok := out.(*Customer); ok && c.Deleted {
		return DeletedObject{ID: c.ID, Object: "customer", Deleted: true}
	}
	return out
}

func updateCustomer(ctx context.Context, w *World, in UpdateCustomerInput) (*Customer, error) {
	c := w.liveCustomer(in.Customer)
	if c == nil {
		return nil, noSuch("customer", in.Customer, "id")
	}
	if err := in.validate(w, c); err != nil {
		return nil, err
	}
	before := clone(c)
	in.apply(w, c)
	prev := previousAttributes(before, c)
	if len(prev) == 0 {
		unchanged(ctx)
		return expanded(w, c, in.Expand)
	}
	w.emit(ctx, "customer.updated", c, prev)
	return expanded(w, c, in.Expand)
}

func deleteCustomer(ctx context.Context, w *World, in DeleteCustomerInput) (DeletedObject, error) {
	c := w.liveCustomer(in.Customer)
	if c == nil {
		return DeletedObject{}, noSuch("customer", in.Customer, "id")
	}
	w.emit(ctx, "customer.deleted", c, nil)
	c.Deleted = true
	return DeletedObject{ID: c.ID, Object: "customer", Deleted: true}, nil
}

func listCustomers(ctx context.Context, w *World, in ListCustomersInput) (List[*Customer], error) {
	created, err := parseRange("created", in.Created)
	if err != nil {
		return List[*Customer]{}, err
	}
	var items []*Customer
	for _, c := range w.Customers {
		if c.Deleted || (in.Email != "" && (c.Email == nil || *c.Email != in.Email)) || !created.contains(c.Created) {
			continue
		}
		items = append(items, c)
	}
	items = newestFirst(items, func(c *Customer) int64 { return c.Created })
	return paginate(w, items, func(c *Customer) string { return c.ID }, in.listParams, "/v1/customers", "customer", expander[Customer](w))
}

func searchCustomers(ctx context.Context, w *World, in SearchInput) (SearchResult[*Customer], error) {
	q, err := parseQuery(in.Query, customerSearchFields)
	if err != nil {
		return SearchResult[*Customer]{}, err
	}
	var items []*Customer
	for _, c := range newestFirst(w.Customers, func(c *Customer) int64 { return c.Created }) {
		if !c.Deleted && q.matches(customerFieldValue(c)) {
			items = append(items, c)
		}
	}
	return searchPage(w, items, in, "/v1/customers/search", expander[Customer](w))
}

var customerSearchFields = map[string]string{
	"created": "number", "email": "string", "name": "string", "phone": "string", "metadata": "metadata",
}

func customerFieldValue(c *Customer) func(field, key string) (any, bool) {
	return func(field, key string) (any, bool) {
		switch field {
		case "created":
			return c.Created, true
		case "email":
			return c.Email, true
		case "name":
			return c.Name, true
		case "phone":
			return c.Phone, true
		case "metadata":
			v, ok := c.Metadata[key]
			return v, ok
		}
		return nil, false
	}
}

// previousAttributes lists the top-level fields that differ between two
// versions of an object, with their old values, as update events carry.
func previousAttributes[T any](before, after *T) map[string]any {
	var b, a map[string]any
	mustRoundTrip(before, &b)
	mustRoundTrip(after, &a)
	prev := map[string]any{}
	for k, v := range b {
		if !reflect.DeepEqual(v, a[k]) {
			prev[k] = v
		}
	}
	return prev
}

func customerActions() []twins.Action {
	return []twins.Action{
		writeAction(twins.Spec{
			Name: "create_customer", Title: "Create a customer",
			Description: "Create a customer with an email, name, description, phone, address and metadata; payment_method attaches one at once.",
			Effect:      twins.Write,
			Bindings:    []twins.Binding{{Method: "POST", Path: "/v1/customers"}},
		}, createCustomer),
		twins.New(twins.Spec{
			Name: "retrieve_customer", Title: "Retrieve a customer",
			Description: "Retrieve a customer by id; a deleted customer answers with deleted: true.",
			Effect:      twins.Read,
			Bindings:    []twins.Binding{{Method: "GET", Path: "/v1/customers/{customer}", Shape: deletedShape}},
		}, retrieveCustomer),
		writeAction(twins.Spec{
			Name: "update_customer", Title: "Update a customer",
			Description: "Update a customer's fields; fields not given are left as they are, metadata keys are merged and an empty value deletes one.",
			Effect:      twins.Write,
			Bindings:    []twins.Binding{{Method: "POST", Path: "/v1/customers/{customer}"}},
		}, updateCustomer),
		writeAction(twins.Spec{
			Name: "delete_customer", Title: "Delete a customer",
			Description: "Permanently delete a customer.",
			Effect:      twins.Destructive,
			Bindings:    []twins.Binding{{Method: "DELETE", Path: "/v1/customers/{customer}"}},
		}, deleteCustomer),
		twins.New(twins.Spec{
			Name: "list_customers", Title: "List customers",
			Description: "List customers, newest first, optionally filtered by exact email or creation time.",
			Effect:      twins.Read,
			Bindings:    []twins.Binding{{Method: "GET", Path: "/v1/customers"}},
		}, listCustomers),
		twins.New(twins.Spec{
			Name: "search_customers", Title: "Search customers",
			Description: "Search customers with Stripe's query language: email:'…', name~'…' (substring), phone:'…', metadata['key']:'…', created>…, joined with AND or OR; -field:'…' negates.",
			Effect:      twins.Read,
			Bindings:    []twins.Binding{{Method: "GET", Path: "/v1/customers/search"}},
		}, searchCustomers),
	}
}
