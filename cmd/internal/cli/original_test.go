package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/pomehq/pome/task"
	"github.com/pomehq/pome/task/tasktest"
	"github.com/pomehq/pome/twins"
)

// A notebook twin that, like the vendor twins, carries an example seed in
// each format; "board" has none in the original's.
func twoFormatRegistry() *twins.Registry {
	notes := tasktest.Twin("notes")
	notes.SeedExample = `{"entries": [{"id": 1, "text": "ours"}], "next": 2}`
	notes.SeedExampleOriginal = `{"_meta": {"version": 1, "model": "hand-authored"}, "entries": [{"id": 1, "text": "theirs"}]}`
	return twins.NewRegistry(notes, tasktest.Twin("board"))
}

func TestTwinsSeedExampleFormats(t *testing.T) {
	startPome(t, twoFormatRegistry())
	r := runCLI(t, "twins", "notes", "--seed-example", "--format", "original")
	var doc map[string]any
	if r.code != ExitOK || json.Unmarshal([]byte(r.stdout), &doc) != nil || doc["_meta"] == nil || !strings.Contains(r.stdout, "theirs") {
		t.Fatalf("%+v", r)
	}
	if r := runCLI(t, "twins", "notes", "--seed-example"); r.code != ExitOK || !strings.Contains(r.stdout, "ours") {
		t.Errorf("%+v", r)
	}
	if r := runCLI(t, "twins", "notes", "--seed-example", "--format", "pome"); r.code != ExitOK || !strings.Contains(r.stdout, "ours") {
		t.Errorf("%+v", r)
	}
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"twins", "board", "--seed-example", "--format", "original"}, "the board twin has no example in the original Pome's seed format"},
		{[]string{"twins", "notes", "--seed-example", "--format", "yaml"}, "--format is pome or original"},
		{[]string{"twins", "notes", "--format", "original"}, "--format goes with --seed-example"},
	} {
		if r := runCLI(t, c.args...); r.code != ExitUsage || !strings.Contains(r.stderr, c.msg) {
			t.Errorf("%v: %+v", c.args, r)
		}
	}
}

// `pome checks TWIN` lists every check the twin declares, with the
// parameter names `checks add --arg` takes.
func TestChecksListsEveryCheckWithItsParams(t *testing.T) {
	reg := twoFormatRegistry()
	startPome(t, reg)
	r := runCLI(t, "checks", "notes")
	if r.code != ExitOK {
		t.Fatalf("%+v", r)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	tw, _ := reg.Get("notes")
	if len(lines) != len(tw.Checks)+1 || strings.Join(strings.Fields(lines[0]), " ") != "ID POLARITY SUBSTRATE PARAMS TEMPLATE" {
		t.Fatalf("%d checks, got:\n%s", len(tw.Checks), r.stdout)
	}
	for _, c := range tw.Checks {
		if !strings.Contains(r.stdout, c.ID) {
			t.Errorf("lacks %s", c.ID)
		}
	}
	for _, l := range lines {
		if f := strings.Fields(l); f[0] == "notes.note-state" && f[3] != "id,state" {
			t.Errorf("params column %q", l)
		}
	}
}

func TestServerRoot(t *testing.T) {
	sb := &CreatedSandbox{SessionID: "ses_a", PerTwin: map[string]TwinEndpoints{"stripe": {APIURL: "https://pome.example/base/stripe/s/ses_a"}}}
	if got := serverRoot(sb, "http://127.0.0.1:7070/"); got != "https://pome.example/base" {
		t.Errorf("from the twin's address: %q", got)
	}
	// An address of another layout says nothing: the CLI's server is the root.
	sb.PerTwin["stripe"] = TwinEndpoints{APIURL: "https://elsewhere.example/v1"}
	if got := serverRoot(sb, "http://127.0.0.1:7070/"); got != "http://127.0.0.1:7070" {
		t.Errorf("fallback: %q", got)
	}
}

// `pome run --help` documents the agent's environment from the lists the
// runner uses, so that the two cannot drift apart.
func TestRunHelpNamesTheAgentEnvironment(t *testing.T) {
	isolate(t)
	r := runCLI(t, "run", "--help")
	help := strings.Join(strings.Fields(r.stdout), " ")
	for _, want := range append(append([]string{"POME_AGENT_ENV_ALLOWLIST=A,B", "POME_INHERIT_AGENT_ENV=1", "POME_STRIPE_API_BASE", "POME_GITHUB_HOST", "POME_GMAIL_ROOT_URL", "POME_TWIN_BASE_URL", "state_initial.json"},
		task.SafeParentEnv...), task.ModelProviderEnv...) {
		if !strings.Contains(help, want) {
			t.Errorf("help lacks %s", want)
		}
	}
	long, _, _ := strings.Cut(r.stdout, "Usage:")
	for _, l := range strings.Split(long, "\n") {
		if len(l) > 80 {
			t.Errorf("line of %d columns: %q", len(l), l)
		}
	}
}
