package linear

import (
	"slices"
	"strings"

	graphql "github.com/graph-gophers/graphql-go"
)

// The object types the twin models, each a resolver over one record of the
// world. Every one embeds the type's stub (gql_stubs.go): the fields the
// twin does not model read from it as their zero value, and the methods
// here take precedence over it.

// issueR resolves Issue.
type issueR struct {
	genIssue
	s  *gqlState
	is *Issue
}

func (s *gqlState) issueR(is *Issue) *issueR {
	if is == nil {
		return nil
	}
	return &issueR{s: s, is: is}
}

func (r *issueR) ID() graphql.ID        { return graphql.ID(r.is.ID) }
func (r *issueR) Identifier() string    { return r.is.Identifier }
func (r *issueR) Title() string         { return r.is.Title }
func (r *issueR) Number() float64       { return float64(r.is.Number) }
func (r *issueR) Priority() float64     { return float64(r.is.Priority) }
func (r *issueR) PriorityLabel() string { return priorityLabel(r.is.Priority) }
func (r *issueR) Estimate() *float64    { return r.is.Estimate }
func (r *issueR) URL() string           { return r.s.w.issueURL(r.is) }
func (r *issueR) BranchName() string    { return r.s.w.gitBranchName(r.is) }
func (r *issueR) LabelIds() []string    { return slices.Clone(r.is.LabelIDs) }
func (r *issueR) CreatedAt() gqlTime    { return timeOf(r.is.CreatedAt) }
func (r *issueR) UpdatedAt() gqlTime    { return timeOf(r.is.UpdatedAt) }
func (r *issueR) ArchivedAt() *gqlTime  { return timePtr(r.is.ArchivedAt) }
func (r *issueR) StartedAt() *gqlTime   { return timePtr(r.is.StartedAt) }
func (r *issueR) CompletedAt() *gqlTime { return timePtr(r.is.CompletedAt) }
func (r *issueR) CanceledAt() *gqlTime  { return timePtr(r.is.CanceledAt) }
func (r *issueR) AddedToTeamAt() *gqlTime {
	return timePtr(&r.is.CreatedAt)
}
func (r *issueR) SortOrder() float64  { return r.is.SortOrder }
func (r *issueR) BoardOrder() float64 { return r.is.SortOrder }
func (r *issueR) PrioritySortOrder() float64 {
	return float64(r.is.Priority)
}
func (r *issueR) Trashed() *bool {
	f := false
	return &f
}
func (r *issueR) Description() *string {
	if r.is.Description == "" {
		return nil
	}
	d := r.is.Description
	return &d
}
func (r *issueR) DueDate() *gqlDate {
	if r.is.DueDate == "" {
		return nil
	}
	d := gqlDate(r.is.DueDate)
	return &d
}
func (r *issueR) Team() *teamR                  { return r.s.teamR(r.s.w.team(r.is.TeamID)) }
func (r *issueR) State() *stateR                { return r.s.stateR(r.s.w.state(r.is.StateID)) }
func (r *issueR) Assignee() *userR              { return r.s.userR(r.s.w.user(r.is.AssigneeID)) }
func (r *issueR) Creator() *userR               { return r.s.userR(r.s.w.user(r.is.CreatorID)) }
func (r *issueR) Delegate() *userR              { return r.s.userR(r.s.w.user(r.is.DelegateID)) }
func (r *issueR) AsksRequester() *userR         { return nil }
func (r *issueR) SnoozedBy() *userR             { return nil }
func (r *issueR) SourceComment() *commentR      { return nil }
func (r *issueR) Parent() *issueR               { return r.s.issueR(r.s.w.issue(r.is.ParentID)) }
func (r *issueR) Project() *projectR            { return r.s.projectR(r.s.w.project(r.is.ProjectID)) }
func (r *issueR) Cycle() *cycleR                { return r.s.cycleR(r.s.w.cycle(r.is.CycleID)) }
func (r *issueR) PreviousIdentifiers() []string { return []string{} }

func (r *issueR) Labels(a labelConnArgs) (*conn[*labelR], error) {
	var ls []*Label
	for _, id := range r.is.LabelIDs {
		if l := r.s.w.label(id); l != nil {
			ls = append(ls, l)
		}
	}
	return r.s.labelConn(ls, a)
}

func (r *issueR) Comments(a commentConnArgs) (*conn[*commentR], error) {
	r.s.stamp("list_comments", rankList)
	return r.s.commentConn(r.s.w.issueComments(r.is.ID), a)
}

