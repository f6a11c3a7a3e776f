package twins

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"sync"
	"time"
	"unsafe"
)

// World deltas: what a write changed in a world, as JSON, without encoding
// the whole world.
//
// WorldDelta compares a world before a write with the private copy the
// write changed (CopyWorld's), field by field, and encodes only the values
// that differ: a comment added to one issue of 10,000 is a splice of one
// element into that comments list (and the repository's next id),
// a few hundred bytes, however large the world. ApplyDelta makes the world
// after the write from the one before and the delta. A store that keeps a
// world as a base document plus the deltas of its later writes (the Redis
// store) saves a write with its delta and rebuilds any later version from
// the base.
//
// The delta's ops address values by JSON path (field names as encoded,
// map keys, list indexes), so a delta means the same to every build whose
// world documents have that shape. Where the comparison cannot follow a
// type field by field (an interface value, a type with its own JSON
// encoding, embedded structs), it compares that value's encodings and
// replaces the value whole: the delta may be larger, never wrong.

// deltaOp is one change. P is the path of the value changed; then one of:
// V, the value's new encoding; Z, the value is now its type's zero (an
// omitempty field that the document leaves out); X, the map entry at P is
// gone; S, the list at P had Del elements from At replaced by Ins.
type deltaOp struct {
	P   []any             `json:"p"`
	V   json.RawMessage   `json:"v,omitempty"`
	Z   bool              `json:"z,omitempty"`
	X   bool              `json:"x,omitempty"`
	S   bool              `json:"s,omitempty"`
	At  int               `json:"at,omitempty"`
	Del int               `json:"del,omitempty"`
	Ins []json.RawMessage `json:"ins,omitempty"`
}

// WorldDelta returns the delta that turns before into after, two worlds
// of the same type (a private copy of before that a write changed), as a
// JSON list; an empty list when the documents of the two are equal. It
// reports false when the worlds are not pointers to the same struct type,
// for which the caller saves the whole document instead.
func WorldDelta(before, after any) (json.RawMessage, bool, error) {
	a, b := reflect.ValueOf(before), reflect.ValueOf(after)
	if a.Kind() != reflect.Pointer || a.Type() != b.Type() || a.IsNil() || b.IsNil() || a.Elem().Kind() != reflect.Struct {
		return nil, false, nil
	}
	d := &differ2{}
	d.value(a.Elem(), b.Elem(), infoOf(a.Type().Elem()), false)
	if d.err != nil {
		return nil, false, d.err
	}
	if len(d.ops) == 0 {
		return json.RawMessage("[]"), true, nil
	}
	out, err := json.Marshal(d.ops)
	if err != nil {
		return nil, false, err
	}
	return out, true, nil
}

// ApplyDelta returns the world that delta (WorldDelta's) makes of world,
// without changing world: it copies what lies on the paths it changes and
// shares the rest with world. The result is for CopyWorld or encoding
// only: derived state a twin keeps beside the document (indexes) is not
// brought up to date, which CopyWorld rebuilds.
func ApplyDelta(world any, delta []byte) (any, error) {
	var ops []deltaOp
	dec := json.NewDecoder(bytes.NewReader(delta))
	dec.UseNumber()
	if err := dec.Decode(&ops); err != nil {
		return nil, fmt.Errorf("world delta: %w", err)
	}
	old := reflect.ValueOf(world)
	if old.Kind() != reflect.Pointer || old.IsNil() {
		return nil, errors.New("world delta: world is not a pointer")
	}
	if len(ops) == 0 {
		return world, nil
	}
	root := reflect.New(old.Type().Elem())
	root.Elem().Set(old.Elem())
	a := &applier{fresh: map[uintptr]bool{root.Pointer(): true}}
	for i := range ops {
		if err := a.walk(root.Elem(), ops[i].P, &ops[i]); err != nil {
			return nil, fmt.Errorf("world delta: op %d at %v: %w", i, ops[i].P, err)
		}
	}
	return root.Interface(), nil
}

