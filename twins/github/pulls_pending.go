package github

import (
	"context"
	"strings"

	"github.com/pomehq/pome/twins"
)

// PendingReviewCommentIn is add_comment_to_pending_review's input
// (github-mcp-server's parameters).
type PendingReviewCommentIn struct {
	RepoRef
	PullNumber  int    `json:"pullNumber" jsonschema:"Pull request number"`
	Path        string `json:"path" jsonschema:"The relative path to the file that necessitates a comment"`
	Body        string `json:"body" jsonschema:"The text of the review comment"`
	SubjectType string `json:"subjectType" jsonschema:"The level at which the comment is targeted: LINE or FILE" enum:"FILE,LINE"`
	Line        int    `json:"line,omitempty" jsonschema:"The line of the blob in the pull request diff that the comment applies to. For multi-line comments, the last line of the range"`
	Side        string `json:"side,omitempty" jsonschema:"The side of the diff to comment on: LEFT or RIGHT" enum:"LEFT,RIGHT"`
	StartLine   int    `json:"startLine,omitempty" jsonschema:"For multi-line comments, the first line of the range that the line parameter applies to"`
	StartSide   string `json:"startSide,omitempty" jsonschema:"For multi-line comments, the starting side of the diff that the comment applies to: LEFT or RIGHT" enum:"LEFT,RIGHT"`
}

var addCommentToPendingReview = twins.New(twins.Spec{
	Name: "add_comment_to_pending_review", Title: "Add review comment to the requester's latest pending pull request review",
	Description: "Add review comment to the requester's latest pending pull request review. A pending review needs to already exist to call this (check with the user if not sure).",
	Effect:      twins.Write,
	// GitHub has no REST route for it: github-mcp-server calls GraphQL's
	// addPullRequestReviewThread, which runs this action.
}, func(ctx context.Context, w *World, in PendingReviewCommentIn) (APIReviewComment, error) {
	r, is, err := w.pullOf(in.Owner, in.Repo, in.PullNumber)
	if err != nil {
		return APIReviewComment{}, err
	}
	var pending *Review
	for _, rv := range is.Pull.Reviews {
		if rv.State == "PENDING" && strings.EqualFold(rv.User, w.Me) {
			pending = rv
		}
	}
	if pending == nil {
		return APIReviewComment{}, notFound("No pending review found for the viewer")
	}
	if strings.TrimSpace(in.Body) == "" {
		return APIReviewComment{}, invalid("PullRequestReviewComment", "body", "missing_field", "body is required")
	}
	head := r.commit(r.headSHA(is.Pull))
	if _, ok := head.Tree[in.Path]; !ok {
		return APIReviewComment{}, invalid("PullRequestReviewComment", "path", "invalid", "path %q is not a file of the pull request's head", in.Path)
	}
	line := 0
	switch in.SubjectType {
	case "FILE":
	case "LINE", "":
		if in.Line <= 0 {
			return APIReviewComment{}, invalid("PullRequestReviewComment", "line", "missing_field", "line is required for a LINE comment")
		}
		if n := len(splitLines(string(r.Blobs[head.Tree[in.Path]]))); in.Line > n {
			return APIReviewComment{}, invalid("PullRequestReviewComment", "line", "invalid", "line %d is past the end of %s (%d lines)", in.Line, in.Path, n)
		}
		line = in.Line
	default:
		return APIReviewComment{}, invalid("PullRequestReviewComment", "subjectType", "invalid", "subjectType must be LINE or FILE, got %q", in.SubjectType)
	}
	side := strings.ToUpper(in.Side)
	switch side {
	case "":
		side = "RIGHT"
	case "LEFT", "RIGHT":
	default:
		return APIReviewComment{}, invalid("PullRequestReviewComment", "side", "invalid", "side must be LEFT or RIGHT, got %q", in.Side)
	}
	now := twins.EnvFrom(ctx).Now().UTC()
	c := &ReviewComment{ID: w.nextID(), ReviewID: pending.ID, User: w.Me, Body: in.Body, Path: in.Path, Line: line, Side: side,
		CommitID: head.SHA, CreatedAt: now, UpdatedAt: now}
	is.Pull.ReviewComments = append(is.Pull.ReviewComments, c)
	return newView(ctx, w).reviewComment(r, is, c), nil
})
