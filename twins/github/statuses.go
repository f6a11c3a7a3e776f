package github

import (
	"context"
	"fmt"
	"strings"

	"github.com/pomehq/pome/twins"
)

// APIStatus is GitHub's commit status object.
type APIStatus struct {
	URL         string   `json:"url"`
	AvatarURL   *string  `json:"avatar_url"`
	ID          int64    `json:"id"`
	NodeID      string   `json:"node_id"`
	State       string   `json:"state"`
	Description *string  `json:"description"`
	TargetURL   *string  `json:"target_url"`
	Context     string   `json:"context"`
	CreatedAt   string   `json:"created_at"`
	UpdatedAt   string   `json:"updated_at"`
	Creator     *APIUser `json:"creator"`
}

// APICombinedStatus is GET …/commits/{ref}/status's object.
type APICombinedStatus struct {
	State      string          `json:"state"`
	Statuses   []APIStatus     `json:"statuses"`
	SHA        string          `json:"sha"`
	TotalCount int             `json:"total_count"`
	Repository *APIRepoSummary `json:"repository"`
	CommitURL  string          `json:"commit_url"`
	URL        string          `json:"url"`
}

func (v *view) status(r *Repo, s *Status) APIStatus {
	return APIStatus{URL: v.repoURL(r) + "/statuses/" + s.SHA, ID: s.ID, NodeID: nodeID("SC", s.ID), State: s.State,
		Description: strPtr(s.Description), TargetURL: strPtr(s.TargetURL), Context: s.Context,
		CreatedAt: ts(s.CreatedAt), UpdatedAt: ts(s.UpdatedAt), Creator: v.user(s.Creator)}
}

// combinedStatus folds the latest status per context: failure or error
// wins, then pending (also when there are none), else success.
func (v *view) combinedStatus(r *Repo, sha string) APICombinedStatus {
	latest := map[string]*Status{}
	var order []string
	for _, s := range r.Statuses {
		if s.SHA != sha {
			continue
		}
		if _, seen := latest[s.Context]; !seen {
			order = append(order, s.Context)
		}
		latest[s.Context] = s
	}
	out := APICombinedStatus{State: "pending", Statuses: []APIStatus{}, SHA: sha, Repository: v.repoSummary(r),
		CommitURL: v.repoURL(r) + "/commits/" + sha, URL: v.repoURL(r) + "/commits/" + sha + "/status"}
	anyPending, anyFail := len(order) == 0, false
	for _, c := range order {
		s := latest[c]
		out.Statuses = append(out.Statuses, v.status(r, s))
		switch s.State {
		case "failure", "error":
			anyFail = true
		case "pending":
			anyPending = true
		}
	}
	out.TotalCount = len(out.Statuses)
	switch {
	case anyFail:
		out.State = "failure"
	case anyPending:
		out.State = "pending"
	default:
		out.State = "success"
	}
	return out
}

// CreateStatusIn is create_commit_status' input.
type CreateStatusIn struct {
	RepoRef
	SHA         string `json:"sha" jsonschema:"Commit sha the status is for"`
	State       string `json:"state" jsonschema:"error, failure, pending or success" enum:"error,failure,pending,success"`
	TargetURL   string `json:"target_url,omitempty" jsonschema:"URL with details of the status"`
	Description string `json:"description,omitempty" jsonschema:"Short description"`
	Context     string `json:"context,omitempty" jsonschema:"Label telling this status apart from others (default: default)"`
}

var createCommitStatus = twins.New(twins.Spec{
	Name: "create_commit_status", Title: "Create a commit status",
	Description: "Set a status (error, failure, pending or success) with a context on a commit.",
	Effect:      twins.Write,
	Bindings:    []twins.Binding{{Method: "POST", Path: "/repos/{owner}/{repo}/statuses/{sha}", Status: 201}},
}, func(ctx context.Context, w *World, in CreateStatusIn) (APIStatus, error) {
	r, err := w.repo(in.Owner, in.Repo)
	if err != nil {
		return APIStatus{}, err
	}
	c := r.commit(in.SHA)
	if c == nil || len(in.SHA) < 7 {
		return APIStatus{}, invalid("Status", "sha", "invalid", "No commit found for SHA: %s", in.SHA).With("message", "No commit found for SHA: "+in.SHA)
	}
	if !validStatusState(in.State) {
		return APIStatus{}, invalid("Status", "state", "invalid", "state must be error, failure, pending or success, got %q", in.State)
	}
	context := in.Context
	if context == "" {
		context = "default"
	}
	now := twins.EnvFrom(ctx).Now().UTC()
	s := &Status{ID: w.nextID(), SHA: c.SHA, State: in.State, Context: context, Description: in.Description, TargetURL: in.TargetURL, Creator: w.Me, CreatedAt: now, UpdatedAt: now}
	r.Statuses = append(r.Statuses, s)
	return newView(ctx, w).status(r, s), nil
})

