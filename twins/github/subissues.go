package github

import (
	"context"
	"slices"

	"github.com/pomehq/pome/twins"
)

// Sub-issues: an issue keeps its sub-issues' ids in priority order
// (Issue.SubIssues); an issue has at most one parent, found by scanning.
// Sub-issues may live in another repository, as on GitHub, but only in one
// the authenticated user can see.

// maxSubIssues is GitHub's limit of sub-issues per parent.
const maxSubIssues = 100

// issueByID finds an issue by its id among the repositories the
// authenticated user can see.
func (w *World) issueByID(id int64) (*Repo, *Issue) {
	for _, r := range w.visibleRepos() {
		for _, is := range r.Issues {
			if is.ID == id {
				return r, is
			}
		}
	}
	return nil, nil
}

// parentOf returns the visible issue that has is among its sub-issues.
func (w *World) parentOf(is *Issue) (*Repo, *Issue) {
	for _, r := range w.visibleRepos() {
		for _, p := range r.Issues {
			if slices.Contains(p.SubIssues, is.ID) {
				return r, p
			}
		}
	}
	return nil, nil
}

// subIssues returns is's visible sub-issues in priority order.
func (w *World) subIssues(is *Issue) []subIssue {
	out := make([]subIssue, 0, len(is.SubIssues))
	for _, id := range is.SubIssues {
		if r, s := w.issueByID(id); s != nil {
			out = append(out, subIssue{r, s})
		}
	}
	return out
}

type subIssue struct {
	repo  *Repo
	issue *Issue
}

// descends reports whether candidate is is itself or lies below it.
func (w *World) descends(is *Issue, candidate int64) bool {
	if is.ID == candidate {
		return true
	}
	for _, s := range w.subIssues(is) {
		if w.descends(s.issue, candidate) {
			return true
		}
	}
	return false
}

// SubIssueWriteIn is sub_issue_write's input (github-mcp-server's
// parameters).
type SubIssueWriteIn struct {
	Method string `json:"method" jsonschema:"The action to perform on a single sub-issue: add, remove or reprioritize (use after_id or before_id for the new position)"`
	RepoRef
	IssueNumber   int   `json:"issue_number" jsonschema:"The number of the parent issue"`
	SubIssueID    int64 `json:"sub_issue_id" jsonschema:"The ID of the sub-issue to add. ID is not the same as issue number"`
	ReplaceParent bool  `json:"replace_parent,omitempty" jsonschema:"When true, replaces the sub-issue's current parent issue. Use with 'add' method only."`
	AfterID       int64 `json:"after_id,omitempty" jsonschema:"The ID of the sub-issue to be prioritized after (either after_id OR before_id should be specified)"`
	BeforeID      int64 `json:"before_id,omitempty" jsonschema:"The ID of the sub-issue to be prioritized before (either after_id OR before_id should be specified)"`
}

var subIssueWrite = twins.New(twins.Spec{
	Name: "sub_issue_write", Title: "Change sub-issue",
	Description: "Add a sub-issue to a parent issue, remove one, or change the order of sub-issues within a parent issue in a GitHub repository.",
	Effect:      twins.Write,
	Bindings: []twins.Binding{
		{Method: "POST", Path: issuePath + "/sub_issues", Fixed: map[string]any{"method": "add"}, Status: 201},
		{Method: "DELETE", Path: issuePath + "/sub_issue", Fixed: map[string]any{"method": "remove"}},
		{Method: "PATCH", Path: issuePath + "/sub_issues/priority", Fixed: map[string]any{"method": "reprioritize"}},
	},
}, func(ctx context.Context, w *World, in SubIssueWriteIn) (APIIssue, error) {
	r, parent, err := w.issueOf(in.Owner, in.Repo, in.IssueNumber)
	if err != nil {
		return APIIssue{}, err
	}
	if err := w.changeSubIssues(parent, in); err != nil {
		return APIIssue{}, err
	}
	parent.UpdatedAt = twins.EnvFrom(ctx).Now().UTC()
	return newView(ctx, w).issue(r, parent), nil
})

// changeSubIssues applies one sub_issue_write to parent, checking every
// rule before it changes anything.
func (w *World) changeSubIssues(parent *Issue, in SubIssueWriteIn) error {
	_, sub := w.issueByID(in.SubIssueID)
	switch in.Method {
	case "add":
		if sub == nil {
			return invalid("Issue", "sub_issue_id", "invalid", "no issue with id %d", in.SubIssueID)
		}
		if sub.Pull != nil {
			return invalid("Issue", "sub_issue_id", "invalid", "a pull request cannot be a sub-issue")
		}
		if slices.Contains(parent.SubIssues, sub.ID) {
			return invalid("Issue", "sub_issue_id", "invalid", "Issue may not contain duplicate sub-issues")
		}
		if w.descends(sub, parent.ID) {
			return invalid("Issue", "sub_issue_id", "invalid", "an issue cannot be a sub-issue of itself or of one of its own sub-issues")
		}
		if len(parent.SubIssues) >= maxSubIssues {
			return invalid("Issue", "sub_issue_id", "invalid", "an issue can have at most %d sub-issues", maxSubIssues)
		}
		_, old := w.parentOf(sub)
		if old != nil && !in.ReplaceParent {
			return invalid("Issue", "sub_issue_id", "invalid", "Issue may only have one parent: set replace_parent to move it")
		}
		if old != nil {
			old.SubIssues = slices.DeleteFunc(old.SubIssues, func(id int64) bool { return id == sub.ID })
		}
		parent.SubIssues = append(parent.SubIssues, sub.ID)
	case "remove":
		i := slices.Index(parent.SubIssues, in.SubIssueID)
		if sub == nil || i < 0 {
			return notFound("issue %d is not a sub-issue of #%d", in.SubIssueID, parent.Number)
		}
		parent.SubIssues = slices.Delete(parent.SubIssues, i, i+1)
	case "reprioritize":
		i := slices.Index(parent.SubIssues, in.SubIssueID)
		if sub == nil || i < 0 {
			return notFound("issue %d is not a sub-issue of #%d", in.SubIssueID, parent.Number)
		}
		if (in.AfterID == 0) == (in.BeforeID == 0) {
			return invalid("Issue", "after_id", "invalid", "give exactly one of after_id and before_id")
		}
		anchor := in.AfterID + in.BeforeID
		if anchor == in.SubIssueID || !slices.Contains(parent.SubIssues, anchor) {
			return invalid("Issue", "after_id", "invalid", "issue %d is not another sub-issue of #%d", anchor, parent.Number)
		}
		list := slices.Delete(slices.Clone(parent.SubIssues), i, i+1)
		at := slices.Index(list, anchor)
		if in.AfterID != 0 {
			at++
		}
		parent.SubIssues = slices.Insert(list, at, in.SubIssueID)
	default:
		return invalid("Issue", "method", "invalid", "unknown method %q: use add, remove or reprioritize", in.Method)
	}
	return nil
}
