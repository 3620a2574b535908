/**
 * The bundled program run directly, without the launcher (s17 saw
 * `printf '<initialize>\n' | deno run ... .bundle/<hash>/main.js serve ...`
 * print its start line and not answer, while the same pipe through
 * ./skillgate answered; not reproduced in session 8 on this tree). With the
 * trusted flags, the bundle's main.js must answer an `initialize` whose
 * input ends at once, with no start record (the worker created when the
 * permission set is computed) and with the record the first run wrote (the
 * worker created first); without `--unstable-worker-options` it must stop
 * with Deno's message naming that flag, never hang.
 */

import assert from "node:assert/strict";
import { launcherEnv, runLauncher } from "../support/launcher.ts";
import { skillMd } from "../skills/_tree.ts";
import { trustedRunFlags } from "../../src/sandbox/trusted_flags.ts";
import { checkoutCopy, recordedHash } from "./_checkout_copy.ts";

const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "direct-run", version: "1.0.0" },
  },
}) + "\n";

/** Runs `deno run FLAGS main.js serve ROOT` with the initialize line as its whole input. */
async function runDirect(
  main: string,
  flags: readonly string[],
  root: string,
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...flags, main, "serve", root],
    cwd: root,
    clearEnv: true,
    env: launcherEnv(env),
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(INITIALIZE));
  await writer.close();
  const output = await child.output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

Deno.test("the bundled main.js run directly with the trusted flags answers an initialize whose input ends at once, without and with its start record", async () => {
  await using checkout = await checkoutCopy("skillgate-s26-direct-", "checkout");
  const root = checkout.root;
  const skills = `${root}/../skills`;
  for (const name of ["alpha", "beta"]) {
    await Deno.mkdir(`${skills}/${name}`, { recursive: true });
    await Deno.writeTextFile(`${skills}/${name}/SKILL.md`, skillMd(name));
  }
  const built = await runLauncher(`${root}/skillgate`, ["--version"], { cwd: root });
  assert.equal(built.code, 0, built.stderr);
  const hash = await recordedHash(root);
  const bundle = `${root}/.bundle/${hash}`;
  const env = { DENO_DIR: `${bundle}/deno`, XDG_CACHE_HOME: `${root}/../cache` };
  const flags = ["--config", `${root}/deno.json`, ...trustedRunFlags()];
  const record = `${bundle}/start-record.json`;
  for (const start of ["no start record", "the start record"]) {
    const hasRecord = await Deno.lstat(record).then(() => true, () => false);
    assert.equal(hasRecord, start === "the start record", `expected ${start}`);
    const run = await runDirect(`${bundle}/main.js`, flags, skills, env);
    assert.equal(run.code, 0, `${start}: ${run.stderr}`);
    const answer = JSON.parse(run.stdout.split("\n")[0]!) as { id: number; result?: unknown };
    assert.equal(answer.id, 1, `${start}: ${run.stdout}`);
    assert.ok(answer.result !== undefined, `${start}: ${run.stdout}`);
    assert.match(run.stderr, /serving 2 skills over stdio/);
    if (!hasRecord) {
      // Written once the first answer went out; the process may end first on a loaded machine.
      for (let waited = 0; waited < 200; waited++) {
        if (await Deno.lstat(record).then(() => true, () => false)) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  }
  const unflagged = await runDirect(
    `${bundle}/main.js`,
    flags.filter((flag) => flag !== "--unstable-worker-options"),
    skills,
    env,
  );
  assert.notEqual(unflagged.code, 0);
  assert.equal(unflagged.stdout, "");
  assert.match(unflagged.stderr, /--unstable-worker-options/);
});
