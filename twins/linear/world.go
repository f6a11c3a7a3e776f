package linear

import (
	"context"
	"crypto/sha256"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pomehq/pome/twins"
)

// World is one sandbox's Linear workspace. Field names are Linear's own
// (camelCase, ids as Linear's GraphQL names them: stateId, labelIds,
// assigneeId), so the state document reads like the API and like the
// original Pome's export, which its checks address.
type World struct {
	Organization Organization `json:"organization"`
	// ViewerID is the user the sandbox's credentials act as.
	ViewerID  string      `json:"viewerId"`
	Users     []*User     `json:"users"`
	Teams     []*Team     `json:"teams"`
	Labels    []*Label    `json:"labels"`
	Projects  []*Project  `json:"projects"`
	Cycles    []*Cycle    `json:"cycles"`
	Issues    []*Issue    `json:"issues"`
	Comments  []*Comment  `json:"comments"`
	Relations []*Relation `json:"relations"`
	Documents []*Document `json:"documents"`
	// Tokens are credentials the seed declared (the original Pome's
	// tokens), kept as SHA-256 hashes: each opens this sandbox's twin.
	TokenHashes []string `json:"tokenHashes,omitempty"`
	// Seq numbers every id the twin mints, so ids are the same on every
	// run of the same seed.
	Seq int64 `json:"seq"`
}

// Organization is the workspace.
type Organization struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	URLKey string `json:"urlKey"`
}

// User is a workspace member.
type User struct {
	ID          string    `json:"id"`
	Name        string    `json:"name"`
	DisplayName string    `json:"displayName"`
	Email       string    `json:"email"`
	Active      bool      `json:"active"`
	Admin       bool      `json:"admin"`
	App         bool      `json:"app"`
	CreatedAt   time.Time `json:"createdAt"`
}

// Team is a Linear team: its key prefixes its issues' identifiers, and it
// numbers them (IssueCount is the last number handed out).
type Team struct {
	ID          string    `json:"id"`
	Key         string    `json:"key"`
	Name        string    `json:"name"`
	Description string    `json:"description,omitempty"`
	Private     bool      `json:"private"`
	States      []*State  `json:"states"`
	IssueCount  int       `json:"issueCount"`
	CreatedAt   time.Time `json:"createdAt"`
	UpdatedAt   time.Time `json:"updatedAt"`
}

// State types, Linear's WorkflowState.type.
const (
	StateBacklog   = "backlog"
	StateUnstarted = "unstarted"
	StateStarted   = "started"
	StateCompleted = "completed"
	StateCanceled  = "canceled"
	StateTriage    = "triage"
)

var stateTypes = []string{StateBacklog, StateUnstarted, StateStarted, StateCompleted, StateCanceled, StateTriage}

// State is one workflow state of a team.
type State struct {
	ID          string    `json:"id"`
	TeamID      string    `json:"teamId"`
	Name        string    `json:"name"`
	Type        string    `json:"type"`
	Color       string    `json:"color"`
	Position    float64   `json:"position"`
	Description string    `json:"description,omitempty"`
	CreatedAt   time.Time `json:"createdAt"`
}

// Label is an issue label: a team's (TeamID set) or the workspace's.
type Label struct {
	ID          string    `json:"id"`
	Name        string    `json:"name"`
	Color       string    `json:"color"`
	Description string    `json:"description,omitempty"`
	TeamID      string    `json:"teamId,omitempty"`
	ParentID    string    `json:"parentId,omitempty"`
	IsGroup     bool      `json:"isGroup"`
	CreatedAt   time.Time `json:"createdAt"`
	UpdatedAt   time.Time `json:"updatedAt"`
}

// Project is a Linear project.
type Project struct {
	ID          string    `json:"id"`
	Name        string    `json:"name"`
	Description string    `json:"description,omitempty"`
	Summary     string    `json:"summary,omitempty"`
	State       string    `json:"state"`
	TeamIDs     []string  `json:"teamIds"`
	LeadID      string    `json:"leadId,omitempty"`
	SlugID      string    `json:"slugId"`
	Priority    int       `json:"priority"`
	Icon        string    `json:"icon,omitempty"`
	Color       string    `json:"color,omitempty"`
	StartDate   string    `json:"startDate,omitempty"`
	TargetDate  string    `json:"targetDate,omitempty"`
	CreatedAt   time.Time `json:"createdAt"`
	UpdatedAt   time.Time `json:"updatedAt"`
}

