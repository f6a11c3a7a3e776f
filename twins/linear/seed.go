package linear

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/pomehq/pome/twins"
)

// Seed is our seed format: a workspace, its users, teams (with their
// workflow states, labels and cycles), workspace labels, projects, issues
// (with their comment threads), relations and documents. Everything refers
// to everything else by what a person would write: team keys, user emails
// (or names), label and state names, issue identifiers (ENG-1).
type Seed struct {
	// Clock is the time seeded objects were made, by default.
	Clock     string         `json:"clock,omitempty"`
	Workspace *SeedWorkspace `json:"workspace,omitempty"`
	// Viewer is the user the sandbox's credentials act as (email, name or
	// id); by default the first user.
	Viewer    string         `json:"viewer,omitempty"`
	Users     []SeedUser     `json:"users,omitempty"`
	Teams     []SeedTeam     `json:"teams,omitempty"`
	Labels    []SeedLabel    `json:"labels,omitempty"`
	Projects  []SeedProject  `json:"projects,omitempty"`
	Issues    []SeedIssue    `json:"issues,omitempty"`
	Relations []SeedRelation `json:"relations,omitempty"`
	Documents []SeedDocument `json:"documents,omitempty"`
	// Tokens are further credentials (lin_api_… keys) that open the
	// sandbox's Linear twin on its own URL.
	Tokens []string `json:"tokens,omitempty"`
}

type SeedWorkspace struct {
	ID     string `json:"id,omitempty"`
	Name   string `json:"name"`
	URLKey string `json:"url_key,omitempty"`
}

type SeedUser struct {
	ID          string `json:"id,omitempty"`
	Email       string `json:"email"`
	Name        string `json:"name,omitempty"`
	DisplayName string `json:"display_name,omitempty"`
	Admin       bool   `json:"admin,omitempty"`
	App         bool   `json:"app,omitempty"`
	Active      *bool  `json:"active,omitempty"`
}

type SeedTeam struct {
	ID          string      `json:"id,omitempty"`
	Key         string      `json:"key"`
	Name        string      `json:"name"`
	Description string      `json:"description,omitempty"`
	Private     bool        `json:"private,omitempty"`
	States      []SeedState `json:"states,omitempty"`
	Labels      []SeedLabel `json:"labels,omitempty"`
	Cycles      []SeedCycle `json:"cycles,omitempty"`
}

type SeedState struct {
	ID       string   `json:"id,omitempty"`
	Name     string   `json:"name"`
	Type     string   `json:"type,omitempty"`
	Color    string   `json:"color,omitempty"`
	Position *float64 `json:"position,omitempty"`
}

type SeedLabel struct {
	ID          string `json:"id,omitempty"`
	Name        string `json:"name"`
	Color       string `json:"color,omitempty"`
	Description string `json:"description,omitempty"`
	// Parent names a label group of the same scope.
	Parent  string `json:"parent,omitempty"`
	IsGroup bool   `json:"is_group,omitempty"`
}

type SeedCycle struct {
	ID       string `json:"id,omitempty"`
	Number   int    `json:"number,omitempty"`
	Name     string `json:"name,omitempty"`
	StartsAt string `json:"starts_at,omitempty"`
	EndsAt   string `json:"ends_at,omitempty"`
}

type SeedProject struct {
	ID          string   `json:"id,omitempty"`
	Name        string   `json:"name"`
	Description string   `json:"description,omitempty"`
	State       string   `json:"state,omitempty"`
	Teams       []string `json:"teams,omitempty"`
	Lead        string   `json:"lead,omitempty"`
}

type SeedIssue struct {
	ID          string        `json:"id,omitempty"`
	Team        string        `json:"team"`
	Number      int           `json:"number,omitempty"`
	Title       string        `json:"title"`
	Description string        `json:"description,omitempty"`
	State       string        `json:"state,omitempty"`
	Priority    int           `json:"priority,omitempty"`
	Estimate    *float64      `json:"estimate,omitempty"`
	Assignee    string        `json:"assignee,omitempty"`
	Creator     string        `json:"creator,omitempty"`
	Labels      []string      `json:"labels,omitempty"`
	Parent      string        `json:"parent,omitempty"`
	Project     string        `json:"project,omitempty"`
	Cycle       string        `json:"cycle,omitempty"`
	DueDate     string        `json:"due_date,omitempty"`
	CreatedAt   string        `json:"created_at,omitempty"`
	UpdatedAt   string        `json:"updated_at,omitempty"`
	Archived    bool          `json:"archived,omitempty"`
	Comments    []SeedComment `json:"comments,omitempty"`
}

