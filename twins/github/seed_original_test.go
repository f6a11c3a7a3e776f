package github

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/twinstest"
)

// TestSeedExampleOriginal loads the original-format example and checks
// that every key it carries reached the world.
func TestSeedExampleOriginal(t *testing.T) {
	if New().SeedExampleOriginal != SeedExampleOriginal {
		t.Fatal("the twin does not carry the original-format example")
	}
	w := world(t, SeedExampleOriginal)
	if w.Me != "pome-agent" {
		t.Errorf("me = %q", w.Me)
	}
	if o := w.org("lumen"); o == nil || o.Name != "Lumen Labs" {
		t.Errorf("users[].type Organization: %+v", o)
	}
	if u := w.user("priya"); u == nil || u.Name != "Priya Raman" {
		t.Errorf("users[].name: %+v", u)
	}
	if u := w.user("tomas"); u == nil || w.org("tomas") != nil {
		t.Error("users[].type defaults to User")
	}
	if u := w.user("dmitri"); u == nil || u.Name != "dmitri" {
		t.Errorf("an account only named as collaborator and author is created: %+v", u)
	}
	r, err := w.repo("lumen", "ledger")
	if err != nil {
		t.Fatal(err)
	}
	if r.Description != "Double-entry bookkeeping service" || r.Private || r.DefaultBranch != "main" {
		t.Errorf("repository fields: %+v", r)
	}
	if strings.Join(r.Collaborators, ",") != "priya,tomas,dmitri,pome-agent" {
		t.Errorf("collaborators (the agent is added): %v", r.Collaborators)
	}
	if l := r.label("needs-triage"); l == nil || l.Color != "ededed" {
		t.Errorf("label default color: %+v", l)
	}
	if l := r.label("bug"); l == nil || l.Color != "d73a4a" || l.Description != "Something is not working" {
		t.Errorf("label: %+v", l)
	}
	file := func(branch, path string) (string, bool) {
		b := r.branch(branch)
		if b == nil {
			t.Fatalf("no branch %s", branch)
		}
		sha, ok := r.commit(b.SHA).Tree[path]
		return string(r.Blobs[sha]), ok
	}
	if c, ok := file("main", "src/posting.ts"); !ok || strings.Contains(c, "empty posting") {
		t.Errorf("main's posting.ts: %q", c)
	}
	if c, ok := file("reject-empty-postings", "src/posting.ts"); !ok || !strings.Contains(c, "empty posting") {
		t.Errorf("files[].branch: %q", c)
	}
	if c, ok := file("move-readme", "docs/README.md"); !ok || !strings.HasPrefix(c, "# ledger") {
		t.Errorf("renamed_from target: %q", c)
	}
	if _, ok := file("move-readme", "README.md"); ok {
		t.Error("renamed_from leaves the source behind")
	}
	if m := r.milestone(1); m == nil || m.Title != "Q1 close" || m.Description != "Quarter-end close" || m.State != "open" || m.DueOn == nil {
		t.Errorf("milestone: %+v", m)
	}
	main := r.branch("main").SHA
	if tg := r.tag("v0.3.0"); tg == nil || tg.SHA != main {
		t.Errorf("tags[].target: %+v", tg)
	}
	if tg := r.tag("v0.4.0-rc.1"); tg == nil || tg.SHA != r.branch("reject-empty-postings").SHA {
		t.Errorf("releases[].target_commitish creates its tag there: %+v", tg)
	}
	if len(r.Releases) != 2 || r.Releases[0].Author != "priya" || r.Releases[0].Name != "v0.3.0" || r.Releases[0].Body != "Balances endpoint" || r.Releases[0].Draft || r.Releases[1].Author != "pome-agent" ||
		r.Releases[1].Target != "reject-empty-postings" || !r.Releases[1].Draft || !r.Releases[1].Prerelease {
		t.Errorf("releases: %+v %+v", r.Releases[0], r.Releases[1])
	}
	is1, _ := r.issueIndex(1)
	if is1.User != "tomas" || is1.Title != "Zero-amount postings are accepted" || !strings.HasPrefix(is1.Body, "POST /postings") || is1.State != "open" || strings.Join(is1.Labels, ",") != "needs-triage" ||
		is1.Comments.Len() != 2 || is1.Comments.At(0).User != "dmitri" || is1.Comments.At(1).User != "pome-agent" {
		t.Errorf("issue 1: %+v", is1)
	}
	is2, _ := r.issueIndex(2)
	if is2.State != "closed" || strings.Join(is2.Assignees, ",") != "priya" || is2.User != "pome-agent" {
		t.Errorf("issue 2 (legacy assignee, closed): %+v", is2)
	}
	pr, _ := r.issueIndex(3)
	if pr == nil || pr.Pull == nil || pr.User != "dmitri" || pr.Title != "Reject empty postings" || pr.Body != "Fixes #1" || pr.State != "open" || pr.Pull.Head != "reject-empty-postings" || pr.Pull.Base != "main" {
		t.Fatalf("pull request 3: %+v", pr)
	}
	if len(pr.Pull.Reviews) != 1 || pr.Pull.Reviews[0].User != "priya" || pr.Pull.Reviews[0].State != "CHANGES_REQUESTED" || pr.Pull.Reviews[0].Body == "" {
		t.Errorf("reviews: %+v", pr.Pull.Reviews)
	}
	if pr.Comments.Len() != 1 || pr.Comments.At(0).Body != "Rebased on main." {
		t.Errorf("pull request comments: %+v", pr.Comments)
	}
	if rc := pr.Pull.ReviewComments; len(rc) != 1 || rc[0].Body != "Use a typed error here." || rc[0].User != "priya" || rc[0].Path != "src/posting.ts" || rc[0].Line != 2 || rc[0].Side != "RIGHT" || rc[0].CommitID != pr.Pull.HeadSHA {
		t.Errorf("review comments: %+v", rc)
	}
	var statuses []string
	for _, s := range r.Statuses {
		if s.SHA != pr.Pull.HeadSHA {
			t.Errorf("status %s is not on the head commit", s.Context)
		}
		statuses = append(statuses, s.Context+"="+s.State+":"+s.Description)
	}
	if strings.Join(statuses, ",") != "ci/test=failure:1 failing,ci/build=pending:" {
		t.Errorf("statuses (context and state default): %v", statuses)
	}
	// The number the original's counter gives: after #1, #2 and #3.
	pr4, _ := r.issueIndex(4)
	if pr4 == nil || pr4.Pull == nil || pr4.State != "closed" || pr4.Pull.Merged {
		t.Errorf("unnumbered pull request: %+v", pr4)
	}
	notes, err := w.repo("priya", "notes")
	if err != nil || !notes.Private || notes.Owner != "priya" {
		t.Errorf("a private repository the agent collaborates on: %v %+v", err, notes)
	}
}

