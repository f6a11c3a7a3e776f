package session

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/pomehq/pome/tape"
	"github.com/pomehq/pome/twins"
)

// RedisStore keeps sandboxes, twin worlds and tapes in Redis, so that any
// number of replicas can serve any sandbox: nothing about a sandbox lives
// only in one process. Every key of a sandbox expires with it (see
// rediskeys.go for the layout). A twin's world is stored as a base
// document and the writes after it, each as the operation that made it,
// so that a write costs what its action does rather than its world's size
// (see redis_delta.go).
type RedisStore struct {
	rdb         redis.UniversalClient
	now         func() time.Time
	locks       keyedLocks
	maxTapeRows int64
	// worlds caches decoded worlds, each used only once Redis confirmed
	// its version in the round trip of the call (see worldCache).
	worlds *worldCache
	// metas saves decoding sandbox records read again unchanged.
	metas metaCache
	// bodies remembers the response bodies this process stored for rows
	// that hold them by reference (redis_bodies.go).
	bodies bodyCache
	// batch sends the hot path's commands of concurrent calls to Redis
	// together (see redis_batch.go), unless direct is set.
	batch  *batcher
	direct atomic.Bool
	// twins are the twins the store served, for State (redis_delta.go).
	twins knownTwins
	// Compaction of worlds saved as deltas (redis_delta.go): in flight per
	// twin, and running in the background. wholeSaves, compactAfter and
	// compactSync are for tests and benchmarks: save whole documents as
	// before deltas; compact after that many deltas; compact in the call.
	compacting   sync.Map
	compactWG    sync.WaitGroup
	wholeSaves   bool
	compactAfter int
	compactSync  bool
	// conflicted remembers, per twin, when a write run in place without
	// the lease last met another replica's write (see contended).
	conflictMu sync.Mutex
	conflicted map[string]time.Time
	// verify, when set, checks every write saved as an operation by
	// running it again (VerifyOperations).
	verify *opVerifier
	// budget counts sandboxes against the server budgets (redis_budget.go).
	budget redisBudget
	// maxListed bounds each team's list (<= 0: MaxListed).
	maxListed int
}

// SetMaxListed bounds the entries each team's list keeps (<= 0:
// MaxListed). Call it before serving; tests lower it.
func (s *RedisStore) SetMaxListed(n int) { s.maxListed = n }

const (
	// leaseTTL bounds how long a replica that died mid-update blocks the
	// twin's other writers. A live writer drops its lease when it saves;
	// one that outlives it (a stalled process) is caught by the state
	// version and rerun, so the TTL only has to exceed a typical update.
	leaseTTL = 5 * time.Second
	// leaseBackoffMax caps the wait between attempts to take a lease another
	// replica holds, so a busy twin is retried often enough to stay fair.
	leaseBackoffMax = 20 * time.Millisecond
	// indexKeep is how long a team's index remembers a sandbox past its
	// expiry (as the memory store's sweep does).
	indexKeep = 7 * 24 * time.Hour
)

// NewRedisStore returns a store on client, which it owns from then on (Close
// closes it). now is the wall clock (nil: time.Now); key expiry itself runs
// on the Redis server's clock.
func NewRedisStore(client redis.UniversalClient, now func() time.Time) *RedisStore {
	if now == nil {
		now = time.Now
	}
	s := &RedisStore{
		rdb: client, now: now, maxTapeRows: DefaultMaxTapeRows,
		worlds: newWorldCache(DefaultWorldCacheBytes),
		batch:  newBatcher(client, defaultPipelineSenders),
	}
	s.budget.rdb, s.budget.now = client, now
	s.SetBudgetScope("")
	return s
}

// SetBudgets sets the budgets (zero fields: no limit). The world budget
// is applied by the manager, which measures what writes leave; the server
// budgets and the team shares count every sandbox of the deployment, in
// Redis (redis_budget.go). Call it before serving.
func (s *RedisStore) SetBudgets(b Budgets) { s.budget.bp.Store(&b) }

// enforcesWorldBudget: the manager measures writes for this store.
func (s *RedisStore) enforcesWorldBudget() bool { return false }

// SetBudgetScope makes the store count its sandboxes against the server
// budgets apart from other deployments on the same Redis database that
// use another scope (the default scope is ""). Call it before serving.
func (s *RedisStore) SetBudgetScope(scope string) {
	s.budget.keys = []string{budgetTotalsKey(scope), budgetHeldKey(scope), budgetRetainKey(scope)}
}

// worldMeasured and worldTight serve Manager.Invoke's measures of writes
// (see redisBudget).
func (s *RedisStore) worldMeasured(sb *Sandbox, twin string, prev, size int64) error {
	return s.budget.worldMeasured(sb, twin, prev, size)
}

func (s *RedisStore) worldTight(team string) bool { return s.budget.tight(team) }

func (s *RedisStore) sharedBudgetOn() bool { return s.budget.on() }

// tapeCap is the row cap an append passes its script: negative once the
// team's or the server's tape budget is spent, which cuts the tape where
// it is (luaAppendRow).
func (s *RedisStore) tapeCap(sb *Sandbox) int64 {
	if s.budget.tapeSpent(sb.Team) {
		return -s.maxTapeRows
	}
	return s.maxTapeRows
}

// kept counts a row the append script answered seq for in the tape
// budget, when it was kept.
func (s *RedisStore) kept(sb *Sandbox, seq, capped, n int64) {
	if capped > 0 && seq <= capped {
		s.budget.row(sb, n)
	}
}

// SetWorldCacheBytes bounds the decoded worlds the store keeps in process
// to about n bytes (0: DefaultWorldCacheBytes; < 0: cache nothing, so every
// call moves and decodes the whole world). Each world is charged three
// times its document's length, for the document and its decoded form; the
// least recently used worlds go first.
func (s *RedisStore) SetWorldCacheBytes(n int64) {
	if n == 0 {
		n = DefaultWorldCacheBytes
	}
	s.worlds.setMax(n)
}

// WorldCacheBytes is the bound SetWorldCacheBytes set (<= 0: nothing is
// cached).
func (s *RedisStore) WorldCacheBytes() int64 { return s.worlds.max.Load() }

