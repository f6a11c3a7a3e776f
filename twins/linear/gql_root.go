package linear

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	graphql "github.com/graph-gophers/graphql-go"

	"github.com/pomehq/pome/twins"
)

// gqlRoot resolves Query and Mutation. Reads stamp the tape with the MCP
// tool that reads the same thing; writes run that tool.
type gqlRoot struct{}

// Connection arguments, one struct per argument list of the schema.
type (
	issueConnArgs struct {
		pageArgs
		Filter *inIssueFilter
	}
	rootIssueConnArgs struct {
		issueConnArgs
		Sort *[]inIssueSortInput
	}
	teamIssueConnArgs struct {
		issueConnArgs
		IncludeSubTeams *bool
	}
	labelConnArgs struct {
		pageArgs
		Filter *inIssueLabelFilter
	}
	commentConnArgs struct {
		pageArgs
		Filter *inCommentFilter
	}
	stateConnArgs struct {
		pageArgs
		Filter *inWorkflowStateFilter
	}
	userConnArgs struct {
		pageArgs
		Filter          *inUserFilter
		IncludeDisabled *bool
		Sort            *[]inUserSortInput
	}
	cycleConnArgs struct {
		pageArgs
		Filter *inCycleFilter
	}
	projectConnArgs struct {
		pageArgs
		Filter *inProjectFilter
		Sort   *[]inProjectSortInput
	}
	teamProjectConnArgs struct {
		projectConnArgs
		IncludeSubTeams *bool
	}
	teamConnArgs struct {
		pageArgs
		Filter *inTeamFilter
	}
	idArgs struct{ ID string }
)

func errEntity(kind string) error {
	return twins.Errorf(twins.NotFound, "entity_not_found", "Entity not found: %s", kind).With("userPresentableMessage", "Could not find referenced "+kind+".")
}

// ordered sorts records newest first by orderBy (createdAt by default),
// as Linear pages them.
func ordered[T timed](items []T, orderBy *string) []T {
	key := "createdAt"
	if orderBy != nil {
		key = *orderBy
	}
	return sortBy(items, key)
}

func ids[T any](items []T, id func(T) string) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = id(it)
	}
	return out
}

// issueConn filters, orders and pages issues. Archived issues are left
// out unless includeArchived.
func (s *gqlState) issueConn(all []*Issue, a pageArgs, f *inIssueFilter, sorts *[]inIssueSortInput) (*conn[*issueR], error) {
	fm, now := filterMap(f), now(s.Context())
	var keep []*Issue
	for _, is := range all {
		if is.ArchivedAt != nil && (a.IncludeArchived == nil || !*a.IncludeArchived) {
			continue
		}
		if fm == nil || matches(s.w.issueView(is), fm, now) {
			keep = append(keep, is)
		}
	}
	keep = ordered(keep, a.OrderBy)
	if sorts != nil {
		keep = sortIssues(keep, *sorts)
	}
	c, err := paginate(keep, ids(keep, func(is *Issue) string { return is.ID }), a)
	if err != nil {
		return nil, err
	}
	return mapConn(c, s.issueR), nil
}

// sortIssues applies Linear's sort inputs, the first the most significant.
func sortIssues(items []*Issue, sorts []inIssueSortInput) []*Issue {
	out := slices.Clone(items)
	desc := func(o *string) bool { return o != nil && strings.EqualFold(*o, "Descending") }
	slices.SortStableFunc(out, func(a, b *Issue) int {
		for _, srt := range sorts {
			var d int
			switch {
			case srt.Priority != nil:
				pa, pb := a.Priority, b.Priority
				if pa == 0 {
					pa = 5
				}
				if pb == 0 {
					pb = 5
				}
				d = pa - pb
				if desc(srt.Priority.Order) {
					d = -d
				}
			case srt.Title != nil:
				d = strings.Compare(a.Title, b.Title)
				if desc(srt.Title.Order) {
					d = -d
				}
			case srt.CreatedAt != nil:
				d = a.CreatedAt.Compare(b.CreatedAt)
				if desc(srt.CreatedAt.Order) {
					d = -d
				}
			case srt.UpdatedAt != nil:
				d = a.UpdatedAt.Compare(b.UpdatedAt)
				if desc(srt.UpdatedAt.Order) {
					d = -d
				}
			case srt.Estimate != nil:
				ea, eb := -1.0, -1.0
				if a.Estimate != nil {
					ea = *a.Estimate
				}
				if b.Estimate != nil {
					eb = *b.Estimate
				}
				switch {
				case ea < eb:
					d = -1
				case ea > eb:
					d = 1
				}
				if desc(srt.Estimate.Order) {
					d = -d
				}
			}
			if d != 0 {
				return d
			}
		}
		return 0
	})
	return out
}

