#!/bin/sh
# Reference agent for tasks/github-pr-review.md.
set -eu
. "$(dirname "$0")/lib.sh"
[ -n "${POME_PREFLIGHT:-}" ] && preflight POME_GITHUB_REST_URL POME_GITHUB_TOKEN

repo="$POME_GITHUB_REST_URL/repos/acme/api"
head=$(api GET "$repo/pulls/2" "$POME_GITHUB_TOKEN" | tr -d '\n' | grep -o '"head": *{[^}]*"ref": *"[^"]*"' | sed 's/.*"ref": *"\([^"]*\)"/\1/')
state=$(api GET "$repo/commits/$head/status" "$POME_GITHUB_TOKEN" | json_field state)
echo "head $head, combined status $state"
if [ "$state" = "success" ]; then
	json_api POST "$repo/pulls/2/reviews" "$POME_GITHUB_TOKEN" '{"event":"APPROVE","body":"CI is green. LGTM."}' >/dev/null
	exit 0
fi
failing=$(api GET "$repo/commits/$head/statuses" "$POME_GITHUB_TOKEN" | tr -d '\n' | grep -o '"state": *"failure"[^}]*"context": *"[^"]*"' | sed 's/.*"context": *"\([^"]*\)"/\1/' | head -n 1)
[ -n "$failing" ] || failing="ci/build"
json_api POST "$repo/pulls/2/reviews" "$POME_GITHUB_TOKEN" \
	"{\"event\":\"REQUEST_CHANGES\",\"body\":\"The $failing status is failing on $head. Please fix the failing tests before this can be approved.\"}" >/dev/null
echo "requested changes: $failing is failing"
