package stripe

import (
	"context"
	"math"

	"github.com/pomehq/pome/twins"
)

// Coupon is Stripe's coupon: a discount a customer's invoices can carry.
type Coupon struct {
	ID               string            `json:"id"`
	Object           string            `json:"object"`
	AmountOff        *int64            `json:"amount_off"`
	Created          int64             `json:"created"`
	Currency         *string           `json:"currency"`
	Duration         string            `json:"duration"`
	DurationInMonths *int64            `json:"duration_in_months"`
	Livemode         bool              `json:"livemode"`
	MaxRedemptions   *int64            `json:"max_redemptions"`
	Metadata         map[string]string `json:"metadata"`
	Name             *string           `json:"name"`
	PercentOff       *float64          `json:"percent_off"`
	RedeemBy         *int64            `json:"redeem_by"`
	TimesRedeemed    int64             `json:"times_redeemed"`
	Valid            bool              `json:"valid"`
}

// CreateCouponInput creates a coupon; the names are Stripe's and those of
// @stripe/mcp's create_coupon.
type CreateCouponInput struct {
	Name             string            `json:"name,omitempty" jsonschema:"Name of the coupon displayed to customers on invoices or receipts"`
	PercentOff       *float64          `json:"percent_off,omitempty" jsonschema:"A positive float larger than 0, and smaller or equal to 100, that represents the discount the coupon will apply (required if amount_off is not passed)"`
	AmountOff        *int64            `json:"amount_off,omitempty" jsonschema:"A positive integer representing the amount to subtract from an invoice total (required if percent_off is not passed)"`
	Currency         string            `json:"currency,omitempty" jsonschema:"Three-letter ISO code for the currency of the amount_off parameter (required if amount_off is passed)"`
	Duration         string            `json:"duration,omitempty" jsonschema:"How long the discount will last: one of once, repeating, forever. Defaults to once" enum:"once,repeating,forever"`
	DurationInMonths *int64            `json:"duration_in_months,omitempty" jsonschema:"The number of months the discount will last if duration is repeating (required then, refused otherwise)"`
	ID               string            `json:"id,omitempty" jsonschema:"an id to use instead of a generated one"`
	MaxRedemptions   *int64            `json:"max_redemptions,omitempty"`
	RedeemBy         *int64            `json:"redeem_by,omitempty" jsonschema:"unix time after which the coupon can no longer be redeemed"`
	Metadata         map[string]string `json:"metadata,omitempty"`
}

// ListCouponsInput lists coupons.
type ListCouponsInput struct {
	listParams
	Created any `json:"created,omitempty" jsonschema:"a unix timestamp or a range object with gt, gte, lt, lte"`
}

func createCoupon(ctx context.Context, w *World, in CreateCouponInput) (*Coupon, error) {
	switch {
	case in.PercentOff == nil && in.AmountOff == nil:
		return nil, invalidParam("percent_off", "parameter_missing", "You must pass either `percent_off` or `amount_off`.")
	case in.PercentOff != nil && in.AmountOff != nil:
		return nil, invalidParam("amount_off", "", "You may only specify one of these parameters: amount_off, percent_off.")
	case in.PercentOff != nil && (*in.PercentOff <= 0 || *in.PercentOff > 100 || math.IsNaN(*in.PercentOff)):
		return nil, invalidParam("percent_off", "parameter_invalid_float", "Invalid percent_off: must be greater than 0 and at most 100.")
	case in.AmountOff != nil && *in.AmountOff < 1:
		return nil, invalidParam("amount_off", "parameter_invalid_integer", "Invalid positive integer")
	case in.AmountOff != nil && in.Currency == "":
		return nil, invalidParam("currency", "parameter_missing", "You must pass currency when passing amount_off.")
	}
	var currency *string
	if in.Currency != "" {
		c, err := checkCurrency("currency", in.Currency)
		if err != nil {
			return nil, err
		}
		currency = &c
	}
	duration := in.Duration
	switch duration {
	case "":
		duration = "once"
	case "once", "repeating", "forever":
	default:
		return nil, invalidParam("duration", "", "Invalid duration: must be one of once, repeating, or forever")
	}
	if duration == "repeating" && in.DurationInMonths == nil {
		return nil, invalidParam("duration_in_months", "parameter_missing", "Missing required param: duration_in_months.")
	}
	if duration != "repeating" && in.DurationInMonths != nil {
		return nil, invalidParam("duration_in_months", "", "duration_in_months can only be set when duration is repeating.")
	}
	if in.DurationInMonths != nil && *in.DurationInMonths < 1 {
		return nil, invalidParam("duration_in_months", "parameter_invalid_integer", "Invalid positive integer")
	}
	if in.MaxRedemptions != nil && *in.MaxRedemptions < 1 {
		return nil, invalidParam("max_redemptions", "parameter_invalid_integer", "Invalid positive integer")
	}
	if in.RedeemBy != nil && *in.RedeemBy <= now(ctx) {
		return nil, invalidParam("redeem_by", "", "Invalid timestamp: must be in the future.")
	}
	if err := checkMetadata(in.Metadata); err != nil {
		return nil, err
	}
	id := in.ID
	if id != "" && w.coupon(id) != nil {
		return nil, invalidParam("id", "resource_already_exists", "Coupon already exists.")
	}
	if id == "" {
		id = w.newBareID("coupon", 8)
	} else {
		w.claimID(id)
	}
	c := &Coupon{
		ID: id, Object: "coupon", AmountOff: in.AmountOff, Created: now(ctx), Currency: currency,
		Duration: duration, DurationInMonths: in.DurationInMonths, MaxRedemptions: in.MaxRedemptions,
		Metadata: metadataOrEmpty(in.Metadata), Name: strp(in.Name), PercentOff: in.PercentOff,
		RedeemBy: in.RedeemBy, Valid: true,
	}
	w.Coupons = append(w.Coupons, c)
	w.emit(ctx, "coupon.created", c, nil)
	return c, nil
}

func listCoupons(ctx context.Context, w *World, in ListCouponsInput) (List[*Coupon], error) {
	created, err := parseRange("created", in.Created)
	if err != nil {
		return List[*Coupon]{}, err
	}
	var items []*Coupon
	for _, c := range w.Coupons {
		if created.contains(c.Created) {
			items = append(items, c)
		}
	}
	items = newestFirst(items, func(c *Coupon) int64 { return c.Created })
	return paginate(w, items, func(c *Coupon) string { return c.ID }, in.listParams, "/v1/coupons", "coupon", expander[Coupon](w))
}

func couponActions() []twins.Action {
	return []twins.Action{
		writeAction(twins.Spec{
			Name: "create_coupon", Title: "Create a coupon",
			Description: "Create a coupon: percent_off (0 < p ≤ 100) or amount_off with currency, and duration (one of once, repeating, forever; repeating needs duration_in_months).",
			Effect:      twins.Write,
			Bindings:    []twins.Binding{{Method: "POST", Path: "/v1/coupons"}},
		}, createCoupon),
		twins.New(twins.Spec{
			Name: "list_coupons", Title: "List coupons",
			Description: "List coupons, newest first.",
			Effect:      twins.Read,
			Bindings:    []twins.Binding{{Method: "GET", Path: "/v1/coupons"}},
		}, listCoupons),
	}
}
