package github

import (
	"cmp"
	"crypto/sha1"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/pomehq/pome/twins"
)

// World is the whole GitHub state of one sandbox. It is also the state
// document (`GET …/_pome/state`), so check evidence points into it with JSON
// pointers such as /repos/0/issues/0/labels.
type World struct {
	// Me is the login of the authenticated user (every token of the sandbox
	// acts as this user).
	Me string `json:"me"`
	// NextID is the next numeric id handed out; ids are deterministic per
	// sandbox because they come from this counter.
	NextID int64   `json:"next_id"`
	Users  []*User `json:"users"`
	Orgs   []*Org  `json:"orgs"`
	Repos  []*Repo `json:"repos"`

	// renders are the users rendered for answers (view.user); a world's
	// copy or decoding starts without any.
	renders atomic.Pointer[userRenders]
}

// userRenders returns the world's kept user renderings, made on first use.
func (w *World) userRenders() *userRenders {
	if r := w.renders.Load(); r != nil {
		return r
	}
	w.renders.CompareAndSwap(nil, &userRenders{Max: maxUserRenders})
	return w.renders.Load()
}

// User is an account that can own repositories, author issues and be
// assigned.
type User struct {
	ID        int64     `json:"id"`
	Login     string    `json:"login"`
	Name      string    `json:"name,omitempty"`
	Email     string    `json:"email,omitempty"`
	Bio       string    `json:"bio,omitempty"`
	Company   string    `json:"company,omitempty"`
	Location  string    `json:"location,omitempty"`
	CreatedAt time.Time `json:"created_at"`
}

// Org is an organization; its members see and may be assigned in its repos
// only when they are also collaborators, as on GitHub.
type Org struct {
	ID          int64     `json:"id"`
	Login       string    `json:"login"`
	Name        string    `json:"name,omitempty"`
	Description string    `json:"description,omitempty"`
	Members     []string  `json:"members"`
	CreatedAt   time.Time `json:"created_at"`
	// Teams and IssueTypes are the organization's teams and issue types
	// (see orgs.go).
	Teams       []*Team          `json:"teams,omitempty"`
	IssueTypes  []*IssueType     `json:"issue_types,omitempty"`
	IssueFields []*OrgIssueField `json:"issue_fields,omitempty"`
}

// Team is an organization's team.
type Team struct {
	ID          int64    `json:"id"`
	Slug        string   `json:"slug"`
	Name        string   `json:"name"`
	Description string   `json:"description,omitempty"`
	Members     []string `json:"members"`
}

// issueType finds an issue type by name, case-insensitively.
func (o *Org) issueType(name string) *IssueType {
	for _, t := range o.IssueTypes {
		if strings.EqualFold(t.Name, name) {
			return t
		}
	}
	return nil
}

// repoIssueType is the enabled issue type of that name that the
// repository's issues may take: its organization's (a user's repository
// has none).
func (w *World) repoIssueType(r *Repo, name string) *IssueType {
	o := w.org(r.Owner)
	if o == nil {
		return nil
	}
	if t := o.issueType(name); t != nil && t.Enabled {
		return t
	}
	return nil
}

// IssueType is an organization's issue type (Task, Bug, Feature, …).
type IssueType struct {
	ID          int64     `json:"id"`
	Name        string    `json:"name"`
	Description string    `json:"description,omitempty"`
	Color       string    `json:"color,omitempty"`
	Enabled     bool      `json:"enabled"`
	CreatedAt   time.Time `json:"created_at"`
}

