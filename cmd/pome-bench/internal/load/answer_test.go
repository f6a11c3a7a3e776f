package load

import (
	"errors"
	"testing"
)

// TestParseAnswer feeds each answer one byte more at a time: every prefix
// is incomplete (or, at the connection's end, an error), the whole answer
// parses to its status and body and says how many bytes it took, and what
// is not HTTP fails as soon as it shows.
func TestParseAnswer(t *testing.T) {
	for _, c := range []struct {
		name, answer string
		status       int
		body         string
		keep         bool
		// toEOF: whole only at the connection's end; fails: an error once
		// whole (or at its end).
		toEOF, fails bool
	}{
		{name: "length", answer: "HTTP/1.1 201 Created\r\ncontent-length: 5\r\n\r\nhello", status: 201, body: "hello", keep: true},
		{name: "bare LF", answer: "HTTP/1.1 200 OK\nContent-Length: 2\n\nhi", status: 200, body: "hi", keep: true},
		{name: "chunks", answer: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3;x=y\r\nabc\r\nA\r\n0123456789\r\n0\r\nX-T: 1\r\n\r\n", status: 200, body: "abc0123456789", keep: true},
		{name: "close", answer: "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 1\r\n\r\nx", status: 200, body: "x"},
		{name: "http/1.0", answer: "HTTP/1.0 200 OK\r\nContent-Length: 1\r\n\r\nx", status: 200, body: "x"},
		{name: "no content", answer: "HTTP/1.1 204 No Content\r\n\r\n", status: 204, keep: true},
		{name: "to the end", answer: "HTTP/1.1 200 OK\r\n\r\nall of it", status: 200, body: "all of it", toEOF: true},
		{name: "bad status", answer: "HTTP/1.1 2x0 OK\r\n\r\n", fails: true},
		{name: "not http", answer: "SSH-2.0-x\r\n\r\n", fails: true},
		{name: "bad header", answer: "HTTP/1.1 200 OK\r\nno colon\r\n\r\n", fails: true},
		{name: "bad length", answer: "HTTP/1.1 200 OK\r\nContent-Length: -3\r\n\r\n", fails: true},
		{name: "bad chunk", answer: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", fails: true},
		{name: "chunk without CRLF", answer: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nab\r\n", fails: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			var scratch []byte
			b := []byte(c.answer)
			for n := 0; n < len(b); n++ {
				a, ok, err := parseAnswer(b[:n], false, &scratch)
				if ok {
					t.Fatalf("whole after %d of %d bytes: %+v", n, len(b), a)
				}
				if err != nil {
					if !c.fails {
						t.Fatalf("after %d bytes: %v", n, err)
					}
					return
				}
				// The connection ending here cuts the answer short (an
				// answer running to the end is whole at any of its ends).
				if _, ok, err := parseAnswer(b[:n], true, &scratch); !c.toEOF && (ok || err == nil) {
					t.Fatalf("ended after %d of %d bytes: ok %v, err %v", n, len(b), ok, err)
				}
			}
			a, ok, err := parseAnswer(b, c.toEOF, &scratch)
			if c.fails {
				if err == nil {
					t.Fatalf("parsed: %+v", a)
				}
				return
			}
			if err != nil || !ok {
				t.Fatalf("whole: ok %v, err %v", ok, err)
			}
			if a.status != c.status || string(a.body) != c.body || a.keep != c.keep || a.size != len(b) {
				t.Fatalf("got %d %q keep %v size %d, want %d %q keep %v size %d", a.status, a.body, a.keep, a.size, c.status, c.body, c.keep, len(b))
			}
			if !c.toEOF {
				// Bytes after it are the next answer's, not its.
				more := append([]byte(c.answer), "HTTP/1.1 200"...)
				if a, ok, err := parseAnswer(more, false, &scratch); !ok || err != nil || a.size != len(b) || string(a.body) != c.body {
					t.Fatalf("followed by more: %d %q ok %v err %v", a.size, a.body, ok, err)
				}
			}
		})
	}
	var scratch []byte
	if _, _, err := parseAnswer(make([]byte, maxHeaderBytes+1), false, &scratch); err == nil {
		t.Error("64 KB without a line end is not refused")
	}
	if _, _, err := parseAnswer([]byte("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nabc"), true, &scratch); !errors.Is(err, errMidAnswer) {
		t.Errorf("a body cut by the connection's end: %v", err)
	}
}
