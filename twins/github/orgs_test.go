package github

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pomehq/pome/twins"
)

// teamsWorld is the default world with teams and issue types on acme,
// which the seed cannot express yet.
func teamsWorld(t *testing.T) *World {
	t.Helper()
	w := world(t, "")
	acme := w.org("acme")
	acme.Teams = []*Team{
		{ID: 901, Slug: "backend", Name: "Backend", Description: "Orders and billing", Members: []string{"alice", "pome-agent"}},
		{ID: 902, Slug: "design", Name: "Design", Members: []string{"bob"}},
	}
	acme.IssueTypes = []*IssueType{
		{ID: 911, Name: "Bug", Color: "red", Enabled: true, CreatedAt: time.Unix(0, 0)},
		{ID: 912, Name: "Epic", Enabled: false, CreatedAt: time.Unix(0, 0)},
	}
	w.Users = append(w.Users, &User{ID: 950, Login: "zed"})
	return w
}

func TestTeamsAndIssueTypes(t *testing.T) {
	w := teamsWorld(t)
	teams := mustCall(t, w, "get_teams", `{}`).Out.([]OrganizationTeams)
	if len(teams) != 1 || teams[0].Org != "acme" || len(teams[0].Teams) != 1 || teams[0].Teams[0].Slug != "backend" {
		t.Errorf("my teams: %+v", teams)
	}
	if bobs := mustCall(t, w, "get_teams", `{"user":"bob"}`).Out.([]OrganizationTeams); len(bobs[0].Teams) != 1 || bobs[0].Teams[0].Slug != "design" {
		t.Errorf("bob's teams: %+v", bobs)
	}
	// zed shares no organization with the authenticated user.
	if zeds := mustCall(t, w, "get_teams", `{"user":"zed"}`).Out.([]OrganizationTeams); len(zeds) != 0 {
		t.Errorf("zed's teams: %+v", zeds)
	}
	wantErr(t, w, "get_teams", `{"user":"nobody"}`, twins.NotFound, "")

	members := mustCall(t, w, "get_team_members", `{"org":"acme","team_slug":"backend"}`).Out.(*teamMembers)
	if strings.Join(members.Logins, ",") != "alice,pome-agent" {
		t.Errorf("members: %+v", members.Logins)
	}
	wantErr(t, w, "get_team_members", `{"org":"acme","team_slug":"nope"}`, twins.NotFound, "")
	// Rosters are for members: the authenticated user leaves acme.
	acme := w.org("acme")
	acme.Members = []string{"alice", "bob"}
	wantErr(t, w, "get_team_members", `{"org":"acme","team_slug":"backend"}`, twins.NotFound, "")
	acme.Members = append(acme.Members, "pome-agent")

	types := mustCall(t, w, "list_issue_types", `{"owner":"acme"}`).Out.(*List[APIIssueType])
	if len(types.Items) != 2 || types.Items[0].Name != "Bug" || types.Items[1].IsEnabled {
		t.Errorf("org issue types: %+v", types.Items)
	}
	// A repository offers the enabled ones.
	if repoTypes := mustCall(t, w, "list_issue_types", `{"owner":"acme","repo":"api"}`).Out.(*List[APIIssueType]); len(repoTypes.Items) != 1 {
		t.Errorf("repo issue types: %+v", repoTypes.Items)
	}
	wantErr(t, w, "list_issue_types", `{"owner":"alice"}`, twins.NotFound, "")
	wantErr(t, w, "list_issue_types", `{"owner":"acme","repo":"nope"}`, twins.NotFound, "")
	if f := mustCall(t, w, "list_issue_fields", `{"owner":"acme"}`).Out.([]IssueField); len(f) != 0 {
		t.Errorf("issue fields: %+v", f)
	}
	wantErr(t, w, "list_issue_fields", `{"owner":"nobody"}`, twins.NotFound, "")
}

