package twins

import (
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"
)

type sizeText struct{ S string }

func (t sizeText) MarshalText() ([]byte, error) { return []byte("<" + t.S + ">"), nil }

// sizePtrJSON marshals only through its pointer: encoding/json uses the
// method where the value is addressable (slice elements, fields reached
// through a pointer) and the plain struct elsewhere (map values, copies).
type sizePtrJSON struct{ N int }

func (p *sizePtrJSON) MarshalJSON() ([]byte, error) {
	return []byte(`{ "n" : ` + strconv.Itoa(p.N) + ` , "x":"a & b" }`), nil
}

type sizePtrText struct{ N int }

func (p *sizePtrText) MarshalText() ([]byte, error) { return []byte("n=" + strconv.Itoa(p.N)), nil }

type sizeFailing struct{}

func (sizeFailing) MarshalJSON() ([]byte, error) { return nil, errors.New("no") }

type sizeIntKey int

func (k sizeIntKey) MarshalText() ([]byte, error) { return []byte("k" + strconv.Itoa(int(k))), nil }

type sizeEmbedded struct {
	sizeInner
	Own string `json:"own"`
}

type sizeInner struct {
	A int    `json:"a"`
	B string `json:"b,omitempty"`
}

type sizeOptions struct {
	N  int     `json:"n,string"`
	F  float64 `json:"f,omitzero"`
	Ok bool    `json:"ok"`
}

type sizeNode struct {
	Name string      `json:"name"`
	Kids []*sizeNode `json:"kids,omitempty"`
	Next *sizeNode   `json:"next"`
}

type sizeAll struct {
	B       bool                   `json:"b"`
	I       int64                  `json:"i,omitempty"`
	I8      int8                   `json:"i8"`
	U       uint32                 `json:"u"`
	F32     float32                `json:"f32"`
	F64     float64                `json:"f64"`
	Zero    float64                `json:"zero,omitempty"`
	S       string                 `json:"s"`
	Empty   string                 `json:"empty,omitempty"`
	Skip    string                 `json:"-"`
	Dash    string                 `json:"-,"`
	NoTag   string                 //nolint
	private string                 //nolint
	P       *string                `json:"p"`
	Any     any                    `json:"any"`
	Bytes   []byte                 `json:"bytes"`
	NilB    []byte                 `json:"nil_b"`
	Arr     [3]byte                `json:"arr"`
	Raw     json.RawMessage        `json:"raw"`
	NilRaw  json.RawMessage        `json:"nil_raw"`
	Num     json.Number            `json:"num"`
	NoNum   json.Number            `json:"no_num"`
	T       time.Time              `json:"t"`
	TP      *time.Time             `json:"tp"`
	Text    sizeText               `json:"text"`
	PJ      sizePtrJSON            `json:"pj"`
	PT      sizePtrText            `json:"pt"`
	PJs     []sizePtrJSON          `json:"pjs"`
	PJMap   map[string]sizePtrJSON `json:"pj_map"`
	PTMap   map[string]sizePtrText `json:"pt_map"`
	SM      map[string]string      `json:"sm"`
	NilMap  map[string]int         `json:"nil_map"`
	IntMap  map[int]string         `json:"int_map"`
	UMap    map[uint8]bool         `json:"u_map"`
	TxtMap  map[sizeIntKey]int     `json:"txt_map"`
	AnyMap  map[string]any         `json:"any_map"`
	Embed   sizeEmbedded           `json:"embed"`
	Opts    sizeOptions            `json:"opts"`
	Node    *sizeNode              `json:"node"`
	Slice   []any                  `json:"slice"`
	NilS    []int                  `json:"nil_s"`
	Weird   string                 `json:"we ird"`
}

