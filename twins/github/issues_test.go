package github

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pomehq/pome/twins"
)

func TestIssueRead(t *testing.T) {
	w := world(t, SeedExample)
	got := mustCall(t, w, "issue_read", `{"method":"get","owner":"acme","repo":"api","issue_number":1}`).JSON(t)
	if got["title"] != "500 error on POST /orders after deploy" || got["state"] != "open" || got["number"] != float64(1) {
		t.Errorf("get: %v", got)
	}
	if got["user"].(map[string]any)["login"] != "alice" || got["assignee"].(map[string]any)["login"] != "bob" {
		t.Errorf("user/assignee: %v %v", got["user"], got["assignee"])
	}
	if got["comments"] != float64(1) || got["author_association"] != "MEMBER" {
		t.Errorf("comments/author_association: %v %v", got["comments"], got["author_association"])
	}
	if got["milestone"].(map[string]any)["title"] != "v1.0" {
		t.Errorf("milestone: %v", got["milestone"])
	}
	if _, ok := got["pull_request"]; ok {
		t.Error("an issue must not carry pull_request")
	}
	if got["html_url"] != "https://github.com/acme/api/issues/1" {
		t.Errorf("html_url %v", got["html_url"])
	}
	pr := mustCall(t, w, "issue_read", `{"method":"get","owner":"acme","repo":"api","issue_number":3}`).JSON(t)
	if pr["pull_request"] == nil {
		t.Error("a pull request read as an issue carries pull_request")
	}
	comments := mustCall(t, w, "issue_read", `{"method":"get_comments","owner":"acme","repo":"api","issue_number":1}`).Out.(*List[APIIssueComment])
	if len(comments.Items) != 1 || comments.Items[0].Body != "Looking into it." || comments.Items[0].User.Login != "bob" {
		t.Errorf("comments: %+v", comments.Items)
	}
	labels := mustCall(t, w, "issue_read", `{"method":"get_labels","owner":"acme","repo":"api","issue_number":1}`).Out.(*List[APILabel])
	if len(labels.Items) != 1 || labels.Items[0].Name != "bug" {
		t.Errorf("labels: %+v", labels.Items)
	}

	for _, c := range []struct {
		args string
		code twins.Code
	}{
		{`{"method":"get","owner":"acme","repo":"nope","issue_number":1}`, twins.NotFound},
		{`{"method":"get","owner":"acme","repo":"api","issue_number":99}`, twins.NotFound},
		{`{"method":"get_parent","owner":"acme","repo":"api","issue_number":1}`, twins.NotFound},
		{`{"method":"explode","owner":"acme","repo":"api","issue_number":1}`, twins.Invalid},
		{`{"method":"get","owner":"acme","repo":"api"}`, twins.Invalid},
		{`{"method":"get","owner":"acme","repo":"api","issue_number":"one"}`, twins.Invalid},
	} {
		wantErr(t, w, "issue_read", c.args, c.code, "")
	}
}

func TestListIssues(t *testing.T) {
	w := world(t, SeedExample)
	list := func(args string) []int {
		t.Helper()
		out := mustCall(t, w, "list_issues", args).Out.(*List[APIIssue])
		var n []int
		for _, is := range out.Items {
			n = append(n, is.Number)
		}
		return n
	}
	cases := []struct {
		args string
		want string
	}{
		{`{"owner":"acme","repo":"api"}`, "[3 1]"},
		{`{"owner":"acme","repo":"api","state":"all"}`, "[4 3 2 1]"},
		{`{"owner":"acme","repo":"api","state":"CLOSED"}`, "[4 2]"},
		{`{"owner":"acme","repo":"api","state":"all","direction":"asc"}`, "[1 2 3 4]"},
		{`{"owner":"acme","repo":"api","state":"all","labels":["question"]}`, "[2]"},
		{`{"owner":"acme","repo":"api","labels":["bug","question"]}`, "[]"},
		{`{"owner":"acme","repo":"api","assignee":"bob"}`, "[1]"},
		{`{"owner":"acme","repo":"api","assignee":"none"}`, "[3]"},
		{`{"owner":"acme","repo":"api","state":"all","creator":"carol"}`, "[2]"},
		{`{"owner":"acme","repo":"api","state":"all","sort":"comments"}`, "[3 1 4 2]"},
		{`{"owner":"acme","repo":"api","milestone":"1"}`, "[1]"},
		{`{"owner":"acme","repo":"api","since":"2030-01-01T00:00:00Z"}`, "[]"},
	}
	for _, c := range cases {
		if got := fmt.Sprint(list(c.args)); got != c.want && !(c.want == "[]" && got == "[]") {
			t.Errorf("%s: got %s want %s", c.args, got, c.want)
		}
	}
	// Values outside an enum are refused by the input schema, as a wrong
	// type is; the rest by the handler.
	for _, args := range []string{
		`{"owner":"acme","repo":"api","state":"merged"}`,
		`{"owner":"acme","repo":"api","sort":"votes"}`,
		`{"owner":"acme","repo":"api","direction":"up"}`,
	} {
		wantErr(t, w, "list_issues", args, twins.Invalid, "invalid_arguments")
	}
	wantErr(t, w, "list_issues", `{"owner":"acme","repo":"api","since":"yesterday"}`, twins.Unprocessable, "invalid")
	wantErr(t, w, "list_issues", `{"owner":"acme","repo":"nope"}`, twins.NotFound, "")
}

