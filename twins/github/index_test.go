package github

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"testing"

	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/twinstest"
)

// Repositories find issues by number and comments by id through indexes
// (Repo.issuesSorted, Repo.commentIssue). These tests pin that every
// answer is the one scanning gave.

func refIssue(r *Repo, number int) (*Issue, int) {
	for i, is := range r.Issues {
		if is.Number == number {
			return is, i
		}
	}
	return nil, -1
}

func refComment(r *Repo, id int64) (*Issue, int) {
	for _, is := range r.Issues {
		for i, c := range is.Comments.All() {
			if c.ID == id {
				return is, i
			}
		}
	}
	return nil, -1
}

// checkRepoIndex asserts that the indexes of r answer as scanning does,
// for every issue number and comment id in r and for some that are not.
func checkRepoIndex(t *testing.T, r *Repo) {
	t.Helper()
	if r.issuesSorted && !issuesAscending(r.Issues) {
		t.Fatalf("%s: marked sorted but issue numbers are not ascending", r.FullName())
	}
	if r.commentIssue != nil {
		n := 0
		for _, is := range r.Issues {
			for _, c := range is.Comments.All() {
				n++
				if p, ok := r.commentIssue[c.ID]; !ok || r.Issues[p] != is {
					t.Fatalf("%s: comment %d indexed under the wrong issue", r.FullName(), c.ID)
				}
			}
		}
		if n != len(r.commentIssue) {
			t.Fatalf("%s: index holds %d comments, the issues %d", r.FullName(), len(r.commentIssue), n)
		}
	}
	numbers := []int{0, -1, 1 << 30}
	var ids []int64
	for _, is := range r.Issues {
		numbers = append(numbers, is.Number, is.Number+1, is.Number-1)
		ids = append(ids, is.ID)
		for _, c := range is.Comments.All() {
			ids = append(ids, c.ID, c.ID+1)
		}
	}
	for _, n := range numbers {
		gi, gx := r.issueIndex(n)
		wi, wx := refIssue(r, n)
		if gi != wi || gx != wx {
			t.Fatalf("%s: issueIndex(%d) = %p,%d, scanning finds %p,%d", r.FullName(), n, gi, gx, wi, wx)
		}
	}
	for _, id := range append(ids, 0, -1) {
		gi, gx := r.findComment(id)
		wi, wx := refComment(r, id)
		if gi != wi || gx != wx {
			t.Fatalf("%s: findComment(%d) = %p,%d, scanning finds %p,%d", r.FullName(), id, gi, gx, wi, wx)
		}
	}
}

func checkIndex(t *testing.T, w *World) {
	t.Helper()
	for _, r := range w.Repos {
		checkRepoIndex(t, r)
	}
}

// roundTrip decodes w's document as the Redis store does.
func roundTrip(t *testing.T, w *World) *World {
	t.Helper()
	doc, err := json.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	dw, err := New().DecodeWorld(doc)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := json.Marshal(dw)
	if string(again) != string(doc) {
		t.Fatal("the round trip changed the world")
	}
	return dw.(*World)
}

