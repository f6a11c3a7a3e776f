package mcpserver

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

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
	var quoted []byte
	if structured != nil && utf8.ValidString(tc.Text) {
		// The text is json.Marshal's output (callTool), so quoting it only
		// has backslashes and quotes to escape. (Marshal keeps invalid
		// UTF-8 a json.RawMessage field holds; quoting replaces it, so such
		// a text takes the general way.)
		quoted = quoteMarshalled(tc.Text)
	} else {
		var err error
		if quoted, err = json.Marshal(tc.Text); err != nil {
			return nil, nil, false
		}
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

// tapedRequest is the tape's request body of a call, already encoded.
type tapedRequest json.RawMessage

// encodeCallRequest builds the tape's request body of a tools/call,
// exactly as json.Marshal of {"jsonrpc", "method", "params"} with
// mcp.CallToolParamsRaw params gives it, without the reflection and the
// map. ok is false when the arguments hold what json.Marshal would escape
// (<, >, &, U+2028, U+2029); callers then marshal.
func encodeCallRequest(name string, args json.RawMessage) (tapedRequest, bool) {
	if bytes.ContainsAny(args, "<>&\u2028\u2029") {
		return nil, false
	}
	quoted, err := json.Marshal(name)
	if err != nil {
		return nil, false
	}
	const head = `{"jsonrpc":"2.0","method":"tools/call","params":{"name":`
	buf := bytes.NewBuffer(make([]byte, 0, len(head)+len(quoted)+len(`,"arguments":`)+len(args)+2))
	buf.WriteString(head)
	buf.Write(quoted)
	if len(args) > 0 {
		buf.WriteString(`,"arguments":`)
		if err := json.Compact(buf, args); err != nil {
			return nil, false
		}
	}
	buf.WriteString("}}")
	return tapedRequest(buf.Bytes()), true
}

// quoteMarshalled is json.Marshal(text) for a text json.Marshal produced:
// such a text is valid UTF-8 with every control character, <, >, &, U+2028
// and U+2029 already escaped, so of what json.Marshal escapes in a string
// only '"' and '\\' remain. It runs in one pass, without encoding/json's
// per-character table and UTF-8 decoding.
func quoteMarshalled(text string) []byte {
	out := make([]byte, 0, len(text)+len(text)/4+2)
	out = append(out, '"')
	last := 0
	for i := 0; i < len(text); i++ {
		if c := text[i]; c == '"' || c == '\\' {
			out = append(append(out, text[last:i]...), '\\', c)
			last = i + 1
		}
	}
	return append(append(out, text[last:]...), '"')
}