func (r *issueR) Children(a issueConnArgs) (*conn[*issueR], error) {
	return r.s.issueConn(r.s.w.children(r.is.ID), a.pageArgs, a.Filter, nil)
}

func (r *issueR) Relations(a pageArgs) (*conn[*relationR], error) {
	return r.s.relationConn(func(rel *Relation) bool { return rel.IssueID == r.is.ID }, a)
}

func (r *issueR) InverseRelations(a pageArgs) (*conn[*relationR], error) {
	return r.s.relationConn(func(rel *Relation) bool { return rel.RelatedIssueID == r.is.ID }, a)
}

// issueSearchR resolves IssueSearchResult: an issue found by a search.
type issueSearchR struct {
	*issueR
	genIssueSearchResult
}

// teamR resolves Team.
type teamR struct {
	genTeam
	s *gqlState
	t *Team
}

func (s *gqlState) teamR(t *Team) *teamR {
	if t == nil {
		return nil
	}
	return &teamR{s: s, t: t}
}

func (r *teamR) ID() graphql.ID       { return graphql.ID(r.t.ID) }
func (r *teamR) Key() string          { return r.t.Key }
func (r *teamR) Name() string         { return r.t.Name }
func (r *teamR) DisplayName() string  { return r.t.Name }
func (r *teamR) Private() bool        { return r.t.Private }
func (r *teamR) IssueCount() int32    { return int32(r.t.IssueCount) }
func (r *teamR) CreatedAt() gqlTime   { return timeOf(r.t.CreatedAt) }
func (r *teamR) UpdatedAt() gqlTime   { return timeOf(r.t.UpdatedAt) }
func (r *teamR) ViewerCanLeave() bool { return true }
func (r *teamR) Visibility() string {
	if r.t.Private {
		return "private"
	}
	return "public"
}
func (r *teamR) Timezone() string { return "America/Los_Angeles" }
func (r *teamR) Description() *string {
	if r.t.Description == "" {
		return nil
	}
	d := r.t.Description
	return &d
}
func (r *teamR) DefaultIssueState() *stateR { return r.s.stateR(r.t.defaultState()) }
func (r *teamR) StartWorkflowState() *stateR {
	return r.s.stateR(r.t.findState(StateStarted))
}
func (r *teamR) MarkedAsDuplicateWorkflowState() *stateR {
	return r.s.stateR(r.t.findState("Duplicate"))
}
func (r *teamR) TriageIssueState() *stateR       { return r.s.stateR(r.t.findState(StateTriage)) }
func (r *teamR) ActiveCycle() *cycleR            { return nil }
func (r *teamR) Parent() *teamR                  { return nil }
func (r *teamR) MergeWorkflowState() *stateR     { return nil }
func (r *teamR) DraftWorkflowState() *stateR     { return nil }
func (r *teamR) MergeableWorkflowState() *stateR { return nil }
func (r *teamR) ReviewWorkflowState() *stateR    { return nil }
func (r *teamR) Organization() *orgR             { return &orgR{s: r.s} }

func (r *teamR) States(a stateConnArgs) (*conn[*stateR], error) {
	r.s.stamp("list_issue_statuses", rankList)
	return r.s.stateConn(r.t.sortedStates(), a)
}

func (r *teamR) Labels(a labelConnArgs) (*conn[*labelR], error) {
	r.s.stamp("list_issue_labels", rankList)
	var ls []*Label
	for _, l := range r.s.w.Labels {
		if l.TeamID == r.t.ID {
			ls = append(ls, l)
		}
	}
	return r.s.labelConn(ls, a)
}

func (r *teamR) Issues(a teamIssueConnArgs) (*conn[*issueR], error) {
	r.s.stamp("list_issues", rankList)
	var all []*Issue
	for _, is := range r.s.w.Issues {
		if is.TeamID == r.t.ID {
			all = append(all, is)
		}
	}
	return r.s.issueConn(all, a.pageArgs, a.Filter, nil)
}

func (r *teamR) Members(a userConnArgs) (*conn[*userR], error) {
	r.s.stamp("list_users", rankList)
	return r.s.userConn(r.s.w.Users, a)
}

func (r *teamR) Cycles(a cycleConnArgs) (*conn[*cycleR], error) {
	r.s.stamp("list_cycles", rankList)
	var cs []*Cycle
	for _, c := range r.s.w.Cycles {
		if c.TeamID == r.t.ID {
			cs = append(cs, c)
		}
	}
	return r.s.cycleConn(cs, a)
}