// SeedComment is a comment and its threaded replies.
type SeedComment struct {
	ID        string `json:"id,omitempty"`
	User      string `json:"user,omitempty"`
	Body      string `json:"body"`
	CreatedAt string `json:"created_at,omitempty"`
	// Parent names an earlier comment of the same issue by id: the
	// comment is a reply in its thread (as nesting it in replies is).
	Parent  string        `json:"parent,omitempty"`
	Replies []SeedComment `json:"replies,omitempty"`
}

type SeedRelation struct {
	Issue   string `json:"issue"`
	Type    string `json:"type"`
	Related string `json:"related"`
}

type SeedDocument struct {
	ID      string `json:"id,omitempty"`
	Title   string `json:"title"`
	Content string `json:"content,omitempty"`
	Project string `json:"project,omitempty"`
	Team    string `json:"team,omitempty"`
	Issue   string `json:"issue,omitempty"`
	Creator string `json:"creator,omitempty"`
}

// DefaultSeed is the world a sandbox gets without a seed: the Acme
// workspace, its Engineering team (ENG) with Linear's default workflow, a
// few issues in different states, labels and users.
func DefaultSeed() *Seed {
	two := 2.0
	return &Seed{
		Workspace: &SeedWorkspace{Name: "Acme", URLKey: "acme"},
		Viewer:    "pome-agent@acme.test",
		Users: []SeedUser{
			{Email: "pome-agent@acme.test", Name: "Pome Agent", DisplayName: "pome-agent", Admin: true},
			{Email: "alice@acme.test", Name: "Alice Liddell", DisplayName: "alice"},
			{Email: "bob@acme.test", Name: "Bob Builder", DisplayName: "bob"},
		},
		Teams: []SeedTeam{{Key: "ENG", Name: "Engineering", Description: "Acme's engineering team"}},
		Labels: []SeedLabel{
			{Name: "Bug", Color: "#eb5757"},
			{Name: "Feature", Color: "#bb87fc"},
			{Name: "Improvement", Color: "#4ea7fc"},
		},
		Issues: []SeedIssue{
			{Team: "ENG", Title: "500 error on POST /orders after deploy", Description: "Every POST /orders answers 500 since this morning's deploy.",
				State: "Todo", Priority: 2, Labels: []string{"Bug"}, Creator: "alice@acme.test",
				Comments: []SeedComment{{User: "alice@acme.test", Body: "Seen in production since 09:12 UTC."}}},
			{Team: "ENG", Title: "Add pagination to GET /orders", State: "Backlog", Priority: 3, Labels: []string{"Feature"}, Creator: "bob@acme.test"},
			{Team: "ENG", Title: "Upgrade the API to Go 1.26", State: "In Progress", Priority: 4, Estimate: &two,
				Assignee: "alice@acme.test", Labels: []string{"Improvement"}, Creator: "alice@acme.test"},
		},
	}
}

func newWorld(ctx context.Context, raw json.RawMessage) (*World, error) {
	if raw == nil || strings.TrimSpace(string(raw)) == "null" {
		return buildWorld(ctx, DefaultSeed())
	}
	if isOriginalSeed(raw) {
		s, err := convertOriginal(raw)
		if err != nil {
			return nil, err
		}
		return buildWorld(ctx, s)
	}
	s := new(Seed)
	if err := twins.DecodeSeed(raw, s); err != nil {
		// A seed of the original's that uses none of its own keys still
		// loads as the original's.
		if o, oerr := convertOriginal(raw); oerr == nil {
			return buildWorld(ctx, o)
		}
		return nil, err
	}
	return buildWorld(ctx, s)
}

var (
	teamKeyRE = regexp.MustCompile(`^[A-Z][A-Z0-9]{0,19}$`)
	colorRE   = regexp.MustCompile(`^#?[0-9a-fA-F]{6}$`)
	dateRE    = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
)

type seedBuilder struct {
	w   *World
	now time.Time
}

func (b *seedBuilder) at(path, s string) (time.Time, error) {
	if s == "" {
		return b.now, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, twins.SeedErrorf(path, "not an ISO 8601 time: %q", s)
	}
	return t.UTC(), nil
}

func (b *seedBuilder) id(given string) string {
	if given != "" {
		return given
	}
	return b.w.newID()
}

func color(c, def string) string {
	if c == "" {
		return def
	}
	if !strings.HasPrefix(c, "#") {
		return "#" + c
	}
	return c
}

