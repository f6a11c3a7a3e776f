package github

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/pomehq/pome/twins"
)

// pullPath is GitHub's path of one pull request.
const pullPath = "/repos/{owner}/{repo}/pulls/{pull_number}"

// pullRename maps GitHub REST's pull_number onto github-mcp-server's
// pullNumber.
var pullRename = map[string]string{"pull_number": "pullNumber", "per_page": "perPage"}

// APIPullBranch is a pull request's head or base.
type APIPullBranch struct {
	Label string         `json:"label"`
	Ref   string         `json:"ref"`
	SHA   string         `json:"sha"`
	User  *APIUser       `json:"user"`
	Repo  *APIRepository `json:"repo"`
}

// APIPullRequest is GitHub's pull request object.
type APIPullRequest struct {
	URL                 string        `json:"url"`
	ID                  int64         `json:"id"`
	NodeID              string        `json:"node_id"`
	HTMLURL             string        `json:"html_url"`
	DiffURL             string        `json:"diff_url"`
	PatchURL            string        `json:"patch_url"`
	IssueURL            string        `json:"issue_url"`
	CommitsURL          string        `json:"commits_url"`
	ReviewCommentsURL   string        `json:"review_comments_url"`
	ReviewCommentURL    string        `json:"review_comment_url"`
	CommentsURL         string        `json:"comments_url"`
	StatusesURL         string        `json:"statuses_url"`
	Number              int           `json:"number"`
	State               string        `json:"state"`
	Locked              bool          `json:"locked"`
	Title               string        `json:"title"`
	User                *APIUser      `json:"user"`
	Body                *string       `json:"body"`
	Labels              []APILabel    `json:"labels"`
	Milestone           *APIMilestone `json:"milestone"`
	ActiveLockReason    *string       `json:"active_lock_reason"`
	CreatedAt           string        `json:"created_at"`
	UpdatedAt           string        `json:"updated_at"`
	ClosedAt            *string       `json:"closed_at"`
	MergedAt            *string       `json:"merged_at"`
	MergeCommitSHA      *string       `json:"merge_commit_sha"`
	Assignee            *APIUser      `json:"assignee"`
	Assignees           []APIUser     `json:"assignees"`
	RequestedReviewers  []APIUser     `json:"requested_reviewers"`
	RequestedTeams      []APITeam     `json:"requested_teams"`
	Head                APIPullBranch `json:"head"`
	Base                APIPullBranch `json:"base"`
	AuthorAssociation   string        `json:"author_association"`
	AutoMerge           *struct{}     `json:"auto_merge"`
	Draft               bool          `json:"draft"`
	Merged              bool          `json:"merged"`
	Mergeable           *bool         `json:"mergeable"`
	Rebaseable          *bool         `json:"rebaseable"`
	MergeableState      string        `json:"mergeable_state"`
	MergedBy            *APIUser      `json:"merged_by"`
	Comments            int           `json:"comments"`
	ReviewComments      int           `json:"review_comments"`
	MaintainerCanModify bool          `json:"maintainer_can_modify"`
	Commits             int           `json:"commits"`
	Additions           int           `json:"additions"`
	Deletions           int           `json:"deletions"`
	ChangedFiles        int           `json:"changed_files"`
	Links               APIPullLinks  `json:"_links"`
}

// APIHref is one hypermedia link of a pull request's _links.
type APIHref struct {
	Href string `json:"href"`
}

// APIPullLinks is a pull request's _links.
type APIPullLinks struct {
	Self           APIHref `json:"self"`
	HTML           APIHref `json:"html"`
	Issue          APIHref `json:"issue"`
	Comments       APIHref `json:"comments"`
	ReviewComments APIHref `json:"review_comments"`
	ReviewComment  APIHref `json:"review_comment"`
	Commits        APIHref `json:"commits"`
	Statuses       APIHref `json:"statuses"`
}

// headSHA is the pull request's current head: the head branch while open,
// the recorded sha once merged or when the branch is gone.
func (r *Repo) headSHA(p *Pull) string {
	if !p.Merged {
		if b := r.branch(p.Head); b != nil {
			return b.SHA
		}
	}
	return p.HeadSHA
}

func (r *Repo) baseSHA(p *Pull) string {
	if !p.Merged {
		if b := r.branch(p.Base); b != nil {
			return b.SHA
		}
	}
	return p.BaseSHA
}

// pullDiff is what the pull request changes: head against the merge base.
func (v *view) pullDiff(r *Repo, p *Pull) ([]APICommitFile, APICommitStats) {
	head, base := r.headSHA(p), r.baseSHA(p)
	from := map[string]string{}
	if p.Merged {
		base = p.BaseSHA
	}
	if mb := r.mergeBase(base, head); mb != nil {
		from = mb.Tree
	}
	return v.diffFiles(r, from, r.commit(head).Tree, head)
}

