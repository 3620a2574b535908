/**
 * What every benchmark section shares: how many repetitions to run, the
 * fixtures (a skills corpus and generated catalogs, created once and deleted
 * at the end), the floor server's figures (measured once per run), temporary
 * folders, and progress logging to stderr.
 *
 * @module
 */

import { FIXTURE_CORPUS, realWorldCorpus } from "../tests/support/corpora.ts";
import { basename } from "node:path";
import { FLOOR_TOOL } from "./floor_server.ts";
import { measureRequests, measureStartup, type StartupFigures } from "./support/measure.ts";
import { readTreeRss } from "./support/process_rss.ts";
import { floorCommand, openSession } from "./support/servers.ts";
import { type GeneratedRoot, generateSkills } from "./support/skill_generator.ts";
import type { Summary } from "./support/stats.ts";

/** Catalogs at or above this many skills get the large-catalog repetitions. */
export const LARGE_CATALOG_SKILLS = 5_000;

/** How many times to repeat each kind of measurement. */
export interface Repetitions {
  /** Counted spawns for start-up (after one warm-up spawn). */
  readonly spawns: number;
  /** Counted calls for request latency (after five warm-up calls). */
  readonly calls: number;
  /** Counted full enumerations of a paged list (after one warm-up). */
  readonly pagings: number;
}

/** The floor server's figures, measured once per run. */
export interface FloorFigures {
  readonly startup: StartupFigures;
  /** Round trip of `tools/call` of its trivial tool, in ms. */
  readonly requestMs: Summary;
  /** RSS of the floor after its calls, in MiB (null without `/proc`). */
  readonly rssAfterCallsMib: number | null;
}

/** The shared state handed to every section. */
export interface BenchContext {
  /** Whether `--quick` asked for few repetitions (figures are then rough). */
  readonly isQuick: boolean;
  /**
   * Path of the skills corpus measured (read-only): the real-world corpus when
   * present (`SKILLGATE_CORPUS` or `../shared/corpus/anthropic-skills`, as in
   * the tests), else the fixture corpus `tests/fixtures/corpus`.
   */
  readonly corpus: string;
  /** The corpus's name in tables, e.g. `corpus (anthropic-skills)` or `corpus (fixture)`. */
  readonly corpusLabel: string;
  /** How many skills the corpus serves. */
  readonly corpusSkills: number;
  /** A skill of the corpus that sections read (its many-files skill, e.g. `theme-factory`). */
  readonly corpusSkill: string;
  /** Parent folder of generated fixtures (the system temp folder unless BENCH_TMPDIR is set). */
  readonly tempParent: string | undefined;
  /** Repetitions for a catalog of `skills` skills (fewer for large catalogs). */
  repetitionsFor(skills: number): Repetitions;
  /** A generated catalog of `count` skills, created on first use and deleted at the end. */
  generated(count: number): Promise<GeneratedRoot>;
  /** Deletes a generated catalog now (to free disk early); later `generated` recreates it. */
  discardGenerated(count: number): Promise<void>;
  /** A fresh temporary folder deleted at the end. */
  makeTempDir(prefix?: string): Promise<string>;
  /** The floor server's figures, measured on first use. */
  floor(): Promise<FloorFigures>;
  /** Writes one progress line to stderr. */
  log(message: string): void;
}

/** A context plus the clean-up the runner owes at the end. */
export interface OwnedContext extends AsyncDisposable {
  readonly context: BenchContext;
}

/**
 * Creates the shared context.
 *
 * @param options `isQuick` for few repetitions; `tempParent` for fixtures.
 * @returns The context; dispose it to delete every fixture and temporary folder.
 *
 * Requires `--allow-all` (spawning, `/proc`, temporary folders).
 */