// teamStopScript takes a stopped sandbox out of its team's open set and
// records it as stopped in the index, unless a concurrent Discard already
// removed it there (which must not be undone).
// KEYS: open, index. ARGV: id, summary JSON.
var teamStopScript = redis.NewScript(`
redis.call('ZREM', KEYS[1], ARGV[1])
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then redis.call('HSET', KEYS[2], ARGV[1], ARGV[2]) end
return 1
`)

// luaExpiry finds the absolute expiry (Unix ms) of a key: every write to a
// twin's keys takes its expiry from the sandbox's meta key rather than from
// the caller's copy of the Sandbox, which may predate a Stop that moved the
// sandbox's retention. PEXPIRETIME needs Redis 7; older servers derive it
// from PTTL. Returns -2 when the key is gone, -1 when it has no expiry.
const luaExpiry = `
local function expiry(key)
  local at = redis.pcall('PEXPIRETIME', key)
  if type(at) == 'number' then return at end
  local ttl = redis.call('PTTL', key)
  if ttl < 0 then return ttl end
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + ttl
end
`

// createScript writes a sandbox's keys, refusing an id already in use,
// unless by this very record (the same create, sent again after its reply
// was lost).
// KEYS: meta, then per twin state, seed, tape, tapeseq, tapebodies.
// ARGV: retain-until ms, meta JSON, then per twin its seed document.
var createScript = redis.NewScript(`
local cur = redis.call('GET', KEYS[1])
if cur == ARGV[2] then return 1 end
if cur then return 0 end
local at = ARGV[1]
redis.call('SET', KEYS[1], ARGV[2])
redis.call('PEXPIREAT', KEYS[1], at)
local doc = 3
for i = 2, #KEYS, 5 do
  redis.call('DEL', KEYS[i+2], KEYS[i+3], KEYS[i+4])
  redis.call('HSET', KEYS[i], 'doc', ARGV[doc], 'ver', 1)
  redis.call('PEXPIREAT', KEYS[i], at)
  redis.call('SET', KEYS[i+1], ARGV[doc])
  redis.call('PEXPIREAT', KEYS[i+1], at)
  doc = doc + 1
end
return 1
`)

// quotaScript admits a sandbox into its team: it drops expired members of
// the open set and counts the rest in the same step that adds the new one,
// so concurrent creates can never overshoot the quota. A sandbox already
// admitted (the same call, sent again after its reply was lost) is
// admitted again without being counted twice.
// The new sandbox enters the team index, whose oldest entries past
// MaxListed (by creation) are forgotten in the same step.
// KEYS: open, usage, index, listed. ARGV: now ms, quota, id, expires ms,
// twin count, summary JSON, created ms, most entries listed.
var quotaScript = redis.NewScript(`
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZSCORE', KEYS[1], ARGV[3]) then return 1 end
local quota = tonumber(ARGV[2])
if quota > 0 and redis.call('ZCARD', KEYS[1]) >= quota then return 0 end
redis.call('ZADD', KEYS[1], ARGV[4], ARGV[3])
redis.call('HINCRBY', KEYS[2], '` + usageCreated + `', 1)
redis.call('HINCRBY', KEYS[2], '` + usageTwins + `', ARGV[5])
redis.call('HSET', KEYS[3], ARGV[3], ARGV[6])
redis.call('ZADD', KEYS[4], ARGV[7], ARGV[3])
local over = redis.call('ZCARD', KEYS[4]) - tonumber(ARGV[8])
if over > 0 then
  local old = redis.call('ZPOPMIN', KEYS[4], over)
  for i = 1, #old, 2 do redis.call('HDEL', KEYS[3], old[i]) end
end
return 1
`)

// stopScript swaps the meta record if nobody changed it since it was read,
// and moves every key of the sandbox to the new retention in the same step.
// Sent again after its reply was lost, it finds its own new record and
// answers as the first time, so the caller goes on to the team index.
// KEYS: meta, then every twin key. ARGV: meta as read, new meta, retain ms.
var stopScript = redis.NewScript(`
local cur = redis.call('GET', KEYS[1])
if not cur then return -1 end
if cur == ARGV[2] then return 1 end
if cur ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
for i = 1, #KEYS do redis.call('PEXPIREAT', KEYS[i], ARGV[3]) end
return 1
`)

// luaRecent keeps, in a field of the state hash, the ids of a twin's last
// saves with what each answered, newest first, as fixed-width
// entries ",ID=NNNNNNNNNNNN" (a 16-character writeID, a 12-digit answer),
// so that a write sent twice is answered twice the same and done once.
// recalled returns the answer kept for id in list (false when none yet),
// or nil; remember returns list with a new entry first, cut to keep
// entries. Each redis.call in a script costs a few microseconds, so the
// list is read along with what the script reads anyway and written along
// with what it writes.
const luaRecent = `
local function recalled(list, id)
  if not list then return nil end
  local _, j = string.find(list, ',' .. id .. '=', 1, true)
  if not j then return nil end
  return tonumber(string.sub(list, j + 1, j + 12))
end
local function remember(list, id, n, keep)
  return string.sub(',' .. id .. '=' .. string.format('%012d', n) .. (list or ''), 1, keep * 30)
end
`

// How many saves and taped calls of a twin the state remembers. A resend
// comes within go-redis's retries or Manager.Record's (recordRetryFor); in
// that time the twin must not take more writes than that from other
// callers, or the resend is not recognised.
const (
	recentSaves = "8"
	recentCalls = "32"
)

// luaRecentCalls keeps the ids of a twin's last recentCalls taped calls
// in fields of the state hash rather than in one luaRecent list: "c:ID"
// holds the seq call ID took, and "r:N" the id of the call whose seq is N
// modulo recentCalls, the ring that says which id to forget when a call
// takes its place. A call is every taped read, and the list, a 960-byte
// string read, rebuilt and written whole each time (three Lua strings of
// that size), was a fifth of a read's append; the ring costs two more
// redis.call and no large string (BenchmarkRedisAppendScript), and about
// 4 KB more of Redis's memory a twin (TestScalingRedisMemory). luaAppendReplay reads "c:ID" with the fields it reads anyway;
// noteCall forgets the call the new one replaces and notes the new one,
// once its seq is taken.
const luaRecentCalls = `
local function noteCall(key, id, seq)
  local slot = 'r:' .. (seq % ` + recentCalls + `)
  local old = redis.call('HGET', key, slot)
  if old then redis.call('HDEL', key, 'c:' .. old) end
  redis.call('HSET', key, 'c:' .. id, seq, slot, id)
end
`

