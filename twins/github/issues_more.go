package github

import (
	"cmp"
	"context"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/pomehq/pome/twins"
)

// findComment locates an issue comment by id anywhere in the repository.
func (r *Repo) findComment(id int64) (*Issue, int) {
	if r.commentIssue != nil {
		p, ok := r.commentIssue[id]
		if !ok {
			return nil, -1
		}
		is := r.Issues[p]
		if i := is.Comments.Index(id); i >= 0 {
			return is, i
		}
		return nil, -1
	}
	for _, is := range r.Issues {
		if i := is.Comments.Index(id); i >= 0 {
			return is, i
		}
	}
	return nil, -1
}

// commentOf finds a repository and the issue holding one of its comments,
// with the comment's index, or GitHub's 404.
func (w *World) commentOf(owner, repo string, id int64) (*Repo, *Issue, int, error) {
	r, err := w.repo(owner, repo)
	if err != nil {
		return nil, nil, 0, err
	}
	is, i := r.findComment(id)
	if is == nil {
		return nil, nil, 0, notFound("comment %d not found in %s", id, r.FullName())
	}
	return r, is, i, nil
}

// IssueCommentIn addresses one issue comment.
type IssueCommentIn struct {
	RepoRef
	CommentID int64  `json:"comment_id" jsonschema:"The id of the comment"`
	Body      string `json:"body,omitempty" jsonschema:"New comment body (update only)"`
}

const commentPath = "/repos/{owner}/{repo}/issues/comments/{comment_id}"

var getIssueComment = twins.New(twins.Spec{
	Name: "get_issue_comment", Title: "Get an issue comment",
	Description: "Get one issue or pull request conversation comment by id.",
	Effect:      twins.Read,
	Bindings:    []twins.Binding{{Method: "GET", Path: commentPath}},
}, func(ctx context.Context, w *World, in IssueCommentIn) (APIIssueComment, error) {
	r, is, i, err := w.commentOf(in.Owner, in.Repo, in.CommentID)
	if err != nil {
		return APIIssueComment{}, err
	}
	return newView(ctx, w).comment(r, is, is.Comments.At(i)), nil
})

var updateIssueComment = twins.New(twins.Spec{
	Name: "update_issue_comment", Title: "Update an issue comment",
	Description: "Replace the body of an issue or pull request conversation comment.",
	Effect:      twins.Write,
	Bindings:    []twins.Binding{{Method: "PATCH", Path: commentPath}},
}, func(ctx context.Context, w *World, in IssueCommentIn) (APIIssueComment, error) {
	r, is, i, err := w.commentOf(in.Owner, in.Repo, in.CommentID)
	if err != nil {
		return APIIssueComment{}, err
	}
	if strings.TrimSpace(in.Body) == "" {
		return APIIssueComment{}, invalid("IssueComment", "body", "missing_field", "body is required")
	}
	if is.Comments.At(i).Body == in.Body {
		twins.Unchanged(ctx)
	} else {
		is.Comments.SetBody(i, in.Body, twins.EnvFrom(ctx).Now().UTC())
	}
	return newView(ctx, w).comment(r, is, is.Comments.At(i)), nil
})

var deleteIssueComment = twins.New(twins.Spec{
	Name: "delete_issue_comment", Title: "Delete an issue comment",
	Description: "Delete an issue or pull request conversation comment.",
	Effect:      twins.Destructive,
	Bindings:    []twins.Binding{{Method: "DELETE", Path: commentPath, Status: 204, Shape: noBody}},
}, func(ctx context.Context, w *World, in IssueCommentIn) (*struct{}, error) {
	r, is, i, err := w.commentOf(in.Owner, in.Repo, in.CommentID)
	if err != nil {
		return nil, err
	}
	r.removeComment(is, i)
	return &struct{}{}, nil
})

