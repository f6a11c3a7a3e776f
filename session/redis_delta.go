package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/all"
)

// A twin's world on Redis: a base document and the writes after it, each
// saved as the operation that made it.
//
// A world is one Go value whose JSON document can run to megabytes (a
// repository of 10,000 issues is about 5 MB). Saving the whole document
// on every write made each write cost its world's size three times over
// (encoding it, moving it to Redis, Redis copying it into the hash). Saving
// only the write's world delta (twins.WorldDelta, comparing the world
// before with a private copy the write changed) took the document off the
// wire, but the copy (Twin.CopyWorld) and the comparison each still
// walked the whole world: 1 to 19 ms of CPU per write from 10 to 10,000
// issues.
//
// A write is now saved as its operation (twins.Op): the action's name, its
// input, and what it read of the call besides its world (the sandbox
// clock's readings, the API URL, the transport, the credential kind, the
// headers it asked for), which Manager.Invoke records as the action runs.
// The twins are deterministic (no randomness, no clock but the Env's), so
// the operation run again on the world before it makes the same world
// after it. That lets the writer run the action on the world it caches, in
// place, as the memory store does, holding the twin's in-process lock, its
// Redis lease (or the version its call's authorization saw), and the
// world's lock for writing until the write is stored or given up (see
// redis_live.go for what a write that is not stored does); nothing is
// copied, compared or encoded but the operation. A replica whose cached
// world is behind runs the operations after its version on it, in place; a
// replica with nothing cached decodes the base and runs the operations
// after it. A write costs what its action costs, wherever its world is
// cached; twinstest.Call checks for every write the twins' action tests
// make that its operation replays to the writer's world.
//
// A write that cannot be recorded as an operation (an input that does not
// come back the same from its JSON, a caller of Update other than Invoke)
// still runs on a private copy and is saved as its world delta, or as the
// whole document when the delta is not smaller than half of it; the two
// kinds of delta can follow each other in one history (a world delta
// starts with '[', an operation with '{').
//
// The rejected design: writes reporting which objects they touched, the
// store encoding only those. It needs every action of every twin to name
// what it changed, and a missed name is a replica that silently diverges;
// an operation is found by no action's code and checked by replaying it.
//
// The state hash keeps, besides 'ver':
//
//	doc    the base document: the whole world at version 'base'
//	base   the version of doc (absent: 'ver', the layout before deltas)
//	dN     the operation (or world delta) of the write that made version
//	       N, base < N <= ver
//	dlen   the bytes of those deltas, for compaction
//
// A save checks the version and the lease, appends its delta as field
// d(ver+1) and bumps 'ver', in the one script that also (for a held write)
// appends its tape row and sets the key's expiry: no lost update, one
// script per write, a resend answered once.
//
// Why deltas in the one hash rather than a key per object: a world is one
// Go value whose shape each twin defines (repositories holding issues
// holding comments), with indexes that are rebuilt over the whole world;
// per-object keys would need each twin to name its objects and every read
// to gather them. Keeping the deltas as fields of the state hash keeps one
// key per world: the same slot on Redis Cluster (one hash tag), the same
// expiry (Stop's PEXPIREAT and key expiry cover them), the same Discard.
//
// Compaction: once the deltas after the base reach a quarter of the base
// document (at least compactMinBytes) or compactMaxDeltas of them (each
// bound scaled down by a fraction the sandbox draws, compactDue), the
// process that wrote the last one encodes its world at the version it is
// at and stores it as the new base, dropping the deltas up to it
// (compactScript), off the write's own path. Encoding the whole world once
// per that many deltas keeps a write's share of it small, and bounds what
// a cold read decodes and runs again. A compaction needs no lease: it
// replaces a prefix of the history with an equal document, so it can race
// any write (which appends past it).
//
// State written by an earlier build (no 'base', a whole document) is read
// as a base with no deltas. An earlier build reads only 'doc', or cannot
// run operations, so replicas of two builds must not serve one Redis side
// by side (stop the old ones first, as for the tape-row change).

// Kinds of what a save stores (ARGV of the save scripts).
const (
	saveDelta = "d" // a delta, appended after the current version
	saveWhole = "w" // the whole document, as the new base
)

const (
	// compactMaxDeltas bounds the deltas kept after a base, so a cold read
	// fetches at most that many fields.
	compactMaxDeltas = 2048
	// compactMinBytes is the least delta bytes worth a compaction: a small
	// world is not encoded again every few writes.
	compactMinBytes = 64 << 10
)

