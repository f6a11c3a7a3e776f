package session

import (
	"context"
	"errors"
	"time"

	"github.com/pomehq/pome/tape"
	"github.com/pomehq/pome/twins"
)

// Sandbox states.
const (
	StateReady   = "ready"
	StateStopped = "stopped"
	StateExpired = "expired"
)

// Sandbox is the stored record of one sandbox. Token fields hold hashes.
type Sandbox struct {
	ID        string     `json:"id"`
	Team      string     `json:"team"`
	Twins     []string   `json:"twins"`
	State     string     `json:"state"`
	CreatedAt time.Time  `json:"created_at"`
	ExpiresAt time.Time  `json:"expires_at"`
	StoppedAt *time.Time `json:"stopped_at,omitempty"`
	// RetainUntil is when every key of the sandbox goes away: ExpiresAt
	// while ready, StoppedAt + retention once stopped.
	RetainUntil time.Time `json:"retain_until"`
	// ClockStart fixes the sandbox clock's origin (seed "clock").
	ClockStart *time.Time `json:"clock_start,omitempty"`
	TaskSource string     `json:"task_source,omitempty"`

	AuthHash       string            `json:"auth_hash"`
	AgentHash      string            `json:"agent_hash"`
	ProviderHashes map[string]string `json:"provider_hashes"`
	// SeedHashes are, per twin, the hashes of credentials its seed named
	// (twins.Twin.SeedCredentials); each opens that twin as the provider
	// credential does.
	SeedHashes map[string][]string `json:"seed_hashes,omitempty"`
	// UserHashes are, per twin with a user credential
	// (twins.Twin.UserTokenPrefix), the hash of the sandbox's user token:
	// it opens that twin as the provider credential does, and the twin is
	// told the call carries a user's token (twins.CredentialUser).
	UserHashes map[string]string `json:"user_hashes,omitempty"`

	// view is what the store saw of one twin's state in the same round
	// trip as this record, when it was read to serve a call on that twin
	// (twinRecordGetter); nil otherwise.
	view *twinView
	// spec is set on a record read from the store's caches rather than
	// from the store (RedisStore.GetCached); nil otherwise.
	spec *speculation
	// hold is set on a record whose writes wait for the call's tape row
	// (Manager.holdWrites, driven by Call); nil otherwise.
	hold *heldWrite
}

// HasTwin reports whether the sandbox runs the twin.
func (s *Sandbox) HasTwin(name string) bool {
	for _, t := range s.Twins {
		if t == name {
			return true
		}
	}
	return false
}

// Now is the sandbox clock: wall time, or, with a seeded clock, the seeded
// start plus the time elapsed since creation.
func (s *Sandbox) Now(wall time.Time) time.Time {
	if s.ClockStart == nil {
		return wall.UTC()
	}
	return s.ClockStart.Add(wall.Sub(s.CreatedAt)).UTC()
}

// EffectiveState is the state as of now (a ready sandbox past its expiry is
// expired).
func (s *Sandbox) EffectiveState(now time.Time) string {
	if s.State == StateReady && !now.Before(s.ExpiresAt) {
		return StateExpired
	}
	return s.State
}

// MaxListed is how many sandboxes a team's list remembers: its newest, by
// creation. Past it, creating a sandbox forgets the oldest entry, so a team
// that makes sandboxes without end holds a bounded list; what is forgotten
// is only the entry (a sandbox still open keeps working). Entries are also
// forgotten a week past their sandbox's expiry.
const MaxListed = 10000

// listLimit is a store's list bound: n as set by SetMaxListed, or
// MaxListed when n <= 0.
func listLimit(n int) int {
	if n <= 0 {
		return MaxListed
	}
	return n
}

// Summary is what a team index keeps about a sandbox after its keys are gone,
// so that listing can still say "expired".
type Summary struct {
	ID        string     `json:"id"`
	Twins     []string   `json:"twins"`
	State     string     `json:"state"`
	CreatedAt time.Time  `json:"created_at"`
	ExpiresAt time.Time  `json:"expires_at"`
	StoppedAt *time.Time `json:"stopped_at,omitempty"`
}

// SeedWorld is one twin's initial world: the decoded object (the memory
// store keeps it live) and its JSON document (kept as the seed, and as the
// state in stores that serialise).
type SeedWorld struct {
	World any
	Doc   []byte
	// Decode, when set, makes the world again from Doc: the memory store
	// then keeps only the document until a call needs the world.
	Decode func([]byte) (any, error)
}

// Usage counts what a team used in the current period.
type Usage struct {
	Team             string    `json:"team"`
	PeriodStart      time.Time `json:"period_start"`
	SandboxesOpen    int       `json:"sandboxes_open"`
	SandboxesCreated int       `json:"sandboxes_created"`
	SandboxesQuota   int       `json:"sandboxes_quota"`
	TwinsStarted     int       `json:"twins_started"`
	Evals            int       `json:"evals"`
}

// Store errors.
var (
	ErrNotFound = errors.New("not found")
	ErrQuota    = errors.New("quota exceeded")
	ErrExists   = errors.New("already exists")
)

// DefaultMaxTapeRows caps each twin's tape in a sandbox, so that a runaway
// agent cannot grow a sandbox without bound.
const DefaultMaxTapeRows = 100_000

// UpdateFunc runs on a twin's world and reports whether it changed it.
type UpdateFunc func(world any) (mutated bool, err error)

