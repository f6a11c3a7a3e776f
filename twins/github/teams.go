package github

import (
	"context"

	"github.com/pomehq/pome/twins"
)

// An organization's teams over REST (GET /orgs/{org}/teams and
// /orgs/{org}/teams/{team_slug}), which github-mcp-server's get_teams reads
// over GraphQL instead: actions of the twin's own naming. Members of the
// organization see its teams, as on GitHub (see World.team).

// APITeam is GitHub's team object.
type APITeam struct {
	ID                  int64   `json:"id"`
	NodeID              string  `json:"node_id"`
	URL                 string  `json:"url"`
	HTMLURL             string  `json:"html_url"`
	Name                string  `json:"name"`
	Slug                string  `json:"slug"`
	Description         *string `json:"description"`
	Privacy             string  `json:"privacy"`
	NotificationSetting string  `json:"notification_setting"`
	Permission          string  `json:"permission"`
	MembersURL          string  `json:"members_url"`
	RepositoriesURL     string  `json:"repositories_url"`
	// Parent is always null: the twin's teams are not nested.
	Parent *APITeamParent `json:"parent"`
}

// APITeamParent is a team's parent (a team object; a type of its own so
// the schema has no cycle).
type APITeamParent struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
	Slug string `json:"slug"`
}

func (v *view) team(o *Org, t *Team) APITeam {
	u := v.api + "/orgs/" + o.Login + "/teams/" + t.Slug
	return APITeam{ID: t.ID, NodeID: nodeID("T", t.ID), URL: u, HTMLURL: v.html + "/orgs/" + o.Login + "/teams/" + t.Slug,
		Name: t.Name, Slug: t.Slug, Description: strPtr(t.Description), Privacy: "closed",
		NotificationSetting: "notifications_enabled", Permission: "pull",
		MembersURL: u + "/members{/member}", RepositoriesURL: u + "/repos"}
}

// ListOrgTeamsIn is list_org_teams' input.
type ListOrgTeamsIn struct {
	Org string `json:"org" jsonschema:"Organization login"`
	Paging
}

var listOrgTeams = twins.New(twins.Spec{
	Name: "list_org_teams", Title: "List an organization's teams",
	Description: "List the teams of an organization the authenticated user belongs to.",
	Effect:      twins.Read,
	Bindings:    []twins.Binding{{Method: "GET", Path: "/orgs/{org}/teams", Rename: perPageRename, Shape: restShape, Headers: linkHeaders}},
}, func(ctx context.Context, w *World, in ListOrgTeamsIn) (*List[APITeam], error) {
	o := w.org(in.Org)
	if o == nil || !containsFold(o.Members, w.Me) {
		return nil, notFound("Could not resolve to an Organization with the login of '%s'.", in.Org)
	}
	v := newView(ctx, w)
	items := make([]APITeam, 0, len(o.Teams))
	for _, t := range o.Teams {
		items = append(items, v.team(o, t))
	}
	return newList(ctx, items, in.Paging, "/orgs/"+o.Login+"/teams", nil), nil
})

// GetTeamIn is get_team's input.
type GetTeamIn struct {
	Org      string `json:"org" jsonschema:"Organization login"`
	TeamSlug string `json:"team_slug" jsonschema:"Team slug"`
}

var getTeam = twins.New(twins.Spec{
	Name: "get_team", Title: "Get a team",
	Description: "Get one team of an organization by its slug.",
	Effect:      twins.Read,
	Bindings:    []twins.Binding{{Method: "GET", Path: "/orgs/{org}/teams/{team_slug}"}},
}, func(ctx context.Context, w *World, in GetTeamIn) (APITeam, error) {
	o, t, err := w.team(in.Org, in.TeamSlug)
	if err != nil {
		return APITeam{}, err
	}
	return newView(ctx, w).team(o, t), nil
})
