/**
 * Discovery: finding skill folders under one root. A root may itself be a
 * skill; otherwise skills are searched in the root and in its `skills/`,
 * `.claude/skills/` and `.agents/skills/` containers, descending group
 * folders up to {@linkcode MAX_GROUP_DEPTH} levels. Loading each skill
 * (SKILL.md, frontmatter, files) is left to the catalog.
 *
 * @module
 */

import { DEPTH_PROBE_LEVELS, DEPTH_PROBE_MAX_FOLDERS, MAX_GROUP_DEPTH } from "../caps.ts";
import {
  type ExactFolderRead,
  type FolderEntryRead,
  type FolderUnreadableError,
  readFoldersExactly,
  type Subtree,
} from "./_read_folder.ts";
import { baseName, isInside, joinPath, parentPath } from "./_path.ts";
import { createTimeSlice, type TimeSlice } from "./_time_slice.ts";
import { directoryNameRule, isSkippedEntryName } from "./names.ts";
import { errorName, escapeProblem, problem } from "./_problems.ts";
import type { Problem } from "./problem.ts";
import type { Root } from "./skill.ts";
import { PREFIX_SEPARATOR } from "./prefix_separator.ts";

/** A folder that holds `SKILL.md` (or `skill.md`), not loaded yet. */
export interface SkillCandidate {
  /** The served name: the directory name, or `PREFIX__NAME` under a root with a prefix. */
  readonly name: string;
  /** The directory name. */
  readonly baseName: string;
  /** The root's prefix, when it has one. */
  readonly prefix?: string;
  /** The root's remote source spec, when it is one. */
  readonly source?: string;
  /** Absolute lexical path under the root. */
  readonly dir: string;
  /**
   * Real path, inside the root's real path, as discovery saw it: from
   * `realpath`, or a real parent's path plus a folder entry that is no symlink.
   */
  readonly realDir: string;
  /** The root path as configured. */
  readonly root: string;
  /** `SKILL.md`, or `skill.md` when only the lowercase name exists. */
  readonly skillMdFile: string;
  /**
   * The folder's entries, sorted by name (code-unit order); with each file's
   * `lstat` when the path reader read the folder (`FolderEntryRead.stat`).
   */
  readonly entries: readonly FolderEntryRead[];
  /**
   * Its sub-folders as the path reader read them with it (s17), for the
   * listing to start from; absent when read another way. @default not set
   */
  readonly subtree?: Subtree;
}

/** One finding of discovery, in the order it was found. */
export type DiscoveryItem =
  | { readonly kind: "candidate"; readonly candidate: SkillCandidate }
  | { readonly kind: "problem"; readonly problem: Problem };

/** What discovery found under one root. */
export interface RootDiscovery {
  /** The root's real path, or null when the root could not be read. */
  readonly rootReal: string | null;
  readonly items: readonly DiscoveryItem[];
}

/** Options of {@linkcode discoverRoot}. */
export interface DiscoverOptions {
  /**
   * Yields to the event loop between folders (shared with the caller's
   * loads, so a whole build keeps one rhythm). @default a new 10 ms slice
   */
  readonly slice?: TimeSlice;
  /**
   * Told each candidate as soon as it is found (s17: the build starts
   * loading it while discovery goes on). A candidate told may still be left
   * out of the items (a folder another way reaches too). @default none
   */
  readonly onCandidate?: (candidate: SkillCandidate) => void;
  /**
   * Whether skill folders are read with their sub-folders (`subtree`, s17):
   * false where most skills' listings will not be read again (a rescan that
   * reuses unchanged skills), so the trusted part does not read folders
   * nobody uses. @default true
   */
  readonly readsSubtrees?: boolean;
}

/** Between a root's prefix and a folder name in a served name: `PREFIX__NAME`. */
export { PREFIX_SEPARATOR };

/** Containers searched below a root besides the root itself, in this order. */
export const SKILL_CONTAINERS: readonly string[] = ["skills", ".claude/skills", ".agents/skills"];

type Found = DiscoveryItem | { readonly kind: "symlink"; readonly lexical: string; depth: number };

