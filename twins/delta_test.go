package twins

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
)

// TestWorldDeltaNegativeZero: encoding/json writes an omitempty float
// holding -0 (only +0 is empty to it), so a delta must carry it: a world
// rebuilt from the delta encodes exactly as the world the write left.
func TestWorldDeltaNegativeZero(t *testing.T) {
	type world struct {
		F float64 `json:"f,omitempty"`
		G float32 `json:"g,omitempty"`
		H float64 `json:"h"`
	}
	negZero := math.Copysign(0, -1)
	for _, c := range []struct {
		name          string
		before, after world
	}{
		{"one to -0", world{F: 1, G: 1, H: 1}, world{F: negZero, G: float32(negZero), H: negZero}},
		{"+0 to -0", world{}, world{F: negZero, G: float32(negZero), H: negZero}},
		{"-0 to +0", world{F: negZero, G: float32(negZero), H: negZero}, world{}},
		{"-0 to one", world{F: negZero}, world{F: 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			before, after := c.before, c.after
			delta, ok, err := WorldDelta(&before, &after)
			if err != nil || !ok {
				t.Fatalf("WorldDelta: %v, %v", ok, err)
			}
			rebuilt, err := ApplyDelta(&before, delta)
			if err != nil {
				t.Fatalf("ApplyDelta(%s): %v", delta, err)
			}
			want, _ := json.Marshal(&after)
			got, _ := json.Marshal(rebuilt)
			if !bytes.Equal(got, want) {
				t.Fatalf("delta %s rebuilds %s, want %s", delta, got, want)
			}
		})
	}
}

// packed is a ByteEncoded type: its JSON is its bytes reversed, and it
// counts its encodings.
type packed []byte

var packedEncodings int

func (p packed) MarshalJSON() ([]byte, error) {
	packedEncodings++
	s := make([]byte, len(p))
	for i, c := range p {
		s[len(p)-1-i] = c
	}
	return json.Marshal(string(s))
}

func (p *packed) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	*p = make(packed, len(s))
	for i := range len(s) {
		(*p)[len(s)-1-i] = s[i]
	}
	return nil
}

func (packed) ByteEncoded() {}

// TestWorldDeltaByteEncoded: values of a ByteEncoded type are compared by
// their bytes, never encoded to be compared: a list of them copied apart
// but equal gives no delta without one encoding; one that changed is
// replaced by its encoding, and the world rebuilt from the delta encodes
// as the world the write left.
func TestWorldDeltaByteEncoded(t *testing.T) {
	type event struct {
		ID  string `json:"id"`
		Obj packed `json:"obj"`
	}
	type world struct {
		Events []*event `json:"events"`
	}
	mk := func(objs ...string) *world {
		w := &world{}
		for i, o := range objs {
			w.Events = append(w.Events, &event{ID: string(rune('a' + i)), Obj: packed(o)})
		}
		return w
	}
	packedEncodings = 0
	if delta, ok, err := WorldDelta(mk("one", "two", "three"), mk("one", "two", "three")); err != nil || !ok || string(delta) != "[]" || packedEncodings != 0 {
		t.Fatalf("equal worlds: delta %s, %v, %v; %d encodings", delta, ok, err, packedEncodings)
	}
	before, after := mk("one", "two", "three"), mk("one", "TWO", "three")
	delta, ok, err := WorldDelta(before, after)
	if err != nil || !ok || packedEncodings != 1 || !bytes.Contains(delta, []byte(`"OWT"`)) {
		t.Fatalf("one changed: delta %s, %v, %v; %d encodings", delta, ok, err, packedEncodings)
	}
	rebuilt, err := ApplyDelta(before, delta)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(after)
	got, _ := json.Marshal(rebuilt)
	if !bytes.Equal(got, want) {
		t.Fatalf("rebuilt %s, want %s", got, want)
	}
}
