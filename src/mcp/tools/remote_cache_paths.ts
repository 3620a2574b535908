/**
 * Host folders as clients see them. A remote root's `path` is a folder in
 * skillgate's cache (under the owner's home, naming the revision): clients
 * see it by the source's spec. Hosted (a host runner started skillgate, e.g.
 * `MCP_SKILLS_PATH`), a local root is a folder of the host, outside any
 * skill: clients see it by a label (`root1`, `root2`, ... in the configured
 * order), and paths under it relative to that label. Standalone, a local
 * root keeps its path (the client's user is the owner). House style:
 * client-facing text never echoes host paths outside the skill.
 *
 * @module
 */

import type { Problem } from "../../skills/problem.ts";
import type { Root, Skill } from "../../skills/skill.ts";
import type { RunPreview } from "../../scripts/prepare_run.ts";

/** How client-facing text names the roots. */
export interface ClientPathOptions {
  /**
   * True when a host runner started skillgate: local roots are then shown by
   * their label, not their host path. @default false
   */
  readonly hosted?: boolean;
}

/**
 * The label a client sees for a hosted local root.
 *
 * @param index The root's 0-based position in the snapshot's roots.
 * @returns `root1` for the first root, `root2` for the second, ...
 */
export function rootLabel(index: number): string {
  return `root${index + 1}`;
}

/**
 * A root as a client names it: a remote root by its spec; hosted, a local
 * root by its label; else its path.
 *
 * @param root A root of the snapshot.
 * @param index Its 0-based position in the snapshot's roots.
 * @param options Whether skillgate is hosted.
 * @returns The name shown.
 */
export function rootAsShown(root: Root, index: number, options: ClientPathOptions = {}): string {
  if (root.source !== undefined) return root.source;
  return options.hosted === true ? rootLabel(index) : root.path;
}

/**
 * A skill's `source` as a client sees it: the remote spec, else its root as
 * shown ({@linkcode rootAsShown}).
 *
 * @param skill The skill.
 * @param roots The snapshot's roots (to find the skill's root and its label).
 * @param options Whether skillgate is hosted.
 * @returns The source shown.
 */
export function skillSourceAsShown(
  skill: Skill,
  roots: readonly Root[],
  options: ClientPathOptions = {},
): string {
  if (skill.source !== undefined) return skill.source;
  if (options.hosted !== true) return skill.root;
  const index = roots.findIndex((root) => root.path === skill.root);
  return index < 0 ? "root" : rootLabel(index);
}

/**
 * A skill's folder as a client sees it: hosted, `LABEL/REL` (its root's label,
 * or a remote skill's spec, and the folder under that root); else its real path.
 *
 * @param skill The skill.
 * @param roots The snapshot's roots.
 * @param options Whether skillgate is hosted.
 * @returns The folder shown.
 */
export function skillDirAsShown(
  skill: Skill,
  roots: readonly Root[],
  options: ClientPathOptions = {},
): string {
  if (options.hosted !== true) return skill.realDir;
  const root = skill.root.replace(/\/+$/, "");
  const rel = skill.dir.startsWith(`${root}/`) ? skill.dir.slice(root.length + 1) : skill.name;
  return `${skillSourceAsShown(skill, roots, options).replace(/\/+$/, "")}/${rel}`;
}

/**
 * A `skill_run` preview as a client sees it: hosted, the working folder and every argument under the skill's folder (real or
 * lexical path) named from {@linkcode skillDirAsShown}; the interpreter and
 * other arguments as they are. Deterministic, so the confirmation token issued
 * over it checks against the same preview on the retry.
 *
 * @param preview The preview as prepared (host paths).
 * @param skill The skill that runs.
 * @param roots The snapshot's roots.
 * @param options Whether skillgate is hosted.
 * @returns The preview shown (the same object when nothing changes).
 */
export function previewAsShown(
  preview: RunPreview,
  skill: Skill,
  roots: readonly Root[],
  options: ClientPathOptions = {},
): RunPreview {
  if (options.hosted !== true) return preview;
  const shown = skillDirAsShown(skill, roots, options);
  const folders = [skill.realDir, skill.dir].map((dir) => dir.replace(/\/+$/, ""));
  const rename = (text: string) => {
    for (const folder of folders) {
      if (text === folder) return shown;
      if (text.startsWith(`${folder}/`)) return `${shown}${text.slice(folder.length)}`;
    }
    return text;
  };
  return {
    ...preview,
    willRun: {
      ...preview.willRun,
      argv: preview.willRun.argv.map(rename),
      cwd: rename(preview.willRun.cwd),
    },
  };
}

/**
 * Creates the rewrite of text that may name a root's host folder.
 *
 * @param roots The snapshot's roots; remote ones (with a `source`) always
 *   count, local ones only when `options.hosted`.
 * @param options Whether skillgate is hosted.
 * @returns `(text) => text` with each such root's folder, where it stands as
 *   a whole path (followed by `/`, the end, a quote, a space or punctuation),
 *   replaced by its name as shown (a trailing `/` of a spec dropped before a
 *   sub-path, so `CACHE/brand/SKILL.md` reads `SPEC/brand/SKILL.md`); the
 *   text itself when no root needs it.
 *
 * Source: README "Remote skills" (a remote root is shown by its spec, never
 * its cache folder); newcomer 7 (hosted mode showed clients the host's folder
 * layout).
 */
export function remoteCachePathsAsSpecs(
  roots: readonly Root[],
  options: ClientPathOptions = {},
): (text: string) => string {
  // Longest folder first, so a folder inside another is replaced as itself.
  const shown = roots
    .map((root, index) => ({ root, index }))
    .filter(({ root }) =>
      root.path !== "" && (root.source !== undefined || options.hosted === true)
    )
    .map(({ root, index }) => ({
      folder: root.path.replace(/\/+$/, ""),
      name: rootAsShown(root, index, options),
    }))
    .filter(({ folder }) => folder !== "")
    .sort((a, b) => b.folder.length - a.folder.length);
  if (shown.length === 0) return (text) => text;
  return (text) => {
    let out = text;
    for (const { folder, name } of shown) {
      if (!out.includes(folder)) continue;
      const base = name.replace(/\/+$/, "");
      const whole = new RegExp(`${escapeRegExp(folder)}(?=/|$|["'\`\\s,;:)\\]}])`, "g");
      out = out.replace(
        whole,
        (_match, offset: number, all: string) => all[offset + folder.length] === "/" ? base : name,
      );
    }
    return out;
  };
}

/**
 * Problems as a client may see them: each root's host folder named as shown
 * ({@linkcode remoteCachePathsAsSpecs}), in `path` and `detail`. Pure.
 *
 * @param problems The problems.
 * @param roots The snapshot's roots.
 * @param options Whether skillgate is hosted.
 * @returns A new list in the same order (the same objects when nothing changes).
 */
export function problemsWithoutCachePaths(
  problems: readonly Problem[],
  roots: readonly Root[],
  options: ClientPathOptions = {},
): Problem[] {
  const rewrite = remoteCachePathsAsSpecs(roots, options);
  return problems.map((problem) => {
    const path = rewrite(problem.path);
    const detail = rewrite(problem.detail);
    return path === problem.path && detail === problem.detail
      ? problem
      : { ...problem, path, detail };
  });
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
