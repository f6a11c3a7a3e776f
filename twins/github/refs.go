package github

import (
	"context"
	"fmt"
	"strings"

	"github.com/pomehq/pome/twins"
)

// APIRefObject is what a git ref points at.
type APIRefObject struct {
	Type string `json:"type"`
	SHA  string `json:"sha"`
	URL  string `json:"url"`
}

// APIRef is GitHub's git reference object.
type APIRef struct {
	Ref    string       `json:"ref"`
	NodeID string       `json:"node_id"`
	URL    string       `json:"url"`
	Object APIRefObject `json:"object"`
}

func (v *view) ref(r *Repo, ref, sha string) APIRef {
	return APIRef{Ref: ref, NodeID: "REF_" + sha[:12], URL: v.repoURL(r) + "/git/" + ref,
		Object: APIRefObject{Type: "commit", SHA: sha, URL: v.repoURL(r) + "/git/commits/" + sha}}
}

// APIBranchCommit is a branch list entry's commit pointer.
type APIBranchCommit struct {
	SHA string `json:"sha"`
	URL string `json:"url"`
}

// APIBranchShort is a branch as GET …/branches lists it.
type APIBranchShort struct {
	Name      string          `json:"name"`
	Commit    APIBranchCommit `json:"commit"`
	Protected bool            `json:"protected"`
}

// APIBranchLinks are a branch's _links.
type APIBranchLinks struct {
	Self string `json:"self"`
	HTML string `json:"html"`
}

// APIBranch is GET …/branches/{branch}'s object.
type APIBranch struct {
	Name      string         `json:"name"`
	Commit    APICommit      `json:"commit"`
	Links     APIBranchLinks `json:"_links"`
	Protected bool           `json:"protected"`
}

var listBranches = twins.New(twins.Spec{
	Name: "list_branches", Title: "List branches",
	Description: "List the branches of a GitHub repository.",
	Effect:      twins.Read,
	Bindings:    []twins.Binding{{Method: "GET", Path: "/repos/{owner}/{repo}/branches", Rename: perPageRename, Shape: restShape, Headers: linkHeaders}},
}, func(ctx context.Context, w *World, in RepoLabelsIn) (*List[APIBranchShort], error) {
	r, err := w.repo(in.Owner, in.Repo)
	if err != nil {
		return nil, err
	}
	v := newView(ctx, w)
	items := make([]APIBranchShort, 0, len(r.Branches))
	for _, b := range sortedBranches(r) {
		items = append(items, APIBranchShort{Name: b.Name, Commit: APIBranchCommit{SHA: b.SHA, URL: v.repoURL(r) + "/commits/" + b.SHA}, Protected: b.Protected})
	}
	return newList(ctx, items, in.Paging, "/repos/"+r.FullName()+"/branches", nil), nil
})

