package session

import (
	"bytes"
	"container/heap"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pomehq/pome/tape"
	"github.com/pomehq/pome/twins"
)

// MemoryStore keeps everything in this process: the embedded default. Each
// sandbox has its own locks, so one sandbox's traffic never waits on
// another's; the store-wide lock is held only to find a sandbox.
type MemoryStore struct {
	now func() time.Time

	// sandboxes maps id → *memSandbox. A sync.Map, so the lookups every
	// data-plane request makes share no lock; mu guards the team records
	// and serialises create/stop/discard so the quota check is atomic.
	sandboxes sync.Map
	mu        sync.Mutex
	teams     map[string]*memTeam

	stop chan struct{}
	once sync.Once

	maxTapeRows int64
	// maxListed bounds each team's list (<= 0: MaxListed).
	maxListed int

	// budgets bound what sandboxes hold (SetBudgets); worldBytes and
	// tapeBytes are what every live sandbox holds now, each team's part
	// in its memTeam.
	budgets    Budgets
	worldBytes atomic.Int64
	tapeBytes  atomic.Int64
	// tapeFull is set once a row found no room in the tape budget, and
	// cleared when a sandbox gives tape back; a team's in its memTeam.
	tapeFull atomic.Bool

	// docs are the reference seed documents seeds are kept against.
	docs docRefs
}

// SetBudgets sets the memory budgets (zero fields: no limit). Call it
// before serving.
func (s *MemoryStore) SetBudgets(b Budgets) { s.budgets = b }

// enforcesWorldBudget: Update measures every write's world itself.
func (s *MemoryStore) enforcesWorldBudget() bool { return true }

// measured reports whether writes must know the size of the world they
// leave: then they run on a private copy, kept only if it fits.
func (s *MemoryStore) measured() bool {
	return s.budgets.WorldBytes > 0 || s.budgets.ServerWorldBytes > 0
}

// SetMaxTapeRows caps each twin's tape (n <= 0: DefaultMaxTapeRows). Rows
// past the cap are counted but not kept. Call it before serving.
func (s *MemoryStore) SetMaxTapeRows(n int64) {
	if n <= 0 {
		n = DefaultMaxTapeRows
	}
	s.maxTapeRows = n
}

type memSandbox struct {
	mu    sync.RWMutex // guards sb
	sb    Sandbox
	twins map[string]*memTwin
	team  *memTeam
}

type memTwin struct {
	mu sync.RWMutex // guards world
	// world is nil until the first call that needs it decodes it from
	// the seed document with decode (load); a twin without decode keeps
	// the world it was created with.
	world  any
	decode func([]byte) (any, error)
	seed   seedDoc
	// ver is the world's version (WorldVersion): a number from
	// worldVersions, taken anew when the twin is created and by every
	// write as soon as it holds mu, before it changes anything (a world
	// decoded from its seed by load is the one it was created as).
	ver atomic.Uint64
	// size is the length of the world's state document, known when the
	// store measures writes (MemoryStore.measured); gone is set once the
	// sandbox's memory is given back (release), after which nothing is
	// counted for it again. Both are guarded by mu.
	size int64
	gone bool
	// unmeasured counts writes since size was measured (sampledWrite),
	// sampleAt how many it may count before the next measure (0: not
	// drawn yet; sampleDue). growth is what a write added on average
	// between the last two measures, at least 1 (0: not measured twice
	// yet; writeGrowth).
	unmeasured, sampleAt, growth int64

	// inflight is held shared by every call that reserved a tape position
	// and sends its response before writing the row there (reserveTape);
	// tape reads hold it exclusively, so they never see an empty position
	// nor miss a row whose response was sent.
	inflight sync.RWMutex
	tapeMu   sync.Mutex
	// total counts every call appended, including those past the cap.
	total int64
	// rows holds each tape row as its JSON encoding, the older ones
	// compressed in blocks (memRows): few pointer-free allocations keep
	// garbage collection cheap however long tapes grow. Seq N is at
	// position N-1.
	rows memRows
	// rowBytes is what rows hold; dropping is set once a row was not kept
	// for want of budget, so that no later one is either (rows stay the
	// prefix seq 1..len(rows)). Guarded by tapeMu, as released is.
	rowBytes int64
	dropping bool
	// released is set once release gave rowBytes back.
	released bool
}

type memTeam struct {
	// worldBytes, tapeBytes and tapeFull are the team's part of the
	// store's.
	worldBytes atomic.Int64
	tapeBytes  atomic.Int64
	tapeFull   atomic.Bool

	created   int
	twins     int
	evals     int
	summaries map[string]Summary
	// listed holds the ids of summaries in creation order from listedHead
	// on, so that the oldest entry is found in O(1) when the list is full.
	// Ids discarded or forgotten since stay in it until it is compacted.
	listed     []string
	listedHead int
	// open maps each ready sandbox to its expiry; expiring orders them so
	// that counting open sandboxes (the quota check on every create) costs
	// O(log n) instead of a walk over every sandbox.
	open     map[string]time.Time
	expiring expiryHeap
}

