// Package nodeclients runs the Node client suite in this folder (node's own
// test runner, `node --test`) against an in-process Pome server, so that
// `go test ./...` exercises the TypeScript clients agents use. Node 20+ and
// npm are required: without them the test fails rather than skips, since a
// silent skip would hide exactly the regressions this suite is for.
package nodeclients

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pomehq/pome/rest/resttest"
	"github.com/pomehq/pome/session"
	"github.com/pomehq/pome/twins/all"
)

// suiteTimeout bounds npm ci and the whole node run together.
const suiteTimeout = 5 * time.Minute

func TestNodeClients(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is not on PATH: the Node client suite needs Node 20+ and npm")
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Fatal("npm is not on PATH: the Node client suite needs Node 20+ and npm")
	}
	ctx, cancel := context.WithTimeout(context.Background(), suiteTimeout)
	defer cancel()
	if stale(t) {
		cmd := exec.CommandContext(ctx, npm, "ci", "--no-audit", "--no-fund")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("npm ci: %v\n%s", err, out)
		}
	}

	reg := all.Registry()
	names := reg.Names()
	// One server; a sandbox per twin, since a sandbox holds only a few.
	env := resttest.StartMulti(t, reg, names[:1], nil)
	type twinEnv struct {
		MCPURL     string `json:"mcp_url"`
		AgentToken string `json:"agent_token"`
		Tools      int    `json:"tools"`
		// The vendor SDKs' side: the twin's REST URL and the provider
		// credential sandbox create prints for it.
		APIURL string `json:"api_url"`
		Token  string `json:"token"`
	}
	doc := struct {
		// Root is the server's root URL, where Stripe's /v1/ and Gmail's
		// /gmail/v1/ are served for SDKs that take no base path.
		Root  string             `json:"root"`
		Twins map[string]twinEnv `json:"twins"`
	}{Root: env.HTTP.URL, Twins: map[string]twinEnv{}}
	for _, name := range names {
		var created session.Created
		if st := env.Control(t, http.MethodPost, "/v1/sandboxes", map[string]any{"twins": []string{name}}, &created); st != http.StatusCreated {
			t.Fatalf("create a %s sandbox: status %d", name, st)
		}
		url := created.PerTwin[name].MCPURL
		// The count the server itself declares, read with the Go SDK, is
		// what every Node client must see too.
		cs := resttest.ConnectMCP(t, url, created.AgentToken)
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatalf("%s: tools/list with the Go SDK: %v", name, err)
		}
		doc.Twins[name] = twinEnv{MCPURL: url, AgentToken: created.AgentToken, Tools: len(res.Tools),
			APIURL: created.PerTwin[name].APIURL, Token: created.ProviderCredentials[name].Token}
	}
	raw, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}

	// POME_NODE_FILES, when set, names the test files to run (all by
	// default), for working on one suite.
	// --test-force-exit: a file whose tests are done exits even if an SDK
	// still retries in the background (a failed fail-fast test), so a
	// regression fails in seconds rather than at suiteTimeout.
	args := append([]string{"--test", "--test-force-exit", "--test-reporter=spec"}, strings.Fields(os.Getenv("POME_NODE_FILES"))...)
	cmd := exec.CommandContext(ctx, node, args...)
	cmd.Env = append(os.Environ(), "POME_NODE_ENV="+string(raw), "NO_COLOR=1")
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("node --test did not finish within %s:\n%s", suiteTimeout, out)
	}
	if err != nil {
		t.Fatalf("node --test: %v\n%s", err, out)
	}
	if testing.Verbose() {
		t.Logf("%s", out)
	}
}

// stale reports whether node_modules is missing or older than the lockfile,
// so that npm ci runs once per lockfile change rather than on every test.
func stale(t *testing.T) bool {
	lock, err := os.Stat("package-lock.json")
	if err != nil {
		t.Fatalf("package-lock.json: %v", err)
	}
	mods, err := os.Stat(filepath.Join("node_modules", ".package-lock.json"))
	if err != nil {
		return true
	}
	return mods.ModTime().Before(lock.ModTime())
}
