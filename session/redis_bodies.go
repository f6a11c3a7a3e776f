package session

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"sync"
)

// Response bodies of reads, stored once per twin on Redis.
//
// A read's tape row carries the answer it got, and an agent (or a load
// test) that reads the same issue, channel or customer again gets the same
// bytes again: a get-issue row is about 3 KB, 2.4 KB of it the issue. On
// Redis each of those rows was stored afresh, whole. In a perf profile of
// redis-server under get-issue load, page faults on the fresh memory took
// 13% of its CPU and copying 23% (the faults included), and Lua, which
// hashes every byte of every string a script receives, 16%. So the row of
// a call that changed nothing stores its response body by reference when
// the body is large enough: the body goes, once, into a hash of the twin's
// bodies (field: the first 16 bytes of their SHA-256, in hex; value: the
// bytes), and the row holds the field's name and where the body goes back
// in. A tape read puts every body back in its place, so the rows read are
// byte for byte those encoded.
//
// The append script stores the body, if it was sent, in the same step as
// the row that refers to it, so no row ever refers to a body that is not
// there. The process remembers which bodies it saw and stored (bodyCache):
// a body's first row holds it whole, its second stores it, and the rows
// after send only the reference; if the process is wrong (the row that
// stored it fell past the tape's cap), the script answers needBody and
// stores nothing, and the append is sent again with the body.
//
// A stored row is one of three forms, told apart by its first byte:
//
//	{"seq":N,...}                 a whole row, as an early version stored it
//	"at":...                      the row after `{"seq":0,` (the seq is the list index)
//	#HASH:CUT:"at":...            the same with its response body left out:
//	                              HASH names it in the bodies hash (32 hex
//	                              digits), CUT (8 decimal digits) is where in
//	                              the rest it goes back

// minBodyRef is the least response body a row stores by reference: the
// reference costs the row 43 bytes, the body a field of the hash, and the
// process a SHA-256 of it and a look-up. For a Stripe customer (525
// bytes) that cost the server about what it spared Redis (pome-bench
// ceiling on Redis, alternated: 25.9-27.5 against 27.2-29.4 us of Redis
// CPU a read, 64.0-71.4 against 60.3-65.7 us of the server's).
const minBodyRef = 1024

// bodyRefHead is the length of a stored row's reference: "#", 32 hex
// digits, ":", 8 decimal digits, ":".
const bodyRefHead = 1 + 32 + 1 + 8 + 1

// needBody is what the append scripts answer when a row refers to a body
// the twin's bodies hash does not hold and the body was not sent.
const (
	needBody    = -4
	needBodyLua = "-4"
)

// bodyHash names a body in its twin's bodies hash.
func bodyHash(body []byte) string {
	sum := sha256.Sum256(body)
	return hex.EncodeToString(sum[:16])
}

// encodeBodyRef writes the reference into the first bodyRefHead bytes of
// row, which the rest of the stored row follows; cut is where in the rest
// the body goes back.
func encodeBodyRef(row []byte, hash string, cut int) error {
	if len(hash) != 32 || cut < 0 || cut > 99999999 || len(row) < bodyRefHead {
		return fmt.Errorf("tape row body reference: hash %q, cut %d", hash, cut)
	}
	row[0] = '#'
	copy(row[1:33], hash)
	row[33] = ':'
	digits := strconv.AppendInt(make([]byte, 0, 8), int64(cut), 10)
	for i := range 8 - len(digits) {
		row[34+i] = '0'
	}
	copy(row[34+8-len(digits):42], digits)
	row[42] = ':'
	return nil
}

// errBodyRef is a stored row whose reference cannot be read.
var errBodyRef = errors.New("tape row with a malformed body reference")

// decodeBodyRef splits a stored row of the third form into the body's
// hash, where it goes back, and the rest of the row.
func decodeBodyRef(stored string) (hash string, cut int, rest string, err error) {
	if len(stored) < bodyRefHead || stored[0] != '#' || stored[33] != ':' || stored[42] != ':' {
		return "", 0, "", errBodyRef
	}
	n, err := strconv.Atoi(stored[34:42])
	rest = stored[bodyRefHead:]
	if err != nil || n < 0 || n > len(rest) {
		return "", 0, "", errBodyRef
	}
	return stored[1:33], n, rest, nil
}

// bodyCache remembers, by sandbox (and its creation, since an id can be
// created again), twin and hash, the bodies this process saw in a row of
// a twin's tape and the ones it stored in Redis. A body seen once goes
// whole in its row: an answer no other call gets (a list after each
// write, a search) would otherwise cost its row the reference and Redis a
// field of the hash for nothing. Seen again, the body is stored, and from
// then on its rows go without it. It is only a hint: a body it calls
// stored that Redis lacks costs the append a second round trip, never a
// row; a body forgotten is stored again, once, with no harm (HSETNX).
type bodyCache struct {
	shards [shards]bodyShard
}

type bodyShard struct {
	mu   sync.Mutex
	seen map[bodyKey]bodyState
}

type bodyKey struct {
	sandbox string
	created int64
	twin    string
	hash    string
}

// bodyState is what the process knows of a body.
type bodyState uint8

const (
	bodyUnseen bodyState = iota // the zero value: not in the cache
	bodySeen                    // in one row, whole
	bodyStored                  // in the twin's bodies hash
)

// maxBodyKeys bounds what each shard remembers (about 100 bytes each);
// past it, a shard forgets an entry for each one it learns.
const maxBodyKeys = 4096

func (c *bodyCache) state(k bodyKey) bodyState {
	sh := &c.shards[shardOf(k.sandbox)]
	sh.mu.Lock()
	st := sh.seen[k]
	sh.mu.Unlock()
	return st
}

// set records what the process knows of k now (bodyUnseen forgets it).
func (c *bodyCache) set(k bodyKey, st bodyState) {
	sh := &c.shards[shardOf(k.sandbox)]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if st == bodyUnseen {
		delete(sh.seen, k)
		return
	}
	if sh.seen == nil {
		sh.seen = make(map[bodyKey]bodyState)
	}
	if _, ok := sh.seen[k]; !ok && len(sh.seen) >= maxBodyKeys {
		for old := range sh.seen {
			delete(sh.seen, old)
			break
		}
	}
	sh.seen[k] = st
}
