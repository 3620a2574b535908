/**
 * The start record holds several command lines (issue 13, session 10's
 * MEDIUM perf finding): two clients that start skillgate with different
 * command lines, in turn, each find their own entry, so each creates its
 * worker first; a record of one command line made each of them miss it at
 * every start.
 */

import assert from "node:assert/strict";
import { runLauncher } from "../support/launcher.ts";
import { skillMd } from "../skills/_tree.ts";
import { checkoutCopy, recordedHash } from "./_checkout_copy.ts";
import { readStartRecord } from "../../src/sandbox/early_start.ts";

/** initialize, initialized, then skill_list: one JSON-RPC line each. */
const SESSION = [
  {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "start-record-lines", version: "1.0.0" },
    },
  },
  { jsonrpc: "2.0", method: "notifications/initialized" },
  { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "skill_list", arguments: {} } },
].map((message) => JSON.stringify(message)).join("\n") + "\n";

Deno.test({
  name:
    "two command lines started in turn each keep their start record entry: the second start of the first one finds it and rewrites nothing",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    await using checkout = await checkoutCopy("skillgate-record-lines-", "checkout");
    const root = checkout.root;
    const parent = `${root}/..`;
    for (const name of ["alpha", "beta"]) {
      await Deno.mkdir(`${parent}/${name}-root/${name}`, { recursive: true });
      await Deno.writeTextFile(`${parent}/${name}-root/${name}/SKILL.md`, skillMd(name));
    }
    const env = { XDG_CACHE_HOME: `${parent}/cache` };
    const serve = (name: string) =>
      runLauncher(`${root}/skillgate`, ["serve", `${parent}/${name}-root`], {
        cwd: parent,
        env,
        stdin: SESSION,
      });
    const first = await runLauncher(`${root}/skillgate`, ["--version"], { cwd: root });
    assert.equal(first.code, 0, first.stderr);
    const record = `${root}/.bundle/${await recordedHash(root)}/start-record.json`;
    /** Waits until the record holds `count` entries, the first naming `name`'s root. */
    const recorded = async (count: number, name: string) => {
      const deadline = Date.now() + 20_000;
      for (;;) {
        const entries = readStartRecord(record);
        if (entries?.length === count && entries[0]!.template.includes(`${name}-root`)) {
          return entries;
        }
        assert.ok(Date.now() < deadline, `the record: ${JSON.stringify(entries)}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };

    const alpha = await serve("alpha");
    assert.equal(alpha.code, 0, alpha.stderr);
    assert.match(alpha.stdout, /alpha/);
    await recorded(1, "alpha");
    const beta = await serve("beta");
    assert.equal(beta.code, 0, beta.stderr);
    assert.match(beta.stdout, /beta/);
    assert.doesNotMatch(beta.stdout, /alpha/);
    // Both command lines recorded, the latest first; alpha's entry kept.
    const both = await recorded(2, "beta");
    assert.match(both[1]!.template, /alpha-root/);
    assert.doesNotMatch(both[1]!.template, /beta-root/);
    const { ino } = await Deno.stat(record);

    // alpha again: its entry found (its worker created from it), so the record is not rewritten.
    const again = await serve("alpha");
    assert.equal(again.code, 0, again.stderr);
    assert.equal(again.stdout, alpha.stdout, "the same answers as its first start");
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal((await Deno.stat(record)).ino, ino, "alpha's start missed its entry");
    assert.deepEqual(readStartRecord(record), both);
  },
});
