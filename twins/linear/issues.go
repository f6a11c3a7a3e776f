package linear

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/pomehq/pome/twins"
)

// Issues: list_issues, get_issue and save_issue, as Linear's MCP server
// names and shapes them, and archive_issue (GraphQL's issueArchive).

// PriorityOut is a priority with Linear's name for it.
type PriorityOut struct {
	Value int    `json:"value"`
	Name  string `json:"name"`
}

// IssueOut is an issue as Linear's MCP tools answer it.
type IssueOut struct {
	ID            string          `json:"id"`
	Identifier    string          `json:"identifier"`
	Title         string          `json:"title"`
	Description   string          `json:"description"`
	Priority      PriorityOut     `json:"priority"`
	Estimate      *float64        `json:"estimate"`
	URL           string          `json:"url"`
	GitBranchName string          `json:"gitBranchName"`
	CreatedAt     string          `json:"createdAt"`
	UpdatedAt     string          `json:"updatedAt"`
	ArchivedAt    *string         `json:"archivedAt"`
	CompletedAt   *string         `json:"completedAt"`
	StartedAt     *string         `json:"startedAt"`
	CanceledAt    *string         `json:"canceledAt"`
	DueDate       *string         `json:"dueDate"`
	Status        string          `json:"status"`
	StatusType    string          `json:"statusType"`
	Labels        []string        `json:"labels"`
	CreatedBy     string          `json:"createdBy,omitempty"`
	CreatedByID   string          `json:"createdById,omitempty"`
	Assignee      *string         `json:"assignee"`
	AssigneeID    *string         `json:"assigneeId"`
	Delegate      *string         `json:"delegate"`
	DelegateID    *string         `json:"delegateId"`
	Project       *string         `json:"project"`
	ProjectID     *string         `json:"projectId"`
	ParentID      *string         `json:"parentId"`
	Team          string          `json:"team"`
	TeamID        string          `json:"teamId"`
	CycleID       *string         `json:"cycleId"`
	Relations     *RelationsOut   `json:"relations,omitempty"`
	Children      []ChildIssueOut `json:"children,omitempty"`
}

// RelationsOut are an issue's relations, by the other issue's identifier.
type RelationsOut struct {
	Blocks      []string `json:"blocks"`
	BlockedBy   []string `json:"blockedBy"`
	RelatedTo   []string `json:"relatedTo"`
	DuplicateOf *string  `json:"duplicateOf"`
}

// ChildIssueOut is a sub-issue in its parent's answer.
type ChildIssueOut struct {
	ID         string `json:"id"`
	Identifier string `json:"identifier"`
	Title      string `json:"title"`
	Status     string `json:"status"`
}

func isoTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

func isoPtr(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := isoTime(*t)
	return &s
}

func strPtr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// gitBranchName is the branch Linear suggests for an issue.
func (w *World) gitBranchName(is *Issue) string {
	handle := "user"
	if u := w.viewer(); u != nil {
		handle = slugify(u.DisplayName)
	}
	return handle + "/" + strings.ToLower(is.Identifier) + "-" + slugify(is.Title)
}

func (w *World) issueOut(is *Issue) IssueOut {
	o := IssueOut{ID: is.ID, Identifier: is.Identifier, Title: is.Title, Description: is.Description,
		Priority: PriorityOut{is.Priority, priorityLabel(is.Priority)}, Estimate: is.Estimate, URL: w.issueURL(is),
		GitBranchName: w.gitBranchName(is), CreatedAt: isoTime(is.CreatedAt), UpdatedAt: isoTime(is.UpdatedAt),
		ArchivedAt: isoPtr(is.ArchivedAt), CompletedAt: isoPtr(is.CompletedAt), StartedAt: isoPtr(is.StartedAt),
		CanceledAt: isoPtr(is.CanceledAt), DueDate: strPtr(is.DueDate), Labels: []string{}, TeamID: is.TeamID,
		AssigneeID: strPtr(is.AssigneeID), DelegateID: strPtr(is.DelegateID), ProjectID: strPtr(is.ProjectID),
		ParentID: strPtr(is.ParentID), CycleID: strPtr(is.CycleID)}
	if s := w.state(is.StateID); s != nil {
		o.Status, o.StatusType = s.Name, s.Type
	}
	for _, id := range is.LabelIDs {
		if l := w.label(id); l != nil {
			o.Labels = append(o.Labels, l.Name)
		}
	}
	if u := w.user(is.CreatorID); u != nil {
		o.CreatedBy, o.CreatedByID = u.Name, u.ID
	}
	if u := w.user(is.AssigneeID); u != nil {
		o.Assignee = &u.Name
	}
	if u := w.user(is.DelegateID); u != nil {
		o.Delegate = &u.Name
	}
	if p := w.project(is.ProjectID); p != nil {
		o.Project = &p.Name
	}
	if t := w.team(is.TeamID); t != nil {
		o.Team = t.Name
	}
	return o
}