// Repo is one repository with everything that lives in it. Issues and pull
// requests share Issues because they share one number sequence.
type Repo struct {
	ID            int64        `json:"id"`
	Owner         string       `json:"owner"`
	Name          string       `json:"name"`
	Description   string       `json:"description"`
	Private       bool         `json:"private"`
	Fork          bool         `json:"fork"`
	Parent        string       `json:"parent,omitempty"`
	DefaultBranch string       `json:"default_branch"`
	Topics        []string     `json:"topics"`
	CreatedAt     time.Time    `json:"created_at"`
	UpdatedAt     time.Time    `json:"updated_at"`
	PushedAt      time.Time    `json:"pushed_at"`
	Collaborators []string     `json:"collaborators"`
	Labels        []*Label     `json:"labels"`
	Milestones    []*Milestone `json:"milestones"`
	Issues        []*Issue     `json:"issues"`
	NextNumber    int          `json:"next_number"`
	Branches      []*Branch    `json:"branches"`
	Commits       []*Commit    `json:"commits"`
	// Blobs holds file contents by git blob sha (bytes, so binary files
	// survive the JSON round trip as base64).
	Blobs     map[string][]byte `json:"blobs"`
	Statuses  []*Status         `json:"statuses"`
	CheckRuns []*CheckRun       `json:"check_runs"`
	Tags      []*Tag            `json:"tags"`
	Releases  []*Release        `json:"releases"`
	// Trees holds trees made with POST …/git/trees that no commit points
	// at yet, by tree sha (path → blob sha, as Commit.Tree); a commit made
	// of one takes it over (see gitdata.go).
	Trees map[string]map[string]string `json:"trees,omitempty"`

	// Indexes, not part of the state document. The twin's decoder, the
	// seed and emptyRepo build them (indexIssues); the write paths that add
	// or remove issues and comments keep them current (addIssue,
	// addComment, removeComment). Reads only look at them, since reads run
	// concurrently on one world; a missing index means "scan", which is
	// always correct.
	//
	// issuesSorted is true when Issues are known to be in strictly
	// ascending number order, so issueIndex can binary search.
	issuesSorted bool
	// commentIssue maps every issue comment id to its issue's position in
	// Issues (which only grows), when those ids are unique in the
	// repository; nil otherwise. Positions, not pointers: a map of 300,000
	// comments is then memory the collector does not read
	// (BenchmarkCollectComments).
	commentIssue map[int64]int32
}

// FullName is "owner/name".
func (r *Repo) FullName() string { return r.Owner + "/" + r.Name }

// Label is a repository label.
type Label struct {
	ID          int64  `json:"id"`
	Name        string `json:"name"`
	Color       string `json:"color"`
	Description string `json:"description"`
	Default     bool   `json:"default"`
}

// Milestone is a repository milestone; issues refer to it by number.
type Milestone struct {
	ID          int64      `json:"id"`
	Number      int        `json:"number"`
	Title       string     `json:"title"`
	Description string     `json:"description"`
	State       string     `json:"state"`
	Creator     string     `json:"creator"`
	DueOn       *time.Time `json:"due_on,omitempty"`
	CreatedAt   time.Time  `json:"created_at"`
	UpdatedAt   time.Time  `json:"updated_at"`
	ClosedAt    *time.Time `json:"closed_at,omitempty"`
}

// Issue is an issue or, when Pull is set, a pull request.
type Issue struct {
	ID          int64    `json:"id"`
	Number      int      `json:"number"`
	Title       string   `json:"title"`
	Body        string   `json:"body"`
	State       string   `json:"state"`
	StateReason string   `json:"state_reason,omitempty"`
	User        string   `json:"user"`
	Labels      []string `json:"labels"`
	Assignees   []string `json:"assignees"`
	Milestone   int      `json:"milestone,omitempty"`
	// Type is the name of one of the owning organization's issue types.
	Type       string      `json:"type,omitempty"`
	Locked     bool        `json:"locked"`
	LockReason string      `json:"lock_reason,omitempty"`
	Comments   CommentList `json:"comments"`
	Events     []*Event    `json:"events"`
	CreatedAt  time.Time   `json:"created_at"`
	UpdatedAt  time.Time   `json:"updated_at"`
	ClosedAt   *time.Time  `json:"closed_at,omitempty"`
	ClosedBy   string      `json:"closed_by,omitempty"`
	Pull       *Pull       `json:"pull,omitempty"`
	// FieldValues are its values of its organization's issue fields.
	FieldValues []*FieldValue `json:"field_values,omitempty"`
	// SubIssues are the ids of this issue's sub-issues, in priority order
	// (they may live in other repositories, as on GitHub).
	SubIssues []int64 `json:"sub_issues,omitempty"`
	// Reactions are the emoji reactions to the issue itself.
	Reactions []*Reaction `json:"reactions,omitempty"`
}

