package github

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/pomehq/pome/twins"
	"github.com/pomehq/pome/twins/twinstest"
)

// An organization's teams and issue types come from the seed, and issue
// types are what issue_write's type (and a seeded issue's) may name.
func TestSeedTeamsAndIssueTypes(t *testing.T) {
	w := world(t, SeedExample)
	teams := mustCall(t, w, "get_teams", `{}`).Out.([]OrganizationTeams)
	if len(teams) != 1 || len(teams[0].Teams) != 1 || teams[0].Teams[0].Slug != "backend" || teams[0].Teams[0].Description != "Orders and billing" {
		t.Errorf("my teams: %+v", teams)
	}
	if m := mustCall(t, w, "get_team_members", `{"org":"acme","team_slug":"docs"}`).Out.(*teamMembers); strings.Join(m.Logins, ",") != "alice" {
		t.Errorf("docs members: %v", m.Logins)
	}
	types := mustCall(t, w, "list_issue_types", `{"owner":"acme","repo":"api"}`).Out.(*List[APIIssueType])
	if len(types.Items) != 2 || types.Items[0].Name != "Bug" || types.Items[1].Name != "Feature" {
		t.Errorf("enabled issue types: %+v", types.Items)
	}

	// The seeded issue has its type, as REST shows it.
	is := mustCall(t, w, "issue_read", `{"method":"get","owner":"acme","repo":"api","issue_number":1}`).Out.(APIIssue)
	if is.Type == nil || is.Type.Name != "Bug" || is.Type.NodeID != nodeID("IT", is.Type.ID) {
		t.Fatalf("seeded issue type: %+v", is.Type)
	}
	// issue_write sets it by name (any case), and an empty name removes it.
	out := mustCall(t, w, "issue_write", `{"method":"update","owner":"acme","repo":"api","issue_number":1,"type":"feature"}`)
	if got := out.Out.(APIIssue).Type; got == nil || got.Name != "Feature" {
		t.Errorf("after type feature: %+v", got)
	}
	if out := mustCall(t, w, "issue_write", `{"method":"update","owner":"acme","repo":"api","issue_number":1,"type":""}`); out.Out.(APIIssue).Type != nil {
		t.Errorf("after removing the type: %+v", out.Out.(APIIssue).Type)
	}
	// A type the organization lacks, or has disabled, is GitHub's 422; a
	// user's repository has no issue types at all.
	for _, args := range []string{
		`{"method":"update","owner":"acme","repo":"api","issue_number":1,"type":"Epic"}`,
		`{"method":"update","owner":"acme","repo":"api","issue_number":1,"type":"Task"}`,
		`{"method":"create","owner":"alice","repo":"dotfiles","title":"x","type":"Bug"}`,
	} {
		if e := wantErr(t, w, "issue_write", args, twins.Unprocessable, "invalid"); e.Field != "type" {
			t.Errorf("%s: field %q", args, e.Field)
		}
	}
}

func TestSeedTeamAndIssueTypeErrors(t *testing.T) {
	org := func(extra, issue string) string {
		return `{"users":[{"login":"ann"},{"login":"ben"}],"orgs":[{"login":"acme","members":["ann"]` + extra + `}],
		"repos":[{"owner":"acme","name":"r","issues":[{"title":"t"` + issue + `}]}]}`
	}
	cases := []struct{ name, seed, path, msg string }{
		{"team member outside the org", org(`,"teams":[{"name":"Core","members":["ben"]}]`, ""), "/orgs/0/teams/0/members/0", "not a member"},
		{"team without a name", org(`,"teams":[{"members":["ann"]}]`, ""), "/orgs/0/teams/0/name", "needs a name"},
		{"duplicate team", org(`,"teams":[{"name":"Core"},{"name":"core"}]`, ""), "/orgs/0/teams/1/name", "duplicate team"},
		{"bad slug", org(`,"teams":[{"name":"Core","slug":"Core Team"}]`, ""), "/orgs/0/teams/0/slug", "invalid team slug"},
		{"duplicate issue type", org(`,"issue_types":[{"name":"Bug"},{"name":"bug"}]`, ""), "/orgs/0/issue_types/1/name", "duplicate issue type"},
		{"unknown issue type", org(`,"issue_types":[{"name":"Bug"}]`, `,"type":"Epic"`), "/repos/0/issues/0/type", "no enabled issue type"},
		{"disabled issue type", org(`,"issue_types":[{"name":"Epic","enabled":false}]`, `,"type":"Epic"`), "/repos/0/issues/0/type", "no enabled issue type"},
		{"issue field type", org(`,"issue_fields":[{"name":"Size","data_type":"tshirt"}]`, ""), "/orgs/0/issue_fields/0/data_type", "single_select"},
		{"select without options", org(`,"issue_fields":[{"name":"Size","data_type":"single_select"}]`, ""), "/orgs/0/issue_fields/0/options", "needs options"},
		{"unknown field", org(`,"issue_fields":[{"name":"Size","data_type":"number"}]`, `,"field_values":{"Weight":1}`), "/repos/0/issues/0/field_values/Weight", "no issue field"},
		{"wrong value", org(`,"issue_fields":[{"name":"Size","data_type":"number"}]`, `,"field_values":{"Size":"big"}`), "/repos/0/issues/0/field_values/Size", "takes a number"},
		{"unknown option", org(`,"issue_fields":[{"name":"Size","data_type":"single_select","options":[{"name":"S"}]}]`, `,"field_values":{"Size":"XL"}`), "/repos/0/issues/0/field_values/Size", "no option"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := New().NewWorld(twins.WithEnv(context.Background(), twinstest.Env("github")), json.RawMessage(c.seed))
			var se *twins.SeedError
			if !errors.As(err, &se) {
				t.Fatalf("want SeedError, got %v", err)
			}
			if se.Path != c.path || !strings.Contains(se.Message, c.msg) {
				t.Errorf("got %q: %s\nwant %q: …%s…", se.Path, se.Message, c.path, c.msg)
			}
		})
	}
	// A name's slug is GitHub's: lower case, other characters as "-".
	w := world(t, org(`,"teams":[{"name":"Platform & Infra","members":["ann"]}]`, ""))
	if got := w.org("acme").Teams[0].Slug; got != "platform-infra" {
		t.Errorf("slug %q", got)
	}
}
