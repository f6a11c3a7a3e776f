#!/bin/sh
# Reference agent for tasks/gmail-receipt-filing.md.
set -eu
. "$(dirname "$0")/lib.sh"
[ -n "${POME_PREFLIGHT:-}" ] && preflight POME_GMAIL_REST_URL POME_GMAIL_TOKEN

me="$POME_GMAIL_REST_URL/gmail/v1/users/me"
label=$(json_api POST "$me/labels" "$POME_GMAIL_TOKEN" '{"name":"Receipts"}' | json_field id)
ids=$(api GET "$me/messages?q=subject:receipt" "$POME_GMAIL_TOKEN" | tr -d '\n' | grep -o '"id": *"[^"]*"' | sed 's/.*"\([^"]*\)"$/\1/' | sort -u)
for id in $ids; do
	json_api POST "$me/messages/$id/modify" "$POME_GMAIL_TOKEN" "{\"addLabelIds\":[\"$label\"]}" >/dev/null
	echo "filed $id under $label"
done
