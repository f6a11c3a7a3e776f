package stripe

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/twinstest"
)

func TestSeedExampleOriginalLoads(t *testing.T) {
	w := world(t, SeedExampleOriginal)
	if got := len(w.PaymentIntents); got != 2 {
		t.Fatalf("%d PaymentIntents", got)
	}
	pi := w.paymentIntent("pi_mug_order")
	ch := w.charge("ch_mug_order")
	if pi == nil || ch == nil {
		t.Fatal("seeded PaymentIntent or charge missing")
	}
	if refOf(pi.LatestCharge) != "ch_mug_order" || refOf(ch.PaymentIntent) != "pi_mug_order" || pi.AmountReceived != 4500 {
		t.Errorf("PaymentIntent and charge not linked: %+v / %v", pi.LatestCharge, ch.PaymentIntent)
	}
	if ch.AmountRefunded != 500 || ch.Refunded || refOf(ch.BalanceTransaction) != "txn_mug_order" || ch.PaymentMethodDetails.Type != "crypto" {
		t.Errorf("charge %+v", ch)
	}
	if len(w.Refunds) != 1 || refOf(w.Refunds[0].Charge) != "ch_mug_order" || refOf(w.Refunds[0].BalanceTransaction) != "txn_mug_chip" {
		t.Errorf("refunds %+v", w.Refunds)
	}
	if len(w.BalanceTransactions) != 2 {
		t.Errorf("balance transactions %d", len(w.BalanceTransactions))
	}
	pending := w.paymentIntent("pi_mug_pending")
	if pending.NextAction == nil || pending.NextAction.Type != "display_crypto_deposit_information" {
		t.Fatalf("pending crypto PaymentIntent next_action %+v", pending.NextAction)
	}
	addr := pending.NextAction.CryptoDisplayDetails["deposit_addresses"].(map[string]any)["base"].(map[string]any)["address"]
	if addr != depositAddress("pi_mug_pending") {
		t.Errorf("deposit address %v", addr)
	}
	if len(w.Faults) != 1 || w.Faults[0].When != "after" || w.Faults[0].Status != 502 {
		t.Errorf("faults %+v", w.Faults)
	}
	if got := SeedCredentials(w); len(got) != 1 || got[0] != HashCredential("sk_test_pome_mugshop") {
		t.Errorf("seed credentials %v", got)
	}
	doc, _ := json.Marshal(w)
	if strings.Contains(string(doc), "sk_test_pome_mugshop") {
		t.Error("the world holds the seeded key in the clear")
	}
	// The balance reads the seeded ledger: 4500 in, 500 out.
	bal := must(t, w, "retrieve_balance", `{}`)
	if av := bal["available"].([]any)[0].(map[string]any)["amount"]; av != float64(4000) {
		t.Errorf("available balance %v", av)
	}
	twinstest.CheckCopy(t, New(), w, doc)
}

// TestOriginalSeedShapes: a flat seed of each bundled-task shape loads,
// _meta and all, and the minimal ones make an empty account.
func TestOriginalSeedShapes(t *testing.T) {
	for _, seed := range []string{
		`{"api_keys":[{"key":"sk_test_pome_kiosk","sid":"kiosk","account_id":"acct_kiosk"}]}`,
		`{"api_keys":[{"key":"sk_test_pome_kiosk","sid":"kiosk"}],"payment_intents":[]}`,
		`{"_meta":{"version":1},"api_keys":[{"key":"rk_test_kiosk_ro","sid":"kiosk"}]}`,
		`{"_meta":{"compiled_at":"2026-01-01T00:00:00Z"},"customers":[{"email":"c@example.com"}]}`,
	} {
		if _, err := newWorld(context.Background(), json.RawMessage(seed)); err != nil {
			t.Errorf("%s: %v", seed, err)
		}
	}
}

