package rest

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/pomehq/pome/mcpserver"
	"github.com/pomehq/pome/session"
	"github.com/pomehq/pome/tape"
	"github.com/pomehq/pome/twins"
)

// dataPlane serves {base}/{twin}/s/{sid}/…: it decides who is calling
// before any twin runs (one opaque 404 for every refusal), then hands the
// request to the twin's REST routes, its MCP endpoint or the _pome reads.
//
// Every call it serves (REST, GraphQL, MCP, each request of an MCP batch)
// goes through a session.Call (serveCall), which owns the call's
// consistency: authorization, speculative reads, writes held until stored
// with their tape row, serving a call again. What stays here is HTTP's
// side of it: what kind of call a request is, where a held answer waits,
// the rate limit, and refusals in the twin's envelope.
type dataPlane struct {
	srv     *Server
	routers map[string]*routeTable
	mcp     map[string]http.Handler
	// answers keeps reads' answers per world version (nil: none kept).
	answers *answerCache
}

func newDataPlane(s *Server) *dataPlane {
	d := &dataPlane{srv: s, routers: map[string]*routeTable{}, mcp: map[string]http.Handler{}, answers: newAnswerCache(s.cfg.AnswerCacheBytes)}
	for _, tw := range s.Registry.All() {
		d.routers[tw.Name] = d.twinRouter(tw)
		d.mcp[tw.Name] = mcpserver.New(s.Manager, tw, mcpserver.Options{
			ErrorBody: twinErrorBody, MaxBody: s.cfg.MaxBodyBytes, Origins: s.origins, Element: d.serveElement,
		})
	}
	return d
}

// twinRouter mounts every binding of every action of the twin, plus the
// twin's alias prefixes; anything else is the loud unsupported answer.
func (d *dataPlane) twinRouter(tw *twins.Twin) *routeTable {
	root := "/" + tw.Name + "/s/{pome_sid}"
	t := newRouteTable(root, d.notImplemented(tw))
	actions := tw.Actions
	if tw.GraphQL != nil {
		actions = append(slices.Clip(actions), tw.GraphQL)
	}
	for _, a := range actions {
		for _, b := range a.Spec().Bindings {
			h := d.bindingHandler(tw, a, b)
			t.add(b.Method, root+b.Path, h)
			for from, to := range tw.AliasPrefixes {
				if strings.HasPrefix(b.Path, from) {
					t.add(b.Method, root+to+strings.TrimPrefix(b.Path, from), h)
				}
			}
		}
	}
	t.build()
	return t
}

// ServeHTTP routes one data-plane request.
func (d *dataPlane) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	twinName, sid, rest, ok := splitDataPath(r.URL.Path)
	if !ok {
		if !d.serveRoot(w, r) {
			opaque404(w)
		}
		return
	}
	tw, ok := d.srv.Registry.Get(twinName)
	if !ok {
		opaque404(w)
		return
	}
	// Bodies are read once, bounded, before anything else: the token may
	// be in a form field, and the tape keeps what was sent.
	body, tooLarge, err := readBody(w, r, d.srv.cfg.MaxBodyBytes)
	if err != nil {
		refuse(w, tw, rest, extractToken(r, tw, nil))
		return
	}
	token := extractToken(r, tw, body)
	d.serveCall(w, r, tw, sid, rest, body, tooLarge, token)
}

// serveElement serves one request of an MCP batch as a call of its own:
// authorized, held and retried on its own, so that a write in a batch is
// stored with its row like any other, and a conflict serves again only
// the request that met it.
func (d *dataPlane) serveElement(w http.ResponseWriter, r *http.Request, body []byte) {
	p := session.PrincipalFrom(r.Context())
	if p == nil {
		opaque404(w)
		return
	}
	d.serveCall(w, r, p.Twin, p.Sandbox.ID, "/mcp", body, false, p.Token)
}

