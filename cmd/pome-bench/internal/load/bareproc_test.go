package load

import (
	"context"
	"io"
	"net/http"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A test binary started with POME_LOAD_SAME_BYTES=1 is the same-bytes
// server, as pome-bench same-bytes is.
func TestMain(m *testing.M) {
	if os.Getenv("POME_LOAD_SAME_BYTES") == "1" {
		if err := ServeSameBytes(context.Background(), "127.0.0.1:0", os.Stdin, os.Stdout); err != nil {
			io.WriteString(os.Stderr, err.Error())
			os.Exit(1)
		}
		// A process that served and then failed (as a race found under
		// -race makes it): TestBareCloseReportsFailure.
		if os.Getenv("POME_LOAD_SAME_BYTES_FAIL") == "1" {
			io.WriteString(os.Stderr, "WARNING: DATA RACE (a stand-in)")
			os.Exit(66)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func sameBytesCommand(t *testing.T) []string {
	t.Setenv("POME_LOAD_SAME_BYTES", "1")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return []string{exe, "-test.run", "^$"}
}

// StartBare's process answers every request with the answer it was given,
// byte for byte but Date, and ends when closed.
func TestStartBare(t *testing.T) {
	want := Answer{Status: 201, Header: http.Header{"Content-Type": {"application/json; charset=utf-8"}, "X-Github-Request-Id": {"ABCD:1234"}, "Etag": {`"e1"`}},
		Body: []byte(`{"id":7,"body":"hello"}`)}
	bare, err := StartBare(context.Background(), sameBytesCommand(t), want, BareWork{})
	if err != nil {
		t.Fatal(err)
	}
	defer bare.Close()
	if bare.PID <= 0 || bare.PID == os.Getpid() || !strings.HasPrefix(bare.URL, "http://127.0.0.1:") {
		t.Fatalf("pid %d, url %q", bare.PID, bare.URL)
	}
	for _, m := range []string{"GET", "POST"} {
		req, _ := http.NewRequest(m, bare.URL+"/repos/acme/api/issues/1/comments", strings.NewReader(`{"body":"x"}`))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		got := Answer{Status: resp.StatusCode, Header: resp.Header, Body: body}
		got.Header.Del("Content-Length")
		if err := SameBytes(want, got); err != nil {
			t.Errorf("%s: %v", m, err)
		}
	}
	if err := bare.Close(); err != nil {
		t.Fatal(err)
	}
	// The process is gone, not left serving.
	deadline := time.Now().Add(5 * time.Second)
	for syscall.Kill(bare.PID, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("pid %d still running after Close", bare.PID)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := http.Get(bare.URL); err == nil {
		t.Error("still answering after Close")
	}
}

// A command that is not the same-bytes server, or an answer it refuses,
// is an error of StartBare, and nothing is left running.
func TestStartBareRefused(t *testing.T) {
	cmd := sameBytesCommand(t)
	for name, c := range map[string]struct {
		cmd  []string
		a    Answer
		work BareWork
	}{
		"no command":       {nil, Answer{Status: 200}, BareWork{}},
		"missing binary":   {[]string{"/nonexistent/pome-bench"}, Answer{Status: 200}, BareWork{}},
		"silent command":   {[]string{"true"}, Answer{Status: 200}, BareWork{}},
		"bad status":       {cmd, Answer{Status: 0}, BareWork{}},
		"negative burn":    {cmd, Answer{Status: 200}, BareWork{Burn: -time.Millisecond}},
		"negative garbage": {cmd, Answer{Status: 200}, BareWork{GarbageBytes: -1}},
		"unknown keep":     {cmd, Answer{Status: 200}, BareWork{Keep: "everything"}},
	} {
		if b, err := StartBare(context.Background(), c.cmd, c.a, c.work); err == nil {
			b.Close()
			t.Errorf("%s: no error", name)
		}
	}
}

// A same-bytes process given a burn spends about that much CPU on each
// request, on top of answering it: 40 requests at 5 ms take at least half
// of 200 ms of the process's CPU time, where answering alone takes a few.
func TestStartBareBurns(t *testing.T) {
	const n, burn = 40, 5 * time.Millisecond
	want := Answer{Status: 200, Header: http.Header{"Content-Type": {"application/json"}}, Body: []byte(`{"ok":true}`)}
	bare, err := StartBare(context.Background(), sameBytesCommand(t), want, BareWork{Burn: burn})
	if err != nil {
		t.Fatal(err)
	}
	defer bare.Close()
	before, err := ReadCPU(bare.PID)
	if err != nil {
		t.Skipf("no CPU time of a process here: %v", err)
	}
	for range n {
		resp, err := http.Get(bare.URL + "/v1/customers/cus_1")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(body) != string(want.Body) {
			t.Fatalf("body %q", body)
		}
	}
	after, err := ReadCPU(bare.PID)
	if err != nil {
		t.Fatal(err)
	}
	if spent := time.Duration(after-before) * time.Microsecond; spent < n*burn/2 {
		t.Errorf("%d requests burning %v each took %v of CPU, want at least %v", n, burn, spent, n*burn/2)
	}
}

// A same-bytes process that served and then ended badly makes Close an
// error naming what it wrote on its standard error; one that ended
// cleanly does not (TestStartBare).
func TestBareCloseReportsFailure(t *testing.T) {
	cmd := sameBytesCommand(t)
	t.Setenv("POME_LOAD_SAME_BYTES_FAIL", "1")
	bare, err := StartBare(context.Background(), cmd, Answer{Status: 200, Body: []byte(`{}`)}, BareWork{})
	if err != nil {
		t.Fatal(err)
	}
	err = bare.Close()
	if err == nil || !strings.Contains(err.Error(), "DATA RACE") || !strings.Contains(err.Error(), "66") {
		t.Errorf("Close: %v", err)
	}
}
