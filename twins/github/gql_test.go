// githubv4, the client github-mcp-server uses, sends github-mcp-server's
// queries and mutations to the twin's GraphQL endpoint at the server root,
// and the answers are checked against the REST view of the same world.

package github_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/shurcooL/githubv4"

	"github.com/pomehq/pome/rest/resttest"
	"github.com/pomehq/pome/twins/github"
)

// gqlSeed is a world with a pull request under review, labels, several
// issues and a private repository of another user.
const gqlSeed = `{
  "clock": "2026-03-02T10:00:00Z",
  "users": [{"login": "pome-agent"}, {"login": "dana", "name": "Dana Scully"}, {"login": "fox"}],
  "orgs": [{"login": "globex", "members": ["pome-agent", "dana"]}],
  "repos": [
    {"owner": "globex", "name": "billing", "files": {"invoice.go": "package billing\n\nfunc Total() int { return 0 }\n"},
     "branches": [{"name": "rounding", "message": "Round totals", "files": {"invoice.go": "package billing\n\nfunc Total() int { return round(0) }\n"}}],
     "labels": [{"name": "bug", "color": "d73a4a"}, {"name": "billing", "color": "0e8a16"}, {"name": "wontfix", "color": "ffffff"}],
     "collaborators": ["pome-agent", "dana"],
     "issues": [
       {"number": 1, "title": "Totals are off by a cent", "body": "Rounding.", "user": "dana", "labels": ["bug", "billing"], "created_at": "2026-03-01T09:00:00Z",
        "comments": [{"user": "dana", "body": "Seen on invoice 42."}]},
       {"number": 2, "title": "Export invoices as CSV", "user": "dana", "labels": ["billing"], "created_at": "2026-03-01T10:00:00Z"},
       {"number": 3, "title": "Old report", "user": "fox", "state": "closed", "created_at": "2026-03-01T11:00:00Z"},
       {"number": 5, "title": "Refund flow", "user": "dana", "created_at": "2026-03-01T12:00:00Z"}],
     "pulls": [{"number": 4, "title": "Round totals", "body": "Fixes #1", "user": "dana", "head": "rounding", "base": "main"}]},
    {"owner": "fox", "name": "xfiles", "private": true, "files": {"README.md": "trust no one\n"},
     "issues": [{"number": 1, "title": "classified", "user": "fox"}]}
  ]
}`

type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// gqlClient is githubv4 configured for a GitHub Enterprise host at the
// server root, as github-mcp-server configures it from GITHUB_HOST.
func gqlClient(env *resttest.Env) *githubv4.Client {
	return githubv4.NewEnterpriseClient(env.HTTP.URL+"/api/graphql", &http.Client{Transport: bearerTransport{env.Token}})
}

// gqlRaw posts a document and returns the decoded envelope and status.
func gqlRaw(t *testing.T, env *resttest.Env, path, body string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, env.HTTP.URL+path, strings.NewReader(body))
	req.Header.Set("Authorization", "bearer "+env.Token)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	var out map[string]any
	json.Unmarshal(data, &out)
	return res.StatusCode, out
}

func lastTool(t *testing.T, env *resttest.Env, n int) (string, bool) {
	t.Helper()
	rows := waitRows(t, env, n)
	if len(rows) < n {
		t.Fatalf("tape has %d rows, want %d", len(rows), n)
	}
	r := rows[n-1]
	if r.Tool == nil {
		return "null", r.StateMutation
	}
	return *r.Tool, r.StateMutation
}

// listIssuesQuery is github-mcp-server's list_issues query (without the
// issue field values, which its other variant adds).
type listIssuesQuery struct {
	Repository struct {
		Issues struct {
			Nodes []struct {
				Number     githubv4.Int
				Title      githubv4.String
				State      githubv4.String
				DatabaseID int64
				Author     struct{ Login githubv4.String }
				Labels     struct {
					Nodes []struct {
						Name githubv4.String
						ID   githubv4.String
					}
				} `graphql:"labels(first: 100)"`
				Comments struct{ TotalCount githubv4.Int } `graphql:"comments"`
			}
			PageInfo struct {
				HasNextPage githubv4.Boolean
				EndCursor   githubv4.String
			}
			TotalCount int
		} `graphql:"issues(first: $first, after: $after, labels: $labels, states: $states, orderBy: {field: $orderBy, direction: $direction})"`
		IsPrivate githubv4.Boolean
	} `graphql:"repository(owner: $owner, name: $repo)"`
}

