package linear

import (
	"context"
	"slices"
	"strings"

	"github.com/pomehq/pome/twins"
)

// Comments on issues: list_comments, save_comment (a new thread, a reply
// in one, or an edit) and delete_comment. Comments on projects,
// initiatives, documents, milestones and status updates are not modelled:
// those parents are refused by name.

// CommentOut is a comment as Linear's MCP tools answer it.
type CommentOut struct {
	ID        string  `json:"id"`
	Body      string  `json:"body"`
	CreatedAt string  `json:"createdAt"`
	UpdatedAt string  `json:"updatedAt"`
	EditedAt  *string `json:"editedAt"`
	Author    *string `json:"author"`
	AuthorID  *string `json:"authorId"`
	IssueID   string  `json:"issueId"`
	Issue     string  `json:"issue"`
	ParentID  *string `json:"parentId"`
	URL       string  `json:"url"`
}

func (w *World) commentOut(c *Comment) CommentOut {
	o := CommentOut{ID: c.ID, Body: c.Body, CreatedAt: isoTime(c.CreatedAt), UpdatedAt: isoTime(c.UpdatedAt),
		EditedAt: isoPtr(c.EditedAt), IssueID: c.IssueID, ParentID: strPtr(c.ParentID)}
	if u := w.user(c.UserID); u != nil {
		o.Author, o.AuthorID = &u.Name, &u.ID
	}
	if is := w.issue(c.IssueID); is != nil {
		o.Issue = is.Identifier
		o.URL = w.issueURL(is) + "#comment-" + c.ID[:min(8, len(c.ID))]
	}
	return o
}

// commentParents are the parent arguments Linear's comment tools take;
// only issueId is modelled.
type commentParents struct {
	IssueID          string `json:"issueId,omitempty" jsonschema:"Issue ID or identifier (e.g., LIN-123) (provide exactly one parent)"`
	ProjectID        string `json:"projectId,omitempty" jsonschema:"Project name, ID, or slug (project comments are not modelled)"`
	InitiativeID     string `json:"initiativeId,omitempty" jsonschema:"Initiative (not modelled)"`
	DocumentID       string `json:"documentId,omitempty" jsonschema:"Document ID or slug (document comments are not modelled)"`
	MilestoneID      string `json:"milestoneId,omitempty" jsonschema:"Milestone UUID (not modelled)"`
	StatusUpdateID   string `json:"statusUpdateId,omitempty" jsonschema:"Status update UUID (not modelled)"`
	StatusUpdateType string `json:"statusUpdateType,omitempty" jsonschema:"Type of status update named by statusUpdateId" enum:"project,initiative"`
}

// issueParent resolves the one parent, which must be an issue.
func (w *World) issueParent(p commentParents, required bool) (*Issue, error) {
	others := map[string]string{"projectId": p.ProjectID, "initiativeId": p.InitiativeID, "documentId": p.DocumentID,
		"milestoneId": p.MilestoneID, "statusUpdateId": p.StatusUpdateID}
	n := 0
	for _, v := range others {
		if v != "" {
			n++
		}
	}
	if p.IssueID != "" {
		n++
	}
	if n > 1 {
		return nil, errInvalid("issueId", "Provide exactly one parent")
	}
	for _, k := range []string{"documentId", "initiativeId", "milestoneId", "projectId", "statusUpdateId"} {
		if others[k] != "" {
			return nil, errInvalid(k, "%s: comments on projects, initiatives, documents, milestones and status updates are not modelled by Pome's Linear twin; comment on an issue", k)
		}
	}
	if p.IssueID == "" {
		if required {
			return nil, errInvalid("issueId", "Provide exactly one parent")
		}
		return nil, nil
	}
	is := w.findIssue(p.IssueID)
	if is == nil {
		return nil, errNotFound("Issue", p.IssueID)
	}
	return is, nil
}

// ListCommentsIn is list_comments' input.
type ListCommentsIn struct {
	Limit   int    `json:"limit,omitempty" jsonschema:"Max results (default 50, max 250)"`
	Cursor  string `json:"cursor,omitempty" jsonschema:"Next page cursor"`
	OrderBy string `json:"orderBy,omitempty" jsonschema:"Sort: createdAt | updatedAt" enum:"createdAt,updatedAt"`
	commentParents
}

// ListCommentsOut is one page of comments.
type ListCommentsOut struct {
	Comments    []CommentOut `json:"comments"`
	HasNextPage bool         `json:"hasNextPage"`
	Cursor      string       `json:"cursor,omitempty"`
}

