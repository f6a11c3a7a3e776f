// These tests drive the twin through go-github over real HTTP, unchanged
// but for the base URL.

package github_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	gh "github.com/google/go-github/v84/github"

	"github.com/pomehq/pome/rest/resttest"
	"github.com/pomehq/pome/twins/github"
)

// client points go-github at the twin, unchanged but for the base URL.
func client(t *testing.T, env *resttest.Env) *gh.Client {
	t.Helper()
	// WithEnterpriseURLs appends /api/v3/, which the twin also serves.
	c, err := gh.NewClient(nil).WithAuthToken(env.Token).WithEnterpriseURLs(env.APIURL+"/", env.APIURL+"/")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func apiStatus(err error) int {
	var er *gh.ErrorResponse
	if errors.As(err, &er) {
		return er.Response.StatusCode
	}
	return 0
}

func TestSDKIssues(t *testing.T) {
	env := resttest.Start(t, github.New(), "")
	c := client(t, env)
	ctx := context.Background()

	is, resp, err := c.Issues.Get(ctx, "acme", "api", 1)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Rate.Limit != 5000 || resp.Rate.Reset.IsZero() || !strings.HasPrefix(resp.Header.Get("ETag"), `W/"`) || !strings.HasPrefix(resp.Header.Get("X-GitHub-Request-Id"), "req_") {
		t.Errorf("protocol headers: rate %+v, etag %q, request id %q", resp.Rate, resp.Header.Get("ETag"), resp.Header.Get("X-GitHub-Request-Id"))
	}
	if is.GetTitle() != "500 error on POST /orders after deploy" || is.GetState() != "open" {
		t.Errorf("get: %+v", is)
	}
	labels, _, err := c.Issues.AddLabelsToIssue(ctx, "acme", "api", 1, []string{"bug"})
	if err != nil || len(labels) != 1 || labels[0].GetName() != "bug" {
		t.Fatalf("add labels: %v %+v", err, labels)
	}
	cm, resp, err := c.Issues.CreateComment(ctx, "acme", "api", 1, &gh.IssueComment{Body: gh.Ptr("Triaged")})
	if err != nil || resp.StatusCode != http.StatusCreated || cm.GetBody() != "Triaged" {
		t.Fatalf("comment: %v %+v", err, cm)
	}
	// A create names the new resource in Location, as GitHub does.
	if loc := resp.Header.Get("Location"); loc == "" || loc != cm.GetURL() {
		t.Errorf("comment Location %q, want its url %q", loc, cm.GetURL())
	}
	_, _, err = c.Issues.Create(ctx, "acme", "api", &gh.IssueRequest{Title: gh.Ptr("x"), Assignees: &[]string{"mallory"}})
	var er *gh.ErrorResponse
	if !errors.As(err, &er) || er.Response.StatusCode != 422 || er.Message != "Validation Failed" || len(er.Errors) != 1 || er.Errors[0].Field != "assignees" {
		t.Errorf("422: %v", err)
	}
	if _, _, err := c.Issues.Get(ctx, "acme", "api", 99); apiStatus(err) != 404 {
		t.Errorf("404: %v", err)
	}
	for i := 0; i < 4; i++ {
		if _, _, err := c.Issues.Create(ctx, "acme", "api", &gh.IssueRequest{Title: gh.Ptr("bulk")}); err != nil {
			t.Fatal(err)
		}
	}
	// Pagination through the Link header.
	var all []*gh.Issue
	opt := &gh.IssueListByRepoOptions{ListOptions: gh.ListOptions{PerPage: 2}}
	for {
		page, resp, err := c.Issues.ListByRepo(ctx, "acme", "api", opt)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, page...)
		if resp.NextPage == 0 {
			if resp.FirstPage != 1 {
				t.Errorf("last page links first=%d", resp.FirstPage)
			}
			break
		}
		opt.ListOptions.Page = resp.NextPage
	}
	if len(all) != 5 {
		t.Errorf("paged %d issues, want 5", len(all))
	}
}

