package main

// End-to-end walkthrough of the platform (README, steps 1–9): a real HTTP
// server with every twin, the pome CLI in-process, go-github and slack-go as
// REST clients, and the go-sdk MCP client.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	gh "github.com/google/go-github/v84/github"
	"github.com/slack-go/slack"

	"github.com/pomehq/pome/cmd/internal/cli"
	"github.com/pomehq/pome/rest"
	"github.com/pomehq/pome/rest/resttest"
	"github.com/pomehq/pome/session"
	"github.com/pomehq/pome/tape"
	"github.com/pomehq/pome/twins/all"
)

type walk struct {
	t      *testing.T
	url    string
	key    string
	config string
}

// pome runs the CLI in-process and returns its exit code and output.
func (w *walk) pome(args ...string) (int, string, string) {
	w.t.Helper()
	var out, errb bytes.Buffer
	code := cli.Execute(context.Background(), append([]string{"--config", w.config}, args...), strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func (w *walk) mustPome(args ...string) string {
	w.t.Helper()
	code, out, errs := w.pome(args...)
	if code != 0 {
		w.t.Fatalf("pome %v: exit %d\n%s%s", args, code, out, errs)
	}
	return out
}

func startServer(t *testing.T, store session.Store) (string, string) {
	t.Helper()
	key := session.NewAPIKey()
	// A fresh team per run: a shared Redis keeps earlier runs' usage.
	teams, err := session.NewTeams(map[string][]string{"acme-" + session.NewSandboxID(): {key}})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(nil)
	t.Cleanup(hs.Close)
	rest.DefaultGrader = grader
	hs.Config.Handler = rest.NewServer(rest.Config{PublicURL: hs.URL}, all.Registry(), store, teams)
	return hs.URL, key
}

// readSecrets parses the export lines of a --secrets-file.
func readSecrets(t *testing.T, path string) map[string]string {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("secrets file mode %v", fi.Mode().Perm())
	}
	f, _ := os.Open(path)
	defer f.Close()
	env := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimPrefix(sc.Text(), "export ")
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		env[k] = strings.Trim(v, `'"`)
	}
	return env
}

func TestWalkthrough(t *testing.T) {
	stores := map[string]func(t *testing.T) session.Store{
		"memory": func(t *testing.T) session.Store { return session.NewMemoryStore(nil, 0) },
	}
	if url := os.Getenv("POME_TEST_REDIS_URL"); url != "" {
		stores["redis"] = func(t *testing.T) session.Store {
			c, err := session.OpenRedis(url)
			if err != nil {
				t.Fatal(err)
			}
			return session.NewRedisStore(c, nil)
		}
	}
	for name, newStore := range stores {
		t.Run(name, func(t *testing.T) {
			store := newStore(t)
			t.Cleanup(func() { store.Close() })
			walkthrough(t, store)
		})
	}
}

