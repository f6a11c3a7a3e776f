package rest_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pomehq/pome/rest/resttest"
	"github.com/pomehq/pome/tape"
	"github.com/pomehq/pome/twins/github"
)

// TestTapeRowsAreUTF8JSON: whatever bytes a client puts in a body, a
// header or the query, and wherever a long body is cut, every tape row is
// valid UTF-8 JSON in each format the tape is read in.
func TestTapeRowsAreUTF8JSON(t *testing.T) {
	env := resttest.Start(t, github.New(), "")
	// A body just over the limit whose cut falls inside a three-byte rune.
	long := `{"body":"` + strings.Repeat("a", tape.MaxBodyBytes-10) + strings.Repeat("€", 10) + `"}`
	for _, c := range []struct{ path, ct, header, body string }{
		{"/repos/acme/api/issues/1/comments", "application/json", "", "{\"body\":\"bad \xff\xc3 bytes\"}"},
		{"/repos/acme/api/issues/1/comments", "", "", "{\"body\":\"cut \xe2\x82\"}"},
		{"/repos/acme/api/issues/1/comments", "text/plain", "agent \xff\xfe", "not json \xff"},
		{"/repos/acme/api/issues/1/comments?q=%FF%C3", "application/json", "", `{"body":"query"}`},
		{"/repos/acme/api/issues/1/comments", "application/json", "", long},
	} {
		req, _ := http.NewRequest(http.MethodPost, env.APIURL+c.path, strings.NewReader(c.body))
		req.Header.Set("Authorization", "Bearer "+env.Token)
		if c.ct != "" {
			req.Header.Set("Content-Type", c.ct)
		}
		if c.header != "" {
			req.Header.Set("User-Agent", c.header)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		// Read to the end: the row of a call is there once it is answered.
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	read := func(query string) []byte {
		req, _ := http.NewRequest(http.MethodGet, env.HTTP.URL+"/v1/sandboxes/"+env.SessionID+"/tapes/github"+query, nil)
		req.Header.Set("Authorization", "Bearer "+env.APIKey)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("tape%s: %d %s", query, resp.StatusCode, data)
		}
		return data
	}
	var doc struct {
		Rows []json.RawMessage `json:"rows"`
	}
	whole := read("")
	if !utf8.Valid(whole) {
		t.Fatalf("the tape answer is not UTF-8")
	}
	if err := json.Unmarshal(whole, &doc); err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSpace(read("?format=jsonl")), []byte("\n"))
	if len(doc.Rows) != 5 || len(lines) != 5 {
		t.Fatalf("%d rows, %d lines, want 5: %.2000s", len(doc.Rows), len(lines), whole)
	}
	for i, row := range append(doc.Rows, func() (out []json.RawMessage) {
		for _, l := range lines {
			out = append(out, l)
		}
		return out
	}()...) {
		if !utf8.Valid(row) || !json.Valid(row) {
			t.Errorf("row %d is not UTF-8 JSON: %q", i%5+1, row)
		}
	}
}
