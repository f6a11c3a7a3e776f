package rest_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/pomehq/pome/rest"
	"github.com/pomehq/pome/rest/resttest"
	"github.com/pomehq/pome/session"
)

// grower is one twin's write that adds about n bytes to its world, over
// the vendor REST surface and over MCP, and the vendor's shape of the
// refusal a world budget gives it.
type grower struct {
	rest    func(base, tok, text string) (status int, body []byte)
	tool    string
	args    func(text string) map[string]any
	refused func(status int, m map[string]any) bool
}

func growers(t *testing.T) map[string]grower {
	send := func(method, u, tok, ctype, body string) (int, []byte) {
		st, _, b := doTB(t, method, u, map[string]string{"Authorization": "Bearer " + tok, "Content-Type": ctype}, body)
		return st, b
	}
	jsonOf := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	errObj := func(m map[string]any) map[string]any { e, _ := m["error"].(map[string]any); return e }
	return map[string]grower{
		"github": {
			rest: func(base, tok, text string) (int, []byte) {
				return send("POST", base+"/repos/acme/api/issues", tok, "application/json", jsonOf(map[string]any{"title": "big", "body": text}))
			},
			tool: "issue_write",
			args: func(text string) map[string]any {
				return map[string]any{"method": "create", "owner": "acme", "repo": "api", "title": "big", "body": text}
			},
			refused: func(st int, m map[string]any) bool {
				msg, _ := m["message"].(string)
				return st == 403 && strings.Contains(msg, session.SettingWorldBytes) && m["documentation_url"] != nil
			},
		},
		"slack": {
			rest: func(base, tok, text string) (int, []byte) {
				return send("POST", base+"/api/chat.postMessage", tok, "application/json", jsonOf(map[string]any{"channel": "general", "text": text}))
			},
			tool: "slack_send_message",
			args: func(text string) map[string]any { return map[string]any{"channel_id": "general", "message": text} },
			refused: func(st int, m map[string]any) bool {
				return st == 200 && m["ok"] == false && m["error"] == "storage_limit_exceeded"
			},
		},
		"stripe": {
			rest: func(base, tok, text string) (int, []byte) {
				return send("POST", base+"/v1/customers", tok, "application/x-www-form-urlencoded", "description="+url.QueryEscape(text))
			},
			tool: "create_customer",
			args: func(text string) map[string]any { return map[string]any{"description": text} },
			refused: func(st int, m map[string]any) bool {
				e := errObj(m)
				return st == 403 && e != nil && e["type"] == "invalid_request_error" && e["code"] == "storage_limit_exceeded"
			},
		},
		"gmail": {
			rest: func(base, tok, text string) (int, []byte) {
				raw := base64.URLEncoding.EncodeToString([]byte("To: bob@example.test\r\nSubject: big\r\n\r\n" + text))
				return send("POST", base+"/gmail/v1/users/me/drafts", tok, "application/json", jsonOf(map[string]any{"message": map[string]any{"raw": raw}}))
			},
			tool: "create_draft",
			args: func(text string) map[string]any {
				return map[string]any{"to": []string{"bob@example.test"}, "subject": "big", "body": text}
			},
			refused: func(st int, m map[string]any) bool {
				e := errObj(m)
				msg, _ := e["message"].(string)
				return st == 403 && e["status"] == "PERMISSION_DENIED" && e["code"] == float64(403) && strings.Contains(msg, session.SettingWorldBytes)
			},
		},
	}
}

// budgetStores are the stores the world-budget tests run on: memory, and
// Redis when the tests have one (the manager measures writes there).
func budgetStores(t *testing.T) map[string]func() session.Store {
	out := map[string]func() session.Store{"memory": func() session.Store { return nil }}
	if u := os.Getenv("POME_TEST_REDIS_URL"); u != "" {
		out["redis"] = func() session.Store {
			client, err := session.OpenRedis(u)
			if err != nil {
				t.Fatal(err)
			}
			s := session.NewRedisStore(client, nil)
			// The server budgets count every sandbox of the Redis
			// database: this test's are counted apart from others'.
			s.SetBudgetScope(session.NewRequestID())
			t.Cleanup(func() { s.Close() })
			return s
		}
	}
	return out
}

