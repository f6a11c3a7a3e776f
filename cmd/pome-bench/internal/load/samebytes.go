package load

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"time"
)

// Answer is one HTTP answer as a server sent it: what the same-bytes
// handler sends back for every request.
type Answer struct {
	Status int
	Header http.Header
	Body   []byte
}

// Capture sends the call once to t and keeps the answer, which must be the
// one that counts.
func Capture(ctx context.Context, client *http.Client, c Call, t Target) (Answer, error) {
	req, err := c.Request(ctx, t)
	if err != nil {
		return Answer{}, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return Answer{}, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return Answer{}, err
	}
	if err := c.CheckResponse(resp.StatusCode, body); err != nil {
		return Answer{}, fmt.Errorf("%s: %w", c.Name, err)
	}
	return Answer{Status: resp.StatusCode, Header: resp.Header.Clone(), Body: body}, nil
}

// sameBytesHandler answers every request with a's status, headers and body.
// Date is net/http's own (it writes one on every answer, as it did for
// Pome); Content-Length is set from the body, so the answer is never
// chunked. Everything else Pome sent (rate-limit headers, ETag, request
// id) is sent as it was, byte for byte. The request body is read to its end,
// as Pome read it.
type sameBytesHandler struct {
	header map[string][]string
	status int
	body   []byte
	// work is done on every request before the answer (--ceiling-burn).
	work *worker
}

// NewSameBytesHandler returns the handler for a.
func NewSameBytesHandler(a Answer) http.Handler {
	h := &sameBytesHandler{header: map[string][]string{}, status: a.Status, body: a.Body}
	for k, v := range a.Header {
		switch k {
		case "Date", "Content-Length", "Transfer-Encoding", "Connection":
			continue
		}
		h.header[k] = v
	}
	h.header["Content-Length"] = []string{strconv.Itoa(len(a.Body))}
	return h
}

func (h *sameBytesHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Body != nil {
		io.Copy(io.Discard, r.Body)
	}
	h.work.do()
	dst := w.Header()
	for k, v := range h.header {
		// The slices are shared, never changed: net/http only reads them.
		dst[k] = v
	}
	w.WriteHeader(h.status)
	w.Write(h.body)
}

// Server is a net/http server on a loopback port.
type Server struct {
	URL string
	srv *http.Server
}

// Serve starts h on addr ("127.0.0.1:0" for any free port).
func Serve(addr string, h http.Handler) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s := &Server{URL: "http://" + ln.Addr().String(), srv: &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}}
	go func() {
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			return
		}
	}()
	return s, nil
}

// Close stops the server.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	return s.srv.Shutdown(ctx)
}

// SameBytes compares two answers as a client receives them, ignoring Date:
// the test of the same-bytes handler.
func SameBytes(a, b Answer) error {
	if a.Status != b.Status {
		return fmt.Errorf("status %d, want %d", b.Status, a.Status)
	}
	if !bytes.Equal(a.Body, b.Body) {
		return fmt.Errorf("body differs: %d bytes, want %d", len(b.Body), len(a.Body))
	}
	for k, v := range a.Header {
		if k == "Date" {
			continue
		}
		if got := b.Header.Values(k); fmt.Sprint(got) != fmt.Sprint(v) {
			return fmt.Errorf("header %s: %q, want %q", k, got, v)
		}
	}
	for k := range b.Header {
		if _, ok := a.Header[k]; !ok && k != "Date" {
			return fmt.Errorf("extra header %s", k)
		}
	}
	return nil
}