func (v *view) pull(r *Repo, is *Issue) APIPullRequest {
	p := is.Pull
	u := fmt.Sprintf("%s/pulls/%d", v.repoURL(r), is.Number)
	issue := v.issue(r, is)
	html := fmt.Sprintf("%s/%s/pull/%d", v.html, r.FullName(), is.Number)
	head, base := r.headSHA(p), r.baseSHA(p)
	files, stats := v.pullDiff(r, p)
	commits := len(r.commitsBetween(p.BaseSHA, head))
	if !p.Merged {
		commits = len(r.commitsBetween(base, head))
	}
	reviewComments := len(p.ReviewComments)
	repo := v.repository(r)
	out := APIPullRequest{
		URL: u, ID: is.ID, NodeID: nodeID("PR", is.ID), HTMLURL: html, DiffURL: html + ".diff", PatchURL: html + ".patch",
		IssueURL: issue.URL, CommitsURL: u + "/commits", ReviewCommentsURL: u + "/comments", ReviewCommentURL: v.repoURL(r) + "/pulls/comments{/number}",
		CommentsURL: issue.CommentsURL, StatusesURL: v.repoURL(r) + "/statuses/" + head,
		Number: is.Number, State: is.State, Locked: is.Locked, Title: is.Title, User: issue.User, Body: issue.Body,
		Labels: issue.Labels, Milestone: issue.Milestone, ActiveLockReason: issue.ActiveLockReason,
		CreatedAt: issue.CreatedAt, UpdatedAt: issue.UpdatedAt, ClosedAt: issue.ClosedAt, MergedAt: tsPtr(p.MergedAt),
		MergeCommitSHA: strPtr(p.MergeCommitSHA), Assignee: issue.Assignee, Assignees: issue.Assignees,
		RequestedReviewers: v.users(p.RequestedReviewers), RequestedTeams: []APITeam{},
		Head:              APIPullBranch{Label: r.Owner + ":" + p.Head, Ref: p.Head, SHA: head, User: v.user(r.Owner), Repo: &repo},
		Base:              APIPullBranch{Label: r.Owner + ":" + p.Base, Ref: p.Base, SHA: base, User: v.user(r.Owner), Repo: &repo},
		AuthorAssociation: issue.AuthorAssociation, Draft: p.Draft, Merged: p.Merged, MergedBy: v.user(p.MergedBy),
		Comments: is.Comments.Len(), ReviewComments: reviewComments, MaintainerCanModify: false,
		Commits: commits, Additions: stats.Additions, Deletions: stats.Deletions, ChangedFiles: len(files),
	}
	out.Links = APIPullLinks{
		Self: APIHref{u}, HTML: APIHref{html}, Issue: APIHref{issue.URL}, Comments: APIHref{issue.CommentsURL},
		ReviewComments: APIHref{out.ReviewCommentsURL}, ReviewComment: APIHref{out.ReviewCommentURL},
		Commits: APIHref{out.CommitsURL}, Statuses: APIHref{out.StatusesURL},
	}
	if !p.Merged && is.State == "open" {
		_, conflicts := r.threeWay(base, head)
		ok := len(conflicts) == 0
		out.Mergeable, out.Rebaseable = &ok, &ok
		out.MergeableState = "clean"
		if !ok {
			out.MergeableState = "dirty"
		} else if p.Draft {
			out.MergeableState = "draft"
		}
	} else {
		out.MergeableState = "unknown"
	}
	return out
}

// pullOf finds a pull request by number (an issue number is a 404, as on
// GitHub's pulls endpoints).
func (r *Repo) pullOf(number int) (*Issue, error) {
	is, _ := r.issueIndex(number)
	if is == nil || is.Pull == nil {
		return nil, notFound("pull request #%d not found in %s", number, r.FullName())
	}
	return is, nil
}

// pullOf finds a repository and one of its pull requests, the lookup most
// pull request actions start with.
func (w *World) pullOf(owner, repo string, number int) (*Repo, *Issue, error) {
	r, err := w.repo(owner, repo)
	if err != nil {
		return nil, nil, err
	}
	is, err := r.pullOf(number)
	if err != nil {
		return nil, nil, err
	}
	return r, is, nil
}

// ListPullsIn is list_pull_requests' input.
type ListPullsIn struct {
	RepoRef
	State     string `json:"state,omitempty" jsonschema:"open (default), closed or all" enum:"open,closed,all"`
	Head      string `json:"head,omitempty" jsonschema:"Filter by head as user:branch or branch"`
	Base      string `json:"base,omitempty" jsonschema:"Filter by base branch"`
	Sort      string `json:"sort,omitempty" jsonschema:"created (default), updated, popularity or long-running" enum:"created,updated,popularity,long-running"`
	Direction string `json:"direction,omitempty" jsonschema:"asc or desc (default)" enum:"asc,desc"`
	Paging
	Fields []string `json:"fields,omitempty" jsonschema:"Fields to keep in each pull request over MCP (all when omitted); leave out body to shrink the answer" enum:"number,title,body,state,draft,merged,mergeable_state,html_url,user,labels,assignees,requested_reviewers,merged_by,head,base,additions,deletions,changed_files,commits,comments,created_at,updated_at,closed_at,merged_at,milestone"`
}

var listPullRequests = twins.New(twins.Spec{
	Name: "list_pull_requests", Title: "List pull requests",
	Description: "List pull requests in a GitHub repository, filtered by state, head and base.",
	Effect:      twins.Read,
	Bindings:    []twins.Binding{{Method: "GET", Path: "/repos/{owner}/{repo}/pulls", Rename: perPageRename, Shape: restShape, Headers: linkHeaders}},
}, func(ctx context.Context, w *World, in ListPullsIn) (*List[APIPullRequest], error) {
	r, err := w.repo(in.Owner, in.Repo)
	if err != nil {
		return nil, err
	}
	state, err := listState("PullRequest", in.State)
	if err != nil {
		return nil, err
	}
	dir := in.Direction
	if dir == "" {
		dir = "desc"
	}
	sortBy := "created"
	if in.Sort == "updated" {
		sortBy = "updated"
	}
	head := in.Head
	if i := strings.IndexByte(head, ':'); i >= 0 {
		head = head[i+1:]
	}
	var list []*Issue
	for _, is := range r.Issues {
		if is.Pull == nil || state != "all" && is.State != state {
			continue
		}
		if head != "" && is.Pull.Head != head || in.Base != "" && is.Pull.Base != in.Base {
			continue
		}
		list = append(list, is)
	}
	sortIssues(list, sortBy, dir)
	v := newView(ctx, w)
	items := make([]APIPullRequest, 0, len(list))
	for _, is := range list {
		items = append(items, v.pull(r, is))
	}
	q := url.Values{}
	for k, val := range map[string]string{"state": in.State, "head": in.Head, "base": in.Base, "sort": in.Sort, "direction": in.Direction} {
		if val != "" {
			q.Set(k, val)
		}
	}
	return newList(ctx, items, in.Paging, "/repos/"+r.FullName()+"/pulls", q), nil
})

// PullReadIn is pull_request_read's input (github-mcp-server's names).
type PullReadIn struct {
	Method string `json:"method" jsonschema:"get, get_diff, get_status, get_files, get_commits, get_review_comments, get_reviews, get_comments, get_check_runs or get_ci_summary" enum:"get,get_diff,get_status,get_files,get_commits,get_review_comments,get_reviews,get_comments,get_check_runs,get_ci_summary"`
	RepoRef
	PullNumber int `json:"pullNumber" jsonschema:"Pull request number"`
	Paging
}