func TestOriginalSeedErrors(t *testing.T) {
	pi := `{"id":"pi_k1","account_id":"acct_k","amount":3000,"currency":"usd","status":"succeeded","latest_charge_id":"ch_k1"}`
	ch := `{"id":"ch_k1","account_id":"acct_k","payment_intent_id":"pi_k1","amount":3000,"amount_captured":3000,"status":"succeeded","currency":"usd"}`
	key := `{"key":"sk_test_pome_k","sid":"k","account_id":"acct_k"}`
	cases := []struct {
		seed, path, msg string
	}{
		{`{"api_keys":[` + key + `],"customers":[]}`, "/customers", "do not mix"},
		{`{"api_keys":[{"key":"pk_live_nope","sid":"k"}]}`, "/api_keys/0/key", "sk_test_"},
		{`{"api_keys":[` + key + `,` + key + `]}`, "/api_keys/1/key", "already listed"},
		{`{"api_keys":[{"key":"sk_test_pome_k"}]}`, "/api_keys/0/sid", "sid is required"},
		{`{"api_keys":[{"key":"sk_test_pome_k","sid":"k","colour":"red"}]}`, "/api_keys/0/colour", "unknown key"},
		{`{"api_keys":[` + key + `],"payment_intents":[{"id":"pi_k2","account_id":"acct_other","amount":1,"currency":"usd","status":"canceled"}]}`, "/payment_intents/0/account_id", "one account"},
		{`{"payment_intents":[` + pi + `]}`, "/payment_intents/0/latest_charge_id", "no charge"},
		{`{"payment_intents":[` + pi + `],"charges":[{"id":"ch_k1","payment_intent_id":"pi_nope","amount":1,"status":"succeeded","currency":"usd"}]}`, "/charges/0/payment_intent_id", "no PaymentIntent"},
		{`{"payment_intents":[` + pi + `],"charges":[` + strings.Replace(ch, `"status":"succeeded"`, `"status":"succeeded","refunded":true`, 1) + `]}`, "/charges/0/refunded", "refunded is true"},
		{`{"payment_intents":[` + pi + `],"charges":[` + ch + `],"refunds":[{"id":"re_k1","charge_id":"ch_k1","amount":100,"currency":"usd","status":"succeeded"}]}`, "/refunds/0/amount", "amount_refunded"},
		{`{"payment_intents":[` + pi + `],"charges":[` + ch + `],"refunds":[{"id":"re_k1","charge_id":"ch_gone","amount":100,"currency":"usd","status":"succeeded"}]}`, "/refunds/0/charge_id", "no charge"},
		{`{"payment_intents":[` + strings.Replace(pi, `"succeeded"`, `"paid"`, 1) + `]}`, "/payment_intents/0/status", "unknown status"},
		{`{"payment_intents":[{"id":"pi_k3","account_id":"acct_k","amount":10,"currency":"usd","status":"canceled","payment_method_types":["sepa_debit"]}]}`, "/payment_intents/0/payment_method_types", "crypto"},
		{`{"balance_transactions":[{"id":"txn_k","type":"charge","amount":100,"fee":3,"net":100,"currency":"usd","available_on":1}]}`, "/balance_transactions/0/net", "less fee"},
		{`{"failure_injection":[{"method":"POST","path":"/v1/refunds","attempt":1,"mode":"sometimes","status":500}]}`, "/failure_injection/0/mode", "before_handler"},
		{`{"failure_injection":[{"method":"POST","path":"/v1/refunds","attempt":0,"status":500}]}`, "/failure_injection/0/attempt", "counts from 1"},
		{`{"failure_injection":[{"method":"POST","path":"refunds","attempt":1,"status":500}]}`, "/failure_injection/0/path", "Stripe path"},
		{`{"_meta":[1],"api_keys":[]}`, "/_meta", "object"},
		{`{"api_keys":[],"faults":[]}`, "/faults", "do not mix"},
	}
	for _, tc := range cases {
		_, err := newWorld(context.Background(), json.RawMessage(tc.seed))
		var se *twins.SeedError
		if !errors.As(err, &se) {
			t.Errorf("%s: want a seed error at %s, got %v", tc.seed, tc.path, err)
			continue
		}
		if se.Path != tc.path || !strings.Contains(se.Message, tc.msg) {
			t.Errorf("%s: got %s: %s; want %s: …%s…", tc.seed, se.Path, se.Message, tc.path, tc.msg)
		}
	}
}

