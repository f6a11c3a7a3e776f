package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/pomehq/pome/tape"
	"github.com/pomehq/pome/twins"
)

// Config holds the sandbox policy.
type Config struct {
	TTL          time.Duration
	MaxTTL       time.Duration
	Retention    time.Duration
	MaxTwins     int
	SandboxQuota int
	// PublicURL is the base URL put into responses, without trailing slash.
	PublicURL string
	// StateDeltas tapes, with every call that changed state, the diff of
	// its twin's world before and after it. It costs two encodings and a
	// diff of the world per write, so it is off unless asked for.
	StateDeltas bool
	// Budgets bound the memory sandboxes take (zero fields: no limit).
	// The world budget is checked here at create and, for stores that do
	// not enforce it themselves, on writes; the store enforces the rest.
	Budgets Budgets
}

// Roles a data-plane token can have in a sandbox.
type Role int

const (
	RoleNone Role = iota
	// RoleAuth is the sandbox's auth_token: every twin, including _pome reads.
	RoleAuth
	// RoleAgent is the agent_token: vendor REST and MCP surfaces only.
	RoleAgent
	// RoleProvider is a twin's vendor-shaped credential: that twin only.
	RoleProvider
	// RoleUser is a twin's vendor-shaped user credential (Slack's xoxp-
	// beside its xoxb- bot token): that twin only, as RoleProvider, and
	// the twin is told the call carries a user's token.
	RoleUser
)

// ErrorType is a control-plane error class (SPEC §4).
type ErrorType string

const (
	ErrInvalidAuth      ErrorType = "invalid_auth"
	ErrForbidden        ErrorType = "forbidden"
	ErrValidationFailed ErrorType = "validation_failed"
	ErrNotFoundType     ErrorType = "not_found"
	ErrConflict         ErrorType = "conflict"
	ErrQuotaExceeded    ErrorType = "quota_exceeded"
	ErrRateLimited      ErrorType = "rate_limited"
	ErrInternal         ErrorType = "internal_error"
	// ErrUnavailable: the store cannot be reached; the request may be
	// retried (503).
	ErrUnavailable ErrorType = "unavailable"
)

// ErrDenied is every data-plane refusal of Authorize: one error, so that
// callers answer one opaque 404.
var ErrDenied = errors.New("denied")

// storeFailure is a store error the caller can do nothing about but retry.
// Its text is not shown: it names hosts and ports of the backend.
func storeFailure(err error) *Error {
	return &Error{Type: ErrUnavailable, Message: "the sandbox store is unavailable; retry shortly"}
}

// Error is a control-plane error; the REST layer maps Type to a status.
type Error struct {
	Type    ErrorType
	Message string
	Details map[string]any
	// RetryAfter, in seconds, is when a refusal that may pass later is
	// worth retrying (0: the transport's default).
	RetryAfter int
}

func (e *Error) Error() string { return string(e.Type) + ": " + e.Message }

func validation(field, format string, args ...any) *Error {
	return &Error{Type: ErrValidationFailed, Message: fmt.Sprintf(format, args...), Details: map[string]any{"field": field}}
}

// Teams holds the team API keys, hashed.
type Teams struct {
	byHash map[string]string // sha256 hex → team
}

// NewTeams hashes the configured keys.
func NewTeams(keys map[string][]string) (*Teams, error) {
	t := &Teams{byHash: map[string]string{}}
	for team, list := range keys {
		if team == "" {
			return nil, errors.New("team name must not be empty")
		}
		for _, k := range list {
			if !strings.HasPrefix(k, "pme_") || len(k) < 20 {
				return nil, fmt.Errorf("team %s: API keys look like pme_ followed by 32 characters", team)
			}
			t.byHash[HashToken(k)] = team
		}
	}
	return t, nil
}

// Team returns the team that owns key.
func (t *Teams) Team(key string) (string, bool) {
	if key == "" {
		return "", false
	}
	// The map is keyed by the SHA-256 of each key, so the lookup compares
	// digests, never the secret itself: its timing says nothing about how
	// much of a guessed key was right.
	team, ok := t.byHash[HashToken(key)]
	return team, ok
}