func sizeFixture(s string, f float64) sizeAll {
	p := s + "\u2028"
	tp := time.Date(2026, 12, 5, 19, 0, 0, 123000000, time.FixedZone("", 3600))
	return sizeAll{
		B: true, I: -42, I8: math.MinInt8, U: math.MaxUint32, F32: float32(f), F64: f,
		S: s, Skip: s, Dash: s, NoTag: s, private: s, P: &p, Any: map[string]any{"x": []any{1.5, s, nil, true}},
		Bytes: []byte(s), Arr: [3]byte{1, 2, 3},
		Raw: json.RawMessage(" {\n \"a\" : [1, 2, \"x y <b>\"],\t\"c\\\"d\": \"\u2029\" } "),
		Num: "1e+10", T: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), TP: &tp,
		Text: sizeText{s}, PJ: sizePtrJSON{7}, PT: sizePtrText{8}, PJs: []sizePtrJSON{{1}, {22}},
		PJMap: map[string]sizePtrJSON{"a": {3}}, PTMap: map[string]sizePtrText{"<b>": {4}},
		SM: map[string]string{s: s, "k": ""}, IntMap: map[int]string{-3: s, 10: "x"}, UMap: map[uint8]bool{255: false},
		TxtMap: map[sizeIntKey]int{5: 6}, AnyMap: map[string]any{"n": nil, "t": sizeText{"x"}, "p": &sizePtrJSON{9}},
		Embed: sizeEmbedded{sizeInner{1, s}, s}, Opts: sizeOptions{N: 12, F: f},
		Node:  &sizeNode{Name: s, Kids: []*sizeNode{{Name: "k"}, nil}, Next: &sizeNode{Name: "n"}},
		Slice: []any{s, f, int64(-1), []byte("ab"), sizePtrJSON{5}, &sizePtrJSON{6}, map[int]int{1: 2}},
		Weird: s,
	}
}

func checkSize(t *testing.T, v any) {
	t.Helper()
	doc, err := json.Marshal(v)
	n, serr := EncodedSize(v)
	if (err != nil) != (serr != nil) {
		t.Fatalf("json.Marshal error %v, EncodedSize error %v", err, serr)
	}
	if err == nil && n != int64(len(doc)) {
		t.Fatalf("EncodedSize = %d, json.Marshal gives %d bytes:\n%s", n, len(doc), doc)
	}
}

// TestEncodedSize: EncodedSize counts what json.Marshal writes, for every
// kind encoding/json handles and each of its rules that changes a length.
func TestEncodedSize(t *testing.T) {
	strs := []string{"", "plain", "<a href=\"x\">&amp;</a>", "tab\tnl\nnul\x00bs\bff\fcr\r\x1f\x7f", "back\\slash",
		"é 漢字 🙂", "bad \xff\xfe utf8 \xc3", "line\u2028sep\u2029", "\xe2\x80", "quote\"s"}
	floats := []float64{0, math.Copysign(0, -1), 1, -1.5, 1e20, 1e21, 1e-6, 1e-7, 123456789.125, 3.4e38, 1e-320, 0.1}
	for _, s := range strs {
		for _, f := range floats {
			x := sizeFixture(s, f)
			checkSize(t, x)
			checkSize(t, &x)
			checkSize(t, []sizeAll{x})
			checkSize(t, map[string]sizeAll{"x": x})
			checkSize(t, map[string]*sizeAll{"x": &x})
			checkSize(t, []any{x, &x})
		}
	}
	for _, v := range []any{
		nil, true, 0, "x", []int(nil), map[string]int(nil), (*int)(nil), [0]int{}, []string{},
		map[string]int{}, struct{}{}, json.RawMessage(nil), json.Number(""), sizeText{},
		sizePtrJSON{1}, &sizePtrJSON{1}, sizePtrText{2}, &sizePtrText{2}, []sizePtrText{{3}},
		map[sizeIntKey]sizePtrText{1: {2}}, [2]sizePtrJSON{{1}, {2}}, &[2]sizePtrJSON{{1}, {2}},
		time.Time{}, time.Date(2026, 1, 1, 0, 0, 0, 0, time.FixedZone("", 30)), time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(1, 0, 0), float32(1e-7), float32(16777216), math.MaxInt64, math.MinInt64, uint64(math.MaxUint64),
		map[string]map[string]sizePtrJSON{"a": {"b": {1}}}, struct{ M map[string]sizePtrJSON }{map[string]sizePtrJSON{"a": {2}}},
	} {
		checkSize(t, v)
	}
}

