#!/bin/sh
# Reference agent for tasks/github-bug-triage.md.
set -eu
. "$(dirname "$0")/lib.sh"
[ -n "${POME_PREFLIGHT:-}" ] && preflight POME_GITHUB_REST_URL POME_GITHUB_TOKEN

issue="/repos/acme/api/issues/1"

title=$(api GET "$POME_GITHUB_REST_URL$issue" "$POME_GITHUB_TOKEN" | json_field title)
echo "issue #1: $title"
json_api POST "$POME_GITHUB_REST_URL$issue/labels" "$POME_GITHUB_TOKEN" '{"labels":["bug"]}' >/dev/null
json_api POST "$POME_GITHUB_REST_URL$issue/assignees" "$POME_GITHUB_TOKEN" '{"assignees":["bob"]}' >/dev/null
json_api POST "$POME_GITHUB_REST_URL$issue/comments" "$POME_GITHUB_TOKEN" \
	'{"body":"Triage: bug. A 500 on POST /orders right after a deploy is a regression; labelled bug and assigned to @bob, who owns the orders service."}' >/dev/null
echo "labelled bug, assigned bob, commented"
