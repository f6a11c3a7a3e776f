package github

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/pomehq/pome/internal/strchunk"
)

// Comment bodies added, edited and deleted through the actions read back
// as written, and the repository's text store holds what is live.
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

// However comments come and go, a repository's text store holds about
// twice the live bodies at most, and every body reads back as written.
func TestCommentTextBounded(t *testing.T) {
	w := world(t, string(issuesSeed(t, 4)))
	r, _ := w.repoIndex("acme", "api")
	rng := rand.New(rand.NewPCG(3, 4))
	want := map[int64]string{}
	for _, is := range r.Issues {
		for _, c := range is.Comments {
			want[c.ID] = c.Body
		}
	}
	body := func() string { return strings.Repeat(fmt.Sprint(rng.IntN(10)), 1+rng.IntN(600)) }
	held := 0 // the bytes the store's chunks hold, as its own count has them
	for step := range 20_000 {
		is := r.Issues[rng.IntN(len(r.Issues))]
		switch op := rng.IntN(5); {
		case op < 2 || len(is.Comments) == 0:
			c := r.addComment(is, Comment{ID: w.nextID(), User: w.Me, Body: r.text.Keep(body())})
			want[c.ID] = c.Body
		case op < 4:
			i := rng.IntN(len(is.Comments))
			delete(want, is.Comments[i].ID)
			r.removeComment(is, i)
		default:
			c := &is.Comments[rng.IntN(len(is.Comments))]
			r.setCommentBody(c, body())
			want[c.ID] = c.Body
		}
		live := 0
		for _, b := range want {
			live += len(b)
		}
		held = r.text.Held()
		if held > 2*live+2*strchunk.ChunkSize {
			t.Fatalf("step %d: the store holds %d bytes for %d live", step, held, live)
		}
	}
	runtime.GC()
	n := 0
	for _, is := range r.Issues {
		for _, c := range is.Comments {
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
	t.Logf("%d comments live, the store holding %d bytes", n, held)
}