func (w *World) relationsOut(is *Issue) *RelationsOut {
	r := &RelationsOut{Blocks: []string{}, BlockedBy: []string{}, RelatedTo: []string{}}
	for _, rel := range w.Relations {
		var other *Issue
		out := rel.IssueID == is.ID
		switch {
		case out:
			other = w.issue(rel.RelatedIssueID)
		case rel.RelatedIssueID == is.ID:
			other = w.issue(rel.IssueID)
		}
		if other == nil {
			continue
		}
		switch {
		case rel.Type == "blocks" && out:
			r.Blocks = append(r.Blocks, other.Identifier)
		case rel.Type == "blocks":
			r.BlockedBy = append(r.BlockedBy, other.Identifier)
		case rel.Type == "duplicate" && out:
			r.DuplicateOf = &other.Identifier
		case rel.Type == "related" || rel.Type == "similar":
			r.RelatedTo = append(r.RelatedTo, other.Identifier)
		}
	}
	return r
}

// onlyFields keeps the fields a caller asked for (id and identifier
// always), as the tools' fields argument does.
func onlyFields(v any, fields []string) any {
	if len(fields) == 0 {
		return v
	}
	b, _ := json.Marshal(v)
	var m map[string]any
	json.Unmarshal(b, &m)
	keep := map[string]any{"id": m["id"]}
	if id, ok := m["identifier"]; ok {
		keep["identifier"] = id
	}
	for _, f := range fields {
		if val, ok := m[f]; ok {
			keep[f] = val
		}
	}
	return keep
}

// ListIssuesIn is list_issues' input.
type ListIssuesIn struct {
	Limit           int             `json:"limit,omitempty" jsonschema:"Max results (default 50, max 250)"`
	Cursor          string          `json:"cursor,omitempty" jsonschema:"Next page cursor"`
	OrderBy         string          `json:"orderBy,omitempty" jsonschema:"Sort: createdAt | updatedAt" enum:"createdAt,updatedAt"`
	Query           string          `json:"query,omitempty" jsonschema:"Search issue title or description"`
	Team            string          `json:"team,omitempty" jsonschema:"Team name or ID"`
	State           string          `json:"state,omitempty" jsonschema:"State type, name, or ID"`
	Cycle           string          `json:"cycle,omitempty" jsonschema:"Cycle name, number, or ID"`
	Label           string          `json:"label,omitempty" jsonschema:"Label name or ID"`
	Assignee        json.RawMessage `json:"assignee,omitempty" jsonschema:"User ID, name, email, or \"me\"; null (or \"null\") for no assignee"`
	Delegate        string          `json:"delegate,omitempty" jsonschema:"Agent name or ID"`
	Project         string          `json:"project,omitempty" jsonschema:"Project name, ID, identifier (e.g., PROJ-123), or slug"`
	Release         string          `json:"release,omitempty" jsonschema:"Release ID or slug (releases are not modelled: any value matches nothing)"`
	Priority        *int            `json:"priority,omitempty" jsonschema:"Priority: 0=None, 1=Urgent, 2=High, 3=Medium, 4=Low"`
	ParentID        string          `json:"parentId,omitempty" jsonschema:"Parent issue ID or identifier (e.g., LIN-123)"`
	Fields          []string        `json:"fields,omitempty" jsonschema:"Fields to include in each result. id is always included. Omit or pass an empty array for the default response." enum:"id,title,description,projectMilestone,priority,estimate,url,gitBranchName,createdAt,updatedAt,archivedAt,completedAt,startedAt,canceledAt,dueDate,slaStartedAt,slaMediumRiskAt,slaHighRiskAt,slaBreachesAt,slaType,status,statusType,labels,triageIntel,createdBy,createdById,assignee,assigneeId,delegate,delegateId,project,projectId,parentId,team,teamId,cycleId"`
	CreatedAt       string          `json:"createdAt,omitempty" jsonschema:"Created after: ISO-8601 date/duration (e.g., -P1D)"`
	UpdatedAt       string          `json:"updatedAt,omitempty" jsonschema:"Updated after: ISO-8601 date/duration (e.g., -P1D)"`
	IncludeArchived *bool           `json:"includeArchived,omitempty" jsonschema:"Include archived items (default true)"`
}

// ListIssuesOut is one page of issues.
type ListIssuesOut struct {
	Issues      []any  `json:"issues"`
	HasNextPage bool   `json:"hasNextPage"`
	Cursor      string `json:"cursor,omitempty"`
}

