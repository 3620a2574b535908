/**
 * The file listing of one skill: a sorted, capped walk of its folder that
 * skips dot-entries and `node_modules`, follows symlinks only inside the
 * skill's real folder (never back into a folder it is inside) and lists
 * exactly the files the one served-file rule passes
 * (`src/files/served_name.ts`, the rule every reader applies too); every
 * other file is reported, never dropped silently.
 *
 * The walk costs one `readdir` per folder and one `lstat` per file (size,
 * mtime and identity are needed for every file), synchronous calls (see
 * `_fs.ts`), and one `lstat` per folder after its walk, the skill folder
 * included: `readdir` follows symlinks, and a folder's entry (the skill
 * folder's come from discovery) may be a symlink by then (review r5). A
 * symlink alone costs a `realpath` too: every other entry lies lexically
 * under a real folder, so its real path is that folder's real path plus its
 * name, with no call.
 *
 * @module
 */

import { relative, sep } from "node:path";
import {
  checkServedFile,
  checkServedPath,
  isQuietlySkippedName,
  type RuleBreach,
} from "../files/served_name.ts";
import { compareCodeUnits, readSortedEntries } from "./_fs.ts";
import { isInside, joinPath } from "./_path.ts";
import { errorName, escapeProblem, problem } from "./_problems.ts";
import type { SkillCandidate } from "./discover.ts";
import type { Problem } from "./problem.ts";
import type { SkillFile } from "./skill.ts";

/** The files of one skill. */
export interface FileListing {
  /** Every listed file, sorted by path (code-unit order). */
  readonly files: SkillFile[];
  /** Sum of file sizes in bytes. */
  readonly bytes: number;
  /** Whether the walk stopped at a cap. */
  readonly truncated: boolean;
  readonly problems: Problem[];
}

/** Caps of {@linkcode listSkillFiles}. */
export interface ListCaps {
  readonly maxFilesPerSkill: number;
  readonly maxFoldersPerSkill: number;
}

/** What {@linkcode listSkillFiles} needs of a file entry's `lstat`. */
export interface EntryInfo {
  readonly isFile: boolean;
  readonly isDirectory: boolean;
  readonly isSymlink: boolean;
  readonly size: number;
  readonly mtime: Date | null;
  readonly ctime: Date | null;
  readonly dev: number;
  readonly ino: number | null;
}

/**
 * Takes the version of a folder entry read as a regular file (no symlink):
 * `lexical` is its path under the skill's lexical folder, `real` under the
 * real one (the same file), `rel` its path in the skill. Must answer what
 * `Deno.lstatSync(lexical)` answers, or throw as it does.
 */
export type EntryStat = (lexical: string, real: string, rel: string) => EntryInfo;

/** `Deno.lstatSync` of the lexical path: the listing's own way. */
const lstatEntry: EntryStat = (lexical) => Deno.lstatSync(lexical);

/**
 * Lists a skill's files, starting with its SKILL.md. The walk is depth
 * first in name order and stops at the first cap it meets.
 *
 * @param candidate The skill folder (its entries are reused).
 * @param skillMd The SKILL.md entry, listed first.
 * @param caps Files and folders at most.
 * @param statEntry How a regular file entry's version is taken (default
 *   `Deno.lstatSync` of its lexical path; the digest isolate takes it from
 *   the handle it opens to hash the file, issue 13).
 * @returns The sorted files, their total bytes, whether a cap cut the walk,
 *   and `symlink-escape`, `symlink-loop`, `file-not-served`, `unusable-path`,
 *   `nested-skill`, `file-limit` and `folder-limit` warnings.
 *
 * Requires `--allow-read` on the skill folder.
 */
