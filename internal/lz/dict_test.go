package lz

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// testDict is a dictionary of the keys and punctuation an object's JSON
// repeats, as a twin would make one.
var testDict = []byte(`{"id":"","object":"thing","address":null,"balance":0,"created":0,"currency":null,"description":null,"email":null,"metadata":{},"name":null,"phone":null,"livemode":false}`)

// thing is one value of the kind testDict is made for.
func thing(i int) []byte {
	return fmt.Appendf(nil, `{"id":"thg_%08x","object":"thing","address":null,"balance":%d,"created":%d,"currency":"usd","description":"Thing number %d","email":"user%d@example.com","metadata":{"n":"%d"},"name":"Thing %d","phone":null,"livemode":false}`,
		rand.Uint32(), i*7, 1764000000+i, i, i, i, i)
}

func dictRoundTrip(t testing.TB, d *Dict, src []byte) []byte {
	t.Helper()
	z := d.Compress(nil, src)
	// Decompress appends: what dst held stays.
	got, err := d.Decompress([]byte("kept"), z, len(src))
	if err != nil || !bytes.Equal(got[4:], src) || string(got[:4]) != "kept" {
		t.Fatalf("round trip of %d bytes (%q…): err %v, %d bytes back", len(src), src[:min(len(src), 40)], err, len(got))
	}
	return z
}

// TestDictRoundTrip: values come back byte for byte whatever they hold:
// empty and tiny ones, the dictionary itself and its end run into the
// value's start (a copy from the dictionary into the value), runs, random
// bytes, values longer than a value's table; with an empty dictionary too.
func TestDictRoundTrip(t *testing.T) {
	d := NewDict(testDict)
	r := rand.New(rand.NewPCG(1, 2))
	random := make([]byte, 3000)
	for i := range random {
		random[i] = byte(r.Uint32())
	}
	var many []byte
	for i := range 200 {
		many = append(many, thing(i)...)
	}
	tail := testDict[len(testDict)-20:]
	cases := map[string][]byte{
		"empty":             {},
		"one":               []byte("{"),
		"four":              []byte(`{"id`),
		"the dictionary":    testDict,
		"dictionary twice":  append(append([]byte(nil), testDict...), testDict...),
		"dictionary's end":  append(append([]byte(nil), tail...), tail...),
		"a run":             bytes.Repeat([]byte("a"), 1000),
		"random":            random,
		"a value":           thing(1),
		"many values":       many,
		"nothing in common": []byte(strings.Repeat("0123456789", 30)),
	}
	for name, src := range cases {
		t.Run(name, func(t *testing.T) {
			dictRoundTrip(t, d, src)
			dictRoundTrip(t, NewDict(nil), src)
		})
	}
}

// TestDictCompresses: a value of the kind the dictionary is made for
// shrinks to a fraction of itself, well below what it shrinks to on its
// own; the dictionary itself to a few bytes.
func TestDictCompresses(t *testing.T) {
	d := NewDict(testDict)
	v := thing(42)
	z := dictRoundTrip(t, d, v)
	alone := dictRoundTrip(t, NewDict(nil), v)
	if len(z)*2 > len(v) || len(z) >= len(alone) {
		t.Errorf("a %d-byte value: %d bytes with the dictionary, %d without", len(v), len(z), len(alone))
	}
	if z := dictRoundTrip(t, d, testDict); len(z) > 8 {
		t.Errorf("the dictionary compressed to %d bytes, want a copy or two", len(z))
	}
}

// TestDictCorrupt: a value cut short, padded, said to hold another
// length, read with another dictionary whose length it reaches past, or
// with a copy reaching before the dictionary, is refused.
func TestDictCorrupt(t *testing.T) {
	d := NewDict(testDict)
	v := thing(7)
	z := d.Compress(nil, v)
	for i := range len(z) {
		if _, err := d.Decompress(nil, z[:i], len(v)); err == nil {
			t.Errorf("value cut to %d of %d bytes: decoded", i, len(z))
		}
	}
	bad := map[string]struct {
		d   *Dict
		src []byte
		raw int
	}{
		"padded":              {d, append(bytes.Clone(z), 0), len(v)},
		"raw larger":          {d, z, len(v) + 1},
		"raw smaller":         {d, z, len(v) - 1},
		"no dictionary":       {NewDict(nil), z, len(v)},
		"copy before it":      {d, []byte{0x00, byte(len(testDict) + 1), 0x00}, 4},
		"copy at start, none": {NewDict(nil), []byte{0x00, 1, 0x00}, 4},
	}
	for name, c := range bad {
		if out, err := c.d.Decompress(nil, c.src, c.raw); err == nil {
			t.Errorf("%s: decoded to %q, want an error", name, out)
		}
	}
	// A copy of the dictionary's last bytes, run on into the value: read
	// back piece by piece.
	src := []byte{0x02, 4, 0x00} // copy 6 bytes from 4 before the value
	got, err := d.Decompress(nil, src, 6)
	last := testDict[len(testDict)-4:]
	if err != nil || string(got) != string(last)+string(last[:2]) {
		t.Errorf("a copy across the dictionary's end: %q, %v", got, err)
	}
}

// FuzzDict: any bytes compress and come back; any bytes fed to the
// decoder either decode to exactly the length asked or are refused.
func FuzzDict(f *testing.F) {
	f.Add(thing(3), 10)
	f.Add(testDict, 100)
	d := NewDict(testDict)
	f.Fuzz(func(t *testing.T, b []byte, raw int) {
		dictRoundTrip(t, d, b)
		raw = max(raw, 0) % (1 << 20)
		if out, err := d.Decompress(nil, b, raw); err == nil && len(out) != raw {
			t.Fatalf("decoded %d bytes, asked %d", len(out), raw)
		}
	})
}

// BenchmarkDict: a 300-byte value compressed against its dictionary and
// read back, and the bytes it leaves.
//
//	go test -run '^$' -bench Dict ./internal/lz/
func BenchmarkDict(b *testing.B) {
	d := NewDict(testDict)
	v := thing(42)
	b.Run("compress", func(b *testing.B) {
		var z []byte
		b.SetBytes(int64(len(v)))
		for b.Loop() {
			z = d.Compress(z[:0], v)
		}
		b.ReportMetric(float64(len(z)), "out-B")
		b.ReportMetric(float64(len(v)), "in-B")
	})
	b.Run("decompress", func(b *testing.B) {
		z := d.Compress(nil, v)
		var out []byte
		b.SetBytes(int64(len(v)))
		for b.Loop() {
			var err error
			if out, err = d.Decompress(out[:0], z, len(v)); err != nil {
				b.Fatal(err)
			}
		}
	})
}
