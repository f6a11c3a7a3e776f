package stripe

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// listParams are the pagination and expansion parameters every Stripe list
// accepts.
type listParams struct {
	Limit         *int64   `json:"limit,omitempty" jsonschema:"how many objects to return, 1 to 100 (default 10)"`
	StartingAfter string   `json:"starting_after,omitempty" jsonschema:"cursor: an object id; the page starts after it"`
	EndingBefore  string   `json:"ending_before,omitempty" jsonschema:"cursor: an object id; the page ends before it"`
	Expand        []string `json:"expand,omitempty" jsonschema:"fields to expand, prefixed data. (e.g. data.customer)"`
}

// paginate cuts one page out of items (already in list order, newest
// first) the way Stripe does: limit, starting_after, ending_before, and
// has_more meaning "more in the direction of travel". expand, when not nil,
// is applied to each item on the page with the "data." prefix removed.
func paginate[T any](w *World, items []T, idOf func(T) string, p listParams, url, kind string, expand func(T, []string) (T, error)) (List[T], error) {
	limit := int64(10)
	if p.Limit != nil {
		limit = *p.Limit
		if limit < 1 || limit > 100 {
			return List[T]{}, invalidParam("limit", "parameter_invalid_integer", "Invalid integer: %d. This value must be between 1 and 100.", limit)
		}
	}
	if p.StartingAfter != "" && p.EndingBefore != "" {
		return List[T]{}, invalidParam("ending_before", "", "You may only specify one of these parameters: ending_before, starting_after.")
	}
	var paths []string
	for _, e := range p.Expand {
		rest, ok := strings.CutPrefix(e, "data.")
		if !ok || expand == nil {
			return List[T]{}, invalidParam("expand", "", "This property cannot be expanded (%s). You may want to try expanding 'data.%s' instead.", e, e)
		}
		paths = append(paths, rest)
	}
	index := func(id string) int {
		for i, it := range items {
			if idOf(it) == id {
				return i
			}
		}
		return -1
	}
	var page []T
	hasMore := false
	switch {
	case p.StartingAfter != "":
		i := index(p.StartingAfter)
		if i < 0 {
			return List[T]{}, noSuch(kind, p.StartingAfter, "starting_after")
		}
		rest := items[i+1:]
		hasMore = int64(len(rest)) > limit
		page = rest[:min(int64(len(rest)), limit)]
	case p.EndingBefore != "":
		i := index(p.EndingBefore)
		if i < 0 {
			return List[T]{}, noSuch(kind, p.EndingBefore, "ending_before")
		}
		before := items[:i]
		start := max(int64(len(before))-limit, 0)
		hasMore = start > 0
		page = before[start:]
	default:
		hasMore = int64(len(items)) > limit
		page = items[:min(int64(len(items)), limit)]
	}
	out := make([]T, 0, len(page))
	for _, it := range page {
		if len(paths) > 0 {
			var err error
			if it, err = expand(it, paths); err != nil {
				return List[T]{}, err
			}
		}
		out = append(out, it)
	}
	return List[T]{Object: "list", Data: out, HasMore: hasMore, URL: url}, nil
}

// timeRange is a parsed created/available_on filter.
type timeRange struct {
	gt, gte, lt, lte *int64
}

func (r timeRange) contains(t int64) bool {
	return (r.gt == nil || t > *r.gt) && (r.gte == nil || t >= *r.gte) &&
		(r.lt == nil || t < *r.lt) && (r.lte == nil || t <= *r.lte)
}

// parseRange reads Stripe's range filter: a timestamp (equality) or an
// object with gt, gte, lt and lte. Form bodies deliver the numbers as
// strings, so both are accepted.
func parseRange(param string, v any) (timeRange, error) {
	var r timeRange
	if v == nil {
		return r, nil
	}
	num := func(name string, x any) (*int64, error) {
		switch t := x.(type) {
		case float64:
			if t != math.Trunc(t) {
				break
			}
			n := int64(t)
			return &n, nil
		case json.Number:
			if n, err := t.Int64(); err == nil {
				return &n, nil
			}
		case string:
			if n, err := strconv.ParseInt(t, 10, 64); err == nil {
				return &n, nil
			}
		}
		return nil, invalidParam(name, "parameter_invalid_integer", "Invalid integer: %v", x)
	}
	if m, ok := v.(map[string]any); ok {
		for k, x := range m {
			n, err := num(param+"["+k+"]", x)
			if err != nil {
				return r, err
			}
			switch k {
			case "gt":
				r.gt = n
			case "gte":
				r.gte = n
			case "lt":
				r.lt = n
			case "lte":
				r.lte = n
			default:
				return r, invalidParam(param+"["+k+"]", "parameter_unknown", "Received unknown parameter: %s[%s]", param, k)
			}
		}
		return r, nil
	}
	n, err := num(param, v)
	if err != nil {
		return r, err
	}
	r.gte, r.lte = n, n
	return r, nil
}

