package stripe

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sort"
	"strings"

	"github.com/pomehq/pome/twins"
)

// The original Pome's Stripe seed format, which NewWorld loads into the
// same world as ours: a list of API keys, rows of the account's tables as
// the original's SQLite holds them (payment_intents with latest_charge_id,
// charges with payment_intent_id, refunds with charge_id,
// balance_transactions) and failure_injection rules. It is told from ours
// by its keys (see isOriginalSeed); the two do not mix in one document.

// OriginalSeed is a seed in the original Pome's format.
type OriginalSeed struct {
	APIKeys             []OriginalAPIKey             `json:"api_keys,omitempty"`
	FailureInjection    []OriginalFailureRule        `json:"failure_injection,omitempty"`
	PaymentIntents      []OriginalPaymentIntent      `json:"payment_intents,omitempty"`
	Charges             []OriginalCharge             `json:"charges,omitempty"`
	Refunds             []OriginalRefund             `json:"refunds,omitempty"`
	BalanceTransactions []OriginalBalanceTransaction `json:"balance_transactions,omitempty"`
}

// OriginalAPIKey is a key that opens this sandbox's Stripe twin, besides
// the credential the sandbox is issued (see SeedCredentials). Sid names
// the original's session; here the sandbox is the one being seeded.
type OriginalAPIKey struct {
	Key       string `json:"key"`
	Sid       string `json:"sid"`
	AccountID string `json:"account_id,omitempty"`
}

// OriginalFailureRule is the original's failure injection: on the
// Attempt-th request of Method and Path, answer Status and Body, before the
// handler runs or after it committed (the default). It is a Fault.
type OriginalFailureRule struct {
	Method  string          `json:"method"`
	Path    string          `json:"path"`
	Attempt int64           `json:"attempt"`
	Mode    string          `json:"mode,omitempty"`
	Status  int             `json:"status"`
	Body    json.RawMessage `json:"body,omitempty"`
}

// OriginalPaymentIntent is a payment_intents row. payment_method_types
// defaults to ["crypto"], as in the original.
type OriginalPaymentIntent struct {
	ID                 string            `json:"id"`
	AccountID          string            `json:"account_id,omitempty"`
	Amount             int64             `json:"amount"`
	Currency           string            `json:"currency"`
	Status             string            `json:"status"`
	PaymentMethodTypes []string          `json:"payment_method_types,omitempty"`
	NextAction         json.RawMessage   `json:"next_action,omitempty"`
	LatestChargeID     *string           `json:"latest_charge_id,omitempty"`
	CaptureMethod      string            `json:"capture_method,omitempty"`
	ConfirmationMethod string            `json:"confirmation_method,omitempty"`
	IdempotencyKey     *string           `json:"idempotency_key,omitempty"`
	Metadata           map[string]string `json:"metadata,omitempty"`
	CryptoDeposit      json.RawMessage   `json:"crypto_deposit,omitempty"`
	ClientSecret       string            `json:"client_secret,omitempty"`
	Created            *int64            `json:"created,omitempty"`
	Updated            *int64            `json:"updated,omitempty"`
	CanceledAt         *int64            `json:"canceled_at,omitempty"`
	CapturedAt         *int64            `json:"captured_at,omitempty"`
}

// OriginalCharge is a charges row; it belongs to a seeded PaymentIntent.
type OriginalCharge struct {
	ID                   string  `json:"id"`
	AccountID            string  `json:"account_id,omitempty"`
	PaymentIntentID      string  `json:"payment_intent_id"`
	Amount               int64   `json:"amount"`
	AmountCaptured       int64   `json:"amount_captured,omitempty"`
	AmountRefunded       int64   `json:"amount_refunded,omitempty"`
	Status               string  `json:"status"`
	BalanceTransactionID *string `json:"balance_transaction_id,omitempty"`
	Captured             *bool   `json:"captured,omitempty"`
	// Refunded is the API's flag; when given it must agree with the
	// amounts (amount_refunded equal to amount).
	Refunded *bool  `json:"refunded,omitempty"`
	Currency string `json:"currency"`
	Created  *int64 `json:"created,omitempty"`
}

