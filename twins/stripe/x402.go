package stripe

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/pomehq/pome/twins"
)

// x402: the sandbox serves a protected resource behind an HTTP 402
// payment challenge, as the original Pome's Stripe twin does. A request
// without an X-PAYMENT header is answered 402 with the payment
// requirements, whose payTo is the deposit address of a crypto
// PaymentIntent minted for the challenge (one open challenge is reused for
// five minutes of sandbox clock). A retry whose X-PAYMENT (base64 JSON)
// authorizes that address for the required value on the advertised
// network settles the PaymentIntent, as simulate_crypto_deposit does, and
// is answered 200 with an X-PAYMENT-RESPONSE header; the same header sent
// again is answered 200 without paying twice.

const (
	x402Path         = "/x402/protected-resource"
	x402Route        = "GET " + x402Path
	x402Network      = "eip155:84532"
	x402Amount       = 10000 // "$0.01" in USDC base units, as the original prices it
	x402ChallengeTTL = 5 * 60
)

// X402Settlement remembers a paid X-PAYMENT header (by hash), so that a
// replay of it unlocks the resource without settling again.
type X402Settlement struct {
	PaymentHash   string `json:"payment_hash"`
	PaymentIntent string `json:"payment_intent"`
}

// X402Input is a request for the protected resource. Over REST the
// payment is the X-PAYMENT header; over MCP it is x_payment.
type X402Input struct {
	XPayment string `json:"x_payment,omitempty" jsonschema:"the X-PAYMENT value: base64 of the JSON payment payload for the advertised challenge"`
}

// X402Resource is the unlocked resource.
type X402Resource struct {
	OK       bool   `json:"ok"`
	Resource string `json:"resource"`
	Message  string `json:"message"`
}

// x402Payment is the decoded X-PAYMENT header.
type x402Payment struct {
	X402Version int    `json:"x402Version"`
	Scheme      string `json:"scheme"`
	Network     string `json:"network"`
	Payload     struct {
		Authorization struct {
			From  string  `json:"from"`
			To    *string `json:"to"`
			Value *string `json:"value"`
		} `json:"authorization"`
		Signature string `json:"signature"`
	} `json:"payload"`
}

func getX402Resource(ctx context.Context, w *World, in X402Input) (*X402Resource, error) {
	header := in.XPayment
	if header == "" {
		header = twins.Header(ctx, "X-Payment")
	}
	if header == "" {
		return nil, w.x402Challenge(ctx, "payment required")
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(header))
	if err != nil {
		return nil, w.x402Challenge(ctx, "X-PAYMENT: malformed (not base64)")
	}
	var p x402Payment
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, w.x402Challenge(ctx, "X-PAYMENT: malformed (not a JSON object)")
	}
	auth := p.Payload.Authorization
	if auth.To == nil || auth.Value == nil {
		return nil, w.x402Challenge(ctx, "X-PAYMENT: malformed (missing authorization.to or authorization.value)")
	}
	hash := HashCredential(header)
	for _, s := range w.X402 {
		if s.PaymentHash == hash {
			unchanged(ctx)
			return x402Unlocked(ctx, s.PaymentIntent, p), nil
		}
	}
	pi := w.x402Open(ctx, func(pi *PaymentIntent) bool { return strings.EqualFold(depositAddress(pi.ID), *auth.To) })
	switch {
	case pi == nil:
		return nil, w.x402Challenge(ctx, fmt.Sprintf("X-PAYMENT.authorization.to=%s does not match any active challenge", *auth.To))
	case *auth.Value != fmt.Sprint(pi.Amount):
		return nil, w.x402Challenge(ctx, fmt.Sprintf("X-PAYMENT.authorization.value=%s does not match required %d", *auth.Value, pi.Amount))
	case p.Network != x402Network:
		return nil, w.x402Challenge(ctx, fmt.Sprintf("X-PAYMENT.network=%s does not match challenge.network=%s", p.Network, x402Network))
	}
	if pi.Status == statusRequiresAction {
		w.settleCrypto(ctx, pi)
	}
	w.X402 = append(w.X402, &X402Settlement{PaymentHash: hash, PaymentIntent: pi.ID})
	return x402Unlocked(ctx, pi.ID, p), nil
}

