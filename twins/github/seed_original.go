package github

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/pomehq/pome/twins"
)

// The original Pome's GitHub seed format, which NewWorld also accepts: the
// shape of its `.seed.json` sidecars (`repositories[]`, files as a list
// with a branch, `author` on issues, comments, pull requests and reviews,
// `pull_requests[]` with statuses and review comments). It is translated
// into our Seed and built by the same buildWorld, so there is one world
// model. The original silently drops keys it does not know; here an
// unknown key is an error naming its path, and so is everything the
// original itself refuses. `_meta` (the original's compile stamp) is read
// and ignored.
type origSeed struct {
	Meta         json.RawMessage `json:"_meta,omitempty"`
	Users        []origUser      `json:"users,omitempty"`
	Repositories []origRepo      `json:"repositories"`
}

type origUser struct {
	Login string `json:"login"`
	// Type is "User" (the default) or "Organization".
	Type string `json:"type,omitempty"`
	Name string `json:"name,omitempty"`
}

type origRepo struct {
	Owner         string          `json:"owner"`
	Name          string          `json:"name"`
	Description   string          `json:"description,omitempty"`
	Private       bool            `json:"private,omitempty"`
	DefaultBranch string          `json:"default_branch,omitempty"`
	Collaborators []string        `json:"collaborators,omitempty"`
	Labels        []SeedLabel     `json:"labels,omitempty"`
	Files         []origFile      `json:"files,omitempty"`
	Milestones    []SeedMilestone `json:"milestones,omitempty"`
	Tags          []origTag       `json:"tags,omitempty"`
	Releases      []origRelease   `json:"releases,omitempty"`
	Issues        []origIssue     `json:"issues,omitempty"`
	PullRequests  []origPull      `json:"pull_requests,omitempty"`
}

// origFile is a file on a branch (default: the default branch). A file on
// another branch creates that branch from the default branch; renamed_from
// moves a default-branch file there instead of giving content.
type origFile struct {
	Path        string  `json:"path"`
	Content     *string `json:"content,omitempty"`
	Branch      string  `json:"branch,omitempty"`
	RenamedFrom string  `json:"renamed_from,omitempty"`
}

type origTag struct {
	Name   string `json:"name"`
	Target string `json:"target,omitempty"`
}

type origRelease struct {
	TagName         string `json:"tag_name"`
	Name            string `json:"name,omitempty"`
	Body            string `json:"body,omitempty"`
	TargetCommitish string `json:"target_commitish,omitempty"`
	Draft           bool   `json:"draft,omitempty"`
	Prerelease      bool   `json:"prerelease,omitempty"`
	Author          string `json:"author,omitempty"`
}

type origComment struct {
	Body   string `json:"body"`
	Author string `json:"author,omitempty"`
}

type origIssue struct {
	Number    int      `json:"number,omitempty"`
	Title     string   `json:"title"`
	Body      string   `json:"body,omitempty"`
	State     string   `json:"state,omitempty"`
	Author    string   `json:"author,omitempty"`
	Labels    []string `json:"labels,omitempty"`
	Assignees []string `json:"assignees,omitempty"`
	// Assignee is the original's legacy single assignee, used when
	// assignees is absent.
	Assignee *string       `json:"assignee,omitempty"`
	Comments []origComment `json:"comments,omitempty"`
}

type origPull struct {
	Number         int                 `json:"number,omitempty"`
	Title          string              `json:"title"`
	Body           string              `json:"body,omitempty"`
	Head           string              `json:"head"`
	Base           string              `json:"base,omitempty"`
	State          string              `json:"state,omitempty"`
	Author         string              `json:"author,omitempty"`
	Reviews        []origReview        `json:"reviews,omitempty"`
	Statuses       []origStatus        `json:"statuses,omitempty"`
	Comments       []origComment       `json:"comments,omitempty"`
	ReviewComments []origReviewComment `json:"review_comments,omitempty"`
}

type origReview struct {
	Author string `json:"author"`
	State  string `json:"state,omitempty"`
	Body   string `json:"body,omitempty"`
}

