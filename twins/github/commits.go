package github

import (
	"context"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/pomehq/pome/twins"
)

// APIGitActor is a commit's author or committer identity.
type APIGitActor struct {
	Name  string `json:"name"`
	Email string `json:"email"`
	Date  string `json:"date"`
}

// APITreeRef points at a tree.
type APITreeRef struct {
	SHA string `json:"sha"`
	URL string `json:"url"`
}

// APIParent points at a parent commit.
type APIParent struct {
	SHA     string `json:"sha"`
	URL     string `json:"url"`
	HTMLURL string `json:"html_url"`
}

// APIVerification is a commit's signature verification (never signed here).
type APIVerification struct {
	Verified  bool    `json:"verified"`
	Reason    string  `json:"reason"`
	Signature *string `json:"signature"`
	Payload   *string `json:"payload"`
}

// APIGitCommit is GitHub's git commit object (also the "commit" key of a
// repository commit).
type APIGitCommit struct {
	SHA          string          `json:"sha,omitempty"`
	NodeID       string          `json:"node_id,omitempty"`
	URL          string          `json:"url"`
	HTMLURL      string          `json:"html_url,omitempty"`
	Author       APIGitActor     `json:"author"`
	Committer    APIGitActor     `json:"committer"`
	Message      string          `json:"message"`
	Tree         APITreeRef      `json:"tree"`
	Parents      []APIParent     `json:"parents,omitempty"`
	CommentCount *int            `json:"comment_count,omitempty"`
	Verification APIVerification `json:"verification"`
}

// APICommitStats counts changed lines.
type APICommitStats struct {
	Additions int `json:"additions"`
	Deletions int `json:"deletions"`
	Total     int `json:"total"`
}

// APICommitFile is one changed file of a commit or pull request.
type APICommitFile struct {
	SHA              string `json:"sha"`
	Filename         string `json:"filename"`
	Status           string `json:"status"`
	Additions        int    `json:"additions"`
	Deletions        int    `json:"deletions"`
	Changes          int    `json:"changes"`
	BlobURL          string `json:"blob_url"`
	RawURL           string `json:"raw_url"`
	ContentsURL      string `json:"contents_url"`
	Patch            string `json:"patch,omitempty"`
	PreviousFilename string `json:"previous_filename,omitempty"`
}

// APICommit is GitHub's repository commit object.
type APICommit struct {
	SHA         string          `json:"sha"`
	NodeID      string          `json:"node_id"`
	Commit      APIGitCommit    `json:"commit"`
	URL         string          `json:"url"`
	HTMLURL     string          `json:"html_url"`
	CommentsURL string          `json:"comments_url"`
	Author      *APIUser        `json:"author"`
	Committer   *APIUser        `json:"committer"`
	Parents     []APIParent     `json:"parents"`
	Stats       *APICommitStats `json:"stats,omitempty"`
	Files       []APICommitFile `json:"files,omitempty"`

	// raw is the diff or patch text a REST call asked for instead.
	raw *twins.Raw
}

func (c APICommit) media() *twins.Raw { return c.raw }

func (v *view) actor(login string, at time.Time) APIGitActor {
	name := login
	if u := v.w.user(login); u != nil && u.Name != "" {
		name = u.Name
	}
	return APIGitActor{Name: name, Email: login + "@users.noreply.github.com", Date: ts(at)}
}

func (v *view) parents(r *Repo, c *Commit) []APIParent {
	out := make([]APIParent, 0, len(c.Parents))
	for _, p := range c.Parents {
		out = append(out, APIParent{SHA: p, URL: v.repoURL(r) + "/commits/" + p, HTMLURL: v.html + "/" + r.FullName() + "/commit/" + p})
	}
	return out
}

func (v *view) gitCommit(r *Repo, c *Commit) APIGitCommit {
	return APIGitCommit{
		SHA: c.SHA, NodeID: nodeID("C", int64(len(c.SHA))) + c.SHA[:8], URL: v.repoURL(r) + "/git/commits/" + c.SHA,
		HTMLURL: v.html + "/" + r.FullName() + "/commit/" + c.SHA,
		Author:  v.actor(c.Author, c.Date), Committer: v.actor(c.Author, c.Date), Message: c.Message,
		Tree:    APITreeRef{SHA: treeSHA(c.Tree), URL: v.repoURL(r) + "/git/trees/" + treeSHA(c.Tree)},
		Parents: v.parents(r, c), Verification: APIVerification{Reason: "unsigned"},
	}
}