var listIssues = twins.New(twins.Spec{
	Name: "list_issues", Title: "List issues",
	Description: `List issues in the user's Linear workspace. For my issues, use "me" as the assignee. Use "null" for no assignee.`,
	Effect:      twins.Read,
}, listIssuesHandler)

// rawRef reads a string-or-null argument: set reports whether it was
// given, null whether it was null (or the string "null").
func rawRef(field string, raw json.RawMessage) (val string, set, null bool, err error) {
	s := strings.TrimSpace(string(raw))
	if s == "" {
		return "", false, false, nil
	}
	if s == "null" {
		return "", true, true, nil
	}
	if err := json.Unmarshal(raw, &val); err != nil {
		return "", true, false, errInvalid(field, "%s must be a string or null", field)
	}
	return val, true, val == "null", nil
}

func listIssuesHandler(ctx context.Context, w *World, in ListIssuesIn) (ListIssuesOut, error) {
	f, err := w.issueFilter(ctx, in)
	if err != nil {
		return ListIssuesOut{}, err
	}
	var all []*Issue
	for _, is := range w.Issues {
		if f(is) {
			all = append(all, is)
		}
	}
	items, next, err := page(sortBy(all, in.OrderBy), in.Limit, in.Cursor)
	if err != nil {
		return ListIssuesOut{}, err
	}
	out := ListIssuesOut{Issues: []any{}, HasNextPage: next != "", Cursor: next}
	for _, is := range items {
		out.Issues = append(out.Issues, onlyFields(w.issueOut(is), in.Fields))
	}
	return out, nil
}

// issueFilter turns list_issues' arguments into a predicate. A filter
// naming something that does not exist is an error, as Linear's is.
func (w *World) issueFilter(ctx context.Context, in ListIssuesIn) (func(*Issue) bool, error) {
	var preds []func(*Issue) bool
	add := func(p func(*Issue) bool) { preds = append(preds, p) }
	if in.Team != "" {
		t := w.findTeam(in.Team)
		if t == nil {
			return nil, errNotFound("Team", in.Team)
		}
		add(func(is *Issue) bool { return is.TeamID == t.ID })
	}
	if in.State != "" {
		ref := in.State
		add(func(is *Issue) bool {
			s := w.state(is.StateID)
			return s != nil && (s.ID == ref || strings.EqualFold(s.Name, ref) || strings.EqualFold(s.Type, ref))
		})
	}
	if in.Label != "" {
		ref := in.Label
		add(func(is *Issue) bool {
			for _, id := range is.LabelIDs {
				if l := w.label(id); l != nil && (l.ID == ref || strings.EqualFold(l.Name, ref)) {
					return true
				}
			}
			return false
		})
	}
	if in.Cycle != "" {
		ref := in.Cycle
		add(func(is *Issue) bool {
			c := w.cycle(is.CycleID)
			return c != nil && w.findCycle(c.TeamID, ref) == c
		})
	}
	who, set, null, err := rawRef("assignee", in.Assignee)
	if err != nil {
		return nil, err
	}
	if set {
		if null {
			add(func(is *Issue) bool { return is.AssigneeID == "" })
		} else {
			u := w.findUser(who)
			if u == nil {
				return nil, errNotFound("User", who)
			}
			add(func(is *Issue) bool { return is.AssigneeID == u.ID })
		}
	}
	if in.Delegate != "" {
		u := w.findUser(in.Delegate)
		if u == nil {
			return nil, errNotFound("User", in.Delegate)
		}
		add(func(is *Issue) bool { return is.DelegateID == u.ID })
	}
	if in.Project != "" {
		p := w.findProject(in.Project)
		if p == nil {
			return nil, errNotFound("Project", in.Project)
		}
		add(func(is *Issue) bool { return is.ProjectID == p.ID })
	}
	if in.Release != "" {
		add(func(*Issue) bool { return false })
	}
	if in.Priority != nil {
		p := *in.Priority
		add(func(is *Issue) bool { return is.Priority == p })
	}
	if in.ParentID != "" {
		par := w.findIssue(in.ParentID)
		if par == nil {
			return nil, errNotFound("Issue", in.ParentID)
		}
		add(func(is *Issue) bool { return is.ParentID == par.ID })
	}
	if in.Query != "" {
		q := in.Query
		add(func(is *Issue) bool {
			return contains(is.Title, q) || contains(is.Description, q) || strings.EqualFold(is.Identifier, q)
		})
	}
	for field, v := range map[string]string{"createdAt": in.CreatedAt, "updatedAt": in.UpdatedAt} {
		if v == "" {
			continue
		}
		t, err := since(field, v, now(ctx))
		if err != nil {
			return nil, err
		}
		if field == "createdAt" {
			add(func(is *Issue) bool { return !is.CreatedAt.Before(t) })
		} else {
			add(func(is *Issue) bool { return !is.UpdatedAt.Before(t) })
		}
	}
	if in.IncludeArchived != nil && !*in.IncludeArchived {
		add(func(is *Issue) bool { return is.ArchivedAt == nil })
	}
	return func(is *Issue) bool {
		for _, p := range preds {
			if !p(is) {
				return false
			}
		}
		return true
	}, nil
}

