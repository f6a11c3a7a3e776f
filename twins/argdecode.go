package twins

import (
	"encoding"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Decoding arguments without a JSON round trip.
//
// Decode takes a call's arguments as JSON text: it parses them once into
// generic values for the schema check and once more, by encoding/json,
// into the typed input. A REST call's arguments do not start as text:
// the REST decoder builds them as a map from path, query and form values,
// so that it used to encode the map only for Decode to parse it twice.
// DecodeMap takes that map as it is. It validates it exactly as Decode
// validates its parse (the same generic values reach the same checks), and
// fills the typed input straight from the generic values with a plan
// computed once per Go type (argPlan).
//
// The plan follows encoding/json's rules for what our inputs use: field
// names from json tags, else the Go name; "-" skips a field; an exact
// name is preferred, else the first field whose name matches case
// insensitively; embedded structs promote their fields, with the same
// dominance rules; pointers are allocated, slices and maps built fresh; a
// number goes into an integer field only when the text encoding/json would
// have written for it parses as one; null leaves a scalar alone and
// clears a pointer, slice, map or interface. What it does not follow
// itself it hands to encoding/json, so the answer is still encoding/json's:
// a value whose type decodes itself (json.Unmarshaler, such as
// json.RawMessage, or encoding.TextUnmarshaler), and any kind it does not
// plan (arrays, non-string map keys, float32, byte slices, …), is encoded
// again and decoded by encoding/json alone; and when the plan meets
// anything it cannot decode (a wrong type, an overflow, two keys for one
// field), the whole call falls back to encoding the map and decoding the
// text with encoding/json, so that the refusal, and its wording, is the
// one Decode would give. Refusals are rare, so the fallback costs nothing
// on the calls that matter.
//
// A value may arrive as its JSON text (a json.RawMessage): a JSON body's
// top-level values, kept as sent. Its generic value is what the schema
// checks; the text itself decodes the fields where text and generic value
// can disagree: integers ("1.0" is refused by encoding/json, though its
// generic value is integral), objects (encoding/json merges a repeated
// key's objects; the generic value keeps the last) and self-decoding
// types (a json.RawMessage keeps the key order and spelling sent).

// errArgFallback says the plan cannot decode these arguments as
// encoding/json would; the caller decodes their JSON text instead.
var errArgFallback = errors.New("twins: arguments need encoding/json")

type argKind uint8

const (
	argJSON argKind = iota // encode the value again and let encoding/json decode it
	argString
	argBool
	argInt
	argUint
	argFloat
	argAny
	argPtr
	argSlice
	argMap
	argStruct
)

// argPlan is how one Go type is filled from a generic JSON value.
type argPlan struct {
	kind argKind
	typ  reflect.Type
	elem *argPlan // argPtr, argSlice, argMap
	// text is set when the value's JSON text can decide differently from
	// its generic value (see above): a value that arrives as text is then
	// decoded from the text.
	text bool
	// fields of an argStruct in index order, with lookup by exact and by
	// folded name (encoding/json's precedence).
	fields []argField
	exact  map[string]int
	folded map[string]int
	// unsupported marks a struct whose layout the plan does not follow
	// (an embedded pointer, an ambiguous embedding); values of it always
	// fall back.
	unsupported bool
}

type argField struct {
	name  string
	index []int
	plan  *argPlan
}

var (
	argPlansMu sync.Mutex
	argPlans   sync.Map // reflect.Type → *argPlan
)

var (
	jsonUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
	jsonNumberType      = reflect.TypeFor[json.Number]()
)

// argPlanFor returns the cached plan of t, building it (and the plans it
// needs) once.
func argPlanFor(t reflect.Type) *argPlan {
	if p, ok := argPlans.Load(t); ok {
		return p.(*argPlan)
	}
	argPlansMu.Lock()
	defer argPlansMu.Unlock()
	building := map[reflect.Type]*argPlan{}
	p := buildArgPlan(t, building)
	seen := map[*argPlan]bool{}
	for _, bp := range building {
		finishText(bp, building, seen)
	}
	// Stored only once finished: other goroutines read plans unlocked.
	for ty, bp := range building {
		argPlans.Store(ty, bp)
	}
	return p
}

func argDecodesItself(t reflect.Type) bool {
	return t.Implements(jsonUnmarshalerType) || t.Implements(textUnmarshalerType) ||
		reflect.PointerTo(t).Implements(jsonUnmarshalerType) || reflect.PointerTo(t).Implements(textUnmarshalerType)
}

func buildArgPlan(t reflect.Type, building map[reflect.Type]*argPlan) *argPlan {
	if p, ok := argPlans.Load(t); ok {
		return p.(*argPlan)
	}
	if p, ok := building[t]; ok {
		return p
	}
	p := &argPlan{typ: t}
	building[t] = p
	if argDecodesItself(t) {
		p.kind = argJSON
		return p
	}
	switch t.Kind() {
	case reflect.String:
		if t != jsonNumberType {
			p.kind = argString
		}
	case reflect.Bool:
		p.kind = argBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		p.kind = argInt
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		p.kind = argUint
	case reflect.Float64:
		p.kind = argFloat
	case reflect.Interface:
		if t.NumMethod() == 0 {
			p.kind = argAny
		}
	case reflect.Pointer:
		p.kind, p.elem = argPtr, buildArgPlan(t.Elem(), building)
	case reflect.Slice:
		if t.Elem().Kind() != reflect.Uint8 {
			p.kind, p.elem = argSlice, buildArgPlan(t.Elem(), building)
		}
	case reflect.Map:
		if t.Key().Kind() == reflect.String && !argDecodesItself(t.Key()) {
			p.kind, p.elem = argMap, buildArgPlan(t.Elem(), building)
		}
	case reflect.Struct:
		p.kind = argStruct
		p.fields, p.unsupported = argStructFields(t, building)
		p.exact = make(map[string]int, len(p.fields))
		p.folded = make(map[string]int, len(p.fields))
		for i, f := range p.fields {
			p.exact[f.name] = i
			if _, ok := p.folded[foldKey(f.name)]; !ok {
				p.folded[foldKey(f.name)] = i
			}
		}
	}
	return p
}

// finishText sets text on every plan whose values are better decoded
// from their JSON text.
func finishText(p *argPlan, building map[reflect.Type]*argPlan, seen map[*argPlan]bool) bool {
	if seen[p] || building[p.typ] != p {
		// Visited, or finished earlier and shared with other goroutines.
		return p.text
	}
	seen[p] = true
	switch p.kind {
	case argJSON, argInt, argUint, argMap, argStruct:
		p.text = true
	}
	if p.elem != nil && finishText(p.elem, building, seen) {
		p.text = true
	}
	for _, f := range p.fields {
		if finishText(f.plan, building, seen) {
			p.text = true
		}
	}
	return p.text
}

// argCandidate is a field found while walking a struct and its embedded
// structs, before the dominance rules pick among same-named ones.
type argCandidate struct {
	name   string
	tagged bool
	index  []int
	typ    reflect.Type
}

// argStructFields lists the fields encoding/json decodes into for t: breadth
// first through untagged embedded structs, the shallowest field of a name
// winning, a tagged one over an untagged one at the same depth, and two
// alike at the same depth hiding each other. It reports unsupported for
// layouts it leaves to encoding/json: embedded pointers, a struct embedded
// twice at one depth, an unexported field that still carries a name.
func argStructFields(t reflect.Type, building map[reflect.Type]*argPlan) ([]argField, bool) {
	type level struct {
		typ   reflect.Type
		index []int
	}
	var found []argCandidate
	next := []level{{typ: t}}
	visited := map[reflect.Type]bool{}
	unsupported := false
	for len(next) > 0 {
		current := next
		next = nil
		queued := map[reflect.Type]bool{}
		for _, l := range current {
			if visited[l.typ] {
				continue
			}
			visited[l.typ] = true
			for i := 0; i < l.typ.NumField(); i++ {
				sf := l.typ.Field(i)
				ft := sf.Type
				if sf.Anonymous {
					if ft.Kind() == reflect.Pointer {
						if ft.Elem().Kind() == reflect.Struct {
							unsupported = true
							continue
						}
						ft = ft.Elem()
					}
					if !sf.IsExported() && ft.Kind() != reflect.Struct {
						continue
					}
				} else if !sf.IsExported() {
					continue
				}
				tag := sf.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, opts, _ := strings.Cut(tag, ",")
				if opts != "" && hasTagOption(opts, "string") {
					// The string option re-reads quoted scalars; leave
					// that to encoding/json.
					unsupported = true
				}
				if !validTagName(name) {
					name = ""
				}
				index := append(append([]int(nil), l.index...), i)
				if name == "" && sf.Anonymous && ft.Kind() == reflect.Struct {
					if queued[ft] {
						unsupported = true
					}
					queued[ft] = true
					next = append(next, level{typ: ft, index: index})
					continue
				}
				if !sf.IsExported() {
					unsupported = true
					continue
				}
				tagged := name != ""
				if !tagged {
					name = sf.Name
				}
				found = append(found, argCandidate{name: name, tagged: tagged, index: index, typ: sf.Type})
			}
		}
	}
	byName := map[string][]int{}
	var order []string
	for i, c := range found {
		if _, ok := byName[c.name]; !ok {
			order = append(order, c.name)
		}
		byName[c.name] = append(byName[c.name], i)
	}
	var out []argField
	for _, name := range order {
		best := -1
		ambiguous := false
		for _, i := range byName[name] {
			c := found[i]
			switch {
			case best < 0 || len(c.index) < len(found[best].index):
				best, ambiguous = i, false
			case len(c.index) == len(found[best].index):
				switch {
				case c.tagged == found[best].tagged:
					ambiguous = true
				case c.tagged:
					best, ambiguous = i, false
				}
			}
		}
		if ambiguous {
			continue
		}
		c := found[best]
		out = append(out, argField{name: c.name, index: c.index, plan: buildArgPlan(c.typ, building)})
	}
	// Index order, as encoding/json keeps them: the first of two names
	// that fold alike takes the folded lookup.
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && indexLess(out[j].index, out[j-1].index); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out, unsupported
}

func hasTagOption(opts, want string) bool {
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		if o == want {
			return true
		}
	}
	return false
}

