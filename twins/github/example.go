package github

// SeedExample is a complete seed that exercises every key of the seed
// format; `pome twins github --seed-example` can print it, and a test keeps
// it valid.
const SeedExample = `{
  "clock": "2026-01-05T09:00:00Z",
  "me": "pome-agent",
  "users": [
    {"login": "alice", "name": "Alice Liddell", "email": "alice@acme.test"},
    {"login": "bob", "name": "Bob Builder"},
    {"login": "carol", "name": "Carol Outsider"},
    {"login": "pome-agent", "name": "Pome Agent"}
  ],
  "orgs": [
    {"login": "acme", "name": "Acme", "description": "Acme Corp", "members": ["alice", "bob", "pome-agent"],
     "teams": [{"name": "Backend", "description": "Orders and billing", "members": ["bob", "pome-agent"]},
               {"name": "Docs Team", "slug": "docs", "members": ["alice"]}],
     "issue_types": [{"name": "Bug", "description": "An unexpected problem", "color": "red"},
                     {"name": "Feature", "color": "blue"},
                     {"name": "Task", "enabled": false}],
     "issue_fields": [{"name": "Priority", "data_type": "single_select",
                       "options": [{"name": "P1", "color": "red"}, {"name": "P2", "color": "orange"}]},
                      {"name": "Estimate", "data_type": "number", "description": "Days of work"},
                      {"name": "Due", "data_type": "date"}, {"name": "Notes", "data_type": "text"}]}
  ],
  "repos": [
    {
      "owner": "acme",
      "name": "api",
      "description": "Acme orders API",
      "default_branch": "main",
      "topics": ["orders", "api"],
      "files": {
        "README.md": "# api\n\nThe Acme orders API.\n",
        "orders.go": "package api\n\nfunc CreateOrder() error { return nil }\n"
      },
      "branches": [
        {"name": "fix-orders", "from": "main", "message": "Fix order creation",
         "files": {"orders.go": "package api\n\nfunc CreateOrder() error { return validate() }\n"}},
        {"name": "docs", "files": {"docs/usage.md": "Usage\n", "README.md": null}}
      ],
      "labels": [
        {"name": "bug", "color": "d73a4a", "description": "Something isn't working"},
        {"name": "feature", "color": "a2eeef"},
        {"name": "question", "color": "d876e3"}
      ],
      "collaborators": ["alice", "bob", "pome-agent"],
      "milestones": [
        {"number": 1, "title": "v1.0", "description": "First release", "state": "open", "due_on": "2026-02-01T00:00:00Z"}
      ],
      "issues": [
        {"number": 1, "title": "500 error on POST /orders after deploy", "body": "Every POST /orders fails.",
         "user": "alice", "labels": ["bug"], "assignees": ["bob"], "milestone": 1, "type": "Bug",
         "field_values": {"Priority": "P1", "Estimate": 3},
         "comments": [{"user": "bob", "body": "Looking into it."}]},
        {"number": 2, "title": "How do I page through orders?", "user": "carol", "state": "closed", "state_reason": "completed",
         "labels": ["question"]}
      ],
      "pulls": [
        {"number": 3, "title": "Fix order creation", "body": "Fixes #1", "user": "bob", "head": "fix-orders", "base": "main",
         "requested_reviewers": ["alice"], "reviews": [{"user": "alice", "state": "COMMENTED", "body": "Looks close."}],
         "comments": [{"user": "alice", "body": "Can you add a test?"}]},
        {"number": 4, "title": "Docs", "user": "alice", "head": "docs", "state": "merged"}
      ],
      "statuses": [{"ref": "fix-orders", "state": "success", "context": "ci/build", "description": "Build passed"}],
      "check_runs": [{"ref": "fix-orders", "name": "tests", "conclusion": "success"}],
      "tags": [{"name": "v0.9.0", "ref": "main"}],
      "releases": [{"tag_name": "v0.9.0", "name": "v0.9.0", "body": "Beta"}]
    },
    {"owner": "alice", "name": "dotfiles", "files": {"vimrc": "set nocompatible\n"}}
  ]
}`