func mapConn[A, B any](c *conn[A], f func(A) B) *conn[B] {
	out := &conn[B]{ids: c.ids, next: c.next, prev: c.prev}
	for _, it := range c.items {
		out.items = append(out.items, f(it))
	}
	return out
}

func pageOf[T timed, R any](s *gqlState, all []T, a pageArgs, keep func(T) bool, id func(T) string, res func(T) R) (*conn[R], error) {
	var in []T
	for _, x := range all {
		if keep == nil || keep(x) {
			in = append(in, x)
		}
	}
	in = ordered(in, a.OrderBy)
	c, err := paginate(in, ids(in, id), a)
	if err != nil {
		return nil, err
	}
	return mapConn(c, res), nil
}

func (s *gqlState) filterFn(f any, v func(any) view) func(any) bool {
	fm, now := filterMap(f), now(s.Context())
	return func(x any) bool { return fm == nil || matches(v(x), fm, now) }
}

func (s *gqlState) labelConn(all []*Label, a labelConnArgs) (*conn[*labelR], error) {
	keep := s.filterFn(a.Filter, func(x any) view { return s.w.labelView(x.(*Label)) })
	return pageOf(s, all, a.pageArgs, func(l *Label) bool { return keep(l) }, func(l *Label) string { return l.ID }, s.labelR)
}

func (s *gqlState) commentConn(all []*Comment, a commentConnArgs) (*conn[*commentR], error) {
	keep := s.filterFn(a.Filter, func(x any) view { return s.w.commentView(x.(*Comment)) })
	return pageOf(s, all, a.pageArgs, func(c *Comment) bool { return keep(c) }, func(c *Comment) string { return c.ID }, s.commentR)
}

func (s *gqlState) stateConn(all []*State, a stateConnArgs) (*conn[*stateR], error) {
	keep := s.filterFn(a.Filter, func(x any) view { return s.w.stateView(x.(*State)) })
	var in []*State
	for _, st := range all {
		if keep(st) {
			in = append(in, st)
		}
	}
	c, err := paginate(in, ids(in, func(st *State) string { return st.ID }), a.pageArgs)
	if err != nil {
		return nil, err
	}
	return mapConn(c, s.stateR), nil
}

func (s *gqlState) userConn(all []*User, a userConnArgs) (*conn[*userR], error) {
	keep := s.filterFn(a.Filter, func(x any) view { return s.w.userView(x.(*User)) })
	disabled := a.IncludeDisabled != nil && *a.IncludeDisabled
	return pageOf(s, all, a.pageArgs, func(u *User) bool { return (u.Active || disabled) && keep(u) }, func(u *User) string { return u.ID }, s.userR)
}

func (s *gqlState) cycleConn(all []*Cycle, a cycleConnArgs) (*conn[*cycleR], error) {
	keep := s.filterFn(a.Filter, func(x any) view { return s.w.cycleView(x.(*Cycle)) })
	var in []*Cycle
	for _, c := range all {
		if keep(c) {
			in = append(in, c)
		}
	}
	slices.SortStableFunc(in, func(a, b *Cycle) int { return b.Number - a.Number })
	c, err := paginate(in, ids(in, func(c *Cycle) string { return c.ID }), a.pageArgs)
	if err != nil {
		return nil, err
	}
	return mapConn(c, s.cycleR), nil
}

func (s *gqlState) projectConn(all []*Project, a projectConnArgs) (*conn[*projectR], error) {
	keep := s.filterFn(a.Filter, func(x any) view { return s.w.projectView(x.(*Project)) })
	return pageOf(s, all, a.pageArgs, func(p *Project) bool { return keep(p) }, func(p *Project) string { return p.ID }, s.projectR)
}

