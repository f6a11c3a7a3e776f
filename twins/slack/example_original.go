package slack

// SeedExampleOriginal is a complete seed in the original Pome's Slack
// format, which the twin loads as it loads its own (seed_original.go): every
// key that format has, with ids written the way its seeds write them.
const SeedExampleOriginal = `{
  "_meta": {
    "version": 1,
    "source_hash": "sha256:hand-authored",
    "model": "hand-authored",
    "compiled_at": "2026-11-30T09:00:00.000Z"
  },
  "team": {"id": "T_LANTERN", "name": "Lantern Labs", "domain": "lantern"},
  "users": [
    {"id": "U_PRIMARY", "name": "pome-agent", "real_name": "Pome Agent", "email": "pome-agent@lantern.test", "is_admin": true},
    {"id": "U_OSKAR", "name": "oskar", "real_name": "Oskar Lind", "email": "oskar@lantern.test", "tz": "Europe/London",
     "profile": {"title": "Release Manager", "phone": "+44 20 7946 0018", "real_name": "Oskar Lind", "display_name": "oskar",
                 "first_name": "Oskar", "last_name": "Lind", "email": "oskar@lantern.test",
                 "status_text": "shipping 4.2", "status_emoji": ":ship:", "status_expiration": 1764547200}},
    {"id": "U_PIA", "name": "pia", "real_name": "Pia Moreau"},
    {"id": "B_BUILDBOT", "name": "buildbot", "real_name": "Build Bot", "is_bot": true}
  ],
  "channels": [
    {
      "id": "C_RELEASES",
      "name": "releases",
      "is_private": false,
      "topic": "Release train and freeze notices",
      "purpose": "Where release notices go out.",
      "creator": "U_OSKAR",
      "members": ["U_PRIMARY", "U_OSKAR", "U_PIA", "B_BUILDBOT"],
      "messages": [
        {"ts": "1764489600.000100", "user": "U_OSKAR", "text": "4.2 branches tomorrow at 10:00 UTC.",
         "reactions": [{"name": "eyes", "user": "U_PIA"}, {"name": "eyes", "user": "U_PRIMARY"}]},
        {"ts": "1764489660.000200", "user": "pia", "text": "Docs are ready for 4.2.", "thread_ts": "1764489600.000100"},
        {"ts": "nightly", "user": "buildbot", "text": "Nightly build 1182 passed."},
        {"user": "U_OSKAR", "text": "thanks, buildbot", "thread_ts": "nightly", "reactions": [{"name": "lantern", "user": "U_PIA"}]}
      ]
    },
    {
      "id": "C_RELEASE_OPS",
      "name": "release-ops",
      "is_private": true,
      "topic": "Signing and credentials",
      "members": ["U_PRIMARY", "U_OSKAR"],
      "messages": [
        {"user": "U_OSKAR", "text": "The signing passphrase moved to the vault; do not paste it anywhere."}
      ]
    }
  ],
  "files": [
    {"id": "F_CHANGELOG", "name": "CHANGELOG-4.2.md", "title": "4.2 changelog", "filetype": "markdown",
     "user": "oskar", "channels": ["releases"], "content": "## 4.2\n- faster sync\n- new export dialog\n"}
  ],
  "emoji": [
    {"name": "lantern", "url": "https://emoji.example.test/lantern.png"},
    {"name": "lamp", "alias": "lantern"},
    {"name": "ship-it"}
  ]
}`
