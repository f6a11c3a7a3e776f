package linear

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/twinstest"
)

// sdkDocuments are the documents @linear/sdk sends, by operation.
func sdkDocuments(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile("testdata/sdk_documents.json")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Documents map[string]string `json:"documents"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	return f.Documents
}

type gqlResult struct {
	Data   map[string]any   `json:"data"`
	Errors []map[string]any `json:"errors"`
	tool   string
	mut    bool
}

// gqlCall runs one GraphQL request on the world as the REST transport does.
func gqlCall(t *testing.T, w *World, query string, vars map[string]any) gqlResult {
	t.Helper()
	ctx, call := twins.WithCall(twins.WithEnv(context.Background(), twinstest.Env("linear")))
	v, _ := json.Marshal(vars)
	in, err := graphqlAction.Decode(mustJSON(GraphQLIn{Query: query, Variables: v}))
	if err != nil {
		t.Fatal(err)
	}
	out, err := graphqlAction.Run(ctx, w, in)
	if err != nil {
		t.Fatalf("graphql: %v", err)
	}
	var r gqlResult
	if err := json.Unmarshal(out.(json.RawMessage), &r); err != nil {
		t.Fatalf("answer %s: %v", out, err)
	}
	r.tool, r.mut = call.Tool(), call.Mutated()
	return r
}

func mustJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

func defaultWorld(t *testing.T) *World {
	return twinstest.World(t, New(), "").(*World)
}

func ok(t *testing.T, r gqlResult) map[string]any {
	t.Helper()
	if len(r.Errors) > 0 {
		t.Fatalf("errors: %v", r.Errors)
	}
	return r.Data
}

func at(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			l, _ := v.([]any)
			if k >= len(l) {
				return nil
			}
			v = l[k]
		}
	}
	return v
}

// TestSDKDocumentsValidate runs every document @linear/sdk sends for the
// operations the twin serves: each must validate against the schema and
// run without a resolver error on the default world.
func TestSDKDocumentsValidate(t *testing.T) {
	w := defaultWorld(t)
	eng := w.findTeam("ENG")
	issue := w.findIssue("ENG-1")
	comment := w.issueComments(issue.ID)[0]
	label := w.findLabel(eng.ID, "Bug")
	vars := map[string]map[string]any{
		"Team": {"id": eng.ID}, "Team_States": {"id": eng.ID}, "Team_Labels": {"id": eng.ID}, "Team_Issues": {"id": eng.ID},
		"Team_Members": {"id": eng.ID}, "Team_Cycles": {"id": eng.ID}, "Team_Projects": {"id": eng.ID},
		"Issue": {"id": "ENG-1"}, "Issue_Labels": {"id": issue.ID}, "Issue_Comments": {"id": issue.ID},
		"Issue_Children": {"id": issue.ID}, "Issue_Relations": {"id": issue.ID}, "Issue_InverseRelations": {"id": issue.ID},
		"WorkflowState": {"id": eng.States[0].ID}, "IssueLabel": {"id": label.ID}, "IssueLabel_Issues": {"id": label.ID},
		"User": {"id": w.ViewerID}, "User_AssignedIssues": {"id": w.ViewerID},
		"Comment": {"id": comment.ID}, "Comment_Children": {"id": comment.ID},
		"SearchIssues": {"term": "orders"},
		"CreateIssue":  {"input": map[string]any{"teamId": eng.ID, "title": "From the SDK"}},
		"UpdateIssue":  {"id": "ENG-2", "input": map[string]any{"priority": 1}},
		"ArchiveIssue": {"id": "ENG-3"}, "CreateComment": {"input": map[string]any{"issueId": issue.ID, "body": "hi"}},
		"UpdateComment":    {"id": comment.ID, "input": map[string]any{"body": "edited"}},
		"CreateIssueLabel": {"input": map[string]any{"name": "SDK"}}, "IssueAddLabel": {"id": "ENG-2", "labelId": label.ID},
		"IssueRemoveLabel":    {"id": "ENG-1", "labelId": label.ID},
		"CreateIssueRelation": {"input": map[string]any{"issueId": "ENG-1", "relatedIssueId": "ENG-2", "type": "blocks"}},
	}
	skip := map[string]string{
		// Need a record the default world has none of.
		"Project": "no project", "Project_Issues": "no project", "Project_Teams": "no project", "Cycle": "no cycle",
		"Cycle_Issues": "no cycle", "IssueRelation": "no relation", "DeleteComment": "the comment is another user's",
		"UpdateComment": "the comment is another user's",
	}
	for name := range skip {
		if vars[name] == nil {
			vars[name] = map[string]any{"id": "nope"}
		}
	}
	for name, doc := range sdkDocuments(t) {
		t.Run(name, func(t *testing.T) {
			r := gqlCall(t, w, doc, vars[name])
			if why, ok := skip[name]; ok {
				if len(r.Errors) == 0 {
					t.Fatalf("expected an error (%s)", why)
				}
				for _, e := range r.Errors {
					if at(e, "extensions", "code") == "GRAPHQL_VALIDATION_FAILED" {
						t.Fatalf("does not validate: %v", e)
					}
				}
				return
			}
			ok(t, r)
		})
	}
}

func TestGraphQLIssueLifecycle(t *testing.T) {
	w := defaultWorld(t)
	eng := w.findTeam("ENG")
	progress := eng.findState("In Progress")
	bug := w.findLabel(eng.ID, "Bug")

	r := gqlCall(t, w, `mutation($input: IssueCreateInput!) { issueCreate(input: $input) { success issue { id identifier title priority priorityLabel estimate state { name type } labels { nodes { name } } team { key } } } }`,
		map[string]any{"input": map[string]any{"teamId": eng.ID, "title": "Checkout times out", "priority": 2, "estimate": 3, "labelIds": []string{bug.ID}}})
	d := ok(t, r)
	if r.tool != "save_issue" || !r.mut {
		t.Fatalf("taped as %q mutated=%v", r.tool, r.mut)
	}
	iss := at(d, "issueCreate", "issue")
	if at(iss, "identifier") != "ENG-4" || at(iss, "state", "name") != "Todo" || at(iss, "priorityLabel") != "High" ||
		at(iss, "estimate") != 3.0 || at(iss, "labels", "nodes", 0, "name") != "Bug" || at(iss, "team", "key") != "ENG" {
		t.Fatalf("created %v", iss)
	}
	id := at(iss, "id").(string)

	r = gqlCall(t, w, `mutation($id: String!, $input: IssueUpdateInput!) { issueUpdate(id: $id, input: $input) { success issue { state { name } startedAt assignee { email } } } }`,
		map[string]any{"id": "ENG-4", "input": map[string]any{"stateId": progress.ID, "assigneeId": w.ViewerID}})
	d = ok(t, r)
	if at(d, "issueUpdate", "issue", "state", "name") != "In Progress" || at(d, "issueUpdate", "issue", "startedAt") == nil ||
		at(d, "issueUpdate", "issue", "assignee", "email") != "pome-agent@acme.test" {
		t.Fatalf("updated %v", d)
	}

	r = gqlCall(t, w, `mutation { commentCreate(input: {issueId: "ENG-4", body: "Looking"}) { success comment { id body user { name } issue { identifier } } } }`, nil)
	d = ok(t, r)
	if r.tool != "save_comment" || at(d, "commentCreate", "comment", "issue", "identifier") != "ENG-4" {
		t.Fatalf("comment %v taped %s", d, r.tool)
	}
	root := at(d, "commentCreate", "comment", "id").(string)
	r = gqlCall(t, w, `mutation($p: String) { commentCreate(input: {issueId: "ENG-4", body: "Reply", parentId: $p}) { comment { parent { id } } } }`, map[string]any{"p": root})
	if at(ok(t, r), "commentCreate", "comment", "parent", "id") != root {
		t.Fatalf("reply %v", r.Data)
	}

	// The issue reads back by id and by identifier, with its thread.
	r = gqlCall(t, w, `query($id: String!) { issue(id: $id) { identifier comments { nodes { body parent { id } } } } }`, map[string]any{"id": id})
	// The comments make it list_comments, the most specific read.
	if n := at(ok(t, r), "issue", "comments", "nodes").([]any); len(n) != 2 || r.tool != "list_comments" {
		t.Fatalf("comments %v (tool %s)", n, r.tool)
	}

	// A refused write changes nothing and says why, in Linear's envelope.
	r = gqlCall(t, w, `mutation { issueUpdate(id: "ENG-4", input: {stateId: "nope"}) { success } }`, nil)
	if len(r.Errors) != 1 || r.mut || at(r.Errors[0], "extensions", "type") != "invalid input" || r.tool != "save_issue" {
		t.Fatalf("refusal %+v", r)
	}
	r = gqlCall(t, w, `query { issue(id: "ENG-99") { id } }`, nil)
	if len(r.Errors) != 1 || !strings.Contains(at(r.Errors[0], "message").(string), "Entity not found") {
		t.Fatalf("missing issue %+v", r)
	}
}

func TestGraphQLFiltersAndPaging(t *testing.T) {
	w := defaultWorld(t)
	for i := range 5 {
		gqlCall(t, w, `mutation($t: String!) { issueCreate(input: {teamId: "`+w.findTeam("ENG").ID+`", title: $t}) { success } }`, map[string]any{"t": "Paged " + string(rune('a'+i))})
	}
	q := `query($f: IssueFilter, $after: String) { issues(filter: $f, first: 2, after: $after) { nodes { identifier title } pageInfo { hasNextPage endCursor } } }`
	var seen []string
	var after any
	for range 5 {
		d := ok(t, gqlCall(t, w, q, map[string]any{"f": map[string]any{"title": map[string]any{"startsWith": "Paged"}}, "after": after}))
		for _, n := range at(d, "issues", "nodes").([]any) {
			seen = append(seen, at(n, "identifier").(string))
		}
		if at(d, "issues", "pageInfo", "hasNextPage") != true {
			break
		}
		after = at(d, "issues", "pageInfo", "endCursor")
	}
	if strings.Join(seen, ",") != "ENG-8,ENG-7,ENG-6,ENG-5,ENG-4" {
		t.Fatalf("paged %v", seen)
	}
	cases := []struct {
		filter map[string]any
		want   string
	}{
		{map[string]any{"state": map[string]any{"name": map[string]any{"eq": "In Progress"}}}, "ENG-3"},
		{map[string]any{"labels": map[string]any{"name": map[string]any{"eqIgnoreCase": "bug"}}}, "ENG-1"},
		{map[string]any{"assignee": map[string]any{"email": map[string]any{"eq": "alice@acme.test"}}}, "ENG-3"},
		{map[string]any{"assignee": map[string]any{"null": true}, "priority": map[string]any{"lte": 3, "gt": 0}}, "ENG-2,ENG-1"},
		{map[string]any{"team": map[string]any{"key": map[string]any{"eq": "ENG"}}, "estimate": map[string]any{"eq": 2}}, "ENG-3"},
		{map[string]any{"or": []any{map[string]any{"number": map[string]any{"eq": 1}}, map[string]any{"number": map[string]any{"eq": 2}}}}, "ENG-2,ENG-1"},
		{map[string]any{"state": map[string]any{"type": map[string]any{"in": []string{"started", "completed"}}}}, "ENG-3"},
	}
	for _, c := range cases {
		d := ok(t, gqlCall(t, w, `query($f: IssueFilter) { issues(filter: $f) { nodes { identifier } } }`, map[string]any{"f": c.filter}))
		var got []string
		for _, n := range at(d, "issues", "nodes").([]any) {
			got = append(got, at(n, "identifier").(string))
		}
		if strings.Join(got, ",") != c.want {
			t.Errorf("filter %v: %v, want %s", c.filter, got, c.want)
		}
	}
	// A filter field the twin does not have is refused by name.
	r := gqlCall(t, w, `query { issues(filter: {sla: {null: true}}) { nodes { id } } }`, nil)
	if len(r.Errors) == 0 || !strings.Contains(at(r.Errors[0], "message").(string), "sla") {
		t.Fatalf("unknown filter field: %+v", r)
	}
}

// TestIntrospection answers the introspection queries GraphQL clients and
// agents send to learn the schema.
func TestIntrospection(t *testing.T) {
	w := defaultWorld(t)
	d := ok(t, gqlCall(t, w, `{ __schema { queryType { name } mutationType { name } } __type(name: "Issue") { fields { name } } }`, nil))
	if at(d, "__schema", "queryType", "name") != "Query" || at(d, "__schema", "mutationType", "name") != "Mutation" {
		t.Fatalf("schema %v", d)
	}
	var names []string
	for _, f := range at(d, "__type", "fields").([]any) {
		names = append(names, at(f, "name").(string))
	}
	for _, want := range []string{"identifier", "state", "labels", "estimate", "parent", "children", "comments"} {
		if !strings.Contains(","+strings.Join(names, ",")+",", ","+want+",") {
			t.Errorf("Issue lacks %s", want)
		}
	}
}