// Len returns the number of keys.
func (t *Teams) Len() int { return len(t.byHash) }

// Count returns the number of teams.
func (t *Teams) Count() int {
	seen := map[string]bool{}
	for _, team := range t.byHash {
		seen[team] = true
	}
	return len(seen)
}

// Manager runs the sandbox lifecycle over a store.
type Manager struct {
	Store    Store
	Registry *twins.Registry
	Config   Config
	Now      func() time.Time

	// sizes samples the size of the worlds this process writes to, for a
	// store that does not measure them itself (worldSizes).
	sizes worldSizes
	// defaults keeps default world documents for creates in the same
	// second.
	defaults defaultDocs
}

// NewManager returns a manager; now defaults to time.Now.
func NewManager(store Store, reg *twins.Registry, cfg Config, now func() time.Time) *Manager {
	if now == nil {
		now = time.Now
	}
	if cfg.MaxTTL <= 0 {
		cfg.MaxTTL = 24 * time.Hour
	}
	if b, ok := store.(worldBudgeter); ok {
		b.SetBudgets(cfg.Budgets)
	}
	return &Manager{Store: store, Registry: reg, Config: cfg, Now: now}
}

// CreateRequest is the body of POST /v1/sandboxes.
type CreateRequest struct {
	Twins      []string                   `json:"twins"`
	Seed       map[string]json.RawMessage `json:"seed,omitempty"`
	TTLSeconds *int                       `json:"ttl_seconds,omitempty"`
	TaskSource string                     `json:"task_source,omitempty"`
}

// TwinURLs are one twin's addresses in a sandbox.
type TwinURLs struct {
	APIURL     string `json:"api_url"`
	MCPURL     string `json:"mcp_url"`
	OpenAPIURL string `json:"openapi_url"`
}

// Credential is a vendor-shaped token and how to send it.
type Credential struct {
	Token  string `json:"token"`
	Header string `json:"header"`
	Scheme string `json:"scheme"`
	// UserToken is the twin's user credential, sent the same way, for a
	// twin that has one (twins.Twin.UserTokenPrefix): what the vendor
	// reserves to a user's token, such as Slack's search, takes it.
	UserToken string `json:"user_token,omitempty"`
}

// Created is the 201 body of POST /v1/sandboxes. It is the only place the
// tokens ever appear in the clear.
type Created struct {
	SessionID           string                `json:"session_id"`
	ExpiresAt           time.Time             `json:"expires_at"`
	AuthToken           string                `json:"auth_token"`
	AgentToken          string                `json:"agent_token"`
	PerTwin             map[string]TwinURLs   `json:"per_twin"`
	ProviderCredentials map[string]Credential `json:"provider_credentials"`
	Sandbox             *Sandbox              `json:"-"`
}

// TwinURLs returns a twin's addresses in a sandbox.
func (m *Manager) TwinURLs(sid, twin string) TwinURLs {
	base := m.apiURL(sid, twin)
	return TwinURLs{APIURL: base, MCPURL: base + "/mcp", OpenAPIURL: base + "/openapi.json"}
}

// apiURL is TwinURLs(sid, twin).APIURL, built alone: every call needs it.
func (m *Manager) apiURL(sid, twin string) string {
	return strings.TrimRight(m.Config.PublicURL, "/") + "/" + twin + "/s/" + sid
}

