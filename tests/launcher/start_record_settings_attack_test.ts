/**
 * Review r10 (issue 13, s22: the worker starts earlier): the start record's
 * key covers the arguments, working folder and environment, not the
 * configuration file nor overrides.json. A change there that leaves the
 * worker's permission set as it was (a skill disabled, a smaller SKILL.md
 * cap) keeps the record's worker: whatever that worker does before
 * the trusted part's `start` (loading, building, answering), the answers must
 * be those of the settings in force, byte for byte those of a start without
 * a record.
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
      clientInfo: { name: "start-record-settings", version: "1.0.0" },
    },
  },
  { jsonrpc: "2.0", method: "notifications/initialized" },
  { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "skill_list", arguments: {} } },
].map((message) => JSON.stringify(message)).join("\n") + "\n";

Deno.test({
  name:
    "attack: settings changed in the configuration file and overrides.json after the start record was written (same permission set) are in force on the record's early worker, answers equal a start without a record",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    await using checkout = await checkoutCopy("skillgate-r10-record-", "checkout");
    const root = checkout.root;
    const parent = `${root}/..`;
    const skills = `${parent}/skills-root`;
    for (const name of ["alpha", "beta", "gamma"]) {
      await Deno.mkdir(`${skills}/${name}`, { recursive: true });
      await Deno.writeTextFile(
        `${skills}/${name}/SKILL.md`,
        skillMd(name) + (name === "gamma" ? `\n${"g".repeat(3000)}\n` : ""),
      );
    }
    await Deno.mkdir(`${parent}/config/skillgate`, { recursive: true });
    const configFile = `${parent}/config/skillgate/config.json`;
    const env = { XDG_CONFIG_HOME: `${parent}/config`, XDG_CACHE_HOME: `${parent}/cache` };
    const serve = () =>
      runLauncher(`${root}/skillgate`, ["serve"], { cwd: parent, env, stdin: SESSION });
    const first = await runLauncher(`${root}/skillgate`, ["--version"], { cwd: root });
    assert.equal(first.code, 0, first.stderr);
    const record = `${root}/.bundle/${await recordedHash(root)}/start-record.json`;

    await Deno.writeTextFile(configFile, JSON.stringify({ roots: [skills] }));
    const before = await serve();
    assert.equal(before.code, 0, before.stderr);
    for (const name of ["alpha", "beta", "gamma"]) assert.match(before.stdout, new RegExp(name));
    const deadline = Date.now() + 20_000;
    while (!(await Deno.lstat(record).then(() => true, () => false))) {
      assert.ok(Date.now() < deadline, "no start record was written");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const recorded = await Deno.lstat(record);

    // Settings the key does not cover, none of which changes the worker's rights.
    await Deno.writeTextFile(
      configFile,
      JSON.stringify({ roots: [skills], maxSkillMdBytes: 2048 }),
    );
    const disable = await runLauncher(
      `${root}/skillgate`,
      ["override", "beta", "--disable"],
      { cwd: parent, env },
    );
    assert.equal(disable.code, 0, disable.stderr);
    const changed = await serve();
    assert.equal(changed.code, 0, changed.stderr);
    // Not written again (a start that did not read it as its own would rename a new one in).
    const after = await Deno.lstat(record);
    assert.deepEqual(
      [after.ino, after.mtime?.getTime()],
      [recorded.ino, recorded.mtime?.getTime()],
      "the record was rewritten: the early worker was not the record's (the attack proved nothing)",
    );

    await Deno.remove(record);
    const fresh = await serve();
    assert.equal(fresh.code, 0, fresh.stderr);
    assert.equal(changed.stdout, fresh.stdout, "the record's worker served other settings");
    assert.notEqual(fresh.stdout, before.stdout, "the settings changed nothing visible");
  },
});
