package github

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"

	"github.com/pomehq/pome/twins"
)

func TestRepositoriesAndUsers(t *testing.T) {
	w := world(t, SeedExample)
	repo := mustCall(t, w, "get_repository", `{"owner":"acme","repo":"api"}`).Out.(APIRepository)
	if repo.FullName != "acme/api" || repo.DefaultBranch != "main" || repo.Owner.Type != "Organization" || repo.OpenIssuesCount != 2 || !repo.Permissions.Push {
		t.Errorf("repo: %+v", repo)
	}
	wantErr(t, w, "get_repository", `{"owner":"acme","repo":"nope"}`, twins.NotFound, "")
	org := mustCall(t, w, "list_repositories", `{"org":"acme"}`).Out.(*List[APIRepository])
	if len(org.Items) != 1 {
		t.Errorf("org repos: %d", len(org.Items))
	}
	mine := mustCall(t, w, "list_repositories", `{}`).Out.(*List[APIRepository])
	if len(mine.Items) != 1 || mine.Items[0].FullName != "acme/api" {
		t.Errorf("my repos: %+v", mine.Items)
	}
	wantErr(t, w, "list_repositories", `{"org":"nope"}`, twins.NotFound, "")

	created := mustCall(t, w, "create_repository", `{"name":"svc","description":"A service","autoInit":true,"private":true}`).Out.(APIRepository)
	if created.FullName != "pome-agent/svc" || !created.Private || created.Visibility != "private" {
		t.Errorf("created: %+v", created)
	}
	readme := mustCall(t, w, "get_file_contents", `{"owner":"pome-agent","repo":"svc","path":"README.md"}`).Out.(APIContent)
	if b, _ := base64.StdEncoding.DecodeString(strings.ReplaceAll(*readme.Content, "\n", "")); !strings.HasPrefix(string(b), "# svc") {
		t.Errorf("auto_init README: %q", b)
	}
	e := wantErr(t, w, "create_repository", `{"name":"svc"}`, twins.Unprocessable, "custom")
	if e.Field != "name" {
		t.Errorf("duplicate repo: %+v", e)
	}
	inOrg := mustCall(t, w, "create_repository", `{"name":"web","organization":"acme"}`).Out.(APIRepository)
	if inOrg.FullName != "acme/web" {
		t.Errorf("org repo: %+v", inOrg)
	}
	wantErr(t, w, "create_repository", `{"name":"bad name!"}`, twins.Unprocessable, "missing_field")
	wantErr(t, w, "create_repository", `{"name":"x","organization":"nope"}`, twins.NotFound, "")

	fork := mustCall(t, w, "fork_repository", `{"owner":"acme","repo":"api"}`).Out.(APIRepository)
	if fork.FullName != "pome-agent/api" || !fork.Fork || fork.Parent == nil || fork.Parent.FullName != "acme/api" {
		t.Errorf("fork: %+v", fork)
	}
	if r := mustCall(t, w, "fork_repository", `{"owner":"acme","repo":"api"}`); r.Mutated {
		t.Error("forking again returns the existing fork without a change")
	}
	branches := mustCall(t, w, "list_branches", `{"owner":"pome-agent","repo":"api"}`).Out.(*List[APIBranchShort])
	if len(branches.Items) != 3 {
		t.Errorf("fork branches: %+v", branches.Items)
	}

	collabs := mustCall(t, w, "list_repository_collaborators", `{"owner":"acme","repo":"api"}`).Out.(*List[APICollaborator])
	if len(collabs.Items) != 3 || collabs.Items[0].Login != "alice" || collabs.Items[0].RoleName != "write" {
		t.Errorf("collaborators: %+v", collabs.Items)
	}
	mustCall(t, w, "check_repository_collaborator", `{"owner":"acme","repo":"api","username":"bob"}`)
	wantErr(t, w, "check_repository_collaborator", `{"owner":"acme","repo":"api","username":"carol"}`, twins.NotFound, "")
	mustCall(t, w, "add_repository_collaborator", `{"owner":"acme","repo":"api","username":"carol"}`)
	mustCall(t, w, "check_repository_collaborator", `{"owner":"acme","repo":"api","username":"carol"}`)
	wantErr(t, w, "add_repository_collaborator", `{"owner":"acme","repo":"api","username":"ghost"}`, twins.NotFound, "")
	// Now carol can be assigned.
	mustCall(t, w, "issue_write", `{"method":"update","owner":"acme","repo":"api","issue_number":1,"assignees":["carol"]}`)

	me := mustCall(t, w, "get_me", `{}`).Out.(APIPrivateUser)
	if me.Login != "pome-agent" || *me.Name != "Pome Agent" || me.PublicRepos != 1 {
		t.Errorf("me: %+v", me)
	}
	alice := mustCall(t, w, "get_user", `{"username":"alice"}`).Out.(APIPrivateUser)
	if alice.Login != "alice" || *alice.Email != "alice@acme.test" || alice.Type != "User" {
		t.Errorf("alice: %+v", alice)
	}
	if acme := mustCall(t, w, "get_user", `{"username":"acme"}`).Out.(APIPrivateUser); acme.Type != "Organization" {
		t.Errorf("acme: %+v", acme)
	}
	wantErr(t, w, "get_user", `{"username":"ghost"}`, twins.NotFound, "")
}

