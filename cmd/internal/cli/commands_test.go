package cli

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoginWritesPrivateConfigAndKeepsKeys(t *testing.T) {
	f := newFakeServer(t)
	path := isolate(t)
	writeConfig(t, path, "# mine\nsession: ses_keepme0000000000\n")
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}

	r := runCLI(t, "login", "--server", f.URL+"/", "--api-key", testKey)
	if r.code != ExitOK {
		t.Fatalf("%+v", r)
	}
	if !strings.Contains(r.stdout, "team acme") {
		t.Errorf("stdout %q", r.stdout)
	}
	if req := f.last(); req.Path != "/v1/usage" || req.Auth != "Bearer "+testKey {
		t.Errorf("login verified with %+v", req)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("config mode %v, want 0600", st.Mode().Perm())
	}
	data, _ := os.ReadFile(path)
	for _, want := range []string{"# mine", "session: ses_keepme0000000000", "server: " + f.URL + "\n", "api_key: " + testKey} {
		if !strings.Contains(string(data), want) {
			t.Errorf("config lacks %q:\n%s", want, data)
		}
	}

	// The saved settings are used from now on.
	if r := runCLI(t, "usage"); r.code != ExitOK {
		t.Fatalf("after login: %+v", r)
	}
}

func TestLoginCreatesPrivateDirectory(t *testing.T) {
	f := newFakeServer(t)
	path := isolate(t)
	r := runApp(t, &App{Stdin: strings.NewReader(testKey + "\n")}, context.Background(), "login", "--server", f.URL)
	if r.code != ExitOK {
		t.Fatalf("%+v", r)
	}
	st, err := os.Stat(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o700 {
		t.Errorf("config dir mode %v, want 0700", st.Mode().Perm())
	}
	if st, _ := os.Stat(path); st == nil || st.Mode().Perm() != 0o600 {
		t.Errorf("config file missing or not 0600: %v", st)
	}
}

func TestLoginRejectedKeyWritesNothing(t *testing.T) {
	f := newFakeServer(t)
	path := isolate(t)
	r := runCLI(t, "login", "--server", f.URL, "--api-key", "pme_bad")
	if r.code != ExitAuth || !strings.Contains(r.stderr, "Invalid API key.") || !strings.Contains(r.stderr, "pome login") {
		t.Fatalf("%+v", r)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("config written after a rejected key: %v", err)
	}
}

// secretStrings must never reach the terminal without --json.
var secretStrings = []string{"pst_", "pat_", "ghp_", "xoxb-", "xoxp-"}

func TestSandboxCreateHumanOutputHasNoTokens(t *testing.T) {
	f := newFakeServer(t)
	path := loggedIn(t, f)
	r := runCLI(t, "sandbox", "create", "--twin", "github", "--twin", "slack", "--ttl", "45m")
	if r.code != ExitOK {
		t.Fatalf("%+v", r)
	}
	for _, s := range secretStrings {
		if strings.Contains(r.stdout+r.stderr, s) {
			t.Errorf("token prefix %q printed:\n%s%s", s, r.stdout, r.stderr)
		}
	}
	base := f.URL + "/github/s/" + testSID
	for _, want := range []string{testSID, "2026-12-02T15:30:00Z", base, base + "/mcp", f.URL + "/slack/s/" + testSID + "/mcp",
		"GITHUB_HOST=" + f.URL + "\n"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	var body map[string]any
	if err := json.Unmarshal(f.last().Body, &body); err != nil {
		t.Fatal(err)
	}
	if body["ttl_seconds"] != float64(2700) || len(body["twins"].([]any)) != 2 {
		t.Errorf("request body %s", f.last().Body)
	}
	if _, ok := body["seed"]; ok {
		t.Errorf("seed sent without --seed: %s", f.last().Body)
	}

	// The new sandbox is the default: tape works without --session, and
	// the config file kept its other keys.
	data, _ := os.ReadFile(path)
	if !strings.Contains(string(data), "session: "+testSID) || !strings.Contains(string(data), "api_key: "+testKey) {
		t.Errorf("config after create:\n%s", data)
	}
	if r := runCLI(t, "tape", "github"); r.code != ExitOK || f.last().Path != "/v1/sandboxes/"+testSID+"/tapes/github" {
		t.Errorf("tape after create: %+v %s", r, f.last().Path)
	}
}

func TestSandboxCreateJSONHasTokens(t *testing.T) {
	f := newFakeServer(t)
	loggedIn(t, f)
	r := runCLI(t, "sandbox", "create", "--twin", "github,slack", "--json")
	if r.code != ExitOK {
		t.Fatalf("%+v", r)
	}
	var got CreatedSandbox
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, r.stdout)
	}
	if got.AuthToken != "pst_fakeAuthToken" || got.AgentToken != "pat_fakeAgentToken" ||
		got.ProviderCredentials["github"].Token != fakeTokens["github"] || got.PerTwin["slack"].MCPURL == "" {
		t.Errorf("JSON output %+v", got)
	}
}

