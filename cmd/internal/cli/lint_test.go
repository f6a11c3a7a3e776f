package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pomehq/pome/task/tasktest"
	"github.com/pomehq/pome/twins"
)

func useRegistry(t *testing.T, reg *twins.Registry) {
	t.Helper()
	isolate(t)
	old := taskRegistry
	taskRegistry = func() *twins.Registry { return reg }
	t.Cleanup(func() { taskRegistry = old })
}

func TestChecksLint(t *testing.T) {
	useRegistry(t, tasktest.Registry())
	dir := t.TempDir()
	good := filepath.Join(dir, "good.md")
	os.WriteFile(good, []byte(notesTask), 0o644)
	bad := filepath.Join(dir, "bad.md")
	os.WriteFile(bad, []byte(strings.Replace(notesTask, "- [model] The note is cheerful\n", "- [P] The note is cheerful\n- [code] The `create_nope` tool was called on notes\n", 1)), 0o644)

	r := runCLI(t, "checks", "lint", good)
	if r.code != ExitOK || !strings.Contains(r.stdout, good+": ok (3 [code] and 1 [model] criteria; twins notes)") ||
		!strings.Contains(r.stdout, good+":15: warning: criterion is already true in the seed") {
		t.Fatalf("%+v", r)
	}
	r = runCLI(t, "checks", "lint", good, bad)
	if r.code != ExitUsage || !strings.Contains(r.stdout, bad+":17: the [P] tag is no longer supported (hint: write [model]") ||
		!strings.Contains(r.stderr, "1 of 2 task file(s) have errors") {
		t.Fatalf("%+v", r)
	}
	// A check that cannot be evaluated (unknown tool) is caught without a run.
	os.WriteFile(bad, []byte(strings.Replace(notesTask, "- [model] The note is cheerful\n", "- [code] The `create_nope` tool was called on notes\n", 1)), 0o644)
	r = runCLI(t, "checks", "lint", bad)
	if r.code != ExitUsage || !strings.Contains(r.stdout, bad+":17: error: criterion cannot be evaluated: notes has no action \"create_nope\"") {
		t.Fatalf("%+v", r)
	}
}

func TestChecksAdd(t *testing.T) {
	useRegistry(t, tasktest.Registry())
	path := filepath.Join(t.TempDir(), "t.md")
	os.WriteFile(path, []byte(notesTask+"## Expected Behavior\nOne call.\n"), 0o644)

	r := runCLI(t, "checks", "add", path, "--check", "notes.note-contains", "--arg", "text=v2", "--always-scored")
	if r.code != ExitOK || r.stdout != "- [code:notes always-scored] A note contains \"v2\"\n" {
		t.Fatalf("%+v", r)
	}
	data, _ := os.ReadFile(path)
	if !strings.Contains(string(data), "- [model] The note is cheerful\n- [code:notes always-scored] A note contains \"v2\"\n## Expected Behavior") {
		t.Errorf("file:\n%s", data)
	}
	if r := runCLI(t, "checks", "lint", path); r.code != ExitOK {
		t.Errorf("the added line does not lint: %+v", r)
	}
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--check", "notes.note-contains"}, `missing parameter "text"`},
		{[]string{"--check", "notes.note-contains", "--arg", "text=a\"b"}, "does not match"},
		{[]string{"--check", "notes.note-contains", "--arg", "txt=a"}, `no parameter "txt"`},
		{[]string{"--check", "board.note-contains", "--arg", "text=a"}, "not in this task's twins"},
		{[]string{"--check", "notes.nope"}, `no check "notes.nope"`},
	} {
		r := runCLI(t, append([]string{"checks", "add", path}, c.args...)...)
		if r.code != ExitUsage || !strings.Contains(r.stderr, c.msg) {
			t.Errorf("%v: %+v", c.args, r)
		}
	}
}

func TestChecksAddCreatesSection(t *testing.T) {
	useRegistry(t, tasktest.Registry())
	path := filepath.Join(t.TempDir(), "t.md")
	os.WriteFile(path, []byte("# New\n## Config\n```yaml\ntwins: [notes]\n```\n## Prompt\nGo.\n"), 0o644)
	if r := runCLI(t, "checks", "add", path, "--check", "notes.no-new-notes"); r.code != ExitOK {
		t.Fatalf("%+v", r)
	}
	data, _ := os.ReadFile(path)
	if !strings.HasSuffix(string(data), "Go.\n\n## Success Criteria\n- [code:notes] No new note was written\n") {
		t.Errorf("file:\n%s", data)
	}
}
