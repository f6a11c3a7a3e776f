package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// namedServer is a fake control plane whose /v1/usage reports name as the
// team, so a test can tell which server a command reached.
func namedServer(t *testing.T, name string) *fakeServer {
	f := newFakeServer(t)
	f.team = name
	return f
}

func TestConfigPrecedence(t *testing.T) {
	fileSrv, envSrv, flagSrv := namedServer(t, "from-file"), namedServer(t, "from-env"), namedServer(t, "from-flag")
	path := isolate(t)

	// Default: nothing configured, so the error names the default server.
	r := runCLI(t, "usage")
	if r.code != ExitAuth || !strings.Contains(r.stderr, "http://127.0.0.1:7070") {
		t.Fatalf("default: code %d, stderr %q", r.code, r.stderr)
	}

	writeConfig(t, path, "server: "+fileSrv.URL+"\napi_key: "+testKey+"\n")
	if r := runCLI(t, "usage"); !strings.Contains(r.stdout, "from-file") {
		t.Fatalf("file: %+v", r)
	}

	t.Setenv("POME_SERVER", envSrv.URL)
	if r := runCLI(t, "usage"); !strings.Contains(r.stdout, "from-env") {
		t.Fatalf("env over file: %+v", r)
	}

	if r := runCLI(t, "usage", "--server", flagSrv.URL); !strings.Contains(r.stdout, "from-flag") {
		t.Fatalf("flag over env: %+v", r)
	}

	// The key follows the same order: a wrong env key beats the file's good
	// one, and a good flag key beats the env's wrong one.
	t.Setenv("POME_API_KEY", "pme_wrong")
	if r := runCLI(t, "usage"); r.code != ExitAuth {
		t.Fatalf("env key over file key: %+v", r)
	}
	if r := runCLI(t, "usage", "--api-key", testKey); r.code != ExitOK {
		t.Fatalf("flag key over env key: %+v", r)
	}
	if got := envSrv.last().Auth; got != "Bearer "+testKey {
		t.Fatalf("Authorization = %q", got)
	}
}

func TestConfigFlagAndEnvLocation(t *testing.T) {
	f := newFakeServer(t)
	isolate(t)
	dir := t.TempDir()
	byFlag := filepath.Join(dir, "flag.yaml")
	byEnv := filepath.Join(dir, "env.yaml")
	writeConfig(t, byFlag, "server: "+f.URL+"\napi_key: "+testKey+"\n")
	writeConfig(t, byEnv, "server: http://127.0.0.1:1\napi_key: "+testKey+"\n")
	t.Setenv("POME_CONFIG", byEnv)
	if r := runCLI(t, "--config", byFlag, "usage"); r.code != ExitOK {
		t.Fatalf("--config: %+v", r)
	}
	if r := runCLI(t, "usage"); r.code != ExitOrchestration {
		t.Fatalf("POME_CONFIG should point at the unreachable server: %+v", r)
	}
}

func TestBrokenConfigFileIsUsageError(t *testing.T) {
	path := isolate(t)
	writeConfig(t, path, "server: [unterminated\n")
	r := runCLI(t, "usage")
	if r.code != ExitUsage || !strings.Contains(r.stderr, path) {
		t.Fatalf("%+v", r)
	}
	if r := runCLI(t, "version"); r.code != ExitOK {
		t.Fatalf("version must not need the config: %+v", r)
	}
}

func TestSessionPrecedence(t *testing.T) {
	f := newFakeServer(t)
	path := loggedIn(t, f)
	writeConfig(t, path, "server: "+f.URL+"\napi_key: "+testKey+"\nsession: ses_fromfile00000000\n")
	runCLI(t, "state", "github")
	if p := f.last().Path; p != "/v1/sandboxes/ses_fromfile00000000/state/github" {
		t.Fatalf("file session: %s", p)
	}
	t.Setenv("POME_SESSION_ID", "ses_fromenv000000000")
	runCLI(t, "state", "github")
	if p := f.last().Path; p != "/v1/sandboxes/ses_fromenv000000000/state/github" {
		t.Fatalf("env session: %s", p)
	}
	r := runCLI(t, "state", "github", "--session", testSID)
	if p := f.last().Path; p != "/v1/sandboxes/"+testSID+"/state/github" || r.code != ExitOK {
		t.Fatalf("flag session: %s %+v", p, r)
	}
	if !strings.Contains(r.stdout, "\"acme/api\"") {
		t.Fatalf("state output: %q", r.stdout)
	}
}

func TestWriteConfigKeysKeepsOtherKeysAndComments(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.yaml")
	writeConfig(t, path, "# my settings\nsession: ses_keep # last sandbox\nteams:\n  acme: [pme_a]\nserver: http://old\n")
	if err := writeConfigKeys(path, kv{"server", "http://new:7070"}, kv{"api_key", "pme_k"}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	got := string(data)
	for _, want := range []string{"# my settings", "session: ses_keep # last sandbox", "acme:", "pme_a", "server: http://new:7070", "api_key: pme_k"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	if strings.Contains(got, "http://old") {
		t.Errorf("old server kept:\n%s", got)
	}
}