// buildWorld turns a seed into a world, checking every reference; errors
// name the JSON path of the seed that is wrong.
func buildWorld(ctx context.Context, s *Seed) (*World, error) {
	b := &seedBuilder{w: &World{Users: []*User{}, Teams: []*Team{}, Labels: []*Label{}, Projects: []*Project{},
		Cycles: []*Cycle{}, Issues: []*Issue{}, Comments: []*Comment{}, Relations: []*Relation{}, Documents: []*Document{}},
		now: now(ctx)}
	w := b.w
	if s.Clock != "" {
		t, err := b.at("/clock", s.Clock)
		if err != nil {
			return nil, err
		}
		b.now = t
	}
	w.Organization = Organization{ID: "", Name: "Acme", URLKey: "acme"}
	if s.Workspace != nil {
		if strings.TrimSpace(s.Workspace.Name) == "" {
			return nil, twins.SeedErrorf("/workspace/name", "a workspace needs a name")
		}
		w.Organization.ID, w.Organization.Name = s.Workspace.ID, s.Workspace.Name
		w.Organization.URLKey = s.Workspace.URLKey
		if w.Organization.URLKey == "" {
			w.Organization.URLKey = slugify(s.Workspace.Name)
		}
	}
	if w.Organization.ID == "" {
		w.Organization.ID = w.newID()
	}
	// Users.
	for i, su := range s.Users {
		p := twins.Pointer("users", i)
		if !strings.Contains(su.Email, "@") {
			return nil, twins.SeedErrorf(p+"/email", "not an email address: %q", su.Email)
		}
		if w.findUser(su.Email) != nil || su.ID != "" && w.user(su.ID) != nil {
			return nil, twins.SeedErrorf(p, "duplicate user %q", su.Email)
		}
		u := &User{ID: b.id(su.ID), Email: strings.ToLower(su.Email), Name: su.Name, DisplayName: su.DisplayName,
			Admin: su.Admin, App: su.App, Active: su.Active == nil || *su.Active, CreatedAt: b.now}
		local, _, _ := strings.Cut(u.Email, "@")
		if u.Name == "" {
			u.Name = local
		}
		if u.DisplayName == "" {
			u.DisplayName = local
		}
		w.Users = append(w.Users, u)
	}
	if len(w.Users) == 0 {
		w.Users = append(w.Users, &User{ID: w.newID(), Email: "pome-agent@acme.test", Name: "Pome Agent", DisplayName: "pome-agent", Admin: true, Active: true, CreatedAt: b.now})
	}
	w.ViewerID = w.Users[0].ID
	if s.Viewer != "" {
		u := w.findUser(s.Viewer)
		if u == nil {
			return nil, twins.SeedErrorf("/viewer", "no user %q in users", s.Viewer)
		}
		w.ViewerID = u.ID
	}
	userRef := func(path, ref string) (string, error) {
		if ref == "" {
			return "", nil
		}
		u := w.findUser(ref)
		if u == nil {
			return "", twins.SeedErrorf(path, "no user %q in users", ref)
		}
		return u.ID, nil
	}
	// Workspace labels.
	if err := b.labels("/labels", "", s.Labels); err != nil {
		return nil, err
	}
	// Teams, their states, labels and cycles.
	for i, st := range s.Teams {
		p := twins.Pointer("teams", i)
		if !teamKeyRE.MatchString(st.Key) {
			return nil, twins.SeedErrorf(p+"/key", "a team key is 1-20 upper-case letters and digits, starting with a letter: %q", st.Key)
		}
		if strings.TrimSpace(st.Name) == "" {
			return nil, twins.SeedErrorf(p+"/name", "a team needs a name")
		}
		if w.findTeam(st.Key) != nil {
			return nil, twins.SeedErrorf(p+"/key", "duplicate team key %q", st.Key)
		}
		t := &Team{ID: b.id(st.ID), Key: st.Key, Name: st.Name, Description: st.Description, Private: st.Private,
			States: []*State{}, CreatedAt: b.now, UpdatedAt: b.now}
		w.Teams = append(w.Teams, t)
		if len(st.States) == 0 {
			for j, d := range defaultStates() {
				t.States = append(t.States, &State{ID: w.newID(), TeamID: t.ID, Name: d.name, Type: d.typ, Color: d.color, Position: float64(j), CreatedAt: b.now})
			}
		}
		for j, ss := range st.States {
			sp := p + twins.Pointer("states", j)
			if strings.TrimSpace(ss.Name) == "" {
				return nil, twins.SeedErrorf(sp+"/name", "a workflow state needs a name")
			}
			if t.findState(ss.Name) != nil && strings.EqualFold(t.findState(ss.Name).Name, ss.Name) {
				return nil, twins.SeedErrorf(sp+"/name", "duplicate workflow state %q on team %s", ss.Name, t.Key)
			}
			typ := ss.Type
			if typ == "" {
				typ = guessStateType(ss.Name)
			}
			if !slices.Contains(stateTypes, typ) {
				return nil, twins.SeedErrorf(sp+"/type", "a state type is one of %s: %q", strings.Join(stateTypes, ", "), typ)
			}
			pos := float64(j)
			if ss.Position != nil {
				pos = *ss.Position
			}
			t.States = append(t.States, &State{ID: b.id(ss.ID), TeamID: t.ID, Name: ss.Name, Type: typ, Color: color(ss.Color, "#e2e2e2"), Position: pos, CreatedAt: b.now})
		}
		if err := b.labels(p+"/labels", t.ID, st.Labels); err != nil {
			return nil, err
		}
		for j, sc := range st.Cycles {
			cp := p + twins.Pointer("cycles", j)
			c := &Cycle{ID: b.id(sc.ID), TeamID: t.ID, Name: sc.Name, Number: sc.Number, CreatedAt: b.now}
			if c.Number == 0 {
				c.Number = j + 1
			}
			if sc.StartsAt != "" {
				tm, err := b.at(cp+"/starts_at", sc.StartsAt)
				if err != nil {
					return nil, err
				}
				c.StartsAt = &tm
			}
			if sc.EndsAt != "" {
				tm, err := b.at(cp+"/ends_at", sc.EndsAt)
				if err != nil {
					return nil, err
				}
				c.EndsAt = &tm
			}
			w.Cycles = append(w.Cycles, c)
		}
	}
	// Projects.
	for i, sp := range s.Projects {
		p := twins.Pointer("projects", i)
		if strings.TrimSpace(sp.Name) == "" {
			return nil, twins.SeedErrorf(p+"/name", "a project needs a name")
		}
		state := sp.State
		if state == "" {
			state = "planned"
		}
		if !slices.Contains(projectStates, state) {
			return nil, twins.SeedErrorf(p+"/state", "a project state is one of %s: %q", strings.Join(projectStates, ", "), state)
		}
		pr := &Project{ID: b.id(sp.ID), Name: sp.Name, Description: sp.Description, State: state, TeamIDs: []string{},
			SlugID: w.newSlug(), CreatedAt: b.now, UpdatedAt: b.now}
		for j, tk := range sp.Teams {
			t := w.findTeam(tk)
			if t == nil {
				return nil, twins.SeedErrorf(p+twins.Pointer("teams", j), "no team %q", tk)
			}
			pr.TeamIDs = append(pr.TeamIDs, t.ID)
		}
		lead, err := userRef(p+"/lead", sp.Lead)
		if err != nil {
			return nil, err
		}
		pr.LeadID = lead
		w.Projects = append(w.Projects, pr)
	}
	// Issues, numbered per team in seed order unless numbered.
	for i, si := range s.Issues {
		p := twins.Pointer("issues", i)
		t := w.findTeam(si.Team)
		if t == nil {
			return nil, twins.SeedErrorf(p+"/team", "no team %q", si.Team)
		}
		if strings.TrimSpace(si.Title) == "" {
			return nil, twins.SeedErrorf(p+"/title", "an issue needs a title")
		}
		if si.Priority < 0 || si.Priority > 4 {
			return nil, twins.SeedErrorf(p+"/priority", "priority is 0 (none) to 4 (low): %d", si.Priority)
		}
		num := si.Number
		if num == 0 {
			num = t.IssueCount + 1
		}
		for _, other := range w.Issues {
			if other.TeamID == t.ID && other.Number == num {
				return nil, twins.SeedErrorf(p+"/number", "duplicate issue %s-%d", t.Key, num)
			}
		}
		t.IssueCount = max(t.IssueCount, num)
		created, err := b.at(p+"/created_at", si.CreatedAt)
		if err != nil {
			return nil, err
		}
		updated := created
		if si.UpdatedAt != "" {
			if updated, err = b.at(p+"/updated_at", si.UpdatedAt); err != nil {
				return nil, err
			}
		}
		is := &Issue{ID: b.id(si.ID), TeamID: t.ID, Number: num, Identifier: fmt.Sprintf("%s-%d", t.Key, num), Title: si.Title,
			Description: si.Description, Priority: si.Priority, Estimate: si.Estimate, LabelIDs: []string{},
			SortOrder: float64(len(w.Issues)), CreatedAt: created, UpdatedAt: updated}
		st := t.defaultState()
		if si.State != "" {
			if st = t.findState(si.State); st == nil {
				return nil, twins.SeedErrorf(p+"/state", "team %s has no workflow state %q", t.Key, si.State)
			}
		}
		if st == nil {
			return nil, twins.SeedErrorf(p+"/state", "team %s has no workflow states", t.Key)
		}
		is.setState(st, updated)
		if is.AssigneeID, err = userRef(p+"/assignee", si.Assignee); err != nil {
			return nil, err
		}
		if is.CreatorID, err = userRef(p+"/creator", si.Creator); err != nil {
			return nil, err
		}
		if is.CreatorID == "" {
			is.CreatorID = w.ViewerID
		}
		for j, ln := range si.Labels {
			l := w.findLabel(t.ID, ln)
			if l == nil || l.TeamID != "" && l.TeamID != t.ID {
				return nil, twins.SeedErrorf(p+twins.Pointer("labels", j), "no label %q on team %s or the workspace", ln, t.Key)
			}
			if !slices.Contains(is.LabelIDs, l.ID) {
				is.LabelIDs = append(is.LabelIDs, l.ID)
			}
		}
		if si.Project != "" {
			pr := w.findProject(si.Project)
			if pr == nil {
				return nil, twins.SeedErrorf(p+"/project", "no project %q", si.Project)
			}
			is.ProjectID = pr.ID
		}
		if si.Cycle != "" {
			c := w.findCycle(t.ID, si.Cycle)
			if c == nil {
				return nil, twins.SeedErrorf(p+"/cycle", "team %s has no cycle %q", t.Key, si.Cycle)
			}
			is.CycleID = c.ID
		}
		if si.DueDate != "" {
			if !dateRE.MatchString(si.DueDate) {
				return nil, twins.SeedErrorf(p+"/due_date", "a due date is YYYY-MM-DD: %q", si.DueDate)
			}
			is.DueDate = si.DueDate
		}
		if si.Archived {
			a := updated
			is.ArchivedAt = &a
		}
		w.Issues = append(w.Issues, is)
		if err := b.comments(p+"/comments", is, "", si.Comments, userRef); err != nil {
			return nil, err
		}
	}
	// Parents, once every issue exists.
	for i, si := range s.Issues {
		if si.Parent == "" {
			continue
		}
		is := w.Issues[i]
		par := w.findIssue(si.Parent)
		if par == nil {
			par = issueByTitle(w, is.TeamID, si.Parent)
		}
		if par == nil || par == is {
			return nil, twins.SeedErrorf(twins.Pointer("issues", i, "parent"), "no issue %q to be the parent", si.Parent)
		}
		is.ParentID = par.ID
	}
	for i, sr := range s.Relations {
		p := twins.Pointer("relations", i)
		a, c := w.findIssue(sr.Issue), w.findIssue(sr.Related)
		if a == nil {
			return nil, twins.SeedErrorf(p+"/issue", "no issue %q", sr.Issue)
		}
		if c == nil || c == a {
			return nil, twins.SeedErrorf(p+"/related", "no other issue %q", sr.Related)
		}
		if !slices.Contains(relationTypes, sr.Type) {
			return nil, twins.SeedErrorf(p+"/type", "a relation type is one of %s: %q", strings.Join(relationTypes, ", "), sr.Type)
		}
		w.Relations = append(w.Relations, &Relation{ID: w.newID(), Type: sr.Type, IssueID: a.ID, RelatedIssueID: c.ID, CreatedAt: b.now})
	}
	for i, sd := range s.Documents {
		p := twins.Pointer("documents", i)
		if strings.TrimSpace(sd.Title) == "" {
			return nil, twins.SeedErrorf(p+"/title", "a document needs a title")
		}
		d := &Document{ID: b.id(sd.ID), Title: sd.Title, Content: sd.Content, SlugID: w.newSlug(), CreatedAt: b.now, UpdatedAt: b.now}
		switch {
		case sd.Project != "":
			pr := w.findProject(sd.Project)
			if pr == nil {
				return nil, twins.SeedErrorf(p+"/project", "no project %q", sd.Project)
			}
			d.ProjectID = pr.ID
		case sd.Issue != "":
			is := w.findIssue(sd.Issue)
			if is == nil {
				return nil, twins.SeedErrorf(p+"/issue", "no issue %q", sd.Issue)
			}
			d.IssueID = is.ID
		case sd.Team != "":
			t := w.findTeam(sd.Team)
			if t == nil {
				return nil, twins.SeedErrorf(p+"/team", "no team %q", sd.Team)
			}
			d.TeamID = t.ID
		}
		var err error
		if d.CreatorID, err = userRef(p+"/creator", sd.Creator); err != nil {
			return nil, err
		}
		w.Documents = append(w.Documents, d)
	}
	for _, tok := range s.Tokens {
		sum := sha256.Sum256([]byte(tok))
		w.TokenHashes = append(w.TokenHashes, hex.EncodeToString(sum[:]))
	}
	return w, nil
}