// commit renders a repository commit; withFiles adds stats and files as
// GET …/commits/{sha} does.
func (v *view) commit(r *Repo, c *Commit, withFiles bool) APICommit {
	gc := v.gitCommit(r, c)
	inner := gc
	inner.SHA, inner.NodeID, inner.HTMLURL, inner.Parents = "", "", "", nil
	zero := 0
	inner.CommentCount = &zero
	out := APICommit{
		SHA: c.SHA, NodeID: gc.NodeID, Commit: inner, URL: v.repoURL(r) + "/commits/" + c.SHA,
		HTMLURL: gc.HTMLURL, CommentsURL: v.repoURL(r) + "/commits/" + c.SHA + "/comments",
		Author: v.user(c.Author), Committer: v.user(c.Author), Parents: v.parents(r, c),
	}
	if withFiles {
		var base map[string]string
		if len(c.Parents) > 0 {
			if p := r.commit(c.Parents[0]); p != nil {
				base = p.Tree
			}
		}
		files, stats := v.diffFiles(r, base, c.Tree, c.SHA)
		out.Files, out.Stats = files, &stats
	}
	return out
}

// diffFiles compares two trees as GitHub's files lists do.
func (v *view) diffFiles(r *Repo, from, to map[string]string, ref string) ([]APICommitFile, APICommitStats) {
	paths := map[string]bool{}
	for p := range from {
		paths[p] = true
	}
	for p := range to {
		paths[p] = true
	}
	sorted := make([]string, 0, len(paths))
	for p := range paths {
		if from[p] != to[p] {
			sorted = append(sorted, p)
		}
	}
	sort.Strings(sorted)
	files := []APICommitFile{}
	var stats APICommitStats
	for _, p := range sorted {
		a, b := string(r.Blobs[from[p]]), string(r.Blobs[to[p]])
		status := "modified"
		switch {
		case from[p] == "":
			status = "added"
		case to[p] == "":
			status = "removed"
		}
		adds, dels, patch := lineDiff(a, b, from[p] == "", to[p] == "")
		sha := to[p]
		if sha == "" {
			sha = from[p]
		}
		esc := pathEscape(p)
		files = append(files, APICommitFile{
			SHA: sha, Filename: p, Status: status, Additions: adds, Deletions: dels, Changes: adds + dels,
			BlobURL: v.html + "/" + r.FullName() + "/blob/" + ref + "/" + esc, RawURL: v.html + "/" + r.FullName() + "/raw/" + ref + "/" + esc,
			ContentsURL: v.repoURL(r) + "/contents/" + esc + "?ref=" + ref, Patch: patch,
		})
		stats.Additions += adds
		stats.Deletions += dels
	}
	stats.Total = stats.Additions + stats.Deletions
	return files, stats
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// lineDiff is a longest-common-subsequence line diff rendered as one
// unified hunk; sandbox files are small enough for the quadratic table.
func lineDiff(a, b string, added, removed bool) (adds, dels int, patch string) {
	x, y := splitLines(a), splitLines(b)
	n, m := len(x), len(y)
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var lines []string
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && x[i] == y[j]:
			lines = append(lines, " "+x[i])
			i, j = i+1, j+1
		case i < n && (j == m || lcs[i+1][j] >= lcs[i][j+1]):
			// Deletions before additions, as git prints a changed line.
			lines = append(lines, "-"+x[i])
			dels++
			i++
		default:
			lines = append(lines, "+"+y[j])
			adds++
			j++
		}
	}
	if adds == 0 && dels == 0 {
		return 0, 0, ""
	}
	fromStart, toStart := 1, 1
	if added {
		fromStart = 0
	}
	if removed {
		toStart = 0
	}
	return adds, dels, fmt.Sprintf("@@ -%d,%d +%d,%d @@\n%s", fromStart, n, toStart, m, strings.Join(lines, "\n"))
}

// ListCommitsIn is list_commits' input.
type ListCommitsIn struct {
	RepoRef
	SHA    string `json:"sha,omitempty" jsonschema:"Commit SHA, branch or tag to list commits of (default: the default branch)"`
	Path   string `json:"path,omitempty" jsonschema:"Only commits touching this file path"`
	Author string `json:"author,omitempty" jsonschema:"Author login or email to filter by"`
	Since  string `json:"since,omitempty" jsonschema:"Only commits at or after this time (ISO 8601)"`
	Until  string `json:"until,omitempty" jsonschema:"Only commits at or before this time (ISO 8601)"`
	Paging
	Fields []string `json:"fields,omitempty" jsonschema:"Fields to keep in each commit over MCP (all when omitted); leave out commit to shrink the answer" enum:"sha,html_url,commit,author,committer"`
}

