package stripe

import (
	"strings"
)

// Card behaviours: what happens when a card is charged.
const (
	behaviorSucceed      = "succeed"
	behaviorDecline      = "decline"            // card_declined / generic_decline
	behaviorInsufficent  = "insufficient_funds" // card_declined / insufficient_funds
	behaviorLost         = "lost_card"
	behaviorStolen       = "stolen_card"
	behaviorExpired      = "expired_card"
	behaviorCVC          = "incorrect_cvc"
	behaviorProcessing   = "processing_error"
	behaviorAuthAlways   = "authentication_required"
	behaviorAuthSetup    = "authentication_required_on_setup"
	behaviorBypass       = "bypass_pending"       // succeeds; funds available at once
	behaviorCustomerFail = "charge_customer_fail" // attaches, then every charge declines
	behaviorCustomerLost = "charge_customer_fail_lost_card"
	behaviorCustomerStln = "charge_customer_fail_stolen_card"
	behaviorVelocity     = "card_velocity_exceeded" // card_declined / card_velocity_exceeded
	behaviorFraudulent   = "fraudulent"             // the issuer declines it as fraudulent
	behaviorRadarBlock   = "radar_block"            // Radar blocks it before the network
	behaviorDispute      = "create_dispute"         // succeeds, then is disputed as fraudulent
)

// testCard is one of Stripe's documented test card numbers.
type testCard struct {
	number   string
	brand    string
	funding  string
	behavior string
}

// testCards are the numbers the twin knows, from Stripe's testing docs.
var testCards = []testCard{
	{"4242424242424242", "visa", "credit", behaviorSucceed},
	{"4000056655665556", "visa", "debit", behaviorSucceed},
	{"5555555555554444", "mastercard", "credit", behaviorSucceed},
	{"5200828282828210", "mastercard", "debit", behaviorSucceed},
	{"378282246310005", "amex", "credit", behaviorSucceed},
	{"6011111111111117", "discover", "credit", behaviorSucceed},
	{"4000000000000077", "visa", "credit", behaviorBypass},
	{"4000000000000002", "visa", "credit", behaviorDecline},
	{"4000000000009995", "visa", "credit", behaviorInsufficent},
	{"4000000000009987", "visa", "credit", behaviorLost},
	{"4000000000009979", "visa", "credit", behaviorStolen},
	{"4000000000000069", "visa", "credit", behaviorExpired},
	{"4000000000000127", "visa", "credit", behaviorCVC},
	{"4000000000000119", "visa", "credit", behaviorProcessing},
	{"4000000000006975", "visa", "credit", behaviorVelocity},
	{"4000000000000259", "visa", "credit", behaviorDispute},
	{"4100000000000019", "visa", "credit", behaviorRadarBlock},
	{"4000000000000341", "visa", "credit", behaviorCustomerFail},
	{"4000002500003155", "visa", "credit", behaviorAuthSetup},
	{"4000002760003184", "visa", "credit", behaviorAuthAlways},
	{"4000000000003220", "visa", "credit", behaviorAuthAlways},
}

// magicPaymentMethods are Stripe's test PaymentMethod ids; using one
// creates a fresh payment method from the card it names.
var magicPaymentMethods = map[string]string{
	"pm_card_visa":                                     "4242424242424242",
	"pm_card_visa_debit":                               "4000056655665556",
	"pm_card_mastercard":                               "5555555555554444",
	"pm_card_mastercard_debit":                         "5200828282828210",
	"pm_card_amex":                                     "378282246310005",
	"pm_card_discover":                                 "6011111111111117",
	"pm_card_bypassPending":                            "4000000000000077",
	"pm_card_chargeDeclined":                           "4000000000000002",
	"pm_card_visa_chargeDeclined":                      "4000000000000002",
	"pm_card_visa_chargeDeclinedInsufficientFunds":     "4000000000009995",
	"pm_card_visa_chargeDeclinedLostCard":              "4000000000009987",
	"pm_card_visa_chargeDeclinedStolenCard":            "4000000000009979",
	"pm_card_visa_chargeDeclinedVelocityLimitExceeded": "4000000000006975",
	"pm_card_chargeDeclinedFraudulent":                 "4100000000000019",
	"pm_card_radarBlock":                               "4100000000000019",
	"pm_card_createDispute":                            "4000000000000259",
	"pm_card_chargeDeclinedInsufficientFunds":          "4000000000009995",
	"pm_card_chargeDeclinedLostCard":                   "4000000000009987",
	"pm_card_chargeDeclinedStolenCard":                 "4000000000009979",
	"pm_card_chargeDeclinedExpiredCard":                "4000000000000069",
	"pm_card_chargeDeclinedIncorrectCvc":               "4000000000000127",
	"pm_card_chargeDeclinedProcessingError":            "4000000000000119",
	"pm_card_chargeCustomerFail":                       "4000000000000341",
	"pm_card_authenticationRequiredOnSetup":            "4000002500003155",
	"pm_card_authenticationRequired":                   "4000002760003184",
	"pm_card_threeDSecure2Required":                    "4000000000003220",
}