var projectStates = []string{"backlog", "planned", "started", "paused", "completed", "canceled"}

func guessStateType(name string) string {
	switch strings.ToLower(name) {
	case "backlog":
		return StateBacklog
	case "in progress", "in review", "started":
		return StateStarted
	case "done", "completed":
		return StateCompleted
	case "canceled", "cancelled", "duplicate":
		return StateCanceled
	case "triage":
		return StateTriage
	}
	return StateUnstarted
}

func issueByTitle(w *World, teamID, title string) *Issue {
	for _, is := range w.Issues {
		if (teamID == "" || is.TeamID == teamID) && is.Title == title {
			return is
		}
	}
	return nil
}

func (b *seedBuilder) labels(path, teamID string, ls []SeedLabel) error {
	w := b.w
	for i, sl := range ls {
		p := path + twins.Pointer(i)
		if strings.TrimSpace(sl.Name) == "" {
			return twins.SeedErrorf(p+"/name", "a label needs a name")
		}
		if sl.Color != "" && !colorRE.MatchString(sl.Color) {
			return twins.SeedErrorf(p+"/color", "a color is #rrggbb: %q", sl.Color)
		}
		for _, l := range w.Labels {
			if l.TeamID == teamID && strings.EqualFold(l.Name, sl.Name) {
				return twins.SeedErrorf(p+"/name", "duplicate label %q", sl.Name)
			}
		}
		l := &Label{ID: b.id(sl.ID), Name: sl.Name, Color: color(sl.Color, "#bec2c8"), Description: sl.Description,
			TeamID: teamID, IsGroup: sl.IsGroup, CreatedAt: b.now, UpdatedAt: b.now}
		if sl.Parent != "" {
			var par *Label
			for _, o := range w.Labels {
				if o.TeamID == teamID && strings.EqualFold(o.Name, sl.Parent) {
					par = o
				}
			}
			if par == nil || !par.IsGroup {
				return twins.SeedErrorf(p+"/parent", "no label group %q before this label", sl.Parent)
			}
			l.ParentID = par.ID
		}
		w.Labels = append(w.Labels, l)
	}
	return nil
}