func (r *teamR) Projects(a teamProjectConnArgs) (*conn[*projectR], error) {
	r.s.stamp("list_projects", rankList)
	var ps []*Project
	for _, p := range r.s.w.Projects {
		if slices.Contains(p.TeamIDs, r.t.ID) {
			ps = append(ps, p)
		}
	}
	return r.s.projectConn(ps, a.projectConnArgs)
}

// userR resolves User.
type userR struct {
	genUser
	s *gqlState
	u *User
}

func (s *gqlState) userR(u *User) *userR {
	if u == nil {
		return nil
	}
	return &userR{s: s, u: u}
}

func (r *userR) ID() graphql.ID               { return graphql.ID(r.u.ID) }
func (r *userR) Name() string                 { return r.u.Name }
func (r *userR) DisplayName() string          { return r.u.DisplayName }
func (r *userR) Email() string                { return r.u.Email }
func (r *userR) Active() bool                 { return r.u.Active }
func (r *userR) Admin() bool                  { return r.u.Admin }
func (r *userR) App() bool                    { return r.u.App }
func (r *userR) IsMe() bool                   { return r.u.ID == r.s.w.ViewerID }
func (r *userR) IsAssignable() bool           { return r.u.Active }
func (r *userR) IsMentionable() bool          { return r.u.Active }
func (r *userR) CanAccessAnyPublicTeam() bool { return true }
func (r *userR) CreatedAt() gqlTime           { return timeOf(r.u.CreatedAt) }
func (r *userR) UpdatedAt() gqlTime           { return timeOf(r.u.CreatedAt) }
func (r *userR) URL() string {
	return "https://linear.app/" + r.s.w.Organization.URLKey + "/profiles/" + slugify(r.u.DisplayName)
}
func (r *userR) Initials() string {
	var b strings.Builder
	for _, f := range strings.Fields(r.u.Name) {
		b.WriteString(strings.ToUpper(f[:1]))
	}
	return b.String()
}
func (r *userR) CreatedIssueCount() int32 {
	n := 0
	for _, is := range r.s.w.Issues {
		if is.CreatorID == r.u.ID {
			n++
		}
	}
	return int32(n)
}

func (r *userR) AssignedIssues(a issueConnArgs) (*conn[*issueR], error) {
	r.s.stamp("list_issues", rankList)
	var all []*Issue
	for _, is := range r.s.w.Issues {
		if is.AssigneeID == r.u.ID {
			all = append(all, is)
		}
	}
	return r.s.issueConn(all, a.pageArgs, a.Filter, nil)
}

// stateR resolves WorkflowState.
type stateR struct {
	genWorkflowState
	s  *gqlState
	st *State
}

func (s *gqlState) stateR(st *State) *stateR {
	if st == nil {
		return nil
	}
	return &stateR{s: s, st: st}
}

func (r *stateR) ID() graphql.ID         { return graphql.ID(r.st.ID) }
func (r *stateR) Name() string           { return r.st.Name }
func (r *stateR) Type() string           { return r.st.Type }
func (r *stateR) Color() string          { return r.st.Color }
func (r *stateR) Position() float64      { return r.st.Position }
func (r *stateR) CreatedAt() gqlTime     { return timeOf(r.st.CreatedAt) }
func (r *stateR) UpdatedAt() gqlTime     { return timeOf(r.st.CreatedAt) }
func (r *stateR) Team() *teamR           { return r.s.teamR(r.s.w.team(r.st.TeamID)) }
func (r *stateR) InheritedFrom() *stateR { return nil }
func (r *stateR) Description() *string {
	if r.st.Description == "" {
		return nil
	}
	d := r.st.Description
	return &d
}

// labelR resolves IssueLabel.
type labelR struct {
	genIssueLabel
	s *gqlState
	l *Label
}

func (s *gqlState) labelR(l *Label) *labelR {
	if l == nil {
		return nil
	}
	return &labelR{s: s, l: l}
}