// TestEncodedSizeErrors: what json.Marshal refuses, EncodedSize refuses.
func TestEncodedSizeErrors(t *testing.T) {
	for _, v := range []any{
		math.NaN(), math.Inf(1), float32(math.Inf(-1)), []any{math.NaN()}, map[string]any{"f": func() {}},
		make(chan int), complex(1, 2), map[[2]int]int{{1, 2}: 3}, sizeFailing{}, []sizeFailing{{}},
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
	} {
		if _, err := json.Marshal(v); err == nil {
			t.Fatalf("json.Marshal(%#v) did not fail", v)
		}
		if n, err := EncodedSize(v); err == nil {
			t.Errorf("EncodedSize(%#v) = %d, want an error", v, n)
		}
	}
}

// FuzzEncodedSize: arbitrary strings, floats and raw JSON in every place
// the fixture has them.
func FuzzEncodedSize(f *testing.F) {
	f.Add("plain", 1.5, []byte(`{"a":1}`))
	f.Add("<\u2028\xff\"\\\x01", 1e21, []byte(" [ \"<&>\u2028\" , {\"k\" : null} ] "))
	f.Add("", -0.0, []byte(`"\\\""`))
	f.Fuzz(func(t *testing.T, s string, fl float64, raw []byte) {
		if math.IsNaN(fl) || math.IsInf(fl, 0) {
			fl = 0
		}
		x := sizeFixture(s, fl)
		if json.Valid(raw) {
			x.Raw = raw
		}
		x.Num = ""
		if _, err := strconv.ParseFloat(s, 64); err == nil && json.Valid([]byte(s)) {
			x.Num = json.Number(s)
		}
		checkSize(t, x)
		checkSize(t, map[string]any{s: x, "raw": json.RawMessage(x.Raw)})
	})
}

// TestIntLen: digits of every power of ten, one either side, and the
// extremes.
func TestIntLen(t *testing.T) {
	check := func(i int64) {
		if got, want := intLen(i), int64(len(strconv.FormatInt(i, 10))); got != want {
			t.Fatalf("intLen(%d) = %d, want %d", i, got, want)
		}
	}
	checkU := func(u uint64) {
		if got, want := uintLen(u), int64(len(strconv.FormatUint(u, 10))); got != want {
			t.Fatalf("uintLen(%d) = %d, want %d", u, got, want)
		}
	}
	for _, i := range []int64{0, 1, -1, math.MaxInt64, math.MinInt64, math.MinInt64 + 1} {
		check(i)
	}
	checkU(math.MaxUint64)
	for p := uint64(1); ; p *= 10 {
		for _, u := range []uint64{p - 1, p, p + 1} {
			checkU(u)
			if u <= math.MaxInt64 {
				check(int64(u))
				check(-int64(u))
			}
		}
		if p > math.MaxUint64/10 {
			break
		}
	}
	for b := range 64 {
		checkU(1 << b)
		checkU(1<<b - 1)
	}
}

