package session

import (
	"encoding/binary"
	"errors"
	"math/bits"
)

// A tape block's rows are compressed by matching only (LZ77, no entropy
// coding): a tape's rows repeat each other, so most of a block is copies
// of what came before, and DEFLATE's Huffman coding on top, at its
// fastest level, cost more CPU than the matching (7% of a comment's CPU
// at the ceiling, most of it building a block's Huffman codes) to save a
// fraction of bytes that were few already.
//
// A block is a run of sequences. Each starts with a token byte: the
// number of literals in its high four bits and the length of the copy
// after them, less lzMinMatch, in its low four; 15 in either says a
// uvarint follows to add to it (the literals' right after the token, the
// copy's after the copy's offset). Then the literals, then the copy's
// offset back from the end of what was decoded (uvarint, at least 1; a
// copy may overlap what it copies, as a run does). The last sequence has
// literals only (maybe none) and ends the block.

const (
	lzMinMatch = 4
	lzHashLog  = 14
)

// lzTable maps a hash of four bytes to the position after the last place
// they were seen (0: not seen). It is cleared for every block.
type lzTable [1 << lzHashLog]int32

func lzHash(u uint32) uint32 { return (u * 2654435761) >> (32 - lzHashLog) }

// lzCompress appends src compressed to dst. src must be under 2 GiB.
func lzCompress(dst, src []byte, t *lzTable) []byte {
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
		h := lzHash(u)
		cand := int(t[h]) - 1
		t[h] = int32(i + 1)
		if cand < 0 || binary.LittleEndian.Uint32(src[cand:]) != u {
			i += skip >> 5
			skip++
			continue
		}
		skip = 32
		// The match runs on past its four bytes, eight at a time.
		m, c := i+lzMinMatch, cand+lzMinMatch
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
		dst = lzSequence(dst, src[lit:i], i-cand, m-i)
		// The copy's last positions are remembered, so that the rows
		// after it find it from its end too.
		if m-2 > i && m-2 < limit {
			t[lzHash(binary.LittleEndian.Uint32(src[m-2:]))] = int32(m - 2 + 1)
		}
		i, lit = m, m
	}
	return lzSequence(dst, src[lit:], 0, 0)
}

// lzSequence appends one sequence: literals, then a copy of n bytes from
// off back (n 0: the last sequence, literals only).
func lzSequence(dst, literals []byte, off, n int) []byte {
	tok := byte(min(len(literals), 15)) << 4
	if n > 0 {
		tok |= byte(min(n-lzMinMatch, 15))
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
	if n-lzMinMatch >= 15 {
		dst = binary.AppendUvarint(dst, uint64(n-lzMinMatch-15))
	}
	return dst
}

var errLZCorrupt = errors.New("corrupt compressed block")

// lzDecompress decodes src, a block lzCompress made of raw bytes, into a
// new slice of exactly raw bytes. Anything else, src truncated, padded or
// not a block at all, is an error, and never reads or writes out of
// bounds.
func lzDecompress(src []byte, raw int) ([]byte, error) {
	out := make([]byte, 0, raw)
	// length reads a length's extension: at most what is left to decode.
	length := func(base int) (int, bool) {
		if base < 15 {
			return base, true
		}
		v, k := binary.Uvarint(src)
		if k <= 0 || v > uint64(raw-len(out)) {
			return 0, false
		}
		src = src[k:]
		return base + int(v), true
	}
	for len(src) > 0 {
		tok := src[0]
		src = src[1:]
		lit, ok := length(int(tok >> 4))
		if !ok || lit > len(src) || lit > raw-len(out) {
			return nil, errLZCorrupt
		}
		out = append(out, src[:lit]...)
		src = src[lit:]
		if len(src) == 0 {
			if len(out) != raw || tok&15 != 0 {
				return nil, errLZCorrupt
			}
			return out, nil
		}
		off, k := binary.Uvarint(src)
		if k <= 0 || off == 0 || off > uint64(len(out)) {
			return nil, errLZCorrupt
		}
		src = src[k:]
		n, ok := length(int(tok & 15))
		if !ok {
			return nil, errLZCorrupt
		}
		n += lzMinMatch
		if n > raw-len(out) {
			return nil, errLZCorrupt
		}
		from := len(out) - int(off)
		if int(off) >= n {
			out = append(out, out[from:from+n]...)
			continue
		}
		// The copy overlaps what it writes (a run): what lies between
		// from and the end is appended again and again, each time twice
		// as much, until n bytes are copied.
		for n > 0 {
			k := min(n, len(out)-from)
			out = append(out, out[from:from+k]...)
			n -= k
		}
	}
	return nil, errLZCorrupt
}
