package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/pomehq/pome/twins"
)

// Budgets bound the memory sandboxes may take, so that no request and no
// flood of requests from one team can exhaust the server (a zero field is
// no limit). Sizes are bytes of JSON documents: a world counts as its state
// document (what GET …/state answers), a tape as its rows' encodings. Both
// are exact and cost nothing extra to know where the store encodes anyway,
// and a decoded world holds about as much memory as its document. A tape
// holds less: the memory store keeps all but its newest rows compressed
// (memRows), and still counts each row at its encoded size, so that a
// budget means the same on every store and whatever the rows hold.
//
// On Redis, the manager measures the world a write leaves against
// WorldBytes, and the server budgets and team shares count every sandbox
// of the deployment, whichever replica serves it, in keys of their own
// (redis_budget.go).
type Budgets struct {
	// WorldBytes caps one twin's world in a sandbox, at create (the seed's
	// world) and on every write that would grow it past.
	WorldBytes int64
	// ServerWorldBytes caps what the worlds of every sandbox the store
	// holds take together: for each twin its seed document, which is kept
	// for grading, plus its current state. Stopped sandboxes count until
	// their retention ends or they are discarded.
	ServerWorldBytes int64
	// ServerTapeBytes caps the tape rows every sandbox keeps together.
	// A tape that would pass it (or its team's share of it) keeps no
	// further row: later calls are counted and reported dropped, so a tape
	// is always a complete prefix of the calls made.
	ServerTapeBytes int64
	// TeamShare is the fraction of each server budget one team may hold
	// (0 or 1 and above: all of it), so that one team's flood leaves the
	// others their part.
	TeamShare float64
}

// teamLimit is a team's part of a server budget, 0 when there is none
// short of the server's own.
func (b Budgets) teamLimit(server int64) int64 {
	if server <= 0 || b.TeamShare <= 0 || b.TeamShare >= 1 {
		return 0
	}
	return max(int64(float64(server)*b.TeamShare), 1)
}

// Budget names, as BudgetError.Budget says them.
const (
	BudgetWorld       = "world"        // one twin's world
	BudgetTeamWorld   = "team_world"   // a team's share of ServerWorldBytes
	BudgetServerWorld = "server_world" // ServerWorldBytes
	BudgetTeamTape    = "team_tape"    // a team's share of ServerTapeBytes
	BudgetServerTape  = "server_tape"  // ServerTapeBytes
)

// ErrBudget is what every BudgetError matches with errors.Is.
var ErrBudget = errors.New("memory budget exceeded")

// BudgetError is a create or a write refused because it would take a
// sandbox, a team or the server past one of its Budgets. Nothing of the
// refused operation is kept.
type BudgetError struct {
	Budget string
	Twin   string // the world's twin, for world budgets of a write
	Team   string
	// Limit is the budget in bytes; Used what is held now; Size what the
	// refused operation would have made it.
	Limit, Used, Size int64
}

func (e *BudgetError) Error() string {
	return fmt.Sprintf("%s budget of %d bytes exceeded (%d bytes asked)", e.Budget, e.Limit, e.Size)
}

func (e *BudgetError) Is(target error) bool { return target == ErrBudget }

// worldBudgeter is a store that enforces Budgets.WorldBytes on writes
// itself (it knows each world's encoded size); for any other store the
// manager measures the world a write leaves before the store keeps it.
type worldBudgeter interface {
	SetBudgets(Budgets)
	enforcesWorldBudget() bool
}

// sharedWorldBudget is a store whose server budgets count worlds at the
// sizes the manager measures its writes at (the Redis store: see
// redisBudget): worldMeasured counts a twin's world as size bytes, last
// measured here at prev (-1: never), or refuses the write past a budget;
// worldTight says the team or the server is near its budget, so that
// every write is measured; sharedBudgetOn, that a server budget is set.
type sharedWorldBudget interface {
	sharedBudgetOn() bool
	worldMeasured(sb *Sandbox, twin string, prev, size int64) error
	worldTight(team string) bool
}

// encodedSize is len(json.Marshal(v)), counted without encoding.
func encodedSize(v any) (int64, error) { return twins.EncodedSize(v) }

// copyWorld is a private copy of world for a write that may be refused
// after it ran: the twin's copier where it has one, else its document
// decoded again.
func copyWorld(tw *twins.Twin, world any) (any, error) {
	if tw.CopyWorld != nil {
		return tw.CopyWorld(world), nil
	}
	doc, err := json.Marshal(world)
	if err != nil {
		return nil, err
	}
	return tw.DecodeWorld(doc)
}

// budgetVendorCode is the vendor error code of a write a budget refused:
// snake_case, as Slack's error and Stripe's code spell theirs.
const budgetVendorCode = "storage_limit_exceeded"