func (b *seedBuilder) comments(path string, is *Issue, parent string, cs []SeedComment, userRef func(string, string) (string, error)) error {
	w := b.w
	for i, sc := range cs {
		p := path + twins.Pointer(i)
		if strings.TrimSpace(sc.Body) == "" {
			return twins.SeedErrorf(p+"/body", "a comment needs a body")
		}
		at, err := b.at(p+"/created_at", sc.CreatedAt)
		if err != nil {
			return err
		}
		if sc.ID != "" && w.comment(sc.ID) != nil {
			return twins.SeedErrorf(p+"/id", "duplicate comment id %q", sc.ID)
		}
		c := &Comment{ID: b.id(sc.ID), IssueID: is.ID, ParentID: parent, Body: sc.Body, CreatedAt: at, UpdatedAt: at}
		if sc.Parent != "" {
			par := w.comment(sc.Parent)
			if par == nil || par.IssueID != is.ID {
				return twins.SeedErrorf(p+"/parent", "no earlier comment %q on %s", sc.Parent, is.Identifier)
			}
			c.ParentID = par.ID
		}
		if c.UserID, err = userRef(p+"/user", sc.User); err != nil {
			return err
		}
		if c.UserID == "" {
			c.UserID = w.ViewerID
		}
		w.Comments = append(w.Comments, c)
		if err := b.comments(p+"/replies", is, c.ID, sc.Replies, userRef); err != nil {
			return err
		}
	}
	return nil
}