func (s *gqlState) teamConn(all []*Team, a teamConnArgs) (*conn[*teamR], error) {
	keep := s.filterFn(a.Filter, func(x any) view { return s.w.teamView(x.(*Team)) })
	return pageOf(s, all, a.pageArgs, func(t *Team) bool { return keep(t) }, func(t *Team) string { return t.ID }, s.teamR)
}

func (s *gqlState) relationConn(keep func(*Relation) bool, a pageArgs) (*conn[*relationR], error) {
	var in []*Relation
	for _, r := range s.w.Relations {
		if keep(r) {
			in = append(in, r)
		}
	}
	c, err := paginate(in, ids(in, func(r *Relation) string { return r.ID }), a)
	if err != nil {
		return nil, err
	}
	return mapConn(c, func(r *Relation) *relationR { return &relationR{s: s, rel: r} }), nil
}

// Query.

func (*gqlRoot) Viewer(ctx context.Context) (*userR, error) {
	s := gqlFrom(ctx)
	s.stamp("get_user", rankObject)
	if u := s.w.viewer(); u != nil {
		return s.userR(u), nil
	}
	return nil, errEntity("User")
}

func (*gqlRoot) Organization(ctx context.Context) *orgR {
	return &orgR{s: gqlFrom(ctx)}
}

func (*gqlRoot) Teams(ctx context.Context, a teamConnArgs) (*conn[*teamR], error) {
	s := gqlFrom(ctx)
	s.stamp("list_teams", rankList)
	return s.teamConn(s.w.Teams, a)
}

func (*gqlRoot) Team(ctx context.Context, a idArgs) (*teamR, error) {
	s := gqlFrom(ctx)
	s.stamp("get_team", rankObject)
	if t := s.w.findTeam(a.ID); t != nil && (t.ID == a.ID || strings.EqualFold(t.Key, a.ID)) {
		return s.teamR(t), nil
	}
	return nil, errEntity("Team")
}

func (*gqlRoot) Issues(ctx context.Context, a rootIssueConnArgs) (*conn[*issueR], error) {
	s := gqlFrom(ctx)
	s.stamp("list_issues", rankList)
	return s.issueConn(s.w.Issues, a.pageArgs, a.Filter, a.Sort)
}

func (*gqlRoot) Issue(ctx context.Context, a idArgs) (*issueR, error) {
	s := gqlFrom(ctx)
	s.stamp("get_issue", rankObject)
	if is := s.w.findIssue(a.ID); is != nil {
		return s.issueR(is), nil
	}
	return nil, errEntity("Issue")
}

func (*gqlRoot) WorkflowStates(ctx context.Context, a stateConnArgs) (*conn[*stateR], error) {
	s := gqlFrom(ctx)
	s.stamp("list_issue_statuses", rankList)
	var all []*State
	for _, t := range s.w.Teams {
		all = append(all, t.sortedStates()...)
	}
	return s.stateConn(all, a)
}

func (*gqlRoot) WorkflowState(ctx context.Context, a idArgs) (*stateR, error) {
	s := gqlFrom(ctx)
	s.stamp("get_issue_status", rankObject)
	if st := s.w.state(a.ID); st != nil {
		return s.stateR(st), nil
	}
	return nil, errEntity("WorkflowState")
}

func (*gqlRoot) IssueLabels(ctx context.Context, a labelConnArgs) (*conn[*labelR], error) {
	s := gqlFrom(ctx)
	s.stamp("list_issue_labels", rankList)
	return s.labelConn(s.w.Labels, a)
}

func (*gqlRoot) IssueLabel(ctx context.Context, a idArgs) (*labelR, error) {
	s := gqlFrom(ctx)
	s.stamp("list_issue_labels", rankObject)
	if l := s.w.label(a.ID); l != nil {
		return s.labelR(l), nil
	}
	return nil, errEntity("IssueLabel")
}

func (*gqlRoot) Users(ctx context.Context, a userConnArgs) (*conn[*userR], error) {
	s := gqlFrom(ctx)
	s.stamp("list_users", rankList)
	return s.userConn(s.w.Users, a)
}

