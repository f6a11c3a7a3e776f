package stripe

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/pomehq/pome/twins"
)

// Crypto PaymentIntents: payment_method_types ["crypto"] with
// payment_method_options.crypto.mode "deposit", as the original Pome's
// twin serves them for x402. Such a PaymentIntent is created in
// requires_action with a deposit address (next_action of type
// display_crypto_deposit_information); the simulate_crypto_deposit test
// helper settles it, as a deposit to that address would.

const (
	// defaultCryptoNetwork is the one deposit network: Base.
	defaultCryptoNetwork = "base"
	// baseUSDCContract is the USDC token contract on Base, which the
	// deposit details name as the supported token.
	baseUSDCContract     = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"
	cryptoNextActionType = "display_crypto_deposit_information"
)

// depositAddress is the PaymentIntent's deposit address: derived from its
// id, so a buyer can reproduce it and a replay answers the same.
func depositAddress(piID string) string {
	sum := sha256.Sum256([]byte(piID))
	return "0x" + hex.EncodeToString(sum[:])[:40]
}

// cryptoDisplayDetails is where to deposit for the PaymentIntent.
func cryptoDisplayDetails(piID, network string) map[string]any {
	return map[string]any{"deposit_addresses": map[string]any{network: map[string]any{
		"address": depositAddress(piID),
		"supported_tokens": []any{map[string]any{
			"token_currency": "usdc", "token_contract_address": baseUSDCContract,
		}},
	}}}
}

// cryptoOptions are a crypto PaymentIntent's payment_method_options.
func cryptoOptions(network string) map[string]any {
	return map[string]any{"crypto": map[string]any{"mode": "deposit", "deposit_options": map[string]any{"networks": []any{network}}}}
}

// isCrypto reports whether the PaymentIntent is on the crypto rail.
func isCrypto(pi *PaymentIntent) bool {
	return len(pi.PaymentMethodTypes) == 1 && pi.PaymentMethodTypes[0] == "crypto"
}

// wantsCrypto reports whether a create asks for the crypto rail.
func wantsCrypto(in *CreatePaymentIntentInput) bool {
	for _, t := range in.PaymentMethodTypes {
		if t == "crypto" {
			return true
		}
	}
	return false
}

// createCryptoPaymentIntent creates a crypto deposit PaymentIntent: USD,
// payment_method_options.crypto.mode "deposit" on the base network, with
// none of the card rail's parameters. It starts in requires_action with
// its deposit address.
func createCryptoPaymentIntent(ctx context.Context, w *World, in CreatePaymentIntentInput) (*PaymentIntent, error) {
	if len(in.PaymentMethodTypes) != 1 {
		return nil, invalidParam("payment_method_types", "parameter_invalid_string", `payment_method_types must be exactly ["crypto"] or ["card"] for this twin.`)
	}
	if in.Amount < 1 {
		return nil, invalidParam("amount", "parameter_invalid_integer", "Amount must be a positive integer.")
	}
	currency := strings.ToLower(in.Currency)
	if currency == "" {
		return nil, invalidParam("currency", "parameter_missing", "Missing required param: currency.")
	}
	if currency != "usd" {
		return nil, invalidParam("currency", "currency_not_supported", "Currency '%s' is not supported for crypto PaymentIntents (supported: usd).", currency)
	}
	if in.PaymentMethod != "" || in.PaymentMethodData != nil || in.Customer != "" || (in.Confirm != nil && *in.Confirm) {
		return nil, invalidParam("payment_method", "parameter_invalid_string", `payment_method, customer, and confirm are only valid with payment_method_types ["card"].`)
	}
	if in.AutomaticPaymentMethods != nil {
		return nil, invalidParam("automatic_payment_methods", "", "You may only specify one of these parameters: automatic_payment_methods, payment_method_types.")
	}
	network, err := cryptoNetwork(in.PaymentMethodOptions)
	if err != nil {
		return nil, err
	}
	if err := checkMetadata(in.Metadata); err != nil {
		return nil, err
	}
	if err := checkExpand(w, &PaymentIntent{}, in.Expand); err != nil {
		return nil, err
	}
	pi := &PaymentIntent{
		Object: "payment_intent", Amount: in.Amount, AmountDetails: map[string]any{"tip": map[string]any{}},
		CaptureMethod: "automatic", ConfirmationMethod: "automatic", Created: now(ctx), Currency: currency,
		Description: in.Description, Metadata: metadataOrEmpty(in.Metadata), PaymentMethodOptions: cryptoOptions(network),
		PaymentMethodTypes: []string{"crypto"}, ReceiptEmail: in.ReceiptEmail, Status: statusRequiresAction,
		StatementDescriptor: in.StatementDescriptor, StatementDescriptorSuffix: in.StatementDescriptorSuffix, TransferGroup: in.TransferGroup,
	}
	pi.ID = w.newID("pi")
	pi.ClientSecret = pi.ID + "_secret_" + token("secret/"+pi.ID, 25)
	pi.NextAction = &NextAction{Type: cryptoNextActionType, CryptoDisplayDetails: cryptoDisplayDetails(pi.ID, network)}
	w.PaymentIntents = append(w.PaymentIntents, pi)
	w.emit(ctx, "payment_intent.created", pi, nil)
	w.emit(ctx, "payment_intent.requires_action", pi, nil)
	return expanded(w, pi, in.Expand)
}

