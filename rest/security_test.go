package rest_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/pomehq/pome/rest"
	"github.com/pomehq/pome/session"
)

// probe is one request on one twin's surface: a vendor read, the MCP
// endpoint, or a Pome read.
type probe struct {
	surface string // "vendor", "mcp", "tape", "state"
	method  string
	path    string
	body    string
}

var vendorRead = map[string]probe{
	"github": {"vendor", "GET", "/repos/acme/api/issues/1", ""},
	"slack":  {"vendor", "POST", "/api/auth.test", ""},
	"stripe": {"vendor", "GET", "/v1/customers", ""},
	"gmail":  {"vendor", "GET", "/gmail/v1/users/me/labels", ""},
}

func probesFor(twin string) []probe {
	return []probe{
		vendorRead[twin],
		{"mcp", "POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`},
		{"tape", "GET", "/_pome/tape", ""},
		{"state", "GET", "/_pome/state", ""},
	}
}

func (p probe) send(t testing.TB, base, tok string) (int, http.Header, []byte) {
	hdr := map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
	if tok != "" {
		hdr["Authorization"] = "Bearer " + tok
	}
	return doTB(t, p.method, base+p.path, hdr, p.body)
}

// TestTokenScopes is SPEC §4 as a table, over all four twins: the
// auth_token opens every twin of its sandbox including the _pome reads;
// the agent_token the vendor and MCP surfaces only; a provider token its
// own twin only; nothing opens another sandbox, a twin the sandbox does
// not run, or the control plane; a team key opens only the control plane.
// Every refusal on a surface is that surface's one answer, byte for byte,
// header for header: the opaque 404, or on a vendor surface whose SDK
// would retry or hide it, the vendor's own refusal (SPEC §10).
func TestTokenScopes(t *testing.T) {
	s := startReal(t, rest.Config{}, nil)
	sbs := []*session.Created{
		s.create(t, s.KeyA, "github", "slack", "stripe"),
		s.create(t, s.KeyA, "gmail", "github"),
		s.create(t, s.KeyB, "slack", "gmail"),
	}
	all := []string{"github", "slack", "stripe", "gmail"}
	type token struct {
		name, value string
		owner       int    // index in sbs; -1: a team key
		role        string // auth, agent, provider
		twin        string // the provider token's twin
	}
	var toks []token
	for i, c := range sbs {
		toks = append(toks, token{"auth", c.AuthToken, i, "auth", ""}, token{"agent", c.AgentToken, i, "agent", ""})
		for twin, cr := range c.ProviderCredentials {
			toks = append(toks, token{"provider-" + twin, cr.Token, i, "provider", twin})
		}
	}
	toks = append(toks, token{"team-key-a", s.KeyA, -1, "", ""}, token{"team-key-b", s.KeyB, -1, "", ""}, token{"none", "", -1, "", ""})

	// Each twin's surface has one refusal: the opaque 404, except the
	// vendor surfaces of Slack (200 invalid_auth), Gmail (Google's 401) and
	// Stripe (Stripe's 401, which masks the key it was sent, so it is one
	// answer per key).
	refusals := map[string]answer{}
	var opaque answer
	checked := 0
	for si, c := range sbs {
		for _, twin := range all {
			base := s.URL + "/" + twin + "/s/" + c.SessionID
			served := false
			for _, tw := range sbsTwins(c) {
				served = served || tw == twin
			}
			for _, tok := range toks {
				for _, p := range probesFor(twin) {
					want := served && tok.owner == si
					switch tok.role {
					case "agent":
						want = want && (p.surface == "vendor" || p.surface == "mcp")
					case "provider":
						want = want && tok.twin == twin && (p.surface == "vendor" || p.surface == "mcp")
					}
					st, h, b := p.send(t, base, tok.value)
					checked++
					if want {
						if st != 200 {
							t.Errorf("sandbox %d %s %s with %s (of %d): %d %.200s, want 200", si, twin, p.surface, tok.name, tok.owner, st, b)
						}
						continue
					}
					h.Del("Date")
					got := answer{st, string(b), h}
					key := twin + " " + p.surface
					if twin == "stripe" && p.surface == "vendor" {
						key += " " + tok.value
					}
					if !refusalShape(twin, p.surface, got) {
						t.Errorf("sandbox %d %s %s with %s (of %d): %d %.200s %v, not %s's refusal", si, twin, p.surface, tok.name, tok.owner, st, b, h, twin)
						continue
					}
					if got.status == 404 {
						key = "opaque"
						if opaque.header == nil {
							opaque = got
						}
					}
					first, seen := refusals[key]
					if !seen {
						refusals[key] = got
						// The same key on a sandbox that never existed.
						st2, h2, b2 := p.send(t, s.URL+"/"+twin+"/s/ses_0000000000000000", tok.value)
						h2.Del("Date")
						first = answer{st2, string(b2), h2}
					}
					if got.status != first.status || got.body != first.body || !sameHeader(got.header, first.header) {
						t.Errorf("sandbox %d %s %s with %s: refusal differs: %d %s %v vs %d %s %v", si, twin, p.surface, tok.name, st, b, h, first.status, first.body, first.header)
					}
				}
			}
		}
	}
	if opaque.body != `{"message":"No twin pod for this session."}`+"\n" {
		t.Errorf("opaque body %q", opaque.body)
	}
	// Unknown and malformed sandboxes, and the Stripe root with a forged
	// key, are refused the same way.
	for _, url := range []string{
		s.URL + "/github/s/ses_0000000000000000/repos/acme/api/issues/1",
		s.URL + "/github/s/ses_/repos/acme/api/issues/1",
		s.URL + "/github/s/" + strings.Repeat("x", 5000) + "/repos/acme/api/issues/1",
		s.URL + "/nosuchtwin/s/" + sbs[0].SessionID + "/x",
	} {
		st, h, b := doTB(t, "GET", url, bearer(sbs[0].AuthToken), "")
		h.Del("Date")
		if st != 404 || string(b) != opaque.body || !sameHeader(h, opaque.header) {
			t.Errorf("%s: %d %s %v", url, st, b, h)
		}
	}
	// At the server root (Stripe's /v1/, Gmail's /gmail/v1/) a key in the
	// vendor's shape that names no sandbox gets that vendor's refusal, the
	// same as the key gets below a sandbox that does not exist.
	for _, c := range []struct{ twin, path, key string }{
		{"stripe", "/v1/customers", "sk_test_" + strings.Repeat("4", 40)},
		{"stripe", "/v1/customers", "sk_test_short"},
		{"gmail", "/gmail/v1/users/me/labels", "ya29." + strings.Repeat("q", 40)},
		{"gmail", "/upload/gmail/v1/users/me/messages/send", "ya29.x"},
	} {
		st, h, b := doTB(t, "GET", s.URL+c.path, bearer(c.key), "")
		h.Del("Date")
		got := answer{st, string(b), h}
		st2, h2, b2 := doTB(t, "GET", s.URL+"/"+c.twin+"/s/ses_0000000000000000"+c.path, bearer(c.key), "")
		h2.Del("Date")
		if !refusalShape(c.twin, "vendor", got) || st != st2 || string(b) != string(b2) || !sameHeader(h, h2) {
			t.Errorf("root %s with %s: %d %s %v; below a missing sandbox %d %s %v", c.path, c.key, st, b, h, st2, b2, h2)
		}
	}
	// Data-plane tokens never open the control plane.
	for _, tok := range toks {
		if tok.owner < 0 {
			continue
		}
		for _, h := range []map[string]string{{"Authorization": "Bearer " + tok.value}, {"x-api-key": tok.value}} {
			st, _, b := doTB(t, "GET", s.URL+"/v1/sandboxes", h, "")
			if st != 401 || !strings.Contains(string(b), "invalid_auth") {
				t.Errorf("%s on the control plane: %d %s", tok.name, st, b)
			}
		}
	}
	t.Logf("%d token × twin × surface combinations checked", checked)
}

// answer is one HTTP answer, its Date header dropped.
type answer struct {
	status int
	body   string
	header http.Header
}

// refusalShape reports whether a refusal on a twin's surface has that
// twin's shape (SPEC §10).
func refusalShape(twin, surface string, a answer) bool {
	switch {
	case twin == "slack" && surface == "vendor":
		return a.status == 200 && a.body == `{"ok":false,"error":"invalid_auth"}`+"\n"
	case twin == "stripe" && surface == "vendor":
		return a.status == 401 && a.header.Get("Stripe-Should-Retry") == "false" &&
			strings.HasPrefix(a.body, `{"error":{"message":"`) && strings.Contains(a.body, `"type":"invalid_request_error"`)
	case twin == "gmail" && surface == "vendor":
		return a.status == 401 && strings.HasPrefix(a.body, `{"error":{"code":401,`) && strings.Contains(a.body, `"status":"UNAUTHENTICATED"`)
	}
	return a.status == 404 && a.body == `{"message":"No twin pod for this session."}`+"\n"
}

func sbsTwins(c *session.Created) []string {
	var out []string
	for name := range c.PerTwin {
		out = append(out, name)
	}
	return out
}

func sameHeader(a, b http.Header) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if strings.Join(v, ",") != strings.Join(b.Values(k), ",") {
			return false
		}
	}
	return true
}