// serveCall serves one call once its body is read and its credential
// found, through a session.Call, which owns the call's consistency
// (authorization, speculative reads, held writes, serving again). What is
// left here is HTTP's part: what kind of call the request is, where a
// held answer waits, one count against the rate limit however many
// attempts the call takes, and the refusals in the twin's envelope.
func (d *dataPlane) serveCall(w http.ResponseWriter, r *http.Request, tw *twins.Twin, sid, rest string, body []byte, tooLarge bool, token string) {
	call := d.srv.Manager.NewCall(sid, tw.Name, token)
	kind := func() session.CallKind { return callKind(tw, r, rest, body) }
	var held *heldResponse
	var rate rateState
	rated := false
	err := call.Do(r.Context(), kind, func(a session.Attempt) {
		out := w
		held = nil
		if a.Held {
			held = &heldResponse{header: http.Header{}}
			out = held
		}
		if !rated {
			// One call counts once against the rate limit, however many
			// attempts it takes.
			var allowed bool
			rate, allowed = d.srv.allow(a.Sandbox.ID, tw.Name)
			rate.denied = !allowed
			rated = true
		}
		d.serveAuthorized(out, r, tw, a.Sandbox, a.Role, token, body, tooLarge, rest, rate)
	})
	switch {
	case errors.Is(err, session.ErrDenied):
		refuse(w, tw, rest, token)
	case err != nil:
		writeTwinError(w, tw, twins.Errorf(twins.Unavailable, "unavailable", "the sandbox store is unavailable; retry shortly"))
	case held != nil:
		held.sendTo(w)
	}
}

// callKind says what a request may do to the twin's state: a REST GET
// reads, any other method but HEAD may write, an MCP tools/call is what
// its tool is (never the GET on /mcp, which opens an event stream, nor a
// batch, whose requests are calls of their own), and Pome's own paths
// never touch twin state.
func callKind(tw *twins.Twin, r *http.Request, rest string, body []byte) session.CallKind {
	switch {
	case rest == "/mcp":
		switch read, write := mcpserver.ToolCall(tw, r, body); {
		case read:
			return session.CallRead
		case write:
			return session.CallWrite
		}
		return session.CallOther
	case strings.HasPrefix(rest, "/_pome/"), rest == "/openapi.json", r.Method == http.MethodHead:
		return session.CallOther
	case r.Method == http.MethodGet:
		return session.CallRead
	}
	return session.CallWrite
}

