/**
 * The launcher installs what it runs under `umask go-w` (s14, newcomer review):
 * that umask must never reach the program, whose files (index cache, the data
 * folder a script writes, overrides) keep the mode the caller's umask gives,
 * on a first run that installs and bundles and on the common path alike; and
 * a stricter umask is never widened (r7 review).
 */

import assert from "node:assert/strict";
import { Client, StdioClientTransport } from "../support/sdk_client.ts";
import { launcherEnv } from "../support/launcher.ts";
import { checkoutCopy } from "./_checkout_copy.ts";

/** The `Umask:` line of a process's /proc status, e.g. "0002". */
async function umaskOf(pid: number): Promise<string> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  const line = status.split("\n").find((entry) => entry.startsWith("Umask:"));
  assert.ok(line !== undefined, status);
  return line.slice("Umask:".length).trim();
}

/** Serves `root/../skills` through the copy's launcher under `umask`; returns the program's umask. */
async function servedUmask(root: string, umask: string): Promise<string> {
  const skills = `${root}/../skills/demo`;
  await Deno.mkdir(skills, { recursive: true });
  await Deno.writeTextFile(
    `${skills}/SKILL.md`,
    "---\nname: demo\ndescription: A demo skill. Use in tests.\n---\n# Demo\n",
  );
  const transport = new StdioClientTransport({
    command: "sh",
    // sh sets the caller's umask, then becomes the launcher, which becomes deno: one pid.
    args: [
      "-c",
      'umask "$0" && exec "$@"',
      umask,
      `${root}/skillgate`,
      "serve",
      `${root}/../skills`,
    ],
    cwd: root,
    env: launcherEnv({ XDG_CACHE_HOME: `${root}/../cache` }),
    stderr: "pipe",
  });
  const client = new Client({ name: "umask-attack-test", version: "1.0.0" });
  await client.connect(transport);
  try {
    const pid = transport.pid;
    assert.ok(pid !== null);
    // The process answering is deno running the program (no shell left in between).
    assert.match(await Deno.readLink(`/proc/${pid}/exe`), /deno$/);
    return await umaskOf(pid);
  } finally {
    await client.close();
  }
}

Deno.test("attack: the launcher's install umask (go-w) never reaches the program, on a first run that installs and bundles, nor later", async () => {
  await using checkout = await checkoutCopy("skillgate-umask-attack-", "checkout");
  const root = checkout.root;
  await Deno.remove(`${root}/node_modules`); // a first run: dependencies installed, bundle built
  assert.equal(await servedUmask(root, "002"), "0002");
  assert.ok((await Deno.stat(`${root}/node_modules/.skillgate-deps-go-w`)).isFile);
  assert.equal(await servedUmask(root, "002"), "0002"); // the common path
  assert.equal(await servedUmask(root, "007"), "0007");
  // A stricter umask than go-w is never widened either.
  assert.equal(await servedUmask(root, "077"), "0077");
});
