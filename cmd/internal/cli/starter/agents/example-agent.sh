#!/bin/sh
# A scripted agent for the starter tasks: it makes the calls a good agent
# would make, with curl, against the GitHub twin `pome run` starts. Replace
# the command in pome.json with your own agent; this one shows the contract:
# POME_PREFLIGHT=1 asks only "are you ready?", then POME_TASK_TITLE and
# POME_GITHUB_REST_URL / POME_GITHUB_TOKEN say what to do and where.
set -eu

if [ -n "${POME_PREFLIGHT:-}" ]; then
	command -v curl >/dev/null || { echo "curl is not installed" >&2; exit 1; }
	[ -n "${POME_GITHUB_REST_URL:-}" ] || { echo "POME_GITHUB_REST_URL is not set" >&2; exit 1; }
	exit 0
fi

repo="$POME_GITHUB_REST_URL/repos/quarry/lanterns"

# github METHOD PATH [JSON] calls the twin and fails on an HTTP error.
github() {
	if [ $# -ge 3 ]; then
		curl -sS --fail-with-body -X "$1" "$repo$2" -H "Authorization: Bearer $POME_GITHUB_TOKEN" \
			-H "Accept: application/vnd.github+json" -H "Content-Type: application/json" -d "$3"
	else
		curl -sS --fail-with-body -X "$1" "$repo$2" -H "Authorization: Bearer $POME_GITHUB_TOKEN" \
			-H "Accept: application/vnd.github+json"
	fi
	echo
}

echo "task: $POME_TASK_TITLE"
case "$POME_TASK_TITLE" in
"Label the lantern crash report")
	github GET /issues/1
	github POST /issues/1/labels '{"labels":["bug"]}'
	github POST /issues/1/comments '{"body":"Confirmed: an unnamed lantern makes the list crash; labelled bug."}'
	;;
"Close the duplicate report")
	github GET /issues/2
	github POST /issues/2/comments '{"body":"Duplicate of #1, which tracks this crash."}'
	github PATCH /issues/2 '{"state":"closed","state_reason":"not_planned"}'
	;;
*)
	echo "this example agent knows only the starter tasks" >&2
	exit 1
	;;
esac
