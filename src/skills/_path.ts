/**
 * Lexical path helpers for discovery: joining, base names and
 * separator-bounded containment. Nothing here touches the file system.
 *
 * @module
 */

/** The separator of real paths on this platform. */
export const SEP: string = Deno.build.os === "windows" ? "\\" : "/";

/**
 * Joins a folder path and one or more relative segments with the platform
 * separator, without normalising `.` or `..`.
 *
 * @param base An absolute folder path; a trailing separator is tolerated.
 * @param segments Names or relative POSIX paths to append.
 * @returns The joined path.
 */
export function joinPath(base: string, ...segments: string[]): string {
  let out = base;
  for (const segment of segments) {
    const part = SEP === "/" ? segment : segment.replaceAll("/", SEP);
    out = out.endsWith(SEP) || out.endsWith("/") ? out + part : out + SEP + part;
  }
  return out;
}

/**
 * The last segment of a path, ignoring trailing separators.
 *
 * @param path Any path.
 * @returns The last segment, or `""` for a file-system root.
 */
export function baseName(path: string): string {
  const trimmed = path.replace(/[\\/]+$/, "");
  const at = Math.max(trimmed.lastIndexOf("/"), trimmed.lastIndexOf(SEP));
  return trimmed.slice(at + 1);
}

/**
 * The parent of a path, or null at a file-system root.
 *
 * @param path An absolute path without a trailing separator.
 * @returns The parent path, or null when there is none.
 */
export function parentPath(path: string): string | null {
  const at = Math.max(path.lastIndexOf("/"), path.lastIndexOf(SEP));
  if (at < 0 || at === path.length - 1) return null;
  if (at === 0) return path.slice(0, 1);
  return path.slice(0, at);
}

/**
 * Whether `child` is `parent` or lies below it, bounded by the separator so
 * that `/a/bc` is not inside `/a/b`.
 *
 * @param child A real path.
 * @param parent A real path.
 * @returns True when `child` equals `parent` or starts with `parent` plus a separator.
 */
export function isInside(child: string, parent: string): boolean {
  if (child === parent) return true;
  const prefix = parent.endsWith(SEP) ? parent : parent + SEP;
  return child.startsWith(prefix);
}
