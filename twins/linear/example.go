package linear

// SeedExample is a complete seed in our format that exercises every key;
// `pome twins linear --seed-example` prints it, and a test keeps it valid.
const SeedExample = `{
  "clock": "2026-03-02T09:00:00Z",
  "workspace": {"name": "Acme", "url_key": "acme"},
  "viewer": "pome-agent@acme.test",
  "users": [
    {"email": "pome-agent@acme.test", "name": "Pome Agent", "display_name": "pome-agent", "admin": true},
    {"email": "alice@acme.test", "name": "Alice Liddell", "display_name": "alice"},
    {"email": "bob@acme.test", "name": "Bob Builder", "display_name": "bob", "active": true},
    {"email": "triage-bot@acme.test", "name": "Triage Bot", "app": true}
  ],
  "labels": [
    {"name": "Bug", "color": "#eb5757", "description": "Something is broken"},
    {"name": "Area", "is_group": true},
    {"name": "Backend", "parent": "Area"}
  ],
  "teams": [
    {
      "key": "ENG", "name": "Engineering", "description": "Builds the product",
      "states": [
        {"name": "Backlog", "type": "backlog"},
        {"name": "Todo", "type": "unstarted"},
        {"name": "In Progress", "type": "started", "color": "#f2c94c"},
        {"name": "Done", "type": "completed"},
        {"name": "Canceled", "type": "canceled", "position": 9}
      ],
      "labels": [{"name": "Needs triage", "color": "#f2994a"}],
      "cycles": [{"number": 1, "name": "Sprint 1", "starts_at": "2026-02-23T00:00:00Z", "ends_at": "2026-03-09T00:00:00Z"}]
    },
    {"key": "OPS", "name": "Operations", "private": true}
  ],
  "projects": [
    {"name": "Orders v2", "description": "Rebuild the orders flow", "state": "started", "teams": ["ENG"], "lead": "alice@acme.test"}
  ],
  "issues": [
    {"team": "ENG", "title": "500 error on POST /orders after deploy", "description": "Every POST /orders fails.",
     "state": "Todo", "priority": 1, "estimate": 3, "assignee": "alice@acme.test", "creator": "bob@acme.test",
     "labels": ["Bug", "Backend"], "project": "Orders v2", "cycle": "1", "due_date": "2026-03-06",
     "created_at": "2026-03-01T08:00:00Z", "updated_at": "2026-03-01T09:00:00Z",
     "comments": [
       {"id": "comment-root", "user": "bob@acme.test", "body": "Started after the 08:00 deploy.",
        "replies": [{"user": "alice@acme.test", "body": "Looking now."}]},
       {"user": "bob@acme.test", "body": "Rollback is ready if needed.", "parent": "comment-root"}
     ]},
    {"team": "ENG", "number": 7, "title": "Add a retry to the payment call", "state": "Backlog", "parent": "ENG-1"},
    {"team": "OPS", "title": "Rotate the database password", "state": "Done", "archived": true}
  ],
  "relations": [{"issue": "ENG-7", "type": "blocks", "related": "ENG-1"}],
  "documents": [{"title": "Orders v2 spec", "content": "# Orders v2", "project": "Orders v2", "creator": "alice@acme.test"}],
  "tokens": ["lin_api_exampleSeededKey0000000000000000"]
}`

// SeedExampleOriginal is a seed in the original Pome's Linear format,
// which NewWorld loads as well.
const SeedExampleOriginal = `{
  "clock": "2026-03-02T09:00:00.000Z",
  "organization": {"id": "org_acme", "name": "Acme", "urlKey": "acme"},
  "users": [
    {"id": "user_lead", "email": "lead@acme.test", "name": "Lee Lead", "displayName": "Lee", "admin": true, "active": true},
    {"id": "user_eng", "email": "eng@acme.test", "name": "Eve Engineer", "displayName": "Eve"}
  ],
  "teams": [
    {"id": "team_web", "key": "WEB", "name": "Web", "description": "The web app", "private": false,
     "states": [
       {"id": "st_backlog", "name": "Backlog", "type": "backlog", "position": 0},
       {"id": "st_todo", "name": "Todo", "type": "unstarted", "position": 1},
       {"id": "st_doing", "name": "In Progress", "type": "started", "position": 2},
       {"id": "st_done", "name": "Done", "type": "completed", "position": 3}
     ]}
  ],
  "labels": [{"id": "lbl_ux", "name": "UX", "color": "#5e6ad2", "team": "WEB", "description": "Look and feel"}],
  "projects": [{"id": "prj_checkout", "name": "Checkout", "state": "started", "team": "WEB"}],
  "cycles": [{"id": "cyc_1", "team": "WEB", "name": "Cycle 1", "number": 1}],
  "issues": [
    {"id": "iss_button", "team": "WEB", "title": "Checkout button is misaligned", "priority": 3, "state": "Todo",
     "assignee": "eng@acme.test", "creator": "lead@acme.test", "labels": ["UX"], "project": "Checkout", "cycle": "Cycle 1",
     "estimate": null, "createdAt": "2026-03-01T10:00:00.000Z"}
  ],
  "comments": [
    {"id": "cmt_1", "issue": "Checkout button is misaligned", "body": "Only on Safari.", "user": "lead@acme.test"},
    {"id": "cmt_2", "issue": "WEB-1", "parent": "cmt_1", "body": "Confirmed on 17.4.", "user": "eng@acme.test"}
  ],
  "documents": [],
  "oauthApps": [],
  "tokens": [{"token": "lin_test_lead", "type": "personal", "user": "lead@acme.test", "actor": "user"}],
  "webhooks": []
}`
