package github

import (
	"context"
	"encoding/base64"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/pomehq/pome/twins"
)

// GitHub's Git database API (…/git/commits, …/git/trees, …/git/blobs): what
// github-mcp-server's push_files and delete_file, and git clients built on
// go-github, use to write several files in one commit. A commit here is a
// flat snapshot (path → blob sha), so a tree is one too: a tree sha names
// either a commit's whole tree, a directory of one (subtreeSHA), or a tree
// made with POST …/git/trees and kept in Repo.Trees until a commit takes it.

// gitTree is a tree found by sha: its files by full path, and the
// directory it is (""  for a root tree).
type gitTree struct {
	sha   string
	files map[string]string
	dir   string
}

// tree finds a tree by its sha.
func (r *Repo) tree(sha string) *gitTree {
	if files, ok := r.Trees[sha]; ok {
		return &gitTree{sha: sha, files: files}
	}
	for _, c := range r.Commits {
		if treeSHA(c.Tree) == sha {
			return &gitTree{sha: sha, files: c.Tree}
		}
	}
	// A directory of some commit's tree.
	for _, c := range r.Commits {
		for _, d := range treeDirs(c.Tree) {
			if subtreeSHA(c.Tree, d) == sha {
				sub := map[string]string{}
				for p, b := range c.Tree {
					if strings.HasPrefix(p, d+"/") {
						sub[p] = b
					}
				}
				return &gitTree{sha: sha, files: sub, dir: d}
			}
		}
	}
	return nil
}

// treeDirs lists every directory of a flat tree, sorted.
func treeDirs(tree map[string]string) []string {
	seen := map[string]bool{}
	for p := range tree {
		for i := strings.IndexByte(p, '/'); i >= 0; {
			seen[p[:i]] = true
			j := strings.IndexByte(p[i+1:], '/')
			if j < 0 {
				break
			}
			i += 1 + j
		}
	}
	out := make([]string, 0, len(seen))
	for d := range seen {
		out = append(out, d)
	}
	sort.Strings(out)
	return out
}

// APITreeEntry is one entry of a git tree.
type APITreeEntry struct {
	Path string `json:"path"`
	Mode string `json:"mode"`
	Type string `json:"type"`
	SHA  string `json:"sha"`
	Size *int   `json:"size,omitempty"`
	URL  string `json:"url"`
}

// APIGitTree is GitHub's git tree object.
type APIGitTree struct {
	SHA       string         `json:"sha"`
	URL       string         `json:"url"`
	Tree      []APITreeEntry `json:"tree"`
	Truncated bool           `json:"truncated"`
}

// gitTree renders t; recursive lists every file and directory below it,
// otherwise only its direct entries. Paths are relative to t, as git's.
func (v *view) gitTree(r *Repo, t *gitTree, recursive bool) APIGitTree {
	prefix := ""
	if t.dir != "" {
		prefix = t.dir + "/"
	}
	entries := []APITreeEntry{}
	dirs := map[string]bool{}
	for p, sha := range t.files {
		rel := strings.TrimPrefix(p, prefix)
		if i := strings.IndexByte(rel, '/'); i >= 0 && !recursive {
			dirs[rel[:i]] = true
			continue
		}
		size := len(r.Blobs[sha])
		entries = append(entries, APITreeEntry{Path: rel, Mode: "100644", Type: "blob", SHA: sha, Size: &size, URL: v.repoURL(r) + "/git/blobs/" + sha})
	}
	if recursive {
		for _, d := range treeDirs(t.files) {
			if rel, ok := strings.CutPrefix(d, prefix); ok && rel != "" && d != t.dir {
				dirs[rel] = true
			}
		}
	}
	for d := range dirs {
		sha := subtreeSHA(t.files, prefix+d)
		entries = append(entries, APITreeEntry{Path: d, Mode: "040000", Type: "tree", SHA: sha, URL: v.repoURL(r) + "/git/trees/" + sha})
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Path < entries[j].Path })
	return APIGitTree{SHA: t.sha, URL: v.repoURL(r) + "/git/trees/" + t.sha, Tree: entries}
}

// GetRepositoryTreeIn is get_repository_tree's input (github-mcp-server's
// parameters; tree_sha and recursive are GitHub's REST names too).
type GetRepositoryTreeIn struct {
	RepoRef
	TreeSHA    string `json:"tree_sha,omitempty" jsonschema:"The SHA1 value or ref (branch or tag) name of the tree. Defaults to the repository's default branch"`
	Recursive  bool   `json:"recursive,omitempty" jsonschema:"Setting this parameter to true returns the objects or subtrees referenced by the tree. Default is false"`
	PathFilter string `json:"path_filter,omitempty" jsonschema:"Optional path prefix to filter the tree results (e.g., 'src/' to only show files in the src directory)"`
}

