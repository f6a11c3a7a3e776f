// googleapis (Gmail v1) against the Gmail twin, configured as its docs say:
// an OAuth2 client holding the ya29. access token, and rootUrl the server's
// root (POME_GMAIL_ROOT_URL). googleapis builds every URL as
// new URL(path, rootUrl), dropping any path, and sends media uploads to
// /upload/gmail/v1/…; the server answers both at its root, where the
// token names the sandbox. A media upload takes rootUrl with the call too
// (see "media upload" below).
import { test, describe, after } from "node:test";
import assert from "node:assert/strict";
import { google } from "googleapis";

import { env, oneRequest, failsAtOnce, tally } from "./lib.js";

const gm = env.twins.gmail;

function client(token, root, opts = {}) {
  const auth = new google.auth.OAuth2();
  auth.setCredentials({ access_token: token });
  return google.gmail({ version: "v1", auth, rootUrl: root + "/", ...opts });
}

const gmail = client(gm.token, env.root);
const me = "me";
const count = tally("googleapis gmail");
after(() => count.report());

// call runs one SDK call as a test. A call the twin is known to get wrong
// carries the reason as a todo: it runs and is counted as not working,
// without failing the suite.
function call(name, fn, todo) {
  test(name, todo ? { todo } : {}, count.wrap(fn));
}

function raw(to, subject, text, extra = "") {
  return Buffer.from(`To: ${to}\r\nSubject: ${subject}\r\n${extra}Content-Type: text/plain; charset=UTF-8\r\n\r\n${text}`).toString("base64url");
}

describe("googleapis gmail: profile and labels", () => {
  let label;
  call("users.getProfile", async () => {
    const { data } = await gmail.users.getProfile({ userId: me });
    assert.equal(data.emailAddress, "pome-agent@acme.test");
  });
  call("users.labels.list", async () => {
    const { data } = await gmail.users.labels.list({ userId: me });
    assert.ok(data.labels.some((l) => l.id === "INBOX"));
  });
  call("users.labels.create", async () => {
    const { data } = await gmail.users.labels.create({ userId: me, requestBody: { name: "Escalations", labelListVisibility: "labelShow", messageListVisibility: "show" } });
    label = data.id;
    assert.ok(label);
  });
  call("users.labels.get", async () => {
    const { data } = await gmail.users.labels.get({ userId: me, id: label });
    assert.equal(data.name, "Escalations");
  });
  call("users.labels.patch", async () => {
    const { data } = await gmail.users.labels.patch({ userId: me, id: label, requestBody: { name: "Escalations/Checkout" } });
    assert.equal(data.name, "Escalations/Checkout");
  });
  call("users.labels.update", async () => {
    const { data } = await gmail.users.labels.update({ userId: me, id: label, requestBody: { id: label, name: "Escalations", labelListVisibility: "labelShow", messageListVisibility: "show" } });
    assert.equal(data.name, "Escalations");
  });
  call("users.labels.delete", async () => {
    const { data } = await gmail.users.labels.create({ userId: me, requestBody: { name: "Temporary" } });
    const res = await gmail.users.labels.delete({ userId: me, id: data.id });
    assert.equal(res.status, 204);
  });
});

describe("googleapis gmail: messages", () => {
  let sent;
  let uploaded;
  call("users.messages.list", async () => {
    const { data } = await gmail.users.messages.list({ userId: me, maxResults: 10 });
    assert.ok(data.messages.length >= 1);
  });
  call("users.messages.get (full)", async () => {
    const { data: list } = await gmail.users.messages.list({ userId: me, maxResults: 1 });
    const { data } = await gmail.users.messages.get({ userId: me, id: list.messages[0].id, format: "full" });
    assert.ok(data.payload.headers.some((h) => h.name === "Subject"));
  });
  call("users.messages.send (raw)", async () => {
    const { data } = await gmail.users.messages.send({ userId: me, requestBody: { raw: raw("bob@acme.test", "Checkout latency", "p99 is above 4 s.") } });
    sent = data;
    assert.ok(data.labelIds.includes("SENT"));
  });
  call("users.messages.send (media upload)", async () => {
    const body = "To: alice@acme.test\r\nSubject: Uploaded report\r\n\r\nSee the numbers below.";
    // googleapis applies an API's rootUrl to the method URL only; the
    // upload URL keeps Google's host unless rootUrl is also given with the
    // call (its second argument), which sets both.
    const { data } = await gmail.users.messages.send({ userId: me, requestBody: {}, media: { mimeType: "message/rfc822", body } }, { rootUrl: env.root + "/" });
    uploaded = data;
    assert.ok(data.id);
  });
  call("users.messages.get (metadata)", async () => {
    const { data } = await gmail.users.messages.get({ userId: me, id: uploaded.id, format: "metadata", metadataHeaders: ["Subject"] });
    assert.deepEqual(data.payload.headers, [{ name: "Subject", value: "Uploaded report" }]);
  });
  call("users.messages.list (q)", async () => {
    const { data } = await gmail.users.messages.list({ userId: me, q: "subject:(Checkout latency)" });
    assert.deepEqual(data.messages?.map((m) => m.id), [sent.id]);
  });
  call("users.messages.modify", async () => {
    const { data } = await gmail.users.messages.modify({ userId: me, id: sent.id, requestBody: { addLabelIds: ["STARRED"] } });
    assert.ok(data.labelIds.includes("STARRED"));
  });
  call("users.messages.trash", async () => {
    const { data } = await gmail.users.messages.trash({ userId: me, id: uploaded.id });
    assert.ok(data.labelIds.includes("TRASH"));
  });
  call("users.messages.untrash", async () => {
    const { data } = await gmail.users.messages.untrash({ userId: me, id: uploaded.id });
    assert.ok(!data.labelIds.includes("TRASH"));
  });
});