// Reaction is one user's emoji reaction to an issue or a comment.
type Reaction struct {
	ID        int64     `json:"id"`
	User      string    `json:"user"`
	Content   string    `json:"content"`
	CreatedAt time.Time `json:"created_at"`
}

// Comment is an issue (or pull request conversation) comment.
type Comment struct {
	ID        int64       `json:"id"`
	User      string      `json:"user"`
	Body      string      `json:"body"`
	CreatedAt time.Time   `json:"created_at"`
	UpdatedAt time.Time   `json:"updated_at"`
	Reactions []*Reaction `json:"reactions,omitempty"`
}

// Event is one entry of an issue's history (labeled, assigned, closed, …),
// served by the issue events and timeline endpoints.
type Event struct {
	ID         int64     `json:"id"`
	Event      string    `json:"event"`
	Actor      string    `json:"actor"`
	CreatedAt  time.Time `json:"created_at"`
	Label      string    `json:"label,omitempty"`
	Assignee   string    `json:"assignee,omitempty"`
	Milestone  string    `json:"milestone,omitempty"`
	RenameTo   string    `json:"rename_to,omitempty"`
	RenameFrom string    `json:"rename_from,omitempty"`
	CommitID   string    `json:"commit_id,omitempty"`
	Reason     string    `json:"state_reason,omitempty"`
}

// Pull is what a pull request has beyond its issue.
type Pull struct {
	Head               string           `json:"head"`
	Base               string           `json:"base"`
	Draft              bool             `json:"draft"`
	Merged             bool             `json:"merged"`
	MergedAt           *time.Time       `json:"merged_at,omitempty"`
	MergedBy           string           `json:"merged_by,omitempty"`
	MergeCommitSHA     string           `json:"merge_commit_sha,omitempty"`
	HeadSHA            string           `json:"head_sha"`
	BaseSHA            string           `json:"base_sha"`
	RequestedReviewers []string         `json:"requested_reviewers"`
	Reviews            []*Review        `json:"reviews"`
	ReviewComments     []*ReviewComment `json:"review_comments"`
}

// Review is a pull request review.
type Review struct {
	ID          int64     `json:"id"`
	User        string    `json:"user"`
	Body        string    `json:"body"`
	State       string    `json:"state"`
	CommitID    string    `json:"commit_id"`
	SubmittedAt time.Time `json:"submitted_at"`
}

// ReviewComment is a comment on a line of a pull request's diff.
type ReviewComment struct {
	ID        int64     `json:"id"`
	ReviewID  int64     `json:"review_id,omitempty"`
	User      string    `json:"user"`
	Body      string    `json:"body"`
	Path      string    `json:"path"`
	Line      int       `json:"line,omitempty"`
	Side      string    `json:"side,omitempty"`
	CommitID  string    `json:"commit_id"`
	InReplyTo int64     `json:"in_reply_to_id,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	// Reactions are the emoji reactions to the comment.
	Reactions []*Reaction `json:"reactions,omitempty"`
	// ResolvedBy is who resolved the thread this comment starts (empty
	// while it is unresolved; replies carry none).
	ResolvedBy string `json:"resolved_by,omitempty"`
}

// Branch is a named ref to a commit.
type Branch struct {
	Name      string `json:"name"`
	SHA       string `json:"sha"`
	Protected bool   `json:"protected"`
}

// Commit is a snapshot of the whole tree (path → blob sha), which keeps
// history, diffs and merges simple for the repository sizes a sandbox holds.
type Commit struct {
	SHA     string            `json:"sha"`
	Message string            `json:"message"`
	Author  string            `json:"author"`
	Date    time.Time         `json:"date"`
	Parents []string          `json:"parents"`
	Tree    map[string]string `json:"tree"`
}

// Status is a commit status (POST /repos/{o}/{r}/statuses/{sha}).
type Status struct {
	ID          int64     `json:"id"`
	SHA         string    `json:"sha"`
	State       string    `json:"state"`
	Context     string    `json:"context"`
	Description string    `json:"description"`
	TargetURL   string    `json:"target_url"`
	Creator     string    `json:"creator"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
}