func (r *labelR) ID() graphql.ID         { return graphql.ID(r.l.ID) }
func (r *labelR) Name() string           { return r.l.Name }
func (r *labelR) Color() string          { return r.l.Color }
func (r *labelR) IsGroup() bool          { return r.l.IsGroup }
func (r *labelR) CreatedAt() gqlTime     { return timeOf(r.l.CreatedAt) }
func (r *labelR) UpdatedAt() gqlTime     { return timeOf(r.l.UpdatedAt) }
func (r *labelR) Team() *teamR           { return r.s.teamR(r.s.w.team(r.l.TeamID)) }
func (r *labelR) Parent() *labelR        { return r.s.labelR(r.s.w.label(r.l.ParentID)) }
func (r *labelR) InheritedFrom() *labelR { return nil }
func (r *labelR) Creator() *userR        { return nil }
func (r *labelR) RetiredBy() *userR      { return nil }
func (r *labelR) Description() *string {
	if r.l.Description == "" {
		return nil
	}
	d := r.l.Description
	return &d
}

func (r *labelR) Issues(a issueConnArgs) (*conn[*issueR], error) {
	r.s.stamp("list_issues", rankList)
	var all []*Issue
	for _, is := range r.s.w.Issues {
		if slices.Contains(is.LabelIDs, r.l.ID) {
			all = append(all, is)
		}
	}
	return r.s.issueConn(all, a.pageArgs, a.Filter, nil)
}

// commentR resolves Comment.
type commentR struct {
	genComment
	s *gqlState
	c *Comment
}

func (s *gqlState) commentR(c *Comment) *commentR {
	if c == nil {
		return nil
	}
	return &commentR{s: s, c: c}
}

func (r *commentR) ID() graphql.ID              { return graphql.ID(r.c.ID) }
func (r *commentR) Body() string                { return r.c.Body }
func (r *commentR) CreatedAt() gqlTime          { return timeOf(r.c.CreatedAt) }
func (r *commentR) UpdatedAt() gqlTime          { return timeOf(r.c.UpdatedAt) }
func (r *commentR) EditedAt() *gqlTime          { return timePtr(r.c.EditedAt) }
func (r *commentR) IssueID() *string            { return strPtr(r.c.IssueID) }
func (r *commentR) ParentID() *string           { return strPtr(r.c.ParentID) }
func (r *commentR) Issue() *issueR              { return r.s.issueR(r.s.w.issue(r.c.IssueID)) }
func (r *commentR) Parent() *commentR           { return r.s.commentR(r.s.w.comment(r.c.ParentID)) }
func (r *commentR) User() *userR                { return r.s.userR(r.s.w.user(r.c.UserID)) }
func (r *commentR) ResolvingComment() *commentR { return nil }
func (r *commentR) ResolvingUser() *userR       { return nil }
func (r *commentR) Project() *projectR          { return nil }
func (r *commentR) URL() string {
	if is := r.s.w.issue(r.c.IssueID); is != nil {
		return r.s.w.issueURL(is) + "#comment-" + r.c.ID[:min(8, len(r.c.ID))]
	}
	return ""
}

func (r *commentR) Children(a commentConnArgs) (*conn[*commentR], error) {
	var cs []*Comment
	for _, c := range r.s.w.Comments {
		if c.ParentID == r.c.ID {
			cs = append(cs, c)
		}
	}
	return r.s.commentConn(cs, a)
}

// projectR resolves Project.
type projectR struct {
	genProject
	s *gqlState
	p *Project
}

func (s *gqlState) projectR(p *Project) *projectR {
	if p == nil {
		return nil
	}
	return &projectR{s: s, p: p}
}

func (r *projectR) ID() graphql.ID              { return graphql.ID(r.p.ID) }
func (r *projectR) Name() string                { return r.p.Name }
func (r *projectR) Description() string         { return r.p.Description }
func (r *projectR) SlugID() string              { return r.p.SlugID }
func (r *projectR) State() string               { return r.p.State }
func (r *projectR) Priority() int32             { return int32(r.p.Priority) }
func (r *projectR) PriorityLabel() string       { return priorityLabel(r.p.Priority) }
func (r *projectR) Color() string               { return color(r.p.Color, "#bec2c8") }
func (r *projectR) URL() string                 { return r.s.w.projectURL(r.p) }
func (r *projectR) CreatedAt() gqlTime          { return timeOf(r.p.CreatedAt) }
func (r *projectR) UpdatedAt() gqlTime          { return timeOf(r.p.UpdatedAt) }
func (r *projectR) Lead() *userR                { return r.s.userR(r.s.w.user(r.p.LeadID)) }
func (r *projectR) Creator() *userR             { return nil }
func (r *projectR) ConvertedFromIssue() *issueR { return nil }
func (r *projectR) Status() *projectStatusR {
	typ := r.p.State
	return &projectStatusR{genProjectStatus: genProjectStatus{GId: graphql.ID("status-" + typ), GName: strings.ToUpper(typ[:1]) + typ[1:], GColor: "#bec2c8"}, typ: typ}
}