func indexLess(a, b []int) bool {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return len(a) < len(b)
}

// validTagName is encoding/json's test for a usable tag name: letters,
// digits, and punctuation other than quotes and backslash.
func validTagName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c) {
			continue
		}
		if !unicode.IsLetter(c) && !unicode.IsDigit(c) {
			return false
		}
	}
	return true
}

// foldKey is a name in the case-insensitive form encoding/json matches
// keys by: ASCII upper case, and every other rune as the smallest rune
// of its simple case-folding orbit.
func foldKey(s string) string {
	var buf [64]byte
	return string(appendFold(buf[:0], s))
}

func appendFold(out []byte, s string) []byte {
	for _, r := range s {
		if r < utf8.RuneSelf {
			c := byte(r)
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			out = append(out, c)
			continue
		}
		for {
			f := unicode.SimpleFold(r)
			if f <= r {
				r = f
				break
			}
			r = f
		}
		out = utf8.AppendRune(out, r)
	}
	return out
}

// rawText is the JSON text a top-level value arrived as.
type rawText struct {
	key  string
	text json.RawMessage
}

// rawTexts are the texts of a call's top-level values that arrived as
// text, each key once: a handful, so found by a scan.
type rawTexts []rawText

func (r rawTexts) get(key string) (json.RawMessage, bool) {
	for i := range r {
		if r[i].key == key {
			return r[i].text, true
		}
	}
	return nil, false
}

