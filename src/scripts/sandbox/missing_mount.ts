/**
 * A sandboxed script that fails because a path it needs is not mounted
 * prints a "No such file or directory" or "Permission denied" line naming
 * that path. This finds such a path in its stderr, outside everything the
 * sandbox mounts, and says how the owner grants it: the one new way a script
 * can fail in a sandbox gets an answer that names the fix.
 *
 * @module
 */

import { isInsideLayout, type SandboxLayout } from "./layout.ts";

/** Characters of stderr searched at most (the start of it). */
export const MAX_SCANNED_CHARS = 64 * 1024;

const FAILURE =
  /no such file or directory|permission denied|enoent|eacces|not found|cannot access|can't open|could not open|read-only file system|erofs/i;
const ABSOLUTE_PATH = /(?:^|[\s'"`(:=\[])(\/[^\s'"`):,\]]+)/g;

/**
 * Finds the first absolute path on a failure line of stderr that lies
 * outside the sandbox.
 *
 * @param stderr The script's stderr (only the first 64 KiB is read).
 * @param layout The run's sandbox.
 * @returns The path, or null when no failure line names one outside.
 */
export function findMissingMount(stderr: string, layout: SandboxLayout): string | null {
  for (const line of stderr.slice(0, MAX_SCANNED_CHARS).split("\n")) {
    if (!FAILURE.test(line)) continue;
    for (const match of line.matchAll(ABSOLUTE_PATH)) {
      const path = (match[1] ?? "").replace(/[.;]+$/, "");
      if (path.length > 1 && !isInsideLayout(layout, path)) return path;
    }
  }
  return null;
}

/**
 * The note a failed sandboxed run carries when it seems to have needed a
 * path outside its sandbox.
 *
 * @param stderr The script's stderr.
 * @param layout The run's sandbox.
 * @param row The run's skill and script, for the grant row shown.
 * @returns One sentence naming the path and the grant that mounts it, or null.
 */
export function missingMountNote(
  stderr: string,
  layout: SandboxLayout,
  row: { skill: string; script: string },
): string | null {
  const path = findMissingMount(stderr, layout);
  if (path === null) return null;
  const clip = (text: string) => text.length > 200 ? `${text.slice(0, 200)}…` : text;
  // A grant names folders, never files, and the worker cannot tell which this path is (it may
  // not look outside the roots): both rows are shown, the path itself first. A folder's row
  // that named its parent would grant every sibling (all of ~/src for one repository).
  const rowWith = (folder: string) =>
    `{"skill":${JSON.stringify(row.skill)},"script":${JSON.stringify(row.script)},` +
    `"read":[${JSON.stringify(clip(folder))}]}`;
  const parent = path.slice(0, path.lastIndexOf("/"));
  const rows = parent === ""
    ? `the script's MCP_SKILL_RUN row: ${rowWith(path)}`
    : `the script's MCP_SKILL_RUN row. If it is a folder: ${rowWith(path)}; if it is a file, ` +
      `the folder that holds it: ${rowWith(parent)}`;
  return `The script seems to have needed ${JSON.stringify(clip(path))}, which is outside its ` +
    "sandbox (it sees only the system folders, its skill folder, a private /tmp and the " +
    `folders its grant names). If it should, the server's owner adds it to ${rows} (or ` +
    '"write" to let it change files there; a home folder itself, / and skillgate\'s own ' +
    "folders are refused)";
}
