package github

import (
	"context"
	"fmt"
	"strings"

	"github.com/pomehq/pome/twins"
)

// IssueLabelsIn is the input of add_issue_labels and set_issue_labels.
// Labels is the whole REST body: go-github sends a bare array of names,
// octokit an object {"labels": […]} whose items may be names or {name}.
type IssueLabelsIn struct {
	RepoRef
	IssueNumber int `json:"issue_number" jsonschema:"Issue or pull request number"`
	Labels      any `json:"labels" jsonschema:"Label names (an array of strings); labels the repository lacks are created"`
}

// labelNames normalises the accepted label body shapes to names.
func labelNames(v any) ([]string, error) {
	if m, ok := v.(map[string]any); ok {
		v = m["labels"]
	}
	var out []string
	switch t := v.(type) {
	case nil:
		return []string{}, nil
	case string:
		return []string{t}, nil
	case []any:
		for _, item := range t {
			switch x := item.(type) {
			case string:
				out = append(out, x)
			case map[string]any:
				name, _ := x["name"].(string)
				out = append(out, name)
			default:
				return nil, invalid("Label", "labels", "invalid", "labels must be names, got %v", item)
			}
		}
	default:
		return nil, invalid("Label", "labels", "invalid", "labels must be an array of names")
	}
	for _, n := range out {
		if strings.TrimSpace(n) == "" {
			return nil, invalid("Label", "name", "missing_field", "label names cannot be blank")
		}
	}
	if out == nil {
		out = []string{}
	}
	return out, nil
}

// labelsResult is the label list GitHub answers label edits with.
type labelsResult = List[APILabel]

func issueLabelsWrite(replace bool) twins.Handler[World, IssueLabelsIn, *labelsResult] {
	return func(ctx context.Context, w *World, in IssueLabelsIn) (*labelsResult, error) {
		r, is, err := w.issueOf(in.Owner, in.Repo, in.IssueNumber)
		if err != nil {
			return nil, err
		}
		names, err := labelNames(in.Labels)
		if err != nil {
			return nil, err
		}
		if !replace {
			names = append(append([]string{}, is.Labels...), names...)
		}
		now := twins.EnvFrom(ctx).Now().UTC()
		before := len(r.Labels)
		if setIssueLabels(w, r, is, names, now) {
			is.UpdatedAt = now
		} else if len(r.Labels) == before {
			twins.Unchanged(ctx)
		}
		return issueLabelList(ctx, w, r, is), nil
	}
}

func issueLabelList(ctx context.Context, w *World, r *Repo, is *Issue) *labelsResult {
	v := newView(ctx, w)
	return newList(ctx, v.labels(r, is.Labels), Paging{PerPage: maxPerPage}, fmt.Sprintf("/repos/%s/issues/%d/labels", r.FullName(), is.Number), nil)
}

var addIssueLabels = twins.New(twins.Spec{
	Name:        "add_issue_labels",
	Title:       "Add labels to an issue",
	Description: "Add labels to an issue or pull request, keeping the ones it has. As on GitHub, a label the repository does not define is created.",
	Effect:      twins.Write,
	Bindings: []twins.Binding{
		{Method: "POST", Path: issuePath + "/labels", Body: "labels", Shape: restShape},
	},
}, issueLabelsWrite(false))

var setIssueLabelsAction = twins.New(twins.Spec{
	Name:        "set_issue_labels",
	Title:       "Set the labels of an issue",
	Description: "Replace all labels of an issue or pull request. As on GitHub, a label the repository does not define is created.",
	Effect:      twins.Write,
	Bindings: []twins.Binding{
		{Method: "PUT", Path: issuePath + "/labels", Body: "labels", Shape: restShape},
	},
}, issueLabelsWrite(true))

// RemoveIssueLabelIn is remove_issue_label's input; an empty name removes
// every label (DELETE …/labels).
type RemoveIssueLabelIn struct {
	RepoRef
	IssueNumber int    `json:"issue_number" jsonschema:"Issue or pull request number"`
	Name        string `json:"name,omitempty" jsonschema:"Label to remove; omit to remove all labels"`
}

