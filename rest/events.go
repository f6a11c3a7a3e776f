package rest

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/pomehq/pome/session"
	"github.com/pomehq/pome/tape"
)

// recorderEvent is one call in the shape of the original Pome's recorder
// events (its wire package's RecorderEvent, v1.0), which its twins serve
// as a JSON array at GET /s/{sid}/_pome/events. Fields the original fills
// from an agent-side adapter (step_id, tool_call_id) are null, as its own
// twins leave them. Seq and Transport are ours, so a row can be found on
// the tape; the original's readers ignore keys they do not know.
type recorderEvent struct {
	TS            string            `json:"ts"`
	RunID         string            `json:"run_id"`
	Twin          string            `json:"twin"`
	RequestID     string            `json:"request_id"`
	StepID        *string           `json:"step_id"`
	ToolCallID    *string           `json:"tool_call_id"`
	Method        string            `json:"method"`
	Path          string            `json:"path"`
	RequestBody   json.RawMessage   `json:"request_body"`
	RequestHeader map[string]string `json:"request_headers"`
	Tool          *string           `json:"tool"`
	Status        int               `json:"status"`
	ResponseBody  json.RawMessage   `json:"response_body"`
	LatencyMS     int64             `json:"latency_ms"`
	Fidelity      string            `json:"fidelity"`
	StateMutation bool              `json:"state_mutation"`
	// StateDelta is null: the original's delta is a row's before and
	// after, which our tape does not keep (it keeps a list of changes).
	StateDelta *struct{} `json:"state_delta"`
	Error      *string   `json:"error"`
	Seq        int64     `json:"seq"`
	Transport  string    `json:"transport"`
}

// serveEvents writes a twin's tape as the original Pome's event array.
func (s *Server) serveEvents(w http.ResponseWriter, r *http.Request, sb *session.Sandbox, twin string) {
	rows, err := s.Manager.Store.Tape(r.Context(), sb, twin, 0, 0)
	if err != nil {
		if errors.Is(err, session.ErrNotFound) {
			opaque404(w)
			return
		}
		w.Header().Set("Retry-After", "1")
		writeJSON(w, http.StatusServiceUnavailable, map[string]any{"message": "tape unavailable"})
		return
	}
	out := make([]recorderEvent, 0, len(rows))
	for i := range rows {
		out = append(out, eventOf(sb.ID, &rows[i]))
	}
	writeJSON(w, http.StatusOK, out)
}

// eventOf is a tape row as the original's recorder event.
func eventOf(sid string, row *tape.Row) recorderEvent {
	ev := recorderEvent{
		TS: row.At.UTC().Format("2006-01-02T15:04:05.000Z"), RunID: sid, Twin: row.Twin,
		RequestID: fmt.Sprintf("req_%s_%s_%d", sid, row.Twin, row.Seq),
		Method:    row.Method, Path: row.Path,
		RequestBody: jsonOrNull(row.Request.Body), RequestHeader: row.Request.Headers,
		Tool: row.Tool, Status: row.Status, ResponseBody: jsonOrNull(row.Response.Body),
		LatencyMS: row.LatencyUS / 1000, Fidelity: "semantic", StateMutation: row.StateMutation,
		Seq: row.Seq, Transport: row.Transport,
	}
	if ev.RequestHeader == nil {
		ev.RequestHeader = map[string]string{}
	}
	// A REST call no action served is a vendor path the twin does not
	// implement: the original marks such a call "unsupported".
	if row.Tool == nil && row.Transport == tape.TransportREST {
		ev.Fidelity = "unsupported"
	}
	if row.Status >= 400 {
		msg := errorMessage(row.Response.Body)
		if msg == "" {
			msg = http.StatusText(row.Status)
		}
		ev.Error = &msg
	}
	return ev
}

func jsonOrNull(b json.RawMessage) json.RawMessage {
	if len(b) == 0 || !json.Valid(b) {
		return json.RawMessage("null")
	}
	return b
}

// errorMessage reads the message of a vendor's error body: GitHub's and
// Google's {"message"} or {"error":{"message"}}, Stripe's
// {"error":{"message"}}, Slack's {"error":"code"}.
func errorMessage(body json.RawMessage) string {
	var b struct {
		Message string          `json:"message"`
		Error   json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &b) != nil {
		return ""
	}
	if b.Message != "" {
		return b.Message
	}
	var code string
	if json.Unmarshal(b.Error, &code) == nil {
		return code
	}
	var nested struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(b.Error, &nested) == nil {
		return nested.Message
	}
	return ""
}
