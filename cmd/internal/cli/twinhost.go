package cli

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/pomehq/pome/rest"
	"github.com/pomehq/pome/session"
)

// The original Pome's standalone twin writes its status here, relative to
// the folder it was started in; ours adds one file per twin so that
// several standalone twins (one per port) can be told apart.
const (
	twinStatusDir  = ".pome"
	twinStatusFile = "twin-status.json"
)

// Standalone twin admin routes, on the twin's own port. They take the
// admin token of the status file, which only the user who started the twin
// can read (mode 0600), and answer loopback callers only.
const (
	adminInfoPath    = "/_pome/admin/standalone"
	adminNewSeedPath = "/_pome/admin/new-seed"
)

// twinStatus is .pome/twin-status.json: the original's fields (name, url,
// rest_url, mcp_url, auth_token) and ours.
type twinStatus struct {
	Name       string    `json:"name"`
	URL        string    `json:"url"`
	RESTURL    string    `json:"rest_url"`
	MCPURL     string    `json:"mcp_url"`
	AuthToken  string    `json:"auth_token"`
	SessionID  string    `json:"session_id"`
	Token      string    `json:"token"`
	TokenEnv   string    `json:"token_env"`
	Server     string    `json:"server"`
	HealthURL  string    `json:"health_url"`
	PID        int       `json:"pid"`
	Seed       string    `json:"seed,omitempty"`
	StartedAt  time.Time `json:"started_at"`
	SeededAt   time.Time `json:"seeded_at"`
	ExpiresAt  time.Time `json:"expires_at"`
	AdminToken string    `json:"admin_token"`
}

// envName is the twin's POME_<TWIN> prefix.
func envName(twin string) string {
	return "POME_" + strings.ToUpper(strings.ReplaceAll(twin, "-", "_"))
}

// twinHost serves one twin of one sandbox at the original Pome's
// standalone layout, <server>/s/<sid>/…, beside every route of a Pome
// server (so /healthz, /<twin>/s/<sid>/… and the SDK root mounts work
// too). A new seed is a new sandbox: the sandbox is what holds a seed.
type twinHost struct {
	twin       string
	srv        *rest.Server
	team       string
	server     string
	seedName   string
	statusDir  string
	adminToken string
	started    time.Time

	mu sync.Mutex
	// seed is the seed the twin was started with (nil: the default world),
	// which `new-seed` without a file starts over from.
	seed   map[string]json.RawMessage
	status twinStatus
}

// create makes a sandbox of the twin with seed and makes it current,
// discarding the one before.
func (h *twinHost) create(ctx context.Context, seed map[string]json.RawMessage, seedName string) (twinStatus, error) {
	created, err := h.srv.Manager.Create(ctx, h.team, session.CreateRequest{Twins: []string{h.twin}, Seed: seed})
	if err != nil {
		return twinStatus{}, err
	}
	base := h.server + "/s/" + created.SessionID
	st := twinStatus{Name: h.twin, URL: base, RESTURL: base, MCPURL: base + "/mcp", AuthToken: created.AuthToken,
		SessionID: created.SessionID, Token: created.ProviderCredentials[h.twin].Token, TokenEnv: envName(h.twin) + "_TOKEN",
		Server: h.server, HealthURL: h.server + "/healthz", PID: os.Getpid(), Seed: seedName,
		StartedAt: h.started, SeededAt: time.Now().UTC(), ExpiresAt: created.ExpiresAt, AdminToken: h.adminToken}
	h.mu.Lock()
	old := h.status.SessionID
	h.status = st
	h.mu.Unlock()
	if old != "" {
		// Nothing reads the old sandbox again; its memory goes now.
		_ = h.srv.Manager.Stop(context.WithoutCancel(ctx), h.team, old, true)
	}
	return st, nil
}

func (h *twinHost) current() twinStatus {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.status
}

// ServeHTTP maps /s/<sid>/… onto the server's /<twin>/s/<sid>/… and serves
// the admin routes; everything else is the server's.
func (h *twinHost) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case adminInfoPath, adminNewSeedPath:
		h.admin(w, r)
		return
	}
	if strings.HasPrefix(r.URL.Path, "/s/") {
		r2 := r.Clone(r.Context())
		r2.URL.Path = "/" + h.twin + r.URL.Path
		if r.URL.RawPath != "" {
			r2.URL.RawPath = "/" + h.twin + r.URL.RawPath
		}
		r2.RequestURI = r2.URL.RequestURI()
		h.srv.ServeHTTP(w, r2)
		return
	}
	h.srv.ServeHTTP(w, r)
}

