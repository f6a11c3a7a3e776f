// go-github, configured for a GitHub Enterprise host at the server root,
// drives the Git database API, sub-issues, branch updates, comparisons and
// the diff and patch media types the way github-mcp-server does.

package github_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	gh "github.com/google/go-github/v84/github"

	"github.com/pomehq/pome/rest/resttest"
	"github.com/pomehq/pome/twins/github"
)

func tools(rows []string) string { return strings.Join(rows, ",") }

func tapeTools(t *testing.T, env *resttest.Env, n int) string {
	t.Helper()
	var out []string
	for _, r := range waitRows(t, env, n) {
		tool := "null"
		if r.Tool != nil {
			tool = *r.Tool
		}
		out = append(out, tool)
	}
	return tools(out)
}

// TestSDKGitDatabase pushes a commit the way github-mcp-server's push_files
// and delete_file do: ref → commit → tree → commit → ref.
func TestSDKGitDatabase(t *testing.T) {
	env := resttest.Start(t, github.New(), "")
	c := rootClient(t, env, env.Token)
	ctx := context.Background()

	ref, _, err := c.Git.GetRef(ctx, "acme", "api", "heads/main")
	if err != nil {
		t.Fatal(err)
	}
	head, _, err := c.Git.GetCommit(ctx, "acme", "api", ref.GetObject().GetSHA())
	if err != nil || head.GetSHA() != ref.GetObject().GetSHA() || head.GetTree().GetSHA() == "" {
		t.Fatalf("get commit: %v %+v", err, head)
	}
	tree, resp, err := c.Git.CreateTree(ctx, "acme", "api", head.GetTree().GetSHA(), []*gh.TreeEntry{
		{Path: gh.Ptr("docs/guide/intro.md"), Mode: gh.Ptr("100644"), Type: gh.Ptr("blob"), Content: gh.Ptr("# Intro\n")},
		{Path: gh.Ptr("README.md"), Mode: gh.Ptr("100644"), Type: gh.Ptr("blob")}, // sha null: delete
	})
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("create tree: %v", err)
	}
	// A non-recursive tree lists the top directory only.
	if len(tree.Entries) != 1 || tree.Entries[0].GetPath() != "docs" || tree.Entries[0].GetType() != "tree" {
		t.Errorf("tree entries: %+v", tree.Entries)
	}
	commit, _, err := c.Git.CreateCommit(ctx, "acme", "api", gh.Commit{
		Message: gh.Ptr("Add the guide, drop the README"), Tree: &gh.Tree{SHA: tree.SHA},
		Parents: []*gh.Commit{{SHA: head.SHA}},
	}, nil)
	if err != nil || commit.GetTree().GetSHA() != tree.GetSHA() || len(commit.Parents) != 1 {
		t.Fatalf("create commit: %v %+v", err, commit)
	}
	if _, _, err := c.Git.UpdateRef(ctx, "acme", "api", "heads/main", gh.UpdateRef{SHA: commit.GetSHA()}); err != nil {
		t.Fatal(err)
	}
	// The branch now has the guide and no README, over the contents API too.
	full, _, err := c.Git.GetTree(ctx, "acme", "api", "main", true)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	var blob string
	for _, e := range full.Entries {
		paths = append(paths, e.GetType()+":"+e.GetPath())
		if e.GetPath() == "docs/guide/intro.md" {
			blob = e.GetSHA()
		}
	}
	if got := strings.Join(paths, " "); got != "tree:docs tree:docs/guide blob:docs/guide/intro.md" {
		t.Errorf("recursive tree: %s", got)
	}
	if _, _, resp, err := c.Repositories.GetContents(ctx, "acme", "api", "README.md", nil); resp == nil || resp.StatusCode != 404 {
		t.Errorf("README still there: %v", err)
	}
	b, _, err := c.Git.GetBlob(ctx, "acme", "api", blob)
	if err != nil || b.GetEncoding() != "base64" || b.GetSize() != 8 {
		t.Fatalf("blob: %v %+v", err, b)
	}
	// A subtree is found by its own sha.
	if sub, _, err := c.Git.GetTree(ctx, "acme", "api", full.Entries[0].GetSHA(), false); err != nil || len(sub.Entries) != 1 || sub.Entries[0].GetPath() != "guide" {
		t.Errorf("subtree: %v %+v", err, sub)
	}
	nb, resp, err := c.Git.CreateBlob(ctx, "acme", "api", gh.Blob{Content: gh.Ptr("aGk="), Encoding: gh.Ptr("base64")})
	if err != nil || resp.StatusCode != 201 || nb.GetSHA() != "32f95c0d1244a78b2be1bab8de17906fabb2c4a8" {
		t.Errorf("create blob: %v %+v", err, nb)
	}

	// Refusals change nothing: a tree naming a missing blob stores none of
	// its other contents.
	_, _, err = c.Git.CreateTree(ctx, "acme", "api", "", []*gh.TreeEntry{
		{Path: gh.Ptr("new.txt"), Mode: gh.Ptr("100644"), Type: gh.Ptr("blob"), Content: gh.Ptr("never stored")},
		{Path: gh.Ptr("x.txt"), Mode: gh.Ptr("100644"), Type: gh.Ptr("blob"), SHA: gh.Ptr(strings.Repeat("0", 40))},
	})
	if apiStatus(err) != 422 {
		t.Errorf("tree with a missing blob: %v", err)
	}
	if _, _, err := c.Git.GetBlob(ctx, "acme", "api", "03733c4e239c83e188a7604b4291e7f3f11e8dd5"); apiStatus(err) != 404 {
		t.Errorf("blob of a refused tree: %v", err)
	}
	for name, call := range map[string]func() error{
		"unknown commit":            func() error { _, _, err := c.Git.GetCommit(ctx, "acme", "api", strings.Repeat("a", 40)); return err },
		"branch name as git commit": func() error { _, _, err := c.Git.GetCommit(ctx, "acme", "api", "main"); return err },
		"unknown tree":              func() error { _, _, err := c.Git.GetTree(ctx, "acme", "api", "nope", false); return err },
		"unknown blob":              func() error { _, _, err := c.Git.GetBlob(ctx, "acme", "api", "nope"); return err },
		"hidden repo":               func() error { _, _, err := c.Git.GetCommit(ctx, "acme", "secret", head.GetSHA()); return err },
	} {
		if st := apiStatus(call()); st != 404 {
			t.Errorf("%s: status %d", name, st)
		}
	}
	for name, call := range map[string]func() error{
		"commit of an unknown tree": func() error {
			_, _, err := c.Git.CreateCommit(ctx, "acme", "api", gh.Commit{Message: gh.Ptr("m"), Tree: &gh.Tree{SHA: gh.Ptr("nope")}}, nil)
			return err
		},
		"commit of an unknown parent": func() error {
			_, _, err := c.Git.CreateCommit(ctx, "acme", "api", gh.Commit{Message: gh.Ptr("m"), Tree: &gh.Tree{SHA: tree.SHA}, Parents: []*gh.Commit{{SHA: gh.Ptr("nope")}}}, nil)
			return err
		},
		"blob of bad base64": func() error {
			_, _, err := c.Git.CreateBlob(ctx, "acme", "api", gh.Blob{Content: gh.Ptr("%%%"), Encoding: gh.Ptr("base64")})
			return err
		},
	} {
		if st := apiStatus(call()); st != 422 {
			t.Errorf("%s: status %d", name, st)
		}
	}
	want := "get_git_ref,get_git_commit,create_git_tree,create_git_commit,update_git_ref,get_repository_tree,get_file_contents,get_git_blob,get_repository_tree,create_git_blob,create_git_tree,get_git_blob"
	if got := tapeTools(t, env, 12); !strings.HasPrefix(got, want) {
		t.Errorf("tape tools:\n%s\nwant prefix\n%s", got, want)
	}
}