// RepoIssueCommentsIn is list_repository_issue_comments' input.
type RepoIssueCommentsIn struct {
	RepoRef
	Sort      string `json:"sort,omitempty" jsonschema:"created or updated; without it comments come in ascending id order" enum:"created,updated"`
	Direction string `json:"direction,omitempty" jsonschema:"asc or desc (default); ignored without sort" enum:"asc,desc"`
	Since     string `json:"since,omitempty" jsonschema:"Only comments updated at or after this time (ISO 8601)"`
	Paging
}

// listRepoIssueComments is GitHub's GET /repos/{owner}/{repo}/issues/comments
// (go-github's Issues.ListComments with issue number 0): the conversation
// comments of every issue and pull request of a repository.
var listRepoIssueComments = twins.New(twins.Spec{
	Name: "list_repository_issue_comments", Title: "List issue comments in a repository",
	Description: "List the conversation comments of every issue and pull request in a repository: in ascending id order, or sorted by creation or update time.",
	Effect:      twins.Read,
	Bindings: []twins.Binding{
		{Method: "GET", Path: "/repos/{owner}/{repo}/issues/comments", Rename: perPageRename, Shape: restShape, Headers: linkHeaders},
	},
}, func(ctx context.Context, w *World, in RepoIssueCommentsIn) (*List[APIIssueComment], error) {
	r, err := w.repo(in.Owner, in.Repo)
	if err != nil {
		return nil, err
	}
	since, err := sinceTime("IssueComment", in.Since)
	if err != nil {
		return nil, err
	}
	sortBy := strings.ToLower(in.Sort)
	if sortBy != "" && sortBy != "created" && sortBy != "updated" {
		return nil, invalid("IssueComment", "sort", "invalid", "sort must be created or updated, got %q", in.Sort)
	}
	dir, err := sortDirection("IssueComment", in.Direction)
	if err != nil {
		return nil, err
	}
	// What sorts and pages is a small record per comment; only the page's
	// comments are read whole and rendered.
	type found struct {
		is      *Issue
		at      int // the comment's position in is.Comments
		key, id int64
	}
	var all []found
	for _, is := range r.Issues {
		for i := range is.Comments.Len() {
			c := is.Comments.At(i)
			if !since.IsZero() && c.UpdatedAt.Before(since) {
				continue
			}
			f := found{is: is, at: i, key: c.ID, id: c.ID}
			switch sortBy {
			case "created":
				f.key = c.CreatedAt.UnixNano()
			case "updated":
				f.key = c.UpdatedAt.UnixNano()
			}
			all = append(all, f)
		}
	}
	desc := sortBy != "" && dir != "asc"
	slices.SortStableFunc(all, func(a, b found) int {
		// Equal times (a seed stamps one on everything): id order.
		c := cmp.Or(cmp.Compare(a.key, b.key), cmp.Compare(a.id, b.id))
		if desc {
			return -c
		}
		return c
	})
	v := newView(ctx, w)
	q := url.Values{}
	for k, val := range map[string]string{"sort": in.Sort, "direction": in.Direction, "since": in.Since} {
		if val != "" {
			q.Set(k, val)
		}
	}
	render := func(f found) APIIssueComment { return v.comment(r, f.is, f.is.Comments.At(f.at)) }
	return newListOf(ctx, all, render, in.Paging, "/repos/"+r.FullName()+"/issues/comments", q), nil
})

// noBody is the Shape of 204 bindings.
func noBody(_, _ any) any { return nil }

// LockIn is the input of lock_issue and unlock_issue.
type LockIn struct {
	RepoRef
	IssueNumber int    `json:"issue_number" jsonschema:"Issue or pull request number"`
	LockReason  string `json:"lock_reason,omitempty" jsonschema:"off-topic, too heated, resolved or spam"`
}

var lockIssue = twins.New(twins.Spec{
	Name: "lock_issue", Title: "Lock an issue",
	Description: "Lock an issue or pull request conversation, optionally with a reason.",
	Effect:      twins.Write,
	Bindings:    []twins.Binding{{Method: "PUT", Path: issuePath + "/lock", Status: 204, Shape: noBody}},
}, func(ctx context.Context, w *World, in LockIn) (*struct{}, error) {
	return setLock(ctx, w, in, true)
})