func TestListIssuesPagination(t *testing.T) {
	w := world(t, "")
	for i := 0; i < 6; i++ {
		mustCall(t, w, "issue_write", fmt.Sprintf(`{"method":"create","owner":"acme","repo":"api","title":"issue %d"}`, i))
	}
	out := mustCall(t, w, "list_issues", `{"owner":"acme","repo":"api","perPage":3,"page":2,"direction":"asc"}`).Out.(*List[APIIssue])
	if len(out.Items) != 3 || out.Items[0].Number != 4 || out.TotalCount != 7 || !out.HasNext {
		t.Fatalf("page 2: %+v", out)
	}
	link := out.linkHeader()
	base := "http://127.0.0.1:7070/github/s/ses_TEST000000000000/repos/acme/api/issues"
	want := `<` + base + `?direction=asc&page=1&per_page=3>; rel="prev", <` + base + `?direction=asc&page=3&per_page=3>; rel="next", <` + base + `?direction=asc&page=3&per_page=3>; rel="last", <` + base + `?direction=asc&page=1&per_page=3>; rel="first"`
	if link != want {
		t.Errorf("Link:\n got %s\nwant %s", link, want)
	}
	if h := linkHeaders(nil, out); len(h) != 1 || h[0] != [2]string{"Link", want} {
		t.Errorf("Headers: %v", h)
	}
	first := mustCall(t, w, "list_issues", `{"owner":"acme","repo":"api"}`).Out.(*List[APIIssue])
	if first.linkHeader() != "" || len(first.Items) != 7 {
		t.Errorf("single page has no Link: %q", first.linkHeader())
	}
	last := mustCall(t, w, "list_issues", `{"owner":"acme","repo":"api","perPage":3,"page":3}`).Out.(*List[APIIssue])
	if strings.Contains(last.linkHeader(), `rel="next"`) || len(last.Items) != 1 {
		t.Errorf("last page: %q", last.linkHeader())
	}
	if body, ok := restShape(nil, out).([]APIIssue); !ok || len(body) != 3 {
		t.Errorf("REST body is the bare array, got %T", restShape(nil, out))
	}
}