// origStatus is a commit status on the pull request's head commit.
type origStatus struct {
	Context     string `json:"context,omitempty"`
	State       string `json:"state,omitempty"`
	Description string `json:"description,omitempty"`
}

// origReviewComment is an inline comment on a file the pull request
// changes.
type origReviewComment struct {
	Body   string `json:"body"`
	Path   string `json:"path"`
	Line   int    `json:"line,omitempty"`
	Side   string `json:"side,omitempty"`
	Author string `json:"author,omitempty"`
}

// isOriginalSeed tells the original's format from ours by its top-level
// keys: ours has "repos", the original "repositories" (and "_meta").
func isOriginalSeed(raw json.RawMessage) bool {
	var top map[string]json.RawMessage
	if json.Unmarshal(raw, &top) != nil {
		return false
	}
	_, repos := top["repositories"]
	_, meta := top["_meta"]
	return repos || meta
}

// newWorldOriginal builds a world from a seed in the original's format;
// errors name paths in that document.
func newWorldOriginal(ctx context.Context, raw json.RawMessage) (*World, error) {
	o := new(origSeed)
	if err := twins.DecodeSeed(raw, o); err != nil {
		return nil, err
	}
	s, paths, err := translateOriginal(o)
	if err != nil {
		return nil, err
	}
	w, err := buildWorld(ctx, s)
	if se, ok := err.(*twins.SeedError); ok {
		return nil, &twins.SeedError{Path: paths.rewrite(se.Path), Message: se.Message}
	}
	return w, err
}

// seedPaths maps JSON pointers into the translated Seed back to the
// original document they came from: the longest mapped prefix wins, and
// what follows it is kept.
type seedPaths map[string]string

func (m seedPaths) rewrite(p string) string {
	best := ""
	found := false
	for ours := range m {
		if (p == ours || strings.HasPrefix(p, ours+"/")) && (!found || len(ours) > len(best)) {
			best, found = ours, true
		}
	}
	if !found {
		return p
	}
	return m[best] + p[len(best):]
}

// originalOrgLogin is the one owner the original makes an organization when
// no users entry declares it; every other undeclared login is a user.
const originalOrgLogin = "acme"

// originalTranslator carries the translation's state: the Seed being built,
// the path map and the accounts declared or implied so far.
type originalTranslator struct {
	s     *Seed
	paths seedPaths
	known map[string]bool
}

// account makes sure login exists, as the original does for every owner,
// collaborator, assignee and author no users entry declares: a user named
// by its login (src is where the login was read, for errors).
func (t *originalTranslator) account(login, src string) {
	key := strings.ToLower(login)
	if login == "" || t.known[key] {
		return
	}
	t.known[key] = true
	if login == originalOrgLogin {
		t.s.Orgs = append(t.s.Orgs, SeedOrg{Login: login, Name: login})
		t.mapLogin(twins.Pointer("orgs", len(t.s.Orgs)-1), src)
		return
	}
	t.s.Users = append(t.s.Users, SeedUser{Login: login, Name: login})
	t.mapLogin(twins.Pointer("users", len(t.s.Users)-1), src)
}

func (t *originalTranslator) mapLogin(ours, src string) {
	t.paths[ours] = src
	t.paths[ours+"/login"] = src
}

func (t *originalTranslator) comments(ours, orig string, list []origComment) []SeedComment {
	out := make([]SeedComment, len(list))
	for k, c := range list {
		t.account(c.Author, orig+twins.Pointer(k, "author"))
		t.paths[ours+twins.Pointer(k, "user")] = orig + twins.Pointer(k, "author")
		out[k] = SeedComment{User: c.Author, Body: c.Body}
	}
	return out
}