var getRepositoryTree = twins.New(twins.Spec{
	Name: "get_repository_tree", Title: "Get repository tree",
	Description: "Get the tree structure (files and directories) of a GitHub repository at a specific ref or SHA.",
	Effect:      twins.Read,
	Bindings:    []twins.Binding{{Method: "GET", Path: "/repos/{owner}/{repo}/git/trees/{tree_sha}"}},
}, func(ctx context.Context, w *World, in GetRepositoryTreeIn) (APIGitTree, error) {
	r, err := w.repo(in.Owner, in.Repo)
	if err != nil {
		return APIGitTree{}, err
	}
	ref := in.TreeSHA
	if ref == "" {
		ref = r.DefaultBranch
	}
	// GitHub takes a commit, branch or tag for the tree it points at.
	t := r.tree(ref)
	if c := r.resolve(ref); t == nil && c != nil {
		t = &gitTree{sha: treeSHA(c.Tree), files: c.Tree}
	}
	if t == nil {
		return APIGitTree{}, notFound("tree %s not found", in.TreeSHA)
	}
	out := newView(ctx, w).gitTree(r, t, in.Recursive)
	if in.PathFilter != "" {
		kept := []APITreeEntry{}
		for _, e := range out.Tree {
			if strings.HasPrefix(e.Path, in.PathFilter) {
				kept = append(kept, e)
			}
		}
		out.Tree = kept
	}
	return out, nil
})

// TreeEntryIn is one entry of POST …/git/trees. SHA null (or absent with no
// content) deletes the path from base_tree, as on GitHub.
type TreeEntryIn struct {
	Path    string  `json:"path" jsonschema:"The file referenced in the tree"`
	Mode    string  `json:"mode,omitempty" jsonschema:"The file mode: 100644 (file), 100755 (executable), 040000 (subdirectory), 160000 (submodule) or 120000 (symlink)"`
	Type    string  `json:"type,omitempty" jsonschema:"blob, tree or commit"`
	SHA     *string `json:"sha,omitempty" jsonschema:"The SHA1 of the object; null deletes the path"`
	Content *string `json:"content,omitempty" jsonschema:"The content of a new file (instead of sha)"`
}

// CreateGitTreeIn is POST …/git/trees.
type CreateGitTreeIn struct {
	RepoRef
	BaseTree string        `json:"base_tree,omitempty" jsonschema:"The SHA1 of the tree to start from; without it the tree holds only the given entries"`
	Tree     []TreeEntryIn `json:"tree" jsonschema:"Objects (blobs or trees) that make up the tree"`
}

