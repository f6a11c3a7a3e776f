package github

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pomehq/pome/twins"
)

func TestIssueComments(t *testing.T) {
	w := world(t, "")
	c := mustCall(t, w, "add_issue_comment", `{"owner":"acme","repo":"api","issue_number":1,"body":"first"}`).Out.(APIIssueComment)
	got := mustCall(t, w, "get_issue_comment", fmt.Sprintf(`{"owner":"acme","repo":"api","comment_id":%d}`, c.ID)).Out.(APIIssueComment)
	if got.Body != "first" {
		t.Errorf("get: %+v", got)
	}
	r := mustCall(t, w, "update_issue_comment", fmt.Sprintf(`{"owner":"acme","repo":"api","comment_id":%d,"body":"edited"}`, c.ID))
	if r.Out.(APIIssueComment).Body != "edited" || !r.Mutated {
		t.Errorf("update: %+v", r.Out)
	}
	if r := mustCall(t, w, "update_issue_comment", fmt.Sprintf(`{"owner":"acme","repo":"api","comment_id":%d,"body":"edited"}`, c.ID)); r.Mutated {
		t.Error("same body: no mutation")
	}
	wantErr(t, w, "update_issue_comment", fmt.Sprintf(`{"owner":"acme","repo":"api","comment_id":%d,"body":""}`, c.ID), twins.Unprocessable, "missing_field")
	mustCall(t, w, "delete_issue_comment", fmt.Sprintf(`{"owner":"acme","repo":"api","comment_id":%d}`, c.ID))
	wantErr(t, w, "get_issue_comment", fmt.Sprintf(`{"owner":"acme","repo":"api","comment_id":%d}`, c.ID), twins.NotFound, "")
	wantErr(t, w, "delete_issue_comment", `{"owner":"acme","repo":"api","comment_id":1}`, twins.NotFound, "")
}

func TestLock(t *testing.T) {
	w := world(t, "")
	mustCall(t, w, "lock_issue", `{"owner":"acme","repo":"api","issue_number":1,"lock_reason":"too heated"}`)
	got := mustCall(t, w, "issue_read", `{"method":"get","owner":"acme","repo":"api","issue_number":1}`).Out.(APIIssue)
	if !got.Locked || *got.ActiveLockReason != "too heated" {
		t.Errorf("locked: %+v", got)
	}
	if r := mustCall(t, w, "lock_issue", `{"owner":"acme","repo":"api","issue_number":1,"lock_reason":"too heated"}`); r.Mutated {
		t.Error("locking twice: no mutation")
	}
	wantErr(t, w, "lock_issue", `{"owner":"acme","repo":"api","issue_number":1,"lock_reason":"boring"}`, twins.Unprocessable, "invalid")
	mustCall(t, w, "unlock_issue", `{"owner":"acme","repo":"api","issue_number":1}`)
	wantErr(t, w, "unlock_issue", `{"owner":"acme","repo":"api","issue_number":1}`, twins.NotFound, "")
}

func TestMilestones(t *testing.T) {
	w := world(t, SeedExample)
	m := mustCall(t, w, "create_milestone", `{"owner":"acme","repo":"api","title":"v2.0","due_on":"2026-06-01T00:00:00Z"}`).Out.(APIMilestone)
	if m.Number != 2 || m.State != "open" || *m.DueOn != "2026-06-01T00:00:00Z" || m.Creator.Login != "pome-agent" {
		t.Errorf("create: %+v", m)
	}
	wantErr(t, w, "create_milestone", `{"owner":"acme","repo":"api","title":"V2.0"}`, twins.Unprocessable, "already_exists")
	wantErr(t, w, "create_milestone", `{"owner":"acme","repo":"api","title":""}`, twins.Unprocessable, "missing_field")
	wantErr(t, w, "create_milestone", `{"owner":"acme","repo":"api","title":"x","due_on":"soon"}`, twins.Unprocessable, "invalid")
	list := mustCall(t, w, "list_milestones", `{"owner":"acme","repo":"api"}`).Out.(*List[APIMilestone])
	if len(list.Items) != 2 || list.Items[0].Title != "v1.0" || list.Items[0].OpenIssues != 1 {
		t.Errorf("list: %+v", list.Items)
	}
	got := mustCall(t, w, "get_milestone", `{"owner":"acme","repo":"api","milestone_number":1}`).Out.(APIMilestone)
	if got.Title != "v1.0" {
		t.Errorf("get: %+v", got)
	}
	wantErr(t, w, "get_milestone", `{"owner":"acme","repo":"api","milestone_number":9}`, twins.NotFound, "")
	wantErr(t, w, "list_milestones", `{"owner":"acme","repo":"api","state":"late"}`, twins.Invalid, "invalid_arguments")
	// issue_write can set and clear a milestone, and the history shows it.
	mustCall(t, w, "issue_write", `{"method":"update","owner":"acme","repo":"api","issue_number":2,"milestone":2}`)
	mustCall(t, w, "issue_write", `{"method":"update","owner":"acme","repo":"api","issue_number":2,"milestone":0}`)
	evs := mustCall(t, w, "list_issue_events", `{"owner":"acme","repo":"api","issue_number":2}`).Out.(*List[APIIssueEvent])
	var names []string
	for _, e := range evs.Items {
		names = append(names, e.Event+":"+e.Milestone.Title)
	}
	if strings.Join(names, ",") != "milestoned:v2.0,demilestoned:v2.0" {
		t.Errorf("events: %v", names)
	}
}

func TestTimeline(t *testing.T) {
	w := world(t, "")
	mustCall(t, w, "issue_write", `{"method":"update","owner":"acme","repo":"api","issue_number":1,"labels":["bug"],"assignees":["bob"]}`)
	mustCall(t, w, "add_issue_comment", `{"owner":"acme","repo":"api","issue_number":1,"body":"on it"}`)
	mustCall(t, w, "issue_write", `{"method":"update","owner":"acme","repo":"api","issue_number":1,"state":"closed"}`)
	tl := mustCall(t, w, "list_issue_timeline", `{"owner":"acme","repo":"api","issue_number":1}`).Out.(*List[APIIssueEvent])
	var names []string
	for _, e := range tl.Items {
		names = append(names, e.Event)
	}
	if strings.Join(names, ",") != "labeled,assigned,commented,closed" {
		t.Errorf("timeline: %v", names)
	}
	if tl.Items[0].Label.Name != "bug" || tl.Items[1].Assignee.Login != "bob" || tl.Items[2].Body != "on it" || *tl.Items[3].StateReason != "completed" {
		t.Errorf("timeline details: %+v", tl.Items)
	}
	wantErr(t, w, "list_issue_events", `{"owner":"acme","repo":"api","issue_number":5}`, twins.NotFound, "")
}