// GetIssueIn is get_issue's input.
type GetIssueIn struct {
	ID                   string `json:"id" jsonschema:"Issue ID or identifier (e.g., LIN-123)"`
	IncludeRelations     bool   `json:"includeRelations,omitempty" jsonschema:"Include blocking/related/duplicate relations"`
	IncludeCustomerNeeds bool   `json:"includeCustomerNeeds,omitempty" jsonschema:"Include associated customer needs (not modelled: none)"`
	IncludeReleases      bool   `json:"includeReleases,omitempty" jsonschema:"Include associated releases (not modelled: none)"`
}

var getIssue = twins.New(twins.Spec{
	Name: "get_issue", Title: "Get issue",
	Description: "Retrieve detailed information about an issue by ID, including its git branch name, sub-issues and, on request, its relations",
	Effect:      twins.Read,
}, func(ctx context.Context, w *World, in GetIssueIn) (IssueOut, error) {
	is := w.findIssue(in.ID)
	if is == nil {
		return IssueOut{}, errNotFound("Issue", in.ID)
	}
	return w.issueDetail(is, in.IncludeRelations), nil
})

func (w *World) issueDetail(is *Issue, relations bool) IssueOut {
	o := w.issueOut(is)
	if relations {
		o.Relations = w.relationsOut(is)
	}
	for _, c := range w.children(is.ID) {
		st := ""
		if s := w.state(c.StateID); s != nil {
			st = s.Name
		}
		o.Children = append(o.Children, ChildIssueOut{ID: c.ID, Identifier: c.Identifier, Title: c.Title, Status: st})
	}
	return o
}

// PatchOp is one edit of save_issue's (and the other save tools') patch.
type PatchOp struct {
	Op         string `json:"op" jsonschema:"replace, insert_before or insert_after" enum:"replace,insert_before,insert_after"`
	OldString  string `json:"old_string,omitempty" jsonschema:"Exact text to replace. Must match the current content exactly once"`
	NewString  string `json:"new_string,omitempty" jsonschema:"Replacement text. Empty string deletes the match"`
	ReplaceAll bool   `json:"replace_all,omitempty" jsonschema:"Replace every occurrence instead of requiring a unique match"`
	Anchor     string `json:"anchor,omitempty" jsonschema:"Exact text to insert before or after. Must match the current content exactly once"`
	Text       string `json:"text,omitempty" jsonschema:"Text to insert next to the anchor"`
}

// applyPatch applies the edits in order, all or none.
func applyPatch(content string, ops []PatchOp) (string, error) {
	for i, op := range ops {
		anchor := op.Anchor
		if op.Op == "replace" {
			anchor = op.OldString
		}
		if anchor == "" {
			return "", errInvalid("patch", "patch[%d]: the text to find is empty", i)
		}
		n := strings.Count(content, anchor)
		if n == 0 || n > 1 && !(op.Op == "replace" && op.ReplaceAll) {
			return "", errInvalid("patch", "patch[%d]: %q matches the current content %d times; it must match exactly once", i, anchor, n)
		}
		switch op.Op {
		case "replace":
			if op.ReplaceAll {
				content = strings.ReplaceAll(content, anchor, op.NewString)
			} else {
				content = strings.Replace(content, anchor, op.NewString, 1)
			}
		case "insert_before":
			content = strings.Replace(content, anchor, op.Text+anchor, 1)
		case "insert_after":
			content = strings.Replace(content, anchor, anchor+op.Text, 1)
		}
	}
	return content, nil
}

// LinkIn is a link attachment.
type LinkIn struct {
	URL   string `json:"url" jsonschema:"Link URL"`
	Title string `json:"title" jsonschema:"Link title"`
}

