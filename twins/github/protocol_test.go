package github_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/pomehq/pome/rest/resttest"
	"github.com/pomehq/pome/twins/github"
)

// raw sends a request with an explicit Authorization header.
func raw(t *testing.T, method, url, auth string) (*http.Response, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(method, url, nil)
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	var m map[string]any
	_ = json.Unmarshal(data, &m)
	return resp, m
}

func TestProtocol(t *testing.T) {
	env := resttest.Start(t, github.New(), github.SeedExample)
	// GitHub takes "token" and "Bearer", with the provider, sandbox or agent token.
	for _, auth := range []string{"token " + env.Token, "Bearer " + env.Token, "token " + env.AuthToken, "Bearer " + env.AgentToken} {
		if resp, body := raw(t, "GET", env.APIURL+"/repos/acme/api", auth); resp.StatusCode != 200 || body["full_name"] != "acme/api" {
			t.Errorf("%s: %d %v", auth[:6], resp.StatusCode, body)
		}
	}
	// A wrong token gets the platform's opaque 404 before any twin runs
	// (GitHub would say 401 "Bad credentials"; FIDELITY.md notes it).
	resp, _ := raw(t, "GET", env.APIURL+"/repos/acme/api", "token ghp_wrong")
	if resp.StatusCode != 404 {
		t.Errorf("bad token: %d", resp.StatusCode)
	}
	resp, body := raw(t, "GET", env.APIURL+"/repos/acme/nope", "token "+env.Token)
	if resp.StatusCode != 404 || body["message"] != "Not Found" || !strings.HasPrefix(body["documentation_url"].(string), "https://docs.github.com/") {
		t.Errorf("404: %d %v", resp.StatusCode, body)
	}
	// A path the twin does not bind is GitHub's 404, loud: Pome's
	// explanation in the message and beside it.
	resp, body = raw(t, "GET", env.APIURL+"/repos/acme/api/actions/runs", "token "+env.Token)
	if msg, _ := body["message"].(string); resp.StatusCode != http.StatusNotFound || !strings.Contains(msg, "does not implement GET /repos/acme/api/actions/runs") || body["pome"] == nil {
		t.Errorf("unbound path: %d %v", resp.StatusCode, body)
	}
	// Link, exactly as GitHub formats it: prev, next, last, first.
	resp, _ = raw(t, "GET", env.APIURL+"/repos/acme/api/issues?state=all&per_page=1&page=2", "token "+env.Token)
	base := env.APIURL + "/repos/acme/api/issues?"
	want := `<` + base + `page=1&per_page=1&state=all>; rel="prev", <` + base + `page=3&per_page=1&state=all>; rel="next", <` +
		base + `page=4&per_page=1&state=all>; rel="last", <` + base + `page=1&per_page=1&state=all>; rel="first"`
	if got := resp.Header.Get("Link"); got != want {
		t.Errorf("Link:\n got %s\nwant %s", got, want)
	}
	for _, h := range []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "X-RateLimit-Used", "X-RateLimit-Resource", "X-GitHub-Request-Id", "ETag"} {
		if resp.Header.Get(h) == "" {
			t.Errorf("header %s missing", h)
		}
	}
	// Conditional requests: the ETag of a GET answers If-None-Match with 304.
	cond, _ := http.NewRequest("GET", env.APIURL+"/repos/acme/api/issues/1", nil)
	cond.Header.Set("Authorization", "token "+env.Token)
	first, err := http.DefaultClient.Do(cond)
	if err != nil {
		t.Fatal(err)
	}
	first.Body.Close()
	cond.Header.Set("If-None-Match", first.Header.Get("ETag"))
	again, err := http.DefaultClient.Do(cond)
	if err != nil {
		t.Fatal(err)
	}
	again.Body.Close()
	if again.StatusCode != http.StatusNotModified {
		t.Errorf("If-None-Match: %d", again.StatusCode)
	}
	// 422 Validation Failed names resource, field and code.
	req, _ := http.NewRequest("POST", env.APIURL+"/repos/acme/api/labels", strings.NewReader(`{"name":"bug","color":"ffffff"}`))
	req.Header.Set("Authorization", "token "+env.Token)
	r2, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Body.Close()
	var ve struct {
		Message string `json:"message"`
		Errors  []struct{ Resource, Field, Code string }
	}
	_ = json.NewDecoder(r2.Body).Decode(&ve)
	if r2.StatusCode != 422 || ve.Message != "Validation Failed" || len(ve.Errors) != 1 || ve.Errors[0].Resource != "Label" || ve.Errors[0].Code != "already_exists" || ve.Errors[0].Field != "name" {
		t.Errorf("duplicate label: %d %+v", r2.StatusCode, ve)
	}
}