// Create validates the request completely, then creates the sandbox.
// Nothing is stored when any part is invalid.
func (m *Manager) Create(ctx context.Context, team string, req CreateRequest) (*Created, error) {
	if len(req.Twins) == 0 {
		return nil, validation("twins", "twins must name at least one twin (%s)", strings.Join(m.Registry.Names(), ", "))
	}
	if len(req.Twins) > m.Config.MaxTwins {
		return nil, validation("twins", "a sandbox has at most %d twins, got %d", m.Config.MaxTwins, len(req.Twins))
	}
	seen := map[string]bool{}
	for i, name := range req.Twins {
		if _, ok := m.Registry.Get(name); !ok {
			return nil, validation(fmt.Sprintf("twins[%d]", i), "unknown twin %q (available: %s)", name, strings.Join(m.Registry.Names(), ", "))
		}
		if seen[name] {
			return nil, validation(fmt.Sprintf("twins[%d]", i), "twin %q is listed twice", name)
		}
		seen[name] = true
	}
	ttl := m.Config.TTL
	if req.TTLSeconds != nil {
		if *req.TTLSeconds <= 0 || time.Duration(*req.TTLSeconds)*time.Second > m.Config.MaxTTL {
			return nil, validation("ttl_seconds", "ttl_seconds must be between 1 and %d", int(m.Config.MaxTTL/time.Second))
		}
		ttl = time.Duration(*req.TTLSeconds) * time.Second
	}
	var clock *time.Time
	for key, raw := range req.Seed {
		if key == "clock" {
			var ts time.Time
			if err := json.Unmarshal(raw, &ts); err != nil {
				return nil, validation("seed.clock", "seed clock must be an RFC 3339 timestamp: %v", err)
			}
			ts = ts.UTC()
			clock = &ts
			continue
		}
		if !seen[key] {
			if _, known := m.Registry.Get(key); known {
				return nil, validation("seed."+key, "seed for twin %q, which is not in twins", key)
			}
			return nil, validation("seed."+key, "unknown seed key %q (twin names and \"clock\")", key)
		}
	}

	now := m.Now().UTC().Truncate(time.Millisecond)
	sb := &Sandbox{
		ID: NewSandboxID(), Team: team, Twins: append([]string(nil), req.Twins...), State: StateReady,
		CreatedAt: now, ExpiresAt: now.Add(ttl), RetainUntil: now.Add(ttl), ClockStart: clock,
		TaskSource: req.TaskSource, ProviderHashes: map[string]string{},
	}
	worlds := make(map[string]SeedWorld, len(req.Twins))
	for _, name := range req.Twins {
		tw, _ := m.Registry.Get(name)
		env := m.Env(sb, tw)
		var sec int64
		cacheable := false
		if len(req.Seed[name]) == 0 {
			sec = env.Now().Unix()
			doc, hashes, hit, can := m.defaults.lookup(ctx, tw, sec)
			if hit {
				worlds[name] = SeedWorld{Doc: doc, Decode: tw.DecodeWorld}
				if len(hashes) > 0 {
					if sb.SeedHashes == nil {
						sb.SeedHashes = map[string][]string{}
					}
					sb.SeedHashes[name] = hashes
				}
				continue
			}
			cacheable = can
		}
		world, err := tw.NewWorld(twins.WithEnv(ctx, env), req.Seed[name])
		if err != nil {
			var se *twins.SeedError
			if errors.As(err, &se) {
				e := validation("seed."+name+strings.ReplaceAll(se.Path, "/", "."), "seed for %s is invalid at %s: %s", name, orRoot(se.Path), se.Message)
				e.Details["path"] = "/seed/" + name + se.Path
				return nil, e
			}
			return nil, validation("seed."+name, "seed for %s is invalid: %v", name, err)
		}
		doc, err := json.Marshal(world)
		if err != nil {
			return nil, &Error{Type: ErrInternal, Message: "encode world: " + err.Error()}
		}
		if lim := m.Config.Budgets.WorldBytes; lim > 0 && int64(len(doc)) > lim {
			e := validation("seed."+name, "seed for %s makes a world of %d bytes, over the limit of %d bytes for one twin's world (setting %s)", name, len(doc), lim, SettingWorldBytes)
			e.Details["limit_bytes"], e.Details["size_bytes"], e.Details["setting"] = lim, len(doc), SettingWorldBytes
			return nil, e
		}
		worlds[name] = SeedWorld{World: world, Doc: doc, Decode: tw.DecodeWorld}
		var hashes []string
		if tw.SeedCredentials != nil {
			if hashes = tw.SeedCredentials(world); len(hashes) > 0 {
				if sb.SeedHashes == nil {
					sb.SeedHashes = map[string][]string{}
				}
				sb.SeedHashes[name] = hashes
			}
		}
		if cacheable {
			m.defaults.put(tw, sec, doc, hashes)
		}
	}

	out := &Created{
		SessionID: sb.ID, ExpiresAt: sb.ExpiresAt,
		AuthToken: newAuthToken(), AgentToken: newAgentToken(),
		PerTwin: map[string]TwinURLs{}, ProviderCredentials: map[string]Credential{},
		Sandbox: sb,
	}
	sb.AuthHash, sb.AgentHash = HashToken(out.AuthToken), HashToken(out.AgentToken)
	for _, name := range req.Twins {
		tw, _ := m.Registry.Get(name)
		tok := NewProviderToken(tw.TokenPrefix, sb.ID, len(tw.RootPaths) > 0)
		sb.ProviderHashes[name] = HashToken(tok)
		out.PerTwin[name] = m.TwinURLs(sb.ID, name)
		cred := Credential{Token: tok, Header: "Authorization", Scheme: "Bearer"}
		if tw.BareCredential {
			// Sent as the vendor's SDK sends its API key: the header is
			// the key alone.
			cred.Scheme = ""
		}
		if tw.UserTokenPrefix != "" {
			// A user token never names its sandbox: it opens the twin only
			// on the sandbox's own URL.
			cred.UserToken = NewProviderToken(tw.UserTokenPrefix, sb.ID, false)
			if sb.UserHashes == nil {
				sb.UserHashes = map[string]string{}
			}
			sb.UserHashes[name] = HashToken(cred.UserToken)
		}
		out.ProviderCredentials[name] = cred
	}
	if err := m.Store.Create(ctx, sb, worlds, m.Config.SandboxQuota); err != nil {
		if errors.Is(err, ErrQuota) {
			return nil, &Error{Type: ErrQuotaExceeded, Message: fmt.Sprintf("team %s already has %d open sandboxes (the quota); stop one first", team, m.Config.SandboxQuota)}
		}
		var be *BudgetError
		if errors.As(err, &be) {
			return nil, createRefusal(team, be)
		}
		return nil, storeFailure(err)
	}
	if sw, ok := m.Store.(sharedWorldBudget); m.Config.Budgets.WorldBytes > 0 || (ok && sw.sharedBudgetOn()) {
		// The seeds' sizes are measures of the worlds as created, so that
		// a store whose writes are measured here (sampled, see Invoke)
		// does not measure a whole world again at its first write.
		if b, ok := m.Store.(worldBudgeter); !ok || !b.enforcesWorldBudget() {
			for name, w := range worlds {
				m.sizes.measured(sb.ID, name, int64(len(w.Doc)), m.Config.Budgets.WorldBytes)
			}
		}
	}
	return out, nil
}