func TestContents(t *testing.T) {
	w := world(t, "")
	file := mustCall(t, w, "get_file_contents", `{"owner":"acme","repo":"api","path":"README.md"}`).Out.(APIContent)
	raw, _ := base64.StdEncoding.DecodeString(strings.ReplaceAll(*file.Content, "\n", ""))
	if file.Type != "file" || file.Encoding != "base64" || string(raw) != "# api\n\nThe Acme orders API.\n" || file.SHA != blobSHA(raw) || file.Size != len(raw) {
		t.Errorf("file: %+v", file)
	}
	// Create over MCP (text content) and over REST (base64).
	put := mustCall(t, w, "create_or_update_file", `{"owner":"acme","repo":"api","path":"src/orders.go","content":"package api\n","message":"Add orders","branch":"main"}`).Out.(APIContentWrite)
	if put.Content.Path != "src/orders.go" || put.Commit.Message != "Add orders" || len(put.Commit.Parents) != 1 {
		t.Errorf("put: %+v", put)
	}
	e := callOver(t, w, twins.TransportREST, "create_or_update_file", `{"owner":"acme","repo":"api","path":"src/orders.go","content":"cGFja2FnZSB4Cg==","message":"m"}`).Err
	if e == nil || e.Vendor != "missing_field" || e.Details["message"] != "Invalid request.\n\n\"sha\" wasn't supplied." {
		t.Errorf("missing sha: %+v", e)
	}
	wantErr(t, w, "create_or_update_file", `{"owner":"acme","repo":"api","path":"src/orders.go","content":"x","message":"m","sha":"0000000000000000000000000000000000000000"}`, twins.Conflict, "conflict")
	res := callOver(t, w, twins.TransportREST, "create_or_update_file", fmt.Sprintf(`{"owner":"acme","repo":"api","path":"src/orders.go","content":"cGFja2FnZSB4Cg==","message":"m","sha":%q}`, put.Content.SHA))
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	upd := res.Out.(APIContentWrite)
	if upd.Content.SHA != blobSHA([]byte("package x\n")) {
		t.Errorf("base64 update: %+v", upd.Content)
	}
	if e := callOver(t, w, twins.TransportREST, "create_or_update_file", `{"owner":"acme","repo":"api","path":"a.txt","content":"!!!","message":"m"}`).Err; e == nil || e.Vendor != "invalid" {
		t.Errorf("bad base64 over REST: %v", e)
	}
	wantErr(t, w, "create_or_update_file", `{"owner":"acme","repo":"api","path":"a.txt","content":"x","message":"m","branch":"nope"}`, twins.NotFound, "")
	wantErr(t, w, "create_or_update_file", `{"owner":"acme","repo":"api","path":"../a.txt","content":"x","message":"m"}`, twins.Unprocessable, "invalid")
	wantErr(t, w, "create_or_update_file", `{"owner":"acme","repo":"api","path":"a.txt","content":"x","message":""}`, twins.Unprocessable, "missing_field")

	dir := mustCall(t, w, "get_file_contents", `{"owner":"acme","repo":"api","path":""}`).Out.(*List[APIContent])
	var names []string
	for _, e := range dir.Items {
		names = append(names, e.Type+":"+e.Name)
	}
	if strings.Join(names, ",") != "file:README.md,dir:src" {
		t.Errorf("root: %v", names)
	}
	// The old content stays readable at the older commit.
	commits := mustCall(t, w, "list_commits", `{"owner":"acme","repo":"api"}`).Out.(*List[APICommit])
	if len(commits.Items) != 3 || commits.Items[0].Commit.Message != "m" || commits.Items[2].Commit.Message != "Initial commit" {
		t.Fatalf("commits: %+v", commits.Items)
	}
	old := mustCall(t, w, "get_file_contents", fmt.Sprintf(`{"owner":"acme","repo":"api","path":"src/orders.go","sha":%q}`, commits.Items[1].SHA)).Out.(APIContent)
	if old.SHA != put.Content.SHA {
		t.Errorf("old version: %+v", old)
	}
	wantErr(t, w, "get_file_contents", `{"owner":"acme","repo":"api","path":"nope.txt"}`, twins.NotFound, "")
	wantErr(t, w, "get_file_contents", `{"owner":"acme","repo":"api","path":"README.md","ref":"nope"}`, twins.NotFound, "")

	// Delete: REST requires sha; MCP does not.
	if e := callOver(t, w, twins.TransportREST, "delete_file", `{"owner":"acme","repo":"api","path":"README.md","message":"rm"}`).Err; e == nil || e.Vendor != "missing_field" {
		t.Errorf("delete without sha over REST: %v", e)
	}
	wantErr(t, w, "delete_file", `{"owner":"acme","repo":"api","path":"README.md","message":"rm","sha":"abc"}`, twins.Conflict, "")
	wantErr(t, w, "delete_file", `{"owner":"acme","repo":"api","path":"nope","message":"rm"}`, twins.NotFound, "")
	del := mustCall(t, w, "delete_file", `{"owner":"acme","repo":"api","path":"README.md","message":"rm readme"}`).Out.(APIContentWrite)
	if del.Content != nil || del.Commit.Message != "rm readme" {
		t.Errorf("delete: %+v", del)
	}
	ref := mustCall(t, w, "push_files", `{"owner":"acme","repo":"api","branch":"main","message":"two files","files":[{"path":"a.txt","content":"a"},{"path":"b/c.txt","content":"c"}]}`).Out.(APIRef)
	if ref.Ref != "refs/heads/main" {
		t.Errorf("push: %+v", ref)
	}
	c := mustCall(t, w, "get_commit", `{"owner":"acme","repo":"api","sha":"main","detail":"full_patch"}`).Out.(APICommit)
	if len(c.Files) != 2 || c.Stats.Additions != 2 || c.Files[0].Status != "added" || c.Files[0].Patch != "@@ -0,0 +1,1 @@\n+a" {
		t.Errorf("commit files: %+v %+v", c.Files, c.Stats)
	}
	// github-mcp-server's default detail is stats: files without patches.
	c = mustCall(t, w, "get_commit", `{"owner":"acme","repo":"api","sha":"main"}`).Out.(APICommit)
	if len(c.Files) != 2 || c.Stats.Additions != 2 || c.Files[0].Patch != "" {
		t.Errorf("commit stats: %+v %+v", c.Files, c.Stats)
	}
	c = mustCall(t, w, "get_commit", `{"owner":"acme","repo":"api","sha":"main","detail":"none"}`).Out.(APICommit)
	if c.Files != nil || c.Stats != nil {
		t.Errorf("commit without detail: %+v %+v", c.Files, c.Stats)
	}
	wantErr(t, w, "get_commit", `{"owner":"acme","repo":"api","sha":"main","detail":"all"}`, twins.Invalid, "")
	wantErr(t, w, "push_files", `{"owner":"acme","repo":"api","branch":"main","message":"m","files":[]}`, twins.Unprocessable, "missing_field")
	wantErr(t, w, "get_commit", `{"owner":"acme","repo":"api","sha":"deadbeef"}`, twins.Unprocessable, "")
}

