package rest

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// TestReadUpTo: a body is read whole up to max bytes whether its length
// is told, unknown, too small or too large, in reads of any size; a told
// length is the buffer's (and one byte more), never grown; a read error
// comes back with what was read before it.
func TestReadUpTo(t *testing.T) {
	const max = 10
	for _, c := range []struct {
		name, body string
		size       int64
		want       string
	}{
		{"told", "hello", 5, "hello"},
		{"unknown", "hello", -1, "hello"},
		{"empty, told", "", 0, ""},
		{"told short", "hello", 3, "hello"},
		{"told long", "hi", 5, "hi"},
		{"past max, told", "0123456789abcdef", 16, "0123456789"},
		{"past max, told short", "0123456789abcdef", 4, "0123456789"},
		{"past max, unknown", "0123456789abcdef", -1, "0123456789"},
		{"at max", "0123456789", 10, "0123456789"},
		{"just under max", "012345678", 9, "012345678"},
	} {
		for _, one := range []bool{false, true} {
			var r io.Reader = strings.NewReader(c.body)
			if one {
				r = iotest.OneByteReader(r)
			}
			b, err := readUpTo(r, max, c.size)
			if err != nil || string(b) != c.want {
				t.Errorf("%s (one byte a read %v): %q, %v; want %q", c.name, one, b, err, c.want)
			}
			if c.size >= 0 && c.size < max && int64(len(c.body)) <= c.size && cap(b) != int(c.size)+1 {
				t.Errorf("%s: buffer of %d bytes for a body told as %d", c.name, cap(b), c.size)
			}
		}
	}
	boom := errors.New("boom")
	b, err := readUpTo(io.MultiReader(strings.NewReader("abc"), iotest.ErrReader(boom)), max, 6)
	if !errors.Is(err, boom) || string(b) != "abc" {
		t.Errorf("a failing body: %q, %v; want \"abc\" and its error", b, err)
	}
}
