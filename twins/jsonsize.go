package twins

import (
	"encoding"
	"encoding/base64"
	"encoding/json"
	"math"
	"math/bits"
	"reflect"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"
)

// EncodedSize is len(json.Marshal(v)), counted without building the
// encoding: the store measures a world against its budgets every so many
// writes, and encoding a world of a megabyte to learn its length cost a
// quarter of the server's CPU in a profile of Stripe customer creates.
//
// It follows encoding/json's rules value by value: field names and
// omitempty as fieldsOf reads them, HTML-safe string escaping, base64
// for byte slices, the float format, map keys, and Marshaler and
// TextMarshaler methods (pointer receivers only where the value is
// addressable, as encoding/json has them). A struct whose fields it does
// not follow (embedded fields, the string or omitzero options, clashing
// names) is measured by encoding that struct alone. A Marshaler's output
// is taken as the valid JSON encoding/json would check it to be, and
// counted as compacted, and a json.Number as a valid number. Unsupported values (channels, functions, NaN)
// are errors, as they are to json.Marshal; only the error's wording may
// differ.
func EncodedSize(v any) (int64, error) {
	if v == nil {
		return 4, nil
	}
	return sizeValue(reflect.ValueOf(v))
}

// A sizeFunc counts the encoding of v, a value of the type it was made for.
type sizeFunc func(v reflect.Value) (int64, error)

var sizeFuncs sync.Map // reflect.Type -> sizeFunc

func sizeValue(v reflect.Value) (int64, error) {
	if !v.IsValid() {
		return 4, nil
	}
	return sizerOf(v.Type())(v)
}

func sizerOf(t reflect.Type) sizeFunc {
	if f, ok := sizeFuncs.Load(t); ok {
		return f.(sizeFunc)
	}
	// A recursive type finds this indirection while its sizer is built.
	var (
		once sync.Once
		f    sizeFunc
	)
	fi, loaded := sizeFuncs.LoadOrStore(t, sizeFunc(func(v reflect.Value) (int64, error) {
		once.Do(func() { f = newSizer(t, true) })
		return f(v)
	}))
	if loaded {
		return fi.(sizeFunc)
	}
	once.Do(func() { f = newSizer(t, true) })
	sizeFuncs.Store(t, f)
	return f
}

// Sizer is a value with its own JSON encoding that counts that encoding's
// length itself, without building it (a world's value kept in a form of
// its own: see Copier). JSONSize must equal len of the compacted
// MarshalJSON output.
type Sizer interface{ JSONSize() (int64, error) }

var (
	sizerType         = reflect.TypeFor[Sizer]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	numberType        = reflect.TypeFor[json.Number]()
	timePtrType       = reflect.TypeFor[*time.Time]()
	stringMapType     = reflect.TypeFor[map[string]string]()
)

