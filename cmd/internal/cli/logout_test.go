package cli

import (
	"os"
	"strings"
	"testing"
)

func TestLogoutRemovesOnlyTheKey(t *testing.T) {
	path := isolate(t)
	writeConfig(t, path, "# mine\nserver: http://127.0.0.1:7070\napi_key: pme_saved\nsession: ses_x\n")
	r := runCLI(t, "logout")
	if r.code != ExitOK || !strings.Contains(r.stdout, "Removed the API key from "+path) || !strings.Contains(r.stderr, "not revoked on the server") {
		t.Fatalf("%+v", r)
	}
	b, _ := os.ReadFile(path)
	if strings.Contains(string(b), "pme_saved") || !strings.Contains(string(b), "server: http://127.0.0.1:7070") || !strings.Contains(string(b), "session: ses_x") || !strings.Contains(string(b), "# mine") {
		t.Errorf("config after logout:\n%s", b)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", st.Mode())
	}
	// Nothing saved: said so, nothing written.
	t.Setenv("POME_API_KEY", "pme_env")
	r = runCLI(t, "logout")
	if r.code != ExitOK || !strings.Contains(r.stdout, "No API key is saved in "+path) || !strings.Contains(r.stderr, "POME_API_KEY is still set") {
		t.Errorf("%+v", r)
	}
	if b2, _ := os.ReadFile(path); string(b2) != string(b) {
		t.Errorf("rewritten:\n%s", b2)
	}
}

func TestLogoutWithoutConfigFile(t *testing.T) {
	path := isolate(t)
	if r := runCLI(t, "logout"); r.code != ExitOK || !strings.Contains(r.stdout, "No API key is saved") {
		t.Errorf("%+v", r)
	}
	if _, err := os.Stat(path); err == nil {
		t.Error("logout created a config file")
	}
	writeConfig(t, path, "- a\n- b\n")
	if r := runCLI(t, "logout"); r.code == ExitOK || !strings.Contains(r.stderr, "config file "+path) {
		t.Errorf("list config: %+v", r)
	}
}
