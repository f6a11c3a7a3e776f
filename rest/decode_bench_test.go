package rest

import (
	"testing"

	"github.com/pomehq/pome/twins/all"
)

// benchDecode measures decodeInput, the request-to-typed-input step of
// bindingHandler, for one binding of one action.
func benchDecode(b *testing.B, twin, action string, r func() request) {
	tw, _ := all.Registry().Get(twin)
	a, ok := tw.Action(action)
	if !ok {
		b.Fatalf("no %s", action)
	}
	bind := a.Spec().Bindings[0]
	b.ReportAllocs()
	for b.Loop() {
		if _, err := decodeInput(tw, a, bind, r()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBuildInput turns a GitHub comment write (path variables and a
// JSON body) into the action's decoded input, as bindingHandler does.
func BenchmarkBuildInput(b *testing.B) {
	body := []byte(`{"body":"Looks good to me; merging after CI. See the notes in the PR description for the rollout plan."}`)
	benchDecode(b, "github", "add_issue_comment", func() request {
		return request{
			vars:        pathVars{{"owner", "acme"}, {"repo", "api"}, {"issue_number", "1"}},
			contentType: "application/json", body: body,
		}
	})
}

// BenchmarkDecodeStripeCustomerForm is POST /v1/customers as stripe-go
// sends it: a bracket-nested form body.
func BenchmarkDecodeStripeCustomerForm(b *testing.B) {
	body := []byte("email=jenny.rosen%40example.com&name=Jenny+Rosen&description=Loyal+customer&phone=%2B15555550123" +
		"&address[line1]=510+Townsend+St&address[city]=San+Francisco&address[postal_code]=94103&address[country]=US" +
		"&metadata[order_id]=6735&metadata[plan]=pro&preferred_locales[0]=en&preferred_locales[1]=fr&balance=1500")
	benchDecode(b, "stripe", "create_customer", func() request {
		return request{contentType: "application/x-www-form-urlencoded", body: body}
	})
}

// BenchmarkDecodeGitHubIssueJSON is POST /repos/{owner}/{repo}/issues with
// labels, assignees and a milestone number in its JSON body.
func BenchmarkDecodeGitHubIssueJSON(b *testing.B) {
	body := []byte(`{"title":"Crash on save","body":"Steps to reproduce: open, edit, save.","labels":["bug","ui"],"assignees":["alice"],"milestone":1}`)
	benchDecode(b, "github", "issue_write", func() request {
		return request{vars: pathVars{{"owner", "acme"}, {"repo", "api"}}, contentType: "application/json", body: body}
	})
}