// CheckRun is a check run on a commit.
type CheckRun struct {
	ID          int64      `json:"id"`
	HeadSHA     string     `json:"head_sha"`
	Name        string     `json:"name"`
	Status      string     `json:"status"`
	Conclusion  string     `json:"conclusion,omitempty"`
	DetailsURL  string     `json:"details_url,omitempty"`
	ExternalID  string     `json:"external_id,omitempty"`
	Title       string     `json:"title,omitempty"`
	Summary     string     `json:"summary,omitempty"`
	StartedAt   time.Time  `json:"started_at"`
	CompletedAt *time.Time `json:"completed_at,omitempty"`
}

// Tag is a lightweight tag.
type Tag struct {
	Name string `json:"name"`
	SHA  string `json:"sha"`
}

// Release is a release attached to a tag.
type Release struct {
	ID          int64      `json:"id"`
	TagName     string     `json:"tag_name"`
	Target      string     `json:"target_commitish"`
	Name        string     `json:"name"`
	Body        string     `json:"body"`
	Draft       bool       `json:"draft"`
	Prerelease  bool       `json:"prerelease"`
	Author      string     `json:"author"`
	CreatedAt   time.Time  `json:"created_at"`
	PublishedAt *time.Time `json:"published_at,omitempty"`
}

// nextID hands out the sandbox's next id.
func (w *World) nextID() int64 {
	w.NextID++
	return w.NextID
}

// user returns the user or organization account with the login
// (case-insensitive, as on GitHub).
func (w *World) user(login string) *User {
	for _, u := range w.Users {
		if strings.EqualFold(u.Login, login) {
			return u
		}
	}
	return nil
}

func (w *World) org(login string) *Org {
	for _, o := range w.Orgs {
		if strings.EqualFold(o.Login, login) {
			return o
		}
	}
	return nil
}

// repoIndex finds a repository and its index (for state paths) whoever may
// see it. It is for the seed, the checks and uniqueness of names; action
// handlers look repositories up with repo and list them with visibleRepos,
// which hide what the authenticated user may not see.
func (w *World) repoIndex(owner, name string) (*Repo, int) {
	for i, r := range w.Repos {
		if strings.EqualFold(r.Owner, owner) && strings.EqualFold(r.Name, name) {
			return r, i
		}
	}
	return nil, -1
}

// repo returns the repository if the authenticated user may see it, or
// GitHub's 404 — the same 404 whether it does not exist or is hidden, as on
// GitHub, so that a private repository's existence does not leak. It is
// the one lookup action handlers use.
func (w *World) repo(owner, name string) (*Repo, error) {
	r, _ := w.repoIndex(owner, name)
	if r == nil || !w.visible(r) {
		return nil, notFound("repository %s/%s not found", owner, name)
	}
	return r, nil
}

// visibleRepos returns the repositories the authenticated user may see,
// in state order: what every list and search starts from.
func (w *World) visibleRepos() []*Repo {
	out := make([]*Repo, 0, len(w.Repos))
	for _, r := range w.Repos {
		if w.visible(r) {
			out = append(out, r)
		}
	}
	return out
}

// visible reports whether the authenticated user can see the repository:
// public repositories, and private ones it owns, collaborates on or whose
// organization it belongs to (every member of an organization reads its
// repositories, GitHub's default base permission).
func (w *World) visible(r *Repo) bool {
	return !r.Private || r.isCollaborator(w.Me) || w.orgMember(r.Owner, w.Me)
}

func (w *World) orgMember(org, login string) bool {
	o := w.org(org)
	return o != nil && containsFold(o.Members, login)
}

// issueIndex finds an issue or pull request by number, and its index (for
// state paths): the first in Issues with that number.
func (r *Repo) issueIndex(number int) (*Issue, int) {
	if r.issuesSorted {
		i, found := sort.Find(len(r.Issues), func(i int) int { return cmp.Compare(number, r.Issues[i].Number) })
		if found {
			return r.Issues[i], i
		}
		return nil, -1
	}
	for i, is := range r.Issues {
		if is.Number == number {
			return is, i
		}
	}
	return nil, -1
}