// TestSeedOverWorldBudgetRefused: a seed whose world is over
// max_world_bytes is refused at create with 422 naming the limit and the
// setting, and nothing is created.
func TestSeedOverWorldBudgetRefused(t *testing.T) {
	const limit = 64 << 10
	s := startReal(t, rest.Config{MaxWorldBytes: limit}, nil)
	seed := fmt.Sprintf(`{"users":[{"login":"alice"}],"repos":[{"owner":"alice","name":"api","issues":[{"number":1,"title":"big","user":"alice","body":%q}]}]}`, strings.Repeat("x", limit))
	hdr := map[string]string{"Authorization": "Bearer " + s.KeyA, "Content-Type": "application/json"}
	st, _, b := doTB(t, "POST", s.URL+"/v1/sandboxes", hdr, `{"twins":["slack","github"],"seed":{"github":`+seed+`}}`)
	var m struct {
		Error struct {
			Type    string         `json:"type"`
			Message string         `json:"message"`
			Details map[string]any `json:"details"`
		} `json:"error"`
	}
	json.Unmarshal(b, &m)
	if st != 422 || m.Error.Type != "validation_failed" || !strings.Contains(m.Error.Message, "max_world_bytes") ||
		!strings.Contains(m.Error.Message, fmt.Sprint(limit)) || m.Error.Details["field"] != "seed.github" ||
		m.Error.Details["setting"] != "max_world_bytes" || m.Error.Details["limit_bytes"] != float64(limit) {
		t.Fatalf("over-budget seed: %d %s", st, b)
	}
	st, _, b = doTB(t, "GET", s.URL+"/v1/usage", hdr, "")
	if st != 200 || !strings.Contains(string(b), `"sandboxes_created":0`) {
		t.Errorf("usage after the refused create: %d %s", st, b)
	}
	// The same seed under the limit is served.
	small := strings.Replace(seed, strings.Repeat("x", limit), "small", 1)
	if st, _, b := doTB(t, "POST", s.URL+"/v1/sandboxes", hdr, `{"twins":["github"],"seed":{"github":`+small+`}}`); st != 201 {
		t.Errorf("seed under the limit: %d %s", st, b)
	}
}