// magicTokens are Stripe's test card tokens (card[token]=tok_visa).
var magicTokens = map[string]string{
	"tok_visa":                            "4242424242424242",
	"tok_visa_debit":                      "4000056655665556",
	"tok_mastercard":                      "5555555555554444",
	"tok_amex":                            "378282246310005",
	"tok_chargeDeclined":                  "4000000000000002",
	"tok_chargeDeclinedInsufficientFunds": "4000000000009995",
	"tok_chargeDeclinedExpiredCard":       "4000000000000069",
	"tok_chargeDeclinedIncorrectCvc":      "4000000000000127",
	"tok_chargeDeclinedProcessingError":   "4000000000000119",
	"tok_bypassPending":                   "4000000000000077",
	"tok_chargeDeclinedLostCard":          "4000000000009987",
	"tok_chargeDeclinedStolenCard":        "4000000000009979",
	"tok_chargeDeclinedFraudulent":        "4100000000000019",
	"tok_chargeCustomerFail":              "4000000000000341",
	"tok_radarBlock":                      "4100000000000019",
	"tok_createDispute":                   "4000000000000259",

	"tok_visa_chargeDeclined":                        "4000000000000002",
	"tok_visa_chargeDeclinedInsufficientFunds":       "4000000000009995",
	"tok_visa_debit_chargeDeclinedInsufficientFunds": "4000000000009995",
	"tok_visa_chargeDeclinedLostCard":                "4000000000009987",
	"tok_visa_chargeDeclinedStolenCard":              "4000000000009979",
	"tok_visa_chargeDeclinedExpiredCard":             "4000000000000069",
	"tok_visa_chargeDeclinedFraudulent":              "4100000000000019",
	"tok_visa_chargeDeclinedIncorrectCvc":            "4000000000000127",
	"tok_visa_chargeDeclinedProcessingError":         "4000000000000119",
	"tok_visa_chargeDeclinedVelocityLimitExceeded":   "4000000000006975",
	"tok_visa_chargeCustomerFail":                    "4000000000000341",
	"tok_visa_chargeCustomerFailLostCard":            "4000000000000341",
	"tok_visa_chargeCustomerFailStolenCard":          "4000000000000341",
}

// magicOverrides are the test ids whose card differs from the number they
// map to: Stripe's testing docs publish no number for them. Each is its own
// card (its own fingerprint), so its behaviour does not leak to the number.
var magicOverrides = map[string]struct{ behavior, funding string }{
	"pm_card_chargeDeclinedFraudulent":               {behaviorFraudulent, ""},
	"tok_chargeDeclinedFraudulent":                   {behaviorFraudulent, ""},
	"tok_visa_chargeDeclinedFraudulent":              {behaviorFraudulent, ""},
	"tok_visa_debit_chargeDeclinedInsufficientFunds": {behaviorInsufficent, "debit"},
	"tok_visa_chargeCustomerFailLostCard":            {behaviorCustomerLost, ""},
	"tok_visa_chargeCustomerFailStolenCard":          {behaviorCustomerStln, ""},
}

func findTestCard(number string) (testCard, bool) {
	for _, c := range testCards {
		if c.number == number {
			return c, true
		}
	}
	return testCard{}, false
}

