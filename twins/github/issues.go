package github

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/pomehq/pome/twins"
)

// issuePath is GitHub's path of one issue.
const issuePath = "/repos/{owner}/{repo}/issues/{issue_number}"

// IssueReadIn is issue_read's input (github-mcp-server's parameters).
type IssueReadIn struct {
	Method string `json:"method" jsonschema:"The read operation: get (issue details), get_comments, get_labels, get_sub_issues or get_parent" enum:"get,get_comments,get_sub_issues,get_parent,get_labels"`
	RepoRef
	IssueNumber int `json:"issue_number" jsonschema:"The number of the issue"`
	Paging
}

var issueRead = twins.New(twins.Spec{
	Name:        "issue_read",
	Title:       "Get issue details",
	Description: "Get information about a specific issue or pull request in a GitHub repository: its details (get), its comments (get_comments), its labels (get_labels), its sub-issues (get_sub_issues) or its parent (get_parent).",
	Effect:      twins.Read,
	Bindings: []twins.Binding{
		{Method: "GET", Path: issuePath, Fixed: map[string]any{"method": "get"}},
		{Method: "GET", Path: issuePath + "/comments", Fixed: map[string]any{"method": "get_comments"}, Rename: perPageRename, Shape: restShape, Headers: linkHeaders},
		{Method: "GET", Path: issuePath + "/labels", Fixed: map[string]any{"method": "get_labels"}, Rename: perPageRename, Shape: restShape, Headers: linkHeaders},
		{Method: "GET", Path: issuePath + "/sub_issues", Fixed: map[string]any{"method": "get_sub_issues"}, Rename: perPageRename, Shape: restShape, Headers: linkHeaders},
		{Method: "GET", Path: issuePath + "/parent", Fixed: map[string]any{"method": "get_parent"}},
	},
}, func(ctx context.Context, w *World, in IssueReadIn) (any, error) {
	r, is, err := w.issueOf(in.Owner, in.Repo, in.IssueNumber)
	if err != nil {
		return nil, err
	}
	v := newView(ctx, w)
	base := fmt.Sprintf("/repos/%s/issues/%d", r.FullName(), is.Number)
	switch in.Method {
	case "get":
		return v.issue(r, is), nil
	case "get_comments":
		render := func(c Comment) APIIssueComment { return v.comment(r, is, c) }
		return newListOf(ctx, is.Comments.Slice(), render, in.Paging, base+"/comments", nil), nil
	case "get_labels":
		return newList(ctx, v.labels(r, is.Labels), in.Paging, base+"/labels", nil), nil
	case "get_sub_issues":
		items := []APIIssue{}
		for _, s := range w.subIssues(is) {
			items = append(items, v.issue(s.repo, s.issue))
		}
		return newList(ctx, items, in.Paging, base+"/sub_issues", nil), nil
	case "get_parent":
		pr, parent := w.parentOf(is)
		if parent == nil {
			// GitHub's REST API answers 404; github-mcp-server reads the
			// parent through GraphQL, where it is null.
			if twins.TransportFrom(ctx) == twins.TransportMCP {
				return noParent{}, nil
			}
			return nil, notFound("issue #%d has no parent issue", is.Number)
		}
		return v.issue(pr, parent), nil
	}
	return nil, invalid("Issue", "method", "invalid", "unknown method %q: use get, get_comments, get_labels, get_sub_issues or get_parent", in.Method)
})

// noParent is issue_read get_parent's output over MCP for an issue
// without a parent.
type noParent struct{}

