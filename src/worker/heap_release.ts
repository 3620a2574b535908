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
 * A smaller catalog's start-up leaves garbage too, of another kind: loading
 * the modules and answering the first request grow V8's young generation
 * (10-11 MiB committed in the worker at 12 skills, ~2 MiB of it live), and
 * nothing gives it back until V8's memory reducer runs, many seconds later
 * and only after a full collection. So the worker compacts once when its
 * start-up is over ({@linkcode releaseStartupHeap}), and the trusted part
 * once the worker is ready (its configuration, checks and start-up modules:
 * 2 MiB of V8 heap, ~1 MiB of RSS): at 12 skills RSS after start and a
 * `skill_list` ~86 -> ~78-79 MiB against the wall floor's ~74-76 (section
 * s12).
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
 * smaller heap; nothing else in the isolate runs meanwhile. After a COLD
 * large build over stdio the worker runs it (with the index cache write
 * before it) once the client's first requests paused instead: that client's
 * first full `skills/list` followed the build at once and waited for both
 * (s9-h4 in `bench/results/issue13.md`).
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

/**
 * After start-up, when the build did not compact (a catalog under
 * `HEAP_RELEASE_MIN_SKILLS` skills, or an isolate that builds none: the
 * trusted part once the worker is ready): runs V8's memory-reducing full
 * collection once, which also shrinks the young generation back to its
 * initial size (an ordinary major or minor collection does not: measured,
 * section s12). The worker calls it right after its first answer went out
 * (and the index cache was written), so that answer never waits for it; the
 * request after it does, once: the collection took 40-120 ms at 12 skills on
 * the shared 2-core machine at load 4-7 (section s12 of
 * `bench/results/issue13.md`).
 *
 * @param skillCount Skills in the first catalog (0 or more); 0 for an
 *   isolate that builds none.
 * @param collect The collector: `globalThis.gc` (present with the trusted
 *   flags' `--expose-gc`); when absent nothing happens.
 * @returns True when a collection ran.
 * @throws Nothing of its own; whatever `collect` throws.
 *
 * Needs no Deno permission. Source: V8's gc extension, as for
 * {@linkcode releaseBuildHeap}.
 */
export function releaseStartupHeap(
  skillCount: number,
  collect: ExposedGc | undefined = exposedGc(),
): boolean {
  if (collect === undefined || skillCount >= HEAP_RELEASE_MIN_SKILLS) return false;
  collect({ type: "major", execution: "sync", flavor: "last-resort" });
  return true;
}

/** `globalThis.gc` when the process was started with `--expose-gc`, else undefined. */
function exposedGc(): ExposedGc | undefined {
  const gc: unknown = (globalThis as { gc?: unknown }).gc;
  return typeof gc === "function" ? gc as ExposedGc : undefined;
}
