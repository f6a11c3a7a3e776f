package github

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pomehq/pome/twins"
)

func TestParseQuery(t *testing.T) {
	got := parseQuery(`repo:acme/api  label:"good first issue" -label:bug NOT wontfix "two words" in:title x`)
	want := []term{
		{key: "repo", value: "acme/api"},
		{key: "label", value: "good first issue"},
		{key: "label", value: "bug", neg: true},
		{value: "wontfix", neg: true},
		{value: "two words"},
		{key: "in", value: "title"},
		{value: "x"},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("parse:\n got %v\nwant %v", got, want)
	}
}

func TestSearchIssues(t *testing.T) {
	w := world(t, SeedExample)
	numbers := func(tool, args string) string {
		t.Helper()
		out := mustCall(t, w, tool, args).Out.(*SearchResult[APISearchIssue])
		var n []int
		for _, is := range out.Items {
			n = append(n, is.Number)
		}
		if out.TotalCount < len(n) {
			t.Errorf("total_count %d < %d items", out.TotalCount, len(n))
		}
		return fmt.Sprint(n)
	}
	for _, c := range []struct{ q, want string }{
		{`repo:acme/api`, "[4 3 2 1]"},
		{`repo:acme/api is:issue`, "[2 1]"},
		{`repo:acme/api is:pr`, "[4 3]"},
		{`repo:acme/api type:pr is:open`, "[3]"},
		{`repo:acme/api is:pr is:merged`, "[4]"},
		{`repo:acme/api is:closed`, "[4 2]"},
		{`repo:acme/api state:open is:issue`, "[1]"},
		{`repo:acme/api label:bug`, "[1]"},
		{`repo:acme/api label:bug,question`, "[2 1]"},
		{`repo:acme/api -label:bug is:issue`, "[2]"},
		{`repo:acme/api no:label`, "[4 3]"},
		{`repo:acme/api assignee:bob`, "[1]"},
		{`repo:acme/api no:assignee is:issue`, "[2]"},
		{`repo:acme/api author:carol`, "[2]"},
		{`repo:acme/api orders`, "[2 1]"},
		{`repo:acme/api order`, "[3 2 1]"},
		{`repo:acme/api POST orders`, "[1]"},
		{`repo:acme/api "POST /orders"`, "[1]"},
		{`repo:acme/api page in:title`, "[2]"},
		{`repo:acme/api fails in:body`, "[1]"},
		{`repo:acme/api fails in:title`, "[]"},
		{`repo:acme/api test in:comments`, "[3]"},
		{`repo:acme/api commenter:alice`, "[3]"},
		{`repo:acme/api involves:carol`, "[2]"},
		{`repo:acme/api milestone:v1.0`, "[1]"},
		{`repo:acme/api reason:completed`, "[2]"},
		{`repo:acme/api review-requested:alice`, "[3]"},
		{`repo:acme/api reviewed-by:alice`, "[3]"},
		{`repo:acme/api head:fix-orders`, "[3]"},
		{`repo:acme/api created:>=2026-01-05`, "[4 3 2 1]"},
		{`repo:acme/api created:<2026-01-05`, "[]"},
		{`repo:acme/api comments:>0`, "[3 1]"},
		{`org:acme is:issue is:open`, "[1]"},
		{`user:alice`, "[]"},
		{`is:issue NOT bug`, "[2 1]"},
	} {
		if got := numbers("search_issues", fmt.Sprintf(`{"query":%q}`, c.q)); got != c.want {
			t.Errorf("%s: got %s, want %s", c.q, got, c.want)
		}
	}
	if got := numbers("search_issues", `{"query":"repo:acme/api","sort":"comments","order":"asc"}`); got != "[2 4 1 3]" {
		t.Errorf("sort comments asc: %s", got)
	}
	// MCP-only search_pull_requests scopes the query to pull requests and
	// to owner/repo.
	if got := numbers("search_pull_requests", `{"query":"is:open","owner":"acme","repo":"api"}`); got != "[3]" {
		t.Errorf("search_pull_requests: %s", got)
	}
	// Paging.
	out := mustCall(t, w, "search_issues", `{"query":"repo:acme/api","perPage":3,"page":2}`).Out.(*SearchResult[APISearchIssue])
	if out.TotalCount != 4 || len(out.Items) != 1 || out.Items[0].Number != 1 {
		t.Errorf("page 2: total %d items %d", out.TotalCount, len(out.Items))
	}
	if !strings.Contains(out.link, `/search/issues?page=1&per_page=3&q=repo%3Aacme%2Fapi>; rel="prev"`) || !strings.Contains(out.link, `rel="first"`) {
		t.Errorf("link: %s", out.link)
	}

	for _, c := range []struct {
		args   string
		code   twins.Code
		vendor string
	}{
		{`{"query":""}`, twins.Unprocessable, "missing"},
		{`{"query":"   "}`, twins.Unprocessable, "missing"},
		{`{"query":"repo:acme/nope bug"}`, twins.Unprocessable, "invalid"},
		{`{"query":"user:nobody"}`, twins.Unprocessable, "invalid"},
		{`{"query":"repo:acme/api","sort":"stars"}`, twins.Unprocessable, "invalid"},
		{`{"query":"repo:acme/api","order":"up"}`, twins.Invalid, "invalid_arguments"},
		{fmt.Sprintf(`{"query":%q}`, strings.Repeat("x", 257)), twins.Unprocessable, "invalid"},
		{`{}`, twins.Invalid, ""},
	} {
		e := wantErr(t, w, "search_issues", c.args, c.code, c.vendor)
		if c.vendor == "invalid" && e.Field == "q" {
			if _, ok := e.Details["entry_message"]; !ok {
				t.Errorf("%s: the 422 entry must explain itself", c.args)
			}
		}
	}
}