var unlockIssue = twins.New(twins.Spec{
	Name: "unlock_issue", Title: "Unlock an issue",
	Description: "Unlock an issue or pull request conversation.",
	Effect:      twins.Write,
	Bindings:    []twins.Binding{{Method: "DELETE", Path: issuePath + "/lock", Status: 204, Shape: noBody}},
}, func(ctx context.Context, w *World, in LockIn) (*struct{}, error) {
	return setLock(ctx, w, in, false)
})

func setLock(ctx context.Context, w *World, in LockIn, lock bool) (*struct{}, error) {
	_, is, err := w.issueOf(in.Owner, in.Repo, in.IssueNumber)
	if err != nil {
		return nil, err
	}
	switch in.LockReason {
	case "", "off-topic", "too heated", "resolved", "spam":
	default:
		return nil, invalid("Issue", "lock_reason", "invalid", "lock_reason must be off-topic, too heated, resolved or spam, got %q", in.LockReason)
	}
	if !lock && !is.Locked {
		// GitHub answers 404 when unlocking an unlocked conversation.
		return nil, notFound("issue #%d is not locked", is.Number)
	}
	if lock && is.Locked && is.LockReason == in.LockReason {
		twins.Unchanged(ctx)
		return &struct{}{}, nil
	}
	now := twins.EnvFrom(ctx).Now().UTC()
	kind := "unlocked"
	if lock {
		kind = "locked"
	}
	is.Locked, is.LockReason = lock, in.LockReason
	if !lock {
		is.LockReason = ""
	}
	is.Events = append(is.Events, &Event{ID: w.nextID(), Event: kind, Actor: w.Me, CreatedAt: now, Reason: in.LockReason})
	is.UpdatedAt = now
	return &struct{}{}, nil
}

// ListMilestonesIn is list_milestones' input.
type ListMilestonesIn struct {
	RepoRef
	State     string `json:"state,omitempty" jsonschema:"open (default), closed or all" enum:"open,closed,all"`
	Sort      string `json:"sort,omitempty" jsonschema:"due_on (default) or completeness" enum:"due_on,completeness"`
	Direction string `json:"direction,omitempty" jsonschema:"asc (default) or desc" enum:"asc,desc"`
	Paging
}

var listMilestones = twins.New(twins.Spec{
	Name: "list_milestones", Title: "List milestones",
	Description: "List the milestones of a repository.",
	Effect:      twins.Read,
	Bindings:    []twins.Binding{{Method: "GET", Path: "/repos/{owner}/{repo}/milestones", Rename: perPageRename, Shape: restShape, Headers: linkHeaders}},
}, func(ctx context.Context, w *World, in ListMilestonesIn) (*List[APIMilestone], error) {
	r, err := w.repo(in.Owner, in.Repo)
	if err != nil {
		return nil, err
	}
	state, err := listState("Milestone", in.State)
	if err != nil {
		return nil, err
	}
	ms := []*Milestone{}
	for _, m := range r.Milestones {
		if state == "all" || m.State == state {
			ms = append(ms, m)
		}
	}
	// Milestones without a due date sort last, as on GitHub.
	sort.SliceStable(ms, func(i, j int) bool {
		a, b := ms[i].DueOn, ms[j].DueOn
		if a == nil || b == nil {
			return a != nil && b == nil
		}
		return a.Before(*b)
	})
	if in.Direction == "desc" {
		for i, j := 0, len(ms)-1; i < j; i, j = i+1, j-1 {
			ms[i], ms[j] = ms[j], ms[i]
		}
	}
	v := newView(ctx, w)
	items := make([]APIMilestone, 0, len(ms))
	for _, m := range ms {
		items = append(items, *v.milestone(r, m))
	}
	q := url.Values{}
	if in.State != "" {
		q.Set("state", in.State)
	}
	return newList(ctx, items, in.Paging, "/repos/"+r.FullName()+"/milestones", q), nil
})

// MilestoneIn addresses one milestone.
type MilestoneIn struct {
	RepoRef
	MilestoneNumber int `json:"milestone_number" jsonschema:"The number of the milestone"`
}

