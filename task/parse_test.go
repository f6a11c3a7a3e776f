package task

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pomehq/pome/task/tasktest"
)

const validTask = "# Write the release note\n" + // 1
	"## Setup\n" + // 2
	"Prose for humans, ignored. ## not a heading\n" + // 3
	"## Config\n" + // 4
	"```yaml\n" + // 5
	"twins: [notes]\n" + // 6
	"timeout: 2m\n" + // 7
	"runs: 3\n" + // 8
	"passThreshold: 50\n" + // 9
	"```\n" + // 10
	"## Seed State\n" + // 11
	"```json\n" + // 12
	`{"entries": [{"id": 1, "text": "draft v1"}], "next": 2}` + "\n" + // 13
	"```\n" + // 14
	"## Task\n" + // 15
	"Write a note that says \"released\".\n" + // 16
	"\n" + // 17
	"```\n" + // 18
	"## this fenced line is prompt text\n" + // 19
	"```\n" + // 20
	"## Checks\n" + // 21
	"- [code] A note contains \"released\"\n" + // 22
	"* [code:notes always-scored] A note contains \"draft\".\n" + // 23
	"<!-- a comment -->\n" + // 24
	"\n" + // 25
	"1. [code:notes] No new note was written\n" + // 26
	"- [model] The note is polite\n" + // 27
	"## Expected Behavior\n" + // 28
	"One create_note call.\n" // 29

func parse(t *testing.T, src string) (*Task, Errors) {
	t.Helper()
	tk, err := Parse("t.md", []byte(src), Options{Registry: tasktest.Registry()})
	if err == nil {
		return tk, nil
	}
	es := AsErrors(err)
	if es == nil {
		t.Fatalf("not a task error: %v", err)
	}
	return tk, es
}

func TestParseValidTask(t *testing.T) {
	tk, errs := parse(t, validTask)
	if errs != nil {
		t.Fatal(errs)
	}
	if tk.Title != "Write the release note" || tk.TitleLine != 1 {
		t.Errorf("title %q line %d", tk.Title, tk.TitleLine)
	}
	want := Config{Twins: []string{"notes"}, Timeout: 2 * time.Minute, Runs: 3, PassThreshold: 50}
	if strings.Join(tk.Config.Twins, ",") != "notes" || tk.Config.Timeout != want.Timeout || tk.Config.Runs != 3 || tk.Config.PassThreshold != 50 {
		t.Errorf("config %+v", tk.Config)
	}
	if !strings.Contains(string(tk.Seed["notes"]), `"draft v1"`) || tk.SeedFile != "t.md" {
		t.Errorf("seed %s from %q", tk.Seed["notes"], tk.SeedFile)
	}
	if !strings.HasPrefix(tk.Prompt, "Write a note") || !strings.Contains(tk.Prompt, "## this fenced line is prompt text") {
		t.Errorf("prompt %q", tk.Prompt)
	}
	if tk.Expected != "One create_note call." {
		t.Errorf("expected %q", tk.Expected)
	}
	if len(tk.Criteria) != 4 {
		t.Fatalf("criteria %+v", tk.Criteria)
	}
	c := tk.Criteria
	if c[0].Line != 22 || c[0].Kind != Code || c[0].Twin != "notes" || c[0].Check.ID != "notes.note-contains" || c[0].Args["text"] != "released" || c[0].AlwaysScored {
		t.Errorf("criterion 0 %+v", c[0])
	}
	if c[1].Line != 23 || !c[1].AlwaysScored || c[1].Args["text"] != "draft" {
		t.Errorf("criterion 1 (trailing period forgiven) %+v", c[1])
	}
	if c[2].Line != 26 || c[2].Check.ID != "notes.no-new-notes" {
		t.Errorf("criterion 2 %+v", c[2])
	}
	if c[3].Kind != Model || c[3].Text != "The note is polite" || c[3].Check != nil {
		t.Errorf("criterion 3 %+v", c[3])
	}
}

