package github

import (
	"context"
	"encoding/base64"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/pomehq/pome/twins"
)

// APIContentLinks are a content entry's _links.
type APIContentLinks struct {
	Self string `json:"self"`
	Git  string `json:"git"`
	HTML string `json:"html"`
}

// APIContent is GitHub's content object: a file (with base64 content when
// read directly) or a directory entry.
type APIContent struct {
	Type        string          `json:"type"`
	Encoding    string          `json:"encoding,omitempty"`
	Size        int             `json:"size"`
	Name        string          `json:"name"`
	Path        string          `json:"path"`
	Content     *string         `json:"content,omitempty"`
	SHA         string          `json:"sha"`
	URL         string          `json:"url"`
	GitURL      string          `json:"git_url"`
	HTMLURL     string          `json:"html_url"`
	DownloadURL *string         `json:"download_url"`
	Links       APIContentLinks `json:"_links"`
}

// APIContentWrite is the answer to a contents PUT or DELETE.
type APIContentWrite struct {
	Content *APIContent  `json:"content"`
	Commit  APIGitCommit `json:"commit"`
}

// wrap64 breaks base64 into 60-column lines, as GitHub sends it.
func wrap64(b []byte) string {
	s := base64.StdEncoding.EncodeToString(b)
	var out strings.Builder
	for len(s) > 60 {
		out.WriteString(s[:60])
		out.WriteByte('\n')
		s = s[60:]
	}
	out.WriteString(s)
	out.WriteByte('\n')
	return out.String()
}

func (v *view) contentEntry(r *Repo, ref, p, sha string, isDir bool, withContent bool) APIContent {
	self := v.repoURL(r) + "/contents/" + p + "?ref=" + ref
	c := APIContent{Type: "file", Name: path.Base(p), Path: p, SHA: sha, URL: self}
	if isDir {
		c.Type = "dir"
		c.GitURL = v.repoURL(r) + "/git/trees/" + sha
		c.HTMLURL = v.html + "/" + r.FullName() + "/tree/" + ref + "/" + p
	} else {
		c.Size = len(r.Blobs[sha])
		c.GitURL = v.repoURL(r) + "/git/blobs/" + sha
		c.HTMLURL = v.html + "/" + r.FullName() + "/blob/" + ref + "/" + p
		dl := "https://raw.githubusercontent.com/" + r.FullName() + "/" + ref + "/" + p
		c.DownloadURL = &dl
		if withContent {
			s := wrap64(r.Blobs[sha])
			c.Content, c.Encoding = &s, "base64"
		}
	}
	c.Links = APIContentLinks{Self: self, Git: c.GitURL, HTML: c.HTMLURL}
	return c
}

// GetFileContentsIn is get_file_contents' input.
type GetFileContentsIn struct {
	RepoRef
	Path string `json:"path,omitempty" jsonschema:"Path to file/directory (empty: the repository root)"`
	Ref  string `json:"ref,omitempty" jsonschema:"Branch, tag, refs/heads/… or commit sha (default: the default branch)"`
	SHA  string `json:"sha,omitempty" jsonschema:"Commit sha; used instead of ref when given"`
	// Fields applies to directory listings over MCP, as github-mcp-server
	// applies it.
	Fields []string `json:"fields,omitempty" jsonschema:"Fields to keep in each entry when the path is a directory (all when omitted; ignored for a file)" enum:"type,name,path,size,sha,url,git_url,html_url,download_url"`
}

var getFileContents = twins.New(twins.Spec{
	Name: "get_file_contents", Title: "Get file or directory contents",
	Description: "Get the contents of a file (base64, with its blob sha) or the entries of a directory in a GitHub repository, at a branch, tag or commit.",
	Effect:      twins.Read,
	Bindings: []twins.Binding{
		{Method: "GET", Path: "/repos/{owner}/{repo}/contents/{path:.+}", Shape: restShape},
		{Method: "GET", Path: "/repos/{owner}/{repo}/contents", Shape: restShape},
		// go-github asks for the root as …/contents/ (an empty path).
		{Method: "GET", Path: "/repos/{owner}/{repo}/contents/", Shape: restShape},
	},
}, func(ctx context.Context, w *World, in GetFileContentsIn) (any, error) {
	r, err := w.repo(in.Owner, in.Repo)
	if err != nil {
		return nil, err
	}
	ref := in.Ref
	if in.SHA != "" {
		ref = in.SHA
	}
	c := r.resolve(ref)
	if c == nil {
		return nil, notFound("No commit found for the ref %s", ref)
	}
	if ref == "" {
		ref = r.DefaultBranch
	}
	ref = strings.TrimPrefix(strings.TrimPrefix(ref, "refs/heads/"), "refs/tags/")
	p := strings.Trim(in.Path, "/")
	v := newView(ctx, w)
	if sha, ok := c.Tree[p]; ok && p != "" {
		return v.contentEntry(r, ref, p, sha, false, true), nil
	}
	// A directory: its direct children, directories first as GitHub sorts.
	prefix := ""
	if p != "" {
		prefix = p + "/"
	}
	dirs, files := map[string]bool{}, map[string]string{}
	for fp, sha := range c.Tree {
		if !strings.HasPrefix(fp, prefix) {
			continue
		}
		rest := fp[len(prefix):]
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			dirs[prefix+rest[:i]] = true
		} else {
			files[fp] = sha
		}
	}
	if len(dirs) == 0 && len(files) == 0 && p != "" {
		return nil, notFound("%s not found at %s", p, ref)
	}
	var entries []APIContent
	for d := range dirs {
		entries = append(entries, v.contentEntry(r, ref, d, subtreeSHA(c.Tree, d), true, false))
	}
	for fp, sha := range files {
		entries = append(entries, v.contentEntry(r, ref, fp, sha, false, false))
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name < entries[j].Name })
	if entries == nil {
		entries = []APIContent{}
	}
	return &List[APIContent]{Items: entries, TotalCount: len(entries), Page: 1, PerPage: len(entries)}, nil
})