// decodeArgs fills dst (a settable struct) from obj. raw holds the JSON
// text of those top-level values that arrived as text; obj holds their
// generic values.
func decodeArgs(p *argPlan, obj map[string]any, raw rawTexts, dst reflect.Value) error {
	if p.kind != argStruct {
		return errArgFallback
	}
	return p.decodeObject(obj, raw, dst)
}

func (p *argPlan) decodeObject(obj map[string]any, raw rawTexts, dst reflect.Value) error {
	if p.unsupported {
		return errArgFallback
	}
	var set uint64
	var setMore map[int]bool
	for k, v := range obj {
		i, ok := p.exact[k]
		if !ok {
			var buf [64]byte
			if i, ok = p.folded[string(appendFold(buf[:0], k))]; !ok {
				continue
			}
		}
		// Two keys for one field: encoding/json decodes both, the later
		// into the earlier (merging objects); leave that to it.
		if i < 64 {
			if set&(1<<i) != 0 {
				return errArgFallback
			}
			set |= 1 << i
		} else {
			if setMore[i] {
				return errArgFallback
			}
			if setMore == nil {
				setMore = map[int]bool{}
			}
			setMore[i] = true
		}
		f := &p.fields[i]
		fv := dst.FieldByIndex(f.index)
		if text, ok := raw.get(k); ok && f.plan.text {
			if ok, err := decodeIntText(f.plan, text, fv); ok {
				if err != nil {
					return err
				}
				continue
			}
			if err := decodeText(text, fv); err != nil {
				return err
			}
			continue
		}
		if err := f.plan.decode(v, fv); err != nil {
			return err
		}
	}
	return nil
}

