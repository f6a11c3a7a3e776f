package load

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The raw client is the constant-rate mode's light client: each sender
// keeps one keep-alive HTTP/1.1 connection and writes requests formatted
// once before the run, then reads the status line, the headers it needs
// (Content-Length, Transfer-Encoding, Connection) and the body. It does
// what wrk does per request, a few microseconds of CPU, where net/http's
// client builds a Request, a header map and a Response for each: on two
// cores shared with the server, that difference is the server's.

// RawRequest is one request formatted for the wire.
type RawRequest struct {
	Addr  string // host:port to dial
	Bytes []byte
}

// FormatRaw formats c's request to t as HTTP/1.1 bytes, with the headers
// the Go client sends (Host, Authorization, Content-Type,
// Content-Length).
func FormatRaw(c Call, t Target) (RawRequest, error) {
	base, err := serverOf(t.URL)
	if err != nil {
		return RawRequest{}, err
	}
	host := strings.TrimSuffix(strings.TrimPrefix(base, "http://"), "/")
	if strings.HasPrefix(base, "https://") {
		return RawRequest{}, errors.New("the raw client speaks plain HTTP only")
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: pome-bench\r\n", c.Method, t.PathQuery, host)
	if t.Auth != "" {
		fmt.Fprintf(&b, "Authorization: %s\r\n", t.Auth)
	}
	if c.ContentType != "" {
		fmt.Fprintf(&b, "Content-Type: %s\r\n", c.ContentType)
	}
	if c.Body != nil || c.Method == "POST" || c.Method == "PUT" || c.Method == "PATCH" {
		fmt.Fprintf(&b, "Content-Length: %d\r\n", len(c.Body))
	}
	b.WriteString("\r\n")
	b.Write(c.Body)
	return RawRequest{Addr: host, Bytes: b.Bytes()}, nil
}

// RawConn is one keep-alive connection; not safe for concurrent use.
type RawConn struct {
	conn net.Conn
	br   *bufio.Reader
	addr string
	body []byte
	// Timeout bounds one request's round trip (0: 30 s).
	Timeout time.Duration
}

// Do sends req and returns the answer's status and body; the body is valid
// until the next Do. A connection the server closed, or asked to close, is
// dialled again on the next request.
func (rc *RawConn) Do(req RawRequest) (int, []byte, error) {
	if rc.conn != nil && rc.addr != req.Addr {
		rc.Close()
	}
	if rc.conn == nil {
		c, err := net.DialTimeout("tcp", req.Addr, 5*time.Second)
		if err != nil {
			return 0, nil, err
		}
		rc.conn, rc.addr = c, req.Addr
		if rc.br == nil {
			rc.br = bufio.NewReaderSize(c, 16<<10)
		} else {
			rc.br.Reset(c)
		}
	}
	timeout := rc.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	rc.conn.SetDeadline(time.Now().Add(timeout))
	if _, err := rc.conn.Write(req.Bytes); err != nil {
		rc.Close()
		return 0, nil, err
	}
	status, body, keep, err := rc.read()
	if err != nil || !keep {
		rc.Close()
	}
	return status, body, err
}

// Close closes the connection.
func (rc *RawConn) Close() {
	if rc.conn != nil {
		rc.conn.Close()
		rc.conn = nil
	}
}

func (rc *RawConn) read() (status int, body []byte, keep bool, err error) {
	// Lines are parsed in place in the reader's buffer: a request costs no
	// allocation here once the body buffer has grown to the answers' size.
	line, err := rc.line()
	if err != nil {
		return 0, nil, false, err
	}
	// "HTTP/1.1 200 OK"
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) || line[8] != ' ' {
		return 0, nil, false, fmt.Errorf("bad status line %q", line)
	}
	if status = atoi(line[9:12]); status < 100 {
		return 0, nil, false, fmt.Errorf("bad status line %q", line)
	}
	keep = line[7] == '1'
	length, chunked := -1, false
	for {
		h, err := rc.line()
		if err != nil {
			return 0, nil, false, err
		}
		if len(h) == 0 {
			break
		}
		i := bytes.IndexByte(h, ':')
		if i < 0 {
			return 0, nil, false, fmt.Errorf("bad header line %q", h)
		}
		k, v := h[:i], bytes.TrimSpace(h[i+1:])
		switch {
		case bytes.EqualFold(k, []byte("Content-Length")):
			if length = atoi(v); length < 0 {
				return 0, nil, false, fmt.Errorf("bad Content-Length %q", v)
			}
		case bytes.EqualFold(k, []byte("Transfer-Encoding")):
			chunked = bytes.EqualFold(v, []byte("chunked"))
		case bytes.EqualFold(k, []byte("Connection")):
			if bytes.EqualFold(v, []byte("close")) {
				keep = false
			}
		}
	}
	rc.body = rc.body[:0]
	switch {
	case chunked:
		for {
			sz, err := rc.line()
			if err != nil {
				return 0, nil, false, err
			}
			if i := bytes.IndexByte(sz, ';'); i >= 0 {
				sz = sz[:i]
			}
			n, err := strconv.ParseInt(string(bytes.TrimSpace(sz)), 16, 32)
			if err != nil || n < 0 {
				return 0, nil, false, fmt.Errorf("bad chunk size %q", sz)
			}
			if n == 0 {
				// Trailers, then the empty line.
				for {
					t, err := rc.line()
					if err != nil {
						return 0, nil, false, err
					}
					if len(t) == 0 {
						break
					}
				}
				break
			}
			if err := rc.readN(int(n)); err != nil {
				return 0, nil, false, err
			}
			if crlf, err := rc.line(); err != nil || len(crlf) != 0 {
				return 0, nil, false, fmt.Errorf("chunk not followed by CRLF")
			}
		}
	case length >= 0:
		if err := rc.readN(length); err != nil {
			return 0, nil, false, err
		}
	case status == 204 || status == 304 || status/100 == 1:
	default:
		// No length: the body runs to the connection's end.
		b, err := io.ReadAll(rc.br)
		if err != nil {
			return 0, nil, false, err
		}
		rc.body, keep = append(rc.body, b...), false
	}
	return status, rc.body, keep, nil
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

// readN appends the next n bytes to the body, growing it only when it is
// too small.
func (rc *RawConn) readN(n int) error {
	start := len(rc.body)
	rc.body = slices.Grow(rc.body, n)[:start+n]
	_, err := io.ReadFull(rc.br, rc.body[start:])
	return err
}

// line reads one CRLF-terminated line without its end; it is valid until
// the next read.
func (rc *RawConn) line() ([]byte, error) {
	b, err := rc.br.ReadSlice('\n')
	if err != nil {
		return nil, err
	}
	return bytes.TrimRight(b, "\r\n"), nil
}