// luaWorld is shared by the scripts that read a world. reply answers a
// reader holding version have (” for none) of the world in key: nil when
// the state is gone, {ver} when have is current, else {ver, doc, base,
// dlen, from, d(from+1), ..., d(ver)}, where doc is ” when have is
// from (the reader applies the deltas to what it holds) and the base
// document otherwise (from is then the base). dropDeltas deletes the
// fields of deltas from+1..to.
const luaWorld = `
local function reply(key, have)
  local st = redis.call('HMGET', key, 'ver', 'base', 'dlen')
  if not st[1] then return nil end
  if st[1] == have then return {st[1]} end
  local ver = tonumber(st[1])
  local base = tonumber(st[2]) or ver
  local from = tonumber(have)
  local doc = ''
  if not from or from < base or from > ver then
    from = base
    doc = redis.call('HGET', key, 'doc')
  end
  local out = {st[1], doc, base, tonumber(st[3]) or 0, from}
  local f = {}
  for v = from + 1, ver do
    f[#f + 1] = 'd' .. v
    if #f == 1000 or v == ver then
      local ds = redis.call('HMGET', key, unpack(f))
      for i = 1, #ds do out[#out + 1] = ds[i] end
      f = {}
    end
  end
  return out
end
local function dropDeltas(key, from, to)
  local f = {}
  for v = from + 1, to do
    f[#f + 1] = 'd' .. v
    if #f == 1000 or v == to then
      redis.call('HDEL', key, unpack(f))
      f = {}
    end
  end
end
`

// luaStore stores what a save brings (kind, payload) on top of the state
// read as {ver, base, dlen} and returns the new version: a delta as the
// field of the next version, or a whole document as the new base, which
// drops every delta.
const luaStore = `
local function store(key, ver, base, dlen, kind, payload)
  ver = tonumber(ver)
  base = tonumber(base) or ver
  if kind == '` + saveDelta + `' then
    redis.call('HSET', key, 'd' .. (ver + 1), payload, 'base', base, 'dlen', (tonumber(dlen) or 0) + #payload)
  else
    dropDeltas(key, base, ver)
    redis.call('HSET', key, 'doc', payload, 'base', ver + 1, 'dlen', 0)
  end
  return redis.call('HINCRBY', key, 'ver', 1)
end
`

// readScript reads a twin's world for a reader that may hold a version of
// it decoded already (ARGV[1], empty when none): see luaWorld's reply.
// Checking the version in the read's own round trip is what makes the
// cached copy safe to use: another replica's write bumps it.
// KEYS: state. ARGV: cached version. Returns nil when the state is gone.
var readScript = redis.NewScript(luaWorld + `
return reply(KEYS[1], ARGV[1])
`)

// lockReadScript takes a twin's lease and reads its world in one round
// trip. KEYS: lock, state. ARGV: token, lease ms, the version the writer
// holds decoded (empty when none). Returns 0 while another replica holds
// the lease, an empty array when the state is gone, else luaWorld's
// reply. A lease already held under this token is this call's own, taken
// by the same script sent once before (its reply lost), and is kept
// rather than waited out.
var lockReadScript = redis.NewScript(luaWorld + `
if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) and redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
local r = reply(KEYS[2], ARGV[3])
if not r then return {} end
return r
`)

// saveScript stores a twin's write (a delta or the whole document, see
// luaStore) if its version is still the one the update read, and drops the
// writer's lease in the same round trip. A writer whose lease lapsed
// mid-update gets 0 and reruns instead of overwriting a newer state, as
// does one while another writer holds the lease (a writer that saves
// without a lease passes an empty token). A save returns the version it
// stored, which is exactly one past the version read.
//
// A save sent again after its reply was lost (the connection broke; the
// client resends) must not be taken for a conflict, or the write would run
// a second time on the state it already changed: each save carries an id
// (writeID), the state keeps the ids of its last saves with the versions
// they stored (luaRecent), and a save whose id is there answers that
// version again.
// KEYS: meta, state, lock. ARGV: version read, delta or document, lease
// token, save id, kind.
var saveScript = redis.NewScript(luaExpiry + luaRecent + luaWorld + luaStore + `
local st = redis.call('HMGET', KEYS[2], 'ver', 'saves', 'base', 'dlen')
local done = recalled(st[2], ARGV[4])
if done then return done end
local holder = redis.call('GET', KEYS[3])
if holder == ARGV[3] then redis.call('DEL', KEYS[3]) elseif holder then return 0 end
local at = expiry(KEYS[1])
if at == -2 then return -1 end
if at < 0 then return redis.error_reply('sandbox meta without expiry') end
local ver = st[1]
if not ver then return -1 end
if ver ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[2], 'saves', remember(st[2], ARGV[4], tonumber(ver) + 1, ` + recentSaves + `))
local saved = store(KEYS[2], ver, st[3], st[4], ARGV[5], ARGV[2])
redis.call('PEXPIREAT', KEYS[2], at)
return saved
`)

