package stripe_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sg "github.com/stripe/stripe-go/v82"
)

// declineCase is one row of testdata/golden/declines.json: a decline test
// card, PaymentMethod or token from Stripe's testing docs and the card
// error Stripe answers for it.
type declineCase struct {
	TestID           string `json:"test_id"`
	Code             string `json:"code"`
	DeclineCode      string `json:"decline_code"`
	Message          string `json:"message"`
	OutcomeType      string `json:"outcome_type"`
	DeclinesOnAttach bool   `json:"declines_on_attach"`
}

func declineCases(t *testing.T) []declineCase {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "golden", "declines.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []declineCase
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	return cases
}

// paymentMethodFor turns a test id into what a PaymentIntent names: test
// PaymentMethods and tokens as they are, card numbers as a payment method
// created from them.
func paymentMethodFor(t *testing.T, sc *sg.Client, id string) string {
	t.Helper()
	if strings.HasPrefix(id, "pm_") || strings.HasPrefix(id, "tok_") {
		return id
	}
	pm, err := sc.V1PaymentMethods.Create(ctx, &sg.PaymentMethodCreateParams{
		Type: sg.String("card"),
		Card: &sg.PaymentMethodCreateCardParams{Number: sg.String(id), ExpMonth: sg.Int64(12), ExpYear: sg.Int64(2034), CVC: sg.String("123")},
	})
	if err != nil {
		t.Fatal(err)
	}
	return pm.ID
}

// wantCardError checks a 402 answer field by field against the golden row,
// in the body stripe-go received.
func wantCardError(t *testing.T, err error, c declineCase) *sg.Error {
	t.Helper()
	se := stripeErr(t, err, 402, sg.ErrorCode(c.Code))
	var body struct {
		Error map[string]any `json:"error"`
	}
	if err := json.Unmarshal(se.LastResponse.RawJSON, &body); err != nil {
		t.Fatal(err)
	}
	e := body.Error
	want := map[string]any{
		"type": "card_error", "code": c.Code, "decline_code": c.DeclineCode, "message": c.Message,
		"doc_url": "https://stripe.com/docs/error-codes/" + strings.ReplaceAll(c.Code, "_", "-"),
	}
	for k, v := range want {
		if e[k] != v {
			t.Errorf("error.%s = %v, want %v", k, e[k], v)
		}
	}
	return se
}

func TestSDKDeclineTestCards(t *testing.T) {
	sc, _ := sdk(t, "")
	for _, c := range declineCases(t) {
		t.Run(c.TestID, func(t *testing.T) {
			_, err := sc.V1PaymentIntents.Create(ctx, &sg.PaymentIntentCreateParams{
				Amount: sg.Int64(1999), Currency: sg.String("usd"), PaymentMethodTypes: cardOnly(),
				PaymentMethod: sg.String(paymentMethodFor(t, sc, c.TestID)), Confirm: sg.Bool(true),
			})
			se := wantCardError(t, err, c)
			pi := se.PaymentIntent
			if pi == nil || pi.Status != sg.PaymentIntentStatusRequiresPaymentMethod || pi.LastPaymentError == nil ||
				string(pi.LastPaymentError.Code) != c.Code || string(pi.LastPaymentError.DeclineCode) != c.DeclineCode ||
				pi.LastPaymentError.Msg != c.Message || pi.PaymentMethod != nil {
				t.Fatalf("payment_intent in the error: %+v", pi)
			}
			// The PaymentIntent is kept, with its failed charge.
			got, err := sc.V1PaymentIntents.Retrieve(ctx, pi.ID, &sg.PaymentIntentRetrieveParams{Params: sg.Params{Expand: []*string{sg.String("latest_charge")}}})
			if err != nil {
				t.Fatal(err)
			}
			ch := got.LatestCharge
			if got.Status != sg.PaymentIntentStatusRequiresPaymentMethod || ch == nil || ch.ID != se.ChargeID ||
				ch.Status != sg.ChargeStatusFailed || ch.FailureCode != c.Code || ch.FailureMessage != c.Message ||
				ch.Outcome == nil || string(ch.Outcome.Type) != c.OutcomeType || ch.Paid {
				t.Fatalf("after the decline: %+v, charge %+v", got, ch)
			}
		})
	}
}

func TestSDKDeclineTestCardsOnAttach(t *testing.T) {
	sc, _ := sdk(t, "")
	cus, err := sc.V1Customers.Create(ctx, &sg.CustomerCreateParams{Email: sg.String("carol@example.com")})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range declineCases(t) {
		t.Run(c.TestID, func(t *testing.T) {
			pm, err := sc.V1PaymentMethods.Attach(ctx, paymentMethodFor(t, sc, c.TestID), &sg.PaymentMethodAttachParams{Customer: sg.String(cus.ID)})
			if c.DeclinesOnAttach {
				// Stripe's testing docs: these cards cannot be attached.
				wantCardError(t, err, c)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			// Attached; charging it declines.
			_, err = sc.V1PaymentIntents.Create(ctx, &sg.PaymentIntentCreateParams{
				Amount: sg.Int64(1999), Currency: sg.String("usd"), PaymentMethodTypes: cardOnly(),
				Customer: sg.String(cus.ID), PaymentMethod: sg.String(pm.ID), Confirm: sg.Bool(true),
			})
			wantCardError(t, err, c)
		})
	}
}

// An invalid card number never becomes a payment method: Stripe answers
// incorrect_number on the number itself.
func TestSDKIncorrectNumber(t *testing.T) {
	sc, _ := sdk(t, "")
	_, err := sc.V1PaymentMethods.Create(ctx, &sg.PaymentMethodCreateParams{
		Type: sg.String("card"),
		Card: &sg.PaymentMethodCreateCardParams{Number: sg.String("4242424242424241"), ExpMonth: sg.Int64(12), ExpYear: sg.Int64(2034)},
	})
	se := stripeErr(t, err, 402, "incorrect_number")
	if se.Type != sg.ErrorTypeCard || se.Param != "number" || se.Msg != "Your card number is incorrect." {
		t.Fatalf("%+v", se)
	}
}
