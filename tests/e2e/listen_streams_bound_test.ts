/**
 * Review r16, A6, through the real program and its listener: beyond loopback
 * an address's open standby streams have a count of their own
 * (`MAX_HTTP_STREAMS_PER_CLIENT`, 64). Review r17, hF-2: an address may be
 * several clients behind one NAT, and a listen stream has no session, so its
 * 65th `subscriptions/listen` stream is refused (429), never made room for by
 * closing an open one; the 64 stay open and the address's requests are
 * answered.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { MAX_HTTP_STREAMS_PER_CLIENT } from "../../src/caps.ts";
import { startHttpProgram } from "../support/http_program.ts";

const TOKEN = "hf-listen-bound-token-0123456789abcdef";
const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

Deno.test("attack: the 65th open listen stream of one address over real TCP is refused (429) and closes none of the 64 open; its requests are still answered", async () => {
  const base = await Deno.makeTempDir({ prefix: "skillgate-listen-bound-" });
  const aborts: AbortController[] = [];
  const streams: Response[] = [];
  try {
    const root = join(base, "skills");
    await Deno.mkdir(join(root, "one"), { recursive: true });
    await Deno.writeTextFile(
      join(root, "one", "SKILL.md"),
      "---\nname: one\ndescription: One skill.\n---\n# One\n",
    );
    await using server = await startHttpProgram(["serve", root, "--host=0.0.0.0"], {
      env: { SKILLGATE_HTTP_TOKEN: TOKEN },
    });
    const headers = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${TOKEN}`,
      "mcp-protocol-version": "2026-07-28",
    };
    const post = (method: string, id: number, params: Record<string, unknown>) => {
      const abort = new AbortController();
      aborts.push(abort);
      return fetch(server.url, {
        method: "POST",
        signal: abort.signal,
        headers: { ...headers, "mcp-method": method },
        body: JSON.stringify({ jsonrpc: "2.0", id, method, params: { ...params, _meta: META } }),
      });
    };
    for (let i = 0; i < MAX_HTTP_STREAMS_PER_CLIENT; i++) {
      const response = await post("subscriptions/listen", i + 1, {
        notifications: { toolsListChanged: true },
      });
      assert.equal(response.status, 200, `listen stream ${i + 1} opened`);
      streams.push(response);
    }
    const oldest = streams[0]!.body!.getReader();
    let isOldestEnded = false;
    const oldestEnds = (async () => {
      while (!(await oldest.read()).done) { /* events */ }
      isOldestEnded = true;
    })().catch(() => {});
    const refused = await post("subscriptions/listen", 999, {
      notifications: { toolsListChanged: true },
    });
    // Checked before its body is read: an answer of 200 is a stream that stays open.
    if (refused.status !== 429) await refused.body?.cancel();
    assert.equal(refused.status, 429, "the 65th listen stream was not refused");
    const refusal = await refused.text();
    assert.match(refusal, /standby streams/);
    const discovered = await post("server/discover", 1000, {});
    const text = await discovered.text();
    assert.equal(discovered.status, 200, text.slice(0, 200));
    assert.equal(isOldestEnded, false, "an open listen stream was closed for the refused one");
    await oldest.cancel().catch(() => {});
    await oldestEnds;
    for (const stream of streams.slice(1)) await stream.body?.cancel().catch(() => {});
  } finally {
    for (const abort of aborts) abort.abort();
    await Deno.remove(base, { recursive: true });
  }
});
