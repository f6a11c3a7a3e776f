// @linear/sdk against the Linear twin, configured as its docs say: the
// lin_api_ key as apiKey (sent as the whole Authorization header) and the
// twin's GraphQL endpoint as apiUrl. The calls are those an integration
// makes: who am I, teams and their workflow states, create, update,
// comment, label, relate, search, page through, archive.
import { test, describe, after } from "node:test";
import assert from "node:assert/strict";
import { LinearClient, LinearError } from "@linear/sdk";

import { env, tally, failsAtOnce } from "./lib.js";

const li = env.twins.linear;
const apiUrl = `${li.api_url}/graphql`;
const linear = new LinearClient({ apiKey: li.token, apiUrl });
const count = tally("@linear/sdk");
after(() => count.report());

function call(name, fn, todo) {
  test(name, todo ? { todo } : {}, count.wrap(fn));
}

describe("@linear/sdk: workspace", () => {
  call("viewer", async () => {
    const me = await linear.viewer;
    assert.equal(me.email, "pome-agent@acme.test");
    assert.equal(me.isMe, true);
  });
  call("organization", async () => {
    const org = await linear.organization;
    assert.equal(org.urlKey, "acme");
  });
  call("teams", async () => {
    const teams = await linear.teams();
    assert.deepEqual(teams.nodes.map((t) => t.key), ["ENG"]);
  });
  call("team.states", async () => {
    const team = await linear.team("ENG");
    const states = await team.states();
    assert.ok(states.nodes.some((s) => s.name === "In Progress" && s.type === "started"));
  });
  call("team.labels and issueLabels", async () => {
    const labels = await linear.issueLabels();
    assert.ok(labels.nodes.some((l) => l.name === "Bug"));
  });
  call("users", async () => {
    const users = await linear.users();
    assert.equal(users.nodes.length, 3);
  });
  call("workflowStates (filtered)", async () => {
    const states = await linear.workflowStates({ filter: { type: { eq: "completed" } } });
    assert.deepEqual(states.nodes.map((s) => s.name), ["Done"]);
  });
});