// budgetTwinError is the vendor-shaped answer to a write a budget refused:
// Forbidden, which each twin renders in its envelope (GitHub and Stripe
// 403 with the message, Slack ok:false, Google PERMISSION_DENIED).
func (m *Manager) budgetTwinError(be *BudgetError) *twins.Error {
	var msg string
	switch be.Budget {
	case BudgetWorld:
		msg = fmt.Sprintf("This write would make the sandbox's %s data %d bytes, over its limit of %d bytes (setting %s); nothing was changed.", be.Twin, be.Size, be.Limit, SettingWorldBytes)
	case BudgetTeamWorld:
		msg = fmt.Sprintf("This write would take your team's sandboxes past their share of the server's memory, %d bytes (setting %s); nothing was changed. Discard sandboxes to free it.", be.Limit, SettingTeamBudgetPercent)
	default:
		msg = fmt.Sprintf("The server is out of memory for sandbox data (%d bytes, setting %s); nothing was changed. Retry once sandboxes expire or are discarded.", be.Limit, SettingServerWorldBytes)
	}
	return twins.Errorf(twins.Forbidden, budgetVendorCode, "%s", msg).
		With("limit_bytes", be.Limit).With("size_bytes", be.Size)
}

// Setting names, as the configuration file and the control plane's
// refusals spell them (flags spell them with dashes).
const (
	SettingWorldBytes        = "max_world_bytes"
	SettingServerWorldBytes  = "max_server_world_bytes"
	SettingServerTapeBytes   = "max_server_tape_bytes"
	SettingTeamBudgetPercent = "team_budget_percent"
)

// budgetRetryAfter is what a create refused for want of server memory is
// told to wait: the memory store drops expired sandboxes once a minute.
const budgetRetryAfter = 60

// createRefusal is the control-plane answer to a create a budget refused.
func createRefusal(team string, be *BudgetError) *Error {
	details := map[string]any{"budget": be.Budget, "limit_bytes": be.Limit, "used_bytes": be.Used}
	switch be.Budget {
	case BudgetTeamWorld, BudgetTeamTape:
		what, setting := "sandbox worlds", SettingServerWorldBytes
		if be.Budget == BudgetTeamTape {
			what, setting = "tapes", SettingServerTapeBytes
		}
		details["setting"] = SettingTeamBudgetPercent
		return &Error{Type: ErrQuotaExceeded, Details: details, Message: fmt.Sprintf(
			"team %s holds %d bytes of %s, and this sandbox would take it past its share of %d bytes (%s of %s); discard sandboxes (DELETE /v1/sandboxes/{id}?discard=true) to free memory",
			team, be.Used, what, be.Limit, SettingTeamBudgetPercent, setting)}
	}
	what, setting := "sandbox worlds", SettingServerWorldBytes
	if be.Budget == BudgetServerTape {
		what, setting = "tapes", SettingServerTapeBytes
	}
	details["setting"] = setting
	return &Error{Type: ErrUnavailable, Details: details, RetryAfter: budgetRetryAfter, Message: fmt.Sprintf(
		"the server holds %d bytes of %s, its budget is %d bytes (%s); retry once sandboxes expire or are discarded",
		be.Used, what, be.Limit, setting)}
}

// worldSizes is what one process last measured of each world it wrote to,
// so that writes to a world far under its budget need not measure the
// whole world each time (see sampledWrite, the memory store's own
// sampling): such a world is measured once every sampleDue writes this
// process makes to it, a world nearer its budget on every write.
// Replicas sample apart, so a world may pass its budget by what a few
// intervals of writes add before one of them measures it; then every
// write measures it again.
type worldSizes struct {
	mu sync.Mutex
	m  map[string]*sampledSize
}

type sampledSize struct {
	size, unmeasured int64
	due              int64 // writes unmeasured before the next measure (sampleDue)
	growth           int64 // what a write added on average between the last two measures (writeGrowth)
}

// worldSizesMax bounds the worlds remembered; past it all are forgotten,
// and each is measured on its next write.
const worldSizesMax = 1 << 16

// last is the size the twin's world was last measured at here, or -1.
func (w *worldSizes) last(sid, twin string) int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	if e := w.m[sid+"/"+twin]; e != nil {
		return e.size
	}
	return -1
}

// due reports whether this write to the twin's world must be measured
// (limit <= 0: no world budget, only the sampling).
func (w *worldSizes) due(sid, twin string, limit int64) bool {
	if limit <= 0 {
		limit = math.MaxInt64 / (4 * roomyShare)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	e := w.m[sid+"/"+twin]
	if e == nil {
		return true
	}
	e.unmeasured++
	g := writeGrowth(e.growth)
	room := limit - e.size
	roomy := e.size*roomyShare <= limit && room >= 4*g*sampleInterval(e.size, g, room)
	return !roomy || e.unmeasured >= e.due
}

// measured keeps the size a write left, under a world budget of limit
// bytes (0 or less: none).
func (w *worldSizes) measured(sid, twin string, size, limit int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.m == nil || len(w.m) >= worldSizesMax {
		w.m = map[string]*sampledSize{}
	}
	e := &sampledSize{size: size}
	if prev := w.m[sid+"/"+twin]; prev != nil {
		e.growth = max((size-prev.size)/max(prev.unmeasured, 1), 1) // 0 is "not shown"
	}
	e.due = sampleDue(size, writeGrowth(e.growth), worldRoom(limit, size))
	w.m[sid+"/"+twin] = e
}
