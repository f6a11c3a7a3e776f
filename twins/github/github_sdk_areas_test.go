package github_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	gh "github.com/google/go-github/v84/github"

	"github.com/pomehq/pome/rest/resttest"
	"github.com/pomehq/pome/twins/github"
)

// These tests walk go-github through every REST area the twin binds, on the
// complete example seed.

func TestSDKRepositoriesAndUsers(t *testing.T) {
	env := resttest.Start(t, github.New(), github.SeedExample)
	c := client(t, env)
	ctx := context.Background()

	me, _, err := c.Users.Get(ctx, "")
	if err != nil || me.GetLogin() != "pome-agent" {
		t.Fatalf("GET /user: %v %+v", err, me)
	}
	alice, _, err := c.Users.Get(ctx, "alice")
	if err != nil || alice.GetName() != "Alice Liddell" {
		t.Fatalf("GET /users/alice: %v %+v", err, alice)
	}
	if _, _, err := c.Users.Get(ctx, "nobody"); apiStatus(err) != 404 {
		t.Errorf("unknown user: %v", err)
	}
	repo, _, err := c.Repositories.Get(ctx, "acme", "api")
	if err != nil || repo.GetDefaultBranch() != "main" || repo.GetOwner().GetLogin() != "acme" || repo.GetOpenIssuesCount() != 2 {
		t.Fatalf("get repo: %v %+v", err, repo)
	}
	orgRepos, _, err := c.Repositories.ListByOrg(ctx, "acme", nil)
	if err != nil || len(orgRepos) != 1 {
		t.Errorf("org repos: %v %d", err, len(orgRepos))
	}
	userRepos, _, err := c.Repositories.ListByUser(ctx, "alice", nil)
	if err != nil || len(userRepos) != 1 || userRepos[0].GetName() != "dotfiles" {
		t.Errorf("user repos: %v %+v", err, userRepos)
	}
	created, resp, err := c.Repositories.Create(ctx, "", &gh.Repository{Name: gh.Ptr("scratch"), AutoInit: gh.Ptr(true)})
	if err != nil || resp.StatusCode != http.StatusCreated || created.GetFullName() != "pome-agent/scratch" || created.GetPrivate() {
		t.Fatalf("create repo: %v %+v", err, created)
	}
	if _, _, err := c.Repositories.Create(ctx, "", &gh.Repository{Name: gh.Ptr("scratch")}); apiStatus(err) != 422 {
		t.Errorf("duplicate repo: %v", err)
	}
	inOrg, _, err := c.Repositories.Create(ctx, "acme", &gh.Repository{Name: gh.Ptr("web"), Private: gh.Ptr(true)})
	if err != nil || inOrg.GetFullName() != "acme/web" || !inOrg.GetPrivate() {
		t.Errorf("create in org: %v %+v", err, inOrg)
	}
	fork, resp, err := c.Repositories.CreateFork(ctx, "acme", "api", nil)
	if err != nil && resp.StatusCode != http.StatusAccepted {
		t.Fatalf("fork: %v", err)
	}
	if fork.GetFullName() != "pome-agent/api" || !fork.GetFork() || fork.GetParent().GetFullName() != "acme/api" {
		t.Errorf("fork: %+v", fork)
	}
	mine, _, err := c.Repositories.ListByAuthenticatedUser(ctx, nil)
	if err != nil || len(mine) < 3 {
		t.Errorf("my repos: %v %d", err, len(mine))
	}

	// Collaborators: list, check, add (no invitation step).
	collabs, _, err := c.Repositories.ListCollaborators(ctx, "acme", "api", nil)
	if err != nil || len(collabs) != 3 {
		t.Errorf("collaborators: %v %d", err, len(collabs))
	}
	if ok, _, err := c.Repositories.IsCollaborator(ctx, "acme", "api", "carol"); err != nil || ok {
		t.Errorf("carol is no collaborator: %v %v", ok, err)
	}
	if _, resp, err := c.Repositories.AddCollaborator(ctx, "acme", "api", "carol", nil); err != nil || resp.StatusCode != http.StatusNoContent {
		t.Fatalf("add collaborator: %v", err)
	}
	if ok, _, err := c.Repositories.IsCollaborator(ctx, "acme", "api", "carol"); err != nil || !ok {
		t.Errorf("carol added: %v %v", ok, err)
	}
}