// issuesAscending reports whether issues are in strictly ascending number
// order.
func issuesAscending(issues []*Issue) bool {
	for i := 1; i < len(issues); i++ {
		if issues[i].Number <= issues[i-1].Number {
			return false
		}
	}
	return true
}

// indexIssues builds r's issue and comment indexes from scratch.
func (r *Repo) indexIssues() {
	r.issuesSorted = issuesAscending(r.Issues)
	r.commentIssue = map[int64]int32{}
	for p, is := range r.Issues {
		for i := range is.Comments.Len() {
			id := is.Comments.ID(i)
			if _, dup := r.commentIssue[id]; dup {
				r.commentIssue = nil
				return
			}
			r.commentIssue[id] = int32(p)
		}
	}
}

// indexIssues builds every repository's indexes; the twin's decoder calls
// it on every world it decodes.
func (w *World) indexIssues() {
	for _, r := range w.Repos {
		r.indexIssues()
	}
}

// addIssue appends a new issue or pull request (with its comments) to r,
// keeping r's indexes current. Write paths only.
func (r *Repo) addIssue(is *Issue) {
	if n := len(r.Issues); n > 0 && r.Issues[n-1].Number >= is.Number {
		r.issuesSorted = false
	}
	r.Issues = append(r.Issues, is)
	for i := range is.Comments.Len() {
		r.indexComment(len(r.Issues)-1, is.Comments.ID(i))
	}
}

// addComment appends a comment to is, an issue of r, keeping r's index
// current, and returns its position. Write paths only.
func (r *Repo) addComment(is *Issue, c Comment) int {
	is.Comments.Append(c)
	if r.commentIssue != nil {
		// By number: a binary search where the issues are sorted.
		at, p := r.issueIndex(is.Number)
		if at != is {
			p = slices.Index(r.Issues, is)
		}
		r.indexComment(p, c.ID)
	}
	return is.Comments.Len() - 1
}

// indexComment records that the comment id belongs to the issue at
// position p of r.Issues.
func (r *Repo) indexComment(p int, id int64) {
	if r.commentIssue == nil {
		return
	}
	if _, dup := r.commentIssue[id]; dup {
		// Ids are no longer unique; findComment scans from now on.
		r.commentIssue = nil
		return
	}
	r.commentIssue[id] = int32(p)
}

// removeComment removes the i-th comment of is, an issue of r, keeping r's
// index current. Write paths only.
func (r *Repo) removeComment(is *Issue, i int) {
	id := is.Comments.ID(i)
	is.Comments.Delete(i)
	if r.commentIssue != nil {
		// The index holds only unique ids, so no other comment has it.
		delete(r.commentIssue, id)
	}
}

// issue returns an issue or pull request by number, or GitHub's 404.
func (r *Repo) issue(number int) (*Issue, error) {
	is, _ := r.issueIndex(number)
	if is == nil {
		return nil, notFound("issue #%d not found in %s", number, r.FullName())
	}
	return is, nil
}

// issueOf finds a repository and one of its issues or pull requests, the
// lookup most issue actions start with.
func (w *World) issueOf(owner, repo string, number int) (*Repo, *Issue, error) {
	r, err := w.repo(owner, repo)
	if err != nil {
		return nil, nil, err
	}
	is, err := r.issue(number)
	if err != nil {
		return nil, nil, err
	}
	return r, is, nil
}

func (r *Repo) label(name string) *Label {
	for _, l := range r.Labels {
		if strings.EqualFold(l.Name, name) {
			return l
		}
	}
	return nil
}

func (r *Repo) milestone(number int) *Milestone {
	for _, m := range r.Milestones {
		if m.Number == number {
			return m
		}
	}
	return nil
}

func (r *Repo) branch(name string) *Branch {
	for _, b := range r.Branches {
		if b.Name == name {
			return b
		}
	}
	return nil
}

