package stripe

import (
	"context"
	"strconv"

	"github.com/pomehq/pome/twins"
)

// RecurringInput is recurring[…] on a price.
type RecurringInput struct {
	Interval        string `json:"interval" jsonschema:"day, week, month or year"`
	IntervalCount   *int64 `json:"interval_count,omitempty"`
	UsageType       string `json:"usage_type,omitempty"`
	TrialPeriodDays *int64 `json:"trial_period_days,omitempty"`
}

// PriceDataInput is default_price_data[…] on a product.
type PriceDataInput struct {
	Currency   string          `json:"currency"`
	UnitAmount *int64          `json:"unit_amount,omitempty"`
	Recurring  *RecurringInput `json:"recurring,omitempty"`
}

// CreateProductInput creates a product.
type CreateProductInput struct {
	Name                string            `json:"name" jsonschema:"the product's name, shown to customers"`
	ID                  string            `json:"id,omitempty" jsonschema:"an id to use instead of a generated one"`
	Description         *string           `json:"description,omitempty"`
	Active              *bool             `json:"active,omitempty"`
	Metadata            map[string]string `json:"metadata,omitempty"`
	Images              []string          `json:"images,omitempty"`
	URL                 *string           `json:"url,omitempty"`
	Shippable           *bool             `json:"shippable,omitempty"`
	StatementDescriptor *string           `json:"statement_descriptor,omitempty"`
	TaxCode             string            `json:"tax_code,omitempty"`
	UnitLabel           *string           `json:"unit_label,omitempty"`
	DefaultPriceData    *PriceDataInput   `json:"default_price_data,omitempty"`
	Expand              []string          `json:"expand,omitempty"`
}

// UpdateProductInput updates a product; absent fields are left alone and
// an empty string clears an optional text field.
type UpdateProductInput struct {
	Product             string            `json:"product" jsonschema:"the product id (prod_…)"`
	Name                *string           `json:"name,omitempty"`
	Description         *string           `json:"description,omitempty" jsonschema:"the description; empty to clear it"`
	Active              *bool             `json:"active,omitempty" jsonschema:"false archives the product"`
	DefaultPrice        *string           `json:"default_price,omitempty" jsonschema:"an active price of this product (price_…)"`
	Metadata            map[string]string `json:"metadata,omitempty" jsonschema:"keys to set; a key set to an empty string is removed"`
	Images              []string          `json:"images,omitempty"`
	URL                 *string           `json:"url,omitempty"`
	Shippable           *bool             `json:"shippable,omitempty"`
	StatementDescriptor *string           `json:"statement_descriptor,omitempty"`
	TaxCode             *string           `json:"tax_code,omitempty"`
	UnitLabel           *string           `json:"unit_label,omitempty"`
	Expand              []string          `json:"expand,omitempty"`
}

// UpdatePriceInput updates a price. Stripe prices are immutable in amount
// and currency; only these fields change.
type UpdatePriceInput struct {
	Price             string            `json:"price" jsonschema:"the price id (price_…)"`
	Active            *bool             `json:"active,omitempty" jsonschema:"false archives the price"`
	Nickname          *string           `json:"nickname,omitempty" jsonschema:"a label not shown to customers; empty to clear it"`
	LookupKey         *string           `json:"lookup_key,omitempty" jsonschema:"a unique key to fetch the price by; empty to clear it"`
	TransferLookupKey *bool             `json:"transfer_lookup_key,omitempty" jsonschema:"take the lookup_key over from the price that has it"`
	Metadata          map[string]string `json:"metadata,omitempty" jsonschema:"keys to set; a key set to an empty string is removed"`
	TaxBehavior       string            `json:"tax_behavior,omitempty" jsonschema:"inclusive, exclusive or unspecified"`
	Expand            []string          `json:"expand,omitempty"`
}

// RetrieveProductInput names a product.
type RetrieveProductInput struct {
	Product string   `json:"product" jsonschema:"the product id (prod_…)"`
	Expand  []string `json:"expand,omitempty"`
}

