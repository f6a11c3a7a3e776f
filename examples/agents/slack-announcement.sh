#!/bin/sh
# Reference agent for tasks/slack-announcement.md.
set -eu
. "$(dirname "$0")/lib.sh"
[ -n "${POME_PREFLIGHT:-}" ] && preflight POME_SLACK_REST_URL POME_SLACK_TOKEN

json_api POST "$POME_SLACK_REST_URL/api/chat.postMessage" "$POME_SLACK_TOKEN" \
	'{"channel":"general","text":"Release v2.0 of the orders API is out! :tada: Changelog: https://acme.test/changelog"}' | grep -q '"ok": *true'
echo "announced in #general"