func (r *Repo) commit(sha string) *Commit {
	for _, c := range r.Commits {
		if c.SHA == sha {
			return c
		}
	}
	// Abbreviated shas resolve when unambiguous, as git does.
	if len(sha) >= 7 {
		var found *Commit
		for _, c := range r.Commits {
			if strings.HasPrefix(c.SHA, sha) {
				if found != nil {
					return nil
				}
				found = c
			}
		}
		return found
	}
	return nil
}

// resolve turns a ref (branch, tag, "heads/x", "tags/x" or a sha) into a
// commit; "" means the default branch.
func (r *Repo) resolve(ref string) *Commit {
	if ref == "" {
		ref = r.DefaultBranch
	}
	ref = strings.TrimPrefix(ref, "refs/")
	if b := r.branch(strings.TrimPrefix(ref, "heads/")); b != nil {
		return r.commit(b.SHA)
	}
	for _, t := range r.Tags {
		if t.Name == strings.TrimPrefix(ref, "tags/") {
			return r.commit(t.SHA)
		}
	}
	return r.commit(ref)
}

// isCollaborator reports whether login may be assigned in the repository:
// its collaborators and, for a user-owned repository, its owner.
func (r *Repo) isCollaborator(login string) bool {
	if strings.EqualFold(r.Owner, login) {
		return true
	}
	for _, c := range r.Collaborators {
		if strings.EqualFold(c, login) {
			return true
		}
	}
	return false
}

// authorAssociation is the author's relationship to the repository as
// GitHub reports it.
func (w *World) authorAssociation(r *Repo, login string) string {
	if strings.EqualFold(r.Owner, login) {
		return "OWNER"
	}
	if o := w.org(r.Owner); o != nil && containsFold(o.Members, login) {
		return "MEMBER"
	}
	if containsFold(r.Collaborators, login) {
		return "COLLABORATOR"
	}
	return "NONE"
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

// blobSHA is git's object id of a blob, so shas match what git computes.
func blobSHA(content []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(content))
	h.Write(content)
	return hex.EncodeToString(h.Sum(nil))
}

// treeSHA is a stable digest of a tree's entries.
func treeSHA(tree map[string]string) string {
	paths := make([]string, 0, len(tree))
	for p := range tree {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	h := sha1.New()
	for _, p := range paths {
		fmt.Fprintf(h, "100644 %s\x00%s\n", p, tree[p])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// addCommit records a commit of tree on top of parents. The sha digests the
// whole commit, so equal content at another time or author differs, as in git.
func (r *Repo) addCommit(tree map[string]string, parents []string, message, author string, at time.Time) *Commit {
	h := sha1.New()
	fmt.Fprintf(h, "tree %s\n", treeSHA(tree))
	for _, p := range parents {
		fmt.Fprintf(h, "parent %s\n", p)
	}
	fmt.Fprintf(h, "author %s %d\n\n%s\n#%d", author, at.Unix(), message, len(r.Commits))
	c := &Commit{SHA: hex.EncodeToString(h.Sum(nil)), Message: message, Author: author, Date: at.UTC(), Parents: parents, Tree: tree}
	r.Commits = append(r.Commits, c)
	return c
}

// putBlob stores content and returns its sha.
func (r *Repo) putBlob(content []byte) string {
	sha := blobSHA(content)
	if r.Blobs == nil {
		r.Blobs = map[string][]byte{}
	}
	r.Blobs[sha] = content
	return sha
}

// nodeID makes a GraphQL-style global id that is stable for (kind, id).
func nodeID(kind string, id int64) string {
	return kind + "_kwDO" + base64.RawURLEncoding.EncodeToString([]byte(kind+":"+strconv.FormatInt(id, 10)))
}

// Errors in GitHub's vocabulary; RESTError renders them.

func notFound(format string, args ...any) *twins.Error {
	return twins.Errorf(twins.NotFound, "not_found", format, args...)
}

// invalid is a 422 "Validation Failed" with one GitHub error entry
// {resource, field, code}; message is what an MCP client reads.
func invalid(resource, field, code, format string, args ...any) *twins.Error {
	e := twins.Errorf(twins.Unprocessable, code, format, args...)
	e.Field = field
	return e.With("resource", resource)
}
