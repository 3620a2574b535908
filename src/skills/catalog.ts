/**
 * Building the catalog: discovery across every root, deduplication by real
 * path, refusal of duplicate names, loading with bounded concurrency, the
 * skill cap, and a frozen snapshot.
 *
 * @module
 */

import type { Caps } from "../caps.ts";
import { freezeCatalog } from "./_freeze.ts";
import { compareCodeUnits } from "./_fs.ts";
import { createEarlyLoads } from "./_early_loads.ts";
import { type LoadedSkill, loadSkill } from "./_load_skill.ts";
import { isInside } from "./_path.ts";
import { mapPool } from "./_pool.ts";
import { problem } from "./_problems.ts";
import { createTimeSlice, DEFAULT_SLICE_MS, type GiveWay, type TimeSlice } from "./_time_slice.ts";
import { discoverRoot, type SkillCandidate } from "./discover.ts";
import { extensionProblems } from "./extension_eligibility.ts";
import { skillNameKey } from "./names.ts";
import { lookAlikeKey } from "./look_alike.ts";
import type { Problem } from "./problem.ts";
import type { Catalog, Root, Skill } from "./skill.ts";
import type { IndexCache } from "./index_cache.ts";

/** Loads one discovered skill folder (see `loadSkill`). */
export type SkillLoader = (candidate: SkillCandidate, caps: Caps) => Promise<LoadedSkill>;

/** Options of {@linkcode buildCatalog}. */
export interface BuildCatalogOptions {
  /**
   * Skill loads in flight at most, during discovery (loads started as each
   * candidate is found, s17) and in the ordered pass after it, each; the
   * pass may await an early load beside its own. The default loader's
   * file-system calls are synchronous, so this only matters for its awaited
   * calls (folder reads asked of the trusted part, the path gate's checks of
   * declared scripts) and for injected loaders. @default 32
   */
  readonly concurrency?: number;
  /**
   * Work time between yields to the event loop, in ms (discovery and loading
   * are synchronous file-system work; see `_time_slice.ts`). @default 10
   */
  readonly sliceMs?: number;
  /**
   * Background work (a catch-up rescan): each pause gives way to client
   * requests (see `createTimeSlice`). @default none
   */
  readonly giveWay?: GiveWay;
  /**
   * Loads each candidate; live refresh passes one that reuses unchanged
   * skills of the previous snapshot. @default loadSkill
   */
  readonly load?: SkillLoader;
  /**
   * The persistent index cache the default loader consults (`index_cache.ts`);
   * flushed once the build is done, unless `flushesIndexCache` is false.
   * @default none
   */
  readonly indexCache?: IndexCache;
  /**
   * Whether the build writes the index cache when it is done; false leaves
   * the write to the caller (the worker writes it once its first answer went
   * out; issue 13). @default true
   */
  readonly flushesIndexCache?: boolean;
  /**
   * Called once every root was walked, with how many skill folders will be
   * loaded: the worker answers `initialize` early for a large catalog (issue
   * 13). Loads started during discovery (s17) may be under way or done by
   * then: a choice made here (the worker's digest isolate for a build not
   * known cold before it began) applies to the loads started after it.
   * @default none
   */
  readonly onDiscovered?: (skillFolders: number) => void;
  /**
   * Called with each skill as soon as it is loaded, before the catalog is
   * complete: the worker hands its files to the digest isolate (issue 13).
   * @default none
   */
  readonly onLoaded?: (skill: Skill) => void;
  /**
   * Whether discovery reads each skill folder's sub-folders with it for its
   * listing (`DiscoverOptions.readsSubtrees`); false for a rescan whose
   * loader reuses unchanged skills (their listings are never read again).
   * @default true
   */
  readonly readsSubtrees?: boolean;
}

type Slot =
  | { readonly kind: "problem"; readonly problem: Problem }
  | { readonly kind: "candidate"; readonly candidate: SkillCandidate; loaded?: LoadedSkill };

/**
 * Builds an immutable catalog of every skill under `roots`. Roots are
 * searched in order; a skill folder reached twice (through overlapping roots
 * or links) counts once. A name used by two different folders refuses both
 * (`duplicate-name`). Loading starts as discovery finds each skill folder
 * (the first of each real folder, at most `caps.maxSkills`, never in
 * background work with `giveWay`: s17); the
 * catalog takes them in discovery order until `caps.maxSkills` are served,
 * and leaves the rest out with one `skill-limit` warning (a load started
 * early and not taken is dropped: loading is read-only). A
 * finding seen twice (overlapping roots) is reported once. Never throws for
 * anything found on disk: every failure is a problem. The walk uses
 * synchronous file-system calls and yields to the event loop every
 * `sliceMs`, so a large build does not stall requests served meanwhile.
 *
 * @param roots The configured roots, in priority order.
 * @param caps The caps to enforce.
 * @param options Concurrency, time slice and loader.
 * @returns The frozen catalog: roots as passed, skills sorted by name, a
 *   by-name map and the problems in discovery order.
 *
 * Requires `--allow-read` on the roots (nothing outside them is read).
 *
 * Rule source: skillgate discovery rules (README, "Discovery"); Agent Skills
 * client guidance ("load leniently").
 */
