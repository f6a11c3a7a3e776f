package rest

import (
	"net/http"
	"strings"

	"github.com/gorilla/mux"
)

// routeTable is a twin's REST routes split by method and by the number of
// path segments, each part a gorilla/mux router. mux tries its routes one
// after another and runs each one's path regexp, so one router for the
// ~170 routes of a twin spent most of its time rejecting routes that could
// never match; a part holds only routes that can. Within a part the routes
// keep the order they were added in, so the first match is the one a single
// router would have picked.
//
// Routes with no variable after the sandbox prefix (Slack's /api/chat.postMessage)
// are also found by exact path, when no earlier route would take that path.
type routeTable struct {
	routes []tableRoute
	parts  map[routeKey]*mux.Router
	// exact maps method + " " + path after the sandbox prefix to a route
	// with no variables there.
	exact map[string]http.Handler
	// prefix is the sandbox prefix every route starts with, with its one
	// variable: "/{twin}/s/{pome_sid}".
	prefix string
	// top is the part for requests with at least this many segments.
	top int
	ni  http.Handler
}

type tableRoute struct {
	method, path string
	h            http.Handler
	// segs is the path's segment count; open routes have a variable that
	// may span segments and match any count from segs up.
	segs int
	open bool
	// own is the route in the part of its own segment count.
	own *mux.Route
}

type routeKey struct {
	method string
	segs   int
}

func newRouteTable(prefix string, notFound http.Handler) *routeTable {
	return &routeTable{parts: map[routeKey]*mux.Router{}, exact: map[string]http.Handler{}, prefix: prefix, ni: notFound}
}

// add appends a route; build must be called after the last one.
func (t *routeTable) add(method, path string, h http.Handler) {
	t.routes = append(t.routes, tableRoute{
		method: method, path: path, h: h,
		segs: strings.Count(path, "/"),
		// {name} matches one segment; a variable with its own pattern
		// ({path:.+}) is assumed to be able to match several.
		open: strings.Contains(path, ":"),
	})
}

func (t *routeTable) build() {
	for _, r := range t.routes {
		t.top = max(t.top, r.segs+1)
	}
	for i := range t.routes {
		r := &t.routes[i]
		last := r.segs
		if r.open {
			last = t.top
		}
		for n := r.segs; n <= last; n++ {
			route := t.part(routeKey{r.method, n}).Handle(r.path, r.h).Methods(r.method)
			if n == r.segs {
				r.own = route
			}
		}
	}
	// A literal route goes into the exact index only if its own part picks
	// it for its path (no earlier route with variables takes that path).
	for _, r := range t.routes {
		tail, ok := strings.CutPrefix(r.path, t.prefix)
		if !ok || strings.ContainsAny(tail, "{}") {
			continue
		}
		probe, _ := http.NewRequest(r.method, "http://pome"+strings.Replace(r.path, "{pome_sid}", "sb_probe", 1), nil)
		var m mux.RouteMatch
		if t.parts[routeKey{r.method, r.segs}].Match(probe, &m) && m.Route == r.own {
			if _, dup := t.exact[r.method+" "+tail]; !dup {
				t.exact[r.method+" "+tail] = r.h
			}
		}
	}
}

func (t *routeTable) part(k routeKey) *mux.Router {
	r, ok := t.parts[k]
	if !ok {
		r = mux.NewRouter()
		r.SkipClean(true)
		// Match on the escaped path so that an escaped "/" inside an id
		// stays in that id (the vendor answers 404 for it, not an unknown
		// route), and path variables are unescaped exactly once, in
		// bindingHandler.
		r.UseEncodedPath()
		r.NotFoundHandler = t.ni
		r.MethodNotAllowedHandler = t.ni
		t.parts[k] = r
	}
	return r
}

func (t *routeTable) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := r.URL.EscapedPath()
	if tail, ok := sandboxTail(path); ok {
		if h, ok := t.exact[r.Method+" "+tail]; ok {
			h.ServeHTTP(w, r)
			return
		}
	}
	n := min(strings.Count(path, "/"), t.top)
	if part, ok := t.parts[routeKey{r.Method, n}]; ok {
		// Match instead of ServeHTTP: the router would copy the request
		// twice to attach the route and its variables; the variables go
		// into the request's scope instead.
		var m mux.RouteMatch
		if part.Match(r, &m) && m.MatchErr == nil && m.Route != nil {
			scopeFrom(r.Context()).vars = m.Vars
			m.Handler.ServeHTTP(w, r)
			return
		}
	}
	t.ni.ServeHTTP(w, r)
}

// sandboxTail is the path after /{twin}/s/{sid}.
func sandboxTail(path string) (string, bool) {
	_, _, rest, ok := splitDataPath(path)
	return rest, ok
}