// ListProductsInput lists products.
type ListProductsInput struct {
	listParams
	Active    *bool    `json:"active,omitempty"`
	IDs       []string `json:"ids,omitempty"`
	Shippable *bool    `json:"shippable,omitempty"`
	URL       string   `json:"url,omitempty"`
	Created   any      `json:"created,omitempty"`
}

// CreatePriceInput creates a price.
type CreatePriceInput struct {
	Currency          string            `json:"currency" jsonschema:"three-letter ISO currency code, lowercase"`
	Product           string            `json:"product,omitempty" jsonschema:"the product this price is for (prod_…)"`
	ProductData       *ProductDataInput `json:"product_data,omitempty"`
	UnitAmount        *int64            `json:"unit_amount,omitempty" jsonschema:"price in the smallest currency unit"`
	UnitAmountDecimal string            `json:"unit_amount_decimal,omitempty"`
	Recurring         *RecurringInput   `json:"recurring,omitempty"`
	Nickname          *string           `json:"nickname,omitempty"`
	LookupKey         *string           `json:"lookup_key,omitempty"`
	Active            *bool             `json:"active,omitempty"`
	Metadata          map[string]string `json:"metadata,omitempty"`
	TaxBehavior       string            `json:"tax_behavior,omitempty"`
	BillingScheme     string            `json:"billing_scheme,omitempty"`
	Expand            []string          `json:"expand,omitempty"`
}

// ProductDataInput creates a product inline with a price.
type ProductDataInput struct {
	Name     string            `json:"name"`
	Active   *bool             `json:"active,omitempty"`
	Metadata map[string]string `json:"metadata,omitempty"`
}

// RetrievePriceInput names a price.
type RetrievePriceInput struct {
	Price  string   `json:"price" jsonschema:"the price id (price_…)"`
	Expand []string `json:"expand,omitempty"`
}

// ListPricesInput lists prices.
type ListPricesInput struct {
	listParams
	Product    string   `json:"product,omitempty" jsonschema:"only prices of this product"`
	Active     *bool    `json:"active,omitempty"`
	Currency   string   `json:"currency,omitempty"`
	Type       string   `json:"type,omitempty" jsonschema:"one_time or recurring"`
	LookupKeys []string `json:"lookup_keys,omitempty"`
	Created    any      `json:"created,omitempty"`
}

func checkRecurring(param string, r *RecurringInput) error {
	if r == nil {
		return nil
	}
	switch r.Interval {
	case "day", "week", "month", "year":
	case "":
		return missingParam(param + "[interval]")
	default:
		return invalidParam(param+"[interval]", "", "Invalid interval: must be one of day, week, month, or year")
	}
	if r.IntervalCount != nil && (*r.IntervalCount < 1 || *r.IntervalCount > 365) {
		return invalidParam(param+"[interval_count]", "", "Invalid interval_count: must be between 1 and 365")
	}
	switch r.UsageType {
	case "", "licensed", "metered":
	default:
		return invalidParam(param+"[usage_type]", "", "Invalid usage_type: must be one of licensed or metered")
	}
	return nil
}

func (r *RecurringInput) recurring() *Recurring {
	if r == nil {
		return nil
	}
	out := &Recurring{Interval: r.Interval, IntervalCount: 1, UsageType: "licensed", TrialPeriodDays: r.TrialPeriodDays}
	if r.IntervalCount != nil {
		out.IntervalCount = *r.IntervalCount
	}
	if r.UsageType != "" {
		out.UsageType = r.UsageType
	}
	return out
}

// newPrice builds (but does not store) a price.
func (w *World) newPrice(ctx context.Context, product, currency string, unitAmount *int64, rec *RecurringInput) *Price {
	p := &Price{
		ID: w.newID("price"), Object: "price", Active: true, BillingScheme: "per_unit", Created: now(ctx),
		Currency: currency, Metadata: map[string]string{}, Product: product, Recurring: rec.recurring(),
		TaxBehavior: "unspecified", Type: "one_time", UnitAmount: unitAmount,
	}
	if unitAmount != nil {
		p.UnitAmountDecimal = strp(strconv.FormatInt(*unitAmount, 10))
	}
	if rec != nil {
		p.Type = "recurring"
	}
	return p
}