// projectStatusR resolves ProjectStatus: a project's state.
type projectStatusR struct {
	genProjectStatus
	typ string
}

func (r *projectStatusR) Type() string { return r.typ }

func (r *projectR) Issues(a issueConnArgs) (*conn[*issueR], error) {
	r.s.stamp("list_issues", rankList)
	var all []*Issue
	for _, is := range r.s.w.Issues {
		if is.ProjectID == r.p.ID {
			all = append(all, is)
		}
	}
	return r.s.issueConn(all, a.pageArgs, a.Filter, nil)
}

func (r *projectR) Teams(a teamConnArgs) (*conn[*teamR], error) {
	var ts []*Team
	for _, id := range r.p.TeamIDs {
		if t := r.s.w.team(id); t != nil {
			ts = append(ts, t)
		}
	}
	return r.s.teamConn(ts, a)
}

// cycleR resolves Cycle.
type cycleR struct {
	genCycle
	s *gqlState
	c *Cycle
}

func (s *gqlState) cycleR(c *Cycle) *cycleR {
	if c == nil {
		return nil
	}
	return &cycleR{s: s, c: c}
}

func (r *cycleR) ID() graphql.ID         { return graphql.ID(r.c.ID) }
func (r *cycleR) Number() float64        { return float64(r.c.Number) }
func (r *cycleR) Name() *string          { return strPtr(r.c.Name) }
func (r *cycleR) CreatedAt() gqlTime     { return timeOf(r.c.CreatedAt) }
func (r *cycleR) UpdatedAt() gqlTime     { return timeOf(r.c.CreatedAt) }
func (r *cycleR) Team() *teamR           { return r.s.teamR(r.s.w.team(r.c.TeamID)) }
func (r *cycleR) InheritedFrom() *cycleR { return nil }
func (r *cycleR) StartsAt() gqlTime {
	if r.c.StartsAt == nil {
		return timeOf(r.c.CreatedAt)
	}
	return timeOf(*r.c.StartsAt)
}
func (r *cycleR) EndsAt() gqlTime {
	if r.c.EndsAt == nil {
		return timeOf(r.c.CreatedAt.AddDate(0, 0, 14))
	}
	return timeOf(*r.c.EndsAt)
}
func (r *cycleR) IsActive() bool {
	now := now(r.s.Context())
	return !now.Before(r.StartsAt().Time) && now.Before(r.EndsAt().Time)
}

func (r *cycleR) Issues(a issueConnArgs) (*conn[*issueR], error) {
	r.s.stamp("list_issues", rankList)
	var all []*Issue
	for _, is := range r.s.w.Issues {
		if is.CycleID == r.c.ID {
			all = append(all, is)
		}
	}
	return r.s.issueConn(all, a.pageArgs, a.Filter, nil)
}

// orgR resolves Organization: the workspace.
type orgR struct {
	genOrganization
	s *gqlState
}

func (r *orgR) ID() graphql.ID   { return graphql.ID(r.s.w.Organization.ID) }
func (r *orgR) Name() string     { return r.s.w.Organization.Name }
func (r *orgR) URLKey() string   { return r.s.w.Organization.URLKey }
func (r *orgR) UserCount() int32 { return int32(len(r.s.w.Users)) }
func (r *orgR) CreatedIssueCount() int32 {
	return int32(len(r.s.w.Issues))
}
func (r *orgR) GitBranchFormat() *string { return nil }

// relationR resolves IssueRelation.
type relationR struct {
	genIssueRelation
	s   *gqlState
	rel *Relation
}

func (r *relationR) ID() graphql.ID        { return graphql.ID(r.rel.ID) }
func (r *relationR) Type() string          { return r.rel.Type }
func (r *relationR) CreatedAt() gqlTime    { return timeOf(r.rel.CreatedAt) }
func (r *relationR) UpdatedAt() gqlTime    { return timeOf(r.rel.CreatedAt) }
func (r *relationR) Issue() *issueR        { return r.s.issueR(r.s.w.issue(r.rel.IssueID)) }
func (r *relationR) RelatedIssue() *issueR { return r.s.issueR(r.s.w.issue(r.rel.RelatedIssueID)) }
