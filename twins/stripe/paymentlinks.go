package stripe

import (
	"context"

	"github.com/pomehq/pome/twins"
)

// PaymentLink is Stripe's payment link: a hosted checkout page for fixed
// line items.
type PaymentLink struct {
	ID                       string            `json:"id"`
	Object                   string            `json:"object"`
	Active                   bool              `json:"active"`
	AfterCompletion          AfterCompletion   `json:"after_completion"`
	AllowPromotionCodes      bool              `json:"allow_promotion_codes"`
	BillingAddressCollection string            `json:"billing_address_collection"`
	Currency                 string            `json:"currency"`
	Livemode                 bool              `json:"livemode"`
	Metadata                 map[string]string `json:"metadata"`
	PaymentMethodTypes       []string          `json:"payment_method_types"`
	URL                      string            `json:"url"`
}

// AfterCompletion is what a payment link does once paid.
type AfterCompletion struct {
	HostedConfirmation *struct {
		CustomMessage *string `json:"custom_message"`
	} `json:"hosted_confirmation,omitempty"`
	Redirect *struct {
		URL string `json:"url"`
	} `json:"redirect,omitempty"`
	Type string `json:"type"`
}

// PaymentLinkLineItem is one line_items[] entry.
type PaymentLinkLineItem struct {
	Price    string `json:"price,omitempty" jsonschema:"the price to sell (price_…); required"`
	Quantity *int64 `json:"quantity,omitempty" jsonschema:"how many; required, at least 1"`
}

// AfterCompletionInput is after_completion[…].
type AfterCompletionInput struct {
	Type     string `json:"type" jsonschema:"one of hosted_confirmation, redirect"`
	Redirect *struct {
		URL string `json:"url"`
	} `json:"redirect,omitempty"`
}

// CreatePaymentLinkInput creates a payment link. Over REST it takes
// Stripe's line_items and after_completion; over MCP it also takes the
// flat price, quantity and redirect_url of @stripe/mcp's create_payment_link.
type CreatePaymentLinkInput struct {
	Price           string                `json:"price,omitempty" jsonschema:"The ID of the price to create the payment link for. (MCP; over REST use line_items)"`
	Quantity        *int64                `json:"quantity,omitempty" jsonschema:"The quantity of the product to include. (MCP; over REST use line_items)"`
	RedirectURL     string                `json:"redirect_url,omitempty" jsonschema:"The URL to redirect to after the payment is completed. (MCP; over REST use after_completion)"`
	LineItems       []PaymentLinkLineItem `json:"line_items,omitempty" jsonschema:"the prices and quantities to sell, 1 to 20"`
	AfterCompletion *AfterCompletionInput `json:"after_completion,omitempty"`
	Metadata        map[string]string     `json:"metadata,omitempty"`
}

func createPaymentLink(ctx context.Context, w *World, in CreatePaymentLinkInput) (*PaymentLink, error) {
	if twins.TransportFrom(ctx) != twins.TransportMCP {
		// Stripe's REST API has no flat form.
		// In a fixed order, so the same request is always refused alike.
		for _, p := range []struct {
			name string
			set  bool
		}{{"price", in.Price != ""}, {"quantity", in.Quantity != nil}, {"redirect_url", in.RedirectURL != ""}} {
			if p.set {
				return nil, invalidParam(p.name, "parameter_unknown", "Received unknown parameter: %s", p.name)
			}
		}
	}
	items := in.LineItems
	after := in.AfterCompletion
	if in.Price != "" || in.Quantity != nil || in.RedirectURL != "" {
		if len(items) > 0 || after != nil {
			return nil, invalidParam("price", "", "Give either price, quantity and redirect_url or line_items and after_completion, not both.")
		}
		if in.Price == "" {
			return nil, missingParam("price")
		}
		if in.Quantity == nil {
			return nil, missingParam("quantity")
		}
		items = []PaymentLinkLineItem{{Price: in.Price, Quantity: in.Quantity}}
		if in.RedirectURL != "" {
			after = &AfterCompletionInput{Type: "redirect", Redirect: &struct {
				URL string `json:"url"`
			}{URL: in.RedirectURL}}
		}
	}
	if len(items) == 0 {
		return nil, missingParam("line_items")
	}
	if len(items) > 20 {
		return nil, invalidParam("line_items", "", "line_items must have at most 20 items.")
	}
	currency := ""
	for i, li := range items {
		param := "line_items[" + itoa(int64(i)) + "]"
		if li.Price == "" {
			return nil, missingParam(param + "[price]")
		}
		p := w.price(li.Price)
		if p == nil {
			return nil, noSuch("price", li.Price, param+"[price]")
		}
		if !p.Active {
			return nil, invalidParam(param+"[price]", "", "The price `%s` is not active.", p.ID)
		}
		if li.Quantity == nil {
			return nil, missingParam(param + "[quantity]")
		}
		if *li.Quantity < 1 {
			return nil, invalidParam(param+"[quantity]", "parameter_invalid_integer", "Invalid positive integer")
		}
		if currency != "" && p.Currency != currency {
			return nil, invalidParam(param+"[price]", "", "All prices on a payment link must have the same currency.")
		}
		currency = p.Currency
	}
	ac := AfterCompletion{Type: "hosted_confirmation"}
	if after != nil {
		switch after.Type {
		case "hosted_confirmation":
		case "redirect":
			if after.Redirect == nil || after.Redirect.URL == "" {
				return nil, missingParam("after_completion[redirect][url]")
			}
			ac.Type, ac.Redirect = "redirect", after.Redirect
		case "":
			return nil, missingParam("after_completion[type]")
		default:
			return nil, invalidParam("after_completion[type]", "", "Invalid after_completion[type]: must be one of hosted_confirmation or redirect")
		}
	}
	if ac.Type == "hosted_confirmation" {
		ac.HostedConfirmation = &struct {
			CustomMessage *string `json:"custom_message"`
		}{}
	}
	if err := checkMetadata(in.Metadata); err != nil {
		return nil, err
	}
	id := w.newID("plink")
	pl := &PaymentLink{
		ID: id, Object: "payment_link", Active: true, AfterCompletion: ac, BillingAddressCollection: "auto",
		Currency: currency, Metadata: metadataOrEmpty(in.Metadata),
		URL: "https://buy.stripe.com/test_" + token("plink/"+id, 14),
	}
	w.PaymentLinks = append(w.PaymentLinks, pl)
	if w.PaymentLinkItems == nil {
		w.PaymentLinkItems = map[string][]PaymentLinkLineItem{}
	}
	w.PaymentLinkItems[id] = items
	w.emit(ctx, "payment_link.created", pl, nil)
	return pl, nil
}

func paymentLinkActions() []twins.Action {
	return []twins.Action{
		writeAction(twins.Spec{
			Name: "create_payment_link", Title: "Create a payment link",
			Description: "Create a payment link selling a price: over MCP price and quantity (redirect_url optional); over REST line_items[] and after_completion (type one of hosted_confirmation, redirect).",
			Effect:      twins.Write,
			Bindings:    []twins.Binding{{Method: "POST", Path: "/v1/payment_links"}},
		}, createPaymentLink),
	}
}
