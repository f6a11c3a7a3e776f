package mcpserver

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestEncodeToolResultIsMarshal: the hand-built encoding is byte for byte
// what json.Marshal gives, for results and for their tape form.
func TestEncodeToolResultIsMarshal(t *testing.T) {
	outputs := []string{
		`{}`, `{"a":1}`, `[1,2,3]`, `"plain"`, `null`,
		`{"html":"\u003cb\u003e \u0026 \u003c/b\u003e","line":"\u2028\u2029","emoji":"😀","esc":"\"\\\n\t"}`,
		`{"nested":{"deep":[{"x":"y"}]},"n":1.5e3}`,
	}
	texts := []string{"", "not found", "<script>&amp;</script>", "bad \xff utf-8", "tab\tnewline\n", "\u2028"}
	var cases []*mcp.CallToolResult
	for _, o := range outputs {
		var out any
		if err := json.Unmarshal([]byte(o), &out); err != nil {
			t.Fatal(err)
		}
		text, err := json.Marshal(out)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(text)}}})
		if text[0] == '{' {
			cases = append(cases, &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(text)}}, StructuredContent: json.RawMessage(text)})
		}
	}
	for _, s := range texts {
		cases = append(cases, &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: s}}})
	}
	for _, res := range cases {
		got, gotTaped, ok := encodeToolResult(res)
		if !ok {
			t.Fatalf("%+v: not encoded", res)
		}
		want, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("result:\n got %s\nwant %s", got, want)
		}
		cp := *res
		cp.StructuredContent = nil
		wantTaped, _ := json.Marshal(map[string]any{"result": &cp})
		if !bytes.Equal(gotTaped, wantTaped) {
			t.Fatalf("taped:\n got %s\nwant %s", gotTaped, wantTaped)
		}
	}
	// Anything else is left to json.Marshal.
	for _, res := range []*mcp.CallToolResult{
		nil,
		{Content: nil},
		{Content: []mcp.Content{&mcp.TextContent{Text: "a"}, &mcp.TextContent{Text: "b"}}},
		{Content: []mcp.Content{&mcp.ImageContent{Data: []byte("x"), MIMEType: "image/png"}}},
		{Content: []mcp.Content{&mcp.TextContent{Text: "a", Meta: mcp.Meta{"k": "v"}}}},
		{Content: []mcp.Content{&mcp.TextContent{Text: "a"}}, Meta: mcp.Meta{"k": "v"}},
		{Content: []mcp.Content{&mcp.TextContent{Text: `{"a":1}`}}, StructuredContent: map[string]any{"a": 1}},
		{Content: []mcp.Content{&mcp.TextContent{Text: `{"a":1}`}}, StructuredContent: json.RawMessage(`{"a":2}`)},
	} {
		if _, _, ok := encodeToolResult(res); ok {
			t.Fatalf("%+v: encoded by hand, want json.Marshal", res)
		}
	}
}
