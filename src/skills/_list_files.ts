/**
 * The file listing of one skill: a sorted, capped walk of its folder that
 * skips dot-entries and `node_modules`, follows symlinks only inside the
 * skill's real folder (never back into a folder it is inside) and lists
 * exactly the files the one served-file rule passes
 * (`src/files/served_name.ts`, the rule every reader applies too); every
 * other file is reported, never dropped silently.
 *
 * Exact (review r10): a name, size or mtime is listed only when it was read
 * from inside the skill's real folder. Each folder, the skill folder
 * included, is opened (`O_DIRECTORY | O_NOFOLLOW`, `O_PATH` where known:
 * `openFolderDescriptor`) and read through that descriptor
 * (`src/files/fd_listing.ts`: the trusted part's `readdir` of
 * `/proc/self/fd/<fd>` and `lstat` of `/proc/self/fd/<fd>/<name>`), and its
 * location, read with the entries, must be exactly the folder's real path.
 * A path-based `readdir` follows a symlink exchanged in for a folder and
 * could be exchanged back before any check after it; a descriptor cannot be
 * redirected, and a folder the kernel places at exactly that path is inside
 * the skill. A followed symlink's target is opened without following
 * (`openEntryDescriptor`) and its version taken from that handle once its
 * location is the target's real path. Where no `/proc` answers at all
 * (another OS), the walk reads by path and checks each folder after its walk
 * (`isStillFolder`), which a swap undone in between defeats: the same
 * narrowing the gate falls back to there.
 *
 * The walk costs one open, one read (a `readdir` and one `lstat` per file,
 * in the trusted part, batched with other skills' folders into one message;
 * no `lstat` where the caller takes a file's version from a handle of its
 * own, `versionOf`, whose location it checks) and one close per folder; a symlink costs a `realpath`, an open and a
 * location check too: every other entry lies lexically under a real folder,
 * so its real path is that folder's real path plus its name, with no call.
 *
 * @module
 */

import { relative, sep } from "node:path";
import {
  closeDescriptor,
  loadGateFs,
  openEntryDescriptor,
  openFolderDescriptor,
} from "../files/bounded_read.ts";
import {
  NO_DESCRIPTOR_FREE,
  noDescriptorFree,
  retryingOnDescriptorShortage,
} from "../files/descriptor_shortage.ts";
import {
  type FolderEntry,
  type FolderEntryStat,
  type FolderPathReader,
  type FolderRead,
  type FolderReadAnswer,
  type FolderReader,
  installedFolderPathReader,
  MAX_FOLDER_COUNTED_ENTRIES,
  MAX_FOLDER_READ_ENTRIES,
  readOpenFolder,
} from "../files/fd_listing.ts";
import { locateFd } from "../files/fd_location.ts";
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

/** Options of {@linkcode listSkillFiles}. */
export interface ListOptions {
  /**
   * How an open folder is read. @default readOpenFolder (the installed
   * reader: the trusted part's, in an isolate)
   */
  readonly readFolder?: FolderReader;
  /**
   * How a folder is read by its real path, opened by the reader itself (the
   * digest isolate's: the trusted part opens, reads and closes it, s11-hC),
   * tried before the walk opens a folder itself; where it answers null, the
   * folder is opened here and read with `readFolder` as without it.
   * @default the installed one (`installFolderPathReader`), or none
   */
  readonly readFolderAt?: FolderPathReader | null;
  /**
   * Told each file as it is listed, with the real path it was found at (the
   * digest isolate opens only files whose real path is the skill's real
   * folder plus their path). Where the walk reads by path (no `/proc`), a
   * file told may be dropped again when its folder turns out swapped.
   */
  readonly onListed?: (file: SkillFile, real: string) => void;
  /**
   * The version of a `file` entry of a folder read through its descriptor
   * whose read took no `lstat` for it, from a handle the caller opens itself
   * (the digest isolate: the very handle it hashes; issue 13, s10-h8), or
   * null to take the trusted part's `lstat` through the folder's descriptor
   * as without it. The caller must then check that handle's location
   * (exactly `real`) before it uses the listing, and discard the whole
   * listing when it is anywhere else: a version given here is listed as it
   * is. Called only for entries of an exact folder read.
   */
  readonly versionOf?: (rel: string, real: string) => FolderEntryStat | null;
  /**
   * The skill folder's own entries as discovery read them exactly (through a
   * descriptor the kernel placed at exactly `realDir`, h10), sorted by name:
   * the walk starts from them instead of reading the skill folder again
   * (s11-hC: one folder read a skill fewer, 10,000 at 10,000 skills). Each
   * file entry's version must then come from `versionOf` (a handle whose
   * location the caller checks) or from a fresh exact read of the folder,
   * taken only if one is needed; sub-folders are opened and read exactly as
   * always. Give them only where discovery's reads are exact (a `/proc` that
   * answers). @default the walk reads the skill folder itself
   */
  readonly topEntries?: readonly FolderEntry[];
  /**
   * Sub-folders of the skill folder the path reader read exactly with
   * discovery's read of it, by path below it (s17,
   * `FolderPathReadRequest.subtree`): a folder the walk reaches at exactly
   * the real path one was read at starts from that read instead of asking
   * again (file versions as with `topEntries`); any other is read as always.
   * Used only with a path reader. @default none
   */
  readonly subtree?: ReadonlyMap<string, FolderRead | "changed" | null>;
  /**
   * Whether the next folder read should still take each file's `lstat` in
   * the trusted part (as without {@linkcode ListOptions.versionOf}); false
   * while `versionOf` expects to answer. @default always true
   */
  readonly statsInRead?: () => boolean;
}

