package github

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/pomehq/pome/twins"
)

// Organization teams, issue types and issue fields, and the pull request
// branch update: github-mcp-server default tools that read organizations
// (its context and issues toolsets) or move a pull request's head.

// TeamInfo is one team as get_teams answers it (github-mcp-server's shape).
type TeamInfo struct {
	Name        string `json:"name"`
	Slug        string `json:"slug"`
	Description string `json:"description"`
}

// OrganizationTeams is one organization's teams for get_teams.
type OrganizationTeams struct {
	Org   string     `json:"org"`
	Teams []TeamInfo `json:"teams"`
}

// GetTeamsIn is get_teams' input.
type GetTeamsIn struct {
	User string `json:"user,omitempty" jsonschema:"Username to get teams for. If not provided, uses the authenticated user."`
}

// teamsOf lists, per organization login visible to the authenticated user
// (those it belongs to), the teams login is a member of.
func (w *World) teamsOf(login string) []OrganizationTeams {
	out := []OrganizationTeams{}
	for _, o := range w.Orgs {
		if !containsFold(o.Members, w.Me) || !containsFold(o.Members, login) {
			continue
		}
		ot := OrganizationTeams{Org: o.Login, Teams: []TeamInfo{}}
		for _, t := range o.Teams {
			if containsFold(t.Members, login) {
				ot.Teams = append(ot.Teams, TeamInfo{Name: t.Name, Slug: t.Slug, Description: t.Description})
			}
		}
		out = append(out, ot)
	}
	return out
}

var getTeams = twins.New(twins.Spec{
	Name: "get_teams", Title: "Get teams",
	Description: "Get details of the teams the user is a member of. Limited to organizations accessible with current credentials",
	Effect:      twins.Read,
}, func(ctx context.Context, w *World, in GetTeamsIn) ([]OrganizationTeams, error) {
	login := in.User
	if login == "" {
		login = w.Me
	}
	if w.user(login) == nil {
		return nil, notFound("Could not resolve to a User with the login of '%s'.", login)
	}
	return w.teamsOf(login), nil
})

// GetTeamMembersIn is get_team_members' input.
type GetTeamMembersIn struct {
	Org      string `json:"org" jsonschema:"Organization login (owner) that contains the team."`
	TeamSlug string `json:"team_slug" jsonschema:"Team slug"`
}

// team returns an organization's team when the authenticated user belongs
// to the organization (team rosters are visible to members only).
func (w *World) team(org, slug string) (*Org, *Team, error) {
	o := w.org(org)
	if o == nil || !containsFold(o.Members, w.Me) {
		return nil, nil, notFound("Could not resolve to an Organization with the login of '%s'.", org)
	}
	for _, t := range o.Teams {
		if strings.EqualFold(t.Slug, slug) {
			return o, t, nil
		}
	}
	return o, nil, notFound("team %s/%s not found", org, slug)
}

var getTeamMembers = twins.New(twins.Spec{
	Name: "get_team_members", Title: "Get team members",
	Description: "Get member usernames of a specific team in an organization. Limited to organizations accessible with current credentials",
	Effect:      twins.Read,
	Bindings: []twins.Binding{{Method: "GET", Path: "/orgs/{org}/teams/{team_slug}/members",
		Shape: func(_, out any) any { return out.(*teamMembers).users }}},
}, func(ctx context.Context, w *World, in GetTeamMembersIn) (*teamMembers, error) {
	_, t, err := w.team(in.Org, in.TeamSlug)
	if err != nil {
		return nil, err
	}
	v := newView(ctx, w)
	return &teamMembers{Logins: slices.Clone(t.Members), users: v.users(t.Members)}, nil
})

// teamMembers is get_team_members' answer: logins over MCP (as
// github-mcp-server answers), user objects over REST.
type teamMembers struct {
	Logins []string `json:"members"`
	users  []APIUser
}

