package session

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"sort"
	"sync"

	"github.com/pomehq/pome/internal/lz"
)

// memRows holds one twin's tape in the memory store: its oldest rows
// sealed in compressed blocks, its newest ones as they were encoded.
//
// Rows of one tape are nearly alike (the same twin, session, paths and
// mostly the same bodies: a get-issue row differs from the one before in
// its seq, time and latency), so a block of them compresses some thirty
// times over. Kept one allocation per row they were most of what a busy
// server held. A block is sealed once its rows add up to about sealBytes
// (sealLimit), by the call that completes it and outside the tape's lock;
// until then the rows stay readable where they are. Reads decompress the
// blocks they need; a row is read back byte for byte as it was appended.
//
// Every field is guarded by the twin's tapeMu.
type memRows struct {
	// blocks are the sealed rows, in order: block i holds positions
	// blocks[i].first up to blocks[i+1].first.
	blocks []tapeBlock
	// sealed counts the rows in blocks; open holds the positions after,
	// the zero openRow for one reserved and not yet written (reserveTape).
	sealed int
	open   []openRow
	// sealing is set while a block is being compressed.
	sealing bool
	// limit is the size the next block is sealed at (0: not drawn yet;
	// see sealLimit).
	limit int
	// counted open rows, all written, add up to countedSize bytes: toSeal
	// goes on from there rather than summing the open rows again at every
	// append (up to sealRows of them).
	counted, countedSize int
}

// openRow is a row not yet sealed: its encoding is enc[:cut], then body,
// then enc[cut:]. body is the call's response body as the answer was sent
// (tape.Row.AppendJSONSplit), kept shared rather than copied: a read served
// from the answer cache sends the same bytes every time. Neither part
// changes once written. body is nil when the row is all in enc.
type openRow struct {
	enc  []byte
	body []byte
	cut  int
}

// written tells a written row from a reserved position.
func (o openRow) written() bool { return o.enc != nil }

func (o openRow) size() int { return len(o.enc) + len(o.body) }

// appendTo appends the row's encoding to b.
func (o openRow) appendTo(b []byte) []byte {
	return append(append(append(b, o.enc[:o.cut]...), o.body...), o.enc[o.cut:]...)
}

// bytes is the row's encoding: enc itself, or a copy joining the parts.
func (o openRow) bytes() []byte {
	if o.body == nil {
		return o.enc
	}
	return o.appendTo(make([]byte, 0, o.size()))
}

// tapeBlock is a run of rows, laid end to end as sealBlock says and
// compressed by matching (lz.Compress).
type tapeBlock struct {
	first int
	n     int
	// raw is the length of the block decompressed.
	raw  int
	data []byte
}

const (
	// sealBytes: open rows are sealed in a block once the first of them
	// add up to this many bytes (a larger block mostly spreads its first
	// row's cost thinner, and a read of one row decompresses more).
	sealBytes = 64 << 10
	// sealRows caps the rows of a block, so that a tape of tiny rows
	// still gets sealed and a read of one row decompresses few others.
	sealRows = 512
)

// sealLimit draws the bytes at which the next block of a tape is sealed:
// sealBytes on average, anywhere from half of it to half as much again.
// Sandboxes that take the same calls at the same pace (a load test going
// round its sandboxes, say) would otherwise all fill their blocks at the
// same moment: 100 sandboxes taking 10,000 reads a second sealed a block
// each within the same few milliseconds, at the pace their tapes filled
// blocks, and the calls that fell due then waited behind the compression.
// Each block drawing its own size spreads the seals out within a block or
// two. sealRows is scaled alike, for tapes of tiny rows.
func sealLimit() int { return sealBytes/2 + rand.IntN(sealBytes) }

// len is the number of positions the tape has, written or reserved.
func (r *memRows) len() int { return r.sealed + len(r.open) }

// add appends a row, the zero openRow to reserve its position; it returns
// the position.
func (r *memRows) add(row openRow) int {
	r.open = append(r.open, row)
	return r.len() - 1
}

// set writes the row of a reserved position. A block never seals an
// unwritten position, so it is still open.
func (r *memRows) set(at int, row openRow) { r.open[at-r.sealed] = row }

// toSeal returns the open rows a block can be sealed from now, or nil:
// only written rows, and only once there are enough of them. The caller
// then compresses them outside the lock and hands the block to
// sealDone; meanwhile sealing keeps another call from sealing them too.
func (r *memRows) toSeal() []openRow {
	if r.sealing {
		return nil
	}
	if r.limit == 0 {
		r.limit = sealLimit()
	}
	rows := r.limit * sealRows / sealBytes
	for r.countedSize < r.limit && r.counted < rows {
		if r.counted == len(r.open) || !r.open[r.counted].written() {
			return nil
		}
		r.countedSize += r.open[r.counted].size()
		r.counted++
	}
	r.sealing = true
	// Written rows never change, and while sealing is set nothing but
	// sealDone moves or clears them: the caller may read them in place
	// outside the lock (an append that grows open leaves this array as it
	// is).
	return r.open[:r.counted:r.counted]
}

// sealDone puts the block of the rows toSeal returned in their place (or,
// with data nil, gives up sealing them: they stay open).
func (r *memRows) sealDone(n, raw int, data []byte) {
	r.sealing = false
	if data == nil {
		return
	}
	r.limit, r.counted, r.countedSize = 0, 0, 0
	r.blocks = append(r.blocks, tapeBlock{first: r.sealed, n: n, raw: raw, data: data})
	// The open rows move up; the array they were in drops its references
	// so that the sealed rows can be collected.
	clear(r.open[:n])
	r.open = r.open[n:]
	r.sealed += n
}