export function listSkillFiles(
  candidate: SkillCandidate,
  skillMd: SkillFile,
  caps: ListCaps,
  statEntry: EntryStat = lstatEntry,
): FileListing {
  const files: SkillFile[] = [skillMd];
  const problems: Problem[] = [];
  let folders = 0;
  let stopped = false;
  const warn = (path: string, reason: Problem["reason"], detail: string) =>
    problems.push(problem(path, reason, "warning", detail));

  type Resolved =
    | { readonly kind: "skip" }
    | { readonly kind: "problem"; readonly problem: Problem }
    | { readonly kind: "file"; readonly file: SkillFile }
    | {
      readonly kind: "dir";
      readonly lexical: string;
      readonly real: string;
      readonly rel: string;
    };

  function resolve(
    entry: Deno.DirEntry,
    lexDir: string,
    realDir: string,
    relDir: string,
    chain: ReadonlySet<string>,
  ): Resolved {
    if (isQuietlySkippedName(entry.name)) return { kind: "skip" };
    if (relDir === "" && entry.name === candidate.skillMdFile) return { kind: "skip" };
    const rel = sharedPath(relDir === "" ? entry.name : `${relDir}/${entry.name}`);
    const lexical = joinPath(lexDir, entry.name);
    const own = checkServedPath(rel);
    if (own !== null) return notServed(lexical, own);
    let real = joinPath(realDir, entry.name);
    let info: EntryInfo | null = null;
    try {
      if (entry.isSymlink) {
        real = Deno.realPathSync(lexical);
        if (!isInside(real, candidate.realDir)) {
          return {
            kind: "problem",
            problem: escapeProblem(lexical, "the skill folder", "warning"),
          };
        }
        // The resolved path, not the link again: a link retargeted since `realpath` is not
        // followed out of the skill (review r5).
        info = Deno.lstatSync(real);
        if (info.isSymlink) return changedWhileListed(lexical, rel);
        if (info.isDirectory && chain.has(real)) {
          return {
            kind: "problem",
            problem: problem(
              lexical,
              "symlink-loop",
              "warning",
              `Symlink "${rel}" leads back to a folder it is inside, so its files would be ` +
                "listed again and again; it is not followed. Remove the link",
            ),
          };
        }
        const breach = checkServedFile(rel, relative(candidate.realDir, real).split(sep).join("/"));
        if (breach !== null) return notServed(lexical, breach);
      } else if (entry.isFile) {
        // `lstat`, not `stat` (same cost): an entry read as a file (by discovery, maybe long
        // before) that is a symlink now is not followed to an outside file (review r5).
        info = statEntry(lexical, real, rel);
        if (info.isSymlink) return changedWhileListed(lexical, rel);
      }
    } catch (error) {
      return {
        kind: "problem",
        problem: problem(
          lexical,
          "unusable-path",
          "warning",
          `"${rel}" cannot be read (${errorName(error)}); not listed`,
        ),
      };
    }
    if (info?.isFile) {
      return {
        kind: "file",
        file: {
          path: rel,
          size: info.size,
          mtimeMs: info.mtime?.getTime() ?? null,
          ctimeMs: info.ctime?.getTime() ?? null,
          dev: info.dev,
          ino: info.ino,
        },
      };
    }
    if (entry.isDirectory || info?.isDirectory) return { kind: "dir", lexical, real, rel };
    return {
      kind: "problem",
      problem: problem(
        lexical,
        "unusable-path",
        "warning",
        `"${rel}" is not a regular file or folder; not listed`,
      ),
    };
  }

  function walk(
    lexDir: string,
    realDir: string,
    relDir: string,
    entries: readonly Deno.DirEntry[],
    chain: Set<string>,
  ): void {
    if (relDir !== "" && entries.some((e) => e.name === "SKILL.md" || e.name === "skill.md")) {
      warn(
        lexDir,
        "nested-skill",
        `Folder "${lexDir}" holds its own SKILL.md inside skill "${candidate.name}"; it is ` +
          "served as files of that skill, not as a skill. Move it out to serve it on its own",
      );
    }
    for (const entry of entries) {
      if (stopped) return;
      // Resolved one at a time: nothing past a cap is ever stat'ed.
      const item = resolve(entry, lexDir, realDir, relDir, chain);
      if (item.kind === "problem") problems.push(item.problem);
      else if (item.kind === "file") {
        if (files.length >= caps.maxFilesPerSkill) {
          stop("file-limit", `files (at most ${caps.maxFilesPerSkill})`);
          return;
        }
        files.push(item.file);
      } else if (item.kind === "dir") {
        if (folders >= caps.maxFoldersPerSkill) {
          stop("folder-limit", `folders (at most ${caps.maxFoldersPerSkill})`);
          return;
        }
        folders++;
        let children: Deno.DirEntry[];
        try {
          children = readSortedEntries(item.lexical);
        } catch (error) {
          warn(
            item.lexical,
            "unusable-path",
            `Folder "${item.rel}" cannot be read (${errorName(error)})`,
          );
          continue;
        }
        const kept = { files: files.length, problems: problems.length, folders, stopped };
        chain.add(item.real);
        walk(item.lexical, item.real, item.rel, children, chain);
        chain.delete(item.real);
        if (!isStillFolder(item)) {
          // Read through a symlink that replaced the folder since its entry was read (the
          // skill folder's entries come from discovery): what was listed below it may be an
          // outside folder's names and sizes. None of it is kept (review r5).
          files.length = kept.files;
          problems.length = kept.problems;
          folders = kept.folders;
          stopped = kept.stopped;
          problems.push(changedWhileListed(item.lexical, item.rel).problem);
        }
      }
    }
  }

  function changedWhileListed(
    lexical: string,
    rel: string,
  ): { readonly kind: "problem"; readonly problem: Problem } {
    return {
      kind: "problem",
      problem: problem(
        lexical,
        "unusable-path",
        "warning",
        `"${rel}" changed while the skill was listed (it is a symlink now, or gone); not ` +
          "listed until the skill is read again",
      ),
    };
  }

  function notServed(lexical: string, breach: RuleBreach): Resolved {
    return {
      kind: "problem",
      problem: problem(
        lexical,
        "file-not-served",
        "warning",
        `${breach.message}${
          breach.message.includes("(rule ") ? "" : ` (rule ${breach.rule})`
        }; it is not listed and no reader serves it. Rename it, or point the link at a file ` +
          "that is served",
      ),
    };
  }

  function stop(reason: "file-limit" | "folder-limit", what: string): void {
    stopped = true;
    warn(
      candidate.dir,
      reason,
      `Skill "${candidate.name}" has more ${what}; the listing stops there and later files ` +
        "are not served. Trim the skill or raise the cap",
    );
  }

  walk(candidate.dir, candidate.realDir, "", candidate.entries, new Set([candidate.realDir]));
  if (!isStillFolder({ lexical: candidate.dir, real: candidate.realDir })) {
    // The skill folder itself swapped since discovery read it (review r5): nothing listed
    // through it is kept but SKILL.md, which the gate read (or the index cache knew).
    files.length = 1;
    problems.length = 0;
    stopped = false;
    problems.push(changedWhileListed(candidate.dir, ".").problem);
  }
  files.sort((a, b) => compareCodeUnits(a.path, b.path));
  const bytes = files.reduce((sum, file) => sum + file.size, 0);
  // An exact-length copy: the list lives as long as the catalog, and a grown array keeps spare
  // slots (issue 13: about 1.3 MiB at 10,000 skills).
  return { files: files.slice(), bytes, truncated: stopped, problems };
}

