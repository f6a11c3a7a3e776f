package linear

import (
	"context"
	"slices"
	"strings"

	"github.com/pomehq/pome/twins"
)

// Teams, users, workflow states, labels and cycles.

// TeamOut is a team as the MCP tools answer it.
type TeamOut struct {
	ID          string `json:"id"`
	Key         string `json:"key"`
	Name        string `json:"name"`
	Description string `json:"description"`
	Private     bool   `json:"private"`
	IssueCount  int    `json:"issueCount"`
	CreatedAt   string `json:"createdAt"`
	UpdatedAt   string `json:"updatedAt"`
}

func teamOut(t *Team) TeamOut {
	return TeamOut{ID: t.ID, Key: t.Key, Name: t.Name, Description: t.Description, Private: t.Private,
		IssueCount: t.IssueCount, CreatedAt: isoTime(t.CreatedAt), UpdatedAt: isoTime(t.UpdatedAt)}
}

// ListTeamsIn is list_teams' input.
type ListTeamsIn struct {
	Limit           int    `json:"limit,omitempty" jsonschema:"Max results (default 50, max 250)"`
	Cursor          string `json:"cursor,omitempty" jsonschema:"Next page cursor"`
	OrderBy         string `json:"orderBy,omitempty" jsonschema:"Sort: createdAt | updatedAt" enum:"createdAt,updatedAt"`
	Query           string `json:"query,omitempty" jsonschema:"Search query"`
	IncludeArchived bool   `json:"includeArchived,omitempty" jsonschema:"Include archived items"`
	CreatedAt       string `json:"createdAt,omitempty" jsonschema:"Created after: ISO-8601 date/duration (e.g., -P1D)"`
	UpdatedAt       string `json:"updatedAt,omitempty" jsonschema:"Updated after: ISO-8601 date/duration (e.g., -P1D)"`
}

// ListTeamsOut is one page of teams.
type ListTeamsOut struct {
	Teams       []TeamOut `json:"teams"`
	HasNextPage bool      `json:"hasNextPage"`
	Cursor      string    `json:"cursor,omitempty"`
}

var listTeams = twins.New(twins.Spec{
	Name: "list_teams", Title: "List teams",
	Description: "List teams in the user's Linear workspace",
	Effect:      twins.Read,
}, func(ctx context.Context, w *World, in ListTeamsIn) (ListTeamsOut, error) {
	var all []*Team
	for _, t := range w.Teams {
		if in.Query != "" && !contains(t.Name, in.Query) && !contains(t.Key, in.Query) {
			continue
		}
		ok, err := after(ctx, in.CreatedAt, in.UpdatedAt, t)
		if err != nil {
			return ListTeamsOut{}, err
		}
		if ok {
			all = append(all, t)
		}
	}
	items, next, err := page(sortBy(all, in.OrderBy), in.Limit, in.Cursor)
	if err != nil {
		return ListTeamsOut{}, err
	}
	out := ListTeamsOut{Teams: []TeamOut{}, HasNextPage: next != "", Cursor: next}
	for _, t := range items {
		out.Teams = append(out.Teams, teamOut(t))
	}
	return out, nil
})

// after applies the createdAt/updatedAt "after" filters.
func after(ctx context.Context, created, updated string, x timed) (bool, error) {
	if created != "" {
		t, err := since("createdAt", created, now(ctx))
		if err != nil {
			return false, err
		}
		if x.created().Before(t) {
			return false, nil
		}
	}
	if updated != "" {
		t, err := since("updatedAt", updated, now(ctx))
		if err != nil {
			return false, err
		}
		if x.updated().Before(t) {
			return false, nil
		}
	}
	return true, nil
}

// GetTeamIn is get_team's input.
type GetTeamIn struct {
	Query string `json:"query" jsonschema:"Team UUID, key, or name"`
}

// TeamDetailOut is a team with its workflow states and labels.
type TeamDetailOut struct {
	TeamOut
	States []StateOut `json:"states"`
	Labels []LabelOut `json:"labels"`
}

var getTeam = twins.New(twins.Spec{
	Name: "get_team", Title: "Get team",
	Description: "Retrieve details of a specific Linear team",
	Effect:      twins.Read,
}, func(ctx context.Context, w *World, in GetTeamIn) (TeamDetailOut, error) {
	t := w.findTeam(in.Query)
	if t == nil {
		return TeamDetailOut{}, errNotFound("Team", in.Query)
	}
	out := TeamDetailOut{TeamOut: teamOut(t), States: []StateOut{}, Labels: []LabelOut{}}
	for _, s := range t.sortedStates() {
		out.States = append(out.States, stateOut(s))
	}
	for _, l := range w.Labels {
		if l.TeamID == t.ID {
			out.Labels = append(out.Labels, w.labelOut(l))
		}
	}
	return out, nil
})