func TestBranchesAndRefs(t *testing.T) {
	w := world(t, "")
	ref := mustCall(t, w, "create_branch", `{"owner":"acme","repo":"api","branch":"fix"}`).Out.(APIRef)
	repo, _ := w.repo("acme", "api")
	if ref.Ref != "refs/heads/fix" || ref.Object.SHA != repo.branch("main").SHA {
		t.Errorf("create_branch: %+v", ref)
	}
	e := wantErr(t, w, "create_branch", `{"owner":"acme","repo":"api","ref":"refs/heads/fix","sha":"`+ref.Object.SHA+`"}`, twins.Unprocessable, "already_exists")
	if e.Details["message"] != "Reference already exists" {
		t.Errorf("exists: %+v", e)
	}
	wantErr(t, w, "create_branch", `{"owner":"acme","repo":"api","ref":"refs/heads/x","sha":"1234567890"}`, twins.Unprocessable, "invalid")
	wantErr(t, w, "create_branch", `{"owner":"acme","repo":"api","ref":"heads/x","sha":"`+ref.Object.SHA+`"}`, twins.Unprocessable, "invalid")
	wantErr(t, w, "create_branch", `{"owner":"acme","repo":"api","branch":"y","from_branch":"nope"}`, twins.NotFound, "")
	mustCall(t, w, "create_branch", `{"owner":"acme","repo":"api","ref":"refs/tags/v1","sha":"`+ref.Object.SHA+`"}`)
	got := mustCall(t, w, "get_git_ref", `{"owner":"acme","repo":"api","ref":"heads/fix"}`).Out.(APIRef)
	if got.Object.SHA != ref.Object.SHA {
		t.Errorf("get ref: %+v", got)
	}
	wantErr(t, w, "get_git_ref", `{"owner":"acme","repo":"api","ref":"heads/nope"}`, twins.NotFound, "")
	b := mustCall(t, w, "get_branch", `{"owner":"acme","repo":"api","branch":"fix"}`).Out.(APIBranch)
	if b.Commit.SHA != ref.Object.SHA {
		t.Errorf("branch: %+v", b)
	}
	wantErr(t, w, "get_branch", `{"owner":"acme","repo":"api","branch":"nope"}`, twins.NotFound, "")
	put := mustCall(t, w, "create_or_update_file", `{"owner":"acme","repo":"api","path":"fix.txt","content":"x","message":"m","branch":"fix"}`).Out.(APIContentWrite)
	// Fast-forward main to fix's head, then refuse going back without force.
	mustCall(t, w, "update_git_ref", `{"owner":"acme","repo":"api","ref":"heads/main","sha":"`+put.Commit.SHA+`"}`)
	wantErr(t, w, "update_git_ref", `{"owner":"acme","repo":"api","ref":"heads/main","sha":"`+ref.Object.SHA+`"}`, twins.Unprocessable, "invalid")
	mustCall(t, w, "update_git_ref", `{"owner":"acme","repo":"api","ref":"heads/main","sha":"`+ref.Object.SHA+`","force":true}`)
	tags := mustCall(t, w, "list_tags", `{"owner":"acme","repo":"api"}`).Out.(*List[APITag])
	if len(tags.Items) != 1 || tags.Items[0].Name != "v1" {
		t.Errorf("tags: %+v", tags.Items)
	}
	mustCall(t, w, "get_tag", `{"owner":"acme","repo":"api","tag":"v1"}`)
	wantErr(t, w, "get_tag", `{"owner":"acme","repo":"api","tag":"v2"}`, twins.NotFound, "")
	wantErr(t, w, "delete_branch", `{"owner":"acme","repo":"api","branch":"heads/main"}`, twins.Unprocessable, "invalid")
	mustCall(t, w, "delete_branch", `{"owner":"acme","repo":"api","branch":"heads/fix"}`)
	mustCall(t, w, "delete_branch", `{"owner":"acme","repo":"api","branch":"tags/v1"}`)
	wantErr(t, w, "delete_branch", `{"owner":"acme","repo":"api","branch":"fix"}`, twins.Unprocessable, "invalid")
}