// saveAppendScript is saveScript and appendScript in one: it stores the
// write if the version is still the one the write read and no other writer
// holds the lease (dropping the write's own), then stores the row with the
// next seq. It answers the seq, or 0 when the version moved on or another
// writer holds the lease (nothing stored), or -1 when the sandbox is gone.
// Sent again after its reply was lost, it finds its call id among the
// state's recent calls and answers the seq it took (luaAppendReplay).
// KEYS: meta, state, tapeseq, tape, lock. ARGV: row JSON after
// `{"seq":0,`, cap, call id, version read, delta or document, lease
// token, kind.
var saveAppendScript = redis.NewScript(luaExpiry + luaRecentCalls + luaWorld + luaStore + luaAppendReplay + `
local holder = redis.call('GET', KEYS[5])
if holder == ARGV[6] then redis.call('DEL', KEYS[5]) elseif holder then return 0 end
if not st[1] then return -1 end
local at = expiry(KEYS[1])
if at == -2 then return -1 end
if at < 0 then return redis.error_reply('sandbox meta without expiry') end
if st[1] ~= ARGV[4] then return 0 end
local bd = redis.call('HMGET', KEYS[2], 'base', 'dlen')
store(KEYS[2], st[1], bd[1], bd[2], ARGV[7], ARGV[5])
redis.call('PEXPIREAT', KEYS[2], at)
local bhash, body = '', ''
` + luaAppendRow)

// compactScript makes the document of version ARGV[1] the state's base,
// dropping the deltas up to it, unless the base is already there or past
// it. It changes no version (the world is the same) and needs no lease.
// Fields written to an existing hash keep its expiry. Returns the delta
// bytes left after the new base, -1 when the state is gone, -2 when there
// was nothing to do.
// KEYS: state. ARGV: version, its document.
var compactScript = redis.NewScript(luaWorld + `
local st = redis.call('HMGET', KEYS[1], 'ver', 'base')
if not st[1] then return -1 end
local ver = tonumber(st[1])
local base = tonumber(st[2]) or ver
local at = tonumber(ARGV[1])
if at <= base or at > ver then return -2 end
dropDeltas(KEYS[1], base, at)
local left = 0
for v = at + 1, ver do left = left + redis.call('HSTRLEN', KEYS[1], 'd' .. v) end
redis.call('HSET', KEYS[1], 'doc', ARGV[2], 'base', at, 'dlen', left)
return left
`)

// stateRead is a parsed luaWorld reply.
type stateRead struct {
	ver int64
	// short: only the version, which the reader holds.
	short bool
	// doc is the base document when sent; the deltas then follow it, else
	// the version from.
	doc              []byte
	base, dlen, from int64
	deltas           [][]byte
}

// parseState parses a luaWorld reply; an empty one means the state is
// gone.
func parseState(res []any) (*stateRead, error) {
	if len(res) == 0 {
		return nil, ErrNotFound
	}
	v, _ := res[0].(string)
	ver, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return nil, fmt.Errorf("state version %q: %w", v, err)
	}
	if len(res) == 1 {
		return &stateRead{ver: ver, short: true}, nil
	}
	if len(res) < 5 {
		return nil, fmt.Errorf("state reply of %d values", len(res))
	}
	r := &stateRead{ver: ver}
	doc, ok := res[1].(string)
	if !ok {
		return nil, ErrNotFound
	}
	if doc != "" {
		r.doc = []byte(doc)
	}
	r.base, _ = res[2].(int64)
	r.dlen, _ = res[3].(int64)
	r.from, _ = res[4].(int64)
	for i, d := range res[5:] {
		s, ok := d.(string)
		if !ok {
			return nil, fmt.Errorf("state: delta of version %d missing", r.from+int64(i)+1)
		}
		r.deltas = append(r.deltas, []byte(s))
	}
	if r.from+int64(len(r.deltas)) != ver {
		return nil, fmt.Errorf("state: %d deltas from version %d to %d", len(r.deltas), r.from, ver)
	}
	return r, nil
}