// serveAuthorized serves a data-plane request once its sandbox record and
// the caller's role are known.
func (d *dataPlane) serveAuthorized(w http.ResponseWriter, r *http.Request, tw *twins.Twin, sb *session.Sandbox, role session.Role,
	token string, body []byte, tooLarge bool, rest string, rate rateState) {
	p := &session.Principal{Sandbox: sb, Twin: tw, Role: role, Token: token, Path: r.URL.Path, Header: r.Header}
	ctx := session.WithPrincipal(r.Context(), p)

	switch {
	case strings.HasPrefix(rest, "/_pome/"):
		if role != session.RoleAuth || r.Method != http.MethodGet {
			opaque404(w)
			return
		}
		d.servePome(w, r.WithContext(ctx), sb, tw, strings.TrimPrefix(rest, "/_pome/"))
		return
	case rest == "/openapi.json" && r.Method == http.MethodGet:
		writeJSON(w, http.StatusOK, d.srv.openAPI(tw, sb.ID))
		return
	}
	if sb.State != session.StateReady {
		refuse(w, tw, rest, token)
		return
	}
	if rate.denied {
		d.serveTaped(ctx, w, r, tw, p, body, tooLarge, func(w http.ResponseWriter, r *http.Request) {
			rate.setHeaders(w.Header())
			writeRateLimited(w, tw, rate)
		})
		return
	}
	if rest == "/mcp" {
		rate.setHeaders(w.Header())
		r = r.WithContext(ctx)
		if tooLarge {
			mcpserver.TooLarge(d.mcp[tw.Name], w, r, body, d.srv.cfg.MaxBodyBytes)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		d.mcp[tw.Name].ServeHTTP(w, r)
		return
	}
	d.serveTaped(ctx, w, r, tw, p, body, tooLarge, func(w http.ResponseWriter, r *http.Request) {
		rate.setHeaders(w.Header())
		if tooLarge {
			writeTwinError(w, tw, twins.Errorf(twins.TooLarge, "request_too_large", "request body exceeds %d bytes", d.srv.cfg.MaxBodyBytes))
			return
		}
		d.routers[tw.Name].ServeHTTP(w, r)
	})
}

// heldResponse keeps a speculative answer (see ServeHTTP) until the call
// is known to stand.
type heldResponse struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (h *heldResponse) Header() http.Header { return h.header }

func (h *heldResponse) WriteHeader(code int) {
	if h.status == 0 {
		h.status = code
	}
}

func (h *heldResponse) Write(p []byte) (int, error) {
	h.WriteHeader(http.StatusOK)
	return h.body.Write(p)
}

// sendTo writes the held answer to w.
func (h *heldResponse) sendTo(w http.ResponseWriter) {
	dst := w.Header()
	for k, v := range h.header {
		dst[k] = v
	}
	w.WriteHeader(cmp.Or(h.status, http.StatusOK))
	w.Write(h.body.Bytes())
}

// serveRoot serves a vendor path at the server root for twins that declare
// RootPaths, finding the sandbox from the id embedded in the provider
// credential; the request then goes through the ordinary data plane (and
// its authorization) under the sandbox's own path. It reports false when no
// twin claims the request.
func (d *dataPlane) serveRoot(w http.ResponseWriter, r *http.Request) bool {
	for _, tw := range d.srv.Registry.All() {
		for _, p := range tw.RootPaths {
			if !strings.HasPrefix(r.URL.Path, p) {
				continue
			}
			tok := extractToken(r, tw, nil)
			sid, ok := session.SandboxIDInToken(tw.TokenPrefix, tok)
			if !ok {
				if tw.TokenPrefix != "" && strings.HasPrefix(tok, tw.TokenPrefix) {
					// The vendor's credential, naming no sandbox: the
					// twin's refusal, as for a sandbox that does not exist
					// (Stripe's 401 rather than the control plane's).
					refuse(w, tw, r.URL.Path, tok)
					return true
				}
				continue
			}
			r2 := r.Clone(r.Context())
			r2.URL.Path = "/" + tw.Name + "/s/" + sid + r.URL.Path
			r2.URL.RawPath = ""
			d.ServeHTTP(w, r2)
			return true
		}
	}
	return false
}

// serveTaped runs h and records one REST tape row for it. A body cut at
// the request limit is taped as a truncation marker even when the limit is
// under the tape's own, so the tape never shows a cut body as if complete.
// Where the store allows it (ReserveTape), the response is sent before the
// row is built and written.
func (d *dataPlane) serveTaped(ctx context.Context, w http.ResponseWriter, r *http.Request, tw *twins.Twin, p *session.Principal, body []byte, tooLarge bool, h http.HandlerFunc) {
	start := time.Now()
	ctx, call := twins.WithCall(ctx)
	// The request's scope and the response's recorder live as long as
	// each other: one allocation.
	both := &struct {
		scope reqScope
		rec   recorder
	}{reqScope{body: body}, recorder{ResponseWriter: w, status: http.StatusOK}}
	scope, rec := &both.scope, &both.rec
	ctx = withScope(ctx, scope)
	if tw.RequestIDHeader != "" {
		w.Header().Set(tw.RequestIDHeader, "req_"+session.NewRequestID())
	}
	if tw.ResponseHeaders != nil {
		tw.ResponseHeaders(p.Sandbox.Now(d.srv.Manager.Now()), w.Header())
	}
	h(rec, r.WithContext(ctx))
	took := time.Since(start)
	// Where the store allows it, the call takes its place on the tape now
	// and the answer leaves before the row is built and written.
	slot, reserved := d.srv.Manager.ReserveTape(p.Sandbox, tw.Name)
	if reserved {
		defer slot.Abandon()
		rec.Flush()
	}
	reqBody := requestBodyJSON(r.Header.Get("Content-Type"), body, scope.form)
	if tooLarge {
		reqBody = tape.TruncatedBody(body, int(max(r.ContentLength, int64(len(body))+1)))
	}
	row := tape.NewRow(tape.Call{
		At: p.Sandbox.Now(start), Twin: tw.Name, Transport: tape.TransportREST,
		Method: r.Method, Path: r.URL.Path, Tool: call.Tool(), Status: rec.status, Mutated: call.Mutated(),
		Delta: call.Delta(), Query: r.URL.Query(), Headers: r.Header,
		RequestBody: reqBody, ResponseBody: rec.responseBody(), Latency: took, Secret: p.Token,
	})
	// A speculative read or a held write that the store refused is served
	// again; only a row lost for good is worth a line.
	if err := d.srv.Manager.RecordIn(ctx, slot, p.Sandbox, row); err != nil && !p.Sandbox.Speculative() && !p.Sandbox.Stale() {
		d.srv.log().Error("tape append failed", "sandbox", p.Sandbox.ID, "twin", tw.Name, "err", err)
	}
}

// bindingHandler adapts one REST binding to its action.
func (d *dataPlane) bindingHandler(tw *twins.Twin, a twins.Action, b twins.Binding) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := twins.WithHeaders(twins.WithTransport(r.Context(), twins.TransportREST), r.Header)
		twins.CallFrom(ctx).SetTool(a.Name())
		scope := scopeFrom(ctx)
		// The sandbox's id is the data plane's, not an argument; the
		// others are unescaped once, here.
		vars := scope.vars[:0]
		for _, v := range scope.vars {
			if v.name == "pome_sid" {
				continue
			}
			if u, err := url.PathUnescape(v.value); err == nil {
				v.value = u
			}
			vars = append(vars, v)
		}
		scope.vars = vars
		p := session.PrincipalFrom(ctx)
		// A read whose answer is kept for this version of the world is
		// answered from the cache (answers.go).
		var slot, key string
		var deps *twins.ReadDeps
		var readVer *uint64 // set by the read, when its answer may be kept
		if d.answers != nil && p != nil && a.Spec().Effect == twins.Read && r.Method != http.MethodHead && len(scope.body) <= maxKeyBody {
			if ver, ok := d.srv.Manager.WorldVersion(p.Sandbox, tw.Name); ok {
				slot, key = answerSlotKey(p.Sandbox, tw.Name), answerRequestKey(r, p.Role, scope.body)
				// Version 0: the call has not established one yet (Redis,
				// see session.RedisStore.WorldVersion); the read says
				// which it ran on, and its answer is kept for that.
				if ver != 0 {
					if ans := d.answers.get(slot, ver, key, r.Header); ans != nil {
						serveAnswer(w, r, ans)
						return
					}
				}
				deps, readVer = &twins.ReadDeps{}, new(uint64)
				ctx = session.WithReadVersion(twins.WithReadDeps(ctx, deps), readVer)
			}
		}
		in, err := decodeInput(tw, a, b, request{vars: vars, query: r.URL.Query(), contentType: r.Header.Get("Content-Type"), body: scope.body, form: &scope.form})
		if err != nil {
			writeTwinError(w, tw, err)
			return
		}
		// The answer is shaped and encoded while the world is still held:
		// an output may point into it. What the function sets is one value
		// (on the heap once rather than once for each).
		var res struct {
			headers [][2]string
			enc     []byte
			raw     *twins.Raw
			status  int
		}
		res.status = b.SuccessStatus()
		_, err = d.srv.Manager.Invoke(ctx, p.Sandbox, tw, a, in, func(out any) error {
			if b.Headers != nil {
				res.headers = b.Headers(in, out)
			}
			if b.StatusOf != nil {
				res.status = b.StatusOf(in, out)
			}
			if res.status == http.StatusNoContent {
				return nil
			}
			body := out
			if b.Shape != nil {
				body = b.Shape(in, out)
			}
			if r, ok := body.(twins.Raw); ok {
				res.raw = &r
				return nil
			}
			var err error
			res.enc, err = json.Marshal(body)
			return err
		})
		headers, enc, raw, status := res.headers, res.enc, res.raw, res.status
		var keep *answer
		if deps != nil && err == nil && raw == nil && *readVer != 0 && !deps.Clock() {
			keep = &answer{status: status, body: enc, deps: depsOf(deps, r.Header)}
		}
		for k, v := range twins.CallFrom(ctx).ResponseHeaders() {
			w.Header().Set(k, v)
			if keep != nil {
				keep.headers = append(keep.headers, [2]string{k, v})
			}
		}
		if err != nil {
			writeTwinError(w, tw, err)
			return
		}
		for _, kv := range headers {
			w.Header().Set(kv[0], kv[1])
			if keep != nil {
				keep.headers = append(keep.headers, kv)
			}
		}
		if status == http.StatusNoContent {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		if raw != nil {
			w.Header().Set("Content-Type", raw.ContentType)
			w.Header().Set("Content-Length", strconv.Itoa(len(raw.Body)))
			w.WriteHeader(status)
			io.WriteString(w, raw.Body)
			return
		}
		if tw.ETags && r.Method == http.MethodGet {
			sum := sha256.Sum256(enc)
			etag := `W/"` + hex.EncodeToString(sum[:16]) + `"`
			if keep != nil {
				keep.etag = etag
				d.answers.put(slot, *readVer, key, keep)
				keep = nil
			}
			w.Header().Set("ETag", etag)
			if inm := r.Header.Get("If-None-Match"); inm != "" && etagMatches(inm, etag) {
				w.WriteHeader(http.StatusNotModified)
				return
			}
		}
		if keep != nil {
			d.answers.put(slot, *readVer, key, keep)
		}
		writeRaw(w, status, enc)
	})
}