func (*gqlRoot) User(ctx context.Context, a idArgs) (*userR, error) {
	s := gqlFrom(ctx)
	s.stamp("get_user", rankObject)
	if u := s.w.user(a.ID); u != nil {
		return s.userR(u), nil
	}
	if strings.EqualFold(a.ID, "me") {
		return s.userR(s.w.viewer()), nil
	}
	return nil, errEntity("User")
}

func (*gqlRoot) Projects(ctx context.Context, a projectConnArgs) (*conn[*projectR], error) {
	s := gqlFrom(ctx)
	s.stamp("list_projects", rankList)
	return s.projectConn(s.w.Projects, a)
}

func (*gqlRoot) Project(ctx context.Context, a idArgs) (*projectR, error) {
	s := gqlFrom(ctx)
	s.stamp("get_project", rankObject)
	if p := s.w.project(a.ID); p != nil {
		return s.projectR(p), nil
	}
	for _, p := range s.w.Projects {
		if p.SlugID == a.ID {
			return s.projectR(p), nil
		}
	}
	return nil, errEntity("Project")
}

func (*gqlRoot) Cycles(ctx context.Context, a cycleConnArgs) (*conn[*cycleR], error) {
	s := gqlFrom(ctx)
	s.stamp("list_cycles", rankList)
	return s.cycleConn(s.w.Cycles, a)
}

func (*gqlRoot) Cycle(ctx context.Context, a idArgs) (*cycleR, error) {
	s := gqlFrom(ctx)
	s.stamp("list_cycles", rankObject)
	if c := s.w.cycle(a.ID); c != nil {
		return s.cycleR(c), nil
	}
	return nil, errEntity("Cycle")
}

func (*gqlRoot) Comments(ctx context.Context, a commentConnArgs) (*conn[*commentR], error) {
	s := gqlFrom(ctx)
	s.stamp("list_comments", rankList)
	return s.commentConn(s.w.Comments, a)
}

func (*gqlRoot) Comment(ctx context.Context, a struct{ ID, Hash *string }) (*commentR, error) {
	s := gqlFrom(ctx)
	s.stamp("list_comments", rankObject)
	if a.ID != nil {
		if c := s.w.comment(*a.ID); c != nil {
			return s.commentR(c), nil
		}
	}
	return nil, errEntity("Comment")
}

func (*gqlRoot) IssueRelation(ctx context.Context, a idArgs) (*relationR, error) {
	s := gqlFrom(ctx)
	s.stamp("get_issue", rankObject)
	for _, r := range s.w.Relations {
		if r.ID == a.ID {
			return &relationR{s: s, rel: r}, nil
		}
	}
	return nil, errEntity("IssueRelation")
}

func (*gqlRoot) IssueRelations(ctx context.Context, a pageArgs) (*conn[*relationR], error) {
	s := gqlFrom(ctx)
	s.stamp("get_issue", rankList)
	return s.relationConn(func(*Relation) bool { return true }, a)
}

// issueSearchPayloadR resolves IssueSearchPayload.
type issueSearchPayloadR struct {
	*conn[*issueSearchR]
	total int
}

func (p *issueSearchPayloadR) TotalCount() float64 { return float64(p.total) }
func (p *issueSearchPayloadR) ArchivePayload() *genArchiveResponse {
	return &genArchiveResponse{GArchive: "{}"}
}

func (*gqlRoot) SearchIssues(ctx context.Context, a struct {
	issueConnArgs
	IncludeComments *bool
	TeamID          *string
	Term            string
}) (*issueSearchPayloadR, error) {
	s := gqlFrom(ctx)
	s.stamp("list_issues", rankList)
	var all []*Issue
	for _, is := range s.w.Issues {
		if a.TeamID != nil && *a.TeamID != "" && is.TeamID != *a.TeamID {
			if t := s.w.findTeam(*a.TeamID); t == nil || t.ID != is.TeamID {
				continue
			}
		}
		hit := contains(is.Title, a.Term) || contains(is.Description, a.Term) || strings.EqualFold(is.Identifier, a.Term)
		if !hit && a.IncludeComments != nil && *a.IncludeComments {
			for _, c := range s.w.issueComments(is.ID) {
				if contains(c.Body, a.Term) {
					hit = true
					break
				}
			}
		}
		if hit {
			all = append(all, is)
		}
	}
	c, err := s.issueConn(all, a.pageArgs, a.Filter, nil)
	if err != nil {
		return nil, err
	}
	return &issueSearchPayloadR{conn: mapConn(c, func(r *issueR) *issueSearchR { return &issueSearchR{issueR: r} }), total: len(all)}, nil
}

