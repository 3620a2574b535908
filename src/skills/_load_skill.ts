/**
 * Loading one discovered skill: bounded SKILL.md read, frontmatter parse,
 * validation and file listing, into a frozen {@linkcode Skill}.
 *
 * @module
 */

import type { Caps } from "../caps.ts";
import { checkSkillScripts } from "../scripts/skill_scripts.ts";
import { rememberRealFolder } from "../files/path_gate.ts";
import { deepFreeze } from "./_freeze.ts";
import { frontmatterBeforeParser } from "./frontmatter_quick.ts";
import { type FileListing, listSkillFiles } from "./_list_files.ts";
import { problem } from "./_problems.ts";
import { readSkillMd, type SkillMdText } from "./_read_skill_md.ts";
import { joinPath } from "./_path.ts";
import type { SkillCandidate } from "./discover.ts";
import type { FileVersion, IndexCache, ParsedSkillMd } from "./index_cache.ts";
import type { FolderEntry } from "../files/fd_listing.ts";
import type { Problem } from "./problem.ts";
import type { Skill, SkillFile } from "./skill.ts";
import { validateFrontmatter } from "./validate.ts";

/** Skill folders loaded by this isolate so far (see {@linkcode skillLoadsSoFar}). */
let loads = 0;

/** Options of {@linkcode loadSkill}. */
export interface LoadSkillOptions {
  /**
   * The skill's file listing made elsewhere (the digest isolate, issue 13),
   * asked for before the load started: given SKILL.md's entry as the gate
   * read it, what `listSkillFiles` gives with it. Null (or a promise of
   * null) lists the files here.
   */
  readonly listedElsewhere?: Promise<((skillMd: SkillFile) => FileListing) | null> | null;
}

/**
 * How many skill folders this isolate has loaded from disk (SKILL.md read
 * and files listed) since it started: tests count that the trusted part and
 * the worker together load each skill once at start-up.
 *
 * @returns The count.
 */
export function skillLoadsSoFar(): number {
  return loads;
}

/** The outcome of loading one candidate: the skill when served, and its problems. */
export interface LoadedSkill {
  readonly skill: Skill | null;
  readonly problems: readonly Problem[];
}

/**
 * The YAML parser's module, loaded on the first SKILL.md that neither the
 * index cache nor the fast path (`frontmatter_quick.ts`) answers.
 */
let frontmatterModule: Promise<typeof import("./frontmatter.ts")> | null = null;

/**
 * Loads `frontmatter.ts` (and `npm:yaml` with it) once, on first use: a warm
 * start whose every SKILL.md the index cache answers, and a cold one whose
 * every frontmatter block is plain, never load the parser (issue 13: the
 * first answer after spawn pays only for what it needs).
 */
function frontmatterParser(): Promise<typeof import("./frontmatter.ts")> {
  frontmatterModule ??= import("./frontmatter.ts");
  return frontmatterModule;
}

/**
 * Whether this process has loaded the YAML parser's module for a skill's
 * frontmatter so far (tests: a plain catalog's cold build must not).
 *
 * @returns True once a SKILL.md needed the parser.
 */
export function isFrontmatterParserLoaded(): boolean {
  return frontmatterModule !== null;
}

/**
 * Loads one skill folder. Errors (unreadable SKILL.md, malformed or invalid
 * frontmatter) keep it out; warnings do not.
 *
 * @param candidate The folder found by discovery.
 * @param caps The caps (`maxSkillMdBytes`, `maxFilesPerSkill`, `maxFoldersPerSkill`).
 * @param cache The index cache: a SKILL.md that is still a version parsed
 *   before (a regular file with the same device, inode, size, mtime, ctime)
 *   is not opened, parsed or validated again; any other is read through the
 *   gate. The body is never kept (read it with `readSkillBody`). @default none
 * @param options `listedElsewhere`: the listing the digest isolate makes of
 *   this folder (issue 13); default none (listed here).
 * @returns The frozen skill (or null) and its problems in the order found.
 *
 * Requires `--allow-read` on the skill folder.
 */