var pullRequestRead = twins.New(twins.Spec{
	Name: "pull_request_read", Title: "Get details for a single pull request",
	Description: "Get information on a pull request: details (get), diff (get_diff), combined status (get_status), changed files (get_files), commits (get_commits), review comments (get_review_comments), reviews (get_reviews), conversation comments (get_comments), check runs (get_check_runs) or one CI verdict over statuses and check runs (get_ci_summary).",
	Effect:      twins.Read,
	Bindings: []twins.Binding{
		{Method: "GET", Path: pullPath, Rename: pullRename, Fixed: map[string]any{"method": "get"}},
		{Method: "GET", Path: pullPath + "/files", Rename: pullRename, Fixed: map[string]any{"method": "get_files"}, Shape: restShape, Headers: linkHeaders},
		{Method: "GET", Path: pullPath + "/commits", Rename: pullRename, Fixed: map[string]any{"method": "get_commits"}, Shape: restShape, Headers: linkHeaders},
		{Method: "GET", Path: pullPath + "/reviews", Rename: pullRename, Fixed: map[string]any{"method": "get_reviews"}, Shape: restShape, Headers: linkHeaders},
		{Method: "GET", Path: pullPath + "/comments", Rename: pullRename, Fixed: map[string]any{"method": "get_review_comments"}, Shape: restShape, Headers: linkHeaders},
	},
}, func(ctx context.Context, w *World, in PullReadIn) (any, error) {
	r, is, err := w.pullOf(in.Owner, in.Repo, in.PullNumber)
	if err != nil {
		return nil, err
	}
	v := newView(ctx, w)
	p := is.Pull
	base := fmt.Sprintf("/repos/%s/pulls/%d", r.FullName(), is.Number)
	switch in.Method {
	case "get":
		switch rawMedia(ctx) {
		case "diff":
			return rawText("diff", v.pullDiffText(r, p)), nil
		case "patch":
			return rawText("patch", v.patchText(r, r.commitsBetween(r.pullFrom(p), r.headSHA(p)))), nil
		}
		return v.pull(r, is), nil
	case "get_diff":
		// The same text the REST diff media type answers.
		return &PullDiff{Diff: v.pullDiffText(r, p)}, nil
	case "get_status":
		return v.combinedStatus(r, r.headSHA(p)), nil
	case "get_files":
		files, _ := v.pullDiff(r, p)
		return newList(ctx, files, in.Paging, base+"/files", nil), nil
	case "get_commits":
		from := r.baseSHA(p)
		if p.Merged {
			from = p.BaseSHA
		}
		var items []APICommit
		for _, c := range r.commitsBetween(from, r.headSHA(p)) {
			items = append(items, v.commit(r, c, false))
		}
		if items == nil {
			items = []APICommit{}
		}
		return newList(ctx, items, in.Paging, base+"/commits", nil), nil
	case "get_reviews":
		items := []APIReview{}
		for _, rv := range p.Reviews {
			items = append(items, v.review(r, is, rv))
		}
		return newList(ctx, items, in.Paging, base+"/reviews", nil), nil
	case "get_review_comments":
		items := []APIReviewComment{}
		for _, c := range p.ReviewComments {
			items = append(items, v.reviewComment(r, is, c))
		}
		return newList(ctx, items, in.Paging, base+"/comments", nil), nil
	case "get_comments":
		items := []APIIssueComment{}
		for _, c := range is.Comments.All() {
			items = append(items, v.comment(r, is, c))
		}
		return newList(ctx, items, in.Paging, fmt.Sprintf("/repos/%s/issues/%d/comments", r.FullName(), is.Number), nil), nil
	case "get_check_runs":
		return v.checkRuns(r, r.headSHA(p)), nil
	case "get_ci_summary":
		return v.ciSummary(r, r.headSHA(p)), nil
	}
	return nil, invalid("PullRequest", "method", "invalid", "unknown method %q", in.Method)
})

// PullDiff is pull_request_read get_diff's answer.
type PullDiff struct {
	Diff string `json:"diff"`
}

// CreatePullIn is create_pull_request's input.
type CreatePullIn struct {
	RepoRef
	Title               string   `json:"title" jsonschema:"PR title"`
	Head                string   `json:"head" jsonschema:"Branch containing changes (branch or owner:branch)"`
	Base                string   `json:"base" jsonschema:"Branch to merge into"`
	Body                string   `json:"body,omitempty" jsonschema:"PR description"`
	Draft               bool     `json:"draft,omitempty" jsonschema:"Create as draft PR"`
	MaintainerCanModify bool     `json:"maintainer_can_modify,omitempty" jsonschema:"Allow maintainer edits"`
	Reviewers           []string `json:"reviewers,omitempty" jsonschema:"GitHub usernames to request reviews from"`
}

