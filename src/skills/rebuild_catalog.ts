/**
 * Incremental catalog rebuilds for live refresh. Changed paths are mapped to
 * the skill folders that hold them and only those skills are loaded again;
 * a full rescan happens only when something outside every skill changed (a
 * folder added, removed or renamed at root level), and even then skills
 * nobody touched are reused when their SKILL.md kept its size and mtime.
 * A skill whose SKILL.md stops loading keeps its last good version, marked
 * `isLastGood`, with the problem reported. The result is a new frozen
 * snapshot; the previous one is never changed.
 *
 * @module
 */

import type { Caps } from "../caps.ts";
import { buildCatalog, type BuildCatalogOptions, type SkillLoader } from "./catalog.ts";
import { freezeCatalog } from "./_freeze.ts";
import { readFolderExactly, type Subtree } from "./_read_folder.ts";
import { type LoadedSkill, loadSkill } from "./_load_skill.ts";
import { isInside, joinPath, parentPath, SEP } from "./_path.ts";
import { mapPool } from "./_pool.ts";
import { createTimeSlice, DEFAULT_SLICE_MS, type GiveWay } from "./_time_slice.ts";
import type { SkillCandidate } from "./discover.ts";
import { extensionProblems } from "./extension_eligibility.ts";
import type { Problem } from "./problem.ts";
import type { Catalog, Skill } from "./skill.ts";

/** Options of {@linkcode rebuildCatalog}. */
export interface RebuildOptions {
  readonly caps: Caps;
  /** Loads one skill folder (tests inject a counting loader). @default loadSkill */
  readonly load?: SkillLoader;
  /** Loads and file-system calls in flight at most. @default 32 */
  readonly concurrency?: number;
  /** Background work: give way to client requests (see `createTimeSlice`). @default none */
  readonly giveWay?: GiveWay;
}

/** What a rebuild did. */
export interface Rebuild {
  /** The new snapshot (the previous one when nothing relevant changed). */
  readonly catalog: Catalog;
  /** Whether discovery ran over every root again. */
  readonly isFullRescan: boolean;
  /** Skill folders loaded again. */
  readonly loaded: number;
}

/** Problems that discovery (not loading) reports inside a skill folder. */
const DISCOVERY_REASONS: ReadonlySet<Problem["reason"]> = new Set(["skill-md-case"]);

/**
 * Rebuilds a catalog after the paths in `changedPaths` changed.
 *
 * A path inside a served skill's folder (lexical or real path) reloads that
 * skill; a path under a dot-folder or `node_modules` (never served) is
 * ignored; any other path inside or at a root triggers a full rescan. A
 * skill whose folder vanished, moved or lost its SKILL.md triggers a full
 * rescan too.
 *
 * @param previous The snapshot being served.
 * @param changedPaths Absolute paths reported by the file watcher.
 * @param options Caps, the loader and concurrency.
 * @returns The new snapshot, whether it was a full rescan and how many
 *   skills were loaded again.
 *
 * Requires `--allow-read` on the roots.
 *
 * Rule source: issue 6 ("refresh cost grows with what changed"; "keep
 * serving its last good version and report the problem").
 */
export async function rebuildCatalog(
  previous: Catalog,
  changedPaths: readonly string[],
  options: RebuildOptions,
): Promise<Rebuild> {
  const index = indexSkills(previous);
  const touched = new Set<Skill>();
  let needsRescan = false;
  for (const path of changedPaths) {
    const skill = owningSkill(index, path);
    if (skill !== null) {
      if (!isIgnoredInside(skill, path)) touched.add(skill);
    } else if (!isIgnoredOutside(previous, path)) {
      needsRescan = true;
    }
  }
  const load = options.load ?? loadSkill;
  if (!needsRescan) {
    if (touched.size === 0) return { catalog: previous, isFullRescan: false, loaded: 0 };
    const slice = createTimeSlice(DEFAULT_SLICE_MS, options.giveWay);
    const reloaded = await mapPool(
      [...touched],
      options.concurrency ?? 32,
      async (skill) => {
        await slice.pause();
        return await reloadInPlace(skill, options.caps, load);
      },
    );
    if (reloaded.every((result) => result !== null)) {
      return {
        catalog: replaceSkills(previous, reloaded as Replacement[]),
        isFullRescan: false,
        loaded: reloaded.length,
      };
    }
  }
  return await fullRescan(previous, touched, options);
}

interface Replacement {
  readonly old: Skill;
  /** The skill now; null when it is no longer served (SKILL.md unreadable). */
  readonly skill: Skill | null;
  readonly problems: readonly Problem[];
}

interface SkillIndex {
  /** Skills by lexical and by real folder path. */
  readonly byDir: ReadonlyMap<string, Skill>;
}