// differ2 collects the ops of one WorldDelta (differ is the document diff's).
type differ2 struct {
	path []pathSeg
	ops  []deltaOp
	err  error
	// probing: only find whether anything differs (found), emitting no op.
	probing, found bool
}

// pathSeg is one step of a path: a field name or map key, or a list index.
type pathSeg struct {
	name  string
	index int
	isIdx bool
}

func (d *differ2) push(name string) { d.path = append(d.path, pathSeg{name: name}) }
func (d *differ2) pushIndex(i int)  { d.path = append(d.path, pathSeg{index: i, isIdx: true}) }
func (d *differ2) pop()             { d.path = d.path[:len(d.path)-1] }

// done reports whether the comparison can stop (an error, or a probe that
// found a difference).
func (d *differ2) done() bool { return d.err != nil || d.found }

func (d *differ2) at() []any {
	out := make([]any, len(d.path))
	for i, s := range d.path {
		if s.isIdx {
			out[i] = s.index
		} else {
			out[i] = s.name
		}
	}
	return out
}

// emit records op (its path set here), or a difference when probing.
func (d *differ2) emit(op deltaOp) {
	if d.probing {
		d.found = true
		return
	}
	if op.P == nil {
		op.P = d.at()
	}
	d.ops = append(d.ops, op)
}

// set records that the value at the current path is now b.
func (d *differ2) set(b reflect.Value, omitEmpty bool) {
	if d.done() {
		return
	}
	if d.probing {
		d.found = true
		return
	}
	if omitEmpty && jsonEmpty(b) {
		d.emit(deltaOp{Z: true})
		return
	}
	v, err := json.Marshal(b.Interface())
	if err != nil {
		d.err = err
		return
	}
	d.emit(deltaOp{V: v})
}

// ByteEncoded marks a byte-slice type with its own JSON encoding that is a
// function of its bytes alone (a value kept compressed, say): values with
// equal bytes encode the same, so a world's deltas compare two such values
// by their bytes, as they compare json.RawMessage values, rather than by
// encoding both.
type ByteEncoded interface{ ByteEncoded() }

var (
	byteEncodedType = reflect.TypeFor[ByteEncoded]()
	marshalerType   = reflect.TypeFor[json.Marshaler]()
	textMarshaler   = reflect.TypeFor[interface{ MarshalText() ([]byte, error) }]()
)

// Classes of types, as the comparison treats them.
const (
	cOpaque = iota // compared by encoding
	cTime
	cRaw
	cBool
	cInt
	cUint
	cFloat
	cString
	cPointer
	cStruct
	cSlice
	cBytes
	cArray
	cMap
)

// typeInfo is how values of one type are compared, worked out once per
// type (a comparison visits every value of a world).
type typeInfo struct {
	class int
	elem  *typeInfo   // pointers, slices, arrays, maps
	plan  *structPlan // structs (nil: compared by encoding)
	// flatElems: a slice whose elements hold no memory of their own, so
	// equal memory is equal elements.
	flatElems bool
	size      uintptr // of an element, for flatElems
}

var (
	infoMu sync.Mutex
	infos  = map[reflect.Type]*typeInfo{}
	// infoReady holds the finished infos, read without the lock.
	infoReady sync.Map
)

func infoOf(t reflect.Type) *typeInfo {
	if ti, ok := infoReady.Load(t); ok {
		return ti.(*typeInfo)
	}
	infoMu.Lock()
	defer infoMu.Unlock()
	ti := buildInfo(t)
	for t, ti := range infos {
		infoReady.Store(t, ti)
	}
	return ti
}