var listCommits = twins.New(twins.Spec{
	Name: "list_commits", Title: "List commits",
	Description: "Get the commits of a branch, tag or sha in a GitHub repository, newest first.",
	Effect:      twins.Read,
	Bindings:    []twins.Binding{{Method: "GET", Path: "/repos/{owner}/{repo}/commits", Rename: perPageRename, Shape: restShape, Headers: linkHeaders}},
}, func(ctx context.Context, w *World, in ListCommitsIn) (*List[APICommit], error) {
	r, err := w.repo(in.Owner, in.Repo)
	if err != nil {
		return nil, err
	}
	head := r.resolve(in.SHA)
	if head == nil {
		return nil, notFound("no commit found for SHA: %s", in.SHA)
	}
	since, until, err := timeRange(in.Since, in.Until)
	if err != nil {
		return nil, err
	}
	reach := r.ancestors(head.SHA)
	var list []*Commit
	for idx := len(r.Commits) - 1; idx >= 0; idx-- {
		c := r.Commits[idx]
		if !reach[c.SHA] {
			continue
		}
		if in.Author != "" && !strings.EqualFold(c.Author, in.Author) && !strings.EqualFold(c.Author+"@users.noreply.github.com", in.Author) {
			continue
		}
		if !since.IsZero() && c.Date.Before(since) || !until.IsZero() && c.Date.After(until) {
			continue
		}
		if in.Path != "" && !touches(r, c, in.Path) {
			continue
		}
		list = append(list, c)
	}
	v := newView(ctx, w)
	items := make([]APICommit, 0, len(list))
	for _, c := range list {
		items = append(items, v.commit(r, c, false))
	}
	q := url.Values{}
	for k, val := range map[string]string{"sha": in.SHA, "path": in.Path, "author": in.Author, "since": in.Since, "until": in.Until} {
		if val != "" {
			q.Set(k, val)
		}
	}
	return newList(ctx, items, in.Paging, "/repos/"+r.FullName()+"/commits", q), nil
})

func timeRange(since, until string) (time.Time, time.Time, error) {
	parse := func(field, s string) (time.Time, error) {
		if s == "" {
			return time.Time{}, nil
		}
		for _, layout := range []string{time.RFC3339, "2006-01-02"} {
			if t, err := time.Parse(layout, s); err == nil {
				return t, nil
			}
		}
		return time.Time{}, invalid("Commit", field, "invalid", "%s must be an ISO 8601 time, got %q", field, s)
	}
	a, err := parse("since", since)
	if err != nil {
		return a, a, err
	}
	b, err := parse("until", until)
	return a, b, err
}

// touches reports whether a commit changed path relative to its first
// parent.
func touches(r *Repo, c *Commit, path string) bool {
	var before string
	if len(c.Parents) > 0 {
		if p := r.commit(c.Parents[0]); p != nil {
			before = p.Tree[path]
		}
	}
	if c.Tree[path] != before {
		return true
	}
	// A directory path matches any file below it.
	prefix := strings.TrimSuffix(path, "/") + "/"
	for p, sha := range c.Tree {
		if strings.HasPrefix(p, prefix) && (len(c.Parents) == 0 || r.commit(c.Parents[0]).Tree[p] != sha) {
			return true
		}
	}
	return false
}

// GetCommitIn is get_commit's input.
type GetCommitIn struct {
	RepoRef
	SHA         string `json:"sha" jsonschema:"Commit SHA, branch name or tag name"`
	IncludeDiff *bool  `json:"include_diff,omitempty" jsonschema:"Whether to include file diffs and stats in the response. Default is true."`
	Detail      string `json:"detail,omitempty" jsonschema:"Level of detail to include for changed files: none (no stats or files), stats (default: per-file metadata and line counts, no patch content) or full_patch (with each file's unified diff)" enum:"none,stats,full_patch"`
	Paging
}

var getCommit = twins.New(twins.Spec{
	Name: "get_commit", Title: "Get commit details",
	Description: "Get a commit of a GitHub repository with its stats and changed files.",
	Effect:      twins.Read,
	// GitHub's REST answer always carries each file's patch.
	Bindings: []twins.Binding{{Method: "GET", Path: "/repos/{owner}/{repo}/commits/{sha}", Rename: perPageRename,
		Fixed: map[string]any{"detail": "full_patch"}, Shape: mediaShape}},
}, func(ctx context.Context, w *World, in GetCommitIn) (APICommit, error) {
	r, err := w.repo(in.Owner, in.Repo)
	if err != nil {
		return APICommit{}, err
	}
	switch in.Detail {
	case "", "none", "stats", "full_patch":
	default:
		return APICommit{}, invalid("Commit", "detail", "invalid", "detail must be none, stats or full_patch, got %q", in.Detail)
	}
	c := r.resolve(in.SHA)
	if c == nil || in.SHA == "" {
		return APICommit{}, invalid("Commit", "sha", "invalid", "No commit found for SHA: %s", in.SHA).With("message", "No commit found for SHA: "+in.SHA)
	}
	v := newView(ctx, w)
	switch rawMedia(ctx) {
	case "diff":
		var parent map[string]string
		if len(c.Parents) > 0 {
			parent = r.commit(c.Parents[0]).Tree
		}
		raw := rawText("diff", diffText(r, parent, c.Tree))
		return APICommit{raw: &raw}, nil
	case "patch":
		raw := rawText("patch", v.patchText(r, []*Commit{c}))
		return APICommit{raw: &raw}, nil
	}
	withFiles := in.Detail != "none" && (in.IncludeDiff == nil || *in.IncludeDiff)
	out := v.commit(r, c, withFiles)
	if in.Detail == "" || in.Detail == "stats" {
		for i := range out.Files {
			out.Files[i].Patch = ""
		}
	}
	return out, nil
})
