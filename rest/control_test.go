package rest_test

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/pomehq/pome/rest"
	"github.com/pomehq/pome/session"
	"github.com/pomehq/pome/twins"
)

type plane struct {
	url  string
	keyA string
	keyB string
}

func newPlane(t *testing.T, cfg rest.Config) *plane {
	t.Helper()
	a, b := session.NewAPIKey(), session.NewAPIKey()
	teams, err := session.NewTeams(map[string][]string{"a": {a}, "b": {b}})
	if err != nil {
		t.Fatal(err)
	}
	store := session.NewMemoryStore(nil, 0)
	t.Cleanup(func() { store.Close() })
	hs := httptest.NewServer(nil)
	t.Cleanup(hs.Close)
	cfg.PublicURL = hs.URL
	hs.Config.Handler = rest.NewServer(cfg, twins.NewRegistry(notesTwin(false)), store, teams)
	return &plane{url: hs.URL, keyA: a, keyB: b}
}

func (p *plane) call(t *testing.T, key, method, path, body string) (int, map[string]any) {
	t.Helper()
	hdr := map[string]string{"Content-Type": "application/json"}
	if key != "" {
		hdr["Authorization"] = "Bearer " + key
	}
	st, _, b := do(t, method, p.url+path, hdr, body)
	var m map[string]any
	json.Unmarshal(b, &m)
	return st, m
}

func errType(m map[string]any) string {
	e, _ := m["error"].(map[string]any)
	if e == nil {
		return ""
	}
	if e["request_id"] == "" || e["request_id"] == nil {
		return "missing request_id"
	}
	return fmt.Sprint(e["type"])
}

func TestControlAuth(t *testing.T) {
	p := newPlane(t, rest.Config{})
	for name, key := range map[string]string{"missing": "", "wrong": "pme_" + strings.Repeat("x", 32)} {
		t.Run(name, func(t *testing.T) {
			st, m := p.call(t, key, "GET", "/v1/usage", "")
			if st != 401 || errType(m) != "invalid_auth" {
				t.Fatalf("%d %v", st, m)
			}
		})
	}
	t.Run("x-api-key", func(t *testing.T) {
		st, _, _ := do(t, "GET", p.url+"/v1/usage", map[string]string{"x-api-key": p.keyA}, "")
		if st != 200 {
			t.Fatalf("%d", st)
		}
	})
	t.Run("sandbox tokens do not open the control plane", func(t *testing.T) {
		_, created := p.call(t, p.keyA, "POST", "/v1/sandboxes", `{"twins":["notes"]}`)
		for _, k := range []string{"auth_token", "agent_token"} {
			if st, _ := p.call(t, fmt.Sprint(created[k]), "GET", "/v1/usage", ""); st != 401 {
				t.Fatalf("%s opened the control plane: %d", k, st)
			}
		}
	})
}

func TestCreateValidation(t *testing.T) {
	p := newPlane(t, rest.Config{MaxTwins: 3})
	cases := map[string]struct{ body, field string }{
		"no twins":          {`{"twins":[]}`, "twins"},
		"unknown twin":      {`{"twins":["jira"]}`, "twins[0]"},
		"duplicate twin":    {`{"twins":["notes","notes"]}`, "twins[1]"},
		"too many twins":    {`{"twins":["notes","notes","notes","notes"]}`, "twins"},
		"unknown field":     {`{"twins":["notes"],"bogus":1}`, "body"},
		"broken json":       {`{"twins":`, "body"},
		"seed unknown key":  {`{"twins":["notes"],"seed":{"notes":{"bogus":1}}}`, "seed.notes.bogus"},
		"seed wrong type":   {`{"twins":["notes"],"seed":{"notes":{"next":"x"}}}`, "seed.notes.next"},
		"seed foreign twin": {`{"twins":["notes"],"seed":{"slack":{}}}`, "seed.slack"},
		"bad ttl":           {`{"twins":["notes"],"ttl_seconds":-5}`, "ttl_seconds"},
		"bad clock":         {`{"twins":["notes"],"seed":{"clock":"yesterday"}}`, "seed.clock"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			st, m := p.call(t, p.keyA, "POST", "/v1/sandboxes", c.body)
			if st != 422 || errType(m) != "validation_failed" {
				t.Fatalf("%d %v", st, m)
			}
			d, _ := m["error"].(map[string]any)["details"].(map[string]any)
			if d["field"] != c.field {
				t.Fatalf("details %v, want field %s", d, c.field)
			}
		})
	}
	// Nothing was created by any of them.
	_, list := p.call(t, p.keyA, "GET", "/v1/sandboxes", "")
	if n := len(list["data"].([]any)); n != 0 {
		t.Fatalf("%d sandboxes created by invalid requests", n)
	}
	_, u := p.call(t, p.keyA, "GET", "/v1/usage", "")
	if u["sandboxes_created"] != 0.0 {
		t.Fatalf("usage counted invalid creates: %v", u)
	}
}

