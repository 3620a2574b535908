/**
 * Attack (review r16): beyond loopback, requests in flight are counted per
 * client address (64). A 2026-07-28 `subscriptions/listen` stream gives its
 * request slot back ("not a request in flight", as a 2025 GET stream), yet it
 * keeps its address's share for as long as it stays open. So 64 open listen
 * streams from one address (one client that listens a lot, or 64 ordinary
 * modern clients behind one NAT or reverse proxy, where every user is the
 * proxy's address) leave that address no share at all: every request from
 * it, the listening clients' own included, is answered 429 "this client has
 * 64 requests in flight" while none is in flight. A 2025 GET stream does not
 * do this (it releases the share). Streams should be bounded apart from
 * requests, so an address's open streams never stop its requests.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { startHttpProgram } from "../support/http_program.ts";

const TOKEN = "r16-listen-share-token-0123456789abcdef";
const STREAMS = 64;
const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

Deno.test("attack: 64 open subscriptions/listen streams from one address lock that address's requests out (429)", async () => {
  const base = await Deno.makeTempDir({ prefix: "skillgate-listen-share-" });
  const aborts: AbortController[] = [];
  try {
    const root = join(base, "skills");
    await Deno.mkdir(join(root, "one"), { recursive: true });
    await Deno.writeTextFile(
      join(root, "one", "SKILL.md"),
      "---\nname: one\ndescription: One skill.\n---\n# One\n",
    );
    // Beyond loopback (a token is required there): client units are addresses.
    await using server = await startHttpProgram(["serve", root, "--host=0.0.0.0"], {
      env: { SKILLGATE_HTTP_TOKEN: TOKEN },
    });
    const headers = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${TOKEN}`,
    };
    const streams: Response[] = [];
    for (let i = 0; i < STREAMS; i++) {
      const abort = new AbortController();
      aborts.push(abort);
      const response = await fetch(server.url, {
        method: "POST",
        signal: abort.signal,
        headers: {
          ...headers,
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": "subscriptions/listen",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: i + 1,
          method: "subscriptions/listen",
          params: { notifications: { toolsListChanged: true }, _meta: META },
        }),
      });
      assert.equal(response.status, 200, `listen stream ${i + 1} opened`);
      streams.push(response);
    }
    // The same address now asks ordinary things; nothing of it is in flight. A new 2025 session
    // (initialize is always admitted) and its first request:
    const opened = await fetch(server.url, {
      method: "POST",
      headers,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1000,
        method: "initialize",
        params: {
          protocolVersion: "2025-11-25",
          capabilities: {},
          clientInfo: { name: "r16", version: "1" },
        },
      }),
    });
    await opened.body?.cancel();
    assert.equal(opened.status, 200);
    const session = opened.headers.get("mcp-session-id") ?? "";
    const sessionHeaders = {
      ...headers,
      "mcp-session-id": session,
      "mcp-protocol-version": "2025-11-25",
    };
    const initialized = await fetch(server.url, {
      method: "POST",
      headers: sessionHeaders,
      body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
    });
    await initialized.body?.cancel();
    const listed = await fetch(server.url, {
      method: "POST",
      headers: sessionHeaders,
      body: JSON.stringify({ jsonrpc: "2.0", id: 1001, method: "tools/list", params: {} }),
    });
    const listedText = await listed.text();
    // ...and one 2026-07-28 request.
    const discovered = await fetch(server.url, {
      method: "POST",
      headers: {
        ...headers,
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "server/discover",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1002,
        method: "server/discover",
        params: { _meta: META },
      }),
    });
    const discoveredText = await discovered.text();
    const lockedOut = [
      ...(listed.status === 429 ? [`tools/list: 429 ${listedText.slice(0, 160)}`] : []),
      ...(discovered.status === 429
        ? [`server/discover: 429 ${discoveredText.slice(0, 160)}`]
        : []),
    ];
    assert.deepEqual(lockedOut, [], "open listen streams used up the address's request share");
    assert.equal(listed.status, 200, listedText.slice(0, 200));
    assert.equal(discovered.status, 200, discoveredText.slice(0, 200));
    for (const stream of streams) await stream.body?.cancel().catch(() => {});
  } finally {
    for (const abort of aborts) abort.abort();
    await Deno.remove(base, { recursive: true });
  }
});