// subtreeSHA is the sha of a directory's tree. It digests the paths below
// the directory, as git does, so the same files at another place share it
// and a directory never shares its parent's sha.
func subtreeSHA(tree map[string]string, dir string) string {
	sub := map[string]string{}
	for p, sha := range tree {
		if rel, ok := strings.CutPrefix(p, dir+"/"); ok {
			sub[rel] = sha
		}
	}
	return treeSHA(sub)
}

// CreateOrUpdateFileIn is create_or_update_file's input. Over MCP content
// is the file's text, as github-mcp-server takes it; over REST it is
// base64, as GitHub's REST API takes it.
type CreateOrUpdateFileIn struct {
	RepoRef
	Path    string `json:"path" jsonschema:"Path where to create/update the file"`
	Content string `json:"content" jsonschema:"Content of the file, exactly as it should appear once written"`
	Message string `json:"message" jsonschema:"Commit message"`
	Branch  string `json:"branch,omitempty" jsonschema:"Branch to create/update the file in (default: the default branch)"`
	SHA     string `json:"sha,omitempty" jsonschema:"The blob SHA of the file being replaced. Required if the file already exists."`
}

// contentStatus is GitHub's contents PUT status: 201 when the file is new,
// 200 when it replaced one (a successful write names a sha exactly when the
// file existed).
func contentStatus(in, _ any) int {
	if i, ok := in.(CreateOrUpdateFileIn); ok && i.SHA != "" {
		return 200
	}
	return 201
}

var createOrUpdateFile = twins.New(twins.Spec{
	Name: "create_or_update_file", Title: "Create or update file",
	Description: "Create or update a single file in a GitHub repository as one commit on a branch. Updating an existing file needs its current blob sha; a stale sha is a 409.",
	Effect:      twins.Write,
	Bindings: []twins.Binding{
		{Method: "PUT", Path: "/repos/{owner}/{repo}/contents/{path:.+}", StatusOf: contentStatus},
	},
}, func(ctx context.Context, w *World, in CreateOrUpdateFileIn) (APIContentWrite, error) {
	r, err := w.repo(in.Owner, in.Repo)
	if err != nil {
		return APIContentWrite{}, err
	}
	if err := checkFilePath(in.Path); err != nil {
		return APIContentWrite{}, invalid("Content", "path", "invalid", "%v", err)
	}
	if strings.TrimSpace(in.Message) == "" {
		return APIContentWrite{}, invalid("Content", "message", "missing_field", "message is required").With("message", "Invalid request.\n\n\"message\" wasn't supplied.")
	}
	content := []byte(in.Content)
	if twins.TransportFrom(ctx) == twins.TransportREST {
		if content, err = base64.StdEncoding.DecodeString(strings.ReplaceAll(in.Content, "\n", "")); err != nil {
			return APIContentWrite{}, invalid("Content", "content", "invalid", "content is not valid Base64").With("message", "content is not valid Base64")
		}
	}
	b, err := writableBranch(r, in.Branch)
	if err != nil {
		return APIContentWrite{}, err
	}
	head := r.commit(b.SHA)
	old, exists := head.Tree[in.Path]
	switch {
	case exists && in.SHA == "":
		return APIContentWrite{}, invalid("Content", "sha", "missing_field", "%s exists on %s: sha is required to update it", in.Path, b.Name).With("message", "Invalid request.\n\n\"sha\" wasn't supplied.")
	case exists && in.SHA != old:
		return APIContentWrite{}, twins.Errorf(twins.Conflict, "conflict", "%s does not match %s", in.Path, in.SHA)
	case !exists && in.SHA != "":
		return APIContentWrite{}, twins.Errorf(twins.Conflict, "conflict", "%s does not match %s", in.Path, in.SHA)
	}
	now := twins.EnvFrom(ctx).Now().UTC()
	tree := copyTree(head.Tree)
	tree[in.Path] = r.putBlob(content)
	c := r.addCommit(tree, []string{head.SHA}, in.Message, w.Me, now)
	b.SHA, r.PushedAt, r.UpdatedAt = c.SHA, now, now
	v := newView(ctx, w)
	entry := v.contentEntry(r, b.Name, in.Path, tree[in.Path], false, false)
	return APIContentWrite{Content: &entry, Commit: v.gitCommit(r, c)}, nil
})