func TestIssueIndexAfterEveryChange(t *testing.T) {
	w := world(t, "")
	step := func(name string) {
		t.Helper()
		checkIndex(t, w)
		for _, r := range w.Repos {
			if !r.issuesSorted || r.commentIssue == nil {
				t.Fatalf("after %s: %s lost its index", name, r.FullName())
			}
		}
		dw := roundTrip(t, w)
		for _, r := range dw.Repos {
			if !r.issuesSorted || r.commentIssue == nil {
				t.Fatalf("after %s: decoded %s has no index", name, r.FullName())
			}
		}
		checkIndex(t, dw)
	}
	step("seed")
	is := mustCall(t, w, "issue_write", `{"method":"create","owner":"acme","repo":"api","title":"New"}`).Out.(APIIssue)
	step("create issue")
	c := mustCall(t, w, "add_issue_comment", fmt.Sprintf(`{"owner":"acme","repo":"api","issue_number":%d,"body":"first"}`, is.Number)).Out.(APIIssueComment)
	mustCall(t, w, "add_issue_comment", `{"owner":"acme","repo":"api","issue_number":1,"body":"on issue 1"}`)
	step("add comments")
	mustCall(t, w, "update_issue_comment", fmt.Sprintf(`{"owner":"acme","repo":"api","comment_id":%d,"body":"edited"}`, c.ID))
	step("update comment")
	mustCall(t, w, "delete_issue_comment", fmt.Sprintf(`{"owner":"acme","repo":"api","comment_id":%d}`, c.ID))
	step("delete comment")
	if r := call(t, w, "get_issue_comment", fmt.Sprintf(`{"owner":"acme","repo":"api","comment_id":%d}`, c.ID)); r.Err == nil || r.Err.Code != twins.NotFound {
		t.Errorf("deleted comment: %+v", r)
	}
	mustCall(t, w, "create_branch", `{"owner":"acme","repo":"api","branch":"feature"}`)
	mustCall(t, w, "create_or_update_file", `{"owner":"acme","repo":"api","path":"feature.txt","content":"new\n","message":"Add feature","branch":"feature"}`)
	pr := mustCall(t, w, "create_pull_request", `{"owner":"acme","repo":"api","title":"Add feature","head":"feature","base":"main"}`).Out.(APIPullRequest)
	mustCall(t, w, "add_issue_comment", fmt.Sprintf(`{"owner":"acme","repo":"api","issue_number":%d,"body":"on the pull"}`, pr.Number))
	step("create pull request")
	mustCall(t, w, "merge_pull_request", fmt.Sprintf(`{"owner":"acme","repo":"api","pullNumber":%d}`, pr.Number))
	step("merge")
	mustCall(t, w, "create_repository", `{"name":"svc"}`)
	mustCall(t, w, "issue_write", `{"method":"create","owner":"pome-agent","repo":"svc","title":"In svc"}`)
	mustCall(t, w, "add_issue_comment", `{"owner":"pome-agent","repo":"svc","issue_number":1,"body":"svc comment"}`)
	step("create repository")
	mustCall(t, w, "fork_repository", `{"owner":"acme","repo":"api"}`)
	mustCall(t, w, "issue_write", `{"method":"create","owner":"pome-agent","repo":"api","title":"In the fork"}`)
	step("fork")
	got := mustCall(t, w, "issue_read", fmt.Sprintf(`{"method":"get","owner":"acme","repo":"api","issue_number":%d}`, is.Number)).Out.(APIIssue)
	if got.Title != "New" {
		t.Errorf("issue %d = %+v", is.Number, got)
	}
}

// A document whose issues are out of order, or whose comment ids repeat,
// decodes without indexes and answers as scanning did; changes keep it so.
func TestIssueIndexIrregularDocument(t *testing.T) {
	w := world(t, string(issuesSeed(t, 5)))
	doc, _ := json.Marshal(w)
	var raw map[string]any
	if err := json.Unmarshal(doc, &raw); err != nil {
		t.Fatal(err)
	}
	var api map[string]any
	for _, r := range raw["repos"].([]any) {
		if r.(map[string]any)["name"] == "api" {
			api = r.(map[string]any)
		}
	}
	issues := api["issues"].([]any)
	if len(issues) < 3 {
		t.Fatalf("default api repo has %d issues", len(issues))
	}
	// Reverse the issues, duplicate the first one's number, and give the
	// last two issues a comment with one id.
	for i, j := 0, len(issues)-1; i < j; i, j = i+1, j-1 {
		issues[i], issues[j] = issues[j], issues[i]
	}
	dupNumber := issues[len(issues)-1].(map[string]any)["number"]
	issues[0].(map[string]any)["number"] = dupNumber
	comment := map[string]any{"id": 999999, "user": "alice", "body": "same id", "created_at": "2026-01-05T09:00:00Z", "updated_at": "2026-01-05T09:00:00Z"}
	for _, x := range issues[len(issues)-2:] {
		m := x.(map[string]any)
		m["comments"] = append(m["comments"].([]any), comment)
	}
	doc, _ = json.Marshal(raw)
	dw, err := New().DecodeWorld(doc)
	if err != nil {
		t.Fatal(err)
	}
	w = dw.(*World)
	r, _ := w.repoIndex("acme", "api")
	if r.issuesSorted || r.commentIssue != nil {
		t.Fatalf("irregular repo indexed: sorted %v, comments %v", r.issuesSorted, r.commentIssue != nil)
	}
	checkIndex(t, w)
	mustCall(t, w, "issue_write", `{"method":"create","owner":"acme","repo":"api","title":"More"}`)
	mustCall(t, w, "add_issue_comment", `{"owner":"acme","repo":"api","issue_number":1,"body":"more"}`)
	checkIndex(t, w)

	// Indexed repos give up an index when a change breaks its premise.
	w = world(t, string(issuesSeed(t, 5)))
	r, _ = w.repoIndex("acme", "api")
	r.addIssue(&Issue{Number: 1})
	if r.issuesSorted {
		t.Error("a repeated number left the issues marked sorted")
	}
	first := r.Issues[0]
	r.addComment(first, Comment{ID: 424242})
	r.addComment(r.Issues[1], Comment{ID: 424242})
	if r.commentIssue != nil {
		t.Error("a repeated comment id left the comment index in use")
	}
	checkIndex(t, w)
}

