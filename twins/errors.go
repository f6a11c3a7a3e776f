package twins

import (
	"errors"
	"fmt"
)

// Code is the transport-neutral class of a twin error. Each twin maps codes
// to its vendor's status and envelope in one place (Twin.RESTError); the MCP
// transport turns every error into an isError result carrying the message.
type Code string

const (
	NotFound       Code = "not_found"
	Invalid        Code = "invalid"       // malformed or missing input
	Unprocessable  Code = "unprocessable" // well-formed but refused (GitHub 422)
	Conflict       Code = "conflict"
	Forbidden      Code = "forbidden"
	Unauthorized   Code = "unauthorized"
	PaymentFailed  Code = "payment_failed" // Stripe card errors (402)
	NotAllowed     Code = "not_allowed"    // e.g. GitHub 405 "not mergeable"
	RateLimited    Code = "rate_limited"
	TooLarge       Code = "too_large"
	NotImplemented Code = "not_implemented"
	// Unavailable: the sandbox's store could not be reached; the transports
	// answer 503 and the call may be retried. Twins never raise it.
	Unavailable Code = "unavailable"
	Internal    Code = "internal"
)

// Error is a twin error. Vendor carries the vendor's own error code (Slack's
// "channel_not_found", GitHub's "already_exists", Stripe's "resource_missing")
// so a twin's REST mapping can render the vendor envelope; Details carries
// any further vendor fields (Stripe's decline_code, GitHub's resource/field).
type Error struct {
	Code    Code
	Vendor  string
	Message string
	Field   string
	Details map[string]any
}

func (e *Error) Error() string {
	if e.Vendor != "" && e.Vendor != e.Message {
		return fmt.Sprintf("%s (%s)", e.Message, e.Vendor)
	}
	return e.Message
}

// Errorf builds an Error.
func Errorf(code Code, vendor, format string, args ...any) *Error {
	return &Error{Code: code, Vendor: vendor, Message: fmt.Sprintf(format, args...)}
}

// WithField returns the error with the offending input field named.
func (e *Error) WithField(f string) *Error { e.Field = f; return e }

// With returns the error with a vendor detail added.
func (e *Error) With(k string, v any) *Error {
	if e.Details == nil {
		e.Details = map[string]any{}
	}
	e.Details[k] = v
	return e
}

// AsError converts any error into a twin Error (unknown errors are Internal).
func AsError(err error) *Error {
	if err == nil {
		return nil
	}
	var te *Error
	if errors.As(err, &te) {
		return te
	}
	return &Error{Code: Internal, Message: err.Error()}
}

// UnsupportedKey is the Details key (and the top-level body key) under
// which an unsupported call's explanation rides: a NotImplemented error's
// *Unsupported, rendered by each twin inside its own envelope.
const UnsupportedKey = "pome"

// Unsupported explains a call to a vendor path the twin does not cover.
type Unsupported struct {
	Unsupported      bool     `json:"unsupported"`
	Twin             string   `json:"twin"`
	Method           string   `json:"method"`
	Path             string   `json:"path"`
	Message          string   `json:"message"`
	Supported        []string `json:"supported"`
	DocumentationURL string   `json:"documentation_url,omitempty"`
}

// UnsupportedOf returns the explanation a NotImplemented error carries.
func UnsupportedOf(e *Error) (*Unsupported, bool) {
	u, ok := e.Details[UnsupportedKey].(*Unsupported)
	return u, ok
}
