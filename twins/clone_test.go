package twins

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

type cloneNode struct {
	Name     string            `json:"name"`
	Tags     []string          `json:"tags"`
	Empty    []int             `json:"empty"`
	Meta     map[string]any    `json:"meta"`
	Counts   map[string]int    `json:"counts"`
	Kids     []*cloneNode      `json:"kids"`
	Next     *cloneNode        `json:"next,omitempty"`
	At       time.Time         `json:"at"`
	Due      *time.Time        `json:"due"`
	Raw      json.RawMessage   `json:"raw"`
	Any      any               `json:"any"`
	Odd      any               `json:"odd"` // holds a type that decodes itself
	Pair     [2]*string        `json:"pair"`
	Skipped  []string          `json:"-"`
	Dash     string            `json:"-,"`
	ByID     map[int64]*string `json:"by_id"`
	Embedded                   // promoted fields
	index    map[string]*cloneNode
}

type Embedded struct {
	Inner []int `json:"inner"`
}

func sample() *cloneNode {
	s, due := "x", time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	shared := &cloneNode{Name: "shared"}
	return &cloneNode{
		Name: "root", Tags: []string{"a", "b"}, Empty: []int{},
		Meta:   map[string]any{"n": 1.5, "list": []any{"x", map[string]any{"deep": true}}, "typed": []string{"t"}},
		Counts: map[string]int{"a": 1},
		Kids:   []*cloneNode{shared, shared, nil},
		Next:   &cloneNode{Name: "next", Any: &cloneNode{Name: "in any"}},
		At:     due, Due: &due, Raw: json.RawMessage(`{"k":1}`), Any: map[string]any{"k": []any{1.0}},
		Odd:  &jsonNamed{Name: "odd"},
		Pair: [2]*string{&s, nil}, Skipped: []string{"gone"}, Dash: "dash",
		ByID: map[int64]*string{7: &s}, Embedded: Embedded{Inner: []int{1}},
		index: map[string]*cloneNode{"root": nil},
	}
}

// sharedMemory returns the path of the first pointer, map or non-empty
// slice that a and b share, or "".
func sharedMemory(a, b reflect.Value, path string) string {
	if a.Type() != b.Type() {
		return "" // an interface's value decoded into another type
	}
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			return ""
		}
		if a.Pointer() == b.Pointer() {
			return path
		}
		return sharedMemory(a.Elem(), b.Elem(), path)
	case reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return ""
		}
		return sharedMemory(a.Elem(), b.Elem(), path)
	case reflect.Map:
		if a.IsNil() || b.IsNil() {
			return ""
		}
		if a.Pointer() == b.Pointer() {
			return path
		}
		for _, k := range a.MapKeys() {
			if bv := b.MapIndex(k); bv.IsValid() {
				if p := sharedMemory(a.MapIndex(k), bv, path+"["+k.String()+"]"); p != "" {
					return p
				}
			}
		}
	case reflect.Slice:
		if a.Len() > 0 && b.Len() > 0 && a.Pointer() == b.Pointer() {
			return path
		}
		for i := range min(a.Len(), b.Len()) {
			if p := sharedMemory(a.Index(i), b.Index(i), path+"[]"); p != "" {
				return p
			}
		}
	case reflect.Array:
		for i := range a.Len() {
			if p := sharedMemory(a.Index(i), b.Index(i), path+"[]"); p != "" {
				return p
			}
		}
	case reflect.Struct:
		for i := range a.NumField() {
			if !a.Type().Field(i).IsExported() {
				continue
			}
			if p := sharedMemory(a.Field(i), b.Field(i), path+"."+a.Type().Field(i).Name); p != "" {
				return p
			}
		}
	}
	return ""
}