/** A folder of the walk: its path under the skill's lexical folder, its real path, its path in the skill. */
interface Folder {
  readonly lexical: string;
  readonly real: string;
  readonly rel: string;
}

/** One folder's entries as the walk uses them. */
interface OpenedFolder {
  /** Its entries, sorted by name in code-unit order. */
  readonly entries: readonly FolderEntry[];
  /** The `lstat` of a file entry the read did not take (null: gone, or not to be told). */
  readonly statLater: (name: string) => Promise<FolderEntryStat | null>;
  /** Whether it was read through its descriptor (exact); else by path, checked after its walk. */
  readonly isExact: boolean;
  readonly close: () => void;
}

/**
 * Lists a skill's files, starting with its SKILL.md. The walk is depth
 * first in name order and stops at the first cap it meets.
 *
 * @param candidate The skill folder (`dir`, `realDir`, `name`, `skillMdFile`).
 * @param skillMd The SKILL.md entry, listed first.
 * @param caps Files and folders at most.
 * @param options How folders are read; who is told of each listed file.
 * @returns The sorted files, their total bytes, whether a cap cut the walk,
 *   and `symlink-escape`, `symlink-loop`, `file-not-served`, `unusable-path`,
 *   `nested-skill`, `file-limit` and `folder-limit` warnings. Never rejects
 *   for a folder it cannot read (a warning says so).
 *
 * Requires `--allow-read` on the skill folder, and a folder reader that can
 * answer (`installFolderReader`; in a thread with `--allow-all`, the default).
 * With a path reader (`installFolderPathReader`: the serving worker's and
 * the digest isolate's ask the trusted part) each folder is read by it first
 * and `node:fs` is loaded only when it cannot tell (issue 13).
 */
