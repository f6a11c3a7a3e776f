// Package mcpserver serves a twin's actions as MCP tools over stateless
// streamable HTTP. The server for a twin is built once from its action list;
// which sandbox a call belongs to travels in the request context, so any
// replica can answer any call and nothing is registered per request.
package mcpserver

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pomehq/pome/internal/capmap"
	"github.com/pomehq/pome/session"
	"github.com/pomehq/pome/tape"
	"github.com/pomehq/pome/twins"
)

// Version is reported to MCP clients as the server version.
var Version = "dev"

// ErrorBody renders a twin error the way the twin's REST surface would, so
// an isError result carries the vendor's own message and code.
type ErrorBody func(tw *twins.Twin, e *twins.Error) (status int, body any)

// Options are how a twin's MCP handler answers what is not a tool's to
// decide.
type Options struct {
	// ErrorBody renders a twin error in the vendor's shape.
	ErrorBody ErrorBody
	// MaxBody is the largest request body, in bytes.
	MaxBody int64
	// Origins are the browser origins allowed (nil: any).
	Origins *Origins
	// Element serves one request of a JSON-RPC batch (its body) as the
	// server serves a request of its own, so that each is authorized,
	// held and taped alone; nil serves it in place.
	Element func(w http.ResponseWriter, r *http.Request, body []byte)
}

// New returns the MCP handler of one twin.
func New(m *session.Manager, tw *twins.Twin, o Options) http.Handler {
	srv := Server(m, tw, o.ErrorBody)
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{
		Stateless:           true,
		JSONResponse:        true,
		MaxRequestBodyBytes: o.MaxBody,
		// The data plane already decided who may call; the sandbox URL may
		// be reached through any public host name (Origins guards against
		// DNS rebinding instead).
		DisableLocalhostProtection: true,
	})
	serverInfo, err := json.Marshal(mcp.Meta{metaServerInfo: implementation(tw)})
	if err != nil {
		panic(err)
	}
	return &fastPath{m: m, tw: tw, errBody: o.ErrorBody, maxBody: o.MaxBody, sdk: sdk, serverInfo: serverInfo, origins: o.Origins, element: o.Element,
		lists: capmap.Map[string, *listAnswer]{Max: listCacheMax}}
}

// implementation is how a twin's MCP server names itself.
func implementation(tw *twins.Twin) *mcp.Implementation {
	return &mcp.Implementation{Name: "pome-" + tw.Name, Title: "Pome " + tw.Title + " twin", Version: Version}
}

// Server builds the MCP server of a twin: one tool per action, plus the
// middleware that tapes every request.
func Server(m *session.Manager, tw *twins.Twin, errBody ErrorBody) *mcp.Server {
	srv := mcp.NewServer(implementation(tw), &mcp.ServerOptions{
		Instructions: "A Pome digital twin of " + tw.Title + ". Tools behave like the vendor's own MCP server, against this sandbox's state.",
	})
	for _, a := range tw.Actions {
		srv.AddTool(Tool(a), handler(m, tw, a, errBody))
	}
	srv.AddReceivingMiddleware(recordMiddleware(m, tw))
	return srv
}

// Tool is the MCP tool declaration of an action.
func Tool(a twins.Action) *mcp.Tool {
	s := a.Spec()
	destructive := s.Effect == twins.Destructive
	open := false
	t := &mcp.Tool{
		Name:        s.Name,
		Title:       s.Title,
		Description: s.Description,
		InputSchema: a.InputSchema(),
		Annotations: &mcp.ToolAnnotations{
			Title:           s.Title,
			ReadOnlyHint:    s.Effect == twins.Read,
			DestructiveHint: &destructive,
			OpenWorldHint:   &open,
		},
	}
	// An action with an MCP form of its own answers in the vendor's MCP
	// shape, which its output type does not describe.
	if out := a.OutputSchema(); out != nil && s.MCP == nil {
		t.OutputSchema = out
	}
	return t
}

func handler(m *session.Manager, tw *twins.Twin, a twins.Action, errBody ErrorBody) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return runTool(ctx, m, tw, a, req.Params.Arguments, errBody).result(), nil
	}
}

// toolOutput is what one tools/call produced, before it is an MCP result:
// its one text content (the action's output as JSON, or the error's text),
// whether json.Marshal produced that text, whether it is also the
// structured content, and whether it reports an error. The fast path
// encodes it as it is (appendToolResult); the SDK's path turns it into a
// CallToolResult.
type toolOutput struct {
	text       []byte
	marshalled bool
	structured bool
	isError    bool
	// resource, when set, follows the text as an embedded resource
	// (twins.MCPResult).
	resource *mcp.ResourceContents
}

// result is the CallToolResult o stands for.
func (o toolOutput) result() *mcp.CallToolResult {
	res := &mcp.CallToolResult{IsError: o.isError, Content: []mcp.Content{&mcp.TextContent{Text: string(o.text)}}}
	if o.resource != nil {
		res.Content = append(res.Content, &mcp.EmbeddedResource{Resource: o.resource})
	}
	if o.structured {
		res.StructuredContent = json.RawMessage(o.text)
	}
	return res
}

