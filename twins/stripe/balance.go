package stripe

import (
	"context"
	"sort"

	"github.com/pomehq/pome/twins"
)

// RetrieveBalanceInput takes no parameters.
type RetrieveBalanceInput struct {
	Expand []string `json:"expand,omitempty"`
}

// ListBalanceTransactionsInput lists balance transactions.
type ListBalanceTransactionsInput struct {
	listParams
	Type     string `json:"type,omitempty" jsonschema:"only transactions of this type (charge, refund, …)"`
	Source   string `json:"source,omitempty" jsonschema:"only transactions of this source (ch_…, re_…)"`
	Currency string `json:"currency,omitempty"`
	Payout   string `json:"payout,omitempty"`
	Created  any    `json:"created,omitempty" jsonschema:"a unix timestamp or a range object with gt, gte, lt, lte"`
}

// RetrieveBalanceTransactionInput names a balance transaction.
type RetrieveBalanceTransactionInput struct {
	BalanceTransaction string   `json:"balance_transaction" jsonschema:"the balance transaction id (txn_…)"`
	Expand             []string `json:"expand,omitempty"`
}

// settled returns a copy of txn with its status as of t: funds become
// available on available_on by the sandbox clock.
func settled(txn *BalanceTransaction, t int64) *BalanceTransaction {
	c := *txn
	if c.AvailableOn <= t {
		c.Status = "available"
	} else {
		c.Status = "pending"
	}
	return &c
}

func retrieveBalance(ctx context.Context, w *World, in RetrieveBalanceInput) (Balance, error) {
	if len(in.Expand) > 0 {
		return Balance{}, invalidParam("expand", "", "This property cannot be expanded (%s).", in.Expand[0])
	}
	t := now(ctx)
	avail := map[string]int64{}
	pend := map[string]int64{}
	for c, v := range w.BalanceBase.Available {
		avail[c] += v
	}
	for c, v := range w.BalanceBase.Pending {
		pend[c] += v
	}
	for _, txn := range w.BalanceTransactions {
		if txn.AvailableOn <= t {
			avail[txn.Currency] += txn.Net
		} else {
			pend[txn.Currency] += txn.Net
		}
	}
	// Stripe always lists the default currency, even at zero.
	if _, ok := avail["usd"]; !ok {
		avail["usd"] = 0
	}
	if _, ok := pend["usd"]; !ok {
		pend["usd"] = 0
	}
	amounts := func(m map[string]int64) []BalanceAmount {
		out := []BalanceAmount{}
		for c, v := range m {
			out = append(out, BalanceAmount{Amount: v, Currency: c, SourceTypes: map[string]int64{"card": v}})
		}
		sort.Slice(out, func(i, j int) bool { return out[i].Currency < out[j].Currency })
		return out
	}
	return Balance{
		Object: "balance", Available: amounts(avail), Pending: amounts(pend),
		ConnectReserved: []BalanceAmount{{Amount: 0, Currency: "usd"}},
	}, nil
}

func listBalanceTransactions(ctx context.Context, w *World, in ListBalanceTransactionsInput) (List[*BalanceTransaction], error) {
	created, err := parseRange("created", in.Created)
	if err != nil {
		return List[*BalanceTransaction]{}, err
	}
	t := now(ctx)
	var items []*BalanceTransaction
	for _, txn := range w.BalanceTransactions {
		if (in.Type != "" && txn.Type != in.Type) || (in.Source != "" && refOf(txn.Source) != in.Source) ||
			(in.Currency != "" && txn.Currency != in.Currency) || in.Payout != "" || !created.contains(txn.Created) {
			continue
		}
		items = append(items, settled(txn, t))
	}
	items = newestFirst(items, func(b *BalanceTransaction) int64 { return b.Created })
	return paginate(w, items, func(b *BalanceTransaction) string { return b.ID }, in.listParams, "/v1/balance_transactions", "balance transaction", expander[BalanceTransaction](w))
}

func retrieveBalanceTransaction(ctx context.Context, w *World, in RetrieveBalanceTransactionInput) (*BalanceTransaction, error) {
	txn := w.balanceTransaction(in.BalanceTransaction)
	if txn == nil {
		return nil, noSuch("balance transaction", in.BalanceTransaction, "id")
	}
	return expanded(w, settled(txn, now(ctx)), in.Expand)
}

func balanceActions() []twins.Action {
	return []twins.Action{
		twins.New(twins.Spec{
			Name: "retrieve_balance", Title: "Retrieve the balance",
			Description: "Retrieve the account balance: available and pending amounts per currency. Card payments are pending for two days of the sandbox clock, refunds are deducted at once.",
			Effect:      twins.Read,
			Bindings:    []twins.Binding{{Method: "GET", Path: "/v1/balance"}},
		}, retrieveBalance),
		twins.New(twins.Spec{
			Name: "list_balance_transactions", Title: "List balance transactions",
			Description: "List balance transactions (charges, refunds), newest first, optionally by type or source.",
			Effect:      twins.Read,
			Bindings:    []twins.Binding{{Method: "GET", Path: "/v1/balance_transactions"}},
		}, listBalanceTransactions),
		twins.New(twins.Spec{
			Name: "retrieve_balance_transaction", Title: "Retrieve a balance transaction",
			Description: "Retrieve a balance transaction by id.",
			Effect:      twins.Read,
			Bindings:    []twins.Binding{{Method: "GET", Path: "/v1/balance_transactions/{balance_transaction}"}},
		}, retrieveBalanceTransaction),
	}
}
