package github

import (
	"context"
	"slices"
	"strings"

	"github.com/pomehq/pome/twins"
)

// reactionContents are GitHub's reaction contents.
var reactionContents = []string{"+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes"}

// APIReaction is GitHub's reaction object.
type APIReaction struct {
	ID        int64    `json:"id"`
	NodeID    string   `json:"node_id"`
	User      *APIUser `json:"user"`
	Content   string   `json:"content"`
	CreatedAt string   `json:"created_at"`

	existed bool
}

// reactionStatus is 201 for a new reaction, 200 for one the user had.
func reactionStatus(_, out any) int {
	if r, ok := out.(*APIReaction); ok && r.existed {
		return 200
	}
	return 201
}

// addReaction is add_issue_comment with a reaction: to the issue, or to
// the comment comment_id names (anywhere in the repository when the call
// names no issue, as GitHub's comment reactions route does).
func addReaction(ctx context.Context, w *World, in AddIssueCommentIn) (*APIReaction, error) {
	r, err := w.repo(in.Owner, in.Repo)
	if err != nil {
		return nil, err
	}
	if in.Body != "" {
		return nil, invalid("Reaction", "body", "invalid", "a reaction cannot be combined with body")
	}
	if !slices.Contains(reactionContents, in.Reaction) {
		return nil, invalid("Reaction", "content", "invalid", "reaction must be one of %s, got %q", strings.Join(reactionContents, ", "), in.Reaction)
	}
	var list *[]*Reaction
	if in.CommentID != 0 {
		is, i := r.findComment(in.CommentID)
		if is == nil || in.IssueNumber != 0 && is.Number != in.IssueNumber {
			return nil, notFound("comment %d not found", in.CommentID)
		}
		list = is.Comments.Reactions(i)
	} else {
		is, err := r.issue(in.IssueNumber)
		if err != nil {
			return nil, err
		}
		list = &is.Reactions
	}
	v := newView(ctx, w)
	for _, x := range *list {
		if x.Content == in.Reaction && strings.EqualFold(x.User, w.Me) {
			twins.Unchanged(ctx)
			return &APIReaction{ID: x.ID, NodeID: nodeID("REA", x.ID), User: v.user(x.User), Content: x.Content, CreatedAt: ts(x.CreatedAt), existed: true}, nil
		}
	}
	x := &Reaction{ID: w.nextID(), User: w.Me, Content: in.Reaction, CreatedAt: twins.EnvFrom(ctx).Now().UTC()}
	*list = append(*list, x)
	return &APIReaction{ID: x.ID, NodeID: nodeID("REA", x.ID), User: v.user(x.User), Content: x.Content, CreatedAt: ts(x.CreatedAt)}, nil
}