func TestGraphQLListIssuesMatchesREST(t *testing.T) {
	env := resttest.Start(t, github.New(), gqlSeed)
	ctx := context.Background()
	c := gqlClient(env)
	rc := rootClient(t, env, env.Token)

	vars := map[string]any{
		"owner": githubv4.String("globex"), "repo": githubv4.String("billing"),
		"first": githubv4.Int(2), "after": (*githubv4.String)(nil),
		"labels":    []githubv4.String{"billing"},
		"states":    []githubv4.IssueState{githubv4.IssueStateOpen, githubv4.IssueStateClosed},
		"orderBy":   githubv4.IssueOrderFieldCreatedAt,
		"direction": githubv4.OrderDirectionAsc,
	}
	var q listIssuesQuery
	if err := c.Query(ctx, &q, vars); err != nil {
		t.Fatal(err)
	}
	iss := q.Repository.Issues
	if iss.TotalCount != 2 || len(iss.Nodes) != 2 || iss.Nodes[0].Number != 1 || iss.Nodes[1].Number != 2 || bool(iss.PageInfo.HasNextPage) {
		t.Fatalf("labelled issues: %+v", iss)
	}
	// The same issue over REST: id, labels with their node ids, comments.
	rest, _, err := rc.Issues.Get(ctx, "globex", "billing", 1)
	if err != nil {
		t.Fatal(err)
	}
	n := iss.Nodes[0]
	if n.DatabaseID != rest.GetID() || string(n.Title) != rest.GetTitle() || string(n.State) != "OPEN" || string(n.Author.Login) != "dana" ||
		int(n.Comments.TotalCount) != rest.GetComments() || len(n.Labels.Nodes) != len(rest.Labels) || string(n.Labels.Nodes[0].ID) != rest.Labels[0].GetNodeID() {
		t.Errorf("issue #1: graphql %+v, rest %+v", n, rest)
	}

	// Paging through every issue (pull requests excluded) one at a time,
	// newest first.
	vars["first"], vars["labels"], vars["direction"] = githubv4.Int(1), []githubv4.String{}, githubv4.OrderDirectionDesc
	var got []int
	for page := 0; page < 10; page++ {
		var q listIssuesQuery
		if err := c.Query(ctx, &q, vars); err != nil {
			t.Fatal(err)
		}
		for _, n := range q.Repository.Issues.Nodes {
			got = append(got, int(n.Number))
		}
		if !q.Repository.Issues.PageInfo.HasNextPage {
			break
		}
		vars["after"] = githubv4.NewString(q.Repository.Issues.PageInfo.EndCursor)
	}
	if len(got) != 4 || got[0] != 5 || got[3] != 1 {
		t.Errorf("paged issues %v, want [5 3 2 1]", got)
	}
	if tool, mutated := lastTool(t, env, 1); tool != "list_issues" || mutated {
		t.Errorf("tape: %s mutated=%v", tool, mutated)
	}

	// get_label, issue_read get_labels and get_me, as github-mcp-server
	// asks for them.
	var lq struct {
		Repository struct {
			Label struct {
				ID, Name, Color githubv4.String
			} `graphql:"label(name: $name)"`
		} `graphql:"repository(owner: $owner, name: $repo)"`
	}
	if err := c.Query(ctx, &lq, map[string]any{"owner": githubv4.String("globex"), "repo": githubv4.String("billing"), "name": githubv4.String("bug")}); err != nil {
		t.Fatal(err)
	}
	restLabel, _, _ := rc.Issues.GetLabel(ctx, "globex", "billing", "bug")
	if string(lq.Repository.Label.ID) != restLabel.GetNodeID() || lq.Repository.Label.Color != "d73a4a" {
		t.Errorf("label: %+v vs %s", lq.Repository.Label, restLabel.GetNodeID())
	}
	var vq struct {
		Viewer struct{ Login githubv4.String }
	}
	if err := c.Query(ctx, &vq, nil); err != nil || vq.Viewer.Login != "pome-agent" {
		t.Errorf("viewer: %v %+v", err, vq)
	}
	rows := waitRows(t, env, 2+12)
	var tools []string
	for _, r := range rows[len(rows)-2:] {
		tools = append(tools, *r.Tool)
	}
	if strings.Join(tools, ",") != "get_label,get_me" {
		t.Errorf("tools %v", tools)
	}
}

// closeIssueInput is github-mcp-server's own CloseIssueInput (githubv4's
// lacks duplicateIssueId); githubv4 names the variable's type after it.
type CloseIssueInput struct {
	IssueID          githubv4.ID      `json:"issueId"`
	StateReason      *githubv4.String `json:"stateReason,omitempty"`
	DuplicateIssueID *githubv4.ID     `json:"duplicateIssueId,omitempty"`
}