// encodeWrite encodes what a save of world, made from the cached world
// before, stores: its delta when the twin's worlds can be compared (it
// has a CopyWorld) and the delta is smaller than half the world, else the
// whole document.
func (s *RedisStore) encodeWrite(tw *twins.Twin, before *worldEntry, world any) (string, []byte, error) {
	if tw.CopyWorld != nil && before != nil && before.world != nil && !s.wholeSaves {
		d, ok, err := twins.WorldDelta(before.world, world)
		if err != nil {
			return "", nil, fmt.Errorf("%s state: %w", tw.Name, err)
		}
		if ok && (before.docLen == 0 || int64(len(d)) < before.docLen/2) {
			return saveDelta, d, nil
		}
	}
	doc, err := json.Marshal(world)
	if err != nil {
		return "", nil, fmt.Errorf("%s state: %w", tw.Name, err)
	}
	return saveWhole, doc, nil
}

// savedEntry is the cache entry of world, saved at ver as kind/payload on
// top of before, guarded by live.
func savedEntry(before *worldEntry, ver int64, kind string, payload []byte, world any, live *liveWorld) *worldEntry {
	if kind == saveWhole || before == nil {
		return &worldEntry{ver: ver, doc: payload, world: world, live: live, base: ver, docLen: int64(len(payload))}
	}
	return &worldEntry{ver: ver, world: world, live: live, base: before.base, dlen: before.dlen + int64(len(payload)), docLen: before.docLen}
}

// cacheSaved caches the entry of a world just saved and, if its deltas
// are due, compacts them.
func (s *RedisStore) cacheSaved(sb *Sandbox, twin string, e *worldEntry) {
	s.cacheSavedAt(sb.ID, twin, sb.CreatedAt.UnixNano(), e)
}

func (s *RedisStore) cacheSavedAt(id, twin string, created int64, e *worldEntry) {
	s.worlds.putEntry(id, twin, created, e)
	if s.compactDue(id, twin, e) {
		s.compact(id, twin, created, e)
	}
}

// compactDue reports whether e's deltas are due for compaction: their
// count or bytes have reached the bounds (compactMaxDeltas, a quarter of
// the base document and at least compactMinBytes), each scaled by a
// fraction from one half to one that the sandbox, the twin and the base's
// version draw (FNV-1a, so every replica draws the same). Sandboxes seeded
// alike and written to at one pace would otherwise reach the bound on the
// same write and all encode their worlds at the same moment, as their
// world measures did (sampleDue); scaled down, never up, the bounds still
// hold.
func (s *RedisStore) compactDue(id, twin string, e *worldEntry) bool {
	if s.compactAfter > 0 {
		return e.ver-e.base >= int64(s.compactAfter)
	}
	f := int64(compactJitter/2 + compactDraw(id, twin, e.base)%(compactJitter/2+1)) // from compactJitter/2 to compactJitter
	return (e.ver-e.base)*compactJitter >= compactMaxDeltas*f || e.dlen*compactJitter >= max(e.docLen/4, compactMinBytes)*f
}

// compactDraw is FNV-1a of id, twin and base (its eight bytes), each
// string closed by a zero byte, without allocating: it runs on every write.
func compactDraw(id, twin string, base int64) uint64 {
	const offset, prime = 14695981039346656037, 1099511628211
	h := uint64(offset)
	for _, s := range [2]string{id, twin} {
		for i := 0; i < len(s); i++ {
			h = (h ^ uint64(s[i])) * prime
		}
		h *= prime // the zero byte
	}
	for i := range 8 {
		h = (h ^ uint64(byte(base>>(8*i)))) * prime
	}
	return h
}

// compactJitter is the denominator of compactDue's fraction.
const compactJitter = 1024

// compact stores e's world as the base of its version, in the background
// (or at once, for tests): one compaction per twin at a time.
func (s *RedisStore) compact(id, twin string, created int64, e *worldEntry) {
	key := id + "\x00" + twin
	if _, busy := s.compacting.LoadOrStore(key, true); busy {
		return
	}
	run := func() {
		defer s.compacting.Delete(key)
		// The world may have moved on in place since e was saved: it is
		// encoded at the (stored) version it is at.
		if !e.read() {
			return
		}
		ver := e.live.ver
		doc, err := json.Marshal(e.world)
		e.unread()
		if err != nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		left, err := compactScript.Run(ctx, s.rdb, []string{stateKey(id, twin)}, ver, doc).Int64()
		if err == nil && left >= 0 {
			s.worlds.rebase(id, twin, created, ver, left, int64(len(doc)))
		}
	}
	if s.compactSync {
		run()
		return
	}
	s.compactWG.Add(1)
	go func() {
		defer s.compactWG.Done()
		run()
	}()
}

