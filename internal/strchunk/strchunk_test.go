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
	if got := s.Keep(""); got != "" || s.held != 0 {
		t.Fatalf("empty string: %q, held %d", got, s.held)
	}
	long := strings.Repeat("x", MaxLen+1)
	if got := s.Keep(long); unsafe.StringData(got) != unsafe.StringData(long) || s.held != 0 {
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
	if s.held != len(a)+len(b) {
		t.Errorf("held %d, want %d", s.held, len(a)+len(b))
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
			s.Reset()
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
		if s.Wasteful() {
			t.Fatalf("wasteful after %d of 100 strings freed", i)
		}
		s.Free(strings.Repeat("z", 200))
	}
	s.Free(strings.Repeat("z", 200))
	if !s.Wasteful() {
		t.Fatal("not wasteful with 51 of 100 strings freed")
	}
	s.Reset()
	if s.Wasteful() || s.held != 0 || s.freed != 0 || s.chunk != nil {
		t.Fatalf("Reset left %+v", s)
	}

	// Strings the store never held count too, so that an owner whose
	// strings all came from elsewhere brings them here in time.
	var fresh Store
	for range ChunkSize/100 + 1 {
		fresh.Free(strings.Repeat("w", 100))
	}
	if !fresh.Wasteful() {
		t.Error("a store holding nothing, told of more than a chunk freed, is not wasteful")
	}
	fresh.Reset()
	fresh.Free("")
	fresh.Free(strings.Repeat("v", MaxLen+1))
	if fresh.freed != 0 {
		t.Errorf("empty and long strings counted as freed: %d", fresh.freed)
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
		if s.Wasteful() {
			s.Reset()
			for i := range live {
				live[i] = s.Keep(live[i])
			}
		}
		if s.held > 2*liveBytes+2*ChunkSize {
			t.Fatalf("step %d: %d bytes held for %d live", step, s.held, liveBytes)
		}
		if s.held-s.freed != liveBytes {
			t.Fatalf("step %d: held %d - freed %d != live %d", step, s.held, s.freed, liveBytes)
		}
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
