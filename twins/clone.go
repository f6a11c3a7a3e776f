package twins

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
)

// WorldCopier returns a Twin.CopyWorld for worlds of type *W: a deep copy
// of what the world's JSON document holds, made without the JSON. Like
// DecodeWorld(json.Marshal(world)), the copy shares no memory that either
// could change with the original, and has the exported fields encoding/json
// would keep (not those tagged "-") and zero unexported ones; index, when
// not nil, then rebuilds what the twin's decoder builds besides (indexes
// over the world, which the document leaves out). Pointers shared within
// the original are copied apart, as decoding would.
//
// It panics at once if W holds what it cannot copy that way (channels,
// funcs, types with their own JSON decoding other than time.Time,
// json.RawMessage and Copier values, an unexported embedded struct): such
// a twin leaves CopyWorld nil.
func WorldCopier[W any](index func(*W)) func(world any) any {
	cp, err := copierOf(reflect.TypeFor[W]())
	if err != nil {
		panic(fmt.Sprintf("twins: cannot copy %v: %v", reflect.TypeFor[W](), err))
	}
	return func(world any) any {
		src := reflect.ValueOf(world.(*W)).Elem()
		w := new(W)
		cp(reflect.ValueOf(w).Elem(), src)
		if index != nil {
			index(w)
		}
		return w
	}
}

// copyFunc copies src into dst, a settable zero value of the same type.
type copyFunc func(dst, src reflect.Value)

// plan is one type's copyFunc; recursive types refer to their own plan
// while it is being built.
type plan struct{ fn copyFunc }

var (
	// plansMu guards building; ready holds the finished plans, for the
	// copies of interface values, which look up their dynamic type's.
	plansMu sync.Mutex
	plans   = map[reflect.Type]*plan{}
	ready   sync.Map // reflect.Type -> *plan
)

func copierOf(t reflect.Type) (copyFunc, error) {
	p, err := lookup(t)
	if err != nil {
		return nil, err
	}
	return p.fn, nil
}

// lookup returns t's finished plan, building it (and the plans it needs)
// if need be. A build that fails leaves no plan of its own behind, so no
// finished plan can refer to an unfinished one.
func lookup(t reflect.Type) (*plan, error) {
	if p, ok := ready.Load(t); ok {
		return p.(*plan), nil
	}
	plansMu.Lock()
	defer plansMu.Unlock()
	var added []reflect.Type
	p, err := planFor(t, &added)
	if err != nil {
		for _, t := range added {
			delete(plans, t)
		}
		return nil, err
	}
	for _, t := range added {
		ready.Store(t, plans[t])
	}
	return p, nil
}

// planFor builds (or finds) t's plan, noting in added the types it adds;
// plansMu is held.
func planFor(t reflect.Type, added *[]reflect.Type) (*plan, error) {
	if p, ok := plans[t]; ok {
		return p, nil
	}
	p := &plan{}
	plans[t] = p
	*added = append(*added, t)
	fn, err := build(t, added)
	if err != nil {
		return nil, err
	}
	p.fn = fn
	return p, nil
}

func setValue(dst, src reflect.Value) { dst.Set(src) }

// Copier is a world's value that keeps what its JSON document holds in a
// form of its own (and has its own JSON encoding and decoding, which the
// copy must agree with): CopyValue returns a deep copy of it, of its own
// type, sharing no memory that either could change with the value.
type Copier interface{ CopyValue() any }

var copierType = reflect.TypeFor[Copier]()