// TestSDKLocation: creates answer 201 with the new resource's API URL in
// Location, reads carry none.
func TestSDKLocation(t *testing.T) {
	env := resttest.Start(t, github.New(), "")
	c := client(t, env)
	ctx := context.Background()
	created, resp, err := c.Issues.Create(ctx, "acme", "api", &gh.IssueRequest{Title: gh.Ptr("Location probe")})
	if err != nil || resp.Header.Get("Location") != created.GetURL() || !strings.HasSuffix(created.GetURL(), fmt.Sprintf("/repos/acme/api/issues/%d", created.GetNumber())) {
		t.Fatalf("issue Location %q, url %q: %v", resp.Header.Get("Location"), created.GetURL(), err)
	}
	if _, resp, _ := c.Issues.Get(ctx, "acme", "api", 1); resp.Header.Get("Location") != "" {
		t.Errorf("a read carries Location %q", resp.Header.Get("Location"))
	}
	lbl, resp, err := c.Issues.CreateLabel(ctx, "acme", "api", &gh.Label{Name: gh.Ptr("triage"), Color: gh.Ptr("ededed")})
	if err != nil || resp.StatusCode != http.StatusCreated || resp.Header.Get("Location") != lbl.GetURL() {
		t.Errorf("label Location %q, url %q: %v", resp.Header.Get("Location"), lbl.GetURL(), err)
	}
}

func TestSDKContentsAndMerge(t *testing.T) {
	env := resttest.Start(t, github.New(), "")
	c := client(t, env)
	ctx := context.Background()

	file, _, _, err := c.Repositories.GetContents(ctx, "acme", "api", "README.md", nil)
	if err != nil {
		t.Fatal(err)
	}
	text, _ := file.GetContent()
	if !strings.HasPrefix(text, "# api") {
		t.Errorf("README: %q", text)
	}
	main, _, err := c.Git.GetRef(ctx, "acme", "api", "heads/main")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Git.CreateRef(ctx, "acme", "api", gh.CreateRef{Ref: "refs/heads/fix", SHA: main.GetObject().GetSHA()}); err != nil {
		t.Fatal(err)
	}
	// Updating without sha is a 422, with a stale sha a 409.
	_, _, err = c.Repositories.CreateFile(ctx, "acme", "api", "README.md", &gh.RepositoryContentFileOptions{Message: gh.Ptr("m"), Content: []byte("x"), Branch: gh.Ptr("fix")})
	if apiStatus(err) != 422 {
		t.Errorf("no sha: %v", err)
	}
	_, _, err = c.Repositories.UpdateFile(ctx, "acme", "api", "README.md", &gh.RepositoryContentFileOptions{Message: gh.Ptr("m"), Content: []byte("x"), Branch: gh.Ptr("fix"), SHA: gh.Ptr("0000000000000000000000000000000000000000")})
	if apiStatus(err) != 409 {
		t.Errorf("stale sha: %v", err)
	}
	if _, resp, err := c.Repositories.UpdateFile(ctx, "acme", "api", "README.md", &gh.RepositoryContentFileOptions{Message: gh.Ptr("Fix readme"), Content: []byte("# api v2\n"), Branch: gh.Ptr("fix"), SHA: file.SHA}); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("update: %v", err)
	}
	// A new file is 201 Created.
	if _, resp, err := c.Repositories.CreateFile(ctx, "acme", "api", "NOTES.md", &gh.RepositoryContentFileOptions{Message: gh.Ptr("Add notes"), Content: []byte("notes\n"), Branch: gh.Ptr("fix")}); err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("create: %v %v", err, resp)
	}
	pr, _, err := c.PullRequests.Create(ctx, "acme", "api", &gh.NewPullRequest{Title: gh.Ptr("Fix readme"), Head: gh.Ptr("fix"), Base: gh.Ptr("main")})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.PullRequests.Create(ctx, "acme", "api", &gh.NewPullRequest{Title: gh.Ptr("x"), Head: gh.Ptr("nope"), Base: gh.Ptr("main")}); apiStatus(err) != 422 {
		t.Errorf("missing head: %v", err)
	}
	res, _, err := c.PullRequests.Merge(ctx, "acme", "api", pr.GetNumber(), "", nil)
	if err != nil || !res.GetMerged() {
		t.Fatalf("merge: %v %+v", err, res)
	}
	after, _, _, err := c.Repositories.GetContents(ctx, "acme", "api", "README.md", &gh.RepositoryContentGetOptions{Ref: "main"})
	if err != nil {
		t.Fatal(err)
	}
	if text, _ := after.GetContent(); text != "# api v2\n" {
		t.Errorf("main after merge: %q", text)
	}
	if _, _, err := c.PullRequests.Merge(ctx, "acme", "api", pr.GetNumber(), "", nil); apiStatus(err) != 405 {
		t.Errorf("merge twice: %v", err)
	}
	commits, _, err := c.Repositories.ListCommits(ctx, "acme", "api", nil)
	if err != nil || len(commits) != 4 { // initial, readme fix, notes, merge
		t.Errorf("commits: %v %d", err, len(commits))
	}
}