// newSizer builds t's sizer in encoding/json's order of choice
// (newTypeEncoder): methods first, then the kind.
func newSizer(t reflect.Type, allowAddr bool) sizeFunc {
	switch t {
	case rawMessageType:
		return sizeRawMessage
	case timeType:
		return sizeTime
	case timePtrType:
		return func(v reflect.Value) (int64, error) {
			if v.IsNil() {
				return 4, nil
			}
			return sizeTime(v.Elem())
		}
	}
	if t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface && t.Implements(sizerType) {
		return func(v reflect.Value) (int64, error) { return v.Interface().(Sizer).JSONSize() }
	}
	if t.Kind() != reflect.Pointer && allowAddr && reflect.PointerTo(t).Implements(marshalerType) {
		return condAddr(sizeMarshaler, newSizer(t, false))
	}
	if t.Implements(marshalerType) {
		return sizeMarshaler
	}
	if t.Kind() != reflect.Pointer && allowAddr && reflect.PointerTo(t).Implements(textMarshalerType) {
		return condAddr(sizeTextMarshaler, newSizer(t, false))
	}
	if t.Implements(textMarshalerType) {
		return sizeTextMarshaler
	}
	switch t.Kind() {
	case reflect.Bool:
		return func(v reflect.Value) (int64, error) {
			if v.Bool() {
				return 4, nil
			}
			return 5, nil
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return func(v reflect.Value) (int64, error) { return intLen(v.Int()), nil }
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return func(v reflect.Value) (int64, error) { return uintLen(v.Uint()), nil }
	case reflect.Float32:
		return func(v reflect.Value) (int64, error) { return floatLen(v.Float(), 32) }
	case reflect.Float64:
		return func(v reflect.Value) (int64, error) { return floatLen(v.Float(), 64) }
	case reflect.String:
		if t == numberType {
			return func(v reflect.Value) (int64, error) {
				if s := v.String(); s != "" {
					return int64(len(s)), nil
				}
				return 1, nil // "0"
			}
		}
		return func(v reflect.Value) (int64, error) { return stringLen(v.String()), nil }
	case reflect.Interface:
		return func(v reflect.Value) (int64, error) {
			if v.IsNil() {
				return 4, nil
			}
			return sizeValue(v.Elem())
		}
	case reflect.Struct:
		return structSizer(t)
	case reflect.Map:
		return mapSizer(t)
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			p := reflect.PointerTo(t.Elem())
			if !p.Implements(marshalerType) && !p.Implements(textMarshalerType) {
				return func(v reflect.Value) (int64, error) {
					if v.IsNil() {
						return 4, nil
					}
					return int64(base64.StdEncoding.EncodedLen(v.Len())) + 2, nil
				}
			}
		}
		elem := sizerOf(t.Elem())
		return func(v reflect.Value) (int64, error) {
			if v.IsNil() {
				return 4, nil
			}
			return listLen(v, elem)
		}
	case reflect.Array:
		elem := sizerOf(t.Elem())
		return func(v reflect.Value) (int64, error) { return listLen(v, elem) }
	case reflect.Pointer:
		elem := sizerOf(t.Elem())
		return func(v reflect.Value) (int64, error) {
			if v.IsNil() {
				return 4, nil
			}
			return elem(v.Elem())
		}
	default:
		return func(v reflect.Value) (int64, error) {
			return 0, &json.UnsupportedTypeError{Type: v.Type()}
		}
	}
}

// condAddr uses the pointer receiver's method where v is addressable, as
// encoding/json does, and else the value's own encoding.
func condAddr(addr, plain sizeFunc) sizeFunc {
	return func(v reflect.Value) (int64, error) {
		if v.CanAddr() {
			return addr(v.Addr())
		}
		return plain(v)
	}
}

func sizeMarshaler(v reflect.Value) (int64, error) {
	return sizeByMethod(v, json.Marshaler.MarshalJSON, compactLen)
}

func sizeTextMarshaler(v reflect.Value) (int64, error) {
	return sizeByMethod(v, encoding.TextMarshaler.MarshalText, func(b []byte) int64 { return stringLen(string(b)) })
}

// sizeByMethod counts what encoding/json writes for a value with its own
// encoding method: "null" for a nil pointer or a value without it, else
// the method's output as length counts it.
func sizeByMethod[M any](v reflect.Value, method func(M) ([]byte, error), length func([]byte) int64) (int64, error) {
	if v.Kind() == reflect.Pointer && v.IsNil() {
		return 4, nil
	}
	m, ok := v.Interface().(M)
	if !ok {
		return 4, nil
	}
	b, err := method(m)
	if err != nil {
		return 0, &json.MarshalerError{Type: v.Type(), Err: err}
	}
	return length(b), nil
}

// sizeRawMessage is json.RawMessage's MarshalJSON ("null" when nil),
// compacted, without the call.
func sizeRawMessage(v reflect.Value) (int64, error) {
	if v.IsNil() {
		return 4, nil
	}
	return compactLen(v.Bytes()), nil
}

// sizeTime is time.Time's MarshalJSON, RFC 3339 with nanoseconds quoted,
// formatted on the stack. Years outside 0–9999 and zone offsets RFC 3339
// cannot write take the method, which refuses them.
func sizeTime(v reflect.Value) (int64, error) {
	var t time.Time
	if v.CanAddr() {
		t = *(*time.Time)(v.Addr().UnsafePointer()) // no copy to the heap
	} else {
		t = v.Interface().(time.Time)
	}
	off := 0
	if t.Location() != time.UTC { // UTC needs no look-up of its offset
		if _, off = t.Zone(); off%60 != 0 || off <= -24*3600 || off >= 24*3600 {
			return sizeMarshaler(v)
		}
	}
	// The year in t's zone is 0–9999.
	if local := t.Unix() + int64(off); local < firstYear0 || local > lastYear9999 {
		return sizeMarshaler(v)
	}
	return rfc3339NanoLen(off, t.Nanosecond()) + 2, nil
}