func TestCreateShapeAndTeams(t *testing.T) {
	p := newPlane(t, rest.Config{})
	st, c := p.call(t, p.keyA, "POST", "/v1/sandboxes", `{"twins":["notes"],"ttl_seconds":60,"seed":{"clock":"2026-01-01T09:00:00Z"}}`)
	if st != 201 {
		t.Fatalf("%d %v", st, c)
	}
	sid := fmt.Sprint(c["session_id"])
	if !session.ValidSandboxID(sid) || !strings.HasPrefix(fmt.Sprint(c["auth_token"]), "pst_") || !strings.HasPrefix(fmt.Sprint(c["agent_token"]), "pat_") {
		t.Fatalf("%v", c)
	}
	pt := c["per_twin"].(map[string]any)["notes"].(map[string]any)
	if pt["api_url"] != p.url+"/notes/s/"+sid || pt["mcp_url"] != p.url+"/notes/s/"+sid+"/mcp" || pt["openapi_url"] != p.url+"/notes/s/"+sid+"/openapi.json" {
		t.Fatalf("%v", pt)
	}
	cred := c["provider_credentials"].(map[string]any)["notes"].(map[string]any)
	if !strings.HasPrefix(fmt.Sprint(cred["token"]), "nt_") || cred["header"] != "Authorization" || cred["scheme"] != "Bearer" {
		t.Fatalf("%v", cred)
	}
	// Team B sees nothing of team A's.
	for _, path := range []string{"/v1/sandboxes/" + sid, "/v1/sandboxes/" + sid + "/tapes/notes", "/v1/sandboxes/" + sid + "/state/notes"} {
		if st, m := p.call(t, p.keyB, "GET", path, ""); st != 404 || errType(m) != "not_found" {
			t.Fatalf("team B read %s: %d", path, st)
		}
	}
	if st, _ := p.call(t, p.keyB, "DELETE", "/v1/sandboxes/"+sid+"?discard=true", ""); st != 404 {
		t.Fatalf("team B stopped A's sandbox: %d", st)
	}
	_, lb := p.call(t, p.keyB, "GET", "/v1/sandboxes", "")
	if len(lb["data"].([]any)) != 0 {
		t.Fatalf("team B lists A's sandboxes")
	}
	st, sb := p.call(t, p.keyA, "GET", "/v1/sandboxes/"+sid, "")
	if st != 200 || sb["state"] != "ready" || sb["auth_hash"] != nil {
		t.Fatalf("%d %v", st, sb)
	}
	// Unknown twin in tape path, bad state filter, bad limit.
	if st, _ := p.call(t, p.keyA, "GET", "/v1/sandboxes/"+sid+"/tapes/slack", ""); st != 404 {
		t.Fatalf("tape of absent twin: %d", st)
	}
	if st, m := p.call(t, p.keyA, "GET", "/v1/sandboxes?state=zombie", ""); st != 422 || errType(m) != "validation_failed" {
		t.Fatalf("state filter: %d", st)
	}
	if st, _ := p.call(t, p.keyA, "GET", "/v1/sandboxes?limit=0", ""); st != 422 {
		t.Fatalf("limit: %d", st)
	}
	if st, _ := p.call(t, p.keyA, "DELETE", "/v1/sandboxes/"+sid+"?discard=maybe", ""); st != 422 {
		t.Fatalf("discard flag: %d", st)
	}
}

func TestListNewestFirstAndFilter(t *testing.T) {
	p := newPlane(t, rest.Config{})
	var ids []string
	for i := 0; i < 3; i++ {
		_, c := p.call(t, p.keyA, "POST", "/v1/sandboxes", `{"twins":["notes"]}`)
		ids = append(ids, fmt.Sprint(c["session_id"]))
	}
	p.call(t, p.keyA, "DELETE", "/v1/sandboxes/"+ids[0], "")
	_, l := p.call(t, p.keyA, "GET", "/v1/sandboxes?limit=2", "")
	data := l["data"].([]any)
	if len(data) != 2 || l["has_more"] != true {
		t.Fatalf("%v", l)
	}
	_, l = p.call(t, p.keyA, "GET", "/v1/sandboxes?state=stopped", "")
	data = l["data"].([]any)
	if len(data) != 1 || data[0].(map[string]any)["id"] != ids[0] {
		t.Fatalf("%v", l)
	}
}

