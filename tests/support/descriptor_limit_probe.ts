/**
 * Runs a probe module in a Deno process of its own whose open-file limit is
 * `ulimit -n 64` (soft and hard, set by `/bin/sh` before it execs Deno), so a
 * test can take every free descriptor without starving the test runner, and
 * returns the JSON object the probe printed last. Linux (and any POSIX sh).
 *
 * @module
 */

import assert from "node:assert/strict";
import { makeTree, skillMd } from "../skills/_tree.ts";

/**
 * Runs `probePath` (a module the probe test wrote) with `--allow-all` under
 * `ulimit -n 64`, with `args` after it; asserts it exited 0 (its stderr as
 * the message) and parses the last line it printed.
 *
 * @param probePath Absolute path of the probe module.
 * @param args Arguments passed to the probe (`Deno.args`).
 * @returns The probe's last stdout line, parsed as JSON.
 * @throws {AssertionError} When the probe exited non-zero.
 *
 * Requires `--allow-run` (`/bin/sh`, Deno) and `--allow-read` on this repository's `deno.json`.
 */
export async function runAtDescriptorLimit<T>(
  probePath: string,
  args: readonly string[],
): Promise<T> {
  const output = await new Deno.Command("/bin/sh", {
    args: [
      "-c",
      'ulimit -n 64 && exec "$0" "$@"',
      Deno.execPath(),
      "run",
      "--allow-all",
      "--cached-only",
      "--config",
      new URL("../../deno.json", import.meta.url).pathname,
      probePath,
      ...args,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(output.stderr);
  assert.equal(output.code, 0, stderr);
  return JSON.parse(new TextDecoder().decode(output.stdout).trim().split("\n").at(-1)!) as T;
}

/**
 * Writes a tree holding the skill `alpha` (its SKILL.md and `notes.md`) and
 * `probe` as `probe.ts`, runs the probe with the tree's real path under
 * {@linkcode runAtDescriptorLimit}, and removes the tree.
 *
 * @param probe The probe module's source.
 * @returns What the probe printed last, parsed as JSON.
 *
 * Requires what {@linkcode runAtDescriptorLimit} does, and `--allow-write` on the temporary folder.
 */
export async function runAlphaProbeAtDescriptorLimit<T>(probe: string): Promise<T> {
  await using tree = await makeTree({
    "alpha/SKILL.md": skillMd("alpha"),
    "alpha/notes.md": "notes\n",
    "probe.ts": probe,
  });
  return await runAtDescriptorLimit<T>(tree.at("probe.ts"), [Deno.realPathSync(tree.path)]);
}
