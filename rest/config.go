package rest

import (
	"log/slog"
	"time"

	"github.com/pomehq/pome/session"
	"github.com/pomehq/pome/twins"
)

// Config is everything `pome serve` can be told; cmd/pome fills it from
// flags, POME_* env and the config file.
type Config struct {
	// Addr is the listen address (default 127.0.0.1:7070).
	Addr string
	// PublicURL is the base URL put in responses (default http:// + Addr).
	PublicURL string
	// RedisURL selects the Redis store; empty means the in-memory store.
	RedisURL string
	// TTL is a sandbox's default lifetime (default 30m).
	TTL time.Duration
	// Retention is how long a stopped sandbox stays readable (default 24h).
	Retention time.Duration
	// MaxTwins per sandbox (default 3).
	MaxTwins int
	// SandboxQuota is the number of open sandboxes per team (default 1000).
	SandboxQuota int
	// MaxBodyBytes limits request bodies (default 10 MiB).
	MaxBodyBytes int64
	// Teams maps a team name to its API keys, given in the clear by the
	// operator and hashed at start. Empty: a team "default" with one
	// generated key, printed once.
	Teams map[string][]string
	// KeyFile keeps the generated key of team "default" (mode 0600) when
	// Teams is empty, so that it survives restarts: created and printed
	// on the first start, read back on later ones. "" makes a new key on
	// every start.
	KeyFile string
	// StateDeltas tapes what each call changed in its twin's state
	// (state_delta on the row, shown by the dashboard); it costs a diff of
	// the world per write, so it is off by default.
	StateDeltas bool
	// MaxTapeRows caps each twin's tape in a sandbox (default 100,000);
	// calls past it are counted and reported as dropped, never kept.
	MaxTapeRows int64
	// MaxWorldBytes caps one twin's world in a sandbox, as the length of
	// its state document: a seed over it is refused at create, a write
	// that would grow a world past it is refused in the vendor's shape
	// (default 32 MiB).
	MaxWorldBytes int64
	// MaxServerWorldBytes caps the worlds of every sandbox together, each
	// twin counting its seed and its current state (default 4 GiB; memory
	// store only).
	MaxServerWorldBytes int64
	// MaxServerTapeBytes caps the tape rows of every sandbox together
	// (default 2 GiB; memory store only); a tape past it, or past its
	// team's share, keeps no further rows and reads truncated.
	MaxServerTapeBytes int64
	// AnswerCacheBytes bounds the answers of reads kept per world version
	// to be served again (answers.go; memory and Redis stores): 0 is the
	// default, 32 MiB, and a negative value keeps none.
	AnswerCacheBytes int64
	// WorldCacheBytes bounds the decoded worlds a Redis store keeps in
	// process, each charged three times its document
	// (session.RedisStore.SetWorldCacheBytes): 0 is the default, 512 MiB,
	// and a negative value keeps none. The memory store holds every world.
	WorldCacheBytes int64
	// TeamBudgetPercent is the part of each server budget one team may
	// hold, 1 to 100 (default 0: an equal part for each configured team).
	TeamBudgetPercent int
	// RateLimits is requests per minute per sandbox for each twin (0: off).
	RateLimits map[string]int
	// BodyTimeout is how long a request's body may take to arrive (default
	// 30s); WriteTimeout how long an answer, or each event of a stream,
	// may take to leave (default 60s); IdleTimeout how long a keep-alive
	// connection may wait for its next request (default 60s).
	BodyTimeout, WriteTimeout, IdleTimeout time.Duration
	// MaxConns is how many connections are served at once (default 4096).
	MaxConns int
	// AllowedOrigins are the browser origins, beside PublicURL's and
	// loopback's, whose pages may call the MCP endpoints ("*": any).
	AllowedOrigins []string
	// Pprof mounts net/http/pprof at /debug/pprof/, behind a team API key
	// (Authorization: Bearer or x-api-key) and without /cmdline.
	Pprof bool
	// RunsDir is where `pome run` writes run directories; the dashboard
	// shows their verdicts ("" shows none).
	RunsDir string
	// Registry is the set of twins served (nil: every twin Pome has).
	Registry *twins.Registry
	// Logger receives the server's log lines (nil: discard).
	Logger *slog.Logger
}

// Defaults fills unset fields with the documented defaults.
func (c *Config) Defaults() {
	if c.Addr == "" {
		c.Addr = "127.0.0.1:7070"
	}
	if c.PublicURL == "" {
		c.PublicURL = "http://" + c.Addr
	}
	if c.TTL <= 0 {
		c.TTL = 30 * time.Minute
	}
	if c.Retention <= 0 {
		c.Retention = 24 * time.Hour
	}
	if c.MaxTwins <= 0 {
		c.MaxTwins = 3
	}
	if c.SandboxQuota <= 0 {
		c.SandboxQuota = 1000
	}
	if c.MaxBodyBytes <= 0 {
		c.MaxBodyBytes = 10 << 20
	}
	if c.MaxWorldBytes <= 0 {
		c.MaxWorldBytes = DefaultMaxWorldBytes
	}
	if c.MaxServerWorldBytes <= 0 {
		c.MaxServerWorldBytes = DefaultMaxServerWorldBytes
	}
	if c.MaxServerTapeBytes <= 0 {
		c.MaxServerTapeBytes = DefaultMaxServerTapeBytes
	}
	if c.AnswerCacheBytes == 0 {
		c.AnswerCacheBytes = DefaultAnswerCacheBytes
	}
	if c.WorldCacheBytes == 0 {
		c.WorldCacheBytes = DefaultWorldCacheBytes
	}
	if c.BodyTimeout <= 0 {
		c.BodyTimeout = defaultBodyTimeout
	}
	if c.WriteTimeout <= 0 {
		c.WriteTimeout = defaultWriteTimeout
	}
	if c.IdleTimeout <= 0 {
		c.IdleTimeout = defaultIdleTimeout
	}
	if c.MaxConns <= 0 {
		c.MaxConns = defaultMaxConns
	}
}

// The default memory budgets keep a server with 24 GiB of memory up
// under a flood of creates and calls: what sandboxes hold live is bounded
// by about 6 GiB, which the Go heap may double between collections, with
// room left for requests being decoded meanwhile.
const (
	DefaultMaxWorldBytes       = 32 << 20
	DefaultMaxServerWorldBytes = 4 << 30
	DefaultMaxServerTapeBytes  = 2 << 30
	// DefaultAnswerCacheBytes bounds the reads' answers kept.
	DefaultAnswerCacheBytes = 32 << 20
	// DefaultWorldCacheBytes bounds the decoded worlds a Redis store keeps.
	DefaultWorldCacheBytes = session.DefaultWorldCacheBytes
)

// budgets are the memory budgets for a server of teams teams.
func (c *Config) budgets(teams int) session.Budgets {
	b := session.Budgets{WorldBytes: c.MaxWorldBytes, ServerWorldBytes: c.MaxServerWorldBytes, ServerTapeBytes: c.MaxServerTapeBytes}
	switch {
	case c.TeamBudgetPercent > 0:
		b.TeamShare = float64(c.TeamBudgetPercent) / 100
	case teams > 1:
		b.TeamShare = 1 / float64(teams)
	}
	return b
}
