package github

import (
	"net/http"
	"strconv"

	"github.com/pomehq/pome/twins"
)

// docsURL is where GitHub's error bodies point.
const docsURL = "https://docs.github.com/rest"

// APIError is GitHub's error envelope.
type APIError struct {
	Message          string          `json:"message"`
	Errors           []APIErrorEntry `json:"errors,omitempty"`
	DocumentationURL string          `json:"documentation_url"`
	Status           string          `json:"status"`
	// Pome explains a path the twin does not cover.
	Pome *twins.Unsupported `json:"pome,omitempty"`
}

// APIErrorEntry is one item of a 422's errors list.
type APIErrorEntry struct {
	Resource string `json:"resource"`
	Field    string `json:"field,omitempty"`
	Code     string `json:"code"`
	Value    any    `json:"value,omitempty"`
	Message  string `json:"message,omitempty"`
}

// RESTError is the one place twin errors become GitHub statuses and bodies.
func RESTError(e *twins.Error) (int, any) {
	status := http.StatusInternalServerError
	body := APIError{DocumentationURL: docsURL}
	switch e.Code {
	case twins.NotFound:
		status, body.Message = http.StatusNotFound, "Not Found"
	case twins.Invalid:
		if e.Vendor == "invalid_json" {
			// GitHub answers an undecodable body with 400.
			status, body.Message = http.StatusBadRequest, "Problems parsing JSON"
			break
		}
		status, body.Message = http.StatusUnprocessableEntity, "Validation Failed"
		// Schema failures from the transport: GitHub names the field and
		// says "invalid"; handlers report missing fields themselves.
		body.Errors = []APIErrorEntry{{Resource: resourceOf(e, "Request"), Field: e.Field, Code: "invalid", Message: e.Message}}
	case twins.Unprocessable:
		status, body.Message = http.StatusUnprocessableEntity, "Validation Failed"
		if custom, ok := e.Details["message"].(string); ok {
			// Some 422s carry their own top-level message and no errors
			// list (e.g. "Reference already exists", "No commits between
			// main and x").
			body.Message = custom
			break
		}
		entry := APIErrorEntry{Resource: resourceOf(e, "Issue"), Field: e.Field, Code: e.Vendor}
		if entry.Code == "" {
			entry.Code = "invalid"
		}
		if v, ok := e.Details["value"]; ok {
			entry.Value = v
		}
		if entry.Code == "custom" {
			entry.Message = e.Message
		}
		if m, ok := e.Details["entry_message"].(string); ok {
			// Search's 422s explain themselves inside the entry.
			entry.Message = m
		}
		body.Errors = []APIErrorEntry{entry}
	case twins.Conflict:
		status, body.Message = http.StatusConflict, e.Message
	case twins.NotAllowed:
		status, body.Message = http.StatusMethodNotAllowed, e.Message
	case twins.Unauthorized:
		status, body.Message = http.StatusUnauthorized, "Bad credentials"
	case twins.Forbidden:
		status, body.Message = http.StatusForbidden, e.Message
	case twins.RateLimited:
		status, body.Message = http.StatusForbidden, "API rate limit exceeded"
	case twins.TooLarge:
		status, body.Message = http.StatusRequestEntityTooLarge, "Request body too large"
	case twins.NotImplemented:
		// GitHub answers a path it does not know with 404, which no
		// client retries (@octokit/plugin-retry retries a 501).
		status, body.Message = http.StatusNotFound, "Not Found. "+e.Message
		body.Pome, _ = twins.UnsupportedOf(e)
	default:
		body.Message = "Server Error"
	}
	if d, ok := e.Details["documentation_url"].(string); ok {
		body.DocumentationURL = d
	}
	body.Status = strconv.Itoa(status)
	return status, body
}

func resourceOf(e *twins.Error, def string) string {
	if r, ok := e.Details["resource"].(string); ok && r != "" {
		return r
	}
	return def
}