func translateOriginal(o *origSeed) (*Seed, seedPaths, error) {
	t := &originalTranslator{s: &Seed{Me: "pome-agent"}, paths: seedPaths{}, known: map[string]bool{}}
	s := t.s
	if len(o.Repositories) == 0 {
		return nil, nil, twins.SeedErrorf("/repositories", "a GitHub seed must contain at least one repository")
	}
	for i, u := range o.Users {
		p := twins.Pointer("users", i)
		t.known[strings.ToLower(u.Login)] = true
		switch u.Type {
		case "", "User":
			s.Users = append(s.Users, SeedUser{Login: u.Login, Name: u.Name})
			t.paths[twins.Pointer("users", len(s.Users)-1)] = p
		case "Organization":
			s.Orgs = append(s.Orgs, SeedOrg{Login: u.Login, Name: u.Name})
			t.paths[twins.Pointer("orgs", len(s.Orgs)-1)] = p
		default:
			return nil, nil, twins.SeedErrorf(p+"/type", "type must be User or Organization, got %q", u.Type)
		}
	}
	t.account("pome-agent", "")
	repos := make([]SeedRepo, len(o.Repositories))
	for i := range o.Repositories {
		sr, err := t.repo(i, &o.Repositories[i])
		if err != nil {
			return nil, nil, err
		}
		repos[i] = sr
	}
	return &Seed{Me: s.Me, Users: s.Users, Orgs: s.Orgs, Repos: repos}, t.paths, nil
}

func (t *originalTranslator) repo(i int, or *origRepo) (SeedRepo, error) {
	rp := twins.Pointer("repositories", i)
	ours := func(segs ...any) string { return twins.Pointer(append([]any{"repos", i}, segs...)...) }
	t.paths[ours()] = rp
	t.account(or.Owner, rp+"/owner")
	sr := SeedRepo{
		Owner: or.Owner, Name: or.Name, Description: or.Description, Private: or.Private,
		DefaultBranch: or.DefaultBranch, Labels: or.Labels, Milestones: or.Milestones,
		Collaborators: append([]string{}, or.Collaborators...),
	}
	if sr.DefaultBranch == "" {
		sr.DefaultBranch = "main"
	}
	for j, c := range or.Collaborators {
		t.account(c, twins.Pointer("repositories", i, "collaborators", j))
	}
	// The original makes its agent a collaborator of every repository.
	if !containsFold(sr.Collaborators, "pome-agent") {
		sr.Collaborators = append(sr.Collaborators, "pome-agent")
	}
	if err := t.files(i, or, &sr); err != nil {
		return sr, err
	}
	// Issues and pull requests draw numbers from one counter in seed order,
	// issues first, as the original does; an explicit number is kept and
	// moves the counter past it.
	counter := 0
	number := func(n int) int {
		counter++
		if n != 0 {
			counter = max(counter, n)
			return n
		}
		return counter
	}
	for j, is := range or.Issues {
		ip := twins.Pointer("repositories", i, "issues", j)
		if is.Number < 0 {
			return sr, twins.SeedErrorf(ip+"/number", "number must be positive, got %d", is.Number)
		}
		t.paths[ours("issues", j, "user")] = ip + "/author"
		t.account(is.Author, ip+"/author")
		assignees := is.Assignees
		if assignees == nil && is.Assignee != nil && *is.Assignee != "" {
			assignees = []string{*is.Assignee}
			t.paths[ours("issues", j, "assignees", 0)] = ip + "/assignee"
			t.account(*is.Assignee, ip+"/assignee")
		}
		for k, a := range is.Assignees {
			t.account(a, twins.Pointer("repositories", i, "issues", j, "assignees", k))
		}
		sr.Issues = append(sr.Issues, SeedIssue{
			Number: number(is.Number), Title: is.Title, Body: is.Body, State: is.State, User: is.Author,
			Labels: is.Labels, Assignees: assignees,
			Comments: t.comments(ours("issues", j, "comments"), ip+"/comments", is.Comments),
		})
	}
	for j, pr := range or.PullRequests {
		pp := twins.Pointer("repositories", i, "pull_requests", j)
		t.paths[ours("pulls", j)] = pp
		t.paths[ours("pulls", j, "user")] = pp + "/author"
		if pr.Number < 0 {
			return sr, twins.SeedErrorf(pp+"/number", "number must be positive, got %d", pr.Number)
		}
		if pr.State != "" && pr.State != "open" && pr.State != "closed" {
			return sr, twins.SeedErrorf(pp+"/state", "state must be open or closed, got %q", pr.State)
		}
		if pr.Head == "" {
			return sr, twins.SeedErrorf(pp+"/head", "head is required")
		}
		t.account(pr.Author, pp+"/author")
		sp := SeedPull{
			Number: number(pr.Number), Title: pr.Title, Body: pr.Body, State: pr.State, User: pr.Author,
			Head: pr.Head, Base: pr.Base,
			Comments:       t.comments(ours("pulls", j, "comments"), pp+"/comments", pr.Comments),
			reviewComments: pr.ReviewComments,
		}
		for k, rv := range pr.Reviews {
			rvp := twins.Pointer("repositories", i, "pull_requests", j, "reviews", k)
			state := rv.State
			if state == "" {
				state = "APPROVED"
			}
			if state != "APPROVED" && state != "CHANGES_REQUESTED" && state != "COMMENTED" {
				return sr, twins.SeedErrorf(rvp+"/state", "state must be APPROVED, CHANGES_REQUESTED or COMMENTED, got %q", rv.State)
			}
			if rv.Author == "" {
				return sr, twins.SeedErrorf(rvp+"/author", "author is required")
			}
			t.account(rv.Author, rvp+"/author")
			t.paths[ours("pulls", j, "reviews", k, "user")] = rvp + "/author"
			sp.Reviews = append(sp.Reviews, SeedReview{User: rv.Author, State: state, Body: rv.Body})
		}
		for k, rc := range pr.ReviewComments {
			t.account(rc.Author, twins.Pointer("repositories", i, "pull_requests", j, "review_comments", k, "author"))
		}
		// Statuses land on the head commit, as repository statuses on the
		// head branch.
		for k, st := range pr.Statuses {
			stp := twins.Pointer("repositories", i, "pull_requests", j, "statuses", k)
			t.paths[ours("statuses", len(sr.Statuses))] = stp
			t.paths[ours("statuses", len(sr.Statuses), "ref")] = pp + "/head"
			state, ctxName := st.State, st.Context
			if state == "" {
				state = "success"
			}
			if ctxName == "" {
				ctxName = "ci/build"
			}
			sr.Statuses = append(sr.Statuses, SeedStatus{Ref: pr.Head, State: state, Context: ctxName, Description: st.Description})
		}
		sr.Pulls = append(sr.Pulls, sp)
	}
	for j, tg := range or.Tags {
		t.paths[ours("tags", j, "ref")] = twins.Pointer("repositories", i, "tags", j, "target")
		sr.Tags = append(sr.Tags, SeedTag{Name: tg.Name, Ref: tg.Target})
	}
	for j, rl := range or.Releases {
		t.paths[ours("releases", j)] = twins.Pointer("repositories", i, "releases", j)
		t.account(rl.Author, twins.Pointer("repositories", i, "releases", j, "author"))
		sr.Releases = append(sr.Releases, SeedRelease{TagName: rl.TagName, Name: rl.Name, Body: rl.Body, Draft: rl.Draft, Prerelease: rl.Prerelease,
			target: rl.TargetCommitish, author: rl.Author})
	}
	return sr, nil
}

