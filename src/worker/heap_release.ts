/**
 * Gives back the heap a large catalog's first build leaves behind (issue 13:
 * RSS at 10,000 skills). The build allocates far more than it keeps (the
 * index cache's parse lines and version tuples, stat results, paths and
 * lists being built) while it holds the catalog under construction, so much
 * of that garbage lives long enough to be promoted to V8's old generation,
 * between the objects the catalog keeps. V8 then keeps the grown old
 * generation: an ordinary major collection frees the garbage but leaves the
 * pages it was on committed, since nearly every page still holds a few live
 * objects. Measured at 10,000 real-shaped skills (warm index cache): live
 * heap ~28 MiB after the build, ~70-85 MiB committed; one compacting
 * collection brings the committed heap to ~29 MiB and the process RSS after
 * start and a `skill_list` from ~165 to ~113 MiB, for ~140-160 ms once, on
 * a loaded 2-core machine (`bench/results/issue13.md`, section s6).
 *
 * @module
 */

/**
 * From this many skills in the first catalog on, the worker compacts its
 * heap once after building it; below it the build leaves little behind and
 * start-up time matters more (at 12 skills the whole start is ~250 ms).
 */
export const HEAP_RELEASE_MIN_SKILLS = 1_000;

/** V8's `gc()` as `--expose-gc` installs it, with the options V8's gc extension reads. */
export type ExposedGc = (options: {
  readonly type: "major";
  readonly execution: "sync";
  readonly flavor: "last-resort";
}) => void;

/**
 * After the first catalog build: when the catalog is large, runs V8's
 * memory-reducing full collection once (V8's "last resort" flavour: full
 * collections with compaction until nothing more is freed, then unused pages
 * released to the system). It runs synchronously, before the requests
 * waiting for the catalog are answered, so they are answered from the
 * smaller heap; nothing else in the isolate runs meanwhile.
 *
 * @param skillCount Skills in the catalog just built (0 or more).
 * @param collect The collector: `globalThis.gc`, present when the process
 *   runs with `--v8-flags=--expose-gc` (one of the trusted flags,
 *   `src/sandbox/trusted_flags.json`); when it is absent nothing happens.
 * @returns True when a collection ran.
 * @throws Nothing of its own; whatever `collect` throws.
 *
 * Needs no Deno permission. Source: V8's gc extension
 * (`src/extensions/gc-extension.cc`: `type`, `execution`, `flavor`).
 */
export function releaseBuildHeap(
  skillCount: number,
  collect: ExposedGc | undefined = exposedGc(),
): boolean {
  if (collect === undefined || skillCount < HEAP_RELEASE_MIN_SKILLS) return false;
  collect({ type: "major", execution: "sync", flavor: "last-resort" });
  return true;
}

/** `globalThis.gc` when the process was started with `--expose-gc`, else undefined. */
function exposedGc(): ExposedGc | undefined {
  const gc: unknown = (globalThis as { gc?: unknown }).gc;
  return typeof gc === "function" ? gc as ExposedGc : undefined;
}