function indexSkills(catalog: Catalog): SkillIndex {
  const byDir = new Map<string, Skill>();
  for (const skill of catalog.skills) {
    byDir.set(skill.dir, skill);
    byDir.set(skill.realDir, skill);
  }
  return { byDir };
}

/** The served skill whose folder holds `path` (the innermost one), or null. */
function owningSkill(index: SkillIndex, path: string): Skill | null {
  for (let at: string | null = trimSeparator(path); at !== null; at = parentPath(at)) {
    const skill = index.byDir.get(at);
    if (skill !== undefined) return skill;
  }
  return null;
}

function trimSeparator(path: string): string {
  return path.length > 1 && path.endsWith(SEP) ? path.slice(0, -1) : path;
}

/** Segments of `path` below `base`, or null when it is not inside. */
function segmentsBelow(path: string, base: string): string[] | null {
  if (!isInside(path, base)) return null;
  const rest = path.slice(base.length).split(SEP).filter((segment) => segment !== "");
  return rest;
}

/** A change under a dot-entry or `node_modules` of a skill: never listed, so ignored. */
function isIgnoredInside(skill: Skill, path: string): boolean {
  const segments = segmentsBelow(path, skill.dir) ?? segmentsBelow(path, skill.realDir) ?? [];
  return segments.some((segment) => segment.startsWith(".") || segment === "node_modules");
}

/**
 * A change outside every skill that cannot change discovery: under
 * `node_modules` or a dot-folder other than the `.claude/skills` and
 * `.agents/skills` containers, or outside every root.
 */
function isIgnoredOutside(catalog: Catalog, path: string): boolean {
  for (const root of catalog.roots) {
    const segments = segmentsBelow(path, root.path);
    if (segments === null) continue;
    return segments.some((segment, i) => {
      if (segment === "node_modules") return true;
      if (!segment.startsWith(".")) return false;
      const isContainer = i === 0 && (segment === ".claude" || segment === ".agents") &&
        (segments[1] === undefined || segments[1] === "skills");
      return !isContainer;
    });
  }
  // Outside the lexical roots: a symlink target's real path. Skills are
  // indexed by real path too, so a path here belongs to no served skill and
  // may be a new one: rescan unless it is a dot or node_modules path.
  return path.split(SEP).some((segment) => segment === "node_modules");
}

/**
 * Loads one skill again from its folder. Returns null when the folder is no
 * longer the same skill (gone, moved, SKILL.md removed or renamed): the
 * caller then rescans.
 */
async function reloadInPlace(
  old: Skill,
  caps: Caps,
  load: SkillLoader,
): Promise<Replacement | null> {
  let realDir: string;
  try {
    realDir = Deno.realPathSync(old.dir);
  } catch {
    return null;
  }
  if (realDir !== old.realDir) return null;
  // Read exactly, as discovery reads (`_read_folder.ts`): a folder exchanged for a symlink since
  // its `realpath` is `changed`, and the caller's rescan decides again.
  let entries: Deno.DirEntry[];
  let subtree: Subtree | undefined;
  try {
    const read = await readFolderExactly(realDir);
    if (read.kind !== "read") return null;
    entries = read.entries;
    subtree = read.subtree;
  } catch {
    return null;
  }
  const skillMd = entries.find((entry) => entry.name === old.skillMdFile);
  if (skillMd === undefined || skillMd.isDirectory) return null;
  if (old.skillMdFile !== "SKILL.md" && entries.some((entry) => entry.name === "SKILL.md")) {
    return null;
  }
  const candidate: SkillCandidate = {
    name: old.name,
    baseName: old.baseName ?? old.name,
    ...(old.prefix === undefined ? {} : { prefix: old.prefix }),
    ...(old.source === undefined ? {} : { source: old.source }),
    dir: old.dir,
    realDir,
    root: old.root,
    skillMdFile: old.skillMdFile,
    entries,
    // Its sub-folders as read with it (s17): its listing asks for none of them again.
    ...(subtree === undefined ? {} : { subtree }),
  };
  return keepLastGood(old, await load(candidate, caps));
}

/**
 * Reasons `readSkillMd()` gives when SKILL.md itself cannot be read through
 * the gate any more (leads outside the skill, not served, gone, not a file,
 * not UTF-8): nothing of it can be served, so no last good version is kept.
 */
const UNREADABLE_SKILL_MD: ReadonlySet<Problem["reason"]> = new Set([
  "symlink-escape",
  "file-not-served",
  "unreadable-skill-md",
]);

/**
 * The loaded skill; the old one marked `isLastGood` when its SKILL.md was
 * read but no longer parses or validates (its catalog entry stays, its
 * SKILL.md is served by no door: `last_good.ts`); or no skill at all when
 * SKILL.md cannot be read through the gate now (review n7: a SKILL.md swapped
 * for an escaping symlink left a skill listed that no door could load).
 */
