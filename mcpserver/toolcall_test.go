package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/pomehq/pome/twins"
)

// TestToolCall: only a single JSON tools/call of a known tool that only
// reads counts as a read, whichever path answers it, and of one that
// writes as a write, whichever path answers it; anything else (other
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
		{"write tool, a protocol version the SDK answers", "POST", "application/json", call("make_thing"), false, true},
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
			r.Header.Set("Mcp-Protocol-Version", "2099-01-01")
		}
		if read, write := ToolCall(tw, r, []byte(c.body)); read != c.want || write != c.write {
			t.Errorf("%s: ToolCall = read %v, write %v; want %v, %v", c.name, read, write, c.want, c.write)
		}
	}
}

// TestFastAnswers: the fast path takes a call only when the SDK would
// accept it and answer it as the fast path does: under the 2026 protocol
// with its headers and a _meta the SDK can read, and under older versions
// with a _meta that does not ask for the 2026 checks. Everything else is
// the SDK's, to answer or to refuse in its own words. A write the fast
// path answers is one the data plane holds (ToolCall).
func TestFastAnswers(t *testing.T) {
	run := func(ctx context.Context, w *struct{}, i struct{}) (struct{}, error) { return struct{}{}, nil }
	tw := (&twins.Twin{Name: "t", Actions: []twins.Action{
		twins.New(twins.Spec{Name: "make_thing", Effect: twins.Write}, run),
	}}).Finish()
	const caps = `"io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":true}}`
	const info = `"io.modelcontextprotocol/clientInfo":{"name":"agent","version":"1"}`
	const v26 = `"io.modelcontextprotocol/protocolVersion":"2026-07-28"`
	for _, c := range []struct {
		name, version, method, tool, params string
		want, meta                          bool
	}{
		{"2025, no _meta", "2025-11-25", "", "", `"name":"make_thing"`, true, false},
		{"2025, progress token", "2025-11-25", "", "", `"name":"make_thing","_meta":{"progressToken":12}`, true, true},
		{"2025, null _meta", "2025-06-18", "", "", `"name":"make_thing","_meta":null`, true, false},
		{"2025, _meta not an object", "2025-11-25", "", "", `"name":"make_thing","_meta":5`, false, false},
		{"2025, _meta naming a version", "2025-11-25", "", "", `"name":"make_thing","_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25"}`, false, false},
		{"2025, a retry with input", "2025-11-25", "", "", `"name":"make_thing","inputResponses":{"a":{}}`, false, false},
		{"2025, a retry with state", "2025-11-25", "", "", `"name":"make_thing","requestState":"s"`, false, false},
		{"an unknown version (the SDK refuses it)", "2099-01-01", "", "", `"name":"make_thing"`, false, false},
		{"2026", "2026-07-28", "tools/call", "make_thing", `"name":"make_thing","_meta":{` + v26 + `,` + caps + `,` + info + `}`, true, true},
		{"2026 without clientInfo", "2026-07-28", "tools/call", "make_thing", `"name":"make_thing","_meta":{` + v26 + `,` + caps + `}`, true, true},
		{"2026 without Mcp-Method", "2026-07-28", "", "make_thing", `"name":"make_thing","_meta":{` + v26 + `,` + caps + `}`, false, false},
		{"2026, another Mcp-Method", "2026-07-28", "tools/list", "make_thing", `"name":"make_thing","_meta":{` + v26 + `,` + caps + `}`, false, false},
		{"2026 without Mcp-Name", "2026-07-28", "tools/call", "", `"name":"make_thing","_meta":{` + v26 + `,` + caps + `}`, false, false},
		{"2026, another Mcp-Name", "2026-07-28", "tools/call", "get_thing", `"name":"make_thing","_meta":{` + v26 + `,` + caps + `}`, false, false},
		{"2026 without _meta", "2026-07-28", "tools/call", "make_thing", `"name":"make_thing"`, false, false},
		{"2026, _meta naming another version", "2026-07-28", "tools/call", "make_thing", `"name":"make_thing","_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25",` + caps + `}`, false, false},
		{"2026 without capabilities", "2026-07-28", "tools/call", "make_thing", `"name":"make_thing","_meta":{` + v26 + `}`, false, false},
		{"2026, null capabilities", "2026-07-28", "tools/call", "make_thing", `"name":"make_thing","_meta":{` + v26 + `,"io.modelcontextprotocol/clientCapabilities":null}`, false, false},
		{"2026, capabilities of the wrong shape", "2026-07-28", "tools/call", "make_thing", `"name":"make_thing","_meta":{` + v26 + `,"io.modelcontextprotocol/clientCapabilities":{"roots":5}}`, false, false},
		{"2026, null clientInfo", "2026-07-28", "tools/call", "make_thing", `"name":"make_thing","_meta":{` + v26 + `,` + caps + `,"io.modelcontextprotocol/clientInfo":null}`, false, false},
		{"2026, clientInfo of the wrong shape", "2026-07-28", "tools/call", "make_thing", `"name":"make_thing","_meta":{` + v26 + `,` + caps + `,"io.modelcontextprotocol/clientInfo":"agent"}`, false, false},
	} {
		body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{` + c.params + `}}`
		r := httptest.NewRequest("POST", "/t/s/ses_x/mcp", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		r.Header.Set("Mcp-Protocol-Version", c.version)
		if c.method != "" {
			r.Header.Set("Mcp-Method", c.method)
		}
		if c.tool != "" {
			r.Header.Set("Mcp-Name", c.tool)
		}
		var req rpcRequest
		if err := json.Unmarshal([]byte(body), &req); err != nil {
			if c.want {
				t.Fatalf("%s: %v", c.name, err)
			}
			continue
		}
		meta, ok := fastAnswers(r, req)
		if ok != c.want || (meta != nil) != c.meta {
			t.Errorf("%s: fastAnswers = %v, %v; want %v (with _meta %v)", c.name, meta, ok, c.want, c.meta)
		}
		// Whichever path answers it, a write is one the data plane holds.
		if _, write := ToolCall(tw, r, []byte(body)); !write {
			t.Errorf("%s: ToolCall says write false", c.name)
		}
	}
}

// TestMetaCacheBounded: what is learned of a _meta is kept for at most
// metaCacheMax values, none over metaCacheValueMax bytes, and a value read
// past the bound is read all the same.
func TestMetaCacheBounded(t *testing.T) {
	big := json.RawMessage(`{"pad":"` + strings.Repeat("x", metaCacheValueMax) + `"}`)
	if mi := readMeta(big); !mi.object || mi.versioned {
		t.Fatalf("big _meta read as %+v", mi)
	}
	cached := func() map[string]*metaInfo {
		if m := metaCache.m.Load(); m != nil {
			return *m
		}
		return nil
	}
	if _, kept := cached()[string(big)]; kept {
		t.Fatal("a _meta over the size bound was kept")
	}
	for i := range metaCacheMax + 10 {
		raw := json.RawMessage(fmt.Sprintf(`{"progressToken":%d}`, i))
		if mi := readMeta(raw); !mi.object || string(mi.encoded) != string(raw) {
			t.Fatalf("%s read as %+v", raw, mi)
		}
	}
	if n := len(cached()); n > metaCacheMax || n == 0 {
		t.Fatalf("%d values kept, bound %d", n, metaCacheMax)
	}
}
