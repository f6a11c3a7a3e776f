package stripe

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/pomehq/pome/twins"
)

// Stripe error types (the envelope's "type").
const (
	typeInvalidRequest = "invalid_request_error"
	typeCard           = "card_error"
	typeAPI            = "api_error"
	typeRateLimit      = "rate_limit_error"
	typeIdempotency    = "idempotency_error"
)

// invalidParam is a 400 invalid_request_error naming the parameter.
func invalidParam(param, code, format string, args ...any) *twins.Error {
	e := twins.Errorf(twins.Invalid, code, format, args...)
	e.Field = param
	return e
}

// missingParam is Stripe's answer to an absent required parameter.
func missingParam(param string) *twins.Error {
	return invalidParam(param, "parameter_missing", "Missing required param: %s.", param)
}

// noSuch is Stripe's 404 for an unknown id.
func noSuch(kind, id, param string) *twins.Error {
	e := twins.Errorf(twins.NotFound, "resource_missing", "No such %s: '%s'", kind, id)
	e.Field = param
	return e
}

// unexpectedState is the 400 Stripe answers for an operation the object's
// status does not allow.
func unexpectedState(format string, args ...any) *twins.Error {
	return twins.Errorf(twins.Invalid, "payment_intent_unexpected_state", format, args...)
}

// docURL is where Stripe documents an error code.
func docURL(code string) string {
	return "https://stripe.com/docs/error-codes/" + strings.ReplaceAll(code, "_", "-")
}

// restError renders a twin error as Stripe's status and envelope. It is the
// one place statuses are chosen, by error class, never by message.
func restError(e *twins.Error) (int, any) {
	// An injected fault answers exactly what the seed asked for.
	if st, ok := e.Details[faultStatusKey].(int); ok {
		return st, e.Details[faultBodyKey]
	}
	if u, ok := twins.UnsupportedOf(e); ok {
		return unrecognizedURL(u)
	}
	status := http.StatusBadRequest
	typ := typeInvalidRequest
	code := e.Vendor
	msg := e.Message
	switch e.Code {
	case twins.NotFound:
		status = http.StatusNotFound
	case twins.PaymentFailed:
		status = http.StatusPaymentRequired
		typ = typeCard
	case twins.Unauthorized:
		status = http.StatusUnauthorized
	case twins.Forbidden:
		status = http.StatusForbidden
	case twins.Conflict:
		status = http.StatusConflict
	case twins.RateLimited:
		status = http.StatusTooManyRequests
		typ = typeRateLimit
		if code == "" {
			code = "rate_limit"
		}
	case twins.TooLarge:
		status = http.StatusRequestEntityTooLarge
	case twins.Internal:
		status = http.StatusInternalServerError
		typ = typeAPI
	}
	// Errors raised by the transport's decoding and schema validation carry
	// the framework's codes; Stripe names these cases differently.
	switch code {
	case "invalid_json", "invalid_arguments":
		switch {
		case e.Field != "" && strings.Contains(msg, "missing properties"):
			code, msg = "parameter_missing", fmt.Sprintf("Missing required param: %s.", e.Field)
		case e.Field != "":
			code, msg = "parameter_invalid", fmt.Sprintf("Invalid value for %s: %s", e.Field, msg)
		default:
			code = "parameter_invalid"
		}
	case "unknown_parameter", "unknown_param", "parameter_unknown":
		code = "parameter_unknown"
		if e.Field != "" {
			msg = fmt.Sprintf("Received unknown parameter: %s", e.Field)
		}
	}
	body := map[string]any{"type": typ, "message": msg}
	if t, ok := e.Details["type"].(string); ok {
		body["type"] = t
	}
	if code != "" {
		body["code"] = code
		body["doc_url"] = docURL(code)
	}
	if e.Field != "" {
		body["param"] = e.Field
	}
	for k, v := range e.Details {
		if k != "type" {
			body[k] = v
		}
	}
	return status, map[string]any{"error": body}
}

// unrecognizedURL is Stripe's 404 for a path it does not know, with Pome's
// explanation beside the envelope (stripe-node reads only "error").
func unrecognizedURL(u *twins.Unsupported) (int, any) {
	msg := fmt.Sprintf("Unrecognized request URL (%s: %s). Pome's Stripe twin does not implement it; nothing was changed. It supports: %s.",
		u.Method, u.Path, strings.Join(u.Supported, ", "))
	return http.StatusNotFound, map[string]any{
		"error":              map[string]any{"type": typeInvalidRequest, "message": msg},
		twins.UnsupportedKey: u,
	}
}

// errorHeaders tells Stripe's SDKs not to retry answers that are final: a
// refusal and an unsupported path.
func errorHeaders(e *twins.Error) map[string]string {
	if e.Code == twins.Unauthorized || e.Code == twins.NotImplemented {
		return map[string]string{"Stripe-Should-Retry": "false"}
	}
	return nil
}

// refusal is Stripe's answer to a key it does not know, for every
// data-plane refusal: the same for a key naming no sandbox, an unknown or
// expired one, or the wrong key of a real one.
func refusal(key string) *twins.Error {
	if key == "" {
		return twins.Errorf(twins.Unauthorized, "", "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY').")
	}
	return twins.Errorf(twins.Unauthorized, "", "Invalid API Key provided: %s", maskKey(key))
}

// maskKey shows a key as Stripe does: its mode prefix and last four
// characters, the rest as asterisks.
func maskKey(key string) string {
	keep := 0
	for _, p := range []string{"sk_test_", "sk_live_", "rk_test_", "rk_live_", "pk_test_", "pk_live_"} {
		if strings.HasPrefix(key, p) {
			keep = len(p)
		}
	}
	if len(key) <= keep+4 {
		return key[:keep] + strings.Repeat("*", len(key)-keep)
	}
	return key[:keep] + strings.Repeat("*", len(key)-keep-4) + key[len(key)-4:]
}