// rebase records in the cached entry of a twin, if it is at version ver
// or later, that Redis's base is now ver with left delta bytes after it.
func (c *worldCache) rebase(id, twin string, created, ver, left, docLen int64) {
	sh := &c.shards[shardOf(id)]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	k := worldKey{id, twin}
	old := sh.m[k]
	if old == nil || old.created != created || old.ver < ver || old.base >= ver {
		return
	}
	e := &worldEntry{key: k, created: created, ver: old.ver, doc: old.doc, world: old.world, live: old.live, base: ver, dlen: left, docLen: docLen}
	e.cost = entryCost(e)
	c.remove(sh, old)
	sh.m[k] = e
	sh.pushFront(e)
	c.size.Add(e.cost)
}

// knownTwins remembers the twins the store served, by name, for State,
// which is asked by name: a world stored as deltas is rebuilt with its
// twin's code. A twin this process never served is looked up among the
// twins Pome ships.
type knownTwins struct{ m sync.Map }

var shippedTwins = sync.OnceValue(all.Registry)

func (k *knownTwins) note(tw *twins.Twin) {
	if _, ok := k.m.Load(tw.Name); !ok {
		k.m.Store(tw.Name, tw)
	}
}

func (k *knownTwins) get(name string) *twins.Twin {
	if tw, ok := k.m.Load(name); ok {
		return tw.(*twins.Twin)
	}
	if tw, ok := shippedTwins().Get(name); ok {
		return tw
	}
	return nil
}

// State returns the current world's document: the stored one when no
// delta follows it, else the world rebuilt (or cached here) encoded.
func (s *RedisStore) State(ctx context.Context, sb *Sandbox, twin string) ([]byte, error) {
	created := sb.CreatedAt.UnixNano()
	for try := 0; ; try++ {
		var cached *worldEntry
		if try == 0 {
			cached = s.worlds.get(sb.ID, twin, created)
		}
		have := ""
		if cached != nil {
			have = strconv.FormatInt(cached.ver, 10)
		}
		res, err := readScript.Run(ctx, s.rdb, []string{stateKey(sb.ID, twin)}, have).Slice()
		if err != nil {
			return nil, notFound(err)
		}
		r, err := parseState(res)
		if err != nil {
			return nil, err
		}
		if r.short && cached.doc != nil {
			return cached.doc, nil
		}
		if !r.short && len(r.deltas) == 0 {
			return r.doc, nil
		}
		tw := s.twins.get(twin)
		if tw == nil {
			return nil, fmt.Errorf("%s state: stored as deltas of a twin this server does not know", twin)
		}
		e, err := catchUp(tw, sb.ID, cached, r)
		if errors.Is(err, errGivenUp) && try == 0 {
			continue
		}
		if err != nil {
			return nil, err
		}
		if !e.read() {
			if try == 0 {
				continue
			}
			return nil, fmt.Errorf("%s state: %w", twin, errGivenUp)
		}
		doc, err := json.Marshal(e.world)
		e.unread()
		return doc, err
	}
}

// readWorld returns the twin's current world for a read, which must not
// change it, its version, and the function to call once done with it: the
// cached one when Redis still holds its version, else the stored one (the
// deltas after the cached version applied to it, or the base and its
// deltas), built and cached. The version is the one the world is at while
// the caller holds it (a write of this process may have stored a later one
// than the version Redis answered); it is the stored version of exactly
// that world, since a world changed by a write that was not stored is
// never handed out (redis_live.go).
func (s *RedisStore) readWorld(ctx context.Context, sb *Sandbox, tw *twins.Twin) (any, int64, func(), error) {
	created := sb.CreatedAt.UnixNano()
	for try := 0; ; try++ {
		var cached *worldEntry
		if try == 0 {
			cached = s.worlds.get(sb.ID, tw.Name, created)
		}
		have := ""
		if cached != nil {
			if sb.view.serves(tw.Name, cached.ver) && cached.read() {
				// The authorization of this call saw this very version
				// (or this process stored a later one since).
				return cached.world, cached.live.ver, cached.unread, nil
			}
			have = strconv.FormatInt(cached.ver, 10)
		}
		res, err := s.runScript(ctx, readScript, []string{stateKey(sb.ID, tw.Name)}, have).Slice()
		if err != nil {
			return nil, 0, nil, notFound(err)
		}
		r, err := parseState(res)
		if err != nil {
			return nil, 0, nil, err
		}
		e, err := catchUp(tw, sb.ID, cached, r)
		if errors.Is(err, errGivenUp) && try == 0 {
			s.worlds.dropLive(sb.ID, tw.Name, cached.live)
			continue
		}
		if err != nil {
			return nil, 0, nil, err
		}
		if e != cached {
			s.worlds.putEntry(sb.ID, tw.Name, created, e)
		}
		if e.read() {
			return e.world, e.live.ver, e.unread, nil
		}
		if try > 0 {
			return nil, 0, nil, fmt.Errorf("%s state: %w", tw.Name, errGivenUp)
		}
	}
}