func TestParseDefaultsAndJSONConfig(t *testing.T) {
	tk, errs := parse(t, "# T\n## Config\n```json\n{\"twins\": \"notes\", \"timeout\": 90}\n```\n## Prompt\nDo it.\n## Success Criteria\n- [code] No new note was written\n")
	if errs != nil {
		t.Fatal(errs)
	}
	if tk.Config.Timeout != 90*time.Second || tk.Config.Runs != 1 || tk.Config.PassThreshold != 100 || tk.Seed != nil {
		t.Errorf("%+v seed %v", tk.Config, tk.Seed)
	}
}

func TestParseEnvelopeSeedForSeveralTwins(t *testing.T) {
	src := "# T\n## Config\n```yaml\ntwins: [notes, board]\n```\n## Seed State\n```json\n" +
		`{"clock": "2026-01-05T09:00:00Z", "board": {"entries": [{"id": 1, "text": "x"}]}}` + "\n```\n## Prompt\nGo.\n## Success Criteria\n" +
		"- [code:board] A note contains \"x\"\n- [code:notes] No new note was written\n"
	tk, errs := parse(t, src)
	if errs != nil {
		t.Fatal(errs)
	}
	if _, ok := tk.Seed["notes"]; ok || tk.Seed["board"] == nil || string(tk.Seed["clock"]) != `"2026-01-05T09:00:00Z"` {
		t.Errorf("seed %v", tk.Seed)
	}
	if tk.Criteria[0].Twin != "board" || tk.Criteria[1].Twin != "notes" {
		t.Errorf("%+v", tk.Criteria)
	}
}

