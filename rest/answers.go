package rest

import (
	"hash/maphash"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/pomehq/pome/session"
	"github.com/pomehq/pome/twins"
)

// Answers of reads, cached per world version.
//
// A read's answer is a function of the world it reads, the request (path,
// query, content type and body), the transport and the caller's
// credential, and of nothing else but the request headers its action asks
// for (twins.Header) and the sandbox clock (twins.Env.Now): twins hold no
// other state and draw no random numbers. On a store that numbers its
// worlds' versions (the memory store: a new number for every write, taken
// before it changes anything; Redis: below; session.Manager.WorldVersion),
// the answer
// of a read is therefore the same for every request equal to it that
// finds the world at the same version, and is kept, with its status,
// headers and ETag, to be served again without running the action or
// encoding anything. The request's headers that the action read are kept
// with it and must be equal again; an answer that read the clock is never
// kept. Errors are not kept either.
//
// On Redis (session.RedisStore.WorldVersion) the version is the state's
// stored version, which every write stored by any replica bumps, and a
// cached answer is served only for the version the call itself
// established against Redis, exactly as a read of the replica's cached
// world would be: a call authorized with a round trip looks its answer up
// only after that round trip, for the version it read there; a
// speculative read (authorized from the record this replica holds) looks
// it up for the version of the world the replica caches, and its answer
// is held until the call's tape append has checked, in Redis, that the
// state is still at that version (otherwise it is thrown away and the
// call served again, authorized with a round trip). A read whose call
// established no version runs, and its answer is kept for the version it
// ran on. Versions start again at 1 when a sandbox is created again under
// the same id, so a slot belongs to one incarnation of a sandbox
// (answerSlotKey). Each replica keeps its own cache; a replica that
// restarts starts with none.
//
// A sandbox twin's answers live in one slot, for one version: the first
// answer kept at a newer version drops the slot's older ones, so a cache
// holds no answer of a world that has changed since, beyond the one slot.
// The cache is bounded in bytes; past its bound, slots are dropped at
// random, and one slot keeps at most answersPerSlot answers, so no one
// sandbox's distinct requests take the room of all others.
//
// A cached answer is served as the computed one was: same status, headers,
// ETag (and 304 to a matching If-None-Match) and body, and taped the same
// way, with the call's own request.
type answerCache struct {
	seed   maphash.Seed
	shards [answerShards]answerShard
	// shardMax is each shard's share of the bound.
	shardMax int64
	// hits and misses count lookups, for tests.
	hits, misses atomic.Int64
}

const (
	answerShards = 32
	// answersPerSlot bounds one sandbox twin's answers at one version.
	answersPerSlot = 64
	// maxCachedBody is the largest answer kept, and maxKeyBody the
	// largest request body a cached read may carry.
	maxCachedBody = 256 << 10
	maxKeyBody    = 4 << 10
)

type answerShard struct {
	mu    sync.Mutex
	slots map[string]*answerSlot
	bytes int64
}

type answerSlot struct {
	ver     uint64
	answers map[string]*answer
	bytes   int64
}

// answer is one kept read: what the binding handler wrote, and the
// request headers the action read, with their values then.
type answer struct {
	status  int
	body    []byte
	etag    string
	headers [][2]string
	deps    [][2]string
}

func (a *answer) size(key string) int64 {
	n := int64(len(a.body) + len(a.etag) + len(key) + 128)
	for _, h := range a.headers {
		n += int64(len(h[0]) + len(h[1]) + 32)
	}
	for _, h := range a.deps {
		n += int64(len(h[0]) + len(h[1]) + 32)
	}
	return n
}

// newAnswerCache returns a cache of at most max bytes, or nil when max is
// not positive (no caching).
func newAnswerCache(max int64) *answerCache {
	if max <= 0 {
		return nil
	}
	c := &answerCache{seed: maphash.MakeSeed(), shardMax: max / answerShards}
	for i := range c.shards {
		c.shards[i].slots = map[string]*answerSlot{}
	}
	return c
}

func (c *answerCache) shard(slot string) *answerShard {
	return &c.shards[maphash.String(c.seed, slot)%answerShards]
}

