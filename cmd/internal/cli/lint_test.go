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
	if r.code != ExitUsage || !strings.Contains(r.stdout, bad+`:17: criterion "[P] The note is cheerful" uses a retired tag (hint: write [model]: tags were renamed [D]→[code] and [P]→[model]`) ||
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
		{[]string{"--check", "notes.note-state", "--arg", "id=1"}, `missing parameter "state"`},
		{[]string{"--check", "notes.note-state", "--arg", "id=1", "--arg", "state=lost"}, `"state" = "lost" does not match kept|gone`},
	} {
		r := runCLI(t, append([]string{"checks", "add", path}, c.args...)...)
		if r.code != ExitUsage || !strings.Contains(r.stderr, c.msg) {
			t.Errorf("%v: %+v", c.args, r)
		}
	}
}

// --arg takes whatever parameters the check declares, by their names.
func TestChecksAddTakesTheCheckParameterNames(t *testing.T) {
	useRegistry(t, tasktest.Registry())
	path := filepath.Join(t.TempDir(), "t.md")
	os.WriteFile(path, []byte(notesTask), 0o644)
	r := runCLI(t, "checks", "add", path, "--check", "notes.note-state", "--arg", "state=gone", "--arg", "id=7")
	if r.code != ExitOK || r.stdout != "- [code:notes] Note #7 is gone\n" {
		t.Fatalf("%+v", r)
	}
	if r := runCLI(t, "checks", "lint", path); r.code != ExitOK || !strings.Contains(r.stdout, "ok (4 [code] and 1 [model]") {
		t.Errorf("%+v", r)
	}
	// The same check with the same arguments is refused, however tagged;
	// other arguments make another criterion.
	before, _ := os.ReadFile(path)
	r = runCLI(t, "checks", "add", path, "--check", "notes.note-state", "--arg", "state=gone", "--arg", "id=7", "--always-scored")
	if after, _ := os.ReadFile(path); r.code != ExitUsage || !strings.Contains(r.stderr, "already has this criterion: Note #7 is gone") || string(after) != string(before) {
		t.Errorf("%+v", r)
	}
	if r := runCLI(t, "checks", "add", path, "--check", "notes.note-state", "--arg", "state=kept", "--arg", "id=7"); r.code != ExitOK {
		t.Errorf("%+v", r)
	}
}

// Tasks in the original Pome's grammar lint as the original reads them.
func TestChecksLintOriginalGrammar(t *testing.T) {
	useRegistry(t, twins.NewRegistry(tasktest.Twin("github"), tasktest.Twin("board")))
	dir := filepath.Join("..", "..", "..", "task", "testdata", "original")
	file := func(n string) string { return filepath.Join(dir, n) }
	r := runCLI(t, "checks", "lint", file("defaults-and-aliases.md"), file("sidecar-wins.md"), file("compiled-prose.md"), file("several-twins.md"), file("stale-prose.md"))
	if r.code != ExitOK {
		t.Fatalf("%+v", r)
	}
	for _, want := range []string{
		file("defaults-and-aliases.md") + ": ok (2 [code] and 1 [model] criteria; twins github)",
		file("defaults-and-aliases.md") + ":21: warning: this list item has no [code] or [model] tag",
		file("sidecar-wins.md") + ": ok (2 [code] and 0 [model] criteria; twins github)",
		file("several-twins.md") + ": ok (2 [code] and 1 [model] criteria; twins github, board)",
		file("stale-prose.md") + ":11: warning: the Seed State prose changed since " + file("stale-prose.seed.json"),
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("lint lacks %q:\n%s", want, r.stdout)
		}
	}
	r = runCLI(t, "checks", "lint", file("several-twins-untagged.md"), file("prose-seed-uncompiled.md"), file("retired-tags.md"))
	if r.code != ExitUsage || !strings.Contains(r.stderr, "3 of 3 task file(s) have errors") {
		t.Fatalf("%+v", r)
	}
	for _, want := range []string{
		file("several-twins-untagged.md") + ":9: this task has several twins (github, board); tag the criterion with its twin (hint: it reads like [code:github]",
		file("prose-seed-uncompiled.md") + ":11: the Seed State section is prose",
		file("retired-tags.md") + `:10: criterion "[D:github] No new note was written" uses a retired tag (hint: write [code:github]`,
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("lint lacks %q:\n%s", want, r.stdout)
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