func walkthrough(t *testing.T, store session.Store) {
	dir := t.TempDir()
	url, key := startServer(t, store)
	w := &walk{t: t, url: url, key: key, config: filepath.Join(dir, "config.yaml")}

	// 1. login.
	w.mustPome("login", "--server", url, "--api-key", key)

	// 2. create with a secrets file: no token on the terminal.
	secrets := filepath.Join(dir, "pome.env")
	out := w.mustPome("sandbox", "create", "--twin", "github", "--twin", "slack", "--secrets-file", secrets)
	env := readSecrets(t, secrets)
	sid, auth, agent := env["POME_SESSION_ID"], env["POME_AUTH_TOKEN"], env["POME_AGENT_TOKEN"]
	for _, want := range []string{sid, env["POME_GITHUB_REST_URL"], env["POME_GITHUB_MCP_URL"], env["POME_SLACK_REST_URL"], env["POME_SLACK_MCP_URL"]} {
		if want == "" || !strings.Contains(out, want) {
			t.Fatalf("create output lacks %q:\n%s", want, out)
		}
	}
	for _, secret := range []string{auth, agent, env["POME_GITHUB_TOKEN"], env["POME_SLACK_TOKEN"]} {
		if secret == "" || strings.Contains(out, secret) {
			t.Fatalf("a token is missing from the secrets file or shown on the terminal")
		}
	}
	ghURL, slURL := env["POME_GITHUB_REST_URL"], env["POME_SLACK_REST_URL"]

	// 3a. GitHub half with go-github, authenticated by the sandbox token.
	ctx := context.Background()
	ghc, err := gh.NewClient(nil).WithAuthToken(auth).WithEnterpriseURLs(ghURL+"/", ghURL+"/")
	if err != nil {
		t.Fatal(err)
	}
	issues, _, err := ghc.Issues.ListByRepo(ctx, "acme", "api", &gh.IssueListByRepoOptions{State: "open"})
	if err != nil || len(issues) != 1 || issues[0].GetNumber() != 1 || issues[0].GetTitle() != "500 error on POST /orders after deploy" {
		t.Fatalf("list issues: %v %+v", err, issues)
	}
	i1 := issues[0]
	if i1.GetID() == 0 || i1.GetNodeID() == "" || i1.GetState() != "open" || i1.GetUser().GetLogin() == "" || i1.GetHTMLURL() == "" || i1.GetURL() == "" || i1.CreatedAt == nil || i1.UpdatedAt == nil {
		t.Fatalf("issue lacks GitHub fields: %+v", i1)
	}
	assigned, _, err := ghc.Issues.AddAssignees(ctx, "acme", "api", 1, []string{"alice"})
	if err != nil || len(assigned.Assignees) != 1 || assigned.Assignees[0].GetLogin() != "alice" {
		t.Fatalf("assignees: %v %+v", err, assigned)
	}
	comment, resp, err := ghc.Issues.CreateComment(ctx, "acme", "api", 1, &gh.IssueComment{Body: gh.Ptr("Triaged: deploy broke POST /orders")})
	if err != nil || resp.StatusCode != 201 || comment.GetID() == 0 || comment.GetBody() != "Triaged: deploy broke POST /orders" {
		t.Fatalf("comment: %v %+v", err, comment)
	}

	// 3b. Slack half with slack-go (form body, Bearer) and raw JSON.
	sl := slack.New(auth, slack.OptionAPIURL(slURL+"/api/"))
	ch, ts, err := sl.PostMessage("general", slack.MsgOptionText("Triaging acme/api#1: 500 on POST /orders", false))
	if err != nil || !strings.HasPrefix(ch, "C") || ts == "" {
		t.Fatalf("postMessage: %v %s %s", err, ch, ts)
	}
	req, _ := http.NewRequest("POST", slURL+"/api/chat.postMessage", strings.NewReader(`{"channel":"`+ch+`","text":"JSON body works too"}`))
	req.Header.Set("Authorization", "Bearer "+auth)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var posted map[string]any
	json.NewDecoder(res.Body).Decode(&posted)
	res.Body.Close()
	if posted["ok"] != true || posted["channel"] != ch || posted["message"] == nil {
		t.Fatalf("JSON postMessage: %v", posted)
	}
	hist, err := sl.GetConversationHistory(&slack.GetConversationHistoryParameters{ChannelID: ch})
	if err != nil || len(hist.Messages) != 3 {
		t.Fatalf("history: %v %+v", err, hist)
	}
	// Newest first: our two messages, then the seeded greeting.
	if !strings.Contains(hist.Messages[1].Text, "acme/api#1") || hist.Messages[2].User == "" {
		t.Fatalf("history order: %+v", hist.Messages)
	}

	// 3c. The same actions over MCP change the same state.
	ghm := resttest.ConnectMCP(t, env["POME_GITHUB_MCP_URL"], agent)
	slm := resttest.ConnectMCP(t, env["POME_SLACK_MCP_URL"], agent)
	text, isErr := resttest.CallTool(t, ghm, "issue_read", map[string]any{"owner": "acme", "repo": "api", "issue_number": 1, "method": "get"})
	if isErr || !strings.Contains(text, `"alice"`) || !strings.Contains(text, `"comments":1`) {
		t.Fatalf("MCP does not see the REST writes: %s", text)
	}
	if text, isErr = resttest.CallTool(t, ghm, "list_issues", map[string]any{"owner": "acme", "repo": "api"}); isErr || !strings.Contains(text, "500 error on POST /orders") {
		t.Fatalf("list_issues: %s", text)
	}
	if text, isErr = resttest.CallTool(t, ghm, "add_issue_comment", map[string]any{"owner": "acme", "repo": "api", "issue_number": 1, "body": "via MCP"}); isErr {
		t.Fatalf("add_issue_comment: %s", text)
	}
	if text, isErr = resttest.CallTool(t, ghm, "issue_write", map[string]any{"method": "update", "owner": "acme", "repo": "api", "issue_number": 1, "labels": []string{"bug"}}); isErr {
		t.Fatalf("issue_write: %s", text)
	}
	if text, isErr = resttest.CallTool(t, ghm, "add_issue_assignees", map[string]any{"owner": "acme", "repo": "api", "issue_number": 1, "assignees": []string{"bob"}}); isErr {
		t.Fatalf("add_issue_assignees: %s", text)
	}
	if text, isErr = resttest.CallTool(t, slm, "slack_send_message", map[string]any{"channel_id": ch, "message": "from MCP"}); isErr {
		t.Fatalf("slack_send_message: %s", text)
	}
	if text, isErr = resttest.CallTool(t, slm, "slack_read_channel", map[string]any{"channel_id": ch}); isErr || !strings.Contains(text, "from MCP") || !strings.Contains(text, "acme/api#1") {
		t.Fatalf("slack_read_channel: %s", text)
	}
	got, _, err := ghc.Issues.Get(ctx, "acme", "api", 1)
	if err != nil || got.GetComments() != 2 || len(got.Labels) != 1 || len(got.Assignees) != 2 {
		t.Fatalf("REST does not see the MCP writes: %v %+v", err, got)
	}

	// 4. Tapes: disjoint, stamped, mutation exact; reading adds nothing.
	tapeRows := func(twin string) []tape.Row {
		_, out, _ := w.pome("tape", twin, "--json", "--session", sid)
		var rows []tape.Row
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			var r tape.Row
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatalf("tape line %q: %v", line, err)
			}
			rows = append(rows, r)
		}
		return rows
	}
	ghRows, slRows := tapeRows("github"), tapeRows("slack")
	if again := tapeRows("github"); len(again) != len(ghRows) {
		t.Fatalf("reading the tape added rows")
	}
	check := func(twin string, rows []tape.Row) {
		for i, r := range rows {
			if r.Seq != int64(i+1) || r.Twin != twin || r.SessionID != sid || !strings.Contains(r.Path, "/"+twin+"/s/"+sid) {
				t.Errorf("%s row %d: %+v", twin, i, r)
			}
			if r.Transport == "rest" && r.Tool == nil {
				t.Errorf("%s REST row %d without tool: %s %s", twin, i, r.Method, r.Path)
			}
			if r.Transport == "mcp" && r.MCPMethod == "tools/call" && r.Tool == nil {
				t.Errorf("%s MCP call without tool", twin)
			}
			if r.Request.Headers["authorization"] != "" && r.Request.Headers["authorization"] != tape.Redacted {
				t.Errorf("authorization on tape")
			}
		}
	}
	check("github", ghRows)
	check("slack", slRows)
	for _, r := range ghRows {
		if strings.Contains(r.Path, "chat.postMessage") {
			t.Fatalf("a Slack call is on GitHub's tape")
		}
	}
	tools := func(rows []tape.Row, transport string) map[string]bool {
		m := map[string]bool{}
		for _, r := range rows {
			if r.Transport == transport && r.Tool != nil {
				m[*r.Tool] = true
			}
		}
		return m
	}
	restTools, mcpTools := tools(ghRows, "rest"), tools(ghRows, "mcp")
	for _, name := range []string{"list_issues", "add_issue_assignees", "add_issue_comment", "issue_read"} {
		if !restTools[name] {
			t.Errorf("REST %s not stamped (have %v)", name, restTools)
		}
	}
	for _, name := range []string{"issue_read", "list_issues", "add_issue_comment", "issue_write", "add_issue_assignees"} {
		if !mcpTools[name] {
			t.Errorf("MCP %s not stamped (have %v)", name, mcpTools)
		}
	}
	for _, r := range ghRows {
		wantMut := r.ToolName() == "add_issue_assignees" || r.ToolName() == "add_issue_comment" || r.ToolName() == "issue_write"
		if r.StateMutation != wantMut {
			t.Errorf("row %d %s: state_mutation %v", r.Seq, r.ToolName(), r.StateMutation)
		}
	}
	postRows := 0
	for _, r := range slRows {
		if r.ToolName() == "slack_send_message" {
			postRows++
			if !r.StateMutation {
				t.Errorf("postMessage row not a mutation")
			}
		}
	}
	if postRows != 3 {
		t.Errorf("%d slack_send_message rows, want 3", postRows)
	}

	// 5. Every refusal is the same opaque 404, except on a vendor surface
	// whose SDK would retry it: Slack's is slack.com's HTTP 200
	// invalid_auth, whatever the class.
	other := w.mustPome("sandbox", "create", "--twin", "github", "--json")
	var otherSB session.Created
	json.Unmarshal([]byte(other), &otherSB)
	refusals := map[string][2]string{
		"bearer of another sandbox": {otherSB.PerTwin["github"].APIURL + "/repos/acme/api/issues/1", auth},
		"wrong token":               {ghURL + "/repos/acme/api/issues/1", "pst_nope"},
		"twin not in the sandbox":   {otherSB.PerTwin["github"].APIURL[:strings.Index(otherSB.PerTwin["github"].APIURL, "/github/")] + "/slack/s/" + otherSB.SessionID + "/api/auth.test", otherSB.AuthToken},
		"unknown id":                {url + "/github/s/ses_0000000000000000/repos/acme/api/issues/1", auth},
	}
	for name, c := range refusals {
		req, _ := http.NewRequest("GET", c[0], nil)
		req.Header.Set("Authorization", "Bearer "+c[1])
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		wantStatus, wantBody := 404, `{"message":"No twin pod for this session."}`+"\n"
		if strings.Contains(c[0], "/slack/") {
			wantStatus, wantBody = 200, `{"ok":false,"error":"invalid_auth"}`+"\n"
		}
		if res.StatusCode != wantStatus || string(b) != wantBody {
			t.Errorf("%s: %d %s", name, res.StatusCode, b)
		}
	}

	// 6. The second sandbox answers with its own untouched world, at the same instant.
	var wg sync.WaitGroup
	results := make([]*gh.Issue, 2)
	for i, c := range []struct{ url, tok string }{{ghURL, auth}, {otherSB.PerTwin["github"].APIURL, otherSB.AuthToken}} {
		wg.Add(1)
		go func(i int, base, tok string) {
			defer wg.Done()
			cl, _ := gh.NewClient(nil).WithAuthToken(tok).WithEnterpriseURLs(base+"/", base+"/")
			iss, _, err := cl.Issues.Get(ctx, "acme", "api", 1)
			if err != nil {
				t.Error(err)
				return
			}
			results[i] = iss
		}(i, c.url, c.tok)
	}
	wg.Wait()
	if results[0] == nil || results[1] == nil || results[0].GetComments() != 2 || results[1].GetComments() != 0 || len(results[1].Assignees) != 0 {
		t.Fatalf("second sandbox is not untouched: %+v / %+v", results[0], results[1])
	}

	// 7. Checks.
	out = w.mustPome("checks", "github")
	for _, id := range []string{"github.issue-has-label", "github.issue-assignee", "github.tool-was-called"} {
		if !strings.Contains(out, id) {
			t.Errorf("pome checks github lacks %s", id)
		}
	}

	// A complete seed example per twin, to start a seed file from; a twin
	// without one, or no twin named, is a usage error.
	var example map[string]any
	if err := json.Unmarshal([]byte(w.mustPome("twins", "github", "--seed-example")), &example); err != nil || example["repos"] == nil {
		t.Fatalf("seed example: %v %v", err, example)
	}
	if code, _, _ := w.pome("twins", "--seed-example"); code != 5 {
		t.Fatalf("--seed-example without a twin: exit %d", code)
	}
	if code, _, _ := w.pome("twins", "jira", "--seed-example"); code != 5 {
		t.Fatalf("unknown twin: exit %d", code)
	}

	// 8. Usage follows the sandbox: two, not four.
	var usage map[string]any
	json.Unmarshal([]byte(w.mustPome("usage", "--json")), &usage)
	if usage["sandboxes_created"] != 2.0 || usage["twins_started"] != 3.0 {
		t.Fatalf("usage: %v", usage)
	}

	// Grading reads both twins' final state, seed and tape.
	gradeBody := `{"criteria":["- [code:github] Issue #1 in ` + "`acme/api`" + ` has the ` + "`bug`" + ` label applied","- [code:slack] A message in \"general\" contains \"acme/api#1\""]}`
	req, _ = http.NewRequest("POST", url+"/v1/sandboxes/"+sid+"/grade", strings.NewReader(gradeBody))
	req.Header.Set("Authorization", "Bearer "+key)
	res, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var verdict map[string]any
	json.NewDecoder(res.Body).Decode(&verdict)
	res.Body.Close()
	if res.StatusCode != 200 || verdict["state"] != "pass" || verdict["score"] != 100.0 {
		t.Fatalf("grade: %d %v", res.StatusCode, verdict)
	}

	// 9. Stop keeps tape and state readable; discard deletes; expiry is a discard.
	before := len(tapeRows("github"))
	w.mustPome("sandbox", "stop", sid)
	if _, _, err := ghc.Issues.Get(ctx, "acme", "api", 1); err == nil {
		t.Fatalf("stopped sandbox still serves agents")
	}
	if rows := tapeRows("github"); len(rows) != before {
		t.Fatalf("tape after stop: %d rows", len(rows))
	}
	if out := w.mustPome("state", "github", "--session", sid); !strings.Contains(out, "Triaged") {
		t.Fatalf("state after stop lacks the comment")
	}
	w.mustPome("sandbox", "stop", sid, "--discard")
	if code, _, _ := w.pome("tape", "github", "--session", sid); code != 5 {
		t.Fatalf("tape of a discarded sandbox: exit %d", code)
	}
	w.mustPome("sandbox", "stop", otherSB.SessionID, "--discard")

	short := w.mustPome("sandbox", "create", "--twin", "slack", "--ttl", "1s", "--json")
	var shortSB session.Created
	json.Unmarshal([]byte(short), &shortSB)
	time.Sleep(1200 * time.Millisecond)
	req, _ = http.NewRequest("GET", shortSB.PerTwin["slack"].APIURL+"/api/auth.test", nil)
	req.Header.Set("Authorization", "Bearer "+shortSB.AuthToken)
	res, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	// Slack's refusal: HTTP 200 invalid_auth, as for every other class.
	if res.StatusCode != 200 || string(b) != `{"ok":false,"error":"invalid_auth"}`+"\n" {
		t.Fatalf("expired sandbox answered %d %s", res.StatusCode, b)
	}
	if code, _, _ := w.pome("tape", "slack", "--session", shortSB.SessionID); code != 5 {
		t.Fatalf("tape of an expired sandbox: exit %d", code)
	}
	if out := w.mustPome("sandbox", "get", shortSB.SessionID, "--json"); !strings.Contains(out, `"expired"`) {
		t.Fatalf("expired sandbox state: %s", out)
	}
}
