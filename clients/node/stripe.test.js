// stripe-node against the Stripe twin, configured as its docs say: the
// sk_test_ key (which names the sandbox) and the server as host, port and
// protocol (POME_STRIPE_API_BASE is its URL): stripe-node takes no base
// path, and the server answers Stripe's /v1/… at its root.
import { test, describe, after } from "node:test";
import assert from "node:assert/strict";
import Stripe from "stripe";

import { env, oneRequest, failsAtOnce, tally } from "./lib.js";

const st = env.twins.stripe;

function client(key, base, opts = {}) {
  const u = new URL(base);
  return new Stripe(key, { host: u.hostname, port: Number(u.port), protocol: u.protocol.replace(":", ""), ...opts });
}

const stripe = client(st.token, env.root);
const count = tally("stripe-node");
after(() => count.report());

// call runs one SDK call as a test. A call the twin is known to lack
// carries the reason as a todo: it runs and is counted as not working,
// without failing the suite.
function call(name, fn, todo) {
  test(name, todo ? { todo } : {}, count.wrap(fn));
}

describe("stripe-node: customers", () => {
  let cus;
  call("customers.create", async () => {
    cus = await stripe.customers.create({ email: "dana@example.com", name: "Dana Reyes", metadata: { plan: "team" } });
    assert.match(cus.id, /^cus_/);
  });
  call("customers.retrieve", async () => {
    const c = await stripe.customers.retrieve(cus.id);
    assert.equal(c.email, "dana@example.com");
  });
  call("customers.update", async () => {
    const c = await stripe.customers.update(cus.id, { description: "Upgraded from the pilot" });
    assert.equal(c.description, "Upgraded from the pilot");
  });
  call("customers.list", async () => {
    const list = await stripe.customers.list({ email: "dana@example.com" });
    assert.deepEqual(list.data.map((c) => c.id), [cus.id]);
  });
  call("customers.list (auto-pagination)", async () => {
    const all = await stripe.customers.list({ limit: 1 }).autoPagingToArray({ limit: 10 });
    assert.ok(all.length >= 2, `${all.length} customers`);
  });
  call("customers.search", async () => {
    const res = await stripe.customers.search({ query: "email:'dana@example.com'" });
    assert.equal(res.data[0]?.id, cus.id);
  });
  call("customers.listPaymentMethods", async () => {
    await stripe.paymentMethods.attach("pm_card_visa", { customer: cus.id });
    const res = await stripe.customers.listPaymentMethods(cus.id);
    assert.equal(res.data.length, 1);
  });
  call("customers.del", async () => {
    const c = await stripe.customers.create({ email: "temp@example.com" });
    const res = await stripe.customers.del(c.id);
    assert.equal(res.deleted, true);
  });
});

describe("stripe-node: payment intents, charges and refunds", () => {
  let pi;
  let held;
  call("paymentIntents.create (confirm)", async () => {
    pi = await stripe.paymentIntents.create({ amount: 4200, currency: "usd", payment_method: "pm_card_visa", confirm: true, automatic_payment_methods: { enabled: true, allow_redirects: "never" } });
    assert.equal(pi.status, "succeeded");
  });
  call("paymentIntents.retrieve", async () => {
    const p = await stripe.paymentIntents.retrieve(pi.id);
    assert.equal(p.amount_received, 4200);
  });
  call("paymentIntents.update", async () => {
    const p = await stripe.paymentIntents.update(pi.id, { metadata: { order: "1001" } });
    assert.equal(p.metadata.order, "1001");
  });
  call("paymentIntents.create + confirm", async () => {
    const p = await stripe.paymentIntents.create({ amount: 1500, currency: "usd", payment_method_types: ["card"] });
    assert.equal(p.status, "requires_payment_method");
    const c = await stripe.paymentIntents.confirm(p.id, { payment_method: "pm_card_mastercard" });
    assert.equal(c.status, "succeeded");
  });
  call("paymentIntents.capture", async () => {
    held = await stripe.paymentIntents.create({ amount: 9900, currency: "usd", payment_method: "pm_card_visa", payment_method_types: ["card"], capture_method: "manual", confirm: true });
    assert.equal(held.status, "requires_capture");
    const c = await stripe.paymentIntents.capture(held.id, { amount_to_capture: 9000 });
    assert.equal(c.amount_received, 9000);
  });
  call("paymentIntents.cancel", async () => {
    const p = await stripe.paymentIntents.create({ amount: 700, currency: "usd", payment_method_types: ["card"] });
    const c = await stripe.paymentIntents.cancel(p.id, { cancellation_reason: "abandoned" });
    assert.equal(c.status, "canceled");
  });
  call("paymentIntents.list", async () => {
    const list = await stripe.paymentIntents.list({ limit: 100 });
    assert.ok(list.data.some((p) => p.id === pi.id));
  });
  call("paymentIntents.search", async () => {
    const res = await stripe.paymentIntents.search({ query: "status:'succeeded'" });
    assert.ok(res.data.some((p) => p.id === pi.id));
  });
  call("charges.list", async () => {
    const list = await stripe.charges.list({ payment_intent: pi.id });
    assert.equal(list.data.length, 1);
  });
  call("charges.retrieve", async () => {
    const p = await stripe.paymentIntents.retrieve(pi.id);
    const ch = await stripe.charges.retrieve(p.latest_charge);
    assert.equal(ch.amount, 4200);
    assert.equal(ch.paid, true);
  });
  call("charges.search", async () => {
    const res = await stripe.charges.search({ query: "amount>4000" });
    assert.ok(res.data.length >= 1);
  });
  let refund;
  call("refunds.create", async () => {
    refund = await stripe.refunds.create({ payment_intent: pi.id, amount: 1200, reason: "requested_by_customer" });
    assert.equal(refund.status, "succeeded");
  });
  call("refunds.retrieve", async () => {
    const r = await stripe.refunds.retrieve(refund.id);
    assert.equal(r.amount, 1200);
  });
  call("refunds.list", async () => {
    const list = await stripe.refunds.list({ payment_intent: pi.id });
    assert.deepEqual(list.data.map((r) => r.id), [refund.id]);
  });
  call("refunds.update", async () => {
    const r = await stripe.refunds.update(refund.id, { metadata: { ticket: "T-88" } });
    assert.equal(r.metadata.ticket, "T-88");
  });
});

