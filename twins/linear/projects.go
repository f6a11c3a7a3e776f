package linear

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/pomehq/pome/twins"
)

// Projects, documents and Linear's documentation search.

// ProjectOut is a project as the MCP tools answer it.
type ProjectOut struct {
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	Summary     string   `json:"summary"`
	Description string   `json:"description"`
	URL         string   `json:"url"`
	State       string   `json:"state"`
	Priority    int      `json:"priority"`
	Lead        *string  `json:"lead"`
	LeadID      *string  `json:"leadId"`
	Teams       []string `json:"teams"`
	StartDate   *string  `json:"startDate"`
	TargetDate  *string  `json:"targetDate"`
	CreatedAt   string   `json:"createdAt"`
	UpdatedAt   string   `json:"updatedAt"`
	Members     []string `json:"members,omitempty"`
}

func (w *World) projectURL(p *Project) string {
	return "https://linear.app/" + w.Organization.URLKey + "/project/" + slugify(p.Name) + "-" + p.SlugID
}

func (w *World) projectOut(p *Project, members bool) ProjectOut {
	o := ProjectOut{ID: p.ID, Name: p.Name, Summary: p.Summary, Description: p.Description, URL: w.projectURL(p),
		State: p.State, Priority: p.Priority, LeadID: strPtr(p.LeadID), Teams: []string{}, StartDate: strPtr(p.StartDate),
		TargetDate: strPtr(p.TargetDate), CreatedAt: isoTime(p.CreatedAt), UpdatedAt: isoTime(p.UpdatedAt)}
	if u := w.user(p.LeadID); u != nil {
		o.Lead = &u.Name
	}
	for _, id := range p.TeamIDs {
		if t := w.team(id); t != nil {
			o.Teams = append(o.Teams, t.Name)
		}
	}
	if members {
		o.Members = []string{}
		seen := map[string]bool{}
		for _, is := range w.Issues {
			if is.ProjectID == p.ID && is.AssigneeID != "" && !seen[is.AssigneeID] {
				if u := w.user(is.AssigneeID); u != nil {
					seen[u.ID] = true
					o.Members = append(o.Members, u.Name)
				}
			}
		}
	}
	return o
}

// ListProjectsIn is list_projects' input.
type ListProjectsIn struct {
	Limit             int      `json:"limit,omitempty" jsonschema:"Max results (default 50, max 50)"`
	Cursor            string   `json:"cursor,omitempty" jsonschema:"Next page cursor"`
	OrderBy           string   `json:"orderBy,omitempty" jsonschema:"Sort: createdAt | updatedAt" enum:"createdAt,updatedAt"`
	Query             string   `json:"query,omitempty" jsonschema:"Search project name"`
	State             string   `json:"state,omitempty" jsonschema:"State type, name, or ID"`
	Initiative        string   `json:"initiative,omitempty" jsonschema:"Initiative (not modelled: any value matches nothing)"`
	Team              string   `json:"team,omitempty" jsonschema:"Team name or ID"`
	Member            string   `json:"member,omitempty" jsonschema:"User ID, name, email, or \"me\""`
	Label             string   `json:"label,omitempty" jsonschema:"Project label (not modelled: any value matches nothing)"`
	CreatedAt         string   `json:"createdAt,omitempty" jsonschema:"Created after: ISO-8601 date/duration (e.g., -P1D)"`
	UpdatedAt         string   `json:"updatedAt,omitempty" jsonschema:"Updated after: ISO-8601 date/duration (e.g., -P1D)"`
	IncludeMilestones bool     `json:"includeMilestones,omitempty" jsonschema:"Include milestones (not modelled: none)"`
	IncludeMembers    bool     `json:"includeMembers,omitempty" jsonschema:"Include project members"`
	IncludeArchived   bool     `json:"includeArchived,omitempty" jsonschema:"Include archived items"`
	Fields            []string `json:"fields,omitempty" jsonschema:"Fields to include in each result. id is always included." enum:"id,name,summary,description,url,trashed,createdAt,updatedAt,startedAt,completedAt,canceledAt,startDate,startDateResolution,targetDate,targetDateResolution,priority,status,lead,teams,members,labels,milestones,initiatives"`
}

