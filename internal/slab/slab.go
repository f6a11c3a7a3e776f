// Package slab hands out the values a world gathers (Stripe's customers
// and events, …) from blocks of many, instead of one heap object each.
//
// Why: the collector marks every object a live pointer reaches, one span
// lookup and, often, one cache miss each. A Stripe world of 200,000
// customers was 11 heap objects a customer (the customer, its event, their
// strings; BenchmarkCustomerHeap); with the customers and events in blocks
// and their strings in chunks, fewer than one, and a full collection of
// that heap took 53-61 ms instead of 67-81 (BenchmarkCollectCustomers). What is left is mostly reading the
// objects' words: the collector reads every word of a value that may hold
// pointers, in a block as anywhere else, so blocks save the objects, not
// the bytes (a value without pointers saves both).
//
// A value handed out stays where it is for good: a block is never moved
// or reused, only replaced by a new one once full. A pointer to any value
// of a block keeps the whole block alive, so a slab suits values that live
// as long as their world (Stripe's collections only grow: a deleted
// customer stays, marked deleted). A value dropped early keeps its block's
// memory until every value of the block is dropped too.
//
// Blocks start small and double (1, 2, 4, … values, up to 8 KiB of them),
// so a world of three customers holds three customers' memory, not a
// block's.
//
// Copies of a Slab that has handed out a value share its block: they take
// values one after the other, never the same one twice (a world copied by
// value for a read, or for a write that may yet be refused, can take a
// value from either). A Slab is not safe for concurrent use: take values
// under the owner's write lock. The values may be read and written like
// any other, from any goroutine the owner's locking allows.
package slab

import "unsafe"

// BlockBytes is the most memory one block holds (or one value, when a
// value alone is larger).
const BlockBytes = 8 << 10

// Slab hands out values of type T. The zero Slab is ready to use.
type Slab[T any] struct{ st *state[T] }

type state[T any] struct {
	block []T
}

// New returns a pointer to a new zero T in the slab's current block,
// starting a block twice as large as the last (up to BlockBytes) when the
// current one is full.
func (s *Slab[T]) New() *T {
	if s.st == nil {
		s.st = &state[T]{}
	}
	st := s.st
	if len(st.block) == cap(st.block) {
		st.block = make([]T, 0, nextCap[T](cap(st.block)))
	}
	st.block = st.block[:len(st.block)+1]
	return &st.block[len(st.block)-1]
}

// nextCap is the length of the block after one of last values.
func nextCap[T any](last int) int {
	most := BlockBytes / max(int(unsafe.Sizeof(*new(T))), 1)
	return max(min(2*last, most), 1)
}
