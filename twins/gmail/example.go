package gmail

// SeedExample is a complete seed exercising every key of the seed format
// (the package documentation explains each); `pome twins gmail
// --seed-example` prints it, and a test keeps it valid.
const SeedExample = `{
  "mailboxes": [
    {
      "address": "pome-agent@acme.test",
      "name": "Pome Agent",
      "labels": [
        {"name": "Receipts", "color": {"textColor": "#000000", "backgroundColor": "#ffffff"},
         "messageListVisibility": "show", "labelListVisibility": "labelShow"}
      ],
      "messages": [
        {"id": "18f0a1b200001000",
         "thread": "receipt",
         "from": "Alice Example <alice@example.com>",
         "to": ["pome-agent@acme.test"], "cc": [], "bcc": [],
         "subject": "Receipt for order #1042",
         "text": "Could you send me the receipt?", "html": "<p>Could you send me the receipt?</p>",
         "date": "2026-12-01T09:30:00Z",
         "labels": ["INBOX", "UNREAD", "Receipts"],
         "attachments": [{"filename": "order.txt", "mimeType": "text/plain", "text": "Order #1042"},
                         {"filename": "logo.png", "mimeType": "image/png", "data": "iVBORw0KGgo="}]},
        {"raw": "From: bob@acme.test\nTo: pome-agent@acme.test\nSubject: Hi\n\nHello",
         "labels": ["INBOX"]}
      ],
      "drafts": [
        {"to": ["alice@example.com"], "subject": "Re: Receipt for order #1042", "text": "Attached.", "thread": "receipt"}
      ],
      "filters": [
        {"id": "filter_receipts", "criteria": {"from": "alice@example.com", "subject": "receipt"},
         "action": {"addLabelIds": ["Receipts"], "removeLabelIds": []}}
      ],
      "forwardingAddresses": [{"forwardingEmail": "archive@acme.test", "verificationStatus": "accepted"}],
      "sendAs": [{"sendAsEmail": "billing@acme.test", "displayName": "Acme Billing", "replyToAddress": "pome-agent@acme.test",
                  "isPrimary": false, "isDefault": false, "verificationStatus": "accepted"}]
    },
    {"address": "alice@example.com", "name": "Alice Example"}
  ]
}`

// SeedExampleOriginal is a complete seed in the original Pome's Gmail
// format (seed_original.go explains each key); `pome twins gmail
// --seed-example --format original` prints it, and a test keeps it valid.
const SeedExampleOriginal = `{
  "_meta": {"version": 1, "source_hash": "sha256:example", "model": "hand-authored"},
  "primaryMailbox": {
    "email": "desk@lumen.test",
    "displayName": "Lumen Desk",
    "labels": [
      {"id": "Label_needs_reply", "name": "Needs Reply"},
      {"name": "Vendors", "color": {"textColor": "#000000", "backgroundColor": "#ffffff"}}
    ],
    "messages": [
      {"id": "msg_outage", "threadId": "thread_outage",
       "from": "nadia@orchard.test", "to": ["desk@lumen.test"], "cc": [], "bcc": [],
       "subject": "Dashboard shows stale numbers", "text": "Since this morning the dashboard lags by a day.",
       "html": "<p>Since this morning the dashboard lags by a day.</p>",
       "date": "2026-11-30T08:15:00Z", "messageId": "outage-17@orchard.test",
       "labels": ["INBOX", "UNREAD"],
       "attachments": [{"filename": "screen.txt", "mimeType": "text/plain", "disposition": "attachment", "data": "c3RhbGUgbnVtYmVycwo="},
                       {"filename": "chart.png", "mimeType": "image/png", "disposition": "inline", "contentId": "chart-1", "data": "iVBORw0KGgo="}]},
      {"id": "msg_outage_reply", "threadId": "thread_outage",
       "to": ["nadia@orchard.test"], "subject": "Re: Dashboard shows stale numbers",
       "text": "Looking at it now.", "date": "2026-11-30T09:00:00Z",
       "messageId": "outage-17-reply@lumen.test", "inReplyTo": "outage-17@orchard.test",
       "references": ["outage-17@orchard.test"], "labels": ["SENT"]},
      {"id": "msg_quote", "raw": "From: sales@paperco.test\nTo: desk@lumen.test\nSubject: Your quote\n\nAttached is the quote.",
       "labels": ["INBOX", "Vendors"]}
    ],
    "drafts": [
      {"id": "draft_followup", "threadId": "thread_followup", "to": ["nadia@orchard.test"],
       "subject": "Follow-up on the dashboard", "text": "We found the cause.", "date": "2026-11-30T10:00:00Z",
       "messageId": "followup@lumen.test"}
    ],
    "filters": [
      {"id": "filter_vendors", "criteria": {"from": "paperco.test"}, "action": {"addLabelIds": ["Vendors"], "removeLabelIds": ["INBOX"]}}
    ],
    "forwardingAddresses": [{"forwardingEmail": "archive@lumen.test", "verificationStatus": "accepted"}],
    "sendAs": [{"sendAsEmail": "desk@lumen.test", "displayName": "Lumen Desk", "isPrimary": true, "isDefault": true, "verificationStatus": "accepted"}]
  },
  "mailboxes": [
    {"email": "nadia@orchard.test", "displayName": "Nadia Orchard"}
  ],
  "deliveryMode": "seeded-mailboxes",
  "clock": "2026-12-01T00:00:00Z",
  "faults": [
    {"name": "rate-limited", "target": "messages.send", "succeedFirst": 1, "throttleFor": 2, "retryAfterSeconds": 2}
  ]
}`
