package session

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"testing"
)

// TestCompactDue: a world's deltas are compacted by the write that brings
// them to a drawn fraction, from a half to all, of the bounds (their
// count, their bytes); each sandbox draws its own, the same on every
// replica and every time, and a store set to compact after n deltas (the
// tests') does so exactly.
func TestCompactDue(t *testing.T) {
	s := &RedisStore{}
	firstDue := func(id string, base int64, delta int64, docLen int64) int64 {
		for n := int64(1); ; n++ {
			if s.compactDue(id, "github", &worldEntry{ver: base + n, base: base, dlen: n * delta, docLen: docLen}) {
				return n
			}
		}
	}
	byCount, byBytes := map[int64]bool{}, map[int64]bool{}
	for i := range 200 {
		id := fmt.Sprintf("ses_%d", i)
		// Tiny deltas: the count bound.
		n := firstDue(id, 7, 1, 1<<20)
		if n < compactMaxDeltas/2 || n > compactMaxDeltas {
			t.Fatalf("%s: compacted after %d deltas of a byte, want %d to %d", id, n, compactMaxDeltas/2, compactMaxDeltas)
		}
		if again := firstDue(id, 7, 1, 1<<20); again != n {
			t.Fatalf("%s: compacted after %d deltas, then %d: the draw is not the sandbox's own", id, n, again)
		}
		byCount[n] = true
		// Deltas of 1 KiB on a base of 1 MiB: a quarter of it.
		n = firstDue(id, 7, 1<<10, 1<<20)
		if n < 128 || n > 256 {
			t.Fatalf("%s: compacted after %d deltas of 1 KiB on a base of 1 MiB, want 128 to 256", id, n)
		}
		byBytes[n] = true
	}
	if len(byCount) < 50 || len(byBytes) < 50 {
		t.Fatalf("200 sandboxes drew %d and %d different points: they would compact together", len(byCount), len(byBytes))
	}
	if firstDue("ses_0", 7, 1, 1<<20) == firstDue("ses_0", 8, 1, 1<<20) && firstDue("ses_1", 7, 1, 1<<20) == firstDue("ses_1", 8, 1, 1<<20) && firstDue("ses_2", 7, 1, 1<<20) == firstDue("ses_2", 8, 1, 1<<20) {
		t.Error("a new base draws the same point as the one before, for three sandboxes")
	}
	s.compactAfter = 3
	if n := firstDue("ses_0", 7, 1<<20, 1); n != 3 {
		t.Errorf("a store set to compact after 3 deltas compacted after %d", n)
	}
}

// TestCompactDraw: the draw is FNV-1a of the sandbox id, the twin and the
// base's eight bytes, each string closed by a zero byte, and allocates
// nothing (it runs on every write).
func TestCompactDraw(t *testing.T) {
	for _, c := range []struct {
		id, twin string
		base     int64
	}{{"ses_4kFlFNTSfJCTyZBn", "github", 1}, {"", "", 0}, {"ses_x", "stripe", -1}, {"ses_y", "gmail", 1 << 40}} {
		h := fnv.New64a()
		h.Write([]byte(c.id + "\x00" + c.twin + "\x00"))
		binary.Write(h, binary.LittleEndian, c.base)
		if got, want := compactDraw(c.id, c.twin, c.base), h.Sum64(); got != want {
			t.Errorf("compactDraw(%q, %q, %d) = %x, FNV-1a gives %x", c.id, c.twin, c.base, got, want)
		}
	}
	if n := testing.AllocsPerRun(100, func() { compactDraw("ses_4kFlFNTSfJCTyZBn", "github", 12345) }); n != 0 {
		t.Errorf("compactDraw allocates %v times", n)
	}
}
