package mcpserver

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pomehq/pome/session"
	"github.com/pomehq/pome/tape"
	"github.com/pomehq/pome/twins"
)

// A twin's tool list never changes while the server runs, but the SDK
// encodes every tool's schema again for every tools/list: about a tenth of
// a second of CPU and hundreds of kilobytes for GitHub's, asked for at
// every connect (BenchmarkMCPToolsList). The first answer the SDK gives
// for a protocol version and params is kept, and later ones are that
// answer with the request's id, byte for byte what the SDK would send
// (fastPath.lists, up to listCacheMax of them).

// listAnswer is one kept tools/list answer.
type listAnswer struct {
	// result is the JSON-RPC result, encoded.
	result []byte
	// taped is the tape row's response body, {"result": …}, truncated.
	taped []byte
}

const (
	// listCacheMax bounds the answers kept per twin: one per protocol
	// version and params a client sends, which are few.
	listCacheMax = 64
	// listParamsMax is the largest params kept as a key.
	listParamsMax = 2048
)

// captureKey marks the context of a request the SDK answers untaped for
// the cache: the middleware keeps there the row body it would have taped
// (without what the SDK adds on the wire, such as a 2026 result's _meta).
type captureKey struct{}

// listRequest is a tools/list request as the cache reads it.
type listRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

// serveToolsList answers a single tools/list from the cache, filling it
// from the SDK's answer on a miss, and tapes it as the SDK's path does. It
// reports false, answering nothing, for any other request.
func (f *fastPath) serveToolsList(w http.ResponseWriter, r *http.Request, body []byte) bool {
	if !FastPath || !acceptsBoth(r) || !isJSON(r) {
		return false
	}
	var req listRequest
	if json.Unmarshal(body, &req) != nil || req.JSONRPC != "2.0" || req.Method != "tools/list" || !validID(req.ID) || len(req.Params) > listParamsMax {
		return false
	}
	key := r.Header.Get("Mcp-Protocol-Version") + "\x00" + r.Header.Get("Mcp-Method") + "\x00" + r.Header.Get("Mcp-Name") + "\x00" + string(req.Params)
	start := time.Now()
	ctx, call := twins.WithCall(r.Context())
	id, err := json.Marshal(req.ID)
	if err != nil {
		return false
	}
	a, ok := f.lists.Get(key)
	if !ok {
		if a = f.fillList(r, body); a == nil {
			return false
		}
		a = f.lists.Put(key, a)
	}
	const head = `{"jsonrpc":"2.0","id":`
	out := make([]byte, 0, len(head)+len(id)+len(`,"result":`)+len(a.result)+2)
	out = append(append(append(append(append(out, head...), id...), `,"result":`...), a.result...), '}')
	if p := session.PrincipalFrom(ctx); p != nil {
		var params *mcp.ListToolsParams
		if !null(req.Params) && json.Unmarshal(req.Params, &params) != nil {
			params = nil
		}
		if params == nil {
			// As the SDK's handler fills it in before the row is taped.
			params = &mcp.ListToolsParams{}
		}
		record(ctx, f.m, f.tw, p, call, start, time.Since(start), nil, "tools/list", "", params, nil, a.taped, nil)
	}
	writeResult(w, out)
	return true
}

// fillList asks the SDK for the answer to a tools/list, untaped, and keeps
// its result when it is one.
func (f *fastPath) fillList(r *http.Request, body []byte) *listAnswer {
	var taped []byte
	ctx := context.WithValue(session.WithPrincipal(r.Context(), nil), captureKey{}, &taped)
	sub := r.Clone(ctx)
	rec := &bufferedAnswer{header: http.Header{}}
	f.passOn(rec, sub, body)
	var resp struct {
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if rec.status != http.StatusOK || json.Unmarshal(rec.body.Bytes(), &resp) != nil || null(resp.Result) || !null(resp.Error) || taped == nil {
		return nil
	}
	return &listAnswer{
		result: resp.Result,
		taped:  tape.Truncate(taped),
	}
}
