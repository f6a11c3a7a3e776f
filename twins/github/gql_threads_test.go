// The GraphQL calls github-mcp-server's default tools make beyond reading
// and reviewing: resolve_thread and unresolve_thread of
// pull_request_review_write, update_pull_request's draft flag, and
// list_issue_fields for a repository; each checked against REST and the
// tape.

package github_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	gh "github.com/google/go-github/v84/github"
	"github.com/shurcooL/githubv4"

	"github.com/pomehq/pome/rest/resttest"
	"github.com/pomehq/pome/twins/github"
)

// reviewThreadsQuery is what pull_request_read's get_review_comments sends.
type reviewThreadsQuery struct {
	Repository struct {
		PullRequest struct {
			ReviewThreads struct {
				Nodes []struct {
					ID          githubv4.ID
					IsResolved  githubv4.Boolean
					IsOutdated  githubv4.Boolean
					IsCollapsed githubv4.Boolean
					Comments    struct {
						Nodes []struct {
							ID     githubv4.ID
							Body   githubv4.String
							Path   githubv4.String
							Line   *githubv4.Int
							Author struct{ Login githubv4.String }
							URL    githubv4.URI
						}
						TotalCount githubv4.Int
					} `graphql:"comments(first: $commentsPerThread)"`
				}
				PageInfo struct {
					HasNextPage githubv4.Boolean
					EndCursor   githubv4.String
				}
				TotalCount githubv4.Int
			} `graphql:"reviewThreads(first: $first, after: $after)"`
		} `graphql:"pullRequest(number: $prNum)"`
	} `graphql:"repository(owner: $owner, name: $repo)"`
}

