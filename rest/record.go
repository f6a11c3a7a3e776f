package rest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"

	"github.com/pomehq/pome/tape"
)

// recorder passes a response through while keeping its status and its
// body for the tape (up to the tape's limit plus one byte, so truncation is
// known). A body written by writeRaw is kept by reference, not copied.
type recorder struct {
	http.ResponseWriter
	status int
	wrote  bool
	buf    bytes.Buffer
	size   int
	// raw is the encoded JSON handed to writeRaw; while it is set, writes
	// are counted but not copied.
	raw []byte
}

func (r *recorder) WriteHeader(code int) {
	if !r.wrote {
		r.status, r.wrote = code, true
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(p []byte) (int, error) {
	if !r.wrote {
		r.status, r.wrote = http.StatusOK, true
	}
	r.size += len(p)
	if r.raw == nil {
		if room := tape.MaxBodyBytes + 1 - r.buf.Len(); room > 0 {
			r.buf.Write(p[:min(room, len(p))])
		}
	}
	return r.ResponseWriter.Write(p)
}

// keepRaw records b, a complete JSON body about to be written, as the
// response body. It is called before any body byte is written.
func (r *recorder) keepRaw(b []byte) {
	if r.size == 0 {
		r.raw = b
	}
}

func (r *recorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// responseBody is the recorded body as JSON for the tape.
func (r *recorder) responseBody() json.RawMessage {
	if r.raw != nil {
		if len(r.raw) > tape.MaxBodyBytes {
			return tape.TruncatedBody(r.raw[:tape.MaxBodyBytes+1], r.size)
		}
		return r.raw
	}
	b := r.buf.Bytes()
	if r.size > tape.MaxBodyBytes {
		return tape.TruncatedBody(b, r.size)
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	// Twin responses are written by writeJSON, so a JSON content type means
	// valid JSON; only foreign bodies are checked.
	if strings.HasPrefix(r.Header().Get("Content-Type"), "application/json") || json.Valid(b) {
		return json.RawMessage(bytes.TrimSpace(b))
	}
	s, _ := json.Marshal(string(b))
	return s
}

// requestBodyJSON renders a request body for the tape: JSON as JSON (with
// credential fields redacted), forms as an object, anything else as a
// string. form is the body as the call's decoder parsed it, if it did.
func requestBodyJSON(contentType string, body []byte, form url.Values) json.RawMessage {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	if len(body) > tape.MaxBodyBytes {
		return tape.Truncate(body)
	}
	if strings.HasPrefix(contentType, "application/x-www-form-urlencoded") && !looksLikeJSONObject(body) {
		if form != nil {
			return tape.FormJSON(form)
		}
		if form, err := url.ParseQuery(string(body)); err == nil {
			return tape.FormJSON(form)
		}
	}
	return tape.RedactJSON(body)
}
