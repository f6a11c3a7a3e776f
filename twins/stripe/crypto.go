package stripe

import (
	"crypto/sha256"
	"encoding/hex"
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
