package session

import (
	"bytes"
	"encoding/binary"
	"sync"
)

// An idle sandbox in the memory store holds, for each twin, its seed
// document (kept for grading) and nothing else: the world is decoded from
// that document by the first call that needs it (memTwin.load), as the
// Redis store decodes every call's. And since the default worlds of one
// twin differ from one sandbox to the next only in a few timestamps and
// ids, a seed document is kept as the bytes where it differs from the
// first document of its length the store saw for its twin (seedDoc),
// which is shared.

// seedDoc is a seed document as the memory store keeps it.
type seedDoc struct {
	// ref is a document of the same length shared with other sandboxes,
	// and patch what differs from it (patchDoc); without ref, patch is the
	// document itself.
	ref   []byte
	patch []byte
}

// len is the document's length.
func (d seedDoc) len() int {
	if d.ref != nil {
		return len(d.ref)
	}
	return len(d.patch)
}

// bytes returns the document: shared when kept whole, so not to be
// modified (as a stored seed never was).
func (d seedDoc) bytes() []byte {
	if d.ref == nil {
		return d.patch
	}
	return applyPatch(d.ref, d.patch)
}

// docRefs holds, per twin, the reference documents seed documents are
// kept against: the first of each length, up to maxDocRefs per twin, so
// that custom seeds of every size cannot grow it.
type docRefs struct {
	mu   sync.Mutex
	refs map[string][][]byte
	// last is, per twin, the document kept last and how: creates in one
	// second are handed the same default document (defaultworld.go), which
	// is then kept as it was for the create before, without comparing it
	// again.
	last map[string]lastDoc
}

type lastDoc struct {
	src  *byte
	n    int
	kept seedDoc
}

const (
	maxDocRefs = 8
	// patchMerge: runs of differing bytes this close are patched as one
	// (a run costs two varints).
	patchMerge = 8
	// compareChunk: documents are compared this many bytes at a time
	// first, with the runtime's vectorised comparison.
	compareChunk = 64
)

// keep returns how the store keeps doc, a seed document of twin.
func (r *docRefs) keep(twin string, doc []byte) seedDoc {
	r.mu.Lock()
	if l, ok := r.last[twin]; ok && len(doc) > 0 && l.src == &doc[0] && l.n == len(doc) {
		r.mu.Unlock()
		return l.kept
	}
	kept := r.keepLocked(twin, doc)
	if len(doc) > 0 {
		r.mu.Lock()
		if r.last == nil {
			r.last = map[string]lastDoc{}
		}
		r.last[twin] = lastDoc{src: &doc[0], n: len(doc), kept: kept}
		r.mu.Unlock()
	}
	return kept
}

// keepLocked is keep for a document not kept just before; it is called
// with r.mu held and returns with it released.
func (r *docRefs) keepLocked(twin string, doc []byte) seedDoc {
	var ref []byte
	for _, d := range r.refs[twin] {
		if len(d) == len(doc) {
			ref = d
			break
		}
	}
	if ref == nil {
		whole := bytes.Clone(doc)
		if r.refs == nil {
			r.refs = map[string][][]byte{}
		}
		if len(r.refs[twin]) < maxDocRefs {
			r.refs[twin] = append(r.refs[twin], whole)
			r.mu.Unlock()
			return seedDoc{ref: whole}
		}
		r.mu.Unlock()
		return seedDoc{patch: whole}
	}
	r.mu.Unlock()
	// Reference documents never change: the patch is made outside the
	// lock.
	if p, ok := makePatch(ref, doc); ok {
		return seedDoc{ref: ref, patch: p}
	}
	return seedDoc{patch: bytes.Clone(doc)}
}

// makePatch returns the runs where doc differs from ref, a document of the
// same length, as (uvarint gap from the end of the run before, uvarint
// length, the bytes) each; false when that would not be smaller than half
// the document.
func makePatch(ref, doc []byte) ([]byte, bool) {
	var p []byte
	last := 0 // end of the run before
	limit := len(doc) / 2
	for i := 0; i < len(doc); {
		// Skip equal chunks fast, large then small, then find the first
		// differing byte.
		if j := i + 8*compareChunk; j <= len(doc) && bytes.Equal(ref[i:j], doc[i:j]) {
			i = j
			continue
		}
		if j := i + compareChunk; j <= len(doc) && bytes.Equal(ref[i:j], doc[i:j]) {
			i = j
			continue
		}
		if ref[i] == doc[i] {
			i++
			continue
		}
		// A run: up to patchMerge equal bytes in a row end it.
		start, end := i, i+1
		for k := end; k < len(doc) && k-end < patchMerge; k++ {
			if ref[k] != doc[k] {
				end = k + 1
			}
		}
		p = binary.AppendUvarint(p, uint64(start-last))
		p = binary.AppendUvarint(p, uint64(end-start))
		p = append(p, doc[start:end]...)
		if len(p) > limit {
			return nil, false
		}
		last, i = end, end
	}
	// Exact size: the patch is kept as long as its sandbox.
	return append(make([]byte, 0, len(p)), p...), true
}

// applyPatch returns ref with patch applied.
func applyPatch(ref, patch []byte) []byte {
	out := bytes.Clone(ref)
	at := 0
	for len(patch) > 0 {
		gap, k := binary.Uvarint(patch)
		patch = patch[k:]
		n, k := binary.Uvarint(patch)
		patch = patch[k:]
		at += int(gap)
		at += copy(out[at:], patch[:n])
		patch = patch[n:]
	}
	return out
}
