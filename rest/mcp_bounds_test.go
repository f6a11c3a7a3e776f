package rest_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/pomehq/pome/mcpserver"
	"github.com/pomehq/pome/rest"
	"github.com/pomehq/pome/session"
	"github.com/pomehq/pome/tape"
)

// tape reads a twin's tape with the sandbox's auth token.
func (s *realServer) tape(t *testing.T, c *session.Created, twin string) []tape.Row {
	t.Helper()
	st, _, b := do(t, "GET", c.PerTwin[twin].APIURL+"/_pome/tape", bearer(c.AuthToken), "")
	var out struct{ Rows []tape.Row }
	if err := json.Unmarshal(b, &out); st != 200 || err != nil {
		t.Fatalf("tape: %d %v", st, err)
	}
	return out.Rows
}

// mcpHeaders are a streamable HTTP client's headers under version.
func mcpHeaders(token, version string) map[string]string {
	h := map[string]string{"Authorization": "Bearer " + token, "Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
	if version != "" {
		h["Mcp-Protocol-Version"] = version
	}
	return h
}

const createIssueCall = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"issue_write","arguments":{"method":"create","owner":"acme","repo":"api","title":"from MCP"}}}`

// rpcErr is one JSON-RPC answer's error, if any.
type rpcAnswer struct {
	ID    json.RawMessage `json:"id"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	Result json.RawMessage `json:"result"`
}

// TestMCPBatchBounded: a JSON-RPC batch runs at most MaxBatch requests and
// collects at most MaxBatchAnswer bytes of answers (plus the one answer that
// crosses it, kept whole); the requests past that bound are not run, and
// are answered with an error naming it. A batch of thousands is refused
// before any of it runs. Before, a few kilobytes of repeated tools/list
// made the server build answers of hundreds of megabytes.
func TestMCPBatchBounded(t *testing.T) {
	s := startReal(t, rest.Config{}, nil)
	// The answer bound is measured with Stripe's tools/list, the largest
	// a twin answers (GitHub's tools declare no output schemas, as
	// github-mcp-server's do not).
	sc := s.create(t, s.KeyA, "stripe")
	url := sc.PerTwin["stripe"].MCPURL
	hdr := mcpHeaders(sc.AgentToken, "2025-03-26")
	list := func(n int) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, i)
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	rows := func() int { return len(s.tape(t, sc, "stripe")) }

	// One tools/list alone, to know its size.
	st, _, one := do(t, "POST", url, hdr, `{"jsonrpc":"2.0","id":0,"method":"tools/list"}`)
	if st != 200 {
		t.Fatalf("tools/list: %d %.200s", st, one)
	}
	before := rows()
	st, _, b := do(t, "POST", url, hdr, list(mcpserver.MaxBatch))
	if st != 200 {
		t.Fatalf("batch of %d: %d %.200s", mcpserver.MaxBatch, st, b)
	}
	if len(b) > mcpserver.MaxBatchAnswer+2*len(one) {
		t.Fatalf("batch answer of %d bytes, over the bound %d", len(b), mcpserver.MaxBatchAnswer)
	}
	var answers []rpcAnswer
	if err := json.Unmarshal(b, &answers); err != nil || len(answers) != mcpserver.MaxBatch {
		t.Fatalf("batch answer: %v, %d answers", err, len(answers))
	}
	ran, refused := 0, 0
	for i, a := range answers {
		if string(a.ID) != fmt.Sprint(i) {
			t.Fatalf("answer %d has id %s", i, a.ID)
		}
		switch {
		case a.Result != nil:
			ran++
		case a.Error != nil && strings.Contains(a.Error.Message, "not run"):
			refused++
		default:
			t.Fatalf("answer %d: %+v", i, a)
		}
	}
	if ran == 0 || refused == 0 || ran+refused != mcpserver.MaxBatch {
		t.Fatalf("ran %d, refused %d", ran, refused)
	}
	if got := rows() - before; got != ran {
		t.Fatalf("%d requests ran but %d rows were taped", ran, got)
	}

	// Past MaxBatch: refused whole, one row taped, nothing run.
	before = rows()
	st, _, b = do(t, "POST", url, hdr, list(10000))
	var a rpcAnswer
	json.Unmarshal(b, &a)
	if st != 400 || a.Error == nil || a.Error.Code != -32600 || !strings.Contains(a.Error.Message, "at most") {
		t.Fatalf("batch of 10000: %d %.300s", st, b)
	}
	if got := rows() - before; got != 1 {
		t.Fatalf("a refused batch taped %d rows", got)
	}

	// A mixed batch: each element answered as it would be alone, a
	// notification not at all, a write applied once.
	c := s.create(t, s.KeyA, "github")
	url = c.PerTwin["github"].MCPURL
	hdr = mcpHeaders(c.AgentToken, "2025-03-26")
	stateBefore := s.state(t, s.KeyA, c.SessionID, "github")
	mixed := `[` + createIssueCall + `,{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":"u","method":"no/such"},[1]]`
	st, _, b = do(t, "POST", url, hdr, mixed)
	answers = nil
	if err := json.Unmarshal(b, &answers); st != 200 || err != nil || len(answers) != 3 {
		t.Fatalf("mixed batch: %d %v %.500s", st, err, b)
	}
	if answers[0].Result == nil || answers[1].Error == nil || string(answers[1].ID) != `"u"` || answers[2].Error == nil {
		t.Fatalf("mixed batch answers: %s", b)
	}
	after := s.state(t, s.KeyA, c.SessionID, "github")
	if after == stateBefore || strings.Count(after, "from MCP") != 1 {
		t.Fatalf("the batch's write was not applied once")
	}

	// Versions without batches refuse them, and run nothing.
	for _, v := range []string{"2025-06-18", "2025-11-25"} {
		st, _, b = do(t, "POST", url, mcpHeaders(c.AgentToken, v), `[`+createIssueCall+`]`)
		if st != 400 {
			t.Fatalf("%s batch: %d %.200s", v, st, b)
		}
	}
	if s.state(t, s.KeyA, c.SessionID, "github") != after {
		t.Fatalf("a refused batch changed state")
	}
}

