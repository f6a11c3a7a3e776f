package linear

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"testing"

	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/twinstest"
)

func build(t *testing.T, seed string) (*World, error) {
	t.Helper()
	ctx := twins.WithEnv(context.Background(), twinstest.Env("linear"))
	w, err := newWorld(ctx, json.RawMessage(seed))
	return w, err
}

func TestDefaultWorld(t *testing.T) {
	w := defaultWorld(t)
	eng := w.findTeam("ENG")
	if eng == nil || len(eng.States) != 7 || len(w.Issues) != 3 || len(w.Users) != 3 || w.viewer().Email != "pome-agent@acme.test" {
		t.Fatalf("default world: %+v", w)
	}
	for i, want := range []string{"ENG-1", "ENG-2", "ENG-3"} {
		if w.Issues[i].Identifier != want {
			t.Errorf("issue %d is %s", i, w.Issues[i].Identifier)
		}
	}
	if s := w.state(w.findIssue("ENG-3").StateID); s.Type != StateStarted || w.findIssue("ENG-3").StartedAt == nil {
		t.Errorf("ENG-3 in %+v", s)
	}
	// Ids are the same on every build of the same seed.
	again := defaultWorld(t)
	if again.Issues[0].ID != w.Issues[0].ID || again.Comments[0].ID != w.Comments[0].ID {
		t.Error("ids differ between builds")
	}
}

func TestSeedExamplesLoad(t *testing.T) {
	w, err := build(t, SeedExample)
	if err != nil {
		t.Fatal(err)
	}
	if is := w.findIssue("ENG-7"); is == nil || w.issue(is.ParentID).Identifier != "ENG-1" {
		t.Errorf("ENG-7: %+v", is)
	}
	if n := len(w.issueComments(w.findIssue("ENG-1").ID)); n != 3 {
		t.Errorf("ENG-1 has %d comments", n)
	}
	if c := w.comment("comment-root"); c == nil || len(w.Relations) != 1 || len(w.TokenHashes) != 1 {
		t.Errorf("root comment %v, relations %d", c, len(w.Relations))
	}
	if w.findIssue("OPS-1").ArchivedAt == nil {
		t.Error("OPS-1 not archived")
	}
	o, err := build(t, SeedExampleOriginal)
	if err != nil {
		t.Fatal(err)
	}
	is := o.findIssue("WEB-1")
	if is == nil || is.ID != "iss_button" || o.user(is.AssigneeID).Email != "eng@acme.test" || o.cycle(is.CycleID).Name != "Cycle 1" {
		t.Fatalf("WEB-1: %+v", is)
	}
	if reply := o.comment("cmt_2"); reply == nil || reply.ParentID != "cmt_1" {
		t.Fatalf("reply %+v", reply)
	}
	if o.viewer().Email != "lead@acme.test" {
		t.Errorf("viewer %s, want the token's user", o.viewer().Email)
	}
}

// TestOriginalTaskSeed loads our task sidecar, a seed in the original's
// format, and finds what its criteria name.
func TestOriginalTaskSeed(t *testing.T) {
	b, err := os.ReadFile("testdata/tasks/checkout-triage.seed.json")
	if err != nil {
		t.Fatal(err)
	}
	w, err := build(t, string(b))
	if err != nil {
		t.Fatal(err)
	}
	is := w.findIssue("WEB-1")
	if is.Title != "Checkout button is misaligned" || is.Estimate != nil || w.state(is.StateID).Name != "Backlog" {
		t.Fatalf("WEB-1 %+v", is)
	}
}

func TestSeedErrorsNameThePath(t *testing.T) {
	cases := []struct{ seed, path string }{
		{`{"teams":[{"key":"eng","name":"E"}]}`, "/teams/0/key"},
		{`{"teams":[{"key":"ENG","name":"E"}],"issues":[{"team":"OPS","title":"x"}]}`, "/issues/0/team"},
		{`{"teams":[{"key":"ENG","name":"E"}],"issues":[{"team":"ENG","title":"x","state":"Shipped"}]}`, "/issues/0/state"},
		{`{"teams":[{"key":"ENG","name":"E"}],"issues":[{"team":"ENG","title":"x","labels":["Nope"]}]}`, "/issues/0/labels/0"},
		{`{"users":[{"email":"a@b.c"}],"teams":[{"key":"ENG","name":"E"}],"issues":[{"team":"ENG","title":"x","assignee":"z@b.c"}]}`, "/issues/0/assignee"},
		{`{"teams":[{"key":"ENG","name":"E"}],"issues":[{"team":"ENG","title":"x","priority":9}]}`, "/issues/0/priority"},
		{`{"teams":[{"key":"ENG","name":"E","states":[{"name":"Doing","type":"working"}]}]}`, "/teams/0/states/0/type"},
		{`{"teams":[{"key":"ENG","name":"E"}],"issues":[{"team":"ENG","title":"x","comments":[{"body":"a","parent":"nope"}]}]}`, "/issues/0/comments/0/parent"},
		{`{"teams":[{"key":"ENG","name":"E"}],"surprise":true}`, "/surprise"},
		{`{"viewer":"nobody@acme.test"}`, "/viewer"},
		// The original's format, refused as strictly.
		{`{"organization":{},"teams":[{"key":"ENG","name":"E"}],"issues":[{"team":"ENG","title":"x","state":"Nope"}]}`, "/issues/0/state"},
		{`{"organization":{},"teams":[{"key":"ENG","name":"E"}],"comments":[{"issue":"missing","body":"b"}]}`, "/comments/0/issue"},
		{`{"organization":{},"labels":[{"name":"L","team":"OPS"}]}`, "/labels/0/team"},
		{`{"organization":{},"teams":[{"key":"ENG","name":"E","color":"red"}]}`, "/teams/0/color"},
	}
	for _, c := range cases {
		_, err := build(t, c.seed)
		var se *twins.SeedError
		if !errors.As(err, &se) || se.Path != c.path {
			t.Errorf("%s: %v, want an error at %s", c.seed, err, c.path)
		}
	}
}

func TestWorldSurvivesJSON(t *testing.T) {
	tw := New()
	w, err := build(t, SeedExample)
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := json.Marshal(w)
	twinstest.CheckCopy(t, tw, w, doc)
}