func TestGraphQLResolveReviewThreads(t *testing.T) {
	env := resttest.Start(t, github.New(), gqlSeed)
	ctx := context.Background()
	c := gqlClient(env)
	rc := rootClient(t, env, env.Token)

	// A submitted review with one inline comment, and a reply to it: one
	// thread of two comments.
	_, _, err := rc.PullRequests.CreateReview(ctx, "globex", "billing", 4, &gh.PullRequestReviewRequest{
		Event: gh.Ptr("COMMENT"), Body: gh.Ptr("Notes"),
		Comments: []*gh.DraftReviewComment{{Path: gh.Ptr("invoice.go"), Line: gh.Ptr(3), Body: gh.Ptr("round() needs a test")}},
	})
	if err != nil {
		t.Fatal(err)
	}
	comments, _, err := rc.PullRequests.ListComments(ctx, "globex", "billing", 4, nil)
	if err != nil || len(comments) != 1 {
		t.Fatalf("review comments: %v %v", comments, err)
	}
	if _, _, err := rc.PullRequests.CreateCommentInReplyTo(ctx, "globex", "billing", 4, "Added one", comments[0].GetID()); err != nil {
		t.Fatal(err)
	}

	vars := map[string]any{"owner": githubv4.String("globex"), "repo": githubv4.String("billing"), "prNum": githubv4.Int(4),
		"first": githubv4.Int(30), "after": (*githubv4.String)(nil), "commentsPerThread": githubv4.Int(100)}
	threads := func() reviewThreadsQuery {
		t.Helper()
		var q reviewThreadsQuery
		if err := c.Query(ctx, &q, vars); err != nil {
			t.Fatal(err)
		}
		return q
	}
	q := threads()
	th := q.Repository.PullRequest.ReviewThreads
	if th.TotalCount != 1 || len(th.Nodes) != 1 || th.Nodes[0].IsResolved || th.Nodes[0].Comments.TotalCount != 2 {
		t.Fatalf("threads before: %+v", th)
	}
	// The comment's URL carries the REST id add_reply_to_pull_request_comment
	// takes.
	if u := th.Nodes[0].Comments.Nodes[0].URL.String(); !strings.HasSuffix(u, "#discussion_r"+strconv.FormatInt(comments[0].GetID(), 10)) {
		t.Errorf("comment url %s, want the REST id %d", u, comments[0].GetID())
	}
	threadID := th.Nodes[0].ID

	var resolveM struct {
		ResolveReviewThread struct {
			Thread struct {
				ID         githubv4.ID
				IsResolved githubv4.Boolean
			}
		} `graphql:"resolveReviewThread(input: $input)"`
	}
	if err := c.Mutate(ctx, &resolveM, githubv4.ResolveReviewThreadInput{ThreadID: threadID}, nil); err != nil {
		t.Fatal(err)
	}
	if got := resolveM.ResolveReviewThread.Thread; got.ID != threadID || !got.IsResolved {
		t.Errorf("resolve answered %+v", got)
	}
	n := len(waitRows(t, env, 1))
	if tool, mutated := lastTool(t, env, n); tool != "pull_request_review_write" || !mutated {
		t.Errorf("resolve taped as %s (mutated %v)", tool, mutated)
	}
	if q := threads(); !q.Repository.PullRequest.ReviewThreads.Nodes[0].IsResolved || !q.Repository.PullRequest.ReviewThreads.Nodes[0].IsCollapsed {
		t.Errorf("thread not resolved after resolveReviewThread: %+v", q.Repository.PullRequest.ReviewThreads.Nodes[0])
	}
	// Resolving again succeeds and changes nothing, as on GitHub.
	if err := c.Mutate(ctx, &resolveM, githubv4.ResolveReviewThreadInput{ThreadID: threadID}, nil); err != nil {
		t.Fatal(err)
	}
	n = len(waitRows(t, env, n+2))
	if tool, mutated := lastTool(t, env, n); tool != "pull_request_review_write" || mutated {
		t.Errorf("second resolve taped as %s (mutated %v)", tool, mutated)
	}
	// resolvedBy names the viewer.
	_, out := gqlRaw(t, env, "/api/graphql", `{"query":"query($id: ID!) { node(id: $id) { ... on PullRequestReviewThread { resolvedBy { login } viewerCanResolve viewerCanUnresolve pullRequest { number } } } }","variables":{"id":"`+string(threadID.(string))+`"}}`)
	node, _ := out["data"].(map[string]any)["node"].(map[string]any)
	if by, _ := node["resolvedBy"].(map[string]any); by["login"] != "pome-agent" || node["viewerCanResolve"] != false || node["viewerCanUnresolve"] != true {
		t.Errorf("resolved thread node: %v", out)
	}

	var unresolveM struct {
		UnresolveReviewThread struct {
			Thread struct {
				ID         githubv4.ID
				IsResolved githubv4.Boolean
			}
		} `graphql:"unresolveReviewThread(input: $input)"`
	}
	if err := c.Mutate(ctx, &unresolveM, githubv4.UnresolveReviewThreadInput{ThreadID: threadID}, nil); err != nil {
		t.Fatal(err)
	}
	if unresolveM.UnresolveReviewThread.Thread.IsResolved {
		t.Error("unresolve answered a resolved thread")
	}
	if q := threads(); q.Repository.PullRequest.ReviewThreads.Nodes[0].IsResolved {
		t.Error("thread still resolved after unresolveReviewThread")
	}

	// A thread id that names nothing (or a review comment's id) is
	// GitHub's NOT_FOUND, and changes nothing.
	for _, id := range []string{"PRRT_kwDOnothing", string(th.Nodes[0].Comments.Nodes[0].ID.(string))} {
		_, out := gqlRaw(t, env, "/api/graphql", `{"query":"mutation { resolveReviewThread(input: {threadId: \"`+id+`\"}) { thread { id } } }"}`)
		errs, _ := out["errors"].([]any)
		if len(errs) != 1 || errs[0].(map[string]any)["type"] != "NOT_FOUND" {
			t.Errorf("resolving %s: %v", id, out)
		}
	}
	if _, mutated := lastTool(t, env, len(waitRows(t, env, 1))); mutated {
		t.Error("a refused resolve changed state")
	}
}

