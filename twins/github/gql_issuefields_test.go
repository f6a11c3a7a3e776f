// An organization's issue fields over GraphQL, as github-mcp-server's
// list_issue_fields, list_issues (field_filters) and issue_read read them,
// and their values written over REST, as its issue_write writes them.

package github_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/shurcooL/githubv4"

	"github.com/pomehq/pome/rest/resttest"
	"github.com/pomehq/pome/twins/github"
)

type fieldCommon struct {
	ID             githubv4.ID
	FullDatabaseID githubv4.String `graphql:"fullDatabaseId"`
	Name           githubv4.String
	DataType       githubv4.String
	Visibility     githubv4.String
}

// fieldNode is one member of the IssueFields union, asked per type as
// githubv4 must.
type fieldNode struct {
	TypeName githubv4.String `graphql:"__typename"`
	Text     fieldCommon     `graphql:"... on IssueFieldText"`
	Number   fieldCommon     `graphql:"... on IssueFieldNumber"`
	Date     fieldCommon     `graphql:"... on IssueFieldDate"`
	Select   struct {
		fieldCommon
		Options []struct {
			ID    githubv4.ID
			Name  githubv4.String
			Color githubv4.String
		}
	} `graphql:"... on IssueFieldSingleSelect"`
}

type fieldRef struct {
	Date struct {
		Name githubv4.String
	} `graphql:"... on IssueFieldDate"`
	Number struct {
		Name githubv4.String
	} `graphql:"... on IssueFieldNumber"`
	SingleSelect struct {
		Name githubv4.String
	} `graphql:"... on IssueFieldSingleSelect"`
	Text struct {
		Name githubv4.String
	} `graphql:"... on IssueFieldText"`
}

type fieldValueNode struct {
	TypeName  string `graphql:"__typename"`
	DateValue struct {
		Field fieldRef
		Value githubv4.String
	} `graphql:"... on IssueFieldDateValue"`
	NumberValue struct {
		Field fieldRef
		Value githubv4.Float `graphql:"valueNumber: value"`
	} `graphql:"... on IssueFieldNumberValue"`
	SingleSelectValue struct {
		Field fieldRef
		Value githubv4.String
	} `graphql:"... on IssueFieldSingleSelectValue"`
	TextValue struct {
		Field fieldRef
		Value githubv4.String
	} `graphql:"... on IssueFieldTextValue"`
}

// IssueFieldValueFilter is the variable type github-mcp-server declares.
type IssueFieldValueFilter struct {
	FieldName               githubv4.String  `json:"fieldName"`
	TextValue               *githubv4.String `json:"textValue,omitempty"`
	NumberValue             *githubv4.Float  `json:"numberValue,omitempty"`
	SingleSelectOptionValue *githubv4.String `json:"singleSelectOptionValue,omitempty"`
}

