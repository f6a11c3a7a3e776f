package rest_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pomehq/pome/rest"
)

// TestRateLimitEveryTwin: past a twin's per-sandbox limit, each twin
// answers in its vendor's rate-limit shape with Retry-After and the
// x-ratelimit-* counters; the counters are on every response; another
// sandbox (and another twin of the same sandbox) keeps its own budget; and
// the refused call changes nothing but is taped.
func TestRateLimitEveryTwin(t *testing.T) {
	const limit = 5
	s := startReal(t, rest.Config{RateLimits: map[string]int{"github": limit, "slack": limit, "stripe": limit, "gmail": limit}}, nil)
	shapes := map[string]struct {
		status []int
		ok     func(m map[string]any) bool
	}{
		// GitHub answers a primary rate limit with 403 (or 429) and a
		// message naming it.
		"github": {[]int{403, 429}, func(m map[string]any) bool {
			msg, _ := m["message"].(string)
			return strings.Contains(msg, "rate limit") && m["documentation_url"] != nil
		}},
		"slack": {[]int{429}, func(m map[string]any) bool { return m["ok"] == false && m["error"] == "ratelimited" }},
		"stripe": {[]int{429}, func(m map[string]any) bool {
			e, _ := m["error"].(map[string]any)
			return e != nil && e["type"] == "rate_limit_error"
		}},
		"gmail": {[]int{429}, func(m map[string]any) bool {
			e, _ := m["error"].(map[string]any)
			return e != nil && e["code"] == float64(429) && e["status"] == "RESOURCE_EXHAUSTED"
		}},
	}
	a := s.create(t, s.KeyA, "github", "slack", "stripe")
	g := s.create(t, s.KeyA, "gmail", "github")
	other := s.create(t, s.KeyB, "github")
	for twin, shape := range shapes {
		c := a
		if twin == "gmail" {
			c = g
		}
		base := c.PerTwin[twin].APIURL
		tok := c.ProviderCredentials[twin].Token
		p := vendorRead[twin]
		before := s.state(t, s.KeyA, c.SessionID, twin)
		start := time.Now()
		for i := 1; i <= limit; i++ {
			st, h, b := p.send(t, base, tok)
			if st != 200 {
				t.Fatalf("%s call %d: %d %s", twin, i, st, b)
			}
			if h.Get("X-RateLimit-Limit") != strconv.Itoa(limit) || h.Get("X-RateLimit-Remaining") != strconv.Itoa(limit-i) || h.Get("X-RateLimit-Used") != strconv.Itoa(i) {
				t.Fatalf("%s call %d: counters %v", twin, i, h)
			}
		}
		st, h, b := p.send(t, base, tok)
		var m map[string]any
		json.Unmarshal(b, &m)
		okStatus := false
		for _, s := range shape.status {
			okStatus = okStatus || st == s
		}
		if !okStatus || !shape.ok(m) {
			t.Errorf("%s over the limit: %d %s", twin, st, b)
		}
		retry, err := strconv.Atoi(h.Get("Retry-After"))
		if err != nil || retry < 1 || retry > 60 {
			t.Errorf("%s: Retry-After %q", twin, h.Get("Retry-After"))
		}
		reset, err := strconv.ParseInt(h.Get("X-RateLimit-Reset"), 10, 64)
		if err != nil || reset < start.Unix() || reset > start.Add(61*time.Second).Unix() {
			t.Errorf("%s: X-RateLimit-Reset %q", twin, h.Get("X-RateLimit-Reset"))
		}
		if h.Get("X-RateLimit-Remaining") != "0" || h.Get("X-RateLimit-Used") != strconv.Itoa(limit) {
			t.Errorf("%s: counters over the limit %v", twin, h)
		}
		// MCP shares the budget.
		st, _, _ = probe{"mcp", "POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`}.send(t, base, c.AgentToken)
		if st != shape.status[0] && st != 429 {
			t.Errorf("%s MCP over the limit: %d", twin, st)
		}
		if after := s.state(t, s.KeyA, c.SessionID, twin); after != before {
			t.Errorf("%s: limited calls changed state", twin)
		}
		// The refusal is on the tape, as every served call is.
		_, _, tb := doTB(t, "GET", base+"/_pome/tape", bearer(c.AuthToken), "")
		if !strings.Contains(string(tb), `"status":`+strconv.Itoa(st)) {
			t.Errorf("%s: the limited call is not on the tape", twin)
		}
	}
	// Budgets are per sandbox and per twin.
	if st, _, b := vendorRead["github"].send(t, other.PerTwin["github"].APIURL, other.ProviderCredentials["github"].Token); st != 200 {
		t.Errorf("another sandbox is limited too: %d %s", st, b)
	}
	if st, _, b := vendorRead["github"].send(t, g.PerTwin["github"].APIURL, g.ProviderCredentials["github"].Token); st != 200 {
		t.Errorf("a fresh twin of another sandbox is limited: %d %s", st, b)
	}
	// Without a configured limit, no counters from the limiter (the GitHub
	// twin's own fixed headers are its business).
	u := startReal(t, rest.Config{}, nil)
	c := u.create(t, u.KeyA, "slack")
	if _, h, _ := vendorRead["slack"].send(t, c.PerTwin["slack"].APIURL, c.AuthToken); h.Get("X-RateLimit-Limit") != "" {
		t.Errorf("counters without a limit: %v", h)
	}
}

// TestSandboxQuotaAndTwinLimit: the team quota answers 402 quota_exceeded
// and frees up when a sandbox stops; more than three twins is a 422.
func TestSandboxQuotaAndTwinLimit(t *testing.T) {
	s := startReal(t, rest.Config{SandboxQuota: 2}, nil)
	a := s.create(t, s.KeyA, "github")
	s.create(t, s.KeyA, "slack")
	key := map[string]string{"Authorization": "Bearer " + s.KeyA, "Content-Type": "application/json"}
	st, _, b := doTB(t, "POST", s.URL+"/v1/sandboxes", key, `{"twins":["github"]}`)
	if st != http.StatusPaymentRequired || errTypeOf(b) != "quota_exceeded" {
		t.Fatalf("over quota: %d %s", st, b)
	}
	// Team b has its own quota.
	s.create(t, s.KeyB, "github")
	doTB(t, "DELETE", s.URL+"/v1/sandboxes/"+a.SessionID, key, "")
	if st, _, b := doTB(t, "POST", s.URL+"/v1/sandboxes", key, `{"twins":["github"]}`); st != 201 {
		t.Fatalf("after a stop: %d %s", st, b)
	}
	st, _, b = doTB(t, "POST", s.URL+"/v1/sandboxes", map[string]string{"Authorization": "Bearer " + s.KeyB}, `{"twins":["github","slack","stripe","gmail"]}`)
	if st != 422 || errTypeOf(b) != "validation_failed" {
		t.Fatalf("four twins: %d %s", st, b)
	}
}
