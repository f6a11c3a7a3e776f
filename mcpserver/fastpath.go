package mcpserver

import (
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pomehq/pome/internal/capmap"
	"github.com/pomehq/pome/session"
	"github.com/pomehq/pome/twins"
)

// fastPath answers the one request agents send over and over — a single
// tools/call of a known tool, under a protocol version whose result shape
// is settled (2025-03-26 to 2026-07-28) — without the SDK's per-request
// session setup, whose JSON decoding allocates a 32 KiB buffer for every
// message it reads. Anything else (initialize, tools/list, batches,
// notifications, unknown tools, older versions, a call the SDK would
// refuse, malformed JSON) goes to the SDK's handler unchanged, and a test
// pins that both paths answer a call identically, byte for byte.
type fastPath struct {
	m       *session.Manager
	tw      *twins.Twin
	errBody ErrorBody
	maxBody int64
	sdk     http.Handler
	// serverInfo is the _meta of a 2026 result, encoded.
	serverInfo []byte
	lists      capmap.Map[string, *listAnswer]
	origins    *Origins
	element    func(w http.ResponseWriter, r *http.Request, body []byte)
}

// FastPath can be turned off to send every request through the SDK; tests
// use it to compare the two paths.
var FastPath = true

// fastVersions are the protocol versions whose tools/call exchange the
// fast path reproduces exactly.
var fastVersions = map[string]bool{version2026: true, "2025-11-25": true, "2025-06-18": true, "2025-03-26": true,
	"2024-11-05": true, "": true}

// version2026 is the stateless protocol (SEP-2575): each call carries the
// client's version and capabilities in params._meta and names its method
// and tool in headers, and each result carries the server's identity in
// its own _meta and a resultType. Go SDK clients speak it by default.
const version2026 = "2026-07-28"

// rpcRequest is decoded in one pass with its params; a request whose params
// are not an object of that shape fails to decode and goes to the SDK.
type rpcRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  rpcCallParams   `json:"params"`
}

