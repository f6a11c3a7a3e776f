#!/bin/sh
# Reference agent for tasks/linear-issue-triage.md: Linear's GraphQL API
# with curl, the lin_api_ key as the whole Authorization header.
set -eu
. "$(dirname "$0")/lib.sh"
[ -n "${POME_PREFLIGHT:-}" ] && preflight POME_LINEAR_REST_URL POME_LINEAR_TOKEN

gql() {
	if ! out=$(curl -sS --fail-with-body -X POST "$POME_LINEAR_REST_URL/graphql" \
		-H "Authorization: $POME_LINEAR_TOKEN" -H 'Content-Type: application/json' -d "$1"); then
		echo "graphql failed: $out" >&2
		return 1
	fi
	case $out in *'"errors"'*) echo "graphql errors: $out" >&2; return 1 ;; esac
	printf '%s\n' "$out"
}

state=$(gql '{"query":"{ workflowStates(filter: {team: {key: {eq: \"ENG\"}}, name: {eq: \"In Progress\"}}) { nodes { id } } }"}' | json_field id)
alice=$(gql '{"query":"{ users(filter: {email: {eq: \"alice@acme.test\"}}) { nodes { id } } }"}' | json_field id)
gql "{\"query\":\"mutation(\$in: IssueUpdateInput!) { issueUpdate(id: \\\"ENG-1\\\", input: \$in) { success } }\",\"variables\":{\"in\":{\"stateId\":\"$state\",\"assigneeId\":\"$alice\",\"estimate\":3}}}" >/dev/null
gql '{"query":"mutation { commentCreate(input: {issueId: \"ENG-1\", body: \"Triage: a regression from this morning'"'"'s deploy; Alice owns orders, 3 points.\"}) { success } }"}' >/dev/null
echo "ENG-1: In Progress, alice, estimate 3, commented"