func TestGraphQLDraftAndIssueFields(t *testing.T) {
	env := resttest.Start(t, github.New(), gqlSeed)
	ctx := context.Background()
	c := gqlClient(env)
	rc := rootClient(t, env, env.Token)

	// update_pull_request's draft: the pull request's id and draft flag,
	// then the mutation.
	var prQ struct {
		Repository struct {
			PullRequest struct {
				ID      githubv4.ID
				IsDraft githubv4.Boolean
			} `graphql:"pullRequest(number: $prNum)"`
		} `graphql:"repository(owner: $owner, name: $repo)"`
	}
	if err := c.Query(ctx, &prQ, map[string]any{"owner": githubv4.String("globex"), "repo": githubv4.String("billing"), "prNum": githubv4.Int(4)}); err != nil {
		t.Fatal(err)
	}
	if prQ.Repository.PullRequest.IsDraft {
		t.Fatal("seeded pull request is a draft")
	}
	var toDraft struct {
		ConvertPullRequestToDraft struct {
			PullRequest struct {
				ID      githubv4.ID
				IsDraft githubv4.Boolean
			}
		} `graphql:"convertPullRequestToDraft(input: $input)"`
	}
	if err := c.Mutate(ctx, &toDraft, githubv4.ConvertPullRequestToDraftInput{PullRequestID: prQ.Repository.PullRequest.ID}, nil); err != nil {
		t.Fatal(err)
	}
	if !toDraft.ConvertPullRequestToDraft.PullRequest.IsDraft {
		t.Error("convertPullRequestToDraft answered a ready pull request")
	}
	if pr, _, err := rc.PullRequests.Get(ctx, "globex", "billing", 4); err != nil || !pr.GetDraft() {
		t.Errorf("over REST after convertPullRequestToDraft: draft %v (%v)", pr.GetDraft(), err)
	}
	n := len(waitRows(t, env, 3))
	if tool, mutated := lastTool(t, env, n-1); tool != "update_pull_request" || !mutated {
		t.Errorf("convertPullRequestToDraft taped as %s (mutated %v)", tool, mutated)
	}
	var ready struct {
		MarkPullRequestReadyForReview struct {
			PullRequest struct {
				ID      githubv4.ID
				IsDraft githubv4.Boolean
			}
		} `graphql:"markPullRequestReadyForReview(input: $input)"`
	}
	if err := c.Mutate(ctx, &ready, githubv4.MarkPullRequestReadyForReviewInput{PullRequestID: prQ.Repository.PullRequest.ID}, nil); err != nil {
		t.Fatal(err)
	}
	if pr, _, _ := rc.PullRequests.Get(ctx, "globex", "billing", 4); bool(ready.MarkPullRequestReadyForReview.PullRequest.IsDraft) || pr.GetDraft() {
		t.Errorf("after markPullRequestReadyForReview: %+v, REST draft %v", ready, pr.GetDraft())
	}
	// An issue's id is not a pull request's.
	var issueQ struct {
		Repository struct {
			Issue struct{ ID githubv4.ID } `graphql:"issue(number: 1)"`
		} `graphql:"repository(owner: \"globex\", name: \"billing\")"`
	}
	if err := c.Query(ctx, &issueQ, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Mutate(ctx, &toDraft, githubv4.ConvertPullRequestToDraftInput{PullRequestID: issueQ.Repository.Issue.ID}, nil); err == nil || !strings.Contains(err.Error(), "Could not resolve") {
		t.Errorf("convertPullRequestToDraft of an issue: %v", err)
	}

	// list_issue_fields with a repository asks the repository for the
	// fields it inherits from its organization.
	var fieldsQ struct {
		Repository struct {
			IssueFields struct {
				Nodes []struct {
					TypeName githubv4.String `graphql:"__typename"`
				}
			} `graphql:"issueFields(first: 100)"`
		} `graphql:"repository(owner: $owner, name: $name)"`
	}
	if err := c.Query(ctx, &fieldsQ, map[string]any{"owner": githubv4.String("globex"), "name": githubv4.String("billing")}); err != nil {
		t.Fatal(err)
	}
	if tool, _ := lastTool(t, env, len(waitRows(t, env, 1))); tool != "list_issue_fields" {
		t.Errorf("repository issueFields taped as %s", tool)
	}
	// A hidden repository answers as a missing one.
	if err := c.Query(ctx, &fieldsQ, map[string]any{"owner": githubv4.String("fox"), "name": githubv4.String("xfiles")}); err == nil || !strings.Contains(err.Error(), "Could not resolve to a Repository") {
		t.Errorf("issueFields of a hidden repository: %v", err)
	}
}