// The original Pome's seed files are taken as they are: a flat seed for
// one twin, an envelope for several, _meta at the top dropped.
func TestSandboxCreateOriginalSeeds(t *testing.T) {
	f := newFakeServer(t)
	loggedIn(t, f)
	dir := t.TempDir()
	sent := func(twins, content string) (result, string) {
		path := filepath.Join(dir, "s.seed.json")
		os.WriteFile(path, []byte(content), 0o644)
		n := len(f.seen())
		r := runCLI(t, "sandbox", "create", "--twin", twins, "--seed", path)
		if len(f.seen()) == n {
			return r, ""
		}
		var body struct{ Seed json.RawMessage }
		json.Unmarshal(f.last().Body, &body)
		return r, string(body.Seed)
	}
	meta := `"_meta": {"version": 1, "source_hash": "sha256:hand-authored", "model": "hand-authored"}`
	if r, seed := sent("slack", `{`+meta+`, "team": {"id": "T_ACME"}, "users": []}`); r.code != ExitOK || seed != `{"slack":{"team":{"id":"T_ACME"},"users":[]}}` {
		t.Errorf("flat: %s %+v", seed, r)
	}
	if r, seed := sent("github,slack", `{`+meta+`, "slack": {"users": []}, "clock": "2026-05-01T09:00:00Z"}`); r.code != ExitOK || seed != `{"clock":"2026-05-01T09:00:00Z","slack":{"users":[]}}` {
		t.Errorf("envelope: %s %+v", seed, r)
	}
	if r, seed := sent("github", `{`+meta+`}`); r.code != ExitOK || seed != "" {
		t.Errorf("only _meta: %s %+v", seed, r)
	}
	if r, seed := sent("github,slack", `{"repositories": []}`); r.code != ExitUsage || seed != "" || !strings.Contains(r.stderr, "needs a seed envelope") {
		t.Errorf("flat for two twins: %s %+v", seed, r)
	}
}

func TestSandboxCreateSeed(t *testing.T) {
	f := newFakeServer(t)
	loggedIn(t, f)
	dir := t.TempDir()
	good := filepath.Join(dir, "seed.json")
	os.WriteFile(good, []byte("{\n  \"github\": {\"issues\": []}\n}\n"), 0o644)
	if r := runCLI(t, "sandbox", "create", "--twin", "github", "--seed", good); r.code != ExitOK {
		t.Fatalf("%+v", r)
	}
	var body struct{ Seed json.RawMessage }
	json.Unmarshal(f.last().Body, &body)
	if string(body.Seed) != `{"github":{"issues":[]}}` {
		t.Errorf("seed sent as %s", body.Seed)
	}

	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte("{\n  \"github\": {,}\n}\n"), 0o644)
	n := len(f.seen())
	r := runCLI(t, "sandbox", "create", "--twin", "github", "--seed", bad)
	if r.code != ExitUsage || !strings.Contains(r.stderr, "bad.json:2:") || !strings.Contains(r.stderr, "invalid character") {
		t.Fatalf("%+v", r)
	}
	if len(f.seen()) != n {
		t.Error("a request was sent with an invalid seed")
	}
}

