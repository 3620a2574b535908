/**
 * Session 13, hA: every request but `initialize` and `ping` waits for the
 * trusted part's first read of the owner's files (review r17, hB-1). That
 * wait must never hang: a file planted after start-up's read that cannot be
 * read (a FIFO as overrides.json or config.json) refuses the waiting
 * requests at once, clearly (a tool error for `tools/call`, JSON-RPC -32603
 * otherwise, one stderr line naming the file and what to do), and never
 * serves them on start-up's overrides; once the owner fixes the file, the
 * next request is served under it. The real program over stdio, raw
 * JSON-RPC lines (the FIFO must be planted between start-up's read and the
 * first answer). The bound itself (`OWNER_FILES_WAIT_MS`, 5 s, for a read
 * that never ends, e.g. a hung mount, which a test cannot make) is checked
 * in tests/worker/owner_files_gate_test.ts and
 * tests/mcp/tools/owner_files_wait_attack_test.ts. Waits have ceilings in
 * seconds; nothing here measures speed.
 */

import assert from "node:assert/strict";
import { OWNER_FILES_WAIT_MS } from "../../src/worker/owner_files_gate.ts";
import { INITIALIZE, INITIALIZED } from "../support/mcp_messages.ts";
import {
  OWNER_SERVING_CEILING_MS,
  type OwnerServingAnswer,
  skillListRequest,
  startOwnerServing,
} from "./_owner_serving.ts";

const CEILING_MS = OWNER_SERVING_CEILING_MS;
type Answer = OwnerServingAnswer;
const serving = () => startOwnerServing("skillgate-owner-unreadable-");
const skillList = skillListRequest;
const skillsList = (id: number) =>
  JSON.stringify({ jsonrpc: "2.0", id, method: "skills/list", params: {} });

async function mkfifo(path: string): Promise<void> {
  assert.equal((await new Deno.Command("mkfifo", { args: [path] }).output()).code, 0);
}

/** The tool error's JSON text of a `tools/call` answer (fails when it is no tool error). */
function toolErrorOf(answer: Answer): { error: string; message: string; hint: string } {
  assert.equal(answer.result?.isError, true, JSON.stringify(answer));
  const [block] = answer.result?.content as { type: string; text: string }[];
  return JSON.parse(block!.text);
}

Deno.test("attack (s13 hA): a FIFO planted as overrides.json before the first answer does not hang skill_list: it is refused at once with a clear error (never served on start-up's overrides), and served once the owner fixes the file", async () => {
  await using server = await serving();
  await mkfifo(`${server.folder}/overrides.json`);
  const started = performance.now();
  await server.send(INITIALIZE, INITIALIZED, skillList(2), skillsList(3));
  const refused = toolErrorOf(await server.answer(2));
  const listing = await server.answer(3);
  const elapsedMs = performance.now() - started;
  assert.equal(refused.error, "OWNER_SETTINGS_UNREAD", JSON.stringify(refused));
  assert.match(refused.message, /could not read its owner's settings \("overrides\.json"\)/);
  assert.doesNotMatch(refused.message, new RegExp(server.folder), "a host path went to the client");
  assert.equal(listing.error?.code, -32603, JSON.stringify(listing));
  assert.match(listing.error!.message, /overrides\.json.*ask again/);
  // A failed read settles at once: no request waits out the bound.
  assert.ok(elapsedMs < OWNER_FILES_WAIT_MS, `refused after ${elapsedMs} ms`);
  await server.logged(
    new RegExp(
      `${server.folder}/overrides\\.json could not be read since start-up, so no request is answered.*fix or remove it`,
    ),
  );
  // The owner replaces it whole (a rename, as editors save) with a regular file that turns alpha
  // off: the next request is served under it (read again at its change or at that request);
  // alpha is never served meanwhile. (A remove, then a write, would let a read in between find
  // no overrides.json at all, a valid state of its own that serves alpha.)
  await Deno.writeTextFile(
    `${server.folder}/overrides.json.new`,
    JSON.stringify({ skills: { alpha: { enabled: false } } }),
  );
  await Deno.rename(`${server.folder}/overrides.json.new`, `${server.folder}/overrides.json`);
  const deadline = Date.now() + CEILING_MS;
  for (let id = 4;; id++) {
    assert.ok(Date.now() < deadline, `never served: ${server.log.stderr}`);
    await server.send(skillList(id));
    const answer = await server.answer(id);
    if (answer.result?.isError === true) {
      assert.equal(toolErrorOf(answer).error, "OWNER_SETTINGS_UNREAD");
      await new Promise((resolve) => setTimeout(resolve, 100));
      continue;
    }
    const listed = answer.result?.structuredContent as { skills: { name: string }[] };
    assert.deepEqual(listed.skills.map((skill) => skill.name), ["beta"]);
    break;
  }
});

Deno.test("attack (s13 hA): a FIFO planted as config.json before the first answer refuses the listing at once, naming config.json", async () => {
  await using server = await serving();
  await mkfifo(`${server.folder}/config.json`);
  await server.send(INITIALIZE, INITIALIZED, skillsList(2), skillList(3));
  const listing = await server.answer(2);
  assert.equal(listing.error?.code, -32603, JSON.stringify(listing));
  assert.match(listing.error!.message, /could not read its owner's settings \("config\.json"\)/);
  assert.equal(toolErrorOf(await server.answer(3)).error, "OWNER_SETTINGS_UNREAD");
  // The problem line says what is in force then (nothing answered), not "the last good
  // configuration stays in force", which the next line would contradict.
  await server.logged(
    /config\.json:1:1: config-invalid: is not a regular file \(it is a FIFO\).*; no request is answered until it is fixed or removed/,
  );
  assert.doesNotMatch(server.log.stderr, /stays in force/);
  await server.logged(/config\.json could not be read since start-up/);
});
