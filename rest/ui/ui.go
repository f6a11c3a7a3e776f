// Package ui is Pome's web dashboard: static pages embedded in the binary
// (served at /ui/) and the few JSON endpoints they need beyond the /v1
// control plane (under /ui/api/): a seed-versus-now state diff and the run
// directories that `pome run` writes.
//
// The pages hold the team API key in the browser's session storage and call
// /v1 with it as a bearer token; the JSON endpoints here take the same key
// and answer for that team only: a sandbox's diff when the team owns the
// sandbox, a run when it ran in one of the team's sandboxes.
// Nothing is loaded from outside the server, so the dashboard works offline.
package ui

import (
	"context"
	"crypto/rand"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"net/http"
	"strings"

	"github.com/pomehq/pome/session"
	"github.com/pomehq/pome/twins"
)

//go:embed static
var staticFiles embed.FS

// Prefix is where the dashboard is mounted; API is the prefix of its JSON
// endpoints.
const (
	Prefix = "/ui/"
	API    = "/ui/api/"
)

// Options is what the dashboard reads.
type Options struct {
	Manager  *session.Manager
	Registry *twins.Registry
	// Teams authenticates the JSON endpoints with a team API key.
	Teams *session.Teams
	// RunsDir is the directory `pome run` writes run directories to; ""
	// means there are no runs to show.
	RunsDir string
}

type handler struct {
	opts   Options
	mux    *http.ServeMux
	static http.Handler
}

// New returns the dashboard's handler for every path under Prefix.
func New(opts Options) http.Handler {
	sub, err := fs.Sub(staticFiles, "static")
	if err != nil {
		// The embedded tree is fixed at build time; failing here means
		// the binary itself is broken.
		panic(err)
	}
	h := &handler{opts: opts, mux: http.NewServeMux(), static: http.StripPrefix(Prefix, http.FileServerFS(sub))}
	h.mux.Handle("GET "+API+"sandboxes/{sid}/diff/{twin}", h.auth(h.diff))
	h.mux.Handle("GET "+API+"runs", h.auth(h.runs))
	h.mux.Handle("GET "+API+"runs/{slug}/{run}", h.auth(h.run))
	h.mux.Handle(API, h.auth(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, r, http.StatusNotFound, "not_found", "no such endpoint: "+r.Method+" "+r.URL.Path)
	}))
	h.mux.HandleFunc(Prefix, h.serveStatic)
	return h
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	// The pages need nothing from any other origin; saying so stops an
	// injected script from sending the API key anywhere else.
	hd.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "no-referrer")
	h.mux.ServeHTTP(w, r)
}

func (h *handler) serveStatic(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	// Embedded files carry no modification time, so without this a
	// browser could keep an old page after the binary is upgraded.
	w.Header().Set("Cache-Control", "no-cache")
	h.static.ServeHTTP(w, r)
}

type teamKey struct{}

// auth admits a request with a team API key, as the control plane does
// (Bearer or x-api-key), and answers in the control plane's envelope.
func (h *handler) auth(next http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("x-api-key")
		if v := r.Header.Get("Authorization"); v != "" {
			if scheme, val, ok := strings.Cut(v, " "); ok && strings.EqualFold(scheme, "bearer") {
				key = strings.TrimSpace(val)
			}
		}
		if key == "" {
			writeError(w, r, http.StatusUnauthorized, string(session.ErrInvalidAuth), "missing API key: send Authorization: Bearer pme_… or x-api-key")
			return
		}
		team, ok := h.opts.Teams.Team(key)
		if !ok {
			writeError(w, r, http.StatusUnauthorized, string(session.ErrInvalidAuth), "invalid API key")
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		next(w, r.WithContext(context.WithValue(r.Context(), teamKey{}, team)))
	})
}

func teamOf(r *http.Request) string {
	t, _ := r.Context().Value(teamKey{}).(string)
	return t
}

// diffView is the answer of GET /ui/api/sandboxes/{sid}/diff/{twin}.
type diffView struct {
	SessionID string          `json:"session_id"`
	Twin      string          `json:"twin"`
	Seed      json.RawMessage `json:"seed"`
	State     json.RawMessage `json:"state"`
	Changes   []twins.Change  `json:"changes"`
	Truncated bool            `json:"truncated"`
}

func (h *handler) diff(w http.ResponseWriter, r *http.Request) {
	sid, name := r.PathValue("sid"), r.PathValue("twin")
	sb, err := h.opts.Manager.Get(r.Context(), teamOf(r), sid)
	if err != nil {
		writeSessionError(w, r, err)
		return
	}
	tw, ok := h.opts.Registry.Get(name)
	if !ok || !sb.HasTwin(tw.Name) {
		writeError(w, r, http.StatusNotFound, string(session.ErrNotFoundType), "sandbox "+sb.ID+" has no twin "+name)
		return
	}
	if sb.State == session.StateExpired {
		writeError(w, r, http.StatusNotFound, string(session.ErrNotFoundType), "sandbox "+sb.ID+" expired; its state is gone")
		return
	}
	store := h.opts.Manager.Store
	seed, err := store.Seed(r.Context(), sb, tw.Name)
	if err != nil {
		writeSessionError(w, r, err)
		return
	}
	state, err := store.State(r.Context(), sb, tw.Name)
	if err != nil {
		writeSessionError(w, r, err)
		return
	}
	changes, truncated, err := twins.Diff(seed, state)
	if err != nil {
		writeError(w, r, http.StatusInternalServerError, string(session.ErrInternal), "diff: "+err.Error())
		return
	}
	if changes == nil {
		changes = []twins.Change{}
	}
	writeJSON(w, http.StatusOK, diffView{SessionID: sb.ID, Twin: tw.Name, Seed: seed, State: state, Changes: changes, Truncated: truncated})
}

var statusOf = map[session.ErrorType]int{
	session.ErrInvalidAuth:      http.StatusUnauthorized,
	session.ErrForbidden:        http.StatusForbidden,
	session.ErrValidationFailed: http.StatusUnprocessableEntity,
	session.ErrNotFoundType:     http.StatusNotFound,
	session.ErrConflict:         http.StatusConflict,
	session.ErrQuotaExceeded:    http.StatusPaymentRequired,
	session.ErrRateLimited:      http.StatusTooManyRequests,
}

func writeSessionError(w http.ResponseWriter, r *http.Request, err error) {
	var se *session.Error
	if errors.As(err, &se) {
		st, ok := statusOf[se.Type]
		if !ok {
			st = http.StatusInternalServerError
		}
		writeError(w, r, st, string(se.Type), se.Message)
		return
	}
	if errors.Is(err, session.ErrNotFound) {
		// A store key that went away between Get and the read: the
		// sandbox was discarded or expired meanwhile.
		writeError(w, r, http.StatusNotFound, string(session.ErrNotFoundType), "the sandbox's state is gone")
		return
	}
	writeError(w, r, http.StatusInternalServerError, string(session.ErrInternal), "store unavailable")
}

// writeError answers in the control plane's error envelope (SPEC §4) so
// that the pages handle one shape for /v1 and /ui/api alike.
func writeError(w http.ResponseWriter, r *http.Request, status int, typ, msg string) {
	var b [12]byte
	rand.Read(b[:])
	id := "req_" + hex.EncodeToString(b[:])
	w.Header().Set("X-Request-Id", id)
	writeJSON(w, status, map[string]any{"error": map[string]any{"type": typ, "message": msg, "request_id": id}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
}