var createGitTree = twins.New(twins.Spec{
	Name: "create_git_tree", Title: "Create a git tree",
	Description: "Create a git tree object from a base tree and changed entries (GitHub's POST …/git/trees); make a commit of it with create_git_commit.",
	Effect:      twins.Write,
	Bindings:    []twins.Binding{{Method: "POST", Path: "/repos/{owner}/{repo}/git/trees", Status: 201}},
}, func(ctx context.Context, w *World, in CreateGitTreeIn) (APIGitTree, error) {
	r, err := w.repo(in.Owner, in.Repo)
	if err != nil {
		return APIGitTree{}, err
	}
	files := map[string]string{}
	if in.BaseTree != "" {
		base := r.tree(in.BaseTree)
		if base == nil || base.dir != "" {
			return APIGitTree{}, invalid("Tree", "base_tree", "invalid", "base_tree %s is not a tree of this repository", in.BaseTree).With("message", "Invalid tree info")
		}
		files = copyTree(base.files)
	}
	if len(in.Tree) == 0 {
		return APIGitTree{}, invalid("Tree", "tree", "missing_field", "tree must not be empty").With("message", "Invalid tree info")
	}
	// Everything is checked before any blob is stored, so a refused tree
	// leaves the repository as it was.
	for i, e := range in.Tree {
		field := fmt.Sprintf("tree[%d]", i)
		if err := checkFilePath(e.Path); err != nil {
			return APIGitTree{}, invalid("Tree", field+".path", "invalid", "%v", err).With("message", "tree.path contains a malformed path component")
		}
		switch e.Type {
		case "", "blob":
		case "tree":
			if e.SHA == nil || e.Content != nil {
				return APIGitTree{}, invalid("Tree", field+".sha", "invalid", "a tree entry names an existing tree by sha").With("message", "Invalid tree info")
			}
			if sub := r.tree(*e.SHA); sub == nil {
				return APIGitTree{}, invalid("Tree", field+".sha", "invalid", "tree %s does not exist", *e.SHA).With("message", "tree.sha "+*e.SHA+" is not a valid tree")
			}
		default:
			return APIGitTree{}, invalid("Tree", field+".type", "invalid", "type must be blob or tree, got %q", e.Type).With("message", "Invalid tree info")
		}
		switch {
		case e.Content != nil && e.SHA != nil:
			return APIGitTree{}, invalid("Tree", field, "invalid", "give either sha or content, not both").With("message", "Must supply either tree.sha or tree.content. Request will be rejected if both are present.")
		case e.SHA != nil && e.Type != "tree":
			if _, ok := r.Blobs[*e.SHA]; !ok {
				return APIGitTree{}, invalid("Tree", field+".sha", "invalid", "blob %s does not exist", *e.SHA).With("message", "tree.sha "+*e.SHA+" is not a valid blob")
			}
		}
		if e.Mode != "" && e.Mode != "100644" && e.Mode != "100755" && e.Mode != "040000" {
			return APIGitTree{}, invalid("Tree", field+".mode", "invalid", "mode %q is not supported (100644, 100755 or 040000)", e.Mode).With("message", "Invalid tree info")
		}
	}
	for _, e := range in.Tree {
		switch {
		case e.Content != nil:
			files[e.Path] = r.putBlob([]byte(*e.Content))
		case e.SHA == nil:
			delete(files, e.Path)
			for p := range files {
				if strings.HasPrefix(p, e.Path+"/") {
					delete(files, p)
				}
			}
		case e.Type == "tree":
			sub := r.tree(*e.SHA)
			prefix := ""
			if sub.dir != "" {
				prefix = sub.dir + "/"
			}
			for p, b := range sub.files {
				files[e.Path+"/"+strings.TrimPrefix(p, prefix)] = b
			}
		default:
			files[e.Path] = *e.SHA
		}
	}
	sha := treeSHA(files)
	if r.tree(sha) == nil {
		if r.Trees == nil {
			r.Trees = map[string]map[string]string{}
		}
		r.Trees[sha] = files
	}
	return newView(ctx, w).gitTree(r, &gitTree{sha: sha, files: files}, false), nil
})

// GetGitCommitIn is GET …/git/commits/{commit_sha}.
type GetGitCommitIn struct {
	RepoRef
	CommitSHA string `json:"commit_sha" jsonschema:"The SHA of the commit"`
}

var getGitCommit = twins.New(twins.Spec{
	Name: "get_git_commit", Title: "Get a git commit",
	Description: "Get a git commit object (tree, parents, author, message) by its sha.",
	Effect:      twins.Read,
	Bindings:    []twins.Binding{{Method: "GET", Path: "/repos/{owner}/{repo}/git/commits/{commit_sha}"}},
}, func(ctx context.Context, w *World, in GetGitCommitIn) (APIGitCommit, error) {
	r, err := w.repo(in.Owner, in.Repo)
	if err != nil {
		return APIGitCommit{}, err
	}
	// Git's database answers by full sha only, not by branch.
	c := r.commit(in.CommitSHA)
	if c == nil || len(in.CommitSHA) != 40 {
		return APIGitCommit{}, notFound("commit %s not found", in.CommitSHA)
	}
	return newView(ctx, w).fullGitCommit(r, c), nil
})

// fullGitCommit is a git commit object as …/git/commits renders it: parents
// always present, even when empty.
func (v *view) fullGitCommit(r *Repo, c *Commit) APIGitCommit {
	gc := v.gitCommit(r, c)
	if gc.Parents == nil {
		gc.Parents = []APIParent{}
	}
	return gc
}

// CreateGitCommitIn is POST …/git/commits.
type CreateGitCommitIn struct {
	RepoRef
	Message string   `json:"message" jsonschema:"The commit message"`
	Tree    string   `json:"tree" jsonschema:"The SHA of the tree object this commit points to"`
	Parents []string `json:"parents,omitempty" jsonschema:"The SHAs of the commits that were the parents of this commit"`
}

