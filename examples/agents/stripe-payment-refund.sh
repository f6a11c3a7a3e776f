#!/bin/sh
# Reference agent for tasks/stripe-payment-refund.md (Stripe takes forms).
set -eu
. "$(dirname "$0")/lib.sh"
[ -n "${POME_PREFLIGHT:-}" ] && preflight POME_STRIPE_REST_URL POME_STRIPE_TOKEN

api POST "$POME_STRIPE_REST_URL/v1/refunds" "$POME_STRIPE_TOKEN" \
	-d payment_intent=pi_order1001 -d amount=1500 -d reason=requested_by_customer >/dev/null
pi=$(api POST "$POME_STRIPE_REST_URL/v1/payment_intents" "$POME_STRIPE_TOKEN" \
	-d amount=2500 -d currency=usd -d customer=cus_alice -d payment_method=pm_alice_visa \
	-d 'payment_method_types[]=card' -d confirm=true -d description="Order 1002 (replacement)" | json_field id)
echo "refunded 15.00 on pi_order1001; charged 25.00 as $pi"
