package slack

// SeedExample is a complete seed in the twin's own format, using every key
// it defines (`pome twins slack --seed-example` prints it; SeedExample-
// Original is the same kind of workspace in the original Pome's format).
const SeedExample = `{
  "team": {"id": "T0HARBOR1", "name": "Harbor Freight Co", "domain": "harbor", "email_domain": "harbor.test"},
  "auth_user": "pome-agent",
  "users": [
    {"name": "pome-agent", "real_name": "Pome Agent", "is_admin": true},
    {"id": "U0NADIA01", "name": "nadia", "real_name": "Nadia Brandt", "display_name": "nadia.b", "email": "nadia@harbor.test",
     "title": "Dispatch Lead", "phone": "+1 555 0142", "tz": "America/New_York", "status_text": "on the dock", "status_emoji": ":anchor:", "is_owner": true},
    {"name": "theo", "real_name": "Theo Marsh", "title": "Forklift Operator"},
    {"name": "manifestbot", "real_name": "Manifest Bot", "is_bot": true},
    {"name": "ines", "real_name": "Ines Prado", "deleted": true}
  ],
  "bots": [{"id": "B0MANIFEST", "name": "Manifest", "user": "manifestbot"}],
  "channels": [
    {
      "id": "C0DISPATCH",
      "name": "dispatch",
      "is_general": true,
      "creator": "nadia",
      "topic": "Today's loading schedule",
      "purpose": "Everything about trucks leaving the yard.",
      "messages": [
        {"ts": "1764576000.000100", "user": "nadia", "text": "Truck 12 leaves at 14:00; dock 3 is closed.",
         "reactions": [{"name": "truck", "users": ["theo", "pome-agent"]}], "pinned": true,
         "replies": [
           {"user": "theo", "text": "Dock 3 reopens at noon."},
           {"user": "nadia", "text": "Thanks, sharing with everyone.", "reply_broadcast": true}
         ]},
        {"bot": "Manifest", "username": "Manifest", "text": "Manifest 7731 is ready.",
         "blocks": [{"type": "section", "text": {"type": "mrkdwn", "text": "*Manifest 7731* is ready"}}],
         "attachments": [{"text": "42 pallets, 3 hazmat"}], "files": ["manifest-7731.csv"]}
      ],
      "bookmarks": [{"title": "Yard map", "link": "https://wiki.harbor.test/yard", "emoji": ":world_map:"}]
    },
    {"name": "yard-ops", "type": "private_channel", "members": ["pome-agent", "nadia"],
     "messages": [{"user": "nadia", "text": "Gate code changes on Monday."}]},
    {"name": "old-routes", "is_archived": true, "members": ["nadia", "theo"]},
    {"type": "im", "members": ["pome-agent", "theo"], "messages": [{"user": "theo", "text": "Can you check truck 9?"}]},
    {"type": "mpim", "members": ["pome-agent", "nadia", "theo"]}
  ],
  "emoji": {"forklift": "https://emoji.harbor.test/forklift.png", "lift": "alias:forklift"},
  "files": [
    {"id": "F0MANIFEST", "name": "manifest-7731.csv", "title": "Manifest 7731", "filetype": "csv",
     "content": "pallet,weight\n1,420\n", "user": "manifestbot", "channels": ["dispatch"]}
  ]
}`