// TestSDKCompareAndMedia compares branches, updates a pull request's branch
// and reads diffs and patches.
func TestSDKCompareAndMedia(t *testing.T) {
	env := resttest.Start(t, github.New(), "")
	c := rootClient(t, env, env.Token)
	ctx := context.Background()

	if _, _, err := c.Git.CreateRef(ctx, "acme", "api", gh.CreateRef{Ref: "refs/heads/feature", SHA: mainSHA(t, c)}); err != nil {
		t.Fatal(err)
	}
	put := func(branch, path, text string) {
		t.Helper()
		if _, _, err := c.Repositories.CreateFile(ctx, "acme", "api", path, &gh.RepositoryContentFileOptions{
			Message: gh.Ptr("edit " + path), Content: []byte(text), Branch: gh.Ptr(branch)}); err != nil {
			t.Fatal(err)
		}
	}
	put("feature", "orders.go", "package orders\n")
	cmp, _, err := c.Repositories.CompareCommits(ctx, "acme", "api", "main", "feature", nil)
	if err != nil || cmp.GetStatus() != "ahead" || cmp.GetAheadBy() != 1 || len(cmp.Files) != 1 || cmp.Files[0].GetFilename() != "orders.go" {
		t.Fatalf("compare: %v %+v", err, cmp)
	}
	diff, _, err := c.Repositories.CompareCommitsRaw(ctx, "acme", "api", "main", "feature", gh.RawOptions{Type: gh.Diff})
	if err != nil || !strings.HasPrefix(diff, "diff --git a/orders.go b/orders.go\nnew file mode 100644\n") || !strings.Contains(diff, "+package orders") {
		t.Errorf("compare diff: %v %q", err, diff)
	}
	pr, _, err := c.PullRequests.Create(ctx, "acme", "api", &gh.NewPullRequest{Title: gh.Ptr("Orders"), Head: gh.Ptr("feature"), Base: gh.Ptr("main")})
	if err != nil {
		t.Fatal(err)
	}
	prDiff, resp, err := c.PullRequests.GetRaw(ctx, "acme", "api", pr.GetNumber(), gh.RawOptions{Type: gh.Diff})
	if err != nil || prDiff != diff || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/vnd.github.diff") {
		t.Errorf("pull diff: %v %q %s", err, prDiff, resp.Header.Get("Content-Type"))
	}
	patch, _, err := c.PullRequests.GetRaw(ctx, "acme", "api", pr.GetNumber(), gh.RawOptions{Type: gh.Patch})
	if err != nil || !strings.HasPrefix(patch, "From ") || !strings.Contains(patch, "Subject: [PATCH 1/1] edit orders.go") {
		t.Errorf("pull patch: %v %q", err, patch)
	}
	sha := cmp.Commits[0].GetSHA()
	cdiff, _, err := c.Repositories.GetCommitRaw(ctx, "acme", "api", sha, gh.RawOptions{Type: gh.Diff})
	if err != nil || cdiff != diff {
		t.Errorf("commit diff: %v %q", err, cdiff)
	}

	// Base moves on: the branch update merges it into the head.
	put("main", "CHANGELOG.md", "v2\n")
	_, _, err = c.PullRequests.UpdateBranch(ctx, "acme", "api", pr.GetNumber(), &gh.PullRequestBranchUpdateOptions{ExpectedHeadSHA: gh.Ptr("0000000")})
	if apiStatus(err) != 422 {
		t.Errorf("stale expected head: %v", err)
	}
	res, resp, err := c.PullRequests.UpdateBranch(ctx, "acme", "api", pr.GetNumber(), &gh.PullRequestBranchUpdateOptions{ExpectedHeadSHA: gh.Ptr(sha)})
	var accepted *gh.AcceptedError
	if (err != nil && !errors.As(err, &accepted)) || resp.StatusCode != http.StatusAccepted {
		t.Fatalf("update branch: %v", err)
	}
	_ = res
	if _, _, resp, err := c.Repositories.GetContents(ctx, "acme", "api", "CHANGELOG.md", &gh.RepositoryContentGetOptions{Ref: "feature"}); err != nil || resp.StatusCode != 200 {
		t.Errorf("head lacks the base's file after the update: %v", err)
	}
	if _, _, err := c.PullRequests.UpdateBranch(ctx, "acme", "api", pr.GetNumber(), nil); apiStatus(err) != 422 {
		t.Errorf("update with nothing new: %v", err)
	}
	if _, _, err := c.Repositories.CompareCommits(ctx, "acme", "api", "main", "nope", nil); apiStatus(err) != 404 {
		t.Errorf("compare unknown head: %v", err)
	}
}