// Mutation payloads.

type issuePayloadR struct {
	s  *gqlState
	id string
}

func (p *issuePayloadR) Success() bool       { return true }
func (p *issuePayloadR) LastSyncID() float64 { return float64(p.s.w.Seq) }
func (p *issuePayloadR) Issue() *issueR      { return p.s.issueR(p.s.w.issue(p.id)) }

type archivePayloadR struct {
	s  *gqlState
	id string
}

func (p *archivePayloadR) Success() bool       { return true }
func (p *archivePayloadR) LastSyncID() float64 { return float64(p.s.w.Seq) }
func (p *archivePayloadR) Entity() *issueR     { return p.s.issueR(p.s.w.issue(p.id)) }

type commentPayloadR struct {
	s *gqlState
	c *Comment
}

func (p *commentPayloadR) Success() bool       { return true }
func (p *commentPayloadR) LastSyncID() float64 { return float64(p.s.w.Seq) }
func (p *commentPayloadR) Comment() *commentR  { return p.s.commentR(p.c) }

type deletePayloadR struct {
	s  *gqlState
	id string
}

func (p *deletePayloadR) Success() bool       { return true }
func (p *deletePayloadR) LastSyncID() float64 { return float64(p.s.w.Seq) }
func (p *deletePayloadR) EntityID() string    { return p.id }

type labelPayloadR struct {
	s *gqlState
	l *Label
}

func (p *labelPayloadR) Success() bool       { return true }
func (p *labelPayloadR) LastSyncID() float64 { return float64(p.s.w.Seq) }
func (p *labelPayloadR) IssueLabel() *labelR { return p.s.labelR(p.l) }

type relationPayloadR struct {
	s   *gqlState
	rel *Relation
}

func (p *relationPayloadR) Success() bool       { return true }
func (p *relationPayloadR) LastSyncID() float64 { return float64(p.s.w.Seq) }
func (p *relationPayloadR) IssueRelation() *relationR {
	return &relationR{s: p.s, rel: p.rel}
}

// rawOpt is a nullable input turned into save_issue's raw argument: absent
// stays absent, null clears.
func rawOpt[T any](v *T, set bool) json.RawMessage {
	if !set {
		return nil
	}
	if v == nil {
		return json.RawMessage("null")
	}
	b, _ := json.Marshal(*v)
	return b
}

// Mutation.

func (*gqlRoot) IssueCreate(ctx context.Context, a struct{ Input inIssueCreateInput }) (*issuePayloadR, error) {
	s := gqlFrom(ctx)
	in := a.Input
	if in.Id != nil || in.CreatedAt != nil || in.CreateAsUser != nil || in.DisplayIconUrl != nil {
		return nil, twins.Errorf(twins.Invalid, "invalid_input", "id, createdAt, createAsUser and displayIconUrl are for imports and apps; Pome's Linear twin does not take them").WithField("input")
	}
	si := SaveIssueIn{Title: deref(in.Title), Description: in.Description, Team: in.TeamId,
		State: deref(in.StateId), Priority: intOf(in.Priority), Labels: derefSlice(in.LabelIds),
		Assignee: rawOpt(in.AssigneeId, in.AssigneeId != nil), Delegate: rawOpt(in.DelegateId, in.DelegateId != nil),
		ParentID: rawOpt(in.ParentId, in.ParentId != nil), Project: rawOpt(in.ProjectId, in.ProjectId != nil),
		Cycle: rawOpt(in.CycleId, in.CycleId != nil), Estimate: rawOpt(in.Estimate, in.Estimate != nil)}
	if in.DueDate != nil {
		si.DueDate = rawOpt(in.DueDate, true)
	}
	out, err := s.run(saveIssue, si)
	if err != nil {
		return nil, err
	}
	return &issuePayloadR{s: s, id: out.(IssueOut).ID}, nil
}

