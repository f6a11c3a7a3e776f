package mcpserver

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// encodeToolResult encodes a result built by callTool (one text content,
// structuredContent nil or the same text as raw JSON) to exactly the bytes
// json.Marshal gives, and also its tape form, {"result": …} without the
// structuredContent that repeats the text. json.Marshal would call the
// SDK's MarshalJSON methods and re-scan each one's output at every level of
// nesting: for a few KB of output that was most of an MCP call's cost.
// ok is false for any other result; callers then use json.Marshal.
func encodeToolResult(res *mcp.CallToolResult) (result, taped []byte, ok bool) {
	if res == nil || res.Meta != nil || res.InputRequests != nil || res.RequestState != "" || len(res.Content) != 1 {
		return nil, nil, false
	}
	tc, isText := res.Content[0].(*mcp.TextContent)
	if !isText || tc.Meta != nil || tc.Annotations != nil {
		return nil, nil, false
	}
	var structured json.RawMessage
	if res.StructuredContent != nil {
		raw, isRaw := res.StructuredContent.(json.RawMessage)
		if !isRaw || string(raw) != tc.Text {
			return nil, nil, false
		}
		structured = raw
	}
	quoted, err := json.Marshal(tc.Text)
	if err != nil {
		return nil, nil, false
	}
	const head, tail = `{"content":[{"type":"text","text":`, `}]`
	result = make([]byte, 0, len(head)+len(quoted)+len(tail)+len(`,"structuredContent":`)+len(structured)+len(`,"isError":true}`))
	result = append(append(append(result, head...), quoted...), tail...)
	content := len(result)
	if structured != nil {
		result = append(append(result, `,"structuredContent":`...), structured...)
	}
	if res.IsError {
		result = append(result, `,"isError":true`...)
	}
	result = append(result, '}')

	taped = make([]byte, 0, len(`{"result":`)+content+len(`,"isError":true}}`))
	taped = append(append(taped, `{"result":`...), result[:content]...)
	if res.IsError {
		taped = append(taped, `,"isError":true`...)
	}
	taped = append(taped, "}}"...)
	return result, taped, true
}
