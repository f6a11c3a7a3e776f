package tape

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestNewRow: a row keeps what the call was and nothing secret: headers
// and query fields redacted, the credential scrubbed from every body and
// the delta, bodies over MaxBodyBytes replaced by a marker, tool null when
// no action served the call.
func TestNewRow(t *testing.T) {
	const secret = "ghp_0123456789abcdefSECRET"
	big := json.RawMessage(`"` + strings.Repeat("x", MaxBodyBytes) + `"`)
	row := NewRow(Call{
		At: time.Unix(1, 0), Twin: "github", Transport: TransportREST, Method: "POST", Path: "/p",
		Status: 201, Mutated: true,
		Query:        map[string][]string{"token": {secret}, "page": {"2"}},
		Headers:      map[string][]string{"Authorization": {"Bearer " + secret}, "X-Trace": {"t"}},
		RequestBody:  json.RawMessage(`{"title":"` + secret + `"}`),
		ResponseBody: big,
		Delta:        json.RawMessage(`[{"op":"add","value":"` + secret + `"}]`),
		Latency:      1500 * time.Microsecond,
		Secret:       secret,
	})
	b, _ := json.Marshal(row)
	if strings.Contains(string(b), secret) {
		t.Fatalf("the credential is on the row: %s", b)
	}
	if row.Tool != nil || !strings.Contains(string(b), `"tool":null`) {
		t.Errorf("tool: %v", row.Tool)
	}
	if row.Request.Query["page"] != "2" || row.Request.Headers["x-trace"] != "t" || row.Request.Headers["authorization"] != Redacted {
		t.Errorf("query or headers: %+v", row.Request)
	}
	if len(row.Response.Body) > MaxBodyBytes || !strings.Contains(string(row.Response.Body), "pome_truncated") {
		t.Errorf("a large body kept as it was: %d bytes", len(row.Response.Body))
	}
	if !row.StateMutation || row.Status != 201 || row.LatencyUS != 1500 || row.Transport != TransportREST {
		t.Errorf("row: %+v", row)
	}
	if NewRow(Call{Tool: "issue_read"}).ToolName() != "issue_read" {
		t.Errorf("a served call's tool is lost")
	}
}