func TestReleases(t *testing.T) {
	w := world(t, SeedExample)
	rel := mustCall(t, w, "create_release", `{"owner":"acme","repo":"api","tag_name":"v1.0.0","name":"One","body":"notes"}`).Out.(APIRelease)
	if rel.TagName != "v1.0.0" || rel.PublishedAt == nil || rel.Author.Login != "pome-agent" {
		t.Errorf("release: %+v", rel)
	}
	mustCall(t, w, "create_release", `{"owner":"acme","repo":"api","tag_name":"v1.1.0-rc1","prerelease":true}`)
	latest := mustCall(t, w, "get_latest_release", `{"owner":"acme","repo":"api"}`).Out.(APIRelease)
	if latest.TagName != "v1.0.0" {
		t.Errorf("latest skips prereleases: %s", latest.TagName)
	}
	byTag := mustCall(t, w, "get_release_by_tag", `{"owner":"acme","repo":"api","tag":"v0.9.0"}`).Out.(APIRelease)
	if *byTag.Body != "Beta" {
		t.Errorf("by tag: %+v", byTag)
	}
	list := mustCall(t, w, "list_releases", `{"owner":"acme","repo":"api"}`).Out.(*List[APIRelease])
	if len(list.Items) != 3 || list.Items[0].TagName != "v1.1.0-rc1" {
		t.Errorf("list: %+v", list.Items)
	}
	wantErr(t, w, "create_release", `{"owner":"acme","repo":"api","tag_name":"v1.0.0"}`, twins.Unprocessable, "already_exists")
	wantErr(t, w, "create_release", `{"owner":"acme","repo":"api","tag_name":"v3","target_commitish":"nope"}`, twins.Unprocessable, "invalid")
	wantErr(t, w, "get_release_by_tag", `{"owner":"acme","repo":"api","tag":"v9"}`, twins.NotFound, "")
	wantErr(t, w, "get_latest_release", `{"owner":"alice","repo":"dotfiles"}`, twins.NotFound, "")
}

func TestLineDiff(t *testing.T) {
	adds, dels, patch := lineDiff("a\nb\nc\n", "a\nB\nc\nd\n", false, false)
	if adds != 2 || dels != 1 || patch != "@@ -1,3 +1,4 @@\n a\n-b\n+B\n c\n+d" {
		t.Errorf("diff: +%d -%d\n%s", adds, dels, patch)
	}
}

func TestGetCommitIncludeDiff(t *testing.T) {
	w := world(t, SeedExample)
	full := mustCall(t, w, "get_commit", `{"owner":"acme","repo":"api","sha":"fix-orders"}`).Out.(APICommit)
	if len(full.Files) == 0 || full.Stats == nil {
		t.Fatalf("diff by default: %+v", full)
	}
	bare := mustCall(t, w, "get_commit", `{"owner":"acme","repo":"api","sha":"fix-orders","include_diff":false}`).Out.(APICommit)
	if len(bare.Files) != 0 || bare.Stats != nil || bare.SHA != full.SHA {
		t.Errorf("include_diff false: %+v", bare)
	}
}
