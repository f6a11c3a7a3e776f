package tape

import (
	"encoding/json"
	"time"
)

// Call is what a transport knows of one call it served, before anything
// is redacted. Every transport (REST, MCP, the MCP refusals) builds its
// rows with NewRow, so that a row says the same things the same way
// whichever transport served the call.
type Call struct {
	At        time.Time
	Twin      string
	Transport string
	Method    string
	Path      string
	// MCPMethod is the JSON-RPC method of an MCP request ("" otherwise).
	MCPMethod string
	// Tool is the action that served the call; "" for none (tool null).
	Tool   string
	Status int
	// Mutated: the call's change is in the twin's state, kept by the
	// store (a write refused, or one whose save failed, changed nothing).
	Mutated bool
	// Delta is what the call changed, when deltas are taped.
	Delta   json.RawMessage
	Query   map[string][]string
	Headers map[string][]string
	// RequestBody and ResponseBody are the bodies as JSON, secret fields
	// already redacted (RedactJSON) where the transport knows their shape.
	RequestBody  json.RawMessage
	ResponseBody json.RawMessage
	Latency      time.Duration
	// Secret is the credential the call carried: scrubbed from every body
	// wherever it appears.
	Secret string
}

// NewRow is the tape row of c: secret headers and query fields redacted,
// every body cut to MaxBodyBytes with a marker and scrubbed of the call's
// credential, and tool null for a call no action served.
func NewRow(c Call) *Row {
	row := &Row{
		At: c.At, Twin: c.Twin, Transport: c.Transport, Method: c.Method, Path: c.Path,
		MCPMethod: c.MCPMethod, Status: c.Status, StateMutation: c.Mutated,
		Request: Request{
			Query:   RedactQuery(c.Query),
			Headers: RedactHeaders(c.Headers),
			Body:    Scrub(Truncate(c.RequestBody), c.Secret),
		},
		Response:   Response{Body: Scrub(Truncate(c.ResponseBody), c.Secret)},
		LatencyUS:  c.Latency.Microseconds(),
		StateDelta: Scrub(Truncate(c.Delta), c.Secret),
	}
	if c.Tool != "" {
		tool := c.Tool
		row.Tool = &tool
	}
	return row
}