// SaveIssueIn is save_issue's input. The arguments that take null to
// clear a value are raw JSON, so absent and null differ.
type SaveIssueIn struct {
	ID              string          `json:"id,omitempty" jsonschema:"Only for updating an existing issue. Pass the issue ID or identifier (e.g., LIN-123). Do NOT pass this parameter when creating a new issue."`
	Title           string          `json:"title,omitempty" jsonschema:"Issue title (required when creating)"`
	Description     *string         `json:"description,omitempty" jsonschema:"Content as Markdown"`
	Patch           []PatchOp       `json:"patch,omitempty" jsonschema:"Partial edits applied to the current description, in order and atomically. Only valid on update, in place of description"`
	Team            string          `json:"team,omitempty" jsonschema:"Team name or ID (required when creating)"`
	Cycle           json.RawMessage `json:"cycle,omitempty" jsonschema:"Cycle name, number, or ID. Null to remove"`
	Milestone       string          `json:"milestone,omitempty" jsonschema:"Milestone name or ID (milestones are not modelled)"`
	Priority        *int            `json:"priority,omitempty" jsonschema:"Priority: 0=None, 1=Urgent, 2=High, 3=Medium, 4=Low"`
	Project         json.RawMessage `json:"project,omitempty" jsonschema:"Project name, ID, or slug. Null to remove"`
	State           string          `json:"state,omitempty" jsonschema:"State type, name, or ID"`
	Assignee        json.RawMessage `json:"assignee,omitempty" jsonschema:"User ID, name, email, or \"me\". Null to remove"`
	Delegate        json.RawMessage `json:"delegate,omitempty" jsonschema:"Agent name or ID. Null to remove"`
	Labels          []string        `json:"labels,omitempty" jsonschema:"Label names or IDs. Replaces the full label set; omit to leave labels unchanged"`
	DueDate         json.RawMessage `json:"dueDate,omitempty" jsonschema:"Due date (ISO format). On update, pass null to remove the due date"`
	SLABreachesAt   json.RawMessage `json:"slaBreachesAt,omitempty" jsonschema:"SLAs are not modelled; only null is accepted"`
	SLAType         json.RawMessage `json:"slaType,omitempty" jsonschema:"SLAs are not modelled; only null is accepted"`
	ParentID        json.RawMessage `json:"parentId,omitempty" jsonschema:"Parent issue ID or identifier (e.g., LIN-123). Null to remove"`
	Estimate        json.RawMessage `json:"estimate,omitempty" jsonschema:"Issue estimate value. On update, pass null to clear the estimate; omitting leaves it unchanged"`
	Links           []LinkIn        `json:"links,omitempty" jsonschema:"Link attachments to add (attachments are not modelled)"`
	SetReleases     []string        `json:"setReleases,omitempty" jsonschema:"Releases are not modelled"`
	AddReleases     []string        `json:"addReleases,omitempty" jsonschema:"Releases are not modelled"`
	RemoveReleases  []string        `json:"removeReleases,omitempty" jsonschema:"Releases are not modelled"`
	Blocks          []string        `json:"blocks,omitempty" jsonschema:"Issue IDs/identifiers this blocks. Append-only"`
	BlockedBy       []string        `json:"blockedBy,omitempty" jsonschema:"Issue IDs/identifiers blocking this. Append-only"`
	RelatedTo       []string        `json:"relatedTo,omitempty" jsonschema:"Related issue IDs/identifiers. Append-only"`
	DuplicateOf     json.RawMessage `json:"duplicateOf,omitempty" jsonschema:"Duplicate of issue ID/identifier. Null to remove"`
	RemoveBlocks    []string        `json:"removeBlocks,omitempty" jsonschema:"Issue IDs/identifiers to stop blocking"`
	RemoveBlockedBy []string        `json:"removeBlockedBy,omitempty" jsonschema:"Issue IDs/identifiers to remove as blockers of this issue"`
	RemoveRelatedTo []string        `json:"removeRelatedTo,omitempty" jsonschema:"Related issue IDs/identifiers to remove"`
}

var saveIssue = twins.New(twins.Spec{
	Name: "save_issue", Title: "Save issue",
	Description: "Create or update a Linear issue. If `id` is provided, updates the existing issue; otherwise creates a new one. " +
		"When creating, `title` and `team` are required. Use `assignee` (not `assigneeId`) to set the assignee — it accepts a user ID, name, email, or \"me\".",
	Effect: twins.Destructive,
}, saveIssueHandler)

// issueChange is everything save_issue will do, worked out (and refused)
// before anything changes.
type issueChange struct {
	is       *Issue
	create   bool
	team     *Team
	state    *State
	relAdd   []*Relation
	relDrop  map[*Relation]bool
	apply    []func(*Issue)
	changed  bool
	labelIDs []string
}