// TestSeedOriginalNumbering follows the original's one counter: issues
// first, an explicit number moving it on.
func TestSeedOriginalNumbering(t *testing.T) {
	w := world(t, `{"repositories":[{"owner":"lumen","name":"x","files":[{"path":"a","content":"1"},{"path":"a","content":"2","branch":"f"}],
		"issues":[{"number":5,"title":"five"},{"title":"next"}],"pull_requests":[{"title":"pr","head":"f","reviews":[{"author":"tomas"}]}]}]}`)
	r, _ := w.repo("lumen", "x")
	var got []string
	for _, is := range r.Issues {
		got = append(got, is.Title)
	}
	if len(r.Issues) != 3 || r.Issues[0].Number != 5 || r.Issues[1].Number != 6 || r.Issues[2].Number != 7 || r.Issues[2].Pull == nil {
		t.Errorf("numbers: %v", got)
	}
	if rv := r.Issues[2].Pull.Reviews; len(rv) != 1 || rv[0].State != "APPROVED" || rv[0].User != "tomas" {
		t.Errorf("a review's state defaults to APPROVED: %+v", rv)
	}
	if w.org("lumen") != nil || w.user("lumen") == nil {
		t.Error("an undeclared owner is a user")
	}
	if w := world(t, `{"repositories":[{"owner":"acme","name":"x"}]}`); w.org("acme") == nil {
		t.Error("the original makes an undeclared acme an organization")
	}
}