// decodeText decodes a value's JSON text into dst with encoding/json, as
// it is written in the arguments' JSON (compacted, HTML-escaped).
func decodeText(text json.RawMessage, dst reflect.Value) error {
	b, err := json.Marshal(text)
	if err != nil {
		return errArgFallback
	}
	if json.Unmarshal(b, dst.Addr().Interface()) != nil {
		return errArgFallback
	}
	return nil
}

// decode fills dst from the generic value v, or answers errArgFallback
// where encoding/json would refuse v or where the plan leaves the
// decision to encoding/json.
func (p *argPlan) decode(v any, dst reflect.Value) error {
	if v == nil {
		switch p.kind {
		case argPtr, argSlice, argMap, argAny:
			dst.SetZero()
			return nil
		case argJSON:
		default:
			return nil
		}
	}
	switch p.kind {
	case argString:
		s, ok := v.(string)
		if !ok {
			return errArgFallback
		}
		dst.SetString(s)
	case argBool:
		b, ok := v.(bool)
		if !ok {
			return errArgFallback
		}
		dst.SetBool(b)
	case argInt:
		f, ok := v.(float64)
		if !ok {
			return errArgFallback
		}
		var n int64
		if f == math.Trunc(f) && math.Abs(f) <= 1<<53 {
			n = int64(f)
		} else {
			var buf [32]byte
			var err error
			if n, err = strconv.ParseInt(string(appendJSONFloat(buf[:0], f)), 10, 64); err != nil {
				return errArgFallback
			}
		}
		if dst.OverflowInt(n) {
			return errArgFallback
		}
		dst.SetInt(n)
	case argUint:
		f, ok := v.(float64)
		if !ok {
			return errArgFallback
		}
		var n uint64
		if f == math.Trunc(f) && f <= 1<<53 && (f > 0 || f == 0 && !math.Signbit(f)) {
			n = uint64(f)
		} else {
			var buf [32]byte
			var err error
			if n, err = strconv.ParseUint(string(appendJSONFloat(buf[:0], f)), 10, 64); err != nil {
				return errArgFallback
			}
		}
		if dst.OverflowUint(n) {
			return errArgFallback
		}
		dst.SetUint(n)
	case argFloat:
		f, ok := v.(float64)
		if !ok {
			return errArgFallback
		}
		dst.SetFloat(f)
	case argAny:
		if !genericValue(v) {
			return errArgFallback
		}
		dst.Set(reflect.ValueOf(v))
	case argPtr:
		if dst.IsNil() {
			dst.Set(reflect.New(p.typ.Elem()))
		}
		return p.elem.decode(v, dst.Elem())
	case argSlice:
		list, ok := v.([]any)
		if !ok {
			return errArgFallback
		}
		s := reflect.MakeSlice(p.typ, len(list), len(list))
		for i, e := range list {
			if err := p.elem.decode(e, s.Index(i)); err != nil {
				return err
			}
		}
		dst.Set(s)
	case argMap:
		m, ok := v.(map[string]any)
		if !ok {
			return errArgFallback
		}
		if dst.IsNil() {
			dst.Set(reflect.MakeMapWithSize(p.typ, len(m)))
		}
		kt := p.typ.Key()
		for k, e := range m {
			ev := reflect.New(p.typ.Elem()).Elem()
			if err := p.elem.decode(e, ev); err != nil {
				return err
			}
			kv := reflect.ValueOf(k)
			if kt != kv.Type() {
				kv = kv.Convert(kt)
			}
			dst.SetMapIndex(kv, ev)
		}
	case argStruct:
		m, ok := v.(map[string]any)
		if !ok {
			return errArgFallback
		}
		return p.decodeObject(m, nil, dst)
	default:
		b, err := json.Marshal(v)
		if err != nil {
			return errArgFallback
		}
		if json.Unmarshal(b, dst.Addr().Interface()) != nil {
			return errArgFallback
		}
	}
	return nil
}