// etagMatches reports whether an If-None-Match header names etag (weak
// comparison, as for GET).
func etagMatches(header, etag string) bool {
	for _, part := range strings.Split(header, ",") {
		p := strings.TrimSpace(part)
		if p == "*" || strings.TrimPrefix(p, "W/") == strings.TrimPrefix(etag, "W/") {
			return true
		}
	}
	return false
}

// notImplemented is the loud answer for vendor paths the twin does not
// cover: never a fake 200. It is a NotImplemented error carrying a
// twins.Unsupported, which the twin renders in its vendor's envelope with a
// status its SDKs take as final (SPEC §10); the tape row keeps tool null.
func (d *dataPlane) notImplemented(tw *twins.Twin) http.Handler {
	var supported []string
	actions := tw.Actions
	if tw.GraphQL != nil {
		// A twin whose API is GraphQL (Linear) has no other surface.
		actions = append(slices.Clip(actions), tw.GraphQL)
	}
	for _, a := range actions {
		for _, b := range a.Spec().Bindings {
			supported = append(supported, b.Method+" "+openAPIPath(b.Path))
		}
	}
	sort.Strings(supported)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := session.PrincipalFrom(r.Context())
		vendorPath := r.URL.Path
		if p != nil {
			vendorPath = strings.TrimPrefix(r.URL.Path, "/"+tw.Name+"/s/"+p.Sandbox.ID)
		}
		u := &twins.Unsupported{
			Unsupported: true, Twin: tw.Name, Method: r.Method, Path: vendorPath,
			Message:          "Pome's " + tw.Name + " twin does not implement " + r.Method + " " + vendorPath + ". Nothing was changed. The surfaces it covers are listed under pome.supported in this answer and in its OpenAPI document.",
			Supported:        supported,
			DocumentationURL: d.srv.Manager.TwinURLs(sidOf(p), tw.Name).OpenAPIURL,
		}
		if tw.RESTError == nil {
			writeJSON(w, http.StatusNotImplemented, map[string]any{
				"ok": false, "error": "not_implemented", "message": u.Message, "twin": u.Twin,
				"method": u.Method, "path": u.Path, "supported": u.Supported,
				"documentation_url": u.DocumentationURL, twins.UnsupportedKey: u,
			})
			return
		}
		e := twins.Errorf(twins.NotImplemented, "", "%s", u.Message).With(twins.UnsupportedKey, u)
		writeTwinError(w, tw, e)
	})
}