// OriginalRefund is a refunds row. Seeded refunds do not change their
// charge: its amount_refunded must already count them.
type OriginalRefund struct {
	ID                   string  `json:"id"`
	AccountID            string  `json:"account_id,omitempty"`
	ChargeID             string  `json:"charge_id"`
	PaymentIntentID      string  `json:"payment_intent_id,omitempty"`
	Amount               int64   `json:"amount"`
	Currency             string  `json:"currency"`
	Status               string  `json:"status"`
	Reason               *string `json:"reason,omitempty"`
	BalanceTransactionID *string `json:"balance_transaction_id,omitempty"`
	IdempotencyKey       *string `json:"idempotency_key,omitempty"`
	Created              *int64  `json:"created,omitempty"`
}

// OriginalBalanceTransaction is a balance_transactions row.
type OriginalBalanceTransaction struct {
	ID          string  `json:"id"`
	AccountID   string  `json:"account_id,omitempty"`
	Type        string  `json:"type"`
	Amount      int64   `json:"amount"`
	Fee         int64   `json:"fee,omitempty"`
	Net         int64   `json:"net"`
	Currency    string  `json:"currency"`
	SourceID    *string `json:"source_id,omitempty"`
	SourceType  *string `json:"source_type,omitempty"`
	AvailableOn int64   `json:"available_on"`
	Status      string  `json:"status,omitempty"`
	Created     *int64  `json:"created,omitempty"`
}

// originalOnlyKeys are top-level keys only the original's format has;
// originalRowKeys are row keys only its rows have.
var (
	originalOnlyKeys = []string{"api_keys", "failure_injection", "balance_transactions"}
	originalRowKeys  = map[string][]string{
		"payment_intents": {"account_id", "latest_charge_id", "client_secret", "updated", "captured_at", "confirmation_method", "crypto_deposit", "next_action", "idempotency_key"},
		"charges":         {"account_id", "payment_intent_id", "balance_transaction_id", "amount_captured", "amount_refunded", "refunded"},
		"refunds":         {"account_id", "charge_id", "payment_intent_id", "balance_transaction_id", "currency", "status", "idempotency_key"},
	}
)

// isOriginalSeed reports whether a seed's top-level object is in the
// original's format: it has a key only that format has, or a row of
// payment_intents, charges or refunds does.
func isOriginalSeed(top map[string]json.RawMessage) bool {
	for _, k := range originalOnlyKeys {
		if _, ok := top[k]; ok {
			return true
		}
	}
	for list, keys := range originalRowKeys {
		var rows []map[string]json.RawMessage
		if json.Unmarshal(top[list], &rows) != nil {
			continue
		}
		for _, r := range rows {
			for _, k := range keys {
				if _, ok := r[k]; ok {
					// refunds' payment_intent_id is the original's; ours
					// say payment_intent. Any one of these decides.
					return true
				}
			}
		}
	}
	return false
}