func createProduct(ctx context.Context, w *World, in CreateProductInput) (*Product, error) {
	if in.Name == "" {
		return nil, missingParam("name")
	}
	if in.ID != "" && w.product(in.ID) != nil {
		return nil, invalidParam("id", "resource_already_exists", "Product already exists.")
	}
	if err := checkMetadata(in.Metadata); err != nil {
		return nil, err
	}
	var currency string
	if d := in.DefaultPriceData; d != nil {
		var err error
		if currency, err = checkCurrency("default_price_data[currency]", d.Currency); err != nil {
			return nil, err
		}
		if d.UnitAmount == nil {
			return nil, missingParam("default_price_data[unit_amount]")
		}
		if *d.UnitAmount < 0 {
			return nil, invalidParam("default_price_data[unit_amount]", "parameter_invalid_integer", "This value must be greater than or equal to 0.")
		}
		if err := checkRecurring("default_price_data[recurring]", d.Recurring); err != nil {
			return nil, err
		}
	}
	if err := checkExpand(w, &Product{}, in.Expand); err != nil {
		return nil, err
	}
	t := now(ctx)
	id := in.ID
	if id == "" {
		id = w.newID("prod")
	} else {
		w.claimID(id)
	}
	p := &Product{
		ID: id, Object: "product", Active: true, Created: t, Description: in.Description, Images: []string{},
		MarketingFeatures: []any{}, Metadata: metadataOrEmpty(in.Metadata), Name: in.Name, Shippable: in.Shippable,
		StatementDescriptor: in.StatementDescriptor, Type: "service", UnitLabel: in.UnitLabel, Updated: t, URL: in.URL,
	}
	if in.Active != nil {
		p.Active = *in.Active
	}
	if in.Images != nil {
		p.Images = in.Images
	}
	if in.TaxCode != "" {
		p.TaxCode = in.TaxCode
	}
	w.Products = append(w.Products, p)
	w.emit(ctx, "product.created", p, nil)
	if d := in.DefaultPriceData; d != nil {
		price := w.newPrice(ctx, p.ID, currency, d.UnitAmount, d.Recurring)
		w.Prices = append(w.Prices, price)
		p.DefaultPrice = price.ID
		w.emit(ctx, "price.created", price, nil)
	}
	return expanded(w, p, in.Expand)
}

func retrieveProduct(ctx context.Context, w *World, in RetrieveProductInput) (*Product, error) {
	p := w.product(in.Product)
	if p == nil {
		return nil, noSuch("product", in.Product, "id")
	}
	return expanded(w, p, in.Expand)
}

func listProducts(ctx context.Context, w *World, in ListProductsInput) (List[*Product], error) {
	created, err := parseRange("created", in.Created)
	if err != nil {
		return List[*Product]{}, err
	}
	ids := map[string]bool{}
	for _, id := range in.IDs {
		ids[id] = true
	}
	var items []*Product
	for _, p := range w.Products {
		if (in.Active != nil && p.Active != *in.Active) || (len(ids) > 0 && !ids[p.ID]) ||
			(in.Shippable != nil && (p.Shippable == nil || *p.Shippable != *in.Shippable)) ||
			(in.URL != "" && (p.URL == nil || *p.URL != in.URL)) || !created.contains(p.Created) {
			continue
		}
		items = append(items, p)
	}
	items = newestFirst(items, func(p *Product) int64 { return p.Created })
	return paginate(w, items, func(p *Product) string { return p.ID }, in.listParams, "/v1/products", "product", expander[Product](w))
}