var removeIssueLabel = twins.New(twins.Spec{
	Name:        "remove_issue_label",
	Title:       "Remove a label from an issue",
	Description: "Remove one label from an issue or pull request (404 when the issue does not have it), or all labels when no name is given.",
	Effect:      twins.Write,
	Bindings: []twins.Binding{
		{Method: "DELETE", Path: issuePath + "/labels/{name}", Shape: restShape},
		{Method: "DELETE", Path: issuePath + "/labels", Status: 204, Shape: noBody},
	},
}, func(ctx context.Context, w *World, in RemoveIssueLabelIn) (*labelsResult, error) {
	r, is, err := w.issueOf(in.Owner, in.Repo, in.IssueNumber)
	if err != nil {
		return nil, err
	}
	var next []string
	if in.Name != "" {
		if !containsFold(is.Labels, in.Name) {
			return nil, notFound("issue #%d does not have the label %q", is.Number, in.Name)
		}
		for _, l := range is.Labels {
			if !strings.EqualFold(l, in.Name) {
				next = append(next, l)
			}
		}
	}
	now := twins.EnvFrom(ctx).Now().UTC()
	if setIssueLabels(w, r, is, next, now) {
		is.UpdatedAt = now
	} else {
		twins.Unchanged(ctx)
	}
	return issueLabelList(ctx, w, r, is), nil
})

// RepoLabelsIn is list_label's input.
type RepoLabelsIn struct {
	RepoRef
	Paging
}

var listLabel = twins.New(twins.Spec{
	Name:        "list_label",
	Title:       "List labels from a repository",
	Description: "List the labels defined in a GitHub repository.",
	Effect:      twins.Read,
	Bindings: []twins.Binding{
		{Method: "GET", Path: "/repos/{owner}/{repo}/labels", Rename: perPageRename, Shape: restShape, Headers: linkHeaders},
	},
}, func(ctx context.Context, w *World, in RepoLabelsIn) (*labelsResult, error) {
	r, err := w.repo(in.Owner, in.Repo)
	if err != nil {
		return nil, err
	}
	v := newView(ctx, w)
	items := make([]APILabel, 0, len(r.Labels))
	for _, l := range r.Labels {
		items = append(items, v.label(r, l))
	}
	return newList(ctx, items, in.Paging, "/repos/"+r.FullName()+"/labels", nil), nil
})

// GetLabelIn is get_label's input.
type GetLabelIn struct {
	RepoRef
	Name string `json:"name" jsonschema:"Label name"`
}

var getLabel = twins.New(twins.Spec{
	Name:        "get_label",
	Title:       "Get a specific label from a repository",
	Description: "Get a label of a GitHub repository by name.",
	Effect:      twins.Read,
	Bindings: []twins.Binding{
		{Method: "GET", Path: "/repos/{owner}/{repo}/labels/{name}"},
	},
}, func(ctx context.Context, w *World, in GetLabelIn) (APILabel, error) {
	r, err := w.repo(in.Owner, in.Repo)
	if err != nil {
		return APILabel{}, err
	}
	l := r.label(in.Name)
	if l == nil {
		return APILabel{}, notFound("label %q not found in %s", in.Name, r.FullName())
	}
	return newView(ctx, w).label(r, l), nil
})

// LabelWriteIn is label_write's input (github-mcp-server's parameters).
type LabelWriteIn struct {
	Method string `json:"method" jsonschema:"create, update or delete" enum:"create,update,delete"`
	RepoRef
	// Name is optional in the schema only because GitHub's REST PATCH and
	// DELETE carry it in the path (label_name); the handler requires it.
	Name        string  `json:"name,omitempty" jsonschema:"Label name (the current name for update and delete); required"`
	NewName     string  `json:"new_name,omitempty" jsonschema:"New name for the label (update only)"`
	Color       string  `json:"color,omitempty" jsonschema:"6-character hex color without '#', e.g. f29513"`
	Description *string `json:"description,omitempty" jsonschema:"Label description"`
	// LabelName carries the {name} of GitHub's REST path, so that the body's
	// name (go-github's way to rename) does not collide with it.
	LabelName string `json:"label_name,omitempty" jsonschema:"The label's current name when it comes from the REST path; MCP callers use name"`
}