interface Context {
  readonly rootReal: string;
  readonly root: string;
  /** The root's prefix and remote source, copied onto each candidate. */
  readonly origin: { readonly prefix?: string; readonly source?: string };
  readonly slice: TimeSlice;
  /** Real paths of every folder examined (groups and skills). */
  readonly visited: Set<string>;
  /** Real paths of the root's containers, scanned on their own. */
  readonly containers: Set<string>;
  /** Real paths of skill folders found, each with the name it is served under. */
  readonly skillReals: Map<string, string>;
  /** Lexical paths already dealt with as containers (scanned or reported). */
  readonly handled: Set<string>;
  /** Skill folders seen below the depth cap (reported, never served): see `probeBeyond`. */
  readonly beyond: { readonly skills: string[]; count: number; folders: number };
  /** See {@linkcode DiscoverOptions.onCandidate}. */
  readonly onCandidate?: (candidate: SkillCandidate) => void;
  /** See {@linkcode DiscoverOptions.readsSubtrees}. */
  readonly readsSubtrees: boolean;
}

/**
 * Finds the skill folders under one root. Folders are walked without
 * following symlinks first; symlinked folders are then followed only when
 * their real path stays inside the root's real path, so a skill reachable
 * both directly and through a link is found once, at its real location.
 * Dot-folders and `node_modules` are never searched. Every failure is an
 * item; nothing throws. Every folder is read exactly (`_read_folder.ts`:
 * through a descriptor the kernel places at its real path; a folder
 * exchanged for a symlink meanwhile is reported as changed, never listed),
 * a group folder's sub-folders together; the other file-system calls are
 * synchronous, with a yield to the event loop whenever the time slice is
 * used up.
 *
 * @param root The root to search.
 * @param options The time slice.
 * @returns The root's real path and the candidates and problems in discovery order.
 *
 * Requires `--allow-read` on the root, and a folder reader that can answer
 * (`installFolderReader`; in a thread with `--allow-all`, the default).
 *
 * Rule source: skillgate discovery rules (README, "Discovery"); the
 * `.claude/skills` and `.agents/skills` containers follow the Agent Skills clients.
 */