func saveIssueHandler(ctx context.Context, w *World, in SaveIssueIn) (IssueOut, error) {
	ch, err := w.planIssue(in)
	if err != nil {
		return IssueOut{}, err
	}
	at := now(ctx)
	is := ch.is
	if ch.create {
		ch.team.IssueCount++
		is.ID = w.newID()
		is.TeamID, is.Number = ch.team.ID, ch.team.IssueCount
		is.Identifier = fmt.Sprintf("%s-%d", ch.team.Key, is.Number)
		is.CreatedAt, is.CreatorID, is.LabelIDs = at, w.ViewerID, []string{}
		is.SortOrder = float64(len(w.Issues))
		w.Issues = append(w.Issues, is)
	} else if ch.team != nil && ch.team.ID != is.TeamID {
		// Moving to another team renumbers the issue there.
		ch.team.IssueCount++
		is.TeamID, is.Number = ch.team.ID, ch.team.IssueCount
		is.Identifier = fmt.Sprintf("%s-%d", ch.team.Key, is.Number)
		ch.changed = true
	}
	for _, f := range ch.apply {
		f(is)
	}
	if ch.labelIDs != nil {
		is.LabelIDs = ch.labelIDs
	}
	if ch.state != nil && (ch.create || ch.state.ID != is.StateID) {
		is.setState(ch.state, at)
	}
	if len(ch.relDrop) > 0 {
		w.Relations = slices.DeleteFunc(w.Relations, func(r *Relation) bool { return ch.relDrop[r] })
	}
	for _, r := range ch.relAdd {
		r.ID, r.CreatedAt = w.newID(), at
		if r.IssueID == "" {
			r.IssueID = is.ID
		}
		if r.RelatedIssueID == "" {
			r.RelatedIssueID = is.ID
		}
		w.Relations = append(w.Relations, r)
	}
	if !ch.create && !ch.changed {
		twins.Unchanged(ctx)
	} else {
		is.UpdatedAt = at
	}
	return w.issueDetail(is, false), nil
}

