package mcpserver

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// encodeToolResult encodes a result built by runTool (one text content,
// structuredContent nil or the same text as raw JSON) to exactly the bytes
// json.Marshal gives, and also its tape form, {"result": …} without the
// structuredContent that repeats the text. json.Marshal would call the
// SDK's MarshalJSON methods and re-scan each one's output at every level of
// nesting: for a few KB of output that was most of an MCP call's cost.
// ok is false for any other result; callers then use json.Marshal.
func encodeToolResult(res *mcp.CallToolResult) (result, taped []byte, ok bool) {
	o, ok := outputOf(res)
	if !ok {
		return nil, nil, false
	}
	result, content := appendToolResult(nil, o, nil, false)
	return result, tapedResult(content, o.isError), true
}

// outputOf is the toolOutput res was built from, when it is one.
func outputOf(res *mcp.CallToolResult) (toolOutput, bool) {
	if res == nil || res.Meta != nil || res.InputRequests != nil || res.RequestState != "" || len(res.Content) != 1 {
		return toolOutput{}, false
	}
	tc, isText := res.Content[0].(*mcp.TextContent)
	if !isText || tc.Meta != nil || tc.Annotations != nil {
		return toolOutput{}, false
	}
	if res.StructuredContent != nil {
		raw, isRaw := res.StructuredContent.(json.RawMessage)
		if !isRaw || string(raw) != tc.Text {
			return toolOutput{}, false
		}
	}
	// A structured result's text is its structured content, which the
	// twin's output marshalled to.
	structured := res.StructuredContent != nil
	return toolOutput{text: []byte(tc.Text), marshalled: structured, structured: structured, isError: res.IsError}, true
}

// appendToolResult appends o's CallToolResult to dst, byte for byte as
// json.Marshal encodes it, and returns with it the part of it the tape
// keeps: the result's content array. meta, when not nil, is the result's
// _meta already encoded, and complete adds the resultType the 2026
// protocol's results carry.
func appendToolResult(dst []byte, o toolOutput, meta []byte, complete bool) (out, content []byte) {
	const head = `"content":[{"type":"text","text":`
	dst = append(dst, '{')
	if meta != nil {
		dst = append(append(append(dst, `"_meta":`...), meta...), ',')
	}
	start := len(dst)
	dst = append(dst, head...)
	if o.marshalled && utf8.Valid(o.text) {
		// The text is json.Marshal's output, so quoting it only has
		// backslashes and quotes to escape. (Marshal keeps invalid UTF-8 a
		// json.RawMessage field holds; quoting replaces it, so such a text
		// takes the general way.)
		dst = appendQuotedMarshalled(dst, o.text)
	} else {
		// Marshalling a string cannot fail.
		quoted, _ := json.Marshal(string(o.text))
		dst = append(dst, quoted...)
	}
	dst = append(dst, '}')
	if o.resource != nil {
		// Marshalling resource contents the twin built cannot fail.
		res, _ := json.Marshal(&mcp.EmbeddedResource{Resource: o.resource})
		dst = append(append(dst, ','), res...)
	}
	dst = append(dst, ']')
	end := len(dst)
	if o.structured {
		dst = append(append(dst, `,"structuredContent":`...), o.text...)
	}
	if o.isError {
		dst = append(dst, `,"isError":true`...)
	}
	if complete {
		dst = append(dst, `,"resultType":"complete"`...)
	}
	dst = append(dst, '}')
	return dst, dst[start:end]
}

// tapedResult is the tape's response body of a call whose result's
// content is content (appendToolResult): {"result": …} without the
// structuredContent that repeats the text. (The SDK's path tapes a 2026
// result before the SDK adds its _meta and resultType, so the tape has
// neither, whichever path answered.)
func tapedResult(content []byte, isError bool) []byte {
	taped := make([]byte, 0, len(`{"result":{`)+len(content)+len(`,"isError":true}}`))
	taped = append(append(taped, `{"result":{`...), content...)
	if isError {
		taped = append(taped, `,"isError":true`...)
	}
	return append(taped, "}}"...)
}

// tapedRequest is the tape's request body of a call, already encoded.
type tapedRequest json.RawMessage

// encodeCallRequest builds the tape's request body of a tools/call,
// exactly as json.Marshal of {"jsonrpc", "method", "params"} with
// mcp.CallToolParamsRaw params gives it, without the reflection and the
// map. meta is the params' _meta already encoded (nil when none). ok is
// false when the arguments hold what json.Marshal would escape (<, >, &,
// U+2028, U+2029); callers then marshal.
func encodeCallRequest(meta json.RawMessage, name string, args json.RawMessage) (tapedRequest, bool) {
	if bytes.ContainsAny(args, "<>&\u2028\u2029") {
		return nil, false
	}
	quoted, err := json.Marshal(name)
	if err != nil {
		return nil, false
	}
	const head = `{"jsonrpc":"2.0","method":"tools/call","params":{`
	buf := bytes.NewBuffer(make([]byte, 0, len(head)+len(`"_meta":,`)+len(meta)+len(`"name":`)+len(quoted)+len(`,"arguments":`)+len(args)+2))
	buf.WriteString(head)
	if meta != nil {
		buf.WriteString(`"_meta":`)
		buf.Write(meta)
		buf.WriteByte(',')
	}
	buf.WriteString(`"name":`)
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

// appendQuotedMarshalled appends json.Marshal(string(text)) for a text
// json.Marshal produced: such a text is valid UTF-8 with every control
// character, <, >, &, U+2028 and U+2029 already escaped, so of what
// json.Marshal escapes in a string only '"' and '\\' remain. It runs in
// one pass, without encoding/json's per-character table and UTF-8
// decoding.
func appendQuotedMarshalled(dst, text []byte) []byte {
	dst = append(dst, '"')
	last := 0
	for i, c := range text {
		if c == '"' || c == '\\' {
			dst = append(append(dst, text[last:i]...), '\\', c)
			last = i + 1
		}
	}
	return append(append(dst, text[last:]...), '"')
}