func (*gqlRoot) IssueUpdate(ctx context.Context, a struct {
	ID    string
	Input inIssueUpdateInput
}) (*issuePayloadR, error) {
	s := gqlFrom(ctx)
	is := s.w.findIssue(a.ID)
	if is == nil {
		s.stamp("save_issue", rankWrite)
		return nil, errEntity("Issue")
	}
	in := a.Input
	si := SaveIssueIn{ID: is.ID, Title: deref(in.Title), Description: in.Description, Team: deref(in.TeamId),
		State: deref(in.StateId), Priority: intOf(in.Priority),
		Assignee: rawOpt(in.AssigneeId, in.AssigneeId != nil), Delegate: rawOpt(in.DelegateId, in.DelegateId != nil),
		ParentID: rawOpt(in.ParentId, in.ParentId != nil), Project: rawOpt(in.ProjectId, in.ProjectId != nil),
		Cycle: rawOpt(in.CycleId, in.CycleId != nil), Estimate: rawOpt(in.Estimate, in.Estimate != nil)}
	if in.DueDate != nil {
		si.DueDate = rawOpt(in.DueDate, true)
	}
	if in.Trashed != nil && *in.Trashed {
		return nil, twins.Errorf(twins.Invalid, "invalid_input", "trashed: deleting issues is not modelled by Pome's Linear twin; archive the issue instead").WithField("trashed")
	}
	if in.LabelIds != nil || in.AddedLabelIds != nil || in.RemovedLabelIds != nil {
		labels := slices.Clone(is.LabelIDs)
		if in.LabelIds != nil {
			labels = slices.Clone(*in.LabelIds)
		}
		if in.AddedLabelIds != nil {
			for _, id := range *in.AddedLabelIds {
				if !slices.Contains(labels, id) {
					labels = append(labels, id)
				}
			}
		}
		if in.RemovedLabelIds != nil {
			labels = slices.DeleteFunc(labels, func(id string) bool { return slices.Contains(*in.RemovedLabelIds, id) })
		}
		si.Labels = append([]string{}, labels...)
	}
	if _, err := s.run(saveIssue, si); err != nil {
		return nil, err
	}
	return &issuePayloadR{s: s, id: is.ID}, nil
}

func (r *gqlRoot) IssueAddLabel(ctx context.Context, a struct{ ID, LabelID string }) (*issuePayloadR, error) {
	add := []string{a.LabelID}
	return r.IssueUpdate(ctx, struct {
		ID    string
		Input inIssueUpdateInput
	}{a.ID, inIssueUpdateInput{AddedLabelIds: &add}})
}

func (r *gqlRoot) IssueRemoveLabel(ctx context.Context, a struct{ ID, LabelID string }) (*issuePayloadR, error) {
	drop := []string{a.LabelID}
	return r.IssueUpdate(ctx, struct {
		ID    string
		Input inIssueUpdateInput
	}{a.ID, inIssueUpdateInput{RemovedLabelIds: &drop}})
}

func (*gqlRoot) IssueArchive(ctx context.Context, a struct {
	ID    string
	Trash *bool
}) (*archivePayloadR, error) {
	s := gqlFrom(ctx)
	if a.Trash != nil && *a.Trash {
		return nil, twins.Errorf(twins.Invalid, "invalid_input", "trash: deleting issues is not modelled by Pome's Linear twin; archive without trash").WithField("trash")
	}
	out, err := s.run(archiveIssue, ArchiveIssueIn{ID: a.ID})
	if err != nil {
		return nil, err
	}
	return &archivePayloadR{s: s, id: out.(IssueOut).ID}, nil
}

func (*gqlRoot) CommentCreate(ctx context.Context, a struct{ Input inCommentCreateInput }) (*commentPayloadR, error) {
	s := gqlFrom(ctx)
	in := a.Input
	if in.Id != nil || in.CreatedAt != nil || in.CreateAsUser != nil || in.DisplayIconUrl != nil {
		return nil, twins.Errorf(twins.Invalid, "invalid_input", "id, createdAt, createAsUser and displayIconUrl are for imports and apps; Pome's Linear twin does not take them").WithField("input")
	}
	sc := SaveCommentIn{Body: deref(in.Body), ParentID: deref(in.ParentId)}
	sc.IssueID = deref(in.IssueId)
	out, err := s.run(saveComment, sc)
	if err != nil {
		return nil, err
	}
	return &commentPayloadR{s: s, c: s.w.comment(out.(CommentOut).ID)}, nil
}