func TestReactions(t *testing.T) {
	w := world(t, "")
	c := mustCall(t, w, "add_issue_comment", `{"owner":"acme","repo":"api","issue_number":1,"body":"first"}`).Out.(APIIssueComment)
	r := mustCall(t, w, "add_issue_comment", `{"owner":"acme","repo":"api","issue_number":1,"reaction":"rocket"}`)
	if x := r.Out.(*APIReaction); x.Content != "rocket" || !r.Mutated || reactionStatus(nil, x) != 201 {
		t.Errorf("issue reaction: %+v", x)
	}
	// The same reaction again changes nothing and answers 200.
	r = mustCall(t, w, "add_issue_comment", `{"owner":"acme","repo":"api","issue_number":1,"reaction":"rocket"}`)
	if r.Mutated || reactionStatus(nil, r.Out) != 200 {
		t.Errorf("repeated reaction: mutated=%v", r.Mutated)
	}
	mustCall(t, w, "add_issue_comment", `{"owner":"acme","repo":"api","issue_number":1,"comment_id":`+itoa64(c.ID)+`,"reaction":"heart"}`)
	// Over REST the comment route names no issue.
	if x := callOver(t, w, twins.TransportREST, "add_issue_comment", `{"owner":"acme","repo":"api","issue_number":0,"comment_id":`+itoa64(c.ID)+`,"reaction":"eyes"}`); x.Err != nil {
		t.Fatal(x.Err)
	}
	is := mustCall(t, w, "issue_read", `{"method":"get","owner":"acme","repo":"api","issue_number":1}`).Out.(APIIssue)
	got := mustCall(t, w, "get_issue_comment", `{"owner":"acme","repo":"api","comment_id":`+itoa64(c.ID)+`}`).Out.(APIIssueComment)
	if is.Reactions.TotalCount != 1 || is.Reactions.Rocket != 1 || got.Reactions.TotalCount != 2 || got.Reactions.Heart != 1 || got.Reactions.Eyes != 1 {
		t.Errorf("counts: issue %+v, comment %+v", is.Reactions, got.Reactions)
	}
	wantErr(t, w, "add_issue_comment", `{"owner":"acme","repo":"api","issue_number":1,"reaction":"tada"}`, twins.Invalid, "")
	// A reaction to a comment cannot come with a body; to the issue it can
	// (a comment and a reaction, as github-mcp-server allows).
	wantErr(t, w, "add_issue_comment", `{"owner":"acme","repo":"api","issue_number":1,"comment_id":`+itoa64(c.ID)+`,"reaction":"+1","body":"and a comment"}`, twins.Unprocessable, "")
	wantErr(t, w, "add_issue_comment", `{"owner":"acme","repo":"api","issue_number":1,"reaction":"tada","body":"and a comment"}`, twins.Invalid, "")
	wantErr(t, w, "add_issue_comment", `{"owner":"acme","repo":"api","issue_number":1,"comment_id":999999,"reaction":"+1"}`, twins.NotFound, "")
	wantErr(t, w, "add_issue_comment", `{"owner":"acme","repo":"api","issue_number":42,"reaction":"+1"}`, twins.NotFound, "")
}

func TestPendingReviewComment(t *testing.T) {
	w := world(t, "")
	mustCall(t, w, "create_branch", `{"owner":"acme","repo":"api","branch":"docs"}`)
	mustCall(t, w, "create_or_update_file", `{"owner":"acme","repo":"api","path":"docs/x.md","content":"one\ntwo\n","message":"m","branch":"docs"}`)
	pr := mustCall(t, w, "create_pull_request", `{"owner":"acme","repo":"api","title":"Docs","head":"docs","base":"main"}`).Out.(APIPullRequest)
	args := func(extra string) string {
		return `{"owner":"acme","repo":"api","pullNumber":` + itoa64(int64(pr.Number)) + `,"path":"docs/x.md","body":"b","subjectType":"LINE"` + extra + `}`
	}
	wantErr(t, w, "add_comment_to_pending_review", args(`,"line":1`), twins.NotFound, "")
	mustCall(t, w, "pull_request_review_write", `{"method":"create","owner":"acme","repo":"api","pullNumber":`+itoa64(int64(pr.Number))+`}`)
	wantErr(t, w, "add_comment_to_pending_review", args(``), twins.Unprocessable, "missing_field")
	wantErr(t, w, "add_comment_to_pending_review", args(`,"line":9`), twins.Unprocessable, "")
	wantErr(t, w, "add_comment_to_pending_review", args(`,"line":1,"side":"UP"`), twins.Invalid, "")
	c := mustCall(t, w, "add_comment_to_pending_review", args(`,"line":2`)).Out.(APIReviewComment)
	if c.Path != "docs/x.md" || c.Line == nil || *c.Line != 2 {
		t.Errorf("comment: %+v", c)
	}
}

func itoa64(n int64) string { return strconv.FormatInt(n, 10) }