func TestGraphQLIssueFields(t *testing.T) {
	env := resttest.Start(t, github.New(), github.SeedExample)
	ctx := context.Background()
	c := gqlClient(env)
	rc := rootClient(t, env, env.Token)

	// list_issue_fields for a repository.
	var fq struct {
		Repository struct {
			IssueFields struct{ Nodes []fieldNode } `graphql:"issueFields(first: 100)"`
		} `graphql:"repository(owner: $owner, name: $name)"`
	}
	if err := c.Query(ctx, &fq, map[string]any{"owner": githubv4.String("acme"), "name": githubv4.String("api")}); err != nil {
		t.Fatal(err)
	}
	ids := map[string]int64{}
	for _, n := range fq.Repository.IssueFields.Nodes {
		var f fieldCommon
		switch n.TypeName {
		case "IssueFieldText":
			f = n.Text
		case "IssueFieldNumber":
			f = n.Number
		case "IssueFieldDate":
			f = n.Date
		case "IssueFieldSingleSelect":
			f = n.Select.fieldCommon
			if len(n.Select.Options) != 2 || n.Select.Options[0].Name != "P1" || n.Select.Options[0].Color != "RED" {
				t.Errorf("options: %+v", n.Select.Options)
			}
		}
		id, err := strconv.ParseInt(string(f.FullDatabaseID), 10, 64)
		if err != nil || f.Visibility != "ALL" {
			t.Fatalf("field %+v", f)
		}
		ids[string(f.Name)] = id
	}
	if len(ids) != 4 || ids["Priority"] == 0 || ids["Estimate"] == 0 {
		t.Fatalf("fields: %v", ids)
	}

	// issue_write's issue_fields first resolve names to ids, options too.
	var meta struct {
		Repository struct {
			IssueFields struct {
				Nodes []struct {
					Select struct {
						FullDatabaseID githubv4.String `graphql:"fullDatabaseId"`
						Name           githubv4.String
						Options        []struct {
							FullDatabaseID githubv4.String `graphql:"fullDatabaseId"`
							Name           githubv4.String
						}
					} `graphql:"... on IssueFieldSingleSelect"`
				}
			} `graphql:"issueFields(first: 100)"`
		} `graphql:"repository(owner: $owner, name: $repo)"`
	}
	if err := c.Query(ctx, &meta, map[string]any{"owner": githubv4.String("acme"), "repo": githubv4.String("api")}); err != nil {
		t.Fatal(err)
	}
	if o := meta.Repository.IssueFields.Nodes[0].Select.Options; len(o) != 2 || o[1].Name != "P2" || o[1].FullDatabaseID == "" {
		t.Errorf("options with ids: %+v", meta.Repository.IssueFields.Nodes[0])
	}

	// list_issues with field_filters.
	type issuesQ struct {
		Repository struct {
			Issues struct {
				Nodes []struct {
					Number           githubv4.Int
					IssueFieldValues struct{ Nodes []fieldValueNode } `graphql:"issueFieldValues(first: 25)"`
				}
			} `graphql:"issues(first: $first, states: $states, filterBy: {issueFieldValues: $issueFieldValues})"`
		} `graphql:"repository(owner: $owner, name: $repo)"`
	}
	list := func(f ...IssueFieldValueFilter) issuesQ {
		t.Helper()
		var q issuesQ
		if f == nil {
			f = []IssueFieldValueFilter{}
		}
		if err := c.Query(ctx, &q, map[string]any{"owner": githubv4.String("acme"), "repo": githubv4.String("api"), "first": githubv4.Int(30),
			"states": []githubv4.IssueState{githubv4.IssueStateOpen, githubv4.IssueStateClosed}, "issueFieldValues": f}); err != nil {
			t.Fatal(err)
		}
		return q
	}
	p1, p2, three := githubv4.String("p1"), githubv4.String("P2"), githubv4.Float(3)
	if q := list(IssueFieldValueFilter{FieldName: "priority", SingleSelectOptionValue: &p1}); len(q.Repository.Issues.Nodes) != 1 || q.Repository.Issues.Nodes[0].Number != 1 {
		t.Errorf("Priority P1: %+v", q.Repository.Issues.Nodes)
	} else if v := q.Repository.Issues.Nodes[0].IssueFieldValues.Nodes; len(v) != 2 || v[0].SingleSelectValue.Value != "P1" || v[0].SingleSelectValue.Field.SingleSelect.Name != "Priority" || v[1].NumberValue.Value != 3 {
		t.Errorf("issue 1's values: %+v", v)
	}
	if q := list(IssueFieldValueFilter{FieldName: "Priority", SingleSelectOptionValue: &p2}); len(q.Repository.Issues.Nodes) != 0 {
		t.Errorf("Priority P2: %+v", q.Repository.Issues.Nodes)
	}
	if q := list(IssueFieldValueFilter{FieldName: "Estimate", NumberValue: &three}, IssueFieldValueFilter{FieldName: "Nope", TextValue: &p1}); len(q.Repository.Issues.Nodes) != 0 {
		t.Errorf("a field the organization lacks matched: %+v", q.Repository.Issues.Nodes)
	}
	if q := list(); len(q.Repository.Issues.Nodes) != 2 {
		t.Errorf("no filter: %d issues", len(q.Repository.Issues.Nodes))
	}

	// issue_write's issue_fields arrive as REST's issue_field_values.
	patch := func(body string) (int, map[string]any) {
		t.Helper()
		code, b := env.Do(t, http.MethodPatch, "/repos/acme/api/issues/2", "application/json", []byte(body))
		var out map[string]any
		json.Unmarshal(b, &out)
		return code, out
	}
	est, due := strconv.FormatInt(ids["Estimate"], 10), strconv.FormatInt(ids["Due"], 10)
	code, out := patch(`{"issue_field_values":[{"field_id":` + est + `,"value":5},{"field_id":` + due + `,"value":"2026-03-01"}]}`)
	if code != http.StatusOK {
		t.Fatalf("set values: %d %v", code, out)
	}
	vals, _ := out["issue_field_values"].([]any)
	if len(vals) != 2 || vals[0].(map[string]any)["value"] != 5.0 || vals[1].(map[string]any)["data_type"] != "date" {
		t.Errorf("REST values: %v", out["issue_field_values"])
	}
	// A value of the wrong kind, or a field the organization lacks, is a
	// 422 that changes nothing.
	for _, bad := range []string{
		`{"title":"changed","issue_field_values":[{"field_id":` + est + `,"value":"soon"}]}`,
		`{"title":"changed","issue_field_values":[{"field_id":1,"value":"x"}]}`,
	} {
		if code, out := patch(bad); code != http.StatusUnprocessableEntity {
			t.Errorf("%s: %d %v", bad, code, out)
		}
	}
	is, _, err := rc.Issues.Get(ctx, "acme", "api", 2)
	if err != nil || is.GetTitle() == "changed" {
		t.Fatalf("a refused write changed the issue: %v %q", err, is.GetTitle())
	}
	// The values are set as a whole, as on GitHub: what is not listed is
	// cleared.
	if code, out := patch(`{"issue_field_values":[{"field_id":` + est + `,"value":5}]}`); code != http.StatusOK || len(out["issue_field_values"].([]any)) != 1 {
		t.Errorf("set one: %d %v", code, out["issue_field_values"])
	}
	var one struct {
		Repository struct {
			Issue struct {
				IssueFieldValues struct{ Nodes []fieldValueNode } `graphql:"issueFieldValues(first: 25)"`
			} `graphql:"issue(number: $number)"`
		} `graphql:"repository(owner: $owner, name: $repo)"`
	}
	if err := c.Query(ctx, &one, map[string]any{"owner": githubv4.String("acme"), "repo": githubv4.String("api"), "number": githubv4.Int(2)}); err != nil {
		t.Fatal(err)
	}
	if v := one.Repository.Issue.IssueFieldValues.Nodes; len(v) != 1 || v[0].TypeName != "IssueFieldNumberValue" || v[0].NumberValue.Value != 5 || v[0].NumberValue.Field.Number.Name != "Estimate" {
		t.Errorf("issue 2's values over GraphQL: %+v", v)
	}

	// The last value is cleared with DELETE …/issue-field-values/{id}.
	if code, _ := env.Do(t, http.MethodDelete, "/repos/acme/api/issues/2/issue-field-values/"+est, "", nil); code != http.StatusNoContent {
		t.Errorf("delete: %d", code)
	}
	if code, _ := env.Do(t, http.MethodDelete, "/repos/acme/api/issues/2/issue-field-values/"+est, "", nil); code != http.StatusNotFound {
		t.Errorf("delete again: %d", code)
	}
	if code, b := env.Do(t, http.MethodGet, "/repos/acme/api/issues/2", "", nil); code != http.StatusOK || strings.Contains(string(b), "issue_field_values") {
		t.Errorf("after delete: %d %s", code, b)
	}
	if got := tapeTools(t, env, len(waitRows(t, env, 1))); !strings.HasSuffix(got, "issue_read,delete_issue_field_value,delete_issue_field_value,issue_read") {
		t.Errorf("tape ends %s", got)
	}
}