// TestMCPBodyStrict: an MCP body is one JSON value and nothing after it,
// under every protocol version and on both paths (a valid call followed by
// garbage was applied), and an MCP body over the server's limit is refused
// with 413 as REST's are (it was cut to the limit and applied). Both are
// JSON-RPC errors, taped, and change nothing.
func TestMCPBodyStrict(t *testing.T) {
	const limit = 64 << 10
	s := startReal(t, rest.Config{MaxBodyBytes: limit}, nil)
	c := s.create(t, s.KeyA, "github")
	url := c.PerTwin["github"].MCPURL
	before := s.state(t, s.KeyA, c.SessionID, "github")
	for _, v := range []string{"", "2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"} {
		for name, body := range map[string]string{
			"garbage after":  createIssueCall + `}}}}GARBAGE`,
			"second value":   createIssueCall + createIssueCall,
			"garbage inside": `[` + createIssueCall + `,}]`,
		} {
			st, _, b := do(t, "POST", url, mcpHeaders(c.AgentToken, v), body)
			var a rpcAnswer
			json.Unmarshal(b, &a)
			if st != 400 || a.Error == nil || a.Error.Code != -32700 {
				t.Errorf("%q %s: %d %.300s", v, name, st, b)
			}
		}
		// Padding past the limit after a valid call.
		st, _, b := do(t, "POST", url, mcpHeaders(c.AgentToken, v), createIssueCall+strings.Repeat(" ", 2*limit))
		var a rpcAnswer
		json.Unmarshal(b, &a)
		if st != 413 || a.Error == nil || !strings.Contains(a.Error.Message, "exceeds") {
			t.Errorf("%q oversized: %d %.300s", v, st, b)
		}
	}
	if s.state(t, s.KeyA, c.SessionID, "github") != before {
		t.Fatalf("a refused MCP body changed state")
	}
	rows := s.tape(t, c, "github")
	if len(rows) == 0 || rows[len(rows)-1].Status != 413 || rows[len(rows)-1].Tool != nil || rows[len(rows)-1].StateMutation {
		t.Fatalf("the oversized call's row: %+v", rows[len(rows)-1])
	}
}

// TestMCPOrigin: a browser page from an origin that is not the server's,
// loopback's or configured is refused (the MCP transport's guard against
// DNS rebinding), and changes nothing; clients without an Origin, local
// pages and configured origins are served.
func TestMCPOrigin(t *testing.T) {
	s := startReal(t, rest.Config{AllowedOrigins: []string{"https://app.example.com"}}, nil)
	c := s.create(t, s.KeyA, "github")
	url := c.PerTwin["github"].MCPURL
	list := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	before := s.state(t, s.KeyA, c.SessionID, "github")
	for origin, want := range map[string]int{
		"":                        200,
		s.URL:                     200,
		"http://localhost:6274":   200,
		"http://127.0.0.1:9999":   200,
		"https://app.example.com": 200,
		"http://evil.test":        403,
		"http://evil.test:" + strings.TrimPrefix(s.URL[strings.LastIndex(s.URL, ":"):], ":"): 403,
		"null": 403,
	} {
		for _, body := range []string{list, createIssueCall} {
			hdr := mcpHeaders(c.AgentToken, "2025-11-25")
			if origin != "" {
				hdr["Origin"] = origin
			}
			st, _, b := do(t, "POST", url, hdr, body)
			if st != want {
				t.Errorf("Origin %q: %d %.200s", origin, st, b)
			}
			if want == 403 && !strings.Contains(string(b), "Origin not allowed") {
				t.Errorf("Origin %q: %s", origin, b)
			}
		}
	}
	after := s.state(t, s.KeyA, c.SessionID, "github")
	if strings.Count(after, "from MCP")-strings.Count(before, "from MCP") != 5 {
		t.Fatalf("want the 5 allowed creates applied, and no refused one")
	}
}
