package github

import (
	"context"

	"github.com/pomehq/pome/twins"
)

// tokenScopes are the OAuth scopes GitHub reports for a classic personal
// access token (the ghp_ token) with the scopes github-mcp-server's tools
// ask for; github-mcp-server reads them from HEAD /api/v3/ to decide which
// tools it offers.
const tokenScopes = "gist, notifications, project, read:org, read:packages, repo, user, workflow"

// APIRoot is GitHub's API root document: URL templates of its main
// resources.
type APIRoot struct {
	CurrentUserURL      string `json:"current_user_url"`
	RepositoryURL       string `json:"repository_url"`
	OrganizationURL     string `json:"organization_url"`
	UserURL             string `json:"user_url"`
	IssueSearchURL      string `json:"issue_search_url"`
	RepositorySearchURL string `json:"repository_search_url"`
	CodeSearchURL       string `json:"code_search_url"`
	UserSearchURL       string `json:"user_search_url"`
	RateLimitURL        string `json:"rate_limit_url"`
}

// EmptyIn is the input of an action without arguments.
type EmptyIn struct{}

var getAPIRoot = twins.New(twins.Spec{
	Name: "get_api_root", Title: "Get the API root",
	Description: "GitHub's API root: URL templates of its main resources. Clients send HEAD to it to read the token's scopes (X-OAuth-Scopes).",
	Effect:      twins.Read,
	// HEAD is served by the GET binding, as for every GET route.
	Bindings: []twins.Binding{{Method: "GET", Path: "/", Headers: scopeHeaders}},
}, func(ctx context.Context, w *World, _ EmptyIn) (APIRoot, error) {
	api := newView(ctx, w).api
	return APIRoot{
		CurrentUserURL: api + "/user", RepositoryURL: api + "/repos/{owner}/{repo}",
		OrganizationURL: api + "/orgs/{org}", UserURL: api + "/users/{user}",
		IssueSearchURL:      api + "/search/issues?q={query}{&page,per_page,sort,order}",
		RepositorySearchURL: api + "/search/repositories?q={query}{&page,per_page,sort,order}",
		CodeSearchURL:       api + "/search/code?q={query}{&page,per_page,sort,order}",
		UserSearchURL:       api + "/search/users?q={query}{&page,per_page,sort,order}",
		RateLimitURL:        api + "/rate_limit",
	}, nil
})

func scopeHeaders(_, _ any) [][2]string {
	return [][2]string{{"X-OAuth-Scopes", tokenScopes}, {"X-Accepted-OAuth-Scopes", ""}}
}