func TestSDKSearch(t *testing.T) {
	env := resttest.Start(t, github.New(), github.SeedExample)
	c := client(t, env)
	ctx := context.Background()

	res, _, err := c.Search.Issues(ctx, `repo:acme/api is:issue label:bug "POST /orders"`, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.GetTotal() != 1 || res.GetIncompleteResults() || len(res.Issues) != 1 || res.Issues[0].GetNumber() != 1 {
		t.Fatalf("issues: %+v", res)
	}
	prs, _, err := c.Search.Issues(ctx, "repo:acme/api is:pr is:open", nil)
	if err != nil || len(prs.Issues) != 1 || !prs.Issues[0].IsPullRequest() {
		t.Fatalf("pull requests: %v %+v", err, prs)
	}
	// Paging through Link, one hit per page.
	var seen []int
	opt := &gh.SearchOptions{Sort: "created", Order: "asc", ListOptions: gh.ListOptions{PerPage: 1}}
	for {
		page, resp, err := c.Search.Issues(ctx, "repo:acme/api", opt)
		if err != nil {
			t.Fatal(err)
		}
		if page.GetTotal() != 4 {
			t.Errorf("total_count %d on every page", page.GetTotal())
		}
		for _, is := range page.Issues {
			seen = append(seen, is.GetNumber())
		}
		if resp.NextPage == 0 {
			break
		}
		if resp.LastPage != 0 && resp.LastPage != 4 {
			t.Errorf("last page %d", resp.LastPage)
		}
		opt.Page = resp.NextPage
	}
	if fmt.Sprint(seen) != "[1 2 3 4]" {
		t.Errorf("paged %v", seen)
	}
	// A repository that does not exist is GitHub's 422.
	_, _, err = c.Search.Issues(ctx, "repo:acme/nope bug", nil)
	var er *gh.ErrorResponse
	if !errors.As(err, &er) || er.Response.StatusCode != 422 || len(er.Errors) != 1 || er.Errors[0].Field != "q" || er.Errors[0].Code != "invalid" || er.Errors[0].Message == "" {
		t.Errorf("unknown repo: %v", err)
	}

	repos, _, err := c.Search.Repositories(ctx, "topic:orders", nil)
	if err != nil || repos.GetTotal() != 1 || repos.Repositories[0].GetFullName() != "acme/api" {
		t.Errorf("repositories: %v %+v", err, repos)
	}
	code, _, err := c.Search.Code(ctx, "CreateOrder repo:acme/api", nil)
	if err != nil || code.GetTotal() != 1 {
		t.Fatalf("code: %v %+v", err, code)
	}
	if hit := code.CodeResults[0]; hit.GetPath() != "orders.go" || hit.GetName() != "orders.go" || hit.GetSHA() == "" || hit.GetRepository().GetFullName() != "acme/api" {
		t.Errorf("code hit: %+v", hit)
	}
	users, _, err := c.Search.Users(ctx, "alice", nil)
	if err != nil || users.GetTotal() != 1 || users.Users[0].GetLogin() != "alice" {
		t.Errorf("users: %v %+v", err, users)
	}
	commits, _, err := c.Search.Commits(ctx, "repo:acme/api merge:true", nil)
	if err != nil || commits.GetTotal() != 1 || commits.Commits[0].GetRepository().GetFullName() != "acme/api" || !strings.HasPrefix(commits.Commits[0].GetCommit().GetMessage(), "Merge pull request #4") {
		t.Errorf("commits: %v %+v", err, commits)
	}
	if _, _, err := c.Search.Code(ctx, "", nil); apiStatus(err) != 422 {
		t.Errorf("empty query: %v", err)
	}
}
