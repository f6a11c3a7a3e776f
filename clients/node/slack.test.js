// @slack/web-api against the Slack twin, configured as its docs say:
// slackApiUrl is the sandbox's REST URL with "/api/" (POME_SLACK_REST_URL),
// the token the xoxb- bot token. Its default retry policy (ten retries in
// about thirty minutes) is left as it is: refusals and unknown methods
// must stop it at once.
import { test, describe, after } from "node:test";
import assert from "node:assert/strict";
import { WebClient, ErrorCode, LogLevel } from "@slack/web-api";

import { env, oneRequest, failsAtOnce, tally, pathOf } from "./lib.js";

const sl = env.twins.slack;
const web = new WebClient(sl.token, { slackApiUrl: sl.api_url + "/api/", logLevel: LogLevel.ERROR });

const count = tally("@slack/web-api");
after(() => count.report());

// call runs one method as a test. A call the twin is known to get wrong
// carries the reason as a todo: it runs and is counted as not working,
// without failing the suite.
function call(name, fn, todo) {
  test(name, todo ? { todo } : {}, count.wrap(fn));
}

let general;
let random;
let ts;
let alice;

describe("@slack/web-api: auth, users, team", () => {
  call("auth.test", async () => {
    const res = await web.auth.test();
    assert.equal(res.ok, true);
    assert.equal(res.team, "Acme");
  });
  call("users.list", async () => {
    const res = await web.users.list({});
    alice = res.members.find((u) => u.name === "alice")?.id;
    assert.ok(alice, "alice is a member");
  });
  call("users.info", async () => {
    const res = await web.users.info({ user: alice });
    assert.equal(res.user.real_name, "Alice Park");
  });
  call("users.lookupByEmail", async () => {
    const res = await web.users.lookupByEmail({ email: "bob@acme.test" });
    assert.equal(res.user.name, "bob");
  });
  call("users.profile.get", async () => {
    const res = await web.users.profile.get({ user: alice });
    assert.equal(res.profile.email, "alice@acme.test");
  });
  call("users.conversations", async () => {
    const res = await web.users.conversations({});
    assert.ok(res.channels.length > 0);
  });
  call("team.info", async () => {
    const res = await web.team.info({});
    assert.equal(res.team.domain, "acme");
  });
  call("emoji.list", async () => {
    const res = await web.emoji.list({});
    assert.equal(typeof res.emoji, "object");
  });
});

describe("@slack/web-api: conversations", () => {
  call("conversations.list", async () => {
    const res = await web.conversations.list({ types: "public_channel" });
    general = res.channels.find((c) => c.name === "general")?.id;
    random = res.channels.find((c) => c.name === "random")?.id;
    assert.ok(general && random, "general and random listed");
  });
  call("conversations.info", async () => {
    const res = await web.conversations.info({ channel: general });
    assert.equal(res.channel.name, "general");
  });
  call("conversations.history", async () => {
    const res = await web.conversations.history({ channel: general, limit: 10 });
    assert.match(res.messages.at(-1).text, /Good morning/);
  });
  call("conversations.members", async () => {
    const res = await web.conversations.members({ channel: general });
    assert.ok(res.members.includes(alice));
  });
  let created;
  call("conversations.create", async () => {
    const res = await web.conversations.create({ name: "incident-checkout" });
    created = res.channel.id;
  });
  call("conversations.setTopic", async () => {
    const res = await web.conversations.setTopic({ channel: created, topic: "Checkout p99 above 4 s" });
    assert.equal(res.channel.topic.value, "Checkout p99 above 4 s");
  });
  call("conversations.setPurpose", async () => {
    await web.conversations.setPurpose({ channel: created, purpose: "Coordinate the checkout fix" });
  });
  call("conversations.invite", async () => {
    await web.conversations.invite({ channel: created, users: alice });
  });
  call("conversations.rename", async () => {
    const res = await web.conversations.rename({ channel: created, name: "incident-checkout-p99" });
    assert.equal(res.channel.name, "incident-checkout-p99");
  });
  call("conversations.archive", async () => {
    await web.conversations.archive({ channel: created });
  });
  call("conversations.join", async () => {
    await web.conversations.join({ channel: random });
  });
  call("conversations.open", async () => {
    const res = await web.conversations.open({ users: alice });
    assert.ok(res.channel.id);
  });
});