describe("@linear/sdk: issues", () => {
  let team, issue, bug;
  call("createIssue", async () => {
    team = await linear.team("ENG");
    const labels = await linear.issueLabels({ filter: { name: { eq: "Bug" } } });
    bug = labels.nodes[0];
    const payload = await linear.createIssue({ teamId: team.id, title: "Checkout times out", description: "Seen in EU", priority: 2, labelIds: [bug.id] });
    assert.equal(payload.success, true);
    issue = await payload.issue;
    assert.equal(issue.identifier, "ENG-4");
    assert.equal(issue.priorityLabel, "High");
  });
  call("issue by identifier, and its relations", async () => {
    const got = await linear.issue("ENG-4");
    assert.equal(got.id, issue.id);
    const state = await got.state;
    assert.equal(state.name, "Todo");
    const t = await got.team;
    assert.equal(t.key, "ENG");
    const labels = await got.labels();
    assert.deepEqual(labels.nodes.map((l) => l.name), ["Bug"]);
  });
  call("updateIssue (state, assignee, estimate)", async () => {
    const states = await team.states();
    const progress = states.nodes.find((s) => s.name === "In Progress");
    const me = await linear.viewer;
    const payload = await linear.updateIssue(issue.id, { stateId: progress.id, assigneeId: me.id, estimate: 3 });
    assert.equal(payload.success, true);
    const got = await linear.issue(issue.id);
    assert.equal(got.estimate, 3);
    assert.equal((await got.state).name, "In Progress");
    assert.equal((await got.assignee).email, "pome-agent@acme.test");
    assert.ok(got.startedAt instanceof Date);
  });
  call("issue.update (model method)", async () => {
    const got = await linear.issue(issue.id);
    await got.update({ title: "Checkout times out in EU" });
    assert.equal((await linear.issue(issue.id)).title, "Checkout times out in EU");
  });
  call("createComment and a threaded reply", async () => {
    const root = await (await linear.createComment({ issueId: issue.id, body: "Triaging this now" })).comment;
    const reply = await (await linear.createComment({ issueId: issue.id, body: "Root cause found", parentId: root.id })).comment;
    assert.equal((await reply.parent).id, root.id);
    const comments = await (await linear.issue(issue.id)).comments();
    assert.equal(comments.nodes.length, 2);
  });
  call("createIssueLabel and issueAddLabel", async () => {
    const label = await (await linear.createIssueLabel({ name: "Needs triage", teamId: team.id, color: "#f2994a" })).issueLabel;
    await linear.issueAddLabel(issue.id, label.id);
    const labels = await (await linear.issue(issue.id)).labels();
    assert.deepEqual(labels.nodes.map((l) => l.name).sort(), ["Bug", "Needs triage"]);
  });
  call("createIssueRelation", async () => {
    const rel = await (await linear.createIssueRelation({ issueId: issue.id, relatedIssueId: "ENG-1", type: "blocks" })).issueRelation;
    assert.equal(rel.type, "blocks");
    assert.equal((await rel.relatedIssue).identifier, "ENG-1");
  });
  call("sub-issue (parentId) and children", async () => {
    await linear.createIssue({ teamId: team.id, title: "Add a timeout metric", parentId: issue.id });
    const children = await (await linear.issue(issue.id)).children();
    assert.deepEqual(children.nodes.map((c) => c.title), ["Add a timeout metric"]);
  });
  call("issues (filter by state and label)", async () => {
    const res = await linear.issues({ filter: { state: { name: { eq: "In Progress" } }, labels: { name: { eq: "Bug" } } } });
    assert.deepEqual(res.nodes.map((i) => i.identifier), ["ENG-4"]);
  });
  call("searchIssues", async () => {
    const res = await linear.searchIssues("checkout");
    assert.deepEqual(res.nodes.map((i) => i.identifier), ["ENG-4"]);
  });
  call("issues: paginate with fetchNext", async () => {
    let page = await linear.issues({ first: 2 });
    const seen = page.nodes.map((i) => i.identifier);
    while (page.pageInfo.hasNextPage) {
      page = await page.fetchNext();
      seen.push(...page.nodes.slice(seen.length).map((i) => i.identifier));
    }
    assert.equal(new Set(seen).size, 5, seen.join(","));
  });
  call("archiveIssue", async () => {
    const payload = await linear.archiveIssue("ENG-2");
    assert.equal(payload.success, true);
    const open = await linear.issues();
    assert.ok(!open.nodes.some((i) => i.identifier === "ENG-2"));
    const all = await linear.issues({ includeArchived: true });
    assert.ok(all.nodes.some((i) => i.identifier === "ENG-2"));
  });
});

describe("@linear/sdk: errors", () => {
  call("a missing issue is a LinearError, at once", async () => {
    const err = await failsAtOnce(() => linear.issue("ENG-999"));
    assert.ok(err instanceof LinearError, String(err));
    assert.match(err.message, /Entity not found/);
  });
  call("a wrong key is refused", async () => {
    const other = new LinearClient({ apiKey: "lin_api_wrong", apiUrl });
    const err = await failsAtOnce(() => other.viewer);
    assert.ok(err instanceof LinearError, String(err));
  });
  call("the server root's /graphql, the key naming the sandbox", async () => {
    const atRoot = new LinearClient({ apiKey: li.token, apiUrl: `${env.root}/graphql` });
    assert.equal((await atRoot.viewer).email, "pome-agent@acme.test");
  });
  call("an OAuth-style Bearer token works too", async () => {
    const bearer = new LinearClient({ accessToken: li.token, apiUrl });
    assert.equal((await bearer.viewer).email, "pome-agent@acme.test");
  });
});