// HashCredential is how a seeded key is kept in the world: its SHA-256,
// hex, never the key itself (the world is exported as state).
func HashCredential(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// SeedCredentials returns the hashes of the API keys a world was seeded
// with (api_keys of the original's format).
func SeedCredentials(world any) []string {
	w, ok := world.(*World)
	if !ok || w == nil {
		return nil
	}
	return append([]string(nil), w.SeedKeyHashes...)
}

// newOriginalWorld builds the world of a seed in the original's format.
func newOriginalWorld(ctx context.Context, top map[string]json.RawMessage) (*World, error) {
	keys := make([]string, 0, len(top))
	for k := range top {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	known := "api_keys, failure_injection, payment_intents, charges, refunds, balance_transactions, _meta"
	for _, k := range keys {
		switch k {
		case "api_keys", "failure_injection", "payment_intents", "charges", "refunds", "balance_transactions":
		default:
			return nil, twins.SeedErrorf(twins.Pointer(k), "unknown key %q in a seed of the original Pome's format (known: %s); the two formats do not mix", k, known)
		}
	}
	doc, err := json.Marshal(top)
	if err != nil {
		return nil, err
	}
	var s OriginalSeed
	if err := twins.DecodeSeed(doc, &s); err != nil {
		return nil, err
	}
	w := emptyWorld()
	b := &originalBuilder{seedBuilder: seedBuilder{w: w, ctx: ctx, ids: map[string]string{}}}
	for _, step := range []func(*OriginalSeed) error{b.apiKeys, b.claimIDs, b.balanceTransactions, b.paymentIntents, b.charges, b.links, b.refunds, b.failureRules} {
		if err := step(&s); err != nil {
			return nil, err
		}
	}
	return w, nil
}

type originalBuilder struct {
	seedBuilder
	account     string // the one account every row belongs to
	accountPath string // where it was first named
	chargeOf    map[string]string
}

// sameAccount checks that a row's account_id names the account of the
// seed: the twin holds one account.
func (b *originalBuilder) sameAccount(path, account string) error {
	if account == "" {
		return nil
	}
	if b.account == "" {
		b.account, b.accountPath = account, path
		return nil
	}
	if account != b.account {
		return twins.SeedErrorf(path, "account %q is not %q (named at %s): the twin holds one account", account, b.account, b.accountPath)
	}
	return nil
}

func (b *originalBuilder) apiKeys(s *OriginalSeed) error {
	seen := map[string]string{}
	for i, k := range s.APIKeys {
		path := twins.Pointer("api_keys", i)
		if !strings.HasPrefix(k.Key, "sk_test_") && !strings.HasPrefix(k.Key, "rk_test_") {
			return twins.SeedErrorf(path+"/key", "key must be a test-mode key starting sk_test_ or rk_test_")
		}
		if len(k.Key) < len("sk_test_")+4 {
			return twins.SeedErrorf(path+"/key", "key is too short")
		}
		if prev, dup := seen[k.Key]; dup {
			return twins.SeedErrorf(path+"/key", "key is already listed at %s", prev)
		}
		seen[k.Key] = path
		if k.Sid == "" {
			return twins.SeedErrorf(path+"/sid", "sid is required")
		}
		account := k.AccountID
		if account == "" {
			account = "acct_" + k.Sid
		}
		if err := b.sameAccount(path+"/account_id", account); err != nil {
			return err
		}
		b.w.SeedKeyHashes = append(b.w.SeedKeyHashes, HashCredential(k.Key))
	}
	return nil
}

func (b *originalBuilder) claimIDs(s *OriginalSeed) error {
	claims := []struct {
		list, prefix string
		ids          []string
	}{
		{"payment_intents", "pi", ids(s.PaymentIntents, func(p OriginalPaymentIntent) string { return p.ID })},
		{"charges", "ch", ids(s.Charges, func(c OriginalCharge) string { return c.ID })},
		{"refunds", "re", ids(s.Refunds, func(r OriginalRefund) string { return r.ID })},
		{"balance_transactions", "txn", ids(s.BalanceTransactions, func(t OriginalBalanceTransaction) string { return t.ID })},
	}
	for _, c := range claims {
		for i, id := range c.ids {
			path := twins.Pointer(c.list, i, "id")
			if id == "" {
				return twins.SeedErrorf(path, "id is required")
			}
			if err := b.claim(path, id, c.prefix); err != nil {
				return err
			}
		}
	}
	for id := range b.ids {
		b.w.reserved = append(b.w.reserved, id)
	}
	return nil
}

func (b *originalBuilder) balanceTransactions(s *OriginalSeed) error {
	for i, st := range s.BalanceTransactions {
		path := twins.Pointer("balance_transactions", i)
		if err := b.sameAccount(path+"/account_id", st.AccountID); err != nil {
			return err
		}
		currency, err := checkCurrency("currency", st.Currency)
		if err != nil {
			return twins.SeedErrorf(path+"/currency", "unsupported currency %q", st.Currency)
		}
		if st.Type == "" {
			return twins.SeedErrorf(path+"/type", "type is required (charge, refund, …)")
		}
		if st.Net != st.Amount-st.Fee {
			return twins.SeedErrorf(path+"/net", "net %d is not amount %d less fee %d", st.Net, st.Amount, st.Fee)
		}
		status := st.Status
		if status == "" {
			status = "available"
		}
		if status != "available" && status != "pending" {
			return twins.SeedErrorf(path+"/status", "status is available or pending")
		}
		fees := []FeeDetail{}
		if st.Fee != 0 {
			fees = append(fees, FeeDetail{Amount: st.Fee, Currency: currency, Description: "Stripe processing fees", Type: "stripe_fee"})
		}
		category := st.Type
		var source any
		if st.SourceID != nil {
			source = *st.SourceID
		}
		b.w.BalanceTransactions = append(b.w.BalanceTransactions, &BalanceTransaction{
			ID: st.ID, Object: "balance_transaction", Amount: st.Amount, AvailableOn: st.AvailableOn, BalanceType: "payments",
			Created: b.created(st.Created), Currency: currency, Fee: st.Fee, FeeDetails: fees, Net: st.Net,
			ReportingCategory: category, Source: source, Status: status, Type: st.Type,
		})
	}
	return nil
}

func (b *originalBuilder) balanceTransaction(id string) *BalanceTransaction {
	for _, t := range b.w.BalanceTransactions {
		if t.ID == id {
			return t
		}
	}
	return nil
}

func (b *originalBuilder) paymentIntents(s *OriginalSeed) error {
	for i, sp := range s.PaymentIntents {
		path := twins.Pointer("payment_intents", i)
		if err := b.sameAccount(path+"/account_id", sp.AccountID); err != nil {
			return err
		}
		currency, err := checkCurrency("currency", sp.Currency)
		if err != nil {
			return twins.SeedErrorf(path+"/currency", "unsupported currency %q", sp.Currency)
		}
		if sp.Amount < 1 {
			return twins.SeedErrorf(path+"/amount", "amount must be a positive integer")
		}
		if !statusIn(sp.Status, seedStatuses) {
			return twins.SeedErrorf(path+"/status", "unknown status %q (one of %s)", sp.Status, strings.Join(seedStatuses, ", "))
		}
		types := sp.PaymentMethodTypes
		if len(types) == 0 {
			types = []string{"crypto"}
		}
		if len(types) != 1 || (types[0] != "crypto" && types[0] != "card") {
			return twins.SeedErrorf(path+"/payment_method_types", `payment_method_types is ["crypto"] or ["card"]`)
		}
		if sp.IdempotencyKey != nil {
			return twins.SeedErrorf(path+"/idempotency_key", "a seeded PaymentIntent cannot carry the idempotency key it was created with; omit it or set it to null")
		}
		if err := seedMetadata(path+"/metadata", sp.Metadata); err != nil {
			return err
		}
		capture := sp.CaptureMethod
		if capture == "" {
			capture = "automatic"
		}
		if err := checkCaptureMethod(capture); err != nil {
			return twins.SeedErrorf(path+"/capture_method", "%s", twins.AsError(err).Message)
		}
		confirmation := sp.ConfirmationMethod
		if confirmation == "" {
			confirmation = "automatic"
		}
		if confirmation != "automatic" && confirmation != "manual" {
			return twins.SeedErrorf(path+"/confirmation_method", "confirmation_method is automatic or manual")
		}
		created := b.created(sp.Created)
		if sp.Updated != nil && *sp.Updated < created {
			return twins.SeedErrorf(path+"/updated", "updated is before created")
		}
		secret := sp.ClientSecret
		if secret == "" {
			secret = sp.ID + "_secret_" + token("secret/"+sp.ID, 25)
		}
		pi := &PaymentIntent{
			ID: sp.ID, Object: "payment_intent", Amount: sp.Amount, AmountDetails: map[string]any{"tip": map[string]any{}},
			CaptureMethod: capture, ClientSecret: secret, ConfirmationMethod: confirmation, Created: created,
			Currency: currency, Metadata: metadataOrEmpty(sp.Metadata), PaymentMethodTypes: types, Status: sp.Status,
			PaymentMethodOptions: map[string]any{},
		}
		if types[0] == "crypto" {
			pi.PaymentMethodOptions = cryptoOptions(defaultCryptoNetwork)
			if sp.Status == statusRequiresAction {
				details := cryptoDisplayDetails(sp.ID, defaultCryptoNetwork)
				if len(sp.CryptoDeposit) > 0 && string(sp.CryptoDeposit) != "null" {
					if err := json.Unmarshal(sp.CryptoDeposit, &details); err != nil || details == nil {
						return twins.SeedErrorf(path+"/crypto_deposit", "crypto_deposit is an object (deposit_addresses by network)")
					}
				}
				pi.NextAction = &NextAction{Type: cryptoNextActionType, CryptoDisplayDetails: details}
			}
		}
		if len(sp.NextAction) > 0 && string(sp.NextAction) != "null" {
			var na NextAction
			if err := twins.DecodeSeed(sp.NextAction, &na); err != nil {
				return prefixSeedError(path+"/next_action", err)
			}
			if sp.Status != statusRequiresAction {
				return twins.SeedErrorf(path+"/next_action", "only a PaymentIntent in requires_action has a next_action")
			}
			pi.NextAction = &na
		}
		switch sp.Status {
		case statusCanceled:
			at := created
			if sp.CanceledAt != nil {
				at = *sp.CanceledAt
			}
			pi.CanceledAt = &at
		default:
			if sp.CanceledAt != nil {
				return twins.SeedErrorf(path+"/canceled_at", "only a canceled PaymentIntent has canceled_at")
			}
		}
		if sp.CapturedAt != nil && sp.Status != statusSucceeded {
			return twins.SeedErrorf(path+"/captured_at", "only a succeeded PaymentIntent has captured_at")
		}
		if sp.LatestChargeID != nil && *sp.LatestChargeID != "" {
			pi.LatestCharge = *sp.LatestChargeID
		}
		b.w.PaymentIntents = append(b.w.PaymentIntents, pi)
	}
	return nil
}

func (b *originalBuilder) charges(s *OriginalSeed) error {
	b.chargeOf = map[string]string{}
	for i, sc := range s.Charges {
		path := twins.Pointer("charges", i)
		if err := b.sameAccount(path+"/account_id", sc.AccountID); err != nil {
			return err
		}
		pi := b.w.paymentIntent(sc.PaymentIntentID)
		if pi == nil {
			return twins.SeedErrorf(path+"/payment_intent_id", "no PaymentIntent %q in /payment_intents", sc.PaymentIntentID)
		}
		currency, err := checkCurrency("currency", sc.Currency)
		if err != nil {
			return twins.SeedErrorf(path+"/currency", "unsupported currency %q", sc.Currency)
		}
		if currency != pi.Currency {
			return twins.SeedErrorf(path+"/currency", "currency %q is not its PaymentIntent's %q", currency, pi.Currency)
		}
		if sc.Status != "succeeded" && sc.Status != "pending" && sc.Status != "failed" {
			return twins.SeedErrorf(path+"/status", "unknown status %q (succeeded, pending or failed)", sc.Status)
		}
		if sc.Amount < 1 || sc.Amount > pi.Amount {
			return twins.SeedErrorf(path+"/amount", "amount %d is not between 1 and its PaymentIntent's %d", sc.Amount, pi.Amount)
		}
		captured := true
		if sc.Captured != nil {
			captured = *sc.Captured
		}
		if sc.AmountCaptured < 0 || sc.AmountCaptured > sc.Amount {
			return twins.SeedErrorf(path+"/amount_captured", "amount_captured is between 0 and the amount")
		}
		if sc.AmountRefunded < 0 || sc.AmountRefunded > sc.AmountCaptured {
			return twins.SeedErrorf(path+"/amount_refunded", "amount_refunded %d is not between 0 and amount_captured %d", sc.AmountRefunded, sc.AmountCaptured)
		}
		refunded := sc.AmountRefunded >= sc.Amount
		if sc.Refunded != nil && *sc.Refunded != refunded {
			return twins.SeedErrorf(path+"/refunded", "refunded is %v but amount_refunded is %d of %d", *sc.Refunded, sc.AmountRefunded, sc.Amount)
		}
		ch := b.w.newCharge(b.ctx, pi, nil)
		ch.ID, ch.Amount, ch.AmountCaptured, ch.AmountRefunded = sc.ID, sc.Amount, sc.AmountCaptured, sc.AmountRefunded
		ch.Captured, ch.Refunded, ch.Status, ch.Paid = captured, refunded, sc.Status, sc.Status == "succeeded"
		ch.Created = b.created(sc.Created)
		ch.PaymentMethodDetails = &PaymentMethodDetails{Type: pi.PaymentMethodTypes[0]}
		switch sc.Status {
		case "failed":
			ch.FailureCode, ch.FailureMessage = strp("card_declined"), strp("The payment failed.")
			ch.Outcome = &Outcome{NetworkStatus: strp("declined_by_network"), RiskLevel: "normal", RiskScore: 20,
				SellerMessage: strp("The payment failed."), Type: "issuer_declined"}
		default:
			ch.Outcome = &Outcome{NetworkStatus: strp("approved_by_network"), RiskLevel: "normal", RiskScore: 32,
				SellerMessage: strp("Payment complete."), Type: "authorized"}
		}
		switch {
		case sc.BalanceTransactionID != nil && *sc.BalanceTransactionID != "":
			if b.balanceTransaction(*sc.BalanceTransactionID) == nil {
				return twins.SeedErrorf(path+"/balance_transaction_id", "no balance transaction %q in /balance_transactions", *sc.BalanceTransactionID)
			}
			ch.BalanceTransaction = *sc.BalanceTransactionID
		case sc.Status == "succeeded" && captured && sc.AmountCaptured > 0:
			// A settled charge always has its ledger entry.
			txn := b.w.chargeTransaction(b.ctx, ch, sc.AmountCaptured, true)
			txn.Created, txn.AvailableOn, txn.Source = ch.Created, ch.Created, pi.ID
			ch.BalanceTransaction = txn.ID
		}
		b.w.Charges = append(b.w.Charges, ch)
		b.chargeOf[ch.ID] = pi.ID
	}
	return nil
}

// links checks that every PaymentIntent's latest_charge_id names one of
// its seeded charges, and sets what the PaymentIntent reads of it.
func (b *originalBuilder) links(s *OriginalSeed) error {
	for i, pi := range b.w.PaymentIntents {
		path := twins.Pointer("payment_intents", i, "latest_charge_id")
		id := refOf(pi.LatestCharge)
		if id == "" {
			continue
		}
		ch := b.w.charge(id)
		if ch == nil {
			return twins.SeedErrorf(path, "no charge %q in /charges", id)
		}
		if b.chargeOf[id] != pi.ID {
			return twins.SeedErrorf(path, "charge %q belongs to PaymentIntent %q", id, b.chargeOf[id])
		}
		if pi.Status == statusSucceeded {
			pi.AmountReceived = ch.AmountCaptured
		}
		if pi.Status == statusRequiresCapture {
			pi.AmountCapturable = ch.Amount
		}
	}
	return nil
}

var originalRefundStatuses = []string{"succeeded", "pending", "failed", "canceled"}

func (b *originalBuilder) refunds(s *OriginalSeed) error {
	counted := map[string]int64{}
	for i, sr := range s.Refunds {
		path := twins.Pointer("refunds", i)
		if err := b.sameAccount(path+"/account_id", sr.AccountID); err != nil {
			return err
		}
		ch := b.w.charge(sr.ChargeID)
		if ch == nil {
			return twins.SeedErrorf(path+"/charge_id", "no charge %q in /charges", sr.ChargeID)
		}
		if sr.PaymentIntentID != "" && sr.PaymentIntentID != refOf(ch.PaymentIntent) {
			return twins.SeedErrorf(path+"/payment_intent_id", "charge %q belongs to PaymentIntent %q", ch.ID, refOf(ch.PaymentIntent))
		}
		currency, err := checkCurrency("currency", sr.Currency)
		if err != nil || currency != ch.Currency {
			return twins.SeedErrorf(path+"/currency", "currency %q is not its charge's %q", sr.Currency, ch.Currency)
		}
		if !statusIn(sr.Status, originalRefundStatuses) {
			return twins.SeedErrorf(path+"/status", "unknown status %q (one of %s)", sr.Status, strings.Join(originalRefundStatuses, ", "))
		}
		if sr.IdempotencyKey != nil {
			return twins.SeedErrorf(path+"/idempotency_key", "a seeded refund cannot carry the idempotency key it was created with; omit it or set it to null")
		}
		reason := ""
		if sr.Reason != nil {
			reason = *sr.Reason
		}
		switch reason {
		case "", "duplicate", "fraudulent", "requested_by_customer":
		default:
			return twins.SeedErrorf(path+"/reason", "unknown reason %q", reason)
		}
		if sr.Amount < 1 {
			return twins.SeedErrorf(path+"/amount", "amount must be a positive integer")
		}
		if sr.Status == "succeeded" || sr.Status == "pending" {
			counted[ch.ID] += sr.Amount
			if counted[ch.ID] > ch.AmountRefunded {
				return twins.SeedErrorf(path+"/amount", "the refunds on charge %q come to %d, more than its amount_refunded %d: seeded refunds do not change their charge", ch.ID, counted[ch.ID], ch.AmountRefunded)
			}
		}
		t := b.created(sr.Created)
		re := &Refund{
			ID: sr.ID, Object: "refund", Amount: sr.Amount, Charge: ch.ID, Created: t, Currency: ch.Currency,
			DestinationDetails: map[string]any{"type": ch.PaymentMethodDetails.Type},
			Metadata:           map[string]string{}, PaymentIntent: ref(refOf(ch.PaymentIntent)), Reason: strp(reason), Status: sr.Status,
		}
		switch {
		case sr.BalanceTransactionID != nil && *sr.BalanceTransactionID != "":
			if b.balanceTransaction(*sr.BalanceTransactionID) == nil {
				return twins.SeedErrorf(path+"/balance_transaction_id", "no balance transaction %q in /balance_transactions", *sr.BalanceTransactionID)
			}
			re.BalanceTransaction = *sr.BalanceTransactionID
		case sr.Status == "succeeded":
			txn := &BalanceTransaction{
				ID: b.w.newID("txn"), Object: "balance_transaction", Amount: -sr.Amount, AvailableOn: t, BalanceType: "payments",
				Created: t, Currency: ch.Currency, Description: strp("REFUND FOR CHARGE"), FeeDetails: []FeeDetail{},
				Net: -sr.Amount, ReportingCategory: "refund", Source: re.ID, Status: "available", Type: "refund",
			}
			b.w.BalanceTransactions = append(b.w.BalanceTransactions, txn)
			re.BalanceTransaction = txn.ID
		}
		b.w.Refunds = append(b.w.Refunds, re)
	}
	return nil
}

func (b *originalBuilder) failureRules(s *OriginalSeed) error {
	faults := make([]SeedFault, len(s.FailureInjection))
	for i, r := range s.FailureInjection {
		path := twins.Pointer("failure_injection", i)
		when := ""
		switch r.Mode {
		case "", "after_handler":
			when = "after"
		case "before_handler":
			when = "before"
		default:
			return twins.SeedErrorf(path+"/mode", "mode is before_handler or after_handler")
		}
		if r.Attempt < 1 {
			return twins.SeedErrorf(path+"/attempt", "attempt counts from 1")
		}
		faults[i] = SeedFault{Method: strings.ToUpper(r.Method), Path: r.Path, Attempt: r.Attempt, When: when, Status: r.Status, Body: r.Body}
	}
	return b.faultList("failure_injection", faults)
}

// emptyWorld is a world with every collection present and empty.
func emptyWorld() *World {
	return &World{
		Counters: map[string]int64{}, Customers: []*Customer{}, PaymentMethods: []*PaymentMethod{},
		PaymentIntents: []*PaymentIntent{}, Charges: []*Charge{}, Refunds: []*Refund{}, Products: []*Product{},
		Prices: []*Price{}, BalanceTransactions: []*BalanceTransaction{}, Events: []*Event{},
		BalanceBase: BalanceBase{Available: map[string]int64{}, Pending: map[string]int64{}}, Faults: []*Fault{},
	}
}

// decodeMeta accepts the original's _meta block (its seed compiler's
// provenance): any JSON object, kept nowhere.
func decodeMeta(raw json.RawMessage) error {
	var meta map[string]json.RawMessage
	if err := json.Unmarshal(raw, &meta); err != nil || meta == nil {
		return twins.SeedErrorf("/_meta", "_meta is a JSON object")
	}
	return nil
}