// UserOut is a user as the MCP tools answer it.
type UserOut struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	DisplayName string `json:"displayName"`
	Email       string `json:"email"`
	Active      bool   `json:"active"`
	Admin       bool   `json:"admin"`
	App         bool   `json:"app"`
	IsMe        bool   `json:"isMe"`
	CreatedAt   string `json:"createdAt"`
}

func (w *World) userOut(u *User) UserOut {
	return UserOut{ID: u.ID, Name: u.Name, DisplayName: u.DisplayName, Email: u.Email, Active: u.Active,
		Admin: u.Admin, App: u.App, IsMe: u.ID == w.ViewerID, CreatedAt: isoTime(u.CreatedAt)}
}

// ListUsersIn is list_users' input.
type ListUsersIn struct {
	Limit   int    `json:"limit,omitempty" jsonschema:"Max results (default 50, max 250)"`
	Cursor  string `json:"cursor,omitempty" jsonschema:"Next page cursor"`
	OrderBy string `json:"orderBy,omitempty" jsonschema:"Sort: createdAt | updatedAt" enum:"createdAt,updatedAt"`
	Query   string `json:"query,omitempty" jsonschema:"Filter by name or email"`
	Team    string `json:"team,omitempty" jsonschema:"Team name or ID"`
}

// ListUsersOut is one page of users.
type ListUsersOut struct {
	Users       []UserOut `json:"users"`
	HasNextPage bool      `json:"hasNextPage"`
	Cursor      string    `json:"cursor,omitempty"`
}

var listUsers = twins.New(twins.Spec{
	Name: "list_users", Title: "List users",
	Description: "Retrieve users in the Linear workspace",
	Effect:      twins.Read,
}, func(ctx context.Context, w *World, in ListUsersIn) (ListUsersOut, error) {
	if in.Team != "" && w.findTeam(in.Team) == nil {
		return ListUsersOut{}, errNotFound("Team", in.Team)
	}
	var all []*User
	for _, u := range w.Users {
		if in.Query == "" || contains(u.Name, in.Query) || contains(u.DisplayName, in.Query) || contains(u.Email, in.Query) {
			all = append(all, u)
		}
	}
	items, next, err := page(sortBy(all, in.OrderBy), in.Limit, in.Cursor)
	if err != nil {
		return ListUsersOut{}, err
	}
	out := ListUsersOut{Users: []UserOut{}, HasNextPage: next != "", Cursor: next}
	for _, u := range items {
		out.Users = append(out.Users, w.userOut(u))
	}
	return out, nil
})

// GetUserIn is get_user's input.
type GetUserIn struct {
	Query string `json:"query" jsonschema:"User ID, name, email, or \"me\""`
}

var getUser = twins.New(twins.Spec{
	Name: "get_user", Title: "Get user",
	Description: "Retrieve details of a specific Linear user",
	Effect:      twins.Read,
}, func(ctx context.Context, w *World, in GetUserIn) (UserOut, error) {
	u := w.findUser(in.Query)
	if u == nil {
		return UserOut{}, errNotFound("User", in.Query)
	}
	return w.userOut(u), nil
})

// StateOut is a workflow state.
type StateOut struct {
	ID       string  `json:"id"`
	Name     string  `json:"name"`
	Type     string  `json:"type"`
	Color    string  `json:"color"`
	Position float64 `json:"position"`
	TeamID   string  `json:"teamId"`
}

func stateOut(s *State) StateOut {
	return StateOut{ID: s.ID, Name: s.Name, Type: s.Type, Color: s.Color, Position: s.Position, TeamID: s.TeamID}
}

// ListIssueStatusesIn is list_issue_statuses' input.
type ListIssueStatusesIn struct {
	Team string `json:"team" jsonschema:"Team name or ID"`
}

// ListIssueStatusesOut is a team's workflow.
type ListIssueStatusesOut struct {
	Statuses []StateOut `json:"statuses"`
}

var listIssueStatuses = twins.New(twins.Spec{
	Name: "list_issue_statuses", Title: "List issue statuses",
	Description: "List available issue statuses in a Linear team",
	Effect:      twins.Read,
}, func(ctx context.Context, w *World, in ListIssueStatusesIn) (ListIssueStatusesOut, error) {
	t := w.findTeam(in.Team)
	if t == nil {
		return ListIssueStatusesOut{}, errNotFound("Team", in.Team)
	}
	out := ListIssueStatusesOut{Statuses: []StateOut{}}
	for _, s := range t.sortedStates() {
		out.Statuses = append(out.Statuses, stateOut(s))
	}
	return out, nil
})