var listComments = twins.New(twins.Spec{
	Name: "list_comments", Title: "List comments",
	Description: "List comments on a Linear issue. Provide the issue as `issueId`; this returns both top-level comments and their threaded replies (parentId names the thread's first comment).",
	Effect:      twins.Read,
}, func(ctx context.Context, w *World, in ListCommentsIn) (ListCommentsOut, error) {
	is, err := w.issueParent(in.commentParents, true)
	if err != nil {
		return ListCommentsOut{}, err
	}
	items, next, err := page(sortBy(w.issueComments(is.ID), in.OrderBy), in.Limit, in.Cursor)
	if err != nil {
		return ListCommentsOut{}, err
	}
	out := ListCommentsOut{Comments: []CommentOut{}, HasNextPage: next != "", Cursor: next}
	for _, c := range items {
		out.Comments = append(out.Comments, w.commentOut(c))
	}
	return out, nil
})

// SaveCommentIn is save_comment's input.
type SaveCommentIn struct {
	ID string `json:"id,omitempty" jsonschema:"Comment ID. If provided, updates the existing comment"`
	commentParents
	ParentID string `json:"parentId,omitempty" jsonschema:"Parent comment ID (for replies, only when creating)"`
	Body     string `json:"body" jsonschema:"Content as Markdown"`
}

var saveComment = twins.New(twins.Spec{
	Name: "save_comment", Title: "Save comment",
	Description: "Create or update a comment on a Linear issue. If `id` is provided, updates the existing comment; otherwise creates a new one. " +
		"To start a new thread, pass `body` and `issueId`; to reply in a thread, pass `parentId` (the issue is then optional).",
	Effect: twins.Destructive,
}, saveCommentHandler)

func saveCommentHandler(ctx context.Context, w *World, in SaveCommentIn) (CommentOut, error) {
	if strings.TrimSpace(in.Body) == "" {
		return CommentOut{}, errInvalid("body", "body must not be empty")
	}
	at := now(ctx)
	if in.ID != "" {
		c := w.comment(in.ID)
		if c == nil {
			return CommentOut{}, errNotFound("Comment", in.ID)
		}
		if in.ParentID != "" {
			return CommentOut{}, errInvalid("parentId", "parentId is only valid when creating a comment")
		}
		if _, err := w.issueParent(in.commentParents, false); err != nil {
			return CommentOut{}, err
		}
		if c.UserID != w.ViewerID {
			return CommentOut{}, twins.Errorf(twins.Forbidden, "forbidden", "You can only edit your own comments.")
		}
		if c.Body == in.Body {
			twins.Unchanged(ctx)
			return w.commentOut(c), nil
		}
		c.Body, c.UpdatedAt, c.EditedAt = in.Body, at, &at
		return w.commentOut(c), nil
	}
	is, err := w.issueParent(in.commentParents, in.ParentID == "")
	if err != nil {
		return CommentOut{}, err
	}
	parent := ""
	if in.ParentID != "" {
		p := w.comment(in.ParentID)
		if p == nil {
			return CommentOut{}, errNotFound("Comment", in.ParentID)
		}
		if is != nil && p.IssueID != is.ID {
			return CommentOut{}, errInvalid("parentId", "the parent comment is on another issue")
		}
		is = w.issue(p.IssueID)
		// Linear's threads are one level deep: a reply to a reply joins
		// the thread of its root.
		parent = p.ID
		if p.ParentID != "" {
			parent = p.ParentID
		}
	}
	c := &Comment{ID: w.newID(), IssueID: is.ID, ParentID: parent, Body: in.Body, UserID: w.ViewerID, CreatedAt: at, UpdatedAt: at}
	w.Comments = append(w.Comments, c)
	return w.commentOut(c), nil
}

// DeleteCommentIn is delete_comment's input.
type DeleteCommentIn struct {
	ID string `json:"id" jsonschema:"Comment ID"`
}

// DeleteCommentOut is Linear's answer to a delete.
type DeleteCommentOut struct {
	Success bool   `json:"success"`
	ID      string `json:"id"`
}

var deleteComment = twins.New(twins.Spec{
	Name: "delete_comment", Title: "Delete comment",
	Description: "Delete a Linear comment, and the replies of its thread when it starts one.",
	Effect:      twins.Destructive,
}, func(ctx context.Context, w *World, in DeleteCommentIn) (DeleteCommentOut, error) {
	c := w.comment(in.ID)
	if c == nil {
		return DeleteCommentOut{}, errNotFound("Comment", in.ID)
	}
	if c.UserID != w.ViewerID {
		if u := w.viewer(); u == nil || !u.Admin {
			return DeleteCommentOut{}, twins.Errorf(twins.Forbidden, "forbidden", "You can only delete your own comments.")
		}
	}
	w.Comments = slices.DeleteFunc(w.Comments, func(x *Comment) bool { return x.ID == c.ID || x.ParentID == c.ID })
	return DeleteCommentOut{Success: true, ID: c.ID}, nil
})