func TestSDKBranchesHistoryAndReleases(t *testing.T) {
	env := resttest.Start(t, github.New(), github.SeedExample)
	c := client(t, env)
	ctx := context.Background()

	branches, _, err := c.Repositories.ListBranches(ctx, "acme", "api", nil)
	if err != nil || len(branches) != 3 {
		t.Fatalf("branches: %v %d", err, len(branches))
	}
	b, _, err := c.Repositories.GetBranch(ctx, "acme", "api", "fix-orders", 0)
	if err != nil || b.GetCommit().GetSHA() == "" {
		t.Fatalf("get branch: %v %+v", err, b)
	}
	// go-github's GetBranch reports a 404 as a plain error, not an ErrorResponse.
	if _, _, err := c.Repositories.GetBranch(ctx, "acme", "api", "nope", 0); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("unknown branch: %v", err)
	}
	ref, _, err := c.Git.GetRef(ctx, "acme", "api", "heads/fix-orders")
	if err != nil || ref.GetObject().GetSHA() != b.GetCommit().GetSHA() {
		t.Fatalf("git ref: %v %+v", err, ref)
	}
	if _, _, err := c.Git.CreateRef(ctx, "acme", "api", gh.CreateRef{Ref: "refs/heads/fix-orders", SHA: ref.GetObject().GetSHA()}); apiStatus(err) != 422 {
		t.Errorf("existing ref: %v", err)
	}
	if _, _, err := c.Git.CreateRef(ctx, "acme", "api", gh.CreateRef{Ref: "refs/heads/topic", SHA: ref.GetObject().GetSHA()}); err != nil {
		t.Fatal(err)
	}
	main, _, _ := c.Git.GetRef(ctx, "acme", "api", "heads/main")
	if _, _, err := c.Git.UpdateRef(ctx, "acme", "api", "heads/topic", gh.UpdateRef{SHA: main.GetObject().GetSHA(), Force: gh.Ptr(true)}); err != nil {
		t.Errorf("force-update ref: %v", err)
	}
	if _, err := c.Git.DeleteRef(ctx, "acme", "api", "heads/topic"); err != nil {
		t.Errorf("delete ref: %v", err)
	}

	commits, _, err := c.Repositories.ListCommits(ctx, "acme", "api", &gh.CommitsListOptions{SHA: "fix-orders"})
	if err != nil || len(commits) < 2 || commits[0].GetCommit().GetMessage() != "Fix order creation" {
		t.Fatalf("commits on fix-orders: %v %+v", err, commits)
	}
	one, _, err := c.Repositories.GetCommit(ctx, "acme", "api", commits[0].GetSHA(), nil)
	if err != nil || len(one.Files) != 1 || one.Files[0].GetFilename() != "orders.go" || one.GetStats().GetTotal() == 0 {
		t.Errorf("get commit: %v %+v", err, one)
	}
	tags, _, err := c.Repositories.ListTags(ctx, "acme", "api", nil)
	if err != nil || len(tags) != 1 || tags[0].GetName() != "v0.9.0" {
		t.Errorf("tags: %v %+v", err, tags)
	}
	rels, _, err := c.Repositories.ListReleases(ctx, "acme", "api", nil)
	if err != nil || len(rels) != 1 {
		t.Errorf("releases: %v %d", err, len(rels))
	}
	latest, _, err := c.Repositories.GetLatestRelease(ctx, "acme", "api")
	if err != nil || latest.GetTagName() != "v0.9.0" {
		t.Errorf("latest release: %v %+v", err, latest)
	}
	if _, _, err := c.Repositories.GetReleaseByTag(ctx, "acme", "api", "v9"); apiStatus(err) != 404 {
		t.Errorf("unknown release: %v", err)
	}
	rel, resp, err := c.Repositories.CreateRelease(ctx, "acme", "api", &gh.RepositoryRelease{TagName: gh.Ptr("v1.0.0"), Name: gh.Ptr("v1.0.0")})
	if err != nil || resp.StatusCode != http.StatusCreated || rel.GetTagName() != "v1.0.0" {
		t.Fatalf("create release: %v %+v", err, rel)
	}
	byTag, _, err := c.Repositories.GetReleaseByTag(ctx, "acme", "api", "v1.0.0")
	if err != nil || byTag.GetID() != rel.GetID() {
		t.Errorf("release by tag: %v %+v", err, byTag)
	}

	// Deleting a file needs its sha; with it the file goes.
	readme, _, _, err := c.Repositories.GetContents(ctx, "acme", "api", "orders.go", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Repositories.DeleteFile(ctx, "acme", "api", "orders.go", &gh.RepositoryContentFileOptions{Message: gh.Ptr("rm")}); apiStatus(err) != 422 {
		t.Errorf("delete without sha: %v", err)
	}
	if _, _, err := c.Repositories.DeleteFile(ctx, "acme", "api", "orders.go", &gh.RepositoryContentFileOptions{Message: gh.Ptr("rm"), SHA: readme.SHA}); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := c.Repositories.GetContents(ctx, "acme", "api", "orders.go", nil); apiStatus(err) != 404 {
		t.Errorf("deleted file: %v", err)
	}
	_, dir, _, err := c.Repositories.GetContents(ctx, "acme", "api", "", nil)
	if err != nil || len(dir) == 0 {
		t.Errorf("root listing: %v %d", err, len(dir))
	}
}

