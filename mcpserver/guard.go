package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/pomehq/pome/session"
	"github.com/pomehq/pome/tape"
)

// What one MCP POST may ask of the server. A JSON-RPC batch (protocol
// 2025-03-26 and earlier) runs its elements one after another, so its cost
// is bounded by how many there are and by how much they answer together:
// without both, a few hundred bytes of repeated tools/list made the server
// build and hold answers of hundreds of megabytes.
const (
	// MaxBatch is how many requests one batch may hold.
	MaxBatch = 32
	// MaxBatchAnswer is how many bytes of answers a batch collects before
	// its remaining requests are refused unrun. An answer is never cut:
	// the request that crosses the bound was run and its answer is kept
	// whole.
	MaxBatchAnswer = 4 << 20
)

// JSON-RPC error codes (JSON-RPC 2.0, section 5.1).
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	// codeBatchAnswer is a server error (-32000 to -32099) for a request of
	// a batch left unrun because the batch's answers reached MaxBatchAnswer.
	codeBatchAnswer = -32001
)

// rpcError is a JSON-RPC error answer; id is null where the request's id
// could not be read.
func rpcError(id json.RawMessage, code int, msg string) []byte {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{"2.0", id, struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{code, msg}})
	return b
}

// refuse answers a request the server will not run with a JSON-RPC error
// and status, and tapes it (tool null, nothing changed) when it came with
// a sandbox: the tape shows every request an agent made, also the ones
// refused before any method ran.
func (f *fastPath) refuse(w http.ResponseWriter, r *http.Request, body []byte, tooLarge bool, status, code int, msg string) {
	start := time.Now()
	answer := rpcError(nil, code, msg)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(answer)+1))
	w.WriteHeader(status)
	w.Write(append(answer, '\n'))
	p := session.PrincipalFrom(r.Context())
	if p == nil {
		return
	}
	reqBody := tape.RedactJSON(body)
	if tooLarge || !json.Valid(body) {
		reqBody = tape.TruncatedBody(body, int(max(r.ContentLength, int64(len(body)))))
	}
	row := tape.NewRow(tape.Call{
		At: p.Sandbox.Now(start), Twin: f.tw.Name, Transport: tape.TransportMCP,
		Method: r.Method, Path: p.Path, Status: status, Headers: p.Header,
		RequestBody: reqBody, ResponseBody: answer, Latency: time.Since(start), Secret: p.Token,
	})
	_ = f.m.RecordIn(r.Context(), nil, p.Sandbox, row)
}

// TooLarge answers an MCP request whose body is over limit bytes (head is
// its first bytes) with 413 and a JSON-RPC error, as the REST surfaces
// answer 413 in each vendor's shape, and tapes it.
func TooLarge(h http.Handler, w http.ResponseWriter, r *http.Request, head []byte, limit int64) {
	msg := fmt.Sprintf("request body exceeds %d bytes", limit)
	if f, ok := h.(*fastPath); ok {
		f.refuse(w, r, head, true, http.StatusRequestEntityTooLarge, codeInvalidRequest, msg)
		return
	}
	http.Error(w, msg, http.StatusRequestEntityTooLarge)
}

// serveBatch runs a JSON-RPC batch (body is valid JSON, an array) one
// element at a time through the same paths as a single request — so each
// is taped and answered as it would be alone — within MaxBatch and
// MaxBatchAnswer. Protocol versions that have no batches (2025-06-18 on)
// are the SDK's to refuse, once the batch is known to be small.
func (f *fastPath) serveBatch(w http.ResponseWriter, r *http.Request, body []byte) {
	elems, ok := batchElements(body)
	switch {
	case !ok:
		f.refuse(w, r, body, false, http.StatusBadRequest, codeInvalidRequest,
			fmt.Sprintf("a batch may hold at most %d requests; send the rest in another", MaxBatch))
		return
	case len(elems) == 0:
		f.refuse(w, r, body, false, http.StatusBadRequest, codeInvalidRequest, "empty batch")
		return
	}
	if v := r.Header.Get("Mcp-Protocol-Version"); v >= "2025-06-18" {
		f.passOn(w, r, body)
		return
	}
	answers := make([][]byte, 0, len(elems))
	total := 0
	for _, e := range elems {
		if r.Context().Err() != nil {
			return
		}
		id, isCall := elementID(e)
		if total >= MaxBatchAnswer {
			if isCall {
				answers = append(answers, rpcError(id, codeBatchAnswer,
					fmt.Sprintf("not run: this batch's answers reached %d bytes; send this request again on its own", MaxBatchAnswer)))
			}
			continue
		}
		sub := r.Clone(context.WithValue(r.Context(), inBatchKey{}, true))
		sub.ContentLength = int64(len(e))
		rec := &bufferedAnswer{header: http.Header{}}
		if f.element != nil {
			f.element(rec, sub, e)
		} else {
			f.serve(rec, sub, e, false)
		}
		a := rec.element(id, isCall)
		total += len(a)
		if a != nil {
			answers = append(answers, a)
		}
	}
	if len(answers) == 0 {
		// Only notifications: nothing to answer, as the SDK answers them.
		w.WriteHeader(http.StatusAccepted)
		return
	}
	out := append(append([]byte{'['}, bytes.Join(answers, []byte{','})...), ']')
	writeResult(w, out)
}