describe("googleapis gmail: threads", () => {
  let thread;
  call("users.threads.list", async () => {
    const { data } = await gmail.users.threads.list({ userId: me, maxResults: 10 });
    thread = data.threads[0].id;
    assert.ok(thread);
  });
  call("users.threads.get", async () => {
    const { data } = await gmail.users.threads.get({ userId: me, id: thread });
    assert.ok(data.messages.length >= 1);
  });
  call("users.messages.send (reply in thread)", async () => {
    const { data: t } = await gmail.users.threads.get({ userId: me, id: thread, format: "metadata", metadataHeaders: ["Message-ID", "Subject", "From"] });
    const h = Object.fromEntries(t.messages[0].payload.headers.map((x) => [x.name.toLowerCase(), x.value]));
    const { data } = await gmail.users.messages.send({
      userId: me,
      requestBody: { threadId: thread, raw: raw(h.from, `Re: ${h.subject}`, "Thanks, on it.", `In-Reply-To: ${h["message-id"]}\r\nReferences: ${h["message-id"]}\r\n`) },
    });
    assert.equal(data.threadId, thread);
  });
  call("users.threads.modify", async () => {
    const { data } = await gmail.users.threads.modify({ userId: me, id: thread, requestBody: { removeLabelIds: ["UNREAD"] } });
    assert.equal(data.id, thread);
  });
  call("users.threads.trash", async () => {
    const { data } = await gmail.users.threads.trash({ userId: me, id: thread });
    assert.equal(data.id, thread);
  });
});

describe("googleapis gmail: drafts and history", () => {
  let draft;
  call("users.drafts.create", async () => {
    const { data } = await gmail.users.drafts.create({ userId: me, requestBody: { message: { raw: raw("alice@acme.test", "Post-mortem draft", "Timeline to follow.") } } });
    draft = data.id;
    assert.ok(draft);
  });
  call("users.drafts.list", async () => {
    const { data } = await gmail.users.drafts.list({ userId: me });
    assert.ok(data.drafts.some((d) => d.id === draft));
  });
  call("users.drafts.get", async () => {
    const { data } = await gmail.users.drafts.get({ userId: me, id: draft });
    assert.equal(data.id, draft);
  });
  call("users.drafts.update", async () => {
    const { data } = await gmail.users.drafts.update({ userId: me, id: draft, requestBody: { message: { raw: raw("alice@acme.test", "Post-mortem", "Timeline attached.") } } });
    assert.equal(data.id, draft);
  });
  call("users.drafts.send", async () => {
    const { data } = await gmail.users.drafts.send({ userId: me, requestBody: { id: draft } });
    assert.ok(data.labelIds.includes("SENT"));
  });
  call("users.drafts.delete", async () => {
    const { data } = await gmail.users.drafts.create({ userId: me, requestBody: { message: { raw: raw("bob@acme.test", "Scratch", "x") } } });
    const res = await gmail.users.drafts.delete({ userId: me, id: data.id });
    assert.equal(res.status, 204);
  });
  call("users.history.list", async () => {
    const { data: p } = await gmail.users.getProfile({ userId: me });
    const { data } = await gmail.users.history.list({ userId: me, startHistoryId: String(Number(p.historyId) - 1) });
    assert.ok(data.historyId);
  });
});

describe("googleapis gmail: error paths", () => {
  test("a missing message is Google's 404", count.wrap(async () => {
    const err = await failsAtOnce(() => gmail.users.messages.get({ userId: me, id: "0123456789abcdef" }));
    assert.equal(err.status, 404);
    assert.equal(err.message, "Requested entity was not found.");
  }));
  test("a refused token stops at once, one request, as Google's 401", count.wrap(async () => {
    const err = await oneRequest(async (url) => {
      const bad = client("ya29." + "k".repeat(40), url, { retry: true });
      return failsAtOnce(() => bad.users.labels.list({ userId: me }));
    });
    assert.equal(err.status, 401);
    assert.match(err.message, /invalid authentication credentials/);
  }));
  test("an unsupported call stops at once with the twin's explanation", count.wrap(async () => {
    const err = await oneRequest(async (url) => {
      const g = client(gm.token, url, { retry: true });
      return failsAtOnce(() => g.users.settings.getVacation({ userId: me }));
    });
    assert.equal(err.status, 404);
    assert.match(err.message, /Pome's gmail twin does not implement GET \/gmail\/v1\/users\/me\/settings\/vacation/);
  }));
});