// files turns the file list into the default branch's files and one
// branch per other branch named, cut from the default branch.
func (t *originalTranslator) files(i int, or *origRepo, sr *SeedRepo) error {
	def := sr.DefaultBranch
	sr.Files = map[string]string{}
	var branches []*SeedBranch
	byName := map[string]*SeedBranch{}
	for j, f := range or.Files {
		fp := twins.Pointer("repositories", i, "files", j)
		switch {
		case f.RenamedFrom == "" && f.Content == nil:
			return twins.SeedErrorf(fp+"/content", "content is required on a file entry that declares no renamed_from")
		case f.RenamedFrom != "" && f.Content != nil:
			return twins.SeedErrorf(fp+"/content", "renamed_from carries the source file's content, so content must be omitted (%s)", f.Path)
		case f.RenamedFrom != "" && f.RenamedFrom == f.Path:
			return twins.SeedErrorf(fp+"/renamed_from", "renamed_from must name a different path than the file it moves to (%s)", f.Path)
		}
		branch := f.Branch
		if branch == "" {
			branch = def
		}
		if branch != def {
			continue
		}
		if f.RenamedFrom != "" {
			return twins.SeedErrorf(fp+"/renamed_from", "renamed_from on %s with no other branch: the default branch is the initial commit, so there is no earlier tree to move out of", f.Path)
		}
		if _, dup := sr.Files[f.Path]; dup {
			return twins.SeedErrorf(fp+"/path", "%s is listed twice on branch %s", f.Path, branch)
		}
		sr.Files[f.Path] = *f.Content
		t.paths[twins.Pointer("repos", i, "files", f.Path)] = fp + "/path"
	}
	for j, f := range or.Files {
		fp := twins.Pointer("repositories", i, "files", j)
		if f.Branch == "" || f.Branch == def {
			continue
		}
		b := byName[f.Branch]
		if b == nil {
			b = &SeedBranch{Name: f.Branch, From: def, Message: "Seed " + f.Branch, Files: map[string]*string{}}
			byName[f.Branch] = b
			t.paths[twins.Pointer("repos", i, "branches", len(branches))] = fp + "/branch"
			branches = append(branches, b)
		}
		k := len(branches) - 1
		for n, x := range branches {
			if x == b {
				k = n
			}
		}
		if _, dup := b.Files[f.Path]; dup {
			return twins.SeedErrorf(fp+"/path", "%s is listed twice on branch %s", f.Path, f.Branch)
		}
		t.paths[twins.Pointer("repos", i, "branches", k, "files", f.Path)] = fp + "/path"
		if f.RenamedFrom == "" {
			b.Files[f.Path] = f.Content
			continue
		}
		src, ok := sr.Files[f.RenamedFrom]
		if !ok {
			return twins.SeedErrorf(fp+"/renamed_from", "renamed_from names %s, which branch %s does not hold: a move's source must exist on the branch it moves on", f.RenamedFrom, f.Branch)
		}
		b.Files[f.RenamedFrom] = nil
		b.Files[f.Path] = &src
	}
	for _, b := range branches {
		sr.Branches = append(sr.Branches, *b)
	}
	return nil
}

