package github

import (
	"cmp"
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/pomehq/pome/twins"
)

// Seed is the GitHub seed document (see the package documentation for an
// example). Every key is optional except where noted; unknown keys, wrong
// types and broken references are errors naming the JSON path.
type Seed struct {
	// Clock fixes the time stamped on seeded objects (RFC 3339); without it
	// they carry the sandbox clock's time at creation.
	Clock string `json:"clock,omitempty"`
	// Me is the authenticated user's login (default "pome-agent"); it is
	// added to users when not listed.
	Me    string     `json:"me,omitempty"`
	Users []SeedUser `json:"users,omitempty"`
	Orgs  []SeedOrg  `json:"orgs,omitempty"`
	Repos []SeedRepo `json:"repos,omitempty"`
}

// SeedUser is a user account.
type SeedUser struct {
	Login    string `json:"login"`
	Name     string `json:"name,omitempty"`
	Email    string `json:"email,omitempty"`
	Bio      string `json:"bio,omitempty"`
	Company  string `json:"company,omitempty"`
	Location string `json:"location,omitempty"`
}

// SeedOrg is an organization; members must be users.
type SeedOrg struct {
	Login       string   `json:"login"`
	Name        string   `json:"name,omitempty"`
	Description string   `json:"description,omitempty"`
	Members     []string `json:"members,omitempty"`
	// Teams' members must be members of the organization.
	Teams []SeedTeam `json:"teams,omitempty"`
	// IssueTypes are the types its repositories' issues may take.
	IssueTypes []SeedIssueType `json:"issue_types,omitempty"`
	// IssueFields are the custom fields its repositories' issues have.
	IssueFields []SeedIssueField `json:"issue_fields,omitempty"`
}

// SeedIssueField is an organization's issue field: data_type text,
// number, date or single_select (which needs options).
type SeedIssueField struct {
	Name        string                 `json:"name"`
	DataType    string                 `json:"data_type"`
	Description string                 `json:"description,omitempty"`
	Options     []SeedIssueFieldOption `json:"options,omitempty"`
}

// SeedIssueFieldOption is an option of a single select field.
type SeedIssueFieldOption struct {
	Name        string `json:"name"`
	Color       string `json:"color,omitempty"`
	Description string `json:"description,omitempty"`
}

// SeedTeam is a team of an organization; its slug defaults to its name in
// lower case with runs of other characters as "-", as GitHub makes it.
type SeedTeam struct {
	Name        string   `json:"name"`
	Slug        string   `json:"slug,omitempty"`
	Description string   `json:"description,omitempty"`
	Members     []string `json:"members,omitempty"`
}

// SeedIssueType is an organization's issue type; enabled by default.
type SeedIssueType struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Color       string `json:"color,omitempty"`
	Enabled     *bool  `json:"enabled,omitempty"`
}

// SeedRepo is a repository with its content and its issue tracker.
type SeedRepo struct {
	Owner         string   `json:"owner"`
	Name          string   `json:"name"`
	Description   string   `json:"description,omitempty"`
	Private       bool     `json:"private,omitempty"`
	DefaultBranch string   `json:"default_branch,omitempty"`
	Topics        []string `json:"topics,omitempty"`
	// Files are the default branch's files (path → text content), committed
	// as one initial commit.
	Files         map[string]string `json:"files,omitempty"`
	Branches      []SeedBranch      `json:"branches,omitempty"`
	Labels        []SeedLabel       `json:"labels,omitempty"`
	Collaborators []string          `json:"collaborators,omitempty"`
	Milestones    []SeedMilestone   `json:"milestones,omitempty"`
	Issues        []SeedIssue       `json:"issues,omitempty"`
	Pulls         []SeedPull        `json:"pulls,omitempty"`
	Statuses      []SeedStatus      `json:"statuses,omitempty"`
	CheckRuns     []SeedCheckRun    `json:"check_runs,omitempty"`
	Tags          []SeedTag         `json:"tags,omitempty"`
	Releases      []SeedRelease     `json:"releases,omitempty"`
}

// SeedBranch is a branch cut from another branch (default: the default
// branch, which must be listed earlier); Files are changed on top of it in
// one commit (a null value deletes the file).
type SeedBranch struct {
	Name      string             `json:"name"`
	From      string             `json:"from,omitempty"`
	Message   string             `json:"message,omitempty"`
	Files     map[string]*string `json:"files,omitempty"`
	Protected bool               `json:"protected,omitempty"`
}