export async function discoverRoot(
  root: Root,
  options: DiscoverOptions = {},
): Promise<RootDiscovery> {
  const notes: DiscoveryItem[] = (root.notes ?? []).map((note) => ({
    kind: "problem",
    problem: note,
  }));
  if (root.isUnavailable === true) return { rootReal: null, items: notes };
  const unreadable = (detail: string): RootDiscovery => ({
    rootReal: null,
    items: [issue(root.path, "root-unreadable", "error", detail)],
  });
  let rootReal: string;
  let entries: FolderEntryRead[];
  try {
    rootReal = Deno.realPathSync(root.path);
    if (!Deno.statSync(root.path).isDirectory) {
      return unreadable(`Root "${root.path}" is not a folder. Point it at a folder of skills`);
    }
    const [read] = await readFoldersExactly([rootReal], options.readsSubtrees ?? true);
    if (read instanceof Error) throw read;
    if (read?.kind !== "read") {
      return unreadable(
        `Root "${root.path}" changed while it was read (it is a symlink now, or moved). Check ` +
          "that nothing else renames it; it is read again on the next scan",
      );
    }
    entries = read.entries;
  } catch (error) {
    if (errorName(error) === "NotCapable") {
      // Deno's own permission refused it (its realpath, or the read of where it leads): this isolate may read only what the roots led to when
      // the server started (the worker's read set), so the root leads elsewhere now (a symlink
      // re-pointed, such as a deploy's `current`, or a folder on its path renamed). Only a
      // restart can give the worker the new place (s16; "check that it exists" misled here).
      return unreadable(
        `Root "${root.path}" now leads to a folder this server was not started with (a ` +
          "symlink on its path re-pointed, or a folder on it renamed), and the server may read " +
          "only what its roots led to at start. Restart skillgate to serve it",
      );
    }
    return unreadable(
      `Root "${root.path}" cannot be read (${errorName(error)}). Check that it exists and ` +
        "skillgate may read it",
    );
  }
  const ctx: Context = {
    rootReal,
    root: root.path,
    origin: {
      ...(root.prefix === undefined ? {} : { prefix: root.prefix }),
      ...(root.source === undefined ? {} : { source: root.source }),
    },
    slice: options.slice ?? createTimeSlice(),
    ...(options.onCandidate === undefined ? {} : { onCandidate: options.onCandidate }),
    readsSubtrees: options.readsSubtrees ?? true,
    visited: new Set([rootReal]),
    containers: new Set(),
    skillReals: new Map(),
    handled: new Set(),
    beyond: { skills: [], count: 0, folders: 0 },
  };
  const found: Found[] = [];
  if (classify(entries).kind !== "group") {
    found.push(...await examine(ctx, root.path, rootReal, 0, entries));
  } else {
    const containers = resolveContainers(ctx, found);
    found.push(...await scanChildren(ctx, root.path, rootReal, 0, entries));
    for (const container of containers) {
      found.push(...await examine(ctx, container.lexical, container.real, 0));
    }
  }
  const items = await followSymlinks(ctx, found);
  const deep = beyondProblem(ctx);
  if (deep !== null) items.push(deep);
  // Review n8: a skill folder found but refused (its name, or its SKILL.md's letter case; both
  // errors, so validate still fails) was ALSO reported as "no skill folder (one holding SKILL.md) was
  // found", which it holds: that problem already says why nothing is served.
  const isExplained = items.some((item) =>
    item.kind === "problem" && FOUND_BUT_REFUSED.has(item.problem.reason)
  );
  if (!isExplained && !items.some((item) => item.kind === "candidate")) {
    items.push(issue(
      root.path,
      "no-skill-md",
      "warning",
      `No skill folder (one holding SKILL.md) was found in root "${root.path}", its ` +
        `skills/, .claude/skills/ or .agents/skills/ folders, within ${MAX_GROUP_DEPTH} levels`,
    ));
  }
  return { rootReal, items: [...notes, ...items] };
}

/**
 * Errors that report a skill folder discovery found and did not serve: a root
 * holding only such folders gets no `no-skill-md` as well. (`depth-limit` is
 * a warning: with it alone, `validate` must still fail on `no-skill-md`.)
 */
const FOUND_BUT_REFUSED: ReadonlySet<Problem["reason"]> = new Set<Problem["reason"]>([
  "unusable-name",
  "skill-md-case",
]);

type Classification =
  | { readonly kind: "skill"; readonly file: string }
  | { readonly kind: "case"; readonly file: string }
  | { readonly kind: "group" };

function classify(entries: readonly FolderEntryRead[]): Classification {
  let lower: string | null = null;
  let variant: string | null = null;
  for (const entry of entries) {
    if (entry.name === "SKILL.md") return { kind: "skill", file: "SKILL.md" };
    if (entry.name === "skill.md") lower = entry.name;
    else if (variant === null && entry.name.toLowerCase() === "skill.md") variant = entry.name;
  }
  if (lower !== null) return { kind: "skill", file: lower };
  if (variant !== null) return { kind: "case", file: variant };
  return { kind: "group" };
}

/**
 * One folder's read as discovery takes it: its entries, or the warning why
 * there are none (unreadable, or changed while read: never listed).
 */
function entriesOrProblem(
  lexical: string,
  read: ExactFolderRead | FolderUnreadableError,
): FolderEntryRead[] | Found {
  if (read instanceof Error) {
    return issue(
      lexical,
      "unusable-path",
      "warning",
      `Folder "${lexical}" cannot be read (${errorName(read)}); skills in it are not served`,
    );
  }
  if (read.kind === "changed") {
    return issue(
      lexical,
      "unusable-path",
      "warning",
      `Folder "${lexical}" changed while it was read (it is a symlink now, or moved); skills ` +
        "in it are not served until it is read again",
    );
  }
  return read.entries;
}