// ListProjectsOut is one page of projects.
type ListProjectsOut struct {
	Projects    []any  `json:"projects"`
	HasNextPage bool   `json:"hasNextPage"`
	Cursor      string `json:"cursor,omitempty"`
}

var listProjects = twins.New(twins.Spec{
	Name: "list_projects", Title: "List projects",
	Description: "List projects in the user's Linear workspace",
	Effect:      twins.Read,
}, func(ctx context.Context, w *World, in ListProjectsIn) (ListProjectsOut, error) {
	if in.Limit > 50 {
		return ListProjectsOut{}, errInvalid("limit", "limit must be at most 50")
	}
	teamID := ""
	if in.Team != "" {
		t := w.findTeam(in.Team)
		if t == nil {
			return ListProjectsOut{}, errNotFound("Team", in.Team)
		}
		teamID = t.ID
	}
	var member *User
	if in.Member != "" {
		if member = w.findUser(in.Member); member == nil {
			return ListProjectsOut{}, errNotFound("User", in.Member)
		}
	}
	var all []*Project
	for _, p := range w.Projects {
		if in.Query != "" && !contains(p.Name, in.Query) || in.State != "" && !strings.EqualFold(p.State, in.State) && p.ID != in.State ||
			teamID != "" && !slices.Contains(p.TeamIDs, teamID) || in.Initiative != "" || in.Label != "" {
			continue
		}
		if member != nil && p.LeadID != member.ID && !slices.Contains(w.projectOut(p, true).Members, member.Name) {
			continue
		}
		ok, err := after(ctx, in.CreatedAt, in.UpdatedAt, p)
		if err != nil {
			return ListProjectsOut{}, err
		}
		if ok {
			all = append(all, p)
		}
	}
	items, next, err := page(sortBy(all, in.OrderBy), in.Limit, in.Cursor)
	if err != nil {
		return ListProjectsOut{}, err
	}
	out := ListProjectsOut{Projects: []any{}, HasNextPage: next != "", Cursor: next}
	for _, p := range items {
		out.Projects = append(out.Projects, onlyFields(w.projectOut(p, in.IncludeMembers), in.Fields))
	}
	return out, nil
})

// GetProjectIn is get_project's input.
type GetProjectIn struct {
	Query             string `json:"query" jsonschema:"Project name, ID, or slug"`
	IncludeMilestones bool   `json:"includeMilestones,omitempty" jsonschema:"Include milestones (not modelled: none)"`
	IncludeMembers    bool   `json:"includeMembers,omitempty" jsonschema:"Include project members"`
	IncludeResources  bool   `json:"includeResources,omitempty" jsonschema:"Include resources (the project's documents)"`
}

// ProjectDetailOut is a project with, on request, its documents.
type ProjectDetailOut struct {
	ProjectOut
	Documents []DocumentOut `json:"documents,omitempty"`
}

var getProject = twins.New(twins.Spec{
	Name: "get_project", Title: "Get project",
	Description: "Retrieve details of a specific project in Linear",
	Effect:      twins.Read,
}, func(ctx context.Context, w *World, in GetProjectIn) (ProjectDetailOut, error) {
	p := w.findProject(in.Query)
	if p == nil {
		return ProjectDetailOut{}, errNotFound("Project", in.Query)
	}
	out := ProjectDetailOut{ProjectOut: w.projectOut(p, in.IncludeMembers)}
	if in.IncludeResources {
		out.Documents = []DocumentOut{}
		for _, d := range w.Documents {
			if d.ProjectID == p.ID {
				out.Documents = append(out.Documents, w.documentOut(d))
			}
		}
	}
	return out, nil
})