// seedReviewComments adds a pull request's seeded inline review comments,
// held to what the original's write path checks: the path is a file the
// pull request changes and the line exists on the side commented on.
func (b *seedBuilder) seedReviewComments(r *Repo, is *Issue, rp func(...any) string, j int, list []origReviewComment) error {
	base, head := r.commit(is.Pull.BaseSHA), r.commit(is.Pull.HeadSHA)
	for k, rc := range list {
		p := func(key string) string { return rp("pulls", j, "review_comments", k, key) }
		if strings.TrimSpace(rc.Body) == "" {
			return twins.SeedErrorf(p("body"), "body is required")
		}
		if base.Tree[rc.Path] == head.Tree[rc.Path] {
			return twins.SeedErrorf(p("path"), "%s is not a file this pull request changes", rc.Path)
		}
		side := rc.Side
		if side == "" {
			side = "RIGHT"
		}
		tree := head.Tree
		switch side {
		case "RIGHT":
		case "LEFT":
			tree = base.Tree
		default:
			return twins.SeedErrorf(p("side"), "side must be LEFT or RIGHT, got %q", rc.Side)
		}
		line := rc.Line
		if line == 0 {
			line = 1
		}
		blob, ok := tree[rc.Path]
		if !ok || line < 1 || line > lineCount(string(r.Blobs[blob])) {
			return twins.SeedErrorf(p("line"), "line %d does not exist on the %s side of %s", line, side, rc.Path)
		}
		author, err := b.login(p("author"), rc.Author, b.w.Me)
		if err != nil {
			return err
		}
		is.Pull.ReviewComments = append(is.Pull.ReviewComments, &ReviewComment{ID: b.w.nextID(), User: author, Body: rc.Body, Path: rc.Path,
			Line: line, Side: side, CommitID: head.SHA, CreatedAt: is.CreatedAt, UpdatedAt: is.CreatedAt})
	}
	return nil
}

func lineCount(s string) int {
	if s == "" {
		return 0
	}
	n := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}