var getMilestone = twins.New(twins.Spec{
	Name: "get_milestone", Title: "Get a milestone",
	Description: "Get a milestone of a repository by number.",
	Effect:      twins.Read,
	Bindings:    []twins.Binding{{Method: "GET", Path: "/repos/{owner}/{repo}/milestones/{milestone_number}"}},
}, func(ctx context.Context, w *World, in MilestoneIn) (APIMilestone, error) {
	r, err := w.repo(in.Owner, in.Repo)
	if err != nil {
		return APIMilestone{}, err
	}
	m := r.milestone(in.MilestoneNumber)
	if m == nil {
		return APIMilestone{}, notFound("milestone %d not found in %s", in.MilestoneNumber, r.FullName())
	}
	return *newView(ctx, w).milestone(r, m), nil
})

// CreateMilestoneIn is create_milestone's input.
type CreateMilestoneIn struct {
	RepoRef
	Title       string `json:"title" jsonschema:"Milestone title"`
	State       string `json:"state,omitempty" jsonschema:"open (default) or closed" enum:"open,closed"`
	Description string `json:"description,omitempty" jsonschema:"Milestone description"`
	DueOn       string `json:"due_on,omitempty" jsonschema:"Due date (ISO 8601)"`
}

var createMilestone = twins.New(twins.Spec{
	Name: "create_milestone", Title: "Create a milestone",
	Description: "Create a milestone in a repository; titles must be unique.",
	Effect:      twins.Write,
	Bindings:    []twins.Binding{{Method: "POST", Path: "/repos/{owner}/{repo}/milestones", Status: 201}},
}, func(ctx context.Context, w *World, in CreateMilestoneIn) (APIMilestone, error) {
	r, err := w.repo(in.Owner, in.Repo)
	if err != nil {
		return APIMilestone{}, err
	}
	if strings.TrimSpace(in.Title) == "" {
		return APIMilestone{}, invalid("Milestone", "title", "missing_field", "title is required")
	}
	for _, m := range r.Milestones {
		if strings.EqualFold(m.Title, in.Title) {
			return APIMilestone{}, invalid("Milestone", "title", "already_exists", "a milestone titled %q already exists", in.Title)
		}
	}
	state := in.State
	if state == "" {
		state = "open"
	}
	if state != "open" && state != "closed" {
		return APIMilestone{}, invalid("Milestone", "state", "invalid", "state must be open or closed, got %q", in.State)
	}
	var due *time.Time
	if in.DueOn != "" {
		t, err := time.Parse(time.RFC3339, in.DueOn)
		if err != nil {
			return APIMilestone{}, invalid("Milestone", "due_on", "invalid", "due_on must be an ISO 8601 time, got %q", in.DueOn)
		}
		due = &t
	}
	now := twins.EnvFrom(ctx).Now().UTC()
	m := &Milestone{ID: w.nextID(), Title: in.Title, Description: in.Description, State: state, Creator: w.Me, CreatedAt: now, UpdatedAt: now, DueOn: due}
	if state == "closed" {
		m.ClosedAt = &now
	}
	for _, x := range r.Milestones {
		m.Number = max(m.Number, x.Number)
	}
	m.Number++
	r.Milestones = append(r.Milestones, m)
	return *newView(ctx, w).milestone(r, m), nil
})

// APIIssueEvent is GitHub's issue event (and, with body fields, a timeline
// item).
type APIIssueEvent struct {
	ID        int64         `json:"id"`
	NodeID    string        `json:"node_id"`
	URL       string        `json:"url"`
	Actor     *APIUser      `json:"actor"`
	Event     string        `json:"event"`
	CommitID  *string       `json:"commit_id"`
	CommitURL *string       `json:"commit_url"`
	CreatedAt string        `json:"created_at"`
	Label     *APIEventName `json:"label,omitempty"`
	Assignee  *APIUser      `json:"assignee,omitempty"`
	Milestone *APIEventName `json:"milestone,omitempty"`
	Rename    *APIRename    `json:"rename,omitempty"`
	// StateReason is set on closed events.
	StateReason *string `json:"state_reason,omitempty"`
	// Body, User and HTMLURL are set on "commented" timeline items.
	Body    string   `json:"body,omitempty"`
	User    *APIUser `json:"user,omitempty"`
	HTMLURL string   `json:"html_url,omitempty"`
	// Issue is set where events of many issues are listed, and on one
	// event read by id.
	Issue *APIIssue `json:"issue,omitempty"`
}