var createGitCommit = twins.New(twins.Spec{
	Name: "create_git_commit", Title: "Create a git commit",
	Description: "Create a git commit of a tree on top of parent commits (GitHub's POST …/git/commits); point a branch at it with update_git_ref. The authenticated user is author and committer.",
	Effect:      twins.Write,
	Bindings:    []twins.Binding{{Method: "POST", Path: "/repos/{owner}/{repo}/git/commits", Status: 201}},
}, func(ctx context.Context, w *World, in CreateGitCommitIn) (APIGitCommit, error) {
	r, err := w.repo(in.Owner, in.Repo)
	if err != nil {
		return APIGitCommit{}, err
	}
	if strings.TrimSpace(in.Message) == "" {
		return APIGitCommit{}, invalid("Commit", "message", "missing_field", "message is required")
	}
	t := r.tree(in.Tree)
	if t == nil || t.dir != "" {
		return APIGitCommit{}, invalid("Commit", "tree", "invalid", "tree %s does not exist", in.Tree).With("message", "Tree SHA does not exist")
	}
	parents := make([]string, 0, len(in.Parents))
	for _, p := range in.Parents {
		c := r.commit(p)
		if c == nil {
			return APIGitCommit{}, invalid("Commit", "parents", "invalid", "parent %s does not exist", p).With("message", "Parent SHA does not exist or is not a commit object")
		}
		parents = append(parents, c.SHA)
	}
	c := r.addCommit(copyTree(t.files), parents, in.Message, w.Me, twins.EnvFrom(ctx).Now().UTC())
	delete(r.Trees, t.sha)
	return newView(ctx, w).fullGitCommit(r, c), nil
})

// APIBlob is GitHub's git blob object.
type APIBlob struct {
	SHA      string `json:"sha"`
	NodeID   string `json:"node_id"`
	Size     int    `json:"size"`
	URL      string `json:"url"`
	Content  string `json:"content"`
	Encoding string `json:"encoding"`
}

// GetGitBlobIn is GET …/git/blobs/{file_sha}.
type GetGitBlobIn struct {
	RepoRef
	FileSHA string `json:"file_sha" jsonschema:"The SHA of the blob"`
}

var getGitBlob = twins.New(twins.Spec{
	Name: "get_git_blob", Title: "Get a git blob",
	Description: "Get a file's content (base64) by its blob sha.",
	Effect:      twins.Read,
	Bindings:    []twins.Binding{{Method: "GET", Path: "/repos/{owner}/{repo}/git/blobs/{file_sha}"}},
}, func(ctx context.Context, w *World, in GetGitBlobIn) (APIBlob, error) {
	r, err := w.repo(in.Owner, in.Repo)
	if err != nil {
		return APIBlob{}, err
	}
	data, ok := r.Blobs[in.FileSHA]
	if !ok {
		return APIBlob{}, notFound("blob %s not found", in.FileSHA)
	}
	v := newView(ctx, w)
	return APIBlob{
		SHA: in.FileSHA, NodeID: "B_" + in.FileSHA[:min(12, len(in.FileSHA))], Size: len(data),
		URL: v.repoURL(r) + "/git/blobs/" + in.FileSHA, Content: wrap64(data), Encoding: "base64",
	}, nil
})

// CreateGitBlobIn is POST …/git/blobs.
type CreateGitBlobIn struct {
	RepoRef
	Content  string `json:"content" jsonschema:"The new blob's content"`
	Encoding string `json:"encoding,omitempty" jsonschema:"utf-8 (default) or base64"`
}

// APIBlobRef is what POST …/git/blobs answers.
type APIBlobRef struct {
	SHA string `json:"sha"`
	URL string `json:"url"`
}

var createGitBlob = twins.New(twins.Spec{
	Name: "create_git_blob", Title: "Create a git blob",
	Description: "Store a file's content as a git blob and get its sha, for create_git_tree.",
	Effect:      twins.Write,
	Bindings:    []twins.Binding{{Method: "POST", Path: "/repos/{owner}/{repo}/git/blobs", Status: 201}},
}, func(ctx context.Context, w *World, in CreateGitBlobIn) (APIBlobRef, error) {
	r, err := w.repo(in.Owner, in.Repo)
	if err != nil {
		return APIBlobRef{}, err
	}
	var data []byte
	switch strings.ToLower(in.Encoding) {
	case "", "utf-8", "utf8":
		if !utf8.ValidString(in.Content) {
			return APIBlobRef{}, invalid("Blob", "content", "invalid", "content is not valid UTF-8")
		}
		data = []byte(in.Content)
	case "base64":
		b, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(in.Content), ""))
		if err != nil {
			return APIBlobRef{}, invalid("Blob", "content", "invalid", "content is not valid base64: %v", err)
		}
		data = b
	default:
		return APIBlobRef{}, invalid("Blob", "encoding", "invalid", "encoding must be utf-8 or base64, got %q", in.Encoding)
	}
	sha := r.putBlob(data)
	return APIBlobRef{SHA: sha, URL: newView(ctx, w).repoURL(r) + "/git/blobs/" + sha}, nil
})
