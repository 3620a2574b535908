/**
 * The isolation modes this machine offers, probed once per test module, and
 * the rule for sandbox tests: in CI (`CI=true`) a missing sandbox is a
 * failure (CI installs bubblewrap); locally the sandbox tests are skipped
 * with one line on stderr saying why.
 *
 * @module
 */

import { type Isolation, probeIsolation } from "../../src/scripts/isolation.ts";
import { createGroupKiller } from "../../src/sandbox/group_killer.ts";

/** The `sh` the probes use. */
export const PROBE_SH = "/bin/sh";

/** Whether these tests run in CI, where every mode's tests must run. */
export const IS_CI = Deno.env.get("CI") === "true";

/**
 * Probes one mode as the owner would demand it.
 *
 * @param requested `sandbox`, `pid-namespace` or `group`.
 * @returns The isolation when this machine gives exactly that mode, else null.
 */
export async function isolationFor(
  requested: "sandbox" | "pid-namespace" | "group",
): Promise<Isolation | null> {
  const isolation = await probeIsolation({
    shPath: PROBE_SH,
    killer: createGroupKiller(),
    requested,
  });
  const wanted = requested === "group" ? "process-group" : requested;
  return isolation.mode === wanted && isolation.refusal === undefined ? isolation : null;
}

/**
 * The sandbox, or null after one stderr line (locally); in CI a missing
 * sandbox registers a failing test instead.
 *
 * @param module The test module's name, for the line.
 * @returns The sandbox isolation, or null when the sandbox tests must be skipped.
 */
export async function sandboxOrSkip(module: string): Promise<Isolation | null> {
  const sandbox = await isolationFor("sandbox");
  if (sandbox !== null) return sandbox;
  const why = (await probeIsolation({
    shPath: PROBE_SH,
    killer: createGroupKiller(),
    requested: "sandbox",
  })).refusal ?? "no sandbox";
  if (IS_CI) {
    Deno.test(`bubblewrap sandbox is available in CI (${module})`, () => {
      throw new Error(`CI must run the sandbox tests: ${why}`);
    });
  } else {
    console.error(`${module}: sandbox tests skipped: ${why}`);
  }
  return null;
}