type rpcCallParams struct {
	Meta      json.RawMessage `json:"_meta"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	// A retry of a call that asked the client for input; the fast path
	// never asks, so such a call is the SDK's to refuse.
	InputResponses json.RawMessage `json:"inputResponses"`
	RequestState   json.RawMessage `json:"requestState"`
}

// Keys of a call's _meta (SEP-2575).
const (
	metaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	metaClientInfo         = "io.modelcontextprotocol/clientInfo"
	metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	metaServerInfo         = "io.modelcontextprotocol/serverInfo"
)

// clientCapabilities is how the SDK reads a 2026 call's capabilities: a
// value that does not decode as this is refused, by the SDK.
type clientCapabilities struct {
	mcp.ClientCapabilities
	Roots *mcp.RootCapabilities `json:"roots,omitempty"`
}

// fastAnswers reports whether the fast path answers call req, which
// fastCall decoded from r's body, exactly as the SDK would. It takes only
// calls the SDK accepts; whatever the SDK would refuse, or answer in a way
// of its own, goes to the SDK. meta is the call's _meta as the SDK's tape
// row has it (nil when it has none).
func fastAnswers(r *http.Request, req rpcRequest) (meta json.RawMessage, ok bool) {
	if !fastRequest(r) || !null(req.Params.InputResponses) || !null(req.Params.RequestState) {
		return nil, false
	}
	var mi *metaInfo
	if !null(req.Params.Meta) {
		if mi = readMeta(req.Params.Meta); !mi.object {
			return nil, false
		}
		meta = mi.encoded
	}
	if r.Header.Get("Mcp-Protocol-Version") != version2026 {
		// A _meta that names a version asks for the 2026 checks.
		if mi != nil && mi.versioned {
			return nil, false
		}
		return meta, true
	}
	h := r.Header
	if mi == nil || !mi.accepts2026 || h.Get("Mcp-Method") != "tools/call" || h.Get("Mcp-Name") != req.Params.Name {
		return nil, false
	}
	return meta, true
}

// metaInfo is what a call's _meta tells the fast path.
type metaInfo struct {
	// object: it decodes as a JSON object.
	object bool
	// versioned: it names a protocol version, which asks the SDK for the
	// 2026 checks.
	versioned bool
	// accepts2026: it names 2026-07-28, with capabilities, and client info
	// if any, that the SDK can read.
	accepts2026 bool
	// encoded is the object decoded and encoded again, as the SDK's tape
	// row has it.
	encoded json.RawMessage
}

// metaCache keeps what was learned of each _meta seen (clients send the
// same one with every call), up to metaCacheMax values of up to
// metaCacheValueMax bytes each. Readers take no lock: the map is replaced,
// never changed, and only a _meta not seen before takes the writers' lock.
var metaCache struct {
	mu sync.Mutex
	m  atomic.Pointer[map[string]*metaInfo]
}

const (
	metaCacheMax      = 1024
	metaCacheValueMax = 2048
)

func readMeta(raw json.RawMessage) *metaInfo {
	if m := metaCache.m.Load(); m != nil {
		if mi := (*m)[string(raw)]; mi != nil {
			return mi
		}
	}
	mi := parseMeta(raw)
	if len(raw) > metaCacheValueMax {
		return mi
	}
	metaCache.mu.Lock()
	defer metaCache.mu.Unlock()
	var old map[string]*metaInfo
	if m := metaCache.m.Load(); m != nil {
		old = *m
	}
	if len(old) < metaCacheMax {
		next := make(map[string]*metaInfo, len(old)+1)
		maps.Copy(next, old)
		next[string(raw)] = mi
		metaCache.m.Store(&next)
	}
	return mi
}

// parseMeta reads a _meta as the SDK does.
func parseMeta(raw json.RawMessage) *metaInfo {
	var meta mcp.Meta
	if json.Unmarshal(raw, &meta) != nil || meta == nil {
		return &metaInfo{}
	}
	mi := &metaInfo{object: true}
	// An empty _meta is left out (omitempty), as the SDK's row leaves it.
	if len(meta) > 0 {
		encoded, err := json.Marshal(meta)
		if err != nil {
			return &metaInfo{}
		}
		mi.encoded = encoded
	}
	_, mi.versioned = meta[metaProtocolVersion]
	if v, _ := meta[metaProtocolVersion].(string); v != version2026 {
		return mi
	}
	var caps *clientCapabilities
	if !metaDecodes(meta, metaClientCapabilities, &caps) || caps == nil {
		return mi
	}
	if _, present := meta[metaClientInfo]; present {
		var info *mcp.Implementation
		if !metaDecodes(meta, metaClientInfo, &info) || info == nil {
			return mi
		}
	}
	mi.accepts2026 = true
	return mi
}

// metaDecodes reports whether meta's value at key decodes into v, as the
// SDK reads it: encoded again and decoded.
func metaDecodes(meta mcp.Meta, key string, v any) bool {
	raw, ok := meta[key]
	if !ok || raw == nil {
		return false
	}
	b, err := json.Marshal(raw)
	return err == nil && json.Unmarshal(b, v) == nil
}

// null reports whether a raw field was absent or JSON null.
func null(raw json.RawMessage) bool {
	return len(raw) == 0 || string(raw) == "null"
}

// fastRequest reports whether the request's transport is one the fast
// path answers (its body still to be looked at).
func fastRequest(r *http.Request) bool {
	return FastPath && r.Method == http.MethodPost && fastVersions[r.Header.Get("Mcp-Protocol-Version")] && acceptsBoth(r) && isJSON(r)
}

// isJSON reports whether the request's body is declared JSON.
func isJSON(r *http.Request) bool {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return mt == "application/json"
}

// fastCall decodes body as the single tools/call the fast path answers,
// and finds its action on tw.
func fastCall(tw *twins.Twin, body []byte) (rpcRequest, twins.Action, bool) {
	var req rpcRequest
	if json.Unmarshal(body, &req) != nil || req.JSONRPC != "2.0" || req.Method != "tools/call" || !validID(req.ID) {
		return req, nil, false
	}
	a, ok := tw.Action(req.Params.Name)
	return req, a, ok
}

// ToolCall reports what the request, whose body is body, is when it is a
// single JSON tools/call of one of tw's actions:
//
//   - read: the tool only reads, whichever protocol version and path (fast
//     or the SDK's) answer it. The data plane serves such a call from the
//     sandbox record it already holds, as it does a REST GET
//     (session.CallRead), and holds its answer until its row is taped; a
//     call it misjudges would only be refused and served again.
//   - write: the tool may write. The data plane holds the answer until the
//     write is stored with its row (session.CallWrite), whichever
//     path answers it: both run the call and tape it before the handler
//     returns (the SDK's path waits for the runs it started, passOn).
//
// A batch is neither: each of its requests is served as one of these on
// its own (Options.Element).
func ToolCall(tw *twins.Twin, r *http.Request, body []byte) (read, write bool) {
	if r.Method != http.MethodPost || !isJSON(r) {
		return false, false
	}
	_, a, ok := fastCall(tw, body)
	if !ok {
		return false, false
	}
	return a.Spec().Effect == twins.Read, a.Spec().Effect != twins.Read
}

func (f *fastPath) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if f.checkOrigin(w, r) {
		return
	}
	if r.Method != http.MethodPost {
		f.sdk.ServeHTTP(w, r)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, f.maxBody+1))
	if err != nil {
		f.refuse(w, r, body, true, http.StatusBadRequest, codeParseError, "the request body could not be read")
		return
	}
	if int64(len(body)) > f.maxBody {
		TooLarge(f, w, r, body, f.maxBody)
		return
	}
	f.serve(w, r, body, r.Context().Value(inBatchKey{}) == nil)
}

// inBatchKey marks the context of a batch's element: it may not be a
// batch itself.
type inBatchKey struct{}

// serve answers one POST whose body has been read: on the fast path when
// it can, else, once the body is known to be one JSON value and nothing
// after it (the SDK's decoder would run a call followed by garbage), as a
// batch, a cached tools/list, or by the SDK. top is false for an element
// of a batch, which may not be a batch itself.
func (f *fastPath) serve(w http.ResponseWriter, r *http.Request, body []byte, top bool) {
	if fastRequest(r) {
		if req, a, ok := fastCall(f.tw, body); ok {
			if meta, ok := fastAnswers(r, req); ok {
				f.serveCall(w, r, req, a, meta)
				return
			}
		}
	}
	if trimmed := bytes.TrimLeft(body, " \t\r\n"); len(trimmed) > 0 {
		if !json.Valid(trimmed) {
			f.refuse(w, r, body, false, http.StatusBadRequest, codeParseError, "parse error: the body is not one JSON value")
			return
		}
		if trimmed[0] == '[' {
			if !top {
				f.refuse(w, r, body, false, http.StatusBadRequest, codeInvalidRequest, "a batch may not hold a batch")
				return
			}
			f.serveBatch(w, r, trimmed)
			return
		}
		if f.serveToolsList(w, r, body) {
			return
		}
	}
	f.passOn(w, r, body)
}

// serveCall answers a tools/call on the fast path.
func (f *fastPath) serveCall(w http.ResponseWriter, r *http.Request, req rpcRequest, a twins.Action, meta json.RawMessage) {
	params := req.Params
	p := session.PrincipalFrom(r.Context())
	start := time.Now()
	ctx, call := twins.WithCall(r.Context())
	o := runTool(ctx, f.m, f.tw, a, params.Arguments, f.errBody)
	id, err := json.Marshal(req.ID)
	if err != nil {
		http.Error(w, "encode result", http.StatusInternalServerError)
		return
	}
	var serverInfo []byte
	v2026 := r.Header.Get("Mcp-Protocol-Version") == version2026
	if v2026 {
		serverInfo = f.serverInfo
	}
	// The same bytes as json.Marshal of the JSON-RPC response (a test pins
	// it), built in one buffer without re-scanning the encoded result: room
	// for the text twice (content and structuredContent), its escapes, the
	// _meta, the fixed parts and writeResult's newline.
	const head = `{"jsonrpc":"2.0","id":`
	escapes := bytes.Count(o.text, []byte{'"'}) + bytes.Count(o.text, []byte{'\\'})
	out := make([]byte, 0, len(head)+len(id)+2*len(o.text)+escapes+len(serverInfo)+256)
	out = append(append(append(out, head...), id...), `,"result":`...)
	out, content := appendToolResult(out, o, serverInfo, v2026)
	out = append(out, '}')
	if p == nil {
		writeResult(w, out)
		return
	}
	// The tape keeps the call as the SDK decoded it, _meta included.
	var taped any
	if req, ok := encodeCallRequest(meta, params.Name, params.Arguments); ok {
		taped = req
	} else {
		raw := &mcp.CallToolParamsRaw{Name: params.Name, Arguments: params.Arguments}
		if meta != nil && json.Unmarshal(meta, &raw.Meta) != nil {
			raw.Meta = nil
		}
		taped = raw
	}
	took := time.Since(start)
	// Where the store allows it the call takes its place on the tape now,
	// the answer leaves, and the row follows (session.Manager.ReserveTape).
	slot, reserved := f.m.ReserveTape(p.Sandbox, f.tw.Name)
	if reserved {
		defer slot.Abandon()
		writeResult(w, out)
		if fl, ok := w.(http.Flusher); ok {
			fl.Flush()
		}
	}
	record(ctx, f.m, f.tw, p, call, start, took, slot, "tools/call", params.Name, taped, nil, tapedResult(content, o.isError), nil)
	if !reserved {
		writeResult(w, out)
	}
}

// cacheControl is what the SDK's answers say.
var cacheControl = []string{"no-cache, no-transform"}

// writeResult sends the answer with its length: flushed before the handler
// returns (to tape after it), an answer without one would go out chunked,
// and its end in a second write.
func writeResult(w http.ResponseWriter, out []byte) {
	out = append(out, '\n')
	h := w.Header()
	h["Cache-Control"] = cacheControl
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(out)))
	w.WriteHeader(http.StatusOK)
	w.Write(out)
}

// acceptsBoth is the streamable HTTP rule: the client must accept JSON and
// event streams; a request that does not is the SDK's to refuse.
func acceptsBoth(r *http.Request) bool {
	a := strings.Join(r.Header.Values("Accept"), ",")
	return strings.Contains(a, "application/json") && strings.Contains(a, "text/event-stream")
}

// validID accepts the JSON-RPC ids the SDK accepts: strings and integers.
// id is valid JSON (it was decoded as part of the request).
func validID(id json.RawMessage) bool {
	if len(id) == 0 {
		return false
	}
	// The usual ids, a string or a short run of digits, without a decode.
	if id[0] == '"' {
		return true
	}
	if digits := bytes.TrimPrefix(id, []byte("-")); len(digits) > 0 && len(digits) <= 15 &&
		len(bytes.Trim(digits, "0123456789")) == 0 {
		return true
	}
	var v any
	if json.Unmarshal(id, &v) != nil {
		return false
	}
	switch t := v.(type) {
	case string:
		return true
	case float64:
		return t == float64(int64(t))
	}
	return false
}
