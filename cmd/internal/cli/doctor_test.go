package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pomehq/pome/task/tasktest"
	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/github"
)

func TestDoctorAllGood(t *testing.T) {
	startPome(t, twins.NewRegistry(github.New()))
	freshProject(t, "fine")
	if r := runCLI(t, "init"); r.code != ExitOK {
		t.Fatal(r)
	}
	r := runCLI(t, "doctor")
	if r.code != ExitOK {
		t.Fatalf("%+v", r)
	}
	for _, want := range []string{"ok    manifest  ", "(agent fine, 2 tasks)", "ok    server    ", "ok    twins     a sandbox of github starts and serves",
		"ok    agent     sh agents/example-agent.sh resolves", "ok    env       ", "All checks passed."} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
}

// Every failure doctor names: its check, its cause and a fix, exit 1, and
// nothing checked after it.
func TestDoctorFailures(t *testing.T) {
	for name, c := range map[string]struct {
		setup func(t *testing.T, dir string)
		check string
		cause string
		fix   string
	}{
		"no manifest": {func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, "pome.json")) },
			"manifest", "no pome.json or pome.yaml", "pome init"},
		"bad manifest": {func(t *testing.T, dir string) { writeManifestFile(t, dir, `{"agent":{}}`) },
			"manifest", "agent.slug is required", manifestSchemaURL},
		"no tasks key": {func(t *testing.T, dir string) { writeManifestFile(t, dir, `{"agent":{"slug":"a"},"command":"true"}`) },
			"manifest", `sets no "tasks"`, `set "tasks"`},
		"invalid task": {func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "tasks", "broken.md"), []byte("# Broken\n## Config\n```yaml\ntwins: [github]\n```\n## Prompt\nx\n## Success Criteria\n- [code] The moon is cheese\n"), 0o644)
		}, "tasks", "the task cannot be graded as written", "pome checks lint tasks"},
		"no server": {func(t *testing.T, dir string) { t.Setenv("POME_SERVER", "http://127.0.0.1:1") },
			"server", "127.0.0.1:1", "pome serve"},
		"wrong key": {func(t *testing.T, dir string) { t.Setenv("POME_API_KEY", "pme_not_a_key_of_this_server") },
			"server", "", "key"},
		"twin not served": {func(t *testing.T, dir string) {
			taskRegistry = func() *twins.Registry { return twins.NewRegistry(github.New(), tasktest.Twin("notes")) }
			os.WriteFile(filepath.Join(dir, "tasks", "notes.md"), []byte("# Notes\n## Config\n```yaml\ntwins: [notes]\n```\n## Prompt\nx\n## Success Criteria\n- [code] No new note was written\n"), 0o644)
		}, "twins", "a sandbox of github, notes did not start", "`pome twins` lists"},
		"program missing": {func(t *testing.T, dir string) {
			writeManifestFile(t, dir, `{"agent":{"slug":"a"},"command":"no-such-agent-program --go","tasks":"tasks"}`)
		}, "agent", "the command's program no-such-agent-program is not found", "install it"},
		"script missing": {func(t *testing.T, dir string) {
			writeManifestFile(t, dir, `{"agent":{"slug":"a"},"command":"FOO=1 sh agents/gone.sh","tasks":"tasks"}`)
		}, "agent", "the command runs agents/gone.sh, which does not exist", `fix "command"`},
		"no command": {func(t *testing.T, dir string) { writeManifestFile(t, dir, `{"agent":{"slug":"a"},"tasks":"tasks"}`) },
			"agent", `sets no "command"`, `set "command"`},
		"proxy": {func(t *testing.T, dir string) {
			t.Setenv("HTTPS_PROXY", "http://proxy.example.net:3128")
			t.Setenv("POME_AGENT_ENV_ALLOWLIST", "HTTPS_PROXY")
		}, "environment", "the agent gets HTTPS_PROXY=http://proxy.example.net:3128", "unset HTTPS_PROXY"},
		"vendor host in env": {func(t *testing.T, dir string) {
			t.Setenv("GITHUB_API_URL", "https://api.github.com")
			t.Setenv("POME_AGENT_ENV_ALLOWLIST", "GITHUB_API_URL")
		}, "environment", "the agent gets GITHUB_API_URL, which points at the real api.github.com", "unset GITHUB_API_URL"},
		"vendor host in script": {func(t *testing.T, dir string) {
			p := filepath.Join(dir, "agents", "example-agent.sh")
			b, _ := os.ReadFile(p)
			os.WriteFile(p, append(b, []byte("curl https://api.github.com/user\n")...), 0o755)
		}, "environment", "agents/example-agent.sh:", "POME_GITHUB_REST_URL"},
	} {
		t.Run(name, func(t *testing.T) {
			startPome(t, twins.NewRegistry(github.New()))
			dir := freshProject(t, "proj")
			if r := runCLI(t, "init"); r.code != ExitOK {
				t.Fatal(r)
			}
			c.setup(t, dir)
			r := runCLI(t, "doctor")
			fail := r.stdout[strings.Index(r.stdout, "FAIL")+1:]
			if r.code != ExitFail || !strings.Contains(r.stdout, "FAIL  "+c.check+": ") || !strings.Contains(fail, c.cause) || !strings.Contains(fail, "fix: ") ||
				!strings.Contains(fail[strings.Index(fail, "fix: "):], c.fix) || strings.Contains(fail, "ok    ") {
				t.Errorf("%+v", r)
			}
		})
	}
}