var createPullRequest = twins.New(twins.Spec{
	Name: "create_pull_request", Title: "Open new pull request",
	Description: "Create a new pull request in a GitHub repository from a head branch into a base branch; both must exist and differ.",
	Effect:      twins.Write,
	Bindings:    []twins.Binding{{Method: "POST", Path: "/repos/{owner}/{repo}/pulls", Status: 201}},
}, func(ctx context.Context, w *World, in CreatePullIn) (APIPullRequest, error) {
	r, err := w.repo(in.Owner, in.Repo)
	if err != nil {
		return APIPullRequest{}, err
	}
	if strings.TrimSpace(in.Title) == "" {
		return APIPullRequest{}, invalid("PullRequest", "title", "missing_field", "title is required")
	}
	head := in.Head
	if owner, branch, ok := strings.Cut(head, ":"); ok {
		if !strings.EqualFold(owner, r.Owner) {
			return APIPullRequest{}, invalid("PullRequest", "head", "invalid", "cross-repository pull requests are not supported by the twin (head %q)", in.Head)
		}
		head = branch
	}
	hb, bb := r.branch(head), r.branch(in.Base)
	if bb == nil {
		return APIPullRequest{}, invalid("PullRequest", "base", "invalid", "base branch %q does not exist", in.Base)
	}
	if hb == nil {
		return APIPullRequest{}, invalid("PullRequest", "head", "invalid", "head branch %q does not exist", in.Head)
	}
	if len(r.commitsBetween(bb.SHA, hb.SHA)) == 0 {
		return APIPullRequest{}, invalid("PullRequest", "", "custom", "No commits between %s and %s", bb.Name, hb.Name)
	}
	for _, is := range r.Issues {
		if is.Pull != nil && is.State == "open" && is.Pull.Head == hb.Name && is.Pull.Base == bb.Name {
			return APIPullRequest{}, invalid("PullRequest", "", "custom", "A pull request already exists for %s:%s.", r.Owner, hb.Name)
		}
	}
	reviewers, err := validReviewers(w, r, in.Reviewers, w.Me)
	if err != nil {
		return APIPullRequest{}, err
	}
	now := twins.EnvFrom(ctx).Now().UTC()
	is := &Issue{ID: w.nextID(), Number: r.NextNumber, Title: in.Title, Body: in.Body, State: "open", User: w.Me,
		Labels: []string{}, Assignees: []string{}, Events: []*Event{}, CreatedAt: now, UpdatedAt: now,
		Pull: &Pull{Head: hb.Name, Base: bb.Name, Draft: in.Draft, HeadSHA: hb.SHA, BaseSHA: bb.SHA,
			RequestedReviewers: reviewers, Reviews: []*Review{}, ReviewComments: []*ReviewComment{}}}
	r.NextNumber++
	r.addIssue(is)
	for _, rv := range reviewers {
		is.Events = append(is.Events, &Event{ID: w.nextID(), Event: "review_requested", Actor: w.Me, CreatedAt: now, Assignee: rv})
	}
	return newView(ctx, w).pull(r, is), nil
})

// validReviewers checks review requests: collaborators only, never the
// author (GitHub's 422 "Review cannot be requested from pull request author").
func validReviewers(w *World, r *Repo, logins []string, author string) ([]string, error) {
	out := []string{}
	for _, l := range logins {
		u := w.user(l)
		if u == nil || !r.isCollaborator(u.Login) {
			return nil, invalid("PullRequest", "reviewers", "custom", "Reviews may only be requested from collaborators. One or more of the users or teams you specified is not a collaborator of the %s repository.", r.FullName())
		}
		if strings.EqualFold(u.Login, author) {
			return nil, invalid("PullRequest", "reviewers", "custom", "Review cannot be requested from pull request author.")
		}
		if !containsFold(out, u.Login) {
			out = append(out, u.Login)
		}
	}
	return out, nil
}

// UpdatePullIn is update_pull_request's input.
type UpdatePullIn struct {
	RepoRef
	PullNumber          int      `json:"pullNumber" jsonschema:"Pull request number to update"`
	Title               *string  `json:"title,omitempty" jsonschema:"New title"`
	Body                *string  `json:"body,omitempty" jsonschema:"New description"`
	State               *string  `json:"state,omitempty" jsonschema:"New state: open or closed" enum:"open,closed"`
	Base                *string  `json:"base,omitempty" jsonschema:"New base branch name"`
	Draft               *bool    `json:"draft,omitempty" jsonschema:"Mark as draft (true) or ready for review (false)"`
	MaintainerCanModify *bool    `json:"maintainer_can_modify,omitempty" jsonschema:"Allow maintainer edits"`
	Reviewers           []string `json:"reviewers,omitempty" jsonschema:"GitHub usernames to request reviews from"`
}

var updatePullRequest = twins.New(twins.Spec{
	Name: "update_pull_request", Title: "Edit pull request",
	Description: "Update an existing pull request: title, description, state, base branch, draft flag and requested reviewers.",
	Effect:      twins.Write,
	Bindings:    []twins.Binding{{Method: "PATCH", Path: pullPath, Rename: pullRename}},
}, func(ctx context.Context, w *World, in UpdatePullIn) (APIPullRequest, error) {
	r, is, err := w.pullOf(in.Owner, in.Repo, in.PullNumber)
	if err != nil {
		return APIPullRequest{}, err
	}
	if in.State != nil && *in.State != "open" && *in.State != "closed" {
		return APIPullRequest{}, invalid("PullRequest", "state", "invalid", "state must be open or closed, got %q", *in.State)
	}
	if in.State != nil && *in.State == "open" && is.Pull.Merged {
		return APIPullRequest{}, invalid("PullRequest", "state", "custom", "cannot reopen a merged pull request")
	}
	if in.Base != nil && (r.branch(*in.Base) == nil || *in.Base == is.Pull.Head) {
		return APIPullRequest{}, invalid("PullRequest", "base", "invalid", "base branch %q does not exist or is the head", *in.Base)
	}
	if in.Title != nil && strings.TrimSpace(*in.Title) == "" {
		return APIPullRequest{}, invalid("PullRequest", "title", "missing_field", "title cannot be blank")
	}
	reviewers, err := validReviewers(w, r, in.Reviewers, is.User)
	if err != nil {
		return APIPullRequest{}, err
	}
	now := twins.EnvFrom(ctx).Now().UTC()
	p := issuePatch{title: in.Title, body: in.Body, state: in.State}
	changed := applyIssuePatch(w, r, is, p, now)
	if in.Base != nil && *in.Base != is.Pull.Base {
		is.Pull.Base, is.Pull.BaseSHA = *in.Base, r.branch(*in.Base).SHA
		changed = true
	}
	if in.Draft != nil && *in.Draft != is.Pull.Draft {
		is.Pull.Draft = *in.Draft
		changed = true
	}
	for _, rv := range reviewers {
		if !containsFold(is.Pull.RequestedReviewers, rv) {
			is.Pull.RequestedReviewers = append(is.Pull.RequestedReviewers, rv)
			is.Events = append(is.Events, &Event{ID: w.nextID(), Event: "review_requested", Actor: w.Me, CreatedAt: now, Assignee: rv})
			changed = true
		}
	}
	if changed {
		is.UpdatedAt = now
	} else {
		twins.Unchanged(ctx)
	}
	return newView(ctx, w).pull(r, is), nil
})