// The Unix seconds of 0000-01-01T00:00:00Z and 9999-12-31T23:59:59Z.
const firstYear0, lastYear9999 = -62167219200, 253402300799

// rfc3339NanoLen is len(t.Format(time.RFC3339Nano)) for a time t of zone
// offset off and nanoseconds ns, a year of four digits and an offset in
// whole minutes under a day, without formatting:
// "2006-01-02T15:04:05", the nanoseconds with their trailing zeros cut (no
// point when none are left), and "Z" or "+hh:mm".
func rfc3339NanoLen(off, ns int) int64 {
	n := int64(len("2006-01-02T15:04:05") + len("Z"))
	if off != 0 {
		n += int64(len("+07:00") - len("Z"))
	}
	if ns != 0 {
		digits := int64(9)
		for ns%10 == 0 {
			ns /= 10
			digits--
		}
		n += 1 + digits
	}
	return n
}

func listLen(v reflect.Value, elem sizeFunc) (int64, error) {
	n := v.Len()
	size := int64(2 + max(n-1, 0))
	for i := range n {
		s, err := elem(v.Index(i))
		if err != nil {
			return 0, err
		}
		size += s
	}
	return size, nil
}

type sizedField struct {
	index     int
	omitEmpty bool
	nameLen   int64 // `"name":`
	size      sizeFunc
}

// SizeMemo, as a field of a struct (tagged `json:"-"`), lets EncodedSize
// count that struct once and remember it: for values that never change
// once built, such as Stripe's events, which are half of what a Stripe
// world holds and were counted again at every measure. A value holding
// one must not change after it was first sized: a later change is not
// counted (tests compare every twin's sizes with json.Marshal's after
// writes). The zero SizeMemo has counted nothing; a copy by value carries
// what the original counted, being a copy of the same encoding, and
// WorldCopier's copies (which leave "-" fields out) start uncounted.
type SizeMemo struct {
	n int64 // the size plus one, 0 until counted; read and written atomically
}

var sizeMemoType = reflect.TypeFor[SizeMemo]()

// memoField is the index of t's SizeMemo field, or -1.
func memoField(t reflect.Type) int {
	for i := range t.NumField() {
		if f := t.Field(i); f.Type == sizeMemoType && f.IsExported() && f.Tag.Get("json") == "-" {
			return i
		}
	}
	return -1
}

func structSizer(t reflect.Type) sizeFunc {
	fs := fieldsOf(t)
	if fs == nil || !validFieldNames(fs) {
		return sizeByEncoding
	}
	f := fieldsSizer(t, fs)
	m := memoField(t)
	if m < 0 {
		return f
	}
	return func(v reflect.Value) (int64, error) {
		if !v.CanAddr() {
			return f(v)
		}
		memo := v.Field(m).Addr().Interface().(*SizeMemo)
		if n := atomic.LoadInt64(&memo.n); n > 0 {
			return n - 1, nil
		}
		n, err := f(v)
		if err == nil {
			atomic.StoreInt64(&memo.n, n+1)
		}
		return n, err
	}
}

// fieldsSizer counts a struct field by field, as encoding/json writes it.
func fieldsSizer(t reflect.Type, fs *jsonFields) sizeFunc {
	fields := make([]sizedField, len(fs.list))
	for i, f := range fs.list {
		fields[i] = sizedField{index: f.index, omitEmpty: f.omitEmpty, nameLen: stringLen(f.name) + 1}
	}
	// Field sizers are found on first use, so a struct that holds itself
	// through a pointer or a slice does not build itself while building.
	var once sync.Once
	return func(v reflect.Value) (int64, error) {
		once.Do(func() {
			for i := range fields {
				fields[i].size = sizerOf(t.Field(fields[i].index).Type)
			}
		})
		size, kept := int64(2), 0
		for i := range fields {
			f := &fields[i]
			fv := v.Field(f.index)
			if f.omitEmpty && jsonEmpty(fv) {
				continue
			}
			s, err := f.size(fv)
			if err != nil {
				return 0, err
			}
			size += f.nameLen + s
			kept++
		}
		return size + int64(max(kept-1, 0)), nil
	}
}