// TestWriteOverWorldBudgetRefused: on every twin, over REST and over MCP,
// a write that would take the world past max_world_bytes is refused in
// the vendor's shape, changes nothing, and is taped as a refused call
// that did not mutate; writes that fit go on being served.
func TestWriteOverWorldBudgetRefused(t *testing.T) {
	const room = 24 << 10
	chunk := strings.Repeat("y", 4<<10)
	for storeName, newStore := range budgetStores(t) {
		t.Run(storeName, func(t *testing.T) {
			// Sized from a default world each twin's, plus room.
			probe := startReal(t, rest.Config{}, newStore())
			c := probe.create(t, probe.KeyA, "github", "slack", "stripe")
			g := probe.create(t, probe.KeyA, "gmail")
			largest := 0
			for _, twin := range []string{"github", "slack", "stripe"} {
				largest = max(largest, len(probe.state(t, probe.KeyA, c.SessionID, twin)))
			}
			largest = max(largest, len(probe.state(t, probe.KeyA, g.SessionID, "gmail")))
			probe.discard(t, c.SessionID, g.SessionID)

			s := startReal(t, rest.Config{MaxWorldBytes: int64(largest + room)}, newStore())
			for twin, gr := range growers(t) {
				for _, transport := range []string{"rest", "mcp"} {
					t.Run(twin+"/"+transport, func(t *testing.T) {
						sb := s.create(t, s.KeyA, twin)
						defer s.discard(t, sb.SessionID)
						tok := sb.ProviderCredentials[twin].Token
						call := func() (bool, string) {
							if transport == "rest" {
								st, b := gr.rest(sb.PerTwin[twin].APIURL, tok, chunk)
								var m map[string]any
								json.Unmarshal(b, &m)
								if gr.refused(st, m) {
									return true, string(b)
								}
								if st >= 300 || m["ok"] == false {
									t.Fatalf("write: %d %s", st, b)
								}
								return false, string(b)
							}
							cs := resttest.ConnectMCP(t, sb.PerTwin[twin].MCPURL, sb.AgentToken)
							text, isErr := resttest.CallTool(t, cs, gr.tool, gr.args(chunk))
							if isErr && (strings.Contains(text, "storage_limit_exceeded") || strings.Contains(text, session.SettingWorldBytes)) {
								return true, text
							}
							if isErr {
								t.Fatalf("%s: %s", gr.tool, text)
							}
							return false, text
						}
						var before string
						writes := 0
						for ; writes < 2*room/len(chunk)+2; writes++ {
							before = s.state(t, s.KeyA, sb.SessionID, twin)
							if refused, _ := call(); refused {
								break
							}
						}
						if writes == 0 || writes >= 2*room/len(chunk)+2 {
							t.Fatalf("%d writes served before a refusal; want some, then a refusal", writes)
						}
						if after := s.state(t, s.KeyA, sb.SessionID, twin); after != before {
							t.Errorf("the refused write changed the world (%d bytes before, %d after)", len(before), len(after))
						}
						if len(before) > largest+room {
							t.Errorf("world of %d bytes, over the budget of %d", len(before), largest+room)
						}
						var rows []rowView
						for _, r := range tapeRows(t, s, sb.SessionID, twin) {
							if r.Tool != nil {
								rows = append(rows, r)
							}
						}
						if len(rows) != writes+1 {
							t.Fatalf("%d tool rows for %d calls", len(rows), writes+1)
						}
						if last := rows[len(rows)-1]; last.StateMutation || last.ToolName() != gr.tool {
							t.Errorf("the refused call's row: tool %q state_mutation %v", last.ToolName(), last.StateMutation)
						}
						if prev := rows[len(rows)-2]; !prev.StateMutation || prev.ToolName() != gr.tool {
							t.Errorf("the write before it: tool %q state_mutation %v", prev.ToolName(), prev.StateMutation)
						}
						// A write that changes nothing's size much is still served.
						if transport == "rest" && twin == "github" {
							st, _, b := doTB(t, "PATCH", sb.PerTwin[twin].APIURL+"/repos/acme/api/issues/1", map[string]string{"Authorization": "Bearer " + tok, "Content-Type": "application/json"}, `{"state":"closed"}`)
							if st != 200 {
								t.Errorf("small write after the refusal: %d %s", st, b)
							}
						}
					})
				}
			}
		})
	}
}

func tapeRows(t *testing.T, s *realServer, sid, twin string) []rowView {
	t.Helper()
	st, _, b := doTB(t, "GET", s.URL+"/v1/sandboxes/"+sid+"/tapes/"+twin, map[string]string{"Authorization": "Bearer " + s.KeyA}, "")
	var tp struct {
		Rows      []rowView `json:"rows"`
		Truncated bool      `json:"truncated"`
		Dropped   int64     `json:"dropped"`
	}
	if err := json.Unmarshal(b, &tp); st != 200 || err != nil || len(tp.Rows) < 2 {
		t.Fatalf("tape: %d %v %.300s", st, err, b)
	}
	return tp.Rows
}

type rowView struct {
	Seq           int64   `json:"seq"`
	Tool          *string `json:"tool"`
	StateMutation bool    `json:"state_mutation"`
}

func (r rowView) ToolName() string {
	if r.Tool == nil {
		return ""
	}
	return *r.Tool
}

type tapeView struct {
	Count     int       `json:"count"`
	Rows      []rowView `json:"rows"`
	Truncated bool      `json:"truncated"`
	Dropped   int64     `json:"dropped"`
}

func controlErr(b []byte) (typ string, details map[string]any) {
	var m struct {
		Error struct {
			Type    string         `json:"type"`
			Details map[string]any `json:"details"`
		} `json:"error"`
	}
	json.Unmarshal(b, &m)
	return m.Error.Type, m.Error.Details
}

