package load

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestLuaString(t *testing.T) {
	for in, want := range map[string]string{
		`plain /a?b=c`: `"plain /a?b=c"`,
		`q"b\`:         `"q\034b\092"`,
		"nl\r\n\x00é":  `"nl\013\010\000\195\169"`,
	} {
		if got := luaString(in); got != want {
			t.Errorf("luaString(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestParseWrkOutput(t *testing.T) {
	out := []byte("Running 1s test @ http://127.0.0.1:1/\n  2 threads and 4 connections\n" +
		wrkResultPrefix + " requests=2000 duration_us=1000000 bytes=5000 connect=0 read=1 write=0 status=20 timeout=2 p50_us=310 p99_us=900 p999_us=1500 max_us=2000\n")
	r, err := ParseWrkOutput(out)
	if err != nil {
		t.Fatal(err)
	}
	if r.Requests != 2000 || r.Seconds != 1 || r.StatusErrs != 20 || r.SocketErrs != 3 || r.P50US != 310 || r.P999US != 1500 {
		t.Fatalf("%+v", r)
	}
	// Answers with the wrong status do not count.
	if got := r.PerSec(); got != 1980 {
		t.Errorf("PerSec %v, want 1980", got)
	}
	if _, err := ParseWrkOutput([]byte("Running 1s test\n")); err == nil {
		t.Error("output without a result line parsed")
	}
	if _, err := ParseWrkOutput([]byte(wrkResultPrefix + " requests=x\n")); err == nil {
		t.Error("bad figure parsed")
	}
}

// TestWrkSpreadsOverTargets runs the real wrk with the generated script
// against a recording server: every target gets requests, each with its own
// auth, the call's method, content type and body, and nothing else arrives.
func TestWrkSpreadsOverTargets(t *testing.T) {
	path := WrkPath()
	if path == "" {
		t.Skip("wrk is not installed (apt-get install wrk)")
	}
	var mu sync.Mutex
	counts := map[string]int{}
	var bad []string
	body := `{"text":"quote \" and backslash \\ and é"}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		key := r.URL.RequestURI() + " " + r.Header.Get("Authorization")
		mu.Lock()
		counts[key]++
		if r.Method != http.MethodPost || string(b) != body || r.Header.Get("Content-Type") != "application/json" {
			bad = append(bad, fmt.Sprintf("%s %s %q %q", r.Method, key, r.Header.Get("Content-Type"), b))
		}
		mu.Unlock()
		w.WriteHeader(http.StatusCreated)
	}))
	defer srv.Close()
	c := Call{Name: "t", Method: http.MethodPost, Body: []byte(body), ContentType: "application/json", Want: http.StatusCreated}
	var targets []Target
	want := map[string]bool{}
	for i := range 11 {
		tg, err := NewTarget(fmt.Sprintf("%s/s/ses_%d/x?i=%d", srv.URL, i, i), fmt.Sprintf("Bearer tok_%d", i))
		if err != nil {
			t.Fatal(err)
		}
		targets = append(targets, tg)
		want[tg.PathQuery+" "+tg.Auth] = true
	}
	res, err := Wrk(context.Background(), WrkOptions{Path: path, Threads: 2, Connections: 4, Duration: time.Second}, c, targets)
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(bad) > 0 {
		t.Fatalf("%d requests not as the call says, first %s", len(bad), bad[0])
	}
	total := 0
	for k, n := range counts {
		if !want[k] {
			t.Errorf("request to %q, which is no target", k)
		}
		total += n
	}
	for k := range want {
		if counts[k] == 0 {
			t.Errorf("target %q got no request", k)
		}
	}
	// Every target gets its share: no target is starved by the way the
	// threads step through them.
	for k, n := range counts {
		if share := float64(n) * float64(len(want)) / float64(total); share < 0.5 || share > 1.5 {
			t.Errorf("target %q got %d of %d requests", k, n, total)
		}
	}
	if res.Requests == 0 || res.StatusErrs != 0 || res.P50US <= 0 || res.CPUUS <= 0 {
		t.Errorf("result %+v", res)
	}
	// wrk counts what it sent; the server may have seen a few more that
	// were cut at the end.
	if res.Requests > uint64(total) || float64(res.Requests) < 0.9*float64(total) {
		t.Errorf("wrk counted %d requests, the server saw %d", res.Requests, total)
	}
	if strings.Count(WrkScript(c, targets, 2), "Bearer tok_") != len(targets) {
		t.Error("script does not carry one auth per target")
	}
}
