package load

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestRawClient: the raw client sends exactly the call's request, reads
// answers framed by length, by chunks and by the connection's end, and
// keeps one connection for as long as the server does.
func TestRawClient(t *testing.T) {
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got := r.Method + " " + r.URL.RequestURI() + " " + r.Header.Get("Authorization") + " " + r.Header.Get("Content-Type") + " " + string(b)
		switch r.URL.Path {
		case "/chunked":
			w.WriteHeader(http.StatusCreated)
			w.Write([]byte("part one;"))
			w.(http.Flusher).Flush()
			w.Write([]byte(got))
		case "/close":
			w.Header().Set("Connection", "close")
			w.Write([]byte(got))
		case "/empty":
			w.WriteHeader(http.StatusNoContent)
		default:
			w.Write([]byte(got))
		}
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	c := Call{Name: "t", Method: http.MethodPost, Body: []byte(`{"a":"b"}`), ContentType: "application/json"}
	req := func(path string) RawRequest {
		tg, err := NewTarget(srv.URL+path, "Bearer tok")
		if err != nil {
			t.Fatal(err)
		}
		r, err := FormatRaw(c, tg)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	var rc RawConn
	defer rc.Close()
	want := `POST /x?y=1 Bearer tok application/json {"a":"b"}`
	for range 3 {
		status, body, err := rc.Do(req("/x?y=1"))
		if err != nil || status != 200 || string(body) != want {
			t.Fatalf("%d %q %v", status, body, err)
		}
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("%d connections for 3 keep-alive requests", n)
	}
	status, body, err := rc.Do(req("/chunked"))
	if err != nil || status != 201 || string(body) != "part one;"+strings.Replace(want, "/x?y=1", "/chunked", 1) {
		t.Fatalf("chunked: %d %q %v", status, body, err)
	}
	if status, body, err = rc.Do(req("/empty")); err != nil || status != 204 || len(body) != 0 {
		t.Fatalf("204: %d %q %v", status, body, err)
	}
	if status, _, err = rc.Do(req("/close")); err != nil || status != 200 {
		t.Fatalf("close: %d %v", status, err)
	}
	// The server closed it: the next request dials again.
	if status, _, err = rc.Do(req("/x?y=1")); err != nil || status != 200 {
		t.Fatalf("after close: %d %v", status, err)
	}
	if n := conns.Load(); n != 2 {
		t.Errorf("%d connections, want 2 (one before and one after Connection: close)", n)
	}
	get := Call{Method: http.MethodGet}
	tg, _ := NewTarget(srv.URL+"/g", "")
	r, _ := FormatRaw(get, tg)
	if strings.Contains(string(r.Bytes), "Content-Length") || !strings.HasPrefix(string(r.Bytes), "GET /g HTTP/1.1\r\nHost: "+strings.TrimPrefix(srv.URL, "http://")+"\r\n") {
		t.Errorf("GET formatted as %q", r.Bytes)
	}
}

// BenchmarkClients compares the clients' own cost per request against a
// handler answering a 2.4 KB issue: allocations are exact, ns/op includes
// the handler's share.
//
//	go test -run '^$' -bench Clients -benchmem ./cmd/pome-bench/internal/load/
func BenchmarkClients(b *testing.B) {
	body := make([]byte, 2357)
	for i := range body {
		body[i] = 'x'
	}
	h := NewSameBytesHandler(Answer{Status: 200, Header: http.Header{"Content-Type": {"application/json; charset=utf-8"}, "Etag": {`W/"40a52bf2418ed8a8fab3c00d8b756d5b"`}}, Body: body})
	srv := httptest.NewServer(h)
	defer srv.Close()
	c := Call{Name: "get", Method: http.MethodGet, Want: 200}
	tg, _ := NewTarget(srv.URL+"/repos/acme/api/issues/1", "Bearer pst_0123456789012345678901234567890123456789")
	b.Run("raw", func(b *testing.B) {
		r, _ := FormatRaw(c, tg)
		var rc RawConn
		defer rc.Close()
		for b.Loop() {
			if status, _, err := rc.Do(r); err != nil || status != 200 {
				b.Fatal(status, err)
			}
		}
	})
	b.Run("net-http", func(b *testing.B) {
		client := NewClient(1)
		defer client.CloseIdleConnections()
		for b.Loop() {
			req, _ := c.Request(context.Background(), tg)
			resp, err := client.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	})
}

// TestRawClientFraming reads answers written byte by byte by a server that
// is not net/http: framing by length, chunks with extensions and trailers,
// HTTP/1.0, and answers that must be refused.
func TestRawClientFraming(t *testing.T) {
	for _, c := range []struct {
		name, answer string
		status       int
		body         string
		fails        bool
	}{
		{"length", "HTTP/1.1 201 Created\r\ncontent-length: 5\r\n\r\nhello", 201, "hello", false},
		{"chunks", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3;x=y\r\nabc\r\n2\r\nde\r\n0\r\nX-T: 1\r\n\r\n", 200, "abcde", false},
		{"http/1.0 to the end", "HTTP/1.0 200 OK\r\n\r\nall of it", 200, "all of it", false},
		{"bad status", "HTTP/1.1 2x0 OK\r\n\r\n", 0, "", true},
		{"not http", "SSH-2.0-x\r\n\r\n", 0, "", true},
		{"bad length", "HTTP/1.1 200 OK\r\nContent-Length: -3\r\n\r\n", 0, "", true},
		{"short body", "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", 0, "", true},
		{"bad chunk", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 0, "", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			go func() {
				conn, err := ln.Accept()
				if err != nil {
					return
				}
				buf := make([]byte, 4096)
				conn.Read(buf)
				conn.Write([]byte(c.answer))
				conn.Close()
			}()
			rc := RawConn{Timeout: 5 * time.Second}
			defer rc.Close()
			status, body, err := rc.Do(RawRequest{Addr: ln.Addr().String(), Bytes: []byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n")})
			if (err != nil) != c.fails || status != c.status || string(body) != c.body {
				t.Fatalf("%d %q %v", status, body, err)
			}
		})
	}
}