// buildInfo builds (or finds) t's info; infoMu is held. Recursive types
// find their own info, unfinished, in infos.
func buildInfo(t reflect.Type) *typeInfo {
	if ti, ok := infos[t]; ok {
		return ti
	}
	ti := &typeInfo{}
	infos[t] = ti
	switch {
	case t == timeType:
		ti.class = cTime
		return ti
	case t == rawMessageType, t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 && t.Implements(byteEncodedType):
		ti.class = cRaw
		return ti
	case ownEncoding(t):
		ti.class = cOpaque
		return ti
	}
	switch t.Kind() {
	case reflect.Bool:
		ti.class = cBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		ti.class = cInt
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		ti.class = cUint
	case reflect.Float32, reflect.Float64:
		ti.class = cFloat
	case reflect.String:
		ti.class = cString
	case reflect.Pointer:
		ti.class, ti.elem = cPointer, buildInfo(t.Elem())
	case reflect.Struct:
		ti.class = cStruct
		ti.plan = buildPlan(t)
		if ti.plan == nil {
			ti.class = cOpaque
		}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			ti.class = cBytes
			break
		}
		ti.class, ti.elem = cSlice, buildInfo(t.Elem())
		ti.flatElems, ti.size = flat(t.Elem()), t.Elem().Size()
	case reflect.Array:
		ti.class, ti.elem = cArray, buildInfo(t.Elem())
	case reflect.Map:
		if t.Key().Kind() != reflect.String || ownEncoding(t.Key()) {
			ti.class = cOpaque
			break
		}
		ti.class, ti.elem = cMap, buildInfo(t.Elem())
	default:
		ti.class = cOpaque // interfaces and anything else
	}
	return ti
}

// value compares a and b, two values of one type (ti's) at d.path;
// omitEmpty says the field holding them is omitted from the document when
// empty.
func (d *differ2) value(a, b reflect.Value, ti *typeInfo, omitEmpty bool) {
	if d.done() {
		return
	}
	if omitEmpty {
		ea, eb := jsonEmpty(a), jsonEmpty(b)
		if ea && eb {
			return // both left out of the document
		}
		if ea != eb {
			d.set(b, true)
			return
		}
	}
	switch ti.class {
	case cTime:
		if !timeEqual(a, b) {
			d.set(b, false)
		}
	case cRaw, cBytes:
		if a.IsNil() != b.IsNil() || !bytes.Equal(a.Bytes(), b.Bytes()) {
			d.set(b, false)
		}
	case cBool:
		if a.Bool() != b.Bool() {
			d.set(b, false)
		}
	case cInt:
		if a.Int() != b.Int() {
			d.set(b, false)
		}
	case cUint:
		if a.Uint() != b.Uint() {
			d.set(b, false)
		}
	case cFloat:
		// By bits: -0 and +0 are equal numbers that encode apart.
		if math.Float64bits(a.Float()) != math.Float64bits(b.Float()) {
			d.set(b, false)
		}
	case cString:
		if a.String() != b.String() {
			d.set(b, false)
		}
	case cPointer:
		switch {
		case a.IsNil() && b.IsNil():
		case a.IsNil() || b.IsNil():
			d.set(b, false)
		case a.Pointer() == b.Pointer():
			// One value: equal.
		default:
			d.value(a.Elem(), b.Elem(), ti.elem, false)
		}
	case cStruct:
		d.structure(a, b, ti.plan)
	case cSlice:
		switch {
		case a.IsNil() && b.IsNil():
		case a.IsNil() != b.IsNil():
			d.set(b, false)
		default:
			d.list(a, b, ti)
		}
	case cArray:
		for i := range a.Len() {
			d.pushIndex(i)
			d.value(a.Index(i), b.Index(i), ti.elem, false)
			d.pop()
		}
	case cMap:
		d.mapping(a, b, ti.elem)
	default:
		d.opaque(a, b)
	}
}

