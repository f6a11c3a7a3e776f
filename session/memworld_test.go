package session

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/pomehq/pome/twins/all"
	"github.com/pomehq/pome/twins/github"
)

// TestSeedDocPatch: a document kept against a reference reads back byte
// for byte, whatever differs and wherever.
func TestSeedDocPatch(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range 2000 {
		n := rng.IntN(3000)
		ref := make([]byte, n)
		for j := range ref {
			ref[j] = byte('a' + rng.IntN(26))
		}
		doc := bytes.Clone(ref)
		for range rng.IntN(1 + n/50) {
			if n > 0 {
				doc[rng.IntN(n)] = byte(rng.IntN(256))
			}
		}
		if i%7 == 0 && n > 0 {
			doc[0], doc[n-1] = '!', '?'
		}
		p, ok := makePatch(ref, doc)
		if !ok {
			continue
		}
		if got := applyPatch(ref, p); !bytes.Equal(got, doc) {
			t.Fatalf("case %d: patched document differs", i)
		}
	}
	var r docRefs
	a := []byte(`{"created_at":"2026-12-05T13:35:06Z","id":"T0001","n":[1,2,3]}`)
	b := []byte(`{"created_at":"2026-12-05T13:35:07Z","id":"T0002","n":[1,2,3]}`)
	c := []byte(`{"other":"shape entirely, but of the very same length, ok?"}` + "     ")
	for _, doc := range [][]byte{a, b, c, a, []byte(`{}`)} {
		kept := r.keep("x", doc)
		if got := kept.bytes(); !bytes.Equal(got, doc) || kept.len() != len(doc) {
			t.Fatalf("kept %s, read back %s", doc, got)
		}
	}
	if kb := r.keep("x", b); kb.ref == nil || len(kb.patch) > 8 {
		t.Errorf("a document close to the reference is kept whole or large: %+v", kb)
	}
}

// TestMemoryLazyWorld: a sandbox's worlds are decoded from their seed
// documents by the first call, which many may make at once; until a write
// the state is the seed; a write changes neither the seed nor another
// sandbox's, though their documents share a reference.
func TestMemoryLazyWorld(t *testing.T) {
	ctx := context.Background()
	s := NewMemoryStore(nil, time.Hour)
	defer s.Close()
	reg := all.Registry()
	m := NewManager(s, reg, Config{TTL: time.Hour, MaxTwins: 3, SandboxQuota: 100}, nil)
	names := []string{"github", "slack", "stripe"}
	var sbs []*Sandbox
	for range 3 {
		c, err := m.Create(ctx, "t", CreateRequest{Twins: names})
		if err != nil {
			t.Fatal(err)
		}
		sbs = append(sbs, c.Sandbox)
	}
	seeds := map[string][]byte{}
	for _, sb := range sbs {
		for _, name := range names {
			tw, _ := reg.Get(name)
			seed, err := s.Seed(ctx, sb, name)
			if err != nil {
				t.Fatal(err)
			}
			seeds[sb.ID+name] = bytes.Clone(seed)
			if st, err := s.State(ctx, sb, name); err != nil || !bytes.Equal(st, seed) {
				t.Fatalf("%s state before any call differs from its seed: %v", name, err)
			}
			// Many first calls at once, reads and a write.
			var wg sync.WaitGroup
			for i := range 6 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					err := s.Update(ctx, sb, tw, i == 5 && name != "github", func(w any) (bool, error) {
						doc, err := json.Marshal(w)
						if err == nil && !bytes.Equal(doc, seed) {
							t.Errorf("%s: the decoded world encodes differently from its seed", name)
						}
						return false, err
					})
					if err != nil {
						t.Error(err)
					}
				}()
			}
			wg.Wait()
		}
	}
	gh, _ := reg.Get("github")
	if err := s.Update(ctx, sbs[1], gh, true, func(w any) (bool, error) {
		w.(*github.World).Me = "someone-else"
		return true, nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, sb := range sbs {
		for _, name := range names {
			seed, _ := s.Seed(ctx, sb, name)
			if !bytes.Equal(seed, seeds[sb.ID+name]) {
				t.Errorf("%s seed of %s changed", name, sb.ID)
			}
			st, _ := s.State(ctx, sb, name)
			if changed := !bytes.Equal(st, seed); changed != (sb == sbs[1] && name == "github") {
				t.Errorf("%s state of %s changed: %v", name, sb.ID, changed)
			}
		}
	}
}

// TestSampleDue: the writes between two measures of a roomy world are
// drawn from half of sampleInterval to all of it, so that worlds written to
// in step are measured on different writes, and never more than the
// interval the budgets leave room for (roomy). The interval follows the
// growth the world's writes showed, from a quarter of sampleGrowth to
// sampleGrowth: until the world could have grown by a half where its
// budget has room for four times that, else by a quarter.
func TestSampleDue(t *testing.T) {
	for _, shown := range []int64{0, 1, 100, 300, 1 << 10, 16 << 10} {
		g := writeGrowth(shown)
		for _, size := range []int64{0, 10 << 10, 256 << 10, 4 << 20, 100 << 20} {
			for _, room := range []int64{math.MaxInt64, 2 * size, size} {
				n := sampleInterval(size, g, room)
				seen := map[int64]bool{}
				for range 2000 {
					d := sampleDue(size, g, room)
					if d < n-n/2 || d > n {
						t.Fatalf("sampleDue(%d, %d, %d) = %d, want %d to %d", size, g, room, d, n-n/2, n)
					}
					seen[d] = true
				}
				if len(seen) < 10 {
					t.Fatalf("sampleDue(%d, %d, %d) drew %d values in 2,000 draws: %v", size, g, room, len(seen), seen)
				}
			}
		}
	}
	const mib = 1 << 20
	for _, c := range []struct{ shown, growth, room, interval int64 }{
		// No budget, or room for four times the world: until it could
		// have doubled.
		{0, 1 << 10, math.MaxInt64, 1024}, {1, 256, math.MaxInt64, 4096}, {100, 256, math.MaxInt64, 4096},
		{300, 300, math.MaxInt64, 3495}, {1500, 1500, math.MaxInt64, 1024}, {16 << 10, 16 << 10, math.MaxInt64, 1024},
		{0, 1 << 10, 4 * mib, 1024}, {1500, 1500, 4 * 1500 * 1024, 1024},
		// Room for four times half the world: a half.
		{0, 1 << 10, 4*mib - 1, 512}, {1500, 1500, 4*1500*1024 - 1, 512}, {1, 256, 2 * mib, 2048},
		{0, 1 << 10, 2 * mib, 512}, {1500, 1500, 4 * 1500 * 512, 512},
		// Less room: a quarter.
		{0, 1 << 10, 2*mib - 1, 256}, {1, 256, mib, 1024}, {1500, 1500, 4*1500*512 - 1, 256}, {16 << 10, 16 << 10, 31 * mib, 256},
	} {
		if g := writeGrowth(c.shown); g != c.growth || sampleInterval(mib, g, c.room) != c.interval {
			t.Errorf("writes shown to add %d bytes, %d bytes of room: taken as %d, a world of 1 MiB measured every %d writes; want %d, %d",
				c.shown, c.room, g, sampleInterval(mib, g, c.room), c.growth, c.interval)
		}
	}
}