// genericValue reports whether v is a value encoding/json decodes into an
// any: what an interface field may be given as it is. Containers are
// trusted to hold the same (DecodeMap's contract).
func genericValue(v any) bool {
	switch v.(type) {
	case string, bool, float64, []any, map[string]any:
		return true
	}
	return false
}

// appendJSONFloat writes f as encoding/json writes a float64: plain
// decimal from 1e-6 to below 1e21, else an exponent without leading zeros.
// An integer field is filled from that text, so a float parses as an
// integer exactly when its JSON text does.
func appendJSONFloat(b []byte, f float64) []byte {
	format := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// decodeIntText decodes a number's text into an integer field, or a
// pointer to one, as encoding/json does: the literal must parse as an
// integer that fits. ok is false for any other text, left to decodeText.
func decodeIntText(p *argPlan, text json.RawMessage, dst reflect.Value) (ok bool, err error) {
	if len(text) == 0 || text[0] != '-' && (text[0] < '0' || text[0] > '9') {
		return false, nil
	}
	ptr := p.kind == argPtr
	if ptr {
		p = p.elem
	}
	if p.kind != argInt {
		return false, nil
	}
	n, perr := strconv.ParseInt(string(text), 10, 64)
	if perr != nil {
		return true, errArgFallback
	}
	if ptr {
		if dst.IsNil() {
			dst.Set(reflect.New(p.typ))
		}
		dst = dst.Elem()
	}
	if dst.OverflowInt(n) {
		return true, errArgFallback
	}
	dst.SetInt(n)
	return true, nil
}

// plainGeneric is the generic value of a JSON text that needs no parser:
// a string without escapes, true, false or null. ok is false otherwise.
func plainGeneric(text json.RawMessage) (any, bool) {
	switch string(text) {
	case "true":
		return true, true
	case "false":
		return false, true
	case "null":
		return nil, true
	}
	n := len(text)
	if n < 2 || text[0] != '"' || text[n-1] != '"' {
		return nil, false
	}
	body := text[1 : n-1]
	for _, c := range body {
		if c < 0x20 || c == '"' || c == '\\' {
			return nil, false
		}
	}
	if !utf8.Valid(body) {
		return nil, false
	}
	return string(body), true
}