// ListIssuesIn is list_issues' input: GitHub's REST filters plus the
// github-mcp-server spellings (state OPEN/CLOSED, orderBy, direction ASC/DESC).
type ListIssuesIn struct {
	RepoRef
	State     string   `json:"state,omitempty" jsonschema:"Filter by state: OPEN or CLOSED (open, closed or all over REST); by default both open and closed issues are returned over MCP, open ones over REST" enum:"OPEN,CLOSED,open,closed,all"`
	Labels    []string `json:"labels,omitempty" jsonschema:"Filter by labels (issues must have all of them)"`
	Assignee  string   `json:"assignee,omitempty" jsonschema:"Filter by assignee login; none for unassigned issues, * for any assignee"`
	Creator   string   `json:"creator,omitempty" jsonschema:"Filter by the login of the issue's author"`
	Mentioned string   `json:"mentioned,omitempty" jsonschema:"Filter by a login mentioned in the issue body or comments"`
	Milestone string   `json:"milestone,omitempty" jsonschema:"Filter by milestone number; none or *"`
	Since     string   `json:"since,omitempty" jsonschema:"Only issues updated at or after this time (ISO 8601)"`
	Sort      string   `json:"sort,omitempty" jsonschema:"created (default), updated or comments" enum:"created,updated,comments"`
	OrderBy   string   `json:"orderBy,omitempty" jsonschema:"Order issues by field: CREATED_AT, UPDATED_AT or COMMENTS" enum:"CREATED_AT,UPDATED_AT,COMMENTS"`
	Direction string   `json:"direction,omitempty" jsonschema:"Sort direction: desc (default) or asc" enum:"ASC,DESC,asc,desc"`
	After     string   `json:"after,omitempty" jsonschema:"Cursor for pagination: the endCursor of the previous response's pageInfo"`
	Paging
	Fields []string `json:"fields,omitempty" jsonschema:"Fields to keep in each issue over MCP (all when omitted); leave out body to shrink the answer" enum:"number,title,body,state,user,labels,assignees,comments,created_at,updated_at,field_values"`
}

var listIssues = twins.New(twins.Spec{
	Name:        "list_issues",
	Title:       "List issues",
	Description: "List issues in a GitHub repository. Filter by state, labels, assignee, creator, milestone and update time; sort by created, updated or comments. Over REST, pull requests are included (they carry a pull_request key), as GitHub's REST API does.",
	Effect:      twins.Read,
	Bindings: []twins.Binding{
		{Method: "GET", Path: "/repos/{owner}/{repo}/issues", Rename: perPageRename, Shape: restShape, Headers: linkHeaders},
	},
}, func(ctx context.Context, w *World, in ListIssuesIn) (*List[APIIssue], error) {
	r, err := w.repo(in.Owner, in.Repo)
	if err != nil {
		return nil, err
	}
	if in.After != "" {
		if in.Page = pageOfCursor(in.After); in.Page == 0 {
			return nil, invalid("Issue", "after", "invalid", "after %q is not a cursor this server handed out", in.After)
		}
	}
	state := strings.ToLower(in.State)
	mcp := twins.TransportFrom(ctx) == twins.TransportMCP
	switch state {
	case "":
		// Each surface's own default: GitHub's REST API lists open issues,
		// github-mcp-server both open and closed ones.
		state = "open"
		if mcp {
			state = "all"
		}
	case "open", "closed", "all":
	default:
		return nil, invalid("Issue", "state", "invalid", "state must be open, closed or all, got %q", in.State)
	}
	since, err := sinceTime("Issue", in.Since)
	if err != nil {
		return nil, err
	}
	sortBy := strings.ToLower(in.Sort)
	switch strings.ToUpper(in.OrderBy) {
	case "CREATED_AT":
		sortBy = "created"
	case "UPDATED_AT":
		sortBy = "updated"
	case "COMMENTS":
		sortBy = "comments"
	}
	if sortBy == "" {
		sortBy = "created"
	}
	if sortBy != "created" && sortBy != "updated" && sortBy != "comments" {
		return nil, invalid("Issue", "sort", "invalid", "sort must be created, updated or comments, got %q", in.Sort)
	}
	dir, err := sortDirection("Issue", in.Direction)
	if err != nil {
		return nil, err
	}
	var matched []*Issue
	for _, is := range r.Issues {
		if state != "all" && is.State != state {
			continue
		}
		// github-mcp-server lists issues through GraphQL's
		// repository.issues, which holds no pull requests.
		if mcp && is.Pull != nil {
			continue
		}
		if !hasAllLabels(is, in.Labels) || !assigneeMatches(is, in.Assignee) || !milestoneMatches(is, in.Milestone) {
			continue
		}
		if in.Creator != "" && !strings.EqualFold(is.User, in.Creator) {
			continue
		}
		if in.Mentioned != "" && !mentions(is, in.Mentioned) {
			continue
		}
		if !since.IsZero() && is.UpdatedAt.Before(since) {
			continue
		}
		matched = append(matched, is)
	}
	sortIssues(matched, sortBy, dir)
	v := newView(ctx, w)
	q := url.Values{}
	for k, val := range map[string]string{"state": in.State, "labels": strings.Join(in.Labels, ","), "assignee": in.Assignee, "creator": in.Creator, "mentioned": in.Mentioned, "milestone": in.Milestone, "since": in.Since, "sort": in.Sort, "direction": in.Direction} {
		if val != "" {
			q.Set(k, val)
		}
	}
	render := func(is *Issue) APIIssue { return v.issue(r, is) }
	return newListOf(ctx, matched, render, in.Paging, "/repos/"+r.FullName()+"/issues", q).withCursor(), nil
})