function keepLastGood(old: Skill, loaded: LoadedSkill): Replacement {
  if (loaded.skill !== null) return { old, skill: loaded.skill, problems: loaded.problems };
  const skillMdPath = joinPath(old.dir, old.skillMdFile);
  const isUnreadable = loaded.problems.some((found) =>
    found.severity === "error" && found.path === skillMdPath &&
    UNREADABLE_SKILL_MD.has(found.reason)
  );
  if (isUnreadable) return { old, skill: null, problems: loaded.problems };
  const problems = loaded.problems.map((found) =>
    found.severity === "error"
      ? Object.freeze({
        ...found,
        detail: `${found.detail}. Until it is fixed, the skill keeps the catalog entry of the ` +
          "last version that loaded and its SKILL.md is not served",
      })
      : found
  );
  const kept = old.isLastGood === true ? old : Object.freeze({ ...old, isLastGood: true });
  return { old, skill: kept, problems };
}

/** A new snapshot with some skills replaced in place (names do not change) or dropped. */
function replaceSkills(previous: Catalog, replacements: readonly Replacement[]): Catalog {
  const byOld = new Map(replacements.map((r) => [r.old, r]));
  const skills = previous.skills.flatMap((skill) => {
    const replaced = byOld.get(skill);
    if (replaced === undefined) return [skill];
    return replaced.skill === null ? [] : [replaced.skill];
  });
  const dirs = replacements.map((r) => r.old.dir);
  const kept = previous.problems.filter((found) =>
    found.reason !== "extension-excluded" &&
    (DISCOVERY_REASONS.has(found.reason) || !dirs.some((dir) => isInside(found.path, dir)))
  );
  const problems = [
    ...kept,
    ...replacements.flatMap((r) => r.problems),
    ...extensionProblems(skills),
  ];
  // Names do not change in place, so `skills` keeps the previous name order.
  return freezeCatalog(previous.roots, skills, problems);
}

/** Discovery over every root, reusing untouched skills whose SKILL.md is unchanged. */
async function fullRescan(
  previous: Catalog,
  touched: ReadonlySet<Skill>,
  options: RebuildOptions,
): Promise<Rebuild> {
  const byDir = new Map(previous.skills.map((skill) => [skill.dir, skill]));
  const load = options.load ?? loadSkill;
  let loaded = 0;
  const reuse: SkillLoader = async (candidate, caps) => {
    const old = byDir.get(candidate.dir);
    const isSame = old !== undefined && !touched.has(old) && old.realDir === candidate.realDir &&
      old.root === candidate.root && old.skillMdFile === candidate.skillMdFile;
    if (isSame && filesUnchanged(old)) {
      return { skill: old, problems: ownProblems(previous, old) };
    }
    loaded++;
    const fresh = await load(candidate, caps);
    if (fresh.skill === null && old !== undefined && old.realDir === candidate.realDir) {
      const kept = keepLastGood(old, fresh);
      return { skill: kept.skill, problems: kept.problems };
    }
    return fresh;
  };
  const buildOptions: BuildCatalogOptions = {
    load: reuse,
    // Most skills are reused as they were: their sub-folders would be read for nothing, in the
    // trusted part an edit's own reads wait behind (s17).
    readsSubtrees: false,
    ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
    ...(options.giveWay === undefined ? {} : { giveWay: options.giveWay }),
  };
  const catalog = await buildCatalog(previous.roots, options.caps, buildOptions);
  return { catalog, isFullRescan: true, loaded };
}

/**
 * Whether every file the skill lists is still the version listed (a `stat`
 * like the listing's: device, inode, size, mtime and ctime). Review r1: the
 * catch-up rescan after an early `initialize` passes only the roots, so no
 * skill is `touched`; comparing SKILL.md's size and mtime alone kept a skill
 * whose other file was edited, deleted or swapped for a link, or whose
 * SKILL.md was edited in place keeping both, and its old entry was listed.
 * A file added to a folder is not seen here (the skill lists no such file).
 */
function filesUnchanged(skill: Skill): boolean {
  if (!skill.files.some((listed) => listed.path === skill.skillMdFile)) return false;
  return skill.files.every((listed) => {
    try {
      const info = Deno.statSync(joinPath(skill.dir, listed.path));
      return info.isFile && info.size === listed.size &&
        (info.mtime?.getTime() ?? null) === listed.mtimeMs &&
        (listed.ctimeMs === undefined || (info.ctime?.getTime() ?? null) === listed.ctimeMs) &&
        (listed.dev === undefined || info.dev === listed.dev) &&
        (listed.ino === undefined || info.ino === listed.ino);
    } catch {
      return false;
    }
  });
}

/** The problems loading reported for a skill: those inside its folder. */
function ownProblems(catalog: Catalog, skill: Skill): Problem[] {
  return catalog.problems.filter((found) =>
    found.reason !== "extension-excluded" && !DISCOVERY_REASONS.has(found.reason) &&
    isInside(found.path, skill.dir)
  );
}
