package github

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"
)

// Comment bodies added, edited and deleted through the actions read back
// as written.
func TestCommentTextKept(t *testing.T) {
	w := world(t, string(issuesSeed(t, 3)))
	var ids []int64
	for i := range 3 {
		c := mustCall(t, w, "add_issue_comment", fmt.Sprintf(`{"owner":"acme","repo":"api","issue_number":2,"body":"body %d"}`, i)).Out.(APIIssueComment)
		ids = append(ids, c.ID)
	}
	mustCall(t, w, "update_issue_comment", fmt.Sprintf(`{"owner":"acme","repo":"api","comment_id":%d,"body":"body 1, edited"}`, ids[1]))
	mustCall(t, w, "delete_issue_comment", fmt.Sprintf(`{"owner":"acme","repo":"api","comment_id":%d}`, ids[0]))
	runtime.GC()
	out := mustCall(t, w, "issue_read", `{"method":"get_comments","owner":"acme","repo":"api","issue_number":2}`).Out
	var got []string
	for _, c := range out.(*List[APIIssueComment]).Items {
		got = append(got, c.Body)
	}
	if want := []string{"Looking into it.", "body 1, edited", "body 2"}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("comments read %q, want %q", got, want)
	}
	checkIndex(t, w)
}

// However comments come and go, an issue's comment list holds about twice
// its live texts at most (or its live texts and the bytes a compaction
// waits for), and every body reads back as written.
func TestCommentTextBounded(t *testing.T) {
	w := world(t, string(issuesSeed(t, 4)))
	r, _ := w.repoIndex("acme", "api")
	rng := rand.New(rand.NewPCG(3, 4))
	want := map[int64]string{}
	for _, is := range r.Issues {
		for _, c := range is.Comments.All() {
			want[c.ID] = c.Body
		}
	}
	body := func() string { return strings.Repeat(fmt.Sprint(rng.IntN(10)), 1+rng.IntN(600)) }
	held := 0 // the bytes the lists' chunks hold, as their own counts have them
	for step := range 20_000 {
		is := r.Issues[rng.IntN(len(r.Issues))]
		switch op := rng.IntN(5); {
		case op < 2 || is.Comments.Len() == 0:
			i := r.addComment(is, Comment{ID: w.nextID(), User: w.Me, Body: body()})
			want[is.Comments.ID(i)] = is.Comments.At(i).Body
		case op < 4:
			i := rng.IntN(is.Comments.Len())
			delete(want, is.Comments.ID(i))
			r.removeComment(is, i)
		default:
			i := rng.IntN(is.Comments.Len())
			is.Comments.SetBody(i, body(), time.Unix(int64(step), 0))
			want[is.Comments.ID(i)] = is.Comments.At(i).Body
		}
		held = 0
		for _, is := range r.Issues {
			live := 0
			for _, c := range is.Comments.All() {
				live += len(c.User) + len(c.Body)
			}
			h := is.Comments.held()
			if h > max(2*live, live+compactAfter) {
				t.Fatalf("step %d: issue #%d's list holds %d text bytes for %d live", step, is.Number, h, live)
			}
			held += h
		}
	}
	runtime.GC()
	n := 0
	for _, is := range r.Issues {
		for _, c := range is.Comments.All() {
			n++
			if c.Body != want[c.ID] {
				t.Fatalf("comment %d reads %q, want %q", c.ID, c.Body, want[c.ID])
			}
		}
	}
	if n != len(want) {
		t.Fatalf("%d comments, want %d", n, len(want))
	}
	checkIndex(t, w)
	t.Logf("%d comments live, the lists holding %d text bytes", n, held)
}
