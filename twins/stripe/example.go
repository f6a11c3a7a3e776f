package stripe

// SeedExample is a complete seed exercising every key of the seed format
// (the package documentation explains each); `pome twins stripe
// --seed-example` prints it, and a test keeps it valid.
const SeedExample = `{
  "customers": [
    {"id": "cus_alice", "email": "alice@example.com", "name": "Alice",
     "metadata": {"tier": "gold"}, "default_payment_method": "pm_alice_visa"}
  ],
  "payment_methods": [
    {"id": "pm_alice_visa", "card": "4242424242424242", "customer": "cus_alice"},
    {"id": "pm_declines", "card": "pm_card_chargeCustomerFail", "customer": "cus_alice"}
  ],
  "products": [{"id": "prod_tshirt", "name": "T-shirt"}],
  "prices": [{"id": "price_tshirt", "product": "prod_tshirt", "unit_amount": 2000,
              "currency": "usd", "default": true}],
  "payment_intents": [
    {"id": "pi_order_1001", "amount": 5000, "currency": "usd", "customer": "cus_alice",
     "payment_method": "pm_alice_visa", "status": "succeeded", "latest_charge": "ch_order_1001",
     "metadata": {"order_id": "1001"}},
    {"id": "pi_hold", "amount": 3000, "currency": "usd", "customer": "cus_alice",
     "payment_method": "pm_alice_visa", "status": "requires_capture", "capture_method": "manual"}
  ],
  "charges": [{"id": "ch_legacy", "amount": 1500, "currency": "usd", "customer": "cus_alice"}],
  "refunds": [{"payment_intent": "pi_order_1001", "amount": 1000, "reason": "requested_by_customer"}],
  "balance": {"available": [{"amount": 100000, "currency": "usd"}]},
  "faults": [
    {"method": "POST", "path": "/v1/refunds", "attempt": 1, "when": "after", "status": 500}
  ]
}`
