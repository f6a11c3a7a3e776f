package twins

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
)

// Change ops.
const (
	OpAdded   = "added"
	OpRemoved = "removed"
	OpChanged = "changed"
)

// maxChanges bounds a diff so that a pathological state (say, a twin that
// rewrote every element of a huge list) cannot produce an answer a browser
// or a tape row cannot hold.
const maxChanges = 2000

// Change is one difference between two state documents of a twin: a seed
// and the current state (the dashboard), or the state before and after one
// call (a tape row's state_delta).
type Change struct {
	Op string `json:"op"`
	// Path is a JSON pointer into the current document, or into the seed
	// for a removal — the same pointers checks put in evidence.state_paths.
	Path   string          `json:"path"`
	Before json.RawMessage `json:"before,omitempty"`
	After  json.RawMessage `json:"after,omitempty"`
}

// identityKeys are the fields, in order of preference, that name an
// element of a list in the twins' state documents. Matching list elements
// by identity rather than by index keeps "one issue added at the front"
// from reading as "every issue changed".
var identityKeys = []string{"id", "number", "ts", "sha", "name", "login", "key", "path"}

// Diff compares two JSON documents and returns the changes from seed to
// now, in document order (object keys sorted, list elements in their
// current order, removed elements after them), and whether the list was
// cut at maxChanges.
//
// It descends only into values whose bytes differ, decoding one level at a
// time: every write tapes a diff of its twin's world, and a full decode of
// two large documents per call would cost more than the call itself. Both
// documents are expected in encoding/json's canonical form (map keys
// sorted), which is how worlds are stored.
func Diff(seed, now []byte) ([]Change, bool, error) {
	if !json.Valid(seed) {
		return nil, false, fmt.Errorf("seed: invalid JSON")
	}
	if !json.Valid(now) {
		return nil, false, fmt.Errorf("state: invalid JSON")
	}
	d := &differ{}
	d.walk(compact(seed), compact(now), nil, nil)
	return d.out, d.truncated, nil
}

// compact trims and, when needed, compacts a document so that equal values
// have equal bytes.
func compact(doc []byte) json.RawMessage {
	doc = bytes.TrimSpace(doc)
	if bytes.ContainsAny(doc, "\n\r\t") || bytes.Contains(doc, []byte(": ")) || bytes.Contains(doc, []byte(", ")) {
		var buf bytes.Buffer
		if json.Compact(&buf, doc) == nil {
			return buf.Bytes()
		}
	}
	return doc
}

type differ struct {
	out       []Change
	truncated bool
}

func (d *differ) add(c Change) {
	if len(d.out) >= maxChanges {
		d.truncated = true
		return
	}
	d.out = append(d.out, c)
}

// walk compares a (at seedPath in the seed) with b (at nowPath in the
// current document). The two paths differ once list elements have moved.
func (d *differ) walk(a, b json.RawMessage, seedPath, nowPath []any) {
	if d.truncated || bytes.Equal(a, b) {
		return
	}
	switch {
	case a[0] == '{' && b[0] == '{':
		var am, bm map[string]json.RawMessage
		if json.Unmarshal(a, &am) == nil && json.Unmarshal(b, &bm) == nil {
			d.objects(am, bm, seedPath, nowPath)
			return
		}
	case a[0] == '[' && b[0] == '[':
		var al, bl []json.RawMessage
		if json.Unmarshal(a, &al) == nil && json.Unmarshal(b, &bl) == nil {
			d.lists(al, bl, seedPath, nowPath)
			return
		}
	}
	d.add(Change{Op: OpChanged, Path: Pointer(nowPath...), Before: a, After: b})
}