// Cycle is a team's iteration.
type Cycle struct {
	ID        string     `json:"id"`
	TeamID    string     `json:"teamId"`
	Name      string     `json:"name,omitempty"`
	Number    int        `json:"number"`
	StartsAt  *time.Time `json:"startsAt,omitempty"`
	EndsAt    *time.Time `json:"endsAt,omitempty"`
	CreatedAt time.Time  `json:"createdAt"`
}

// Issue is a Linear issue. Priority is 0 (none) to 4 (low); Estimate is
// nil when unset.
type Issue struct {
	ID          string     `json:"id"`
	TeamID      string     `json:"teamId"`
	Number      int        `json:"number"`
	Identifier  string     `json:"identifier"`
	Title       string     `json:"title"`
	Description string     `json:"description,omitempty"`
	Priority    int        `json:"priority"`
	Estimate    *float64   `json:"estimate"`
	StateID     string     `json:"stateId"`
	AssigneeID  string     `json:"assigneeId,omitempty"`
	CreatorID   string     `json:"creatorId,omitempty"`
	DelegateID  string     `json:"delegateId,omitempty"`
	ProjectID   string     `json:"projectId,omitempty"`
	CycleID     string     `json:"cycleId,omitempty"`
	ParentID    string     `json:"parentId,omitempty"`
	LabelIDs    []string   `json:"labelIds"`
	DueDate     string     `json:"dueDate,omitempty"`
	SortOrder   float64    `json:"sortOrder"`
	CreatedAt   time.Time  `json:"createdAt"`
	UpdatedAt   time.Time  `json:"updatedAt"`
	StartedAt   *time.Time `json:"startedAt,omitempty"`
	CompletedAt *time.Time `json:"completedAt,omitempty"`
	CanceledAt  *time.Time `json:"canceledAt,omitempty"`
	ArchivedAt  *time.Time `json:"archivedAt,omitempty"`
}

// Comment is a comment on an issue; ParentID makes it a threaded reply.
type Comment struct {
	ID        string     `json:"id"`
	IssueID   string     `json:"issueId"`
	ParentID  string     `json:"parentId,omitempty"`
	Body      string     `json:"body"`
	UserID    string     `json:"userId,omitempty"`
	CreatedAt time.Time  `json:"createdAt"`
	UpdatedAt time.Time  `json:"updatedAt"`
	EditedAt  *time.Time `json:"editedAt,omitempty"`
}

// Relation types, Linear's IssueRelationType.
var relationTypes = []string{"blocks", "duplicate", "related", "similar"}

// Relation links two issues: IssueID blocks (duplicates, relates to)
// RelatedIssueID.
type Relation struct {
	ID             string    `json:"id"`
	Type           string    `json:"type"`
	IssueID        string    `json:"issueId"`
	RelatedIssueID string    `json:"relatedIssueId"`
	CreatedAt      time.Time `json:"createdAt"`
}

