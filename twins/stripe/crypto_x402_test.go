package stripe_test

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/pomehq/pome/rest/resttest"
	"github.com/pomehq/pome/tape"
	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/stripe"
)

// send makes a request to the sandbox's Stripe surface with the issued key.
func send(t *testing.T, env *resttest.Env, method, path, contentType, body string, headers map[string]string) (int, http.Header, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(method, env.APIURL+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+env.Token)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out map[string]any
	_ = json.Unmarshal(raw, &out)
	return resp.StatusCode, resp.Header, out
}

func errCode(out map[string]any) string {
	e, _ := out["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}

const cryptoForm = "amount=10000&currency=usd&payment_method_types[0]=crypto&payment_method_options[crypto][mode]=deposit&payment_method_options[crypto][deposit_options][networks][0]=base"

// TestCryptoPaymentIntentREST: the crypto rail over REST, form-encoded as
// Stripe's SDKs send it and as JSON.
func TestCryptoPaymentIntentREST(t *testing.T) {
	env := resttest.Start(t, stripe.New(), "")
	form := "application/x-www-form-urlencoded"
	st, _, pi := send(t, env, "POST", "/v1/payment_intents", form, cryptoForm, nil)
	if st != 200 || pi["status"] != "requires_action" {
		t.Fatalf("create: %d %v", st, pi)
	}
	id := pi["id"].(string)
	na := pi["next_action"].(map[string]any)
	addr := na["crypto_display_details"].(map[string]any)["deposit_addresses"].(map[string]any)["base"].(map[string]any)["address"].(string)
	if na["type"] != "display_crypto_deposit_information" || len(addr) != 42 || !strings.HasPrefix(addr, "0x") {
		t.Errorf("next_action %v", na)
	}
	if st, _, again := send(t, env, "POST", "/v1/payment_intents/"+id+"/confirm", form, "", nil); st != 200 || again["status"] != "requires_action" {
		t.Errorf("confirm is a no-op on the crypto rail: %d %v", st, again)
	}
	if st, _, out := send(t, env, "POST", "/v1/payment_intents/"+id, form, "amount=500", nil); st != 400 || errCode(out) != "parameter_invalid_string" {
		t.Errorf("amount update: %d %v", st, out)
	}
	if st, _, out := send(t, env, "POST", "/v1/payment_intents/"+id, form, "metadata[order]=7", nil); st != 200 {
		t.Errorf("metadata update: %d %v", st, out)
	}
	st, _, done := send(t, env, "POST", "/v1/test_helpers/payment_intents/"+id+"/simulate_crypto_deposit", form, "", nil)
	if st != 200 || done["status"] != "succeeded" || done["latest_charge"] == nil || done["next_action"] != nil || done["amount_received"] != float64(10000) {
		t.Fatalf("simulate: %d %v", st, done)
	}
	st, _, ch := send(t, env, "GET", "/v1/charges/"+done["latest_charge"].(string), "", "", nil)
	if st != 200 || ch["status"] != "succeeded" || ch["balance_transaction"] == nil || ch["payment_method_details"].(map[string]any)["type"] != "crypto" {
		t.Errorf("charge: %d %v", st, ch)
	}
	if st, _, out := send(t, env, "POST", "/v1/test_helpers/payment_intents/"+id+"/simulate_crypto_deposit", form, "", nil); st != 400 || errCode(out) != "payment_intent_unexpected_state" {
		t.Errorf("second simulate: %d %v", st, out)
	}
	_, _, evs := send(t, env, "GET", "/v1/events?limit=100", "", "", nil)
	var types []string
	for _, e := range evs["data"].([]any) {
		types = append(types, e.(map[string]any)["type"].(string))
	}
	for _, want := range []string{"payment_intent.created", "payment_intent.processing", "payment_intent.succeeded", "charge.succeeded"} {
		if !strings.Contains(strings.Join(types, " "), want) {
			t.Errorf("no %s event among %v", want, types)
		}
	}

	// JSON works as well, and every refusal is Stripe's 400 naming the param.
	js := "application/json"
	if st, _, out := send(t, env, "POST", "/v1/payment_intents", js, `{"amount":300,"currency":"usd","payment_method_types":["crypto"],"payment_method_options":{"crypto":{"mode":"deposit","deposit_options":{"networks":["base"]}}}}`, nil); st != 200 || out["status"] != "requires_action" {
		t.Errorf("JSON create: %d %v", st, out)
	}
	for body, param := range map[string]string{
		strings.Replace(cryptoForm, "currency=usd", "currency=eur", 1):                                                                     "currency",
		strings.Replace(cryptoForm, "[mode]=deposit", "[mode]=push", 1):                                                                    "payment_method_options[crypto][mode]",
		strings.Replace(cryptoForm, "[networks][0]=base", "[networks][0]=solana", 1):                                                       "payment_method_options[crypto][deposit_options][networks]",
		cryptoForm + "&customer=cus_x":                                                                                                     "payment_method",
		"amount=100&currency=usd&payment_method_types[0]=crypto&payment_method_types[1]=card&payment_method_options[crypto][mode]=deposit": "payment_method_types",
	} {
		st, _, out := send(t, env, "POST", "/v1/payment_intents", form, body, nil)
		e, _ := out["error"].(map[string]any)
		if st != 400 || e["param"] != param {
			t.Errorf("%s: %d %v, want 400 on %s", body, st, out, param)
		}
	}
	_, _, card := send(t, env, "POST", "/v1/payment_intents", form, "amount=900&currency=usd&payment_method_types[0]=card", nil)
	if st, _, out := send(t, env, "POST", "/v1/test_helpers/payment_intents/"+card["id"].(string)+"/simulate_crypto_deposit", form, "", nil); st != 400 {
		t.Errorf("simulate on a card PaymentIntent: %d %v", st, out)
	}
	if st, _, out := send(t, env, "POST", "/v1/test_helpers/payment_intents/pi_nope/simulate_crypto_deposit", form, "", nil); st != 404 || errCode(out) != "resource_missing" {
		t.Errorf("simulate on nothing: %d %v", st, out)
	}
}

// payFor builds the X-PAYMENT header for a challenge.
func payFor(accept map[string]any, value, network string) string {
	if value == "" {
		value = accept["maxAmountRequired"].(string)
	}
	if network == "" {
		network = accept["network"].(string)
	}
	p, _ := json.Marshal(map[string]any{"x402Version": 1, "scheme": "exact", "network": network, "payload": map[string]any{
		"authorization": map[string]any{"from": "0x1111111111111111111111111111111111111111", "to": accept["payTo"], "value": value,
			"validAfter": 0, "validBefore": 9999999999, "nonce": "0x01"},
		"signature": "0xsig",
	}})
	return base64.StdEncoding.EncodeToString(p)
}

func grade(t *testing.T, env *resttest.Env, id string, args map[string]string) twins.Result {
	t.Helper()
	tw := stripe.New()
	c, _ := tw.Check(id)
	final, err := tw.DecodeWorld(env.State(t))
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Evaluate(&twins.Input{Twin: tw, Final: final, Seed: final, Tape: env.Tape(t)}, args)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestX402REST: the challenge, a refused payment, the paid retry, and a
// replay of it — and the original's two x402 checks on the real tape.
func TestX402REST(t *testing.T) {
	env := resttest.Start(t, stripe.New(), `{"api_keys":[{"key":"sk_test_pome_kiosk","sid":"kiosk"}]}`)
	if res := grade(t, env, "stripe.x402-first-request-challenged", nil); res.Passed {
		t.Error("challenged before any request")
	}
	st, _, ch := send(t, env, "GET", "/x402/protected-resource", "", "", nil)
	if st != 402 || ch["x402Version"] != float64(1) || ch["error"] != "payment required" {
		t.Fatalf("challenge: %d %v", st, ch)
	}
	accept := ch["accepts"].([]any)[0].(map[string]any)
	if accept["scheme"] != "exact" || accept["network"] != "eip155:84532" || accept["maxAmountRequired"] != "10000" || accept["asset"] != "USDC" ||
		!strings.HasSuffix(accept["resource"].(string), "/x402/protected-resource") {
		t.Errorf("accepts %v", accept)
	}
	// A second challenge reuses the open one.
	if _, _, again := send(t, env, "GET", "/x402/protected-resource", "", "", nil); again["accepts"].([]any)[0].(map[string]any)["payTo"] != accept["payTo"] {
		t.Errorf("a second challenge minted another address")
	}
	if res := grade(t, env, "stripe.x402-retry-includes-payment", nil); res.Passed {
		t.Error("paid before paying")
	}
	for _, bad := range []struct{ header, want string }{
		{payFor(accept, "1", ""), "does not match required"},
		{payFor(accept, "", "eip155:1"), "does not match challenge.network"},
		{payFor(map[string]any{"payTo": "0x00000000000000000000000000000000000000aa", "maxAmountRequired": "10000", "network": "eip155:84532"}, "", ""), "does not match any active challenge"},
		{"not base64!", "malformed"},
	} {
		st, _, out := send(t, env, "GET", "/x402/protected-resource", "", "", map[string]string{"X-PAYMENT": bad.header})
		if st != 402 || !strings.Contains(out["error"].(string), bad.want) {
			t.Errorf("%s: %d %v", bad.want, st, out)
		}
	}
	if res := grade(t, env, "stripe.x402-retry-includes-payment", nil); res.Passed || !strings.Contains(res.Reason, "none returned 200") {
		t.Errorf("refused payments: %v %s", res.Passed, res.Reason)
	}

	header := payFor(accept, "", "")
	st, h, out := send(t, env, "GET", "/x402/protected-resource", "", "", map[string]string{"X-PAYMENT": header})
	if st != 200 || out["ok"] != true || out["resource"] != "stripe-x402-protected-resource" {
		t.Fatalf("paid retry: %d %v", st, out)
	}
	var receipt map[string]any
	raw, _ := base64.StdEncoding.DecodeString(h.Get("X-Payment-Response"))
	if json.Unmarshal(raw, &receipt) != nil || receipt["success"] != true || !strings.HasPrefix(receipt["transaction"].(string), "pi_") {
		t.Errorf("X-PAYMENT-RESPONSE %q", h.Get("X-Payment-Response"))
	}
	if st, _, _ := send(t, env, "GET", "/x402/protected-resource", "", "", map[string]string{"X-PAYMENT": header}); st != 200 {
		t.Errorf("replayed payment: %d", st)
	}
	for id, args := range map[string]map[string]string{
		"stripe.x402-first-request-challenged":     nil,
		"stripe.x402-retry-includes-payment":       nil,
		"stripe.payment-intent-with-status-exists": {"status": "succeeded"},
		"stripe.charge-exists-with-status":         {"status": "succeeded"},
		"stripe.event-emitted":                     {"event_type": "payment_intent.succeeded"},
	} {
		if res := grade(t, env, id, args); !res.Passed {
			t.Errorf("%s: %s", id, res.Reason)
		}
	}
	// Paid once: one charge, though the header came twice.
	if res := grade(t, env, "stripe.charge-exists-with-status", map[string]string{"status": "succeeded"}); len(res.Evidence.StatePaths) != 1 {
		t.Errorf("charges %v", res.Evidence.StatePaths)
	}
	for _, r := range env.Tape(t) {
		if strings.Contains(string(r.Request.Body)+r.Request.Headers["authorization"], env.Token) {
			t.Error("the tape holds the key")
		}
	}
}

// TestCryptoAndX402MCP: the same flows over MCP, with the original's id
// parameter.
func TestCryptoAndX402MCP(t *testing.T) {
	env := resttest.Start(t, stripe.New(), "")
	cs := env.MCP(t)
	call := func(tool string, args map[string]any) (map[string]any, bool) {
		t.Helper()
		text, isErr := resttest.CallTool(t, cs, tool, args)
		var out map[string]any
		_ = json.Unmarshal([]byte(text), &out)
		return out, isErr
	}
	pi, isErr := call("create_payment_intent", map[string]any{"amount": 2500, "currency": "usd", "payment_method_types": []string{"crypto"},
		"payment_method_options": map[string]any{"crypto": map[string]any{"mode": "deposit", "deposit_options": map[string]any{"networks": []string{"base"}}}}})
	if isErr || pi["status"] != "requires_action" {
		t.Fatalf("create: %v", pi)
	}
	id := pi["id"].(string)
	if got, isErr := call("retrieve_payment_intent", map[string]any{"id": id}); isErr || got["id"] != id {
		t.Errorf("retrieve by id: %v", got)
	}
	if got, isErr := call("retrieve_payment_intent", map[string]any{"id": id, "payment_intent": id}); !isErr || errCode(got) != "parameter_unknown" {
		t.Errorf("both id and payment_intent: %v", got)
	}
	done, isErr := call("simulate_crypto_deposit", map[string]any{"id": id})
	if isErr || done["status"] != "succeeded" {
		t.Fatalf("simulate: %v", done)
	}
	if got, isErr := call("retrieve_charge", map[string]any{"id": done["latest_charge"]}); isErr || got["status"] != "succeeded" {
		t.Errorf("retrieve_charge by id: %v", got)
	}

	ch, isErr := call("get_x402_protected_resource", map[string]any{})
	if !isErr || ch["x402Version"] != float64(1) {
		t.Fatalf("challenge: %v", ch)
	}
	accept := ch["accepts"].([]any)[0].(map[string]any)
	if out, isErr := call("get_x402_protected_resource", map[string]any{"x_payment": payFor(accept, "", "")}); isErr || out["ok"] != true {
		t.Errorf("paid: %v", out)
	}
	var rows int
	for _, r := range env.Tape(t) {
		if r.Transport == tape.TransportMCP && r.ToolName() == "get_x402_protected_resource" {
			rows++
		}
	}
	if rows != 2 {
		t.Errorf("%d x402 MCP rows", rows)
	}
	for _, id := range []string{"stripe.x402-first-request-challenged", "stripe.x402-retry-includes-payment"} {
		if res := grade(t, env, id, nil); !res.Passed {
			t.Errorf("%s over MCP: %s", id, res.Reason)
		}
	}
}