// validFieldNames reports whether encoding/json takes every tag's name
// as given (isValidTag); where it would not, the struct is encoded.
func validFieldNames(fs *jsonFields) bool {
	for _, f := range fs.list {
		if f.name == "" {
			return false
		}
		for _, c := range f.name {
			switch {
			case ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9') || c == '_' || c == '-' || c == '.':
			default:
				return false
			}
		}
	}
	return true
}

// sizeByEncoding encodes v, through its address where it has one so that
// pointer receivers' methods apply as they would in place.
func sizeByEncoding(v reflect.Value) (int64, error) {
	x := v.Interface()
	if v.CanAddr() {
		x = v.Addr().Interface()
	}
	b, err := json.Marshal(x)
	return int64(len(b)), err
}

// jsonEmpty is encoding/json's isEmptyValue, for omitempty.
func jsonEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64,
		reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}

func mapSizer(t reflect.Type) sizeFunc {
	var key func(k reflect.Value) (int64, error)
	switch kt := t.Key(); {
	case kt.Kind() == reflect.String:
		key = func(k reflect.Value) (int64, error) { return stringLen(k.String()), nil }
	case kt.Implements(textMarshalerType):
		key = func(k reflect.Value) (int64, error) {
			if k.Kind() == reflect.Pointer && k.IsNil() {
				return 2, nil
			}
			b, err := k.Interface().(encoding.TextMarshaler).MarshalText()
			if err != nil {
				return 0, &json.MarshalerError{Type: k.Type(), Err: err}
			}
			return stringLen(string(b)), nil
		}
	default:
		switch kt.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			key = func(k reflect.Value) (int64, error) { return intLen(k.Int()) + 2, nil }
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
			key = func(k reflect.Value) (int64, error) { return uintLen(k.Uint()) + 2, nil }
		default:
			return func(v reflect.Value) (int64, error) {
				return 0, &json.UnsupportedTypeError{Type: v.Type()}
			}
		}
	}
	elem := sizerOf(t.Elem())
	// Entries are read into values of this call's own, which costs no
	// allocation per entry but makes them addressable; where that would
	// change what a method encodes, each entry is copied out as
	// encoding/json reads it.
	inPlace := !addrSensitive(t.Elem(), map[reflect.Type]bool{})
	if t == stringMapType {
		return func(v reflect.Value) (int64, error) {
			if v.IsNil() {
				return 4, nil
			}
			m := v.Interface().(map[string]string)
			size := int64(2 + max(len(m)-1, 0) + len(m))
			for k, e := range m {
				size += stringLen(k) + stringLen(e)
			}
			return size, nil
		}
	}
	return func(v reflect.Value) (int64, error) {
		if v.IsNil() {
			return 4, nil
		}
		n := v.Len()
		size := int64(2 + max(n-1, 0) + n) // braces, commas, colons
		var k, e reflect.Value
		if inPlace && n > 0 {
			k, e = reflect.New(t.Key()).Elem(), reflect.New(t.Elem()).Elem()
		}
		it := v.MapRange()
		for it.Next() {
			if inPlace {
				k.SetIterKey(it)
				e.SetIterValue(it)
			} else {
				k, e = it.Key(), it.Value()
			}
			ks, err := key(k)
			if err != nil {
				return 0, err
			}
			vs, err := elem(e)
			if err != nil {
				return 0, err
			}
			size += ks + vs
		}
		return size, nil
	}
}

// addrSensitive reports whether a value of t encodes differently when it
// is addressable: t, or a field or element reached without a pointer,
// has MarshalJSON or MarshalText on its pointer receiver only.
func addrSensitive(t reflect.Type, seen map[reflect.Type]bool) bool {
	if seen[t] {
		return false
	}
	seen[t] = true
	if t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface {
		p := reflect.PointerTo(t)
		if p.Implements(marshalerType) && !t.Implements(marshalerType) ||
			p.Implements(textMarshalerType) && !t.Implements(textMarshalerType) {
			return true
		}
	}
	switch t.Kind() {
	case reflect.Struct:
		for i := range t.NumField() {
			if addrSensitive(t.Field(i).Type, seen) {
				return true
			}
		}
	case reflect.Array:
		return addrSensitive(t.Elem(), seen)
	}
	return false
}