async function examine(
  ctx: Context,
  lexical: string,
  real: string,
  depth: number,
  known?: FolderEntryRead[] | ExactFolderRead | FolderUnreadableError,
): Promise<Found[]> {
  ctx.visited.add(real);
  let read = known;
  if (read === undefined) {
    await ctx.slice.pause();
    [read] = await readFoldersExactly([real], ctx.readsSubtrees);
  }
  const entries = Array.isArray(read) ? read : entriesOrProblem(lexical, read!);
  const subtree = Array.isArray(read) || read instanceof Error || read?.kind !== "read"
    ? undefined
    : read.subtree;
  if (!Array.isArray(entries)) return [entries];
  const found = classify(entries);
  if (found.kind === "group") {
    if (depth < MAX_GROUP_DEPTH) return await scanChildren(ctx, lexical, real, depth, entries);
    await probeBeyond(ctx, { lexical, real, entries });
    return [];
  }
  const file = joinPath(lexical, found.file);
  if (found.kind === "case") {
    return [issue(
      file,
      "skill-md-case",
      "error",
      `"${found.file}" must be named "SKILL.md"; the folder is not served. Rename the file`,
    )];
  }
  const name = baseName(lexical);
  const broken = directoryNameRule(name);
  if (broken !== null) {
    return [issue(
      lexical,
      "unusable-name",
      "error",
      `The folder name "${escapedName(name)}" cannot name a skill (rule "${broken}": no ` +
        "empty name, leading '.' or '-', whitespace, '%', slashes, control, bidi, invisible " +
        "or U+FFFD characters, or over 255 bytes); it is not served. Rename the folder",
    )];
  }
  if (name.includes(PREFIX_SEPARATOR)) {
    return [issue(
      lexical,
      "unusable-name",
      "error",
      `The folder name "${name}" holds "${PREFIX_SEPARATOR}", which is reserved for ` +
        "PREFIX__NAME (prefixed roots and remote sources); it is not served. Rename the folder",
    )];
  }
  const prefix = ctx.origin.prefix;
  ctx.skillReals.set(real, prefix === undefined ? name : `${prefix}${PREFIX_SEPARATOR}${name}`);
  const candidate: SkillCandidate = {
    name: prefix === undefined ? name : `${prefix}${PREFIX_SEPARATOR}${name}`,
    baseName: name,
    ...ctx.origin,
    dir: lexical,
    realDir: real,
    root: ctx.root,
    skillMdFile: found.file,
    entries,
    ...(subtree === undefined ? {} : { subtree }),
  };
  ctx.onCandidate?.(candidate);
  return [{ kind: "candidate", candidate }];
}

async function scanChildren(
  ctx: Context,
  lexical: string,
  real: string,
  depth: number,
  entries: readonly FolderEntryRead[],
): Promise<Found[]> {
  // The sub-folders are read together (one message to the trusted part for up to
  // MAX_FOLDERS_OPEN of them: a round trip each would cost more than the reads), then examined one
  // after another in name order, each pause yielding on time. Siblings' real paths are disjoint,
  // so no sub-folder's walk visits another one read ahead with it.
  const found: Found[] = [];
  const children: { lexical: string; real: string }[] = [];
  for (const entry of entries) {
    if (isSkippedEntryName(entry.name)) continue;
    const childLexical = joinPath(lexical, entry.name);
    if (ctx.handled.has(childLexical)) continue;
    if (entry.isSymlink) {
      found.push({ kind: "symlink", lexical: childLexical, depth: depth + 1 });
    } else if (entry.isDirectory) {
      const childReal = joinPath(real, entry.name);
      if (ctx.containers.has(childReal) || ctx.visited.has(childReal)) continue;
      children.push({ lexical: childLexical, real: childReal });
    }
  }
  // The next group is asked for before this one is examined (s17): the trusted part reads it
  // while this thread examines (and starts loading) this one, instead of each waiting in turn.
  const groupAt = (start: number) => children.slice(start, start + READ_AHEAD_FOLDERS);
  const readGroup = (group: readonly { real: string }[]) =>
    readFoldersExactly(group.map((child) => child.real), ctx.readsSubtrees);
  let pending = children.length === 0 ? null : readGroup(groupAt(0));
  for (let start = 0; start < children.length; start += READ_AHEAD_FOLDERS) {
    const group = groupAt(start);
    await ctx.slice.pause();
    const reads = await pending!;
    const next = groupAt(start + READ_AHEAD_FOLDERS);
    pending = next.length === 0 ? null : readGroup(next);
    for (const [index, child] of group.entries()) {
      await ctx.slice.pause();
      found.push(...await examine(ctx, child.lexical, child.real, depth + 1, reads[index]));
    }
  }
  return found;
}