export async function buildCatalog(
  roots: readonly Root[],
  caps: Caps,
  options: BuildCatalogOptions = {},
): Promise<Catalog> {
  const concurrency = options.concurrency ?? 32;
  const slice = createTimeSlice(options.sliceMs ?? DEFAULT_SLICE_MS, options.giveWay);
  const slots: Slot[] = [];
  const claimed = new Set<string>();
  const load = options.load ??
    ((candidate, caps) => loadSkill(candidate, caps, options.indexCache));
  // Loads start as discovery finds each skill (s17): the worker loads while the trusted part
  // still reads folders. The ordered pass below takes them; one it never takes is dropped. Not
  // in background work (`giveWay`: a catch-up rescan): there the build's length matters less
  // than what it holds up, and a stop for an edit would wait for two pools in flight, not one.
  const early = createEarlyLoads(
    async (candidate) => {
      await slice.pause();
      return await load(candidate, caps);
    },
    concurrency,
    options.giveWay === undefined ? caps.maxSkills : 0,
  );
  // One early load a real folder (review r17 F2: overlapping roots find each folder twice; the
  // ordered pass keeps the first).
  const startedDirs = new Set<string>();
  const startEarly = (candidate: SkillCandidate) => {
    if (startedDirs.has(candidate.realDir) || claimed.has(candidate.realDir)) return;
    startedDirs.add(candidate.realDir);
    early.start(candidate);
  };
  try {
    for (const root of roots) {
      const found = await discoverRoot(root, {
        slice,
        onCandidate: startEarly,
        readsSubtrees: options.readsSubtrees ?? true,
      });
      for (const item of found.items) {
        if (item.kind === "problem") slots.push(item);
        else if (!claimed.has(item.candidate.realDir)) {
          claimed.add(item.candidate.realDir);
          slots.push({ kind: "candidate", candidate: item.candidate });
        }
      }
    }
  } finally {
    early.stop();
  }
  const loadable = refuseDuplicates(slots);
  options.onDiscovered?.(loadable.length);
  const leftOut = await loadUpToCap(loadable, caps, {
    concurrency,
    load: (candidate, caps) => early.take(candidate) ?? load(candidate, caps),
    slice,
    ...(options.onLoaded === undefined ? {} : { onLoaded: options.onLoaded }),
  });
  if (options.flushesIndexCache !== false) options.indexCache?.flush();
  const problems: Problem[] = [];
  const seen = new Set<string>();
  const note = (found: Problem) => {
    // Overlapping roots walk the same folders twice; report each finding once.
    const key = JSON.stringify([found.path, found.reason, found.detail]);
    if (!seen.has(key)) {
      seen.add(key);
      problems.push(found);
    }
  };
  const skills: Skill[] = [];
  for (const slot of slots) {
    if (slot.kind === "problem") note(slot.problem);
    else if (slot.loaded) {
      slot.loaded.problems.forEach(note);
      if (slot.loaded.skill) skills.push(slot.loaded.skill);
    }
  }
  const first = leftOut[0];
  if (first) {
    problems.push(problem(
      first.candidate.root,
      "skill-limit",
      "warning",
      `${leftOut.length} skill folder${leftOut.length === 1 ? " was" : "s were"} left out ` +
        `because at most ${caps.maxSkills} skills are served (the first left out is ` +
        `"${first.candidate.dir}"). Raise the skill cap or serve fewer roots`,
    ));
  }
  skills.sort((a, b) => compareCodeUnits(a.name, b.name));
  const served = refusePrefixCollisions(roots, skills, problems);
  problems.push(...extensionProblems(served));
  return freezeCatalog([...roots], served, problems);
}

/**
 * Leaves out every unprefixed skill named like a prefix in use, so
 * `skill://PREFIX/NAME/...` can never mean a local skill's nested file.
 */
function refusePrefixCollisions(
  roots: readonly Root[],
  skills: readonly Skill[],
  problems: Problem[],
): Skill[] {
  const prefixes = new Set(roots.flatMap((root) => root.prefix ?? []));
  return skills.filter((skill) => {
    if (skill.prefix !== undefined || !prefixes.has(skill.name)) return true;
    problems.push(problem(
      skill.dir,
      "prefix-collision",
      "error",
      `The skill "${skill.name}" has the name of a source prefix (PREFIX__NAME); it is not ` +
        "served. Rename the folder or give the source another prefix= option",
    ));
    return false;
  });
}

