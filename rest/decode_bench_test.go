package rest

import (
	"testing"

	"github.com/pomehq/pome/twins/all"
)

// BenchmarkBuildInput turns a GitHub comment write (path variables and a
// JSON body) into the action's decoded input, as bindingHandler does.
func BenchmarkBuildInput(b *testing.B) {
	tw, _ := all.Registry().Get("github")
	a, ok := tw.Action("add_issue_comment")
	if !ok {
		b.Fatal("no add_issue_comment")
	}
	var bind = a.Spec().Bindings[0]
	body := []byte(`{"body":"Looks good to me; merging after CI. See the notes in the PR description for the rollout plan."}`)
	b.ReportAllocs()
	for b.Loop() {
		args, err := buildInput(tw, a, bind, request{
			vars:        map[string]string{"owner": "acme", "repo": "api", "issue_number": "1"},
			contentType: "application/json", body: body,
		})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := a.Decode(args); err != nil {
			b.Fatal(err)
		}
	}
}