func TestSearchRepositories(t *testing.T) {
	w := world(t, SeedExample)
	names := func(q string) string {
		t.Helper()
		out := mustCall(t, w, "search_repositories", fmt.Sprintf(`{"query":%q}`, q)).Out.(*SearchResult[APISearchRepository])
		var n []string
		for _, r := range out.Items {
			n = append(n, r.FullName)
		}
		return fmt.Sprint(n)
	}
	for _, c := range []struct{ q, want string }{
		{`api`, "[acme/api]"},
		{`orders`, "[acme/api]"},
		{`topic:orders`, "[acme/api]"},
		{`user:alice`, "[alice/dotfiles]"},
		{`org:acme`, "[acme/api]"},
		{`dotfiles in:name`, "[alice/dotfiles]"},
		{`"Acme orders" in:description`, "[acme/api]"},
		// The merged docs pull request deleted README.md.
		{`"orders API" in:readme`, "[]"},
		{`is:public`, "[alice/dotfiles acme/api]"},
		{`language:go`, "[]"},
		{`nothing-matches`, "[]"},
	} {
		if got := names(c.q); got != c.want {
			t.Errorf("%s: got %s, want %s", c.q, got, c.want)
		}
	}
	mustCall(t, w, "fork_repository", `{"owner":"acme","repo":"api"}`)
	if got := names(`api`); got != "[acme/api]" {
		t.Errorf("forks are left out by default: %s", got)
	}
	if got := names(`api fork:only`); got != "[pome-agent/api]" {
		t.Errorf("fork:only: %s", got)
	}
	wantErr(t, w, "search_repositories", `{"query":"x","sort":"size"}`, twins.Unprocessable, "invalid")
	wantErr(t, w, "search_repositories", `{"query":""}`, twins.Unprocessable, "missing")
	wantErr(t, w, "search_repositories", `{"query":"repo:a/b"}`, twins.Unprocessable, "invalid")
}