// GetIssueStatusIn is get_issue_status' input: Linear's server lists all
// three as required; a status is found by id, or by name in the team.
type GetIssueStatusIn struct {
	ID   string `json:"id" jsonschema:"Status ID"`
	Name string `json:"name" jsonschema:"Status name"`
	Team string `json:"team" jsonschema:"Team name or ID"`
}

var getIssueStatus = twins.New(twins.Spec{
	Name: "get_issue_status", Title: "Get issue status",
	Description: "Retrieve detailed information about an issue status in Linear by name or ID",
	Effect:      twins.Read,
}, func(ctx context.Context, w *World, in GetIssueStatusIn) (StateOut, error) {
	t := w.findTeam(in.Team)
	if t == nil {
		return StateOut{}, errNotFound("Team", in.Team)
	}
	for _, ref := range []string{in.ID, in.Name} {
		if ref == "" {
			continue
		}
		for _, s := range t.States {
			if s.ID == ref || strings.EqualFold(s.Name, ref) {
				return stateOut(s), nil
			}
		}
	}
	return StateOut{}, errNotFound("WorkflowState", cmpOr(in.ID, in.Name))
})

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// LabelOut is an issue label.
type LabelOut struct {
	ID          string  `json:"id"`
	Name        string  `json:"name"`
	Color       string  `json:"color"`
	Description string  `json:"description"`
	IsGroup     bool    `json:"isGroup"`
	Parent      *string `json:"parent"`
	TeamID      *string `json:"teamId"`
	Team        *string `json:"team"`
}

func (w *World) labelOut(l *Label) LabelOut {
	o := LabelOut{ID: l.ID, Name: l.Name, Color: l.Color, Description: l.Description, IsGroup: l.IsGroup, TeamID: strPtr(l.TeamID)}
	if p := w.label(l.ParentID); p != nil {
		o.Parent = &p.Name
	}
	if t := w.team(l.TeamID); t != nil {
		o.Team = &t.Name
	}
	return o
}

// ListIssueLabelsIn is list_issue_labels' input.
type ListIssueLabelsIn struct {
	Limit   int    `json:"limit,omitempty" jsonschema:"Max results (default 50, max 250)"`
	Cursor  string `json:"cursor,omitempty" jsonschema:"Next page cursor"`
	OrderBy string `json:"orderBy,omitempty" jsonschema:"Sort: createdAt | updatedAt" enum:"createdAt,updatedAt"`
	Name    string `json:"name,omitempty" jsonschema:"Filter by name"`
	Team    string `json:"team,omitempty" jsonschema:"Team name or ID"`
}

// ListIssueLabelsOut is one page of labels.
type ListIssueLabelsOut struct {
	Labels      []LabelOut `json:"labels"`
	HasNextPage bool       `json:"hasNextPage"`
	Cursor      string     `json:"cursor,omitempty"`
}

var listIssueLabels = twins.New(twins.Spec{
	Name: "list_issue_labels", Title: "List issue labels",
	Description: "List available issue labels in a Linear workspace or team (a team's list holds its own labels and the workspace's)",
	Effect:      twins.Read,
}, func(ctx context.Context, w *World, in ListIssueLabelsIn) (ListIssueLabelsOut, error) {
	teamID := ""
	if in.Team != "" {
		t := w.findTeam(in.Team)
		if t == nil {
			return ListIssueLabelsOut{}, errNotFound("Team", in.Team)
		}
		teamID = t.ID
	}
	var all []*Label
	for _, l := range w.Labels {
		if teamID != "" && l.TeamID != "" && l.TeamID != teamID {
			continue
		}
		if in.Name != "" && !contains(l.Name, in.Name) {
			continue
		}
		all = append(all, l)
	}
	items, next, err := page(sortBy(all, in.OrderBy), in.Limit, in.Cursor)
	if err != nil {
		return ListIssueLabelsOut{}, err
	}
	out := ListIssueLabelsOut{Labels: []LabelOut{}, HasNextPage: next != "", Cursor: next}
	for _, l := range items {
		out.Labels = append(out.Labels, w.labelOut(l))
	}
	return out, nil
})