export async function loadSkill(
  candidate: SkillCandidate,
  caps: Caps,
  cache?: IndexCache,
  options: LoadSkillOptions = {},
): Promise<LoadedSkill> {
  loads++;
  // Discovery saw this folder real (`realpath`, or a real parent plus an entry that is no
  // symlink; `reloadInPlace` takes `realpath`): the gate need not `realpath` it again (issue 13:
  // ~3 `readlink` calls a skill; why every read stays exact: `rememberRealFolder`).
  rememberRealFolder(candidate.realDir);
  const path = joinPath(candidate.dir, candidate.skillMdFile);
  // Everything the parse depends on besides the bytes, NUL-separated (no path holds NUL); a
  // SKILL.md cut at the read cap was parsed from its first `maxSkillMdBytes` bytes, so the cap
  // is part of the key then (another cap gives another parse).
  const keyOf = (truncated: boolean) =>
    `${candidate.realDir}\0${path}\0${candidate.baseName}\0${
      truncated ? `cut at ${caps.maxSkillMdBytes}` : "whole"
    }`;
  // Warm start (issue 13): a SKILL.md that is still the very version the gate read and parsed
  // before (a regular file, same device, inode, size, mtime AND ctime) is not opened again: its
  // frontmatter comes from the cache, and its body is read through the gate when asked.
  let known: ParsedSkillMd | null = null;
  let read: Omit<SkillMdText, "ok" | "text" | "digest" | "isVersionRead"> | null = null;
  // Only when the cache holds a parse under this skill's key is SKILL.md's version looked at
  // before the read (a cold build spares that `lstat`: issue 13).
  const isHeld = cache !== undefined &&
    (cache.holdsParse(keyOf(false)) || cache.holdsParse(keyOf(true)));
  const seen = isHeld ? regularFileVersion(candidate) : null;
  if (seen !== null) {
    const truncated = seen.size > caps.maxSkillMdBytes;
    known = cache?.lookup(keyOf(truncated), seen) ?? null;
    if (known !== null) read = { ...seen, path, truncated };
  }
  const problems: Problem[] = [];
  if (known === null || read === null) {
    const opened = await readSkillMd(candidate, caps.maxSkillMdBytes, {
      withDigest: cache !== undefined,
    });
    if (!opened.ok) return { skill: null, problems: [opened.problem] };
    read = opened;
    warnAboutSkillMd(candidate, read, caps, problems);
    const version = {
      dev: opened.dev,
      ino: opened.ino,
      size: opened.size,
      mtimeMs: opened.mtimeMs,
      ctimeMs: opened.ctimeMs,
    };
    // Missed above for this version already, unless it was not looked up there (nothing held
    // under the key, or SKILL.md is not a plain regular file).
    known = seen === null ? cache?.lookup(keyOf(opened.truncated), version) ?? null : null;
    if (known === null) {
      // Plain blocks are decided without loading the YAML parser (issue 13: a cold build).
      // Cut at the cap: a block that does not close within the read says so (review s15 L3).
      const quick = frontmatterBeforeParser(opened.text, {
        readCapBytes: opened.truncated ? caps.maxSkillMdBytes : null,
      });
      const parsed = quick.decided !== null
        ? quick.decided
        : (await frontmatterParser()).parseFrontmatterBlock(quick.split);
      if (!parsed.ok) {
        const place = parsed.line === undefined ? {} : {
          line: parsed.line,
          ...(parsed.column === undefined ? {} : { column: parsed.column }),
        };
        problems.push({
          ...problem(opened.path, "malformed-frontmatter", "error", parsed.detail),
          ...place,
        });
        return { skill: null, problems };
      }
      const findings = validateFrontmatter(parsed.frontmatter, {
        dirName: candidate.baseName,
        skillMdPath: opened.path,
        keyLines: parsed.keyLines,
      });
      if (findings.some((p) => p.severity === "error")) {
        problems.push(...findings);
        return { skill: null, problems };
      }
      known = { frontmatter: parsed.frontmatter, keyLines: [...parsed.keyLines], findings };
      // Not for bytes that may be another version's (moved during the read: review r6).
      if (opened.isVersionRead) cache?.remember(keyOf(opened.truncated), version, known);
    }
    // The first full skills/list needs this version's digest: it comes from these very bytes.
    if (opened.digest !== null) {
      cache?.rememberDigest(candidate.realDir, candidate.skillMdFile, version, {
        digest: opened.digest,
        size: opened.size,
      });
    }
  } else {
    warnAboutSkillMd(candidate, read, caps, problems);
  }
  problems.push(...known.findings);
  const keyLines = new Map(known.keyLines);
  const skillMd: SkillFile = {
    path: candidate.skillMdFile,
    size: read.size,
    mtimeMs: read.mtimeMs,
    ctimeMs: read.ctimeMs,
    dev: read.dev,
    ino: read.ino,
  };
  // The digest isolate's listing when one was asked for (the same walk and rules), else our own,
  // starting from discovery's exact read of the folder when it took the files' `lstat`s (s16:
  // one folder read a skill fewer in the trusted part, 10,000 at 10,000 skills).
  const topEntries = entriesReadWithStats(candidate);
  const listing = (await options.listedElsewhere)?.(skillMd) ??
    await listSkillFiles(
      candidate,
      skillMd,
      caps,
      topEntries === null ? {} : { topEntries, subtree: candidate.subtree ?? new Map() },
    );
  // Listed: the sub-folders read with the skill folder are not needed again (at 10,000 skills
  // ~26,700 folder reads would otherwise stay held until the whole build is done).
  candidate.subtree?.clear();
  problems.push(...listing.problems);
  const frontmatter = known.frontmatter as Record<string, unknown>;
  const mcpHostLine = keyLines.get("mcp-host");
  const declared = await checkSkillScripts(frontmatter, {
    dir: candidate.dir,
    realDir: candidate.realDir,
    skillMdPath: read.path,
    ...(mcpHostLine === undefined ? {} : { line: mcpHostLine }),
  });
  problems.push(...declared.problems);
  const whenToUse = [frontmatter["when-to-use"], frontmatter["when_to_use"]]
    .find((value): value is string => typeof value === "string");
  const skill: Skill = {
    name: candidate.name,
    ...(candidate.prefix === undefined ? {} : {
      baseName: candidate.baseName,
      prefix: candidate.prefix,
    }),
    ...(candidate.source === undefined ? {} : { source: candidate.source }),
    dir: candidate.dir,
    realDir: candidate.realDir,
    root: candidate.root,
    skillMdFile: candidate.skillMdFile,
    frontmatter,
    description: frontmatter["description"] as string,
    ...(whenToUse === undefined ? {} : { whenToUse }),
    bodyTruncated: read.truncated,
    skillMdBytes: read.size,
    files: listing.files,
    bytes: listing.bytes,
    filesTruncated: listing.truncated,
    scripts: declared.scripts,
  };
  // Frozen through and through: the frontmatter, the file list and each file.
  return { skill: deepFreeze(skill), problems };
}