// luhn reports whether number passes the card checksum.
func luhn(number string) bool {
	sum, double := 0, false
	for i := len(number) - 1; i >= 0; i-- {
		d := int(number[i] - '0')
		if d < 0 || d > 9 {
			return false
		}
		if double {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
		double = !double
	}
	return len(number) >= 12 && sum%10 == 0
}

// brandOf guesses a card brand from its number, for numbers not in the
// test table.
func brandOf(number string) string {
	switch {
	case strings.HasPrefix(number, "4"):
		return "visa"
	case strings.HasPrefix(number, "5"), strings.HasPrefix(number, "2"):
		return "mastercard"
	case strings.HasPrefix(number, "34"), strings.HasPrefix(number, "37"):
		return "amex"
	case strings.HasPrefix(number, "6"):
		return "discover"
	}
	return "unknown"
}

// fingerprint is a stable per-number identifier, as Stripe's card
// fingerprint is.
func fingerprint(number string) string { return token("card/"+number, 16) }

// behaviorOf returns how a payment method's card behaves when charged.
func (w *World) behaviorOf(pm *PaymentMethod) string {
	if pm == nil || pm.Card == nil {
		return behaviorSucceed
	}
	if b, ok := w.Behaviors[pm.Card.Fingerprint]; ok {
		return b
	}
	return behaviorSucceed
}

// declinesOnAttach reports whether attaching the card to a customer fails:
// Stripe verifies a card when it is attached, and only the "decline after
// attaching" card (and those whose problem is the charge itself, such as
// 3D Secure) get through. Stripe's testing docs say so of every card in
// their declined-payments tables, insufficient funds and velocity included.
func declinesOnAttach(behavior string) bool {
	switch behavior {
	case behaviorDecline, behaviorInsufficent, behaviorLost, behaviorStolen, behaviorExpired, behaviorCVC,
		behaviorProcessing, behaviorVelocity, behaviorFraudulent:
		return true
	}
	return false
}

// declineFor maps a decline behaviour to Stripe's error code, decline code
// and message.
func declineFor(behavior string) (code, declineCode, message, param string) {
	switch behavior {
	case behaviorInsufficent:
		return "card_declined", "insufficient_funds", "Your card has insufficient funds.", ""
	case behaviorLost, behaviorCustomerLost:
		return "card_declined", "lost_card", "Your card was declined.", ""
	case behaviorVelocity:
		return "card_declined", "card_velocity_exceeded", "Your card was declined for making repeated attempts too frequently or exceeding its amount limit.", ""
	case behaviorFraudulent, behaviorRadarBlock:
		return "card_declined", "fraudulent", "Your card was declined.", ""
	case behaviorStolen, behaviorCustomerStln:
		return "card_declined", "stolen_card", "Your card was declined.", ""
	case behaviorExpired:
		return "expired_card", "expired_card", "Your card has expired.", "exp_month"
	case behaviorCVC:
		return "incorrect_cvc", "incorrect_cvc", "Your card's security code is incorrect.", "cvc"
	case behaviorProcessing:
		return "processing_error", "processing_error", "An error occurred while processing your card. Try again in a little bit.", ""
	}
	return "card_declined", "generic_decline", "Your card was declined.", ""
}

// Currencies the twin accepts, and those without minor units.
var (
	currencies = map[string]bool{
		"usd": true, "eur": true, "gbp": true, "cad": true, "aud": true, "jpy": true, "chf": true,
		"sek": true, "nok": true, "dkk": true, "nzd": true, "sgd": true, "hkd": true, "mxn": true,
		"brl": true, "inr": true, "pln": true, "czk": true, "krw": true,
	}
	zeroDecimal = map[string]bool{"jpy": true, "krw": true}
	// minimumCharge is Stripe's smallest chargeable amount per currency.
	minimumCharge = map[string]int64{"usd": 50, "eur": 50, "gbp": 30, "cad": 50, "aud": 50, "jpy": 50, "chf": 50, "krw": 100}
)

// checkCurrency validates and normalises a currency code.
func checkCurrency(param, c string) (string, error) {
	lc := strings.ToLower(c)
	if !currencies[lc] {
		return "", invalidParam(param, "", "Invalid currency: %s. Stripe currently supports these currencies: usd, eur, gbp, cad, aud, jpy, chf, sek, nok, dkk, nzd, sgd, hkd, mxn, brl, inr, pln, czk, krw", c)
	}
	return lc, nil
}
