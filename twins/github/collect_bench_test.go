package github

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/twinstest"
)

// BenchmarkCollectComments times a full collection of a heap holding a
// world of 100 issues and 300,000 comments added through
// add_issue_comment, each body decoded from its own request as a call's
// is: what a collection marks for a world that a rate run's comments grew
// (pome-bench rate, 30 s at 10,000 a second).
func BenchmarkCollectComments(b *testing.B) {
	_, _, wv := commentedWorld(b, 300_000, 100, "Load test comment number %d, from pome-bench.")
	twinstest.Collections(b, wv)
}

// commentedWorld is a world of 100 issues (issuesSeed) to whose first
// spread issues n comments were added through add_issue_comment, in
// turn, comment i's body format with i in it, each decoded from its own
// request as a call's is.
func commentedWorld(b *testing.B, n, spread int, format string) (*twins.Twin, context.Context, any) {
	tw := New()
	ctx := twins.WithEnv(context.Background(), twinstest.Env(tw.Name))
	wv, err := tw.NewWorld(ctx, issuesSeed(b, 100))
	if err != nil {
		b.Fatal(err)
	}
	a, _ := tw.Action("add_issue_comment")
	for i := range n {
		body, _ := json.Marshal(fmt.Sprintf(format, i))
		in, err := a.Decode(json.RawMessage(fmt.Sprintf(`{"owner":"acme","repo":"api","issue_number":%d,"body":%s}`, 1+i%spread, body)))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := a.Run(ctx, wv, in); err != nil {
			b.Fatal(err)
		}
	}
	return tw, ctx, wv
}

// BenchmarkCollectSeed is BenchmarkCollectComments's heap before the
// comments: what its figure holds besides them.
func BenchmarkCollectSeed(b *testing.B) {
	tw := New()
	ctx := twins.WithEnv(context.Background(), twinstest.Env(tw.Name))
	wv, err := tw.NewWorld(ctx, issuesSeed(b, 100))
	if err != nil {
		b.Fatal(err)
	}
	twinstest.Collections(b, wv)
}

// BenchmarkListComments reads the first page (30) of a repository's issue
// comments (10,000, on 10 of its 100 issues) and of one issue's (1,000):
// a page must not cost rendering every comment.
func BenchmarkListComments(b *testing.B) {
	tw, ctx, wv := commentedWorld(b, 10_000, 10, "comment %d")
	for _, c := range []struct{ name, action, args string }{
		{"repository", "list_repository_issue_comments", `{"owner":"acme","repo":"api","sort":"updated","direction":"desc"}`},
		{"issue", "issue_read", `{"method":"get_comments","owner":"acme","repo":"api","issue_number":1}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			list, _ := tw.Action(c.action)
			in, err := list.Decode(json.RawMessage(c.args))
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				out, err := list.Run(ctx, wv, in)
				if err != nil {
					b.Fatal(err)
				}
				if l := out.(*List[APIIssueComment]); len(l.Items) != 30 || l.TotalCount < 1_000 {
					b.Fatalf("page of %d of %d", len(l.Items), l.TotalCount)
				}
			}
		})
	}
}
