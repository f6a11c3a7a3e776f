package stripe_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/pomehq/pome/rest/resttest"
	"github.com/pomehq/pome/tape"
	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/stripe"
	sg "github.com/stripe/stripe-go/v82"
)

// sdk returns a stripe-go client pointed at the twin of a fresh sandbox.
func sdk(t *testing.T, seed string) (*sg.Client, *resttest.Env) {
	t.Helper()
	env := resttest.Start(t, stripe.New(), seed)
	return client(t, env, 0), env
}

// client builds a stripe-go client for env the way users configure it: the
// backend URL is the server's root, and the sk_test_ key (which names the
// sandbox) routes each /v1/… request to this sandbox's twin.
func client(t *testing.T, env *resttest.Env, retries int64) *sg.Client {
	t.Helper()
	backends := sg.NewBackendsWithConfig(&sg.BackendConfig{
		URL:               sg.String(env.HTTP.URL),
		MaxNetworkRetries: sg.Int64(retries),
		LeveledLogger:     &sg.LeveledLogger{Level: sg.LevelNull},
	})
	return sg.NewClient(env.Token, sg.WithBackends(backends))
}

var ctx = context.Background()

// stripeErr asserts err is a Stripe API error with the given status and code.
func stripeErr(t *testing.T, err error, status int, code sg.ErrorCode) *sg.Error {
	t.Helper()
	var se *sg.Error
	if !errors.As(err, &se) {
		t.Fatalf("want a Stripe error %d %s, got %v", status, code, err)
	}
	if se.HTTPStatusCode != status || se.Code != code {
		t.Fatalf("want %d %s, got %d %s: %s", status, code, se.HTTPStatusCode, se.Code, se.Msg)
	}
	return se
}

func cardOnly() []*string { return []*string{sg.String("card")} }