// MergePullIn is merge_pull_request's input.
type MergePullIn struct {
	RepoRef
	PullNumber    int    `json:"pullNumber" jsonschema:"Pull request number"`
	CommitTitle   string `json:"commit_title,omitempty" jsonschema:"Title for the merge commit"`
	CommitMessage string `json:"commit_message,omitempty" jsonschema:"Extra detail for the merge commit"`
	MergeMethod   string `json:"merge_method,omitempty" jsonschema:"merge (default), squash or rebase" enum:"merge,squash,rebase"`
	SHA           string `json:"sha,omitempty" jsonschema:"Head sha the pull request must still have"`
}

// MergeResult is GitHub's merge answer.
type MergeResult struct {
	SHA     string `json:"sha"`
	Merged  bool   `json:"merged"`
	Message string `json:"message"`
}

var mergePullRequest = twins.New(twins.Spec{
	Name: "merge_pull_request", Title: "Merge pull request",
	Description: "Merge a pull request: the head branch's changes land on the base branch (merge commit, squash or rebase). A conflicting, closed or draft pull request is refused with 405.",
	Effect:      twins.Write,
	Bindings:    []twins.Binding{{Method: "PUT", Path: pullPath + "/merge", Rename: pullRename}},
}, func(ctx context.Context, w *World, in MergePullIn) (MergeResult, error) {
	r, is, err := w.pullOf(in.Owner, in.Repo, in.PullNumber)
	if err != nil {
		return MergeResult{}, err
	}
	if in.SHA != "" && in.SHA != r.headSHA(is.Pull) {
		return MergeResult{}, twins.Errorf(twins.Conflict, "conflict", "Head branch was modified. Review and try the merge again.")
	}
	switch in.MergeMethod {
	case "", "merge", "squash", "rebase":
	default:
		return MergeResult{}, invalid("PullRequest", "merge_method", "invalid", "merge_method must be merge, squash or rebase, got %q", in.MergeMethod)
	}
	if is.Pull.Draft {
		return MergeResult{}, twins.Errorf(twins.NotAllowed, "not_mergeable", "Pull Request is still a draft")
	}
	sha, err := mergePull(w, r, is, w.Me, in.CommitTitle, in.CommitMessage, in.MergeMethod, twins.EnvFrom(ctx).Now().UTC())
	if err != nil {
		return MergeResult{}, err
	}
	return MergeResult{SHA: sha, Merged: true, Message: "Pull Request successfully merged"}, nil
})

// APIReview is GitHub's pull request review object.
type APIReview struct {
	ID                int64    `json:"id"`
	NodeID            string   `json:"node_id"`
	User              *APIUser `json:"user"`
	Body              string   `json:"body"`
	State             string   `json:"state"`
	HTMLURL           string   `json:"html_url"`
	PullRequestURL    string   `json:"pull_request_url"`
	AuthorAssociation string   `json:"author_association"`
	SubmittedAt       *string  `json:"submitted_at"`
	CommitID          string   `json:"commit_id"`
}

func (v *view) review(r *Repo, is *Issue, rv *Review) APIReview {
	out := APIReview{ID: rv.ID, NodeID: nodeID("PRR", rv.ID), User: v.user(rv.User), Body: rv.Body, State: rv.State,
		HTMLURL:        fmt.Sprintf("%s/%s/pull/%d#pullrequestreview-%d", v.html, r.FullName(), is.Number, rv.ID),
		PullRequestURL: fmt.Sprintf("%s/pulls/%d", v.repoURL(r), is.Number), AuthorAssociation: v.w.authorAssociation(r, rv.User), CommitID: rv.CommitID}
	if rv.State != "PENDING" {
		out.SubmittedAt = tsPtr(&rv.SubmittedAt)
	}
	return out
}

// APIReviewComment is GitHub's pull request review comment object.
type APIReviewComment struct {
	ID                  int64    `json:"id"`
	NodeID              string   `json:"node_id"`
	URL                 string   `json:"url"`
	PullRequestReviewID *int64   `json:"pull_request_review_id"`
	DiffHunk            string   `json:"diff_hunk"`
	Path                string   `json:"path"`
	CommitID            string   `json:"commit_id"`
	OriginalCommitID    string   `json:"original_commit_id"`
	InReplyToID         *int64   `json:"in_reply_to_id,omitempty"`
	User                *APIUser `json:"user"`
	Body                string   `json:"body"`
	CreatedAt           string   `json:"created_at"`
	UpdatedAt           string   `json:"updated_at"`
	HTMLURL             string   `json:"html_url"`
	PullRequestURL      string   `json:"pull_request_url"`
	AuthorAssociation   string   `json:"author_association"`
	Line                *int     `json:"line"`
	Side                string   `json:"side"`
}

func (v *view) reviewComment(r *Repo, is *Issue, c *ReviewComment) APIReviewComment {
	out := APIReviewComment{ID: c.ID, NodeID: nodeID("PRRC", c.ID), URL: fmt.Sprintf("%s/pulls/comments/%d", v.repoURL(r), c.ID),
		Path: c.Path, CommitID: c.CommitID, OriginalCommitID: c.CommitID, User: v.user(c.User), Body: c.Body,
		CreatedAt: ts(c.CreatedAt), UpdatedAt: ts(c.UpdatedAt),
		HTMLURL:        fmt.Sprintf("%s/%s/pull/%d#discussion_r%d", v.html, r.FullName(), is.Number, c.ID),
		PullRequestURL: fmt.Sprintf("%s/pulls/%d", v.repoURL(r), is.Number), AuthorAssociation: v.w.authorAssociation(r, c.User), Side: c.Side}
	if c.ReviewID != 0 {
		id := c.ReviewID
		out.PullRequestReviewID = &id
	}
	if c.InReplyTo != 0 {
		id := c.InReplyTo
		out.InReplyToID = &id
	}
	if c.Line != 0 {
		l := c.Line
		out.Line = &l
	}
	return out
}

// ReviewDraftComment is an inline comment given with a new review.
type ReviewDraftComment struct {
	Path string `json:"path" jsonschema:"File the comment applies to"`
	Body string `json:"body" jsonschema:"Comment text"`
	Line int    `json:"line,omitempty" jsonschema:"Line in the file's new version"`
	Side string `json:"side,omitempty" jsonschema:"LEFT or RIGHT (default)" enum:"LEFT,RIGHT"`
}