export async function listSkillFiles(
  candidate: SkillCandidate,
  skillMd: SkillFile,
  caps: ListCaps,
  options: ListOptions = {},
): Promise<FileListing> {
  const readFolder = options.readFolder ?? readOpenFolder;
  const readFolderAt = options.readFolderAt === undefined
    ? installedFolderPathReader()
    : options.readFolderAt;
  // node:fs (~15 ms to load in a fresh worker: issue 13, on a warm start's path) only where this
  // walk opens descriptors itself: no path reader, or a caller whose handles `versionOf` reads.
  if (readFolderAt === null || options.versionOf !== undefined) await loadGateFs();
  const files: SkillFile[] = [skillMd];
  const problems: Problem[] = [];
  let folders = 0;
  let stopped = false;
  const warn = (path: string, reason: Problem["reason"], detail: string) =>
    problems.push(problem(path, reason, "warning", detail));

  type Resolved =
    | { readonly kind: "skip" }
    | { readonly kind: "problem"; readonly problem: Problem }
    | { readonly kind: "file"; readonly file: SkillFile; readonly real: string }
    | { readonly kind: "dir"; readonly folder: Folder };

  /**
   * Whether file versions are to come from the reads' own `lstat`s (no
   * `versionOf`, or one whose handles may run out: `statsInRead`).
   */
  function wantsStatsInRead(): boolean {
    return options.versionOf === undefined || (options.statsInRead?.() ?? true);
  }

  /** Opens and reads one folder; a problem when it is not (exactly) the folder expected. */
  async function openFolder(at: Folder): Promise<OpenedFolder | Problem> {
    if (readFolderAt !== null) {
      const early = options.subtree?.get(at.rel);
      if (
        typeof early === "object" && early !== null && early.location === at.real &&
        early.tooManyEntries === undefined &&
        (isFullyStated(early) || !wantsStatsInRead())
      ) {
        return fromPathRead(at, early, readFolderAt);
      }
      const byPath = await openFolderAt(at, readFolderAt);
      if (byPath !== null) return byPath;
    }
    await loadGateFs();
    // At most the files still allowed, and one more to see the cap: nothing far past it is stat'ed.
    // None where the caller takes each file's version from its own handle (`versionOf`).
    const maxStats = options.statsInRead?.() === false
      ? 0
      : Math.max(0, caps.maxFilesPerSkill - files.length) + 1;
    let fd: number;
    try {
      // A busy moment without a free descriptor (a low `ulimit -n`, the other readers' handles)
      // is waited out, not reported as an unreadable folder (as the gate's SKILL.md read does).
      fd = await retryingOnDescriptorShortage(() => Promise.resolve(openFolderDescriptor(at.real)));
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (code === "ENOTDIR" || code === "ELOOP" || code === "ENOENT") {
        return changedWhileListed(at.lexical, at.rel).problem;
      }
      return cannotRead(at, errorName(error));
    }
    let answer: FolderReadAnswer;
    try {
      answer = await readFolder({ fd, maxStats });
    } catch {
      answer = null;
    }
    if (answer === "busy") {
      // The reader's `readdir` had no descriptor free: said so, with what to do, never blamed on
      // the folder (s15: under `ulimit -n` 150-220 this read "not read through its descriptor"
      // and left the folder's files out silently). Not waited for while this descriptor (and the
      // walk's above it) is held: every walk holding some and waiting starved them all.
      closeDescriptor(fd);
      return cannotRead(at, NO_DESCRIPTOR_FREE);
    }
    const read = answer;
    if (read === null) {
      // No answer: where descriptors can be located at all, the folder was not the asker's to
      // read (its location is outside the roots: swapped) or could not be read; nothing of it is
      // listed. Only where nothing can tell (no `/proc`) is it read by path, checked after.
      let location: string | null;
      try {
        location = await locateFd(fd);
      } catch {
        location = "";
      } finally {
        closeDescriptor(fd);
      }
      if (location !== null) {
        return location === at.real
          ? cannotRead(at, "not read through its descriptor")
          : changedWhileListed(at.lexical, at.rel).problem;
      }
      return readByPath(at);
    }
    if (read.location !== at.real) {
      closeDescriptor(fd);
      return changedWhileListed(at.lexical, at.rel).problem;
    }
    if (read.tooManyEntries !== undefined) {
      closeDescriptor(fd);
      return cannotRead(at, tooManyEntriesWhy(read.tooManyEntries));
    }
    return {
      entries: read.entries,
      isExact: true,
      statLater: async (name) => {
        let again: FolderReadAnswer;
        try {
          again = await readFolder({ fd, maxStats: 1, names: [name] });
        } catch {
          again = null;
        }
        // `busy` is not reached here (an `lstat` through the descriptor opens none): as null.
        if (again === "busy") again = null;
        if (again === null || again.location !== at.real) return null;
        return again.entries[0]?.stat ?? null;
      },
      close: () => closeDescriptor(fd),
    };
  }

  /**
   * Reads one folder by its real path with a reader that opens it itself
   * (exact: read only where the kernel places the opened folder at exactly
   * that path); null when that reader cannot tell (the caller opens it).
   */
  async function openFolderAt(
    at: Folder,
    reader: FolderPathReader,
  ): Promise<OpenedFolder | Problem | null> {
    const maxStats = options.statsInRead?.() === false
      ? 0
      : Math.max(0, caps.maxFilesPerSkill - files.length) + 1;
    let read;
    try {
      // No descriptor free in the reader's thread: waited out, as the walk's own open is.
      read = await retryingOnDescriptorShortage(async () => {
        const answer = await reader({ path: at.real, maxStats });
        if (answer === "busy") throw noDescriptorFree();
        return answer;
      });
    } catch {
      return null;
    }
    if (read === null) return null;
    if (read === "changed" || read.location !== at.real) {
      return changedWhileListed(at.lexical, at.rel).problem;
    }
    if (read.tooManyEntries !== undefined) {
      return cannotRead(at, tooManyEntriesWhy(read.tooManyEntries));
    }
    return fromPathRead(at, read, reader);
  }

  /** A folder the path reader read at exactly `at.real`, as the walk uses it. */
  function fromPathRead(at: Folder, read: FolderRead, reader: FolderPathReader): OpenedFolder {
    return {
      entries: read.entries,
      isExact: true,
      statLater: async (name) => {
        let again;
        try {
          again = await reader({ path: at.real, maxStats: 1, names: [name] });
        } catch {
          again = null;
        }
        if (again === null || typeof again === "string" || again.location !== at.real) return null;
        return again.entries[0]?.stat ?? null;
      },
      close: () => {},
    };
  }

  async function resolve(
    entry: FolderEntry,
    at: Folder,
    opened: OpenedFolder,
    chain: ReadonlySet<string>,
  ): Promise<Resolved> {
    if (isQuietlySkippedName(entry.name)) return { kind: "skip" };
    if (at.rel === "" && entry.name === candidate.skillMdFile) return { kind: "skip" };
    const rel = sharedPath(at.rel === "" ? entry.name : `${at.rel}/${entry.name}`);
    const lexical = joinPath(at.lexical, entry.name);
    const own = checkServedPath(rel);
    if (own !== null) return notServed(lexical, own, entry.kind === "symlink");
    let real = joinPath(at.real, entry.name);
    if (entry.kind === "dir") return { kind: "dir", folder: { lexical, real, rel } };
    if (entry.kind === "other") return notRegular(lexical, rel);
    let info: FolderEntryStat | null;
    try {
      if (entry.kind === "symlink") {
        real = Deno.realPathSync(lexical);
        if (!isInside(real, candidate.realDir)) {
          return {
            kind: "problem",
            problem: escapeProblem(lexical, "the skill folder", "warning"),
          };
        }
        // The resolved path, opened without following and placed by the kernel: a link
        // retargeted, or a folder on the way swapped, since `realpath` is not followed out of the
        // skill, and the version is the handle's (reviews r5, r10).
        info = await statTarget(real);
        if (info === null || info.isSymlink) return changedWhileListed(lexical, rel);
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
        if (breach !== null) return notServed(lexical, breach, true);
      } else {
        // The `lstat` through the folder's descriptor: an entry read as a file that is a symlink
        // now is not followed to an outside file (review r5).
        // Else the version of the caller's own handle on it (its location checked by the caller
        // before the listing is used), else a second look through the folder's descriptor.
        info = entry.stat;
        if (info === null && opened.isExact && options.versionOf !== undefined) {
          info = options.versionOf(rel, real);
        }
        if (info === null) info = await opened.statLater(entry.name);
        if (info === null || info.isSymlink) return changedWhileListed(lexical, rel);
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
    if (info.isFile) {
      return {
        kind: "file",
        real,
        file: {
          path: rel,
          size: info.size,
          mtimeMs: info.mtimeMs,
          ctimeMs: info.ctimeMs,
          dev: info.dev,
          ino: info.ino,
        },
      };
    }
    if (info.isDirectory) return { kind: "dir", folder: { lexical, real, rel } };
    return notRegular(lexical, rel);
  }

  async function walk(at: Folder, opened: OpenedFolder, chain: Set<string>): Promise<void> {
    if (
      at.rel !== "" && opened.entries.some((e) => e.name === "SKILL.md" || e.name === "skill.md")
    ) {
      warn(
        at.lexical,
        "nested-skill",
        `Folder "${at.lexical}" holds its own SKILL.md inside skill "${candidate.name}"; it is ` +
          "served as files of that skill, not as a skill. Move it out to serve it on its own",
      );
    }
    // The first sub-folders are opened and read side by side (one message to the trusted part
    // for all of them, not one round trip each), at most PREFETCH_FOLDERS and never more than the
    // folder cap leaves; each is still used only when the walk reaches it, the rest closed.
    const prefetched = new Map<string, Promise<OpenedFolder | Problem>>();
    for (const entry of opened.entries) {
      if (prefetched.size >= Math.min(PREFETCH_FOLDERS, caps.maxFoldersPerSkill - folders)) break;
      if (entry.kind !== "dir" || isQuietlySkippedName(entry.name)) continue;
      const rel = at.rel === "" ? entry.name : `${at.rel}/${entry.name}`;
      if (checkServedPath(rel) !== null) continue;
      const folder = {
        lexical: joinPath(at.lexical, entry.name),
        real: joinPath(at.real, entry.name),
        rel,
      };
      prefetched.set(folder.real, openFolder(folder));
    }
    try {
      await walkEntries(at, opened, chain, prefetched);
    } finally {
      for (const unused of prefetched.values()) {
        const folder = await unused;
        if ("entries" in folder) folder.close();
      }
    }
  }

  async function walkEntries(
    at: Folder,
    opened: OpenedFolder,
    chain: Set<string>,
    prefetched: Map<string, Promise<OpenedFolder | Problem>>,
  ): Promise<void> {
    for (const entry of opened.entries) {
      if (stopped) return;
      // Resolved one at a time: nothing past a cap is ever stat'ed here.
      const item = await resolve(entry, at, opened, chain);
      if (item.kind === "problem") problems.push(item.problem);
      else if (item.kind === "file") {
        if (files.length >= caps.maxFilesPerSkill) {
          stop("file-limit", `${caps.maxFilesPerSkill} files`, "--max-files-per-skill");
          return;
        }
        files.push(item.file);
        options.onListed?.(item.file, item.real);
      } else if (item.kind === "dir") {
        if (folders >= caps.maxFoldersPerSkill) {
          stop("folder-limit", `${caps.maxFoldersPerSkill} folders`, "--max-folders-per-skill");
          return;
        }
        folders++;
        const early = prefetched.get(item.folder.real);
        prefetched.delete(item.folder.real);
        const child = await (early ?? openFolder(item.folder));
        if (!("entries" in child)) {
          problems.push(child);
          continue;
        }
        const kept = { files: files.length, problems: problems.length, folders, stopped };
        chain.add(item.folder.real);
        try {
          await walk(item.folder, child, chain);
        } finally {
          child.close();
        }
        chain.delete(item.folder.real);
        if (!child.isExact && !isStillFolder(item.folder)) {
          // Read by path (no `/proc`) through a symlink that replaced the folder since its entry
          // was read: what was listed below it may be an outside folder's names and sizes. None
          // of it is kept (review r5).
          files.length = kept.files;
          problems.length = kept.problems;
          folders = kept.folders;
          stopped = kept.stopped;
          problems.push(changedWhileListed(item.folder.lexical, item.folder.rel).problem);
        }
      }
    }
  }

  /** Why a folder over the read's entry limit is not listed, and what to do. */
  function tooManyEntriesWhy(count: number): string {
    const held = count >= MAX_FOLDER_COUNTED_ENTRIES
      ? `at least ${count.toLocaleString("en-US")}`
      : count.toLocaleString("en-US");
    return `too many entries: ${held}, limit ${MAX_FOLDER_READ_ENTRIES.toLocaleString("en-US")}` +
      "; split it into sub-folders or move what the skill does not need out of it";
  }

  function cannotRead(at: Folder, why: string): Problem {
    return problem(
      at.lexical,
      "unusable-path",
      "warning",
      `Folder "${at.rel === "" ? "." : at.rel}" cannot be read (${why})`,
    );
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

  function notRegular(lexical: string, rel: string): Resolved {
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

  /** A name the serving rule refuses; the advice names the link only for a link (n9). */
  function notServed(lexical: string, breach: RuleBreach, isLink: boolean): Resolved {
    return {
      kind: "problem",
      problem: problem(
        lexical,
        "file-not-served",
        "warning",
        `${breach.message}${
          breach.message.includes("(rule ") ? "" : ` (rule ${breach.rule})`
        }; it is not listed and no reader serves it. ` +
          (isLink ? "Rename it, or point the link at a file that is served" : "Rename it"),
      ),
    };
  }

  /**
   * The skill folder as discovery read it (`topEntries`): its entries as
   * given, exact; a file's `lstat` asked later (no `versionOf` answer) comes
   * from one fresh exact read of the folder, opened on the first such ask.
   */
  function readAgainWhenAsked(at: Folder, entries: readonly FolderEntry[]): OpenedFolder {
    let again: Promise<OpenedFolder | Problem> | null = null;
    return {
      entries,
      isExact: true,
      statLater: async (name) => {
        again ??= openFolder(at);
        const read = await again;
        return "entries" in read ? await read.statLater(name) : null;
      },
      close: () => {
        void again?.then((read) => {
          if ("entries" in read) read.close();
        });
      },
    };
  }

  /** The cap warning (n9: "has more files (at most N)" read as the skill's own count). */
  function stop(reason: "file-limit" | "folder-limit", cap: string, option: string): void {
    stopped = true;
    warn(
      candidate.dir,
      reason,
      `Skill "${candidate.name}" has more than ${cap}; the listing stops there and later files ` +
        `are not served. Trim the skill or raise the cap (${option})`,
    );
  }

  const top: Folder = { lexical: candidate.dir, real: candidate.realDir, rel: "" };
  const opened = options.topEntries === undefined
    ? await openFolder(top)
    : readAgainWhenAsked(top, options.topEntries);
  if (!("entries" in opened)) {
    // The skill folder itself swapped since discovery read it (review r5), or unreadable: nothing
    // is listed through it but SKILL.md, which the gate read (or the index cache knew).
    problems.push(opened);
  } else {
    try {
      await walk(top, opened, new Set([candidate.realDir]));
    } finally {
      opened.close();
    }
    if (!opened.isExact && !isStillFolder(top)) {
      files.length = 1;
      problems.length = 0;
      stopped = false;
      problems.push(changedWhileListed(candidate.dir, ".").problem);
    }
  }
  files.sort((a, b) => compareCodeUnits(a.path, b.path));
  const bytes = files.reduce((sum, file) => sum + file.size, 0);
  // An exact-length copy: the list lives as long as the catalog, and a grown array keeps spare
  // slots (issue 13: about 1.3 MiB at 10,000 skills).
  return { files: files.slice(), bytes, truncated: stopped, problems };
}

/**
 * Whether every listed file of a sub-folder read ahead has its `lstat` (review
 * r17 F1: one past the read's stat budget would cost a round trip a file
 * when the walk reaches it; reading the folder then costs one).
 */
function isFullyStated(read: FolderRead): boolean {
  return read.entries.every((entry) =>
    entry.kind !== "file" || entry.stat !== null || isQuietlySkippedName(entry.name)
  );
}

/** Sub-folders of one folder opened and read ahead of the walk at most (a bound on descriptors). */
const PREFETCH_FOLDERS = 4;

/**
 * The version of a followed symlink's target, from a handle opened on its
 * real path without following (`openEntryDescriptor`), once the kernel
 * places that handle at exactly `real` (review r10); null when it places it
 * anywhere else (a folder on the way swapped since `realpath`). Where no
 * locator answers, the handle's version as opened.
 *
 * @throws The open's error (gone, unreadable).
 */
async function statTarget(real: string): Promise<FolderEntryStat | null> {
  await loadGateFs();
  const { fd, version } = await retryingOnDescriptorShortage(() =>
    Promise.resolve(openEntryDescriptor(real))
  );
  try {
    const location = await locateFd(fd);
    if (location !== null && location !== real) return null;
    return version;
  } finally {
    closeDescriptor(fd);
  }
}

/**
 * One folder read by path, where no descriptor can be read or located (no
 * `/proc`): `readdir` of its lexical path, and an `lstat` of each file
 * entry's lexical path when the walk needs it. Checked after its walk by
 * {@linkcode isStillFolder}.
 */
function readByPath(at: Folder): OpenedFolder | Problem {
  let names: Deno.DirEntry[];
  try {
    names = readSortedEntries(at.lexical);
  } catch (error) {
    return problem(
      at.lexical,
      "unusable-path",
      "warning",
      `Folder "${at.rel === "" ? "." : at.rel}" cannot be read (${errorName(error)})`,
    );
  }
  const entries: FolderEntry[] = names.map((entry) => ({
    name: entry.name,
    kind: entry.isSymlink ? "symlink" : entry.isDirectory ? "dir" : entry.isFile ? "file" : "other",
    stat: null,
  }));
  return {
    entries,
    isExact: false,
    statLater: (name) => {
      try {
        const info = Deno.lstatSync(joinPath(at.lexical, name));
        return Promise.resolve({
          isFile: info.isFile,
          isDirectory: info.isDirectory,
          isSymlink: info.isSymlink,
          size: info.size,
          mtimeMs: info.mtime?.getTime() ?? null,
          ctimeMs: info.ctime?.getTime() ?? null,
          dev: info.dev,
          ino: info.ino,
        });
      } catch {
        return Promise.resolve(null);
      }
    },
    close: () => {},
  };
}

/**
 * Whether a folder the walk read by path (no `/proc`) is still what it was
 * taken for, after its files were listed (one `lstat`; review r5): a folder
 * that is no symlink is still a folder and no symlink; a followed symlink
 * still leads to the same real folder. `readdir` follows a symlink, so a
 * folder swapped for one since its entry was read was listed through it; a
 * swap undone within its walk is not seen here (only the descriptor read
 * sees it, review r10). Where the folder is reached through a followed
 * symlink, `realpath` decides.
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
