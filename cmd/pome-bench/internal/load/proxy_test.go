package load

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestRoundRobinTakesTurns(t *testing.T) {
	var urls []string
	for i := 0; i < 3; i++ {
		hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, "%d %s %s", i, r.Host, r.URL.Path)
		}))
		t.Cleanup(hs.Close)
		urls = append(urls, hs.URL)
	}
	rr, err := NewRoundRobin(urls)
	if err != nil {
		t.Fatal(err)
	}
	front := httptest.NewServer(rr)
	defer front.Close()
	seen := map[string]int{}
	for k := 0; k < 9; k++ {
		req, _ := http.NewRequest(http.MethodGet, front.URL+"/github/s/x", nil)
		req.Host = "pome.example"
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		seen[string(b)]++
	}
	for i := 0; i < 3; i++ {
		if got := seen[fmt.Sprintf("%d pome.example /github/s/x", i)]; got != 3 {
			t.Errorf("replica %d: %d of 9 requests with the client's Host and path, want 3 (%v)", i, got, seen)
		}
	}
	if s := rr.Served(); s[0]+s[1]+s[2] != 9 {
		t.Errorf("served %v, want 9 in all", s)
	}
	for _, bad := range [][]string{nil, {"127.0.0.1:7071"}, {"ftp://x"}, {"http://"}} {
		if _, err := NewRoundRobin(bad); err == nil {
			t.Errorf("NewRoundRobin(%q) did not fail", bad)
		}
	}
}
