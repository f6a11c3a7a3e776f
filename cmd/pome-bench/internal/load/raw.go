package load

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
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
	addr string
	// buf holds the bytes read: the last answer's first (used of them),
	// then any read past it.
	buf     []byte
	used    int
	scratch []byte
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
		rc.buf, rc.used = rc.buf[:0], 0
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
	a, err := rc.read()
	if err != nil {
		rc.Close()
		return 0, nil, err
	}
	if !a.keep {
		rc.Close()
	}
	return a.status, a.body, nil
}

// Close closes the connection.
func (rc *RawConn) Close() {
	if rc.conn != nil {
		rc.conn.Close()
		rc.conn = nil
	}
}

// read reads until the buffer holds a whole answer. Once the buffers have
// grown to the answers' size a request costs no allocation here.
func (rc *RawConn) read() (answer, error) {
	rc.buf = rc.buf[:copy(rc.buf, rc.buf[rc.used:])]
	rc.used = 0
	if cap(rc.buf) == 0 {
		rc.buf = make([]byte, 0, 16<<10)
	}
	for {
		a, ok, err := parseAnswer(rc.buf, false, &rc.scratch)
		if err != nil || ok {
			rc.used = a.size
			return a, err
		}
		if len(rc.buf) == cap(rc.buf) {
			rc.buf = slices.Grow(rc.buf, cap(rc.buf))
		}
		n, rerr := rc.conn.Read(rc.buf[len(rc.buf):cap(rc.buf)])
		rc.buf = rc.buf[:len(rc.buf)+n]
		if rerr == io.EOF {
			a, ok, err := parseAnswer(rc.buf, true, &rc.scratch)
			if err == nil && !ok {
				err = errMidAnswer
			}
			a.keep = false
			return a, err
		}
		if rerr != nil {
			return answer{}, rerr
		}
	}
}
