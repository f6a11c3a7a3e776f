package stripe

// SeedExampleOriginal is a complete seed in the original Pome's Stripe
// format, exercising every key it has (seed_original.go explains each);
// `pome twins stripe --seed-example --format original` prints it, and a
// test keeps it loading.
const SeedExampleOriginal = `{
  "_meta": {"version": 1, "source_hash": "sha256:hand-written", "model": "hand-written"},
  "api_keys": [
    {"key": "sk_test_pome_mugshop", "sid": "mugshop", "account_id": "acct_mugshop"}
  ],
  "payment_intents": [
    {"id": "pi_mug_order", "account_id": "acct_mugshop", "amount": 4500, "currency": "usd",
     "status": "succeeded", "client_secret": "pi_mug_order_secret", "latest_charge_id": "ch_mug_order",
     "capture_method": "automatic", "confirmation_method": "automatic", "payment_method_types": ["crypto"],
     "metadata": {"order": "M-88"}, "created": 1760000000, "updated": 1760000000, "captured_at": 1760000000},
    {"id": "pi_mug_pending", "account_id": "acct_mugshop", "amount": 1200, "currency": "usd",
     "status": "requires_action", "payment_method_types": ["crypto"], "created": 1760000100, "updated": 1760000100}
  ],
  "charges": [
    {"id": "ch_mug_order", "account_id": "acct_mugshop", "payment_intent_id": "pi_mug_order",
     "amount": 4500, "amount_captured": 4500, "amount_refunded": 500, "status": "succeeded",
     "balance_transaction_id": "txn_mug_order", "captured": true, "refunded": false,
     "currency": "usd", "created": 1760000000}
  ],
  "refunds": [
    {"id": "re_mug_chip", "account_id": "acct_mugshop", "charge_id": "ch_mug_order",
     "payment_intent_id": "pi_mug_order", "amount": 500, "currency": "usd", "status": "succeeded",
     "reason": "requested_by_customer", "balance_transaction_id": "txn_mug_chip", "created": 1760000500}
  ],
  "balance_transactions": [
    {"id": "txn_mug_order", "account_id": "acct_mugshop", "type": "charge", "amount": 4500, "fee": 0,
     "net": 4500, "currency": "usd", "source_id": "pi_mug_order", "source_type": "payment_intent",
     "available_on": 1760000000, "status": "available", "created": 1760000000},
    {"id": "txn_mug_chip", "account_id": "acct_mugshop", "type": "refund", "amount": -500, "fee": 0,
     "net": -500, "currency": "usd", "source_id": "re_mug_chip", "source_type": "refund",
     "available_on": 1760000500, "status": "available", "created": 1760000500}
  ],
  "failure_injection": [
    {"method": "POST", "path": "/v1/refunds", "attempt": 1, "mode": "after_handler", "status": 502,
     "body": {"error": {"type": "api_error", "message": "The response to this refund was lost on its way back."}}}
  ]
}`