func orRoot(p string) string {
	if p == "" {
		return "the root"
	}
	return p
}

// Env is the call environment of a twin in a sandbox.
func (m *Manager) Env(sb *Sandbox, tw *twins.Twin) *twins.Env {
	now := m.Now
	return &twins.Env{
		SandboxID: sb.ID, Twin: tw.Name, APIURL: m.apiURL(sb.ID, tw.Name),
		Now: func() time.Time { return sb.Now(now()) },
	}
}

// Get returns a team's sandbox; another team's id is not found.
func (m *Manager) Get(ctx context.Context, team, id string) (*Sandbox, error) {
	if !ValidSandboxID(id) {
		return nil, &Error{Type: ErrNotFoundType, Message: "no sandbox " + id}
	}
	sb, err := m.Store.Get(ctx, id)
	if errors.Is(err, ErrNotFound) {
		// Expired sandboxes keep a summary in the team index.
		list, lerr := m.Store.List(ctx, team)
		if lerr == nil {
			for _, s := range list {
				if s.ID == id {
					return s, nil
				}
			}
		}
		return nil, &Error{Type: ErrNotFoundType, Message: "no sandbox " + id}
	}
	if err != nil {
		return nil, storeFailure(err)
	}
	if sb.Team != team {
		return nil, &Error{Type: ErrNotFoundType, Message: "no sandbox " + id}
	}
	sb.State = sb.EffectiveState(m.Now())
	return sb, nil
}