// planIssue validates save_issue's arguments and plans the change.
func (w *World) planIssue(in SaveIssueIn) (*issueChange, error) {
	ch := &issueChange{relDrop: map[*Relation]bool{}}
	if in.ID == "" {
		if strings.TrimSpace(in.Title) == "" {
			return nil, errInvalid("title", "title is required when creating an issue")
		}
		if in.Team == "" {
			return nil, errInvalid("team", "team is required when creating an issue")
		}
		if len(in.Patch) > 0 {
			return nil, errInvalid("patch", "patch is only valid when updating an issue")
		}
		if len(in.RemoveBlocks)+len(in.RemoveBlockedBy)+len(in.RemoveRelatedTo)+len(in.RemoveReleases) > 0 {
			return nil, errInvalid("removeBlocks", "remove* arguments are only valid when updating an issue")
		}
		ch.create, ch.is = true, &Issue{Title: in.Title}
	} else if ch.is = w.findIssue(in.ID); ch.is == nil {
		return nil, errNotFound("Issue", in.ID)
	}
	is := ch.is
	set := func(changed bool, f func(*Issue)) {
		if changed {
			ch.changed = true
			ch.apply = append(ch.apply, f)
		}
	}
	if in.Milestone != "" {
		return nil, errInvalid("milestone", "Project milestones are not available in this workspace (Pome's Linear twin does not model them)")
	}
	if len(in.Links) > 0 || len(in.SetReleases)+len(in.AddReleases)+len(in.RemoveReleases) > 0 {
		field := "links"
		if len(in.Links) == 0 {
			field = "setReleases"
		}
		return nil, errInvalid(field, "%s: attachments and releases are not modelled by Pome's Linear twin", field)
	}
	for _, f := range []struct {
		name string
		raw  json.RawMessage
	}{{"slaBreachesAt", in.SLABreachesAt}, {"slaType", in.SLAType}} {
		if s := strings.TrimSpace(string(f.raw)); s != "" && s != "null" {
			return nil, errInvalid(f.name, "%s: SLAs are not modelled by Pome's Linear twin", f.name)
		}
	}
	// Team: required on create, a move on update.
	teamID := is.TeamID
	if in.Team != "" {
		t := w.findTeam(in.Team)
		if t == nil {
			return nil, errNotFound("Team", in.Team)
		}
		ch.team, teamID = t, t.ID
	}
	team := w.team(teamID)
	if in.Title != "" && !ch.create {
		title := in.Title
		set(title != is.Title, func(is *Issue) { is.Title = title })
	}
	if in.Description != nil && len(in.Patch) > 0 {
		return nil, errInvalid("patch", "pass either description or patch, not both")
	}
	if in.Description != nil {
		d := *in.Description
		set(d != is.Description, func(is *Issue) { is.Description = d })
	}
	if len(in.Patch) > 0 {
		d, err := applyPatch(is.Description, in.Patch)
		if err != nil {
			return nil, err
		}
		set(d != is.Description, func(is *Issue) { is.Description = d })
	}
	if in.Priority != nil {
		p := *in.Priority
		if p < 0 || p > 4 {
			return nil, errInvalid("priority", "priority must be 0 (none) to 4 (low)")
		}
		set(p != is.Priority, func(is *Issue) { is.Priority = p })
	}
	// State: on create the team's default; on a move, the same type in
	// the new team.
	switch {
	case in.State != "":
		s := team.findState(in.State)
		if s == nil {
			return nil, errNotFound("WorkflowState", in.State)
		}
		ch.state = s
		ch.changed = ch.changed || s.ID != is.StateID
	case ch.create:
		ch.state = team.defaultState()
	case ch.team != nil && ch.team.ID != is.TeamID:
		old := w.state(is.StateID)
		if old != nil {
			ch.state = team.findState(old.Type)
		}
		if ch.state == nil {
			ch.state = team.defaultState()
		}
	}
	if ch.state == nil && ch.create {
		return nil, errInvalid("team", "team %s has no workflow states", team.Key)
	}
	// People.
	for _, f := range []struct {
		name string
		raw  json.RawMessage
		ptr  func(*Issue) *string
	}{
		{"assignee", in.Assignee, func(is *Issue) *string { return &is.AssigneeID }},
		{"delegate", in.Delegate, func(is *Issue) *string { return &is.DelegateID }},
	} {
		v, given, null, err := rawRef(f.name, f.raw)
		if err != nil {
			return nil, err
		}
		if !given {
			continue
		}
		id := ""
		if !null {
			u := w.findUser(v)
			if u == nil {
				return nil, errNotFound("User", v)
			}
			if f.name == "delegate" && !u.App {
				return nil, errInvalid("delegate", "%s is not an agent: issues can only be delegated to app users", u.Name)
			}
			id = u.ID
		}
		ptr := f.ptr
		set(id != *ptr(is), func(is *Issue) { *ptr(is) = id })
	}
	// Project and cycle.
	if v, given, null, err := rawRef("project", in.Project); err != nil {
		return nil, err
	} else if given {
		id := ""
		if !null {
			p := w.findProject(v)
			if p == nil {
				return nil, errNotFound("Project", v)
			}
			id = p.ID
		}
		set(id != is.ProjectID, func(is *Issue) { is.ProjectID = id })
	}
	if v, given, null, err := rawRef("cycle", in.Cycle); err != nil {
		return nil, err
	} else if given {
		id := ""
		if !null {
			c := w.findCycle(teamID, v)
			if c == nil {
				return nil, errNotFound("Cycle", v)
			}
			id = c.ID
		}
		set(id != is.CycleID, func(is *Issue) { is.CycleID = id })
	}
	if v, given, null, err := rawRef("dueDate", in.DueDate); err != nil {
		return nil, err
	} else if given {
		if !null {
			if len(v) >= 10 && dateRE.MatchString(v[:10]) {
				v = v[:10]
			} else {
				return nil, errInvalid("dueDate", "dueDate must be an ISO date (YYYY-MM-DD): %q", v)
			}
		} else {
			v = ""
		}
		set(v != is.DueDate, func(is *Issue) { is.DueDate = v })
	}
	if v, given, null, err := rawRef("parentId", in.ParentID); err != nil {
		return nil, err
	} else if given {
		id := ""
		if !null {
			p := w.findIssue(v)
			if p == nil {
				return nil, errNotFound("Issue", v)
			}
			if p == is || w.isDescendant(p, is) {
				return nil, errInvalid("parentId", "an issue cannot be its own ancestor")
			}
			id = p.ID
		}
		set(id != is.ParentID, func(is *Issue) { is.ParentID = id })
	}
	if s := strings.TrimSpace(string(in.Estimate)); s != "" {
		var est *float64
		if s != "null" {
			var v float64
			if err := json.Unmarshal(in.Estimate, &v); err != nil || v < 0 {
				return nil, errInvalid("estimate", "estimate must be a non-negative number or null")
			}
			est = &v
		}
		same := est == nil && is.Estimate == nil || est != nil && is.Estimate != nil && *est == *is.Estimate
		set(!same, func(is *Issue) { is.Estimate = est })
	}
	// Labels: the full set, each the team's or the workspace's.
	if in.Labels != nil {
		ids := []string{}
		for _, ref := range in.Labels {
			l := w.findLabel(teamID, ref)
			if l == nil || l.TeamID != "" && l.TeamID != teamID {
				return nil, errNotFound("IssueLabel", ref)
			}
			if l.IsGroup {
				return nil, errInvalid("labels", "%q is a label group; apply one of its labels", l.Name)
			}
			if !slices.Contains(ids, l.ID) {
				ids = append(ids, l.ID)
			}
		}
		if !slices.Equal(ids, is.LabelIDs) {
			ch.labelIDs, ch.changed = ids, true
		}
	}
	return ch, w.planRelations(ch, in)
}

