// Package strchunk keeps many short strings in a few large chunks of
// memory, for the text a world gathers as it grows (Slack's message texts,
// Stripe's ids; GitHub's comments keep their texts in chunks of their own,
// see github.CommentList).
//
// Why: the collector marks every object a live pointer reaches, and a
// string allocated on its own is an object of its own, somewhere in the
// heap. A world of 300,000 comments held 300,000 body strings, and marking
// them (one cache miss each, looking up their span) was most of a
// collection's work; kept in chunks of 8 KiB, the same strings are a few
// thousand objects, most of whose pointers land in a span the collector
// has just looked at.
//
// A string kept here shares its chunk with the strings kept after it, so
// one of them still referenced keeps the whole chunk alive. The store
// counts the bytes of the strings its owner gives up (Free); once they are
// more than half of what it holds, Compact starts it afresh and has the
// owner keep its live strings again in new chunks, leaving the old chunks
// to the collector. What a store's chunks hold stays under
// about twice its live strings' bytes and a chunk.
//
// A Store is not safe for concurrent use: keep its strings under the
// owner's write lock. The strings it returns are ordinary immutable strings
// and may be read anywhere, at any time, also after Reset.
package strchunk

import "unsafe"

const (
	// ChunkSize is the size of a chunk.
	ChunkSize = 8 << 10
	// MaxLen is the longest string kept in a chunk; longer ones, and empty
	// ones, are returned as they are.
	MaxLen = 1 << 10
)

// Store keeps strings in chunks. The zero Store is ready to use. Copies of
// a Store that has kept a string share its chunks and its counts: they
// append one after the other, never over each other (a world copied by
// value for a read, or for a write that may yet be refused, can keep a
// string in either). They must still be used under one lock.
type Store struct{ st *state }

type state struct {
	chunk []byte
	held  int // bytes kept since the store began or was last Reset
	freed int // bytes Free has been told of since then
}

// Keep returns a string equal to v, kept in one of the store's chunks when
// v is short enough (1 to MaxLen bytes), else v itself.
func (s *Store) Keep(v string) string {
	if len(v) == 0 || len(v) > MaxLen {
		return v
	}
	if s.st == nil {
		s.st = &state{}
	}
	st := s.st
	if len(st.chunk)+len(v) > cap(st.chunk) {
		st.chunk = make([]byte, 0, ChunkSize)
	}
	at := len(st.chunk)
	st.chunk = append(st.chunk, v...)
	st.held += len(v)
	// The bytes from at on are never written again: Keep only appends (to
	// the one chunk every copy of the store shares), and a new chunk
	// replaces a full one.
	return unsafe.String(&st.chunk[at], len(v))
}

// KeepBytes is Keep for bytes: a slice equal to v, kept in one of the
// store's chunks when v is short enough (1 to MaxLen bytes), else v itself.
// The slice's capacity is its length, so an append to it copies; its bytes
// are a chunk's and must never be written to (as a kept string's cannot).
func (s *Store) KeepBytes(v []byte) []byte {
	if len(v) == 0 || len(v) > MaxLen {
		return v
	}
	k := s.Keep(unsafe.String(&v[0], len(v)))
	return unsafe.Slice(unsafe.StringData(k), len(k))
}

// Free records that the owner no longer references v, a string it may
// have kept here (one it did not is counted too: the next Compact then
// keeps the owner's strings here, after which the count is exact).
func (s *Store) Free(v string) {
	if len(v) > 0 && len(v) <= MaxLen {
		if s.st == nil {
			s.st = &state{}
		}
		s.st.freed += len(v)
	}
}

// Replace frees old and keeps v in its place: an owner's string that
// changes (an edited comment or message).
func (s *Store) Replace(old, v string) string {
	s.Free(old)
	return s.Keep(v)
}

// Compact, once the strings given up are more than half of what the store
// holds (and more than a chunk), starts the store afresh and calls rekeep,
// which must Keep again every string of the owner's that it still uses
// (those it does not stay valid, in chunks left to the collector). The
// owner calls it after freeing.
func (s *Store) Compact(rekeep func()) {
	if s.wasteful() {
		s.reset()
		rekeep()
	}
}

// wasteful reports whether Compact would start the store afresh.
func (s *Store) wasteful() bool {
	return s.st != nil && s.st.freed > ChunkSize && 2*s.st.freed > s.st.held
}

// Held reports the bytes of the strings kept since the store began or was
// last Reset, those freed since included: what its chunks hold, but for
// their unused ends.
func (s *Store) Held() int {
	if s.st == nil {
		return 0
	}
	return s.st.held
}

// reset starts the store (and its copies) afresh, with no chunk: the
// strings it returned stay valid, and their chunks are left to the
// collector once nothing refers to them.
func (s *Store) reset() {
	if s.st != nil {
		*s.st = state{}
	}
}