// sinceTime is a list's since filter (zero when unset); resource names
// the list's items in a 422.
func sinceTime(resource, since string) (time.Time, error) {
	if since == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339, since)
	if err != nil {
		return time.Time{}, invalid(resource, "since", "invalid", "since must be an ISO 8601 time, got %q", since)
	}
	return t, nil
}

// sortDirection is a list's sort direction, desc when unset.
func sortDirection(resource, dir string) (string, error) {
	d := strings.ToLower(dir)
	if d == "" {
		d = "desc"
	}
	if d != "asc" && d != "desc" {
		return "", invalid(resource, "direction", "invalid", "direction must be asc or desc, got %q", dir)
	}
	return d, nil
}

func hasAllLabels(is *Issue, labels []string) bool {
	for _, l := range labels {
		if l = strings.TrimSpace(l); l != "" && !containsFold(is.Labels, l) {
			return false
		}
	}
	return true
}

func assigneeMatches(is *Issue, a string) bool {
	switch a {
	case "":
		return true
	case "none":
		return len(is.Assignees) == 0
	case "*":
		return len(is.Assignees) > 0
	}
	return containsFold(is.Assignees, a)
}

func milestoneMatches(is *Issue, m string) bool {
	switch m {
	case "":
		return true
	case "none":
		return is.Milestone == 0
	case "*":
		return is.Milestone != 0
	}
	return fmt.Sprint(is.Milestone) == m
}

func mentions(is *Issue, login string) bool {
	at := "@" + strings.ToLower(login)
	if strings.Contains(strings.ToLower(is.Body), at) {
		return true
	}
	for _, c := range is.Comments.All() {
		if strings.Contains(strings.ToLower(c.Body), at) {
			return true
		}
	}
	return false
}

func sortIssues(list []*Issue, by, dir string) {
	key := func(is *Issue) int64 {
		switch by {
		case "updated":
			return is.UpdatedAt.UnixNano()
		case "comments":
			return int64(is.Comments.Len())
		}
		return is.CreatedAt.UnixNano()
	}
	sort.SliceStable(list, func(i, j int) bool {
		a, b := key(list[i]), key(list[j])
		if a == b {
			// Equal keys (a seed stamps one time on everything) fall back to
			// the number, which is creation order.
			a, b = int64(list[i].Number), int64(list[j].Number)
		}
		if dir == "asc" {
			return a < b
		}
		return a > b
	})
}

// IssueWriteIn is issue_write's input (github-mcp-server's parameters; REST
// POST …/issues and PATCH …/issues/{issue_number} bind to it).
type IssueWriteIn struct {
	Method string `json:"method" jsonschema:"create (a new issue) or update (an existing one)" enum:"create,update"`
	RepoRef
	IssueNumber int       `json:"issue_number,omitempty" jsonschema:"Issue number to update"`
	Title       *string   `json:"title,omitempty" jsonschema:"Issue title"`
	Body        *string   `json:"body,omitempty" jsonschema:"Issue body content"`
	State       *string   `json:"state,omitempty" jsonschema:"New state: open or closed" enum:"open,closed"`
	StateReason *string   `json:"state_reason,omitempty" jsonschema:"Reason for the state change: completed, not_planned, duplicate or reopened" enum:"completed,not_planned,duplicate,reopened"`
	Labels      *[]string `json:"labels,omitempty" jsonschema:"Labels to apply to this issue (replaces its labels); unknown labels are created"`
	Assignees   *[]string `json:"assignees,omitempty" jsonschema:"Usernames to assign to this issue (replaces its assignees)"`
	Assignee    *string   `json:"assignee,omitempty" jsonschema:"Deprecated single assignee"`
	Milestone   *int      `json:"milestone,omitempty" jsonschema:"Milestone number; 0 removes the milestone"`
	DuplicateOf int       `json:"duplicate_of,omitempty" jsonschema:"Issue number this issue duplicates (with state_reason duplicate)"`
	Type        *string   `json:"type,omitempty" jsonschema:"Type of this issue: one of the organization's issue types (list_issue_types); an empty string removes it"`
	// IssueFieldValues is REST's form of issue field values (by field id);
	// github-mcp-server's issue_fields (by name) resolve to it.
	IssueFieldValues []IssueFieldValueIn `json:"issue_field_values,omitempty" jsonschema:"Values of the organization's issue fields (list_issue_fields): the issue keeps exactly these"`
}