// ReviewWriteIn is pull_request_review_write's input.
type ReviewWriteIn struct {
	Method string `json:"method" jsonschema:"create (submit now with event, or pending without), submit_pending, delete_pending, resolve_thread or unresolve_thread" enum:"create,submit_pending,delete_pending,resolve_thread,unresolve_thread"`
	RepoRef
	PullNumber int                  `json:"pullNumber" jsonschema:"Pull request number"`
	Body       string               `json:"body,omitempty" jsonschema:"Review comment text"`
	Event      string               `json:"event,omitempty" jsonschema:"APPROVE, REQUEST_CHANGES or COMMENT" enum:"APPROVE,REQUEST_CHANGES,COMMENT"`
	CommitID   string               `json:"commitID,omitempty" jsonschema:"SHA of commit to review"`
	Comments   []ReviewDraftComment `json:"comments,omitempty" jsonschema:"Inline comments of the review"`
	ThreadID   string               `json:"threadId,omitempty" jsonschema:"The node ID of the review thread (PRRT_…), for resolve_thread and unresolve_thread; pull_request_read's get_review_comments lists them"`
}

var reviewStates = map[string]string{"APPROVE": "APPROVED", "REQUEST_CHANGES": "CHANGES_REQUESTED", "COMMENT": "COMMENTED"}

var pullRequestReviewWrite = twins.New(twins.Spec{
	Name: "pull_request_review_write", Title: "Write operations on pull request reviews",
	Description: "Create a pull request review (APPROVE, REQUEST_CHANGES or COMMENT; without an event it stays pending), submit a pending review, delete a pending review, or resolve or unresolve a review thread.",
	Effect:      twins.Write,
	Bindings: []twins.Binding{
		{Method: "POST", Path: pullPath + "/reviews", Rename: map[string]string{"pull_number": "pullNumber", "commit_id": "commitID"}, Fixed: map[string]any{"method": "create"}},
	},
}, func(ctx context.Context, w *World, in ReviewWriteIn) (APIReview, error) {
	r, is, err := w.pullOf(in.Owner, in.Repo, in.PullNumber)
	if err != nil {
		return APIReview{}, err
	}
	p := is.Pull
	if in.Method == "resolve_thread" || in.Method == "unresolve_thread" {
		return resolveThread(ctx, w, r, is, in)
	}
	var pending *Review
	for _, rv := range p.Reviews {
		if rv.State == "PENDING" && strings.EqualFold(rv.User, w.Me) {
			pending = rv
		}
	}
	state := ""
	if in.Event != "" {
		var ok bool
		if state, ok = reviewStates[in.Event]; !ok {
			return APIReview{}, invalid("PullRequestReview", "event", "invalid", "event must be APPROVE, REQUEST_CHANGES or COMMENT, got %q", in.Event)
		}
		if state != "APPROVED" && strings.TrimSpace(in.Body) == "" && len(in.Comments) == 0 && (pending == nil || in.Method == "create") {
			return APIReview{}, invalid("PullRequestReview", "body", "custom", "Review Comment is missing a body; REQUEST_CHANGES and COMMENT need one")
		}
		if state != "COMMENTED" && strings.EqualFold(is.User, w.Me) {
			return APIReview{}, invalid("PullRequestReview", "event", "custom", "Can not %s your own pull request", map[string]string{"APPROVED": "approve", "CHANGES_REQUESTED": "request changes on"}[state])
		}
	}
	now := twins.EnvFrom(ctx).Now().UTC()
	v := newView(ctx, w)
	switch in.Method {
	case "create":
		if pending != nil {
			return APIReview{}, invalid("PullRequestReview", "", "custom", "User can only have one pending review per pull request")
		}
		commit := r.headSHA(p)
		if in.CommitID != "" {
			c := r.commit(in.CommitID)
			if c == nil {
				return APIReview{}, invalid("PullRequestReview", "commit_id", "invalid", "commit %s does not exist", in.CommitID)
			}
			commit = c.SHA
		}
		for i, c := range in.Comments {
			if _, ok := r.commit(commit).Tree[c.Path]; !ok || strings.TrimSpace(c.Body) == "" {
				return APIReview{}, invalid("PullRequestReview", fmt.Sprintf("comments[%d]", i), "invalid", "comment %d: path %q is not in the pull request or body is blank", i, c.Path)
			}
		}
		rv := &Review{ID: w.nextID(), User: w.Me, Body: in.Body, State: "PENDING", CommitID: commit, SubmittedAt: now}
		if state != "" {
			rv.State = state
		}
		p.Reviews = append(p.Reviews, rv)
		for _, c := range in.Comments {
			side := c.Side
			if side == "" {
				side = "RIGHT"
			}
			p.ReviewComments = append(p.ReviewComments, &ReviewComment{ID: w.nextID(), ReviewID: rv.ID, User: w.Me, Body: c.Body, Path: c.Path, Line: c.Line, Side: side, CommitID: commit, CreatedAt: now, UpdatedAt: now})
		}
		if state != "" {
			submitted(w, is, rv, now)
		}
		return v.review(r, is, rv), nil
	case "submit_pending":
		if pending == nil {
			return APIReview{}, notFound("no pending review by %s on #%d", w.Me, is.Number)
		}
		if state == "" {
			return APIReview{}, invalid("PullRequestReview", "event", "missing_field", "event is required to submit a review")
		}
		pending.State, pending.SubmittedAt = state, now
		if in.Body != "" {
			pending.Body = in.Body
		}
		submitted(w, is, pending, now)
		return v.review(r, is, pending), nil
	case "delete_pending":
		if pending == nil {
			return APIReview{}, notFound("no pending review by %s on #%d", w.Me, is.Number)
		}
		out := v.review(r, is, pending)
		for i, rv := range p.Reviews {
			if rv == pending {
				p.Reviews = append(p.Reviews[:i], p.Reviews[i+1:]...)
				break
			}
		}
		var keep []*ReviewComment
		for _, c := range p.ReviewComments {
			if c.ReviewID != pending.ID {
				keep = append(keep, c)
			}
		}
		if keep == nil {
			keep = []*ReviewComment{}
		}
		p.ReviewComments = keep
		return out, nil
	}
	return APIReview{}, invalid("PullRequestReview", "method", "invalid", "unknown method %q: use create, submit_pending, delete_pending, resolve_thread or unresolve_thread", in.Method)
})