func TestSDKIssueDetails(t *testing.T) {
	env := resttest.Start(t, github.New(), github.SeedExample)
	c := client(t, env)
	ctx := context.Background()

	// Repository labels.
	labels, _, err := c.Issues.ListLabels(ctx, "acme", "api", nil)
	if err != nil || len(labels) != 3 {
		t.Fatalf("labels: %v %d", err, len(labels))
	}
	if _, _, err := c.Issues.CreateLabel(ctx, "acme", "api", &gh.Label{Name: gh.Ptr("Bug"), Color: gh.Ptr("ffffff")}); apiStatus(err) != 422 {
		t.Errorf("duplicate label: %v", err)
	}
	if _, _, err := c.Issues.CreateLabel(ctx, "acme", "api", &gh.Label{Name: gh.Ptr("p1"), Color: gh.Ptr("ff0000")}); err != nil {
		t.Fatal(err)
	}
	if l, _, err := c.Issues.EditLabel(ctx, "acme", "api", "p1", &gh.Label{Name: gh.Ptr("priority-1")}); err != nil || l.GetName() != "priority-1" {
		t.Errorf("rename label: %v %+v", err, l)
	}
	if l, _, err := c.Issues.GetLabel(ctx, "acme", "api", "priority-1"); err != nil || l.GetColor() != "ff0000" {
		t.Errorf("get label: %v %+v", err, l)
	}
	if _, err := c.Issues.DeleteLabel(ctx, "acme", "api", "priority-1"); err != nil {
		t.Errorf("delete label: %v", err)
	}

	// Labels and assignees on an issue.
	if ls, _, err := c.Issues.ReplaceLabelsForIssue(ctx, "acme", "api", 1, []string{"bug", "feature"}); err != nil || len(ls) != 2 {
		t.Errorf("set labels: %v %+v", err, ls)
	}
	if _, err := c.Issues.RemoveLabelForIssue(ctx, "acme", "api", 1, "feature"); err != nil {
		t.Errorf("remove label: %v", err)
	}
	if _, err := c.Issues.RemoveLabelForIssue(ctx, "acme", "api", 1, "feature"); apiStatus(err) != 404 {
		t.Errorf("remove absent label: %v", err)
	}
	if ls, _, err := c.Issues.ListLabelsByIssue(ctx, "acme", "api", 1, nil); err != nil || len(ls) != 1 {
		t.Errorf("issue labels: %v %+v", err, ls)
	}
	is, _, err := c.Issues.AddAssignees(ctx, "acme", "api", 1, []string{"alice"})
	if err != nil || len(is.Assignees) != 2 {
		t.Errorf("add assignees: %v %+v", err, is)
	}
	if is, _, err = c.Issues.RemoveAssignees(ctx, "acme", "api", 1, []string{"bob"}); err != nil || len(is.Assignees) != 1 || is.Assignees[0].GetLogin() != "alice" {
		t.Errorf("remove assignees: %v %+v", err, is)
	}

	// Edit: close as not planned, then milestones.
	closed, _, err := c.Issues.Edit(ctx, "acme", "api", 1, &gh.IssueRequest{State: gh.Ptr("closed"), StateReason: gh.Ptr("not_planned")})
	if err != nil || closed.GetState() != "closed" || closed.GetStateReason() != "not_planned" || closed.GetClosedBy().GetLogin() != "pome-agent" {
		t.Errorf("close: %v %+v", err, closed)
	}
	if _, _, err := c.Issues.Edit(ctx, "acme", "api", 1, &gh.IssueRequest{Title: gh.Ptr("")}); apiStatus(err) != 422 {
		t.Errorf("empty title: %v", err)
	}
	ms, resp, err := c.Issues.CreateMilestone(ctx, "acme", "api", &gh.Milestone{Title: gh.Ptr("v2.0")})
	if err != nil || resp.StatusCode != http.StatusCreated || ms.GetNumber() != 2 {
		t.Fatalf("create milestone: %v %+v", err, ms)
	}
	if all, _, err := c.Issues.ListMilestones(ctx, "acme", "api", nil); err != nil || len(all) != 2 {
		t.Errorf("milestones: %v %d", err, len(all))
	}
	if m, _, err := c.Issues.GetMilestone(ctx, "acme", "api", 1); err != nil || m.GetTitle() != "v1.0" {
		t.Errorf("get milestone: %v %+v", err, m)
	}

	// Comments: create, get, edit, list, delete.
	cm, _, err := c.Issues.CreateComment(ctx, "acme", "api", 2, &gh.IssueComment{Body: gh.Ptr("Answered in the docs.")})
	if err != nil {
		t.Fatal(err)
	}
	if got, _, err := c.Issues.GetComment(ctx, "acme", "api", cm.GetID()); err != nil || got.GetBody() != "Answered in the docs." {
		t.Errorf("get comment: %v %+v", err, got)
	}
	if got, _, err := c.Issues.EditComment(ctx, "acme", "api", cm.GetID(), &gh.IssueComment{Body: gh.Ptr("See docs/usage.md.")}); err != nil || got.GetBody() != "See docs/usage.md." {
		t.Errorf("edit comment: %v %+v", err, got)
	}
	if list, _, err := c.Issues.ListComments(ctx, "acme", "api", 2, nil); err != nil || len(list) != 1 {
		t.Errorf("list comments: %v %d", err, len(list))
	}
	if _, err := c.Issues.DeleteComment(ctx, "acme", "api", cm.GetID()); err != nil {
		t.Errorf("delete comment: %v", err)
	}
	if _, _, err := c.Issues.GetComment(ctx, "acme", "api", cm.GetID()); apiStatus(err) != 404 {
		t.Errorf("deleted comment: %v", err)
	}

	// Lock and unlock.
	if _, err := c.Issues.Lock(ctx, "acme", "api", 2, &gh.LockIssueOptions{LockReason: "resolved"}); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := c.Issues.Get(ctx, "acme", "api", 2); !got.GetLocked() || got.GetActiveLockReason() != "resolved" {
		t.Errorf("locked: %+v", got)
	}
	if _, err := c.Issues.Unlock(ctx, "acme", "api", 2); err != nil {
		t.Errorf("unlock: %v", err)
	}

	// History: events and timeline show what happened.
	events, _, err := c.Issues.ListIssueEvents(ctx, "acme", "api", 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, e := range events {
		seen[e.GetEvent()] = true
	}
	for _, want := range []string{"labeled", "unlabeled", "assigned", "unassigned", "closed"} {
		if !seen[want] {
			t.Errorf("events lack %s: %v", want, seen)
		}
	}
	timeline, _, err := c.Issues.ListIssueTimeline(ctx, "acme", "api", 1, nil)
	if err != nil || len(timeline) < len(events) {
		t.Errorf("timeline: %v %d < %d", err, len(timeline), len(events))
	}

	// Filters of the issue list.
	open, _, err := c.Issues.ListByRepo(ctx, "acme", "api", &gh.IssueListByRepoOptions{State: "all", Labels: []string{"question"}})
	if err != nil || len(open) != 1 || open[0].GetNumber() != 2 {
		t.Errorf("filter by label: %v %+v", err, open)
	}
	prs, _, err := c.Issues.ListByRepo(ctx, "acme", "api", &gh.IssueListByRepoOptions{Creator: "bob"})
	if err != nil || len(prs) != 1 || !prs[0].IsPullRequest() {
		t.Errorf("filter by creator: %v %+v", err, prs)
	}
}

func TestSDKPullRequestsReviewsAndChecks(t *testing.T) {
	env := resttest.Start(t, github.New(), github.SeedExample)
	c := client(t, env)
	ctx := context.Background()

	list, _, err := c.PullRequests.List(ctx, "acme", "api", &gh.PullRequestListOptions{State: "all"})
	if err != nil || len(list) != 2 {
		t.Fatalf("list: %v %d", err, len(list))
	}
	pr, _, err := c.PullRequests.Get(ctx, "acme", "api", 3)
	if err != nil || pr.GetHead().GetRef() != "fix-orders" || pr.GetMergeable() != true || pr.GetChangedFiles() != 1 {
		t.Fatalf("get: %v %+v", err, pr)
	}
	if _, _, err := c.PullRequests.Get(ctx, "acme", "api", 1); apiStatus(err) != 404 {
		t.Errorf("an issue is no pull request: %v", err)
	}
	files, _, err := c.PullRequests.ListFiles(ctx, "acme", "api", 3, nil)
	if err != nil || len(files) != 1 || files[0].GetFilename() != "orders.go" || files[0].GetStatus() != "modified" {
		t.Errorf("files: %v %+v", err, files)
	}
	commits, _, err := c.PullRequests.ListCommits(ctx, "acme", "api", 3, nil)
	if err != nil || len(commits) != 1 {
		t.Errorf("commits: %v %d", err, len(commits))
	}
	edited, _, err := c.PullRequests.Edit(ctx, "acme", "api", 3, &gh.PullRequest{Title: gh.Ptr("Fix order creation (validate input)")})
	if err != nil || edited.GetTitle() != "Fix order creation (validate input)" {
		t.Errorf("edit: %v %+v", err, edited)
	}

	// Reviewers and reviews.
	if _, _, err := c.PullRequests.RequestReviewers(ctx, "acme", "api", 3, gh.ReviewersRequest{Reviewers: []string{"pome-agent"}}); err != nil {
		t.Errorf("request reviewers: %v", err)
	}
	if _, _, err := c.PullRequests.RequestReviewers(ctx, "acme", "api", 3, gh.ReviewersRequest{Reviewers: []string{"carol"}}); apiStatus(err) != 422 {
		t.Errorf("reviewer who is no collaborator: %v", err)
	}
	rv, _, err := c.PullRequests.ListReviewers(ctx, "acme", "api", 3)
	if err != nil || len(rv.Users) != 2 {
		t.Errorf("requested reviewers: %v %+v", err, rv)
	}
	for _, ev := range []string{"COMMENT", "REQUEST_CHANGES", "APPROVE"} {
		r, _, err := c.PullRequests.CreateReview(ctx, "acme", "api", 3, &gh.PullRequestReviewRequest{Event: gh.Ptr(ev), Body: gh.Ptr("review " + ev)})
		if err != nil {
			t.Fatalf("%s: %v", ev, err)
		}
		want := map[string]string{"COMMENT": "COMMENTED", "REQUEST_CHANGES": "CHANGES_REQUESTED", "APPROVE": "APPROVED"}[ev]
		if r.GetState() != want {
			t.Errorf("%s review state %s", ev, r.GetState())
		}
	}
	reviews, _, err := c.PullRequests.ListReviews(ctx, "acme", "api", 3, nil)
	if err != nil || len(reviews) != 4 {
		t.Errorf("reviews: %v %d", err, len(reviews))
	}
	rc, resp, err := c.PullRequests.CreateComment(ctx, "acme", "api", 3, &gh.PullRequestComment{Body: gh.Ptr("Nit"), Path: gh.Ptr("orders.go"), Line: gh.Ptr(3), CommitID: gh.Ptr(pr.GetHead().GetSHA())})
	if err != nil || resp.StatusCode != http.StatusCreated || rc.GetPath() != "orders.go" {
		t.Fatalf("review comment: %v %+v", err, rc)
	}
	if rcs, _, err := c.PullRequests.ListComments(ctx, "acme", "api", 3, nil); err != nil || len(rcs) != 1 {
		t.Errorf("review comments: %v %d", err, len(rcs))
	}

	// Statuses and check runs on the head.
	head := pr.GetHead().GetSHA()
	st, resp, err := c.Repositories.CreateStatus(ctx, "acme", "api", head, gh.RepoStatus{State: gh.Ptr("failure"), Context: gh.Ptr("ci/lint")})
	if err != nil || resp.StatusCode != http.StatusCreated || st.GetState() != "failure" {
		t.Fatalf("create status: %v %+v", err, st)
	}
	if _, _, err := c.Repositories.CreateStatus(ctx, "acme", "api", head, gh.RepoStatus{State: gh.Ptr("green")}); apiStatus(err) != 422 {
		t.Errorf("bad status state: %v", err)
	}
	combined, _, err := c.Repositories.GetCombinedStatus(ctx, "acme", "api", "fix-orders", nil)
	if err != nil || combined.GetState() != "failure" || combined.GetTotalCount() != 2 {
		t.Errorf("combined: %v %+v", err, combined)
	}
	if sts, _, err := c.Repositories.ListStatuses(ctx, "acme", "api", "fix-orders", nil); err != nil || len(sts) != 2 {
		t.Errorf("statuses: %v %d", err, len(sts))
	}
	run, resp, err := c.Checks.CreateCheckRun(ctx, "acme", "api", gh.CreateCheckRunOptions{Name: "e2e", HeadSHA: head, Status: gh.Ptr("completed"), Conclusion: gh.Ptr("failure")})
	if err != nil || resp.StatusCode != http.StatusCreated || run.GetConclusion() != "failure" {
		t.Fatalf("check run: %v %+v", err, run)
	}
	runs, _, err := c.Checks.ListCheckRunsForRef(ctx, "acme", "api", "fix-orders", nil)
	if err != nil || runs.GetTotal() != 2 {
		t.Errorf("check runs: %v %+v", err, runs)
	}

	// A draft cannot be merged: 405.
	if _, _, err := c.PullRequests.Edit(ctx, "acme", "api", 3, &gh.PullRequest{State: gh.Ptr("closed")}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.PullRequests.Merge(ctx, "acme", "api", 3, "", nil); apiStatus(err) != 405 {
		t.Errorf("merge a closed pull request: %v", err)
	}
}