var issueWrite = twins.New(twins.Spec{
	Name:        "issue_write",
	Title:       "Create or update issue/pull request",
	Description: "Create a new issue or update an existing issue or pull request in a GitHub repository: title, body, state (close or reopen with a state_reason), labels, assignees and milestone.",
	Effect:      twins.Write,
	Bindings: []twins.Binding{
		{Method: "POST", Path: "/repos/{owner}/{repo}/issues", Fixed: map[string]any{"method": "create"}, Status: 201},
		{Method: "PATCH", Path: issuePath, Fixed: map[string]any{"method": "update"}},
	},
}, func(ctx context.Context, w *World, in IssueWriteIn) (APIIssue, error) {
	r, err := w.repo(in.Owner, in.Repo)
	if err != nil {
		return APIIssue{}, err
	}
	var is *Issue
	switch in.Method {
	case "create":
		if in.Title == nil || strings.TrimSpace(*in.Title) == "" {
			return APIIssue{}, invalid("Issue", "title", "missing_field", "title is required to create an issue")
		}
	case "update":
		if is, err = r.issue(in.IssueNumber); err != nil {
			return APIIssue{}, err
		}
	default:
		return APIIssue{}, invalid("Issue", "method", "invalid", "unknown method %q: use create or update", in.Method)
	}
	p, err := validateIssuePatch(w, r, in)
	if err != nil {
		return APIIssue{}, err
	}
	now := twins.EnvFrom(ctx).Now().UTC()
	if is == nil {
		is = &Issue{ID: w.nextID(), Number: r.NextNumber, Title: *in.Title, State: "open", User: w.Me,
			Labels: []string{}, Assignees: []string{}, Events: []*Event{}, CreatedAt: now, UpdatedAt: now}
		if in.Body != nil {
			is.Body = *in.Body
		}
		r.NextNumber++
		r.addIssue(is)
		p.title = nil
		applyIssuePatch(w, r, is, p, now)
		return newView(ctx, w).issue(r, is), nil
	}
	if !applyIssuePatch(w, r, is, p, now) {
		twins.Unchanged(ctx)
	}
	return newView(ctx, w).issue(r, is), nil
})

// issuePatch is a validated change to an issue; nil fields stay as they are.
type issuePatch struct {
	title, body, state, stateReason *string
	labels, assignees               *[]string
	milestone                       *int
	issueType                       *string
	fieldValues                     *[]*FieldValue
}