// StatusRefIn addresses a commit by ref.
type StatusRefIn struct {
	RepoRef
	Ref string `json:"ref" jsonschema:"Commit sha, branch or tag"`
	Paging
}

var getCombinedStatus = twins.New(twins.Spec{
	Name: "get_combined_status", Title: "Get the combined status for a ref",
	Description: "Get the combined commit status of a branch, tag or sha: the latest status per context and an overall state.",
	Effect:      twins.Read,
	Bindings:    []twins.Binding{{Method: "GET", Path: "/repos/{owner}/{repo}/commits/{ref}/status", Rename: perPageRename}},
}, func(ctx context.Context, w *World, in StatusRefIn) (APICombinedStatus, error) {
	r, err := w.repo(in.Owner, in.Repo)
	if err != nil {
		return APICombinedStatus{}, err
	}
	c := r.resolve(in.Ref)
	if c == nil {
		return APICombinedStatus{}, notFound("No commit found for the ref %s", in.Ref)
	}
	return newView(ctx, w).combinedStatus(r, c.SHA), nil
})

var listCommitStatuses = twins.New(twins.Spec{
	Name: "list_commit_statuses", Title: "List commit statuses for a ref",
	Description: "List every status set on a commit, newest first.",
	Effect:      twins.Read,
	Bindings:    []twins.Binding{{Method: "GET", Path: "/repos/{owner}/{repo}/commits/{ref}/statuses", Rename: perPageRename, Shape: restShape, Headers: linkHeaders}},
}, func(ctx context.Context, w *World, in StatusRefIn) (*List[APIStatus], error) {
	r, err := w.repo(in.Owner, in.Repo)
	if err != nil {
		return nil, err
	}
	c := r.resolve(in.Ref)
	if c == nil {
		return nil, notFound("No commit found for the ref %s", in.Ref)
	}
	v := newView(ctx, w)
	items := []APIStatus{}
	for i := len(r.Statuses) - 1; i >= 0; i-- {
		if r.Statuses[i].SHA == c.SHA {
			items = append(items, v.status(r, r.Statuses[i]))
		}
	}
	return newList(ctx, items, in.Paging, fmt.Sprintf("/repos/%s/commits/%s/statuses", r.FullName(), in.Ref), nil), nil
})

// APICheckOutput is a check run's output summary.
type APICheckOutput struct {
	Title            *string `json:"title"`
	Summary          *string `json:"summary"`
	Text             *string `json:"text"`
	AnnotationsCount int     `json:"annotations_count"`
	AnnotationsURL   string  `json:"annotations_url"`
}

// APICheckRun is GitHub's check run object.
type APICheckRun struct {
	ID          int64          `json:"id"`
	NodeID      string         `json:"node_id"`
	HeadSHA     string         `json:"head_sha"`
	ExternalID  string         `json:"external_id"`
	URL         string         `json:"url"`
	HTMLURL     string         `json:"html_url"`
	DetailsURL  string         `json:"details_url"`
	Status      string         `json:"status"`
	Conclusion  *string        `json:"conclusion"`
	StartedAt   string         `json:"started_at"`
	CompletedAt *string        `json:"completed_at"`
	Output      APICheckOutput `json:"output"`
	Name        string         `json:"name"`
}

// APICheckRuns is the list answer of check runs.
type APICheckRuns struct {
	TotalCount int           `json:"total_count"`
	CheckRuns  []APICheckRun `json:"check_runs"`
}

func (v *view) checkRun(r *Repo, c *CheckRun) APICheckRun {
	u := fmt.Sprintf("%s/check-runs/%d", v.repoURL(r), c.ID)
	return APICheckRun{ID: c.ID, NodeID: nodeID("CR", c.ID), HeadSHA: c.HeadSHA, ExternalID: c.ExternalID, URL: u,
		HTMLURL: fmt.Sprintf("%s/%s/runs/%d", v.html, r.FullName(), c.ID), DetailsURL: c.DetailsURL, Status: c.Status,
		Conclusion: strPtr(c.Conclusion), StartedAt: ts(c.StartedAt), CompletedAt: tsPtr(c.CompletedAt), Name: c.Name,
		Output: APICheckOutput{Title: strPtr(c.Title), Summary: strPtr(c.Summary), AnnotationsURL: u + "/annotations"}}
}

