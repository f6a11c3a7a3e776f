package rest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gorilla/mux"
	"github.com/pomehq/pome/session"
	"github.com/pomehq/pome/twins"
)

type teamKey struct{}

func teamOf(r *http.Request) string {
	t, _ := r.Context().Value(teamKey{}).(string)
	return t
}

// teamAuth admits a request carrying a team API key (Bearer or x-api-key).
func (s *Server) teamAuth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("x-api-key")
		if h := r.Header.Get("Authorization"); h != "" {
			if scheme, val, ok := strings.Cut(h, " "); ok && strings.EqualFold(scheme, "bearer") {
				key = strings.TrimSpace(val)
			}
		}
		if key == "" {
			writeControlError(w, r, &session.Error{Type: session.ErrInvalidAuth, Message: "missing API key: send Authorization: Bearer pme_… or x-api-key"})
			return
		}
		team, ok := s.Teams.Team(key)
		if !ok {
			writeControlError(w, r, &session.Error{Type: session.ErrInvalidAuth, Message: "invalid API key"})
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), teamKey{}, team)))
	})
}

func (s *Server) controlRoutes(r *mux.Router) {
	r.HandleFunc("/sandboxes", s.createSandbox).Methods(http.MethodPost)
	r.HandleFunc("/sandboxes", s.listSandboxes).Methods(http.MethodGet)
	r.HandleFunc("/sandboxes/{sid}", s.getSandbox).Methods(http.MethodGet)
	r.HandleFunc("/sandboxes/{sid}", s.stopSandbox).Methods(http.MethodDelete)
	r.HandleFunc("/sandboxes/{sid}/tapes/{twin}", s.sandboxTape).Methods(http.MethodGet)
	r.HandleFunc("/sandboxes/{sid}/state/{twin}", s.sandboxState).Methods(http.MethodGet)
	r.HandleFunc("/sandboxes/{sid}/grade", s.gradeSandbox).Methods(http.MethodPost)
	r.HandleFunc("/checks", s.listChecks).Methods(http.MethodGet)
	r.HandleFunc("/twins", s.listTwins).Methods(http.MethodGet)
	r.HandleFunc("/usage", s.usage).Methods(http.MethodGet)
}

// sandboxView is the public shape of a sandbox (SPEC §4): no token hashes.
type sandboxView struct {
	ID        string     `json:"id"`
	State     string     `json:"state"`
	Twins     []string   `json:"twins"`
	CreatedAt time.Time  `json:"created_at"`
	ExpiresAt time.Time  `json:"expires_at"`
	StoppedAt *time.Time `json:"stopped_at,omitempty"`
}

func viewOf(sb *session.Sandbox) sandboxView {
	return sandboxView{ID: sb.ID, State: sb.State, Twins: sb.Twins, CreatedAt: sb.CreatedAt, ExpiresAt: sb.ExpiresAt, StoppedAt: sb.StoppedAt}
}

func (s *Server) createSandbox(w http.ResponseWriter, r *http.Request) {
	body, tooLarge, err := readBody(w, r, s.cfg.MaxBodyBytes)
	if err != nil || tooLarge {
		writeControlError(w, r, &session.Error{Type: session.ErrValidationFailed, Message: fmt.Sprintf("request body must be JSON of at most %d bytes", s.cfg.MaxBodyBytes)})
		return
	}
	var req session.CreateRequest
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		writeControlError(w, r, &session.Error{Type: session.ErrValidationFailed, Message: "invalid JSON body: " + strings.TrimPrefix(err.Error(), "json: "), Details: map[string]any{"field": "body"}})
		return
	}
	created, err := s.Manager.Create(r.Context(), teamOf(r), req)
	if err != nil {
		if se, ok := err.(*session.Error); ok && se.RetryAfter > 0 {
			w = retryAfterWriter{w, strconv.Itoa(se.RetryAfter)}
		}
		writeControlError(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, created)
}

