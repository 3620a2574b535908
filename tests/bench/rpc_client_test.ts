import assert from "node:assert/strict";
import { FLOOR_TOOL } from "../../bench/floor_server.ts";
import { pageThrough } from "../../bench/support/measure.ts";
import { readTreeRss } from "../../bench/support/process_rss.ts";
import { type Answer, type RpcChild, RpcError } from "../../bench/support/rpc_client.ts";
import { floorCommand, openSession } from "../../bench/support/servers.ts";

Deno.test("the floor server answers initialize, its one tool and refuses other methods", async () => {
  const session = await openSession(floorCommand());
  await using child = session.child;
  assert.ok(session.startupMs > 0);
  assert.equal(
    (session.initialize["serverInfo"] as { name: string }).name,
    "skillgate-bench-floor",
  );
  const tools = await child.request("tools/list");
  assert.deepEqual((tools.result as { tools: { name: string }[] }).tools.map((t) => t.name), [
    FLOOR_TOOL,
  ]);
  const call = await child.request("tools/call", { name: FLOOR_TOOL, arguments: {} });
  assert.deepEqual(call.result, { content: [{ type: "text", text: "pong" }] });
  assert.ok(call.elapsedMs > 0 && call.bytes > 0);
  await assert.rejects(
    () => child.request("resources/list"),
    (error) => error instanceof RpcError && error.code === -32601,
  );
  const tree = await readTreeRss(child.pid);
  assert.ok(tree !== null && tree.rssKib > 10_000, `RSS ${tree?.rssKib} KiB`);
  assert.equal((await child.close()).success, true);
});

Deno.test("a request after close() rejects instead of hanging", async () => {
  const session = await openSession(floorCommand());
  const { child } = session;
  await child.close();
  await assert.rejects(() => child.request("tools/list"), /stdin is closed|stdout/);
});

Deno.test("readTreeRss() counts a child process and answers null for a missing pid", async () => {
  const sleeper = new Deno.Command("sleep", { args: ["5"], stdout: "null", stderr: "null" })
    .spawn();
  try {
    const tree = await readTreeRss(Deno.pid);
    assert.ok(tree !== null && tree.processes >= 2, `processes: ${tree?.processes}`);
    assert.ok(tree.peakKib >= tree.rssKib);
  } finally {
    sleeper.kill("SIGKILL");
    await sleeper.status;
  }
  assert.equal(await readTreeRss(2 ** 22 + 12_345), null);
});

Deno.test("pageThrough() follows nextCursor to the end and counts items", async () => {
  const pages = [
    { resources: [1, 2], nextCursor: "a" },
    { resources: [3], nextCursor: "b" },
    { resources: [] },
  ];
  const seen: unknown[] = [];
  const fake = {
    request: (_method: string, params?: unknown): Promise<Answer> => {
      seen.push(params);
      const result = pages[seen.length - 1];
      return Promise.resolve({ result, elapsedMs: 2, bytes: 10 });
    },
  } as unknown as RpcChild;
  const paging = await pageThrough(fake, "resources/list", "resources");
  assert.deepEqual(paging, { pages: 3, items: 3, bytes: 30, elapsedMs: 6 });
  assert.deepEqual(seen, [{}, { cursor: "a" }, { cursor: "b" }]);
});

Deno.test("pageThrough() stops a cursor that never ends", async () => {
  const fake = {
    request: (): Promise<Answer> =>
      Promise.resolve({ result: { resources: [], nextCursor: "x" }, elapsedMs: 1, bytes: 1 }),
  } as unknown as RpcChild;
  await assert.rejects(
    () => pageThrough(fake, "resources/list", "resources", { maxPages: 5 }),
    /exceeded 5 pages/,
  );
});