func TestSecretsFile(t *testing.T) {
	f := newFakeServer(t)
	loggedIn(t, f)
	secrets := filepath.Join(t.TempDir(), "pome.env")
	// An existing, world-readable file is replaced by a private one.
	os.WriteFile(secrets, []byte("old\n"), 0o644)

	r := runCLI(t, "sandbox", "create", "--twin", "github", "--twin", "slack", "--secrets-file", secrets)
	if r.code != ExitOK {
		t.Fatalf("%+v", r)
	}
	st, err := os.Stat(secrets)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("secrets file mode %v, want 0600", st.Mode().Perm())
	}
	data, _ := os.ReadFile(secrets)
	gh := f.URL + "/github/s/" + testSID
	sl := f.URL + "/slack/s/" + testSID
	want := "export POME_SESSION_ID='" + testSID + "'\n" +
		"export POME_AUTH_TOKEN='pst_fakeAuthToken'\n" +
		"export POME_AGENT_TOKEN='pat_fakeAgentToken'\n" +
		"export POME_EXPIRES_AT='2026-12-02T15:30:00Z'\n" +
		"export POME_TWIN_NAMES='github,slack'\n" +
		"export POME_GITHUB_REST_URL='" + gh + "'\n" +
		"export POME_GITHUB_MCP_URL='" + gh + "/mcp'\n" +
		"export POME_GITHUB_TOKEN='ghp_fakeGithubToken123'\n" +
		"export POME_SLACK_REST_URL='" + sl + "'\n" +
		"export POME_SLACK_MCP_URL='" + sl + "/mcp'\n" +
		"export POME_SLACK_TOKEN='xoxb-it'\\''s-$HOME-\"q\"'\n" +
		"export POME_SLACK_USER_TOKEN='" + fakeSlackUserToken + "'\n" +
		// The original Pome's names: the first twin's address, and the
		// server root where github-mcp-server finds its sandbox.
		"export POME_TWIN_URL='" + gh + "'\n" +
		"export POME_TWIN_BASE_URL='" + gh + "'\n" +
		"export POME_GITHUB_HOST='" + f.URL + "'\n"
	if _, body, _ := strings.Cut(string(data), "\n"); body != want {
		t.Errorf("secrets file:\n%s\nwant (after the comment line):\n%s", data, want)
	}
	for _, s := range secretStrings {
		if strings.Contains(r.stdout+r.stderr, s) {
			t.Errorf("token prefix %q printed", s)
		}
	}

	// A shell reads back exactly the values the server sent.
	if sh, err := exec.LookPath("sh"); err == nil {
		out, err := exec.Command(sh, "-c", `. "$1" && printf '%s|%s' "$POME_SLACK_TOKEN" "$POME_TWIN_NAMES"`, "sh", secrets).Output()
		if err != nil {
			t.Fatal(err)
		}
		if string(out) != fakeTokens["slack"]+"|github,slack" {
			t.Errorf("sh read %q", out)
		}
	}
}

// The vendors' SDKs that take no base path get the server root, their
// provider credential naming the sandbox.
func TestSecretsFileSDKNames(t *testing.T) {
	f := newFakeServer(t)
	loggedIn(t, f)
	secrets := filepath.Join(t.TempDir(), "pome.env")
	if r := runCLI(t, "sandbox", "create", "--twin", "stripe,gmail", "--secrets-file", secrets); r.code != ExitOK {
		t.Fatalf("%+v", r)
	}
	data, _ := os.ReadFile(secrets)
	for _, want := range []string{
		"export POME_TWIN_URL='" + f.URL + "/stripe/s/" + testSID + "'\n",
		"export POME_STRIPE_API_KEY='sk_test_fake'\n",
		"export POME_STRIPE_API_BASE='" + f.URL + "'\n",
		"export POME_GMAIL_ROOT_URL='" + f.URL + "/'\n",
	} {
		if !strings.Contains(string(data), want) {
			t.Errorf("secrets file lacks %q:\n%s", want, data)
		}
	}
	if strings.Contains(string(data), "POME_GITHUB_HOST") {
		t.Errorf("a sandbox without github names no GitHub host:\n%s", data)
	}
}