// retryAfterWriter sends Retry-After as the refusal asked, whatever the
// error envelope's own default.
type retryAfterWriter struct {
	http.ResponseWriter
	seconds string
}

func (w retryAfterWriter) WriteHeader(status int) {
	w.Header().Set("Retry-After", w.seconds)
	w.ResponseWriter.WriteHeader(status)
}

func (s *Server) listSandboxes(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit := 0
	if l := q.Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 || n > 1000 {
			writeControlError(w, r, &session.Error{Type: session.ErrValidationFailed, Message: "limit must be an integer from 1 to 1000", Details: map[string]any{"field": "limit"}})
			return
		}
		limit = n
	}
	list, more, err := s.Manager.List(r.Context(), teamOf(r), q.Get("state"), limit)
	if err != nil {
		writeControlError(w, r, err)
		return
	}
	data := make([]sandboxView, 0, len(list))
	for _, sb := range list {
		data = append(data, viewOf(sb))
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": data, "has_more": more})
}

func (s *Server) getSandbox(w http.ResponseWriter, r *http.Request) {
	sb, err := s.Manager.Get(r.Context(), teamOf(r), mux.Vars(r)["sid"])
	if err != nil {
		writeControlError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, viewOf(sb))
}

func (s *Server) stopSandbox(w http.ResponseWriter, r *http.Request) {
	discard := false
	if d := r.URL.Query().Get("discard"); d != "" {
		v, err := strconv.ParseBool(d)
		if err != nil {
			writeControlError(w, r, &session.Error{Type: session.ErrValidationFailed, Message: "discard must be true or false", Details: map[string]any{"field": "discard"}})
			return
		}
		discard = v
	}
	if err := s.Manager.Stop(r.Context(), teamOf(r), mux.Vars(r)["sid"], discard); err != nil {
		writeControlError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// liveSandbox returns a team's sandbox whose keys still exist, and the
// named twin of it.
func (s *Server) liveSandbox(r *http.Request) (*session.Sandbox, *twins.Twin, error) {
	vars := mux.Vars(r)
	sb, err := s.Manager.Get(r.Context(), teamOf(r), vars["sid"])
	if err != nil {
		return nil, nil, err
	}
	tw, ok := s.Registry.Get(vars["twin"])
	if !ok || !sb.HasTwin(tw.Name) {
		return nil, nil, &session.Error{Type: session.ErrNotFoundType, Message: fmt.Sprintf("sandbox %s has no twin %q (it has %s)", sb.ID, vars["twin"], strings.Join(sb.Twins, ", "))}
	}
	if sb.State == session.StateExpired {
		return nil, nil, &session.Error{Type: session.ErrNotFoundType, Message: "sandbox " + sb.ID + " expired; its tapes and state are gone"}
	}
	return sb, tw, nil
}

func (s *Server) sandboxTape(w http.ResponseWriter, r *http.Request) {
	sb, tw, err := s.liveSandbox(r)
	if err != nil {
		writeControlError(w, r, err)
		return
	}
	s.serveTape(w, r, sb, tw.Name)
}

func (s *Server) sandboxState(w http.ResponseWriter, r *http.Request) {
	sb, tw, err := s.liveSandbox(r)
	if err != nil {
		writeControlError(w, r, err)
		return
	}
	s.serveState(w, r, sb, tw.Name)
}

func (s *Server) gradeSandbox(w http.ResponseWriter, r *http.Request) {
	if s.Grader == nil {
		writeControlError(w, r, &session.Error{Type: session.ErrValidationFailed, Message: "grading is not available on this server"})
		return
	}
	sb, err := s.Manager.Get(r.Context(), teamOf(r), mux.Vars(r)["sid"])
	if err != nil {
		writeControlError(w, r, err)
		return
	}
	body, tooLarge, err := readBody(w, r, s.cfg.MaxBodyBytes)
	if err != nil || tooLarge {
		writeControlError(w, r, &session.Error{Type: session.ErrValidationFailed, Message: "request body too large"})
		return
	}
	verdict, err := s.Grader(r.Context(), s.Manager, sb, body)
	if err != nil {
		writeControlError(w, r, err)
		return
	}
	if err := s.Manager.Store.CountEval(r.Context(), sb.Team); err != nil {
		s.log().Error("count eval", "err", err)
	}
	writeJSON(w, http.StatusOK, verdict)
}

type checkView struct {
	*twins.Check
	Twin string `json:"twin"`
}

func (s *Server) listChecks(w http.ResponseWriter, r *http.Request) {
	name := r.URL.Query().Get("twin")
	if name == "" {
		writeControlError(w, r, &session.Error{Type: session.ErrValidationFailed, Message: "twin is required (one of " + strings.Join(s.Registry.Names(), ", ") + ")", Details: map[string]any{"field": "twin"}})
		return
	}
	tw, ok := s.Registry.Get(name)
	if !ok {
		writeControlError(w, r, &session.Error{Type: session.ErrValidationFailed, Message: fmt.Sprintf("unknown twin %q (one of %s)", name, strings.Join(s.Registry.Names(), ", ")), Details: map[string]any{"field": "twin"}})
		return
	}
	checks := tw.Checks
	if checks == nil {
		checks = []*twins.Check{}
	}
	for _, c := range checks {
		if c.Params == nil {
			c.Params = []twins.Param{}
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"twin": tw.Name, "checks": checks})
}

type toolView struct {
	Name   string       `json:"name"`
	Title  string       `json:"title"`
	Effect twins.Effect `json:"effect"`
}

type bindingView struct {
	Method string `json:"method"`
	Path   string `json:"path"`
	Tool   string `json:"tool"`
}

func (s *Server) listTwins(w http.ResponseWriter, r *http.Request) {
	type twinView struct {
		Name        string          `json:"name"`
		Title       string          `json:"title"`
		Tools       []toolView      `json:"tools"`
		Bindings    []bindingView   `json:"bindings"`
		SeedExample json.RawMessage `json:"seed_example,omitempty"`
		// SeedExampleOriginal is the twin's seed in the original Pome's
		// format, which it loads as well.
		SeedExampleOriginal json.RawMessage `json:"seed_example_original,omitempty"`
	}
	var out []twinView
	for _, tw := range s.Registry.All() {
		v := twinView{Name: tw.Name, Title: tw.Title, Tools: []toolView{}, Bindings: []bindingView{}}
		if tw.SeedExample != "" {
			v.SeedExample = json.RawMessage(tw.SeedExample)
		}
		if tw.SeedExampleOriginal != "" {
			v.SeedExampleOriginal = json.RawMessage(tw.SeedExampleOriginal)
		}
		for _, a := range tw.Actions {
			v.Tools = append(v.Tools, toolView{Name: a.Name(), Title: a.Spec().Title, Effect: a.Spec().Effect})
			for _, b := range a.Spec().Bindings {
				v.Bindings = append(v.Bindings, bindingView{Method: b.Method, Path: openAPIPath(b.Path), Tool: a.Name()})
			}
		}
		out = append(out, v)
	}
	writeJSON(w, http.StatusOK, map[string]any{"twins": out})
}

func (s *Server) usage(w http.ResponseWriter, r *http.Request) {
	u, err := s.Manager.Usage(r.Context(), teamOf(r))
	if err != nil {
		writeControlError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, u)
}

// serveState writes the twin's current state document.
func (s *Server) serveState(w http.ResponseWriter, r *http.Request, sb *session.Sandbox, twin string) {
	doc, err := s.Manager.Store.State(r.Context(), sb, twin)
	if err != nil {
		if errors.Is(err, session.ErrNotFound) {
			opaque404(w)
			return
		}
		// The store failed: retryable, not the sandbox's fault.
		w.Header().Set("Retry-After", "1")
		writeJSON(w, http.StatusServiceUnavailable, map[string]any{"message": "state unavailable"})
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	w.Write(doc)
}