// batchElements splits a batch into its elements, refusing (ok false) one
// of more than MaxBatch without reading past the first MaxBatch+1.
func batchElements(body []byte) (elems []json.RawMessage, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(body))
	if _, err := dec.Token(); err != nil {
		return nil, false
	}
	for dec.More() {
		if len(elems) == MaxBatch {
			return nil, false
		}
		var e json.RawMessage
		if dec.Decode(&e) != nil {
			return nil, false
		}
		elems = append(elems, e)
	}
	return elems, true
}

// elementID reads the id of a batch element, and whether it is a request
// that expects an answer (a notification has no id).
func elementID(e json.RawMessage) (json.RawMessage, bool) {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(e, &m) != nil {
		return nil, true
	}
	return m.ID, len(m.ID) > 0
}

// bufferedAnswer keeps the answer to one element of a batch.
type bufferedAnswer struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (b *bufferedAnswer) Header() http.Header { return b.header }
func (b *bufferedAnswer) Write(p []byte) (int, error) {
	if b.status == 0 {
		b.status = http.StatusOK
	}
	return b.body.Write(p)
}
func (b *bufferedAnswer) WriteHeader(status int) {
	if b.status == 0 {
		b.status = status
	}
}

// element is the buffered answer as an element of the batch's answer: the
// JSON-RPC response as it was, nothing for a notification, and a JSON-RPC
// error for a refusal that was not one (the SDK refuses in plain text).
func (b *bufferedAnswer) element(id json.RawMessage, isCall bool) []byte {
	out := bytes.TrimSpace(b.body.Bytes())
	if b.status == http.StatusAccepted || (len(out) == 0 && !isCall) {
		return nil
	}
	if len(out) > 0 && out[0] == '{' && json.Valid(out) {
		return out
	}
	msg := string(out)
	if msg == "" {
		msg = http.StatusText(b.status)
	}
	return rpcError(id, codeInvalidRequest, msg)
}

// passOn hands a request whose body was already read to the SDK, and
// returns only once every method it started for the request has ended.
// The SDK runs methods in goroutines of its own, which can outlive the
// request (a client that went away): a write such a run made after the
// data plane settled the request would be stored without its tape row.
func (f *fastPath) passOn(w http.ResponseWriter, r *http.Request, body []byte) {
	t := &inflight{}
	r = r.WithContext(context.WithValue(r.Context(), inflightKey{}, t))
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	f.sdk.ServeHTTP(w, r)
	t.close()
}

// inflight counts the methods the SDK runs for one request.
type inflight struct {
	mu     sync.Mutex
	closed bool
	wg     sync.WaitGroup
}

type inflightKey struct{}

// errRequestEnded answers a method whose request ended before it started.
var errRequestEnded = errors.New("the request ended before this call started; nothing was done")

// enter reports whether a method may start: not once the request ended.
func (t *inflight) enter() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return false
	}
	t.wg.Add(1)
	return true
}

func (t *inflight) leave() { t.wg.Done() }

// close lets no more methods start and waits for those running.
func (t *inflight) close() {
	t.mu.Lock()
	t.closed = true
	t.mu.Unlock()
	t.wg.Wait()
}