func TestSecretsFileBadPathCreatesNothing(t *testing.T) {
	f := newFakeServer(t)
	loggedIn(t, f)
	n := len(f.seen())
	r := runCLI(t, "sandbox", "create", "--twin", "github", "--secrets-file", filepath.Join(t.TempDir(), "no", "such", "dir", "x.env"))
	if r.code != ExitUsage {
		t.Fatalf("%+v", r)
	}
	if len(f.seen()) != n {
		t.Error("sandbox created although the secrets file cannot be written")
	}
}

func TestExitCodes(t *testing.T) {
	closed := newFakeServer(t)
	closedURL := closed.URL
	closed.Close()

	cases := []struct {
		name   string
		setup  func(f *fakeServer)
		args   []string
		code   int
		stderr []string
	}{
		{"unreachable", nil, []string{"usage", "--server", closedURL}, ExitOrchestration,
			[]string{"cannot reach the Pome server at " + closedURL, "is `pome serve` running?"}},
		{"server error", func(f *fakeServer) { f.fail(500, "internal_error") }, []string{"twins"}, ExitOrchestration,
			[]string{"Injected failure.", "internal_error", "req_test123"}},
		{"bad key", nil, []string{"usage", "--api-key", "pme_nope"}, ExitAuth,
			[]string{"Invalid API key.", "pome login"}},
		{"forbidden", func(f *fakeServer) { f.fail(403, "forbidden") }, []string{"usage"}, ExitAuth, nil},
		{"quota", func(f *fakeServer) { f.fail(402, "quota_exceeded") }, []string{"sandbox", "create", "--twin", "github"}, ExitQuota,
			[]string{"Injected failure.", "quota_exceeded"}},
		{"validation", nil, []string{"sandbox", "create", "--twin", "jira"}, ExitUsage,
			[]string{`Unknown twin "jira".`, "twins[0]: unknown twin", "validation_failed"}},
		{"unknown sandbox", nil, []string{"sandbox", "get", "ses_nope"}, ExitUsage, []string{"No such sandbox."}},
		{"unknown twin on tape", nil, []string{"tape", "jira", "--session", testSID}, ExitUsage, nil},
		{"bad flag", nil, []string{"sandbox", "list", "--nope"}, ExitUsage, []string{"unknown flag: --nope", "pome sandbox list --help"}},
		{"bad flag value", nil, []string{"sandbox", "create", "--twin", "github", "--ttl", "soon"}, ExitUsage, nil},
		{"sub-second ttl", nil, []string{"sandbox", "create", "--twin", "github", "--ttl", "1500ms"}, ExitUsage, nil},
		{"no twin", nil, []string{"sandbox", "create"}, ExitUsage, []string{"--twin"}},
		{"unknown command", nil, []string{"sandboxes"}, ExitUsage, []string{"unknown command"}},
		{"unknown subcommand", nil, []string{"sandbox", "destroy"}, ExitUsage, []string{"unknown command"}},
		{"missing argument", nil, []string{"sandbox", "stop"}, ExitUsage, nil},
		{"bad server URL", nil, []string{"usage", "--server", "ftp://x"}, ExitUsage, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeServer(t)
			loggedIn(t, f)
			if tc.setup != nil {
				tc.setup(f)
			}
			r := runCLI(t, tc.args...)
			if r.code != tc.code {
				t.Fatalf("code %d, want %d\nstdout: %s\nstderr: %s", r.code, tc.code, r.stdout, r.stderr)
			}
			if tc.name == "validation" && strings.Contains(r.stderr, "--help") {
				t.Errorf("a server's answer is not a usage mistake; no --help pointer:\n%s", r.stderr)
			}
			for _, s := range tc.stderr {
				if !strings.Contains(r.stderr, s) {
					t.Errorf("stderr lacks %q:\n%s", s, r.stderr)
				}
			}
		})
	}
}

func TestNoAPIKeyIsAuthError(t *testing.T) {
	f := newFakeServer(t)
	isolate(t)
	r := runCLI(t, "twins", "--server", f.URL)
	if r.code != ExitAuth || !strings.Contains(r.stderr, "pome login") {
		t.Fatalf("%+v", r)
	}
	if len(f.seen()) != 0 {
		t.Error("a request was sent without a key")
	}
}

