// go-github, at the server root as github-mcp-server configures it, on the
// REST routes github-mcp-server's default tools reach besides their own:
// milestone edits and deletes, an organization's teams and review comment
// replies.

package github_test

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"testing"

	gh "github.com/google/go-github/v84/github"

	"github.com/pomehq/pome/rest/resttest"
	"github.com/pomehq/pome/twins/github"
)

func TestSDKMilestoneEditAndDelete(t *testing.T) {
	env := resttest.Start(t, github.New(), github.SeedExample)
	c := rootClient(t, env, env.Token)
	ctx := context.Background()

	m, _, err := c.Issues.EditMilestone(ctx, "acme", "api", 1, &gh.Milestone{Title: gh.Ptr("v1.0.0"), State: gh.Ptr("closed")})
	if err != nil || m.GetTitle() != "v1.0.0" || m.GetState() != "closed" || m.ClosedAt == nil || m.GetOpenIssues() != 1 {
		t.Fatalf("edit: %v %+v", err, m)
	}
	// A title another milestone has is GitHub's 422, and changes nothing.
	if _, _, err := c.Issues.CreateMilestone(ctx, "acme", "api", &gh.Milestone{Title: gh.Ptr("v2.0")}); err != nil {
		t.Fatal(err)
	}
	var ge *gh.ErrorResponse
	if _, _, err := c.Issues.EditMilestone(ctx, "acme", "api", 1, &gh.Milestone{Title: gh.Ptr("V2.0"), State: gh.Ptr("open")}); !errors.As(err, &ge) || ge.Response.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("duplicate title: %v", err)
	}
	if m, _, _ := c.Issues.GetMilestone(ctx, "acme", "api", 1); m.GetTitle() != "v1.0.0" || m.GetState() != "closed" {
		t.Errorf("a refused edit changed the milestone: %+v", m)
	}

	resp, err := c.Issues.DeleteMilestone(ctx, "acme", "api", 1)
	if err != nil || resp.StatusCode != http.StatusNoContent {
		t.Fatalf("delete: %v", err)
	}
	if _, _, err := c.Issues.GetMilestone(ctx, "acme", "api", 1); !errors.As(err, &ge) || ge.Response.StatusCode != http.StatusNotFound {
		t.Errorf("deleted milestone: %v", err)
	}
	if is, _, _ := c.Issues.Get(ctx, "acme", "api", 1); is.Milestone != nil {
		t.Errorf("issue keeps the deleted milestone: %+v", is.Milestone)
	}
	if _, err := c.Issues.DeleteMilestone(ctx, "acme", "api", 1); !errors.As(err, &ge) || ge.Response.StatusCode != http.StatusNotFound {
		t.Errorf("deleting twice: %v", err)
	}
	if got := tapeTools(t, env, 9); got != "update_milestone,create_milestone,update_milestone,get_milestone,delete_milestone,get_milestone,issue_read,delete_milestone" {
		t.Errorf("tape: %s", got)
	}
}

func TestSDKOrgTeams(t *testing.T) {
	env := resttest.Start(t, github.New(), github.SeedExample)
	c := rootClient(t, env, env.Token)
	ctx := context.Background()

	teams, _, err := c.Teams.ListTeams(ctx, "acme", nil)
	if err != nil || len(teams) != 2 || teams[0].GetSlug() != "backend" || teams[1].GetSlug() != "docs" || teams[0].GetNodeID() == "" {
		t.Fatalf("teams: %v %+v", err, teams)
	}
	team, _, err := c.Teams.GetTeamBySlug(ctx, "acme", "docs")
	if err != nil || team.GetName() != "Docs Team" || team.GetID() != teams[1].GetID() {
		t.Fatalf("team: %v %+v", err, team)
	}
	members, _, err := c.Teams.ListTeamMembersBySlug(ctx, "acme", "backend", nil)
	if err != nil || len(members) != 2 || members[0].GetLogin() != "bob" {
		t.Fatalf("members: %v %+v", err, members)
	}
	var ge *gh.ErrorResponse
	if _, _, err := c.Teams.GetTeamBySlug(ctx, "acme", "nope"); !errors.As(err, &ge) || ge.Response.StatusCode != http.StatusNotFound {
		t.Errorf("missing team: %v", err)
	}
	// alice's organizations other than acme: none, so a stranger's teams
	// are not listed.
	if _, _, err := c.Teams.ListTeams(ctx, "alice", nil); !errors.As(err, &ge) || ge.Response.StatusCode != http.StatusNotFound {
		t.Errorf("teams of a user: %v", err)
	}
	if got := tapeTools(t, env, 5); got != "list_org_teams,get_team,get_team_members,get_team,list_org_teams" {
		t.Errorf("tape: %s", got)
	}
}

func TestSDKReviewCommentReplies(t *testing.T) {
	env := resttest.Start(t, github.New(), github.SeedExample)
	c := rootClient(t, env, env.Token)
	ctx := context.Background()

	first, _, err := c.PullRequests.CreateComment(ctx, "acme", "api", 3, &gh.PullRequestComment{
		Body: gh.Ptr("validate() needs a test"), Path: gh.Ptr("orders.go"), Line: gh.Ptr(3), Side: gh.Ptr("RIGHT")})
	if err != nil {
		t.Fatal(err)
	}
	// POST …/pulls/{n}/comments/{id}/replies, which go-github has no
	// method for.
	reply := func(to int64, body string) (*gh.PullRequestComment, error) {
		req, err := c.NewRequest(http.MethodPost, "repos/acme/api/pulls/3/comments/"+strconv.FormatInt(to, 10)+"/replies", map[string]string{"body": body})
		if err != nil {
			return nil, err
		}
		out := new(gh.PullRequestComment)
		resp, err := c.Do(ctx, req, out)
		if err == nil && resp.StatusCode != http.StatusCreated {
			t.Errorf("reply status %d", resp.StatusCode)
		}
		return out, err
	}
	r1, err := reply(first.GetID(), "Added one")
	if err != nil || r1.GetInReplyTo() != first.GetID() || r1.GetPath() != "orders.go" || r1.GetLine() != 3 {
		t.Fatalf("reply: %v %+v", err, r1)
	}
	// A reply to a reply joins the same thread.
	r2, err := reply(r1.GetID(), "Thanks")
	if err != nil || r2.GetInReplyTo() != first.GetID() {
		t.Fatalf("reply to a reply: %v %+v", err, r2)
	}
	var ge *gh.ErrorResponse
	if _, err := reply(999999, "x"); !errors.As(err, &ge) || ge.Response.StatusCode != http.StatusNotFound {
		t.Errorf("reply to a missing comment: %v", err)
	}
	if _, err := reply(first.GetID(), " "); !errors.As(err, &ge) || ge.Response.StatusCode != http.StatusUnprocessableEntity {
		t.Errorf("blank reply: %v", err)
	}
	comments, _, _ := c.PullRequests.ListComments(ctx, "acme", "api", 3, nil)
	if len(comments) != 3 {
		t.Errorf("%d review comments, want 3", len(comments))
	}
	if got := tapeTools(t, env, 6); got != "add_pull_request_review_comment,add_reply_to_pull_request_comment,add_reply_to_pull_request_comment,add_reply_to_pull_request_comment,add_reply_to_pull_request_comment,pull_request_read" {
		t.Errorf("tape: %s", got)
	}
}