/**
 * The identity of the candidate's SKILL.md when it is a regular file now
 * (lstat: a symlink is not one), or null. Only compared with index-cache
 * entries, which the gate's own reads stored; never used to read anything.
 */
function regularFileVersion(candidate: SkillCandidate): FileVersion | null {
  const entry = candidate.entries.find((item) => item.name === candidate.skillMdFile);
  if (entry === undefined || !entry.isFile || entry.isSymlink) return null;
  // Taken with the names, through the folder's descriptor (s16): no `lstat` of this thread's.
  if (entry.stat !== undefined) {
    const { stat } = entry;
    if (stat === null || !stat.isFile) return null;
    const { dev, ino, size, mtimeMs, ctimeMs } = stat;
    return { dev, ino, size, mtimeMs, ctimeMs };
  }
  try {
    const info = Deno.lstatSync(joinPath(candidate.realDir, candidate.skillMdFile));
    if (!info.isFile) return null;
    return {
      dev: info.dev,
      ino: info.ino,
      size: info.size,
      mtimeMs: info.mtime?.getTime() ?? null,
      ctimeMs: info.ctime?.getTime() ?? null,
    };
  } catch {
    return null;
  }
}

/**
 * The skill folder's entries as discovery's path reader read them, with the
 * files' `lstat`s through the same descriptor (`FolderEntryRead.stat`), for
 * the listing to start from (`ListOptions.topEntries`); null when discovery
 * read the folder another way (then the listing reads it itself, as before).
 */
function entriesReadWithStats(candidate: SkillCandidate): FolderEntry[] | null {
  const { entries } = candidate;
  if (entries.length === 0 || entries.some((entry) => entry.stat === undefined)) return null;
  return entries.map((entry) => ({
    name: entry.name,
    kind: entry.isSymlink ? "symlink" : entry.isDirectory ? "dir" : entry.isFile ? "file" : "other",
    stat: entry.stat ?? null,
  }));
}

/** The warnings about SKILL.md itself: its name's case, and a body cut at the read cap. */
function warnAboutSkillMd(
  candidate: SkillCandidate,
  read: { readonly path: string; readonly size: number; readonly truncated: boolean },
  caps: Caps,
  problems: Problem[],
): void {
  if (candidate.skillMdFile !== "SKILL.md") {
    problems.push(problem(
      read.path,
      "skill-md-case",
      "warning",
      `"${candidate.skillMdFile}" should be named "SKILL.md"; it is served anyway. Rename the file`,
    ));
  }
  if (read.truncated) {
    problems.push(problem(
      read.path,
      "skill-md-truncated",
      "warning",
      `"${read.path}" is ${read.size} bytes; only the first ${caps.maxSkillMdBytes} are served ` +
        "and the body is cut. Move detail into reference files",
    ));
  }
}