// structure compares two structs field by field. The fields that hold no
// memory of their own (numbers, strings, times), which a world's copy
// shares with the world (the same string bytes), are first compared as
// raw memory, run by run: only a run that differs is looked at field by
// field.
func (d *differ2) structure(a, b reflect.Value, p *structPlan) {
	raw := a.CanAddr() && b.CanAddr()
	var pa, pb unsafe.Pointer
	if raw {
		pa, pb = a.Addr().UnsafePointer(), b.Addr().UnsafePointer()
	}
	for _, r := range p.runs {
		if raw && r.size > 0 && bytes.Equal(unsafe.Slice((*byte)(unsafe.Add(pa, r.off)), r.size), unsafe.Slice((*byte)(unsafe.Add(pb, r.off)), r.size)) {
			continue
		}
		for _, f := range r.fields {
			d.push(f.name)
			d.value(a.Field(f.index), b.Field(f.index), f.info, f.omitEmpty)
			d.pop()
			if d.done() {
				return
			}
		}
	}
}

// list compares two lists: element by element when their lengths agree,
// else as one splice of what lies between their common start and end.
func (d *differ2) list(a, b reflect.Value, ti *typeInfo) {
	la, lb := a.Len(), b.Len()
	if la == lb && la > 0 && a.Pointer() == b.Pointer() {
		return // one backing array
	}
	if la == lb {
		if ti.flatElems && la > 0 {
			// Numbers and strings: equal memory is equal values (strings
			// copied share their bytes).
			size := uintptr(la) * ti.size
			if bytes.Equal(unsafe.Slice((*byte)(a.UnsafePointer()), size), unsafe.Slice((*byte)(b.UnsafePointer()), size)) {
				return
			}
		}
		for i := range la {
			d.pushIndex(i)
			d.value(a.Index(i), b.Index(i), ti.elem, false)
			d.pop()
			if d.done() {
				return
			}
		}
		return
	}
	if d.probing {
		d.found = true
		return
	}
	n := min(la, lb)
	pre := 0
	for pre < n && d.equal(a.Index(pre), b.Index(pre), ti.elem) {
		pre++
	}
	suf := 0
	for suf < n-pre && d.equal(a.Index(la-1-suf), b.Index(lb-1-suf), ti.elem) {
		suf++
	}
	if d.err != nil {
		return
	}
	op := deltaOp{S: true, At: pre, Del: la - suf - pre}
	for i := pre; i < lb-suf; i++ {
		v, err := json.Marshal(b.Index(i).Interface())
		if err != nil {
			d.err = err
			return
		}
		op.Ins = append(op.Ins, v)
	}
	d.emit(op)
}

func (d *differ2) mapping(a, b reflect.Value, elem *typeInfo) {
	if a.IsNil() != b.IsNil() {
		d.set(b, false)
		return
	}
	if a.Len() == 0 && b.Len() == 0 {
		return
	}
	// A removal is recorded before additions so that a reader applying the
	// ops in order ends with b whatever the keys.
	it := a.MapRange()
	for it.Next() {
		if !b.MapIndex(it.Key()).IsValid() {
			d.push(it.Key().String())
			d.emit(deltaOp{X: true})
			d.pop()
			if d.done() {
				return
			}
		}
	}
	it = b.MapRange()
	for it.Next() {
		d.push(it.Key().String())
		if av := a.MapIndex(it.Key()); !av.IsValid() {
			d.set(it.Value(), false)
		} else {
			d.value(av, it.Value(), elem, false)
		}
		d.pop()
		if d.done() {
			return
		}
	}
}

// opaque compares a and b by their encodings, replacing the value whole
// when they differ.
func (d *differ2) opaque(a, b reflect.Value) {
	ea, err := json.Marshal(a.Interface())
	if err == nil {
		var eb []byte
		if eb, err = json.Marshal(b.Interface()); err == nil && bytes.Equal(ea, eb) {
			return
		}
	}
	d.set(b, false)
}

// equal reports whether a and b encode the same (it may say false for
// values that do, which only makes a delta larger).
func (d *differ2) equal(a, b reflect.Value, ti *typeInfo) bool {
	probing, found := d.probing, d.found
	d.probing, d.found = true, false
	d.value(a, b, ti, false)
	eq := !d.found
	d.probing, d.found = probing, found
	return eq && d.err == nil
}

// structPlan is how a struct is compared: its JSON fields in runs, each
// run either a span of memory holding only flat fields (size > 0) or one
// field to compare by value.
type structPlan struct {
	fs   *jsonFields
	runs []fieldRun
}