// twinRecordGetter is a Store that can read a sandbox's record for serving
// a call on one of its twins. The record it returns may carry what the
// store saw of that twin's state in the same round trip, so that a read
// made with the record may be served as of that moment, which lies within
// the call, and a write may start from it (its save still checks that the
// state did not move on); a write made with the record ends that (see
// RedisStore). It is optional: a Store without it is read with Get.
type twinRecordGetter interface {
	GetForTwin(ctx context.Context, id, twin string) (*Sandbox, error)
}

// Store keeps sandboxes, twin worlds and tapes. Every backend passes the
// same conformance suite (storetest).
type Store interface {
	// Create stores a new sandbox and its twins' seed worlds, atomically
	// refusing with ErrQuota when the team already has quota sandboxes
	// ready (quota <= 0: no limit). It counts the creation in usage.
	Create(ctx context.Context, sb *Sandbox, worlds map[string]SeedWorld, quota int) error
	// Get returns a stored sandbox or ErrNotFound (also once its keys are
	// gone).
	Get(ctx context.Context, id string) (*Sandbox, error)
	// List returns the team's sandboxes, newest first, including summaries
	// of expired ones whose keys are gone (as records with State expired).
	List(ctx context.Context, team string) ([]*Sandbox, error)
	// Stop marks a ready sandbox stopped at `at`, keeping every key until
	// retainUntil. Stopping a stopped sandbox is a no-op.
	Stop(ctx context.Context, id string, at, retainUntil time.Time) (*Sandbox, error)
	// Discard deletes every key of the sandbox now, and its index entry.
	Discard(ctx context.Context, id string) error

	// Update runs fn on the twin's current world. With write, a run that
	// reports mutated is persisted so that no concurrent update is lost
	// (fn may run more than once on backends that retry), and fn's error
	// is returned after; a run that errs without reporting mutated
	// persists nothing. Without write, fn must not change the world.
	Update(ctx context.Context, sb *Sandbox, twin *twins.Twin, write bool, fn UpdateFunc) error
	// State returns the twin's current world document.
	State(ctx context.Context, sb *Sandbox, twin string) ([]byte, error)
	// Seed returns the twin's seed world document.
	Seed(ctx context.Context, sb *Sandbox, twin string) ([]byte, error)

	// Append stores a tape row, assigning the next gap-free seq of that
	// twin's tape, and returns it. A store may keep the row's response
	// body as it is rather than a copy (the memory store does, until the
	// row is compressed): the caller must not modify it afterwards.
	Append(ctx context.Context, sb *Sandbox, row *tape.Row) (int64, error)
	// Tape returns the rows with seq > after, oldest first, at most limit
	// (limit <= 0: all).
	Tape(ctx context.Context, sb *Sandbox, twin string, after int64, limit int) ([]tape.Row, error)
	// TapeRaw is Tape without decoding: each row as the JSON object it is
	// stored as, which decodes to the row (it is what json.Marshal gives,
	// except that bodies kept as sent are not HTML-escaped). Callers must
	// not modify them.
	TapeRaw(ctx context.Context, sb *Sandbox, twin string, after int64, limit int) ([][]byte, error)
	// TapeLen reports how many rows the twin's tape keeps and how many
	// calls it has counted; they differ once the tape reached the store's
	// cap (rows past it are counted, never stored).
	TapeLen(ctx context.Context, sb *Sandbox, twin string) (stored, total int64, err error)

	// Usage reports the team's counters; open counts ready sandboxes.
	Usage(ctx context.Context, team string) (Usage, error)
	// CountEval adds one graded evaluation to the team's usage.
	CountEval(ctx context.Context, team string) error

	// Ping fails when the backend is unreachable.
	Ping(ctx context.Context) error
	Close() error
}

// worldVersioner is a store that numbers the versions of its worlds, for
// caches of what a read answers (Manager.WorldVersion). A store without
// it has nothing cached.
//
// The memory store numbers every world of the process from one counter,
// and a write takes its new number before it changes anything, so the
// number it reports is the world a read would find now. The Redis store
// reports the state's stored version ('ver', bumped by every stored write
// on any replica) as the call's authorization established it: read from
// Redis in that round trip, or, for a speculative read, the version this
// process caches, which the call's tape append checks against Redis
// before its answer may leave (RedisStore.WorldVersion). Its numbers
// start again at 1 for a sandbox created again under the same id, so
// what is kept by version is kept per sandbox incarnation (CreatedAt).
type worldVersioner interface {
	// WorldVersion reports the version of the twin's world as this call
	// may read it: two reads that find the same version of the same
	// sandbox incarnation read the same world. It reports 0 (with true)
	// when the call has not established one before its read; the read
	// still reports the version it ran on. A read run through Update with
	// a context from WithReadVersion learns the version of the world it
	// ran on.
	WorldVersion(sb *Sandbox, twin string) (uint64, bool)
}

type readVersionKey struct{}

// WithReadVersion returns a context whose read (Store.Update without
// write, on a store with world versions) sets *v to the version of the
// world it ran on; *v stays 0 on a store without them.
func WithReadVersion(ctx context.Context, v *uint64) context.Context {
	return context.WithValue(ctx, readVersionKey{}, v)
}

func readVersionFrom(ctx context.Context) *uint64 {
	v, _ := ctx.Value(readVersionKey{}).(*uint64)
	return v
}

// WorldVersion reports the version of the twin's world in sb, on a store
// that numbers them (the memory store, the Redis store); false elsewhere.
// A version is 0 when the store cannot tell it before the read, which then
// reports it (WithReadVersion); versions of a sandbox created again under
// the same id may repeat those of the one before.
func (m *Manager) WorldVersion(sb *Sandbox, twin string) (uint64, bool) {
	if v, ok := m.Store.(worldVersioner); ok {
		return v.WorldVersion(sb, twin)
	}
	return 0, false
}
