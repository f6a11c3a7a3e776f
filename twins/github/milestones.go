package github

import (
	"context"
	"strings"
	"time"

	"github.com/pomehq/pome/twins"
)

// Editing and deleting milestones (PATCH and DELETE
// /repos/{owner}/{repo}/milestones/{milestone_number}), which
// github-mcp-server has no tool for: actions of the twin's own naming.

// UpdateMilestoneIn is update_milestone's input; absent fields stay.
type UpdateMilestoneIn struct {
	MilestoneIn
	Title       *string `json:"title,omitempty" jsonschema:"New title (unique in the repository)"`
	State       *string `json:"state,omitempty" jsonschema:"open or closed" enum:"open,closed"`
	Description *string `json:"description,omitempty" jsonschema:"New description"`
	DueOn       *string `json:"due_on,omitempty" jsonschema:"New due date (ISO 8601); an empty string removes it"`
}

var updateMilestone = twins.New(twins.Spec{
	Name: "update_milestone", Title: "Update a milestone",
	Description: "Change a milestone's title, state, description or due date.",
	Effect:      twins.Write,
	Bindings:    []twins.Binding{{Method: "PATCH", Path: "/repos/{owner}/{repo}/milestones/{milestone_number}"}},
}, func(ctx context.Context, w *World, in UpdateMilestoneIn) (APIMilestone, error) {
	r, err := w.repo(in.Owner, in.Repo)
	if err != nil {
		return APIMilestone{}, err
	}
	m := r.milestone(in.MilestoneNumber)
	if m == nil {
		return APIMilestone{}, notFound("milestone %d not found in %s", in.MilestoneNumber, r.FullName())
	}
	// Everything is checked before anything changes.
	if in.Title != nil {
		if strings.TrimSpace(*in.Title) == "" {
			return APIMilestone{}, invalid("Milestone", "title", "missing_field", "title cannot be blank")
		}
		for _, x := range r.Milestones {
			if x != m && strings.EqualFold(x.Title, *in.Title) {
				return APIMilestone{}, invalid("Milestone", "title", "already_exists", "a milestone titled %q already exists", *in.Title)
			}
		}
	}
	if in.State != nil && *in.State != "open" && *in.State != "closed" {
		return APIMilestone{}, invalid("Milestone", "state", "invalid", "state must be open or closed, got %q", *in.State)
	}
	var due *time.Time
	if in.DueOn != nil && *in.DueOn != "" {
		t, err := time.Parse(time.RFC3339, *in.DueOn)
		if err != nil {
			return APIMilestone{}, invalid("Milestone", "due_on", "invalid", "due_on must be an ISO 8601 time, got %q", *in.DueOn)
		}
		due = &t
	}
	now := twins.EnvFrom(ctx).Now().UTC()
	changed := false
	if in.Title != nil && *in.Title != m.Title {
		m.Title, changed = *in.Title, true
	}
	if in.Description != nil && *in.Description != m.Description {
		m.Description, changed = *in.Description, true
	}
	if in.DueOn != nil && !sameTime(m.DueOn, due) {
		m.DueOn, changed = due, true
	}
	if in.State != nil && *in.State != m.State {
		m.State, changed = *in.State, true
		if m.State == "closed" {
			t := now
			m.ClosedAt = &t
		} else {
			m.ClosedAt = nil
		}
	}
	if changed {
		m.UpdatedAt = now
	} else {
		twins.Unchanged(ctx)
	}
	return *newView(ctx, w).milestone(r, m), nil
})

func sameTime(a, b *time.Time) bool {
	return a == nil && b == nil || a != nil && b != nil && a.Equal(*b)
}

var deleteMilestone = twins.New(twins.Spec{
	Name: "delete_milestone", Title: "Delete a milestone",
	Description: "Delete a milestone; its issues and pull requests keep no milestone.",
	Effect:      twins.Destructive,
	Bindings:    []twins.Binding{{Method: "DELETE", Path: "/repos/{owner}/{repo}/milestones/{milestone_number}", Status: 204, Shape: noBody}},
}, func(ctx context.Context, w *World, in MilestoneIn) (*struct{}, error) {
	r, err := w.repo(in.Owner, in.Repo)
	if err != nil {
		return nil, err
	}
	m := r.milestone(in.MilestoneNumber)
	if m == nil {
		return nil, notFound("milestone %d not found in %s", in.MilestoneNumber, r.FullName())
	}
	for i, x := range r.Milestones {
		if x == m {
			r.Milestones = append(r.Milestones[:i], r.Milestones[i+1:]...)
			break
		}
	}
	now := twins.EnvFrom(ctx).Now().UTC()
	for _, is := range r.Issues {
		if is.Milestone == m.Number {
			is.Milestone, is.UpdatedAt = 0, now
		}
	}
	return &struct{}{}, nil
})
