/**
 * Review r8 (issue 13, s17's first-answer cuts): a small catalog's transport
 * connects while the catalog loads and holds every message, `initialize`
 * too, until the catalog is loaded and watched (`holdsInitialize`), so the
 * answers must not depend on how the start went. Three bundled starts of the
 * same command: no start record and an empty index cache; the record the
 * first one wrote (its worker created first) and the index cache it wrote;
 * the record and another, empty, cache folder. Each answer must be the same
 * bytes. (A sources run differs only in skill_list's `environ` note, which
 * counts the environment's bytes: `SKILLGATE_NO_BUNDLE=1` is in it.)
 */

import assert from "node:assert/strict";
import { runLauncher } from "../support/launcher.ts";
import { skillMd } from "../skills/_tree.ts";
import { checkoutCopy, recordedHash } from "./_checkout_copy.ts";

/** A whole session: one JSON-RPC line each, every answer a client's first minute asks for. */
const SESSION = [
  {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "cold-warm-attack", version: "1.0.0" },
    },
  },
  { jsonrpc: "2.0", method: "notifications/initialized" },
  { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} },
  { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "skill_list", arguments: {} } },
  { jsonrpc: "2.0", id: 4, method: "skills/list", params: {} },
  { jsonrpc: "2.0", id: 5, method: "resources/list", params: {} },
  { jsonrpc: "2.0", id: 6, method: "prompts/list", params: {} },
  {
    jsonrpc: "2.0",
    id: 7,
    method: "tools/call",
    params: { name: "skill_load", arguments: { name: "skill-03" } },
  },
].map((message) => JSON.stringify(message)).join("\n") + "\n";

/**
 * Each answer's exact line, in request order (pipelined requests may be answered in any order;
 * each answer's bytes must not change).
 */
function answersById(stdout: string): string[] {
  return stdout.split("\n").filter((line) => line !== "")
    .map((line) => ({ id: (JSON.parse(line) as { id?: number }).id ?? -1, line }))
    .sort((a, b) => a.id - b.id)
    .map((answer) => answer.line);
}

Deno.test("attack: a 12-skill serve answers the same bytes cold (no record, empty index cache), with the start record and a warm cache, and with the record and a fresh cache", async () => {
  await using checkout = await checkoutCopy("skillgate-r8-coldwarm-", "checkout");
  const root = checkout.root;
  const parent = `${root}/..`;
  for (let index = 0; index < 12; index++) {
    const name = `skill-${String(index).padStart(2, "0")}`;
    await Deno.mkdir(`${parent}/skills/${name}/references`, { recursive: true });
    await Deno.writeTextFile(`${parent}/skills/${name}/SKILL.md`, skillMd(name));
    await Deno.writeTextFile(`${parent}/skills/${name}/references/notes.md`, `notes ${index}\n`);
  }
  // Problems must be the same bytes too: a link leading outside (a warning), a hidden file, a FIFO.
  await Deno.mkdir(`${parent}/outside`);
  await Deno.writeTextFile(`${parent}/outside/secret.md`, "outside\n");
  await Deno.symlink(`${parent}/outside/secret.md`, `${parent}/skills/skill-05/leak.md`);
  await Deno.writeTextFile(`${parent}/skills/skill-06/.hidden.md`, "hidden\n");
  const fifo = await new Deno.Command("mkfifo", { args: [`${parent}/skills/skill-07/pipe.md`] })
    .output();
  assert.equal(fifo.code, 0);
  // Versions settled: the first start may keep every digest it reads.
  await new Promise((resolve) => setTimeout(resolve, 2_200));
  const serve = (cacheHome: string) =>
    runLauncher(`${root}/skillgate`, ["serve", `${parent}/skills`], {
      cwd: parent,
      env: { XDG_CACHE_HOME: `${parent}/${cacheHome}`, XDG_CONFIG_HOME: `${parent}/no-config` },
      stdin: SESSION,
    });
  const first = await runLauncher(`${root}/skillgate`, ["--version"], { cwd: root });
  assert.equal(first.code, 0, first.stderr);
  const hash = await recordedHash(root);
  const record = `${root}/.bundle/${hash}/start-record.json`;

  const cold = await serve("cache-a");
  assert.equal(cold.code, 0, cold.stderr);
  assert.equal(cold.stdout.split("\n").filter((line) => line !== "").length, 7, cold.stdout);
  // The first answer is the loaded catalog's: the instructions name every skill (the model catalog).
  const initialize = JSON.parse(cold.stdout.split("\n").find((line) => /"id":1\b/.test(line))!) as {
    result: { instructions: string };
  };
  for (let index = 0; index < 12; index++) {
    const name = `skill-${String(index).padStart(2, "0")}`;
    assert.ok(initialize.result.instructions.includes(name), `initialize does not name ${name}`);
  }
  const deadline = Date.now() + 20_000;
  while (!(await Deno.lstat(record).then(() => true, () => false))) {
    assert.ok(Date.now() < deadline, "no start record was written after a whole session");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const warm = await serve("cache-a");
  assert.equal(warm.code, 0, warm.stderr);
  assert.deepEqual(
    answersById(warm.stdout),
    answersById(cold.stdout),
    "record + warm index cache: other bytes",
  );
  const fresh = await serve("cache-b");
  assert.equal(fresh.code, 0, fresh.stderr);
  assert.deepEqual(
    answersById(fresh.stdout),
    answersById(cold.stdout),
    "record + empty index cache: other bytes",
  );
});
