package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pomehq/pome/task/tasktest"
)

const strictTask = "# File the status note\n" +
	"## Config\n```yaml\ntwins: [notes]\n```\n" +
	"## Seed State\n```json\n{\"entries\": [], \"next\": 1}\n```\n" +
	"## Prompt\nWrite one note saying released.\n" +
	"## Expected Behavior\nOne note, and nothing else.\n" +
	"## Success Criteria\n" +
	"- [code] A note contains \"released\"\n" +
	"- [code] The `create_note` tool was called on notes\n" +
	"- [code] Nothing was changed on notes\n"

const wrongAgent = `if [ -n "$POME_PREFLIGHT" ]; then exit 0; fi
echo "posting the note"
curl -sf -X POST "$POME_NOTES_REST_URL/notes" -H "Authorization: Bearer $POME_NOTES_TOKEN" -H 'Content-Type: application/json' -d '{"text":"pending"}'
`

// writeNamedTask writes a task file under a name of its own.
func writeNamedTask(t *testing.T, name, src string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestFixPromptExplainsTheNewestFailedRun(t *testing.T) {
	startPome(t, tasktest.Registry())
	runs := t.TempDir()
	failed := runOnce(t, writeNamedTask(t, "status.md", strictTask), agentScript(t, wrongAgent), runs, ExitFail)
	// A newer run of another task passed: the failure is still the one.
	runOnce(t, writeTask(t, notesTask), agentScript(t, passingAgent), runs, ExitOK)
	offline(t)

	r := runCLI(t, "fix-prompt", runs)
	if r.code != ExitOK {
		t.Fatalf("%+v", r)
	}
	for _, want := range []string{
		"# Fix the agent: File the status note\n",
		"twins of notes",
		"## Task\nFile the status note (",
		"## What the agent was told\nWrite one note saying released.\n",
		"## Expected behaviour\nOne note, and nothing else.\n",
		"## Verdict\nfail: score 33.33, 1 of 3 evaluated criteria passed (threshold 100)\nrun " + failed,
		"### 1. [notes] A note contains \"released\"\nExpected: check notes.note-contains (text=\"released\") holds on the final state and tape.\nFound: none of 1 notes contains \"released\"\nState it read: /entries\nEvidence rows: none cited\n",
		"### 2. [notes] Nothing was changed on notes\n",
		"Evidence rows:\n  1 notes rest POST /notes → 201 (",
		"    request:  {\"text\":\"pending\"}\n",
		"## What the agent did instead\n1 call to the twins, 1 of them changing state:\n",
		"The agent exited 0 after ",
		"Agent output (end):\n```\nposting the note",
		"## Criteria that passed (keep them passing)\n- The `create_note` tool was called on notes\n",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("prompt lacks %q:\n%s", want, r.stdout)
		}
	}
	// The run directory itself gives the same prompt.
	if o := runCLI(t, "fix-prompt", failed); o.code != ExitOK || o.stdout != r.stdout {
		t.Errorf("by run dir: %+v", o)
	}
}

func TestFixPromptNothingToFixAndIncomplete(t *testing.T) {
	startPome(t, tasktest.Registry())
	runs := t.TempDir()
	path := writeTask(t, notesTask)
	runOnce(t, path, agentScript(t, passingAgent), runs, ExitOK)
	r := runCLI(t, "fix-prompt", runs)
	if r.code != ExitOK || r.stdout != "" || !strings.Contains(r.stderr, "Nothing to fix: the newest run of every task under "+runs+" passed") {
		t.Errorf("all passed: %+v", r)
	}

	// A failure, then a run that could not be graded: the newest counts.
	runOnce(t, path, "true", runs, ExitFail)
	incomplete := runOnce(t, path, agentScript(t, "exit 3\n"), runs, ExitOrchestration)
	r = runCLI(t, "fix-prompt", runs)
	if r.code != ExitFail || r.stdout != "" || !strings.Contains(r.stderr, "the newest run of announce ("+incomplete+") is incomplete") ||
		!strings.Contains(r.stderr, "the agent failed its preflight") || !strings.Contains(r.stderr, "pome inspect "+incomplete) {
		t.Errorf("incomplete: %+v", r)
	}
	if r := runCLI(t, "fix-prompt", incomplete); r.code != ExitFail {
		t.Errorf("incomplete run dir: %+v", r)
	}
}

func TestFixPromptTaskFilterAndBadInput(t *testing.T) {
	startPome(t, tasktest.Registry())
	runs := t.TempDir()
	status := writeNamedTask(t, "status.md", strictTask)
	runOnce(t, status, agentScript(t, wrongAgent), runs, ExitFail)
	one := runOnce(t, writeTask(t, notesTask), "true", runs, ExitFail)
	offline(t)
	// The newest failure is announce's; TASK picks status.
	if r := runCLI(t, "fix-prompt", runs); r.code != ExitOK || !strings.Contains(r.stdout, "# Fix the agent: Announce the release") {
		t.Errorf("newest: %+v", r)
	}
	for _, arg := range []string{"status", status} {
		if r := runCLI(t, "fix-prompt", runs, arg); r.code != ExitOK || !strings.Contains(r.stdout, "# Fix the agent: File the status note") {
			t.Errorf("TASK %s: %+v", arg, r)
		}
	}
	for name, c := range map[string]struct {
		args []string
		want string
	}{
		"no runs of task": {[]string{runs, "missing"}, "holds no runs of task missing"},
		"run and task":    {[]string{one, "status"}, "is one run already"},
		"empty folder":    {[]string{t.TempDir()}, "holds no runs"},
		"no folder":       {[]string{filepath.Join(runs, "gone")}, "no such file or directory"},
		"three args":      {[]string{runs, "a", "b"}, "accepts at most 2 arg"},
	} {
		r := runCLI(t, append([]string{"fix-prompt"}, c.args...)...)
		if r.code != ExitUsage || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%s: %+v", name, r)
		}
	}
}
