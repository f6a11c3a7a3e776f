package rest

import (
	"net/http"
	"strings"

	"github.com/gorilla/mux"
)

// routeTable is a twin's REST routes split by method and by the number of
// path segments. A route whose variables each fill one whole segment
// ({owner}, matching what gorilla/mux's default [^/]+ matches) is matched
// by comparing segments; the few with a pattern of their own ({path:.+})
// keep a one-route mux router each. mux alone ran a regexp per route tried
// and per variable taken, which was about a twentieth of a simple call's
// cost. Within a part the routes keep the order they were added in, so the
// first match is the one a single router holding all of them would pick (a
// test checks this against such a router).
//
// Routes with no variable after the sandbox prefix (Slack's /api/chat.postMessage)
// are also found by exact path, when no earlier route would take that path.
type routeTable struct {
	routes []*tableRoute
	parts  map[routeKey][]*tableRoute
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
	// lits holds each segment's literal text; vars the variable's name for
	// a segment that is one variable (lits is then empty). Unused when open.
	lits, vars []string
	// router matches an open route: mux with only this route.
	router *mux.Router
}

type routeKey struct {
	method string
	segs   int
}

func newRouteTable(prefix string, notFound http.Handler) *routeTable {
	return &routeTable{parts: map[routeKey][]*tableRoute{}, exact: map[string]http.Handler{}, prefix: prefix, ni: notFound}
}

// add appends a route; build must be called after the last one.
func (t *routeTable) add(method, path string, h http.Handler) {
	r := &tableRoute{
		method: method, path: path, h: h,
		segs: strings.Count(path, "/"),
		// {name} matches one segment; a variable with its own pattern
		// ({path:.+}) is assumed to be able to match several.
		open: strings.Contains(path, ":"),
	}
	if r.open {
		r.router = mux.NewRouter()
		r.router.SkipClean(true)
		// Match on the escaped path so that an escaped "/" inside an id
		// stays in that id (the vendor answers 404 for it, not an unknown
		// route), and path variables are unescaped exactly once, in
		// bindingHandler.
		r.router.UseEncodedPath()
		r.router.Handle(path, h).Methods(method)
	} else {
		for _, seg := range strings.Split(path, "/")[1:] {
			if len(seg) > 1 && seg[0] == '{' && seg[len(seg)-1] == '}' {
				r.lits, r.vars = append(r.lits, ""), append(r.vars, seg[1:len(seg)-1])
			} else {
				r.lits, r.vars = append(r.lits, seg), append(r.vars, "")
			}
		}
	}
	t.routes = append(t.routes, r)
}

func (t *routeTable) build() {
	for _, r := range t.routes {
		t.top = max(t.top, r.segs+1)
	}
	for _, r := range t.routes {
		last := r.segs
		if r.open {
			last = t.top
		}
		for n := r.segs; n <= last; n++ {
			k := routeKey{r.method, n}
			t.parts[k] = append(t.parts[k], r)
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
		if got, _ := t.match(probe, nil); got == r {
			if _, dup := t.exact[r.method+" "+tail]; !dup {
				t.exact[r.method+" "+tail] = r.h
			}
		}
	}
}

// match finds the first route of the request's part that takes it, and
// its variables (still escaped), appended to buf.
func (t *routeTable) match(r *http.Request, buf pathVars) (*tableRoute, pathVars) {
	path := r.URL.EscapedPath()
	n := min(strings.Count(path, "/"), t.top)
	for _, route := range t.parts[routeKey{r.Method, n}] {
		if route.open {
			var m mux.RouteMatch
			if route.router.Match(r, &m) && m.MatchErr == nil && m.Route != nil {
				vars := buf[:0]
				for k, v := range m.Vars {
					vars = append(vars, pathVar{k, v})
				}
				return route, vars
			}
			continue
		}
		if vars, ok := route.matchSegments(path, buf); ok {
			return route, vars
		}
	}
	return nil, nil
}

// matchSegments matches a path of the route's segment count: literal
// segments equal, variable ones not empty.
func (r *tableRoute) matchSegments(path string, buf pathVars) (pathVars, bool) {
	rest := path[1:]
	// First compare the literals only, so that a route that does not match
	// allocates nothing.
	for i, lit := range r.lits {
		seg, tail, _ := strings.Cut(rest, "/")
		rest = tail
		if r.vars[i] == "" {
			if seg != lit {
				return nil, false
			}
		} else if seg == "" {
			return nil, false
		}
	}
	vars := buf[:0]
	rest = path[1:]
	for _, name := range r.vars {
		seg, tail, _ := strings.Cut(rest, "/")
		rest = tail
		if name != "" {
			vars = append(vars, pathVar{name, seg})
		}
	}
	return vars, true
}

func (t *routeTable) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	m := r
	if r.Method == http.MethodHead {
		// HEAD is GET without the body (net/http drops it), as vendor APIs
		// answer it: github-mcp-server reads a token's scopes so.
		m = r.WithContext(r.Context())
		m.Method = http.MethodGet
	}
	if tail, ok := sandboxTail(r.URL.EscapedPath()); ok {
		if h, ok := t.exact[m.Method+" "+tail]; ok {
			h.ServeHTTP(w, r)
			return
		}
	}
	scope := scopeFrom(r.Context())
	if route, vars := t.match(m, scope.varsBuf[:0]); route != nil {
		// The variables go into the request's scope rather than into a
		// copy of the request.
		scope.vars = vars
		route.h.ServeHTTP(w, r)
		return
	}
	t.ni.ServeHTTP(w, r)
}

// sandboxTail is the path after /{twin}/s/{sid}.
func sandboxTail(path string) (string, bool) {
	_, _, rest, ok := splitDataPath(path)
	return rest, ok
}