// SaveProjectIn is save_project's input.
type SaveProjectIn struct {
	ID                   string          `json:"id,omitempty" jsonschema:"Project name, ID, or slug. If provided, updates the existing project"`
	Name                 string          `json:"name,omitempty" jsonschema:"Project name (required when creating)"`
	Icon                 string          `json:"icon,omitempty" jsonschema:"Icon name or emoji code"`
	Color                string          `json:"color,omitempty" jsonschema:"Hex color"`
	Summary              string          `json:"summary,omitempty" jsonschema:"Short summary (max 255 chars)"`
	Description          *string         `json:"description,omitempty" jsonschema:"Content as Markdown"`
	Patch                []PatchOp       `json:"patch,omitempty" jsonschema:"Partial edits of the description. Only valid on update"`
	State                string          `json:"state,omitempty" jsonschema:"Project state: backlog, planned, started, paused, completed or canceled"`
	StartDate            string          `json:"startDate,omitempty" jsonschema:"Start date (ISO format)"`
	StartDateResolution  string          `json:"startDateResolution,omitempty" jsonschema:"Start date resolution" enum:"halfYear,month,quarter,year"`
	TargetDate           string          `json:"targetDate,omitempty" jsonschema:"Target date (ISO format)"`
	TargetDateResolution string          `json:"targetDateResolution,omitempty" jsonschema:"Target date resolution" enum:"halfYear,month,quarter,year"`
	Priority             *int            `json:"priority,omitempty" jsonschema:"Priority: 0=None, 1=Urgent, 2=High, 3=Medium, 4=Low"`
	AddTeams             []string        `json:"addTeams,omitempty" jsonschema:"Team name or ID to add"`
	RemoveTeams          []string        `json:"removeTeams,omitempty" jsonschema:"Team name or ID to remove"`
	SetTeams             []string        `json:"setTeams,omitempty" jsonschema:"Replace all teams with these. Cannot combine with addTeams/removeTeams"`
	Labels               []string        `json:"labels,omitempty" jsonschema:"Project labels (not modelled)"`
	Lead                 json.RawMessage `json:"lead,omitempty" jsonschema:"User ID, name, email, or \"me\". Null to remove"`
	AddInitiatives       []string        `json:"addInitiatives,omitempty" jsonschema:"Initiatives (not modelled)"`
	RemoveInitiatives    []string        `json:"removeInitiatives,omitempty" jsonschema:"Initiatives (not modelled)"`
	SetInitiatives       []string        `json:"setInitiatives,omitempty" jsonschema:"Initiatives (not modelled)"`
	Links                []LinkIn        `json:"links,omitempty" jsonschema:"External links (not modelled)"`
}