var labelWrite = twins.New(twins.Spec{
	Name:        "label_write",
	Title:       "Write operations on repository labels",
	Description: "Create, update (rename, recolor, describe) or delete a label of a GitHub repository. A duplicate name is refused with already_exists.",
	Effect:      twins.Destructive,
	Bindings: []twins.Binding{
		{Method: "POST", Path: "/repos/{owner}/{repo}/labels", Fixed: map[string]any{"method": "create"}, Status: 201},
		{Method: "PATCH", Path: "/repos/{owner}/{repo}/labels/{label_name}", Fixed: map[string]any{"method": "update"}},
		{Method: "DELETE", Path: "/repos/{owner}/{repo}/labels/{label_name}", Fixed: map[string]any{"method": "delete"}, Status: 204, Shape: noBody},
	},
}, func(ctx context.Context, w *World, in LabelWriteIn) (*APILabel, error) {
	r, err := w.repo(in.Owner, in.Repo)
	if err != nil {
		return nil, err
	}
	color := strings.TrimPrefix(in.Color, "#")
	if color != "" && !colorRE.MatchString(color) {
		return nil, invalid("Label", "color", "invalid", "color must be 6 hex digits, got %q", in.Color).With("value", in.Color)
	}
	if in.LabelName != "" {
		// REST: the path names the label; a body name (GitHub's older
		// spelling, which go-github still sends) renames it, like new_name.
		if in.NewName == "" && in.Name != "" && in.Name != in.LabelName {
			in.NewName = in.Name
		}
		in.Name = in.LabelName
	}
	if strings.TrimSpace(in.Name) == "" {
		return nil, invalid("Label", "name", "missing_field", "name is required")
	}
	v := newView(ctx, w)
	switch in.Method {
	case "create":
		if r.label(in.Name) != nil {
			return nil, invalid("Label", "name", "already_exists", "a label named %q already exists in %s", in.Name, r.FullName()).With("value", in.Name)
		}
		if color == "" {
			color = "ededed"
		}
		l := &Label{ID: w.nextID(), Name: in.Name, Color: strings.ToLower(color)}
		if in.Description != nil {
			l.Description = *in.Description
		}
		r.Labels = append(r.Labels, l)
		out := v.label(r, l)
		return &out, nil
	case "update":
		l := r.label(in.Name)
		if l == nil {
			return nil, notFound("label %q not found in %s", in.Name, r.FullName())
		}
		if in.NewName != "" && !strings.EqualFold(in.NewName, l.Name) && r.label(in.NewName) != nil {
			return nil, invalid("Label", "name", "already_exists", "a label named %q already exists in %s", in.NewName, r.FullName()).With("value", in.NewName)
		}
		before := *l
		if in.NewName != "" && in.NewName != l.Name {
			renameLabel(r, l.Name, in.NewName)
			l.Name = in.NewName
		}
		if color != "" {
			l.Color = strings.ToLower(color)
		}
		if in.Description != nil {
			l.Description = *in.Description
		}
		if *l == before {
			twins.Unchanged(ctx)
		}
		out := v.label(r, l)
		return &out, nil
	case "delete":
		l := r.label(in.Name)
		if l == nil {
			return nil, notFound("label %q not found in %s", in.Name, r.FullName())
		}
		for i, x := range r.Labels {
			if x == l {
				r.Labels = append(r.Labels[:i], r.Labels[i+1:]...)
				break
			}
		}
		// Deleting a label takes it off every issue, as on GitHub.
		for _, is := range r.Issues {
			var keep []string
			for _, n := range is.Labels {
				if !strings.EqualFold(n, l.Name) {
					keep = append(keep, n)
				}
			}
			if keep == nil {
				keep = []string{}
			}
			is.Labels = keep
		}
		return nil, nil
	}
	return nil, invalid("Label", "method", "invalid", "unknown method %q: use create, update or delete", in.Method)
})

// renameLabel follows a label rename on every issue that carries it.
func renameLabel(r *Repo, from, to string) {
	for _, is := range r.Issues {
		for i, n := range is.Labels {
			if strings.EqualFold(n, from) {
				is.Labels[i] = to
			}
		}
	}
}
