package github

import (
	"context"
	"slices"
	"strings"

	"github.com/pomehq/pome/twins"
)

// ReplyIn is add_reply_to_pull_request_comment's input (github-mcp-server's
// names; REST's pull_number, comment_id and a reaction's content are
// renamed onto them).
type ReplyIn struct {
	RepoRef
	PullNumber int    `json:"pullNumber,omitempty" jsonschema:"Pull request number. Required when body is provided."`
	CommentID  int64  `json:"commentId" jsonschema:"The numeric ID of the pull request review comment to reply or react to (the number of a #discussion_r… anchor)"`
	Body       string `json:"body,omitempty" jsonschema:"The text of the reply. Required unless reaction is provided."`
	Reaction   string `json:"reaction,omitempty" jsonschema:"Emoji reaction to add. Required unless body is provided." enum:"+1,-1,laugh,confused,heart,hooray,rocket,eyes"`
}

// ReplyOut is what add_reply_to_pull_request_comment did: the reply, the
// reaction, or both.
type ReplyOut struct {
	Comment  *APIReviewComment `json:"comment,omitempty"`
	Reaction *APIReaction      `json:"reaction,omitempty"`
}

// restBody is the REST answer: the one object the route created.
func (o ReplyOut) restBody() any {
	if o.Comment != nil {
		return o.Comment
	}
	return o.Reaction
}

var addReplyToPullRequestComment = twins.New(twins.Spec{
	Name:  "add_reply_to_pull_request_comment",
	Title: "Add reply to pull request comment",
	Description: "Add a reply and/or reaction to an existing pull request review comment: a new comment in the same thread, " +
		"an emoji reaction to the comment, or both. At least one of body or reaction is required.",
	Effect: twins.Write,
	Bindings: []twins.Binding{
		{Method: "POST", Path: pullPath + "/comments/{comment_id}/replies", Status: 201, Shape: restShape,
			Rename: map[string]string{"pull_number": "pullNumber", "comment_id": "commentId"}},
		// Reactions answer 201 when new and 200 when the user had already
		// reacted so.
		{Method: "POST", Path: "/repos/{owner}/{repo}/pulls/comments/{comment_id}/reactions", Shape: restShape,
			Rename: map[string]string{"comment_id": "commentId", "content": "reaction"},
			StatusOf: func(_, out any) int {
				if o, ok := out.(ReplyOut); ok && o.Reaction != nil && o.Reaction.existed {
					return 200
				}
				return 201
			}},
	},
}, func(ctx context.Context, w *World, in ReplyIn) (ReplyOut, error) {
	r, err := w.repo(in.Owner, in.Repo)
	if err != nil {
		return ReplyOut{}, err
	}
	if in.Body == "" && in.Reaction == "" {
		return ReplyOut{}, invalid("PullRequestReviewComment", "body", "missing_field", "at least one of body or reaction is required")
	}
	if in.Body != "" && strings.TrimSpace(in.Body) == "" {
		return ReplyOut{}, invalid("PullRequestReviewComment", "body", "missing_field", "body can't be blank")
	}
	if in.Reaction != "" && !slices.Contains(reactionContents, in.Reaction) {
		return ReplyOut{}, invalid("Reaction", "content", "invalid", "reaction must be one of %s, got %q", strings.Join(reactionContents, ", "), in.Reaction)
	}
	// Find the comment, within the pull request when one is named.
	var is *Issue
	var parent *ReviewComment
	for _, x := range r.Issues {
		if x.Pull == nil || in.PullNumber != 0 && x.Number != in.PullNumber {
			continue
		}
		for _, c := range x.Pull.ReviewComments {
			if c.ID == in.CommentID && reviewCommentVisible(w, x, c) {
				is, parent = x, c
			}
		}
	}
	if parent == nil {
		return ReplyOut{}, notFound("review comment %d not found", in.CommentID)
	}
	if in.Body != "" && in.PullNumber == 0 {
		return ReplyOut{}, invalid("PullRequestReviewComment", "pullNumber", "missing_field", "pullNumber is required with body")
	}
	v := newView(ctx, w)
	now := twins.EnvFrom(ctx).Now().UTC()
	var out ReplyOut
	if in.Reaction != "" {
		var x *Reaction
		for _, old := range parent.Reactions {
			if old.Content == in.Reaction && strings.EqualFold(old.User, w.Me) {
				x = old
			}
		}
		existed := x != nil
		if !existed {
			x = &Reaction{ID: w.nextID(), User: w.Me, Content: in.Reaction, CreatedAt: now}
			parent.Reactions = append(parent.Reactions, x)
		}
		out.Reaction = &APIReaction{ID: x.ID, NodeID: nodeID("REA", x.ID), User: v.user(x.User), Content: x.Content, CreatedAt: ts(x.CreatedAt), existed: existed}
	}
	if in.Body != "" {
		root := parent
		if parent.InReplyTo != 0 {
			for _, c := range is.Pull.ReviewComments {
				if c.ID == parent.InReplyTo {
					root = c
				}
			}
		}
		c := &ReviewComment{ID: w.nextID(), User: w.Me, Body: in.Body, Path: root.Path, Line: root.Line, Side: root.Side,
			CommitID: root.CommitID, InReplyTo: root.ID, CreatedAt: now, UpdatedAt: now}
		is.Pull.ReviewComments = append(is.Pull.ReviewComments, c)
		is.UpdatedAt = now
		rc := v.reviewComment(r, is, c)
		out.Comment = &rc
	}
	if out.Comment == nil && out.Reaction.existed {
		twins.Unchanged(ctx)
	}
	return out, nil
})

// reviewCommentVisible hides the comments of another user's pending
// review, which GitHub shows nobody else.
func reviewCommentVisible(w *World, is *Issue, c *ReviewComment) bool {
	for _, rv := range is.Pull.Reviews {
		if rv.ID == c.ReviewID && rv.State == "PENDING" && !strings.EqualFold(rv.User, w.Me) {
			return false
		}
	}
	return true
}