var saveProject = twins.New(twins.Spec{
	Name: "save_project", Title: "Save project",
	Description: "Create or update a Linear project. If `id` is provided, updates the existing project; otherwise creates a new one. " +
		"When creating, `name` and at least one team (via `addTeams` or `setTeams`) are required.",
	Effect: twins.Destructive,
}, func(ctx context.Context, w *World, in SaveProjectIn) (ProjectOut, error) {
	if len(in.Labels)+len(in.AddInitiatives)+len(in.RemoveInitiatives)+len(in.SetInitiatives)+len(in.Links) > 0 {
		return ProjectOut{}, errInvalid("labels", "project labels, initiatives and links are not modelled by Pome's Linear twin")
	}
	if len(in.SetTeams) > 0 && len(in.AddTeams)+len(in.RemoveTeams) > 0 {
		return ProjectOut{}, errInvalid("setTeams", "setTeams cannot be combined with addTeams/removeTeams")
	}
	create := in.ID == ""
	p := &Project{TeamIDs: []string{}, State: "planned"}
	if !create {
		if p = w.findProject(in.ID); p == nil {
			return ProjectOut{}, errNotFound("Project", in.ID)
		}
	} else {
		if strings.TrimSpace(in.Name) == "" {
			return ProjectOut{}, errInvalid("name", "name is required when creating a project")
		}
		if len(in.AddTeams)+len(in.SetTeams) == 0 {
			return ProjectOut{}, errInvalid("addTeams", "at least one team is required when creating a project")
		}
		if len(in.Patch) > 0 {
			return ProjectOut{}, errInvalid("patch", "patch is only valid when updating a project")
		}
	}
	next := *p
	next.TeamIDs = slices.Clone(p.TeamIDs)
	resolveTeams := func(field string, refs []string) ([]string, error) {
		var ids []string
		for _, r := range refs {
			t := w.findTeam(r)
			if t == nil {
				return nil, errNotFound("Team", r)
			}
			ids = append(ids, t.ID)
		}
		return ids, nil
	}
	if len(in.SetTeams) > 0 {
		ids, err := resolveTeams("setTeams", in.SetTeams)
		if err != nil {
			return ProjectOut{}, err
		}
		next.TeamIDs = ids
	}
	add, err := resolveTeams("addTeams", in.AddTeams)
	if err != nil {
		return ProjectOut{}, err
	}
	for _, id := range add {
		if !slices.Contains(next.TeamIDs, id) {
			next.TeamIDs = append(next.TeamIDs, id)
		}
	}
	drop, err := resolveTeams("removeTeams", in.RemoveTeams)
	if err != nil {
		return ProjectOut{}, err
	}
	next.TeamIDs = slices.DeleteFunc(next.TeamIDs, func(id string) bool { return slices.Contains(drop, id) })
	if len(next.TeamIDs) == 0 {
		return ProjectOut{}, errInvalid("removeTeams", "a project needs at least one team")
	}
	if in.Name != "" {
		next.Name = in.Name
	}
	if in.Icon != "" {
		next.Icon = in.Icon
	}
	if in.Color != "" {
		if !colorRE.MatchString(in.Color) {
			return ProjectOut{}, errInvalid("color", "color must be a hex color")
		}
		next.Color = color(in.Color, "")
	}
	if in.Summary != "" {
		if len(in.Summary) > 255 {
			return ProjectOut{}, errInvalid("summary", "summary is at most 255 characters")
		}
		next.Summary = in.Summary
	}
	if in.Description != nil && len(in.Patch) > 0 {
		return ProjectOut{}, errInvalid("patch", "pass either description or patch, not both")
	}
	if in.Description != nil {
		next.Description = *in.Description
	}
	if len(in.Patch) > 0 {
		if next.Description, err = applyPatch(p.Description, in.Patch); err != nil {
			return ProjectOut{}, err
		}
	}
	if in.State != "" {
		st := strings.ToLower(in.State)
		if !slices.Contains(projectStates, st) {
			return ProjectOut{}, errInvalid("state", "state must be one of %s", strings.Join(projectStates, ", "))
		}
		next.State = st
	}
	for _, d := range []struct {
		field, v string
		dst      *string
	}{{"startDate", in.StartDate, &next.StartDate}, {"targetDate", in.TargetDate, &next.TargetDate}} {
		if d.v == "" {
			continue
		}
		if len(d.v) < 10 || !dateRE.MatchString(d.v[:10]) {
			return ProjectOut{}, errInvalid(d.field, "%s must be an ISO date", d.field)
		}
		*d.dst = d.v[:10]
	}
	if in.Priority != nil {
		if *in.Priority < 0 || *in.Priority > 4 {
			return ProjectOut{}, errInvalid("priority", "priority must be 0 to 4")
		}
		next.Priority = *in.Priority
	}
	if v, given, null, err := rawRef("lead", in.Lead); err != nil {
		return ProjectOut{}, err
	} else if given {
		next.LeadID = ""
		if !null {
			u := w.findUser(v)
			if u == nil {
				return ProjectOut{}, errNotFound("User", v)
			}
			next.LeadID = u.ID
		}
	}
	at := now(ctx)
	if create {
		next.ID, next.SlugID, next.CreatedAt, next.UpdatedAt = w.newID(), w.newSlug(), at, at
		np := next
		w.Projects = append(w.Projects, &np)
		return w.projectOut(&np, false), nil
	}
	before, _ := json.Marshal(p)
	after, _ := json.Marshal(&next)
	if string(before) == string(after) {
		twins.Unchanged(ctx)
		return w.projectOut(p, false), nil
	}
	next.UpdatedAt = at
	*p = next
	return w.projectOut(p, false), nil
})

