package task

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pomehq/pome/task/tasktest"
	"github.com/pomehq/pome/twins"
)

// originalRegistry has a notebook named github, so that tasks written in
// the original Pome's grammar, whose twins default to [github], parse.
func originalRegistry() *twins.Registry {
	return twins.NewRegistry(tasktest.Twin("github"), tasktest.Twin("board"))
}

func parseFixture(t *testing.T, name string) (*Task, Errors) {
	t.Helper()
	tk, err := ParseFile(filepath.Join("testdata", "original", name), originalRegistry())
	if err == nil {
		return tk, nil
	}
	es := AsErrors(err)
	if es == nil {
		t.Fatalf("not a task error: %v", err)
	}
	return tk, es
}

func TestOriginalDefaultsAndAliases(t *testing.T) {
	tk, errs := parseFixture(t, "defaults-and-aliases.md")
	if errs != nil {
		t.Fatal(errs)
	}
	c := tk.Config
	if strings.Join(c.Twins, ",") != "github" || c.Timeout != 60*time.Second || c.Class != ClassRestraint || c.Runs != 2 || c.PassThreshold != 100 {
		t.Errorf("config %+v", c)
	}
	if !strings.HasPrefix(tk.Prompt, "Read the notebook") {
		t.Errorf("## Task is the prompt: %q", tk.Prompt)
	}
	// "## Checks" holds the criteria; its prose, the task-list box and the
	// untagged bullet are not criteria.
	if len(tk.Criteria) != 3 || tk.Criteria[0].Check.ID != "github.no-new-notes" || !tk.Criteria[1].AlwaysScored || tk.Criteria[2].Kind != Model {
		t.Fatalf("criteria %+v", tk.Criteria)
	}
	// The untagged bullet reads like a forgotten criterion: a warning
	// says it is not graded; the prose line and the box get none.
	if len(tk.Warnings) != 1 || !strings.Contains(tk.Warnings[0].Msg, "the agent should be quick") || !tk.Warnings[0].Warning {
		t.Errorf("warnings %+v", tk.Warnings)
	}
}

func TestOriginalNoConfigSection(t *testing.T) {
	tk, err := Parse("t.md", []byte("# T\n## Task\nGo.\n## Checks\n- [code] No new note was written\n"), Options{Registry: originalRegistry()})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(tk.Config.Twins, ",") != "github" || tk.Config.Timeout != DefaultTimeout || tk.Config.Class != "" {
		t.Errorf("%+v", tk.Config)
	}
}

func TestOriginalSidecarWinsOverProse(t *testing.T) {
	tk, errs := parseFixture(t, "sidecar-wins.md")
	if errs != nil {
		t.Fatal(errs)
	}
	if tk.SeedFile != filepath.Join("testdata", "original", "sidecar-wins.seed.json") {
		t.Errorf("seed from %q", tk.SeedFile)
	}
	seed := string(tk.Seed["github"])
	if !strings.Contains(seed, "Q3 review: open items") || strings.Contains(seed, "_meta") {
		t.Errorf("seed %s", seed)
	}
	if len(tk.Warnings) != 0 {
		t.Errorf("a hand-authored sidecar is never stale: %+v", tk.Warnings)
	}
	if tk.Config.Class != ClassConformance || tk.Config.Timeout != 90*time.Second {
		t.Errorf("%+v", tk.Config)
	}
	// The sidecar wins over an inline JSON section too.
	src := "# T\n## Config\n```yaml\ntwins: [github]\n```\n## Seed State\n```json\n{\"bogus\": 1}\n```\n## Prompt\nGo.\n## Success Criteria\n- [code] A note contains \"y\"\n"
	tk, err := Parse("t.md", []byte(src), Options{Registry: originalRegistry(), SeedFile: []byte(`{"entries":[{"id":1,"text":"y"}]}`), SeedFileName: "t.seed.json"})
	if err != nil || !strings.Contains(string(tk.Seed["github"]), `"y"`) || tk.SeedFile != "t.seed.json" {
		t.Fatalf("%v %s", err, tk.Seed["github"])
	}
}