// answerSlotKey names the slot of a sandbox twin's answers, in one
// incarnation of the sandbox: a store may number the worlds of a sandbox
// created again under the same id from where the one before began
// (Redis).
func answerSlotKey(sb *session.Sandbox, twin string) string {
	return sb.ID + "\x00" + twin + "\x00" + strconv.FormatInt(sb.CreatedAt.UnixNano(), 36)
}

// answerRequestKey is what of a read request its answer may depend on,
// besides the headers its action reads: method, path and query, content
// type, the credential's role, and the body.
func answerRequestKey(r *http.Request, role session.Role, body []byte) string {
	var b strings.Builder
	b.Grow(len(r.Method) + len(r.URL.Path) + len(r.URL.RawQuery) + len(body) + 64)
	b.WriteString(r.Method)
	b.WriteByte(0)
	b.WriteString(r.URL.Path)
	b.WriteByte('?')
	b.WriteString(r.URL.RawQuery)
	b.WriteByte(0)
	b.WriteString(r.Header.Get("Content-Type"))
	b.WriteByte(0)
	b.WriteString(strconv.Itoa(int(role)))
	b.WriteByte(0)
	b.Write(body)
	return b.String()
}

// get returns the answer kept for key at version ver whose headers read
// have the same values in h, or nil.
func (c *answerCache) get(slot string, ver uint64, key string, h http.Header) *answer {
	sh := c.shard(slot)
	sh.mu.Lock()
	var a *answer
	if s := sh.slots[slot]; s != nil && s.ver == ver {
		a = s.answers[key]
	}
	sh.mu.Unlock()
	if a != nil {
		for _, d := range a.deps {
			if twins.HeaderIn(h, d[0]) != d[1] {
				a = nil
				break
			}
		}
	}
	if a == nil {
		c.misses.Add(1)
		return nil
	}
	c.hits.Add(1)
	return a
}

// put keeps a for key at version ver, unless the slot already holds a
// newer version's answers, is full, or a is too large.
func (c *answerCache) put(slot string, ver uint64, key string, a *answer) {
	if len(a.body) > maxCachedBody {
		return
	}
	n := a.size(key)
	sh := c.shard(slot)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	s := sh.slots[slot]
	switch {
	case s != nil && s.ver > ver:
		return
	case s != nil && s.ver < ver:
		sh.bytes -= s.bytes
		delete(sh.slots, slot)
		s = nil
	}
	if s == nil {
		s = &answerSlot{ver: ver, answers: map[string]*answer{}}
		sh.slots[slot] = s
	}
	if old, ok := s.answers[key]; ok {
		s.bytes -= old.size(key)
		sh.bytes -= old.size(key)
	} else if len(s.answers) >= answersPerSlot {
		return
	}
	s.answers[key] = a
	s.bytes += n
	sh.bytes += n
	// Past the shard's share, drop other slots, in the map's random order.
	for k, o := range sh.slots {
		if sh.bytes <= c.shardMax {
			break
		}
		if k == slot {
			continue
		}
		sh.bytes -= o.bytes
		delete(sh.slots, k)
	}
	if sh.bytes > c.shardMax {
		// This slot alone is over the share.
		sh.bytes -= s.bytes
		delete(sh.slots, slot)
	}
}

// depsOf lists the headers d says the action read, with their values in h.
func depsOf(d *twins.ReadDeps, h http.Header) [][2]string {
	names := d.Headers()
	if len(names) == 0 {
		return nil
	}
	out := make([][2]string, len(names))
	for i, n := range names {
		out[i] = [2]string{n, twins.HeaderIn(h, n)}
	}
	return out
}

// serveAnswer writes a kept answer as bindingHandler wrote it.
func serveAnswer(w http.ResponseWriter, r *http.Request, a *answer) {
	for _, h := range a.headers {
		w.Header().Set(h[0], h[1])
	}
	if a.status == http.StatusNoContent {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if a.etag != "" {
		w.Header().Set("ETag", a.etag)
		if inm := r.Header.Get("If-None-Match"); inm != "" && etagMatches(inm, a.etag) {
			w.WriteHeader(http.StatusNotModified)
			return
		}
	}
	writeRaw(w, a.status, a.body)
}
