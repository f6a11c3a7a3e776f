#!/bin/sh
# Reference agent for tasks/github-slack-triage-notice.md.
set -eu
. "$(dirname "$0")/lib.sh"
[ -n "${POME_PREFLIGHT:-}" ] && preflight POME_GITHUB_REST_URL POME_GITHUB_TOKEN POME_SLACK_REST_URL POME_SLACK_TOKEN

json_api POST "$POME_GITHUB_REST_URL/repos/acme/api/issues/1/labels" "$POME_GITHUB_TOKEN" '{"labels":["bug"]}' >/dev/null
json_api POST "$POME_SLACK_REST_URL/api/chat.postMessage" "$POME_SLACK_TOKEN" \
	'{"channel":"general","text":"Triaged acme/api#1 (500 error on POST /orders after deploy) as a bug and labelled it `bug`."}' | grep -q '"ok": *true'
echo "labelled acme/api#1 and told #general"