// Document is a Linear document attached to a project, team, issue or cycle.
type Document struct {
	ID        string    `json:"id"`
	Title     string    `json:"title"`
	Content   string    `json:"content,omitempty"`
	SlugID    string    `json:"slugId"`
	ProjectID string    `json:"projectId,omitempty"`
	TeamID    string    `json:"teamId,omitempty"`
	IssueID   string    `json:"issueId,omitempty"`
	CycleID   string    `json:"cycleId,omitempty"`
	Icon      string    `json:"icon,omitempty"`
	Color     string    `json:"color,omitempty"`
	CreatorID string    `json:"creatorId,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// newID mints the next id: a UUID, as Linear's ids are, derived from the
// world's counter so that a seed gives the same ids on every run.
func (w *World) newID() string {
	w.Seq++
	h := sha256.Sum256([]byte("linear:" + strconv.FormatInt(w.Seq, 10)))
	x := fmt.Sprintf("%x", h[:16])
	return x[0:8] + "-" + x[8:12] + "-4" + x[13:16] + "-8" + x[17:20] + "-" + x[20:32]
}

// newSlug mints a short slug id (projects, documents).
func (w *World) newSlug() string {
	w.Seq++
	h := sha256.Sum256([]byte("slug:" + strconv.FormatInt(w.Seq, 10)))
	return fmt.Sprintf("%x", h[:6])
}

func now(ctx context.Context) time.Time {
	return twins.EnvFrom(ctx).Now().UTC().Truncate(time.Millisecond)
}

// Lookups. Each takes what Linear's MCP server takes: an id, or a key,
// name, identifier or email, case-insensitively where Linear is.

func (w *World) user(id string) *User {
	for _, u := range w.Users {
		if u.ID == id {
			return u
		}
	}
	return nil
}

func (w *World) viewer() *User { return w.user(w.ViewerID) }

// findUser resolves "me", an id, an email, a name or a display name.
func (w *World) findUser(ref string) *User {
	if strings.EqualFold(ref, "me") {
		return w.viewer()
	}
	for _, u := range w.Users {
		if u.ID == ref || strings.EqualFold(u.Email, ref) {
			return u
		}
	}
	for _, u := range w.Users {
		if strings.EqualFold(u.Name, ref) || strings.EqualFold(u.DisplayName, ref) {
			return u
		}
	}
	return nil
}

func (w *World) team(id string) *Team {
	for _, t := range w.Teams {
		if t.ID == id {
			return t
		}
	}
	return nil
}

// findTeam resolves an id, a key or a name.
func (w *World) findTeam(ref string) *Team {
	for _, t := range w.Teams {
		if t.ID == ref || strings.EqualFold(t.Key, ref) {
			return t
		}
	}
	for _, t := range w.Teams {
		if strings.EqualFold(t.Name, ref) {
			return t
		}
	}
	return nil
}

func (w *World) state(id string) *State {
	for _, t := range w.Teams {
		for _, s := range t.States {
			if s.ID == id {
				return s
			}
		}
	}
	return nil
}

// findState resolves a state of the team by id, name or type (the first
// state of that type by position).
func (t *Team) findState(ref string) *State {
	for _, s := range t.States {
		if s.ID == ref || strings.EqualFold(s.Name, ref) {
			return s
		}
	}
	for _, s := range t.sortedStates() {
		if strings.EqualFold(s.Type, ref) {
			return s
		}
	}
	return nil
}

func (t *Team) sortedStates() []*State {
	out := slices.Clone(t.States)
	slices.SortStableFunc(out, func(a, b *State) int {
		switch {
		case a.Position < b.Position:
			return -1
		case a.Position > b.Position:
			return 1
		}
		return 0
	})
	return out
}

// defaultState is where a new issue starts: the first unstarted state
// (Linear's "Todo"), else the first backlog one, else the first.
func (t *Team) defaultState() *State {
	for _, typ := range []string{StateUnstarted, StateBacklog} {
		for _, s := range t.sortedStates() {
			if s.Type == typ {
				return s
			}
		}
	}
	if len(t.States) > 0 {
		return t.sortedStates()[0]
	}
	return nil
}

func (w *World) label(id string) *Label {
	for _, l := range w.Labels {
		if l.ID == id {
			return l
		}
	}
	return nil
}

// findLabel resolves a label by id or name among those a team's issues may
// carry: the team's own first, then the workspace's.
func (w *World) findLabel(teamID, ref string) *Label {
	for _, l := range w.Labels {
		if l.ID == ref && (l.TeamID == "" || l.TeamID == teamID || teamID == "") {
			return l
		}
	}
	for _, scope := range []string{teamID, ""} {
		for _, l := range w.Labels {
			if l.TeamID == scope && strings.EqualFold(l.Name, ref) {
				return l
			}
		}
	}
	if teamID == "" {
		for _, l := range w.Labels {
			if strings.EqualFold(l.Name, ref) {
				return l
			}
		}
	}
	return nil
}

func (w *World) issue(id string) *Issue {
	for _, is := range w.Issues {
		if is.ID == id {
			return is
		}
	}
	return nil
}

var identifierRE = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9]*)-([0-9]+)$`)

