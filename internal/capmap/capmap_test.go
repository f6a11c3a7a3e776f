package capmap

import (
	"fmt"
	"sync"
	"testing"
)

// TestMap: values come back as kept, a full map keeps what it has and
// drops the rest, and goroutines may use it side by side (run with -race).
func TestMap(t *testing.T) {
	c := &Map[string, int]{Max: 3}
	if _, ok := c.Get("a"); ok {
		t.Fatal("an empty map has a value")
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.Put(fmt.Sprint(i%4), i%4)
			c.Get(fmt.Sprint(i % 4))
		}()
	}
	wg.Wait()
	if c.Len() != 3 {
		t.Fatalf("%d entries kept, want the cap of 3", c.Len())
	}
	if v := c.Put("new", 9); v != 9 {
		t.Errorf("Put on a full map returned %d, want the value given", v)
	}
	if _, ok := c.Get("new"); ok {
		t.Error("a full map kept another entry")
	}
	// A second value for a kept key: the first stays, and is returned.
	for k := range 4 {
		if v, ok := c.Get(fmt.Sprint(k)); ok {
			if got := c.Put(fmt.Sprint(k), 100); got != v {
				t.Errorf("Put of another value for %d returned %d, want the kept %d", k, got, v)
			}
		}
	}
	n := 0
	for k := range 4 {
		if v, ok := c.Get(fmt.Sprint(k)); ok {
			n++
			if v != k {
				t.Errorf("%d kept as %d", k, v)
			}
		}
	}
	if n != 3 {
		t.Errorf("%d of the first four keys kept, want 3", n)
	}
}