func (w *World) isDescendant(candidate, of *Issue) bool {
	for p := candidate; p != nil && p.ParentID != ""; p = w.issue(p.ParentID) {
		if p.ParentID == of.ID {
			return true
		}
	}
	return false
}

// planRelations adds save_issue's relation changes to the plan. Relations
// already there are not added twice.
func (w *World) planRelations(ch *issueChange, in SaveIssueIn) error {
	is := ch.is
	has := func(typ, from, to string) *Relation {
		for _, r := range w.Relations {
			if r.Type == typ && r.IssueID == from && r.RelatedIssueID == to {
				return r
			}
			if (typ == "related" || typ == "similar") && r.Type == typ && r.IssueID == to && r.RelatedIssueID == from {
				return r
			}
		}
		return nil
	}
	resolve := func(field, ref string) (*Issue, error) {
		o := w.findIssue(ref)
		if o == nil {
			return nil, errNotFound("Issue", ref)
		}
		if o == is {
			return nil, errInvalid(field, "an issue cannot be related to itself")
		}
		return o, nil
	}
	add := func(field, typ string, refs []string, outgoing bool) error {
		for _, ref := range refs {
			o, err := resolve(field, ref)
			if err != nil {
				return err
			}
			r := &Relation{Type: typ}
			from, to := is.ID, o.ID
			if outgoing {
				r.RelatedIssueID = o.ID
			} else {
				r.IssueID = o.ID
				from, to = o.ID, is.ID
			}
			if is.ID != "" && has(typ, from, to) != nil {
				continue
			}
			ch.relAdd, ch.changed = append(ch.relAdd, r), true
		}
		return nil
	}
	drop := func(field, typ string, refs []string, outgoing bool) error {
		for _, ref := range refs {
			o, err := resolve(field, ref)
			if err != nil {
				return err
			}
			from, to := is.ID, o.ID
			if !outgoing {
				from, to = o.ID, is.ID
			}
			if r := has(typ, from, to); r != nil {
				ch.relDrop[r], ch.changed = true, true
			}
		}
		return nil
	}
	for _, step := range []error{
		add("blocks", "blocks", in.Blocks, true),
		add("blockedBy", "blocks", in.BlockedBy, false),
		add("relatedTo", "related", in.RelatedTo, true),
		drop("removeBlocks", "blocks", in.RemoveBlocks, true),
		drop("removeBlockedBy", "blocks", in.RemoveBlockedBy, false),
		drop("removeRelatedTo", "related", in.RemoveRelatedTo, true),
	} {
		if step != nil {
			return step
		}
	}
	v, given, null, err := rawRef("duplicateOf", in.DuplicateOf)
	if err != nil || !given {
		return err
	}
	for _, r := range w.Relations {
		if r.Type == "duplicate" && r.IssueID == is.ID && is.ID != "" {
			if !null {
				if o := w.findIssue(v); o != nil && o.ID == r.RelatedIssueID {
					return nil
				}
			}
			ch.relDrop[r], ch.changed = true, true
		}
	}
	if null {
		return nil
	}
	return add("duplicateOf", "duplicate", []string{v}, true)
}

// ArchiveIssueIn is archive_issue's input.
type ArchiveIssueIn struct {
	ID string `json:"id" jsonschema:"Issue ID or identifier (e.g., LIN-123)"`
}

// archiveIssue is GraphQL's issueArchive, which Linear's MCP server has no
// tool for; archived issues stay readable and leave default lists.
var archiveIssue = twins.New(twins.Spec{
	Name: "archive_issue", Title: "Archive issue",
	Description: "Archive a Linear issue (and its sub-issues). Archived issues stay readable by id and leave lists that exclude archived items.",
	Effect:      twins.Destructive,
}, func(ctx context.Context, w *World, in ArchiveIssueIn) (IssueOut, error) {
	is := w.findIssue(in.ID)
	if is == nil {
		return IssueOut{}, errNotFound("Issue", in.ID)
	}
	if is.ArchivedAt != nil {
		twins.Unchanged(ctx)
		return w.issueOut(is), nil
	}
	at := now(ctx)
	var archive func(*Issue)
	archive = func(x *Issue) {
		if x.ArchivedAt == nil {
			a := at
			x.ArchivedAt = &a
			x.UpdatedAt = at
		}
		for _, c := range w.children(x.ID) {
			archive(c)
		}
	}
	archive(is)
	return w.issueOut(is), nil
})
