package rest

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gorilla/mux"
	"github.com/pomehq/pome/twins/all"
)

// TestRouteTableMatchesOneRouter checks that splitting a twin's routes by
// method and segment count picks, for every request, the route that one
// router holding all of them in order would pick.
func TestRouteTableMatchesOneRouter(t *testing.T) {
	vars := regexp.MustCompile(`\{([a-z_]+)(:[^}]*)?\}`)
	for _, tw := range all.Registry().All() {
		single := mux.NewRouter()
		single.SkipClean(true)
		single.UseEncodedPath()
		// Each handler writes its route and the path variables it got:
		// from mux under the single router, from the scope under the table.
		named := func(id string) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				vars := mux.Vars(r)
				if s, ok := r.Context().Value(scopeKey{}).(*reqScope); ok {
					vars = map[string]string{}
					for _, v := range s.vars {
						vars[v.name] = v.value
					}
				}
				// The sandbox id is not a route's own variable (the
				// binding drops it); routes found by exact path have none.
				own := map[string]string{}
				for k, v := range vars {
					if k != "pome_sid" {
						own[k] = v
					}
				}
				fmt.Fprint(w, id, " ", own)
			})
		}
		notFound := named("none")
		single.NotFoundHandler, single.MethodNotAllowedHandler = notFound, notFound
		root := "/" + tw.Name + "/s/{pome_sid}"
		table := newRouteTable(root, notFound)
		var paths []string
		i := 0
		addBoth := func(method, path string) {
			id := fmt.Sprintf("%d %s %s", i, method, path)
			i++
			methods := []string{method}
			if method == "GET" {
				// The table answers HEAD with the GET route.
				methods = append(methods, "HEAD")
			}
			single.Handle(path, named(id)).Methods(methods...)
			table.add(method, path, named(id))
			paths = append(paths, path)
		}
		for _, a := range tw.Actions {
			for _, b := range a.Spec().Bindings {
				addBoth(b.Method, root+b.Path)
				for from, to := range tw.AliasPrefixes {
					if strings.HasPrefix(b.Path, from) {
						addBoth(b.Method, root+to+strings.TrimPrefix(b.Path, from))
					}
				}
			}
		}
		table.build()
		// Requests: every route's path with its variables filled in several
		// ways (one segment, several, one that looks like a literal), plus
		// a trailing slash and an extra segment, under every method.
		var reqs []string
		for _, p := range paths {
			for _, fill := range []string{"x", "a/b", "a/b/c/d/e/f/g/h/i/j", "comments", "1", "x%2Fy"} {
				u := vars.ReplaceAllString(p, fill)
				u = strings.Replace(u, "/s/"+fill, "/s/sb_1", 1)
				reqs = append(reqs, u, u+"/", u+"/extra")
			}
		}
		for _, u := range reqs {
			for _, m := range []string{"GET", "POST", "PATCH", "PUT", "DELETE", "HEAD"} {
				want := httptest.NewRecorder()
				got := httptest.NewRecorder()
				single.ServeHTTP(want, httptest.NewRequest(m, u, nil))
				req := httptest.NewRequest(m, u, nil)
				table.ServeHTTP(got, req.WithContext(withScope(req.Context(), &reqScope{})))
				if want.Body.String() != got.Body.String() {
					t.Fatalf("%s %s %s: table picked %q, one router %q", tw.Name, m, u, got.Body, want.Body)
				}
			}
		}
		t.Logf("%s: %d routes, %d parts, %d by exact path, %d requests", tw.Name, len(paths), len(table.parts), len(table.exact), len(reqs)*6)
	}
}

// BenchmarkRouteTable finds the route of a GitHub comment write, a path
// with three variables among the twin's ~170 routes.
func BenchmarkRouteTable(b *testing.B) {
	reg := all.Registry()
	tw, _ := reg.Get("github")
	table := (&dataPlane{srv: &Server{Registry: reg}}).twinRouter(tw)
	req := httptest.NewRequest("POST", "/github/s/sb_1/repos/acme/api/issues/1/comments", nil)
	req = req.WithContext(withScope(req.Context(), &reqScope{}))
	b.ReportAllocs()
	for b.Loop() {
		if route, vars := table.match(req, nil); route == nil || !slices.Contains(vars, pathVar{"issue_number", "1"}) {
			b.Fatalf("matched %v %v", route, vars)
		}
	}
}

// TestEveryBindingIsReachable: no binding is hidden behind one listed
// before it. Routes match in the order they are added, as in one mux
// router, so a literal segment (…/issues/comments) listed after a variable
// at its place (…/issues/{issue_number}) would never be reached.
func TestEveryBindingIsReachable(t *testing.T) {
	vars := regexp.MustCompile(`\{([a-z_]+)(:[^}]*)?\}`)
	for _, tw := range all.Registry().All() {
		named := func(id string) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, id) })
		}
		root := "/" + tw.Name + "/s/{pome_sid}"
		table := newRouteTable(root, named("none"))
		type route struct{ id, method, path string }
		var routes []route
		add := func(a string, method, path string) {
			r := route{fmt.Sprintf("%s %s %s", a, method, path), method, path}
			table.add(method, path, named(r.id))
			routes = append(routes, r)
		}
		for _, a := range tw.Actions {
			for _, b := range a.Spec().Bindings {
				add(a.Name(), b.Method, root+b.Path)
				for from, to := range tw.AliasPrefixes {
					if strings.HasPrefix(b.Path, from) {
						add(a.Name(), b.Method, root+to+strings.TrimPrefix(b.Path, from))
					}
				}
			}
		}
		table.build()
		for _, r := range routes {
			// A value no route spells as a literal.
			u := strings.Replace(vars.ReplaceAllString(r.path, "v7"), "/s/v7", "/s/sb_1", 1)
			rec := httptest.NewRecorder()
			table.ServeHTTP(rec, httptest.NewRequest(r.method, u, nil))
			if got := rec.Body.String(); got != r.id {
				t.Errorf("%s: %s %s reaches %q", tw.Name, r.method, u, got)
			}
		}
	}
}