// DocumentOut is a document as the MCP tools answer it.
type DocumentOut struct {
	ID        string  `json:"id"`
	Title     string  `json:"title"`
	Content   string  `json:"content"`
	URL       string  `json:"url"`
	SlugID    string  `json:"slugId"`
	Icon      *string `json:"icon"`
	Color     *string `json:"color"`
	Creator   *string `json:"creator"`
	Project   *string `json:"project"`
	ProjectID *string `json:"projectId"`
	TeamID    *string `json:"teamId"`
	IssueID   *string `json:"issueId"`
	CreatedAt string  `json:"createdAt"`
	UpdatedAt string  `json:"updatedAt"`
}

func (w *World) documentOut(d *Document) DocumentOut {
	o := DocumentOut{ID: d.ID, Title: d.Title, Content: d.Content, SlugID: d.SlugID, Icon: strPtr(d.Icon), Color: strPtr(d.Color),
		ProjectID: strPtr(d.ProjectID), TeamID: strPtr(d.TeamID), IssueID: strPtr(d.IssueID),
		URL:       "https://linear.app/" + w.Organization.URLKey + "/document/" + slugify(d.Title) + "-" + d.SlugID,
		CreatedAt: isoTime(d.CreatedAt), UpdatedAt: isoTime(d.UpdatedAt)}
	if u := w.user(d.CreatorID); u != nil {
		o.Creator = &u.Name
	}
	if p := w.project(d.ProjectID); p != nil {
		o.Project = &p.Name
	}
	return o
}

// GetDocumentIn is get_document's input.
type GetDocumentIn struct {
	ID string `json:"id" jsonschema:"Document ID or slug"`
}

var getDocument = twins.New(twins.Spec{
	Name: "get_document", Title: "Get document",
	Description: "Retrieve a Linear document by ID or slug",
	Effect:      twins.Read,
}, func(ctx context.Context, w *World, in GetDocumentIn) (DocumentOut, error) {
	d := w.document(in.ID)
	if d == nil {
		return DocumentOut{}, errNotFound("Document", in.ID)
	}
	return w.documentOut(d), nil
})

// ListDocumentsIn is list_documents' input.
type ListDocumentsIn struct {
	Limit           int      `json:"limit,omitempty" jsonschema:"Max results (default 50, max 250)"`
	Cursor          string   `json:"cursor,omitempty" jsonschema:"Next page cursor"`
	OrderBy         string   `json:"orderBy,omitempty" jsonschema:"Sort: createdAt | updatedAt" enum:"createdAt,updatedAt"`
	Query           string   `json:"query,omitempty" jsonschema:"Search query"`
	ProjectID       string   `json:"projectId,omitempty" jsonschema:"Filter by project ID"`
	InitiativeID    string   `json:"initiativeId,omitempty" jsonschema:"Filter by initiative ID (not modelled: matches nothing)"`
	TeamID          string   `json:"teamId,omitempty" jsonschema:"Filter by team ID"`
	CreatorID       string   `json:"creatorId,omitempty" jsonschema:"Filter by creator ID"`
	CreatedAt       string   `json:"createdAt,omitempty" jsonschema:"Created after: ISO-8601 date/duration (e.g., -P1D)"`
	UpdatedAt       string   `json:"updatedAt,omitempty" jsonschema:"Updated after: ISO-8601 date/duration (e.g., -P1D)"`
	IncludeArchived bool     `json:"includeArchived,omitempty" jsonschema:"Include archived items"`
	Fields          []string `json:"fields,omitempty" jsonschema:"Fields to include in each result. id is always included." enum:"id,title,content,url,createdAt,updatedAt,archivedAt,creator,updatedBy,project,initiative,team,issue"`
}

