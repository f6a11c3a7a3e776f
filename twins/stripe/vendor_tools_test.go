package stripe_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pomehq/pome/twins/stripe"
)

// vendorAbsent are @stripe/mcp tools the twin does not serve, with why.
var vendorAbsent = map[string]string{
	"search_stripe_documentation": "searches Stripe's documentation at ai.stripe.com; no account state and no Stripe API route to twin",
}

// vendorNotRequired are parameters @stripe/mcp requires and Stripe's API
// does not: one action serves both, and it keeps the API's rule.
var vendorNotRequired = map[string]string{
	"create_customer.name":         "Stripe creates customers without a name",
	"create_price.product":         "product_data may stand for it",
	"create_price.unit_amount":     "unit_amount_decimal may stand for it",
	"create_payment_link.price":    "REST sends line_items; the handler requires price in the flat form",
	"create_payment_link.quantity": "REST sends line_items; the handler requires quantity in the flat form",
	"create_invoice_item.price":    "amount or pricing[price] may stand for it",
	"create_invoice_item.invoice":  "an item without an invoice is pending, as at Stripe",
	"create_refund.payment_intent": "charge may stand for it",
	"create_coupon.name":           "Stripe's coupons need no name",
	"create_coupon.amount_off":     "percent_off may stand for it",
}

// TestVendorMCPTools compares the twin's tools with @stripe/mcp's: every
// vendor tool exists with every parameter name, required where the vendor
// requires it, and each closed set of values is named in the parameter's
// description, unless a difference above records why not.
func TestVendorMCPTools(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "vendor", "stripe-mcp-tools.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tools []struct {
			Name     string              `json:"name"`
			Params   []string            `json:"params"`
			Required []string            `json:"required"`
			Enums    map[string][]string `json:"enums"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	tw := stripe.New()
	present := 0
	for _, v := range doc.Tools {
		a, ok := tw.Action(v.Name)
		if _, absent := vendorAbsent[v.Name]; absent {
			if ok {
				t.Errorf("%s is served now; drop it from vendorAbsent", v.Name)
			}
			continue
		}
		if !ok {
			t.Errorf("@stripe/mcp's %s is missing", v.Name)
			continue
		}
		present++
		s := a.InputSchema()
		for _, p := range v.Params {
			prop, ok := s.Properties[p]
			if !ok {
				t.Errorf("%s: no parameter %s", v.Name, p)
				continue
			}
			for _, val := range v.Enums[p] {
				if !strings.Contains(prop.Description, val) {
					t.Errorf("%s.%s: the description does not name the value %q", v.Name, p, val)
				}
			}
		}
		for _, r := range v.Required {
			_, excused := vendorNotRequired[v.Name+"."+r]
			if slices.Contains(s.Required, r) == excused {
				t.Errorf("%s.%s: required=%v, vendorNotRequired says %v", v.Name, r, !excused, excused)
			}
		}
	}
	if present != len(doc.Tools)-len(vendorAbsent) {
		t.Errorf("%d of %d vendor tools present", present, len(doc.Tools))
	}
}
