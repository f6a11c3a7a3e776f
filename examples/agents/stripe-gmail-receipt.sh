#!/bin/sh
# Reference agent for tasks/stripe-gmail-receipt.md.
set -eu
. "$(dirname "$0")/lib.sh"
[ -n "${POME_PREFLIGHT:-}" ] && preflight POME_STRIPE_REST_URL POME_STRIPE_TOKEN POME_GMAIL_REST_URL POME_GMAIL_TOKEN

status=$(api POST "$POME_STRIPE_REST_URL/v1/payment_intents" "$POME_STRIPE_TOKEN" \
	-d amount=4200 -d currency=usd -d customer=cus_alice -d payment_method=pm_card_visa \
	-d 'payment_method_types[]=card' -d confirm=true -d description="Annual plan" | json_field status)
if [ "$status" != "succeeded" ]; then
	echo "payment did not succeed: $status" >&2
	exit 1
fi
raw=$(printf 'To: alice@example.com\r\nSubject: Receipt: $42.00 for your annual plan\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nThank you! We received $42.00 for your annual plan.\r\n' |
	base64 | tr -d '\n' | tr '+/' '-_' | tr -d '=')
json_api POST "$POME_GMAIL_REST_URL/gmail/v1/users/me/messages/send" "$POME_GMAIL_TOKEN" "{\"raw\":\"$raw\"}" >/dev/null
echo "charged 42.00 and emailed the receipt"