func build(t reflect.Type, added *[]reflect.Type) (copyFunc, error) {
	switch {
	case t == timeType:
		return setValue, nil
	case t == rawMessageType:
		return copySlice(t, nil), nil
	case t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface && t.Implements(copierType):
		return func(dst, src reflect.Value) {
			dst.Set(reflect.ValueOf(src.Interface().(Copier).CopyValue()))
		}, nil
	case t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface && decodesItself(t):
		return nil, fmt.Errorf("%v decodes its own JSON", t)
	case scalar(t.Kind()):
		return setValue, nil
	}
	switch t.Kind() {
	case reflect.Pointer:
		elem, err := planFor(t.Elem(), added)
		if err != nil {
			return nil, err
		}
		et := t.Elem()
		return func(dst, src reflect.Value) {
			if src.IsNil() {
				return
			}
			p := reflect.New(et)
			elem.fn(p.Elem(), src.Elem())
			dst.Set(p)
		}, nil
	case reflect.Slice:
		if flat(t.Elem()) {
			return copySlice(t, nil), nil
		}
		elem, err := planFor(t.Elem(), added)
		if err != nil {
			return nil, err
		}
		return copySlice(t, elem), nil
	case reflect.Array:
		elem, err := planFor(t.Elem(), added)
		if err != nil {
			return nil, err
		}
		return func(dst, src reflect.Value) {
			for i := range src.Len() {
				elem.fn(dst.Index(i), src.Index(i))
			}
		}, nil
	case reflect.Map:
		if !flat(t.Key()) {
			return nil, fmt.Errorf("map key %v", t.Key())
		}
		var elem *plan
		if !flat(t.Elem()) {
			var err error
			if elem, err = planFor(t.Elem(), added); err != nil {
				return nil, err
			}
		}
		et := t.Elem()
		return func(dst, src reflect.Value) {
			if src.IsNil() {
				return
			}
			m := reflect.MakeMapWithSize(t, src.Len())
			it := src.MapRange()
			for it.Next() {
				if elem == nil {
					m.SetMapIndex(it.Key(), it.Value())
					continue
				}
				v := reflect.New(et).Elem()
				elem.fn(v, it.Value())
				m.SetMapIndex(it.Key(), v)
			}
			dst.Set(m)
		}, nil
	case reflect.Interface:
		return func(dst, src reflect.Value) {
			if src.IsNil() {
				return
			}
			v := src.Elem()
			p, err := lookup(v.Type())
			if err != nil {
				// JSON would have made it a map, a list or a scalar; a
				// value that cannot be copied is decoded from its JSON.
				b, _ := json.Marshal(v.Interface())
				var out any
				json.Unmarshal(b, &out)
				if out != nil {
					dst.Set(reflect.ValueOf(out))
				}
				return
			}
			nv := reflect.New(v.Type()).Elem()
			p.fn(nv, v)
			dst.Set(nv)
		}, nil
	case reflect.Struct:
		type field struct {
			i int
			p *plan
		}
		var fields []field
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				if f.Anonymous && (f.Type.Kind() == reflect.Struct || f.Type.Kind() == reflect.Pointer && f.Type.Elem().Kind() == reflect.Struct) {
					return nil, fmt.Errorf("%v embeds the unexported %v", t, f.Type)
				}
				continue // JSON leaves it out; decoding leaves it zero
			}
			if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name == "-" && !strings.HasPrefix(f.Tag.Get("json"), "-,") {
				continue
			}
			p, err := planFor(f.Type, added)
			if err != nil {
				return nil, fmt.Errorf("%v.%s: %w", t, f.Name, err)
			}
			fields = append(fields, field{i, p})
		}
		return func(dst, src reflect.Value) {
			for _, f := range fields {
				f.p.fn(dst.Field(f.i), src.Field(f.i))
			}
		}, nil
	}
	return nil, fmt.Errorf("%v (%v)", t, t.Kind())
}

// copySlice copies a slice, keeping nil apart from empty; elem nil means
// its elements are copied as they are.
func copySlice(t reflect.Type, elem *plan) copyFunc {
	return func(dst, src reflect.Value) {
		if src.IsNil() {
			return
		}
		n := src.Len()
		s := reflect.MakeSlice(t, n, n)
		if elem == nil {
			reflect.Copy(s, src)
		} else {
			for i := range n {
				elem.fn(s.Index(i), src.Index(i))
			}
		}
		dst.Set(s)
	}
}

// flat reports whether values of t hold no memory of their own that a
// copy must not share: scalars and strings (immutable).
func flat(t reflect.Type) bool { return scalar(t.Kind()) && !decodesItself(t) }

func scalar(k reflect.Kind) bool {
	switch k {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.String:
		return true
	}
	return false
}

// decodesItself reports whether t (or *t) has its own JSON decoding.
func decodesItself(t reflect.Type) bool {
	return t.Implements(unmarshalerType) || reflect.PointerTo(t).Implements(unmarshalerType)
}