// APIIssueType is GitHub's issue type object.
type APIIssueType struct {
	ID          int64   `json:"id"`
	NodeID      string  `json:"node_id"`
	Name        string  `json:"name"`
	Description *string `json:"description"`
	Color       *string `json:"color"`
	IsEnabled   bool    `json:"is_enabled"`
	CreatedAt   string  `json:"created_at"`
	UpdatedAt   string  `json:"updated_at"`
}

func apiIssueType(t *IssueType) *APIIssueType {
	return &APIIssueType{
		ID: t.ID, NodeID: nodeID("IT", t.ID), Name: t.Name, Description: strPtr(t.Description), Color: strPtr(t.Color),
		IsEnabled: t.Enabled, CreatedAt: ts(t.CreatedAt), UpdatedAt: ts(t.CreatedAt),
	}
}

// ListIssueTypesIn is list_issue_types' input.
type ListIssueTypesIn struct {
	Owner string `json:"owner" jsonschema:"The account owner of the repository or organization."`
	Repo  string `json:"repo,omitempty" jsonschema:"The name of the repository. When provided, returns issue types for this specific repository. When omitted, returns org-level issue types directly."`
}

// issueTypeOwner finds the organization whose issue types or fields a call
// reads: the owner of a visible repository, or an organization. A user
// account has none (GitHub answers 404).
func (w *World) issueTypeOwner(owner, repo string) (*Org, error) {
	if repo != "" {
		r, err := w.repo(owner, repo)
		if err != nil {
			return nil, err
		}
		owner = r.Owner
	}
	o := w.org(owner)
	if o == nil {
		return nil, notFound("organization %s not found", owner)
	}
	return o, nil
}

var listIssueTypes = twins.New(twins.Spec{
	Name: "list_issue_types", Title: "List available issue types",
	Description: "List supported issue types for repository owner (organization), or for a specific repository when repo is provided.",
	Effect:      twins.Read,
	Bindings: []twins.Binding{
		{Method: "GET", Path: "/orgs/{org}/issue-types", Rename: map[string]string{"org": "owner"}, Shape: itemsShape},
		{Method: "GET", Path: "/repos/{owner}/{repo}/issue-types", Shape: itemsShape},
	},
}, func(ctx context.Context, w *World, in ListIssueTypesIn) (*List[APIIssueType], error) {
	o, err := w.issueTypeOwner(in.Owner, in.Repo)
	if err != nil {
		return nil, err
	}
	items := []APIIssueType{}
	for _, t := range o.IssueTypes {
		if in.Repo != "" && !t.Enabled {
			continue
		}
		items = append(items, *apiIssueType(t))
	}
	return &List[APIIssueType]{Items: items, TotalCount: len(items), Page: 1, PerPage: len(items)}, nil
})

// itemsShape sends a list's items as a bare array (GitHub's unpaginated
// lists).
func itemsShape(_, out any) any {
	if l, ok := out.(*List[APIIssueType]); ok {
		return l.Items
	}
	return out
}

// IssueField is one issue field as list_issue_fields answers it.
type IssueField struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description"`
	DataType    string `json:"data_type"`
	// Options are a single select field's.
	Options []IssueFieldOptionOut `json:"options,omitempty"`
}

// IssueFieldOptionOut is one option of a single select field.
type IssueFieldOptionOut struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Color       string `json:"color,omitempty"`
	Description string `json:"description,omitempty"`
}

// ListIssueFieldsIn is list_issue_fields' input.
type ListIssueFieldsIn struct {
	Owner string `json:"owner" jsonschema:"The account owner of the repository or organization. The name is not case sensitive."`
	Repo  string `json:"repo,omitempty" jsonschema:"The name of the repository. When provided, returns fields for this specific repository (inherited from its organization). When omitted, returns org-level fields directly."`
}