// expandField is one expandable reference of an object: where it is held
// and how to load the object it names.
type expandField struct {
	ptr     *any
	resolve func(id string) any
}

// expandable lists the expandable references of obj (a clone, never a world
// record).
func (w *World) expandable(obj any) map[string]expandField {
	cus := func(id string) any {
		if c := w.customer(id); c != nil {
			return clone(c)
		}
		return nil
	}
	pm := func(id string) any {
		if p := w.paymentMethod(id); p != nil {
			return clone(p)
		}
		return nil
	}
	ch := func(id string) any {
		if c := w.charge(id); c != nil {
			return clone(c)
		}
		return nil
	}
	pi := func(id string) any {
		if p := w.paymentIntent(id); p != nil {
			return clone(p)
		}
		return nil
	}
	txn := func(id string) any {
		if t := w.balanceTransaction(id); t != nil {
			return clone(t)
		}
		return nil
	}
	switch o := obj.(type) {
	case *PaymentIntent:
		return map[string]expandField{
			"customer": {&o.Customer, cus}, "payment_method": {&o.PaymentMethod, pm}, "latest_charge": {&o.LatestCharge, ch},
		}
	case *Charge:
		return map[string]expandField{
			"customer": {&o.Customer, cus}, "payment_intent": {&o.PaymentIntent, pi}, "balance_transaction": {&o.BalanceTransaction, txn},
		}
	case *Refund:
		return map[string]expandField{
			"charge": {&o.Charge, ch}, "payment_intent": {&o.PaymentIntent, pi}, "balance_transaction": {&o.BalanceTransaction, txn},
		}
	case *PaymentMethod:
		return map[string]expandField{"customer": {&o.Customer, cus}}
	case *Price:
		return map[string]expandField{"product": {&o.Product, func(id string) any {
			if p := w.product(id); p != nil {
				return clone(p)
			}
			return nil
		}}}
	case *Product:
		return map[string]expandField{"default_price": {&o.DefaultPrice, func(id string) any {
			if p := w.price(id); p != nil {
				return clone(p)
			}
			return nil
		}}}
	case *BalanceTransaction:
		return map[string]expandField{"source": {&o.Source, func(id string) any {
			if strings.HasPrefix(id, "re_") {
				if r := w.refund(id); r != nil {
					return clone(r)
				}
				return nil
			}
			return ch(id)
		}}}
	}
	return nil
}

// expandPaths replaces the references named by paths ("customer",
// "latest_charge.balance_transaction") in obj with the objects they name.
func (w *World) expandPaths(obj any, paths []string, prefix string) error {
	groups := map[string][]string{}
	var order []string
	for _, p := range paths {
		head, rest, _ := strings.Cut(p, ".")
		if _, seen := groups[head]; !seen {
			order = append(order, head)
		}
		if rest != "" {
			groups[head] = append(groups[head], rest)
		} else if groups[head] == nil {
			groups[head] = []string{}
		}
	}
	fields := w.expandable(obj)
	for _, head := range order {
		f, ok := fields[head]
		if !ok {
			return invalidParam("expand", "", "This property cannot be expanded (%s%s).", prefix, head)
		}
		id := refOf(*f.ptr)
		if id == "" {
			continue
		}
		target := f.resolve(id)
		if target == nil {
			continue
		}
		if rest := groups[head]; len(rest) > 0 {
			if err := w.expandPaths(target, rest, prefix+head+"."); err != nil {
				return err
			}
		}
		*f.ptr = target
	}
	return nil
}

// expanded returns a copy of obj with paths expanded; obj itself is left
// untouched.
func expanded[T any](w *World, obj *T, paths []string) (*T, error) {
	if len(paths) == 0 {
		return obj, nil
	}
	c := clone(obj)
	if err := w.expandPaths(c, paths, ""); err != nil {
		return nil, err
	}
	return c, nil
}

// expander adapts expanded to paginate's per-item hook.
func expander[T any](w *World) func(*T, []string) (*T, error) {
	return func(obj *T, paths []string) (*T, error) { return expanded(w, obj, paths) }
}

// amountString formats minor units for messages, e.g. 1050 usd → $10.50.
func amountString(amount int64, currency string) string {
	if zeroDecimal[currency] {
		return fmt.Sprintf("%d %s", amount, currency)
	}
	sym := map[string]string{"usd": "$", "eur": "€", "gbp": "£"}[currency]
	if sym == "" {
		return fmt.Sprintf("%d.%02d %s", amount/100, amount%100, currency)
	}
	return fmt.Sprintf("%s%d.%02d", sym, amount/100, amount%100)
}