// TestServerWorldBudgetPerTeam: once a team holds its part of
// max_server_world_bytes its creates are refused with 402 naming the
// setting, while the other team is still served; with a part as large as
// the server's, the server's budget refuses with 503 and Retry-After.
func TestServerWorldBudgetPerTeam(t *testing.T) {
	for name, newStore := range budgetStores(t) {
		t.Run(name, func(t *testing.T) { testServerWorldBudgetPerTeam(t, newStore) })
	}
}

func testServerWorldBudgetPerTeam(t *testing.T, newStore func() session.Store) {
	probe := startReal(t, rest.Config{}, nil)
	c := probe.create(t, probe.KeyA, "github")
	per := int64(2 * len(probe.state(t, probe.KeyA, c.SessionID, "github")))

	s := startReal(t, rest.Config{MaxServerWorldBytes: 10 * per}, newStore())
	hdr := func(key string) map[string]string {
		return map[string]string{"Authorization": "Bearer " + key, "Content-Type": "application/json"}
	}
	var mine *session.Created
	for i := 0; i < 5; i++ {
		mine = s.create(t, s.KeyA, "github")
	}
	st, _, b := doTB(t, "POST", s.URL+"/v1/sandboxes", hdr(s.KeyA), `{"twins":["github"]}`)
	if typ, d := controlErr(b); st != 402 || typ != "quota_exceeded" || d["setting"] != "team_budget_percent" || d["budget"] != "team_world" || !strings.Contains(string(b), "max_server_world_bytes") {
		t.Fatalf("team a past its part: %d %s", st, b)
	}
	// A write that would grow one of team a's worlds is refused in
	// GitHub's shape, and changes nothing.
	before := s.state(t, s.KeyA, mine.SessionID, "github")
	st, b = growers(t)["github"].rest(mine.PerTwin["github"].APIURL, mine.ProviderCredentials["github"].Token, strings.Repeat("g", 2048))
	if !strings.Contains(string(b), session.SettingTeamBudgetPercent) || st != 403 {
		t.Errorf("growing write past team a's part: %d %s", st, b)
	}
	if after := s.state(t, s.KeyA, mine.SessionID, "github"); after != before {
		t.Errorf("the refused write changed the world")
	}
	for i := 0; i < 5; i++ {
		s.create(t, s.KeyB, "github")
	}

	s = startReal(t, rest.Config{MaxServerWorldBytes: 10 * per, TeamBudgetPercent: 100}, newStore())
	for i := 0; i < 10; i++ {
		s.create(t, s.KeyA, "github")
	}
	st, h, b := doTB(t, "POST", s.URL+"/v1/sandboxes", hdr(s.KeyB), `{"twins":["github"]}`)
	if typ, d := controlErr(b); st != 503 || typ != "unavailable" || d["setting"] != "max_server_world_bytes" || h.Get("Retry-After") != "60" {
		t.Fatalf("past the server budget: %d %v %s", st, h, b)
	}
}

// TestFloodOfLargeSeedsBounded is the flood of large seeds at a thousandth
// of its size: 1,000 creates of a 9 KB seed against a 4 MiB world budget
// (the default is 4 GiB against 9 MB seeds) stop at the budget, and
// discarding makes room again.
func TestFloodOfLargeSeedsBounded(t *testing.T) {
	for name, newStore := range budgetStores(t) {
		t.Run(name, func(t *testing.T) { testFloodOfLargeSeedsBounded(t, newStore) })
	}
}

