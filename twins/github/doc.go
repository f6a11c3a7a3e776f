// Package github is the GitHub twin: a stateful imitation of GitHub's REST
// API (the paths go-github and octokit call) and of github/github-mcp-server's
// tools, served from one list of actions (Actions). REST paths the twin
// does not bind answer GitHub's 404 with Pome's explanation (RESTError).
//
// # World
//
// World holds users, organizations and repositories; a repository holds its
// git history (commits are whole-tree snapshots, blobs keyed by git's blob
// sha), branches, tags, releases, labels, collaborators, milestones, issues
// and pull requests (one number sequence), statuses and check runs. The
// world is also the state document, so check evidence points into it.
//
// Without a seed the world is SPEC §9's: organization acme; users alice, bob
// and pome-agent (the authenticated user); repository acme/api with default
// branch main holding README.md, labels bug, feature and question,
// collaborators alice, bob and pome-agent; and issue #1 "500 error on POST
// /orders after deploy", open, unassigned, unlabeled, without comments.
//
// # Seed
//
// A seed is decoded strictly: an unknown key, a wrong type or a broken
// reference (a label the repository does not define, an assignee who is not
// a collaborator, a branch that does not exist, a user nobody declared) is
// an error whose path is a JSON pointer into the seed, e.g.
// /repos/0/issues/0/labels/1. Keys, all optional unless marked:
//
//   - clock: RFC 3339 time stamped on seeded objects.
//   - me: the authenticated login (default pome-agent; added to users).
//   - users[]: login (required), name, email, bio, company, location.
//   - orgs[]: login (required), name, description, members[] (users),
//     teams[] {name (required), slug, description, members[] (members of
//     the organization)}, issue_types[] {name (required), description,
//     color, enabled (default true)}, issue_fields[] {name (required),
//     data_type (text, number, date or single_select; required),
//     description, options[] {name, color, description} (single_select
//     only)}.
//   - repos[]: owner (a user or org, required), name (required),
//     description, private, default_branch (main), topics[],
//     files {path: text} on the default branch,
//     branches[] {name, from, message, files {path: text or null}, protected},
//     labels[] {name, color, description}, collaborators[] (users),
//     milestones[] {number, title, description, state, due_on},
//     issues[] {number, title, body, state, state_reason, user, labels[],
//     assignees[], milestone, locked, comments[] {user, body, created_at},
//     created_at, type (an enabled issue type of the owning organization),
//     field_values {field name: value} (the organization's issue fields)},
//     pulls[] {number, title, body, state (open|closed|merged), user, head,
//     base, draft, labels[], assignees[], milestone, requested_reviewers[],
//     reviews[] {user, state, body}, comments[], created_at},
//     statuses[] {ref, state, context, description, target_url},
//     check_runs[] {ref, name, status, conclusion}, tags[] {name, ref},
//     releases[] {tag_name, name, body, draft, prerelease}.
//
// Issues and pull requests share numbers; a missing number takes the next
// free one. Authors default to me. A pull request in state merged is merged
// at seed time, so its base branch holds the head's files.
//
// A seed with repositories[] (or _meta) is the original Pome's sidecar
// format instead, translated into this one (seed_original.go; the
// original's checks are in checks_original.go, and FIDELITY.md describes
// both).
//
// Example (SeedExample holds a complete one):
//
//	{
//	  "clock": "2026-01-05T09:00:00Z",
//	  "users": [{"login": "alice"}, {"login": "bob"}],
//	  "orgs": [{"login": "acme", "members": ["alice", "bob"]}],
//	  "repos": [{
//	    "owner": "acme", "name": "api",
//	    "files": {"README.md": "# api\n"},
//	    "branches": [{"name": "fix-orders", "files": {"orders.go": "package api\n"}}],
//	    "labels": [{"name": "bug", "color": "d73a4a"}],
//	    "collaborators": ["alice", "bob", "pome-agent"],
//	    "issues": [{"number": 1, "title": "500 on POST /orders", "user": "alice",
//	                "labels": ["bug"], "assignees": ["bob"],
//	                "comments": [{"user": "bob", "body": "Looking."}]}],
//	    "pulls": [{"title": "Fix orders", "head": "fix-orders", "user": "bob",
//	               "reviews": [{"user": "alice", "state": "APPROVED"}]}],
//	    "statuses": [{"ref": "fix-orders", "context": "ci/build", "state": "success"}]
//	  }]
//	}
//
// # GraphQL
//
// POST …/graphql and /api/graphql (Twin.GraphQL) run GitHub's GraphQL API on
// the same world, with github.com/graph-gophers/graphql-go: the schema is a
// subset of GitHub's own SDL (gql_schema.graphql) and the resolvers are
// plain methods the library checks against it when the twin is built, with
// no generated code to keep in step (gqlgen's way). Resolvers are in this
// package (gql*.go) because they read through the one checked repository
// lookup (World.repo) and write only by running the twin's actions, through
// twins/gqlbind, which binds every twin's GraphQL to its actions the same
// way and tapes a request with the tool of the action it performed.
//
// # Search
//
// GET /search/{issues,repositories,code,users,commits} and the search_*
// tools share one query language (search.go): free words AND-ed as
// case-insensitive substrings, "quoted phrases", qualifiers (repo:, org:,
// user:, is:, label:, assignee:, author:, in:, created:, …) and negation
// with - or NOT. A query naming a repository or account that does not
// exist is GitHub's 422. FIDELITY.md lists what differs from GitHub.
//
// # MCP answers
//
// Over MCP each tool answers as github-mcp-server does, while REST keeps
// GitHub's full objects: trimmed objects (its "minimal" forms), a file's
// text as an embedded resource, {id, url} or a status line for writes,
// and the fields selection of its list and search tools. The forms are
// derived from each action's output in one place, mcp_output.go
// (twins.Spec.MCP); FIDELITY.md says how they were compared with
// github-mcp-server and what still differs.
//
// # Vendor behaviours kept on purpose
//
// Labels an issue edit names but the repository lacks are created (so
// github.no-new-labels can notice); issue create/edit answers 422 for an
// assignee who is not a collaborator while POST …/assignees silently drops
// them; errors use GitHub's envelope {message, errors, documentation_url,
// status}.
package github
