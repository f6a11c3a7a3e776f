package load

import (
	"bytes"
	"errors"
	"fmt"
)

// An answer is one HTTP/1.x response parsed from the bytes read so far.
type answer struct {
	status int
	// body is the answer's body: in the bytes parsed when it was framed
	// by length or by the connection's end, in the scratch buffer when it
	// came in chunks.
	body []byte
	// keep says the connection stays open after it.
	keep bool
	// size is how many of the bytes read it took.
	size int
}

// errMidAnswer is a connection closed before its answer was whole.
var errMidAnswer = errors.New("connection closed in the middle of an answer")

// maxHeaderBytes bounds an answer's status line and headers: past it,
// bytes without an empty line are not HTTP.
const maxHeaderBytes = 64 << 10

// parseAnswer parses the answer at the start of b, the bytes read from a
// connection so far; eof says the connection has ended after them. It
// returns ok false (and no error) while the answer is not whole. Chunked
// bodies are joined in scratch, which the answer's body may then be (and
// which grows as it must). Both the raw and the loop client read with it:
// one parses again from the start after each read that did not complete
// an answer, which costs little for answers of a few KB, and neither
// allocates once its buffers have grown to the answers' size.
func parseAnswer(b []byte, eof bool, scratch *[]byte) (a answer, ok bool, err error) {
	line, pos, ok := nextLine(b, 0)
	if !ok {
		return a, false, incomplete(b, eof)
	}
	// "HTTP/1.1 200 OK"
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) || line[8] != ' ' {
		return a, false, fmt.Errorf("bad status line %q", line)
	}
	if a.status = atoi(line[9:12]); a.status < 100 {
		return a, false, fmt.Errorf("bad status line %q", line)
	}
	a.keep = line[7] == '1'
	length, chunked := -1, false
	for {
		var h []byte
		if h, pos, ok = nextLine(b, pos); !ok {
			return a, false, incomplete(b, eof)
		}
		if len(h) == 0 {
			break
		}
		i := bytes.IndexByte(h, ':')
		if i < 0 {
			return a, false, fmt.Errorf("bad header line %q", h)
		}
		k, v := h[:i], bytes.TrimSpace(h[i+1:])
		switch {
		case bytes.EqualFold(k, []byte("Content-Length")):
			if length = atoi(v); length < 0 {
				return a, false, fmt.Errorf("bad Content-Length %q", v)
			}
		case bytes.EqualFold(k, []byte("Transfer-Encoding")):
			chunked = bytes.EqualFold(v, []byte("chunked"))
		case bytes.EqualFold(k, []byte("Connection")):
			if bytes.EqualFold(v, []byte("close")) {
				a.keep = false
			}
		}
	}
	switch {
	case chunked:
		body := (*scratch)[:0]
		for {
			var sz []byte
			if sz, pos, ok = nextLine(b, pos); !ok {
				return a, false, midAnswer(eof)
			}
			if i := bytes.IndexByte(sz, ';'); i >= 0 {
				sz = sz[:i]
			}
			n := hexSize(bytes.TrimSpace(sz))
			if n < 0 {
				return a, false, fmt.Errorf("bad chunk size %q", sz)
			}
			if n == 0 {
				// Trailers, then the empty line.
				for {
					var t []byte
					if t, pos, ok = nextLine(b, pos); !ok {
						return a, false, midAnswer(eof)
					}
					if len(t) == 0 {
						break
					}
				}
				break
			}
			if len(b)-pos < n {
				return a, false, midAnswer(eof)
			}
			body = append(body, b[pos:pos+n]...)
			pos += n
			var crlf []byte
			if crlf, pos, ok = nextLine(b, pos); !ok {
				return a, false, midAnswer(eof)
			} else if len(crlf) != 0 {
				return a, false, errors.New("chunk not followed by CRLF")
			}
		}
		*scratch = body
		a.body = body
	case length >= 0:
		if len(b)-pos < length {
			return a, false, midAnswer(eof)
		}
		a.body, pos = b[pos:pos+length], pos+length
	case a.status == 204 || a.status == 304 || a.status/100 == 1:
	default:
		// No length: the body runs to the connection's end.
		if !eof {
			return a, false, nil
		}
		a.body, pos, a.keep = b[pos:], len(b), false
	}
	a.size = pos
	return a, true, nil
}

// incomplete is what a status line or header cut short means: more to
// read, or, at the connection's end or past maxHeaderBytes, an error.
func incomplete(b []byte, eof bool) error {
	if len(b) > maxHeaderBytes {
		return fmt.Errorf("no end of headers in the first %d bytes", maxHeaderBytes)
	}
	return midAnswer(eof)
}

func midAnswer(eof bool) error {
	if eof {
		return errMidAnswer
	}
	return nil
}

// nextLine returns the line of b starting at pos without its CRLF (or LF),
// and where the next one starts; ok is false when b holds no line end.
func nextLine(b []byte, pos int) (line []byte, next int, ok bool) {
	i := bytes.IndexByte(b[pos:], '\n')
	if i < 0 {
		return nil, pos, false
	}
	line = b[pos : pos+i]
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line, pos + i + 1, true
}

// hexSize reads a chunk size (-1 if s is not one, or is over 2 GiB).
func hexSize(s []byte) int {
	if len(s) == 0 || len(s) > 8 {
		return -1
	}
	n := 0
	for _, c := range s {
		switch {
		case c >= '0' && c <= '9':
			n = n<<4 | int(c-'0')
		case c >= 'a' && c <= 'f':
			n = n<<4 | int(c-'a'+10)
		case c >= 'A' && c <= 'F':
			n = n<<4 | int(c-'A'+10)
		default:
			return -1
		}
	}
	if n > 1<<31-1 {
		return -1
	}
	return n
}

// atoi reads a non-negative decimal number (-1 if s is not one).
func atoi(s []byte) int {
	if len(s) == 0 || len(s) > 12 {
		return -1
	}
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			return -1
		}
		n = n*10 + int(c-'0')
	}
	return n
}