// ListDocumentsOut is one page of documents.
type ListDocumentsOut struct {
	Documents   []any  `json:"documents"`
	HasNextPage bool   `json:"hasNextPage"`
	Cursor      string `json:"cursor,omitempty"`
}

var listDocuments = twins.New(twins.Spec{
	Name: "list_documents", Title: "List documents",
	Description: "List documents in the user's Linear workspace",
	Effect:      twins.Read,
}, func(ctx context.Context, w *World, in ListDocumentsIn) (ListDocumentsOut, error) {
	var all []*Document
	for _, d := range w.Documents {
		if in.Query != "" && !contains(d.Title, in.Query) && !contains(d.Content, in.Query) ||
			in.ProjectID != "" && (w.findProject(in.ProjectID) == nil || w.findProject(in.ProjectID).ID != d.ProjectID) ||
			in.TeamID != "" && (w.findTeam(in.TeamID) == nil || w.findTeam(in.TeamID).ID != d.TeamID) ||
			in.CreatorID != "" && d.CreatorID != in.CreatorID || in.InitiativeID != "" {
			continue
		}
		ok, err := after(ctx, in.CreatedAt, in.UpdatedAt, d)
		if err != nil {
			return ListDocumentsOut{}, err
		}
		if ok {
			all = append(all, d)
		}
	}
	items, next, err := page(sortBy(all, in.OrderBy), in.Limit, in.Cursor)
	if err != nil {
		return ListDocumentsOut{}, err
	}
	out := ListDocumentsOut{Documents: []any{}, HasNextPage: next != "", Cursor: next}
	for _, d := range items {
		out.Documents = append(out.Documents, onlyFields(w.documentOut(d), in.Fields))
	}
	return out, nil
})

// SaveDocumentIn is save_document's input.
type SaveDocumentIn struct {
	ID         string    `json:"id,omitempty" jsonschema:"Document ID or slug to update. Omit to create a new document."`
	Title      string    `json:"title,omitempty" jsonschema:"Document title (required when creating)"`
	Content    *string   `json:"content,omitempty" jsonschema:"Content as Markdown"`
	Patch      []PatchOp `json:"patch,omitempty" jsonschema:"Partial edits of the content. Only valid on update"`
	Project    string    `json:"project,omitempty" jsonschema:"Project name, ID, or slug"`
	Issue      string    `json:"issue,omitempty" jsonschema:"Issue ID or identifier (e.g., LIN-123)"`
	Initiative string    `json:"initiative,omitempty" jsonschema:"Initiative (not modelled)"`
	Cycle      string    `json:"cycle,omitempty" jsonschema:"Cycle name, number, or ID; pass team to disambiguate"`
	Team       string    `json:"team,omitempty" jsonschema:"Team name or ID"`
	Icon       string    `json:"icon,omitempty" jsonschema:"Icon name or emoji code"`
	Color      string    `json:"color,omitempty" jsonschema:"Hex color"`
}