type fieldRun struct {
	off, size uintptr
	fields    []jsonField
}

// buildPlan builds a struct's plan, or nil for one compared whole;
// infoMu is held.
func buildPlan(t reflect.Type) *structPlan {
	fs := fieldsOf(t)
	if fs == nil {
		return nil
	}
	p := &structPlan{fs: fs}
	for _, f := range fs.list {
		sf := t.Field(f.index)
		f.info = buildInfo(sf.Type)
		memFlat := sf.Type == timeType || (flat(sf.Type) && !ownEncoding(sf.Type))
		if !memFlat {
			p.runs = append(p.runs, fieldRun{fields: []jsonField{f}})
			continue
		}
		if n := len(p.runs); n > 0 && p.runs[n-1].size > 0 {
			last := &p.runs[n-1]
			if end := last.off + last.size; sf.Offset >= end {
				last.size = sf.Offset + sf.Type.Size() - last.off
				last.fields = append(last.fields, f)
				continue
			}
		}
		p.runs = append(p.runs, fieldRun{off: sf.Offset, size: sf.Type.Size(), fields: []jsonField{f}})
	}
	return p
}

func timeEqual(a, b reflect.Value) bool {
	if a.CanAddr() && b.CanAddr() {
		return *(*time.Time)(a.Addr().UnsafePointer()) == *(*time.Time)(b.Addr().UnsafePointer())
	}
	return a.Interface().(time.Time) == b.Interface().(time.Time)
}

// ownEncoding reports whether t (or *t) encodes itself as JSON, other
// than time.Time and json.RawMessage, which the comparison knows.
func ownEncoding(t reflect.Type) bool {
	if t == timeType || t == rawMessageType {
		return false
	}
	return t.Implements(marshalerType) || reflect.PointerTo(t).Implements(marshalerType) ||
		t.Implements(textMarshaler) || reflect.PointerTo(t).Implements(textMarshaler) ||
		decodesItself(t)
}

// jsonFields is how encoding/json lays out a struct's fields, for structs
// simple enough to follow field by field.
type jsonFields struct {
	list   []jsonField
	byName map[string]int // name -> field index
}

type jsonField struct {
	name      string
	index     int
	omitEmpty bool
	info      *typeInfo // set in a structPlan's copy
}

var fieldCache sync.Map // reflect.Type -> *jsonFields (nil: compare whole)

// fieldsOf returns t's JSON fields, or nil for a struct with embedded
// fields, options this code does not follow (omitzero, string) or
// clashing names: such a struct is compared by its encoding.
func fieldsOf(t reflect.Type) *jsonFields {
	if v, ok := fieldCache.Load(t); ok {
		return v.(*jsonFields)
	}
	fs := buildFields(t)
	fieldCache.Store(t, fs)
	return fs
}

func buildFields(t reflect.Type) *jsonFields {
	fs := &jsonFields{byName: map[string]int{}}
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous {
			return nil
		}
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		omit := false
		for _, o := range strings.Split(opts, ",") {
			switch o {
			case "omitempty":
				omit = true
			case "", "-":
			default:
				return nil
			}
		}
		if _, dup := fs.byName[name]; dup {
			return nil
		}
		fs.byName[name] = i
		fs.list = append(fs.list, jsonField{name: name, index: i, omitEmpty: omit})
	}
	return fs
}

// applier applies ops, copying each pointer, list and map on an op's path
// once (fresh holds what it made, which it may change in place).
type applier struct {
	fresh map[uintptr]bool
}

