package github_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	gh "github.com/google/go-github/v84/github"

	"github.com/pomehq/pome/rest/resttest"
	"github.com/pomehq/pome/twins/github"
)

// repoCommentsSeed has three comments on two issues, created in an order
// other than their ids': by id a1, b1, b2; by creation b2, b1, a1 (newest
// first). The test edits a1, which then sorts first by update.
const repoCommentsSeed = `{
  "clock": "2026-01-05T09:00:00Z",
  "users": [{"login": "alice"}, {"login": "bob"}],
  "orgs": [{"login": "acme", "members": ["alice", "bob", "pome-agent"]}],
  "repos": [{"owner": "acme", "name": "api", "issues": [
    {"number": 1, "title": "One", "user": "alice", "comments": [
      {"user": "alice", "body": "a1", "created_at": "2026-01-01T10:00:00Z"}]},
    {"number": 2, "title": "Two", "user": "bob", "comments": [
      {"user": "bob", "body": "b1", "created_at": "2026-01-02T10:00:00Z"},
      {"user": "bob", "body": "b2", "created_at": "2026-01-04T10:00:00Z"}]}
  ]}]
}`

func bodies(list []*gh.IssueComment) string {
	var out []string
	for _, c := range list {
		out = append(out, strings.TrimSuffix(c.GetBody(), ", edited"))
	}
	return strings.Join(out, ",")
}

// TestSDKRepositoryIssueComments: go-github's Issues.ListComments with issue
// number 0 lists a repository's issue comments: by ascending id, sorted by
// creation or update time either way, since a time, a page at a time; bad
// parameters are GitHub's 422 and an unknown repository its 404.
func TestSDKRepositoryIssueComments(t *testing.T) {
	env := resttest.Start(t, github.New(), repoCommentsSeed)
	c := client(t, env)
	ctx := context.Background()
	since := time.Date(2026, 1, 3, 0, 0, 0, 0, time.UTC)
	first, _, err := c.Issues.ListComments(ctx, "acme", "api", 1, nil)
	if err != nil || len(first) != 1 {
		t.Fatalf("issue 1's comments: %v %d", err, len(first))
	}
	if _, _, err := c.Issues.EditComment(ctx, "acme", "api", first[0].GetID(), &gh.IssueComment{Body: gh.Ptr("a1, edited")}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		opt  *gh.IssueListCommentsOptions
		want string
	}{
		{"by id", nil, "a1,b1,b2"},
		{"direction without sort", &gh.IssueListCommentsOptions{Direction: gh.Ptr("desc")}, "a1,b1,b2"},
		{"created", &gh.IssueListCommentsOptions{Sort: gh.Ptr("created")}, "b2,b1,a1"},
		{"created asc", &gh.IssueListCommentsOptions{Sort: gh.Ptr("created"), Direction: gh.Ptr("asc")}, "a1,b1,b2"},
		{"updated", &gh.IssueListCommentsOptions{Sort: gh.Ptr("updated")}, "a1,b2,b1"},
		{"since", &gh.IssueListCommentsOptions{Since: &since}, "a1,b2"},
	} {
		list, _, err := c.Issues.ListComments(ctx, "acme", "api", 0, tc.opt)
		if err != nil || bodies(list) != tc.want {
			t.Errorf("%s: %v %s, want %s", tc.name, err, bodies(list), tc.want)
		}
		for _, cm := range list {
			if !strings.HasSuffix(cm.GetIssueURL(), "/repos/acme/api/issues/1") && !strings.HasSuffix(cm.GetIssueURL(), "/repos/acme/api/issues/2") {
				t.Errorf("%s: issue_url %s", tc.name, cm.GetIssueURL())
			}
		}
	}

	// A page at a time, through the Link header.
	var all []*gh.IssueComment
	opt := &gh.IssueListCommentsOptions{ListOptions: gh.ListOptions{PerPage: 2}}
	for pages := 0; ; pages++ {
		page, resp, err := c.Issues.ListComments(ctx, "acme", "api", 0, opt)
		if err != nil || pages > 2 {
			t.Fatalf("page %d: %v", pages, err)
		}
		all = append(all, page...)
		if resp.NextPage == 0 {
			break
		}
		opt.Page = resp.NextPage
	}
	if bodies(all) != "a1,b1,b2" {
		t.Errorf("paged: %s", bodies(all))
	}

	// A new comment comes last by id.
	if _, _, err := c.Issues.CreateComment(ctx, "acme", "api", 1, &gh.IssueComment{Body: gh.Ptr("a2")}); err != nil {
		t.Fatal(err)
	}
	if list, _, err := c.Issues.ListComments(ctx, "acme", "api", 0, nil); err != nil || bodies(list) != "a1,b1,b2,a2" {
		t.Errorf("after a new comment: %v %s", err, bodies(list))
	}

	for _, bad := range []struct {
		path   string
		status int
		field  string
	}{
		{"/repos/acme/api/issues/comments?sort=comments", 422, "sort"},
		{"/repos/acme/api/issues/comments?sort=created&direction=up", 422, "direction"},
		{"/repos/acme/api/issues/comments?since=yesterday", 422, "since"},
		{"/repos/acme/nope/issues/comments", 404, ""},
	} {
		st, b := env.Do(t, "GET", bad.path, "", nil)
		if st != bad.status || !strings.Contains(string(b), `"field":"`+bad.field+`"`) && bad.field != "" {
			t.Errorf("%s: %d %s", bad.path, st, b)
		}
	}
	if st, b := env.Do(t, "GET", "/repos/acme/api/issues/comments?sort=comments", "", nil); st != 422 || !strings.Contains(string(b), "Validation Failed") {
		t.Errorf("422 shape: %d %s", st, b)
	}

	// The same action over MCP.
	out, isErr := resttest.CallTool(t, env.MCP(t), "list_repository_issue_comments", map[string]any{"owner": "acme", "repo": "api", "sort": "updated"})
	if isErr || strings.Index(out, `"body":"a1"`) > strings.Index(out, `"body":"b2"`) || !strings.Contains(out, `"body":"b1"`) {
		t.Errorf("MCP: %s", out)
	}
}