// APIEventName is the {name} (label) or {title} (milestone) of an event.
type APIEventName struct {
	Name  string `json:"name,omitempty"`
	Color string `json:"color,omitempty"`
	Title string `json:"title,omitempty"`
}

// APIRename is a renamed event's from/to.
type APIRename struct {
	From string `json:"from"`
	To   string `json:"to"`
}

func (v *view) event(r *Repo, e *Event) APIIssueEvent {
	out := APIIssueEvent{
		ID: e.ID, NodeID: nodeID("E", e.ID), URL: fmt.Sprintf("%s/issues/events/%d", v.repoURL(r), e.ID),
		Actor: v.user(e.Actor), Event: e.Event, CreatedAt: ts(e.CreatedAt), StateReason: strPtr(e.Reason),
	}
	if e.CommitID != "" {
		u := v.repoURL(r) + "/commits/" + e.CommitID
		out.CommitID, out.CommitURL = &e.CommitID, &u
	}
	if e.Label != "" {
		n := &APIEventName{Name: e.Label}
		if l := r.label(e.Label); l != nil {
			n.Color = l.Color
		}
		out.Label = n
	}
	if e.Assignee != "" {
		out.Assignee = v.user(e.Assignee)
	}
	if e.Milestone != "" {
		out.Milestone = &APIEventName{Title: e.Milestone}
	}
	if e.Event == "renamed" {
		out.Rename = &APIRename{From: e.RenameFrom, To: e.RenameTo}
	}
	return out
}

// IssueHistoryIn is the input of list_issue_events and list_issue_timeline.
type IssueHistoryIn struct {
	RepoRef
	IssueNumber int `json:"issue_number" jsonschema:"Issue or pull request number"`
	Paging
}

var listIssueEvents = twins.New(twins.Spec{
	Name: "list_issue_events", Title: "List issue events",
	Description: "List the events of an issue or pull request: labeled, unlabeled, assigned, unassigned, milestoned, renamed, closed, reopened, locked, merged.",
	Effect:      twins.Read,
	Bindings:    []twins.Binding{{Method: "GET", Path: issuePath + "/events", Rename: perPageRename, Shape: restShape, Headers: linkHeaders}},
}, func(ctx context.Context, w *World, in IssueHistoryIn) (*List[APIIssueEvent], error) {
	return issueHistory(ctx, w, in, false)
})

var listIssueTimeline = twins.New(twins.Spec{
	Name: "list_issue_timeline", Title: "List timeline events for an issue",
	Description: "List an issue's or pull request's timeline: its events and its comments (as commented items), oldest first.",
	Effect:      twins.Read,
	Bindings:    []twins.Binding{{Method: "GET", Path: issuePath + "/timeline", Rename: perPageRename, Shape: restShape, Headers: linkHeaders}},
}, func(ctx context.Context, w *World, in IssueHistoryIn) (*List[APIIssueEvent], error) {
	return issueHistory(ctx, w, in, true)
})

// RepoIssueEventsIn is list_repository_issue_events' input.
type RepoIssueEventsIn struct {
	RepoRef
	Paging
}

