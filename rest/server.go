// Package rest is the HTTP face of Pome: the control plane (/v1), each
// twin's vendor REST surface built from its action bindings, the MCP
// endpoints, the OpenAPI documents and the _pome reads.
package rest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/pprof"
	"strconv"
	"sync"
	"time"

	"github.com/gorilla/mux"
	"github.com/pomehq/pome/mcpserver"
	"github.com/pomehq/pome/rest/ui"
	"github.com/pomehq/pome/session"
	"github.com/pomehq/pome/twins"
)

// GraderFunc grades a sandbox for POST /v1/sandboxes/{sid}/grade.
type GraderFunc func(ctx context.Context, m *session.Manager, sb *session.Sandbox, body []byte) (any, error)

// DefaultGrader builds every new Server's Grader; the binary sets it to the
// task package's engine (rest cannot import it: the engine's tests run
// servers built here).
var DefaultGrader func(reg *twins.Registry) GraderFunc

// Server is one Pome process's HTTP handler. Every piece of sandbox state
// lives in the Manager's store, so any number of Servers sharing a Redis
// store serve any sandbox.
type Server struct {
	Registry *twins.Registry
	Manager  *session.Manager
	Teams    *session.Teams
	// Grader evaluates POST /v1/sandboxes/{sid}/grade bodies (the task
	// package's engine by default); nil answers that grading is unavailable.
	Grader GraderFunc

	cfg     Config
	origins *mcpserver.Origins
	handler http.Handler
	dp      *dataPlane
	limits  *rateLimiter
}

// NewServer builds the handler over a store.
func NewServer(cfg Config, reg *twins.Registry, store session.Store, teams *session.Teams) *Server {
	cfg.Defaults()
	s := &Server{Registry: reg, Teams: teams, cfg: cfg}
	s.Manager = session.NewManager(store, reg, session.Config{
		TTL: cfg.TTL, Retention: cfg.Retention, MaxTwins: cfg.MaxTwins,
		SandboxQuota: cfg.SandboxQuota, PublicURL: cfg.PublicURL, StateDeltas: cfg.StateDeltas,
		Budgets: cfg.budgets(teams.Count()),
	}, nil)
	s.limits = newRateLimiter(cfg.RateLimits)
	s.origins = mcpserver.NewOrigins(cfg.PublicURL, cfg.AllowedOrigins)
	if DefaultGrader != nil {
		s.Grader = DefaultGrader(reg)
	}
	s.handler = s.routes()
	return s
}

func (s *Server) log() *slog.Logger {
	if s.cfg.Logger == nil {
		return slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return s.cfg.Logger
}

// ServeHTTP serves every surface. A twin's path in a sandbox goes straight
// to the data plane: no other route can match /{twin}/s/…, and the router
// would only have tried each of them first.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.setDeadlines(w, r)
	if twin, _, _, ok := splitDataPath(r.URL.Path); ok {
		if _, known := s.Registry.Get(twin); known {
			s.dp.ServeHTTP(w, r)
			return
		}
	}
	s.handler.ServeHTTP(w, r)
}

func (s *Server) routes() http.Handler {
	r := mux.NewRouter()
	r.SkipClean(true)
	r.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"status": "ok"})
	}).Methods(http.MethodGet)
	r.HandleFunc("/readyz", s.readyz).Methods(http.MethodGet)

	dp := newDataPlane(s)
	s.dp = dp
	v1 := r.PathPrefix("/v1").Subrouter()
	v1.Use(s.withRequestID, s.teamAuth)
	s.controlRoutes(v1)
	controlNotFound := s.withRequestID(s.teamAuth(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeControlError(w, r, &session.Error{Type: session.ErrNotFoundType, Message: "no such endpoint: " + r.Method + " " + r.URL.Path})
	})))
	// Stripe's paths share /v1 with the control plane; a request carrying
	// a twin's provider credential goes to that twin instead.
	v1.NotFoundHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if dp.serveRoot(w, r) {
			return
		}
		controlNotFound.ServeHTTP(w, r)
	})
	v1.MethodNotAllowedHandler = v1.NotFoundHandler

	if s.cfg.Pprof {
		// Profiles take a team API key, as the control plane does: the
		// listener may face a network. The command line is not served at
		// all, since flags such as --redis-url carry passwords.
		dbg := r.PathPrefix("/debug/pprof").Subrouter()
		dbg.Use(s.withRequestID, s.teamAuth)
		dbg.HandleFunc("/cmdline", func(w http.ResponseWriter, r *http.Request) {
			writeControlError(w, r, &session.Error{Type: session.ErrNotFoundType, Message: "the command line is not served: it may hold secrets"})
		})
		dbg.HandleFunc("/profile", pprof.Profile)
		dbg.HandleFunc("/symbol", pprof.Symbol)
		dbg.HandleFunc("/trace", pprof.Trace)
		dbg.PathPrefix("/").HandlerFunc(pprof.Index)
	}

	r.Handle("/ui", http.RedirectHandler(ui.Prefix, http.StatusMovedPermanently))
	r.PathPrefix(ui.Prefix).Handler(ui.New(ui.Options{Manager: s.Manager, Registry: s.Registry, Teams: s.Teams, RunsDir: s.cfg.RunsDir}))
	r.PathPrefix("/").Handler(dp)
	return r
}

