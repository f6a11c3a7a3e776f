package github

import (
	"encoding/base64"
	"strconv"
	"strings"
	"testing"

	"github.com/pomehq/pome/twins"
)

func fileText(t *testing.T, w *World, repo, path, ref string) string {
	t.Helper()
	c := mustCall(t, w, "get_file_contents", `{"owner":"acme","repo":"`+repo+`","path":"`+path+`","ref":"`+ref+`"}`).Out.(APIContent)
	b, _ := base64.StdEncoding.DecodeString(strings.ReplaceAll(*c.Content, "\n", ""))
	return string(b)
}

func TestPullRequests(t *testing.T) {
	w := world(t, SeedExample)
	pr := mustCall(t, w, "pull_request_read", `{"method":"get","owner":"acme","repo":"api","pullNumber":3}`).Out.(APIPullRequest)
	if pr.Head.Ref != "fix-orders" || pr.Base.Ref != "main" || pr.Commits != 1 || pr.ChangedFiles != 1 || pr.Mergeable == nil || !*pr.Mergeable {
		t.Errorf("pr #3: %+v", pr)
	}
	if len(pr.RequestedReviewers) != 1 || pr.RequestedReviewers[0].Login != "alice" {
		t.Errorf("requested reviewers: %+v", pr.RequestedReviewers)
	}
	wantErr(t, w, "pull_request_read", `{"method":"get","owner":"acme","repo":"api","pullNumber":1}`, twins.NotFound, "")
	files := mustCall(t, w, "pull_request_read", `{"method":"get_files","owner":"acme","repo":"api","pullNumber":3}`).Out.(*List[APICommitFile])
	if len(files.Items) != 1 || files.Items[0].Filename != "orders.go" || files.Items[0].Status != "modified" {
		t.Errorf("files: %+v", files.Items)
	}
	diff := mustCall(t, w, "pull_request_read", `{"method":"get_diff","owner":"acme","repo":"api","pullNumber":3}`).Out.(*PullDiff)
	if !strings.Contains(diff.Diff, "+func CreateOrder() error { return validate() }") {
		t.Errorf("diff: %s", diff.Diff)
	}
	status := mustCall(t, w, "pull_request_read", `{"method":"get_status","owner":"acme","repo":"api","pullNumber":3}`).Out.(APICombinedStatus)
	if status.State != "success" || status.TotalCount != 1 {
		t.Errorf("status: %+v", status)
	}
	reviews := mustCall(t, w, "pull_request_read", `{"method":"get_reviews","owner":"acme","repo":"api","pullNumber":3}`).Out.(*List[APIReview])
	if len(reviews.Items) != 1 || reviews.Items[0].State != "COMMENTED" {
		t.Errorf("reviews: %+v", reviews.Items)
	}
	checks := mustCall(t, w, "pull_request_read", `{"method":"get_check_runs","owner":"acme","repo":"api","pullNumber":3}`).Out.(APICheckRuns)
	if checks.TotalCount != 1 || *checks.CheckRuns[0].Conclusion != "success" {
		t.Errorf("checks: %+v", checks)
	}
	list := mustCall(t, w, "list_pull_requests", `{"owner":"acme","repo":"api","state":"all"}`).Out.(*List[APIPullRequest])
	if len(list.Items) != 2 || list.Items[0].Number != 4 || !list.Items[0].Merged {
		t.Errorf("list: %+v", list.Items)
	}
	if l := mustCall(t, w, "list_pull_requests", `{"owner":"acme","repo":"api","head":"acme:fix-orders"}`).Out.(*List[APIPullRequest]); len(l.Items) != 1 {
		t.Errorf("head filter: %d", len(l.Items))
	}
	// Pull requests share the issues' number sequence and show in list_issues.
	mustCall(t, w, "create_branch", `{"owner":"acme","repo":"api","branch":"feature"}`)
	wantErr(t, w, "create_pull_request", `{"owner":"acme","repo":"api","title":"t","head":"feature","base":"main"}`, twins.Unprocessable, "custom")
	mustCall(t, w, "create_or_update_file", `{"owner":"acme","repo":"api","path":"feature.txt","content":"new\n","message":"Add feature","branch":"feature"}`)
	wantErr(t, w, "create_pull_request", `{"owner":"acme","repo":"api","title":"t","head":"nope","base":"main"}`, twins.Unprocessable, "invalid")
	wantErr(t, w, "create_pull_request", `{"owner":"acme","repo":"api","title":"t","head":"feature","base":"nope"}`, twins.Unprocessable, "invalid")
	wantErr(t, w, "create_pull_request", `{"owner":"acme","repo":"api","title":"t","head":"feature","base":"main","reviewers":["carol"]}`, twins.Unprocessable, "custom")
	wantErr(t, w, "create_pull_request", `{"owner":"acme","repo":"api","title":"t","head":"feature","base":"main","reviewers":["pome-agent"]}`, twins.Unprocessable, "custom")
	created := mustCall(t, w, "create_pull_request", `{"owner":"acme","repo":"api","title":"Add feature","head":"feature","base":"main","body":"Closes #1","reviewers":["bob"]}`).Out.(APIPullRequest)
	if created.Number != 5 || created.User.Login != "pome-agent" || created.State != "open" || len(created.RequestedReviewers) != 1 {
		t.Errorf("created: %+v", created)
	}
	wantErr(t, w, "create_pull_request", `{"owner":"acme","repo":"api","title":"again","head":"feature","base":"main"}`, twins.Unprocessable, "custom")
	issues := mustCall(t, w, "list_issues", `{"owner":"acme","repo":"api"}`).Out.(*List[APIIssue])
	if issues.Items[0].Number != 5 || issues.Items[0].PullRequest == nil {
		t.Errorf("list_issues includes the PR with pull_request: %+v", issues.Items[0])
	}

	upd := mustCall(t, w, "update_pull_request", `{"owner":"acme","repo":"api","pullNumber":5,"title":"Add the feature","draft":true}`).Out.(APIPullRequest)
	if upd.Title != "Add the feature" || !upd.Draft {
		t.Errorf("update: %+v", upd)
	}
	wantErr(t, w, "merge_pull_request", `{"owner":"acme","repo":"api","pullNumber":5}`, twins.NotAllowed, "")
	mustCall(t, w, "update_pull_request", `{"owner":"acme","repo":"api","pullNumber":5,"draft":false}`)
	if r := mustCall(t, w, "update_pull_request", `{"owner":"acme","repo":"api","pullNumber":5,"draft":false}`); r.Mutated {
		t.Error("no-op update: no mutation")
	}
	wantErr(t, w, "update_pull_request", `{"owner":"acme","repo":"api","pullNumber":5,"state":"merged"}`, twins.Invalid, "invalid_arguments")
	wantErr(t, w, "update_pull_request", `{"owner":"acme","repo":"api","pullNumber":5,"base":"nope"}`, twins.Unprocessable, "invalid")

	// Merging changes the base branch's contents.
	wantErr(t, w, "merge_pull_request", `{"owner":"acme","repo":"api","pullNumber":5,"sha":"0000000"}`, twins.Conflict, "")
	res := mustCall(t, w, "merge_pull_request", `{"owner":"acme","repo":"api","pullNumber":5,"merge_method":"squash"}`).Out.(MergeResult)
	if !res.Merged || res.Message != "Pull Request successfully merged" {
		t.Errorf("merge: %+v", res)
	}
	if got := fileText(t, w, "api", "feature.txt", "main"); got != "new\n" {
		t.Errorf("main after merge: %q", got)
	}
	merged := mustCall(t, w, "pull_request_read", `{"method":"get","owner":"acme","repo":"api","pullNumber":5}`).Out.(APIPullRequest)
	if !merged.Merged || merged.State != "closed" || merged.MergedBy.Login != "pome-agent" || *merged.MergeCommitSHA != res.SHA {
		t.Errorf("merged pr: %+v", merged)
	}
	if merged.ChangedFiles != 1 {
		t.Errorf("a merged PR still shows its files: %d", merged.ChangedFiles)
	}
	wantErr(t, w, "merge_pull_request", `{"owner":"acme","repo":"api","pullNumber":5}`, twins.NotAllowed, "")
	wantErr(t, w, "update_pull_request", `{"owner":"acme","repo":"api","pullNumber":5,"state":"open"}`, twins.Unprocessable, "custom")

	// Now #3 (which changed orders.go) still merges with a merge commit.
	res = mustCall(t, w, "merge_pull_request", `{"owner":"acme","repo":"api","pullNumber":3}`).Out.(MergeResult)
	c := mustCall(t, w, "get_commit", `{"owner":"acme","repo":"api","sha":"`+res.SHA+`"}`).Out.(APICommit)
	if len(c.Parents) != 2 || !strings.HasPrefix(c.Commit.Message, "Merge pull request #3 from acme/fix-orders") {
		t.Errorf("merge commit: %+v", c.Commit)
	}
	if !strings.Contains(fileText(t, w, "api", "orders.go", "main"), "validate()") {
		t.Error("main has the fix after merging #3")
	}
}