// TestTeamIsolation: another team's key never sees, reads, grades or stops
// a sandbox, and its refusals are the same not_found as for an id that
// never existed.
func TestTeamIsolation(t *testing.T) {
	s := startReal(t, rest.Config{}, nil)
	s.Srv.Grader = func(context.Context, *session.Manager, *session.Sandbox, []byte) (any, error) {
		return map[string]any{"state": "pass"}, nil
	}
	c := s.create(t, s.KeyA, "github")
	key := map[string]string{"Authorization": "Bearer " + s.KeyB}
	for _, r := range []struct{ method, path string }{
		{"GET", "/v1/sandboxes/" + c.SessionID},
		{"GET", "/v1/sandboxes/" + c.SessionID + "/tapes/github"},
		{"GET", "/v1/sandboxes/" + c.SessionID + "/state/github"},
		{"POST", "/v1/sandboxes/" + c.SessionID + "/grade"},
		{"DELETE", "/v1/sandboxes/" + c.SessionID},
		{"DELETE", "/v1/sandboxes/" + c.SessionID + "?discard=true"},
	} {
		st, _, b := doTB(t, r.method, s.URL+r.path, key, `{"criteria":[]}`)
		if st != 404 || !strings.Contains(string(b), `"not_found"`) {
			t.Errorf("team b %s %s: %d %s", r.method, r.path, st, b)
		}
		// The same answer, apart from ids, for a sandbox that never was.
		st2, _, b2 := doTB(t, r.method, s.URL+strings.Replace(r.path, c.SessionID, "ses_0000000000000000", 1), key, `{"criteria":[]}`)
		if st2 != st || errTypeOf(b2) != errTypeOf(b) {
			t.Errorf("team b %s %s: %d %s differs from a missing sandbox's %d %s", r.method, r.path, st, b, st2, b2)
		}
	}
	st, _, b := doTB(t, "GET", s.URL+"/v1/sandboxes", key, "")
	if st != 200 || strings.Contains(string(b), c.SessionID) {
		t.Errorf("team b lists team a's sandbox: %s", b)
	}
	// Still running for its own team.
	st, _, b = doTB(t, "GET", s.URL+"/v1/sandboxes/"+c.SessionID, map[string]string{"Authorization": "Bearer " + s.KeyA}, "")
	if st != 200 || !strings.Contains(string(b), `"state":"ready"`) {
		t.Fatalf("team a's sandbox after team b's attempts: %d %s", st, b)
	}
}