func testFloodOfLargeSeedsBounded(t *testing.T, newStore func() session.Store) {
	const budget = 4 << 20
	s := startReal(t, rest.Config{MaxServerWorldBytes: budget, TeamBudgetPercent: 100}, newStore())
	var issues []string
	for i := 1; i <= 20; i++ {
		issues = append(issues, fmt.Sprintf(`{"number":%d,"title":"t%d","user":"alice","body":%q}`, i, i, strings.Repeat("z", 400)))
	}
	body := `{"twins":["github"],"seed":{"github":{"users":[{"login":"alice"}],"repos":[{"owner":"alice","name":"api","issues":[` + strings.Join(issues, ",") + `]}]}}}`
	hdr := map[string]string{"Authorization": "Bearer " + s.KeyA, "Content-Type": "application/json"}
	created, refused := 0, 0
	var first string
	for i := 0; i < 1000; i++ {
		st, _, b := doTB(t, "POST", s.URL+"/v1/sandboxes", hdr, body)
		switch st {
		case 201:
			created++
			if first == "" {
				var c session.Created
				json.Unmarshal(b, &c)
				first = c.SessionID
			}
		case 503:
			refused++
		default:
			t.Fatalf("create %d: %d %s", i, st, b)
		}
	}
	size := len(s.state(t, s.KeyA, first, "github"))
	if want := budget / (2 * size); created < want-1 || created > want || refused != 1000-created {
		t.Errorf("%d created, %d refused; want %d created (world of %d bytes, counted twice)", created, refused, want, size)
	}
	s.discard(t, first)
	if st, _, b := doTB(t, "POST", s.URL+"/v1/sandboxes", hdr, body); st != 201 {
		t.Errorf("create after a discard: %d %s", st, b)
	}
}

// TestServerTapeBudget: a team's tapes stop keeping rows at its part of
// max_server_tape_bytes and say so (truncated, dropped; the kept rows are
// a prefix), the team's creates are refused until it frees memory, and the
// other team's tapes keep theirs.
func TestServerTapeBudget(t *testing.T) {
	for name, newStore := range budgetStores(t) {
		t.Run(name, func(t *testing.T) { testServerTapeBudget(t, newStore) })
	}
}

func testServerTapeBudget(t *testing.T, newStore func() session.Store) {
	s := startReal(t, rest.Config{MaxServerTapeBytes: 64 << 10}, newStore())
	a := s.create(t, s.KeyA, "github")
	b := s.create(t, s.KeyB, "github")
	read := vendorRead["github"]
	for i := 0; i < 200; i++ {
		read.send(t, a.PerTwin["github"].APIURL, a.ProviderCredentials["github"].Token)
	}
	for i := 0; i < 5; i++ {
		read.send(t, b.PerTwin["github"].APIURL, b.ProviderCredentials["github"].Token)
	}
	tape := func(key, sid string) tapeView {
		st, h, body := doTB(t, "GET", s.URL+"/v1/sandboxes/"+sid+"/tapes/github", map[string]string{"Authorization": "Bearer " + key}, "")
		var tv tapeView
		if err := json.Unmarshal(body, &tv); st != 200 || err != nil {
			t.Fatalf("tape: %d %v", st, err)
		}
		if tv.Dropped > 0 && h.Get("Pome-Tape-Dropped") != fmt.Sprint(tv.Dropped) {
			t.Errorf("Pome-Tape-Dropped %q, body says %d", h.Get("Pome-Tape-Dropped"), tv.Dropped)
		}
		return tv
	}
	ta := tape(s.KeyA, a.SessionID)
	if !ta.Truncated || ta.Count == 0 || int64(ta.Count)+ta.Dropped != 200 {
		t.Fatalf("team a's tape: count %d dropped %d truncated %v; want a truncated tape of 200 calls", ta.Count, ta.Dropped, ta.Truncated)
	}
	for i, r := range ta.Rows {
		if r.Seq != int64(i+1) {
			t.Fatalf("row %d has seq %d: the kept rows must be the first calls", i, r.Seq)
		}
	}
	if tb := tape(s.KeyB, b.SessionID); tb.Truncated || tb.Count != 5 {
		t.Errorf("team b's tape: count %d truncated %v; want its 5 rows", tb.Count, tb.Truncated)
	}
	hdr := map[string]string{"Authorization": "Bearer " + s.KeyA, "Content-Type": "application/json"}
	st, _, body := doTB(t, "POST", s.URL+"/v1/sandboxes", hdr, `{"twins":["github"]}`)
	if typ, d := controlErr(body); st != 402 || typ != "quota_exceeded" || d["budget"] != "team_tape" || !strings.Contains(string(body), "max_server_tape_bytes") {
		t.Errorf("team a's create with its tape part spent: %d %s", st, body)
	}
	s.create(t, s.KeyB, "github")
	s.discard(t, a.SessionID)
	s.create(t, s.KeyA, "github")
}