// runTool runs one action for an MCP tools/call, whichever path received
// it; every failure is an isError result, as MCP tools report errors.
func runTool(ctx context.Context, m *session.Manager, tw *twins.Twin, a twins.Action, args json.RawMessage, errBody ErrorBody) toolOutput {
	p := session.PrincipalFrom(ctx)
	if p == nil {
		return errorOutput(tw, twins.Errorf(twins.Unauthorized, "not_authed", "no sandbox for this call"), errBody)
	}
	ctx = twins.WithTransport(ctx, twins.TransportMCP)
	twins.CallFrom(ctx).SetTool(a.Name())
	in, err := a.Decode(args)
	if err != nil {
		return errorOutput(tw, twins.AsError(err), errBody)
	}
	// The output is encoded while the world is still held: it may point
	// into it.
	var o toolOutput
	_, err = m.Invoke(ctx, p.Sandbox, tw, a, in, func(out any) error {
		if r, ok := out.(*twins.MCPResult); ok {
			o = toolOutput{text: []byte(r.Text)}
			if rc := r.Resource; rc != nil {
				o.resource = &mcp.ResourceContents{URI: rc.URI, MIMEType: rc.MIMEType, Text: rc.Text, Blob: rc.Blob}
			}
			return nil
		}
		text, err := json.Marshal(out)
		o = toolOutput{text: text, marshalled: true}
		return err
	})
	if err != nil {
		return errorOutput(tw, twins.AsError(err), errBody)
	}
	o.structured = o.marshalled && a.Spec().MCP == nil && a.OutputSchema() != nil && len(o.text) > 0 && o.text[0] == '{'
	return o
}

func errorOutput(tw *twins.Twin, e *twins.Error, errBody ErrorBody) toolOutput {
	if errBody != nil {
		if _, body := errBody(tw, e); body != nil {
			if b, err := json.Marshal(body); err == nil {
				return toolOutput{text: b, marshalled: true, isError: true}
			}
		}
	}
	return toolOutput{text: []byte(e.Message), isError: true}
}

// recordMiddleware tapes every MCP request (not notifications): tools/call
// rows carry the action name, initialize and tools/list rows tool null.
func recordMiddleware(m *session.Manager, tw *twins.Twin) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			p := session.PrincipalFrom(ctx)
			if p == nil || strings.HasPrefix(method, "notifications/") {
				res, err := next(ctx, method, req)
				if c, ok := ctx.Value(captureKey{}).(*[]byte); ok && err == nil {
					*c, _ = json.Marshal(map[string]any{"result": res})
				}
				return res, err
			}
			// A request's run ends before its answer is settled: one that
			// starts after (its request gone) runs nothing.
			if t, _ := ctx.Value(inflightKey{}).(*inflight); t != nil {
				if !t.enter() {
					return nil, errRequestEnded
				}
				defer t.leave()
			}
			start := time.Now()
			ctx, call := twins.WithCall(ctx)
			res, err := next(ctx, method, req)
			tool := ""
			if method == "tools/call" {
				if params, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok {
					tool = params.Name
				}
			}
			record(ctx, m, tw, p, call, start, time.Since(start), nil, method, tool, req.GetParams(), res, nil, err)
			return res, err
		}
	}
}

// record writes the tape row of one MCP request: at slot when the call
// reserved one, else appended. params may be the whole request body already
// encoded (a tapedRequest). tapedBody, when not nil, is the row's response
// body already encoded (encodeToolResult).
func record(ctx context.Context, m *session.Manager, tw *twins.Twin, p *session.Principal, call *twins.Call,
	start time.Time, took time.Duration, slot *session.TapeSlot, method, tool string, params any, res mcp.Result, tapedBody []byte, err error) {
	c := tape.Call{
		At: p.Sandbox.Now(start), Twin: tw.Name, Transport: tape.TransportMCP,
		Method: http.MethodPost, Path: p.Path, MCPMethod: method, Status: http.StatusOK,
		Mutated: call.Mutated(), Delta: call.Delta(), Headers: p.Header, Latency: took, Secret: p.Token,
	}
	if _, known := tw.Action(tool); known {
		c.Tool = tool
	}
	if reqBody, ok := params.(tapedRequest); ok {
		c.RequestBody = tape.RedactJSON(reqBody)
	} else {
		c.RequestBody = marshalRedacted(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
	}
	switch {
	case err != nil:
		c.ResponseBody = marshalRedacted(map[string]any{"error": map[string]any{"message": err.Error()}})
	case tapedBody != nil:
		c.ResponseBody = tapedBody
	default:
		if ctr, ok := res.(*mcp.CallToolResult); ok {
			if _, b, ok := encodeToolResult(ctr); ok {
				c.ResponseBody = b
				break
			}
		}
		taped := res
		if ctr, ok := res.(*mcp.CallToolResult); ok && ctr.StructuredContent != nil {
			// structuredContent repeats the text content; tape it once.
			cp := *ctr
			cp.StructuredContent = nil
			taped = &cp
		}
		c.ResponseBody, _ = json.Marshal(map[string]any{"result": taped})
	}
	row := tape.NewRow(c)
	// A tape append that fails must not fail the call the agent made; the
	// store reports it through its own errors.
	_ = m.RecordIn(ctx, slot, p.Sandbox, row)
}

func marshalRedacted(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return tape.Truncate(tape.RedactJSON(b))
}