// appendScript hands out the next seq and stores the row with it in one
// step, so seqs are gap-free and ordered across replicas. The row arrives
// without its leading seq field, which is spliced in here.
// Past the cap (ARGV[2]) the seq still counts the call but the row is not
// kept. An append sent again, by the client after its reply was lost or by
// Manager.Record's retries, answers the seq it took the first time (its
// call id, ARGV[3], is among the state's recent calls) and stores nothing.
// A row may hold its response body by reference (redis_bodies.go): ARGV[4]
// names the body, ARGV[5] is the body itself or empty if it is stored.
// KEYS: meta, state, tapeseq, tape, tapebodies. ARGV: row JSON after
// `{"seq":0,` (or its reference form), cap, call id, body hash or empty,
// body or empty.
var appendScript = redis.NewScript(luaExpiry + luaRecentCalls + luaAppendReplay + `
if not st[1] then return -1 end
local at = expiry(KEYS[1])
if at == -2 then return -1 end
local bhash, body = ARGV[4], ARGV[5]
` + luaAppendRow)

// luaAppendReplay starts the append scripts: it reads the state's version,
// the seq kept for the call's id (luaRecentCalls) and the cut, and a call
// already appended gets its seq again.
const luaAppendReplay = `
local st = redis.call('HMGET', KEYS[2], 'ver', 'c:' .. ARGV[3], 'cut')
if st[2] then return tonumber(st[2]) end
`

// luaAppendRow is the end of the append scripts: with the sandbox's expiry
// in at, take the next seq, store the row (under the cap) and note the call
// id. A tape key this creates gets the sandbox's expiry; one that exists
// has it already (Stop moves every key), and each PEXPIREAT is a call the
// script need not make. The row is stored as sent, without its seq: seq N
// is at list index N-1 (rows past the cap are the ones not kept), and
// TapeRaw puts it back. Splicing it in here made a new Lua string of the
// whole row on every call, a fifth of the script's time. A negative cap
// says the tape budget is spent (RedisStore.tapeCap): the tape is cut
// where it is, in the state's 'cut' field, and keeps no row past it from
// then on, whatever cap later appends bring, so its rows stay a prefix.
//
// A script that takes rows holding their response body by reference sets
// bhash (the body's name; empty for a row that holds its body) and body
// (empty when the caller believes it stored; KEYS[5] is then the bodies
// hash): a body neither sent nor stored is answered needBody before
// anything changes, and a body sent is stored with the row that refers to
// it, and only then. A script without such rows sets bhash empty.
const luaAppendRow = `
if at < 0 then return redis.error_reply('sandbox meta without expiry') end
if bhash ~= '' and body == '' and redis.call('HEXISTS', KEYS[5], bhash) == 0 then return ` + needBodyLua + ` end
local seq = redis.call('INCR', KEYS[3])
if seq == 1 then redis.call('PEXPIREAT', KEYS[3], at) end
local cap = tonumber(ARGV[2])
if cap < 0 and not st[3] then
  st[3] = seq - 1
  redis.call('HSET', KEYS[2], 'cut', st[3])
end
cap = math.abs(cap)
if st[3] then cap = math.min(cap, tonumber(st[3])) end
if seq <= cap then
  if redis.call('RPUSH', KEYS[4], ARGV[1]) == 1 then redis.call('PEXPIREAT', KEYS[4], at) end
  if bhash ~= '' and body ~= '' and redis.call('HSETNX', KEYS[5], bhash, body) == 1 then
    redis.call('PEXPIREAT', KEYS[5], at)
  end
end
noteCall(KEYS[2], ARGV[3], seq)
return seq
`