/**
 * Sub-folders of one group read ahead together at most (a bound on what is
 * held: their entries, and the next group's, wait in memory until examined).
 */
const READ_AHEAD_FOLDERS = 128;

/**
 * Looks below a group folder at the depth cap, only to report skill folders
 * there (review n7: they were left out silently): at most
 * {@linkcode DEPTH_PROBE_LEVELS} levels further and
 * {@linkcode DEPTH_PROBE_MAX_FOLDERS} folders read per root, plain folders
 * only (no symlink followed), dot-folders and `node_modules` skipped.
 */
async function probeBeyond(ctx: Context, start: ProbedFolder): Promise<void> {
  let level: ProbedFolder[] = [start];
  for (let extra = 1; extra <= DEPTH_PROBE_LEVELS && level.length > 0; extra++) {
    const next: ProbedFolder[] = [];
    for (const folder of level) {
      const children: { lexical: string; real: string }[] = [];
      for (const entry of folder.entries) {
        if (!entry.isDirectory || entry.isSymlink || isSkippedEntryName(entry.name)) continue;
        if (ctx.beyond.folders >= DEPTH_PROBE_MAX_FOLDERS) break;
        ctx.beyond.folders++;
        children.push({
          lexical: joinPath(folder.lexical, entry.name),
          real: joinPath(folder.real, entry.name),
        });
      }
      await ctx.slice.pause();
      // Read exactly, as every discovery read: a folder changed meanwhile is left out silently
      // here (this look only counts skill folders below the cap).
      // No sub-folders: nothing below the cap is listed (review r17 F5).
      const reads = await readFoldersExactly(children.map((child) => child.real), false);
      for (const [index, child] of children.entries()) {
        const read = reads[index];
        if (read === undefined || read instanceof Error || read.kind !== "read") continue;
        if (classify(read.entries).kind === "group") {
          next.push({ ...child, entries: read.entries });
        } else {
          ctx.beyond.count++;
          if (ctx.beyond.skills.length < 5) ctx.beyond.skills.push(child.lexical);
        }
      }
      if (ctx.beyond.folders >= DEPTH_PROBE_MAX_FOLDERS) return;
    }
    level = next;
  }
}

/** A folder the look below the depth cap read: its lexical and real paths and entries. */
interface ProbedFolder {
  readonly lexical: string;
  readonly real: string;
  readonly entries: readonly FolderEntryRead[];
}

/** The one `depth-limit` warning of a root, or null when no skill lies below the cap. */
function beyondProblem(ctx: Context): DiscoveryItem | null {
  const { skills, count, folders } = ctx.beyond;
  const first = skills[0];
  if (first === undefined) return null;
  const relative = (path: string) =>
    isInside(path, ctx.root) ? path.slice(ctx.root.length).replace(/^\/+/, "") : path;
  const shown = skills.map((path) => `"${relative(path)}"`).join(", ");
  const more = count > skills.length ? ` and ${count - skills.length} more` : "";
  const stopped = folders >= DEPTH_PROBE_MAX_FOLDERS
    ? ` (the look below the cap stopped after ${DEPTH_PROBE_MAX_FOLDERS} folders; there may be more)`
    : "";
  const holder = parentPath(first) ?? first;
  return issue(
    ctx.root,
    "depth-limit",
    "warning",
    `${count} skill folder${count === 1 ? " lies" : "s lie"} deeper than skills are searched ` +
      `(a skill folder at most ${MAX_GROUP_DEPTH} folders below the root or its skills/ ` +
      `container) and ${count === 1 ? "is" : "are"} not served: ${shown}${more}${stopped}. ` +
      `Move ${count === 1 ? "it" : "them"} up, or add the folder that holds ` +
      `${count === 1 ? "it" : "them"} as a root (e.g. "${holder}")`,
  );
}