var saveDocument = twins.New(twins.Spec{
	Name: "save_document", Title: "Save document",
	Description: "Create or update a Linear document. If `id` is provided, updates the existing document; otherwise creates a new one. " +
		"When creating, `title` is required and exactly one parent (`project`, `issue`, `cycle`, or `team`) must be specified.",
	Effect: twins.Destructive,
}, func(ctx context.Context, w *World, in SaveDocumentIn) (DocumentOut, error) {
	if in.Initiative != "" {
		return DocumentOut{}, errInvalid("initiative", "initiatives are not modelled by Pome's Linear twin")
	}
	create := in.ID == ""
	d := &Document{}
	if !create {
		if d = w.document(in.ID); d == nil {
			return DocumentOut{}, errNotFound("Document", in.ID)
		}
	} else if strings.TrimSpace(in.Title) == "" {
		return DocumentOut{}, errInvalid("title", "title is required when creating a document")
	}
	next := *d
	parents := 0
	if in.Project != "" {
		parents++
		p := w.findProject(in.Project)
		if p == nil {
			return DocumentOut{}, errNotFound("Project", in.Project)
		}
		next.ProjectID, next.IssueID, next.TeamID, next.CycleID = p.ID, "", "", ""
	}
	if in.Issue != "" {
		parents++
		is := w.findIssue(in.Issue)
		if is == nil {
			return DocumentOut{}, errNotFound("Issue", in.Issue)
		}
		next.ProjectID, next.IssueID, next.TeamID, next.CycleID = "", is.ID, "", ""
	}
	if in.Cycle != "" {
		parents++
		teamID := ""
		if in.Team != "" {
			t := w.findTeam(in.Team)
			if t == nil {
				return DocumentOut{}, errNotFound("Team", in.Team)
			}
			teamID = t.ID
		}
		c := w.findCycle(teamID, in.Cycle)
		if c == nil {
			return DocumentOut{}, errNotFound("Cycle", in.Cycle)
		}
		next.ProjectID, next.IssueID, next.TeamID, next.CycleID = "", "", "", c.ID
	} else if in.Team != "" {
		parents++
		t := w.findTeam(in.Team)
		if t == nil {
			return DocumentOut{}, errNotFound("Team", in.Team)
		}
		next.ProjectID, next.IssueID, next.TeamID, next.CycleID = "", "", t.ID, ""
	}
	if parents > 1 || create && parents == 0 {
		return DocumentOut{}, errInvalid("project", "exactly one parent (project, issue, cycle or team) must be specified")
	}
	if in.Title != "" {
		next.Title = in.Title
	}
	if in.Content != nil && len(in.Patch) > 0 {
		return DocumentOut{}, errInvalid("patch", "pass either content or patch, not both")
	}
	if in.Content != nil {
		next.Content = *in.Content
	}
	if len(in.Patch) > 0 {
		if create {
			return DocumentOut{}, errInvalid("patch", "patch is only valid when updating a document")
		}
		c, err := applyPatch(d.Content, in.Patch)
		if err != nil {
			return DocumentOut{}, err
		}
		next.Content = c
	}
	if in.Icon != "" {
		next.Icon = in.Icon
	}
	if in.Color != "" {
		if !colorRE.MatchString(in.Color) {
			return DocumentOut{}, errInvalid("color", "color must be a hex color")
		}
		next.Color = color(in.Color, "")
	}
	at := now(ctx)
	if create {
		next.ID, next.SlugID, next.CreatorID, next.CreatedAt, next.UpdatedAt = w.newID(), w.newSlug(), w.ViewerID, at, at
		nd := next
		w.Documents = append(w.Documents, &nd)
		return w.documentOut(&nd), nil
	}
	if next == *d {
		twins.Unchanged(ctx)
		return w.documentOut(d), nil
	}
	next.UpdatedAt = at
	*d = next
	return w.documentOut(d), nil
})

// SearchDocumentationIn is search_documentation's input.
type SearchDocumentationIn struct {
	Query string `json:"query" jsonschema:"Search query"`
	Page  int    `json:"page,omitempty" jsonschema:"Page number"`
}

// DocResult is one page of Linear's documentation.
type DocResult struct {
	Title   string `json:"title"`
	URL     string `json:"url"`
	Snippet string `json:"snippet"`
}

