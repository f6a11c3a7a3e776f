package github

import (
	"context"
	"fmt"
	"net/url"
	"sort"
	"strings"

	"github.com/pomehq/pome/twins"
)

// GitHub's diff and patch media types: a REST GET of a pull request, a
// commit or a comparison whose Accept header names
// application/vnd.github[.v3].diff or .patch is answered with the text
// `git diff` or `git format-patch` would print, not JSON.

// rawMedia returns "diff" or "patch" when the REST call asks for that media
// type, else "".
func rawMedia(ctx context.Context) string {
	if twins.TransportFrom(ctx) != twins.TransportREST {
		return ""
	}
	accept := strings.ToLower(twins.Header(ctx, "Accept"))
	for _, kind := range []string{"diff", "patch"} {
		if strings.Contains(accept, "application/vnd.github.v3."+kind) || strings.Contains(accept, "application/vnd.github."+kind) {
			return kind
		}
	}
	return ""
}

func rawText(kind, text string) twins.Raw {
	return twins.Raw{ContentType: "application/vnd.github." + kind + "; charset=utf-8", Body: text}
}

// mediaShape is the Shape of bindings that may answer a raw media type: it
// sends the text an output carries instead of the output.
func mediaShape(in, out any) any {
	if m, ok := out.(interface{ media() *twins.Raw }); ok {
		if raw := m.media(); raw != nil {
			return *raw
		}
	}
	return restShape(in, out)
}

// diffText renders the change from one tree to another as `git diff` does.
func diffText(r *Repo, from, to map[string]string) string {
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
	var b strings.Builder
	for _, p := range sorted {
		a, z := from[p], to[p]
		fmt.Fprintf(&b, "diff --git a/%s b/%s\n", p, p)
		src, dst := "a/"+p, "b/"+p
		switch {
		case a == "":
			b.WriteString("new file mode 100644\n")
			fmt.Fprintf(&b, "index 0000000..%s\n", z[:7])
			src = "/dev/null"
		case z == "":
			b.WriteString("deleted file mode 100644\n")
			fmt.Fprintf(&b, "index %s..0000000\n", a[:7])
			dst = "/dev/null"
		default:
			fmt.Fprintf(&b, "index %s..%s 100644\n", a[:7], z[:7])
		}
		_, _, patch := lineDiff(string(r.Blobs[a]), string(r.Blobs[z]), a == "", z == "")
		if patch == "" {
			// Same text under another blob (a binary change, say).
			fmt.Fprintf(&b, "Binary files %s and %s differ\n", src, dst)
			continue
		}
		fmt.Fprintf(&b, "--- %s\n+++ %s\n%s\n", src, dst, patch)
	}
	return b.String()
}

// patchText renders commits as `git format-patch --stdout` does: one mail
// per commit, each with its own diff against its first parent.
func (v *view) patchText(r *Repo, commits []*Commit) string {
	var b strings.Builder
	for i, c := range commits {
		var parent map[string]string
		if len(c.Parents) > 0 {
			if p := r.commit(c.Parents[0]); p != nil {
				parent = p.Tree
			}
		}
		subject, body, _ := strings.Cut(c.Message, "\n")
		who := v.actor(c.Author, c.Date)
		fmt.Fprintf(&b, "From %s Mon Sep 17 00:00:00 2001\nFrom: %s <%s>\nDate: %s\nSubject: [PATCH %d/%d] %s\n",
			c.SHA, who.Name, who.Email, c.Date.UTC().Format("Mon, 2 Jan 2006 15:04:05 -0700"), i+1, len(commits), subject)
		if body = strings.TrimSpace(body); body != "" {
			fmt.Fprintf(&b, "\n%s\n", body)
		}
		fmt.Fprintf(&b, "---\n%s\n", diffText(r, parent, c.Tree))
	}
	return b.String()
}

// CompareIn is compare_commits' input: GitHub's basehead ("base...head").
type CompareIn struct {
	RepoRef
	Basehead string `json:"basehead" jsonschema:"The base and head branches, tags or commits to compare, as BASE...HEAD"`
	Paging
}