// findIssue resolves an id or an identifier (ENG-12, any case).
func (w *World) findIssue(ref string) *Issue {
	if is := w.issue(ref); is != nil {
		return is
	}
	if m := identifierRE.FindStringSubmatch(ref); m != nil {
		for _, is := range w.Issues {
			if strings.EqualFold(is.Identifier, ref) {
				return is
			}
		}
	}
	return nil
}

func (w *World) project(id string) *Project {
	for _, p := range w.Projects {
		if p.ID == id {
			return p
		}
	}
	return nil
}

// findProject resolves an id, a slug or a name.
func (w *World) findProject(ref string) *Project {
	for _, p := range w.Projects {
		if p.ID == ref || p.SlugID == ref || strings.EqualFold(p.Name, ref) {
			return p
		}
	}
	return nil
}

func (w *World) cycle(id string) *Cycle {
	for _, c := range w.Cycles {
		if c.ID == id {
			return c
		}
	}
	return nil
}

// findCycle resolves an id, a number or a name, within a team when one is
// given.
func (w *World) findCycle(teamID, ref string) *Cycle {
	for _, c := range w.Cycles {
		if teamID != "" && c.TeamID != teamID {
			continue
		}
		if c.ID == ref || strconv.Itoa(c.Number) == ref || (c.Name != "" && strings.EqualFold(c.Name, ref)) {
			return c
		}
	}
	return nil
}

func (w *World) comment(id string) *Comment {
	for _, c := range w.Comments {
		if c.ID == id {
			return c
		}
	}
	return nil
}

func (w *World) document(ref string) *Document {
	for _, d := range w.Documents {
		if d.ID == ref || d.SlugID == ref {
			return d
		}
	}
	return nil
}

// issueComments are an issue's comments, oldest first.
func (w *World) issueComments(issueID string) []*Comment {
	var out []*Comment
	for _, c := range w.Comments {
		if c.IssueID == issueID {
			out = append(out, c)
		}
	}
	return out
}

// children are an issue's sub-issues.
func (w *World) children(issueID string) []*Issue {
	var out []*Issue
	for _, is := range w.Issues {
		if is.ParentID == issueID {
			out = append(out, is)
		}
	}
	return out
}

// issueURL is the issue's address in Linear's web app.
func (w *World) issueURL(is *Issue) string {
	return "https://linear.app/" + w.Organization.URLKey + "/issue/" + strings.ToLower(is.Identifier) + "/" + slugify(is.Title)
}

func slugify(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimSuffix(b.String(), "-")
}

// setState moves an issue to a state and stamps Linear's lifecycle times.
func (is *Issue) setState(s *State, at time.Time) {
	is.StateID = s.ID
	t := at
	switch s.Type {
	case StateStarted:
		if is.StartedAt == nil {
			is.StartedAt = &t
		}
		is.CompletedAt, is.CanceledAt = nil, nil
	case StateCompleted:
		is.CompletedAt, is.CanceledAt = &t, nil
	case StateCanceled:
		is.CanceledAt, is.CompletedAt = &t, nil
	default:
		is.StartedAt, is.CompletedAt, is.CanceledAt = nil, nil, nil
	}
}

// priorityLabel is Linear's name for a priority.
func priorityLabel(p int) string {
	switch p {
	case 1:
		return "Urgent"
	case 2:
		return "High"
	case 3:
		return "Medium"
	case 4:
		return "Low"
	}
	return "No priority"
}

// defaultStates is the workflow Linear gives a new team.
func defaultStates() []struct{ name, typ, color string } {
	return []struct{ name, typ, color string }{
		{"Backlog", StateBacklog, "#bec2c8"},
		{"Todo", StateUnstarted, "#e2e2e2"},
		{"In Progress", StateStarted, "#f2c94c"},
		{"In Review", StateStarted, "#0f783c"},
		{"Done", StateCompleted, "#5e6ad2"},
		{"Canceled", StateCanceled, "#95a2b3"},
		{"Duplicate", StateCanceled, "#95a2b3"},
	}
}