// walk applies op to the value at path under v, a settable value the
// applier may change.
func (a *applier) walk(v reflect.Value, path []any, op *deltaOp) error {
	if len(path) == 0 {
		return a.terminal(v, op)
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return errors.New("nil pointer on the path")
		}
		if !a.fresh[v.Pointer()] {
			p := reflect.New(v.Type().Elem())
			p.Elem().Set(v.Elem())
			v.Set(p)
			a.fresh[p.Pointer()] = true
		}
		return a.walk(v.Elem(), path, op)
	case reflect.Struct:
		name, ok := path[0].(string)
		fs := fieldsOf(v.Type())
		if !ok || fs == nil {
			return fmt.Errorf("no field %v", path[0])
		}
		i, ok := fs.byName[name]
		if !ok {
			return fmt.Errorf("no field %q", name)
		}
		return a.walk(v.Field(i), path[1:], op)
	case reflect.Slice, reflect.Array:
		i, err := index(path[0])
		if err != nil {
			return err
		}
		if i < 0 || i >= v.Len() {
			return fmt.Errorf("index %d of %d", i, v.Len())
		}
		if v.Kind() == reflect.Slice && !a.fresh[v.Pointer()] {
			s := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
			reflect.Copy(s, v)
			v.Set(s)
			if s.Len() > 0 {
				a.fresh[s.Pointer()] = true
			}
		}
		return a.walk(v.Index(i), path[1:], op)
	case reflect.Map:
		key, ok := path[0].(string)
		if !ok {
			return fmt.Errorf("map key %v", path[0])
		}
		if v.IsNil() {
			return errors.New("nil map on the path")
		}
		if !a.fresh[v.Pointer()] {
			m := reflect.MakeMapWithSize(v.Type(), v.Len())
			it := v.MapRange()
			for it.Next() {
				m.SetMapIndex(it.Key(), it.Value())
			}
			v.Set(m)
			a.fresh[m.Pointer()] = true
		}
		k := reflect.ValueOf(key).Convert(v.Type().Key())
		if len(path) == 1 && op.X {
			v.SetMapIndex(k, reflect.Value{})
			return nil
		}
		e := reflect.New(v.Type().Elem()).Elem()
		if cur := v.MapIndex(k); cur.IsValid() {
			e.Set(cur)
		} else if len(path) > 1 {
			return fmt.Errorf("no map entry %q", key)
		}
		if err := a.walk(e, path[1:], op); err != nil {
			return err
		}
		v.SetMapIndex(k, e)
		return nil
	}
	return fmt.Errorf("cannot descend into %v", v.Type())
}

// terminal applies op to v itself.
func (a *applier) terminal(v reflect.Value, op *deltaOp) error {
	switch {
	case op.Z:
		v.Set(reflect.Zero(v.Type()))
	case op.S:
		if v.Kind() != reflect.Slice {
			return fmt.Errorf("splice of %v", v.Type())
		}
		if op.At < 0 || op.Del < 0 || op.At+op.Del > v.Len() {
			return fmt.Errorf("splice %d+%d of %d", op.At, op.Del, v.Len())
		}
		n := v.Len() - op.Del + len(op.Ins)
		s := reflect.MakeSlice(v.Type(), n, n)
		reflect.Copy(s, v.Slice(0, op.At))
		for i, raw := range op.Ins {
			e := reflect.New(v.Type().Elem())
			if err := json.Unmarshal(raw, e.Interface()); err != nil {
				return err
			}
			s.Index(op.At + i).Set(e.Elem())
		}
		reflect.Copy(s.Slice(op.At+len(op.Ins), n), v.Slice(op.At+op.Del, v.Len()))
		v.Set(s)
		if n > 0 {
			a.fresh[s.Pointer()] = true
		}
	case op.X:
		return errors.New("removal of a value that is not a map entry")
	default:
		// A fresh value, as decoding the whole document would make: never
		// decoded into the old one, which JSON would merge with.
		e := reflect.New(v.Type())
		if err := json.Unmarshal(op.V, e.Interface()); err != nil {
			return err
		}
		v.Set(e.Elem())
	}
	return nil
}

func index(seg any) (int, error) {
	switch n := seg.(type) {
	case json.Number:
		i, err := n.Int64()
		return int(i), err
	case float64:
		return int(n), nil
	}
	return 0, fmt.Errorf("list index %v", seg)
}
