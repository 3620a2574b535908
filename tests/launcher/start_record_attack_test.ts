/**
 * Attacks on the start record (r7 review of s11): a bundled `serve` started
 * the same way as the last one creates its worker first, with the rights
 * `.bundle/<hash>/start-record.json` holds. What the key does not cover (the
 * configuration file's content) may narrow the set since: that worker must
 * then never serve, and the answers must be byte for byte those of a start
 * without a record.
 */

import assert from "node:assert/strict";
import { runLauncher } from "../support/launcher.ts";
import { skillMd } from "../skills/_tree.ts";
import { checkoutCopy, recordedHash } from "./_checkout_copy.ts";

/** initialize, initialized, then skill_list: one JSON-RPC line each. */
const SESSION = [
  {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "start-record-attack", version: "1.0.0" },
    },
  },
  { jsonrpc: "2.0", method: "notifications/initialized" },
  { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "skill_list", arguments: {} } },
].map((message) => JSON.stringify(message)).join("\n") + "\n";

Deno.test("attack: a configuration narrowed after the start record was written: the record's wider worker never serves, the answers equal a start without a record", async () => {
  await using checkout = await checkoutCopy("skillgate-start-record-", "checkout");
  const root = checkout.root;
  const parent = `${root}/..`;
  for (const name of ["alpha", "beta"]) {
    await Deno.mkdir(`${parent}/${name}-root/${name}`, { recursive: true });
    await Deno.writeTextFile(`${parent}/${name}-root/${name}/SKILL.md`, skillMd(name));
  }
  await Deno.mkdir(`${parent}/config/skillgate`, { recursive: true });
  const configFile = `${parent}/config/skillgate/config.json`;
  const env = { XDG_CONFIG_HOME: `${parent}/config`, XDG_CACHE_HOME: `${parent}/cache` };
  const serve = () =>
    runLauncher(`${root}/skillgate`, ["serve"], { cwd: parent, env, stdin: SESSION });
  const first = await runLauncher(`${root}/skillgate`, ["--version"], { cwd: root });
  assert.equal(first.code, 0, first.stderr);
  const hash = await recordedHash(root);
  const record = `${root}/.bundle/${hash}/start-record.json`;

  // Both roots: the record then holds read rights on both.
  await Deno.writeTextFile(
    configFile,
    JSON.stringify({ roots: [`${parent}/alpha-root`, `${parent}/beta-root`] }),
  );
  const wide = await serve();
  assert.equal(wide.code, 0, wide.stderr);
  assert.match(wide.stdout, /beta/);
  const deadline = Date.now() + 20_000;
  while (!(await Deno.lstat(record).then(() => true, () => false))) {
    assert.ok(Date.now() < deadline, "no start record was written");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const wideRecord = await Deno.readTextFile(record);
  assert.match(wideRecord, /beta-root/);

  // Narrowed in the file (not part of the key): the same command starts with the record's worker.
  await Deno.writeTextFile(configFile, JSON.stringify({ roots: [`${parent}/alpha-root`] }));
  const narrowed = await serve();
  assert.equal(narrowed.code, 0, narrowed.stderr);
  assert.doesNotMatch(narrowed.stdout, /beta/, "the record's worker served the wider roots");
  assert.match(narrowed.stdout, /alpha/);
  // The worker served was adopted with the computed set: the record now says so.
  while ((await Deno.readTextFile(record)) === wideRecord) {
    assert.ok(Date.now() < deadline, "the record still holds the wider set");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.doesNotMatch(await Deno.readTextFile(record), /beta-root/);

  // Without any record: the same bytes.
  await Deno.remove(record);
  const fresh = await serve();
  assert.equal(fresh.code, 0, fresh.stderr);
  assert.equal(narrowed.stdout, fresh.stdout);
});