/**
 * Replaces every candidate whose name is shared by another folder with a
 * problem: the same name once Unicode-normalised and case-folded
 * (`skillNameKey()`), so NFC/NFD twins and case twins are refused like
 * byte-equal duplicates (review n7), and names that differ only by letters of
 * another script drawn alike (`lookAlikeKey()`: Cyrillic `рdf` and Latin
 * `pdf`). The message names the folders relative to their root, non-ASCII
 * characters escaped when the spellings differ.
 */
function refuseDuplicates(slots: Slot[]): Extract<Slot, { kind: "candidate" }>[] {
  const byKey = new Map<string, SkillCandidate[]>();
  for (const slot of slots) {
    if (slot.kind !== "candidate") continue;
    const key = lookAlikeKey(slot.candidate.name);
    const list = byKey.get(key) ?? [];
    list.push(slot.candidate);
    byKey.set(key, list);
  }
  const loadable: Extract<Slot, { kind: "candidate" }>[] = [];
  slots.forEach((slot, index) => {
    if (slot.kind !== "candidate") return;
    const same = byKey.get(lookAlikeKey(slot.candidate.name)) ?? [];
    if (same.length < 2) {
      loadable.push(slot);
      return;
    }
    slots[index] = {
      kind: "problem",
      problem: problem(
        slot.candidate.dir,
        "duplicate-name",
        "error",
        duplicateDetail(slot.candidate, same),
      ),
    };
  });
  return loadable;
}

/** The `duplicate-name` detail for `candidate`, one of the folders in `same`. */
function duplicateDetail(candidate: SkillCandidate, same: readonly SkillCandidate[]): string {
  const isSameSpelling = same.every((other) => other.name === candidate.name);
  const sameRoot = same.every((other) => other.root === candidate.root);
  const shown = (text: string) => isSameSpelling ? `"${text}"` : asciiQuoted(text);
  const dirs = same.map((other) => {
    const rel = isInside(other.dir, other.root) ? other.dir.slice(other.root.length) : "";
    const named = shown(rel.replace(/^\/+/, "") || other.dir);
    return sameRoot ? named : `${named} (root "${other.root}")`;
  }).join(", ");
  const where = sameRoot ? ` under the root "${candidate.root}"` : "";
  const isFoldedSame = same.every((other) =>
    skillNameKey(other.name) === skillNameKey(candidate.name)
  );
  const names = [...new Set(same.map((other) => shown(other.name)))].join(", ");
  const what = isSameSpelling
    ? `The skill name "${candidate.name}" is used by ${same.length} folders${where}: ${dirs}`
    : isFoldedSame
    ? `The skill names ${names} are the same name once Unicode-normalised and case-folded ` +
      `(NFKC, case-insensitive), used by ${same.length} folders${where}: ${dirs}`
    : `The skill names ${names} look alike (letters of another script drawn like Latin ones, ` +
      `Unicode TR39 confusables; NFKC, case-insensitive), used by ${same.length} ` +
      `folders${where}: ${dirs}`;
  return `${what}; none of them is served. Rename or remove all but one`;
}

/** `text` quoted with every character outside printable ASCII as `\u{...}`. */
function asciiQuoted(text: string): string {
  let out = "";
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    out += code >= 0x20 && code < 0x7f && char !== '"' && char !== "\\"
      ? char
      : `\\u{${code.toString(16).toUpperCase().padStart(4, "0")}}`;
  }
  return `"${out}"`;
}

/** Loads candidates in order until `caps.maxSkills` are served; returns those left out. */
async function loadUpToCap(
  loadable: Extract<Slot, { kind: "candidate" }>[],
  caps: Caps,
  options: {
    readonly concurrency: number;
    readonly load: SkillLoader;
    readonly slice: TimeSlice;
    readonly onLoaded?: (skill: Skill) => void;
  },
): Promise<Extract<Slot, { kind: "candidate" }>[]> {
  const { concurrency, load, slice, onLoaded } = options;
  let served = 0;
  let next = 0;
  while (served < caps.maxSkills && next < loadable.length) {
    const batch = loadable.slice(next, next + (caps.maxSkills - served));
    const results = await mapPool(batch, concurrency, async (slot) => {
      await slice.pause();
      const loaded = await load(slot.candidate, caps);
      if (loaded.skill && onLoaded !== undefined) onLoaded(loaded.skill);
      return loaded;
    });
    results.forEach((loaded, i) => {
      (batch[i] as { loaded?: LoadedSkill }).loaded = loaded;
      if (loaded.skill) served++;
    });
    next += batch.length;
  }
  return loadable.slice(next);
}