func errTypeOf(b []byte) string {
	var m struct{ Error struct{ Type string } }
	json.Unmarshal(b, &m)
	return m.Error.Type
}

// TestRefusalTiming: every refusal takes about as long as every other —
// a missing sandbox, a real sandbox with a wrong token, another sandbox's
// token, a twin the sandbox does not run — so timing does not tell which
// sandboxes exist. It covers each vendor's refusal (the opaque 404 and the
// vendor-shaped ones), every class with the answer its vendor gives. Medians
// of many samples are compared within a factor (a timing class), not to an
// exact bound.
func TestRefusalTiming(t *testing.T) {
	if testing.Short() {
		t.Skip("timing samples")
	}
	s := startReal(t, rest.Config{}, nil)
	type kind struct {
		url, tok string
		status   int
	}
	kinds := map[string]kind{}
	// other runs no twin of the ones probed, so a twin path below it is
	// "twin not in sandbox".
	other := s.create(t, s.KeyA, "github")
	for _, twin := range []string{"github", "slack", "stripe", "gmail"} {
		a := s.create(t, s.KeyA, twin)
		b := s.create(t, s.KeyA, twin)
		p := vendorRead[twin]
		status := map[string]int{"github": 404, "slack": 200, "stripe": 401, "gmail": 401}[twin]
		kinds[twin+": unknown sandbox"] = kind{s.URL + "/" + twin + "/s/ses_0000000000000000" + p.path, a.AuthToken, status}
		kinds[twin+": wrong token"] = kind{a.PerTwin[twin].APIURL + p.path, "pst_" + strings.Repeat("x", 40), status}
		kinds[twin+": other sandbox's token"] = kind{a.PerTwin[twin].APIURL + p.path, b.AuthToken, status}
		kinds[twin+": no token"] = kind{a.PerTwin[twin].APIURL + p.path, "", status}
		if twin != "github" {
			kinds[twin+": twin not in sandbox"] = kind{s.URL + "/" + twin + "/s/" + other.SessionID + p.path, other.AuthToken, status}
		}
	}
	const samples = 200
	medians := map[string]time.Duration{}
	timings := map[string][]time.Duration{}
	client := &http.Client{}
	for round := 0; round < samples; round++ {
		// Interleave kinds so that drift in machine load hits all alike.
		for name, k := range kinds {
			req, _ := http.NewRequest(vendorRead[name[:strings.IndexByte(name, ':')]].method, k.url, nil)
			if k.tok != "" {
				req.Header.Set("Authorization", "Bearer "+k.tok)
			}
			start := time.Now()
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			var buf [128]byte
			for {
				if _, err := resp.Body.Read(buf[:]); err != nil {
					break
				}
			}
			resp.Body.Close()
			d := time.Since(start)
			if resp.StatusCode != k.status {
				t.Fatalf("%s: %d, want %d", name, resp.StatusCode, k.status)
			}
			timings[name] = append(timings[name], d)
		}
	}
	for name, ds := range timings {
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		medians[name] = ds[len(ds)/2]
	}
	var lo, hi time.Duration
	for _, m := range medians {
		if lo == 0 || m < lo {
			lo = m
		}
		hi = max(hi, m)
	}
	t.Logf("refusal medians: %v", medians)
	// A factor of 5 on medians of local round trips: a store lookup that
	// only some refusals paid would show as a different class.
	if hi > 5*lo && hi-lo > time.Millisecond {
		t.Errorf("refusals fall in different timing classes: %v", medians)
	}
}

