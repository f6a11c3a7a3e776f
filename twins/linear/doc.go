// Package linear is the Linear twin: Linear's GraphQL API at
// {api_url}/graphql (and /graphql at the server root, the lin_api_ key
// naming the sandbox), served from one list of actions whose MCP names and
// parameters are those of Linear's MCP server (list_issues, get_issue,
// save_issue, save_comment, list_issue_statuses, create_issue_label, …).
//
// The world is a Linear workspace: teams with keys that number their
// issues (ENG-1), a workflow of typed states per team, team and workspace
// labels, users, projects, cycles, issues with priorities, estimates,
// parents and relations, threaded comments and documents (world.go). Seeds
// come in our format and in the original Pome's (seed.go,
// seed_original.go).
//
// GraphQL (gql*.go) is a subset of Linear's own schema served with
// github.com/graph-gophers/graphql-go and bound to the twin's actions by
// twins/gqlbind, as the GitHub twin's is; mutations run the MCP tools'
// actions, so a request is taped with the name of the tool that does the
// same thing. FIDELITY.md says where the twin differs
// from Linear.
package linear