// resolveThread marks a review thread (named by its root comment's PRRT_
// node id) resolved or unresolved. Doing it twice is not an error, as on
// GitHub. It answers with the review the thread's first comment belongs to.
func resolveThread(ctx context.Context, w *World, r *Repo, is *Issue, in ReviewWriteIn) (APIReview, error) {
	if in.ThreadID == "" {
		return APIReview{}, invalid("PullRequestReviewThread", "threadId", "missing_field", "threadId is required for %s", in.Method)
	}
	root := threadRoot(w, is, in.ThreadID)
	if root == nil {
		return APIReview{}, notFound("Could not resolve to a PullRequestReviewThread with the id of '%s' on #%d", in.ThreadID, is.Number)
	}
	switch {
	case in.Method == "resolve_thread" && root.ResolvedBy == "":
		root.ResolvedBy = w.Me
	case in.Method == "unresolve_thread" && root.ResolvedBy != "":
		root.ResolvedBy = ""
	default:
		twins.Unchanged(ctx)
	}
	for _, rv := range is.Pull.Reviews {
		if rv.ID == root.ReviewID {
			return newView(ctx, w).review(r, is, rv), nil
		}
	}
	return APIReview{}, nil
}

// threadRoot finds the comment that starts the thread with this node id on
// a pull request, hiding the comments of another user's pending review.
func threadRoot(w *World, is *Issue, threadID string) *ReviewComment {
	kind, id, ok := parseNodeID(threadID)
	if !ok || kind != "PRRT" {
		return nil
	}
	for _, c := range is.Pull.ReviewComments {
		if c.ID != id || c.InReplyTo != 0 {
			continue
		}
		for _, rv := range is.Pull.Reviews {
			if rv.ID == c.ReviewID && rv.State == "PENDING" && !strings.EqualFold(rv.User, w.Me) {
				return nil
			}
		}
		return c
	}
	return nil
}

// submitted records a submitted review: the reviewer's request is fulfilled.
func submitted(w *World, is *Issue, rv *Review, now time.Time) {
	var keep []string
	for _, l := range is.Pull.RequestedReviewers {
		if !strings.EqualFold(l, rv.User) {
			keep = append(keep, l)
		}
	}
	if keep == nil {
		keep = []string{}
	}
	is.Pull.RequestedReviewers = keep
	is.Events = append(is.Events, &Event{ID: w.nextID(), Event: "reviewed", Actor: rv.User, CreatedAt: now, Reason: strings.ToLower(rv.State)})
	is.UpdatedAt = now
}

// ReviewCommentIn is add_pull_request_review_comment's input.
type ReviewCommentIn struct {
	RepoRef
	PullNumber int    `json:"pullNumber" jsonschema:"Pull request number"`
	Body       string `json:"body" jsonschema:"Comment text"`
	Path       string `json:"path,omitempty" jsonschema:"File the comment applies to (not needed for replies)"`
	Line       int    `json:"line,omitempty" jsonschema:"Line in the diff's new version"`
	Side       string `json:"side,omitempty" jsonschema:"LEFT or RIGHT (default)" enum:"LEFT,RIGHT"`
	CommitID   string `json:"commit_id,omitempty" jsonschema:"Commit the comment refers to (default: the head)"`
	InReplyTo  int64  `json:"in_reply_to,omitempty" jsonschema:"Id of the review comment to reply to"`
}

var addPullRequestReviewComment = twins.New(twins.Spec{
	Name: "add_pull_request_review_comment", Title: "Add a review comment to a pull request",
	Description: "Comment on a file (and line) of a pull request's diff, or reply to a review comment.",
	Effect:      twins.Write,
	Bindings:    []twins.Binding{{Method: "POST", Path: pullPath + "/comments", Rename: pullRename, Status: 201}},
}, addReviewComment)

// addReviewComment comments on a pull request's diff or replies to a
// review comment (add_pull_request_review_comment and
// add_reply_to_pull_request_comment).
func addReviewComment(ctx context.Context, w *World, in ReviewCommentIn) (APIReviewComment, error) {
	r, is, err := w.pullOf(in.Owner, in.Repo, in.PullNumber)
	if err != nil {
		return APIReviewComment{}, err
	}
	if strings.TrimSpace(in.Body) == "" {
		return APIReviewComment{}, invalid("PullRequestReviewComment", "body", "missing_field", "body is required")
	}
	c := &ReviewComment{User: w.Me, Body: in.Body, Path: in.Path, Line: in.Line, Side: in.Side, CommitID: r.headSHA(is.Pull)}
	if in.InReplyTo != 0 {
		var parent *ReviewComment
		for _, x := range is.Pull.ReviewComments {
			if x.ID == in.InReplyTo {
				parent = x
			}
		}
		if parent == nil {
			return APIReviewComment{}, notFound("review comment %d not found", in.InReplyTo)
		}
		// A reply to a reply joins the thread its parent is in.
		root := parent.ID
		if parent.InReplyTo != 0 {
			root = parent.InReplyTo
		}
		c.Path, c.Line, c.Side, c.CommitID, c.InReplyTo = parent.Path, parent.Line, parent.Side, parent.CommitID, root
	} else {
		if in.CommitID != "" {
			cm := r.commit(in.CommitID)
			if cm == nil {
				return APIReviewComment{}, invalid("PullRequestReviewComment", "commit_id", "invalid", "commit %s does not exist", in.CommitID)
			}
			c.CommitID = cm.SHA
		}
		if _, ok := r.commit(c.CommitID).Tree[in.Path]; !ok {
			return APIReviewComment{}, invalid("PullRequestReviewComment", "path", "invalid", "path %q is not part of the pull request", in.Path)
		}
	}
	if c.Side == "" {
		c.Side = "RIGHT"
	}
	now := twins.EnvFrom(ctx).Now().UTC()
	c.ID, c.CreatedAt, c.UpdatedAt = w.nextID(), now, now
	is.Pull.ReviewComments = append(is.Pull.ReviewComments, c)
	is.UpdatedAt = now
	return newView(ctx, w).reviewComment(r, is, c), nil
}