func TestParseFileReadsSiblingSeed(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "triage.md")
	os.WriteFile(path, []byte("# T\n## Config\n```yaml\ntwins: [notes]\n```\n## Prompt\nGo.\n## Success Criteria\n- [code] A note contains \"y\"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "triage.seed.json"), []byte(`{"entries":[{"id":1,"text":"y"}]}`), 0o644)
	tk, err := ParseFile(path, tasktest.Registry())
	if err != nil {
		t.Fatal(err)
	}
	if tk.SeedFile != filepath.Join(dir, "triage.seed.json") || !strings.Contains(string(tk.Seed["notes"]), `"y"`) {
		t.Errorf("seed %s from %s", tk.Seed["notes"], tk.SeedFile)
	}

	// A bad sibling seed is reported against the sibling file.
	os.WriteFile(filepath.Join(dir, "triage.seed.json"), []byte(`{"entries":[{"id":1}]}`), 0o644)
	_, err = ParseFile(path, tasktest.Registry())
	if es := AsErrors(err); len(es) != 1 || es[0].File != filepath.Join(dir, "triage.seed.json") || !strings.Contains(es[0].Msg, "/entries/0/text") {
		t.Errorf("got %v", err)
	}
}

// head is a valid start for error tests: one twin, criteria follow.
const head = "# T\n## Config\n```yaml\ntwins: [notes]\n```\n## Prompt\nGo.\n## Success Criteria\n" // criteria start at line 9

const head2 = "# T\n## Config\n```yaml\ntwins: [notes, board]\n```\n## Prompt\nGo.\n## Success Criteria\n"

func TestParseErrors(t *testing.T) {
	cases := []struct {
		name string
		src  string
		line int
		msg  string // substring of the message
		hint string // substring of the hint
	}{
		{"unbound", head + "- [code] The moon is made of cheese\n", 9, "binds to no notes check", "pome checks notes"},
		{"unbound close wording", head + "- [code] A note contain \"x\"\n", 9, "binds to no notes check", `closest template: "A note contains`},
		{"param pattern", head + "- [code] A note contains \"say \"hi\"\"\n", 9, "binds to no notes check", "notes.note-contains"},
		{"twin not in task", head + "- [code:board] A note contains \"x\"\n", 9, `twin "board" is not in this task's twins (notes)`, "add it to twins"},
		{"unknown twin tag", head + "- [code:jira] A note contains \"x\"\n", 9, `unknown twin "jira"`, "notes, board"},
		{"missing tag multi-twin", head2 + "- [code] A note contains \"x\"\n", 9, "several twins (notes, board)", "[code:notes]"},
		{"legacy D", head + "- [D] Issue #1 is closed\n", 9, `"[D] Issue #1 is closed" uses a retired tag`, "write [code]: tags were renamed [D]→[code] and [P]→[model]"},
		{"legacy P", head + "- [P] Was polite\n", 9, "uses a retired tag", "write [model]"},
		{"legacy D with twin", head + "- [D:notes] No new note was written\n", 9, `"[D:notes] No new note was written" uses a retired tag`, "write [code:notes]"},
		{"unknown option", head + "- [code always] No new note was written\n", 9, `unknown option "always"`, "always-scored"},
		{"model twin unknown", head + "- [model:jira] polite\n", 9, `unknown twin "jira"`, ""},
		{"model twin not in task", head + "- [model:board] polite\n", 9, `twin "board" is not in this task's twins`, ""},
		{"model always-scored", head + "- [model always-scored] polite\n", 9, "cannot be always-scored", "judged from the run"},
		{"model option", head + "- [model loud] polite\n", 9, `unknown option "loud"`, ""},
		{"near miss no space", head + "-[code] No new note was written\n", 9, "reaches for a criterion tag", "[code:twin always-scored]"},
		{"near miss unclosed", head + "- [code No new note was written\n", 9, "reaches for a criterion tag", ""},
		{"empty text", head + "- [code]\n", 9, "has no text", ""},
		{"no criteria", head + "\n", 8, "has no criteria", ""},
		{"config unknown key", "# T\n## Config\n```yaml\ntwins: [notes]\npass_threshold: 5\n```\n## Prompt\nGo.\n## Success Criteria\n- [code] No new note was written\n", 5, `unknown config key "pass_threshold"`, "passThreshold"},
		{"config threshold range", "# T\n## Config\n```yaml\ntwins: [notes]\npassThreshold: 120\n```\n## Prompt\nGo.\n## Success Criteria\n- [code] No new note was written\n", 5, "passThreshold must be a number from 0 to 100", ""},
		{"config runs", "# T\n## Config\n```yaml\ntwins: [notes]\nruns: 0\n```\n## Prompt\nGo.\n## Success Criteria\n- [code] No new note was written\n", 5, "runs must be", ""},
		{"config timeout", "# T\n## Config\n```yaml\ntwins: [notes]\ntimeout: soon\n```\n## Prompt\nGo.\n## Success Criteria\n- [code] No new note was written\n", 5, "timeout", ""},
		{"config no twins", "# T\n## Config\n```yaml\ntimeout: 5\n```\n## Prompt\nGo.\n## Success Criteria\n", 3, "the default twin github is not offered here", "twins: [notes, board]"},
		{"config class", "# T\n## Config\n```yaml\ntwins: [notes]\nclass: sneaky\n```\n## Prompt\nGo.\n## Success Criteria\n- [code] No new note was written\n", 5, "class must be conformance, restraint or adversarial", ""},
		{"config class not a word", "# T\n## Config\n```yaml\ntwins: [notes]\nclass: [restraint]\n```\n## Prompt\nGo.\n## Success Criteria\n- [code] No new note was written\n", 5, "class must be", ""},
		{"config unknown twin", "# T\n## Config\n```yaml\ntwins: [notes, jira]\n```\n## Prompt\nGo.\n## Success Criteria\n- [model] ok\n", 4, `unknown twin "jira"`, ""},
		{"config bad yaml", "# T\n## Config\n```yaml\ntwins: [notes\n```\n## Prompt\nGo.\n## Success Criteria\n- [model] ok\n", 3, "not valid YAML", ""},
		{"config two blocks", "# T\n## Config\n```yaml\ntwins: [notes]\n```\n```yaml\nruns: 2\n```\n## Prompt\nGo.\n## Success Criteria\n- [model] ok\n", 2, "exactly one fenced", ""},
		{"no config, no github", "# T\n## Prompt\nGo.\n## Success Criteria\n- [model] ok\n", 0, "the default twin github is not offered here", ""},
		{"no prompt", "# T\n## Config\n```yaml\ntwins: [notes]\n```\n## Success Criteria\n- [model] ok\n", 0, "no \"## Prompt\" section", ""},
		{"no criteria section", "# T\n## Config\n```yaml\ntwins: [notes]\n```\n## Prompt\nGo.\n", 0, "no \"## Success Criteria\" section", ""},
		{"duplicate section", head + "- [model] ok\n## Prompt\nagain\n", 10, "a second Prompt section", ""},
		{"seed invalid", "# T\n## Config\n```yaml\ntwins: [notes]\n```\n## Seed State\n```json\n{\"entries\": [{\"id\": 1}]}\n```\n## Prompt\nGo.\n## Success Criteria\n- [model] ok\n", 7, "the notes seed is invalid at /entries/0/text: a note needs text", ""},
		{"seed unknown key", "# T\n## Config\n```yaml\ntwins: [notes]\n```\n## Seed State\n```json\n{\"bogus\": 1}\n```\n## Prompt\nGo.\n## Success Criteria\n- [model] ok\n", 7, "notes seed is invalid at /bogus", ""},
		{"seed not json", "# T\n## Config\n```yaml\ntwins: [notes]\n```\n## Seed State\n```json\n[1]\n```\n## Prompt\nGo.\n## Success Criteria\n- [model] ok\n", 7, "must be a JSON object", ""},
		{"seed flat for several twins", "# T\n## Config\n```yaml\ntwins: [notes, board]\n```\n## Seed State\n```json\n{\"entries\": []}\n```\n## Prompt\nGo.\n## Success Criteria\n- [model] ok\n", 7, "seed envelope", ""},
		{"seed other twin in envelope", "# T\n## Config\n```yaml\ntwins: [notes]\n```\n## Seed State\n```json\n{\"notes\": {}, \"board\": {}}\n```\n## Prompt\nGo.\n## Success Criteria\n- [model] ok\n", 7, `board is not in this task's twins`, ""},
		{"seed two blocks", "# T\n## Config\n```yaml\ntwins: [notes]\n```\n## Seed State\n```json\n{}\n```\n```json\n{}\n```\n## Prompt\nGo.\n## Success Criteria\n- [model] ok\n", 6, "exactly one fenced JSON block, found 2", "t.seed.json, which wins"},
		{"seed yaml block", "# T\n## Config\n```yaml\ntwins: [notes]\n```\n## Seed State\n```yaml\nentries: []\n```\n## Prompt\nGo.\n## Success Criteria\n- [model] ok\n", 7, `the seed block is "yaml"`, ""},
		{"seed envelope unknown key", "# T\n## Config\n```yaml\ntwins: [notes]\n```\n## Seed State\n```json\n{\"notes\": {}, \"bogus\": {}}\n```\n## Prompt\nGo.\n## Success Criteria\n- [model] ok\n", 7, `unknown key "bogus" in the seed envelope`, ""},
		{"seed clock", "# T\n## Config\n```yaml\ntwins: [notes]\n```\n## Seed State\n```json\n{\"notes\": {}, \"clock\": \"noon\"}\n```\n## Prompt\nGo.\n## Success Criteria\n- [model] ok\n", 7, "RFC 3339", ""},
		{"unclosed fence", "# T\n## Config\n```yaml\ntwins: [notes]\n", 5, "never closed", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, errs := parse(t, c.src)
			for _, e := range errs {
				if e.Line == c.line && strings.Contains(e.Msg, c.msg) && strings.Contains(e.Hint, c.hint) {
					if e.File != "t.md" {
						t.Errorf("file %q", e.File)
					}
					return
				}
			}
			t.Errorf("want line %d %q (hint %q), got:\n%v", c.line, c.msg, c.hint, errs)
		})
	}
}

func TestParseReportsEveryError(t *testing.T) {
	_, errs := parse(t, head+"- [D] x\n- [code] nope\n- [code:board] No new note was written\n")
	if len(errs) != 3 || errs[0].Line != 9 || errs[1].Line != 10 || errs[2].Line != 11 {
		t.Fatalf("%v", errs)
	}
	if got := errs.Error(); !strings.HasPrefix(got, `t.md:9: criterion "[D] x" uses a retired tag`) {
		t.Errorf("rendered %q", got)
	}
}

func TestSkipSeedIgnoresSeed(t *testing.T) {
	src := "# T\n## Config\n```yaml\ntwins: [notes]\n```\n## Seed State\n```json\n{\"bogus\": 1}\n```\n## Prompt\nGo.\n## Success Criteria\n- [model] ok\n"
	if _, err := Parse("t.md", []byte(src), Options{Registry: tasktest.Registry(), SkipSeed: true}); err != nil {
		t.Fatal(err)
	}
}