// view is what a read needs of positions [from, to): the blocks that
// hold the sealed ones and the open ones themselves, all immutable, so
// that the read can decode them outside the lock.
type rowsView struct {
	from, to int
	blocks   []tapeBlock
	open     []openRow
}

// view returns the positions [from, to) (to ≤ len); every open one in it
// must be written.
func (r *memRows) view(from, to int) rowsView {
	v := rowsView{from: from, to: to}
	if from < r.sealed {
		// The first block holding from.
		i := sort.Search(len(r.blocks), func(i int) bool { return r.blocks[i].first+r.blocks[i].n > from })
		for ; i < len(r.blocks) && r.blocks[i].first < to; i++ {
			v.blocks = append(v.blocks, r.blocks[i])
		}
	}
	if to > r.sealed {
		v.open = append([]openRow(nil), r.open[max(from-r.sealed, 0):to-r.sealed]...)
	}
	return v
}

// rows decodes the view: each row a slice of its own or of its block's
// decompressed bytes.
func (v rowsView) rows() ([][]byte, error) {
	out := make([][]byte, 0, v.to-v.from)
	for _, b := range v.blocks {
		rows, err := b.rows()
		if err != nil {
			return nil, err
		}
		lo, hi := max(v.from-b.first, 0), min(v.to-b.first, b.n)
		out = append(out, rows[lo:hi]...)
	}
	for _, o := range v.open {
		out = append(out, o.bytes())
	}
	return out, nil
}

// sealBlock compresses rows into a block's data; raw is its length
// decompressed.
//
// Laid end to end before compression, each row is its encoding without the
// response body (uvarint length, bytes), where the body goes (uvarint),
// then the body: none (0), its own bytes (1, uvarint length, bytes), or the
// body of the row before (2). Rows of a read served again and again share
// one body, which then goes through the compressor once a block instead of
// once a row: compression was the largest cost of taping such a read.
func sealBlock(rows []openRow) (data []byte, raw int) {
	// The rows laid end to end, and the compressed block, are scratch:
	// the block keeps an exact copy.
	sc := sealScratch.Get().(*sealBufs)
	defer sealScratch.Put(sc)
	src := sc.src[:0]
	var last []byte
	for _, row := range rows {
		src = binary.AppendUvarint(src, uint64(len(row.enc)))
		src = append(src, row.enc...)
		src = binary.AppendUvarint(src, uint64(row.cut))
		switch {
		case row.body == nil:
			src = append(src, bodyNone)
		case len(row.body) == len(last) && (&row.body[0] == &last[0] || bytes.Equal(row.body, last)):
			src = append(src, bodyAsBefore)
		default:
			src = append(src, bodyOwn)
			src = binary.AppendUvarint(src, uint64(len(row.body)))
			src = append(src, row.body...)
			last = row.body
		}
	}
	out := lz.Compress(sc.out[:0], src, &sc.table)
	data = bytes.Clone(out)
	raw = len(src)
	if cap(src) <= maxSealScratch && cap(out) <= maxSealScratch {
		sc.src, sc.out = src, out
	} else {
		// A block of unusually large rows: its buffers are not kept.
		sc.src, sc.out = nil, nil
	}
	return data, raw
}

// errCorruptBlock: a block's rows could not be read back.
type errCorruptBlock struct{ first int }

func (e errCorruptBlock) Error() string {
	return fmt.Sprintf("tape block at row %d: corrupt", e.first+1)
}

// How a sealed row's response body is laid out (sealBlock).
const (
	bodyNone     = 0
	bodyOwn      = 1
	bodyAsBefore = 2
)

// sealBufs are one sealBlock's scratch buffers, kept between blocks.
type sealBufs struct {
	src, out []byte
	table    lz.Table
}

var sealScratch = sync.Pool{New: func() any { return new(sealBufs) }}

// maxSealScratch bounds the buffers kept for the next block.
const maxSealScratch = 1 << 20

// rows decompresses the block: each row joined whole again, in one buffer
// the rows are slices of.
func (b tapeBlock) rows() ([][]byte, error) {
	src, err := lz.Decompress(b.data, b.raw)
	if err != nil {
		return nil, fmt.Errorf("tape block at row %d: %w", b.first+1, err)
	}
	corrupt := errCorruptBlock{first: b.first}
	next := func() ([]byte, bool) {
		n, k := binary.Uvarint(src)
		if k <= 0 || uint64(len(src)-k) < n {
			return nil, false
		}
		part := src[k : k+int(n)]
		src = src[k+int(n):]
		return part, true
	}
	laid := make([]openRow, 0, b.n)
	size := 0
	var last []byte
	for len(src) > 0 {
		enc, ok := next()
		if !ok {
			return nil, corrupt
		}
		cut, k := binary.Uvarint(src)
		if k <= 0 || cut > uint64(len(enc)) || len(src) == k {
			return nil, corrupt
		}
		tag := src[k]
		src = src[k+1:]
		row := openRow{enc: enc, cut: int(cut)}
		switch tag {
		case bodyNone:
		case bodyOwn:
			if row.body, ok = next(); !ok {
				return nil, corrupt
			}
			last = row.body
		case bodyAsBefore:
			if last == nil {
				return nil, corrupt
			}
			row.body = last
		default:
			return nil, corrupt
		}
		laid = append(laid, row)
		size += row.size()
	}
	if len(laid) != b.n {
		return nil, fmt.Errorf("tape block at row %d: %d rows, want %d", b.first+1, len(laid), b.n)
	}
	all := make([]byte, 0, size)
	rows := make([][]byte, len(laid))
	for i, row := range laid {
		at := len(all)
		all = row.appendTo(all)
		rows[i] = all[at:len(all):len(all)]
	}
	return rows, nil
}