// SeedLabel is a repository label.
type SeedLabel struct {
	Name        string `json:"name"`
	Color       string `json:"color,omitempty"`
	Description string `json:"description,omitempty"`
}

// SeedMilestone is a milestone; Number defaults to its position (1-based).
type SeedMilestone struct {
	Number      int    `json:"number,omitempty"`
	Title       string `json:"title"`
	Description string `json:"description,omitempty"`
	State       string `json:"state,omitempty"`
	DueOn       string `json:"due_on,omitempty"`
}

// SeedComment is an issue or pull request comment.
type SeedComment struct {
	User      string `json:"user,omitempty"`
	Body      string `json:"body"`
	CreatedAt string `json:"created_at,omitempty"`
}

// SeedIssue is an issue. Issues and pulls share one number sequence; a
// missing number takes the next free one.
type SeedIssue struct {
	Number      int           `json:"number,omitempty"`
	Title       string        `json:"title"`
	Body        string        `json:"body,omitempty"`
	State       string        `json:"state,omitempty"`
	StateReason string        `json:"state_reason,omitempty"`
	User        string        `json:"user,omitempty"`
	Labels      []string      `json:"labels,omitempty"`
	Assignees   []string      `json:"assignees,omitempty"`
	Milestone   int           `json:"milestone,omitempty"`
	Locked      bool          `json:"locked,omitempty"`
	Comments    []SeedComment `json:"comments,omitempty"`
	CreatedAt   string        `json:"created_at,omitempty"`
	// Type is one of the owning organization's issue types.
	Type string `json:"type,omitempty"`
	// FieldValues are values of the organization's issue fields, by field
	// name: text, a number, a date (YYYY-MM-DD) or an option's name.
	FieldValues map[string]any `json:"field_values,omitempty"`
}

// SeedPull is a pull request from head into base (both branches of the
// repository). State "merged" merges it at seed time.
type SeedPull struct {
	Number             int           `json:"number,omitempty"`
	Title              string        `json:"title"`
	Body               string        `json:"body,omitempty"`
	State              string        `json:"state,omitempty"`
	User               string        `json:"user,omitempty"`
	Head               string        `json:"head"`
	Base               string        `json:"base,omitempty"`
	Draft              bool          `json:"draft,omitempty"`
	Labels             []string      `json:"labels,omitempty"`
	Assignees          []string      `json:"assignees,omitempty"`
	Milestone          int           `json:"milestone,omitempty"`
	RequestedReviewers []string      `json:"requested_reviewers,omitempty"`
	Reviews            []SeedReview  `json:"reviews,omitempty"`
	Comments           []SeedComment `json:"comments,omitempty"`
	CreatedAt          string        `json:"created_at,omitempty"`

	// reviewComments come from a seed in the original Pome's format.
	reviewComments []origReviewComment
}

// SeedReview is a submitted pull request review.
type SeedReview struct {
	User  string `json:"user"`
	State string `json:"state"`
	Body  string `json:"body,omitempty"`
}

// SeedStatus is a commit status on a ref (branch, tag or sha).
type SeedStatus struct {
	Ref         string `json:"ref"`
	State       string `json:"state"`
	Context     string `json:"context,omitempty"`
	Description string `json:"description,omitempty"`
	TargetURL   string `json:"target_url,omitempty"`
}

// SeedCheckRun is a check run on a ref.
type SeedCheckRun struct {
	Ref        string `json:"ref"`
	Name       string `json:"name"`
	Status     string `json:"status,omitempty"`
	Conclusion string `json:"conclusion,omitempty"`
}

// SeedTag is a lightweight tag on a ref (default: the default branch).
type SeedTag struct {
	Name string `json:"name"`
	Ref  string `json:"ref,omitempty"`
}

// SeedRelease is a release; its tag is created on the default branch when
// not listed in tags.
type SeedRelease struct {
	TagName    string `json:"tag_name"`
	Name       string `json:"name,omitempty"`
	Body       string `json:"body,omitempty"`
	Draft      bool   `json:"draft,omitempty"`
	Prerelease bool   `json:"prerelease,omitempty"`

	// target and author come from a seed in the original Pome's format:
	// the ref a missing tag is created on, and the release's author.
	target, author string
}