// List returns a team's sandboxes newest first, filtered by state.
func (m *Manager) List(ctx context.Context, team, state string, limit int) ([]*Sandbox, bool, error) {
	switch state {
	case "", StateReady, StateStopped, StateExpired:
	default:
		return nil, false, validation("state", "state must be ready, stopped or expired")
	}
	if limit <= 0 {
		limit = 100
	}
	all, err := m.Store.List(ctx, team)
	if err != nil {
		return nil, false, storeFailure(err)
	}
	now := m.Now()
	var out []*Sandbox
	for _, sb := range all {
		sb.State = sb.EffectiveState(now)
		if state == "" || sb.State == state {
			out = append(out, sb)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].CreatedAt.After(out[j].CreatedAt) })
	more := len(out) > limit
	if more {
		out = out[:limit]
	}
	return out, more, nil
}

// Stop stops a team's sandbox, or with discard deletes it now.
func (m *Manager) Stop(ctx context.Context, team, id string, discard bool) error {
	sb, err := m.Get(ctx, team, id)
	if err != nil {
		return err
	}
	if discard {
		if err := m.Store.Discard(ctx, id); err != nil && !errors.Is(err, ErrNotFound) {
			return storeFailure(err)
		}
		return nil
	}
	if sb.State != StateReady {
		return nil
	}
	now := m.Now().UTC()
	if _, err := m.Store.Stop(ctx, id, now, now.Add(m.Config.Retention)); err != nil && !errors.Is(err, ErrNotFound) {
		return storeFailure(err)
	}
	return nil
}

// Usage reports a team's usage for the current calendar month.
func (m *Manager) Usage(ctx context.Context, team string) (Usage, error) {
	u, err := m.Store.Usage(ctx, team)
	if err != nil {
		return u, storeFailure(err)
	}
	now := m.Now().UTC()
	u.Team = team
	u.PeriodStart = time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	u.SandboxesQuota = m.Config.SandboxQuota
	return u, nil
}

// Authorize decides a data-plane request: the sandbox must exist and run
// the twin, and token must be one of its tokens that opens that twin. Every
// refusal is ErrDenied, so callers answer one opaque 404; any other error
// is the store failing, which callers answer with a retryable 503 rather
// than a 404 that would say the sandbox is gone. A stopped sandbox still
// authorizes (its _pome reads stay open); callers refuse its agent
// surfaces.
//
// The record returned is for this one call: a store may serve reads made
// with it as of the moment of the authorization (until a write is made
// with it), so it must not be kept for later calls.
func (m *Manager) Authorize(ctx context.Context, id, twin, token string) (*Sandbox, Role, error) {
	if !ValidSandboxID(id) || token == "" {
		return nil, RoleNone, ErrDenied
	}
	// Hash once, before the lookup, so that an unknown sandbox and a wrong
	// token cost the same work.
	return m.authorize(ctx, id, twin, HashToken(token))
}

// authorizeRead is Authorize for a call that only reads (CallRead): where the
// store can, the record comes from what this process holds, without a
// round trip, and is checked when the call's row is taped (see
// redis_spec.go); Call serves the call again with Authorize if the record
// turns out Stale. A refusal is never speculative: a record
// that would refuse the call is read again first.
func (m *Manager) authorizeRead(ctx context.Context, id, twin, token string) (*Sandbox, Role, error) {
	if !ValidSandboxID(id) || token == "" {
		return nil, RoleNone, ErrDenied
	}
	presented := HashToken(token)
	if g, ok := m.Store.(speculativeGetter); ok {
		if sb, ok := g.GetCached(id, twin); ok {
			if role, err := m.admit(sb, twin, presented); err == nil {
				return sb, role, nil
			}
		}
	}
	return m.authorize(ctx, id, twin, presented)
}

