// Shared by the vendor SDK suites: the environment the Go test passes
// (POME_NODE_ENV), a counting proxy that shows how many requests an SDK
// sends for one call (its retries included), and a bound on how long an
// SDK may take to give up.
import http from "node:http";
import assert from "node:assert/strict";

export const env = JSON.parse(process.env.POME_NODE_ENV ?? "null");
if (!env) {
  throw new Error("POME_NODE_ENV is not set: run this suite through `go test ./clients/node`");
}

// A call that errors must error within this bound: a retry with back-off
// (stripe-node's, gaxios', @slack/web-api's) would take longer.
export const failFastMs = 3000;

// proxy forwards every request to target (a URL with no path) and counts
// them. close() when done.
export async function proxy(target) {
  const to = new URL(target);
  let count = 0;
  const server = http.createServer((req, res) => {
    count++;
    const up = http.request(
      { host: to.hostname, port: to.port, method: req.method, path: req.url, headers: { ...req.headers, host: to.host } },
      (r) => {
        res.writeHead(r.statusCode, r.headers);
        r.pipe(res);
      },
    );
    up.on("error", (e) => {
      res.writeHead(502);
      res.end(String(e));
    });
    req.pipe(up);
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    count: () => count,
    // Connections an SDK keeps open (or retries on) must not hold the
    // close, nor the test, up.
    close: () => new Promise((ok) => {
      server.close(ok);
      server.closeAllConnections();
    }),
  };
}

// oneRequest runs fn with the URL of a counting proxy to the server's root,
// returns what fn returns, and fails the test unless exactly one request
// went through the proxy (an SDK's retry would be a second).
export async function oneRequest(fn) {
  const p = await proxy(env.root);
  try {
    const out = await fn(p.url);
    assert.equal(p.count(), 1, "requests sent");
    return out;
  } finally {
    await p.close();
  }
}

// failsAtOnce runs call (an async function) and returns the error it
// throws; it fails the test if the call succeeds, or takes longer than
// failFastMs (a hang or a retry).
export async function failsAtOnce(call) {
  let timer;
  const start = Date.now();
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${failFastMs} ms: the SDK hangs or retries`)), failFastMs);
  });
  try {
    await Promise.race([call(), timeout]);
  } catch (err) {
    if (err.message?.startsWith("no answer within")) throw err;
    assert.ok(Date.now() - start < failFastMs, `took ${Date.now() - start} ms`);
    return err;
  } finally {
    clearTimeout(timer);
  }
  assert.fail("the call succeeded; want an error");
}

// Each suite prints how many of its vendor calls worked, so the run shows
// the count per SDK.
export function tally(label) {
  let ok = 0;
  let all = 0;
  return {
    // call wraps one vendor call in a test and counts it.
    wrap(fn) {
      return async (t) => {
        all++;
        await fn(t);
        ok++;
      };
    },
    report: () => console.log(`# ${label}: ${ok} of ${all} calls work`),
  };
}

// The path part of a twin's REST URL (/github/s/<sid>), for SDKs pointed at
// the proxy.
export function pathOf(u) {
  return new URL(u).pathname.replace(/\/$/, "");
}