// DefaultSeed is the default world of SPEC §9, written as a seed so that it
// goes through exactly the same construction as any other seed.
func DefaultSeed() *Seed {
	return &Seed{
		Me: "pome-agent",
		Users: []SeedUser{
			{Login: "alice", Name: "Alice"},
			{Login: "bob", Name: "Bob"},
			{Login: "pome-agent", Name: "Pome Agent"},
		},
		Orgs: []SeedOrg{{Login: "acme", Name: "Acme", Members: []string{"alice", "bob", "pome-agent"}}},
		Repos: []SeedRepo{{
			Owner: "acme", Name: "api", Description: "Acme orders API", DefaultBranch: "main",
			Files: map[string]string{"README.md": "# api\n\nThe Acme orders API.\n"},
			Labels: []SeedLabel{
				{Name: "bug", Color: "d73a4a", Description: "Something isn't working"},
				{Name: "feature", Color: "a2eeef", Description: "New feature or request"},
				{Name: "question", Color: "d876e3", Description: "Further information is requested"},
			},
			Collaborators: []string{"alice", "bob", "pome-agent"},
			Issues: []SeedIssue{{
				Number: 1, Title: "500 error on POST /orders after deploy", User: "alice",
				Body: "Since this morning's deploy, POST /orders answers 500 for every request.",
			}},
		}},
	}
}

// newWorld builds the world from a seed document; nil means the default
// world.
func newWorld(ctx context.Context, raw json.RawMessage) (*World, error) {
	var s *Seed
	if raw == nil || strings.TrimSpace(string(raw)) == "null" {
		s = DefaultSeed()
	} else if isOriginalSeed(raw) {
		return newWorldOriginal(ctx, raw)
	} else {
		s = new(Seed)
		if err := twins.DecodeSeed(raw, s); err != nil {
			return nil, err
		}
	}
	return buildWorld(ctx, s)
}