// x402Open returns the newest x402 PaymentIntent still payable (in
// requires_action, or already settled by a deposit) within the challenge
// lifetime that match accepts.
func (w *World) x402Open(ctx context.Context, match func(*PaymentIntent) bool) *PaymentIntent {
	t := now(ctx)
	for i := len(w.PaymentIntents) - 1; i >= 0; i-- {
		pi := w.PaymentIntents[i]
		if pi.Metadata["x402_route"] != x402Route || t-pi.Created > x402ChallengeTTL {
			continue
		}
		if (pi.Status == statusRequiresAction || pi.Status == statusSucceeded && !w.x402Settled(pi.ID)) && match(pi) {
			return pi
		}
	}
	return nil
}

func (w *World) x402Settled(piID string) bool {
	for _, s := range w.X402 {
		if s.PaymentIntent == piID {
			return true
		}
	}
	return false
}

// x402Challenge answers 402 with the payment requirements, minting the
// challenge's PaymentIntent unless one is open.
func (w *World) x402Challenge(ctx context.Context, reason string) error {
	pi := w.x402Open(ctx, func(pi *PaymentIntent) bool { return pi.Status == statusRequiresAction })
	if pi == nil {
		pi = &PaymentIntent{
			Object: "payment_intent", Amount: x402Amount, AmountDetails: map[string]any{"tip": map[string]any{}},
			CaptureMethod: "automatic", ConfirmationMethod: "automatic", Created: now(ctx), Currency: "usd",
			Metadata: map[string]string{"x402_route": x402Route}, PaymentMethodOptions: cryptoOptions(defaultCryptoNetwork),
			PaymentMethodTypes: []string{"crypto"}, Status: statusRequiresAction,
		}
		pi.ID = w.newID("pi")
		pi.ClientSecret = pi.ID + "_secret_" + token("secret/"+pi.ID, 25)
		pi.NextAction = &NextAction{Type: cryptoNextActionType, CryptoDisplayDetails: cryptoDisplayDetails(pi.ID, defaultCryptoNetwork)}
		w.PaymentIntents = append(w.PaymentIntents, pi)
		w.emit(ctx, "payment_intent.created", pi, nil)
		w.emit(ctx, "payment_intent.requires_action", pi, nil)
		keepOnError(ctx)
	}
	body, err := json.Marshal(map[string]any{
		"x402Version": 1,
		"accepts": []any{map[string]any{
			"scheme": "exact", "network": x402Network, "maxAmountRequired": fmt.Sprint(pi.Amount),
			"resource": twins.EnvFrom(ctx).APIURL + x402Path, "description": "Unlock the hosted Stripe x402 protected resource",
			"mimeType": "application/json", "payTo": depositAddress(pi.ID), "maxTimeoutSeconds": 60, "asset": "USDC",
			"outputSchema": nil,
		}},
		"error": reason,
	})
	if err != nil {
		panic(err)
	}
	e := &twins.Error{Code: twins.PaymentFailed, Vendor: "payment_required", Message: string(body)}
	return e.With(faultStatusKey, http.StatusPaymentRequired).With(faultBodyKey, json.RawMessage(body))
}

func x402Unlocked(ctx context.Context, piID string, p x402Payment) *X402Resource {
	resp, err := json.Marshal(map[string]any{"success": true, "transaction": piID, "network": x402Network, "payer": p.Payload.Authorization.From})
	if err != nil {
		panic(err)
	}
	twins.SetResponseHeader(ctx, "X-PAYMENT-RESPONSE", base64.StdEncoding.EncodeToString(resp))
	return &X402Resource{OK: true, Resource: "stripe-x402-protected-resource", Message: "Payment verified by the Stripe twin."}
}

func x402Actions() []twins.Action {
	return []twins.Action{
		twins.New(twins.Spec{
			Name: "get_x402_protected_resource", Title: "Request the x402 protected resource",
			Description: "Request the sandbox's x402 protected resource. Without a payment it answers 402 with the payment requirements (accepts[0].payTo, maxAmountRequired, network); pass x_payment, the base64 JSON payload authorizing payTo for maxAmountRequired on that network, to pay and unlock it.",
			Effect:      twins.Write,
			Bindings:    []twins.Binding{{Method: "GET", Path: x402Path}},
		}, getX402Resource),
	}
}