// TestSDKRepositoryIssueEvents: go-github's Issues.ListRepositoryEvents
// lists the events of every issue of a repository, newest first, each with
// its issue, and Issues.GetEvent reads one by the id (and url) it carries.
func TestSDKRepositoryIssueEvents(t *testing.T) {
	env := resttest.Start(t, github.New(), repoCommentsSeed)
	c := client(t, env)
	ctx := context.Background()
	if _, _, err := c.Issues.AddLabelsToIssue(ctx, "acme", "api", 1, []string{"bug"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Issues.Edit(ctx, "acme", "api", 2, &gh.IssueRequest{State: gh.Ptr("closed")}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Issues.Edit(ctx, "acme", "api", 2, &gh.IssueRequest{State: gh.Ptr("open")}); err != nil {
		t.Fatal(err)
	}
	events, _, err := c.Issues.ListRepositoryEvents(ctx, "acme", "api", nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range events {
		got = append(got, fmt.Sprintf("%s#%d", e.GetEvent(), e.GetIssue().GetNumber()))
	}
	if strings.Join(got, ",") != "reopened#2,closed#2,labeled#1" {
		t.Fatalf("events: %v", got)
	}
	// Paged, newest first.
	page, resp, err := c.Issues.ListRepositoryEvents(ctx, "acme", "api", &gh.ListOptions{PerPage: 2, Page: 2})
	if err != nil || len(page) != 1 || page[0].GetEvent() != "labeled" || resp.PrevPage != 1 {
		t.Errorf("page 2: %v %d %+v", err, len(page), resp)
	}
	one, _, err := c.Issues.GetEvent(ctx, "acme", "api", events[1].GetID())
	if err != nil || one.GetEvent() != "closed" || one.GetIssue().GetNumber() != 2 || one.GetURL() != events[1].GetURL() {
		t.Errorf("get event: %v %+v", err, one)
	}
	// The url an event carries leads to it.
	if st, b := env.Do(t, "GET", strings.TrimPrefix(events[0].GetURL(), env.APIURL), "", nil); st != 200 || !strings.Contains(string(b), `"event":"reopened"`) {
		t.Errorf("event url: %d %s", st, b)
	}
	if _, _, err := c.Issues.GetEvent(ctx, "acme", "api", 999999); apiStatus(err) != 404 {
		t.Errorf("unknown event: %v", err)
	}
	if _, _, err := c.Issues.ListRepositoryEvents(ctx, "acme", "nope", nil); apiStatus(err) != 404 {
		t.Errorf("unknown repository: %v", err)
	}
	// One issue's events carry no issue, as GitHub's do.
	if st, b := env.Do(t, "GET", "/repos/acme/api/issues/1/events", "", nil); st != 200 || strings.Contains(string(b), `"issue":`) {
		t.Errorf("one issue's events: %d %s", st, b)
	}
}