// TestWorldCopierIsDecoding: a copy encodes as the original, shares
// nothing with it, keeps nil apart from empty, leaves out what JSON leaves
// out (unexported fields, "-" fields) and copies shared pointers apart, as
// decoding the document would.
func TestWorldCopierIsDecoding(t *testing.T) {
	indexed := 0
	cp := WorldCopier(func(n *cloneNode) { indexed++; n.index = map[string]*cloneNode{n.Name: n} })
	orig := sample()
	want, err := json.Marshal(orig)
	if err != nil {
		t.Fatal(err)
	}
	got := cp(orig).(*cloneNode)
	if b, _ := json.Marshal(got); string(b) != string(want) {
		t.Fatalf("copy encodes as\n%s\nwant\n%s", b, want)
	}
	if p := sharedMemory(reflect.ValueOf(orig), reflect.ValueOf(got), "world"); p != "" {
		t.Fatalf("the copy shares %s with the original", p)
	}
	if got.Empty == nil || got.Next.Next != nil || got.Skipped != nil || got.Dash != "dash" {
		t.Errorf("nil, empty or tagged fields not as decoded: empty %#v, skipped %#v, dash %q", got.Empty, got.Skipped, got.Dash)
	}
	if odd, ok := got.Odd.(map[string]any); !ok || odd["name"] != "odd" {
		t.Errorf("a value that cannot be copied is not decoded from its JSON: %#v", got.Odd)
	}
	if got.Kids[0] == got.Kids[1] {
		t.Error("a pointer shared in the original is shared in the copy; decoding makes two")
	}
	if indexed != 1 || got.index["root"] != got {
		t.Errorf("index ran %d times; index %v", indexed, got.index)
	}
	// The copy of a decoded world is that decoded world.
	var decoded cloneNode
	if err := json.Unmarshal(want, &decoded); err != nil {
		t.Fatal(err)
	}
	decoded.index = map[string]*cloneNode{decoded.Name: &decoded}
	again := cp(&decoded).(*cloneNode)
	again.index = map[string]*cloneNode{again.Name: &decoded} // compare the rest
	if !reflect.DeepEqual(again, &decoded) {
		t.Errorf("copy of a decoded world differs from it:\n%#v\n%#v", again, &decoded)
	}
	// Changing the copy leaves the original as it was.
	got.Tags[0], got.Meta["n"], got.Counts["a"], *got.Pair[0] = "z", 0, 9, "y"
	got.Meta["list"].([]any)[1].(map[string]any)["deep"] = false
	if b, _ := json.Marshal(orig); string(b) != string(want) {
		t.Errorf("changing the copy changed the original:\n%s", b)
	}
}

// TestWorldCopierRefuses: a world type that cannot be copied as decoded
// is refused when the twin is built, not at a write.
func TestWorldCopierRefuses(t *testing.T) {
	type withChan struct{ C chan int }
	type custom struct{ V json.Number }
	type withUnmarshaler struct{ U *unmarshals }
	for name, f := range map[string]func(){
		"chan":        func() { WorldCopier[withChan](nil) },
		"unmarshaler": func() { WorldCopier[withUnmarshaler](nil) },
	} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(string), "cannot copy") {
					t.Errorf("%s: recovered %v, want a refusal", name, r)
				}
			}()
			f()
		}()
	}
	WorldCopier[custom](nil) // a named string type is a plain value
}

type unmarshals struct{ s string }

func (u *unmarshals) UnmarshalJSON(b []byte) error { u.s = string(b); return nil }

// jsonNamed decodes itself, so a copy cannot copy it field by field; in an
// interface it is decoded from its JSON, as decoding the document would.
type jsonNamed struct{ Name string }

func (j *jsonNamed) UnmarshalJSON(b []byte) error {
	var v struct{ Name string }
	err := json.Unmarshal(b, &v)
	j.Name = v.Name
	return err
}

func (j jsonNamed) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]string{"name": j.Name})
}

// packedInts keeps its values in a form of its own, encoded as a JSON
// list of numbers: it copies itself (Copier) and counts its encoding
// (Sizer).
type packedInts struct{ p *[]int }

func (v packedInts) MarshalJSON() ([]byte, error) {
	if v.p == nil {
		return []byte("[]"), nil
	}
	return json.Marshal(*v.p)
}

func (v *packedInts) UnmarshalJSON(b []byte) error {
	var xs []int
	if err := json.Unmarshal(b, &xs); err != nil {
		return err
	}
	v.p = &xs
	return nil
}

func (v packedInts) CopyValue() any {
	if v.p == nil {
		return packedInts{}
	}
	xs := append([]int(nil), *v.p...)
	return packedInts{&xs}
}

// packedSized counts the calls of packedInts.JSONSize.
var packedSized int

func (v packedInts) JSONSize() (int64, error) {
	packedSized++
	b, err := v.MarshalJSON()
	return int64(len(b)), err
}

type packedHolder struct {
	Name string     `json:"name"`
	Ints packedInts `json:"ints"`
	More []packedInts
}

// A value that copies itself is copied by its CopyValue, sharing nothing
// with the original, and measured by its JSONSize.
func TestWorldCopierCopier(t *testing.T) {
	xs, ys := []int{1, 2, 3}, []int{40}
	w := &packedHolder{Name: "n", Ints: packedInts{&xs}, More: []packedInts{{&ys}, {}}}
	cp := WorldCopier[packedHolder](nil)(w).(*packedHolder)
	(*cp.Ints.p)[0] = 99
	(*cp.More[0].p)[0] = 99
	if xs[0] != 1 || ys[0] != 40 {
		t.Fatalf("the copy shares the original's values: %v %v", xs, ys)
	}
	(*cp.Ints.p)[0], (*cp.More[0].p)[0] = 1, 40
	want, _ := json.Marshal(w)
	if got, _ := json.Marshal(cp); string(got) != string(want) {
		t.Fatalf("copy encodes as %s, want %s", got, want)
	}
	packedSized = 0
	if n, err := EncodedSize(w); err != nil || n != int64(len(want)) || packedSized != 3 {
		t.Fatalf("EncodedSize %d (%v) with %d JSONSize calls, want %d with 3", n, err, packedSized, len(want))
	}
}