// writableBranch resolves the branch a contents write commits to.
func writableBranch(r *Repo, name string) (*Branch, error) {
	if name == "" {
		name = r.DefaultBranch
	}
	name = strings.TrimPrefix(name, "refs/heads/")
	b := r.branch(name)
	if b == nil {
		return nil, notFound("Branch %s not found", name)
	}
	return b, nil
}

// DeleteFileIn is delete_file's input.
type DeleteFileIn struct {
	RepoRef
	Path    string `json:"path" jsonschema:"Path to the file to delete"`
	Message string `json:"message" jsonschema:"Commit message"`
	Branch  string `json:"branch,omitempty" jsonschema:"Branch to delete the file from (default: the default branch)"`
	SHA     string `json:"sha,omitempty" jsonschema:"The blob SHA of the file being deleted; a stale sha is refused"`
}

var deleteFile = twins.New(twins.Spec{
	Name: "delete_file", Title: "Delete file",
	Description: "Delete a file from a GitHub repository as one commit on a branch.",
	Effect:      twins.Destructive,
	Bindings: []twins.Binding{
		{Method: "DELETE", Path: "/repos/{owner}/{repo}/contents/{path:.+}"},
	},
}, func(ctx context.Context, w *World, in DeleteFileIn) (APIContentWrite, error) {
	r, err := w.repo(in.Owner, in.Repo)
	if err != nil {
		return APIContentWrite{}, err
	}
	if strings.TrimSpace(in.Message) == "" {
		return APIContentWrite{}, invalid("Content", "message", "missing_field", "message is required").With("message", "Invalid request.\n\n\"message\" wasn't supplied.")
	}
	// GitHub's REST API requires sha; github-mcp-server takes none and
	// deletes whatever the branch holds.
	if twins.TransportFrom(ctx) == twins.TransportREST && in.SHA == "" {
		return APIContentWrite{}, invalid("Content", "sha", "missing_field", "sha is required").With("message", "Invalid request.\n\n\"sha\" wasn't supplied.")
	}
	b, err := writableBranch(r, in.Branch)
	if err != nil {
		return APIContentWrite{}, err
	}
	head := r.commit(b.SHA)
	old, exists := head.Tree[in.Path]
	if !exists {
		return APIContentWrite{}, notFound("%s not found on %s", in.Path, b.Name)
	}
	if in.SHA != "" && in.SHA != old {
		return APIContentWrite{}, twins.Errorf(twins.Conflict, "conflict", "%s does not match %s", in.Path, in.SHA)
	}
	now := twins.EnvFrom(ctx).Now().UTC()
	tree := copyTree(head.Tree)
	delete(tree, in.Path)
	c := r.addCommit(tree, []string{head.SHA}, in.Message, w.Me, now)
	b.SHA, r.PushedAt, r.UpdatedAt = c.SHA, now, now
	return APIContentWrite{Content: nil, Commit: newView(ctx, w).gitCommit(r, c)}, nil
})

// PushFile is one file of push_files.
type PushFile struct {
	Path    string `json:"path" jsonschema:"File path"`
	Content string `json:"content" jsonschema:"File content"`
}

// PushFilesIn is push_files' input.
type PushFilesIn struct {
	RepoRef
	Branch  string     `json:"branch" jsonschema:"Branch to push to"`
	Files   []PushFile `json:"files" jsonschema:"Files to push, each with path and content"`
	Message string     `json:"message" jsonschema:"Commit message"`
}

var pushFiles = twins.New(twins.Spec{
	Name: "push_files", Title: "Push files to repository",
	Description: "Push several files to a GitHub repository branch in a single commit.",
	Effect:      twins.Write,
}, func(ctx context.Context, w *World, in PushFilesIn) (APIRef, error) {
	r, err := w.repo(in.Owner, in.Repo)
	if err != nil {
		return APIRef{}, err
	}
	if len(in.Files) == 0 {
		return APIRef{}, invalid("Content", "files", "missing_field", "files must not be empty")
	}
	if strings.TrimSpace(in.Message) == "" {
		return APIRef{}, invalid("Content", "message", "missing_field", "message is required")
	}
	for i, f := range in.Files {
		if err := checkFilePath(f.Path); err != nil {
			return APIRef{}, invalid("Content", fmt.Sprintf("files[%d].path", i), "invalid", "%v", err)
		}
	}
	b, err := writableBranch(r, in.Branch)
	if err != nil {
		return APIRef{}, err
	}
	head := r.commit(b.SHA)
	tree := copyTree(head.Tree)
	for _, f := range in.Files {
		tree[f.Path] = r.putBlob([]byte(f.Content))
	}
	now := twins.EnvFrom(ctx).Now().UTC()
	c := r.addCommit(tree, []string{head.SHA}, in.Message, w.Me, now)
	b.SHA, r.PushedAt, r.UpdatedAt = c.SHA, now, now
	return newView(ctx, w).ref(r, "refs/heads/"+b.Name, c.SHA), nil
})
