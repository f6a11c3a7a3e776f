package session

import (
	"bytes"
	"container/heap"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"sync"
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
}

type memTwin struct {
	mu    sync.RWMutex // guards world
	world any
	seed  []byte

	// inflight is held shared by every call that reserved a tape position
	// and sends its response before writing the row there (reserveTape);
	// tape reads hold it exclusively, so they never see an empty position
	// nor miss a row whose response was sent.
	inflight sync.RWMutex
	tapeMu   sync.Mutex
	// total counts every call appended, including those past the cap.
	total int64
	// rows holds each tape row as its JSON encoding: one pointer-free
	// allocation per row keeps garbage collection cheap however long tapes
	// grow. Seq N is at index N-1.
	rows [][]byte
}

type memTeam struct {
	created   int
	twins     int
	evals     int
	summaries map[string]Summary
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
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.sandboxes.Load(sb.ID); ok {
		return ErrExists
	}
	t := s.team(sb.Team)
	if quota > 0 && t.openCount(s.now()) >= quota {
		return ErrQuota
	}
	ms := &memSandbox{sb: *sb, twins: map[string]*memTwin{}}
	for name, w := range worlds {
		ms.twins[name] = &memTwin{world: w.World, seed: w.Doc}
	}
	s.sandboxes.Store(sb.ID, ms)
	t.open[sb.ID] = sb.ExpiresAt
	heap.Push(&t.expiring, expiryEntry{id: sb.ID, at: sb.ExpiresAt})
	t.created++
	t.twins += len(sb.Twins)
	t.summaries[sb.ID] = summaryOf(sb)
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
		t.summaries[id] = summaryOf(&cp)
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
	return nil
}

func (s *MemoryStore) twin(sb *Sandbox, name string) (*memTwin, error) {
	ms, ok := s.live(sb.ID)
	if !ok {
		return nil, ErrNotFound
	}
	mt, ok := ms.twins[name]
	if !ok {
		return nil, ErrNotFound
	}
	return mt, nil
}

func (s *MemoryStore) Update(ctx context.Context, sb *Sandbox, tw *twins.Twin, write bool, fn UpdateFunc) error {
	mt, err := s.twin(sb, tw.Name)
	if err != nil {
		return err
	}
	if write {
		mt.mu.Lock()
		defer mt.mu.Unlock()
	} else {
		mt.mu.RLock()
		defer mt.mu.RUnlock()
	}
	_, err = fn(mt.world)
	return err
}

func (s *MemoryStore) State(ctx context.Context, sb *Sandbox, twin string) ([]byte, error) {
	mt, err := s.twin(sb, twin)
	if err != nil {
		return nil, err
	}
	mt.mu.RLock()
	defer mt.mu.RUnlock()
	return json.Marshal(mt.world)
}

func (s *MemoryStore) Seed(ctx context.Context, sb *Sandbox, twin string) ([]byte, error) {
	mt, err := s.twin(sb, twin)
	if err != nil {
		return nil, err
	}
	return mt.seed, nil
}

// seqZero is how every row's encoding starts before its seq is known.
var seqZero = []byte(`{"seq":0,`)

func (s *MemoryStore) Append(ctx context.Context, sb *Sandbox, row *tape.Row) (int64, error) {
	mt, err := s.twin(sb, row.Twin)
	if err != nil {
		return 0, err
	}
	// Encode outside the lock; only the seq is spliced in under it.
	rest, done, err := encodeRowTail(row)
	if err != nil {
		return 0, err
	}
	defer done()
	mt.tapeMu.Lock()
	defer mt.tapeMu.Unlock()
	mt.total++
	row.Seq = mt.total
	if mt.total > s.maxTapeRows {
		return row.Seq, nil
	}
	mt.rows = append(mt.rows, withSeq(row.Seq, rest))
	return row.Seq, nil
}

// encodeRowTail encodes row with seq 0 into a scratch buffer reused across
// calls and returns what follows `{"seq":0,`; done returns the buffer.
func encodeRowTail(row *tape.Row) (rest []byte, done func(), err error) {
	row.Seq = 0
	scratch := encodeBufs.Get().(*[]byte)
	enc := row.AppendJSON((*scratch)[:0])
	*scratch = enc
	done = func() { encodeBufs.Put(scratch) }
	if !bytes.HasPrefix(enc, seqZero) {
		done()
		return nil, nil, fmt.Errorf("tape row encoding starts with %.12q", enc)
	}
	return enc[len(seqZero):], done, nil
}

// withSeq is the kept row: one exact-size copy of the encoding with seq.
func withSeq[T string | []byte](seq int64, rest T) []byte {
	var head [32]byte
	h := strconv.AppendInt(append(head[:0], `{"seq":`...), seq, 10)
	buf := make([]byte, 0, len(h)+1+len(rest))
	return append(append(append(buf, h...), ','), rest...)
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
	mt, err := s.twin(sb, twin)
	if err != nil {
		return nil, err
	}
	mt.inflight.RLock()
	mt.tapeMu.Lock()
	mt.total++
	seq, at := mt.total, -1
	if seq <= s.maxTapeRows {
		at = len(mt.rows)
		mt.rows = append(mt.rows, nil)
	}
	mt.tapeMu.Unlock()
	return func(row *tape.Row) {
		defer mt.inflight.RUnlock()
		rest, done, err := encodeRowTail(row)
		row.Seq = seq
		if err == nil {
			defer done()
		}
		if at < 0 {
			return
		}
		kept := []byte(`{"seq":` + strconv.FormatInt(seq, 10) + `,"error":"row could not be encoded"}`)
		if err == nil {
			kept = withSeq(seq, rest)
		}
		mt.tapeMu.Lock()
		mt.rows[at] = kept
		mt.tapeMu.Unlock()
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
	defer mt.inflight.Unlock()
	after = max(after, 0)
	mt.tapeMu.Lock()
	defer mt.tapeMu.Unlock()
	if after >= int64(len(mt.rows)) {
		return nil, nil
	}
	encs := mt.rows[after:]
	if limit > 0 && len(encs) > limit {
		encs = encs[:limit]
	}
	// Rows are never modified once appended; the slice header is copied
	// because appends may move the backing array.
	return append([][]byte(nil), encs...), nil
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
	return int64(len(mt.rows)), mt.total, nil
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