func TestOriginalSourceHash(t *testing.T) {
	// The hash the original's compile-seeds wrote for this prose, computed
	// with its own algorithm (Node's crypto over the trimmed section).
	fresh, errs := parseFixture(t, "compiled-prose.md")
	if errs != nil {
		t.Fatal(errs)
	}
	const want = "sha256:f5814d80bf74cc8834b09a3682f38ca6a84084eb814ba552524a54ae91cf51d9"
	if got := ProseSeedHash(fresh.Source); got != want {
		t.Errorf("hash %s, want %s", got, want)
	}
	if len(fresh.Warnings) != 0 {
		t.Errorf("fresh sidecar: %+v", fresh.Warnings)
	}
	stale, errs := parseFixture(t, "stale-prose.md")
	if errs != nil {
		t.Fatal(errs)
	}
	// Only the title changed outside the section in the fixture; the
	// section's one changed word is what the warning is about.
	if len(stale.Warnings) != 1 || stale.Warnings[0].Line != 11 || !strings.Contains(stale.Warnings[0].Msg, "changed since") ||
		!strings.Contains(stale.Warnings[0].Msg, want) {
		t.Fatalf("warnings %+v", stale.Warnings)
	}
	if !strings.Contains(string(stale.Seed["github"]), "stand-up at 09:30") {
		t.Errorf("the compiled seed still runs: %s", stale.Seed["github"])
	}
	// A warning is a lint finding, not an error.
	fs := Lint(stale, originalRegistry())
	found := false
	for _, f := range fs {
		if f.Warning && strings.Contains(f.Msg, "changed since") {
			found = true
		}
		if !f.Warning {
			t.Errorf("error finding %+v", f)
		}
	}
	if !found {
		t.Errorf("lint %+v", fs)
	}
}

func TestProseSeedHashSection(t *testing.T) {
	base := "# T\n\n## Seed State\n\n  Two notes.  \n\n### Notes\n- one\n\n## Config\nx\n"
	h := ProseSeedHash([]byte(base))
	if h == "" || h != ProseSeedHash([]byte(strings.Replace(base, "## Config\nx", "## Config\ny", 1))) {
		t.Errorf("text after the next ## heading is not the section")
	}
	if h == ProseSeedHash([]byte(strings.Replace(base, "- one", "- two", 1))) {
		t.Errorf("a ### heading does not end the section")
	}
	if h != ProseSeedHash([]byte(strings.Replace(base, "## Seed State", "##  SEED STATE  ", 1))) {
		t.Errorf("the heading is matched case-insensitively, whatever its spacing")
	}
	if ProseSeedHash([]byte("# T\n## Seed State notes\nx\n")) != "" {
		t.Errorf("a longer heading is another section")
	}
}

func TestOriginalSeveralTwins(t *testing.T) {
	tk, errs := parseFixture(t, "several-twins.md")
	if errs != nil {
		t.Fatal(errs)
	}
	if _, ok := tk.Seed["_meta"]; ok || tk.Seed["github"] == nil || tk.Seed["board"] != nil {
		t.Errorf("seed %v", tk.Seed)
	}
	if tk.Criteria[0].Twin != "board" || tk.Criteria[1].Twin != "github" || tk.Criteria[2].Kind != Model || tk.Criteria[2].Twin != "board" {
		t.Errorf("criteria %+v", tk.Criteria)
	}

	// As in the original, a [code] line of a task with several twins
	// names its twin; the hint says which one it reads like.
	_, errs = parseFixture(t, "several-twins-untagged.md")
	if len(errs) != 1 || errs[0].Line != 9 || !strings.Contains(errs[0].Msg, "several twins (github, board)") || !strings.Contains(errs[0].Hint, "[code:github]") {
		t.Errorf("%v", errs)
	}
}

