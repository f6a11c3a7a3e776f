// MCP round trips with the official TypeScript SDK, at its newest version
// and at 1.17 (the oldest still in use), against every twin of a running
// Pome server. The Go test beside this file starts the server and passes
// each twin's MCP URL, its sandbox's agent token and the tool counts the server
// declares (POME_NODE_ENV, JSON).
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";

import { Client as ClientNew } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as TransportNew } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Client as Client117 } from "mcp-sdk-117/client/index.js";
import { StreamableHTTPClientTransport as Transport117 } from "mcp-sdk-117/client/streamableHttp.js";

const env = JSON.parse(process.env.POME_NODE_ENV ?? "null");
if (!env) {
  throw new Error("POME_NODE_ENV is not set: run this suite through `go test ./clients/node`");
}

const sdks = [
  { label: "sdk-latest", Client: ClientNew, Transport: TransportNew },
  { label: "sdk-1.17", Client: Client117, Transport: Transport117 },
];

// One read and one write per twin that the default world answers.
const calls = {
  github: {
    read: ["get_me", {}],
    write: (tag) => ["create_repository", { name: `node-${tag}` }],
  },
  slack: {
    read: ["slack_list_channels", {}],
    write: (tag) => ["slack_create_conversation", { channel_name: `node-${tag}` }],
  },
  stripe: {
    read: ["list_customers", {}],
    write: (tag) => ["create_customer", { email: `${tag}@example.com`, name: `Node ${tag}` }],
  },
  gmail: {
    read: ["get_profile", {}],
    write: (tag) => ["create_label", { name: `node-${tag}` }],
  },
  linear: {
    read: ["list_teams", {}],
    write: (tag) => ["save_issue", { team: "ENG", title: `node-${tag}` }],
  },
};

for (const sdk of sdks) {
  for (const [twin, info] of Object.entries(env.twins)) {
    describe(`${sdk.label} ${twin}`, () => {
      let client;
      before(async () => {
        client = new sdk.Client({ name: `pome-node-${sdk.label}`, version: "0.0.0" });
        const transport = new sdk.Transport(new URL(info.mcp_url), {
          requestInit: { headers: { Authorization: `Bearer ${info.agent_token}` } },
        });
        await client.connect(transport);
      });
      after(async () => {
        await client?.close();
      });

      test("tools/list returns every tool", async () => {
        const { tools } = await client.listTools();
        assert.equal(tools.length, info.tools, `${twin}: tools listed`);
      });

      test("a read tool answers", async () => {
        const [name, args] = calls[twin].read;
        const res = await client.callTool({ name, arguments: args });
        assert.notEqual(res.isError, true, `${name}: ${JSON.stringify(res.content)}`);
        assert.ok(res.content.length > 0, `${name}: no content`);
      });

      test("a write tool answers", async () => {
        const [name, args] = calls[twin].write(sdk.label.replace(/\W/g, ""));
        const res = await client.callTool({ name, arguments: args });
        assert.notEqual(res.isError, true, `${name}: ${JSON.stringify(res.content)}`);
        assert.ok(res.content.length > 0, `${name}: no content`);
      });

      if (twin === "github") {
        test("a file answers as text in an embedded resource", async () => {
          const res = await client.callTool({
            name: "get_file_contents",
            arguments: { owner: "acme", repo: "api", path: "README.md" },
          });
          assert.notEqual(res.isError, true, JSON.stringify(res.content));
          assert.match(res.content[0].text, /^successfully downloaded text file \(SHA: [0-9a-f]{40}\)$/);
          assert.equal(res.content[1].type, "resource");
          assert.match(res.content[1].resource.uri, /^repo:\/\/acme\/api\/sha\/[0-9a-f]{40}\/contents\/README\.md$/);
          assert.ok(res.content[1].resource.text.length > 0, "no text");
          assert.equal(res.structuredContent, undefined);
        });
      }

      test("an unknown tool is an error, not a crash", async () => {
        let res;
        try {
          res = await client.callTool({ name: "no_such_tool", arguments: {} });
        } catch (err) {
          assert.match(String(err?.message ?? err), /no_such_tool|unknown|not found/i);
          return;
        }
        assert.equal(res.isError, true, "unknown tool answered as a success");
      });
    });
  }
}