type expiryEntry struct {
	id string
	at time.Time
}

type expiryHeap []expiryEntry

func (h expiryHeap) Len() int           { return len(h) }
func (h expiryHeap) Less(i, j int) bool { return h[i].at.Before(h[j].at) }
func (h expiryHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *expiryHeap) Push(x any)        { *h = append(*h, x.(expiryEntry)) }
func (h *expiryHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}

// openCount drops expired entries and returns the team's ready sandboxes.
// A stopped sandbox leaves open at once; its heap entry is skipped here.
func (t *memTeam) openCount(now time.Time) int {
	for len(t.expiring) > 0 && !now.Before(t.expiring[0].at) {
		e := heap.Pop(&t.expiring).(expiryEntry)
		if at, ok := t.open[e.id]; ok && at.Equal(e.at) {
			delete(t.open, e.id)
		}
	}
	return len(t.open)
}

// NewMemoryStore returns an empty in-memory store that sweeps expired
// sandboxes every sweep interval (0: one minute).
func NewMemoryStore(now func() time.Time, sweep time.Duration) *MemoryStore {
	if now == nil {
		now = time.Now
	}
	if sweep <= 0 {
		sweep = time.Minute
	}
	s := &MemoryStore{now: now, teams: map[string]*memTeam{}, stop: make(chan struct{}), maxTapeRows: DefaultMaxTapeRows}
	go s.sweepLoop(sweep)
	return s
}

func (s *MemoryStore) sweepLoop(every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			s.Sweep()
		}
	}
}

// Sweep deletes sandboxes whose retention has passed, as key expiry does in
// Redis.
func (s *MemoryStore) Sweep() {
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sandboxes.Range(func(id, v any) bool {
		ms := v.(*memSandbox)
		ms.mu.RLock()
		gone := !now.Before(ms.sb.RetainUntil)
		ms.mu.RUnlock()
		if gone {
			s.sandboxes.Delete(id)
			s.release(ms)
		}
		return true
	})
	for _, t := range s.teams {
		for id, sum := range t.summaries {
			if now.Sub(sum.ExpiresAt) > 7*24*time.Hour {
				delete(t.summaries, id)
			}
		}
	}
}

// SetMaxListed bounds the entries each team's list keeps (<= 0:
// MaxListed). Tests lower it.
func (s *MemoryStore) SetMaxListed(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.maxListed = n
}

// list records a new summary under s.mu and forgets the oldest entries
// past the bound.
func (s *MemoryStore) list(t *memTeam, sum Summary) {
	limit := listLimit(s.maxListed)
	t.summaries[sum.ID] = sum
	t.listed = append(t.listed, sum.ID)
	for len(t.summaries) > limit && t.listedHead < len(t.listed) {
		delete(t.summaries, t.listed[t.listedHead])
		t.listed[t.listedHead] = ""
		t.listedHead++
	}
	// Discards leave their ids behind: once they are most of the slice it
	// is rebuilt from the entries still kept, so it stays within a small
	// multiple of them.
	if n := len(t.listed) - t.listedHead; n > 64 && n > 2*len(t.summaries) {
		kept := make([]string, 0, 2*len(t.summaries)+1)
		for _, id := range t.listed[t.listedHead:] {
			if _, ok := t.summaries[id]; ok {
				kept = append(kept, id)
			}
		}
		t.listed, t.listedHead = kept, 0
	}
}

func (s *MemoryStore) team(name string) *memTeam {
	t := s.teams[name]
	if t == nil {
		t = &memTeam{summaries: map[string]Summary{}, open: map[string]time.Time{}}
		s.teams[name] = t
	}
	return t
}

// live returns the sandbox if its keys still exist.
func (s *MemoryStore) live(id string) (*memSandbox, bool) {
	v, ok := s.sandboxes.Load(id)
	if !ok {
		return nil, false
	}
	ms := v.(*memSandbox)
	ms.mu.RLock()
	gone := !s.now().Before(ms.sb.RetainUntil)
	ms.mu.RUnlock()
	return ms, !gone
}