// SearchDocumentationOut is a page of documentation results.
type SearchDocumentationOut struct {
	Results     []DocResult `json:"results"`
	HasNextPage bool        `json:"hasNextPage"`
}

// linearDocs is a small offline index of Linear's documentation: the
// pages an agent reaches for when it works with issues. The sandbox makes
// no outbound calls, so the search runs over these.
var linearDocs = []DocResult{
	{"Creating issues", "https://linear.app/docs/creating-issues", "Create issues with C, or from the command menu. An issue needs a title and a team; its identifier is the team key and a number (ENG-123)."},
	{"Issue status", "https://linear.app/docs/configuring-workflows", "Each team has its own workflow: statuses of the types Backlog, Unstarted, Started, Completed and Canceled. Issues move between them."},
	{"Labels", "https://linear.app/docs/labels", "Labels are workspace-wide or belong to a team. Label groups gather labels; an issue can carry one label of each group."},
	{"Priority", "https://linear.app/docs/priority", "Priority is No priority (0), Urgent (1), High (2), Medium (3) or Low (4)."},
	{"Estimates", "https://linear.app/docs/estimates", "Teams estimate issues in points (exponential, Fibonacci, linear or t-shirt scales); an estimate is a number on the issue."},
	{"Parent and sub-issues", "https://linear.app/docs/parent-and-sub-issues", "Break an issue into sub-issues; a sub-issue's parent is shown on it, and the parent lists its sub-issues."},
	{"Issue relations", "https://linear.app/docs/issue-relations", "Mark issues as blocking, blocked by, related to or duplicates of other issues."},
	{"Comments", "https://linear.app/docs/comment-on-issues", "Comment on issues in Markdown; reply in a thread to keep a discussion together."},
	{"Cycles", "https://linear.app/docs/use-cycles", "Cycles are a team's time-boxed iterations, numbered in order."},
	{"Projects", "https://linear.app/docs/projects", "Projects group issues across teams toward a goal, with a lead, dates and a state."},
	{"Documents", "https://linear.app/docs/project-documents", "Documents hold specs and notes on projects, teams and issues."},
	{"GraphQL API", "https://linear.app/developers/graphql", "Linear's public API is GraphQL at https://api.linear.app/graphql; authenticate with a personal API key in the Authorization header, or an OAuth token as Bearer."},
	{"Pagination", "https://linear.app/developers/pagination", "Connections follow the Relay spec: first/after and last/before, with pageInfo's endCursor and hasNextPage."},
	{"Filtering", "https://linear.app/developers/filtering", "Filter issues with the filter argument: comparators such as eq, in, contains and containsIgnoreCase on fields like state, assignee and labels."},
}

var searchDocumentation = twins.New(twins.Spec{
	Name: "search_documentation", Title: "Search documentation",
	Description: "Search Linear's documentation to learn about features and usage",
	Effect:      twins.Read,
}, func(ctx context.Context, w *World, in SearchDocumentationIn) (SearchDocumentationOut, error) {
	if strings.TrimSpace(in.Query) == "" {
		return SearchDocumentationOut{}, errInvalid("query", "query must not be empty")
	}
	if in.Page < 0 {
		return SearchDocumentationOut{}, errInvalid("page", "page must not be negative")
	}
	var hits []DocResult
	words := strings.Fields(strings.ToLower(in.Query))
	for _, d := range linearDocs {
		text := strings.ToLower(d.Title + " " + d.Snippet)
		for _, word := range words {
			if strings.Contains(text, strings.TrimSuffix(word, "s")) {
				hits = append(hits, d)
				break
			}
		}
	}
	const per = 5
	from := min(in.Page*per, len(hits))
	to := min(from+per, len(hits))
	return SearchDocumentationOut{Results: append([]DocResult{}, hits[from:to]...), HasNextPage: to < len(hits)}, nil
})
