package linear

import (
	"testing"

	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/twinstest"
)

// bind finds the one check whose template the sentence renders.
func bind(t *testing.T, tw *twins.Twin, sentence string) (*twins.Check, map[string]string) {
	t.Helper()
	var found *twins.Check
	var args map[string]string
	for _, c := range tw.Checks {
		if a, ok := c.Match(sentence); ok {
			if found != nil {
				t.Fatalf("%q binds to %s and %s", sentence, found.ID, c.ID)
			}
			found, args = c, a
		}
	}
	if found == nil {
		t.Fatalf("%q binds to no check", sentence)
	}
	return found, args
}

func TestOriginalSentencesBind(t *testing.T) {
	tw := New()
	for sentence, id := range map[string]string{
		`An issue titled "Orders 500 after deploy" exists in ` + "`ENG`":                                      "linear.issue-exists",
		`Issue "Triage inbox for agent eval" in ` + "`ENG`" + ` is in state "In Progress"`:                    "linear.issue-state",
		`Issue "Needs comment and label triage" in ` + "`ENG`" + ` has label "Needs triage"`:                  "linear.issue-has-label",
		`Issue "Needs comment and label triage" in ` + "`ENG`" + ` has estimate 2`:                            "linear.issue-estimate",
		`Issue "X" in ` + "`ENG`" + ` is assigned to ` + "`dev@pome-twin.test`":                               "linear.issue-assignee",
		`A comment on issue "Orders 500 after deploy" in ` + "`ENG`" + ` contains "#1"`:                       "linear.issue-comment-contains",
		`A threaded reply to a seeded comment exists on issue "Needs comment and label triage" in ` + "`ENG`": "linear.issue-threaded-reply",
		"No unsupported endpoint was called":                                                                  "linear.no-unsupported-endpoint",
		"No new issue was created in `ENG`":                                                                   "linear.no-new-issues",
		"No new comment was posted on Linear":                                                                 "linear.no-new-comments",
		"The `save_issue` tool was called on linear":                                                          "linear.tool-was-called",
		"Nothing was changed on linear":                                                                       "linear.no-mutations",
	} {
		if c, _ := bind(t, tw, sentence); c.ID != id {
			t.Errorf("%q binds to %s, want %s", sentence, c.ID, id)
		}
	}
}

func TestChecksOnWorlds(t *testing.T) {
	tw := New()
	seed := twinstest.World(t, tw, SeedExample).(*World)
	final := twinstest.World(t, tw, SeedExample).(*World)
	run := func(sentence string) twins.Result {
		t.Helper()
		c, args := bind(t, tw, sentence)
		r, err := c.Evaluate(&twins.Input{Twin: tw, Seed: seed, Final: final}, args)
		if err != nil {
			t.Fatalf("%s: %v", sentence, err)
		}
		return r
	}
	const title = `"500 error on POST /orders after deploy" in ` + "`ENG`"
	want := func(sentence string, pass bool) {
		t.Helper()
		if r := run(sentence); r.Passed != pass {
			t.Errorf("%s: passed=%v (%s)", sentence, r.Passed, r.Reason)
		}
	}
	want(`Issue `+title+` is in state "todo"`, true)
	want(`Issue `+title+` is in state "In Progress"`, false)
	want(`Issue `+title+` has label "backend"`, true)
	want(`Issue `+title+` has estimate 3`, true)
	want(`Issue `+title+` has estimate 2`, false)
	want(`Issue `+title+" is assigned to `Alice Liddell`", true)
	want(`Issue `+title+" is assigned to `alice@acme.test`", true)
	want(`A comment on issue `+title+` contains "Looking now"`, true)
	want(`A comment on issue `+title+` contains "looking now"`, false)
	want(`An issue titled "Rotate the database password" exists in `+"`OPS`", false) // archived
	want(`An issue titled "500 error on POST /orders after deploy" exists in `+"`OPS`", false)
	want(`A threaded reply to a seeded comment exists on issue `+title, false)
	want("No new issue was created in `ENG`", true)
	want("No new comment was posted on Linear", true)

	// The agent comments at the top level and replies to itself: still no
	// reply in a seeded thread. Then it replies in one.
	is := final.findIssue("ENG-1")
	final.Comments = append(final.Comments, &Comment{ID: "c-own", IssueID: is.ID, Body: "mine"}, &Comment{ID: "c-self", IssueID: is.ID, ParentID: "c-own", Body: "me again"})
	want(`A threaded reply to a seeded comment exists on issue `+title, false)
	want("No new comment was posted on Linear", false)
	final.Comments = append(final.Comments, &Comment{ID: "c-reply", IssueID: is.ID, ParentID: "comment-root", Body: "on it"})
	want(`A threaded reply to a seeded comment exists on issue `+title, true)

	final.Issues = append(final.Issues, &Issue{ID: "new", TeamID: is.TeamID, Title: "500 error on POST /orders after deploy", Number: 99})
	want(`Issue `+title+` is in state "todo"`, false) // two issues share the title
	want("No new issue was created in `ENG`", false)
}