func sidOf(p *session.Principal) string {
	if p == nil {
		return ""
	}
	return p.Sandbox.ID
}

// servePome serves the Pome reads: tape and state. They never add a row.
func (d *dataPlane) servePome(w http.ResponseWriter, r *http.Request, sb *session.Sandbox, tw *twins.Twin, what string) {
	switch what {
	case "tape":
		d.srv.serveTape(w, r, sb, tw.Name)
	case "state":
		d.srv.serveState(w, r, sb, tw.Name)
	case "events":
		d.srv.serveEvents(w, r, sb, tw.Name)
	default:
		opaque404(w)
	}
}

// splitDataPath splits /{twin}/s/{sid}/rest: twin is lowercase letters,
// sid is not empty and has no "/", rest is empty or starts with "/" and has
// no newline. It is
// on every data-plane request, so it cuts the path by hand.
func splitDataPath(p string) (twin, sid, rest string, ok bool) {
	if len(p) < 2 || p[0] != '/' {
		return "", "", "", false
	}
	i := 1
	for i < len(p) && p[i] >= 'a' && p[i] <= 'z' {
		i++
	}
	if i == 1 || !strings.HasPrefix(p[i:], "/s/") {
		return "", "", "", false
	}
	twin, p = p[1:i], p[i+3:]
	sid, rest = p, ""
	if j := strings.IndexByte(p, '/'); j >= 0 {
		sid, rest = p[:j], p[j:]
	}
	// The rest is one line: a path with a newline after the sandbox id is
	// not a twin path.
	if sid == "" || strings.IndexByte(rest, '\n') >= 0 {
		return "", "", "", false
	}
	return twin, sid, rest, true
}