// Reads run concurrently on one live world (the memory store's read lock)
// and must not write any index. Run with -race.
func TestConcurrentIssueReads(t *testing.T) {
	w := world(t, string(issuesSeed(t, 5)))
	c := mustCall(t, w, "add_issue_comment", `{"owner":"acme","repo":"api","issue_number":1,"body":"first"}`).Out.(APIIssueComment)
	tw := New()
	twinstest.ConcurrentReads(t, tw, w, twinstest.Env(tw.Name), []twinstest.Read{
		{Name: "issue_read", Args: `{"method":"get","owner":"acme","repo":"api","issue_number":1}`},
		{Name: "issue_read", Args: `{"method":"get_comments","owner":"acme","repo":"api","issue_number":2}`},
		{Name: "get_issue_comment", Args: fmt.Sprintf(`{"owner":"acme","repo":"api","comment_id":%d}`, c.ID)},
	})
	checkIndex(t, w)
}

// issuesSeed is a repository of n issues with one comment each, as
// pome-bench's scaling benchmark seeds it.
func issuesSeed(tb testing.TB, n int) json.RawMessage {
	tb.Helper()
	s := Seed{
		Clock: "2026-01-05T09:00:00Z", Me: "pome-agent",
		Users: []SeedUser{{Login: "alice"}, {Login: "bob"}, {Login: "pome-agent"}},
		Orgs:  []SeedOrg{{Login: "acme", Members: []string{"alice", "bob", "pome-agent"}}},
		Repos: []SeedRepo{{Owner: "acme", Name: "api", DefaultBranch: "main", Files: map[string]string{"README.md": "# api\n"},
			Collaborators: []string{"alice", "bob", "pome-agent"}}},
	}
	issues := make([]SeedIssue, n)
	for i := range issues {
		issues[i] = SeedIssue{Number: i + 1, Title: "Issue " + strconv.Itoa(i+1), User: "alice",
			Comments: []SeedComment{{User: "bob", Body: "Looking into it."}}}
	}
	s.Repos[0].Issues = issues
	raw, err := json.Marshal(s)
	if err != nil {
		tb.Fatal(err)
	}
	return raw
}

// BenchmarkIssueLookup finds the last issue of a repository of 10 / 1,000
// / 10,000 issues, and its comment by id; neither may grow with the
// repository.
func BenchmarkIssueLookup(b *testing.B) {
	tw := New()
	for _, n := range []int{10, 1_000, 10_000} {
		ctx := twins.WithEnv(context.Background(), twinstest.Env(tw.Name))
		wv, err := tw.NewWorld(ctx, issuesSeed(b, n))
		if err != nil {
			b.Fatal(err)
		}
		w := wv.(*World)
		r, _ := w.repoIndex("acme", "api")
		last, _ := r.issueIndex(n)
		id := last.Comments.ID(0)
		b.Run(fmt.Sprintf("issue/issues=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, is, err := w.issueOf("acme", "api", n); err != nil || is != last {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("comment/issues=%d", n), func(b *testing.B) {
			for b.Loop() {
				if is, _ := r.findComment(id); is != last {
					b.Fatal("comment not found")
				}
			}
		})
		b.Run(fmt.Sprintf("add_issue_comment/issues=%d", n), func(b *testing.B) {
			a, _ := tw.Action("add_issue_comment")
			in, err := a.Decode(json.RawMessage(fmt.Sprintf(`{"owner":"acme","repo":"api","issue_number":%d,"body":"Load test comment."}`, n)))
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := a.Run(ctx, w, in); err != nil {
					b.Fatal(err)
				}
				// Keep the issue's own comments from growing with b.N.
				r.removeComment(last, last.Comments.Len()-1)
			}
		})
	}
}