func TestQuota(t *testing.T) {
	p := newPlane(t, rest.Config{SandboxQuota: 2})
	var first string
	for i := 0; i < 2; i++ {
		st, c := p.call(t, p.keyA, "POST", "/v1/sandboxes", `{"twins":["notes"]}`)
		if st != 201 {
			t.Fatalf("%d", st)
		}
		if first == "" {
			first = fmt.Sprint(c["session_id"])
		}
	}
	st, m := p.call(t, p.keyA, "POST", "/v1/sandboxes", `{"twins":["notes"]}`)
	if st != 402 || errType(m) != "quota_exceeded" {
		t.Fatalf("%d %v", st, m)
	}
	// Another team is not affected, and stopping one frees a slot.
	if st, _ := p.call(t, p.keyB, "POST", "/v1/sandboxes", `{"twins":["notes"]}`); st != 201 {
		t.Fatalf("team B: %d", st)
	}
	p.call(t, p.keyA, "DELETE", "/v1/sandboxes/"+first, "")
	if st, _ := p.call(t, p.keyA, "POST", "/v1/sandboxes", `{"twins":["notes"]}`); st != 201 {
		t.Fatalf("after stop: %d", st)
	}
}

func TestQuotaUnderConcurrency(t *testing.T) {
	p := newPlane(t, rest.Config{SandboxQuota: 5})
	var wg sync.WaitGroup
	var mu sync.Mutex
	codes := map[int]int{}
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, _ := p.call(t, p.keyA, "POST", "/v1/sandboxes", `{"twins":["notes"]}`)
			mu.Lock()
			codes[st]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	if codes[201] != 5 || codes[402] != 15 {
		t.Fatalf("%v", codes)
	}
}

func TestUsageChecksTwins(t *testing.T) {
	p := newPlane(t, rest.Config{})
	p.call(t, p.keyA, "POST", "/v1/sandboxes", `{"twins":["notes"]}`)
	p.call(t, p.keyA, "POST", "/v1/sandboxes", `{"twins":["notes"]}`)
	_, u := p.call(t, p.keyA, "GET", "/v1/usage", "")
	if u["team"] != "a" || u["sandboxes_created"] != 2.0 || u["sandboxes_open"] != 2.0 || u["twins_started"] != 2.0 || u["sandboxes_quota"] != 1000.0 || u["period_start"] == nil {
		t.Fatalf("%v", u)
	}
	st, c := p.call(t, p.keyA, "GET", "/v1/checks?twin=notes", "")
	if st != 200 || c["twin"] != "notes" {
		t.Fatalf("%d %v", st, c)
	}
	ids := map[string]bool{}
	for _, x := range c["checks"].([]any) {
		m := x.(map[string]any)
		ids[fmt.Sprint(m["id"])] = true
		for _, k := range []string{"template", "params", "substrate", "polarity", "description"} {
			if _, ok := m[k]; !ok {
				t.Errorf("check %v lacks %s", m["id"], k)
			}
		}
	}
	for _, id := range []string{"notes.tool-was-called", "notes.tool-never-called", "notes.no-unsupported-endpoint", "notes.no-mutations"} {
		if !ids[id] {
			t.Errorf("missing %s", id)
		}
	}
	if st, m := p.call(t, p.keyA, "GET", "/v1/checks?twin=jira", ""); st != 422 || errType(m) != "validation_failed" {
		t.Fatalf("%d", st)
	}
	st, tw := p.call(t, p.keyA, "GET", "/v1/twins", "")
	if st != 200 {
		t.Fatal(st)
	}
	list := tw["twins"].([]any)
	first := list[0].(map[string]any)
	if first["name"] != "notes" || len(first["tools"].([]any)) != 4 || len(first["bindings"].([]any)) != 6 {
		t.Fatalf("%v", first)
	}
	if st, _, _ := do(t, "GET", p.url+"/healthz", nil, ""); st != 200 {
		t.Fatal(st)
	}
	if st, _, _ := do(t, "GET", p.url+"/readyz", nil, ""); st != 200 {
		t.Fatal(st)
	}
	if st, m := p.call(t, p.keyA, "GET", "/v1/nope", ""); st != 404 || errType(m) != "not_found" {
		t.Fatalf("%d %v", st, m)
	}
}
