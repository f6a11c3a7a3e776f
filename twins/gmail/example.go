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
      ]
    },
    {"address": "alice@example.com", "name": "Alice Example"}
  ]
}`