func (*gqlRoot) CommentUpdate(ctx context.Context, a struct {
	ID           string
	Input        inCommentUpdateInput
	SkipEditedAt *bool
}) (*commentPayloadR, error) {
	s := gqlFrom(ctx)
	out, err := s.run(saveComment, SaveCommentIn{ID: a.ID, Body: deref(a.Input.Body)})
	if err != nil {
		return nil, err
	}
	return &commentPayloadR{s: s, c: s.w.comment(out.(CommentOut).ID)}, nil
}

func (*gqlRoot) CommentDelete(ctx context.Context, a idArgs) (*deletePayloadR, error) {
	s := gqlFrom(ctx)
	if _, err := s.run(deleteComment, DeleteCommentIn{ID: a.ID}); err != nil {
		return nil, err
	}
	return &deletePayloadR{s: s, id: a.ID}, nil
}

func (*gqlRoot) IssueLabelCreate(ctx context.Context, a struct {
	Input             inIssueLabelCreateInput
	ReplaceTeamLabels *bool
}) (*labelPayloadR, error) {
	s := gqlFrom(ctx)
	in := a.Input
	if in.Id != nil {
		return nil, twins.Errorf(twins.Invalid, "invalid_input", "id: Pome's Linear twin assigns label ids").WithField("id")
	}
	cl := CreateIssueLabelIn{Name: in.Name, Description: deref(in.Description), Color: deref(in.Color),
		TeamID: deref(in.TeamId), IsGroup: in.IsGroup != nil && *in.IsGroup}
	if in.ParentId != nil {
		p := s.w.label(*in.ParentId)
		if p == nil {
			s.stamp("create_issue_label", rankWrite)
			return nil, errEntity("IssueLabel")
		}
		cl.Parent = p.Name
	}
	out, err := s.run(createIssueLabel, cl)
	if err != nil {
		return nil, err
	}
	return &labelPayloadR{s: s, l: s.w.label(out.(LabelOut).ID)}, nil
}

func (*gqlRoot) IssueRelationCreate(ctx context.Context, a struct {
	Input             inIssueRelationCreateInput
	OverrideCreatedAt *gqlTime
}) (*relationPayloadR, error) {
	s := gqlFrom(ctx)
	in := a.Input
	from, to := s.w.findIssue(in.IssueId), s.w.findIssue(in.RelatedIssueId)
	if from == nil || to == nil {
		s.stamp("save_issue", rankWrite)
		return nil, errEntity("Issue")
	}
	si := SaveIssueIn{ID: from.ID}
	switch in.Type {
	case "blocks":
		si.Blocks = []string{to.ID}
	case "related":
		si.RelatedTo = []string{to.ID}
	case "duplicate":
		si.DuplicateOf = json.RawMessage(`"` + to.ID + `"`)
	default:
		s.stamp("save_issue", rankWrite)
		return nil, twins.Errorf(twins.Invalid, "invalid_input", "type %s: Pome's Linear twin relates issues as blocks, related or duplicate", in.Type).WithField("type")
	}
	if _, err := s.run(saveIssue, si); err != nil {
		return nil, err
	}
	for _, r := range s.w.Relations {
		if r.IssueID == from.ID && r.RelatedIssueID == to.ID && r.Type == in.Type ||
			in.Type == "related" && r.Type == "related" && r.IssueID == to.ID && r.RelatedIssueID == from.ID {
			return &relationPayloadR{s: s, rel: r}, nil
		}
	}
	return nil, twins.Errorf(twins.Internal, "", "the relation was not recorded")
}

func deref[T any](p *T) T {
	var z T
	if p == nil {
		return z
	}
	return *p
}

func derefSlice(p *[]string) []string {
	if p == nil {
		return nil
	}
	return append([]string{}, *p...)
}

func intOf(p *int32) *int {
	if p == nil {
		return nil
	}
	n := int(*p)
	return &n
}

var _ = graphql.ID("")
