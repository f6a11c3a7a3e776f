package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pomehq/pome/session"
	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/github"
	"github.com/pomehq/pome/twins/gmail"
	"github.com/pomehq/pome/twins/linear"
	"github.com/pomehq/pome/twins/slack"
	"github.com/pomehq/pome/twins/stripe"
)

// gmailTokensWork reports whether a Gmail provider token can be minted:
// a generator that loops forever would hang sandbox creation, and the test
// with it.
func gmailTokensWork() bool {
	done := make(chan struct{})
	go func() {
		session.NewProviderToken("ya29.", "ses_L2RwKae6MWKMg1v2", false)
		close(done)
	}()
	select {
	case <-done:
		return true
	case <-time.After(time.Second):
		return false
	}
}

func allTwins() *twins.Registry {
	return twins.NewRegistry(github.New(), slack.New(), stripe.New(), gmail.New(), linear.New())
}

// TestBundledTasks copies the library out of the binary and runs every
// task twice against the real twins: with its reference agent (must pass)
// and with a do-nothing agent (must fail, so no criterion is free).
func TestBundledTasks(t *testing.T) {
	startPome(t, allTwins())
	dir := filepath.Join(t.TempDir(), "ex")
	r := runCLI(t, "tasks", "--copy", dir)
	if r.code != ExitOK {
		t.Fatalf("%+v", r)
	}
	r = runCLI(t, "tasks", "--json")
	if r.code != ExitOK {
		t.Fatalf("%+v", r)
	}
	names, _ := filepath.Glob(filepath.Join(dir, "tasks", "*.md"))
	if len(names) < 8 {
		t.Errorf("only %d bundled tasks", len(names))
	}
	if r := runCLI(t, append([]string{"checks", "lint"}, names...)...); r.code != ExitOK {
		t.Errorf("bundled tasks do not lint: %+v", r)
	}
	gmailOK := gmailTokensWork()
	for _, path := range names {
		name := strings.TrimSuffix(filepath.Base(path), ".md")
		t.Run(name, func(t *testing.T) {
			if strings.Contains(name, "gmail") && !gmailOK {
				t.Skip("session.NewProviderToken hangs on the 64-character alphabet of Gmail tokens, so no Gmail sandbox can be created")
			}
			agent := filepath.Join(dir, "agents", name+".sh")
			if _, err := os.Stat(agent); err != nil {
				t.Fatalf("no reference agent: %v", err)
			}
			runs := t.TempDir()
			r := runCLI(t, "run", path, "--agent", agent, "--artifacts-dir", runs)
			if r.code != ExitOK {
				t.Errorf("reference agent: %+v", r)
				logs, _ := filepath.Glob(filepath.Join(runs, "*", "*", "stderr.log"))
				for _, l := range logs {
					data, _ := os.ReadFile(l)
					t.Logf("%s:\n%s", l, data)
				}
			}
			r = runCLI(t, "run", path, "--agent", "true", "--artifacts-dir", runs)
			if r.code != ExitFail {
				t.Errorf("do-nothing agent: %+v", r)
			}
		})
	}
}