// cryptoNetwork reads payment_method_options.crypto: mode deposit and a
// deposit network this twin has (base).
func cryptoNetwork(opts map[string]any) (string, error) {
	crypto, _ := opts["crypto"].(map[string]any)
	if mode, _ := crypto["mode"].(string); mode != "deposit" {
		return "", invalidParam("payment_method_options[crypto][mode]", "parameter_invalid_string", `payment_method_options.crypto.mode must be "deposit" for crypto PaymentIntents.`)
	}
	deposit, _ := crypto["deposit_options"].(map[string]any)
	var first string
	switch n := deposit["networks"].(type) {
	case []any:
		if len(n) > 0 {
			first, _ = n[0].(string)
		}
	case map[string]any:
		// A form body (networks[0]=base) decodes as an object.
		first, _ = n["0"].(string)
	}
	if first != defaultCryptoNetwork {
		return "", invalidParam("payment_method_options[crypto][deposit_options][networks]", "parameter_invalid_string", "payment_method_options.crypto.deposit_options.networks must include one of: %s.", defaultCryptoNetwork)
	}
	return first, nil
}

// SimulateCryptoDepositInput names the crypto PaymentIntent to settle.
type SimulateCryptoDepositInput struct {
	PaymentIntent string `json:"payment_intent" jsonschema:"the crypto PaymentIntent id (pi_…)"`
}

// simulateCryptoDeposit is the test helper that settles a crypto
// PaymentIntent as a deposit to its address would: requires_action →
// processing → succeeded, with its charge and balance transaction.
func simulateCryptoDeposit(ctx context.Context, w *World, in SimulateCryptoDepositInput) (*PaymentIntent, error) {
	pi, err := w.livePaymentIntent(in.PaymentIntent)
	if err != nil {
		return nil, err
	}
	if !isCrypto(pi) {
		return nil, invalidParam("payment_intent", "", `PaymentIntent %s is not a crypto PaymentIntent (payment_method_types ["crypto"]).`, pi.ID)
	}
	switch pi.Status {
	case statusSucceeded, statusCanceled:
		return nil, unexpectedState("PaymentIntent is in terminal state '%s' and cannot be advanced.", pi.Status)
	case statusRequiresAction:
	default:
		return nil, unexpectedState("The PaymentIntent has a status of '%s'. The requested action could not be performed.", pi.Status)
	}
	w.settleCrypto(ctx, pi)
	return clone(pi), nil
}

// settleCrypto moves a crypto PaymentIntent in requires_action to
// succeeded, minting its charge and balance transaction and emitting what
// Stripe emits on the way.
func (w *World) settleCrypto(ctx context.Context, pi *PaymentIntent) {
	pi.Status, pi.NextAction = statusProcessing, nil
	w.emit(ctx, "payment_intent.processing", pi, nil)
	ch := w.newCharge(ctx, pi, nil)
	ch.Status, ch.Paid, ch.Captured, ch.AmountCaptured = "succeeded", true, true, pi.Amount
	ch.PaymentMethodDetails = &PaymentMethodDetails{Type: "crypto"}
	ch.Outcome = &Outcome{NetworkStatus: strp("approved_by_network"), RiskLevel: "normal", RiskScore: 32,
		SellerMessage: strp("Payment complete."), Type: "authorized"}
	txn := w.chargeTransaction(ctx, ch, pi.Amount, true)
	// The original Pome's crypto rail settles without a fee.
	txn.Fee, txn.FeeDetails, txn.Net = 0, []FeeDetail{}, pi.Amount
	ch.BalanceTransaction = txn.ID
	w.Charges = append(w.Charges, ch)
	pi.Status, pi.LatestCharge, pi.AmountReceived = statusSucceeded, ch.ID, pi.Amount
	w.emit(ctx, "payment_intent.succeeded", pi, nil)
	w.emit(ctx, "charge.succeeded", ch, nil)
}

func cryptoActions() []twins.Action {
	return []twins.Action{
		writeAction(twins.Spec{
			Name: "simulate_crypto_deposit", Title: "Simulate a crypto deposit",
			Description: "Test helper: settle a crypto PaymentIntent in requires_action as a deposit to its address would. It becomes succeeded, with a succeeded charge and its balance transaction; payment_intent.processing, payment_intent.succeeded and charge.succeeded are emitted.",
			Effect:      twins.Write,
			Bindings:    []twins.Binding{{Method: "POST", Path: "/v1/test_helpers/payment_intents/{payment_intent}/simulate_crypto_deposit"}},
		}, simulateCryptoDeposit),
	}
}
