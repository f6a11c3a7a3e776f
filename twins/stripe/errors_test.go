package stripe

import (
	"testing"

	"github.com/pomehq/pome/twins"
)

func TestRESTError(t *testing.T) {
	cases := []struct {
		name   string
		err    *twins.Error
		status int
		body   map[string]any
	}{
		{"not found", noSuch("customer", "cus_x", "id"), 404,
			map[string]any{"type": "invalid_request_error", "code": "resource_missing", "message": "No such customer: 'cus_x'", "param": "id", "doc_url": "https://stripe.com/docs/error-codes/resource-missing"}},
		{"card error", cardError("card_declined", "Your card was declined.", "").With("decline_code", "generic_decline"), 402,
			map[string]any{"type": "card_error", "code": "card_declined", "decline_code": "generic_decline"}},
		{"invalid", invalidParam("amount", "amount_too_small", "Amount must be at least $0.50"), 400,
			map[string]any{"type": "invalid_request_error", "code": "amount_too_small", "param": "amount"}},
		{"unknown parameter from the transport", (&twins.Error{Code: twins.Invalid, Vendor: "parameter_unknown", Message: "Received unknown parameter: colour"}).WithField("colour"), 400,
			map[string]any{"code": "parameter_unknown", "param": "colour", "message": "Received unknown parameter: colour"}},
		{"missing from schema validation", (&twins.Error{Code: twins.Invalid, Vendor: "invalid_arguments", Message: `validating root: required: missing properties: ["amount"]`}).WithField("amount"), 400,
			map[string]any{"code": "parameter_missing", "param": "amount", "message": "Missing required param: amount."}},
		{"wrong type from schema validation", (&twins.Error{Code: twins.Invalid, Vendor: "invalid_arguments", Message: "type: abc has type string, want integer"}).WithField("amount"), 400,
			map[string]any{"code": "parameter_invalid", "param": "amount"}},
		{"idempotency", twins.Errorf(twins.Invalid, "", "Keys for idempotent requests can only be used with the same parameters they were first used with.").With("type", "idempotency_error"), 400,
			map[string]any{"type": "idempotency_error"}},
		{"conflict", twins.Errorf(twins.Conflict, "idempotency_key_in_use", "There is currently another in-progress request using this Idempotent Key."), 409,
			map[string]any{"type": "invalid_request_error", "code": "idempotency_key_in_use"}},
		{"rate limited", twins.Errorf(twins.RateLimited, "", "Too many requests"), 429,
			map[string]any{"type": "rate_limit_error", "code": "rate_limit"}},
		{"unauthorized", twins.Errorf(twins.Unauthorized, "", "Invalid API Key provided"), 401, map[string]any{"type": "invalid_request_error"}},
		{"internal", twins.Errorf(twins.Internal, "", "boom"), 500, map[string]any{"type": "api_error"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			status, body := restError(c.err)
			if status != c.status {
				t.Errorf("status %d, want %d", status, c.status)
			}
			e := body.(map[string]any)["error"].(map[string]any)
			for k, v := range c.body {
				if e[k] != v {
					t.Errorf("%s = %v, want %v (body %v)", k, e[k], v, e)
				}
			}
		})
	}
}