// TestSecretsNeverLeak sends every token the ways vendor SDKs send them
// (header, Basic, form field, query) to every twin, including refused and
// failing calls, then checks that no token or team key appears in any
// tape, any response of the control plane, or the server's log; and that
// the store keeps only hashes.
func TestSecretsNeverLeak(t *testing.T) {
	s := startReal(t, rest.Config{}, nil)
	a := s.create(t, s.KeyA, "github", "slack", "stripe")
	g := s.create(t, s.KeyA, "gmail")
	secrets := []string{s.KeyA, s.KeyB, a.AuthToken, a.AgentToken, g.AuthToken, g.AgentToken}
	for _, c := range []*session.Created{a, g} {
		for _, cr := range c.ProviderCredentials {
			secrets = append(secrets, cr.Token)
		}
	}
	exercise(t, s, a, g)
	var seen []string
	for _, c := range []*session.Created{a, g} {
		for twin := range c.PerTwin {
			for _, path := range []string{"/tapes/" + twin, "/tapes/" + twin + "?format=jsonl", "/state/" + twin, ""} {
				_, _, b := doTB(t, "GET", s.URL+"/v1/sandboxes/"+c.SessionID+path, map[string]string{"Authorization": "Bearer " + s.KeyA}, "")
				seen = append(seen, string(b))
			}
			_, _, b := doTB(t, "GET", c.PerTwin[twin].APIURL+"/_pome/tape", bearer(c.AuthToken), "")
			seen = append(seen, string(b))
		}
	}
	seen = append(seen, s.Log.String())
	for _, text := range seen {
		for _, sec := range secrets {
			if strings.Contains(text, sec) {
				t.Fatalf("a secret (%.6s…) appears in: %.400s", sec, text)
			}
		}
	}
	// Tapes did record the calls (so the check above read something).
	if !strings.Contains(strings.Join(seen, ""), `[REDACTED]`) {
		t.Fatalf("no redacted credential on any tape: nothing was checked")
	}
	// The store holds hashes only.
	for _, c := range []*session.Created{a, g} {
		sb, err := s.Store.Get(context.Background(), c.SessionID)
		if err != nil {
			t.Fatal(err)
		}
		rec, _ := json.Marshal(sb)
		for _, sec := range secrets {
			if strings.Contains(string(rec), sec) {
				t.Fatalf("stored sandbox holds a token in the clear: %s", rec)
			}
		}
		if sb.AuthHash != session.HashToken(c.AuthToken) || sb.AgentHash != session.HashToken(c.AgentToken) {
			t.Fatalf("stored hashes do not match the tokens")
		}
	}
}

