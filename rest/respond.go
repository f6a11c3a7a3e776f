package rest

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/pomehq/pome/session"
	"github.com/pomehq/pome/twins"
)

// opaque404Body is the one answer for every data-plane refusal: unknown or
// expired sandbox, a twin not in it, a missing or wrong token, a token of
// another sandbox, a stopped sandbox's agent surfaces. It leaks nothing.
var opaque404Body = []byte(`{"message":"No twin pod for this session."}` + "\n")

func opaque404(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(opaque404Body)))
	w.WriteHeader(http.StatusNotFound)
	w.Write(opaque404Body)
}

// refuse answers a refused data-plane call: on a twin's vendor surface the
// twin's own Refusal where it declares one (Slack's 200 invalid_auth,
// Stripe's 401), the opaque 404 everywhere else (MCP, the _pome reads). The
// answer depends on the twin named in the path, the surface and the
// credential sent: what the caller chose, never what exists.
func refuse(w http.ResponseWriter, tw *twins.Twin, rest, credential string) {
	if tw == nil || tw.Refusal == nil || !vendorSurface(rest) {
		opaque404(w)
		return
	}
	writeTwinError(w, tw, tw.Refusal(credential))
}

// vendorSurface reports whether a path below a sandbox is the vendor's
// REST surface rather than MCP, OpenAPI or a Pome read.
func vendorSurface(rest string) bool {
	return rest != "/mcp" && rest != "/openapi.json" && !strings.HasPrefix(rest, "/_pome/")
}

// writeJSON writes v with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		b = []byte(`{"message":"internal error encoding the response"}`)
		status = http.StatusInternalServerError
	}
	writeRaw(w, status, b)
}

// writeRaw writes an encoded JSON body with status.
// A recorder keeps b for the tape as it is, so b must not change after.
func writeRaw(w http.ResponseWriter, status int, b []byte) {
	h := w.Header()
	h["Content-Type"] = jsonContentType
	h["Content-Length"] = []string{strconv.Itoa(len(b) + 1)}
	if rec, ok := w.(*recorder); ok {
		rec.keepRaw(b)
	}
	w.WriteHeader(status)
	w.Write(b)
	w.Write(newline)
}

var (
	jsonContentType = []string{"application/json; charset=utf-8"}
	newline         = []byte{'\n'}
)

// writeTwinError renders err in the twin's vendor envelope: the one place a
// twin error becomes an HTTP status.
func writeTwinError(w http.ResponseWriter, tw *twins.Twin, err error) {
	e := twins.AsError(err)
	status, body := twinErrorBody(tw, e)
	if status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", "1")
	}
	if tw.ErrorHeaders != nil {
		for k, v := range tw.ErrorHeaders(e) {
			w.Header().Set(k, v)
		}
	}
	writeJSON(w, status, body)
}

func twinErrorBody(tw *twins.Twin, e *twins.Error) (int, any) {
	if e.Code == twins.Unavailable && tw.RESTError != nil {
		// Twins do not know this transport-level code: render the
		// vendor's server-error envelope, with the retryable status.
		internal := *e
		internal.Code = twins.Internal
		_, body := tw.RESTError(&internal)
		return http.StatusServiceUnavailable, body
	}
	if tw.RESTError != nil {
		return tw.RESTError(e)
	}
	return genericStatus(e.Code), map[string]any{"message": e.Message, "error": e.Vendor}
}

// genericStatus is the status of a code for twins that do not map it.
func genericStatus(c twins.Code) int {
	switch c {
	case twins.NotFound:
		return http.StatusNotFound
	case twins.Invalid:
		return http.StatusBadRequest
	case twins.Unprocessable:
		return http.StatusUnprocessableEntity
	case twins.Conflict:
		return http.StatusConflict
	case twins.Forbidden:
		return http.StatusForbidden
	case twins.Unauthorized:
		return http.StatusUnauthorized
	case twins.PaymentFailed:
		return http.StatusPaymentRequired
	case twins.NotAllowed:
		return http.StatusMethodNotAllowed
	case twins.RateLimited:
		return http.StatusTooManyRequests
	case twins.TooLarge:
		return http.StatusRequestEntityTooLarge
	case twins.NotImplemented:
		return http.StatusNotImplemented
	case twins.Unavailable:
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

// controlError is the control-plane envelope (SPEC §4).
type controlError struct {
	Error struct {
		Type      session.ErrorType `json:"type"`
		Message   string            `json:"message"`
		Details   map[string]any    `json:"details,omitempty"`
		RequestID string            `json:"request_id"`
	} `json:"error"`
}

var controlStatus = map[session.ErrorType]int{
	session.ErrInvalidAuth:      http.StatusUnauthorized,
	session.ErrForbidden:        http.StatusForbidden,
	session.ErrValidationFailed: http.StatusUnprocessableEntity,
	session.ErrNotFoundType:     http.StatusNotFound,
	session.ErrConflict:         http.StatusConflict,
	session.ErrQuotaExceeded:    http.StatusPaymentRequired,
	session.ErrRateLimited:      http.StatusTooManyRequests,
	session.ErrInternal:         http.StatusInternalServerError,
	session.ErrUnavailable:      http.StatusServiceUnavailable,
}

// writeControlError renders a control-plane error; anything that is not a
// *session.Error is an internal error whose text is not shown.
func writeControlError(w http.ResponseWriter, r *http.Request, err error) {
	se, ok := err.(*session.Error)
	if !ok {
		se = &session.Error{Type: session.ErrInternal, Message: "internal error"}
	}
	var body controlError
	body.Error.Type = se.Type
	body.Error.Message = se.Message
	body.Error.Details = se.Details
	body.Error.RequestID = requestID(r)
	status, ok := controlStatus[se.Type]
	if !ok {
		status = http.StatusInternalServerError
	}
	if status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", "1")
	}
	writeJSON(w, status, body)
}