func TestSearchCode(t *testing.T) {
	w := world(t, SeedExample)
	paths := func(q string) string {
		t.Helper()
		out := mustCall(t, w, "search_code", fmt.Sprintf(`{"query":%q}`, q)).Out.(*SearchResult[APISearchCode])
		var n []string
		for _, c := range out.Items {
			n = append(n, c.Repository.FullName+":"+c.Path)
		}
		return fmt.Sprint(n)
	}
	for _, c := range []struct{ q, want string }{
		{`CreateOrder`, "[acme/api:orders.go]"},
		{`createorder repo:acme/api`, "[acme/api:orders.go]"},
		// Only the default branch is searched: validate() lives on fix-orders.
		{`validate`, "[]"},
		{`"func CreateOrder" error`, "[acme/api:orders.go]"},
		{`u`, "[acme/api:docs/usage.md acme/api:orders.go]"},
		{`api in:path`, "[]"},
		{`orders in:path`, "[acme/api:orders.go]"},
		{`u extension:md`, "[acme/api:docs/usage.md]"},
		{`u language:go`, "[acme/api:orders.go]"},
		{`u filename:usage.md`, "[acme/api:docs/usage.md]"},
		{`u path:docs`, "[acme/api:docs/usage.md]"},
		{`nocompatible user:alice`, "[alice/dotfiles:vimrc]"},
		{`u -extension:md`, "[acme/api:orders.go]"},
	} {
		if got := paths(c.q); got != c.want {
			t.Errorf("%s: got %s, want %s", c.q, got, c.want)
		}
	}
	hit := mustCall(t, w, "search_code", `{"query":"CreateOrder"}`).Out.(*SearchResult[APISearchCode]).Items[0]
	if hit.Name != "orders.go" || hit.SHA != blobSHA([]byte("package api\n\nfunc CreateOrder() error { return nil }\n")) || !strings.Contains(hit.URL, "/repos/acme/api/contents/orders.go?ref=") {
		t.Errorf("hit: %+v", hit)
	}
	wantErr(t, w, "search_code", `{"query":"x","sort":"stars"}`, twins.Unprocessable, "invalid")
	wantErr(t, w, "search_code", `{"query":"x repo:acme/none"}`, twins.Unprocessable, "invalid")
}

func TestSearchUsersAndCommits(t *testing.T) {
	w := world(t, SeedExample)
	logins := func(q string) string {
		t.Helper()
		out := mustCall(t, w, "search_users", fmt.Sprintf(`{"query":%q}`, q)).Out.(*SearchResult[APISearchUser])
		var n []string
		for _, u := range out.Items {
			n = append(n, u.Login+"/"+u.Type)
		}
		return fmt.Sprint(n)
	}
	for _, c := range []struct{ q, want string }{
		{`alice`, "[alice/User]"},
		{`Builder in:name`, "[bob/User]"},
		{`acme`, "[acme/Organization alice/User]"},
		{`acme type:org`, "[acme/Organization]"},
		{`acme.test in:email`, "[alice/User]"},
		{`zed`, "[]"},
	} {
		if got := logins(c.q); got != c.want {
			t.Errorf("users %s: got %s, want %s", c.q, got, c.want)
		}
	}
	wantErr(t, w, "search_users", `{"query":"a","sort":"stars"}`, twins.Unprocessable, "invalid")

	msgs := func(q string) string {
		t.Helper()
		out := mustCall(t, w, "search_commits", fmt.Sprintf(`{"query":%q}`, q)).Out.(*SearchResult[APISearchCommit])
		var n []string
		for _, c := range out.Items {
			n = append(n, c.Repository.FullName+":"+strings.SplitN(c.Commit.Message, "\n", 2)[0])
		}
		return fmt.Sprint(n)
	}
	// "Fix order creation" is on the fix-orders branch, not the default one.
	if got := msgs(`repo:acme/api Fix`); got != "[]" {
		t.Errorf("commits on other branches: %s", got)
	}
	all := msgs(`repo:acme/api`)
	if !strings.Contains(all, "acme/api:") || strings.Contains(all, "Fix order creation") {
		t.Errorf("default-branch commits: %s", all)
	}
	if got := msgs(`repo:acme/api merge:true`); !strings.Contains(got, "Merge pull request #4") {
		t.Errorf("merge commits: %s", got)
	}
	wantErr(t, w, "search_commits", `{"query":"x","sort":"stars"}`, twins.Unprocessable, "invalid")
}