// TestSizeMemo: a struct with a SizeMemo field is counted once, through a
// pointer (where the memo can be kept), and the count is json.Marshal's.
func TestSizeMemo(t *testing.T) {
	type event struct {
		ID    string          `json:"id"`
		Data  json.RawMessage `json:"data"`
		Sized SizeMemo        `json:"-"`
	}
	type world struct {
		Events []*event `json:"events"`
	}
	w := &world{Events: []*event{{ID: "evt_1", Data: json.RawMessage(`{"a": 1}`)}, {ID: "evt_2", Data: json.RawMessage(`[]`)}}}
	want, _ := json.Marshal(w)
	got, err := EncodedSize(w)
	if err != nil || got != int64(len(want)) {
		t.Fatalf("EncodedSize = %d, %v; want %d", got, err, len(want))
	}
	// The memo is what answers the second time: a change it was promised
	// would not happen goes uncounted.
	w.Events[0].ID = "evt_10000"
	if again, _ := EncodedSize(w); again != got {
		t.Fatalf("EncodedSize after a change = %d, want the remembered %d", again, got)
	}
	// A fresh value, and a value that is not addressable, are counted.
	fresh := *w.Events[0]
	fresh.Sized = SizeMemo{}
	wantFresh, _ := json.Marshal(&fresh)
	if n, _ := EncodedSize(&fresh); n != int64(len(wantFresh)) {
		t.Fatalf("fresh event: %d, want %d", n, len(wantFresh))
	}
	byValue := event{ID: "evt_3"}
	wantValue, _ := json.Marshal(byValue)
	for range 2 {
		if n, _ := EncodedSize(byValue); n != int64(len(wantValue)) {
			t.Fatalf("event by value: %d, want %d", n, len(wantValue))
		}
	}
}

// TestStringLenEveryPlace: every byte value, and runes that take several,
// at every offset of strings long enough to be read eight bytes at a time,
// counted as json.Marshal writes them.
func TestStringLenEveryPlace(t *testing.T) {
	specials := []string{"\x00", "\x1f", " ", "\"", "\\", "<", ">", "&", "\x7f", "\x80", "\xff", "é", "漢", "🙂", "\u2028", "\u2029", "\xe2\x80"}
	for b := range 256 {
		specials = append(specials, string([]byte{byte(b)}))
	}
	for _, size := range []int{7, 8, 9, 16, 17, 31} {
		for at := 0; at < size; at++ {
			for _, sp := range specials {
				s := strings.Repeat("a", at) + sp + strings.Repeat("b", size-at)
				want, _ := json.Marshal(s)
				if got := stringLen(s); got != int64(len(want)) {
					t.Fatalf("stringLen(%q) = %d, json.Marshal gives %d", s, got, len(want))
				}
			}
		}
	}
}

// TestRFC3339NanoLen: a time's length as counted is MarshalJSON's, for
// fractions of every length, UTC and other offsets, and the years' ends.
func TestRFC3339NanoLen(t *testing.T) {
	zones := []*time.Location{time.UTC, time.FixedZone("", 0), time.FixedZone("", 14*3600), time.FixedZone("", -12*3600), time.FixedZone("", 30), time.FixedZone("", 24*3600), time.FixedZone("CET", 3600), time.FixedZone("", -(9*3600 + 30*60)), time.FixedZone("", 23*3600+59*60)}
	nanos := []int{0, 1, 10, 100_000, 120_000_000, 100_000_000, 999_999_999, 500, 123_456_789}
	if time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC).Unix() != firstYear0 || time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC).Unix() != lastYear9999 {
		t.Fatal("firstYear0 or lastYear9999 is not the second it names")
	}
	for _, y := range []int{-1, 0, 1, 999, 2026, 9999, 10000} {
		for _, z := range zones {
			for _, ns := range nanos {
				tm := time.Date(y, 12, 31, 23, 59, 59, ns, z)
				if tm.Year() != y {
					continue
				}
				want, err := tm.MarshalJSON()
				got, gotErr := EncodedSize(tm)
				if err != nil || gotErr != nil {
					if (err == nil) != (gotErr == nil) {
						t.Fatalf("EncodedSize(%s): %v; MarshalJSON: %v", tm, gotErr, err)
					}
					continue
				}
				if got != int64(len(want)) {
					t.Fatalf("EncodedSize(%s) = %d, MarshalJSON gives %d (%s)", tm, got, len(want), want)
				}
			}
		}
	}
}
