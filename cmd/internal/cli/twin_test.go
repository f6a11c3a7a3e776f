package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	gh "github.com/google/go-github/v84/github"

	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/all"
)

// withAllTwins gives the CLI every twin the binary has, in a fresh folder
// with no settings.
func withAllTwins(t *testing.T) string {
	t.Helper()
	isolate(t)
	dir := t.TempDir()
	t.Chdir(dir)
	old := taskRegistry
	reg := all.Registry()
	taskRegistry = func() *twins.Registry { return reg }
	t.Cleanup(func() { taskRegistry = old })
	return dir
}

// freePort is a port nothing listens on (as far as anyone can tell).
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// startTwin runs `pome twin start` in the background until the test ends
// (or stop is called) and waits for its status file.
func startTwin(t *testing.T, args ...string) (st twinStatus, stop func() result) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan result, 1)
	go func() {
		var out, errb strings.Builder
		// The builders are read only once the command has ended.
		a := &App{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb}
		code := a.Run(ctx, append([]string{"twin", "start"}, args...))
		done <- result{out.String(), errb.String(), code}
	}()
	var once *result
	stop = func() result {
		if once == nil {
			cancel()
			select {
			case r := <-done:
				once = &r
			case <-time.After(10 * time.Second):
				t.Fatal("twin start did not stop")
			}
		}
		return *once
	}
	t.Cleanup(func() { stop() })
	path := filepath.Join(".pome", "twins", args[0]+".json")
	deadline := time.Now().Add(10 * time.Second)
	for {
		var err error
		if st, err = readTwinStatus(path); err == nil {
			return st, stop
		}
		select {
		case r := <-done:
			once = &r
			t.Fatalf("twin start ended: %+v", r)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no status file: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// githubAt is go-github pointed at a standalone twin's REST URL, as an
// agent written for the original's layout does it.
func githubAt(t *testing.T, restURL, token string) *gh.Client {
	t.Helper()
	c := gh.NewClient(nil).WithAuthToken(token)
	u, err := c.BaseURL.Parse(restURL + "/")
	if err != nil {
		t.Fatal(err)
	}
	c.BaseURL = u
	return c
}

func TestTwinStartServesTheOriginalLayout(t *testing.T) {
	dir := withAllTwins(t)
	offline(t)
	port := freePort(t)
	seed := filepath.Join(dir, "seed.json")
	os.WriteFile(seed, []byte(`{"me":"pome-agent","users":[{"login":"pome-agent"}],"orgs":[{"login":"acme","members":["pome-agent"]}],"repos":[{"owner":"acme","name":"api","labels":[{"name":"bug","color":"d73a4a"}],`+
		`"collaborators":["pome-agent"],"issues":[{"number":7,"title":"Checkout times out"}]}]}`), 0o644)
	st, stop := startTwin(t, "github", "--port", strconv.Itoa(port), "--seed", seed)
	server := fmt.Sprintf("http://127.0.0.1:%d", port)
	if !strings.HasPrefix(st.RESTURL, server+"/s/ses_") || st.MCPURL != st.RESTURL+"/mcp" || st.URL != st.RESTURL ||
		!strings.HasPrefix(st.AuthToken, "pst_") || !strings.HasPrefix(st.Token, "ghp_") || st.Seed != seed {
		t.Fatalf("status %+v", st)
	}
	if fi, err := os.Stat(filepath.Join(".pome", "twin-status.json")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("twin-status.json: %v %v", fi, err)
	}

	ctx := context.Background()
	// Both tokens work as an SDK sends them.
	for _, token := range []string{st.Token, st.AuthToken} {
		issue, _, err := githubAt(t, st.RESTURL, token).Issues.Get(ctx, "acme", "api", 7)
		if err != nil || issue.GetTitle() != "Checkout times out" {
			t.Fatalf("get issue: %v %v", issue, err)
		}
	}
	c := githubAt(t, st.RESTURL, st.Token)
	if _, _, err := c.Issues.AddLabelsToIssue(ctx, "acme", "api", 7, []string{"bug"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Issues.CreateComment(ctx, "acme", "api", 7, &gh.IssueComment{Body: gh.Ptr("Looking into it")}); err != nil {
		t.Fatal(err)
	}
	// A wrong token gets the opaque refusal, as on `pome serve`.
	if _, resp, err := githubAt(t, st.RESTURL, "ghp_wrong").Issues.Get(ctx, "acme", "api", 7); err == nil || resp.StatusCode != 404 {
		t.Fatalf("wrong token: %v", err)
	}
	if resp, err := http.Get(server + "/healthz"); err != nil || resp.StatusCode != 200 {
		t.Fatalf("healthz: %v %v", resp, err)
	}
	// The tape is read with the auth token at the same layout.
	req, _ := http.NewRequest(http.MethodGet, st.RESTURL+"/_pome/tape", nil)
	req.Header.Set("Authorization", "Bearer "+st.AuthToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var tp struct {
		Rows []struct{ Tool string } `json:"rows"`
	}
	json.NewDecoder(resp.Body).Decode(&tp)
	resp.Body.Close()
	var tools []string
	for _, r := range tp.Rows {
		tools = append(tools, r.Tool)
	}
	if got := strings.Join(tools, ","); got != "issue_read,issue_read,add_issue_labels,add_issue_comment" {
		t.Errorf("tape tools %s", got)
	}

	r := runCLI(t, "twin", "status")
	if r.code != ExitOK || !strings.Contains(r.stdout, "github  running  "+st.RESTURL) || strings.Contains(r.stdout, st.AuthToken) {
		t.Fatalf("status: %+v", r)
	}
	r = runCLI(t, "twin", "status", "--json")
	var views []map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &views); err != nil || len(views) != 1 || views[0]["running"] != true ||
		views[0]["auth_token"] != st.AuthToken || views[0]["admin_token"] != nil {
		t.Fatalf("status --json: %v %+v", err, r)
	}

	// new-seed starts over from the start seed: a new sandbox, new tokens.
	r = runCLI(t, "twin", "new-seed", "github")
	if r.code != ExitOK || !strings.Contains(r.stdout, "Pome github twin started over from "+seed) {
		t.Fatalf("new-seed: %+v", r)
	}
	fresh, err := readTwinStatus(filepath.Join(".pome", "twins", "github.json"))
	if err != nil || fresh.SessionID == st.SessionID || !strings.Contains(r.stdout, "POME_AUTH_TOKEN="+fresh.AuthToken+"\n") ||
		!strings.Contains(r.stdout, "POME_GITHUB_REST_URL="+fresh.RESTURL+"\n") {
		t.Fatalf("fresh status %+v %v\n%s", fresh, err, r.stdout)
	}
	if _, _, err := githubAt(t, st.RESTURL, st.Token).Issues.Get(ctx, "acme", "api", 7); err == nil {
		t.Error("the old sandbox still answers")
	}
	labels, _, err := githubAt(t, fresh.RESTURL, fresh.Token).Issues.ListLabelsByIssue(ctx, "acme", "api", 7, nil)
	if err != nil || len(labels) != 0 {
		t.Fatalf("fresh labels %v %v", labels, err)
	}

	// A new seed from a file; a refused one leaves the sandbox as it was.
	other := filepath.Join(dir, "other.json")
	os.WriteFile(other, []byte(`{"github":{"me":"pome-agent","users":[{"login":"pome-agent"}],"orgs":[{"login":"acme","members":["pome-agent"]}],"repos":[{"owner":"acme","name":"web"}]}}`), 0o644)
	r = runCLI(t, "twin", "new-seed", "github", "--seed", other)
	if r.code != ExitOK {
		t.Fatalf("new-seed --seed: %+v", r)
	}
	fresh, _ = readTwinStatus(filepath.Join(".pome", "twins", "github.json"))
	if _, _, err := githubAt(t, fresh.RESTURL, fresh.Token).Repositories.Get(ctx, "acme", "web"); err != nil {
		t.Fatalf("seeded repo: %v", err)
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"repos":"nope"}`), 0o644)
	r = runCLI(t, "twin", "new-seed", "github", "--seed", bad)
	if r.code != ExitUsage || !strings.Contains(r.stderr, "the github twin refused the seed") || !strings.Contains(r.stderr, "seed.github.repos") {
		t.Fatalf("bad seed: %+v", r)
	}
	if _, _, err := githubAt(t, fresh.RESTURL, fresh.Token).Repositories.Get(ctx, "acme", "web"); err != nil {
		t.Fatalf("a refused seed replaced the sandbox: %v", err)
	}

	out := stop()
	if out.code != ExitOK {
		t.Fatalf("start: %+v", out)
	}
	for _, want := range []string{
		"Pome github twin listening at " + st.RESTURL + "\n",
		"POME_GITHUB_REST_URL=" + st.RESTURL + "\n",
		"POME_GITHUB_MCP_URL=" + st.MCPURL + "\n",
		"POME_AUTH_TOKEN=" + st.AuthToken + "\n",
		"POME_GITHUB_TOKEN=" + st.Token + "\n",
		"curl " + server + "/healthz",
	} {
		if !strings.Contains(out.stdout, want) {
			t.Errorf("start output lacks %q:\n%s", want, out.stdout)
		}
	}
	if strings.Count(out.stdout, st.AuthToken) != 1 {
		t.Errorf("the auth token is printed more than once:\n%s", out.stdout)
	}
	for _, p := range statusPaths(".pome", "github") {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s left behind: %v", p, err)
		}
	}
	r = runCLI(t, "twin", "status")
	if r.code != ExitFail || !strings.Contains(r.stdout, "No standalone twin status found.") {
		t.Fatalf("status after stop: %+v", r)
	}
}

// MCP answers at /s/<sid>/mcp, as the original prints it.
func TestTwinStartMCP(t *testing.T) {
	withAllTwins(t)
	st, _ := startTwin(t, "slack", "--port", strconv.Itoa(freePort(t)))
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slack_send_message","arguments":{"channel_id":"general","message":"hello from MCP"}}}`
	req, _ := http.NewRequest(http.MethodPost, st.MCPURL, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+st.AuthToken)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var sb strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := resp.Body.Read(buf)
		sb.Write(buf[:n])
		if err != nil {
			break
		}
	}
	if resp.StatusCode != 200 || !strings.Contains(sb.String(), "hello from MCP") || strings.Contains(sb.String(), `"isError":true`) {
		t.Fatalf("%d %s", resp.StatusCode, sb.String())
	}
}

func TestTwinStartErrors(t *testing.T) {
	dir := withAllTwins(t)
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	badJSON := filepath.Join(dir, "broken.json")
	os.WriteFile(badJSON, []byte(`{"repos": [`), 0o644)
	badSeed := filepath.Join(dir, "bad.json")
	os.WriteFile(badSeed, []byte(`{"me":"pome-agent","users":[{"login":"pome-agent"}],"orgs":[{"login":"acme","members":["pome-agent"]}],"repos":[{"owner":"acme","name":"api","issues":[{"number":1,"title":"x","labels":["nope"]}]}]}`), 0o644)
	free := strconv.Itoa(freePort(t))
	cases := []struct {
		name string
		env  map[string]string
		args []string
		code int
		want string
	}{
		{"unknown twin", nil, []string{"jira"}, ExitUsage, `unknown twin "jira" (available: github, slack, stripe, gmail, linear)`},
		{"no twin", nil, nil, ExitUsage, "accepts 1 arg"},
		{"port zero", nil, []string{"github", "--port", "0"}, ExitUsage, "invalid --port 0"},
		{"port too big", nil, []string{"github", "--port", "70000"}, ExitUsage, "invalid --port 70000"},
		{"PORT not a number", map[string]string{"PORT": "http"}, []string{"github"}, ExitUsage, `PORT="http" is not a port number`},
		{"port taken", nil, []string{"github", "--port", strconv.Itoa(taken.Addr().(*net.TCPAddr).Port)}, ExitOrchestration, "pick another with --port"},
		{"seed not JSON", nil, []string{"github", "--port", free, "--seed", badJSON}, ExitUsage, "invalid JSON"},
		{"seed missing", nil, []string{"github", "--port", free, "--seed", filepath.Join(dir, "none.json")}, ExitUsage, "no such file"},
		{"seed refused", nil, []string{"github", "--port", free, "--seed", badSeed}, ExitUsage, "nope"},
		{"seed for another twin", nil, []string{"github", "--port", free, "--seed", writeSeed(t, `{"slack":{}}`)}, ExitUsage, `"slack" document`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			r := runCLI(t, append([]string{"twin", "start"}, c.args...)...)
			if r.code != c.code || !strings.Contains(r.stderr, c.want) {
				t.Fatalf("%+v, want %d %q", r, c.code, c.want)
			}
			if _, err := os.Stat(filepath.Join(".pome", "twin-status.json")); err == nil {
				t.Error("a failed start left a status file")
			}
		})
	}
}

func writeSeed(t *testing.T, doc string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "seed.json")
	os.WriteFile(p, []byte(doc), 0o644)
	return p
}

func TestTwinNewSeedErrors(t *testing.T) {
	withAllTwins(t)
	r := runCLI(t, "twin", "new-seed", "github")
	if r.code != ExitUsage || !strings.Contains(r.stderr, "no standalone github twin was started in this folder") {
		t.Fatalf("not started: %+v", r)
	}
	for _, args := range [][]string{{"twin", "new-seed"}, {"twin", "new-seed", "jira"}, {"twin", "new-seed", "github", "github"}} {
		if r := runCLI(t, args...); r.code != ExitUsage {
			t.Errorf("%v: %+v", args, r)
		}
	}
	// A status whose twin is gone, and one whose port another server holds.
	writeStatus := func(server string) {
		st := twinStatus{Name: "github", Server: server, SessionID: "ses_gone", AdminToken: "x"}
		data, _ := json.Marshal(st)
		os.MkdirAll(filepath.Join(".pome", "twins"), 0o700)
		os.WriteFile(filepath.Join(".pome", "twins", "github.json"), data, 0o600)
	}
	writeStatus(fmt.Sprintf("http://127.0.0.1:%d", freePort(t)))
	r = runCLI(t, "twin", "new-seed", "github")
	if r.code != ExitOrchestration || !strings.Contains(r.stderr, "does not answer") || !strings.Contains(r.stderr, "pome twin start github") {
		t.Fatalf("gone: %+v", r)
	}
	r = runCLI(t, "twin", "status")
	if r.code != ExitFail || !strings.Contains(r.stdout, "github  stopped") || !strings.Contains(r.stdout, "not running") {
		t.Fatalf("status of a gone twin: %+v", r)
	}
	other := httptest.NewServer(http.NotFoundHandler())
	defer other.Close()
	writeStatus(other.URL)
	r = runCLI(t, "twin", "new-seed", "github")
	if r.code != ExitOrchestration || !strings.Contains(r.stderr, "is not the github twin this folder started") {
		t.Fatalf("another server: %+v", r)
	}
	os.WriteFile(filepath.Join(".pome", "twins", "github.json"), []byte("{"), 0o600)
	if r := runCLI(t, "twin", "new-seed", "github"); r.code != ExitUsage || !strings.Contains(r.stderr, "is not a twin status") {
		t.Fatalf("broken status: %+v", r)
	}
}

// The admin routes answer only their own token.
func TestTwinAdminNeedsItsToken(t *testing.T) {
	withAllTwins(t)
	st, _ := startTwin(t, "stripe", "--port", strconv.Itoa(freePort(t)))
	for _, tok := range []string{"", st.AuthToken, st.Token, st.AdminToken + "x"} {
		req, _ := http.NewRequest(http.MethodPost, st.Server+adminNewSeedPath, strings.NewReader("{}"))
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("token %q: %d", tok, resp.StatusCode)
		}
	}
	live, _ := readTwinStatus(filepath.Join(".pome", "twins", "stripe.json"))
	if live.SessionID != st.SessionID {
		t.Error("a refused admin call changed the sandbox")
	}
}