// saveEncoded stores a write encoded as kind/payload, made from the
// cached world before, under the lease token (empty: none held). world
// is the world it made: a private copy, or before's own world changed in
// place by pw (which it then commits or aborts). It reports false when
// the version moved on or another writer holds the lease.
func (s *RedisStore) saveEncoded(ctx context.Context, sb *Sandbox, tw *twins.Twin, before *worldEntry, kind string, payload []byte, world any, token string, pw *placeWrite) (bool, error) {
	keys := []string{metaKey(sb.ID), stateKey(sb.ID, tw.Name), lockKey(sb.ID, tw.Name)}
	ver := before.ver
	// The save waits for its answer even once the call is cancelled: sent,
	// it may well store the world, and the caller must know whether it did
	// (to record the call, and to cache what it saved).
	res, err := s.runScript(uncancelled(ctx), saveScript, keys, strconv.FormatInt(ver, 10), payload, token, writeID(), kind).Int64()
	if err != nil {
		pw.abort()
		return false, fmt.Errorf("redis save: %w", err)
	}
	switch {
	case res == ver+1 && pw != nil:
		pw.commit(res, kind, payload)
		return true, nil
	case res == ver+1:
		// The state at res is this world, and this is fn's last use of
		// it: from here on it is shared, read-only.
		s.cacheSaved(sb, tw.Name, savedEntry(before, res, kind, payload, world, newLive(res)))
		return true, nil
	case res > 0:
		// Saved, but at a version this code did not expect (a replica of
		// another version?): cache nothing rather than guess.
		pw.abort()
		s.worlds.drop(sb.ID, tw.Name)
		return true, nil
	case res == 0:
		if pw != nil && token == "" {
			s.conflict(sb.ID, tw.Name)
		}
		pw.abort()
		return false, nil
	default:
		pw.abort()
		return false, ErrNotFound
	}
}

// privateCopy returns a copy of the cached world e for a write to change:
// copied from the decoded world (Twin.CopyWorld) where the twin can, which
// costs a fraction of decoding its document again. The cached world itself
// is not written to. The caller holds e for reading.
func privateCopy(tw *twins.Twin, e *worldEntry) (any, error) {
	if tw.CopyWorld != nil && e.world != nil {
		return tw.CopyWorld(e.world), nil
	}
	if e.doc == nil {
		return nil, fmt.Errorf("%s state: version %d cached without its document", tw.Name, e.ver)
	}
	return tw.DecodeWorld(e.doc)
}

// entryCost is what e is charged against the cache's bound.
func entryCost(e *worldEntry) int64 {
	return (max(e.docLen, int64(len(e.doc)))+e.dlen)*worldCharge + entryOverhead
}

// deltaState is the stored layout of a twin's world, for tests.
func (s *RedisStore) deltaState(ctx context.Context, id, twin string) (base, ver int64, deltas int, err error) {
	m, err := s.rdb.HGetAll(ctx, stateKey(id, twin)).Result()
	if err != nil {
		return 0, 0, 0, err
	}
	if len(m) == 0 {
		return 0, 0, 0, redis.Nil
	}
	ver, _ = strconv.ParseInt(m["ver"], 10, 64)
	base = ver
	if b, ok := m["base"]; ok {
		base, _ = strconv.ParseInt(b, 10, 64)
	}
	for f := range m {
		if len(f) > 1 && f[0] == 'd' && f[1] >= '0' && f[1] <= '9' {
			deltas++
		}
	}
	return base, ver, deltas, nil
}
