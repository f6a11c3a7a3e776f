package load

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
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