func (v *view) checkRuns(r *Repo, sha string) APICheckRuns {
	out := APICheckRuns{CheckRuns: []APICheckRun{}}
	for i := len(r.CheckRuns) - 1; i >= 0; i-- {
		if r.CheckRuns[i].HeadSHA == sha {
			out.CheckRuns = append(out.CheckRuns, v.checkRun(r, r.CheckRuns[i]))
		}
	}
	out.TotalCount = len(out.CheckRuns)
	return out
}

// CheckRunOutputIn is a new check run's output.
type CheckRunOutputIn struct {
	Title   string `json:"title,omitempty" jsonschema:"Title of the check run output"`
	Summary string `json:"summary,omitempty" jsonschema:"Summary of the check run output"`
}

// CreateCheckRunIn is create_check_run's input.
type CreateCheckRunIn struct {
	RepoRef
	Name       string            `json:"name" jsonschema:"Name of the check"`
	HeadSHA    string            `json:"head_sha" jsonschema:"Commit sha the check ran on"`
	Status     string            `json:"status,omitempty" jsonschema:"queued (default), in_progress or completed"`
	Conclusion string            `json:"conclusion,omitempty" jsonschema:"Required when completed: success, failure, neutral, cancelled, skipped, timed_out or action_required"`
	DetailsURL string            `json:"details_url,omitempty" jsonschema:"URL with details"`
	ExternalID string            `json:"external_id,omitempty" jsonschema:"Id in the integrator's system"`
	Output     *CheckRunOutputIn `json:"output,omitempty" jsonschema:"Title and summary"`
}

var createCheckRun = twins.New(twins.Spec{
	Name: "create_check_run", Title: "Create a check run",
	Description: "Create a check run on a commit; a conclusion marks it completed.",
	Effect:      twins.Write,
	Bindings:    []twins.Binding{{Method: "POST", Path: "/repos/{owner}/{repo}/check-runs", Status: 201}},
}, func(ctx context.Context, w *World, in CreateCheckRunIn) (APICheckRun, error) {
	r, err := w.repo(in.Owner, in.Repo)
	if err != nil {
		return APICheckRun{}, err
	}
	if strings.TrimSpace(in.Name) == "" {
		return APICheckRun{}, invalid("CheckRun", "name", "missing_field", "name is required")
	}
	c := r.commit(in.HeadSHA)
	if c == nil || len(in.HeadSHA) < 7 {
		return APICheckRun{}, invalid("CheckRun", "head_sha", "invalid", "No commit found for SHA: %s", in.HeadSHA).With("message", "No commit found for SHA: "+in.HeadSHA)
	}
	// Validate with a throwaway id so a refused call leaves the counter
	// alone (newCheckRun reads only the counter).
	probe := World{NextID: w.NextID}
	if _, err := newCheckRun(&probe, c.SHA, in.Name, in.Status, in.Conclusion, twins.EnvFrom(ctx).Now().UTC()); err != nil {
		return APICheckRun{}, err
	}
	cr, _ := newCheckRun(w, c.SHA, in.Name, in.Status, in.Conclusion, twins.EnvFrom(ctx).Now().UTC())
	cr.DetailsURL, cr.ExternalID = in.DetailsURL, in.ExternalID
	if in.Output != nil {
		cr.Title, cr.Summary = in.Output.Title, in.Output.Summary
	}
	r.CheckRuns = append(r.CheckRuns, cr)
	return newView(ctx, w).checkRun(r, cr), nil
})

var listCheckRuns = twins.New(twins.Spec{
	Name: "list_check_runs", Title: "List check runs for a ref",
	Description: "List the check runs of a branch, tag or sha, newest first.",
	Effect:      twins.Read,
	Bindings:    []twins.Binding{{Method: "GET", Path: "/repos/{owner}/{repo}/commits/{ref}/check-runs", Rename: perPageRename}},
}, func(ctx context.Context, w *World, in StatusRefIn) (APICheckRuns, error) {
	r, err := w.repo(in.Owner, in.Repo)
	if err != nil {
		return APICheckRuns{}, err
	}
	c := r.resolve(in.Ref)
	if c == nil {
		return APICheckRuns{}, notFound("No commit found for the ref %s", in.Ref)
	}
	return newView(ctx, w).checkRuns(r, c.SHA), nil
})