func TestMergeConflict(t *testing.T) {
	w := world(t, "")
	mustCall(t, w, "create_branch", `{"owner":"acme","repo":"api","branch":"a"}`)
	readme := mustCall(t, w, "get_file_contents", `{"owner":"acme","repo":"api","path":"README.md"}`).Out.(APIContent)
	mustCall(t, w, "create_or_update_file", `{"owner":"acme","repo":"api","path":"README.md","content":"from a","message":"a","branch":"a","sha":"`+readme.SHA+`"}`)
	mustCall(t, w, "create_or_update_file", `{"owner":"acme","repo":"api","path":"README.md","content":"from main","message":"main","branch":"main","sha":"`+readme.SHA+`"}`)
	pr := mustCall(t, w, "create_pull_request", `{"owner":"acme","repo":"api","title":"conflict","head":"a","base":"main"}`).Out.(APIPullRequest)
	if pr.Mergeable == nil || *pr.Mergeable || pr.MergeableState != "dirty" {
		t.Errorf("conflicting PR: mergeable=%v state=%s", pr.Mergeable, pr.MergeableState)
	}
	e := wantErr(t, w, "merge_pull_request", `{"owner":"acme","repo":"api","pullNumber":2}`, twins.NotAllowed, "")
	if status, body := RESTError(e); status != 405 || body.(APIError).Message != "Pull Request is not mergeable" {
		t.Errorf("405 body: %d %+v", status, body)
	}
}