func TestTwinAdminAndStatusEdges(t *testing.T) {
	withAllTwins(t)
	st, _ := startTwin(t, "gmail", "--port", strconv.Itoa(freePort(t)))
	call := func(method, body string) int {
		req, _ := http.NewRequest(method, st.Server+adminNewSeedPath, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+st.AdminToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := call(http.MethodPost, "{"); got != http.StatusBadRequest {
		t.Errorf("broken body: %d", got)
	}
	if got := call(http.MethodGet, ""); got != http.StatusMethodNotAllowed {
		t.Errorf("GET new-seed: %d", got)
	}

	// A status file that no longer matches the twin on its port, and one
	// that is not JSON, are reported; the running twin still counts.
	stale := st
	stale.Name, stale.SessionID = "slack", "ses_older"
	data, _ := json.Marshal(stale)
	os.WriteFile(filepath.Join(".pome", "twins", "slack.json"), data, 0o600)
	os.WriteFile(filepath.Join(".pome", "twins", "stripe.json"), []byte("not json"), 0o600)
	r := runCLI(t, "twin", "status")
	if r.code != ExitOK || !strings.Contains(r.stdout, "gmail   running") || !strings.Contains(r.stdout, "slack: the status file is out of date: the twin now serves "+st.SessionID) ||
		!strings.Contains(r.stdout, "stripe: .pome/twins/stripe.json is not a twin status") {
		t.Fatalf("%+v", r)
	}
}

// A folder where the status cannot be written serves nothing.
func TestTwinStartCannotWriteStatus(t *testing.T) {
	withAllTwins(t)
	os.WriteFile(".pome", []byte("a file where the folder should be"), 0o644)
	port := freePort(t)
	r := runCLI(t, "twin", "start", "github", "--port", strconv.Itoa(port))
	if r.code != ExitOrchestration || !strings.Contains(r.stderr, "twin-status.json") {
		t.Fatalf("%+v", r)
	}
	if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
		c.Close()
		t.Error("the port is still held")
	}
}

func TestTwinNewSeedServerErrors(t *testing.T) {
	withAllTwins(t)
	broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "disk full", http.StatusInternalServerError)
	}))
	defer broken.Close()
	for _, c := range []struct {
		server string
		code   int
		want   string
	}{
		{broken.URL, ExitOrchestration, "the github twin answered 500: disk full"},
		{"::not a url", ExitUsage, "names no usable server"},
	} {
		st := twinStatus{Name: "github", Server: c.server, SessionID: "ses_x", AdminToken: "x"}
		data, _ := json.Marshal(st)
		os.MkdirAll(filepath.Join(".pome", "twins"), 0o700)
		os.WriteFile(filepath.Join(".pome", "twins", "github.json"), data, 0o600)
		r := runCLI(t, "twin", "new-seed", "github")
		if r.code != c.code || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%s: %+v, want %d %q", c.server, r, c.code, c.want)
		}
	}
}