// speculates reports whether authorizeRead can answer from a record this
// process holds (a store shared by replicas); with any other store it is
// Authorize under another name, and Call need not ask whether a call is a
// read.
func (m *Manager) speculates() bool {
	_, ok := m.Store.(speculativeGetter)
	return ok
}

func (m *Manager) authorize(ctx context.Context, id, twin, presented string) (*Sandbox, Role, error) {
	var sb *Sandbox
	var err error
	if g, ok := m.Store.(twinRecordGetter); ok {
		// The record and the twin's state version in one round trip: a
		// read the call makes next can then skip its own.
		sb, err = g.GetForTwin(ctx, id, twin)
	} else {
		sb, err = m.Store.Get(ctx, id)
	}
	if errors.Is(err, ErrNotFound) {
		return nil, RoleNone, ErrDenied
	}
	if err != nil {
		return nil, RoleNone, storeFailure(err)
	}
	role, err := m.admit(sb, twin, presented)
	if err != nil {
		return nil, RoleNone, err
	}
	return sb, role, nil
}

// admit decides, on the sandbox record, whether the token hash presented
// opens twin, and as what.
func (m *Manager) admit(sb *Sandbox, twin, presented string) (Role, error) {
	if !sb.HasTwin(twin) {
		return RoleNone, ErrDenied
	}
	now := m.Now()
	if sb.EffectiveState(now) == StateExpired {
		return RoleNone, ErrDenied
	}
	// Compare against every token so that timing does not say which one
	// matched.
	auth := hashMatches(presented, sb.AuthHash)
	agent := hashMatches(presented, sb.AgentHash)
	prov := hashMatches(presented, sb.ProviderHashes[twin])
	user := hashMatches(presented, sb.UserHashes[twin])
	// A seeded credential is the seed author's choice and may be known
	// to others (the original Pome's sk_test_pome_default is): it opens
	// the twin only here, on a path that names this sandbox, whose id its
	// team alone is given. It is never looked up by itself.
	for _, h := range sb.SeedHashes[twin] {
		if hashMatches(presented, h) {
			prov = true
		}
	}
	switch {
	case auth:
		return RoleAuth, nil
	case agent:
		return RoleAgent, nil
	case prov:
		return RoleProvider, nil
	case user:
		return RoleUser, nil
	}
	return RoleNone, ErrDenied
}