// A proxy the agent would not inherit is no problem.
func TestDoctorIgnoresWhatTheAgentDoesNotInherit(t *testing.T) {
	startPome(t, twins.NewRegistry(github.New()))
	freshProject(t, "proj")
	runCLI(t, "init")
	t.Setenv("HTTPS_PROXY", "http://proxy.example.net:3128")
	t.Setenv("DEPLOY_URL", "https://api.stripe.com")
	if r := runCLI(t, "doctor"); r.code != ExitOK {
		t.Errorf("%+v", r)
	}
}

func writeManifestFile(t *testing.T, dir, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "pome.json"), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// pome run refuses, before any sandbox, an agent doctor would fail.
func TestRunRefusesMiswiredAgent(t *testing.T) {
	p := startPome(t, tasktest.Registry())
	path := writeTask(t, notesTask)
	r := runCLI(t, "run", path, "--agent", "no-such-agent-program --go", "--artifacts-dir", t.TempDir())
	if r.code != ExitOrchestration || !strings.Contains(r.stderr, "refusing to start the agent: the command's program no-such-agent-program is not found") {
		t.Errorf("program: %+v", r)
	}
	script := agentScript(t, passingAgent+"curl -s https://api.stripe.com/v1/charges\n")
	r = runCLI(t, "run", path, "--agent", script, "--artifacts-dir", t.TempDir())
	if r.code != ExitOrchestration || !strings.Contains(r.stderr, "hard-codes the real api.stripe.com") || !strings.Contains(r.stderr, "POME_STRIPE_REST_URL") {
		t.Errorf("script: %+v", r)
	}
	t.Setenv("ALL_PROXY", "socks5://proxy.example.net:1080")
	t.Setenv("POME_AGENT_ENV_ALLOWLIST", "ALL_PROXY")
	r = runCLI(t, "run", path, "--agent", agentScript(t, passingAgent), "--artifacts-dir", t.TempDir())
	if r.code != ExitOrchestration || !strings.Contains(r.stderr, "the agent gets ALL_PROXY=") {
		t.Errorf("proxy: %+v", r)
	}
	if n := len(p.sandboxes(t)); n != 0 {
		t.Errorf("%d sandboxes created", n)
	}
	// Shell syntax is left to the shell.
	os.Unsetenv("ALL_PROXY")
	if r := runCLI(t, "run", path, "--agent", "cd / && "+agentScript(t, passingAgent), "--artifacts-dir", t.TempDir()); r.code != ExitOK {
		t.Errorf("shell command: %+v", r)
	}
}