describe("stripe-node: events, balance, products and prices", () => {
  let ev;
  call("events.list", async () => {
    const list = await stripe.events.list({ type: "payment_intent.succeeded" });
    ev = list.data[0];
    assert.ok(ev, "a payment_intent.succeeded event");
  });
  call("events.retrieve", async () => {
    const e = await stripe.events.retrieve(ev.id);
    assert.equal(e.type, "payment_intent.succeeded");
  });
  call("balance.retrieve", async () => {
    const b = await stripe.balance.retrieve();
    assert.ok(Array.isArray(b.available));
  });
  call("balanceTransactions.list", async () => {
    const list = await stripe.balanceTransactions.list();
    assert.ok(list.data.length >= 1);
  });
  let product;
  call("products.create", async () => {
    product = await stripe.products.create({ name: "Team plan" });
  });
  call("prices.create", async () => {
    const p = await stripe.prices.create({ product: product.id, unit_amount: 2900, currency: "usd", recurring: { interval: "month" } });
    assert.equal(p.unit_amount, 2900);
  });
  call("prices.list", async () => {
    const list = await stripe.prices.list({ product: product.id });
    assert.equal(list.data.length, 1);
  });
});

describe("stripe-node: error paths", () => {
  test("a declined card is a StripeCardError, not retried", count.wrap(async () => {
    const err = await failsAtOnce(() =>
      stripe.paymentIntents.create({ amount: 500, currency: "usd", payment_method: "pm_card_chargeDeclinedInsufficientFunds", payment_method_types: ["card"], confirm: true }));
    assert.equal(err.type, "StripeCardError");
    assert.equal(err.decline_code, "insufficient_funds");
  }));
  test("a missing object is resource_missing", count.wrap(async () => {
    const err = await failsAtOnce(() => stripe.customers.retrieve("cus_nope"));
    assert.equal(err.statusCode, 404);
    assert.equal(err.code, "resource_missing");
  }));
  test("a key naming no sandbox stops at once, one request, as Stripe's invalid key", count.wrap(async () => {
    const err = await oneRequest(async (url) => {
      const bad = client("sk_test_" + "9".repeat(40), url, { maxNetworkRetries: 2 });
      return failsAtOnce(() => bad.customers.list());
    });
    assert.equal(err.type, "StripeAuthenticationError");
    assert.equal(err.statusCode, 401);
    assert.match(err.message, /^Invalid API Key provided: sk_test_\*+9999$/);
  }));
  test("an unsupported call stops at once with the twin's explanation", count.wrap(async () => {
    const err = await oneRequest(async (url) => {
      const s = client(st.token, url, { maxNetworkRetries: 2 });
      return failsAtOnce(() => s.checkout.sessions.list());
    });
    assert.equal(err.type, "StripeInvalidRequestError");
    assert.equal(err.statusCode, 404);
    assert.match(err.message, /Unrecognized request URL \(GET: \/v1\/checkout\/sessions\)\. Pome's Stripe twin does not implement it/);
  }));
});