// AddSubIssueInput and friends are the sub-issue mutations' inputs.
type AddSubIssueInput struct {
	IssueID       githubv4.ID `json:"issueId"`
	SubIssueID    githubv4.ID `json:"subIssueId"`
	ReplaceParent *bool       `json:"replaceParent,omitempty"`
}

type ReprioritizeSubIssueInput struct {
	IssueID    githubv4.ID  `json:"issueId"`
	SubIssueID githubv4.ID  `json:"subIssueId"`
	BeforeID   *githubv4.ID `json:"beforeId,omitempty"`
}

type RemoveSubIssueInput struct {
	IssueID    githubv4.ID `json:"issueId"`
	SubIssueID githubv4.ID `json:"subIssueId"`
}

func issueNodeID(t *testing.T, c *githubv4.Client, number int) githubv4.ID {
	t.Helper()
	var q struct {
		Repository struct {
			Issue struct{ ID githubv4.ID } `graphql:"issue(number: $issueNumber)"`
		} `graphql:"repository(owner: $owner, name: $repo)"`
	}
	if err := c.Query(context.Background(), &q, map[string]any{"owner": githubv4.String("globex"), "repo": githubv4.String("billing"), "issueNumber": githubv4.Int(number)}); err != nil {
		t.Fatal(err)
	}
	return q.Repository.Issue.ID
}