func TestIssueWriteCreate(t *testing.T) {
	w := world(t, "")
	r := mustCall(t, w, "issue_write", `{"method":"create","owner":"acme","repo":"api","title":"Checkout slow","body":"p99 is 3s","labels":["bug","perf"],"assignees":["alice"]}`)
	if !r.Mutated {
		t.Error("create must mutate")
	}
	got := r.Out.(APIIssue)
	if got.Number != 2 || got.User.Login != "pome-agent" || got.State != "open" || *got.Body != "p99 is 3s" {
		t.Errorf("created: %+v", got)
	}
	if len(got.Labels) != 2 || got.Labels[1].Name != "perf" || got.Labels[1].Color != "ededed" {
		t.Errorf("labels: %+v", got.Labels)
	}
	repo, _ := w.repo("acme", "api")
	if repo.label("perf") == nil {
		t.Error("an unknown label is created on the repository, as GitHub does")
	}
	if got.Assignee == nil || got.Assignee.Login != "alice" {
		t.Errorf("assignee: %+v", got.Assignee)
	}
	is, _ := repo.issue(2)
	var evs []string
	for _, e := range is.Events {
		evs = append(evs, e.Event+":"+e.Label+e.Assignee)
	}
	if strings.Join(evs, ",") != "labeled:bug,labeled:perf,assigned:alice" {
		t.Errorf("events: %v", evs)
	}

	e := wantErr(t, w, "issue_write", `{"method":"create","owner":"acme","repo":"api","title":"x","assignees":["mallory"]}`, twins.Unprocessable, "invalid")
	if e.Field != "assignees" || e.Details["resource"] != "Issue" || e.Details["value"] != "mallory" {
		t.Errorf("assignee 422: %+v", e)
	}
	e = wantErr(t, w, "issue_write", `{"method":"create","owner":"acme","repo":"api","body":"no title"}`, twins.Unprocessable, "missing_field")
	if e.Field != "title" {
		t.Errorf("missing title field: %q", e.Field)
	}
	wantErr(t, w, "issue_write", `{"method":"create","owner":"acme","repo":"api","title":"x","milestone":7}`, twins.Unprocessable, "invalid")
	wantErr(t, w, "issue_write", `{"method":"create","owner":"nope","repo":"api","title":"x"}`, twins.NotFound, "")
	wantErr(t, w, "issue_write", `{"method":"upsert","owner":"acme","repo":"api","title":"x"}`, twins.Invalid, "invalid_arguments")
	wantErr(t, w, "issue_write", `{"method":"create","owner":"acme","repo":"api","title":"x","labels":[" "]}`, twins.Unprocessable, "missing_field")
}

func TestIssueWriteUpdate(t *testing.T) {
	w := world(t, "")
	r := mustCall(t, w, "issue_write", `{"method":"update","owner":"acme","repo":"api","issue_number":1,"state":"closed","state_reason":"not_planned","labels":["bug"]}`)
	got := r.Out.(APIIssue)
	if got.State != "closed" || *got.StateReason != "not_planned" || got.ClosedAt == nil || got.ClosedBy.Login != "pome-agent" {
		t.Errorf("closed: %+v", got)
	}
	if !r.Mutated {
		t.Error("update must mutate")
	}
	// The same update again changes nothing: state_mutation false.
	r = mustCall(t, w, "issue_write", `{"method":"update","owner":"acme","repo":"api","issue_number":1,"state":"closed","labels":["bug"]}`)
	if r.Mutated {
		t.Error("a no-op update must not count as a mutation")
	}
	got = mustCall(t, w, "issue_write", `{"method":"update","owner":"acme","repo":"api","issue_number":1,"state":"open","title":"500 on POST /orders","labels":[]}`).Out.(APIIssue)
	if got.State != "open" || *got.StateReason != "reopened" || got.ClosedAt != nil || len(got.Labels) != 0 || got.Title != "500 on POST /orders" {
		t.Errorf("reopened: %+v", got)
	}
	repo, _ := w.repo("acme", "api")
	is, _ := repo.issue(1)
	var evs []string
	for _, e := range is.Events {
		evs = append(evs, e.Event)
	}
	if strings.Join(evs, ",") != "labeled,closed,renamed,unlabeled,reopened" {
		t.Errorf("events: %v", evs)
	}
	// Assignee via the deprecated single field, then cleared.
	got = mustCall(t, w, "issue_write", `{"method":"update","owner":"acme","repo":"api","issue_number":1,"assignee":"bob"}`).Out.(APIIssue)
	if len(got.Assignees) != 1 || got.Assignees[0].Login != "bob" {
		t.Errorf("assignee: %+v", got.Assignees)
	}
	wantErr(t, w, "issue_write", `{"method":"update","owner":"acme","repo":"api","issue_number":9,"title":"x"}`, twins.NotFound, "")
	wantErr(t, w, "issue_write", `{"method":"update","owner":"acme","repo":"api","issue_number":1,"state":"done"}`, twins.Invalid, "invalid_arguments")
	wantErr(t, w, "issue_write", `{"method":"update","owner":"acme","repo":"api","issue_number":1,"state_reason":"bored"}`, twins.Invalid, "invalid_arguments")
	wantErr(t, w, "issue_write", `{"method":"update","owner":"acme","repo":"api","issue_number":1,"title":""}`, twins.Unprocessable, "missing_field")
	wantErr(t, w, "issue_write", `{"method":"update","owner":"acme","repo":"api","issue_number":1,"assignees":["alice","ghost"],"title":"changed"}`, twins.Unprocessable, "invalid")
}