// sortedBranches orders branches by name, as GitHub lists them.
func sortedBranches(r *Repo) []*Branch {
	out := append([]*Branch{}, r.Branches...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].Name < out[j-1].Name; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// BranchIn addresses one branch.
type BranchIn struct {
	RepoRef
	Branch string `json:"branch" jsonschema:"Branch name"`
}

var getBranch = twins.New(twins.Spec{
	Name: "get_branch", Title: "Get a branch",
	Description: "Get a branch of a GitHub repository with its head commit.",
	Effect:      twins.Read,
	Bindings:    []twins.Binding{{Method: "GET", Path: "/repos/{owner}/{repo}/branches/{branch:.+}"}},
}, func(ctx context.Context, w *World, in BranchIn) (APIBranch, error) {
	r, err := w.repo(in.Owner, in.Repo)
	if err != nil {
		return APIBranch{}, err
	}
	b := r.branch(in.Branch)
	if b == nil {
		return APIBranch{}, notFound("Branch not found")
	}
	v := newView(ctx, w)
	return APIBranch{Name: b.Name, Commit: v.commit(r, r.commit(b.SHA), false), Protected: b.Protected,
		Links: APIBranchLinks{Self: v.repoURL(r) + "/branches/" + b.Name, HTML: v.html + "/" + r.FullName() + "/tree/" + b.Name}}, nil
})

// CreateBranchIn is create_branch's input: github-mcp-server's branch and
// from_branch, or GitHub REST's ref ("refs/heads/x" or "refs/tags/x") and
// sha for POST …/git/refs.
type CreateBranchIn struct {
	RepoRef
	Branch     string `json:"branch,omitempty" jsonschema:"Name for the new branch"`
	FromBranch string `json:"from_branch,omitempty" jsonschema:"Source branch (defaults to the repository's default branch)"`
	Ref        string `json:"ref,omitempty" jsonschema:"Fully qualified ref to create (refs/heads/… or refs/tags/…), instead of branch"`
	SHA        string `json:"sha,omitempty" jsonschema:"Commit the new ref points at, instead of from_branch"`
}

var createBranch = twins.New(twins.Spec{
	Name: "create_branch", Title: "Create branch",
	Description: "Create a new branch (or, with ref refs/tags/…, a tag) in a GitHub repository from a branch or a commit.",
	Effect:      twins.Write,
	Bindings:    []twins.Binding{{Method: "POST", Path: "/repos/{owner}/{repo}/git/refs", Status: 201}},
}, func(ctx context.Context, w *World, in CreateBranchIn) (APIRef, error) {
	r, err := w.repo(in.Owner, in.Repo)
	if err != nil {
		return APIRef{}, err
	}
	ref := in.Ref
	if ref == "" {
		if in.Branch == "" {
			return APIRef{}, invalid("Reference", "branch", "missing_field", "branch (or ref) is required")
		}
		ref = "refs/heads/" + in.Branch
	}
	if !strings.HasPrefix(ref, "refs/") || strings.Count(ref, "/") < 2 {
		return APIRef{}, invalid("Reference", "ref", "invalid", "%q is not a valid ref name", ref).With("message", "Reference name must start with 'refs/' and have at least two slashes.")
	}
	isTag := strings.HasPrefix(ref, "refs/tags/")
	name := strings.TrimPrefix(strings.TrimPrefix(ref, "refs/heads/"), "refs/tags/")
	if name == "" || strings.ContainsAny(name, " ~^:?*[\\") || strings.Contains(name, "..") {
		return APIRef{}, invalid("Reference", "ref", "invalid", "%q is not a valid ref name", ref).With("message", ref+" is not a valid ref name.")
	}
	if (!isTag && r.branch(name) != nil) || (isTag && r.tag(name) != nil) {
		return APIRef{}, invalid("Reference", "ref", "already_exists", "%s already exists", ref).With("message", "Reference already exists")
	}
	var sha string
	if in.SHA != "" {
		c := r.commit(in.SHA)
		if c == nil {
			return APIRef{}, invalid("Reference", "sha", "invalid", "commit %s does not exist", in.SHA).With("message", "Object does not exist")
		}
		sha = c.SHA
	} else {
		from := in.FromBranch
		if from == "" {
			from = r.DefaultBranch
		}
		b := r.branch(from)
		if b == nil {
			return APIRef{}, notFound("Branch %s not found", from)
		}
		sha = b.SHA
	}
	if isTag {
		r.Tags = append(r.Tags, &Tag{Name: name, SHA: sha})
	} else {
		r.Branches = append(r.Branches, &Branch{Name: name, SHA: sha})
	}
	return newView(ctx, w).ref(r, ref, sha), nil
})

// GitRefIn addresses a ref as "heads/x" or "tags/x".
type GitRefIn struct {
	RepoRef
	Ref   string `json:"ref" jsonschema:"The ref, e.g. heads/main or tags/v1.0"`
	SHA   string `json:"sha,omitempty" jsonschema:"New commit (update only)"`
	Force bool   `json:"force,omitempty" jsonschema:"Allow a non-fast-forward update"`
}

func (r *Repo) lookupRef(ref string) (kind, name, sha string, ok bool) {
	ref = strings.TrimPrefix(ref, "refs/")
	switch {
	case strings.HasPrefix(ref, "heads/"):
		if b := r.branch(strings.TrimPrefix(ref, "heads/")); b != nil {
			return "heads", b.Name, b.SHA, true
		}
	case strings.HasPrefix(ref, "tags/"):
		if t := r.tag(strings.TrimPrefix(ref, "tags/")); t != nil {
			return "tags", t.Name, t.SHA, true
		}
	}
	return "", "", "", false
}

var getGitRef = twins.New(twins.Spec{
	Name: "get_git_ref", Title: "Get a git reference",
	Description: "Get a branch (heads/x) or tag (tags/x) reference of a GitHub repository.",
	Effect:      twins.Read,
	Bindings:    []twins.Binding{{Method: "GET", Path: "/repos/{owner}/{repo}/git/ref/{ref:.+}"}},
}, func(ctx context.Context, w *World, in GitRefIn) (APIRef, error) {
	r, err := w.repo(in.Owner, in.Repo)
	if err != nil {
		return APIRef{}, err
	}
	kind, name, sha, ok := r.lookupRef(in.Ref)
	if !ok {
		return APIRef{}, notFound("reference %s not found", in.Ref)
	}
	return newView(ctx, w).ref(r, "refs/"+kind+"/"+name, sha), nil
})

var updateGitRef = twins.New(twins.Spec{
	Name: "update_git_ref", Title: "Update a git reference",
	Description: "Point a branch or tag at another commit; without force only a fast-forward is allowed.",
	Effect:      twins.Write,
	Bindings:    []twins.Binding{{Method: "PATCH", Path: "/repos/{owner}/{repo}/git/refs/{ref:.+}"}},
}, func(ctx context.Context, w *World, in GitRefIn) (APIRef, error) {
	r, err := w.repo(in.Owner, in.Repo)
	if err != nil {
		return APIRef{}, err
	}
	kind, name, old, ok := r.lookupRef(in.Ref)
	if !ok {
		return APIRef{}, invalid("Reference", "ref", "invalid", "reference %s does not exist", in.Ref).With("message", "Reference does not exist")
	}
	c := r.commit(in.SHA)
	if c == nil {
		return APIRef{}, invalid("Reference", "sha", "invalid", "commit %s does not exist", in.SHA).With("message", "Object does not exist")
	}
	if !in.Force && !r.ancestors(c.SHA)[old] {
		return APIRef{}, invalid("Reference", "sha", "invalid", "%s is not a fast-forward of %s", c.SHA, in.Ref).With("message", "Update is not a fast forward")
	}
	if c.SHA == old {
		twins.Unchanged(ctx)
	} else if kind == "heads" {
		r.branch(name).SHA = c.SHA
	} else {
		r.tag(name).SHA = c.SHA
	}
	return newView(ctx, w).ref(r, "refs/"+kind+"/"+name, c.SHA), nil
})

// DeleteBranchIn is delete_branch's input; REST's {ref} (heads/x) binds to
// branch.
type DeleteBranchIn struct {
	RepoRef
	Branch string `json:"branch" jsonschema:"Branch to delete (or heads/x, tags/x)"`
}

var deleteBranch = twins.New(twins.Spec{
	Name: "delete_branch", Title: "Delete branch",
	Description: "Delete a branch (or a tag, given as tags/x) of a GitHub repository. The default branch cannot be deleted.",
	Effect:      twins.Destructive,
	Bindings:    []twins.Binding{{Method: "DELETE", Path: "/repos/{owner}/{repo}/git/refs/{ref:.+}", Rename: map[string]string{"ref": "branch"}, Status: 204, Shape: noBody}},
}, func(ctx context.Context, w *World, in DeleteBranchIn) (*struct{}, error) {
	r, err := w.repo(in.Owner, in.Repo)
	if err != nil {
		return nil, err
	}
	ref := strings.TrimPrefix(in.Branch, "refs/")
	if !strings.HasPrefix(ref, "heads/") && !strings.HasPrefix(ref, "tags/") {
		ref = "heads/" + ref
	}
	kind, name, _, ok := r.lookupRef(ref)
	if !ok {
		return nil, invalid("Reference", "ref", "invalid", "reference %s does not exist", in.Branch).With("message", "Reference does not exist")
	}
	if kind == "heads" {
		if name == r.DefaultBranch {
			return nil, invalid("Reference", "ref", "invalid", "cannot delete the default branch").With("message", "Cannot delete the default branch")
		}
		for i, b := range r.Branches {
			if b.Name == name {
				r.Branches = append(r.Branches[:i], r.Branches[i+1:]...)
				break
			}
		}
		return &struct{}{}, nil
	}
	for i, t := range r.Tags {
		if t.Name == name {
			r.Tags = append(r.Tags[:i], r.Tags[i+1:]...)
			break
		}
	}
	return &struct{}{}, nil
})

// APITag is a tag as GET …/tags lists it.
type APITag struct {
	Name       string          `json:"name"`
	Commit     APIBranchCommit `json:"commit"`
	ZipballURL string          `json:"zipball_url"`
	TarballURL string          `json:"tarball_url"`
	NodeID     string          `json:"node_id"`
}

func (v *view) tag(r *Repo, t *Tag) APITag {
	return APITag{Name: t.Name, Commit: APIBranchCommit{SHA: t.SHA, URL: v.repoURL(r) + "/commits/" + t.SHA},
		ZipballURL: v.repoURL(r) + "/zipball/refs/tags/" + t.Name, TarballURL: v.repoURL(r) + "/tarball/refs/tags/" + t.Name,
		NodeID: "REF_" + t.SHA[:12]}
}

var listTags = twins.New(twins.Spec{
	Name: "list_tags", Title: "List tags",
	Description: "List git tags in a GitHub repository.",
	Effect:      twins.Read,
	Bindings:    []twins.Binding{{Method: "GET", Path: "/repos/{owner}/{repo}/tags", Rename: perPageRename, Shape: restShape, Headers: linkHeaders}},
}, func(ctx context.Context, w *World, in RepoLabelsIn) (*List[APITag], error) {
	r, err := w.repo(in.Owner, in.Repo)
	if err != nil {
		return nil, err
	}
	v := newView(ctx, w)
	items := make([]APITag, 0, len(r.Tags))
	for i := len(r.Tags) - 1; i >= 0; i-- {
		items = append(items, v.tag(r, r.Tags[i]))
	}
	return newList(ctx, items, in.Paging, "/repos/"+r.FullName()+"/tags", nil), nil
})

// TagIn addresses a tag by name.
type TagIn struct {
	RepoRef
	Tag string `json:"tag" jsonschema:"Tag name"`
}

var getTag = twins.New(twins.Spec{
	Name: "get_tag", Title: "Get tag details",
	Description: "Get a git tag of a GitHub repository by name, with the commit it points at.",
	Effect:      twins.Read,
}, func(ctx context.Context, w *World, in TagIn) (APITag, error) {
	r, err := w.repo(in.Owner, in.Repo)
	if err != nil {
		return APITag{}, err
	}
	t := r.tag(in.Tag)
	if t == nil {
		return APITag{}, notFound("tag %s not found", in.Tag)
	}
	return newView(ctx, w).tag(r, t), nil
})

// APIRelease is GitHub's release object.
type APIRelease struct {
	URL             string   `json:"url"`
	HTMLURL         string   `json:"html_url"`
	AssetsURL       string   `json:"assets_url"`
	UploadURL       string   `json:"upload_url"`
	TarballURL      *string  `json:"tarball_url"`
	ZipballURL      *string  `json:"zipball_url"`
	ID              int64    `json:"id"`
	NodeID          string   `json:"node_id"`
	TagName         string   `json:"tag_name"`
	TargetCommitish string   `json:"target_commitish"`
	Name            *string  `json:"name"`
	Body            *string  `json:"body"`
	Draft           bool     `json:"draft"`
	Prerelease      bool     `json:"prerelease"`
	CreatedAt       string   `json:"created_at"`
	PublishedAt     *string  `json:"published_at"`
	Author          *APIUser `json:"author"`
	Assets          []any    `json:"assets"`
}

func (v *view) release(r *Repo, rel *Release) APIRelease {
	u := fmt.Sprintf("%s/releases/%d", v.repoURL(r), rel.ID)
	tb, zb := v.repoURL(r)+"/tarball/"+rel.TagName, v.repoURL(r)+"/zipball/"+rel.TagName
	return APIRelease{URL: u, HTMLURL: v.html + "/" + r.FullName() + "/releases/tag/" + rel.TagName, AssetsURL: u + "/assets",
		UploadURL:  fmt.Sprintf("https://uploads.github.com/repos/%s/releases/%d/assets{?name,label}", r.FullName(), rel.ID),
		TarballURL: &tb, ZipballURL: &zb, ID: rel.ID, NodeID: nodeID("RE", rel.ID), TagName: rel.TagName, TargetCommitish: rel.Target,
		Name: strPtr(rel.Name), Body: strPtr(rel.Body), Draft: rel.Draft, Prerelease: rel.Prerelease, CreatedAt: ts(rel.CreatedAt),
		PublishedAt: tsPtr(rel.PublishedAt), Author: v.user(rel.Author), Assets: []any{}}
}

// ListReleasesIn is list_releases' input, with github-mcp-server's field
// selection.
type ListReleasesIn struct {
	RepoLabelsIn
	Fields []string `json:"fields,omitempty" jsonschema:"Fields to keep in each release (all when omitted); leave out body to shrink the answer" enum:"id,tag_name,name,body,html_url,published_at,prerelease,draft,author"`
}

var listReleases = twins.New(twins.Spec{
	Name: "list_releases", Title: "List releases",
	Description: "List releases in a GitHub repository, newest first.",
	Effect:      twins.Read,
	Bindings:    []twins.Binding{{Method: "GET", Path: "/repos/{owner}/{repo}/releases", Rename: perPageRename, Shape: restShape, Headers: linkHeaders}},
}, func(ctx context.Context, w *World, in ListReleasesIn) (*List[APIRelease], error) {
	r, err := w.repo(in.Owner, in.Repo)
	if err != nil {
		return nil, err
	}
	v := newView(ctx, w)
	items := make([]APIRelease, 0, len(r.Releases))
	for i := len(r.Releases) - 1; i >= 0; i-- {
		items = append(items, v.release(r, r.Releases[i]))
	}
	return newList(ctx, items, in.Paging, "/repos/"+r.FullName()+"/releases", nil), nil
})

var getLatestRelease = twins.New(twins.Spec{
	Name: "get_latest_release", Title: "Get latest release",
	Description: "Get the latest published, non-prerelease release of a GitHub repository.",
	Effect:      twins.Read,
	Bindings:    []twins.Binding{{Method: "GET", Path: "/repos/{owner}/{repo}/releases/latest"}},
}, func(ctx context.Context, w *World, in RepoRef) (APIRelease, error) {
	r, err := w.repo(in.Owner, in.Repo)
	if err != nil {
		return APIRelease{}, err
	}
	for i := len(r.Releases) - 1; i >= 0; i-- {
		if rel := r.Releases[i]; !rel.Draft && !rel.Prerelease {
			return newView(ctx, w).release(r, rel), nil
		}
	}
	return APIRelease{}, notFound("%s has no published release", r.FullName())
})

var getReleaseByTag = twins.New(twins.Spec{
	Name: "get_release_by_tag", Title: "Get a release by tag name",
	Description: "Get the release of a GitHub repository for a tag.",
	Effect:      twins.Read,
	Bindings:    []twins.Binding{{Method: "GET", Path: "/repos/{owner}/{repo}/releases/tags/{tag}"}},
}, func(ctx context.Context, w *World, in TagIn) (APIRelease, error) {
	r, err := w.repo(in.Owner, in.Repo)
	if err != nil {
		return APIRelease{}, err
	}
	for _, rel := range r.Releases {
		if rel.TagName == in.Tag {
			return newView(ctx, w).release(r, rel), nil
		}
	}
	return APIRelease{}, notFound("no release for tag %s", in.Tag)
})

// CreateReleaseIn is create_release's input.
type CreateReleaseIn struct {
	RepoRef
	TagName         string `json:"tag_name" jsonschema:"Tag of the release (created on target_commitish when missing)"`
	TargetCommitish string `json:"target_commitish,omitempty" jsonschema:"Branch or sha the tag is created from (default: the default branch)"`
	Name            string `json:"name,omitempty" jsonschema:"Release name"`
	Body            string `json:"body,omitempty" jsonschema:"Release notes"`
	Draft           bool   `json:"draft,omitempty" jsonschema:"Create a draft release"`
	Prerelease      bool   `json:"prerelease,omitempty" jsonschema:"Mark as prerelease"`
}

var createRelease = twins.New(twins.Spec{
	Name: "create_release", Title: "Create a release",
	Description: "Create a release for a tag in a GitHub repository, creating the tag when it does not exist.",
	Effect:      twins.Write,
	Bindings:    []twins.Binding{{Method: "POST", Path: "/repos/{owner}/{repo}/releases", Status: 201}},
}, func(ctx context.Context, w *World, in CreateReleaseIn) (APIRelease, error) {
	r, err := w.repo(in.Owner, in.Repo)
	if err != nil {
		return APIRelease{}, err
	}
	if strings.TrimSpace(in.TagName) == "" {
		return APIRelease{}, invalid("Release", "tag_name", "missing_field", "tag_name is required")
	}
	for _, rel := range r.Releases {
		if rel.TagName == in.TagName {
			return APIRelease{}, invalid("Release", "tag_name", "already_exists", "a release for %s already exists", in.TagName)
		}
	}
	target := in.TargetCommitish
	if target == "" {
		target = r.DefaultBranch
	}
	c := r.resolve(target)
	if r.tag(in.TagName) == nil && c == nil {
		return APIRelease{}, invalid("Release", "target_commitish", "invalid", "%s is not a branch or commit", target)
	}
	if r.tag(in.TagName) == nil {
		r.Tags = append(r.Tags, &Tag{Name: in.TagName, SHA: c.SHA})
	}
	now := twins.EnvFrom(ctx).Now().UTC()
	rel := &Release{ID: w.nextID(), TagName: in.TagName, Target: target, Name: in.Name, Body: in.Body, Draft: in.Draft, Prerelease: in.Prerelease, Author: w.Me, CreatedAt: now}
	if !in.Draft {
		t := now
		rel.PublishedAt = &t
	}
	r.Releases = append(r.Releases, rel)
	return newView(ctx, w).release(r, rel), nil
})