func TestGraphQLIssueMutations(t *testing.T) {
	env := resttest.Start(t, github.New(), gqlSeed)
	ctx := context.Background()
	c := gqlClient(env)
	rc := rootClient(t, env, env.Token)

	id := issueNodeID(t, c, 1)
	rest, _, _ := rc.Issues.Get(ctx, "globex", "billing", 1)
	if id != githubv4.ID(rest.GetNodeID()) {
		t.Fatalf("node id %v, REST %s", id, rest.GetNodeID())
	}
	var closeM struct {
		CloseIssue struct {
			Issue struct {
				ID     githubv4.ID
				Number githubv4.Int
				URL    githubv4.String
				State  githubv4.String
			}
		} `graphql:"closeIssue(input: $input)"`
	}
	if err := c.Mutate(ctx, &closeM, CloseIssueInput{IssueID: id, StateReason: githubv4.NewString("NOT_PLANNED")}, nil); err != nil {
		t.Fatal(err)
	}
	rest, _, _ = rc.Issues.Get(ctx, "globex", "billing", 1)
	if closeM.CloseIssue.Issue.State != "CLOSED" || rest.GetState() != "closed" || rest.GetStateReason() != "not_planned" {
		t.Errorf("closed: %+v, REST %s/%s", closeM.CloseIssue.Issue, rest.GetState(), rest.GetStateReason())
	}
	// Two rows so far: the id query and the close, taped as issue_write.
	if tool, mutated := lastTool(t, env, 3); tool != "issue_write" || !mutated {
		t.Errorf("close taped as %s mutated=%v", tool, mutated)
	}
	var reopenM struct {
		ReopenIssue struct {
			Issue struct{ State githubv4.String }
		} `graphql:"reopenIssue(input: $input)"`
	}
	if err := c.Mutate(ctx, &reopenM, githubv4.ReopenIssueInput{IssueID: id}, nil); err != nil || reopenM.ReopenIssue.Issue.State != "OPEN" {
		t.Fatalf("reopen: %v %+v", err, reopenM)
	}

	// Comments, labels and the title, checked over REST.
	var commentM struct {
		AddComment struct {
			CommentEdge struct{ Node struct{ DatabaseID int64 } }
		} `graphql:"addComment(input: $input)"`
	}
	if err := c.Mutate(ctx, &commentM, githubv4.AddCommentInput{SubjectID: id, Body: "Fixed by rounding half up."}, nil); err != nil {
		t.Fatal(err)
	}
	comments, _, _ := rc.Issues.ListComments(ctx, "globex", "billing", 1, nil)
	if len(comments) != 2 || comments[1].GetID() != commentM.AddComment.CommentEdge.Node.DatabaseID || comments[1].GetBody() != "Fixed by rounding half up." {
		t.Errorf("comments over REST: %+v", comments)
	}
	wontfix, _, _ := rc.Issues.GetLabel(ctx, "globex", "billing", "wontfix")
	bug, _, _ := rc.Issues.GetLabel(ctx, "globex", "billing", "bug")
	var labelsM struct {
		AddLabelsToLabelable struct {
			Labelable struct {
				Labels struct{ TotalCount int } `graphql:"labels(first: 10)"`
			}
		} `graphql:"addLabelsToLabelable(input: $input)"`
	}
	if err := c.Mutate(ctx, &labelsM, githubv4.AddLabelsToLabelableInput{LabelableID: id, LabelIDs: []githubv4.ID{wontfix.GetNodeID()}}, nil); err != nil || labelsM.AddLabelsToLabelable.Labelable.Labels.TotalCount != 3 {
		t.Fatalf("add labels: %v %+v", err, labelsM)
	}
	var removeM struct {
		RemoveLabelsFromLabelable struct {
			ClientMutationID githubv4.String
		} `graphql:"removeLabelsFromLabelable(input: $input)"`
	}
	if err := c.Mutate(ctx, &removeM, githubv4.RemoveLabelsFromLabelableInput{LabelableID: id, LabelIDs: []githubv4.ID{bug.GetNodeID(), wontfix.GetNodeID()}}, nil); err != nil {
		t.Fatal(err)
	}
	if tool, _ := lastTool(t, env, 11); tool != "remove_issue_label" {
		t.Errorf("remove labels taped as %s", tool)
	}
	var updateM struct {
		UpdateIssue struct {
			Issue struct{ Title githubv4.String }
		} `graphql:"updateIssue(input: $input)"`
	}
	if err := c.Mutate(ctx, &updateM, githubv4.UpdateIssueInput{ID: id, Title: githubv4.NewString("Totals are off by one cent")}, nil); err != nil {
		t.Fatal(err)
	}
	rest, _, _ = rc.Issues.Get(ctx, "globex", "billing", 1)
	if rest.GetTitle() != "Totals are off by one cent" || len(rest.Labels) != 1 || rest.Labels[0].GetName() != "billing" {
		t.Errorf("after update over REST: %s %+v", rest.GetTitle(), rest.Labels)
	}

	// Sub-issues, checked over REST and through parent.
	sub2, sub5 := issueNodeID(t, c, 2), issueNodeID(t, c, 5)
	var addM struct {
		AddSubIssue struct {
			Issue    struct{ Number githubv4.Int }
			SubIssue struct{ Number githubv4.Int }
		} `graphql:"addSubIssue(input: $input)"`
	}
	for _, s := range []githubv4.ID{sub2, sub5} {
		if err := c.Mutate(ctx, &addM, AddSubIssueInput{IssueID: id, SubIssueID: s}, nil); err != nil {
			t.Fatal(err)
		}
	}
	var prioM struct {
		ReprioritizeSubIssue struct{ Issue struct{ Number githubv4.Int } } `graphql:"reprioritizeSubIssue(input: $input)"`
	}
	if err := c.Mutate(ctx, &prioM, ReprioritizeSubIssueInput{IssueID: id, SubIssueID: sub5, BeforeID: &sub2}, nil); err != nil {
		t.Fatal(err)
	}
	subs, _, _ := rc.SubIssue.ListByIssue(ctx, "globex", "billing", 1, nil)
	if len(subs) != 2 || *subs[0].Number != 5 || *subs[1].Number != 2 {
		t.Errorf("sub-issues over REST: %+v", subs)
	}
	var parentQ struct {
		Repository struct {
			Issue struct {
				Parent struct {
					Number     githubv4.Int
					Repository struct{ NameWithOwner githubv4.String }
				}
			} `graphql:"issue(number: $issueNumber)"`
		} `graphql:"repository(owner: $owner, name: $repo)"`
	}
	if err := c.Query(ctx, &parentQ, map[string]any{"owner": githubv4.String("globex"), "repo": githubv4.String("billing"), "issueNumber": githubv4.Int(5)}); err != nil ||
		parentQ.Repository.Issue.Parent.Number != 1 || parentQ.Repository.Issue.Parent.Repository.NameWithOwner != "globex/billing" {
		t.Errorf("parent: %v %+v", err, parentQ)
	}
	var removeSubM struct {
		RemoveSubIssue struct{ Issue struct{ Number githubv4.Int } } `graphql:"removeSubIssue(input: $input)"`
	}
	if err := c.Mutate(ctx, &removeSubM, RemoveSubIssueInput{IssueID: id, SubIssueID: sub2}, nil); err != nil {
		t.Fatal(err)
	}
	if subs, _, _ := rc.SubIssue.ListByIssue(ctx, "globex", "billing", 1, nil); len(subs) != 1 {
		t.Errorf("after remove: %d sub-issues", len(subs))
	}
	// A refused mutation changes nothing and is taped unchanged: the same
	// sub-issue twice.
	before := env.State(t)
	err := c.Mutate(ctx, &addM, AddSubIssueInput{IssueID: id, SubIssueID: sub5}, nil)
	if err == nil || !strings.Contains(err.Error(), "duplicate") {
		t.Errorf("duplicate sub-issue: %v", err)
	}
	rows := waitRows(t, env, len(env.Tape(t)))
	if last := rows[len(rows)-1]; *last.Tool != "sub_issue_write" || last.StateMutation || !bytes.Equal(before, env.State(t)) {
		t.Errorf("refused mutation: %s mutated=%v", *last.Tool, last.StateMutation)
	}
}

