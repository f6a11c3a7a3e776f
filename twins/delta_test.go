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
