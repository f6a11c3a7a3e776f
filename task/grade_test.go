package task

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/pomehq/pome/rest/resttest"
	"github.com/pomehq/pome/tape"
	"github.com/pomehq/pome/task/tasktest"
	"github.com/pomehq/pome/twins"
)

func world(texts ...string) *tasktest.World {
	w := &tasktest.World{Next: len(texts) + 1, Notes: []tasktest.Note{}}
	for i, s := range texts {
		w.Notes = append(w.Notes, tasktest.Note{ID: i + 1, Text: s})
	}
	return w
}

func row(seq int64, tool string, mutated bool) tape.Row {
	return tape.Row{Seq: seq, Twin: "notes", Tool: &tool, Status: 200, StateMutation: mutated}
}

// staticProvider serves fixed inputs per twin.
func staticProvider(reg *twins.Registry, seeds, finals map[string]*tasktest.World, tapes map[string][]tape.Row) Provider {
	return ProviderFunc(func(ctx context.Context, name string) (*twins.Input, error) {
		tw, _ := reg.Get(name)
		if finals[name] == nil {
			return nil, errors.New("store unreachable")
		}
		return &twins.Input{Twin: tw, Seed: seeds[name], Final: finals[name], Tape: tapes[name]}, nil
	})
}

func mustParse(t *testing.T, reg *twins.Registry, src string) *Task {
	t.Helper()
	tk, err := Parse("t.md", []byte(src), Options{Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

func statuses(v *Verdict) string {
	var s []string
	for _, c := range v.Criteria {
		s = append(s, string(c.Status))
	}
	return strings.Join(s, ",")
}

func TestGradeSubstratesAndSeedExclusion(t *testing.T) {
	reg := tasktest.Registry()
	tk := mustParse(t, reg, head+
		"- [code] A note contains \"released\"\n"+ // final+: agent wrote it → passed
		"- [code] A note contains \"draft\"\n"+ // final+: true in seed → excluded
		"- [code always-scored] A note contains \"draft\"\n"+ // same, always scored → passed
		"- [code] No note contains \"secret\"\n"+ // final−: a guard, true in seed, still scored
		"- [code] No new note was written\n"+ // seed+final: agent wrote one → failed
		"- [code] The `create_note` tool was called on notes\n"+ // tape+
		"- [code] The `list_notes` tool was never called on notes\n"+ // tape−
		"- [code] Nothing was changed on notes\n") // tape−, failed
	seed := world("draft v1")
	final := world("draft v1", "released v2")
	p := staticProvider(reg, map[string]*tasktest.World{"notes": seed}, map[string]*tasktest.World{"notes": final},
		map[string][]tape.Row{"notes": {row(1, "list_notes", false), row(2, "create_note", true)}})
	v := Grade(context.Background(), tk, p, nil)

	if got, want := statuses(v), "passed,excluded,passed,passed,failed,passed,failed,failed"; got != want {
		t.Fatalf("statuses %s, want %s\n%+v", got, want, v.Criteria)
	}
	c := v.Criteria
	if c[1].Reason != ReasonAlreadyTrue || len(c[1].Evidence.StatePaths) == 0 {
		t.Errorf("excluded: %+v", c[1])
	}
	if c[0].Check != "notes.note-contains" || c[0].Params["text"] != "released" || c[0].Evidence.StatePaths[0] != "/entries/1/text" {
		t.Errorf("evidence: %+v", c[0])
	}
	if got := c[5].Evidence.TapeSeqs; len(got) != 1 || got[0] != 2 {
		t.Errorf("tape evidence %v", got)
	}
	if got := c[6].Evidence.TapeSeqs; len(got) != 1 || got[0] != 1 {
		t.Errorf("tape evidence %v", got)
	}
	if v.Evaluated != 7 || v.Passed != 4 || v.Excluded != 1 || v.State != StateFail || v.Score != 57.14 {
		t.Errorf("verdict %+v", v)
	}

	// The JSON shape of SPEC §7: evidence arrays are never null.
	data, _ := json.Marshal(v)
	for _, want := range []string{`"state":"fail"`, `"pass_threshold":100`, `"evidence":{"tape_seqs":[],"state_paths":["/entries/0/text"]}`, `"status":"excluded","reason":"already_true_in_seed"`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("verdict JSON lacks %s:\n%s", want, data)
		}
	}
}

func TestGradeDoNothingAgentFails(t *testing.T) {
	reg := tasktest.Registry()
	tk := mustParse(t, reg, head+"- [code] A note contains \"released\"\n- [code] No new note was written\n")
	seed := world()
	v := Grade(context.Background(), tk, staticProvider(reg, map[string]*tasktest.World{"notes": seed}, map[string]*tasktest.World{"notes": seed}, nil), nil)
	if v.State != StateFail || v.Score != 50 || statuses(v) != "failed,passed" {
		t.Fatalf("%+v", v)
	}
}

func TestGradeIncomplete(t *testing.T) {
	reg := tasktest.Registry()
	seed := world("draft")
	one := map[string]*tasktest.World{"notes": seed}
	cases := []struct {
		name, src string
		finals    map[string]*tasktest.World
		reason    string
	}{
		{"check error", head + "- [code] A note contains \"draft\"\n- [code] The notebook is broken\n", map[string]*tasktest.World{"notes": world("x")}, "could not be evaluated"},
		{"twin unreadable", head + "- [code] No new note was written\n", map[string]*tasktest.World{}, "could not be evaluated"},
		{"all excluded", head + "- [code] A note contains \"draft\"\n", one, "already true in the seed"},
		{"only model", head + "- [model] polite\n", one, "no [code] criterion"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := Grade(context.Background(), mustParse(t, reg, c.src), staticProvider(reg, one, c.finals, nil), nil)
			if v.State != StateIncomplete || !strings.Contains(v.Reason, c.reason) {
				t.Fatalf("%+v", v)
			}
		})
	}
}

type fixedJudge struct {
	passed bool
	err    error
	seen   []string
}

func (j *fixedJudge) Judge(ctx context.Context, c CriterionResult) (bool, string, error) {
	j.seen = append(j.seen, c.Text)
	return j.passed, "judged", j.err
}

func TestGradeModelCriteria(t *testing.T) {
	reg := tasktest.Registry()
	tk := mustParse(t, reg, head+"- [code] No new note was written\n- [model] The agent was polite\n")
	w := map[string]*tasktest.World{"notes": world()}
	v := Grade(context.Background(), tk, staticProvider(reg, w, w, nil), nil)
	if statuses(v) != "passed,abstained" || v.State != StatePass || v.Abstained != 1 || v.Evaluated != 1 {
		t.Fatalf("without judge %+v", v)
	}
	j := &fixedJudge{passed: false}
	v = Grade(context.Background(), tk, staticProvider(reg, w, w, nil), j)
	if statuses(v) != "passed,failed" || v.State != StateFail || v.Score != 50 || j.seen[0] != "The agent was polite" {
		t.Fatalf("with judge %+v", v)
	}
	v = Grade(context.Background(), tk, staticProvider(reg, w, w, nil), &fixedJudge{err: errors.New("boom")})
	if v.State != StateIncomplete || !strings.Contains(v.Criteria[1].Reason, "boom") {
		t.Fatalf("judge error %+v", v)
	}
}

func TestPassThresholdIsExact(t *testing.T) {
	v := &Verdict{PassThreshold: 66.67, Criteria: []CriterionResult{
		{Kind: Code, Status: StatusPassed}, {Kind: Code, Status: StatusPassed}, {Kind: Code, Status: StatusFailed}}}
	Summarize(v)
	if v.Score != 66.67 || v.State != StateFail {
		t.Fatalf("2 of 3 against 66.67: %+v", v)
	}
	v.PassThreshold = 66
	Summarize(v)
	if v.State != StatePass {
		t.Fatalf("2 of 3 against 66: %+v", v)
	}
}

func TestCrossTwinGrading(t *testing.T) {
	reg := tasktest.Registry()
	tk := mustParse(t, reg, head2+"- [code:notes] A note contains \"a\"\n- [code:board] The `create_note` tool was called on board\n- [code:board] A note contains \"b\"\n")
	p := staticProvider(reg,
		map[string]*tasktest.World{"notes": world(), "board": world()},
		map[string]*tasktest.World{"notes": world("a"), "board": world("b")},
		map[string][]tape.Row{"board": {{Seq: 1, Twin: "board", Tool: ptr("create_note"), StateMutation: true}}})
	v := Grade(context.Background(), tk, p, nil)
	if statuses(v) != "passed,passed,passed" || v.State != StatePass || v.Criteria[1].Twin != "board" {
		t.Fatalf("%+v", v)
	}
}

func ptr(s string) *string { return &s }

// TestGradeHandlerOverHTTP grades a live sandbox through the server's
// endpoint: criteria lines, a task source, the stored task source, and
// validation errors that name the line.
func TestGradeHandlerOverHTTP(t *testing.T) {
	reg := tasktest.Registry()
	env := resttest.StartMulti(t, reg, []string{"notes", "board"}, map[string]string{"notes": `{"entries":[{"id":1,"text":"draft"}]}`})
	env.Server.Grader = GradeHandler(reg)

	req, _ := http.NewRequest(http.MethodPost, env.Created.PerTwin["board"].APIURL+"/notes", strings.NewReader(`{"text":"shipped"}`))
	req.Header.Set("Authorization", "Bearer "+env.AgentToken)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 201 {
		t.Fatalf("create note: %v %v", resp, err)
	}
	resp.Body.Close()

	var v Verdict
	st := env.Control(t, http.MethodPost, "/v1/sandboxes/"+env.SessionID+"/grade", map[string]any{"criteria": []string{
		`- [code:board] A note contains "shipped"`,
		`[code:notes] A note contains "draft"`,
		`[code:board] The ` + "`create_note`" + ` tool was called on board`,
		`[code:notes] No new note was written`,
	}}, &v)
	if st != 200 || statuses(&v) != "passed,excluded,passed,passed" || v.State != StatePass || v.SessionID != env.SessionID {
		t.Fatalf("status %d %+v", st, v)
	}
	if v.Criteria[2].Evidence.TapeSeqs[0] != 1 {
		t.Errorf("tape evidence %+v", v.Criteria[2].Evidence)
	}

	src := head2 + "- [code:board] A note contains \"nope\"\n"
	st = env.Control(t, http.MethodPost, "/v1/sandboxes/"+env.SessionID+"/grade", map[string]any{"task_source": src}, &v)
	if st != 200 || v.State != StateFail {
		t.Fatalf("task_source: %d %+v", st, v)
	}

	var e struct {
		Error struct {
			Type    string         `json:"type"`
			Message string         `json:"message"`
			Details map[string]any `json:"details"`
		} `json:"error"`
	}
	st = env.Control(t, http.MethodPost, "/v1/sandboxes/"+env.SessionID+"/grade", map[string]any{"criteria": []string{"[code] A note contains \"x\"", "[code:board] gibberish"}}, &e)
	if st != 422 || e.Error.Type != "validation_failed" || !strings.Contains(e.Error.Message, "criteria[0]: this task has several twins") || !strings.Contains(e.Error.Message, "criteria[1]: criterion binds to no board check") {
		t.Fatalf("%d %+v", st, e)
	}
	st = env.Control(t, http.MethodPost, "/v1/sandboxes/"+env.SessionID+"/grade", map[string]any{}, &e)
	if st != 422 || !strings.Contains(e.Error.Message, "nothing to grade") {
		t.Fatalf("empty body: %d %+v", st, e)
	}

	// A stopped sandbox is still graded from its retained state and tape.
	if st := env.Control(t, http.MethodDelete, "/v1/sandboxes/"+env.SessionID, nil, nil); st != 204 {
		t.Fatalf("stop %d", st)
	}
	st = env.Control(t, http.MethodPost, "/v1/sandboxes/"+env.SessionID+"/grade", map[string]any{"criteria": []string{`[code:board] A note contains "shipped"`}}, &v)
	if st != 200 || v.State != StatePass {
		t.Fatalf("after stop: %d %+v", st, v)
	}
}

// A check whose polarity follows its argument is excluded, when the seed
// already satisfies it, only for the positive value: "Note #1 is kept" is
// a guard and counts; "Note #2 is gone" asks for a removal the seed
// already shows and earns nothing.
func TestSeedExclusionFollowsPolarityPerArgument(t *testing.T) {
	reg := tasktest.Registry()
	tk := mustParse(t, reg, head+"- [code] Note #1 is kept\n- [code] Note #2 is gone\n- [code always-scored] Note #3 is gone\n")
	c, _ := reg.Get("notes")
	check, _ := c.Check("notes.note-state")
	if Excludable(check, map[string]string{"id": "1", "state": "kept"}) || !Excludable(check, map[string]string{"id": "1", "state": "gone"}) {
		t.Fatal("Excludable does not read the check's polarity per argument")
	}
	seed := world("minutes")
	final := world("minutes")
	v := Grade(context.Background(), tk, staticProvider(reg, map[string]*tasktest.World{"notes": seed}, map[string]*tasktest.World{"notes": final}, nil), nil)
	if got := statuses(v); got != "passed,excluded,passed" {
		t.Fatalf("statuses %s: %+v", got, v.Criteria)
	}
	if v.Criteria[1].Reason != ReasonAlreadyTrue || v.Evaluated != 2 || v.Excluded != 1 {
		t.Errorf("%+v", v)
	}
}