// ReviewersIn is the input of request_pull_request_reviewers and
// remove_requested_reviewers.
type ReviewersIn struct {
	RepoRef
	PullNumber int      `json:"pullNumber" jsonschema:"The pull request number"`
	Reviewers  []string `json:"reviewers" jsonschema:"GitHub usernames to request (or remove) reviews from"`
}

var requestReviewers = twins.New(twins.Spec{
	Name: "request_pull_request_reviewers", Title: "Request pull request reviewers",
	Description: "Request reviews on a pull request from collaborators.",
	Effect:      twins.Write,
	Bindings:    []twins.Binding{{Method: "POST", Path: pullPath + "/requested_reviewers", Rename: pullRename, Status: 201}},
}, func(ctx context.Context, w *World, in ReviewersIn) (APIPullRequest, error) {
	r, is, err := w.pullOf(in.Owner, in.Repo, in.PullNumber)
	if err != nil {
		return APIPullRequest{}, err
	}
	reviewers, err := validReviewers(w, r, in.Reviewers, is.User)
	if err != nil {
		return APIPullRequest{}, err
	}
	now := twins.EnvFrom(ctx).Now().UTC()
	changed := false
	for _, rv := range reviewers {
		if !containsFold(is.Pull.RequestedReviewers, rv) {
			is.Pull.RequestedReviewers = append(is.Pull.RequestedReviewers, rv)
			is.Events = append(is.Events, &Event{ID: w.nextID(), Event: "review_requested", Actor: w.Me, CreatedAt: now, Assignee: rv})
			changed = true
		}
	}
	if !changed {
		twins.Unchanged(ctx)
	}
	return newView(ctx, w).pull(r, is), nil
})

var removeRequestedReviewers = twins.New(twins.Spec{
	Name: "remove_requested_reviewers", Title: "Remove requested reviewers",
	Description: "Withdraw review requests from a pull request.",
	Effect:      twins.Write,
	Bindings:    []twins.Binding{{Method: "DELETE", Path: pullPath + "/requested_reviewers", Rename: pullRename}},
}, func(ctx context.Context, w *World, in ReviewersIn) (APIPullRequest, error) {
	r, is, err := w.pullOf(in.Owner, in.Repo, in.PullNumber)
	if err != nil {
		return APIPullRequest{}, err
	}
	keep := []string{}
	for _, l := range is.Pull.RequestedReviewers {
		if !containsFold(in.Reviewers, l) {
			keep = append(keep, l)
		}
	}
	if len(keep) == len(is.Pull.RequestedReviewers) {
		twins.Unchanged(ctx)
	}
	is.Pull.RequestedReviewers = keep
	return newView(ctx, w).pull(r, is), nil
})

// PullRefIn addresses one pull request.
type PullRefIn struct {
	RepoRef
	PullNumber int `json:"pullNumber" jsonschema:"Pull request number"`
}

// RequestedReviewers is GET …/requested_reviewers' answer.
type RequestedReviewers struct {
	Users []APIUser `json:"users"`
	Teams []APITeam `json:"teams"`
}

var listRequestedReviewers = twins.New(twins.Spec{
	Name: "list_requested_reviewers", Title: "List requested reviewers",
	Description: "List the users whose review is requested on a pull request.",
	Effect:      twins.Read,
	Bindings:    []twins.Binding{{Method: "GET", Path: pullPath + "/requested_reviewers", Rename: pullRename}},
}, func(ctx context.Context, w *World, in PullRefIn) (RequestedReviewers, error) {
	_, is, err := w.pullOf(in.Owner, in.Repo, in.PullNumber)
	if err != nil {
		return RequestedReviewers{}, err
	}
	return RequestedReviewers{Users: newView(ctx, w).users(is.Pull.RequestedReviewers), Teams: []APITeam{}}, nil
})

// CISummary is pull_request_read's get_ci_summary: the head's commit
// statuses and check runs folded into one verdict (passing, failing,
// pending or no_checks).
type CISummary struct {
	Verdict string    `json:"verdict"`
	HeadSHA string    `json:"head_sha"`
	Total   int       `json:"total"`
	Passing int       `json:"passing"`
	Failing int       `json:"failing"`
	Pending int       `json:"pending"`
	Checks  []CICheck `json:"checks"`
}

// CICheck is one status context or check run of a CISummary.
type CICheck struct {
	Name  string `json:"name"`
	Kind  string `json:"kind"`
	State string `json:"state"`
}

func (v *view) ciSummary(r *Repo, sha string) CISummary {
	out := CISummary{HeadSHA: sha, Checks: []CICheck{}}
	add := func(name, kind, state, bucket string) {
		out.Checks = append(out.Checks, CICheck{Name: name, Kind: kind, State: state})
		switch bucket {
		case "pass":
			out.Passing++
		case "fail":
			out.Failing++
		default:
			out.Pending++
		}
	}
	for _, s := range v.combinedStatus(r, sha).Statuses {
		bucket := "pending"
		switch s.State {
		case "success":
			bucket = "pass"
		case "failure", "error":
			bucket = "fail"
		}
		add(s.Context, "status", s.State, bucket)
	}
	for _, c := range v.checkRuns(r, sha).CheckRuns {
		state, bucket := c.Status, "pending"
		if c.Status == "completed" && c.Conclusion != nil {
			state = *c.Conclusion
			switch state {
			case "success", "neutral", "skipped":
				bucket = "pass"
			default:
				bucket = "fail"
			}
		}
		add(c.Name, "check_run", state, bucket)
	}
	out.Total = len(out.Checks)
	switch {
	case out.Total == 0:
		out.Verdict = "no_checks"
	case out.Failing > 0:
		out.Verdict = "failing"
	case out.Pending > 0:
		out.Verdict = "pending"
	default:
		out.Verdict = "passing"
	}
	return out
}