function resolveContainers(
  ctx: Context,
  found: Found[],
): { lexical: string; real: string }[] {
  const containers: { lexical: string; real: string }[] = [];
  for (const relative of SKILL_CONTAINERS) {
    const lexical = joinPath(ctx.root, relative);
    let real: string;
    try {
      real = Deno.realPathSync(lexical);
    } catch {
      continue;
    }
    if (!isInside(real, ctx.rootReal)) {
      ctx.handled.add(lexical);
      found.push({ kind: "problem", problem: escapeProblem(lexical, "its root", "error") });
      continue;
    }
    if (real === ctx.rootReal || ctx.containers.has(real)) continue;
    try {
      if (!Deno.statSync(lexical).isDirectory) continue;
    } catch {
      continue;
    }
    ctx.containers.add(real);
    ctx.handled.add(lexical);
    containers.push({ lexical, real });
  }
  return containers;
}

async function followSymlinks(ctx: Context, found: Found[]): Promise<DiscoveryItem[]> {
  const items: DiscoveryItem[] = [];
  const queue: { lexical: string; depth: number }[] = [];
  const take = (list: Found[]) => {
    for (const item of list) {
      if (item.kind === "symlink") queue.push(item);
      else items.push(item);
    }
  };
  take(found);
  while (queue.length > 0) {
    const link = queue.shift() as { lexical: string; depth: number };
    let real: string;
    await ctx.slice.pause();
    try {
      real = Deno.realPathSync(link.lexical);
    } catch {
      items.push(issue(
        link.lexical,
        "unusable-path",
        "warning",
        `Symlink "${link.lexical}" cannot be resolved (missing or unreadable target); not followed`,
      ));
      continue;
    }
    if (!isInside(real, ctx.rootReal)) {
      items.push({ kind: "problem", problem: escapeProblem(link.lexical, "its root", "error") });
      continue;
    }
    try {
      if (!Deno.statSync(link.lexical).isDirectory) continue;
    } catch {
      continue;
    }
    const alias = aliasOf(ctx, real);
    if (alias !== null) {
      items.push(issue(
        link.lexical,
        "symlink-alias",
        "warning",
        `Symlink "${link.lexical}" points to ${alias} in the same root; it is not followed a ` +
          "second time, so nothing is served under the link's name. Use the skill's own name, " +
          "or copy the folder to serve it under another",
      ));
      continue;
    }
    take(await examine(ctx, link.lexical, real, link.depth));
  }
  return items;
}

/**
 * What a followed symlink's real folder already is, for the `symlink-alias`
 * problem: a skill found already (by name), a folder inside one, or a folder
 * (group, container or the root) searched already; null when it is new.
 */
function aliasOf(ctx: Context, real: string): string | null {
  const skill = ctx.skillReals.get(real);
  if (skill !== undefined) return `skill "${skill}"`;
  for (let at = parentPath(real); at !== null && isInside(at, ctx.rootReal);) {
    const outer = ctx.skillReals.get(at);
    if (outer !== undefined) return `a folder inside skill "${outer}"`;
    at = parentPath(at);
  }
  if (ctx.visited.has(real) || ctx.containers.has(real)) return "a folder searched already";
  return null;
}

function issue(
  path: string,
  reason: Problem["reason"],
  severity: Problem["severity"],
  detail: string,
): DiscoveryItem {
  return { kind: "problem", problem: problem(path, reason, severity, detail) };
}

/** A refused folder name with every control, bidi and U+FFFD character as `\u{...}`. */
function escapedName(name: string): string {
  return name.replace(
    /[\p{Cc}\p{Zl}\p{Zp}\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069\ufffd]|\p{Cs}/gu,
    (char) => `\\u{${char.codePointAt(0)!.toString(16)}}`,
  );
}