func TestAddIssueComment(t *testing.T) {
	w := world(t, "")
	r := mustCall(t, w, "add_issue_comment", `{"owner":"acme","repo":"api","issue_number":1,"body":"Triaged as a bug."}`)
	c := r.Out.(APIIssueComment)
	if c.Body != "Triaged as a bug." || c.User.Login != "pome-agent" || !strings.HasSuffix(c.IssueURL, "/repos/acme/api/issues/1") {
		t.Errorf("comment: %+v", c)
	}
	if !strings.HasPrefix(c.HTMLURL, "https://github.com/acme/api/issues/1#issuecomment-") {
		t.Errorf("html_url %s", c.HTMLURL)
	}
	wantErr(t, w, "add_issue_comment", `{"owner":"acme","repo":"api","issue_number":1,"body":"  "}`, twins.Unprocessable, "missing_field")
	wantErr(t, w, "add_issue_comment", `{"owner":"acme","repo":"api","issue_number":2,"body":"x"}`, twins.NotFound, "")
	wantErr(t, w, "add_issue_comment", `{"owner":"acme","repo":"api","body":"x"}`, twins.Invalid, "")
}

func TestAssignees(t *testing.T) {
	w := world(t, `{"users":[{"login":"alice"},{"login":"carol"}],"repos":[{"owner":"alice","name":"x","collaborators":["pome-agent"],"issues":[{"title":"t"}]}]}`)
	// Owner and collaborators can be assigned; carol is silently ignored.
	r := mustCall(t, w, "add_issue_assignees", `{"owner":"alice","repo":"x","issue_number":1,"assignees":["alice","carol","pome-agent","nobody"]}`)
	got := r.Out.(APIIssue)
	if len(got.Assignees) != 2 || got.Assignees[0].Login != "alice" || got.Assignees[1].Login != "pome-agent" {
		t.Errorf("assignees: %+v", got.Assignees)
	}
	if !r.Mutated {
		t.Error("adding assignees mutates")
	}
	if r := mustCall(t, w, "add_issue_assignees", `{"owner":"alice","repo":"x","issue_number":1,"assignees":["carol"]}`); r.Mutated {
		t.Error("only ignored users: no mutation")
	}
	got = mustCall(t, w, "remove_issue_assignees", `{"owner":"alice","repo":"x","issue_number":1,"assignees":["alice","carol"]}`).Out.(APIIssue)
	if len(got.Assignees) != 1 || got.Assignees[0].Login != "pome-agent" {
		t.Errorf("after remove: %+v", got.Assignees)
	}
	if r := mustCall(t, w, "remove_issue_assignees", `{"owner":"alice","repo":"x","issue_number":1,"assignees":["carol"]}`); r.Mutated {
		t.Error("removing someone not assigned: no mutation")
	}
	wantErr(t, w, "add_issue_assignees", `{"owner":"alice","repo":"x","issue_number":5,"assignees":["alice"]}`, twins.NotFound, "")
	wantErr(t, w, "remove_issue_assignees", `{"owner":"alice","repo":"y","issue_number":1,"assignees":["alice"]}`, twins.NotFound, "")
}