// Invoke runs an already decoded action input on the sandbox's twin world.
// The returned Call says whether state changed.
//
// use, when not nil, runs on a successful output while the store still
// holds the twin's world: outputs may point into the world, so they are
// encoded there, before another call can change what they point at. Its
// error is answered as an internal error.
func (m *Manager) Invoke(ctx context.Context, sb *Sandbox, tw *twins.Twin, a twins.Action, in any, use func(out any) error) (any, error) {
	env := m.Env(sb, tw)
	if d := twins.ReadDepsFrom(ctx); d != nil {
		// An answer that read the clock is not the same at every moment.
		clock := env.Now
		env.Now = func() time.Time { d.NoteClock(); return clock() }
	}
	ctx = twins.WithEnv(ctx, env)
	if p := PrincipalFrom(ctx); p != nil && p.Role == RoleUser {
		ctx = twins.WithCredential(ctx, twins.CredentialUser)
	}
	write := a.Spec().Effect != twins.Read
	// A write is recorded as the operation it is (twins.Op), for a store
	// that saves writes that way: the clock readings and headers it takes
	// are noted as it runs.
	var op *writeOp
	if _, ok := m.Store.(opSaver); ok && write {
		if o := twins.NewOp(a, in); o != nil {
			op = &writeOp{op: o}
			ctx = withWriteOp(o.Recording(ctx), op)
		}
	}
	call := twins.CallFrom(ctx)
	call.SetTool(a.Name())
	// A store that does not hold writes to the world budget itself has the
	// world a write leaves measured here; such a store runs writes on a
	// private copy, or gives up a world a refused write changed (the
	// Redis store, see redis_live.go), so refusing one keeps nothing of it.
	lim := m.Config.Budgets.WorldBytes
	shared, _ := m.Store.(sharedWorldBudget)
	if shared != nil && !shared.sharedBudgetOn() {
		shared = nil
	}
	measure := false
	if write && (lim > 0 || shared != nil) {
		b, ok := m.Store.(worldBudgeter)
		measure = !ok || !b.enforcesWorldBudget()
	}
	// Each run of the action has a call record of its own, passed on to
	// the caller's only once the store kept what the run did: a write a
	// budget refuses after it ran must read as changing nothing. What the
	// run leaves is set by the function the store runs, in one value (on
	// the heap once rather than once for each).
	var res struct {
		out   any
		run   *twins.Call
		delta json.RawMessage
	}
	err := m.Store.Update(ctx, sb, tw, write, func(world any) (bool, error) {
		// A write's delta is the diff of the world before and after it,
		// kept on its tape row so a reader can see what each call did.
		var before []byte
		if write && m.Config.StateDeltas {
			before, _ = json.Marshal(world)
		}
		if op != nil {
			op.begin()
		}
		var runCtx context.Context
		runCtx, res.run = twins.WithCall(ctx)
		res.run.SetTool(a.Name())
		res.delta = nil
		var err error
		res.out, err = a.Run(runCtx, world, in)
		if err == nil && use != nil {
			if uerr := use(res.out); uerr != nil {
				err = twins.Errorf(twins.Internal, "", "encode response: %v", uerr)
			}
		}
		mutated := write && res.run.Mutated()
		if op != nil {
			op.setChanged(mutated || res.run.Bookkeeping())
		}
		if mutated && measure && (m.sizes.due(sb.ID, tw.Name, lim) || (shared != nil && shared.worldTight(sb.Team))) {
			size, merr := encodedSize(world)
			if merr != nil {
				return false, merr
			}
			if lim > 0 && size > lim {
				return false, &BudgetError{Budget: BudgetWorld, Twin: tw.Name, Team: sb.Team, Limit: lim, Size: size}
			}
			if shared != nil {
				if berr := shared.worldMeasured(sb, tw.Name, m.sizes.last(sb.ID, tw.Name), size); berr != nil {
					return false, berr
				}
			}
			m.sizes.measured(sb.ID, tw.Name, size, lim)
		}
		if mutated && before != nil {
			if after, merr := json.Marshal(world); merr == nil {
				if changes, _, derr := twins.Diff(before, after); derr == nil {
					if d, jerr := json.Marshal(changes); jerr == nil {
						res.delta = d
					}
				}
			}
		}
		// A run that changed only the twin's bookkeeping is persisted too,
		// without counting as a mutation (twins.KeepBookkeeping).
		return mutated || (write && res.run.Bookkeeping()), err
	})
	if err != nil {
		var be *BudgetError
		if errors.As(err, &be) {
			return nil, m.budgetTwinError(be)
		}
	}
	if res.run != nil && (err == nil || isTwinError(err)) {
		passOn(ctx, res.run, call, res.delta)
	}
	if errors.Is(err, ErrNotFound) {
		return nil, twins.Errorf(twins.NotFound, "not_found", "sandbox is gone")
	}
	if errors.Is(err, ErrStale) {
		// The caller serves the call again (Sandbox.Stale); this answer is
		// thrown away.
		return nil, twins.Errorf(twins.Unavailable, "unavailable", "the sandbox changed; retry")
	}
	if err != nil && !isTwinError(err) {
		// Not the handler's answer: the store failed around it, and
		// nothing of the call was saved.
		return nil, twins.Errorf(twins.Unavailable, "unavailable", "the sandbox store is unavailable; retry shortly")
	}
	return res.out, err
}