// validateIssuePatch checks everything issue_write may refuse, before
// anything changes. Assignees who cannot be assigned are a 422 here (unlike
// POST …/assignees, which ignores them).
func validateIssuePatch(w *World, r *Repo, in IssueWriteIn) (issuePatch, error) {
	p := issuePatch{title: in.Title, body: in.Body, labels: in.Labels, milestone: in.Milestone}
	if in.Title != nil && strings.TrimSpace(*in.Title) == "" {
		return p, invalid("Issue", "title", "missing_field", "title cannot be blank")
	}
	if in.State != nil {
		s := strings.ToLower(*in.State)
		if s != "open" && s != "closed" {
			return p, invalid("Issue", "state", "invalid", "state must be open or closed, got %q", *in.State).With("value", *in.State)
		}
		p.state = &s
	}
	if in.StateReason != nil && *in.StateReason != "" {
		switch *in.StateReason {
		case "completed", "not_planned", "duplicate", "reopened":
		default:
			return p, invalid("Issue", "state_reason", "invalid", "state_reason must be completed, not_planned, duplicate or reopened, got %q", *in.StateReason).With("value", *in.StateReason)
		}
		p.stateReason = in.StateReason
	}
	if in.DuplicateOf != 0 {
		if _, err := r.issue(in.DuplicateOf); err != nil {
			return p, invalid("Issue", "duplicate_of", "invalid", "issue #%d does not exist in %s", in.DuplicateOf, r.FullName())
		}
	}
	assignees := in.Assignees
	if assignees == nil && in.Assignee != nil {
		one := []string{}
		if *in.Assignee != "" {
			one = []string{*in.Assignee}
		}
		assignees = &one
	}
	if assignees != nil {
		var canon []string
		for _, a := range *assignees {
			u := w.user(a)
			if u == nil || !r.isCollaborator(u.Login) {
				return p, invalid("Issue", "assignees", "invalid", "%q cannot be assigned to issues in %s (not a collaborator)", a, r.FullName()).With("value", a)
			}
			if !containsFold(canon, u.Login) {
				canon = append(canon, u.Login)
			}
		}
		if len(canon) > 10 {
			return p, invalid("Issue", "assignees", "invalid", "an issue can have at most 10 assignees")
		}
		if canon == nil {
			canon = []string{}
		}
		p.assignees = &canon
	}
	if in.Labels != nil {
		for _, l := range *in.Labels {
			if strings.TrimSpace(l) == "" {
				return p, invalid("Label", "name", "missing_field", "label names cannot be blank")
			}
		}
	}
	if in.Milestone != nil && *in.Milestone != 0 && r.milestone(*in.Milestone) == nil {
		return p, invalid("Issue", "milestone", "invalid", "milestone %d does not exist in %s", *in.Milestone, r.FullName()).With("value", *in.Milestone)
	}
	if in.Type != nil {
		name := ""
		if *in.Type != "" {
			t := w.repoIssueType(r, *in.Type)
			if t == nil {
				return p, invalid("Issue", "type", "invalid", "%q is not an issue type of %s", *in.Type, r.Owner).With("value", *in.Type)
			}
			name = t.Name
		}
		p.issueType = &name
	}
	fv, err := fieldValuesPatch(w, r, in.IssueFieldValues)
	if err != nil {
		return p, err
	}
	p.fieldValues = fv
	return p, nil
}

// applyIssuePatch changes the issue and records its history; it reports
// whether anything changed.
func applyIssuePatch(w *World, r *Repo, is *Issue, p issuePatch, now time.Time) bool {
	changed := false
	ev := func(kind string, f func(*Event)) {
		e := &Event{ID: w.nextID(), Event: kind, Actor: w.Me, CreatedAt: now}
		if f != nil {
			f(e)
		}
		is.Events = append(is.Events, e)
		changed = true
	}
	if p.title != nil && *p.title != is.Title {
		from := is.Title
		is.Title = *p.title
		ev("renamed", func(e *Event) { e.RenameFrom, e.RenameTo = from, is.Title })
	}
	if p.body != nil && *p.body != is.Body {
		is.Body = *p.body
		changed = true
	}
	if p.labels != nil {
		if setIssueLabels(w, r, is, *p.labels, now) {
			changed = true
		}
	}
	if p.assignees != nil {
		if setIssueAssignees(w, is, *p.assignees, now) {
			changed = true
		}
	}
	if p.milestone != nil && *p.milestone != is.Milestone {
		if old := r.milestone(is.Milestone); old != nil {
			ev("demilestoned", func(e *Event) { e.Milestone = old.Title })
		}
		is.Milestone = *p.milestone
		if m := r.milestone(is.Milestone); m != nil {
			ev("milestoned", func(e *Event) { e.Milestone = m.Title })
		}
	}
	if p.issueType != nil && *p.issueType != is.Type {
		is.Type = *p.issueType
		changed = true
	}
	if applyFieldValues(is, p.fieldValues) {
		changed = true
	}
	if p.state != nil && *p.state != is.State {
		is.State = *p.state
		if is.State == "closed" {
			reason := "completed"
			if p.stateReason != nil {
				reason = *p.stateReason
			}
			is.StateReason = reason
			t := now
			is.ClosedAt, is.ClosedBy = &t, w.Me
			ev("closed", func(e *Event) { e.Reason = reason })
		} else {
			is.StateReason = "reopened"
			is.ClosedAt, is.ClosedBy = nil, ""
			ev("reopened", nil)
		}
	} else if p.stateReason != nil && is.State == "closed" && *p.stateReason != is.StateReason && *p.stateReason != "reopened" {
		is.StateReason = *p.stateReason
		changed = true
	}
	if changed {
		is.UpdatedAt = now
	}
	return changed
}