func createPrice(ctx context.Context, w *World, in CreatePriceInput) (*Price, error) {
	currency, err := checkCurrency("currency", in.Currency)
	if err != nil {
		return nil, err
	}
	switch {
	case in.Product != "" && in.ProductData != nil:
		return nil, invalidParam("product_data", "", "You may only specify one of these parameters: product, product_data.")
	case in.Product != "":
		if w.product(in.Product) == nil {
			return nil, noSuch("product", in.Product, "product")
		}
	case in.ProductData != nil:
		if in.ProductData.Name == "" {
			return nil, missingParam("product_data[name]")
		}
	default:
		return nil, invalidParam("product", "parameter_missing", "You must specify either `product` or `product_data` when creating a price.")
	}
	unit := in.UnitAmount
	if unit == nil && in.UnitAmountDecimal != "" {
		n, err := strconv.ParseInt(in.UnitAmountDecimal, 10, 64)
		if err != nil {
			return nil, invalidParam("unit_amount_decimal", "", "Invalid decimal: %s", in.UnitAmountDecimal)
		}
		unit = &n
	}
	if unit == nil {
		return nil, invalidParam("unit_amount", "parameter_missing", "Missing required param: unit_amount.")
	}
	if *unit < 0 {
		return nil, invalidParam("unit_amount", "parameter_invalid_integer", "This value must be greater than or equal to 0.")
	}
	if err := checkRecurring("recurring", in.Recurring); err != nil {
		return nil, err
	}
	switch in.TaxBehavior {
	case "", "inclusive", "exclusive", "unspecified":
	default:
		return nil, invalidParam("tax_behavior", "", "Invalid tax_behavior: must be one of inclusive, exclusive, or unspecified")
	}
	if in.LookupKey != nil {
		for _, p := range w.Prices {
			if p.LookupKey != nil && *p.LookupKey == *in.LookupKey {
				return nil, invalidParam("lookup_key", "", "A price (`%s`) already uses that lookup key.", p.ID)
			}
		}
	}
	if err := checkMetadata(in.Metadata); err != nil {
		return nil, err
	}
	if err := checkExpand(w, &Price{}, in.Expand); err != nil {
		return nil, err
	}
	product := in.Product
	if in.ProductData != nil {
		t := now(ctx)
		p := &Product{
			ID: w.newID("prod"), Object: "product", Active: true, Created: t, Images: []string{}, MarketingFeatures: []any{},
			Metadata: metadataOrEmpty(in.ProductData.Metadata), Name: in.ProductData.Name, Type: "service", Updated: t,
		}
		if in.ProductData.Active != nil {
			p.Active = *in.ProductData.Active
		}
		w.Products = append(w.Products, p)
		w.emit(ctx, "product.created", p, nil)
		product = p.ID
	}
	price := w.newPrice(ctx, product, currency, unit, in.Recurring)
	price.Nickname, price.LookupKey, price.Metadata = in.Nickname, in.LookupKey, metadataOrEmpty(in.Metadata)
	if in.Active != nil {
		price.Active = *in.Active
	}
	if in.TaxBehavior != "" {
		price.TaxBehavior = in.TaxBehavior
	}
	w.Prices = append(w.Prices, price)
	w.emit(ctx, "price.created", price, nil)
	return expanded(w, price, in.Expand)
}

func retrievePrice(ctx context.Context, w *World, in RetrievePriceInput) (*Price, error) {
	p := w.price(in.Price)
	if p == nil {
		return nil, noSuch("price", in.Price, "price")
	}
	return expanded(w, p, in.Expand)
}

func listPrices(ctx context.Context, w *World, in ListPricesInput) (List[*Price], error) {
	created, err := parseRange("created", in.Created)
	if err != nil {
		return List[*Price]{}, err
	}
	switch in.Type {
	case "", "one_time", "recurring":
	default:
		return List[*Price]{}, invalidParam("type", "", "Invalid type: must be one of one_time or recurring")
	}
	keys := map[string]bool{}
	for _, k := range in.LookupKeys {
		keys[k] = true
	}
	var items []*Price
	for _, p := range w.Prices {
		if (in.Product != "" && refOf(p.Product) != in.Product) || (in.Active != nil && p.Active != *in.Active) ||
			(in.Currency != "" && p.Currency != in.Currency) || (in.Type != "" && p.Type != in.Type) ||
			(len(keys) > 0 && (p.LookupKey == nil || !keys[*p.LookupKey])) || !created.contains(p.Created) {
			continue
		}
		items = append(items, p)
	}
	items = newestFirst(items, func(p *Price) int64 { return p.Created })
	return paginate(w, items, func(p *Price) string { return p.ID }, in.listParams, "/v1/prices", "price", expander[Price](w))
}