func TestReviews(t *testing.T) {
	w := world(t, SeedExample)
	// pome-agent did not author #3, so it can approve.
	rv := mustCall(t, w, "pull_request_review_write", `{"method":"create","owner":"acme","repo":"api","pullNumber":3,"event":"APPROVE","body":"LGTM"}`).Out.(APIReview)
	if rv.State != "APPROVED" || rv.SubmittedAt == nil || rv.User.Login != "pome-agent" {
		t.Errorf("review: %+v", rv)
	}
	wantErr(t, w, "pull_request_review_write", `{"method":"create","owner":"acme","repo":"api","pullNumber":3,"event":"REQUEST_CHANGES"}`, twins.Unprocessable, "custom")
	wantErr(t, w, "pull_request_review_write", `{"method":"create","owner":"acme","repo":"api","pullNumber":3,"event":"LGTM"}`, twins.Invalid, "invalid_arguments")
	// Pending, then submitted with inline comments.
	pend := mustCall(t, w, "pull_request_review_write", `{"method":"create","owner":"acme","repo":"api","pullNumber":3,"body":"draft","comments":[{"path":"orders.go","line":3,"body":"nit"}]}`).Out.(APIReview)
	if pend.State != "PENDING" || pend.SubmittedAt != nil {
		t.Errorf("pending: %+v", pend)
	}
	wantErr(t, w, "pull_request_review_write", `{"method":"create","owner":"acme","repo":"api","pullNumber":3}`, twins.Unprocessable, "custom")
	sub := mustCall(t, w, "pull_request_review_write", `{"method":"submit_pending","owner":"acme","repo":"api","pullNumber":3,"event":"REQUEST_CHANGES","body":"please fix"}`).Out.(APIReview)
	if sub.State != "CHANGES_REQUESTED" {
		t.Errorf("submitted: %+v", sub)
	}
	wantErr(t, w, "pull_request_review_write", `{"method":"delete_pending","owner":"acme","repo":"api","pullNumber":3}`, twins.NotFound, "")
	comments := mustCall(t, w, "pull_request_read", `{"method":"get_review_comments","owner":"acme","repo":"api","pullNumber":3}`).Out.(*List[APIReviewComment])
	if len(comments.Items) != 1 || comments.Items[0].Body != "nit" || *comments.Items[0].PullRequestReviewID != sub.ID {
		t.Errorf("review comments: %+v", comments.Items)
	}
	reply := mustCall(t, w, "add_pull_request_review_comment", `{"owner":"acme","repo":"api","pullNumber":3,"body":"fixed","in_reply_to":`+itoa(comments.Items[0].ID)+`}`).Out.(APIReviewComment)
	if reply.Path != "orders.go" || *reply.InReplyToID != comments.Items[0].ID {
		t.Errorf("reply: %+v", reply)
	}
	wantErr(t, w, "add_pull_request_review_comment", `{"owner":"acme","repo":"api","pullNumber":3,"body":"x","path":"nope.go"}`, twins.Unprocessable, "invalid")
	wantErr(t, w, "add_pull_request_review_comment", `{"owner":"acme","repo":"api","pullNumber":3,"body":""}`, twins.Unprocessable, "missing_field")
	// The agent's own PR cannot be approved by it.
	mustCall(t, w, "create_branch", `{"owner":"acme","repo":"api","branch":"mine"}`)
	mustCall(t, w, "create_or_update_file", `{"owner":"acme","repo":"api","path":"m.txt","content":"m","message":"m","branch":"mine"}`)
	mustCall(t, w, "create_pull_request", `{"owner":"acme","repo":"api","title":"mine","head":"mine","base":"main"}`)
	wantErr(t, w, "pull_request_review_write", `{"method":"create","owner":"acme","repo":"api","pullNumber":5,"event":"APPROVE"}`, twins.Unprocessable, "custom")

	got := mustCall(t, w, "request_pull_request_reviewers", `{"owner":"acme","repo":"api","pullNumber":5,"reviewers":["alice","bob"]}`).Out.(APIPullRequest)
	if len(got.RequestedReviewers) != 2 {
		t.Errorf("requested: %+v", got.RequestedReviewers)
	}
	wantErr(t, w, "request_pull_request_reviewers", `{"owner":"acme","repo":"api","pullNumber":5,"reviewers":["carol"]}`, twins.Unprocessable, "custom")
	mustCall(t, w, "remove_requested_reviewers", `{"owner":"acme","repo":"api","pullNumber":5,"reviewers":["alice"]}`)
	rr := mustCall(t, w, "list_requested_reviewers", `{"owner":"acme","repo":"api","pullNumber":5}`).Out.(RequestedReviewers)
	if len(rr.Users) != 1 || rr.Users[0].Login != "bob" {
		t.Errorf("requested after removal: %+v", rr.Users)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func TestStatusesAndChecks(t *testing.T) {
	w := world(t, "")
	repo, _ := w.repo("acme", "api")
	sha := repo.branch("main").SHA
	s := mustCall(t, w, "create_commit_status", `{"owner":"acme","repo":"api","sha":"`+sha+`","state":"pending","context":"ci/build"}`).Out.(APIStatus)
	if s.State != "pending" || s.Context != "ci/build" || s.Creator.Login != "pome-agent" {
		t.Errorf("status: %+v", s)
	}
	mustCall(t, w, "create_commit_status", `{"owner":"acme","repo":"api","sha":"`+sha+`","state":"success","context":"ci/build"}`)
	mustCall(t, w, "create_commit_status", `{"owner":"acme","repo":"api","sha":"`+sha+`","state":"success","context":"lint"}`)
	comb := mustCall(t, w, "get_combined_status", `{"owner":"acme","repo":"api","ref":"main"}`).Out.(APICombinedStatus)
	if comb.State != "success" || comb.TotalCount != 2 {
		t.Errorf("combined: %+v", comb)
	}
	mustCall(t, w, "create_commit_status", `{"owner":"acme","repo":"api","sha":"`+sha+`","state":"failure","context":"lint"}`)
	if comb := mustCall(t, w, "get_combined_status", `{"owner":"acme","repo":"api","ref":"main"}`).Out.(APICombinedStatus); comb.State != "failure" {
		t.Errorf("combined after failure: %s", comb.State)
	}
	all := mustCall(t, w, "list_commit_statuses", `{"owner":"acme","repo":"api","ref":"main"}`).Out.(*List[APIStatus])
	if len(all.Items) != 4 || all.Items[0].State != "failure" {
		t.Errorf("statuses: %+v", all.Items)
	}
	wantErr(t, w, "create_commit_status", `{"owner":"acme","repo":"api","sha":"`+sha+`","state":"green"}`, twins.Invalid, "invalid_arguments")
	wantErr(t, w, "create_commit_status", `{"owner":"acme","repo":"api","sha":"abcdef0123","state":"success"}`, twins.Unprocessable, "invalid")
	wantErr(t, w, "get_combined_status", `{"owner":"acme","repo":"api","ref":"nope"}`, twins.NotFound, "")
	// The commit-status check sees the latest per context.
	final := w
	seed := world(t, "")
	if res := evalCheck(t, seed, final, `The "ci/build" status of the `+"`main`"+` branch of `+"`acme/api`"+` is success`); !res.Passed {
		t.Errorf("commit-status check: %s", res.Reason)
	}
	if res := evalCheck(t, seed, final, `The "lint" status of the `+"`main`"+` branch of `+"`acme/api`"+` is success`); res.Passed {
		t.Errorf("latest lint status is failure: %s", res.Reason)
	}

	cr := mustCall(t, w, "create_check_run", `{"owner":"acme","repo":"api","name":"tests","head_sha":"`+sha+`","conclusion":"failure","output":{"title":"2 failed","summary":"see log"}}`).Out.(APICheckRun)
	if cr.Status != "completed" || *cr.Conclusion != "failure" || *cr.Output.Title != "2 failed" {
		t.Errorf("check run: %+v", cr)
	}
	wantErr(t, w, "create_check_run", `{"owner":"acme","repo":"api","name":"x","head_sha":"`+sha+`","status":"completed"}`, twins.Unprocessable, "missing_field")
	wantErr(t, w, "create_check_run", `{"owner":"acme","repo":"api","name":"x","head_sha":"`+sha+`","conclusion":"meh"}`, twins.Unprocessable, "invalid")
	wantErr(t, w, "create_check_run", `{"owner":"acme","repo":"api","name":"x","head_sha":"nope"}`, twins.Unprocessable, "invalid")
	runs := mustCall(t, w, "list_check_runs", `{"owner":"acme","repo":"api","ref":"main"}`).Out.(APICheckRuns)
	if runs.TotalCount != 1 {
		t.Errorf("runs: %+v", runs)
	}
}

func TestPullCISummary(t *testing.T) {
	w := world(t, SeedExample)
	sum := mustCall(t, w, "pull_request_read", `{"method":"get_ci_summary","owner":"acme","repo":"api","pullNumber":3}`).Out.(CISummary)
	if sum.Verdict != "passing" || sum.Total != 2 || sum.Passing != 2 {
		t.Errorf("seeded summary: %+v", sum)
	}
	head := sum.HeadSHA
	mustCall(t, w, "create_commit_status", `{"owner":"acme","repo":"api","sha":"`+head+`","state":"pending","context":"ci/e2e"}`)
	if sum = mustCall(t, w, "pull_request_read", `{"method":"get_ci_summary","owner":"acme","repo":"api","pullNumber":3}`).Out.(CISummary); sum.Verdict != "pending" {
		t.Errorf("pending: %+v", sum)
	}
	mustCall(t, w, "create_check_run", `{"owner":"acme","repo":"api","head_sha":"`+head+`","name":"lint","status":"completed","conclusion":"failure"}`)
	if sum = mustCall(t, w, "pull_request_read", `{"method":"get_ci_summary","owner":"acme","repo":"api","pullNumber":3}`).Out.(CISummary); sum.Verdict != "failing" || sum.Failing != 1 {
		t.Errorf("failing: %+v", sum)
	}
	w2 := world(t, "")
	mustCall(t, w2, "create_branch", `{"owner":"acme","repo":"api","branch":"x"}`)
	mustCall(t, w2, "create_or_update_file", `{"owner":"acme","repo":"api","path":"x.txt","content":"x","message":"x","branch":"x"}`)
	mustCall(t, w2, "create_pull_request", `{"owner":"acme","repo":"api","title":"x","head":"x","base":"main"}`)
	if sum = mustCall(t, w2, "pull_request_read", `{"method":"get_ci_summary","owner":"acme","repo":"api","pullNumber":2}`).Out.(CISummary); sum.Verdict != "no_checks" {
		t.Errorf("no checks: %+v", sum)
	}
}