// ensureLabel returns the repository's label of that name, creating it as
// GitHub does when an issue is given a label the repository lacks.
func ensureLabel(w *World, r *Repo, name string) *Label {
	if l := r.label(name); l != nil {
		return l
	}
	l := &Label{ID: w.nextID(), Name: strings.TrimSpace(name), Color: "ededed"}
	r.Labels = append(r.Labels, l)
	return l
}

// setIssueLabels replaces the issue's labels, recording labeled/unlabeled
// events; it reports whether anything changed.
func setIssueLabels(w *World, r *Repo, is *Issue, names []string, now time.Time) bool {
	var want []string
	for _, n := range names {
		l := ensureLabel(w, r, n)
		if !containsFold(want, l.Name) {
			want = append(want, l.Name)
		}
	}
	changed := false
	for _, old := range is.Labels {
		if !containsFold(want, old) {
			is.Events = append(is.Events, &Event{ID: w.nextID(), Event: "unlabeled", Actor: w.Me, CreatedAt: now, Label: old})
			changed = true
		}
	}
	for _, n := range want {
		if !containsFold(is.Labels, n) {
			is.Events = append(is.Events, &Event{ID: w.nextID(), Event: "labeled", Actor: w.Me, CreatedAt: now, Label: n})
			changed = true
		}
	}
	if want == nil {
		want = []string{}
	}
	is.Labels = want
	return changed
}

// setIssueAssignees replaces the assignees (already validated logins).
func setIssueAssignees(w *World, is *Issue, logins []string, now time.Time) bool {
	changed := false
	for _, old := range is.Assignees {
		if !containsFold(logins, old) {
			is.Events = append(is.Events, &Event{ID: w.nextID(), Event: "unassigned", Actor: w.Me, CreatedAt: now, Assignee: old})
			changed = true
		}
	}
	for _, n := range logins {
		if !containsFold(is.Assignees, n) {
			is.Events = append(is.Events, &Event{ID: w.nextID(), Event: "assigned", Actor: w.Me, CreatedAt: now, Assignee: n})
			changed = true
		}
	}
	is.Assignees = append([]string{}, logins...)
	return changed
}

// AddIssueCommentIn is add_issue_comment's input: a comment, or, as
// github-mcp-server has it, a reaction to the issue or to one of its
// comments.
type AddIssueCommentIn struct {
	RepoRef
	IssueNumber int    `json:"issue_number" jsonschema:"Issue or pull request number to comment on or react to."`
	Body        string `json:"body,omitempty" jsonschema:"Comment content. Required unless reaction is provided."`
	Reaction    string `json:"reaction,omitempty" jsonschema:"Emoji reaction to add (+1, -1, laugh, confused, heart, hooray, rocket or eyes). Required unless body is provided." enum:"+1,-1,laugh,confused,heart,hooray,rocket,eyes"`
	CommentID   int64  `json:"comment_id,omitempty" jsonschema:"The numeric ID of the issue or pull request comment to react to; omit it to react to the issue or pull request itself. Cannot be combined with body."`
}

var addIssueComment = twins.New(twins.Spec{
	Name:        "add_issue_comment",
	Title:       "Add comment to issue or pull request",
	Description: "Add a comment to a specific issue or pull request in a GitHub repository.",
	Effect:      twins.Write,
	Bindings: []twins.Binding{
		{Method: "POST", Path: issuePath + "/comments", Status: 201},
		// Reactions answer 201 when new and 200 when the user had already
		// reacted so.
		{Method: "POST", Path: issuePath + "/reactions", Rename: map[string]string{"content": "reaction"}, StatusOf: reactionStatus},
		{Method: "POST", Path: "/repos/{owner}/{repo}/issues/comments/{comment_id}/reactions", Rename: map[string]string{"content": "reaction"},
			Fixed: map[string]any{"issue_number": 0}, StatusOf: reactionStatus},
	},
}, func(ctx context.Context, w *World, in AddIssueCommentIn) (any, error) {
	if in.Body != "" && in.Reaction != "" && in.CommentID == 0 {
		return commentAndReact(ctx, w, in)
	}
	if in.Reaction != "" || in.CommentID != 0 {
		return addReaction(ctx, w, in)
	}
	return addComment(ctx, w, in)
})

