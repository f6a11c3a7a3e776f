// Package lz compresses by matching only (LZ77, no entropy coding): what
// Pome keeps compressed repeats itself — a tape's rows repeat each other,
// a Stripe event's snapshot repeats the keys and nulls of every object of
// its type — so most of it is copies of what came before, and DEFLATE's
// Huffman coding on top, at its fastest level, cost more CPU than the
// matching (7% of a comment's CPU at the ceiling, most of it building a
// block's Huffman codes) to save a fraction of bytes that were few
// already.
//
// Compress suits blocks of kilobytes and more (a tape block); a Dict
// compresses small values, a few hundred bytes each, against a fixed
// dictionary of what such values hold, since a value that small has little
// to repeat of its own.
package lz

import (
	"encoding/binary"
	"errors"
	"math/bits"
)

//
// A block is a run of sequences. Each starts with a token byte: the
// number of literals in its high four bits and the length of the copy
// after them, less minMatch, in its low four; 15 in either says a
// uvarint follows to add to it (the literals' right after the token, the
// copy's after the copy's offset). Then the literals, then the copy's
// offset back from the end of what was decoded (uvarint, at least 1; a
// copy may overlap what it copies, as a run does). The last sequence has
// literals only (maybe none) and ends the block.

const (
	minMatch = 4
	hashLog  = 14
)

// Table maps a hash of four bytes to the position after the last place
// they were seen (0: not seen). It is cleared for every block.
type Table [1 << hashLog]int32

func hash(u uint32) uint32 { return (u * 2654435761) >> (32 - hashLog) }

// Compress appends src compressed to dst. src must be under 2 GiB.
func Compress(dst, src []byte, t *Table) []byte {
	clear(t[:])
	lit, i := 0, 0
	// The last bytes are left to the literals, so that the four-byte and
	// eight-byte loads never pass the end.
	limit := len(src) - 12
	// skip grows while no match is found, so that bytes that do not
	// repeat (a random id, compressed text) are stepped over faster.
	skip := 32
	for i < limit {
		u := binary.LittleEndian.Uint32(src[i:])
		h := hash(u)
		cand := int(t[h]) - 1
		t[h] = int32(i + 1)
		if cand < 0 || binary.LittleEndian.Uint32(src[cand:]) != u {
			i += skip >> 5
			skip++
			continue
		}
		skip = 32
		// The match runs on past its four bytes, eight at a time.
		m, c := i+minMatch, cand+minMatch
		for m+8 <= len(src) {
			if x := binary.LittleEndian.Uint64(src[m:]) ^ binary.LittleEndian.Uint64(src[c:]); x != 0 {
				m += bits.TrailingZeros64(x) / 8
				c = -1
				break
			}
			m, c = m+8, c+8
		}
		if c >= 0 {
			for m < len(src) && src[m] == src[c] {
				m, c = m+1, c+1
			}
		}
		// And back over the literals before it.
		for i > lit && cand > 0 && src[i-1] == src[cand-1] {
			i, cand = i-1, cand-1
		}
		dst = sequence(dst, src[lit:i], i-cand, m-i)
		// The copy's last positions are remembered, so that the rows
		// after it find it from its end too.
		if m-2 > i && m-2 < limit {
			t[hash(binary.LittleEndian.Uint32(src[m-2:]))] = int32(m - 2 + 1)
		}
		i, lit = m, m
	}
	return sequence(dst, src[lit:], 0, 0)
}

// sequence appends one sequence: literals, then a copy of n bytes from
// off back (n 0: the last sequence, literals only).
func sequence(dst, literals []byte, off, n int) []byte {
	tok := byte(min(len(literals), 15)) << 4
	if n > 0 {
		tok |= byte(min(n-minMatch, 15))
	}
	dst = append(dst, tok)
	if len(literals) >= 15 {
		dst = binary.AppendUvarint(dst, uint64(len(literals)-15))
	}
	dst = append(dst, literals...)
	if n == 0 {
		return dst
	}
	dst = binary.AppendUvarint(dst, uint64(off))
	if n-minMatch >= 15 {
		dst = binary.AppendUvarint(dst, uint64(n-minMatch-15))
	}
	return dst
}

// ErrCorrupt: the bytes given to decompress are not what Compress (or
// the Dict's Compress) made of the length given.
var ErrCorrupt = errors.New("corrupt compressed block")

// Decompress decodes src, a block Compress made of raw bytes, into a new
// slice of exactly raw bytes. Anything else, src truncated, padded or not
// a block at all, is an error, and never reads or writes out of bounds.
func Decompress(src []byte, raw int) ([]byte, error) {
	return decode(make([]byte, 0, raw), nil, src, raw)
}

// decode appends src, raw bytes compressed against dict (nil: none), to
// dst. A copy's offset reaches back over what src decoded to and then
// over dict, as though dict came right before it.
func decode(dst, dict, src []byte, raw int) ([]byte, error) {
	base := len(dst)
	out := dst
	// length reads a length's extension: at most what is left to decode.
	length := func(b int) (int, bool) {
		if b < 15 {
			return b, true
		}
		v, k := binary.Uvarint(src)
		if k <= 0 || v > uint64(raw-(len(out)-base)) {
			return 0, false
		}
		src = src[k:]
		return b + int(v), true
	}
	for len(src) > 0 {
		tok := src[0]
		src = src[1:]
		lit, ok := length(int(tok >> 4))
		if !ok || lit > len(src) || lit > raw-(len(out)-base) {
			return nil, ErrCorrupt
		}
		out = append(out, src[:lit]...)
		src = src[lit:]
		if len(src) == 0 {
			if len(out)-base != raw || tok&15 != 0 {
				return nil, ErrCorrupt
			}
			return out, nil
		}
		off, k := binary.Uvarint(src)
		// from is where the copy starts, counted from dict's start.
		done := len(out) - base
		if k <= 0 || off == 0 || off > uint64(len(dict)+done) {
			return nil, ErrCorrupt
		}
		src = src[k:]
		n, ok := length(int(tok & 15))
		if !ok {
			return nil, ErrCorrupt
		}
		n += minMatch
		if n > raw-done {
			return nil, ErrCorrupt
		}
		from := len(dict) + done - int(off)
		// A copy that overlaps what it writes (a run) appends what lies
		// between from and the end again and again, each time twice as
		// much, until n bytes are copied.
		for n > 0 {
			if from < len(dict) {
				k := min(n, len(dict)-from)
				out = append(out, dict[from:from+k]...)
				from, n = from+k, n-k
				continue
			}
			at := base + from - len(dict)
			k := min(n, len(out)-at)
			out = append(out, out[at:at+k]...)
			from, n = from+k, n-k
		}
	}
	return nil, ErrCorrupt
}