// TestOriginalFailureInjection: the original's after_handler rule commits
// the refund and loses its answer; a blind retry refunds twice, a retry
// with the same Idempotency-Key replays the first; before_handler changes
// nothing.
func TestOriginalFailureInjection(t *testing.T) {
	seed := func(mode string) string {
		return `{"api_keys":[{"key":"sk_test_pome_k","sid":"k"}],
		"payment_intents":[{"id":"pi_k1","amount":9000,"currency":"usd","status":"succeeded","latest_charge_id":"ch_k1"}],
		"charges":[{"id":"ch_k1","payment_intent_id":"pi_k1","amount":9000,"amount_captured":9000,"status":"succeeded","currency":"usd"}],
		"failure_injection":[{"method":"post","path":"/v1/refunds","attempt":1,"mode":"` + mode + `","status":402,
		  "body":{"error":{"type":"card_error","code":"card_declined","message":"lost on the way back"}}}]}`
	}
	refund := `{"charge":"ch_k1","amount":2500}`

	blind := newAccount(t, seed("after_handler"))
	if r := blind.call("create_refund", "", refund); r.Err == nil || r.Err.Message != "lost on the way back" || !r.Mutated {
		t.Fatalf("first attempt: %+v", r)
	}
	if r := blind.call("create_refund", "", refund); r.Err != nil {
		t.Fatalf("retry: %v", r.Err)
	}
	if n := len(blind.world().Refunds); n != 2 {
		t.Errorf("blind retry: %d refunds, want 2", n)
	}

	keyed := newAccount(t, seed("after_handler"))
	keyed.call("create_refund", "idem-1", refund)
	if r := keyed.call("create_refund", "idem-1", refund); r.Err != nil || r.Mutated {
		t.Fatalf("keyed retry: %+v", r)
	}
	if n := len(keyed.world().Refunds); n != 1 {
		t.Errorf("keyed retry: %d refunds, want 1", n)
	}

	before := newAccount(t, seed("before_handler"))
	if r := before.call("create_refund", "", refund); r.Err == nil {
		t.Fatal("before_handler rule did not fire")
	}
	if n := len(before.world().Refunds); n != 0 {
		t.Errorf("before_handler: %d refunds, want 0", n)
	}
	if r := before.call("create_refund", "", refund); r.Err != nil {
		t.Fatalf("second attempt: %v", r.Err)
	}
	if n := len(before.world().Refunds); n != 1 {
		t.Errorf("before_handler then retry: %d refunds, want 1", n)
	}
}

// TestOriginalAlreadyRefunded: a charge seeded fully refunded refuses a
// second refund, as Stripe does.
func TestOriginalAlreadyRefunded(t *testing.T) {
	w := world(t, `{"payment_intents":[{"id":"pi_k1","amount":9000,"currency":"usd","status":"succeeded","latest_charge_id":"ch_k1"}],
	"charges":[{"id":"ch_k1","payment_intent_id":"pi_k1","amount":9000,"amount_captured":9000,"amount_refunded":9000,"refunded":true,"status":"succeeded","currency":"usd"}]}`)
	wantErr(t, w, "create_refund", `{"charge":"ch_k1"}`, twins.Invalid, "charge_already_refunded")
}

// TestOriginalLegacyWrapping: the original's {"stripe": {"seed": {…}}}
// reaches the twin as {"seed": {…}} and loads; errors name the full path.
func TestOriginalLegacyWrapping(t *testing.T) {
	w := world(t, `{"seed":{"api_keys":[{"key":"sk_test_pome_wrapped","sid":"w"}]}}`)
	if got := SeedCredentials(w); len(got) != 1 || got[0] != HashCredential("sk_test_pome_wrapped") {
		t.Errorf("credentials %v", got)
	}
	_, err := newWorld(context.Background(), json.RawMessage(`{"seed":{"api_keys":[],"bogus":1}}`))
	var se *twins.SeedError
	if !errors.As(err, &se) || se.Path != "/seed/bogus" {
		t.Errorf("error %v", err)
	}
	if _, err := newWorld(context.Background(), json.RawMessage(`{"seed":{},"customers":[]}`)); err == nil {
		t.Error("seed beside other keys loaded")
	}
}