// APIComparison is GitHub's commit comparison.
type APIComparison struct {
	URL             string          `json:"url"`
	HTMLURL         string          `json:"html_url"`
	PermalinkURL    string          `json:"permalink_url"`
	DiffURL         string          `json:"diff_url"`
	PatchURL        string          `json:"patch_url"`
	BaseCommit      APICommit       `json:"base_commit"`
	MergeBaseCommit APICommit       `json:"merge_base_commit"`
	Status          string          `json:"status"`
	AheadBy         int             `json:"ahead_by"`
	BehindBy        int             `json:"behind_by"`
	TotalCommits    int             `json:"total_commits"`
	Commits         []APICommit     `json:"commits"`
	Files           []APICommitFile `json:"files"`

	raw *twins.Raw
}

func (c *APIComparison) media() *twins.Raw { return c.raw }

var compareCommits = twins.New(twins.Spec{
	Name: "compare_commits", Title: "Compare two commits",
	Description: "Compare two branches, tags or commits of a GitHub repository (BASE...HEAD): the commits head has that base lacks, and the changed files.",
	Effect:      twins.Read,
	Bindings:    []twins.Binding{{Method: "GET", Path: "/repos/{owner}/{repo}/compare/{basehead:.+}", Rename: perPageRename, Shape: mediaShape}},
}, func(ctx context.Context, w *World, in CompareIn) (*APIComparison, error) {
	r, err := w.repo(in.Owner, in.Repo)
	if err != nil {
		return nil, err
	}
	baseRef, headRef, ok := strings.Cut(in.Basehead, "...")
	if !ok {
		baseRef, headRef, ok = strings.Cut(in.Basehead, "..")
	}
	if !ok || baseRef == "" || headRef == "" {
		return nil, notFound("basehead %q is not BASE...HEAD", in.Basehead)
	}
	base, head := r.resolve(baseRef), r.resolve(headRef)
	if base == nil || head == nil {
		return nil, notFound("No common ancestor between %s and %s.", baseRef, headRef)
	}
	mb := r.mergeBase(base.SHA, head.SHA)
	if mb == nil {
		return nil, notFound("No common ancestor between %s and %s.", baseRef, headRef)
	}
	v := newView(ctx, w)
	ahead := r.commitsBetween(base.SHA, head.SHA)
	behind := r.commitsBetween(head.SHA, base.SHA)
	switch rawMedia(ctx) {
	case "diff":
		raw := rawText("diff", diffText(r, mb.Tree, head.Tree))
		return &APIComparison{raw: &raw}, nil
	case "patch":
		raw := rawText("patch", v.patchText(r, ahead))
		return &APIComparison{raw: &raw}, nil
	}
	status := "identical"
	switch {
	case len(ahead) > 0 && len(behind) > 0:
		status = "diverged"
	case len(ahead) > 0:
		status = "ahead"
	case len(behind) > 0:
		status = "behind"
	}
	commits := make([]APICommit, 0, len(ahead))
	for _, c := range ahead {
		commits = append(commits, v.commit(r, c, false))
	}
	page, _ := paginate(ctx, commits, in.Paging, "/repos/"+r.FullName()+"/compare/"+url.PathEscape(in.Basehead), nil)
	files, _ := v.diffFiles(r, mb.Tree, head.Tree, head.SHA)
	html := v.html + "/" + r.FullName() + "/compare/" + in.Basehead
	return &APIComparison{
		URL: v.repoURL(r) + "/compare/" + in.Basehead, HTMLURL: html,
		PermalinkURL: v.html + "/" + r.FullName() + "/compare/" + base.SHA[:7] + "..." + head.SHA[:7],
		DiffURL:      html + ".diff", PatchURL: html + ".patch",
		BaseCommit: v.commit(r, base, false), MergeBaseCommit: v.commit(r, mb, false),
		Status: status, AheadBy: len(ahead), BehindBy: len(behind), TotalCommits: len(ahead),
		Commits: page, Files: files,
	}, nil
})

// pullFrom is the commit a pull request's changes are counted from: its
// base branch now, or where the base was when it merged.
func (r *Repo) pullFrom(p *Pull) string {
	if p.Merged {
		return p.BaseSHA
	}
	return r.baseSHA(p)
}

// pullDiffText is a pull request's diff: its head against the merge base.
func (v *view) pullDiffText(r *Repo, p *Pull) string {
	head := r.commit(r.headSHA(p))
	from := map[string]string{}
	if mb := r.mergeBase(r.pullFrom(p), head.SHA); mb != nil {
		from = mb.Tree
	}
	return diffText(r, from, head.Tree)
}