func TestSeedOriginalErrors(t *testing.T) {
	// repo is a valid repository with branch f changing a.txt, plus body;
	// a body starting with "files" replaces the file list.
	repo := func(body string) string {
		files := `"files":[{"path":"a.txt","content":"one\ntwo\n"},{"path":"a.txt","content":"uno\n","branch":"f"}]`
		if strings.HasPrefix(body, `,"files"`) {
			files, body = body[1:], ""
		}
		return `{"repositories":[{"owner":"lumen","name":"x","collaborators":["tomas"],"labels":[{"name":"bug"}],` + files + body + `}]}`
	}
	cases := []struct {
		name, seed, path, msg string
	}{
		{"key of our format", repo(`,"issues":[{"title":"t","milestone":1}]`), "/repositories/0/issues/0/milestone", "unknown key"},
		{"unknown pull key", repo(`,"pull_requests":[{"title":"p","head":"f","draft":true}]`), "/repositories/0/pull_requests/0/draft", "unknown key"},
		{"unknown top key", `{"_meta":{},"repositories":[{"owner":"a","name":"x"}],"repos":[]}`, "/repos", "unknown key"},
		{"wrong type", `{"repositories":[{"owner":"a","name":"x","private":"yes"}]}`, "/repositories/0/private", "expected true or false"},
		{"no repositories", `{"repositories":[]}`, "/repositories", "at least one repository"},
		{"meta only", `{"_meta":{"version":1}}`, "/repositories", "at least one repository"},
		{"user type", `{"users":[{"login":"a","type":"Bot"}],"repositories":[{"owner":"a","name":"x"}]}`, "/users/0/type", "User or Organization"},
		{"bad declared login", `{"users":[{"login":"-a"}],"repositories":[{"owner":"b","name":"x"}]}`, "/users/0/login", "invalid login"},
		{"bad owner login", `{"repositories":[{"owner":"bad login","name":"x"}]}`, "/repositories/0/owner", "invalid login"},
		{"bad repo name", `{"repositories":[{"owner":"a","name":"x y"}]}`, "/repositories/0/name", "invalid repository name"},
		{"file without content", repo(`,"files":[{"path":"b"}]`), "/repositories/0/files/0/content", "content is required"},
		{"rename with content", repo(`,"files":[{"path":"a","content":"x"},{"path":"b","content":"x","renamed_from":"a","branch":"f"}]`), "/repositories/0/files/1/content", "must be omitted"},
		{"rename onto itself", repo(`,"files":[{"path":"a","content":"x"},{"path":"a","renamed_from":"a","branch":"f"}]`), "/repositories/0/files/1/renamed_from", "different path"},
		{"rename on default", repo(`,"files":[{"path":"a","content":"x"},{"path":"b","renamed_from":"a"}]`), "/repositories/0/files/1/renamed_from", "initial commit"},
		{"rename from nothing", repo(`,"files":[{"path":"b","renamed_from":"zz","branch":"f"}]`), "/repositories/0/files/0/renamed_from", "does not hold"},
		{"file twice", repo(`,"files":[{"path":"a","content":"x"},{"path":"a","content":"y","branch":"main"}]`), "/repositories/0/files/1/path", "listed twice"},
		{"file twice on a branch", repo(`,"files":[{"path":"a","content":"x","branch":"f"},{"path":"a","content":"y","branch":"f"}]`), "/repositories/0/files/1/path", "listed twice"},
		{"bad file path", repo(`,"files":[{"path":"../etc","content":"x"}]`), "/repositories/0/files/0/path", "invalid file path"},
		{"bad branch file path", repo(`,"files":[{"path":"a","content":"x"},{"path":"/b","content":"x","branch":"f"}]`), "/repositories/0/files/1/path", "invalid file path"},
		{"label undefined", repo(`,"issues":[{"title":"t","labels":["bug","nope"]}]`), "/repositories/0/issues/0/labels/1", "not defined"},
		{"assignee not collaborator", repo(`,"issues":[{"title":"t","assignees":["zed"]}]`), "/repositories/0/issues/0/assignees/0", "not a collaborator"},
		{"legacy assignee not collaborator", repo(`,"issues":[{"title":"t","assignee":"zed"}]`), "/repositories/0/issues/0/assignee", "not a collaborator"},
		{"bad issue author", repo(`,"issues":[{"title":"t","author":"-x"}]`), "/repositories/0/issues/0/author", "invalid login"},
		{"bad comment author", repo(`,"issues":[{"title":"t","comments":[{"body":"b","author":"x_y"}]}]`), "/repositories/0/issues/0/comments/0/author", "invalid login"},
		{"empty comment", repo(`,"issues":[{"title":"t","comments":[{"body":""}]}]`), "/repositories/0/issues/0/comments/0/body", "required"},
		{"issue state", repo(`,"issues":[{"title":"t","state":"done"}]`), "/repositories/0/issues/0/state", "open or closed"},
		{"issue without title", repo(`,"issues":[{"body":"b"}]`), "/repositories/0/issues/0/title", "required"},
		{"negative number", repo(`,"issues":[{"number":-2,"title":"t"}]`), "/repositories/0/issues/0/number", "positive"},
		{"number twice", repo(`,"issues":[{"number":1,"title":"t"}],"pull_requests":[{"number":1,"title":"p","head":"f"}]`), "/repositories/0/pull_requests/0/number", "used twice"},
		{"pull head unknown", repo(`,"pull_requests":[{"title":"p","head":"nope"}]`), "/repositories/0/pull_requests/0/head", "unknown branch"},
		{"pull without head", repo(`,"pull_requests":[{"title":"p"}]`), "/repositories/0/pull_requests/0/head", "required"},
		{"pull base unknown", repo(`,"pull_requests":[{"title":"p","head":"f","base":"dev"}]`), "/repositories/0/pull_requests/0/base", "unknown branch"},
		{"pull merged", repo(`,"pull_requests":[{"title":"p","head":"f","state":"merged"}]`), "/repositories/0/pull_requests/0/state", "open or closed"},
		{"bad pull author", repo(`,"pull_requests":[{"title":"p","head":"f","author":"-p"}]`), "/repositories/0/pull_requests/0/author", "invalid login"},
		{"review state", repo(`,"pull_requests":[{"title":"p","head":"f","reviews":[{"author":"tomas","state":"DISMISSED"}]}]`), "/repositories/0/pull_requests/0/reviews/0/state", "APPROVED"},
		{"review without author", repo(`,"pull_requests":[{"title":"p","head":"f","reviews":[{"state":"APPROVED"}]}]`), "/repositories/0/pull_requests/0/reviews/0/author", "required"},
		{"bad review author", repo(`,"pull_requests":[{"title":"p","head":"f","reviews":[{"author":"-r"}]}]`), "/repositories/0/pull_requests/0/reviews/0/author", "invalid login"},
		{"status state", repo(`,"pull_requests":[{"title":"p","head":"f","statuses":[{"state":"green"}]}]`), "/repositories/0/pull_requests/0/statuses/0/state", "success"},
		{"review comment on an unchanged file", repo(`,"pull_requests":[{"title":"p","head":"f","review_comments":[{"body":"c","path":"b.txt"}]}]`), "/repositories/0/pull_requests/0/review_comments/0/path", "not a file this pull request changes"},
		{"review comment past the end", repo(`,"pull_requests":[{"title":"p","head":"f","review_comments":[{"body":"c","path":"a.txt","line":2}]}]`), "/repositories/0/pull_requests/0/review_comments/0/line", "does not exist"},
		{"review comment side", repo(`,"pull_requests":[{"title":"p","head":"f","review_comments":[{"body":"c","path":"a.txt","side":"UP"}]}]`), "/repositories/0/pull_requests/0/review_comments/0/side", "LEFT or RIGHT"},
		{"empty review comment", repo(`,"pull_requests":[{"title":"p","head":"f","review_comments":[{"body":" ","path":"a.txt"}]}]`), "/repositories/0/pull_requests/0/review_comments/0/body", "required"},
		{"bad review comment author", repo(`,"pull_requests":[{"title":"p","head":"f","review_comments":[{"body":"c","path":"a.txt","author":"-c"}]}]`), "/repositories/0/pull_requests/0/review_comments/0/author", "invalid login"},
		{"tag target", repo(`,"tags":[{"name":"v1","target":"nope"}]`), "/repositories/0/tags/0/target", "unknown ref"},
		{"release target", repo(`,"releases":[{"tag_name":"v1","target_commitish":"nope"}]`), "/repositories/0/releases/0/target_commitish", "unknown ref"},
		{"bad release author", repo(`,"releases":[{"tag_name":"v1","author":"-a"}]`), "/repositories/0/releases/0/author", "invalid login"},
		{"bad collaborator", repo(`,"collaborators":["x y"]`), "/repositories/0/collaborators/0", "invalid login"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := New().NewWorld(twins.WithEnv(context.Background(), twinstest.Env("github")), json.RawMessage(c.seed))
			var se *twins.SeedError
			if !errors.As(err, &se) {
				t.Fatalf("want SeedError, got %v", err)
			}
			if se.Path != c.path || !strings.Contains(se.Message, c.msg) {
				t.Errorf("got %q: %s\nwant %q: …%s…", se.Path, se.Message, c.path, c.msg)
			}
		})
	}
	// The fixture the cases start from is itself valid.
	world(t, repo(""))
}
