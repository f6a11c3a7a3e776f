package slab

import (
	"testing"
	"unsafe"
)

type rec struct {
	n int
	s string
}

// Every value New hands out is its own: writing one never changes another,
// also across copies of the slab and across blocks.
func TestNewValuesAreDistinct(t *testing.T) {
	var a Slab[rec]
	b := a // a copy made before the first value: it has no state to share
	var got []*rec
	for i := range 2000 {
		s := &a
		if i%3 == 1 {
			s = &b
		}
		r := s.New()
		if *r != (rec{}) {
			t.Fatalf("value %d is not zero: %+v", i, *r)
		}
		r.n, r.s = i, "v"
		got = append(got, r)
		if i == 0 {
			b = a // from now on the copies share the block
		}
	}
	for i, r := range got {
		if r.n != i {
			t.Fatalf("value %d was overwritten: holds %d", i, r.n)
		}
	}
}

// Blocks double from one value up to BlockBytes, so a small world holds
// little and a large one few objects.
func TestBlocksGrow(t *testing.T) {
	var s Slab[rec]
	var caps []int
	for range 1000 {
		s.New()
		if c := cap(s.st.block); len(caps) == 0 || caps[len(caps)-1] != c {
			caps = append(caps, c)
		}
	}
	most := BlockBytes / int(unsafe.Sizeof(rec{}))
	if caps[0] != 1 || caps[1] != 2 || caps[2] != 4 {
		t.Fatalf("blocks start at %v, not 1, 2, 4", caps[:3])
	}
	if last := caps[len(caps)-1]; last != most {
		t.Fatalf("the largest block holds %d values, not %d", last, most)
	}
	type big [BlockBytes * 2]byte
	var b Slab[big]
	b.New()
	b.New()
	if cap(b.st.block) != 1 {
		t.Fatalf("a value over BlockBytes gets blocks of %d", cap(b.st.block))
	}
}
