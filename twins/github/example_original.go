package github

// SeedExampleOriginal is a complete seed in the original Pome's format (its
// `.seed.json` sidecars), exercising every key that format has; `pome twins
// github --seed-example --format original` prints it, and a test keeps it
// loading. "dmitri" is named only as a collaborator and author, so the
// account is created as the original creates it.
const SeedExampleOriginal = `{
  "_meta": {"version": 1, "source_hash": "sha256:example", "model": "hand-authored", "compiled_at": "2026-01-05T09:00:00.000Z"},
  "users": [
    {"login": "lumen", "type": "Organization", "name": "Lumen Labs"},
    {"login": "priya", "type": "User", "name": "Priya Raman"},
    {"login": "tomas", "name": "Tomas Berg"}
  ],
  "repositories": [
    {
      "owner": "lumen",
      "name": "ledger",
      "description": "Double-entry bookkeeping service",
      "private": false,
      "default_branch": "main",
      "collaborators": ["priya", "tomas", "dmitri"],
      "labels": [
        {"name": "bug", "color": "d73a4a", "description": "Something is not working"},
        {"name": "enhancement", "color": "a2eeef", "description": "New feature or request"},
        {"name": "needs-triage"}
      ],
      "files": [
        {"path": "README.md", "content": "# ledger\n\nPostings and balances.\n"},
        {"path": "src/posting.ts", "content": "export function post(amount: number) {\n  return amount;\n}\n", "branch": "main"},
        {"path": "src/posting.ts", "content": "export function post(amount: number) {\n  if (amount === 0) throw new Error('empty posting');\n  return amount;\n}\n", "branch": "reject-empty-postings"},
        {"path": "docs/README.md", "renamed_from": "README.md", "branch": "move-readme"}
      ],
      "milestones": [
        {"number": 1, "title": "Q1 close", "description": "Quarter-end close", "state": "open", "due_on": "2026-03-31T00:00:00Z"}
      ],
      "tags": [{"name": "v0.3.0", "target": "main"}],
      "releases": [
        {"tag_name": "v0.3.0", "name": "v0.3.0", "body": "Balances endpoint", "draft": false, "prerelease": false, "author": "priya"},
        {"tag_name": "v0.4.0-rc.1", "name": "v0.4.0 rc1", "body": "Empty postings rejected", "target_commitish": "reject-empty-postings", "draft": true, "prerelease": true}
      ],
      "issues": [
        {"number": 1, "title": "Zero-amount postings are accepted", "body": "POST /postings with amount 0 returns 201.",
         "state": "open", "author": "tomas", "labels": ["needs-triage"], "assignees": [],
         "comments": [{"body": "Seen on staging too.", "author": "dmitri"}, {"body": "Triage bot: queued."}]},
        {"number": 2, "title": "Export balances as CSV", "state": "closed", "labels": ["enhancement"], "assignee": "priya"}
      ],
      "pull_requests": [
        {"number": 3, "title": "Reject empty postings", "body": "Fixes #1", "head": "reject-empty-postings", "base": "main",
         "state": "open", "author": "dmitri",
         "reviews": [{"author": "priya", "state": "CHANGES_REQUESTED", "body": "Needs a test for negative amounts."}],
         "statuses": [{"context": "ci/test", "state": "failure", "description": "1 failing"}, {"state": "pending"}],
         "comments": [{"body": "Rebased on main.", "author": "dmitri"}],
         "review_comments": [{"body": "Use a typed error here.", "path": "src/posting.ts", "line": 2, "side": "RIGHT", "author": "priya"}]},
        {"title": "Move the README under docs/", "head": "move-readme", "state": "closed"}
      ]
    },
    {
      "owner": "priya",
      "name": "notes",
      "private": true,
      "files": [{"path": "todo.md", "content": "- close Q1\n"}]
    }
  ]
}`