func TestGraphQLReviews(t *testing.T) {
	env := resttest.Start(t, github.New(), gqlSeed)
	ctx := context.Background()
	c := gqlClient(env)
	rc := rootClient(t, env, env.Token)
	vars := map[string]any{"owner": githubv4.String("globex"), "repo": githubv4.String("billing"), "prNum": githubv4.Int(4)}

	// pull_request_review_write create: the pull request's id, then a
	// pending review.
	var prQ struct {
		Repository struct {
			PullRequest struct{ ID githubv4.ID } `graphql:"pullRequest(number: $prNum)"`
		} `graphql:"repository(owner: $owner, name: $repo)"`
	}
	if err := c.Query(ctx, &prQ, vars); err != nil {
		t.Fatal(err)
	}
	var addM struct {
		AddPullRequestReview struct {
			PullRequestReview struct{ ID githubv4.ID }
		} `graphql:"addPullRequestReview(input: $input)"`
	}
	if err := c.Mutate(ctx, &addM, githubv4.AddPullRequestReviewInput{PullRequestID: prQ.Repository.PullRequest.ID}, nil); err != nil {
		t.Fatal(err)
	}
	// add_comment_to_pending_review: the viewer's latest review, then a
	// thread on it.
	var latest struct {
		Repository struct {
			PullRequest struct {
				Reviews struct {
					Nodes []struct {
						ID    githubv4.ID
						State githubv4.PullRequestReviewState
						URL   githubv4.URI
					}
				} `graphql:"reviews(first: 1, author: $author)"`
			} `graphql:"pullRequest(number: $prNum)"`
		} `graphql:"repository(owner: $owner, name: $name)"`
	}
	if err := c.Query(ctx, &latest, map[string]any{"author": githubv4.String("pome-agent"), "owner": githubv4.String("globex"), "name": githubv4.String("billing"), "prNum": githubv4.Int(4)}); err != nil {
		t.Fatal(err)
	}
	rv := latest.Repository.PullRequest.Reviews.Nodes
	if len(rv) != 1 || rv[0].State != githubv4.PullRequestReviewStatePending || rv[0].ID != addM.AddPullRequestReview.PullRequestReview.ID {
		t.Fatalf("pending review: %+v", rv)
	}
	line := githubv4.Int(3)
	subject := githubv4.PullRequestReviewThreadSubjectTypeLine
	var threadM struct {
		AddPullRequestReviewThread struct {
			Thread struct{ ID githubv4.ID }
		} `graphql:"addPullRequestReviewThread(input: $input)"`
	}
	if err := c.Mutate(ctx, &threadM, githubv4.AddPullRequestReviewThreadInput{
		PullRequestReviewID: &rv[0].ID, Path: "invoice.go", Body: "round() needs a test", Line: &line, SubjectType: &subject,
	}, nil); err != nil {
		t.Fatal(err)
	}
	if tool, _ := lastTool(t, env, 4); tool != "add_comment_to_pending_review" {
		t.Errorf("thread taped as %s", tool)
	}
	var submitM struct {
		SubmitPullRequestReview struct {
			PullRequestReview struct{ ID githubv4.ID }
		} `graphql:"submitPullRequestReview(input: $input)"`
	}
	body := githubv4.String("One note")
	if err := c.Mutate(ctx, &submitM, githubv4.SubmitPullRequestReviewInput{PullRequestReviewID: &rv[0].ID, Event: githubv4.PullRequestReviewEventComment, Body: &body}, nil); err != nil {
		t.Fatal(err)
	}
	reviews, _, _ := rc.PullRequests.ListReviews(ctx, "globex", "billing", 4, nil)
	comments, _, _ := rc.PullRequests.ListComments(ctx, "globex", "billing", 4, nil)
	if len(reviews) != 1 || reviews[0].GetState() != "COMMENTED" || reviews[0].GetBody() != "One note" || len(comments) != 1 || comments[0].GetLine() != 3 {
		t.Errorf("over REST: reviews %+v, comments %+v", reviews, comments)
	}
	// The review threads github-mcp-server reads.
	var threads struct {
		Repository struct {
			PullRequest struct {
				ReviewThreads struct {
					Nodes []struct {
						ID         githubv4.ID
						IsResolved githubv4.Boolean
						Comments   struct {
							Nodes []struct {
								Body githubv4.String
								Path githubv4.String
								Line *githubv4.Int
							}
							TotalCount githubv4.Int
						} `graphql:"comments(first: $commentsPerThread)"`
					}
					TotalCount githubv4.Int
				} `graphql:"reviewThreads(first: $first, after: $after)"`
			} `graphql:"pullRequest(number: $prNum)"`
		} `graphql:"repository(owner: $owner, name: $repo)"`
	}
	tv := map[string]any{"owner": githubv4.String("globex"), "repo": githubv4.String("billing"), "prNum": githubv4.Int(4),
		"first": githubv4.Int(30), "after": (*githubv4.String)(nil), "commentsPerThread": githubv4.Int(100)}
	if err := c.Query(ctx, &threads, tv); err != nil {
		t.Fatal(err)
	}
	th := threads.Repository.PullRequest.ReviewThreads
	if th.TotalCount != 1 || th.Nodes[0].ID != threadM.AddPullRequestReviewThread.Thread.ID || th.Nodes[0].Comments.Nodes[0].Path != "invoice.go" {
		t.Errorf("threads: %+v", th)
	}

	// delete_pending: a new pending review, deleted; and a submitted review
	// cannot be deleted.
	if err := c.Mutate(ctx, &addM, githubv4.AddPullRequestReviewInput{PullRequestID: prQ.Repository.PullRequest.ID}, nil); err != nil {
		t.Fatal(err)
	}
	var deleteM struct {
		DeletePullRequestReview struct {
			PullRequestReview struct{ ID githubv4.ID }
		} `graphql:"deletePullRequestReview(input: $input)"`
	}
	if err := c.Mutate(ctx, &deleteM, githubv4.DeletePullRequestReviewInput{PullRequestReviewID: rv[0].ID}, nil); err == nil {
		t.Error("deleting a submitted review succeeded")
	}
	if err := c.Mutate(ctx, &deleteM, githubv4.DeletePullRequestReviewInput{PullRequestReviewID: addM.AddPullRequestReview.PullRequestReview.ID}, nil); err != nil {
		t.Fatal(err)
	}
	if reviews, _, _ := rc.PullRequests.ListReviews(ctx, "globex", "billing", 4, nil); len(reviews) != 1 {
		t.Errorf("after delete: %d reviews", len(reviews))
	}
}