func (d *differ) objects(a, b map[string]json.RawMessage, seedPath, nowPath []any) {
	keys := make([]string, 0, len(a)+len(b))
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		av, inA := a[k]
		bv, inB := b[k]
		switch {
		case !inB:
			d.add(Change{Op: OpRemoved, Path: Pointer(with(seedPath, k)...), Before: av})
		case !inA:
			d.add(Change{Op: OpAdded, Path: Pointer(with(nowPath, k)...), After: bv})
		default:
			d.walk(av, bv, with(seedPath, k), with(nowPath, k))
		}
	}
}

func (d *differ) lists(a, b []json.RawMessage, seedPath, nowPath []any) {
	// The common write appends to (or trims the end of) a list and leaves
	// the rest alone: identity matching would give the same answer, at the
	// price of decoding every element.
	if n := min(len(a), len(b)); samePrefix(a, b, n) {
		for i := n; i < len(a); i++ {
			d.add(Change{Op: OpRemoved, Path: Pointer(with(seedPath, i)...), Before: a[i]})
		}
		for i := n; i < len(b); i++ {
			d.add(Change{Op: OpAdded, Path: Pointer(with(nowPath, i)...), After: b[i]})
		}
		return
	}
	key, ida, idb := identityKey(a, b)
	if key == "" {
		n := min(len(a), len(b))
		for i := 0; i < n; i++ {
			d.walk(a[i], b[i], with(seedPath, i), with(nowPath, i))
		}
		for i := n; i < len(a); i++ {
			d.add(Change{Op: OpRemoved, Path: Pointer(with(seedPath, i)...), Before: a[i]})
		}
		for i := n; i < len(b); i++ {
			d.add(Change{Op: OpAdded, Path: Pointer(with(nowPath, i)...), After: b[i]})
		}
		return
	}
	seedAt := make(map[string]int, len(a))
	for i, id := range ida {
		seedAt[id] = i
	}
	seen := make(map[string]bool, len(b))
	for j, id := range idb {
		seen[id] = true
		if i, ok := seedAt[id]; ok {
			d.walk(a[i], b[j], with(seedPath, i), with(nowPath, j))
		} else {
			d.add(Change{Op: OpAdded, Path: Pointer(with(nowPath, j)...), After: b[j]})
		}
	}
	for i, id := range ida {
		if !seen[id] {
			d.add(Change{Op: OpRemoved, Path: Pointer(with(seedPath, i)...), Before: a[i]})
		}
	}
}

// identityKey returns the field that identifies every element of both
// lists uniquely, with each element's identity, or "" when the lists are
// to be compared by index.
func identityKey(a, b []json.RawMessage) (string, []string, []string) {
	if len(a) == 0 || len(b) == 0 {
		return "", nil, nil
	}
	decoded := make([][]map[string]json.RawMessage, 2)
	for li, list := range [][]json.RawMessage{a, b} {
		decoded[li] = make([]map[string]json.RawMessage, len(list))
		for i, el := range list {
			if len(el) == 0 || el[0] != '{' {
				return "", nil, nil
			}
			var m map[string]json.RawMessage
			if json.Unmarshal(el, &m) != nil {
				return "", nil, nil
			}
			decoded[li][i] = m
		}
	}
next:
	for _, k := range identityKeys {
		var ids [2][]string
		for li, list := range decoded {
			seen := make(map[string]bool, len(list))
			for _, m := range list {
				v, ok := m[k]
				if !ok || len(v) == 0 {
					continue next
				}
				var id string
				switch {
				case v[0] == '"':
					if json.Unmarshal(v, &id) != nil {
						continue next
					}
				case v[0] == '-' || (v[0] >= '0' && v[0] <= '9'):
					id = string(v)
				default:
					continue next
				}
				if seen[id] {
					continue next
				}
				seen[id] = true
				ids[li] = append(ids[li], id)
			}
		}
		return k, ids[0], ids[1]
	}
	return "", nil, nil
}

func samePrefix(a, b []json.RawMessage, n int) bool {
	for i := 0; i < n; i++ {
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

func with(path []any, seg any) []any {
	out := make([]any, len(path)+1)
	copy(out, path)
	out[len(path)] = seg
	return out
}