func TestOriginalSeedEnvelopes(t *testing.T) {
	one := "# T\n## Config\n```yaml\ntwins: [github]\n```\n## Prompt\nGo.\n## Success Criteria\n- [model] ok\n"
	two := strings.Replace(one, "[github]", "[github, board]", 1)
	cases := []struct {
		name, src, seed string
		want            map[string]string // twin → substring of its seed; "" : absent
		err             string
	}{
		{"flat with _meta", one, `{"_meta": {"version": 1}, "entries": [{"id": 1, "text": "a"}]}`, map[string]string{"github": `"a"`}, ""},
		{"envelope with _meta, one twin", one, `{"_meta": {}, "github": {"entries": [{"id": 1, "text": "b"}]}}`, map[string]string{"github": `"b"`}, ""},
		{"only _meta", one, `{"_meta": {"model": "hand-authored"}}`, map[string]string{"github": ""}, ""},
		{"envelope, several twins", two, `{"_meta": {}, "board": {"entries": [{"id": 1, "text": "c"}]}, "clock": "2026-03-01T09:00:00Z"}`, map[string]string{"board": `"c"`, "github": "", "clock": "2026"}, ""},
		{"flat for several twins", two, `{"_meta": {}, "entries": []}`, nil, `several twins needs a seed envelope {"github": {…}, "board": {…}}; "entries"`},
		{"another twin's seed", one, `{"board": {"entries": []}}`, nil, `the seed has a "board" document, but board is not in this task's twins (github)`},
		{"twin seed still strict", one, `{"_meta": {}, "entries": [{"id": 1}]}`, nil, "the github seed is invalid at /entries/0/text"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tk, err := Parse("t.md", []byte(c.src), Options{Registry: originalRegistry(), SeedFile: []byte(c.seed), SeedFileName: "t.seed.json"})
			if c.err != "" {
				es := AsErrors(err)
				if len(es) != 1 || !strings.Contains(es[0].Msg, c.err) || es[0].File != "t.seed.json" {
					t.Fatalf("%v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for twin, sub := range c.want {
				got, ok := tk.Seed[twin]
				if sub == "" && ok || sub != "" && !strings.Contains(string(got), sub) {
					t.Errorf("%s seed %s", twin, got)
				}
				if strings.Contains(string(got), "_meta") {
					t.Errorf("_meta reached %s: %s", twin, got)
				}
			}
		})
	}
}

func TestOriginalProseSeedWithoutSidecar(t *testing.T) {
	_, errs := parseFixture(t, "prose-seed-uncompiled.md")
	if len(errs) != 1 || errs[0].Line != 11 || !strings.Contains(errs[0].Msg, "Seed State section is prose") ||
		!strings.Contains(errs[0].Hint, "prose-seed-uncompiled.seed.json") || !strings.Contains(errs[0].Hint, "compile-seeds") {
		t.Fatalf("%v", errs)
	}
	// Prose with a fenced file's content is prose too.
	src := "# T\n## Seed State\nA repo whose README is:\n```\n# Hello\n```\n## Task\nGo.\n## Checks\n- [model] ok\n"
	_, err := Parse("t.md", []byte(src), Options{Registry: originalRegistry()})
	if es := AsErrors(err); len(es) != 1 || !strings.Contains(es[0].Msg, "Seed State section is prose") {
		t.Errorf("%v", err)
	}
	// An empty section is no seed at all, as in the original.
	if _, err := Parse("t.md", []byte("# T\n## Seed State\n\n## Task\nGo.\n## Checks\n- [model] ok\n"), Options{Registry: originalRegistry()}); err != nil {
		t.Fatal(err)
	}
}

func TestOriginalRetiredTags(t *testing.T) {
	_, errs := parseFixture(t, "retired-tags.md")
	if len(errs) != 3 {
		t.Fatalf("%v", errs)
	}
	want := []struct{ msg, hint string }{
		{`"[D] A note contains \"ok\"" uses a retired tag`, "write [code]:"},
		{`"[D:github] No new note was written" uses a retired tag`, "write [code:github]:"},
		{`"[P] The note is short" uses a retired tag`, "write [model]:"},
	}
	for i, w := range want {
		if !strings.Contains(errs[i].Msg, w.msg) || !strings.HasPrefix(errs[i].Hint, w.hint) || !strings.Contains(errs[i].Hint, "[D]→[code] and [P]→[model]") {
			t.Errorf("%d: %v", i, errs[i])
		}
	}
}

func TestProseInCriteria(t *testing.T) {
	src := head + "Everything should work.\n- [x] done\n- [note] not graded\n- A note contains \"x\"\n- [code] No new note was written\n"
	tk, errs := parse(t, src)
	if errs != nil {
		t.Fatal(errs)
	}
	if len(tk.Criteria) != 1 || tk.Criteria[0].Line != 13 {
		t.Errorf("%+v", tk.Criteria)
	}
	// Only the untagged bullet is worth a warning.
	if len(tk.Warnings) != 1 || tk.Warnings[0].Line != 12 {
		t.Errorf("%+v", tk.Warnings)
	}
	// Prose alone is no criteria.
	_, errs = parse(t, head+"Everything should work.\n")
	if len(errs) != 1 || !strings.Contains(errs[0].Msg, "has no criteria") {
		t.Errorf("%v", errs)
	}
	// A grade request's lines are criteria: prose there is an error.
	_, err := TaskForSandbox(tasktest.Registry(), []string{"notes"}, "", []byte(`{"criteria": ["Everything should work."]}`))
	if err == nil || !strings.Contains(err.Error(), "not a criterion") {
		t.Errorf("%v", err)
	}
}

func TestUnknownSectionIsAWarning(t *testing.T) {
	tk, errs := parse(t, head+"- [model] ok\n## Notes\nstuff\n")
	if errs != nil {
		t.Fatal(errs)
	}
	if len(tk.Warnings) != 1 || tk.Warnings[0].Line != 10 || !strings.Contains(tk.Warnings[0].Msg, `unknown section "Notes" is ignored`) {
		t.Errorf("%+v", tk.Warnings)
	}
}

// A twin this server does not offer is one error, at the config, not one
// more per criterion that names it.
func TestUnknownTwinIsOneError(t *testing.T) {
	src := "# T\n## Config\n```yaml\ntwins: [github, jira]\n```\n## Prompt\nGo.\n## Success Criteria\n- [code:github] No new note was written\n- [code:jira] Ticket 1 is done\n- [code] x\n- [model:jira] fine\n"
	_, err := Parse("t.md", []byte(src), Options{Registry: originalRegistry()})
	es := AsErrors(err)
	if len(es) != 1 || es[0].Line != 4 || !strings.Contains(es[0].Msg, `unknown twin "jira"`) {
		t.Fatalf("%v", err)
	}
	// A retired tag is still reported: it does not depend on the twins.
	_, err = Parse("t.md", []byte(src+"- [D] x\n"), Options{Registry: originalRegistry()})
	if es := AsErrors(err); len(es) != 2 || !strings.Contains(es[1].Msg, "retired tag") {
		t.Fatalf("%v", err)
	}
}

// Forms the original Pome reads that we refused before: no title (the file
// names the task), a second "# " line (content), prose before the title,
// an unfenced or empty Config section.
func TestOriginalLenientForms(t *testing.T) {
	reg := originalRegistry()
	tk, err := Parse("tasks/Weekly Sync.md", []byte("Draft, do not ship.\n## Config\ntwins: [github]\nclass: conformance\ntimeout: 30\n## Prompt\n# Step one\nWrite \"sync\".\n## Success Criteria\n- [code] A note contains \"sync\"\n"), Options{Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	if tk.Title != "Step one" || tk.Config.Class != ClassConformance || tk.Config.Timeout != 30*time.Second || !strings.HasPrefix(tk.Prompt, "# Step one\n") {
		t.Errorf("%q %+v %q", tk.Title, tk.Config, tk.Prompt)
	}
	tk, err = Parse("tasks/Weekly Sync.md", []byte("## Prompt\nGo.\n## Success Criteria\n- [model] ok\n"), Options{Registry: reg})
	if err != nil || tk.Title != "weekly-sync" {
		t.Errorf("%v %q", err, tk.Title)
	}
	// An unfenced config's problems name their own lines.
	_, err = Parse("t.md", []byte("# T\n## Config\ntwins: [github]\nruns: none\n## Prompt\nGo.\n## Success Criteria\n- [model] ok\n"), Options{Registry: reg})
	if es := AsErrors(err); len(es) != 1 || es[0].Line != 4 || !strings.Contains(es[0].Msg, "runs must be") {
		t.Errorf("%v", err)
	}
	tk, err = Parse("t.md", []byte("# T\n## Config\n\n## Prompt\nGo.\n## Success Criteria\n- [model] ok\n"), Options{Registry: reg})
	if err != nil || strings.Join(tk.Config.Twins, ",") != "github" {
		t.Errorf("empty config: %v %+v", err, tk.Config)
	}
}