func intLen(i int64) int64 {
	if i < 0 {
		if i == math.MinInt64 {
			return 20
		}
		return 1 + uintLen(uint64(-i))
	}
	return uintLen(uint64(i))
}

func uintLen(u uint64) int64 {
	// bits.Len64 × log10(2) is the digits less one, or one less again;
	// u|1 has u's digits, and one for zero.
	t := bits.Len64(u|1) * 1233 >> 12
	if u|1 >= pow10[t] {
		return int64(t) + 1
	}
	return int64(t)
}

var pow10 = [20]uint64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19}

// floatLen is the length of encoding/json's floatEncoder output.
func floatLen(f float64, bits int) (int64, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, &json.UnsupportedValueError{Str: strconv.FormatFloat(f, 'g', -1, bits)}
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 {
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	var buf [32]byte
	b := strconv.AppendFloat(buf[:0], f, format, -1, bits)
	n := int64(len(b))
	if format == 'e' {
		// clean up e-09 to e-9
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			n--
		}
	}
	return n, nil
}

// stringLen is the length of s as encoding/json quotes it with HTML
// escaping: <, > and & as \u00XX, control characters as \n, \r, \t, \b,
// \f or \u00XX, invalid UTF-8 as \ufffd, U+2028 and U+2029 escaped.
func stringLen(s string) int64 {
	n := int64(2)
	start := 0
	for i := 0; i < len(s); {
		// Eight bytes at a time while none of them is escaped or starts a
		// multi-byte rune: most of a world's text.
		for i+8 <= len(s) && plain8(s[i:i+8]) {
			i += 8
		}
		if i == len(s) {
			break
		}
		if b := s[i]; b < utf8.RuneSelf {
			if plainASCII[b] {
				i++
				continue
			}
			switch b {
			case '\\', '"', '\b', '\f', '\n', '\r', '\t':
				n += 2
			default:
				n += 6
			}
			n += int64(i - start)
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			n += int64(i-start) + 6
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			n += int64(i-start) + 6
			i += size
			start = i
			continue
		}
		i += size
	}
	return n + int64(len(s)-start)
}

// plain8 reports whether each of the eight bytes of b is one plainASCII
// marks: under 0x80, at least 0x20, and none of `"`, `\`, `<`, `>`, `&`.
// Each test is the exact "some byte is zero" (or "under n", n ≤ 0x80)
// of a word's bytes.
func plain8(b string) bool {
	x := uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	zero := func(y uint64) uint64 { return (y - ones) & ^y & highs }
	bad := x&highs | (x-ones*0x20)&^x&highs |
		zero(x^(ones*'"')) | zero(x^(ones*'\\')) | zero(x^(ones*'<')) | zero(x^(ones*'>')) | zero(x^(ones*'&'))
	return bad == 0
}

// plainASCII marks the ASCII bytes encoding/json copies as they are
// inside a string when it escapes HTML.
var plainASCII = func() (t [utf8.RuneSelf]bool) {
	for b := 0x20; b < utf8.RuneSelf; b++ {
		t[b] = b != '"' && b != '\\' && b != '<' && b != '>' && b != '&'
	}
	return t
}()

// compactLen is the length of encoding/json's compaction of the valid
// JSON b with HTML escaping (appendCompact): whitespace outside strings
// dropped, <, > and & written \u00XX and U+2028, U+2029 \u2028, \u2029.
func compactLen(b []byte) int64 {
	n := int64(len(b))
	for i := 0; i < len(b); {
		switch b[i] {
		case '"':
			// A string is copied as it is, but for the HTML escapes.
			for i++; i < len(b); {
				c := b[i]
				if !inStringSpecial[c] {
					i++
					continue
				}
				if c == '"' {
					break
				}
				switch {
				case c == '\\':
					i += 2
					continue
				case c == 0xE2:
					if i+2 < len(b) && b[i+1] == 0x80 && b[i+2]&^1 == 0xA8 {
						n += 3
						i += 3
						continue
					}
				default: // <, >, &
					n += 5
				}
				i++
			}
		case ' ', '\t', '\n', '\r':
			n--
		case '<', '>', '&':
			n += 5
		}
		i++
	}
	return n
}

// inStringSpecial marks the bytes compactLen stops at inside a string.
var inStringSpecial = [256]bool{'"': true, '\\': true, '<': true, '>': true, '&': true, 0xE2: true}
