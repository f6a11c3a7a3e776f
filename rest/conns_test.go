package rest_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/pomehq/pome/rest"
	"github.com/pomehq/pome/session"
	"github.com/pomehq/pome/twins/all"
)

// runServer starts rest.Run on a free loopback port with cfg and one team
// key, and returns its address and the key; it stops with t.
func runServer(t *testing.T, cfg rest.Config) (addr, key string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr = ln.Addr().String()
	ln.Close()
	key = session.NewAPIKey()
	cfg.Addr, cfg.Registry, cfg.Teams = addr, all.Registry(), map[string][]string{"conns": {key}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- rest.Run(ctx, cfg, io.Discard) }()
	t.Cleanup(func() { cancel(); <-done })
	for i := 0; ; i++ {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return addr, key
		}
		if i > 300 {
			t.Fatal("server did not start")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// closedWithin reports whether the server closes c (after any answer)
// within d.
func closedWithin(c net.Conn, d time.Duration) bool {
	c.SetReadDeadline(time.Now().Add(d))
	_, err := io.Copy(io.Discard, c)
	return err == nil // EOF: closed by the server; a timeout is an error
}

// TestSlowBodyAndIdleConnectionsEnd: a body that trickles in is cut off
// after the body timeout, and an idle keep-alive connection is closed after
// the idle timeout; before, both were held for as long as the client
// liked.
func TestSlowBodyAndIdleConnectionsEnd(t *testing.T) {
	addr, _ := runServer(t, rest.Config{BodyTimeout: 200 * time.Millisecond, IdleTimeout: 200 * time.Millisecond})

	slow, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	fmt.Fprint(slow, "POST /github/s/ses_x/repos/acme/api/issues HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{")
	if !closedWithin(slow, 5*time.Second) {
		t.Fatal("a body sent slowly held its connection open")
	}

	idle, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	fmt.Fprint(idle, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
	br := bufio.NewReader(idle)
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("healthz: %v", err)
	}
	io.Copy(io.Discard, resp.Body)
	idle.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := br.ReadByte(); err != io.EOF {
		t.Fatalf("an idle keep-alive connection was not closed: %v", err)
	}
}

// TestConnectionLimit: past MaxConns, a new connection waits until one
// closes instead of being served; then it is served.
func TestConnectionLimit(t *testing.T) {
	addr, _ := runServer(t, rest.Config{MaxConns: 2, IdleTimeout: time.Minute})
	hold := func() net.Conn {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprint(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("healthz: %v", err)
		}
		return c
	}
	a, b := hold(), hold()
	defer b.Close()
	third, err := net.Dial("tcp", addr) // the kernel's backlog takes it
	if err != nil {
		t.Fatal(err)
	}
	defer third.Close()
	fmt.Fprint(third, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
	third.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	if _, err := third.Read(make([]byte, 1)); err == nil {
		t.Fatal("a connection past the limit was served")
	}
	a.Close()
	third.SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(third), nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("the waiting connection was not served once a slot freed: %v", err)
	}
}

// TestFollowOutlivesWriteTimeout: a followed tape is a stream that lasts
// longer than the write timeout; each event gets a timeout of its own.
func TestFollowOutlivesWriteTimeout(t *testing.T) {
	s := startReal(t, rest.Config{WriteTimeout: 300 * time.Millisecond}, nil)
	c := s.create(t, s.KeyA, "github")
	req, _ := http.NewRequest("GET", c.PerTwin["github"].APIURL+"/_pome/tape?follow=1", nil)
	req.Header.Set("Authorization", "Bearer "+c.AuthToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	rows := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "event: row") {
				rows <- sc.Text()
			}
		}
		close(rows)
	}()
	for i := 0; i < 3; i++ {
		time.Sleep(250 * time.Millisecond)
		st, _, b := do(t, "GET", c.PerTwin["github"].APIURL+"/repos/acme/api", bearer(c.ProviderCredentials["github"].Token), "")
		if st != 200 {
			t.Fatalf("%d %s", st, b)
		}
		select {
		case _, ok := <-rows:
			if !ok {
				t.Fatalf("the stream ended after %d rows", i)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("row %d never came", i)
		}
	}
}