var listIssueFields = twins.New(twins.Spec{
	Name: "list_issue_fields", Title: "List issue fields",
	Description: "List the custom issue fields of an organization, or those a repository inherits from its organization.",
	Effect:      twins.Read,
}, func(ctx context.Context, w *World, in ListIssueFieldsIn) ([]IssueField, error) {
	o, err := w.issueTypeOwner(in.Owner, in.Repo)
	if err != nil {
		return nil, err
	}
	out := []IssueField{}
	for _, f := range o.IssueFields {
		x := IssueField{ID: strconv.FormatInt(f.ID, 10), Name: f.Name, Description: f.Description, DataType: strings.ToUpper(f.DataType)}
		for _, op := range f.Options {
			x.Options = append(x.Options, IssueFieldOptionOut{ID: strconv.FormatInt(op.ID, 10), Name: op.Name, Color: op.Color, Description: op.Description})
		}
		out = append(out, x)
	}
	return out, nil
})

// UpdatePullBranchIn is update_pull_request_branch's input.
type UpdatePullBranchIn struct {
	RepoRef
	PullNumber      int    `json:"pullNumber" jsonschema:"Pull request number"`
	ExpectedHeadSHA string `json:"expectedHeadSha,omitempty" jsonschema:"The expected SHA of the pull request's HEAD ref"`
}

// UpdatePullBranchOut is GitHub's 202 answer.
type UpdatePullBranchOut struct {
	Message string `json:"message"`
	URL     string `json:"url"`
}

var updatePullRequestBranch = twins.New(twins.Spec{
	Name: "update_pull_request_branch", Title: "Update pull request branch",
	Description: "Update the branch of a pull request with the latest changes from the base branch (a merge commit on the head branch).",
	Effect:      twins.Write,
	Bindings: []twins.Binding{{Method: "PUT", Path: pullPath + "/update-branch", Status: 202,
		Rename: map[string]string{"pull_number": "pullNumber", "expected_head_sha": "expectedHeadSha"}}},
}, func(ctx context.Context, w *World, in UpdatePullBranchIn) (UpdatePullBranchOut, error) {
	r, is, err := w.issueOf(in.Owner, in.Repo, in.PullNumber)
	if err != nil {
		return UpdatePullBranchOut{}, err
	}
	if is.Pull == nil {
		return UpdatePullBranchOut{}, notFound("pull request #%d not found", in.PullNumber)
	}
	p := is.Pull
	hb, bb := r.branch(p.Head), r.branch(p.Base)
	if p.Merged || is.State != "open" || hb == nil || bb == nil {
		return UpdatePullBranchOut{}, invalid("PullRequest", "pull_number", "invalid", "Pull request is not open").With("message", "Pull request is not open")
	}
	if in.ExpectedHeadSHA != "" && in.ExpectedHeadSHA != hb.SHA {
		return UpdatePullBranchOut{}, invalid("PullRequest", "expected_head_sha", "invalid", "expected head sha didn't match current head ref.").With("message", "expected head sha didn't match current head ref.")
	}
	if r.ancestors(hb.SHA)[bb.SHA] {
		return UpdatePullBranchOut{}, invalid("PullRequest", "base", "invalid", "There are no new commits on the base branch.").With("message", "There are no new commits on the base branch.")
	}
	tree, conflicts := r.threeWay(hb.SHA, bb.SHA)
	if len(conflicts) > 0 {
		return UpdatePullBranchOut{}, invalid("PullRequest", "head", "invalid", "merge conflict between base and head: %s", strings.Join(conflicts, ", ")).With("message", "merge conflict between base and head")
	}
	now := twins.EnvFrom(ctx).Now().UTC()
	c := r.addCommit(tree, []string{hb.SHA, bb.SHA}, fmt.Sprintf("Merge branch '%s' into %s", bb.Name, hb.Name), w.Me, now)
	hb.SHA, r.PushedAt, r.UpdatedAt, is.UpdatedAt = c.SHA, now, now, now
	return UpdatePullBranchOut{Message: "Updating pull request branch.", URL: fmt.Sprintf("https://github.com/%s/pull/%d", r.FullName(), is.Number)}, nil
})
