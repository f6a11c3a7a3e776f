package mcpserver

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/pomehq/pome/twins"
)

// TestToolCall: only a single JSON tools/call of a known tool that only
// reads counts as a read, whichever path answers it, and of one that
// writes as a write, when the fast path answers it; anything else (other
// methods, batches, unknown tools, other HTTP methods or media types) is
// neither.
func TestToolCall(t *testing.T) {
	type in struct {
		ID int `json:"id"`
	}
	run := func(ctx context.Context, w *struct{}, i in) (struct{}, error) { return struct{}{}, nil }
	tw := (&twins.Twin{Name: "t", Actions: []twins.Action{
		twins.New(twins.Spec{Name: "get_thing", Effect: twins.Read}, run),
		twins.New(twins.Spec{Name: "make_thing", Effect: twins.Write}, run),
	}}).Finish()
	call := func(tool string) string {
		return `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"` + tool + `","arguments":{"id":1}}}`
	}
	for _, c := range []struct {
		name, method, contentType, body string
		want, write                     bool
	}{
		{"read tool", "POST", "application/json", call("get_thing"), true, false},
		{"read tool, charset", "POST", "application/json; charset=utf-8", call("get_thing"), true, false},
		{"write tool", "POST", "application/json", call("make_thing"), false, true},
		{"write tool, charset", "POST", "application/json; charset=utf-8", call("make_thing"), false, true},
		{"write tool, form body", "POST", "application/x-www-form-urlencoded", call("make_thing"), false, false},
		{"write tool batch", "POST", "application/json", "[" + call("make_thing") + "]", false, false},
		{"write tool, GET", "GET", "application/json", call("make_thing"), false, false},
		{"write tool, a protocol version the SDK answers", "POST", "application/json", call("make_thing"), false, false},
		{"read tool, a protocol version the SDK answers", "POST", "application/json", call("get_thing"), true, false},
		{"unknown tool", "POST", "application/json", call("nope"), false, false},
		{"tools/list", "POST", "application/json", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, false, false},
		{"batch", "POST", "application/json", "[" + call("get_thing") + "]", false, false},
		{"notification", "POST", "application/json", `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"get_thing"}}`, false, false},
		{"not JSON-RPC 2.0", "POST", "application/json", strings.Replace(call("get_thing"), `"2.0"`, `"1.0"`, 1), false, false},
		{"malformed", "POST", "application/json", call("get_thing")[:30], false, false},
		{"form body", "POST", "application/x-www-form-urlencoded", call("get_thing"), false, false},
		{"GET (the event stream)", "GET", "application/json", call("get_thing"), false, false},
	} {
		r := httptest.NewRequest(c.method, "/t/s/ses_x/mcp", strings.NewReader(c.body))
		r.Header.Set("Content-Type", c.contentType)
		r.Header.Set("Accept", "application/json, text/event-stream")
		if !strings.Contains(c.name, "the SDK answers") {
			r.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		} else {
			r.Header.Set("Mcp-Protocol-Version", "2024-11-05")
		}
		if read, write := ToolCall(tw, r, []byte(c.body)); read != c.want || write != c.write {
			t.Errorf("%s: ToolCall = read %v, write %v; want %v, %v", c.name, read, write, c.want, c.write)
		}
	}
}
