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
// current order, removed elements after them), and whether the list was cut at maxChanges.
func Diff(seed, now []byte) ([]Change, bool, error) {
	a, err := decode(seed)
	if err != nil {
		return nil, false, fmt.Errorf("seed: %w", err)
	}
	b, err := decode(now)
	if err != nil {
		return nil, false, fmt.Errorf("state: %w", err)
	}
	d := &differ{}
	d.walk(a, b, nil, nil)
	return d.out, d.truncated, nil
}

func decode(doc []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	// Numbers stay exact: a float64 round trip would report a change in
	// large integer ids that did not happen.
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
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
func (d *differ) walk(a, b any, seedPath, nowPath []any) {
	if d.truncated {
		return
	}
	switch av := a.(type) {
	case map[string]any:
		if bv, ok := b.(map[string]any); ok {
			d.objects(av, bv, seedPath, nowPath)
			return
		}
	case []any:
		if bv, ok := b.([]any); ok {
			d.lists(av, bv, seedPath, nowPath)
			return
		}
	}
	if !equalJSON(a, b) {
		d.add(Change{Op: OpChanged, Path: Pointer(nowPath...), Before: raw(a), After: raw(b)})
	}
}

func (d *differ) objects(a, b map[string]any, seedPath, nowPath []any) {
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
			d.add(Change{Op: OpRemoved, Path: Pointer(with(seedPath, k)...), Before: raw(av)})
		case !inA:
			d.add(Change{Op: OpAdded, Path: Pointer(with(nowPath, k)...), After: raw(bv)})
		default:
			d.walk(av, bv, with(seedPath, k), with(nowPath, k))
		}
	}
}

func (d *differ) lists(a, b []any, seedPath, nowPath []any) {
	key := identityKey(a, b)
	if key == "" {
		n := min(len(a), len(b))
		for i := 0; i < n; i++ {
			d.walk(a[i], b[i], with(seedPath, i), with(nowPath, i))
		}
		for i := n; i < len(a); i++ {
			d.add(Change{Op: OpRemoved, Path: Pointer(with(seedPath, i)...), Before: raw(a[i])})
		}
		for i := n; i < len(b); i++ {
			d.add(Change{Op: OpAdded, Path: Pointer(with(nowPath, i)...), After: raw(b[i])})
		}
		return
	}
	seedAt := make(map[string]int, len(a))
	for i, el := range a {
		seedAt[idOf(el, key)] = i
	}
	seen := make(map[string]bool, len(b))
	for j, el := range b {
		id := idOf(el, key)
		seen[id] = true
		if i, ok := seedAt[id]; ok {
			d.walk(a[i], el, with(seedPath, i), with(nowPath, j))
		} else {
			d.add(Change{Op: OpAdded, Path: Pointer(with(nowPath, j)...), After: raw(el)})
		}
	}
	for i, el := range a {
		if !seen[idOf(el, key)] {
			d.add(Change{Op: OpRemoved, Path: Pointer(with(seedPath, i)...), Before: raw(el)})
		}
	}
}

// identityKey returns the field that identifies every element of both
// lists uniquely, or "" when the lists are to be compared by index.
func identityKey(a, b []any) string {
	if len(a) == 0 || len(b) == 0 {
		return ""
	}
next:
	for _, k := range identityKeys {
		for _, list := range [][]any{a, b} {
			ids := make(map[string]bool, len(list))
			for _, el := range list {
				m, ok := el.(map[string]any)
				if !ok {
					return ""
				}
				v, ok := m[k]
				if !ok {
					continue next
				}
				switch v.(type) {
				case string, json.Number:
				default:
					continue next
				}
				id := fmt.Sprint(v)
				if ids[id] {
					continue next
				}
				ids[id] = true
			}
		}
		return k
	}
	return ""
}

func idOf(el any, key string) string {
	return fmt.Sprint(el.(map[string]any)[key])
}

func with(path []any, seg any) []any {
	out := make([]any, len(path)+1)
	copy(out, path)
	out[len(path)] = seg
	return out
}

func raw(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage(`null`)
	}
	return b
}

func equalJSON(a, b any) bool {
	return bytes.Equal(raw(a), raw(b))
}
