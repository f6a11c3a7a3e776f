package twins

import (
	"context"
	"testing"

	"github.com/pomehq/pome/tape"
)

type pingWorld struct{}

type pingIn struct{}

// TestTapeCheckYieldsItsID: a twin that declares a tape predicate under
// the generic id (the original Pome's bare wording) keeps it, and the
// generic sentence binds under "<id>-on-<twin>"; both read the same tape.
func TestTapeCheckYieldsItsID(t *testing.T) {
	ping := New(Spec{Name: "ping", Title: "Ping", Description: "Ping.", Effect: Read,
		Bindings: []Binding{{Method: "GET", Path: "/ping"}}},
		func(ctx context.Context, w *pingWorld, in pingIn) (string, error) { return "pong", nil })
	tw := (&Twin{Name: "demo", Actions: []Action{ping}, Checks: []*Check{
		ToolWasCalledCheck("demo", "demo.tool-was-called", "`{tool}` was called"),
	}}).Finish()
	own, ok := tw.Check("demo.tool-was-called")
	if !ok || own.Template != "`{tool}` was called" {
		t.Fatalf("the twin's own check: %+v", own)
	}
	generic, ok := tw.Check("demo.tool-was-called-on-demo")
	if !ok || generic.Template != "The `{tool}` tool was called on demo" {
		t.Fatalf("the generic check: %+v", generic)
	}
	if _, ok := tw.Check("demo.tool-never-called"); !ok {
		t.Error("a generic id the twin does not declare is kept")
	}
	name := "ping"
	in := &Input{Twin: tw, Tape: []tape.Row{{Seq: 1, Tool: &name, Status: 200}}}
	for _, c := range []*Check{own, generic} {
		if r, err := c.Evaluate(in, map[string]string{"tool": "ping"}); err != nil || !r.Passed || len(r.Evidence.TapeSeqs) != 1 {
			t.Errorf("%s: %+v %v", c.ID, r, err)
		}
		if _, err := c.Evaluate(in, map[string]string{"tool": "pong"}); err == nil {
			t.Errorf("%s: an action the twin lacks is not an error", c.ID)
		}
		if r, _ := c.Evaluate(&Input{Twin: tw}, map[string]string{"tool": "ping"}); r.Passed {
			t.Errorf("%s: passes on an empty tape", c.ID)
		}
	}
}

// TestFinishWantsCanonicalRequestIDHeader: the request id header is set on
// every answer without a canonical copy, so a name net/http would rewrite
// is refused when the twin is built.
func TestFinishWantsCanonicalRequestIDHeader(t *testing.T) {
	(&Twin{Name: "ok", RequestIDHeader: "X-Github-Request-Id"}).Finish()
	defer func() {
		if r := recover(); r == nil {
			t.Fatal("Finish took a request id header not in canonical form")
		}
	}()
	(&Twin{Name: "bad", RequestIDHeader: "X-GitHub-Request-Id"}).Finish()
}