// optional turns Stripe's "empty string clears" into a nullable field.
func optional(s *string) *string {
	if s == nil || *s == "" {
		return nil
	}
	return s
}

func updateProduct(ctx context.Context, w *World, in UpdateProductInput) (*Product, error) {
	p := w.product(in.Product)
	if p == nil {
		return nil, noSuch("product", in.Product, "id")
	}
	if in.Name != nil && *in.Name == "" {
		return nil, invalidParam("name", "parameter_invalid_empty", "You passed an empty string for 'name'. We assume empty values are an attempt to unset a parameter; however 'name' cannot be unset. You should remove 'name' from your request or supply a non-empty value.")
	}
	if in.DefaultPrice != nil && *in.DefaultPrice != "" {
		price := w.price(*in.DefaultPrice)
		if price == nil {
			return nil, noSuch("price", *in.DefaultPrice, "default_price")
		}
		if refOf(price.Product) != p.ID {
			return nil, invalidParam("default_price", "", "The price `%s` does not belong to this product.", price.ID)
		}
		if !price.Active {
			return nil, invalidParam("default_price", "", "The price `%s` is not active and cannot be a product's default price.", price.ID)
		}
	}
	if in.Active != nil && !*in.Active && refOf(p.DefaultPrice) != "" && (in.DefaultPrice == nil || *in.DefaultPrice != "") {
		// Stripe refuses to archive a product that still has a default price.
		return nil, invalidParam("active", "", "You cannot archive a product with a default price. Remove the default price first by setting default_price to an empty string.")
	}
	if err := checkMetadata(in.Metadata); err != nil {
		return nil, err
	}
	if err := checkExpand(w, p, in.Expand); err != nil {
		return nil, err
	}
	before := clone(p)
	if in.Name != nil {
		p.Name = *in.Name
	}
	if in.Description != nil {
		p.Description = optional(in.Description)
	}
	if in.Active != nil {
		p.Active = *in.Active
	}
	if in.DefaultPrice != nil {
		p.DefaultPrice = ref(*in.DefaultPrice)
	}
	if in.Metadata != nil {
		p.Metadata = mergeMetadata(p.Metadata, in.Metadata)
	}
	if in.Images != nil {
		p.Images = in.Images
	}
	if in.URL != nil {
		p.URL = optional(in.URL)
	}
	if in.Shippable != nil {
		p.Shippable = in.Shippable
	}
	if in.StatementDescriptor != nil {
		p.StatementDescriptor = optional(in.StatementDescriptor)
	}
	if in.TaxCode != nil {
		p.TaxCode = ref(*in.TaxCode)
	}
	if in.UnitLabel != nil {
		p.UnitLabel = optional(in.UnitLabel)
	}
	prev := previousAttributes(before, p)
	if len(prev) == 0 {
		unchanged(ctx)
		return expanded(w, p, in.Expand)
	}
	p.Updated = now(ctx)
	prev["updated"] = before.Updated
	w.emit(ctx, "product.updated", p, prev)
	return expanded(w, p, in.Expand)
}