// releaseScript drops a lease only if it is still ours: after it lapsed,
// another replica may hold the key.
var releaseScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`)

func notFound(err error) error {
	if errors.Is(err, redis.Nil) {
		return ErrNotFound
	}
	return err
}

// Create writes the sandbox's keys first (refusing a duplicate id), then
// takes a slot of the team's quota in one script on the team's keys, and
// deletes the sandbox again if the quota refuses it.
func (s *RedisStore) Create(ctx context.Context, sb *Sandbox, worlds map[string]SeedWorld, quota int) error {
	meta, err := json.Marshal(sb)
	if err != nil {
		return err
	}
	names := make([]string, 0, len(worlds))
	for name := range worlds {
		names = append(names, name)
	}
	sort.Strings(names)
	keys := sandboxKeys(sb.ID, names)
	args := []any{sb.RetainUntil.UnixMilli(), meta}
	for _, name := range names {
		args = append(args, worlds[name].Doc)
	}
	// The sandbox is counted against the server budgets (each twin's
	// world twice: its seed, kept for grading, and its state), and given
	// back if the create or the quota refuses it. Near a budget that takes
	// a script of the budget's slot, sent while the keys are written.
	var budgetErr error
	var budgeted sync.WaitGroup
	if s.budget.on() {
		sizes := make(map[string]int64, len(worlds))
		var seeds int64
		for _, name := range names {
			sizes[name] = int64(len(worlds[name].Doc))
			seeds += sizes[name]
		}
		if !s.budget.admitHere(sb, seeds, sizes) {
			budgeted.Go(func() { budgetErr = s.budget.admitThere(ctx, sb, seeds, sizes) })
		}
	}
	created, err := createScript.Run(ctx, s.rdb, keys, args...).Int()
	budgeted.Wait()
	if err != nil {
		if budgetErr == nil {
			s.budget.release(context.WithoutCancel(ctx), sb.ID)
		}
		return fmt.Errorf("redis create: %w", err)
	}
	if created == 0 {
		// Another sandbox has the id: the budget counted that one, not
		// this, and keeps it.
		return ErrExists
	}
	if budgetErr != nil {
		s.rdb.Del(context.WithoutCancel(ctx), append(keys, lockKeys(sb.ID, names)...)...)
		return budgetErr
	}

	// The sandbox keys and the team keys live in different slots, so the
	// quota is taken second and undone by deleting the sandbox if refused;
	// until then nobody knows the new id.
	summary, err := json.Marshal(summaryOf(sb))
	if err != nil {
		return err
	}
	admitted, err := quotaScript.Run(ctx, s.rdb,
		[]string{teamOpenKey(sb.Team), teamUsageKey(sb.Team), teamIndexKey(sb.Team), teamListedKey(sb.Team)},
		s.now().UnixMilli(), quota, sb.ID, sb.ExpiresAt.UnixMilli(), len(sb.Twins), summary,
		sb.CreatedAt.UnixMilli(), listLimit(s.maxListed)).Int()
	if err == nil && admitted == 1 {
		// This process has each seed world decoded: it is cached at
		// version 1 as a copy (Twin.CopyWorld, what decoding the document
		// gives), so that the sandbox's first call here decodes no
		// document.
		for _, name := range names {
			if tw := s.twins.get(name); tw != nil && tw.CopyWorld != nil && worlds[name].World != nil {
				s.worlds.put(sb.ID, name, sb.CreatedAt.UnixNano(), 1, worlds[name].Doc, tw.CopyWorld(worlds[name].World))
			}
		}
		return nil
	}
	s.rdb.Del(context.WithoutCancel(ctx), append(keys, lockKeys(sb.ID, names)...)...)
	s.budget.release(context.WithoutCancel(ctx), sb.ID)
	if err != nil {
		return fmt.Errorf("redis quota: %w", err)
	}
	return ErrQuota
}

func lockKeys(id string, twinNames []string) []string {
	out := make([]string, len(twinNames))
	for i, t := range twinNames {
		out[i] = lockKey(id, t)
	}
	return out
}

// getMeta returns the stored record and its raw JSON (for compare-and-swap).
func (s *RedisStore) getMeta(ctx context.Context, id string) (*Sandbox, string, error) {
	raw, err := s.rdb.Get(ctx, metaKey(id)).Result()
	if err != nil {
		return nil, "", notFound(err)
	}
	sb, err := s.decodeMeta(id, raw)
	if err != nil {
		return nil, "", err
	}
	return sb, raw, nil
}

// decodeMeta decodes a stored record, which is gone once its retention
// passed.
func (s *RedisStore) decodeMeta(id, raw string) (*Sandbox, error) {
	sb, err := s.metas.decode(id, raw)
	if err != nil {
		return nil, err
	}
	// Key expiry runs on the server's clock; agree with this process's
	// clock too, as the memory store does.
	if !s.now().Before(sb.RetainUntil) {
		return nil, ErrNotFound
	}
	return sb, nil
}

// Get reads the sandbox record; it is gone with its keys.
func (s *RedisStore) Get(ctx context.Context, id string) (*Sandbox, error) {
	sb, _, err := s.getMeta(ctx, id)
	return sb, err
}

// List reads the team index, taking each live sandbox from its record and
// each gone one from its summary, and forgets entries a week past expiry.
func (s *RedisStore) List(ctx context.Context, team string) ([]*Sandbox, error) {
	index, err := s.rdb.HGetAll(ctx, teamIndexKey(team)).Result()
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(index))
	for id := range index {
		ids = append(ids, id)
	}
	// Each meta key is in its own slot: a pipeline (which a cluster client
	// splits per node), not MGET.
	metas := make([]*redis.StringCmd, len(ids))
	if _, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, id := range ids {
			metas[i] = p.Get(ctx, metaKey(id))
		}
		return nil
	}); err != nil && !errors.Is(err, redis.Nil) {
		return nil, err
	}
	now := s.now()
	out := make([]*Sandbox, 0, len(ids))
	var prune []string
	for i, id := range ids {
		if raw, err := metas[i].Result(); err == nil {
			var sb Sandbox
			if json.Unmarshal([]byte(raw), &sb) == nil && sb.Team == team && now.Before(sb.RetainUntil) {
				out = append(out, &sb)
				continue
			}
		}
		var sum Summary
		if err := json.Unmarshal([]byte(index[id]), &sum); err != nil {
			prune = append(prune, id)
			continue
		}
		if now.Sub(sum.ExpiresAt) > indexKeep {
			prune = append(prune, id)
			continue
		}
		out = append(out, fromSummary(team, sum))
	}
	if len(prune) > 0 {
		// Lazy housekeeping: a failure only means the entries stay a while.
		members := make([]any, len(prune))
		for i, id := range prune {
			members[i] = id
		}
		s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.HDel(ctx, teamIndexKey(team), prune...)
			p.ZRem(ctx, teamListedKey(team), members...)
			return nil
		})
	}
	sortNewestFirst(out)
	return out, nil
}

// Stop swaps the record with compare-and-set, moving every key of the
// sandbox to retainUntil in the same script, then frees the quota slot.
func (s *RedisStore) Stop(ctx context.Context, id string, at, retainUntil time.Time) (*Sandbox, error) {
	for {
		sb, raw, err := s.getMeta(ctx, id)
		if err != nil {
			return nil, err
		}
		if sb.State != StateReady {
			return sb, nil
		}
		stoppedAt := at.UTC()
		sb.State = StateStopped
		sb.StoppedAt = &stoppedAt
		sb.RetainUntil = retainUntil
		next, err := json.Marshal(sb)
		if err != nil {
			return nil, err
		}
		res, err := stopScript.Run(ctx, s.rdb, sandboxKeys(id, sb.Twins), raw, next, retainUntil.UnixMilli()).Int()
		if err != nil {
			return nil, fmt.Errorf("redis stop: %w", err)
		}
		switch res {
		case -1:
			return nil, ErrNotFound
		case 0:
			// Another replica changed the record (stopped it, most likely):
			// read it again.
			continue
		}
		summary, err := json.Marshal(summaryOf(sb))
		if err != nil {
			return nil, err
		}
		if err := teamStopScript.Run(ctx, s.rdb, []string{teamOpenKey(sb.Team), teamIndexKey(sb.Team)}, id, summary).Err(); err != nil {
			return nil, fmt.Errorf("redis stop: team index: %w", err)
		}
		s.budget.retain(ctx, id, retainUntil)
		return sb, nil
	}
}

// Discard deletes every key of the sandbox and its team index entry.
func (s *RedisStore) Discard(ctx context.Context, id string) error {
	raw, err := s.rdb.Get(ctx, metaKey(id)).Result()
	if err != nil {
		return notFound(err)
	}
	var sb Sandbox
	if err := json.Unmarshal([]byte(raw), &sb); err != nil {
		return fmt.Errorf("sandbox %s: %w", id, err)
	}
	// Other replicas learn of the discard from the state key being gone,
	// which every use of a cached world checks.
	for _, t := range sb.Twins {
		s.worlds.drop(id, t)
	}
	s.metas.forget(id)
	keys := append(sandboxKeys(id, sb.Twins), lockKeys(id, sb.Twins)...)
	if err := s.rdb.Del(ctx, keys...).Err(); err != nil {
		return fmt.Errorf("redis discard: %w", err)
	}
	if _, err := s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.ZRem(ctx, teamOpenKey(sb.Team), id)
		p.HDel(ctx, teamIndexKey(sb.Team), id)
		p.ZRem(ctx, teamListedKey(sb.Team), id)
		return nil
	}); err != nil {
		return fmt.Errorf("redis discard: team index: %w", err)
	}
	s.budget.release(ctx, id)
	return nil
}

// Update runs fn on the twin's world. A read runs on the decoded world
// the store caches, once Redis confirmed that it is still the stored
// version: in the read's one round trip, or in the one that read sb for
// this call (GetForTwin), under the world's read lock. A write that
// Manager.Invoke recorded as an operation runs on that cached world in
// place, under its write lock (redis_live.go), and saves the operation; any
// other write runs on a private decoded copy and saves its world delta.
// Either is saved when fn reports a mutation (even alongside an error); a
// write is serialised per twin by an in-process lock, a Redis lease across
// replicas, and a version check on save, and fn reruns if the version
// moved on.
func (s *RedisStore) Update(ctx context.Context, sb *Sandbox, tw *twins.Twin, write bool, fn UpdateFunc) error {
	if write && sb.Speculative() {
		// A write starts from an authorization Redis just confirmed.
		return sb.refuseStale()
	}
	if sb.pendingSave() != nil {
		// A second write in one call: the first is saved alone first, so
		// that this one starts from it (and the lock it holds is free).
		s.settle(ctx, sb)
		if sb.Stale() || sb.storeFailed() {
			return ErrStale
		}
	}
	s.twins.note(tw)
	if !write {
		world, ver, done, err := s.readWorld(ctx, sb, tw)
		if err != nil {
			return err
		}
		defer done()
		if v := readVersionFrom(ctx); v != nil {
			*v = uint64(ver)
		}
		_, err = fn(world)
		return err
	}
	// A write recorded as an operation runs on the cached world itself
	// (redis_live.go) and is saved as that operation.
	op := writeOpFrom(ctx)
	if tw.CopyWorld == nil {
		op = nil
	}

	// When this call's authorization saw the version this process has
	// cached, the write may start from it without a lease (see
	// writeUnleased).
	var seen *worldEntry
	if e := s.worlds.get(sb.ID, tw.Name, sb.CreatedAt.UnixNano()); e != nil && sb.view.serves(tw.Name, e.ver) && (sb.hold == nil || !sb.hold.leased) {
		seen = e
	}
	if seen != nil && op != nil && s.contended(sb.ID, tw.Name) {
		// Replicas are writing this twin at once: a write run in place
		// that conflicts gives its world up, which costs a reading of the
		// whole state, so it takes the lease first.
		seen = nil
	}
	// A read made with sb after this write must see it.
	sb.view.end()
	// Writers of one process queue here, so only one of them at a time
	// competes with other replicas for the Redis lease.
	unlock, err := s.locks.lock(ctx, sb.ID+"\x00"+tw.Name)
	if err != nil {
		return err
	}
	// A held write (redis_hold.go) takes the lock over, until its row.
	defer func() {
		if unlock != nil {
			unlock()
		}
	}()
	if seen != nil {
		if saved, err := s.writeUnleased(ctx, sb, tw, seen, op, fn, &unlock); saved || err != nil {
			return err
		}
	}
	for {
		saved, err := s.writeOnce(ctx, sb, tw, op, fn, &unlock)
		if saved || err != nil {
			return err
		}
	}
}

// contendedFor is how long after a conflict writes in place to the twin
// take the lease before they run.
const contendedFor = time.Second

// conflict records that a write in place without the lease met another
// replica's write.
func (s *RedisStore) conflict(id, twin string) {
	now := time.Now()
	s.conflictMu.Lock()
	defer s.conflictMu.Unlock()
	if s.conflicted == nil {
		s.conflicted = map[string]time.Time{}
	}
	if len(s.conflicted) >= 1024 {
		for k, at := range s.conflicted {
			if now.Sub(at) >= contendedFor {
				delete(s.conflicted, k)
			}
		}
	}
	s.conflicted[id+"\x00"+twin] = now
}

// contended reports whether a write in place without the lease met
// another replica's write lately.
func (s *RedisStore) contended(id, twin string) bool {
	s.conflictMu.Lock()
	defer s.conflictMu.Unlock()
	k := id + "\x00" + twin
	at, ok := s.conflicted[k]
	if ok && time.Since(at) >= contendedFor {
		delete(s.conflicted, k)
		ok = false
	}
	return ok
}

// runInPlace runs fn on before's world, which pw holds for writing, and
// stores what it did as op: staged for the call's row (a held write,
// which then owns pw and *unlock), else saved under token. pw is
// committed or aborted (or, for a run that changed nothing, freed) before
// it returns, unless staged; a panic in fn aborts it. handed reports that
// the lease token is no longer the caller's to release: staged with the
// write, or dropped by the save script.
func (s *RedisStore) runInPlace(ctx context.Context, sb *Sandbox, tw *twins.Twin, pw *placeWrite, op *writeOp, fn UpdateFunc, token string, unlock *func()) (saved bool, err error, handed bool) {
	staged := false
	defer func() {
		if !staged {
			pw.abort()
		}
	}()
	var beforeDoc []byte
	if s.verify != nil {
		beforeDoc, _ = json.Marshal(pw.before.world)
	}
	mutated, fnErr := fn(pw.before.world)
	if !mutated {
		if op.ranChange() {
			// The action changed the world and the update refused it
			// (a budget): what it changed is in the world.
			pw.abort()
		} else {
			// Nothing changed: a write validates before it changes
			// anything, as the memory store relies on too.
			if s.verify != nil {
				s.verify.unchanged(tw, beforeDoc, pw.before.world)
			}
			pw.keep()
		}
		return true, fnErr, false
	}
	kind, payload, err := s.encodeOp(pw.before.world, op)
	if err != nil {
		return false, err, false
	}
	if s.verify != nil && kind == saveDelta {
		s.verify.check(tw, sb.ID, beforeDoc, payload, pw.before.world)
	}
	if ok, err := s.stage(sb, tw, pw.before, kind, payload, pw.before.world, token, unlock, pw); ok || err != nil {
		staged = ok
		return ok, cmp.Or(err, fnErr), ok
	}
	saved, err = s.saveEncoded(ctx, sb, tw, pw.before, kind, payload, pw.before.world, token, pw)
	handed = err == nil || errors.Is(err, ErrNotFound)
	if !saved || err != nil {
		return saved, err, handed
	}
	return true, fnErr, handed
}

// encodeOp encodes what the save of a write recorded as op stores: op
// itself, or the whole world it made (when the store saves whole
// documents, or op does not encode).
func (s *RedisStore) encodeOp(world any, op *writeOp) (string, []byte, error) {
	if !s.wholeSaves {
		if d, err := op.encode(); err == nil {
			return saveDelta, d, nil
		}
	}
	doc, err := json.Marshal(world)
	if err != nil {
		return "", nil, err
	}
	return saveWhole, doc, nil
}

// runOnCopy runs fn on a private copy of before's world and encodes what
// it changed. It reports ok false, having run nothing, when before's world
// was given up or moved on.
func (s *RedisStore) runOnCopy(tw *twins.Twin, before *worldEntry, fn UpdateFunc) (world any, kind string, payload []byte, mutated bool, fnErr error, ok bool, err error) {
	if !before.read() {
		return nil, "", nil, false, nil, false, nil
	}
	defer before.unread()
	if before.live.ver != before.ver {
		return nil, "", nil, false, nil, false, nil
	}
	world, err = privateCopy(tw, before)
	if err != nil {
		return nil, "", nil, false, nil, false, fmt.Errorf("%s state: %w", tw.Name, err)
	}
	mutated, fnErr = fn(world)
	if !mutated {
		return world, "", nil, false, fnErr, true, nil
	}
	// A mutated world is saved even when fn failed: some vendor calls
	// fail and still change state (a declined card leaves a failed
	// charge).
	kind, payload, err = s.encodeWrite(tw, before, world)
	return world, kind, payload, true, fnErr, true, err
}

// writeUnleased runs fn on the cached world e, which the call's
// authorization saw as the stored version moments ago (in place for a
// write recorded as op, else on a private copy), and saves it without
// taking the lease first: a write with no contention then costs one round
// trip instead of two. The save still checks, in its one script, that the
// version is e's and that no writer holds the lease, so it can never
// overwrite a newer state nor save in the middle of a leased update; when
// it reports false the caller reruns fn the ordinary way. A held write is
// staged for its row instead (unlock passes to it).
func (s *RedisStore) writeUnleased(ctx context.Context, sb *Sandbox, tw *twins.Twin, e *worldEntry, op *writeOp, fn UpdateFunc, unlock *func()) (bool, error) {
	if op != nil {
		l := e.live
		l.mu.Lock()
		if l.dead || l.ver != e.ver {
			l.mu.Unlock()
			return false, nil
		}
		pw := &placeWrite{s: s, id: sb.ID, twin: tw.Name, created: sb.CreatedAt.UnixNano(), before: e}
		saved, err, _ := s.runInPlace(ctx, sb, tw, pw, op, fn, "", unlock)
		return saved, err
	}
	world, kind, payload, mutated, fnErr, ok, err := s.runOnCopy(tw, e, fn)
	if !ok || err != nil {
		return false, err
	}
	if !mutated {
		return true, fnErr
	}
	if staged, err := s.stage(sb, tw, e, kind, payload, world, "", unlock, nil); staged || err != nil {
		return staged, cmp.Or(err, fnErr)
	}
	saved, err := s.saveEncoded(ctx, sb, tw, e, kind, payload, world, "", nil)
	if !saved || err != nil {
		return saved, err
	}
	return true, fnErr
}

// writeOnce takes the twin's lease, brings the world up to the stored
// version, runs fn on it (in place for a write recorded as op, else on a
// private copy) and saves it. It reports false when the state moved on
// since it was read (the lease lapsed mid-update), so the caller reruns fn
// on the newer state. A held write is staged for its row with its lease
// (unlock passes to it).
func (s *RedisStore) writeOnce(ctx context.Context, sb *Sandbox, tw *twins.Twin, op *writeOp, fn UpdateFunc, unlock *func()) (bool, error) {
	lock, key := lockKey(sb.ID, tw.Name), stateKey(sb.ID, tw.Name)
	created := sb.CreatedAt.UnixNano()
	cached := s.worlds.get(sb.ID, tw.Name, created)
	have := ""
	if cached != nil {
		have = strconv.FormatInt(cached.ver, 10)
	}
	token, vals, err := s.lockRead(ctx, lock, key, have)
	if err != nil {
		return false, err
	}
	held := true
	defer func() {
		if held {
			// Release even when the caller's request was cancelled (or fn
			// panicked), or every other writer waits out the lease.
			releaseScript.Run(context.WithoutCancel(ctx), s.rdb, []string{lock}, token)
		}
	}()
	r, err := parseState(vals)
	if err != nil {
		return false, err
	}
	// The world at the version read: the cached one when Redis still
	// holds its version, or brought up to date with the deltas after it,
	// so that no whole document moves over the wire; the whole state
	// again when the cached world was given up.
	var before *worldEntry
	for try := 0; ; try++ {
		before, err = catchUp(tw, sb.ID, cached, r)
		if err == nil {
			if before != cached {
				s.worlds.putEntry(sb.ID, tw.Name, created, before)
			}
			if op == nil {
				break
			}
			l := before.live
			l.mu.Lock()
			if !l.dead && l.ver == r.ver {
				break
			}
			l.mu.Unlock()
			err = errGivenUp
		}
		if !errors.Is(err, errGivenUp) || try > 0 {
			return false, err
		}
		if cached != nil {
			s.worlds.dropLive(sb.ID, tw.Name, cached.live)
		}
		cached = nil
		// The lease holds the state where it was.
		res, err := s.runScript(ctx, readScript, []string{key}, "").Slice()
		if err != nil {
			return false, notFound(err)
		}
		if r, err = parseState(res); err != nil {
			return false, err
		}
	}
	if op != nil {
		if before.ver != r.ver {
			// A world past the version read (cannot be while the lease
			// holds): run again.
			before.live.mu.Unlock()
			return false, nil
		}
		pw := &placeWrite{s: s, id: sb.ID, twin: tw.Name, created: created, before: before}
		saved, err, handed := s.runInPlace(ctx, sb, tw, pw, op, fn, token, unlock)
		held = !handed
		return saved, err
	}
	world, kind, payload, mutated, fnErr, ok, err := s.runOnCopy(tw, before, fn)
	if err != nil {
		return false, err
	}
	if !ok {
		// Given up since it was read: read it again.
		s.worlds.dropLive(sb.ID, tw.Name, before.live)
		return false, nil
	}
	if !mutated {
		return true, fnErr
	}
	if staged, err := s.stage(sb, tw, before, kind, payload, world, token, unlock, nil); staged || err != nil {
		if staged {
			held = false
		}
		return staged, cmp.Or(err, fnErr)
	}
	// The save drops the lease whatever it answers (unless it failed to
	// reach Redis, when the release below tries again).
	saved, err := s.saveEncoded(ctx, sb, tw, before, kind, payload, world, token, nil)
	if err == nil || errors.Is(err, ErrNotFound) {
		held = false
	}
	if !saved || err != nil {
		return saved, err
	}
	return true, fnErr
}

// lockRead takes the twin's Redis lease, waiting while another replica
// holds it, and returns its token with the lockReadScript answer (the
// state's version, and its document unless it is have).
func (s *RedisStore) lockRead(ctx context.Context, lock, state, have string) (string, []any, error) {
	token := randomString(22, base62)
	wait := 500 * time.Microsecond
	for {
		res, err := lockReadScript.Run(ctx, s.rdb, []string{lock, state}, token, leaseTTL.Milliseconds(), have).Result()
		if err != nil {
			return "", nil, fmt.Errorf("redis lease: %w", err)
		}
		if vals, ok := res.([]any); ok {
			return token, vals, nil
		}
		// Jitter keeps the replicas that wait from retrying in lockstep.
		t := time.NewTimer(wait/2 + rand.N(wait))
		select {
		case <-ctx.Done():
			t.Stop()
			return "", nil, ctx.Err()
		case <-t.C:
		}
		wait = min(wait*2, leaseBackoffMax)
	}
}

// Seed returns the seed world document.
func (s *RedisStore) Seed(ctx context.Context, sb *Sandbox, twin string) ([]byte, error) {
	doc, err := s.rdb.Get(ctx, seedKey(sb.ID, twin)).Bytes()
	if err != nil {
		return nil, notFound(err)
	}
	return doc, nil
}

// seqPrefix is how a row with seq 0 starts when encoded; the append script
// puts the real seq in its place.
var seqPrefix = []byte(`{"seq":0,`)

// Append stores the row with the next seq of the twin's tape, handed out
// by the same script that stores it.
func (s *RedisStore) Append(ctx context.Context, sb *Sandbox, row *tape.Row) (int64, error) {
	r := *row
	r.Seq = 0
	// The encoding is done with once the script has its reply (the batch
	// wrote it to Redis, and the append's context is never cancelled, so
	// it never outlives the call queued), and its buffer is used again.
	buf := rowBufs.Get().(*[]byte)
	// A write held for its row is saved with it (appendSaving), whole.
	p := sb.pendingSave()
	saving := p != nil && p.tw.Name == row.Twin
	// A row that changed nothing and carries a large answer keeps it by
	// reference (redis_bodies.go) once the twin's tape holds it: it is
	// encoded after room for the reference, which then takes the place of
	// its leading seq.
	byRef := !row.StateMutation && len(row.Response.Body) >= minBodyRef && !saving
	var known bodyKey
	var was bodyState
	if byRef {
		known = bodyKey{sandbox: sb.ID, created: sb.CreatedAt.UnixNano(), twin: row.Twin, hash: bodyHash(row.Response.Body)}
		was = s.bodies.state(known)
		// Its first row holds it whole.
		byRef = was != bodyUnseen
	}
	lead := 0
	if byRef {
		lead = bodyRefHead - len(seqPrefix)
	}
	var data, body []byte
	var cut int
	if byRef {
		data, body, cut = r.AppendJSONSplit(append((*buf)[:0], make([]byte, lead)...))
	} else {
		data = r.AppendJSON((*buf)[:0])
	}
	defer func() { s.putRowBuf(buf, data) }()
	if !bytes.HasPrefix(data[lead:], seqPrefix) {
		return 0, fmt.Errorf("tape row encodes as %.20q, want it to start with seq", data[lead:])
	}
	if byRef && body == nil {
		// Written other than as it came (compacted): the row keeps it.
		byRef = false
	} else if byRef {
		if err := encodeBodyRef(data, known.hash, cut-bodyRefHead); err != nil {
			return 0, err
		}
	}
	if sb.Stale() {
		// Refused before (a write made with it): its answer is void.
		return 0, ErrStale
	}
	// The row after its seq, and what is sent for it.
	tail := data[lead+len(seqPrefix):]
	if saving {
		return s.appendSaving(ctx, sb, row, p, tail)
	}
	keys := []string{metaKey(sb.ID), stateKey(sb.ID, row.Twin), tapeSeqKey(sb.ID, row.Twin), tapeKey(sb.ID, row.Twin), tapeBodiesKey(sb.ID, row.Twin)}
	script, extra := appendFor(sb)
	capped := s.tapeCap(sb)
	stored := tail
	hash, sent := "", []byte{}
	if byRef {
		stored, hash = data, known.hash
		if was == bodySeen {
			// Its second row stores it.
			sent = body
		}
	}
	args := append([]any{stored, capped, callID(ctx), hash, sent}, extra...)
	// As a save, the append waits for its answer even once the call is
	// cancelled: sent, it may well have taken a seq.
	seq, err := s.runScript(uncancelled(ctx), script, keys, args...).Int64()
	if err == nil && seq == needBody && byRef && len(sent) == 0 {
		// Not stored after all: sent again with it (nothing was stored,
		// the call id not taken).
		s.bodies.set(known, bodySeen)
		sent, args[4] = body, body
		seq, err = s.runScript(uncancelled(ctx), script, keys, args...).Int64()
	}
	if err == nil && seq == needBody {
		err = errors.New("the append script asked for a response body it was sent")
	}
	if err != nil && sb.Speculative() {
		// The answer of a speculative read is still held back: rather than
		// retry (see Manager.Record), it is replaced by the prompt 503 its
		// authorization would have met.
		sb.spec.failed.Store(true)
	}
	if err != nil {
		return 0, fmt.Errorf("redis append: %w", err)
	}
	if seq == -3 {
		return 0, sb.refuseStale()
	}
	if seq < 0 {
		return 0, ErrNotFound
	}
	s.kept(sb, seq, capped, int64(len(stored)+len(sent)))
	if kept := capped > 0 && seq <= capped; kept && len(sent) > 0 {
		s.bodies.set(known, bodyStored)
	} else if kept && was == bodyUnseen && known.hash != "" {
		s.bodies.set(known, bodySeen)
	}
	row.Seq = seq
	return seq, nil
}

// putRowBuf gives an encoding's buffer back for the next row, unless a rare
// large row grew it.
func (s *RedisStore) putRowBuf(buf *[]byte, data []byte) {
	if cap(data) <= maxPooledRow {
		*buf = data[:0]
		rowBufs.Put(buf)
	}
}

// rowBufs holds buffers for tape rows on their way to Redis (Append): an
// encoding grown afresh for every call was a fifth of the bytes a read
// allocated on Redis. maxPooledRow keeps a rare large row's buffer out.
var rowBufs = sync.Pool{New: func() any { return new([]byte) }}

const maxPooledRow = 64 << 10

// SetMaxTapeRows caps each twin's tape (n <= 0: DefaultMaxTapeRows). Rows
// past the cap are counted but not kept. Call it before serving.
func (s *RedisStore) SetMaxTapeRows(n int64) {
	if n <= 0 {
		n = DefaultMaxTapeRows
	}
	s.maxTapeRows = n
}

// TapeLen reads the kept length and the call count in one round trip.
func (s *RedisStore) TapeLen(ctx context.Context, sb *Sandbox, twin string) (int64, int64, error) {
	pipe := s.rdb.Pipeline()
	exists := pipe.Exists(ctx, stateKey(sb.ID, twin))
	n := pipe.LLen(ctx, tapeKey(sb.ID, twin))
	total := pipe.Get(ctx, tapeSeqKey(sb.ID, twin))
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return 0, 0, err
	}
	if exists.Val() == 0 {
		return 0, 0, ErrNotFound
	}
	t, err := total.Int64()
	if err != nil && !errors.Is(err, redis.Nil) {
		return 0, 0, err
	}
	return n.Val(), t, nil
}

// Tape reads rows by list index (seq N is at index N-1) and decodes them.
func (s *RedisStore) Tape(ctx context.Context, sb *Sandbox, twin string, after int64, limit int) ([]tape.Row, error) {
	raw, err := s.TapeRaw(ctx, sb, twin, after, limit)
	if err != nil {
		return nil, err
	}
	out := make([]tape.Row, len(raw))
	for i, r := range raw {
		if err := json.Unmarshal(r, &out[i]); err != nil {
			return nil, fmt.Errorf("tape row: %w", err)
		}
	}
	return out, nil
}

// Usage reads the team's counters; open counts the unexpired members of the
// team's open set.
func (s *RedisStore) Usage(ctx context.Context, team string) (Usage, error) {
	var open *redis.IntCmd
	var counters *redis.SliceCmd
	if _, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		open = p.ZCount(ctx, teamOpenKey(team), "("+strconv.FormatInt(s.now().UnixMilli(), 10), "+inf")
		counters = p.HMGet(ctx, teamUsageKey(team), usageCreated, usageTwins, usageEvals)
		return nil
	}); err != nil {
		return Usage{}, err
	}
	n := make([]int, 3)
	for i, v := range counters.Val() {
		if s, ok := v.(string); ok {
			n[i], _ = strconv.Atoi(s)
		}
	}
	return Usage{Team: team, SandboxesOpen: int(open.Val()), SandboxesCreated: n[0], TwinsStarted: n[1], Evals: n[2]}, nil
}

// CountEval adds one evaluation to the team's usage.
func (s *RedisStore) CountEval(ctx context.Context, team string) error {
	return s.rdb.HIncrBy(ctx, teamUsageKey(team), usageEvals, 1).Err()
}

// Ping fails when Redis is unreachable.
func (s *RedisStore) Ping(ctx context.Context) error { return s.rdb.Ping(ctx).Err() }

// Close closes the client the store was given. Commands still queued for
// a batch fail with redis.ErrClosed; those on the wire fail with the
// client; Close returns once the batch senders have stopped.
func (s *RedisStore) Close() error {
	s.budget.close()
	s.compactWG.Wait()
	s.batch.close()
	err := s.rdb.Close()
	s.batch.wait()
	return err
}

// keyedLocks are mutexes made on demand per key and dropped once nobody
// holds or waits for them, so a long-running process does not keep one per
// sandbox it ever served. Waiting honours the context, unlike sync.Mutex.
// The table is split into shards by key, so that writers to different
// sandboxes seldom share even the table's own mutex.
type keyedLocks struct {
	shards [shards]keyedLockShard
}

type keyedLockShard struct {
	mu sync.Mutex
	m  map[string]*keyedLock
}

type keyedLock struct {
	held chan struct{}
	refs int // holders and waiters; guarded by its shard's mu
}

func (l *keyedLocks) lock(ctx context.Context, key string) (func(), error) {
	sh := &l.shards[shardOf(key)]
	sh.mu.Lock()
	if sh.m == nil {
		sh.m = map[string]*keyedLock{}
	}
	e := sh.m[key]
	if e == nil {
		e = &keyedLock{held: make(chan struct{}, 1)}
		sh.m[key] = e
	}
	e.refs++
	sh.mu.Unlock()
	select {
	case e.held <- struct{}{}:
		return func() {
			<-e.held
			sh.drop(key, e)
		}, nil
	case <-ctx.Done():
		sh.drop(key, e)
		return nil, ctx.Err()
	}
}

func (sh *keyedLockShard) drop(key string, e *keyedLock) {
	sh.mu.Lock()
	e.refs--
	if e.refs == 0 {
		delete(sh.m, key)
	}
	sh.mu.Unlock()
}

// size counts the locks in the table.
func (l *keyedLocks) size() int {
	n := 0
	for i := range l.shards {
		sh := &l.shards[i]
		sh.mu.Lock()
		n += len(sh.m)
		sh.mu.Unlock()
	}
	return n
}