/**
 * Whether a folder the walk just listed is still what it was taken for, after
 * its files were listed (one `lstat`; review r5): a folder that is no symlink
 * is still a folder and no symlink; a followed symlink still leads to the
 * same real folder. `readdir` follows a symlink, so a folder swapped for one
 * since its entry was read was listed through it; a swap undone within the
 * time between the `readdir` and this check (the folder's own walk) is not
 * seen: only a descriptor-based `readdir` could see it, and Deno has none.
 * Where the folder is reached through a followed symlink, `realpath` decides.
 */
function isStillFolder(item: { readonly lexical: string; readonly real: string }): boolean {
  try {
    const info = Deno.lstatSync(item.lexical);
    if (info.isDirectory) return true;
    return info.isSymlink && Deno.realPathSync(item.lexical) === item.real;
  } catch {
    return false;
  }
}

/** Distinct relative paths kept for sharing at most (a bound on this module's memory). */
/**
 * The one copy of a relative path this isolate's listings share (a listing
 * the digest isolate made arrives as copies; issue 13).
 *
 * @param rel A listed file's relative path.
 * @returns The shared copy (the first 4,096 distinct paths), else `rel` itself.
 */
export function internListedPath(rel: string): string {
  return sharedPath(rel);
}

const MAX_SHARED_PATHS = 4_096;
/** Relative paths seen so far, each held once (see {@linkcode sharedPath}). */
const sharedPaths = new Map<string, string>();

/**
 * The one copy of a relative path this isolate holds: skills of one catalog
 * repeat the same paths (`references/guide.md`, `scripts/helper.py`), and
 * each listed file keeps its path as long as the catalog lives (issue 13:
 * about 1.5 MiB of copies at 10,000 skills). Equal strings are
 * interchangeable, so this changes no result. Past
 * {@linkcode MAX_SHARED_PATHS} distinct paths, new ones are returned as given.
 *
 * @param rel A relative POSIX path inside a skill.
 * @returns An equal string, shared with earlier equal paths when one was kept.
 */
function sharedPath(rel: string): string {
  const shared = sharedPaths.get(rel);
  if (shared !== undefined) return shared;
  if (sharedPaths.size < MAX_SHARED_PATHS) sharedPaths.set(rel, rel);
  return rel;
}