// CreateIssueLabelIn is create_issue_label's input.
type CreateIssueLabelIn struct {
	Name        string `json:"name" jsonschema:"Label name"`
	Description string `json:"description,omitempty" jsonschema:"Label description"`
	Color       string `json:"color,omitempty" jsonschema:"Hex color code"`
	TeamID      string `json:"teamId,omitempty" jsonschema:"Team UUID (omit for workspace label)"`
	Parent      string `json:"parent,omitempty" jsonschema:"Parent label group name"`
	IsGroup     bool   `json:"isGroup,omitempty" jsonschema:"Is label group (not directly applicable)"`
}

var createIssueLabel = twins.New(twins.Spec{
	Name: "create_issue_label", Title: "Create issue label",
	Description: "Create a new Linear issue label",
	Effect:      twins.Write,
}, func(ctx context.Context, w *World, in CreateIssueLabelIn) (LabelOut, error) {
	name := strings.TrimSpace(in.Name)
	if name == "" {
		return LabelOut{}, errInvalid("name", "name must not be empty")
	}
	if in.Color != "" && !colorRE.MatchString(in.Color) {
		return LabelOut{}, errInvalid("color", "color must be a hex color such as #eb5757")
	}
	teamID := ""
	if in.TeamID != "" {
		t := w.findTeam(in.TeamID)
		if t == nil {
			return LabelOut{}, errNotFound("Team", in.TeamID)
		}
		teamID = t.ID
	}
	// Linear refuses a name its scope (or, for a team label, the
	// workspace) already uses.
	for _, l := range w.Labels {
		if strings.EqualFold(l.Name, name) && (l.TeamID == teamID || l.TeamID == "" || teamID == "") {
			return LabelOut{}, twins.Errorf(twins.Conflict, "duplicate_label", "Duplicate label name: a label named %q already exists.", l.Name).WithField("name")
		}
	}
	parentID := ""
	if in.Parent != "" {
		var par *Label
		for _, l := range w.Labels {
			if l.IsGroup && strings.EqualFold(l.Name, in.Parent) && (l.TeamID == teamID || l.TeamID == "") {
				par = l
			}
		}
		if par == nil {
			return LabelOut{}, errNotFound("IssueLabel", in.Parent)
		}
		parentID = par.ID
	}
	at := now(ctx)
	l := &Label{ID: w.newID(), Name: name, Color: color(in.Color, "#bec2c8"), Description: in.Description,
		TeamID: teamID, ParentID: parentID, IsGroup: in.IsGroup, CreatedAt: at, UpdatedAt: at}
	w.Labels = append(w.Labels, l)
	return w.labelOut(l), nil
})

// CycleOut is a cycle.
type CycleOut struct {
	ID       string  `json:"id"`
	Number   int     `json:"number"`
	Name     *string `json:"name"`
	StartsAt *string `json:"startsAt"`
	EndsAt   *string `json:"endsAt"`
	TeamID   string  `json:"teamId"`
}

// ListCyclesIn is list_cycles' input.
type ListCyclesIn struct {
	TeamID string `json:"teamId" jsonschema:"Team ID"`
	Type   string `json:"type,omitempty" jsonschema:"Filter: current, previous, next, or all" enum:"current,previous,next"`
}

// ListCyclesOut is a team's cycles.
type ListCyclesOut struct {
	Cycles []CycleOut `json:"cycles"`
}

var listCycles = twins.New(twins.Spec{
	Name: "list_cycles", Title: "List cycles",
	Description: "Retrieve cycles for a specific Linear team",
	Effect:      twins.Read,
}, func(ctx context.Context, w *World, in ListCyclesIn) (ListCyclesOut, error) {
	t := w.findTeam(in.TeamID)
	if t == nil {
		return ListCyclesOut{}, errNotFound("Team", in.TeamID)
	}
	at := now(ctx)
	var cs []*Cycle
	for _, c := range w.Cycles {
		if c.TeamID == t.ID {
			cs = append(cs, c)
		}
	}
	slices.SortFunc(cs, func(a, b *Cycle) int { return a.Number - b.Number })
	current := -1
	for i, c := range cs {
		if c.StartsAt != nil && c.EndsAt != nil && !at.Before(*c.StartsAt) && at.Before(*c.EndsAt) {
			current = i
		}
	}
	out := ListCyclesOut{Cycles: []CycleOut{}}
	for i, c := range cs {
		switch in.Type {
		case "current":
			if i != current {
				continue
			}
		case "previous":
			if current < 0 || i != current-1 {
				continue
			}
		case "next":
			if current < 0 || i != current+1 {
				continue
			}
		}
		out.Cycles = append(out.Cycles, CycleOut{ID: c.ID, Number: c.Number, Name: strPtr(c.Name), StartsAt: isoPtr(c.StartsAt), EndsAt: isoPtr(c.EndsAt), TeamID: c.TeamID})
	}
	return out, nil
})