// readBody reads at most limit bytes; a larger body is reported as too
// large (its first bytes are kept for the tape).
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, bool, error) {
	if r.Body == nil || r.Body == http.NoBody {
		// The server's body of a request without one: nothing to read,
		// and no buffer to make for it.
		return nil, false, nil
	}
	b, err := readUpTo(r.Body, limit+1, r.ContentLength)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return b, true, nil
		}
		return nil, false, err
	}
	if int64(len(b)) > limit {
		return b[:limit], true, nil
	}
	return b, false, nil
}

// readUpTo reads body to its end or to max bytes, whichever comes first.
// A body that says its length (size, -1 when unknown) is read into a
// buffer of that length and one byte more, in which the end is found
// without growing it: io.ReadAll's first buffer is 512 bytes, most of
// them unused by a write's body of a few dozen, and it was a twentieth of
// what such a write allocated. net/http's body never gives more than the
// length it said.
func readUpTo(body io.Reader, max, size int64) ([]byte, error) {
	if size < 0 || size >= max {
		return io.ReadAll(io.LimitReader(body, max))
	}
	b := make([]byte, 0, size+1)
	for {
		n, err := body.Read(b[len(b):min(int64(cap(b)), max)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil || int64(len(b)) >= max {
			return b, err
		}
		if len(b) == cap(b) {
			// A reader that gives more than it said.
			b = append(b, 0)[:len(b)]
		}
	}
}

// extractToken finds the credential the way vendor SDKs send it:
// Authorization Bearer/token (GitHub, Slack, Google, Stripe), Basic with the
// key as user (Stripe), or a token form/query field (Slack).
func extractToken(r *http.Request, tw *twins.Twin, body []byte) string {
	if h := r.Header.Get("Authorization"); h != "" {
		scheme, val, _ := strings.Cut(h, " ")
		val = strings.TrimSpace(val)
		switch strings.ToLower(scheme) {
		case "bearer", "token":
			return val
		case "basic":
			raw, err := base64.StdEncoding.DecodeString(val)
			if err != nil {
				return ""
			}
			user, pass, _ := strings.Cut(string(raw), ":")
			if user != "" {
				return user
			}
			return pass
		}
		if tw.BareCredential && !strings.ContainsAny(strings.TrimSpace(h), " \t") {
			return strings.TrimSpace(h)
		}
		return ""
	}
	if tw.TokenInBody {
		if t := r.URL.Query().Get("token"); t != "" {
			return t
		}
		mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if mt == "application/x-www-form-urlencoded" {
			if form, err := url.ParseQuery(string(body)); err == nil {
				return form.Get("token")
			}
		}
	}
	return ""
}