func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	if err := s.Manager.Store.Ping(ctx); err != nil {
		writeJSON(w, http.StatusServiceUnavailable, map[string]any{"status": "unavailable", "store": "unreachable"})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"status": "ready"})
}

type requestIDKey struct{}

func (s *Server) withRequestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var b [12]byte
		rand.Read(b[:])
		id := "req_" + hex.EncodeToString(b[:])
		w.Header().Set("X-Request-Id", id)
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), requestIDKey{}, id)))
	})
}

func requestID(r *http.Request) string {
	id, _ := r.Context().Value(requestIDKey{}).(string)
	return id
}

// rateLimiter is a per-sandbox, per-twin fixed-window limiter (requests per
// minute). It is per process: with N replicas a sandbox can get up to N
// times the limit, which errs on the side of serving.
//
// The windows are split over shards by sandbox, so sandboxes rarely share
// a lock and a sweep of old windows holds one shard only.
type rateLimiter struct {
	perMinute map[string]int
	shards    [rateShards]rateShard
}

const (
	rateShards = 64
	// rateShardSweep is how many windows a shard holds before a new one
	// makes it drop those whose minute is over.
	rateShardSweep = 2048
)

type rateShard struct {
	mu      sync.Mutex
	windows map[string]*window
	// swept is when the shard last dropped old windows: at most once a
	// second, so a shard full of live windows is not scanned per request.
	swept time.Time
}

type window struct {
	start time.Time
	count int
}

func newRateLimiter(limits map[string]int) *rateLimiter {
	l := &rateLimiter{perMinute: limits}
	for i := range l.shards {
		l.shards[i].windows = map[string]*window{}
	}
	return l
}

// shard picks the shard of a sandbox (FNV-1a of its id).
func (l *rateLimiter) shard(sid string) *rateShard {
	h := uint32(2166136261)
	for i := 0; i < len(sid); i++ {
		h = (h ^ uint32(sid[i])) * 16777619
	}
	return &l.shards[h%rateShards]
}

// rateState is where one sandbox's twin stands in its current window.
type rateState struct {
	limit int // 0: no limit configured
	used  int
	reset time.Time
	// denied: the call is over the limit.
	denied bool
}

// setHeaders adds the x-ratelimit-* headers GitHub sends and many clients
// read generically: limit, remaining, reset (Unix seconds) and used. They
// are set after the twin's own fixed headers, so the real counters win.
func (rs rateState) setHeaders(h http.Header) {
	if rs.limit <= 0 {
		return
	}
	used := min(rs.used, rs.limit)
	// Canonical keys, assigned directly: no canonical copy per call.
	h["X-Ratelimit-Limit"] = []string{strconv.Itoa(rs.limit)}
	h["X-Ratelimit-Remaining"] = []string{strconv.Itoa(rs.limit - used)}
	h["X-Ratelimit-Reset"] = []string{strconv.FormatInt(rs.reset.Unix(), 10)}
	h["X-Ratelimit-Used"] = []string{strconv.Itoa(used)}
}

// retryAfter is the whole seconds until the window resets, at least 1.
func (rs rateState) retryAfter(now time.Time) int {
	return max(1, int(math.Ceil(rs.reset.Sub(now).Seconds())))
}

func (s *Server) allow(sid, twin string) (rateState, bool) {
	l := s.limits
	limit := l.perMinute[twin]
	if limit <= 0 {
		return rateState{}, true
	}
	now := time.Now()
	key := sid + "/" + twin
	sh := l.shard(sid)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	w := sh.windows[key]
	if w == nil || now.Sub(w.start) >= time.Minute {
		if len(sh.windows) >= rateShardSweep && now.Sub(sh.swept) >= time.Second {
			sh.swept = now
			for k, old := range sh.windows {
				if now.Sub(old.start) >= time.Minute {
					delete(sh.windows, k)
				}
			}
		}
		w = &window{start: now}
		sh.windows[key] = w
	}
	w.count++
	return rateState{limit: limit, used: w.count, reset: w.start.Add(time.Minute)}, w.count <= limit
}

func writeRateLimited(w http.ResponseWriter, tw *twins.Twin, rs rateState) {
	retry := rs.retryAfter(time.Now())
	w.Header().Set("Retry-After", strconv.Itoa(retry))
	writeTwinError(w, tw, twins.Errorf(twins.RateLimited, "ratelimited", "API rate limit exceeded: %d requests per minute for this sandbox", rs.limit).With("limit", rs.limit).With("retry_after", retry))
}