func TestIssueLabels(t *testing.T) {
	w := world(t, "")
	// go-github sends a bare array, octokit an object.
	got := mustCall(t, w, "add_issue_labels", `{"owner":"acme","repo":"api","issue_number":1,"labels":["bug"]}`).Out.(*List[APILabel])
	if len(got.Items) != 1 || got.Items[0].Name != "bug" {
		t.Errorf("add: %+v", got.Items)
	}
	got = mustCall(t, w, "add_issue_labels", `{"owner":"acme","repo":"api","issue_number":1,"labels":{"labels":[{"name":"needs-triage"}]}}`).Out.(*List[APILabel])
	if len(got.Items) != 2 || got.Items[1].Name != "needs-triage" {
		t.Errorf("add object form: %+v", got.Items)
	}
	if r := mustCall(t, w, "add_issue_labels", `{"owner":"acme","repo":"api","issue_number":1,"labels":["BUG"]}`); r.Mutated {
		t.Error("re-adding a label (any case) changes nothing")
	}
	got = mustCall(t, w, "set_issue_labels", `{"owner":"acme","repo":"api","issue_number":1,"labels":["feature"]}`).Out.(*List[APILabel])
	if len(got.Items) != 1 || got.Items[0].Name != "feature" {
		t.Errorf("set: %+v", got.Items)
	}
	wantErr(t, w, "remove_issue_label", `{"owner":"acme","repo":"api","issue_number":1,"name":"bug"}`, twins.NotFound, "")
	got = mustCall(t, w, "remove_issue_label", `{"owner":"acme","repo":"api","issue_number":1,"name":"Feature"}`).Out.(*List[APILabel])
	if len(got.Items) != 0 {
		t.Errorf("remove: %+v", got.Items)
	}
	mustCall(t, w, "set_issue_labels", `{"owner":"acme","repo":"api","issue_number":1,"labels":["bug","question"]}`)
	got = mustCall(t, w, "remove_issue_label", `{"owner":"acme","repo":"api","issue_number":1}`).Out.(*List[APILabel])
	if len(got.Items) != 0 {
		t.Errorf("remove all: %+v", got.Items)
	}
	wantErr(t, w, "add_issue_labels", `{"owner":"acme","repo":"api","issue_number":1,"labels":[3]}`, twins.Unprocessable, "invalid")
	wantErr(t, w, "add_issue_labels", `{"owner":"acme","repo":"api","issue_number":1,"labels":[""]}`, twins.Unprocessable, "missing_field")
	wantErr(t, w, "set_issue_labels", `{"owner":"acme","repo":"api","issue_number":8,"labels":["bug"]}`, twins.NotFound, "")
}

func TestRepoLabels(t *testing.T) {
	w := world(t, "")
	list := mustCall(t, w, "list_label", `{"owner":"acme","repo":"api"}`).Out.(*List[APILabel])
	if len(list.Items) != 3 {
		t.Fatalf("labels: %+v", list.Items)
	}
	l := mustCall(t, w, "get_label", `{"owner":"acme","repo":"api","name":"BUG"}`).Out.(APILabel)
	if l.Name != "bug" || l.Color != "d73a4a" || !strings.HasSuffix(l.URL, "/repos/acme/api/labels/bug") {
		t.Errorf("get: %+v", l)
	}
	wantErr(t, w, "get_label", `{"owner":"acme","repo":"api","name":"nope"}`, twins.NotFound, "")
	created := mustCall(t, w, "label_write", `{"method":"create","owner":"acme","repo":"api","name":"p1","color":"#FF0000","description":"urgent"}`).Out.(*APILabel)
	if created.Color != "ff0000" || created.Description != "urgent" {
		t.Errorf("create: %+v", created)
	}
	e := wantErr(t, w, "label_write", `{"method":"create","owner":"acme","repo":"api","name":"P1"}`, twins.Unprocessable, "already_exists")
	if e.Details["resource"] != "Label" || e.Field != "name" {
		t.Errorf("duplicate: %+v", e)
	}
	wantErr(t, w, "label_write", `{"method":"create","owner":"acme","repo":"api","name":"x","color":"blue"}`, twins.Unprocessable, "invalid")
	mustCall(t, w, "issue_write", `{"method":"update","owner":"acme","repo":"api","issue_number":1,"labels":["p1"]}`)
	mustCall(t, w, "label_write", `{"method":"update","owner":"acme","repo":"api","name":"p1","new_name":"priority-1"}`)
	repo, _ := w.repo("acme", "api")
	if is, _ := repo.issue(1); is.Labels[0] != "priority-1" {
		t.Errorf("rename follows onto issues: %v", is.Labels)
	}
	if r := mustCall(t, w, "label_write", `{"method":"update","owner":"acme","repo":"api","name":"priority-1"}`); r.Mutated {
		t.Error("empty update changes nothing")
	}
	wantErr(t, w, "label_write", `{"method":"update","owner":"acme","repo":"api","name":"priority-1","new_name":"bug"}`, twins.Unprocessable, "already_exists")
	wantErr(t, w, "label_write", `{"method":"update","owner":"acme","repo":"api","name":"ghost","color":"000000"}`, twins.NotFound, "")
	mustCall(t, w, "label_write", `{"method":"delete","owner":"acme","repo":"api","name":"priority-1"}`)
	if is, _ := repo.issue(1); len(is.Labels) != 0 || repo.label("priority-1") != nil {
		t.Errorf("delete removes the label everywhere: %v", is.Labels)
	}
	wantErr(t, w, "label_write", `{"method":"delete","owner":"acme","repo":"api","name":"priority-1"}`, twins.NotFound, "")
	wantErr(t, w, "label_write", `{"method":"rename","owner":"acme","repo":"api","name":"bug"}`, twins.Invalid, "invalid_arguments")
}