export function createBenchContext(
  options: { isQuick: boolean; tempParent?: string },
): OwnedContext {
  const generated = new Map<number, Promise<GeneratedRoot>>();
  const tempDirs: string[] = [];
  let floor: Promise<FloorFigures> | null = null;
  const log = (message: string) => console.error(`bench: ${message}`);
  const corpus = realWorldCorpus() ?? FIXTURE_CORPUS;
  const corpusName = corpus === FIXTURE_CORPUS ? "fixture" : basename(corpus.path);

  const context: BenchContext = {
    isQuick: options.isQuick,
    corpus: corpus.path,
    corpusLabel: `corpus (${corpusName})`,
    corpusSkills: corpus.names.length,
    corpusSkill: corpus.facts.rich.skill,
    tempParent: options.tempParent,
    repetitionsFor: (skills) => repetitionsFor(skills, options.isQuick),
    generated(count) {
      let entry = generated.get(count);
      if (entry === undefined) {
        log(`generating ${count.toLocaleString("en-US")} skills...`);
        const startedAt = performance.now();
        entry = generateSkills(count, {
          ...(options.tempParent === undefined ? {} : { parent: options.tempParent }),
        }).then((root) => {
          const seconds = ((performance.now() - startedAt) / 1000).toFixed(1);
          log(
            `generated ${root.files} files (${(root.bytes / 1048576).toFixed(1)} MiB) ` +
              `in ${root.root} in ${seconds} s`,
          );
          return root;
        });
        generated.set(count, entry);
      }
      return entry;
    },
    async discardGenerated(count) {
      const entry = generated.get(count);
      if (entry === undefined) return;
      generated.delete(count);
      await removeGenerated(await entry.catch(() => null), log);
    },
    async makeTempDir(prefix = "skillgate-bench-") {
      const dir = await Deno.makeTempDir({
        prefix,
        ...(options.tempParent === undefined ? {} : { dir: options.tempParent }),
      });
      tempDirs.push(dir);
      return dir;
    },
    floor() {
      floor ??= measureFloor(context);
      return floor;
    },
    log,
  };

  return {
    context,
    [Symbol.asyncDispose]: async () => {
      for (const entry of generated.values()) {
        await removeGenerated(await entry.catch(() => null), log);
      }
      generated.clear();
      for (const dir of tempDirs.splice(0)) {
        await Deno.remove(dir, { recursive: true }).catch(() => {});
      }
    },
  };
}

/**
 * The repetitions used for a catalog size.
 *
 * @param skills Skills in the catalog (0 for the floor).
 * @param isQuick Whether `--quick` was given.
 * @returns Spawns, calls and pagings: 15/50/10 normally, 5/50/3 from
 *   {@linkcode LARGE_CATALOG_SKILLS} skills, 3/10/2 (1/10/1 large) when quick.
 */
export function repetitionsFor(skills: number, isQuick: boolean): Repetitions {
  const isLarge = skills >= LARGE_CATALOG_SKILLS;
  if (isQuick) return { spawns: isLarge ? 1 : 3, calls: 10, pagings: isLarge ? 1 : 2 };
  return isLarge ? { spawns: 5, calls: 50, pagings: 3 } : { spawns: 15, calls: 50, pagings: 10 };
}

async function removeGenerated(root: GeneratedRoot | null, log: (message: string) => void) {
  if (root === null) return;
  const startedAt = performance.now();
  await root.remove();
  const seconds = ((performance.now() - startedAt) / 1000).toFixed(1);
  log(`removed ${root.root} (${root.skills.toLocaleString("en-US")} skills) in ${seconds} s`);
}

async function measureFloor(context: BenchContext): Promise<FloorFigures> {
  const reps = context.repetitionsFor(0);
  context.log(`floor: ${reps.spawns} spawns...`);
  const startup = await measureStartup(floorCommand(), { spawns: reps.spawns });
  const session = await openSession(floorCommand());
  await using _child = session.child;
  context.log(`floor: ${reps.calls} tools/call round trips...`);
  const { latencyMs } = await measureRequests(session.child, {
    method: "tools/call",
    params: { name: FLOOR_TOOL, arguments: {} },
  }, { calls: reps.calls });
  const tree = await readTreeRss(session.child.pid);
  return {
    startup,
    requestMs: latencyMs,
    rssAfterCallsMib: tree === null ? null : tree.rssKib / 1024,
  };
}