func (s *MemoryStore) Create(ctx context.Context, sb *Sandbox, worlds map[string]SeedWorld, quota int) error {
	// The twins are made before the store's lock is taken: an id already
	// taken or a quota reached wastes them, which no create that succeeds
	// waits for.
	twins := make(map[string]*memTwin, len(worlds))
	for name, w := range worlds {
		mt := &memTwin{seed: s.docs.keep(name, w.Doc), size: int64(len(w.Doc))}
		mt.ver.Store(worldVersions.Add(1))
		if w.Decode != nil {
			mt.decode = w.Decode
		} else {
			mt.world = w.World
		}
		twins[name] = mt
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.sandboxes.Load(sb.ID); ok {
		return ErrExists
	}
	t := s.team(sb.Team)
	if quota > 0 && t.openCount(s.now()) >= quota {
		return ErrQuota
	}
	var bytes int64
	for _, w := range worlds {
		// The seed document and the world made from it.
		bytes += 2 * int64(len(w.Doc))
	}
	if err := s.admit(sb.Team, t, bytes); err != nil {
		return err
	}
	ms := &memSandbox{sb: *sb, twins: twins, team: t}
	s.sandboxes.Store(sb.ID, ms)
	t.open[sb.ID] = sb.ExpiresAt
	heap.Push(&t.expiring, expiryEntry{id: sb.ID, at: sb.ExpiresAt})
	t.created++
	t.twins += len(sb.Twins)
	s.list(t, summaryOf(sb))
	return nil
}

func summaryOf(sb *Sandbox) Summary {
	return Summary{ID: sb.ID, Twins: sb.Twins, State: sb.State, CreatedAt: sb.CreatedAt, ExpiresAt: sb.ExpiresAt, StoppedAt: sb.StoppedAt}
}

func (s *MemoryStore) Get(ctx context.Context, id string) (*Sandbox, error) {
	ms, ok := s.live(id)
	if !ok {
		return nil, ErrNotFound
	}
	ms.mu.RLock()
	defer ms.mu.RUnlock()
	cp := ms.sb
	return &cp, nil
}

func (s *MemoryStore) List(ctx context.Context, team string) ([]*Sandbox, error) {
	s.mu.Lock()
	t := s.teams[team]
	var out []*Sandbox
	if t != nil {
		for id, sum := range t.summaries {
			if v, ok := s.sandboxes.Load(id); ok {
				ms := v.(*memSandbox)
				ms.mu.RLock()
				if s.now().Before(ms.sb.RetainUntil) {
					cp := ms.sb
					out = append(out, &cp)
					ms.mu.RUnlock()
					continue
				}
				ms.mu.RUnlock()
			}
			out = append(out, fromSummary(team, sum))
		}
	}
	s.mu.Unlock()
	sortNewestFirst(out)
	return out, nil
}

// fromSummary rebuilds the record of a sandbox whose keys are gone.
func fromSummary(team string, sum Summary) *Sandbox {
	state := sum.State
	if state == StateReady {
		state = StateExpired
	}
	return &Sandbox{ID: sum.ID, Team: team, Twins: sum.Twins, State: state, CreatedAt: sum.CreatedAt, ExpiresAt: sum.ExpiresAt, StoppedAt: sum.StoppedAt}
}

func sortNewestFirst(list []*Sandbox) {
	sort.SliceStable(list, func(i, j int) bool {
		if !list[i].CreatedAt.Equal(list[j].CreatedAt) {
			return list[i].CreatedAt.After(list[j].CreatedAt)
		}
		return list[i].ID > list[j].ID
	})
}

func (s *MemoryStore) Stop(ctx context.Context, id string, at, retainUntil time.Time) (*Sandbox, error) {
	ms, ok := s.live(id)
	if !ok {
		return nil, ErrNotFound
	}
	ms.mu.Lock()
	if ms.sb.State == StateReady {
		at := at.UTC()
		ms.sb.State = StateStopped
		ms.sb.StoppedAt = &at
		ms.sb.RetainUntil = retainUntil
	}
	cp := ms.sb
	ms.mu.Unlock()
	s.mu.Lock()
	if t := s.teams[cp.Team]; t != nil {
		// An entry the list already forgot (or a concurrent Discard took)
		// stays forgotten.
		if _, ok := t.summaries[id]; ok {
			t.summaries[id] = summaryOf(&cp)
		}
		delete(t.open, id)
	}
	s.mu.Unlock()
	return &cp, nil
}

func (s *MemoryStore) Discard(ctx context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.sandboxes.LoadAndDelete(id)
	if !ok {
		return ErrNotFound
	}
	ms := v.(*memSandbox)
	if t := s.teams[ms.sb.Team]; t != nil {
		delete(t.summaries, id)
		delete(t.open, id)
	}
	s.release(ms)
	return nil
}

// admit takes bytes of world budget for a new sandbox of team t, or
// refuses it: its tapes would start over a tape budget already spent, or
// its worlds would take the team past its share or the server past its
// budget. It runs under s.mu, so creates are admitted one at a time;
// writes, which take and give back world bytes meanwhile, do so
// atomically.
func (s *MemoryStore) admit(team string, t *memTeam, bytes int64) error {
	b := s.budgets
	if lim := b.teamLimit(b.ServerTapeBytes); lim > 0 && (t.tapeFull.Load() || t.tapeBytes.Load() >= lim) {
		return &BudgetError{Budget: BudgetTeamTape, Team: team, Limit: lim, Used: t.tapeBytes.Load()}
	}
	if lim := b.ServerTapeBytes; lim > 0 && (s.tapeFull.Load() || s.tapeBytes.Load() >= lim) {
		return &BudgetError{Budget: BudgetServerTape, Team: team, Limit: lim, Used: s.tapeBytes.Load()}
	}
	return s.takeWorld(team, t, bytes)
}

// takeWorld counts delta more bytes of world for team t, or, for growth
// that would take the team past its share or the server past its budget,
// counts nothing and says which.
func (s *MemoryStore) takeWorld(team string, t *memTeam, delta int64) error {
	if delta <= 0 {
		s.worldBytes.Add(delta)
		t.worldBytes.Add(delta)
		return nil
	}
	b := s.budgets
	if n, lim := t.worldBytes.Add(delta), b.teamLimit(b.ServerWorldBytes); lim > 0 && n > lim {
		t.worldBytes.Add(-delta)
		return &BudgetError{Budget: BudgetTeamWorld, Team: team, Limit: lim, Used: n - delta, Size: n}
	}
	if n := s.worldBytes.Add(delta); b.ServerWorldBytes > 0 && n > b.ServerWorldBytes {
		s.worldBytes.Add(-delta)
		t.worldBytes.Add(-delta)
		return &BudgetError{Budget: BudgetServerWorld, Team: team, Limit: b.ServerWorldBytes, Used: n - delta, Size: n}
	}
	return nil
}

// takeTape counts a kept row of n bytes, or reports that the team's
// share or the server's tape budget has no room for it.
func (s *MemoryStore) takeTape(t *memTeam, n int64) bool {
	b := s.budgets
	if b.ServerTapeBytes <= 0 {
		s.tapeBytes.Add(n)
		t.tapeBytes.Add(n)
		return true
	}
	if v, lim := t.tapeBytes.Add(n), b.teamLimit(b.ServerTapeBytes); lim > 0 && v > lim {
		t.tapeBytes.Add(-n)
		t.tapeFull.Store(true)
		return false
	}
	if v := s.tapeBytes.Add(n); v > b.ServerTapeBytes {
		s.tapeBytes.Add(-n)
		t.tapeBytes.Add(-n)
		s.tapeFull.Store(true)
		return false
	}
	return true
}

// release gives back what a deleted sandbox's worlds and tapes held. A
// call still running on it counts nothing after.
func (s *MemoryStore) release(ms *memSandbox) {
	for _, mt := range ms.twins {
		mt.mu.Lock()
		if !mt.gone {
			mt.gone = true
			s.worldBytes.Add(-(int64(mt.seed.len()) + mt.size))
			ms.team.worldBytes.Add(-(int64(mt.seed.len()) + mt.size))
		}
		mt.mu.Unlock()
		mt.tapeMu.Lock()
		if mt.rowBytes > 0 {
			s.tapeBytes.Add(-mt.rowBytes)
			ms.team.tapeBytes.Add(-mt.rowBytes)
			s.tapeFull.Store(false)
			ms.team.tapeFull.Store(false)
		}
		mt.rowBytes = 0
		mt.dropping, mt.released = true, true
		mt.tapeMu.Unlock()
	}
}

func (s *MemoryStore) twin(sb *Sandbox, name string) (*memTwin, error) {
	_, mt, err := s.sandboxTwin(sb, name)
	return mt, err
}

func (s *MemoryStore) sandboxTwin(sb *Sandbox, name string) (*memSandbox, *memTwin, error) {
	ms, ok := s.live(sb.ID)
	if !ok {
		return nil, nil, ErrNotFound
	}
	mt, ok := ms.twins[name]
	if !ok {
		return nil, nil, ErrNotFound
	}
	return ms, mt, nil
}

func (s *MemoryStore) Update(ctx context.Context, sb *Sandbox, tw *twins.Twin, write bool, fn UpdateFunc) error {
	ms, mt, err := s.sandboxTwin(sb, tw.Name)
	if err != nil {
		return err
	}
	if write && s.measured() {
		mt.mu.Lock()
		defer mt.mu.Unlock()
		mt.ver.Store(worldVersions.Add(1))
		if err := mt.load(tw); err != nil {
			return err
		}
		if s.roomy(ms, mt) {
			return s.sampledWrite(ms, mt, tw, fn)
		}
		return s.measuredWrite(ms, mt, tw, fn)
	}
	if write {
		mt.mu.Lock()
		defer mt.mu.Unlock()
		mt.ver.Store(worldVersions.Add(1))
		if err := mt.load(tw); err != nil {
			return err
		}
	} else {
		mt.mu.RLock()
		if mt.world == nil {
			mt.mu.RUnlock()
			mt.mu.Lock()
			err := mt.load(tw)
			mt.mu.Unlock()
			if err != nil {
				return err
			}
			// Once decoded, the world stays: the read lock finds it.
			mt.mu.RLock()
		}
		defer mt.mu.RUnlock()
		if v := readVersionFrom(ctx); v != nil {
			*v = mt.ver.Load()
		}
	}
	_, err = fn(mt.world)
	return err
}

// worldVersions numbers the memory store's worlds: every twin's world
// takes a new number when it is created and when a write starts on it,
// so that one number is one world, whatever sandbox or twin it is of.
var worldVersions atomic.Uint64

// WorldVersion reports the version of the twin's world now: while it is
// the same, so is the world. A write in progress has already taken the
// version of the world it leaves.
func (s *MemoryStore) WorldVersion(sb *Sandbox, twin string) (uint64, bool) {
	_, mt, err := s.sandboxTwin(sb, twin)
	if err != nil {
		return 0, false
	}
	return mt.ver.Load(), true
}

// load decodes the world from the seed document if no call has yet. No
// write has run before it, so the seed document is the world's. The
// caller holds mt.mu exclusively.
func (mt *memTwin) load(tw *twins.Twin) error {
	if mt.world != nil {
		return nil
	}
	w, err := mt.decode(mt.seed.bytes())
	if err != nil {
		return fmt.Errorf("%s state: %w", tw.Name, err)
	}
	mt.world = w
	return nil
}

// A write measured exactly costs a copy of the whole world and a count of
// its JSON bytes (encodedSize), which for a large world is thousands of
// times the write itself.
// While a world and its team's and the server's budgets have plenty of
// room, writes run on the world itself and it is measured only every so
// many writes (the more it holds, the fewer), which keeps a write's cost
// close to flat in the world's size; a world that nears its budget is
// measured on every write again, on a copy.
const (
	// roomyShare: a world under this share of its budget, and budgets with
	// this share left, are roomy.
	roomyShare = 2
	// sampleEvery is the fewest writes between measures of a roomy world;
	// a larger one is measured once it could have doubled at sampleGrowth
	// bytes a write (sampleInterval): a measure counts the whole world, so
	// a write's share of it is sampleGrowth bytes counted whatever the
	// world's size (at a half it was 2 ×: 10% of the server's CPU in
	// profiles of Slack posts and Stripe creates at the ceiling, the
	// world's objects read from memory the caches no longer held; at a
	// quarter 4 ×: 16% of a Stripe create's CPU and 7% of a comment's in
	// process; at an eighth 8 ×, 17% of the server's CPU in a profile of
	// comments posted to issues growing by thousands of comments). A
	// roomy world must have room for four times that growth: one over a
	// fifth of its budget has not (nor, for writes over sampleGrowth, a
	// smaller one), and is measured once it could have grown by a half
	// where it has room for four times that (up to a third of its budget),
	// else by a quarter, which a world of writes up to sampleGrowth has
	// room for up to half its budget (asked for a half up to there, a 10 MB
	// world of a 32 MiB budget was copied on every write: 1,037 writes a
	// second where it takes 8,500).
	//
	// sampleGrowth is the growth a write is taken to add until the world's
	// writes have shown theirs (writeGrowth); shown, it counts, but not
	// under a quarter of sampleGrowth: a world of small writes (comments of
	// a few hundred bytes) is measured up to four times less often, and
	// has the same room asked of it for the growth until its next measure.
	// A world of larger writes is measured no more often than at
	// sampleGrowth, but must have room for four times the growth it
	// showed: Stripe's creates add more than sampleGrowth, most of it
	// events counted once (SizeMemo), and measured at their growth the
	// count took 17% of the server's CPU in profiles of creates at the
	// ceiling, 13-16% measured at sampleGrowth.
	sampleEvery  = 64
	sampleGrowth = 1 << 10
)

// writeGrowth is the growth a write of a world is taken to add, from
// shown, what its writes added on average between its last two measures
// (0: not measured twice yet).
func writeGrowth(shown int64) int64 {
	if shown == 0 {
		return sampleGrowth
	}
	return max(shown, sampleGrowth/4)
}

// sampleInterval is how many writes a roomy world of size bytes, whose
// writes add growth bytes (writeGrowth), goes unmeasured at most: until it
// could have doubled, at sampleGrowth a write at most, where room (what
// its budget leaves it; math.MaxInt64 for none) holds four times that
// growth (a world under a fifth of its budget, for writes up to
// sampleGrowth); else until it could have grown by a half where room holds
// four times that; else until it could have grown by a quarter, which a
// roomy world (under half its budget) always has room for. A measure
// counts the whole world, so a write's share of it is sampleGrowth bytes
// counted (2 × and 4 × nearer the budget), whatever the world's size.
func sampleInterval(size, growth, room int64) int64 {
	g := min(growth, sampleGrowth)
	for _, share := range [...]int64{1, 2} {
		if n := size / share / g; n <= room/4/growth {
			return max(sampleEvery, n)
		}
	}
	return max(sampleEvery, size/4/g)
}

// worldRoom is what a world budget of limit bytes (0 or less: none)
// leaves a world of size bytes.
func worldRoom(limit, size int64) int64 {
	if limit <= 0 {
		return math.MaxInt64
	}
	return limit - size
}

// sampleDue draws how many writes a roomy world goes unmeasured this time:
// from half of sampleInterval to all of it. Drawn, not fixed: sandboxes
// seeded alike and written to at one pace would all reach their measure on
// the same write and take their turns at it at the same moment (comments
// spread over 100 sandboxes at 10,000 a second stalled the server every
// 640 ms, each 64th write), the way sealLimit keeps tapes from sealing
// together.
func sampleDue(size, growth, room int64) int64 {
	n := sampleInterval(size, growth, room)
	return n - rand.Int64N(n/2+1)
}

// roomy reports whether a write to mt may run on the world itself.
func (s *MemoryStore) roomy(ms *memSandbox, mt *memTwin) bool {
	b := s.budgets
	// The world's own budget must leave room for what the writes until
	// the next measure could add, at four times the growth they are taken
	// to add.
	g := writeGrowth(mt.growth)
	if room := worldRoom(b.WorldBytes, mt.size); b.WorldBytes > 0 && (mt.size*roomyShare > b.WorldBytes || room < 4*g*sampleInterval(mt.size, g, room)) {
		return false
	}
	if lim := b.teamLimit(b.ServerWorldBytes); lim > 0 && ms.team.worldBytes.Load()*roomyShare > lim {
		return false
	}
	return b.ServerWorldBytes <= 0 || s.worldBytes.Load()*roomyShare <= b.ServerWorldBytes
}

// sampledWrite runs fn on the world itself and measures the world when
// enough writes went unmeasured. What it grew by is counted then, even
// past a budget (the write is done): the world is then no longer roomy,
// and later writes are measured on a copy and refused. The caller holds
// mt.mu.
func (s *MemoryStore) sampledWrite(ms *memSandbox, mt *memTwin, tw *twins.Twin, fn UpdateFunc) error {
	if mt.gone {
		return ErrNotFound
	}
	mutated, fnErr := fn(mt.world)
	if !mutated {
		return fnErr
	}
	mt.unmeasured++
	if mt.sampleAt == 0 {
		mt.sampleAt = sampleDue(mt.size, writeGrowth(mt.growth), worldRoom(s.budgets.WorldBytes, mt.size))
	}
	if mt.unmeasured < mt.sampleAt {
		return fnErr
	}
	writes := mt.unmeasured
	mt.unmeasured, mt.sampleAt = 0, 0
	size, err := encodedSize(mt.world)
	if err != nil {
		return fnErr
	}
	mt.growth = max((size-mt.size)/writes, 1) // 0 is "not shown"
	s.worldBytes.Add(size - mt.size)
	ms.team.worldBytes.Add(size - mt.size)
	mt.size = size
	return fnErr
}

// measuredWrite runs fn on a private copy of the twin's world and keeps
// the copy only if the world it leaves fits the budgets; a refused write
// thus changes nothing. It costs a copy and a count of the whole world.
// The caller holds mt.mu.
func (s *MemoryStore) measuredWrite(ms *memSandbox, mt *memTwin, tw *twins.Twin, fn UpdateFunc) error {
	if mt.gone {
		return ErrNotFound
	}
	work, err := copyWorld(tw, mt.world)
	if err != nil {
		return fmt.Errorf("%s state: %w", tw.Name, err)
	}
	mutated, fnErr := fn(work)
	if !mutated {
		return fnErr
	}
	size, err := encodedSize(work)
	if err != nil {
		return fmt.Errorf("%s state: %w", tw.Name, err)
	}
	if lim := s.budgets.WorldBytes; lim > 0 && size > lim {
		return &BudgetError{Budget: BudgetWorld, Twin: tw.Name, Team: ms.sb.Team, Limit: lim, Used: mt.size, Size: size}
	}
	if err := s.takeWorld(ms.sb.Team, ms.team, size-mt.size); err != nil {
		err.(*BudgetError).Twin = tw.Name
		return err
	}
	mt.world, mt.size, mt.growth = work, size, max(size-mt.size, 1)
	return fnErr
}

func (s *MemoryStore) State(ctx context.Context, sb *Sandbox, twin string) ([]byte, error) {
	mt, err := s.twin(sb, twin)
	if err != nil {
		return nil, err
	}
	mt.mu.RLock()
	defer mt.mu.RUnlock()
	if mt.world == nil {
		// Not decoded yet, so never written: the state is the seed, as
		// json.Marshal encoded it at create.
		return bytes.Clone(mt.seed.bytes()), nil
	}
	return json.Marshal(mt.world)
}

func (s *MemoryStore) Seed(ctx context.Context, sb *Sandbox, twin string) ([]byte, error) {
	mt, err := s.twin(sb, twin)
	if err != nil {
		return nil, err
	}
	return mt.seed.bytes(), nil
}

// seqZero is how every row's encoding starts before its seq is known.
var seqZero = []byte(`{"seq":0,`)

func (s *MemoryStore) Append(ctx context.Context, sb *Sandbox, row *tape.Row) (int64, error) {
	ms, mt, err := s.sandboxTwin(sb, row.Twin)
	if err != nil {
		return 0, err
	}
	// Encode outside the lock; only the seq is spliced in under it.
	tail, done, err := encodeRowTail(row)
	if err != nil {
		return 0, err
	}
	defer done()
	mt.tapeMu.Lock()
	mt.total++
	row.Seq = mt.total
	if mt.total > s.maxTapeRows || mt.dropping {
		mt.tapeMu.Unlock()
		return row.Seq, nil
	}
	kept := tail.withSeq(row.Seq)
	if !s.keepRow(ms, mt, int64(kept.size())) {
		mt.tapeMu.Unlock()
		return row.Seq, nil
	}
	mt.rows.add(kept)
	seal := mt.rows.toSeal()
	mt.tapeMu.Unlock()
	mt.seal(seal)
	return row.Seq, nil
}

// seal compresses the rows toSeal returned, if any, into a block and puts
// it in their place, then seals the next block if rows appended meanwhile
// made one. The caller does not hold mt.tapeMu: appends and reads go on
// meanwhile.
func (mt *memTwin) seal(rows []openRow) {
	for rows != nil {
		data, raw := sealBlock(rows)
		mt.tapeMu.Lock()
		mt.rows.sealDone(len(rows), raw, data)
		rows = mt.rows.toSeal()
		mt.tapeMu.Unlock()
	}
}

// keepRow decides, under mt.tapeMu, whether the twin's next row, of about
// n bytes, is kept, and counts it if so. Past the tape's row cap, or once
// a row was dropped for want of budget, none is.
func (s *MemoryStore) keepRow(ms *memSandbox, mt *memTwin, n int64) bool {
	if mt.total > s.maxTapeRows || mt.dropping {
		return false
	}
	if !s.takeTape(ms.team, n) {
		mt.dropping = true
		return false
	}
	mt.rowBytes += n
	return true
}

// encodeRowTail encodes row with seq 0 into a scratch buffer reused across
// calls and returns what follows `{"seq":0,`, the response body left out
// where it can be kept shared (tape.Row.AppendJSONSplit); done returns the
// buffer.
func encodeRowTail(row *tape.Row) (tail rowTail, done func(), err error) {
	row.Seq = 0
	scratch := encodeBufs.Get().(*[]byte)
	enc, body, cut := row.AppendJSONSplit((*scratch)[:0])
	*scratch = enc
	done = func() { encodeBufs.Put(scratch) }
	if !bytes.HasPrefix(enc, seqZero) {
		done()
		return rowTail{}, nil, fmt.Errorf("tape row encoding starts with %.12q", enc)
	}
	if body == nil {
		cut = len(seqZero)
	}
	return rowTail{rest: enc[len(seqZero):], body: body, cut: cut - len(seqZero)}, done, nil
}

// rowTail is a row's encoding after `{"seq":0,`: rest[:cut], body, then
// rest[cut:]; rest is scratch, body the row's own.
type rowTail struct {
	rest, body []byte
	cut        int
}

// withSeq is the kept row: an exact-size copy of the encoding with seq,
// its response body still shared.
func (t rowTail) withSeq(seq int64) openRow {
	enc := withSeq(seq, t.rest)
	return openRow{enc: enc, body: t.body, cut: len(enc) - len(t.rest) + t.cut}
}

// withSeq is the kept row: one exact-size copy of the encoding with seq,
// the rest of it given in one part or several (a row and the body it
// left out).
func withSeq[T string | []byte](seq int64, rest ...T) []byte {
	var head [32]byte
	h := strconv.AppendInt(append(head[:0], `{"seq":`...), seq, 10)
	n := len(h) + 1
	for _, r := range rest {
		n += len(r)
	}
	buf := append(append(make([]byte, 0, n), h...), ',')
	for _, r := range rest {
		buf = append(buf, r...)
	}
	return buf
}

// encodeBufs are scratch buffers for encoding rows. A row's bodies are cut
// at tape.MaxBodyBytes, so no buffer grows much past a few times that.
var encodeBufs = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// reserveTape takes the twin's next seq, and the tape position after every
// row taken before it, for a call whose response goes out before its row
// is written; fill writes the row there. Until fill, the call holds the
// twin's inflight lock shared, and tape reads, which take it exclusively,
// wait: no reader sees the empty position or misses the row.
func (s *MemoryStore) reserveTape(sb *Sandbox, twin string) (fill func(*tape.Row), err error) {
	ms, mt, err := s.sandboxTwin(sb, twin)
	if err != nil {
		return nil, err
	}
	mt.inflight.RLock()
	mt.tapeMu.Lock()
	mt.total++
	seq, at := mt.total, -1
	// The row's size is not known yet: it is counted at a typical row's
	// size now, and its own at fill.
	const reserved = 1 << 10
	if s.keepRow(ms, mt, reserved) {
		at = mt.rows.add(openRow{})
	}
	mt.tapeMu.Unlock()
	return func(row *tape.Row) {
		// The in-flight hold ends once the row is in its place (below),
		// or however fill ends.
		held := true
		defer func() {
			if held {
				mt.inflight.RUnlock()
			}
		}()
		tail, done, err := encodeRowTail(row)
		row.Seq = seq
		if err == nil {
			defer done()
		}
		if at < 0 {
			return
		}
		kept := openRow{enc: []byte(`{"seq":` + strconv.FormatInt(seq, 10) + `,"error":"row could not be encoded"}`)}
		if err == nil {
			kept = tail.withSeq(seq)
		}
		mt.tapeMu.Lock()
		mt.rows.set(at, kept)
		if !mt.released {
			// Counted past the budget if need be: the place is taken.
			d := int64(kept.size()) - reserved
			mt.rowBytes += d
			s.tapeBytes.Add(d)
			ms.team.tapeBytes.Add(d)
		}
		seal := mt.rows.toSeal()
		mt.tapeMu.Unlock()
		// The row is in its place: readers need not wait for the seal.
		held = false
		mt.inflight.RUnlock()
		mt.seal(seal)
	}, nil
}

func (s *MemoryStore) Tape(ctx context.Context, sb *Sandbox, twin string, after int64, limit int) ([]tape.Row, error) {
	// Rows are never modified once written, so decoding happens outside
	// every lock.
	encs, err := s.TapeRaw(ctx, sb, twin, after, limit)
	if err != nil {
		return nil, err
	}
	after = max(after, 0)
	out := make([]tape.Row, len(encs))
	for i, e := range encs {
		if err := json.Unmarshal(e, &out[i]); err != nil {
			return nil, fmt.Errorf("tape row %d: %w", after+int64(i)+1, err)
		}
	}
	return out, nil
}

// TapeRaw returns the rows with seq > after as they are kept, encoded
// (limit <= 0: all). The slices are shared and must not be modified. It
// holds the twin's inflight lock exclusively: every reserved position is
// written by then (RWMutex lets no new holder in while this waits, so
// traffic cannot starve it).
func (s *MemoryStore) TapeRaw(ctx context.Context, sb *Sandbox, twin string, after int64, limit int) ([][]byte, error) {
	mt, err := s.twin(sb, twin)
	if err != nil {
		return nil, err
	}
	mt.inflight.Lock()
	mt.tapeMu.Lock()
	n := int64(mt.rows.len())
	after = max(after, 0)
	if after >= n {
		mt.tapeMu.Unlock()
		mt.inflight.Unlock()
		return nil, nil
	}
	to := n
	if limit > 0 && to-after > int64(limit) {
		to = after + int64(limit)
	}
	view := mt.rows.view(int(after), int(to))
	mt.tapeMu.Unlock()
	mt.inflight.Unlock()
	// Rows are never modified once written, nor blocks once sealed: they
	// are decoded outside the locks.
	return view.rows()
}

func (s *MemoryStore) TapeLen(ctx context.Context, sb *Sandbox, twin string) (int64, int64, error) {
	mt, err := s.twin(sb, twin)
	if err != nil {
		return 0, 0, err
	}
	mt.inflight.Lock()
	defer mt.inflight.Unlock()
	mt.tapeMu.Lock()
	defer mt.tapeMu.Unlock()
	return int64(mt.rows.len()), mt.total, nil
}

func (s *MemoryStore) Usage(ctx context.Context, team string) (Usage, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	u := Usage{Team: team}
	if t := s.teams[team]; t != nil {
		u.SandboxesOpen = t.openCount(s.now())
		u.SandboxesCreated, u.TwinsStarted, u.Evals = t.created, t.twins, t.evals
	}
	return u, nil
}

func (s *MemoryStore) CountEval(ctx context.Context, team string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.team(team).evals++
	return nil
}

func (s *MemoryStore) Ping(ctx context.Context) error { return nil }

func (s *MemoryStore) Close() error {
	s.once.Do(func() { close(s.stop) })
	return nil
}
