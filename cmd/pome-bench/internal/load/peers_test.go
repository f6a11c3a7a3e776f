package load

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

func TestParseEmulatePorts(t *testing.T) {
	out := "\n emulate\n\n  github  http://localhost:7680\n    Source: github\n  slack  http://localhost:7681\n    Source: slack\n  stripe  http://127.0.0.1:7682\n\n  Ready.\n"
	got := ParseEmulatePorts(out)
	if len(got) != 3 || got["github"] != 7680 || got["slack"] != 7681 || got["stripe"] != 7682 {
		t.Fatalf("%v", got)
	}
	if len(ParseEmulatePorts("Source: github http://localhost:1 extra")) != 0 {
		t.Error("a line that is not a service line was read as one")
	}
}

// TestEmulateSeed: one user and token per GitHub load user, every user an
// admin of acme (so each may comment), and the other worlds present.
func TestEmulateSeed(t *testing.T) {
	raw, err := EmulateSeed(3)
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Tokens map[string]struct{ Login string }
		GitHub struct {
			Users []struct{ Login string }
			Orgs  []struct {
				Login   string
				Members []struct{ Login, Role string }
			}
			Repos []struct{ Owner, Name string }
		}
		Slack struct {
			Channels []struct{ Name string }
		}
		Stripe struct {
			Customers []struct{ Email string }
		}
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	logins := map[string]bool{}
	for i := range 3 {
		tok, ok := s.Tokens[EmulateToken(i)]
		if !ok || logins[tok.Login] {
			t.Fatalf("token %d: %+v (each token needs a user of its own)", i, s.Tokens)
		}
		logins[tok.Login] = true
	}
	if len(s.Tokens) != 3 || len(s.GitHub.Users) != 4 || len(s.GitHub.Orgs) != 1 || len(s.GitHub.Orgs[0].Members) != 4 {
		t.Fatalf("%s", raw)
	}
	for _, m := range s.GitHub.Orgs[0].Members {
		if m.Role != "admin" {
			t.Errorf("member %s is %s", m.Login, m.Role)
		}
		delete(logins, m.Login)
	}
	if len(logins) != 0 || len(s.GitHub.Repos) != 1 || s.GitHub.Repos[0].Name != "api" || len(s.Slack.Channels) != 1 || len(s.Stripe.Customers) != 1 {
		t.Errorf("%s", raw)
	}
}

// TestPeersInstalledChecks: a peer counts as installed only at the pinned
// version.
func TestPeersInstalledChecks(t *testing.T) {
	cache := t.TempDir()
	if EmulateInstalled(cache) || StripeMockInstalled(cache) {
		t.Fatal("an empty cache holds peers")
	}
	node, cli := EmulatePaths(cache)
	write := func(path, content string) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(cli, "")
	write(node, "")
	write(filepath.Join(filepath.Dir(filepath.Dir(node)), "package.json"), `{"version":"22.23.5"}`)
	write(filepath.Join(filepath.Dir(filepath.Dir(cli)), "package.json"), `{"version":"1.0.2"}`)
	if EmulateInstalled(cache) {
		t.Error("emulate 1.0.2 taken for " + EmulateVersion)
	}
	write(filepath.Join(filepath.Dir(filepath.Dir(cli)), "package.json"), `{"version":"`+EmulateVersion+`"}`)
	if !EmulateInstalled(cache) {
		t.Error("emulate " + EmulateVersion + " on Node 22 not found")
	}
	write(filepath.Join(filepath.Dir(filepath.Dir(node)), "package.json"), `{"version":"20.1.0"}`)
	if EmulateInstalled(cache) {
		t.Error("Node 20 taken for 22")
	}
	// A binary that is not stripe-mock (this test binary) is not it.
	self, _ := os.Executable()
	b, _ := os.ReadFile(self)
	write(StripeMockPath(cache), string(b))
	if StripeMockInstalled(cache) {
		t.Error("another Go binary taken for stripe-mock")
	}
}