func updatePrice(ctx context.Context, w *World, in UpdatePriceInput) (*Price, error) {
	p := w.price(in.Price)
	if p == nil {
		return nil, noSuch("price", in.Price, "price")
	}
	switch in.TaxBehavior {
	case "", "inclusive", "exclusive", "unspecified":
	default:
		return nil, invalidParam("tax_behavior", "", "Invalid tax_behavior: must be one of inclusive, exclusive, or unspecified")
	}
	if in.TaxBehavior != "" && p.TaxBehavior != "unspecified" && in.TaxBehavior != p.TaxBehavior {
		return nil, invalidParam("tax_behavior", "", "Tax behavior cannot be changed once it is set to inclusive or exclusive.")
	}
	var holder *Price
	if k := optional(in.LookupKey); k != nil {
		for _, o := range w.Prices {
			if o != p && o.LookupKey != nil && *o.LookupKey == *k {
				holder = o
			}
		}
		if holder != nil && (in.TransferLookupKey == nil || !*in.TransferLookupKey) {
			return nil, invalidParam("lookup_key", "", "A price (`%s`) already uses that lookup key.", holder.ID)
		}
	}
	if err := checkMetadata(in.Metadata); err != nil {
		return nil, err
	}
	if err := checkExpand(w, p, in.Expand); err != nil {
		return nil, err
	}
	before := clone(p)
	if in.Active != nil {
		p.Active = *in.Active
	}
	if in.Nickname != nil {
		p.Nickname = optional(in.Nickname)
	}
	if in.LookupKey != nil {
		p.LookupKey = optional(in.LookupKey)
	}
	if in.Metadata != nil {
		p.Metadata = mergeMetadata(p.Metadata, in.Metadata)
	}
	if in.TaxBehavior != "" {
		p.TaxBehavior = in.TaxBehavior
	}
	prev := previousAttributes(before, p)
	if len(prev) == 0 {
		unchanged(ctx)
		return expanded(w, p, in.Expand)
	}
	if holder != nil {
		// The key moves: the price that held it loses it.
		old := clone(holder)
		holder.LookupKey = nil
		w.emit(ctx, "price.updated", holder, previousAttributes(old, holder))
	}
	w.emit(ctx, "price.updated", p, prev)
	return expanded(w, p, in.Expand)
}

func productActions() []twins.Action {
	return []twins.Action{
		writeAction(twins.Spec{
			Name: "create_product", Title: "Create a product",
			Description: "Create a product with a name and optional description, metadata and default_price_data (which creates its default price).",
			Effect:      twins.Write,
			Bindings:    []twins.Binding{{Method: "POST", Path: "/v1/products"}},
		}, createProduct),
		twins.New(twins.Spec{
			Name: "retrieve_product", Title: "Retrieve a product",
			Description: "Retrieve a product by id.",
			Effect:      twins.Read,
			Bindings:    []twins.Binding{{Method: "GET", Path: "/v1/products/{product}"}},
		}, retrieveProduct),
		writeAction(twins.Spec{
			Name: "update_product", Title: "Update a product",
			Description: "Update a product's name, description, active flag (false archives it), default_price (a price of the product; empty string removes it), metadata (empty value removes a key) and other details.",
			Effect:      twins.Write,
			Bindings:    []twins.Binding{{Method: "POST", Path: "/v1/products/{product}"}},
		}, updateProduct),
		twins.New(twins.Spec{
			Name: "list_products", Title: "List products",
			Description: "List products, newest first, optionally only active ones.",
			Effect:      twins.Read,
			Bindings:    []twins.Binding{{Method: "GET", Path: "/v1/products"}},
		}, listProducts),
		writeAction(twins.Spec{
			Name: "create_price", Title: "Create a price",
			Description: "Create a price for a product: unit_amount in the smallest currency unit and currency; recurring[interval] makes it a subscription price.",
			Effect:      twins.Write,
			Bindings:    []twins.Binding{{Method: "POST", Path: "/v1/prices"}},
		}, createPrice),
		twins.New(twins.Spec{
			Name: "retrieve_price", Title: "Retrieve a price",
			Description: "Retrieve a price by id.",
			Effect:      twins.Read,
			Bindings:    []twins.Binding{{Method: "GET", Path: "/v1/prices/{price}"}},
		}, retrievePrice),
		writeAction(twins.Spec{
			Name: "update_price", Title: "Update a price",
			Description: "Update a price's active flag (false archives it), nickname, lookup_key (transfer_lookup_key=true takes it from the price that has it), metadata or tax_behavior. The amount and currency of a price cannot change.",
			Effect:      twins.Write,
			Bindings:    []twins.Binding{{Method: "POST", Path: "/v1/prices/{price}"}},
		}, updatePrice),
		twins.New(twins.Spec{
			Name: "list_prices", Title: "List prices",
			Description: "List prices, newest first, optionally for one product, active only, or by type.",
			Effect:      twins.Read,
			Bindings:    []twins.Binding{{Method: "GET", Path: "/v1/prices"}},
		}, listPrices),
	}
}