describe("@slack/web-api: chat, threads and reactions", () => {
  call("chat.postMessage", async () => {
    const res = await web.chat.postMessage({ channel: general, text: "Checkout is slow; looking into it." });
    ts = res.ts;
    assert.equal(res.message.text, "Checkout is slow; looking into it.");
  });
  call("chat.postMessage (blocks)", async () => {
    await web.chat.postMessage({
      channel: general, text: "status",
      blocks: [{ type: "section", text: { type: "mrkdwn", text: "*Status:* investigating" } }],
    });
  });
  call("chat.postMessage (thread reply)", async () => {
    await web.chat.postMessage({ channel: general, thread_ts: ts, text: "p99 is 4.2 s on the dashboard." });
  });
  call("conversations.replies", async () => {
    const res = await web.conversations.replies({ channel: general, ts });
    assert.equal(res.messages.length, 2);
  });
  call("chat.update", async () => {
    const res = await web.chat.update({ channel: general, ts, text: "Checkout is slow; fix in review." });
    assert.equal(res.text, "Checkout is slow; fix in review.");
  });
  call("chat.getPermalink", async () => {
    const res = await web.chat.getPermalink({ channel: general, message_ts: ts });
    assert.match(res.permalink, /^https?:\/\//);
  });
  call("reactions.add", async () => {
    await web.reactions.add({ channel: general, timestamp: ts, name: "eyes" });
  });
  call("reactions.get", async () => {
    const res = await web.reactions.get({ channel: general, timestamp: ts });
    assert.deepEqual(res.message.reactions.map((r) => r.name), ["eyes"]);
  });
  call("reactions.list", async () => {
    await web.reactions.list({});
  });
  call("reactions.remove", async () => {
    await web.reactions.remove({ channel: general, timestamp: ts, name: "eyes" });
  });
  call("pins.add", async () => {
    await web.pins.add({ channel: general, timestamp: ts });
  });
  call("pins.list", async () => {
    const res = await web.pins.list({ channel: general });
    assert.equal(res.items.length, 1);
  });
  call("chat.scheduleMessage", async () => {
    const res = await web.chat.scheduleMessage({ channel: general, text: "Retro at 3pm", post_at: Math.floor(Date.now() / 1000) + 3600 });
    assert.ok(res.scheduled_message_id);
  });
  call("chat.scheduledMessages.list", async () => {
    const res = await web.chat.scheduledMessages.list({});
    assert.equal(res.scheduled_messages.length, 1);
  });
  call("chat.delete", async () => {
    const res = await web.chat.postMessage({ channel: random, text: "typo" });
    await web.chat.delete({ channel: random, ts: res.ts });
  });
});

describe("@slack/web-api: files", () => {
  const bytes = "order_id,latency_ms\n1001,4200\n";
  let file;
  call("files.uploadV2", async () => {
    const res = await web.files.uploadV2({ channel_id: general, filename: "latency.csv", content: bytes, title: "Latency sample" });
    file = res.files[0].files[0].id;
    assert.ok(file);
  });
  call("files.info", async () => {
    const res = await web.files.info({ file });
    assert.equal(res.file.name, "latency.csv");
    assert.equal(res.file.size, bytes.length, "the file keeps its bytes");
  });
  call("files.list", async () => {
    const res = await web.files.list({ channel: general });
    assert.ok(res.files.some((f) => f.id === file));
  });
});

describe("@slack/web-api: error paths", () => {
  test("a Slack error is a platform error, not retried", count.wrap(async () => {
    const err = await failsAtOnce(() => web.chat.postMessage({ channel: "C0NOSUCH", text: "x" }));
    assert.equal(err.code, ErrorCode.PlatformError);
    assert.equal(err.data.error, "channel_not_found");
  }));
  test("a refused token stops at once, one request", count.wrap(async () => {
    const err = await oneRequest(async (url) => {
      const bad = new WebClient("xoxb-" + "7".repeat(30), { slackApiUrl: url + pathOf(sl.api_url) + "/api/", logLevel: LogLevel.ERROR });
      return failsAtOnce(() => bad.auth.test());
    });
    assert.equal(err.code, ErrorCode.PlatformError);
    assert.equal(err.data.error, "invalid_auth");
  }));
  test("an unknown method stops at once with the twin's explanation", count.wrap(async () => {
    const err = await oneRequest(async (url) => {
      const w = new WebClient(sl.token, { slackApiUrl: url + pathOf(sl.api_url) + "/api/", logLevel: LogLevel.ERROR });
      return failsAtOnce(() => w.dnd.info({}));
    });
    assert.equal(err.code, ErrorCode.PlatformError);
    assert.equal(err.data.error, "unknown_method");
    assert.match(err.data.response_metadata.messages[0], /Pome's slack twin does not implement POST \/api\/dnd\.info/);
  }));
});