// listRepoIssueEvents is GitHub's GET /repos/{owner}/{repo}/issues/events:
// the events of every issue and pull request of a repository, newest first,
// each with its issue.
var listRepoIssueEvents = twins.New(twins.Spec{
	Name: "list_repository_issue_events", Title: "List issue events in a repository",
	Description: "List the events of every issue and pull request in a repository, newest first, each with its issue.",
	Effect:      twins.Read,
	Bindings: []twins.Binding{
		{Method: "GET", Path: "/repos/{owner}/{repo}/issues/events", Rename: perPageRename, Shape: restShape, Headers: linkHeaders},
	},
}, func(ctx context.Context, w *World, in RepoIssueEventsIn) (*List[APIIssueEvent], error) {
	r, err := w.repo(in.Owner, in.Repo)
	if err != nil {
		return nil, err
	}
	type found struct {
		is *Issue
		e  *Event
	}
	var all []found
	for _, is := range r.Issues {
		for _, e := range is.Events {
			all = append(all, found{is, e})
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].e.ID > all[j].e.ID })
	v := newView(ctx, w)
	issues := map[*Issue]*APIIssue{}
	items := make([]APIIssueEvent, 0, len(all))
	for _, f := range all {
		ev := v.event(r, f.e)
		if issues[f.is] == nil {
			ai := v.issue(r, f.is)
			issues[f.is] = &ai
		}
		ev.Issue = issues[f.is]
		items = append(items, ev)
	}
	return newList(ctx, items, in.Paging, "/repos/"+r.FullName()+"/issues/events", nil), nil
})

// IssueEventIn addresses one issue event.
type IssueEventIn struct {
	RepoRef
	EventID int64 `json:"event_id" jsonschema:"The id of the event"`
}

// getIssueEvent is GitHub's GET /repos/{owner}/{repo}/issues/events/{event_id},
// the url every listed event carries.
var getIssueEvent = twins.New(twins.Spec{
	Name: "get_issue_event", Title: "Get an issue event",
	Description: "Get one issue or pull request event by id, with its issue.",
	Effect:      twins.Read,
	Bindings:    []twins.Binding{{Method: "GET", Path: "/repos/{owner}/{repo}/issues/events/{event_id}"}},
}, func(ctx context.Context, w *World, in IssueEventIn) (APIIssueEvent, error) {
	r, err := w.repo(in.Owner, in.Repo)
	if err != nil {
		return APIIssueEvent{}, err
	}
	for _, is := range r.Issues {
		for _, e := range is.Events {
			if e.ID == in.EventID {
				v := newView(ctx, w)
				ev, ai := v.event(r, e), v.issue(r, is)
				ev.Issue = &ai
				return ev, nil
			}
		}
	}
	return APIIssueEvent{}, notFound("issue event %d not found in %s", in.EventID, r.FullName())
})

func issueHistory(ctx context.Context, w *World, in IssueHistoryIn, timeline bool) (*List[APIIssueEvent], error) {
	r, is, err := w.issueOf(in.Owner, in.Repo, in.IssueNumber)
	if err != nil {
		return nil, err
	}
	v := newView(ctx, w)
	type item struct {
		at time.Time
		id int64
		ev APIIssueEvent
	}
	var items []item
	for _, e := range is.Events {
		items = append(items, item{e.CreatedAt, e.ID, v.event(r, e)})
	}
	if timeline {
		for i := range is.Comments.Len() {
			c := is.Comments.At(i)
			ac := v.comment(r, is, c)
			items = append(items, item{c.CreatedAt, c.ID, APIIssueEvent{
				ID: c.ID, NodeID: ac.NodeID, URL: ac.URL, Actor: ac.User, Event: "commented", CreatedAt: ac.CreatedAt,
				Body: c.Body, User: ac.User, HTMLURL: ac.HTMLURL,
			}})
		}
	}
	sort.SliceStable(items, func(i, j int) bool {
		if !items[i].at.Equal(items[j].at) {
			return items[i].at.Before(items[j].at)
		}
		return items[i].id < items[j].id
	})
	out := make([]APIIssueEvent, 0, len(items))
	for _, it := range items {
		out = append(out, it.ev)
	}
	suffix := "/events"
	if timeline {
		suffix = "/timeline"
	}
	return newList(ctx, out, in.Paging, fmt.Sprintf("/repos/%s/issues/%d%s", r.FullName(), is.Number, suffix), nil), nil
}
