package lz

import (
	"encoding/binary"
	"math/bits"
)

// A Dict compresses small values against a fixed dictionary: its copies
// reach back over the value and then into the dictionary, as though the
// dictionary came right before the value, so a value that repeats the
// dictionary's keys and punctuation is left mostly copies of it. A Dict
// is immutable once made and safe for concurrent use; what it compresses
// can only be read back with the same dictionary.
//
// It matches every position (no skipping over bytes that do not repeat,
// as Compress does for large blocks) and keeps the longer of the match in
// the value and the match in the dictionary.
type Dict struct {
	data []byte
	// table maps a hash of four bytes to the position after the last
	// place in data they were seen (0: not seen).
	table *[1 << dictHashLog]int32
}

const (
	// dictHashLog sizes the dictionary's table, built once.
	dictHashLog = 14
	// valueHashLog sizes the table of a value's own positions, cleared
	// for every value: 4 KiB.
	valueHashLog = 10
)

// MaxDict is the longest dictionary NewDict takes.
const MaxDict = 1 << 20

func dictHash(u uint32) uint32  { return (u * 2654435761) >> (32 - dictHashLog) }
func valueHash(u uint32) uint32 { return (u * 2654435761) >> (32 - valueHashLog) }

// NewDict makes a Dict of data, which it keeps (the caller must not
// change it). It panics if data is longer than MaxDict.
func NewDict(data []byte) *Dict {
	if len(data) > MaxDict {
		panic("lz: dictionary too long")
	}
	d := &Dict{data: data, table: new([1 << dictHashLog]int32)}
	for i := 0; i+minMatch <= len(data); i++ {
		d.table[dictHash(binary.LittleEndian.Uint32(data[i:]))] = int32(i + 1)
	}
	return d
}

// Compress appends src compressed against d to dst. src must be under
// 1 GiB.
func (d *Dict) Compress(dst, src []byte) []byte {
	var local [1 << valueHashLog]int32
	dl := len(d.data)
	lit, i := 0, 0
	limit := len(src) - minMatch
	for i <= limit {
		u := binary.LittleEndian.Uint32(src[i:])
		h := valueHash(u)
		// best is the longer match: its start, counted from the
		// dictionary's start (a value's position p is dl+p), and length.
		best, n := 0, 0
		if c := int(local[h]) - 1; c >= 0 && binary.LittleEndian.Uint32(src[c:]) == u {
			best, n = dl+c, minMatch+common(src[c+minMatch:], src[i+minMatch:])
		}
		local[h] = int32(i + 1)
		if c := int(d.table[dictHash(u)]) - 1; c >= 0 && binary.LittleEndian.Uint32(d.data[c:]) == u {
			m := minMatch + common(d.data[c+minMatch:], src[i+minMatch:])
			if c+m == dl {
				// The match ran to the dictionary's end: it may run on
				// into the value's start.
				m += common(src, src[i+m:])
			}
			if m > n {
				best, n = c, m
			}
		}
		if n == 0 {
			i++
			continue
		}
		// Back over the literals before it.
		for i > lit && best > 0 && d.at(src, best-1) == src[i-1] {
			i, best, n = i-1, best-1, n+1
		}
		dst = sequence(dst, src[lit:i], dl+i-best, n)
		// Every position the copy covers is remembered, so that what
		// follows finds this value's repeats from anywhere in it.
		for j := i + 1; j < i+n && j <= limit; j++ {
			local[valueHash(binary.LittleEndian.Uint32(src[j:]))] = int32(j + 1)
		}
		i += n
		lit = i
	}
	return sequence(dst, src[lit:], 0, 0)
}

// at is the byte at p, counted from the dictionary's start, with src
// after the dictionary.
func (d *Dict) at(src []byte, p int) byte {
	if p < len(d.data) {
		return d.data[p]
	}
	return src[p-len(d.data)]
}

// Decompress appends to dst the raw bytes src holds, as d's Compress made
// it. Anything else, src truncated, padded, compressed against another
// dictionary's length or not compressed at all, is an error (an error,
// not wrong bytes, where the lengths give it away), and never reads or
// writes out of bounds.
func (d *Dict) Decompress(dst, src []byte, raw int) ([]byte, error) {
	return decode(dst, d.data, src, raw)
}

// common is the length of a's and b's common start.
func common(a, b []byte) int {
	n := 0
	for n+8 <= len(a) && n+8 <= len(b) {
		if x := binary.LittleEndian.Uint64(a[n:]) ^ binary.LittleEndian.Uint64(b[n:]); x != 0 {
			return n + bits.TrailingZeros64(x)/8
		}
		n += 8
	}
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}