func TestUnexpectedResponseIsOrchestrationError(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("<html>not pome</html>"))
	}))
	defer srv.Close()
	path := isolate(t)
	writeConfig(t, path, "server: "+srv.URL+"\napi_key: "+testKey+"\n")
	r := runCLI(t, "usage")
	if r.code != ExitOrchestration || !strings.Contains(r.stderr, "unexpected response") {
		t.Fatalf("%+v", r)
	}
}

func TestSandboxListGetStop(t *testing.T) {
	f := newFakeServer(t)
	loggedIn(t, f)

	r := runCLI(t, "sandbox", "list", "--state", "ready", "--limit", "5")
	if r.code != ExitOK || !strings.Contains(r.stdout, testSID) || !strings.Contains(r.stdout, "ses_0000000000000001") {
		t.Fatalf("%+v", r)
	}
	if q := f.last().RawQuery; q != "limit=5&state=ready" {
		t.Errorf("query %q", q)
	}
	// The original Pome's names for the states.
	for arg, want := range map[string]string{"running": "state=ready", "done": "state=stopped", "all": "", "expired": "state=expired"} {
		if r := runCLI(t, "sandbox", "list", "--state", arg); r.code != ExitOK || f.last().RawQuery != want {
			t.Errorf("--state %s: query %q, %+v", arg, f.last().RawQuery, r)
		}
	}
	if r := runCLI(t, "sandbox", "list", "--state", "busy"); r.code != ExitUsage || !strings.Contains(r.stderr, `unknown --state "busy"`) {
		t.Errorf("bad state: %+v", r)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "ID ") {
		t.Errorf("table:\n%s", r.stdout)
	}

	r = runCLI(t, "sandbox", "list", "--json")
	var list SandboxList
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil || len(list.Data) != 2 {
		t.Fatalf("json list: %v %s", err, r.stdout)
	}

	r = runCLI(t, "sandbox", "get", testSID)
	if r.code != ExitOK || !strings.Contains(r.stdout, "github, slack") {
		t.Fatalf("%+v", r)
	}

	r = runCLI(t, "sandbox", "stop", testSID, "--discard")
	if r.code != ExitOK || !strings.Contains(r.stdout, "discarded") {
		t.Fatalf("%+v", r)
	}
	if req := f.last(); req.Method != "DELETE" || req.RawQuery != "discard=true" {
		t.Errorf("stop sent %+v", req)
	}
	runCLI(t, "sandbox", "stop", testSID)
	if req := f.last(); req.RawQuery != "" {
		t.Errorf("stop without --discard sent %q", req.RawQuery)
	}
}

func TestTwinsChecksUsage(t *testing.T) {
	f := newFakeServer(t)
	loggedIn(t, f)

	r := runCLI(t, "twins")
	if r.code != ExitOK {
		t.Fatalf("%+v", r)
	}
	fields := strings.Fields(strings.Split(r.stdout, "\n")[1])
	if strings.Join(fields, " ") != "github GitHub 2 1" {
		t.Errorf("twins row %q", fields)
	}

	r = runCLI(t, "checks", "slack")
	if r.code != ExitOK || !strings.Contains(r.stdout, "slack.no-mutations") || !strings.Contains(r.stdout, "negative") {
		t.Fatalf("%+v", r)
	}
	if f.last().RawQuery != "twin=slack" {
		t.Errorf("query %q", f.last().RawQuery)
	}

	r = runCLI(t, "checks", "--json")
	var all []CheckList
	if err := json.Unmarshal([]byte(r.stdout), &all); err != nil || len(all) != 2 || all[1].Twin != "slack" {
		t.Fatalf("checks --json: %v %s", err, r.stdout)
	}

	r = runCLI(t, "usage")
	if r.code != ExitOK || !strings.Contains(r.stdout, "2 of 1000") {
		t.Fatalf("%+v", r)
	}
	r = runCLI(t, "usage", "--json")
	var u Usage
	if err := json.Unmarshal([]byte(r.stdout), &u); err != nil || u.Evals != 3 {
		t.Fatalf("usage --json: %v %s", err, r.stdout)
	}
}

func TestVersion(t *testing.T) {
	isolate(t)
	r := runCLI(t, "version")
	if r.code != ExitOK || !strings.HasPrefix(r.stdout, "pome dev (go") {
		t.Fatalf("%+v", r)
	}
}
