package strchunk

import (
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"unsafe"
)

func TestKeep(t *testing.T) {
	var s Store
	if got := s.Keep(""); got != "" || s.Held() != 0 {
		t.Fatalf("empty string: %q, held %d", got, s.Held())
	}
	long := strings.Repeat("x", MaxLen+1)
	if got := s.Keep(long); unsafe.StringData(got) != unsafe.StringData(long) || s.Held() != 0 {
		t.Fatal("a string over MaxLen was copied")
	}
	a := s.Keep("first body")
	b := s.Keep(strings.Repeat("y", MaxLen))
	if a != "first body" || b != strings.Repeat("y", MaxLen) {
		t.Fatalf("kept strings differ: %q, %d bytes", a, len(b))
	}
	if uintptr(unsafe.Pointer(unsafe.StringData(b)))-uintptr(unsafe.Pointer(unsafe.StringData(a))) != uintptr(len(a)) {
		t.Error("two short strings were not kept side by side in one chunk")
	}
	if s.Held() != len(a)+len(b) {
		t.Errorf("held %d, want %d", s.Held(), len(a)+len(b))
	}
}

// Strings fill a chunk and go on in a new one; every string kept reads
// back the same after collections and after Reset.
func TestKeptStringsLast(t *testing.T) {
	var s Store
	var want, got []string
	for i := range 5000 {
		v := strings.Repeat(string(rune('a'+i%26)), 1+i%300)
		want = append(want, v)
		got = append(got, s.Keep(v))
		if i == 2500 {
			s.reset()
		}
	}
	runtime.GC()
	runtime.GC()
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("string %d reads %q after collections, want %q", i, got[i], want[i])
		}
	}
	chunks := map[uintptr]bool{}
	for _, v := range got {
		chunks[uintptr(unsafe.Pointer(unsafe.StringData(v)))/ChunkSize] = true
	}
	if len(chunks) > 200 {
		t.Errorf("5,000 strings in %d chunks' worth of addresses", len(chunks))
	}
}

func TestWasteful(t *testing.T) {
	var s Store
	for range 100 {
		s.Keep(strings.Repeat("z", 200)) // 20,000 bytes held
	}
	for i := range 50 {
		if s.wasteful() {
			t.Fatalf("wasteful after %d of 100 strings freed", i)
		}
		s.Free(strings.Repeat("z", 200))
	}
	calls := 0
	s.Compact(func() { calls++ })
	if calls != 0 {
		t.Fatal("Compact had the owner keep its strings again with half of them live")
	}
	s.Free(strings.Repeat("z", 200))
	if !s.wasteful() {
		t.Fatal("not wasteful with 51 of 100 strings freed")
	}
	s.Compact(func() {
		calls++
		if s.Held() != 0 {
			t.Error("Compact called rekeep before starting the store afresh")
		}
	})
	if calls != 1 {
		t.Fatalf("Compact with 51 of 100 strings freed called rekeep %d times", calls)
	}
	if s.wasteful() || s.Held() != 0 || s.st.freed != 0 || s.st.chunk != nil {
		t.Fatalf("Reset left %+v", *s.st)
	}

	// Strings the store never held count too, so that an owner whose
	// strings all came from elsewhere brings them here in time.
	var fresh Store
	for range ChunkSize/100 + 1 {
		fresh.Free(strings.Repeat("w", 100))
	}
	if !fresh.wasteful() {
		t.Error("a store holding nothing, told of more than a chunk freed, is not wasteful")
	}
	fresh.reset()
	fresh.Free("")
	fresh.Free(strings.Repeat("v", MaxLen+1))
	if fresh.st.freed != 0 {
		t.Errorf("empty and long strings counted as freed: %d", fresh.st.freed)
	}
}

// An owner that keeps its strings again whenever the store is wasteful
// holds at most about twice its live bytes, however it adds and drops.
func TestWasteBounded(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var s Store
	var live []string
	liveBytes := 0
	for step := range 200_000 {
		if len(live) == 0 || rng.IntN(3) > 0 {
			v := s.Keep(strings.Repeat("q", 1+rng.IntN(400)))
			live = append(live, v)
			liveBytes += len(v)
		} else {
			i := rng.IntN(len(live))
			s.Free(live[i])
			liveBytes -= len(live[i])
			live[i] = live[len(live)-1]
			live = live[:len(live)-1]
		}
		s.Compact(func() {
			for i := range live {
				live[i] = s.Keep(live[i])
			}
		})
		if s.Held() > 2*liveBytes+2*ChunkSize {
			t.Fatalf("step %d: %d bytes held for %d live", step, s.Held(), liveBytes)
		}
		if s.Held() > 0 && s.Held()-s.st.freed != liveBytes {
			t.Fatalf("step %d: held %d - freed %d != live %d", step, s.Held(), s.st.freed, liveBytes)
		}
	}
}

func TestReplace(t *testing.T) {
	var s Store
	a := s.Keep("before the edit")
	b := s.Replace(a, "after")
	if b != "after" || s.Held() != len(a)+len(b) || s.st.freed != len(a) {
		t.Fatalf("Replace gave %q, held %d, freed %d", b, s.Held(), s.st.freed)
	}
}

// A copy of a store appends after the original, never over what the
// original kept since the copy was made, and the other way round.
func TestCopiesShareChunks(t *testing.T) {
	var a Store
	x := a.Keep("kept before the copy")
	b := a
	y := b.Keep("kept by the copy")
	z := a.Keep("kept by the original after")
	w := b.Keep("kept by the copy again")
	if x != "kept before the copy" || y != "kept by the copy" || z != "kept by the original after" || w != "kept by the copy again" {
		t.Fatalf("strings overwritten: %q %q %q %q", x, y, z, w)
	}
	if a.Held() != b.Held() || a.Held() != len(x)+len(y)+len(z)+len(w) {
		t.Errorf("held %d and %d, want %d in both", a.Held(), b.Held(), len(x)+len(y)+len(z)+len(w))
	}
}

func BenchmarkKeep(b *testing.B) {
	var s Store
	v := strings.Repeat("a comment body ", 6)
	b.ReportAllocs()
	for range b.N {
		s.Keep(v)
	}
}

// KeepBytes copies what it keeps, caps the slice at its length (an append
// copies rather than writing over the next kept bytes) and hands back the
// slice itself when it is empty or over MaxLen.
func TestKeepBytes(t *testing.T) {
	var s Store
	src := []byte(`{"id":"cus_1"}`)
	kept := s.KeepBytes(src)
	after := s.Keep("next")
	src[2] = 'X'
	if string(kept) != `{"id":"cus_1"}` {
		t.Fatalf("kept bytes follow their source: %s", kept)
	}
	if cap(kept) != len(kept) {
		t.Fatalf("kept bytes have room after them: len %d, cap %d", len(kept), cap(kept))
	}
	grown := append(kept, '!')
	if after != "next" || string(kept) != `{"id":"cus_1"}` || &grown[0] == &kept[0] {
		t.Fatal("an append to kept bytes wrote into the chunk")
	}
	long := make([]byte, MaxLen+1)
	if got := s.KeepBytes(long); &got[0] != &long[0] {
		t.Fatal("bytes over MaxLen were copied")
	}
	if got := s.KeepBytes(nil); got != nil {
		t.Fatal("no bytes came back as some")
	}
}