func (h *twinHost) admin(w http.ResponseWriter, r *http.Request) {
	host, _, _ := net.SplitHostPort(r.RemoteAddr)
	ip := net.ParseIP(host)
	tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if ip == nil || !ip.IsLoopback() || subtle.ConstantTimeCompare([]byte(tok), []byte(h.adminToken)) != 1 {
		writeAdmin(w, http.StatusNotFound, map[string]string{"message": "Not found."})
		return
	}
	switch {
	case r.URL.Path == adminInfoPath && r.Method == http.MethodGet:
		st := h.current()
		writeAdmin(w, http.StatusOK, st)
	case r.URL.Path == adminNewSeedPath && r.Method == http.MethodPost:
		var body struct {
			Seed     map[string]json.RawMessage `json:"seed"`
			SeedName string                     `json:"seed_name"`
		}
		if err := json.NewDecoder(io.LimitReader(r.Body, 64<<20)).Decode(&body); err != nil && !errors.Is(err, io.EOF) {
			writeAdmin(w, http.StatusBadRequest, map[string]string{"message": "the body is not JSON: " + err.Error()})
			return
		}
		seed, name := body.Seed, body.SeedName
		if seed == nil {
			h.mu.Lock()
			seed, name = h.seed, h.seedName
			h.mu.Unlock()
		}
		st, err := h.create(r.Context(), seed, name)
		if err != nil {
			status := http.StatusInternalServerError
			var se *session.Error
			if errors.As(err, &se) && se.Type == session.ErrValidationFailed {
				status = http.StatusUnprocessableEntity
			}
			writeAdmin(w, status, map[string]any{"message": err.Error(), "details": adminDetails(err)})
			return
		}
		if body.Seed != nil {
			h.mu.Lock()
			h.seed, h.seedName = body.Seed, body.SeedName
			h.mu.Unlock()
		}
		if err := h.writeStatus(st); err != nil {
			writeAdmin(w, http.StatusInternalServerError, map[string]string{"message": err.Error()})
			return
		}
		writeAdmin(w, http.StatusOK, st)
	default:
		writeAdmin(w, http.StatusMethodNotAllowed, map[string]string{"message": "method not allowed"})
	}
}

func writeAdmin(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// statusPaths are the files a twin's status goes to: the original's
// twin-status.json (the twin started last) and one of its own.
func statusPaths(dir, twin string) []string {
	return []string{filepath.Join(dir, twinStatusFile), filepath.Join(dir, "twins", twin+".json")}
}

func (h *twinHost) writeStatus(st twinStatus) error {
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	for _, p := range statusPaths(h.statusDir, h.twin) {
		if err := writeFileAtomic(p, append(data, '\n'), 0o600, true); err != nil {
			return fmt.Errorf("write %s: %w", p, err)
		}
	}
	return nil
}

// removeStatus removes the status files that still describe this process,
// leaving those a later start wrote.
func (h *twinHost) removeStatus() {
	for _, p := range statusPaths(h.statusDir, h.twin) {
		if st, err := readTwinStatus(p); err == nil && st.PID == os.Getpid() && st.AdminToken == h.adminToken {
			os.Remove(p)
		}
	}
}

func readTwinStatus(path string) (twinStatus, error) {
	var st twinStatus
	data, err := os.ReadFile(path)
	if err != nil {
		return st, err
	}
	if err := json.Unmarshal(data, &st); err != nil {
		return st, fmt.Errorf("%s is not a twin status: %w", path, err)
	}
	return st, nil
}

// probeTwin asks a standalone twin who it is. It fails when nothing
// answers at the status's address, or something else does.
func probeTwin(ctx context.Context, client *http.Client, st twinStatus) (twinStatus, error) {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, st.Server+adminInfoPath, nil)
	if err != nil {
		return st, err
	}
	req.Header.Set("Authorization", "Bearer "+st.AdminToken)
	resp, err := client.Do(req)
	if err != nil {
		return st, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return st, fmt.Errorf("%s answers %d: another server holds the port", st.Server, resp.StatusCode)
	}
	var live twinStatus
	if err := json.NewDecoder(resp.Body).Decode(&live); err != nil {
		return st, err
	}
	return live, nil
}

// adminDetails is what a refused seed says about where it is wrong.
func adminDetails(err error) map[string]any {
	var se *session.Error
	if errors.As(err, &se) {
		return se.Details
	}
	return nil
}