func mainSHA(t *testing.T, c *gh.Client) string {
	t.Helper()
	ref, _, err := c.Git.GetRef(context.Background(), "acme", "api", "heads/main")
	if err != nil {
		t.Fatal(err)
	}
	return ref.GetObject().GetSHA()
}

// TestSDKSubIssues adds, orders and removes sub-issues over REST and reads
// them back with issue_read over MCP.
func TestSDKSubIssues(t *testing.T) {
	env := resttest.Start(t, github.New(), "")
	c := rootClient(t, env, env.Token)
	ctx := context.Background()
	var ids []int64
	for _, title := range []string{"Parse orders", "Validate orders", "Store orders"} {
		is, _, err := c.Issues.Create(ctx, "acme", "api", &gh.IssueRequest{Title: gh.Ptr(title)})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, is.GetID())
	}
	for _, id := range ids[1:] {
		if _, resp, err := c.SubIssue.Add(ctx, "acme", "api", 2, gh.SubIssueRequest{SubIssueID: id}); err != nil || resp.StatusCode != 201 {
			t.Fatalf("add: %v", err)
		}
	}
	if _, _, err := c.SubIssue.Reprioritize(ctx, "acme", "api", 2, gh.SubIssueRequest{SubIssueID: ids[2], BeforeID: gh.Ptr(ids[1])}); err != nil {
		t.Fatal(err)
	}
	subs, _, err := c.SubIssue.ListByIssue(ctx, "acme", "api", 2, nil)
	if err != nil || len(subs) != 2 || *subs[0].ID != ids[2] || *subs[1].ID != ids[1] {
		t.Fatalf("list: %v %+v", err, subs)
	}
	for name, req := range map[string]gh.SubIssueRequest{
		"itself":        {SubIssueID: ids[0]},
		"a cycle":       {SubIssueID: ids[0]},
		"second parent": {SubIssueID: ids[1]},
		"unknown issue": {SubIssueID: 999999},
	} {
		parent := 2
		switch name {
		case "a cycle":
			parent = 3 // #3 is a sub-issue of #2
		case "second parent":
			parent = 1
		}
		if _, _, err := c.SubIssue.Add(ctx, "acme", "api", int64(parent), req); apiStatus(err) != 422 {
			t.Errorf("%s: %v", name, err)
		}
	}
	// Moving a sub-issue needs replace_parent, and then leaves its old parent.
	if _, _, err := c.SubIssue.Add(ctx, "acme", "api", 1, gh.SubIssueRequest{SubIssueID: ids[1], ReplaceParent: gh.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	cs := env.MCP(t)
	text, isErr := resttest.CallTool(t, cs, "issue_read", map[string]any{"method": "get_parent", "owner": "acme", "repo": "api", "issue_number": 3})
	var parent struct{ Parent struct{ Number int } }
	if json.Unmarshal([]byte(text), &parent); isErr || parent.Parent.Number != 1 {
		t.Errorf("get_parent: %s", text)
	}
	if _, _, err := c.SubIssue.Remove(ctx, "acme", "api", 2, gh.SubIssueRequest{SubIssueID: ids[2]}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.SubIssue.Remove(ctx, "acme", "api", 2, gh.SubIssueRequest{SubIssueID: ids[2]}); apiStatus(err) != 404 {
		t.Errorf("remove twice: %v", err)
	}
	text, isErr = resttest.CallTool(t, cs, "sub_issue_write", map[string]any{"method": "reprioritize", "owner": "acme", "repo": "api", "issue_number": 2, "sub_issue_id": ids[1], "after_id": ids[2]})
	if !isErr || !strings.Contains(text, "Not Found") {
		t.Errorf("reprioritize a removed sub-issue: %s", text)
	}
	if subs, _, _ := c.SubIssue.ListByIssue(ctx, "acme", "api", 2, nil); len(subs) != 0 {
		t.Errorf("#2 keeps %d sub-issues", len(subs))
	}
	types, _, err := c.Organizations.ListIssueTypes(ctx, "acme")
	if err != nil || types == nil || len(types) != 0 {
		t.Errorf("issue types: %v %+v", err, types)
	}
	if _, _, err := c.Organizations.ListIssueTypes(ctx, "alice"); apiStatus(err) != 404 {
		t.Errorf("issue types of a user: %v", err)
	}
}