func TestListIssuesDefaultsPerTransport(t *testing.T) {
	w := world(t, SeedExample)
	numbers := func(transport, args string) string {
		t.Helper()
		r := callOver(t, w, transport, "list_issues", args)
		if r.Err != nil {
			t.Fatal(r.Err)
		}
		var n []int
		switch out := r.Out.(type) {
		case *List[APIIssue]:
			for _, is := range out.Items {
				n = append(n, is.Number)
			}
		case MinimalIssuesPage:
			for _, is := range out.Issues {
				n = append(n, is.Number)
			}
		}
		return fmt.Sprint(n)
	}
	// REST: open issues and pull requests.
	if got := numbers(twins.TransportREST, `{"owner":"acme","repo":"api"}`); got != "[3 1]" {
		t.Errorf("REST default: %s", got)
	}
	// github-mcp-server: open and closed issues, no pull requests.
	if got := numbers(twins.TransportMCP, `{"owner":"acme","repo":"api"}`); got != "[2 1]" {
		t.Errorf("MCP default: %s", got)
	}
	if got := numbers(twins.TransportMCP, `{"owner":"acme","repo":"api","state":"OPEN"}`); got != "[1]" {
		t.Errorf("MCP OPEN: %s", got)
	}
}

func TestListIssuesCursor(t *testing.T) {
	w := world(t, SeedExample)
	var seen []int
	after := ""
	for i := 0; i < 10; i++ {
		args := `{"owner":"acme","repo":"api","state":"all","perPage":1`
		if after != "" {
			args += `,"after":"` + after + `"`
		}
		out := mustCall(t, w, "list_issues", args+"}").Out.(*List[APIIssue])
		for _, is := range out.Items {
			seen = append(seen, is.Number)
		}
		if out.PageInfo == nil || !out.PageInfo.HasNextPage {
			break
		}
		after = out.PageInfo.EndCursor
	}
	if fmt.Sprint(seen) != "[4 3 2 1]" {
		t.Errorf("paged by cursor: %v", seen)
	}
	wantErr(t, w, "list_issues", `{"owner":"acme","repo":"api","after":"bogus"}`, twins.Unprocessable, "invalid")
}

// An issue's comments page as GitHub's do: the page asked for, in order,
// with the total and the Link to the rest; past the end, an empty page.
func TestIssueCommentsPaged(t *testing.T) {
	w := world(t, "")
	for i := range 5 {
		mustCall(t, w, "add_issue_comment", fmt.Sprintf(`{"owner":"acme","repo":"api","issue_number":1,"body":"c%d"}`, i))
	}
	page := func(n int) *List[APIIssueComment] {
		return mustCall(t, w, "issue_read", fmt.Sprintf(`{"method":"get_comments","owner":"acme","repo":"api","issue_number":1,"perPage":2,"page":%d}`, n)).Out.(*List[APIIssueComment])
	}
	all := mustCall(t, w, "issue_read", `{"method":"get_comments","owner":"acme","repo":"api","issue_number":1}`).Out.(*List[APIIssueComment])
	n := len(all.Items)
	p2 := page(2)
	if len(p2.Items) != 2 || p2.Items[0].ID != all.Items[2].ID || p2.Items[1].ID != all.Items[3].ID || p2.TotalCount != n || !p2.HasNext {
		t.Fatalf("page 2 of %d: %+v", n, p2)
	}
	if !strings.Contains(p2.linkHeader(), `page=3&per_page=2>; rel="next"`) {
		t.Errorf("page 2's Link: %s", p2.linkHeader())
	}
	if last := page(n); len(last.Items) != 0 || last.Items == nil || last.HasNext {
		t.Fatalf("a page past the end: %+v", last)
	}
}