var (
	loginRE = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9]|-[A-Za-z0-9])*(?:\[bot\])?$`)
	repoRE  = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)
	colorRE = regexp.MustCompile(`^[0-9a-fA-F]{6}$`)
)

// seedBuilder carries the clock and turns seed errors into SeedErrors.
type seedBuilder struct {
	w   *World
	now time.Time
}

func (b *seedBuilder) at(path, s string) (time.Time, error) {
	if s == "" {
		return b.now, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, twins.SeedErrorf(path, "not an RFC 3339 time: %q", s)
	}
	return t.UTC(), nil
}

func buildWorld(ctx context.Context, s *Seed) (*World, error) {
	b := &seedBuilder{w: &World{Users: []*User{}, Orgs: []*Org{}, Repos: []*Repo{}}, now: twins.EnvFrom(ctx).Now().UTC().Truncate(time.Second)}
	if s.Clock != "" {
		t, err := b.at("/clock", s.Clock)
		if err != nil {
			return nil, err
		}
		b.now = t
	}
	w := b.w
	w.Me = s.Me
	if w.Me == "" {
		w.Me = "pome-agent"
	}
	if !loginRE.MatchString(w.Me) {
		return nil, twins.SeedErrorf("/me", "invalid login %q", w.Me)
	}
	for i, su := range s.Users {
		p := twins.Pointer("users", i, "login")
		if !loginRE.MatchString(su.Login) {
			return nil, twins.SeedErrorf(p, "invalid login %q", su.Login)
		}
		if w.user(su.Login) != nil {
			return nil, twins.SeedErrorf(p, "duplicate login %q", su.Login)
		}
		w.Users = append(w.Users, &User{ID: w.nextID(), Login: su.Login, Name: su.Name, Email: su.Email, Bio: su.Bio, Company: su.Company, Location: su.Location, CreatedAt: b.now})
	}
	if w.user(w.Me) == nil {
		w.Users = append(w.Users, &User{ID: w.nextID(), Login: w.Me, CreatedAt: b.now})
	}
	for i, so := range s.Orgs {
		p := twins.Pointer("orgs", i, "login")
		if !loginRE.MatchString(so.Login) {
			return nil, twins.SeedErrorf(p, "invalid login %q", so.Login)
		}
		if w.user(so.Login) != nil || w.org(so.Login) != nil {
			return nil, twins.SeedErrorf(p, "login %q is already taken", so.Login)
		}
		o := &Org{ID: w.nextID(), Login: so.Login, Name: so.Name, Description: so.Description, Members: []string{}, CreatedAt: b.now}
		for j, m := range so.Members {
			u := w.user(m)
			if u == nil {
				return nil, twins.SeedErrorf(twins.Pointer("orgs", i, "members", j), "unknown user %q", m)
			}
			o.Members = append(o.Members, u.Login)
		}
		if err := b.orgTeams(i, o, so); err != nil {
			return nil, err
		}
		w.Orgs = append(w.Orgs, o)
	}
	for i := range s.Repos {
		if err := b.repo(i, &s.Repos[i]); err != nil {
			return nil, err
		}
	}
	w.indexIssues()
	return w, nil
}

// login resolves a user reference to its canonical spelling; "" means def.
func (b *seedBuilder) login(path, login, def string) (string, error) {
	if login == "" {
		login = def
	}
	u := b.w.user(login)
	if u == nil {
		return "", twins.SeedErrorf(path, "unknown user %q", login)
	}
	return u.Login, nil
}

func (b *seedBuilder) repo(i int, sr *SeedRepo) error {
	w := b.w
	rp := func(segs ...any) string { return twins.Pointer(append([]any{"repos", i}, segs...)...) }
	var owner string
	if u := w.user(sr.Owner); u != nil {
		owner = u.Login
	} else if o := w.org(sr.Owner); o != nil {
		owner = o.Login
	} else {
		return twins.SeedErrorf(rp("owner"), "unknown user or organization %q", sr.Owner)
	}
	if !repoRE.MatchString(sr.Name) {
		return twins.SeedErrorf(rp("name"), "invalid repository name %q", sr.Name)
	}
	if r, _ := w.repoIndex(owner, sr.Name); r != nil {
		return twins.SeedErrorf(rp("name"), "repository %s/%s is listed twice", owner, sr.Name)
	}
	r := &Repo{
		ID: w.nextID(), Owner: owner, Name: sr.Name, Description: sr.Description, Private: sr.Private,
		DefaultBranch: sr.DefaultBranch, Topics: append([]string{}, sr.Topics...),
		CreatedAt: b.now, UpdatedAt: b.now, PushedAt: b.now,
		Collaborators: []string{}, Labels: []*Label{}, Milestones: []*Milestone{}, Issues: []*Issue{},
		Branches: []*Branch{}, Commits: []*Commit{}, Blobs: map[string][]byte{},
		Statuses: []*Status{}, CheckRuns: []*CheckRun{}, Tags: []*Tag{}, Releases: []*Release{},
	}
	if r.DefaultBranch == "" {
		r.DefaultBranch = "main"
	}
	tree := map[string]string{}
	for path, content := range sr.Files {
		if err := checkFilePath(path); err != nil {
			return twins.SeedErrorf(rp("files", path), "%v", err)
		}
		tree[path] = r.putBlob([]byte(content))
	}
	c := r.addCommit(tree, []string{}, "Initial commit", owner, b.now)
	r.Branches = append(r.Branches, &Branch{Name: r.DefaultBranch, SHA: c.SHA})
	for j, sb := range sr.Branches {
		if sb.Name == "" || r.branch(sb.Name) != nil {
			return twins.SeedErrorf(rp("branches", j, "name"), "branch name %q is empty or already exists", sb.Name)
		}
		from := sb.From
		if from == "" {
			from = r.DefaultBranch
		}
		fb := r.branch(from)
		if fb == nil {
			return twins.SeedErrorf(rp("branches", j, "from"), "unknown branch %q (branches must be listed after the branch they start from)", from)
		}
		sha := fb.SHA
		if len(sb.Files) > 0 {
			parent := r.commit(sha)
			next := copyTree(parent.Tree)
			for path, content := range sb.Files {
				if err := checkFilePath(path); err != nil {
					return twins.SeedErrorf(rp("branches", j, "files", path), "%v", err)
				}
				if content == nil {
					delete(next, path)
					continue
				}
				next[path] = r.putBlob([]byte(*content))
			}
			msg := sb.Message
			if msg == "" {
				msg = "Update " + sb.Name
			}
			sha = r.addCommit(next, []string{sha}, msg, owner, b.now).SHA
		}
		r.Branches = append(r.Branches, &Branch{Name: sb.Name, SHA: sha, Protected: sb.Protected})
	}
	for j, l := range sr.Labels {
		if strings.TrimSpace(l.Name) == "" || r.label(l.Name) != nil {
			return twins.SeedErrorf(rp("labels", j, "name"), "label name %q is empty or already defined", l.Name)
		}
		color := l.Color
		if color == "" {
			color = "ededed"
		}
		if !colorRE.MatchString(color) {
			return twins.SeedErrorf(rp("labels", j, "color"), "color must be 6 hex digits, got %q", l.Color)
		}
		r.Labels = append(r.Labels, &Label{ID: w.nextID(), Name: l.Name, Color: strings.ToLower(color), Description: l.Description})
	}
	for j, c := range sr.Collaborators {
		login, err := b.login(rp("collaborators", j), c, "")
		if err != nil {
			return err
		}
		if !containsFold(r.Collaborators, login) {
			r.Collaborators = append(r.Collaborators, login)
		}
	}
	for j, sm := range sr.Milestones {
		n := sm.Number
		if n == 0 {
			n = j + 1
		}
		if r.milestone(n) != nil {
			return twins.SeedErrorf(rp("milestones", j, "number"), "milestone number %d is used twice", n)
		}
		if sm.Title == "" {
			return twins.SeedErrorf(rp("milestones", j, "title"), "title is required")
		}
		state := sm.State
		if state == "" {
			state = "open"
		}
		if state != "open" && state != "closed" {
			return twins.SeedErrorf(rp("milestones", j, "state"), "state must be open or closed, got %q", sm.State)
		}
		m := &Milestone{ID: w.nextID(), Number: n, Title: sm.Title, Description: sm.Description, State: state, Creator: owner, CreatedAt: b.now, UpdatedAt: b.now}
		if w.user(owner) == nil {
			m.Creator = w.Me
		}
		if sm.DueOn != "" {
			t, err := b.at(rp("milestones", j, "due_on"), sm.DueOn)
			if err != nil {
				return err
			}
			m.DueOn = &t
		}
		if state == "closed" {
			t := b.now
			m.ClosedAt = &t
		}
		r.Milestones = append(r.Milestones, m)
	}
	// Explicit numbers first, so automatic ones never collide with them.
	used := map[int]bool{}
	for j, si := range sr.Issues {
		if si.Number != 0 {
			if used[si.Number] {
				return twins.SeedErrorf(rp("issues", j, "number"), "number %d is used twice", si.Number)
			}
			used[si.Number] = true
		}
	}
	for j, sp := range sr.Pulls {
		if sp.Number != 0 {
			if used[sp.Number] {
				return twins.SeedErrorf(rp("pulls", j, "number"), "number %d is used twice (issues and pull requests share numbers)", sp.Number)
			}
			used[sp.Number] = true
		}
	}
	next := 1
	number := func(n int) int {
		if n != 0 {
			return n
		}
		for used[next] {
			next++
		}
		used[next] = true
		return next
	}
	for j := range sr.Issues {
		si := &sr.Issues[j]
		is, err := b.issueCommon(r, rp, "issues", j, number(si.Number), si.Title, si.Body, si.State, si.User, si.Labels, si.Assignees, si.Milestone, si.Comments, si.CreatedAt)
		if err != nil {
			return err
		}
		if err := b.issueFieldValues(r, is, si.FieldValues, rp("issues", j, "field_values")); err != nil {
			return err
		}
		if si.Type != "" {
			t := b.w.repoIssueType(r, si.Type)
			if t == nil {
				return twins.SeedErrorf(rp("issues", j, "type"), "%s has no enabled issue type %q", r.Owner, si.Type)
			}
			is.Type = t.Name
		}
		switch si.StateReason {
		case "":
			if is.State == "closed" {
				is.StateReason = "completed"
			}
		case "completed", "not_planned", "duplicate", "reopened":
			is.StateReason = si.StateReason
		default:
			return twins.SeedErrorf(rp("issues", j, "state_reason"), "state_reason must be completed, not_planned, duplicate or reopened, got %q", si.StateReason)
		}
		is.Locked = si.Locked
		r.Issues = append(r.Issues, is)
	}
	for j := range sr.Pulls {
		if err := b.pull(r, rp, j, &sr.Pulls[j], number(sr.Pulls[j].Number)); err != nil {
			return err
		}
	}
	sort.Slice(r.Issues, func(a, c int) bool { return r.Issues[a].Number < r.Issues[c].Number })
	for _, is := range r.Issues {
		r.NextNumber = max(r.NextNumber, is.Number)
	}
	r.NextNumber++
	for j, st := range sr.Statuses {
		c := r.resolve(st.Ref)
		if c == nil {
			return twins.SeedErrorf(rp("statuses", j, "ref"), "unknown ref %q", st.Ref)
		}
		if !validStatusState(st.State) {
			return twins.SeedErrorf(rp("statuses", j, "state"), "state must be error, failure, pending or success, got %q", st.State)
		}
		ctxName := st.Context
		if ctxName == "" {
			ctxName = "default"
		}
		r.Statuses = append(r.Statuses, &Status{ID: w.nextID(), SHA: c.SHA, State: st.State, Context: ctxName, Description: st.Description, TargetURL: st.TargetURL, Creator: w.Me, CreatedAt: b.now, UpdatedAt: b.now})
	}
	for j, sc := range sr.CheckRuns {
		c := r.resolve(sc.Ref)
		if c == nil {
			return twins.SeedErrorf(rp("check_runs", j, "ref"), "unknown ref %q", sc.Ref)
		}
		if sc.Name == "" {
			return twins.SeedErrorf(rp("check_runs", j, "name"), "name is required")
		}
		cr, err := newCheckRun(w, c.SHA, sc.Name, sc.Status, sc.Conclusion, b.now)
		if err != nil {
			return twins.SeedErrorf(rp("check_runs", j, "status"), "%s", twins.AsError(err).Message)
		}
		r.CheckRuns = append(r.CheckRuns, cr)
	}
	for j, st := range sr.Tags {
		c := r.resolve(st.Ref)
		if c == nil {
			return twins.SeedErrorf(rp("tags", j, "ref"), "unknown ref %q", st.Ref)
		}
		if st.Name == "" || r.tag(st.Name) != nil {
			return twins.SeedErrorf(rp("tags", j, "name"), "tag name %q is empty or already exists", st.Name)
		}
		r.Tags = append(r.Tags, &Tag{Name: st.Name, SHA: c.SHA})
	}
	for j, sr := range sr.Releases {
		if sr.TagName == "" {
			return twins.SeedErrorf(rp("releases", j, "tag_name"), "tag_name is required")
		}
		target := cmp.Or(sr.target, r.DefaultBranch)
		if r.tag(sr.TagName) == nil {
			c := r.resolve(target)
			if c == nil {
				return twins.SeedErrorf(rp("releases", j, "target_commitish"), "unknown ref %q", target)
			}
			r.Tags = append(r.Tags, &Tag{Name: sr.TagName, SHA: c.SHA})
		}
		author, err := b.login(rp("releases", j, "author"), sr.author, w.Me)
		if err != nil {
			return err
		}
		rel := &Release{ID: w.nextID(), TagName: sr.TagName, Target: target, Name: sr.Name, Body: sr.Body, Draft: sr.Draft, Prerelease: sr.Prerelease, Author: author, CreatedAt: b.now}
		if !sr.Draft {
			t := b.now
			rel.PublishedAt = &t
		}
		r.Releases = append(r.Releases, rel)
	}
	w.Repos = append(w.Repos, r)
	return nil
}

// issueCommon builds the part issues and pull requests share.
func (b *seedBuilder) issueCommon(r *Repo, rp func(...any) string, kind string, j, number int, title, body, state, user string, labels, assignees []string, milestone int, comments []SeedComment, createdAt string) (*Issue, error) {
	w := b.w
	if strings.TrimSpace(title) == "" {
		return nil, twins.SeedErrorf(rp(kind, j, "title"), "title is required")
	}
	author, err := b.login(rp(kind, j, "user"), user, w.Me)
	if err != nil {
		return nil, err
	}
	at, err := b.at(rp(kind, j, "created_at"), createdAt)
	if err != nil {
		return nil, err
	}
	is := &Issue{ID: w.nextID(), Number: number, Title: title, Body: body, State: "open", User: author,
		Labels: []string{}, Assignees: []string{}, Events: []*Event{}, CreatedAt: at, UpdatedAt: at}
	switch state {
	case "", "open":
	case "closed":
		is.State = "closed"
		is.ClosedAt = &at
		is.ClosedBy = author
	default:
		if kind != "pulls" || state != "merged" {
			return nil, twins.SeedErrorf(rp(kind, j, "state"), "state must be open or closed, got %q", state)
		}
	}
	for k, name := range labels {
		l := r.label(name)
		if l == nil {
			return nil, twins.SeedErrorf(rp(kind, j, "labels", k), "label %q is not defined in %s", name, r.FullName())
		}
		if !containsFold(is.Labels, l.Name) {
			is.Labels = append(is.Labels, l.Name)
		}
	}
	for k, a := range assignees {
		login, err := b.login(rp(kind, j, "assignees", k), a, "")
		if err != nil {
			return nil, err
		}
		if !r.isCollaborator(login) {
			return nil, twins.SeedErrorf(rp(kind, j, "assignees", k), "%q is not a collaborator of %s and cannot be assigned", a, r.FullName())
		}
		if !containsFold(is.Assignees, login) {
			is.Assignees = append(is.Assignees, login)
		}
	}
	if milestone != 0 {
		if r.milestone(milestone) == nil {
			return nil, twins.SeedErrorf(rp(kind, j, "milestone"), "milestone %d is not defined in %s", milestone, r.FullName())
		}
		is.Milestone = milestone
	}
	for k, sc := range comments {
		login, err := b.login(rp(kind, j, "comments", k, "user"), sc.User, w.Me)
		if err != nil {
			return nil, err
		}
		if sc.Body == "" {
			return nil, twins.SeedErrorf(rp(kind, j, "comments", k, "body"), "body is required")
		}
		cat, err := b.at(rp(kind, j, "comments", k, "created_at"), sc.CreatedAt)
		if err != nil {
			return nil, err
		}
		is.Comments.Append(Comment{ID: w.nextID(), User: login, Body: sc.Body, CreatedAt: cat, UpdatedAt: cat})
	}
	return is, nil
}

func (b *seedBuilder) pull(r *Repo, rp func(...any) string, j int, sp *SeedPull, number int) error {
	w := b.w
	is, err := b.issueCommon(r, rp, "pulls", j, number, sp.Title, sp.Body, sp.State, sp.User, sp.Labels, sp.Assignees, sp.Milestone, sp.Comments, sp.CreatedAt)
	if err != nil {
		return err
	}
	base := sp.Base
	if base == "" {
		base = r.DefaultBranch
	}
	hb, bb := r.branch(sp.Head), r.branch(base)
	if hb == nil {
		return twins.SeedErrorf(rp("pulls", j, "head"), "unknown branch %q", sp.Head)
	}
	if bb == nil {
		return twins.SeedErrorf(rp("pulls", j, "base"), "unknown branch %q", base)
	}
	if hb == bb {
		return twins.SeedErrorf(rp("pulls", j, "head"), "head and base are the same branch %q", base)
	}
	is.Pull = &Pull{Head: hb.Name, Base: bb.Name, Draft: sp.Draft, HeadSHA: hb.SHA, BaseSHA: bb.SHA, RequestedReviewers: []string{}, Reviews: []*Review{}, ReviewComments: []*ReviewComment{}}
	for k, rr := range sp.RequestedReviewers {
		login, err := b.login(rp("pulls", j, "requested_reviewers", k), rr, "")
		if err != nil {
			return err
		}
		if !r.isCollaborator(login) {
			return twins.SeedErrorf(rp("pulls", j, "requested_reviewers", k), "%q is not a collaborator of %s", rr, r.FullName())
		}
		is.Pull.RequestedReviewers = append(is.Pull.RequestedReviewers, login)
	}
	for k, sr := range sp.Reviews {
		login, err := b.login(rp("pulls", j, "reviews", k, "user"), sr.User, "")
		if err != nil {
			return err
		}
		switch sr.State {
		case "APPROVED", "CHANGES_REQUESTED", "COMMENTED", "DISMISSED", "PENDING":
		default:
			return twins.SeedErrorf(rp("pulls", j, "reviews", k, "state"), "state must be APPROVED, CHANGES_REQUESTED, COMMENTED, DISMISSED or PENDING, got %q", sr.State)
		}
		is.Pull.Reviews = append(is.Pull.Reviews, &Review{ID: w.nextID(), User: login, Body: sr.Body, State: sr.State, CommitID: hb.SHA, SubmittedAt: is.CreatedAt})
	}
	if err := b.seedReviewComments(r, is, rp, j, sp.reviewComments); err != nil {
		return err
	}
	r.Issues = append(r.Issues, is)
	if sp.State == "merged" {
		if _, err := mergePull(w, r, is, is.User, "", "", "merge", is.CreatedAt); err != nil {
			return twins.SeedErrorf(rp("pulls", j, "state"), "cannot merge: %s", twins.AsError(err).Message)
		}
	}
	return nil
}

func copyTree(t map[string]string) map[string]string {
	out := make(map[string]string, len(t))
	for k, v := range t {
		out[k] = v
	}
	return out
}

func (r *Repo) tag(name string) *Tag {
	for _, t := range r.Tags {
		if t.Name == name {
			return t
		}
	}
	return nil
}

func validStatusState(s string) bool {
	switch s {
	case "error", "failure", "pending", "success":
		return true
	}
	return false
}

var slugRE = regexp.MustCompile(`[^a-z0-9_]+`)

// teamSlug is the slug GitHub makes of a team's name.
func teamSlug(name string) string {
	return strings.Trim(slugRE.ReplaceAllString(strings.ToLower(name), "-"), "-")
}

// orgTeams builds an organization's teams and issue types.
func (b *seedBuilder) orgTeams(i int, o *Org, so SeedOrg) error {
	for j, st := range so.Teams {
		p := func(rest ...any) string { return twins.Pointer(append([]any{"orgs", i, "teams", j}, rest...)...) }
		if strings.TrimSpace(st.Name) == "" {
			return twins.SeedErrorf(p("name"), "a team needs a name")
		}
		slug := st.Slug
		if slug == "" {
			slug = teamSlug(st.Name)
		}
		if slug == "" || slug != teamSlug(slug) {
			return twins.SeedErrorf(p("slug"), "invalid team slug %q", slug)
		}
		for _, t := range o.Teams {
			if t.Slug == slug || strings.EqualFold(t.Name, st.Name) {
				return twins.SeedErrorf(p("name"), "duplicate team %q", st.Name)
			}
		}
		t := &Team{ID: b.w.nextID(), Slug: slug, Name: st.Name, Description: st.Description, Members: []string{}}
		for k, m := range st.Members {
			if !containsFold(o.Members, m) {
				return twins.SeedErrorf(p("members", k), "%q is not a member of %s", m, o.Login)
			}
			t.Members = append(t.Members, b.w.user(m).Login)
		}
		o.Teams = append(o.Teams, t)
	}
	for j, sf := range so.IssueFields {
		p := func(rest ...any) string {
			return twins.Pointer(append([]any{"orgs", i, "issue_fields", j}, rest...)...)
		}
		if strings.TrimSpace(sf.Name) == "" {
			return twins.SeedErrorf(p("name"), "an issue field needs a name")
		}
		if o.issueField(sf.Name) != nil {
			return twins.SeedErrorf(p("name"), "duplicate issue field %q", sf.Name)
		}
		if !slices.Contains(issueFieldTypes, sf.DataType) {
			return twins.SeedErrorf(p("data_type"), "data_type must be text, number, date or single_select, got %q", sf.DataType)
		}
		if (sf.DataType == "single_select") != (len(sf.Options) > 0) {
			return twins.SeedErrorf(p("options"), "a single_select field needs options, and only it has them")
		}
		f := &OrgIssueField{ID: b.w.nextID(), Name: sf.Name, Description: sf.Description, DataType: sf.DataType, CreatedAt: b.now}
		for k, so := range sf.Options {
			if strings.TrimSpace(so.Name) == "" || f.option(so.Name) != nil {
				return twins.SeedErrorf(p("options", k, "name"), "option names must be unique and not blank")
			}
			f.Options = append(f.Options, &IssueFieldOption{ID: b.w.nextID(), Name: so.Name, Color: so.Color, Description: so.Description})
		}
		o.IssueFields = append(o.IssueFields, f)
	}
	for j, st := range so.IssueTypes {
		p := twins.Pointer("orgs", i, "issue_types", j, "name")
		if strings.TrimSpace(st.Name) == "" {
			return twins.SeedErrorf(p, "an issue type needs a name")
		}
		if o.issueType(st.Name) != nil {
			return twins.SeedErrorf(p, "duplicate issue type %q", st.Name)
		}
		o.IssueTypes = append(o.IssueTypes, &IssueType{ID: b.w.nextID(), Name: st.Name, Description: st.Description,
			Color: st.Color, Enabled: st.Enabled == nil || *st.Enabled, CreatedAt: b.now})
	}
	return nil
}

// issueFieldValues sets a seeded issue's field values, in field order.
func (b *seedBuilder) issueFieldValues(r *Repo, is *Issue, vals map[string]any, path string) error {
	if len(vals) == 0 {
		return nil
	}
	o := b.w.org(r.Owner)
	for name, v := range vals {
		var f *OrgIssueField
		if o != nil {
			f = o.issueField(name)
		}
		if f == nil {
			return twins.SeedErrorf(path+"/"+name, "%s has no issue field %q", r.Owner, name)
		}
		fv, err := fieldValue(f, v)
		if err != nil {
			return twins.SeedErrorf(path+"/"+name, "%v", err)
		}
		setFieldValue(is, fv)
	}
	slices.SortFunc(is.FieldValues, func(a, b *FieldValue) int { return cmp.Compare(a.FieldID, b.FieldID) })
	return nil
}