// CommentAndReaction is add_issue_comment's answer when it both comments
// and reacts, as github-mcp-server allows.
type CommentAndReaction struct {
	Comment  APIIssueComment `json:"comment"`
	Reaction *APIReaction    `json:"reaction"`
}

// commentAndReact adds a comment to an issue and a reaction to the issue,
// checking the reaction before anything changes.
func commentAndReact(ctx context.Context, w *World, in AddIssueCommentIn) (any, error) {
	if !slices.Contains(reactionContents, in.Reaction) {
		return nil, invalid("Reaction", "content", "invalid", "reaction must be one of %s, got %q", strings.Join(reactionContents, ", "), in.Reaction)
	}
	c, err := addComment(ctx, w, in)
	if err != nil {
		return nil, err
	}
	in.Body = ""
	rx, err := addReaction(ctx, w, in)
	if err != nil {
		return nil, err
	}
	return CommentAndReaction{Comment: c, Reaction: rx}, nil
}

func addComment(ctx context.Context, w *World, in AddIssueCommentIn) (APIIssueComment, error) {
	r, is, err := w.issueOf(in.Owner, in.Repo, in.IssueNumber)
	if err != nil {
		return APIIssueComment{}, err
	}
	if strings.TrimSpace(in.Body) == "" {
		return APIIssueComment{}, invalid("IssueComment", "body", "missing_field", "body is required")
	}
	if is.Locked && !r.isCollaborator(w.Me) {
		return APIIssueComment{}, twins.Errorf(twins.Forbidden, "locked", "issue #%d is locked", is.Number)
	}
	now := twins.EnvFrom(ctx).Now().UTC()
	i := r.addComment(is, Comment{ID: w.nextID(), User: w.Me, Body: in.Body, CreatedAt: now, UpdatedAt: now})
	is.UpdatedAt = now
	return newView(ctx, w).comment(r, is, is.Comments.At(i)), nil
}

// AssigneesIn is the input of add_issue_assignees and remove_issue_assignees.
type AssigneesIn struct {
	RepoRef
	IssueNumber int      `json:"issue_number" jsonschema:"Issue or pull request number"`
	Assignees   []string `json:"assignees" jsonschema:"Usernames to add or remove"`
}

var addIssueAssignees = twins.New(twins.Spec{
	Name:        "add_issue_assignees",
	Title:       "Add assignees to an issue",
	Description: "Add up to 10 assignees to an issue or pull request. As on GitHub, users who cannot be assigned (not collaborators) are silently ignored.",
	Effect:      twins.Write,
	Bindings: []twins.Binding{
		{Method: "POST", Path: issuePath + "/assignees", Status: 201},
	},
}, func(ctx context.Context, w *World, in AssigneesIn) (APIIssue, error) {
	r, is, err := w.issueOf(in.Owner, in.Repo, in.IssueNumber)
	if err != nil {
		return APIIssue{}, err
	}
	next := append([]string{}, is.Assignees...)
	for _, a := range in.Assignees {
		u := w.user(a)
		if u == nil || !r.isCollaborator(u.Login) || containsFold(next, u.Login) || len(next) >= 10 {
			continue
		}
		next = append(next, u.Login)
	}
	now := twins.EnvFrom(ctx).Now().UTC()
	if setIssueAssignees(w, is, next, now) {
		is.UpdatedAt = now
	} else {
		twins.Unchanged(ctx)
	}
	return newView(ctx, w).issue(r, is), nil
})

var removeIssueAssignees = twins.New(twins.Spec{
	Name:        "remove_issue_assignees",
	Title:       "Remove assignees from an issue",
	Description: "Remove assignees from an issue or pull request; logins that are not assigned are ignored.",
	Effect:      twins.Write,
	Bindings: []twins.Binding{
		{Method: "DELETE", Path: issuePath + "/assignees"},
	},
}, func(ctx context.Context, w *World, in AssigneesIn) (APIIssue, error) {
	r, is, err := w.issueOf(in.Owner, in.Repo, in.IssueNumber)
	if err != nil {
		return APIIssue{}, err
	}
	var next []string
	for _, a := range is.Assignees {
		if !containsFold(in.Assignees, a) {
			next = append(next, a)
		}
	}
	now := twins.EnvFrom(ctx).Now().UTC()
	if setIssueAssignees(w, is, next, now) {
		is.UpdatedAt = now
	} else {
		twins.Unchanged(ctx)
	}
	return newView(ctx, w).issue(r, is), nil
})