func TestSDKCustomers(t *testing.T) {
	sc, env := sdk(t, "")
	// The default world holds one customer.
	found := 0
	for c, err := range sc.V1Customers.List(ctx, &sg.CustomerListParams{Email: sg.String("alice@example.com")}) {
		if err != nil {
			t.Fatal(err)
		}
		found++
		if c.Object != "customer" || !strings.HasPrefix(c.ID, "cus_") || c.Livemode {
			t.Errorf("customer %+v", c)
		}
	}
	if found != 1 {
		t.Fatalf("alice found %d times", found)
	}
	params := &sg.CustomerCreateParams{Email: sg.String("bob@example.com"), Name: sg.String("Bob Builder")}
	params.AddMetadata("tier", "gold")
	bob, err := sc.V1Customers.Create(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	if bob.Email != "bob@example.com" || bob.Metadata["tier"] != "gold" || bob.Created == 0 {
		t.Fatalf("created %+v", bob)
	}
	up := &sg.CustomerUpdateParams{Description: sg.String("builds things")}
	up.AddMetadata("tier", "")
	up.AddMetadata("team", "b")
	bob, err = sc.V1Customers.Update(ctx, bob.ID, up)
	if err != nil {
		t.Fatal(err)
	}
	if bob.Description != "builds things" || bob.Metadata["team"] != "b" || bob.Metadata["tier"] != "" {
		t.Fatalf("updated %+v", bob)
	}
	// Search by exact email and by name substring.
	var hits []string
	for c, err := range sc.V1Customers.Search(ctx, &sg.CustomerSearchParams{SearchParams: sg.SearchParams{Query: "name~'build'"}}) {
		if err != nil {
			t.Fatal(err)
		}
		hits = append(hits, c.ID)
	}
	if len(hits) != 1 || hits[0] != bob.ID {
		t.Errorf("search hits %v", hits)
	}
	del, err := sc.V1Customers.Delete(ctx, bob.ID, nil)
	if err != nil || !del.Deleted {
		t.Fatalf("delete: %+v %v", del, err)
	}
	got, err := sc.V1Customers.Retrieve(ctx, bob.ID, nil)
	if err != nil || !got.Deleted {
		t.Fatalf("retrieve deleted: %+v %v", got, err)
	}
	_, err = sc.V1Customers.Retrieve(ctx, "cus_nope", nil)
	se := stripeErr(t, err, 404, sg.ErrorCodeResourceMissing)
	if se.Msg != "No such customer: 'cus_nope'" || se.Type != sg.ErrorTypeInvalidRequest {
		t.Errorf("404: %+v", se)
	}
	var types []string
	for e, err := range sc.V1Events.List(ctx, &sg.EventListParams{Type: sg.String("customer.*")}) {
		if err != nil {
			t.Fatal(err)
		}
		types = append(types, string(e.Type))
	}
	if strings.Join(types, ",") != "customer.deleted,customer.updated,customer.created" {
		t.Errorf("events %v", types)
	}
	// Every call was taped with the action the MCP server would use.
	var tools []string
	for _, r := range env.Tape(t) {
		tools = append(tools, r.ToolName())
	}
	if tools[1] != "create_customer" || tools[2] != "update_customer" {
		t.Errorf("tape tools %v", tools)
	}
}

func TestSDKAutoPagination(t *testing.T) {
	var cs []string
	for i := 0; i < 24; i++ {
		cs = append(cs, fmt.Sprintf(`{"email":"c%02d@example.com","created":%d}`, i, 1700000000+i))
	}
	sc, env := sdk(t, `{"customers":[`+strings.Join(cs, ",")+`]}`)
	var seen []string
	for c, err := range sc.V1Customers.List(ctx, &sg.CustomerListParams{ListParams: sg.ListParams{Limit: sg.Int64(5)}}) {
		if err != nil {
			t.Fatal(err)
		}
		seen = append(seen, c.Email)
	}
	if len(seen) != 24 || seen[0] != "c23@example.com" || seen[23] != "c00@example.com" {
		t.Fatalf("auto-pagination saw %d: %v", len(seen), seen)
	}
	pages := 0
	for _, r := range env.Tape(t) {
		if r.ToolName() == "list_customers" {
			pages++
		}
	}
	if pages != 5 {
		t.Errorf("%d list calls, want 5 pages of 5", pages)
	}
}

func TestSDKPaymentIntentCards(t *testing.T) {
	sc, _ := sdk(t, "")
	cases := []struct {
		pm      string
		status  sg.PaymentIntentStatus
		code    sg.ErrorCode
		decline sg.DeclineCode
	}{
		{"pm_card_visa", sg.PaymentIntentStatusSucceeded, "", ""},
		{"pm_card_mastercard", sg.PaymentIntentStatusSucceeded, "", ""},
		{"pm_card_chargeDeclined", "", sg.ErrorCodeCardDeclined, "generic_decline"},
		{"pm_card_chargeDeclinedInsufficientFunds", "", sg.ErrorCodeCardDeclined, "insufficient_funds"},
		{"pm_card_authenticationRequired", sg.PaymentIntentStatusRequiresAction, "", ""},
	}
	for _, c := range cases {
		t.Run(c.pm, func(t *testing.T) {
			pi, err := sc.V1PaymentIntents.Create(ctx, &sg.PaymentIntentCreateParams{
				Amount: sg.Int64(2500), Currency: sg.String(string(sg.CurrencyUSD)),
				PaymentMethod: sg.String(c.pm), Confirm: sg.Bool(true), PaymentMethodTypes: cardOnly(),
			})
			if c.code != "" {
				se := stripeErr(t, err, 402, c.code)
				if se.Type != sg.ErrorTypeCard || se.DeclineCode != c.decline || se.PaymentIntent == nil ||
					se.PaymentIntent.Status != sg.PaymentIntentStatusRequiresPaymentMethod || se.PaymentIntent.LastPaymentError == nil ||
					se.ChargeID == "" {
					t.Fatalf("decline: %+v", se)
				}
				// The PaymentIntent exists and remembers the failure.
				got, err := sc.V1PaymentIntents.Retrieve(ctx, se.PaymentIntent.ID, &sg.PaymentIntentRetrieveParams{Params: sg.Params{Expand: []*string{sg.String("latest_charge")}}})
				if err != nil {
					t.Fatal(err)
				}
				if got.LastPaymentError.DeclineCode != c.decline || got.LatestCharge.Status != sg.ChargeStatusFailed || got.LatestCharge.FailureCode != string(c.code) {
					t.Errorf("after decline: %+v / %+v", got.LastPaymentError, got.LatestCharge)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if pi.Status != c.status {
				t.Fatalf("status %s, want %s", pi.Status, c.status)
			}
			if c.status == sg.PaymentIntentStatusRequiresAction && (pi.NextAction == nil || pi.NextAction.Type != "use_stripe_sdk") {
				t.Errorf("next_action %+v", pi.NextAction)
			}
		})
	}
}

func TestSDKPaymentIntentStateMachine(t *testing.T) {
	sc, _ := sdk(t, "")
	var alice *sg.Customer
	for c, err := range sc.V1Customers.List(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		alice = c
	}
	pm, err := sc.V1PaymentMethods.Create(ctx, &sg.PaymentMethodCreateParams{
		Type: sg.String("card"),
		Card: &sg.PaymentMethodCreateCardParams{Number: sg.String("4242424242424242"), ExpMonth: sg.Int64(12), ExpYear: sg.Int64(2034), CVC: sg.String("123")},
	})
	if err != nil {
		t.Fatal(err)
	}
	if pm.Card.Last4 != "4242" || pm.Card.Brand != "visa" {
		t.Fatalf("payment method %+v", pm.Card)
	}
	if pm, err = sc.V1PaymentMethods.Attach(ctx, pm.ID, &sg.PaymentMethodAttachParams{Customer: sg.String(alice.ID)}); err != nil || pm.Customer.ID != alice.ID {
		t.Fatalf("attach: %v", err)
	}
	n := 0
	for p, err := range sc.V1Customers.ListPaymentMethods(ctx, &sg.CustomerListPaymentMethodsParams{Customer: sg.String(alice.ID)}) {
		if err != nil {
			t.Fatal(err)
		}
		n++
		if p.ID != pm.ID {
			t.Errorf("listed %s", p.ID)
		}
	}
	if n != 1 {
		t.Fatalf("%d payment methods", n)
	}
	// A declining card cannot be attached.
	_, err = sc.V1PaymentMethods.Attach(ctx, "pm_card_chargeDeclined", &sg.PaymentMethodAttachParams{Customer: sg.String(alice.ID)})
	stripeErr(t, err, 402, sg.ErrorCodeCardDeclined)

	pi, err := sc.V1PaymentIntents.Create(ctx, &sg.PaymentIntentCreateParams{
		Amount: sg.Int64(10000), Currency: sg.String("usd"), Customer: sg.String(alice.ID),
		CaptureMethod: sg.String("manual"), PaymentMethodTypes: cardOnly(),
	})
	if err != nil || pi.Status != sg.PaymentIntentStatusRequiresPaymentMethod {
		t.Fatalf("create: %v %v", pi, err)
	}
	if pi, err = sc.V1PaymentIntents.Update(ctx, pi.ID, &sg.PaymentIntentUpdateParams{PaymentMethod: sg.String(pm.ID)}); err != nil || pi.Status != sg.PaymentIntentStatusRequiresConfirmation {
		t.Fatalf("update: %v %v", pi, err)
	}
	if pi, err = sc.V1PaymentIntents.Confirm(ctx, pi.ID, nil); err != nil || pi.Status != sg.PaymentIntentStatusRequiresCapture || pi.AmountCapturable != 10000 {
		t.Fatalf("confirm: %v %v", pi, err)
	}
	pi, err = sc.V1PaymentIntents.Capture(ctx, pi.ID, &sg.PaymentIntentCaptureParams{AmountToCapture: sg.Int64(6000), Params: sg.Params{Expand: []*string{sg.String("latest_charge")}}})
	if err != nil || pi.Status != sg.PaymentIntentStatusSucceeded || pi.AmountReceived != 6000 {
		t.Fatalf("capture: %v %v", pi, err)
	}
	if ch := pi.LatestCharge; ch.AmountCaptured != 6000 || !ch.Captured || ch.AmountRefunded != 4000 || ch.Refunded {
		t.Fatalf("partially captured charge %+v", ch)
	}
	// Partial refund, then refusal of more than remains.
	re, err := sc.V1Refunds.Create(ctx, &sg.RefundCreateParams{PaymentIntent: sg.String(pi.ID), Amount: sg.Int64(2500)})
	if err != nil || re.Amount != 2500 || re.Status != sg.RefundStatusSucceeded || re.Charge.ID != pi.LatestCharge.ID {
		t.Fatalf("refund: %+v %v", re, err)
	}
	_, err = sc.V1Refunds.Create(ctx, &sg.RefundCreateParams{PaymentIntent: sg.String(pi.ID), Amount: sg.Int64(3501)})
	se := stripeErr(t, err, 400, sg.ErrorCodeAmountTooLarge)
	if se.Param != "amount" {
		t.Errorf("param %q", se.Param)
	}
	if _, err = sc.V1Refunds.Create(ctx, &sg.RefundCreateParams{Charge: sg.String(pi.LatestCharge.ID)}); err != nil {
		t.Fatal(err)
	}
	ch, err := sc.V1Charges.Retrieve(ctx, pi.LatestCharge.ID, nil)
	if err != nil || !ch.Refunded || ch.AmountRefunded != 10000 {
		t.Fatalf("charge after refunds %+v %v", ch, err)
	}
	_, err = sc.V1Refunds.Create(ctx, &sg.RefundCreateParams{Charge: sg.String(ch.ID)})
	stripeErr(t, err, 400, sg.ErrorCodeChargeAlreadyRefunded)
	var refunds []int64
	for r, err := range sc.V1Refunds.List(ctx, &sg.RefundListParams{PaymentIntent: sg.String(pi.ID)}) {
		if err != nil {
			t.Fatal(err)
		}
		refunds = append(refunds, r.Amount)
	}
	if fmt.Sprint(refunds) != "[3500 2500]" {
		t.Errorf("refunds %v", refunds)
	}
	// A refund's metadata is the one thing an update may change.
	up := &sg.RefundUpdateParams{}
	up.AddMetadata("ticket", "T-88")
	if re, err = sc.V1Refunds.Update(ctx, re.ID, up); err != nil || re.Metadata["ticket"] != "T-88" || re.Amount != 2500 {
		t.Fatalf("update refund: %+v %v", re, err)
	}
	_, err = sc.V1Refunds.Update(ctx, "re_missing", up)
	stripeErr(t, err, 404, sg.ErrorCodeResourceMissing)
	bad := &sg.RefundUpdateParams{}
	bad.AddExtra("amount", "1")
	_, err = sc.V1Refunds.Update(ctx, re.ID, bad)
	if se := stripeErr(t, err, 400, sg.ErrorCodeParameterUnknown); se.Param != "amount" {
		t.Errorf("update refund amount: param %q", se.Param)
	}
	if again, err := sc.V1Refunds.Retrieve(ctx, re.ID, nil); err != nil || again.Amount != 2500 || again.Metadata["ticket"] != "T-88" {
		t.Fatalf("refund after refused update: %+v %v", again, err)
	}
	// Cancel refuses a succeeded PaymentIntent.
	_, err = sc.V1PaymentIntents.Cancel(ctx, pi.ID, nil)
	stripeErr(t, err, 400, sg.ErrorCodePaymentIntentUnexpectedState)

	if _, err = sc.V1PaymentMethods.Detach(ctx, pm.ID, nil); err != nil {
		t.Fatal(err)
	}
	var seen []string
	for e, err := range sc.V1Events.List(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		seen = append(seen, string(e.Type))
	}
	for _, want := range []string{"payment_method.attached", "payment_intent.created", "payment_intent.amount_capturable_updated",
		"charge.succeeded", "charge.captured", "payment_intent.succeeded", "refund.created", "charge.refunded", "payment_method.detached"} {
		if !strings.Contains(strings.Join(seen, ","), want) {
			t.Errorf("no %s event in %v", want, seen)
		}
	}
}

func TestSDKSearchExpandBalance(t *testing.T) {
	sc, _ := sdk(t, `{"customers":[{"id":"cus_alice","email":"alice@example.com","name":"Alice"}],
		"payment_methods":[{"id":"pm_alice","card":"4242424242424242","customer":"cus_alice"}],
		"payment_intents":[{"id":"pi_paid","amount":5000,"currency":"usd","customer":"cus_alice","payment_method":"pm_alice","status":"succeeded","metadata":{"order_id":"1001"}}],
		"balance":{"available":[{"amount":100000,"currency":"usd"}]}}`)
	var ids []string
	for pi, err := range sc.V1PaymentIntents.Search(ctx, &sg.PaymentIntentSearchParams{SearchParams: sg.SearchParams{Query: "metadata['order_id']:'1001' AND status:'succeeded'"}}) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, pi.ID)
	}
	if fmt.Sprint(ids) != "[pi_paid]" {
		t.Fatalf("search %v", ids)
	}
	pi, err := sc.V1PaymentIntents.Retrieve(ctx, "pi_paid", &sg.PaymentIntentRetrieveParams{Params: sg.Params{Expand: []*string{sg.String("customer"), sg.String("payment_method"), sg.String("latest_charge.balance_transaction")}}})
	if err != nil {
		t.Fatal(err)
	}
	if pi.Customer.Email != "alice@example.com" || pi.PaymentMethod.Card.Last4 != "4242" || pi.LatestCharge.BalanceTransaction.Fee != 175 {
		t.Fatalf("expanded %+v %+v %+v", pi.Customer, pi.PaymentMethod, pi.LatestCharge)
	}
	bal, err := sc.V1Balance.Retrieve(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if bal.Available[0].Amount != 100000 || bal.Pending[0].Amount != 5000-175 {
		t.Errorf("balance %+v %+v", bal.Available[0], bal.Pending[0])
	}
	n := 0
	for txn, err := range sc.V1BalanceTransactions.List(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		if txn.Type != "charge" || txn.Status != "pending" {
			t.Errorf("txn %+v", txn)
		}
		n++
	}
	if n != 1 {
		t.Errorf("%d balance transactions", n)
	}
	prod, err := sc.V1Products.Create(ctx, &sg.ProductCreateParams{Name: sg.String("T-shirt"), DefaultPriceData: &sg.ProductCreateDefaultPriceDataParams{Currency: sg.String("usd"), UnitAmount: sg.Int64(2000)}})
	if err != nil || prod.DefaultPrice == nil {
		t.Fatalf("product %+v %v", prod, err)
	}
	price, err := sc.V1Prices.Create(ctx, &sg.PriceCreateParams{Product: sg.String(prod.ID), Currency: sg.String("usd"), UnitAmount: sg.Int64(900),
		Recurring: &sg.PriceCreateRecurringParams{Interval: sg.String("month")}})
	if err != nil || price.Type != sg.PriceTypeRecurring || price.Recurring.Interval != "month" {
		t.Fatalf("price %+v %v", price, err)
	}
	var prices []int64
	for p, err := range sc.V1Prices.List(ctx, &sg.PriceListParams{Product: sg.String(prod.ID)}) {
		if err != nil {
			t.Fatal(err)
		}
		prices = append(prices, p.UnitAmount)
	}
	if fmt.Sprint(prices) != "[900 2000]" {
		t.Errorf("prices %v", prices)
	}
}

func TestSDKStrictParamsAndErrors(t *testing.T) {
	_, env := sdk(t, "")
	status, body := env.Do(t, "POST", "/v1/customers", "application/x-www-form-urlencoded", []byte("email=x@example.com&colour=red"))
	var e struct {
		Error map[string]any `json:"error"`
	}
	_ = json.Unmarshal(body, &e)
	if status != 400 || e.Error["type"] != "invalid_request_error" || e.Error["param"] != "colour" || e.Error["message"] != "Received unknown parameter: colour" {
		t.Errorf("unknown param: %d %s", status, body)
	}
	status, body = env.Do(t, "POST", "/v1/payment_intents", "application/x-www-form-urlencoded", []byte("currency=usd"))
	_ = json.Unmarshal(body, &e)
	if status != 400 || e.Error["code"] != "parameter_missing" || e.Error["param"] != "amount" {
		t.Errorf("missing param: %d %s", status, body)
	}
	status, body = env.Do(t, "POST", "/v1/payment_intents", "application/x-www-form-urlencoded",
		[]byte("amount=2000&currency=usd&payment_method=pm_card_chargeDeclined&confirm=true&payment_method_types[0]=card&metadata[order]=7"))
	_ = json.Unmarshal(body, &e)
	if status != 402 || e.Error["type"] != "card_error" || e.Error["decline_code"] != "generic_decline" || e.Error["payment_intent"] == nil {
		t.Errorf("decline: %d %s", status, body)
	}
	// The decline is kept: the failed charge and the events are in the state.
	var st struct {
		Charges []struct{ Status string } `json:"charges"`
		Events  []struct{ Type string }   `json:"events"`
	}
	if err := json.Unmarshal(env.State(t), &st); err != nil {
		t.Fatal(err)
	}
	if len(st.Charges) != 1 || st.Charges[0].Status != "failed" {
		t.Errorf("state charges %+v (a decline must be committed)", st.Charges)
	}
	rows := env.Tape(t)
	last := rows[len(rows)-1]
	if last.Status != 402 || last.ToolName() != "create_payment_intent" {
		t.Errorf("tape row %d %s", last.Status, last.ToolName())
	}
	tw := stripe.New()
	chk, _ := tw.Check("stripe.request-rejected-with-code")
	for _, code := range []string{"card_declined", "generic_decline", "card_error", "parameter_unknown"} {
		res, err := chk.Evaluate(&twins.Input{Twin: tw, Tape: rows}, map[string]string{"code": code})
		if err != nil || !res.Passed {
			t.Errorf("request-rejected-with-error %s: %+v %v", code, res, err)
		}
	}
}

func TestMCPRoundTrip(t *testing.T) {
	_, env := sdk(t, "")
	cs := env.MCP(t)
	text, isErr := resttest.CallTool(t, cs, "create_customer", map[string]any{"email": "carol@example.com", "name": "Carol"})
	if isErr {
		t.Fatalf("create_customer: %s", text)
	}
	var cus map[string]any
	_ = json.Unmarshal([]byte(text), &cus)
	if cus["object"] != "customer" || cus["email"] != "carol@example.com" {
		t.Fatalf("customer %v", cus)
	}
	text, isErr = resttest.CallTool(t, cs, "create_payment_intent", map[string]any{
		"amount": 1200, "currency": "usd", "customer": cus["id"], "payment_method": "pm_card_chargeDeclinedInsufficientFunds",
		"confirm": true, "payment_method_types": []string{"card"},
	})
	if !isErr || !strings.Contains(text, "insufficient_funds") {
		t.Fatalf("decline over MCP: %v %s", isErr, text)
	}
	text, isErr = resttest.CallTool(t, cs, "list_payment_intents", map[string]any{"customer": cus["id"]})
	var list map[string]any
	_ = json.Unmarshal([]byte(text), &list)
	if isErr || len(list["data"].([]any)) != 1 {
		t.Fatalf("list over MCP: %s", text)
	}
	pi := list["data"].([]any)[0].(map[string]any)
	text, isErr = resttest.CallTool(t, cs, "confirm_payment_intent", map[string]any{"payment_intent": pi["id"], "payment_method": "pm_card_visa"})
	if isErr || !strings.Contains(text, `"status":"succeeded"`) {
		t.Fatalf("confirm over MCP: %s", text)
	}
	text, isErr = resttest.CallTool(t, cs, "create_refund", map[string]any{"payment_intent": pi["id"], "amount": 200})
	if isErr || !strings.Contains(text, `"amount":200`) {
		t.Fatalf("refund over MCP: %s", text)
	}
	// The same operation over REST and MCP is taped with the same tool.
	sc := client(t, env, 0)
	if _, err := sc.V1Refunds.Create(ctx, &sg.RefundCreateParams{PaymentIntent: sg.String(pi["id"].(string)), Amount: sg.Int64(300)}); err != nil {
		t.Fatal(err)
	}
	var refundRows []tape.Row
	for _, r := range env.Tape(t) {
		if r.ToolName() == "create_refund" {
			refundRows = append(refundRows, r)
		}
	}
	if len(refundRows) != 2 || refundRows[0].Transport != tape.TransportMCP || refundRows[1].Transport != tape.TransportREST ||
		!refundRows[0].StateMutation || !refundRows[1].StateMutation {
		t.Fatalf("refund rows %+v", refundRows)
	}
	tw := stripe.New()
	chk, _ := tw.Check("stripe.request-rejected-with-code")
	res, err := chk.Evaluate(&twins.Input{Twin: tw, Tape: env.Tape(t)}, map[string]string{"code": "insufficient_funds"})
	if err != nil || !res.Passed {
		t.Errorf("MCP rejection not seen by the tape check: %+v %v", res, err)
	}
}

func TestRESTWireDetails(t *testing.T) {
	_, env := sdk(t, `{"customers":[{"id":"cus_alice","email":"alice@example.com","metadata":{"a":"1","b":"2"}}]}`)
	// Basic auth with the key as user, as curl -u sk_test_…: sends it.
	req, _ := http.NewRequest("GET", env.APIURL+"/v1/customers?limit=1&email=alice%40example.com", nil)
	req.SetBasicAuth(env.Token, "")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var list map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&list)
	resp.Body.Close()
	if resp.StatusCode != 200 || list["object"] != "list" || list["url"] != "/v1/customers" || len(list["data"].([]any)) != 1 {
		t.Fatalf("basic auth list: %d %v", resp.StatusCode, list)
	}
	// Form updates: an empty metadata value deletes the key.
	status, body := env.Do(t, "POST", "/v1/customers/cus_alice", "application/x-www-form-urlencoded", []byte("metadata[a]=&metadata[c]=3&name=Alice+A"))
	var c map[string]any
	_ = json.Unmarshal(body, &c)
	md, _ := c["metadata"].(map[string]any)
	if status != 200 || c["name"] != "Alice A" || md["a"] != nil || md["b"] != "2" || md["c"] != "3" {
		t.Fatalf("form update: %d %s", status, body)
	}
	// A JSON body works too (what MCP bridges and some clients send).
	status, body = env.Do(t, "POST", "/v1/payment_intents", "application/json",
		[]byte(`{"amount":1999,"currency":"usd","customer":"cus_alice","payment_method_types":["card"]}`))
	if status != 200 || !strings.Contains(string(body), `"status":"requires_payment_method"`) {
		t.Fatalf("JSON create: %d %s", status, body)
	}
	// Nested list parameters and range filters from the query string.
	status, body = env.Do(t, "GET", "/v1/payment_intents?customer=cus_alice&created[gte]=0&expand[]=data.customer", "", nil)
	if status != 200 || !strings.Contains(string(body), `"email":"alice@example.com"`) {
		t.Fatalf("expand in a query: %d %s", status, body)
	}
	// Unknown routes answer Stripe's 404 and are taped as unsupported.
	status, body = env.Do(t, "GET", "/v1/checkout/sessions", "", nil)
	if status != 404 || !strings.Contains(string(body), `"message":"Unrecognized request URL (GET: /v1/checkout/sessions).`) {
		t.Errorf("unsupported path: %d %s", status, body)
	}
	tw := stripe.New()
	chk, _ := tw.Check("stripe.no-unsupported-endpoint")
	if res, _ := chk.Evaluate(&twins.Input{Twin: tw, Tape: env.Tape(t)}, map[string]string{}); res.Passed {
		t.Error("the 501 is not on the tape")
	}
}

func TestSDKUpdateProductAndPrice(t *testing.T) {
	sc, _ := sdk(t, "")
	prod, err := sc.V1Products.Create(ctx, &sg.ProductCreateParams{Name: sg.String("Mug"), DefaultPriceData: &sg.ProductCreateDefaultPriceDataParams{Currency: sg.String("usd"), UnitAmount: sg.Int64(1200)}})
	if err != nil {
		t.Fatal(err)
	}
	up := &sg.ProductUpdateParams{Name: sg.String("Big mug"), Description: sg.String("holds more")}
	up.AddMetadata("size", "xl")
	prod, err = sc.V1Products.Update(ctx, prod.ID, up)
	if err != nil || prod.Name != "Big mug" || prod.Description != "holds more" || prod.Metadata["size"] != "xl" {
		t.Fatalf("product update: %+v %v", prod, err)
	}
	pp := &sg.PriceUpdateParams{Nickname: sg.String("Launch"), LookupKey: sg.String("mug")}
	price, err := sc.V1Prices.Update(ctx, prod.DefaultPrice.ID, pp)
	if err != nil || price.Nickname != "Launch" || price.LookupKey != "mug" || price.UnitAmount != 1200 {
		t.Fatalf("price update: %+v %v", price, err)
	}
	// Archiving needs the default price removed first, as at Stripe.
	_, err = sc.V1Products.Update(ctx, prod.ID, &sg.ProductUpdateParams{Active: sg.Bool(false)})
	stripeErr(t, err, 400, "")
	prod, err = sc.V1Products.Update(ctx, prod.ID, &sg.ProductUpdateParams{Active: sg.Bool(false), DefaultPrice: sg.String("")})
	if err != nil || prod.Active || prod.DefaultPrice != nil {
		t.Fatalf("archive: %+v %v", prod, err)
	}
	var types []string
	for e, err := range sc.V1Events.List(ctx, &sg.EventListParams{Types: []*string{sg.String("product.updated"), sg.String("price.updated")}}) {
		if err != nil {
			t.Fatal(err)
		}
		types = append(types, string(e.Type))
	}
	if strings.Join(types, ",") != "product.updated,price.updated,product.updated" {
		t.Errorf("events %v", types)
	}
}