// exercise sends calls with every token form, good and bad, to the twins.
// Tokens also ride inside the bodies of reads and refused writes, where
// only the tape could keep them (what a successful write stores is the
// agent's own content, as on the vendor).
func exercise(t *testing.T, s *realServer, a, g *session.Created) {
	t.Helper()
	gh, sl, st := a.PerTwin["github"].APIURL, a.PerTwin["slack"].APIURL, a.PerTwin["stripe"].APIURL
	ghTok, slTok, stTok := a.ProviderCredentials["github"].Token, a.ProviderCredentials["slack"].Token, a.ProviderCredentials["stripe"].Token
	basic := func(u string) string { return "Basic " + base64.StdEncoding.EncodeToString([]byte(u+":")) }
	calls := []struct {
		method, url string
		hdr         map[string]string
		body        string
	}{
		{"POST", gh + "/repos/acme/api/issues", map[string]string{"Authorization": "token " + ghTok}, `{"title":"a new issue"}`},
		{"POST", gh + "/repos/acme/api/issues", map[string]string{"Authorization": "Bearer " + a.AgentToken}, `{"title":1}`},
		{"GET", gh + "/repos/acme/nope/issues/9", map[string]string{"Authorization": "Bearer " + a.AuthToken}, ""},
		{"POST", sl + "/api/chat.postMessage", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, "token=" + slTok + "&channel=general&text=hi"},
		{"POST", sl + "/api/chat.postMessage?token=" + slTok, nil, ""},
		{"POST", sl + "/api/chat.postMessage", map[string]string{"Authorization": "Bearer " + slTok, "Content-Type": "application/json"}, `{"channel":"nope","text":"x","token":"` + slTok + `"}`},
		{"POST", st + "/v1/customers", map[string]string{"Authorization": basic(stTok), "Content-Type": "application/x-www-form-urlencoded"}, "email=x%40y.z&description=hello"},
		{"POST", s.URL + "/v1/payment_intents", map[string]string{"Authorization": "Bearer " + stTok, "Content-Type": "application/x-www-form-urlencoded"}, "amount=abc"},
		{"POST", st + "/v1/customers", map[string]string{"Authorization": "Bearer sk_test_wrong" + stTok[10:]}, ""},
		{"GET", g.PerTwin["gmail"].APIURL + "/gmail/v1/users/me/messages/nope", map[string]string{"Authorization": "Bearer " + g.ProviderCredentials["gmail"].Token}, ""},
		{"POST", g.PerTwin["gmail"].MCPURL, map[string]string{"Authorization": "Bearer " + g.AgentToken, "Content-Type": "application/json", "Accept": "application/json, text/event-stream"},
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_threads","arguments":{"query":"` + g.AgentToken + `"}}}`},
		{"POST", gh + "/mcp", map[string]string{"Authorization": "Bearer " + a.AgentToken, "Content-Type": "application/json", "Accept": "application/json, text/event-stream"},
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_issues","arguments":{"owner":"acme","repo":"api","labels":["` + a.AgentToken + `"]}}}`},
		{"GET", s.URL + "/v1/sandboxes", map[string]string{"Authorization": "Bearer pme_" + strings.Repeat("z", 32)}, ""},
	}
	for _, c := range calls {
		doTB(t, c.method, c.url, c.hdr, c.body)
	}
}

// TestRedisKeepsHashesOnly: with the Redis store, no key of a sandbox —
// meta, state, seed or tape — holds a token in the clear after traffic.
func TestRedisKeepsHashesOnly(t *testing.T) {
	url := os.Getenv("POME_TEST_REDIS_URL")
	if url == "" {
		t.Skip("POME_TEST_REDIS_URL not set")
	}
	client, err := session.OpenRedis(url)
	if err != nil {
		t.Fatal(err)
	}
	s := startReal(t, rest.Config{}, session.NewRedisStore(client, nil))
	t.Cleanup(func() { s.Store.Close() })
	a := s.create(t, s.KeyA, "github", "slack", "stripe")
	g := s.create(t, s.KeyA, "gmail")
	t.Cleanup(func() { s.discard(t, a.SessionID, g.SessionID) })
	exercise(t, s, a, g)
	secrets := []string{s.KeyA, s.KeyB, a.AuthToken, a.AgentToken, g.AuthToken, g.AgentToken}
	for _, c := range []*session.Created{a, g} {
		for _, cr := range c.ProviderCredentials {
			secrets = append(secrets, cr.Token)
		}
	}
	opts, _ := redis.ParseURL(url)
	rdb := redis.NewClient(opts)
	defer rdb.Close()
	ctx := context.Background()
	keys := 0
	for _, c := range []*session.Created{a, g} {
		iter := rdb.Scan(ctx, 0, "pome:{"+c.SessionID+"}:*", 100).Iterator()
		for iter.Next(ctx) {
			keys++
			k := iter.Val()
			var vals []string
			switch typ, _ := rdb.Type(ctx, k).Result(); typ {
			case "string":
				v, _ := rdb.Get(ctx, k).Result()
				vals = append(vals, v)
			case "hash":
				m, _ := rdb.HGetAll(ctx, k).Result()
				for _, v := range m {
					vals = append(vals, v)
				}
			case "list":
				vals, _ = rdb.LRange(ctx, k, 0, -1).Result()
			}
			for _, v := range vals {
				for _, sec := range secrets {
					if strings.Contains(v, sec) {
						t.Fatalf("key %s holds a secret in the clear: %.300s", k, v)
					}
				}
			}
		}
		if err := iter.Err(); err != nil {
			t.Fatal(err)
		}
		meta, err := rdb.Get(ctx, "pome:{"+c.SessionID+"}:meta").Result()
		if err != nil || !strings.Contains(meta, session.HashToken(c.AuthToken)) {
			t.Fatalf("meta does not hold the auth token's hash: %v %.200s", err, meta)
		}
	}
	if keys < 5 {
		t.Fatalf("only %d keys scanned", keys)
	}
}