func TestGraphQLErrors(t *testing.T) {
	env := resttest.Start(t, github.New(), gqlSeed)
	entry := func(out map[string]any) map[string]any {
		errs, _ := out["errors"].([]any)
		if len(errs) == 0 {
			return nil
		}
		e, _ := errs[0].(map[string]any)
		return e
	}
	for _, tc := range []struct {
		name, doc, typ, msg string
	}{
		{"unknown repository", `{repository(owner:"globex",name:"nope"){id}}`, "NOT_FOUND", "Could not resolve to a Repository with the name 'globex/nope'."},
		{"private repository", `{repository(owner:"fox",name:"xfiles"){issue(number:1){title}}}`, "NOT_FOUND", "Could not resolve to a Repository with the name 'fox/xfiles'."},
		{"unknown issue", `{repository(owner:"globex",name:"billing"){issue(number:99){title}}}`, "NOT_FOUND", "Could not resolve to an Issue with the number of 99."},
		{"a pull request as issue", `{repository(owner:"globex",name:"billing"){issue(number:4){title}}}`, "NOT_FOUND", "Could not resolve to an Issue with the number of 4."},
		{"unknown node", `{node(id:"I_kwDOSToxMDAwMA"){id}}`, "NOT_FOUND", "Could not resolve to a node with the global id of 'I_kwDOSToxMDAwMA'"},
		{"too many records", `{repository(owner:"globex",name:"billing"){issues(first:101){totalCount}}}`, "EXCESSIVE_PAGINATION", "Requesting 101 records on the `issues` connection exceeds the `first` limit of 100 records."},
		{"bad cursor", `{repository(owner:"globex",name:"billing"){issues(first:1,after:"zzz"){totalCount}}}`, "INVALID_CURSOR_ARGUMENTS", "`zzz` does not appear to be a valid cursor."},
		{"closing a label", `mutation{closeIssue(input:{issueId:"LA_kwDOTEE6MQ"}){issue{id}}}`, "NOT_FOUND", "Could not resolve to a node with the global id of 'LA_kwDOTEE6MQ'"},
	} {
		body, _ := json.Marshal(map[string]string{"query": tc.doc})
		st, out := gqlRaw(t, env, "/api/graphql", string(body))
		e := entry(out)
		if st != 200 || e == nil || e["type"] != tc.typ || e["message"] != tc.msg || e["path"] == nil {
			t.Errorf("%s: %d %v", tc.name, st, out)
		}
	}
	// The hidden repository's issue is no node either: the same answer as
	// for an id that names nothing.
	var state struct {
		Repos []struct {
			Name   string
			Issues []struct{ ID int64 }
		}
	}
	json.Unmarshal(env.State(t), &state)
	for _, r := range state.Repos {
		if r.Name != "xfiles" {
			continue
		}
		hidden := "I_kwDO" + base64.RawURLEncoding.EncodeToString([]byte("I:"+strconv.FormatInt(r.Issues[0].ID, 10)))
		_, out := gqlRaw(t, env, "/api/graphql", `{"query":"{node(id:\"`+hidden+`\"){id} nodes(ids:[\"`+hidden+`\"]){id}}"}`)
		e := entry(out)
		if e == nil || e["type"] != "NOT_FOUND" || strings.Contains(fmt.Sprint(out["data"]), "classified") {
			t.Errorf("hidden issue node: %v", out)
		}
	}

	// Documents that cannot run: no data, GitHub's messages.
	for name, tc := range map[string]struct {
		body string
		want string
	}{
		"unknown field": {`{"query":"{viewer{loginx}}"}`, `Cannot query field "loginx" on type "User".`},
		"syntax":        {`{"query":"{viewer{login}"}`, "syntax error"},
		"no query":      {`{"variables":{}}`, "A query attribute must be specified and must be a string."},
		"bad variables": {`{"query":"{viewer{login}}","variables":[1]}`, "Variables are invalid JSON."},
	} {
		st, out := gqlRaw(t, env, "/api/graphql", tc.body)
		e := entry(out)
		if _, hasData := out["data"]; st != 200 || hasData || e == nil || !strings.Contains(e["message"].(string), tc.want) {
			t.Errorf("%s: %d %v", name, st, out)
		}
	}
	// A variable of the wrong type is refused (GitHub refuses the whole
	// document; graphql-go the field that reads it).
	_, bad := gqlRaw(t, env, "/api/graphql", `{"query":"query($n:Int!){repository(owner:\"globex\",name:\"billing\"){issue(number:$n){id}}}","variables":{"n":"one"}}`)
	if e := entry(bad); e == nil || !strings.Contains(e["message"].(string), `"one"`) {
		t.Errorf("wrong variable type: %v", bad)
	}
	if st, _ := gqlRaw(t, env, "/api/graphql", `{"query":`); st != 400 {
		t.Errorf("malformed JSON: %d", st)
	}
	// Nothing above changed the world, and every row is taped unchanged.
	for _, r := range waitRows(t, env, 16) {
		if r.StateMutation {
			t.Errorf("row %s %v mutated", r.Path, *r.Tool)
		}
	}
	// The sandbox path serves GraphQL too, and the rate limit reads as
	// GitHub's.
	st, out := gqlRaw(t, env, "/github/s/"+env.SessionID+"/graphql", `{"query":"{rateLimit{cost remaining resetAt}}"}`)
	rl, _ := out["data"].(map[string]any)["rateLimit"].(map[string]any)
	if st != 200 || rl["cost"] != float64(1) || rl["remaining"] != float64(4999) || rl["resetAt"] == "" {
		t.Errorf("rate limit: %d %v", st, out)
	}
	// Another sandbox's token names another world: the opaque 404.
	other := resttest.Start(t, github.New(), "")
	req, _ := http.NewRequest(http.MethodPost, env.HTTP.URL+"/github/s/"+env.SessionID+"/api/graphql", strings.NewReader(`{"query":"{viewer{login}}"}`))
	req.Header.Set("Authorization", "bearer "+other.Token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 404 {
		t.Errorf("other sandbox's token: %d", res.StatusCode)
	}
}

// TestGraphQLSearchMatchesREST runs search(type: ISSUE) and compares it
// with REST's issue search.
func TestGraphQLSearchMatchesREST(t *testing.T) {
	env := resttest.Start(t, github.New(), gqlSeed)
	ctx := context.Background()
	var q struct {
		Search struct {
			IssueCount githubv4.Int
			Nodes      []struct {
				Issue struct {
					Number githubv4.Int
					Title  githubv4.String
				} `graphql:"... on Issue"`
			}
		} `graphql:"search(query: $q, type: ISSUE, first: 10)"`
	}
	if err := gqlClient(env).Query(ctx, &q, map[string]any{"q": githubv4.String("repo:globex/billing is:issue is:open invoices")}); err != nil {
		t.Fatal(err)
	}
	res, _, err := rootClient(t, env, env.Token).Search.Issues(ctx, "repo:globex/billing is:issue is:open invoices", nil)
	if err != nil {
		t.Fatal(err)
	}
	if int(q.Search.IssueCount) != res.GetTotal() || len(q.Search.Nodes) != 1 || int(q.Search.Nodes[0].Issue.Number) != res.Issues[0].GetNumber() {
		t.Errorf("search: graphql %+v, REST %d %+v", q.Search, res.GetTotal(), res.Issues)
	}
	if tool, _ := lastTool(t, env, 1); tool != "search_issues" {
		t.Errorf("search taped as %s", tool)
	}
}

// TestGraphQLRefsMilestonesObjects reads branches, tags, milestones and git
// objects as octokit.graphql and githubv4 users do, against REST.
func TestGraphQLRefsMilestonesObjects(t *testing.T) {
	env := resttest.Start(t, github.New(), `{
	  "repos": [{"owner": "pome-agent", "name": "notes", "files": {"todo.md": "- ship\n", "logo.bin": "\u0000\u0001"},
	    "branches": [{"name": "draft", "files": {"todo.md": "- ship\n- test\n"}}],
	    "tags": [{"name": "v1", "ref": "main"}],
	    "milestones": [{"number": 1, "title": "Launch", "due_on": "2026-05-01T00:00:00Z"}, {"number": 2, "title": "Later", "state": "closed"}],
	    "issues": [{"number": 1, "title": "Write docs", "milestone": 1}]}]
	}`)
	ctx := context.Background()
	rc := rootClient(t, env, env.Token)
	var q struct {
		Repository struct {
			Branches struct {
				Nodes []struct {
					Name   githubv4.String
					Target struct {
						Oid githubv4.GitObjectID
					}
				}
			} `graphql:"branches: refs(refPrefix: \"refs/heads/\", first: 10)"`
			Tags struct {
				TotalCount githubv4.Int
			} `graphql:"tags: refs(refPrefix: \"refs/tags/\", first: 10)"`
			Milestones struct {
				Nodes []struct {
					Number githubv4.Int
					Title  githubv4.String
					DueOn  *githubv4.DateTime
				}
			} `graphql:"milestones(first: 10, states: [OPEN])"`
			Issue struct {
				Milestone struct{ Title githubv4.String }
			} `graphql:"issue(number: 1)"`
			File struct {
				Blob struct {
					Text     githubv4.String
					ByteSize githubv4.Int
				} `graphql:"... on Blob"`
			} `graphql:"file: object(expression: \"draft:todo.md\")"`
			Binary struct {
				Blob struct {
					Text     *githubv4.String
					IsBinary githubv4.Boolean
				} `graphql:"... on Blob"`
			} `graphql:"binary: object(expression: \"main:logo.bin\")"`
			Head struct {
				Commit struct {
					MessageHeadline githubv4.String
				} `graphql:"... on Commit"`
			} `graphql:"head: object(expression: \"main\")"`
		} `graphql:"repository(owner: \"pome-agent\", name: \"notes\")"`
	}
	if err := gqlClient(env).Query(ctx, &q, nil); err != nil {
		t.Fatal(err)
	}
	branches, _, _ := rc.Repositories.ListBranches(ctx, "pome-agent", "notes", nil)
	repo := q.Repository
	if len(repo.Branches.Nodes) != len(branches) || string(repo.Branches.Nodes[0].Name) != branches[0].GetName() ||
		string(repo.Branches.Nodes[0].Target.Oid) != branches[0].GetCommit().GetSHA() || repo.Tags.TotalCount != 1 {
		t.Errorf("refs: %+v vs %+v", repo.Branches, branches)
	}
	if len(repo.Milestones.Nodes) != 1 || repo.Milestones.Nodes[0].Title != "Launch" || repo.Milestones.Nodes[0].DueOn == nil || repo.Issue.Milestone.Title != "Launch" {
		t.Errorf("milestones: %+v, issue %+v", repo.Milestones, repo.Issue)
	}
	if repo.File.Blob.Text != "- ship\n- test\n" || repo.File.Blob.ByteSize != 14 || !bool(repo.Binary.Blob.IsBinary) || repo.Binary.Blob.Text != nil || repo.Head.Commit.MessageHeadline == "" {
		t.Errorf("objects: %+v %+v %+v", repo.File, repo.Binary, repo.Head)
	}
	_, out := gqlRaw(t, env, "/api/graphql", `{"query":"{repository(owner:\"pome-agent\",name:\"notes\"){refs(refPrefix:\"refs/pulls/\",first:1){totalCount} milestone(number:9){title} object(expression:\"main:nope.md\"){oid}}}"}`)
	errs, _ := out["errors"].([]any)
	data := out["data"].(map[string]any)["repository"].(map[string]any)
	if len(errs) != 2 || data["object"] != nil {
		t.Errorf("bad prefix, missing milestone, missing path: %v", out)
	}
}