// isTwinError reports whether err is, or wraps, a twin's own answer.
func isTwinError(err error) bool {
	var te *twins.Error
	return errors.As(err, &te)
}

// Record appends a tape row for the sandbox.
//
// The call it records has already happened, so a store that fails for a
// while (a Redis restart, which under load can take seconds) is retried for
// up to recordRetryFor rather than leaving an acknowledged write off the
// tape; the call's answer waits meanwhile.
func (m *Manager) Record(ctx context.Context, sb *Sandbox, row *tape.Row) error {
	row.SessionID = sb.ID
	// Every try carries the same call id, so a store that did append the
	// row before its answer was lost does not append it again.
	ctx = context.WithValue(context.WithoutCancel(ctx), callIDKey{}, writeID())
	deadline := time.Now().Add(recordRetryFor)
	wait := 50 * time.Millisecond
	for {
		_, err := m.Store.Append(ctx, sb, row)
		// A speculative read's answer has not left: it is served again or
		// refused rather than held while the store recovers.
		// Nor is a held write refused as stale: it is served again.
		if err == nil || errors.Is(err, ErrNotFound) || errors.Is(err, ErrStale) || sb.Speculative() || time.Now().Add(wait).After(deadline) {
			return err
		}
		time.Sleep(wait)
		wait = min(wait*2, time.Second)
	}
}

// passOn gives the caller's call record what the run of its action that
// the store kept recorded: response headers, delta, and whether it changed
// the world.
func passOn(ctx context.Context, run, call *twins.Call, delta json.RawMessage) {
	// An action may stamp the call with the action it performed (GitHub's
	// GraphQL endpoint names the query's or mutation's action).
	if t := run.Tool(); t != "" {
		call.SetTool(t)
	}
	for k, v := range run.ResponseHeaders() {
		twins.SetResponseHeader(ctx, k, v)
	}
	if delta != nil {
		call.SetDelta(delta)
	}
	if run.Mutated() && !call.Mutated() {
		// A call record learns that it changed state only from an
		// action's run; this one's changes nothing.
		markMutated.Run(ctx, &struct{}{}, struct{}{})
	}
}

// markMutated is a write that changes nothing, run to mark a call record
// as having changed state.
var markMutated = twins.New(twins.Spec{Name: "pome_mark_mutated", Effect: twins.Write},
	func(context.Context, *struct{}, struct{}) (struct{}, error) { return struct{}{}, nil })

type callIDKey struct{}

// callID returns the id Record gave the call being appended, or a new one.
func callID(ctx context.Context) string {
	if id, ok := ctx.Value(callIDKey{}).(string); ok {
		return id
	}
	return writeID()
}

// writeID names one save or one taped call, so that a store can tell it
// from another when it is sent twice (see the Redis store's saveScript).
func writeID() string { return randomString(16, base62) }

// recordRetryFor bounds how long Record retries a failing store.
const recordRetryFor = 10 * time.Second

// Input gathers what checks read for one twin: seed, final world, tape.
func (m *Manager) Input(ctx context.Context, sb *Sandbox, tw *twins.Twin) (*twins.Input, error) {
	seedDoc, err := m.Store.Seed(ctx, sb, tw.Name)
	if err != nil {
		return nil, err
	}
	finalDoc, err := m.Store.State(ctx, sb, tw.Name)
	if err != nil {
		return nil, err
	}
	seed, err := tw.DecodeWorld(seedDoc)
	if err != nil {
		return nil, err
	}
	final, err := tw.DecodeWorld(finalDoc)
	if err != nil {
		return nil, err
	}
	rows, err := m.Store.Tape(ctx, sb, tw.Name, 0, 0)
	if err != nil {
		return nil, err
	}
	stored, total, err := m.Store.TapeLen(ctx, sb, tw.Name)
	if err != nil {
		return nil, err
	}
	return &twins.Input{Twin: tw, Seed: seed, Final: final, Tape: rows, TapeDropped: max(total-stored, 0)}, nil
}
