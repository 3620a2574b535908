/**
 * The grant's `read` and `write` folders, checked once at start-up in the
 * trusted part (the worker cannot see them): each must exist and be a
 * folder, is resolved to its real path, and is refused when it is `/`, a home
 * folder itself, or is, holds or lies inside a skill root or one of
 * skillgate's own folders (its installation with its lock file, and Deno's
 * cache). A refused folder costs its whole row, as every other `grant`
 * problem does: a row grants exactly what it says or nothing.
 *
 * Source: issue 16 ("Grant keys read, write and network").
 *
 * @module
 */

import { join, resolve } from "node:path";
import type { Grant } from "../grant.ts";

/** Folders a grant may not name, each as real paths. */
export interface ProtectedFolders {
  /** Skill roots, as configured and real. */
  readonly roots: readonly string[];
  /** Home folders (`/root`, every `/home/*`, `$HOME`). */
  readonly homes: readonly string[];
  /** skillgate's installation (lock file, configuration) and Deno's cache. */
  readonly skillgate: readonly string[];
}

/** A grant row's folders after the check. */
export type FolderVerdict =
  | {
    /** Index of the row in `grant.rows`. */
    readonly index: number;
    /** Real paths granted read-only. */
    readonly read: readonly string[];
    /** Real paths granted read-write. */
    readonly write: readonly string[];
  }
  | { readonly index: number; readonly refused: string };

/**
 * Why a folder may not be granted (or be an interpreter prefix), or null.
 * Pure, lexical on real paths. The reason names no path.
 *
 * @param path An absolute real path.
 * @param folders The protected folders.
 * @param options `prefix: true` checks only what an interpreter's prefix must
 *   avoid (`/`, a home folder itself, holding a root). @default false
 * @returns A sentence, or null when the folder may be granted.
 */
export function isForbiddenFolder(
  path: string,
  folders: ProtectedFolders,
  options: { prefix?: boolean } = {},
): string | null {
  if (path === "/") return "it is /, the whole file system";
  if (folders.homes.includes(path)) return "it is a home folder itself";
  for (const root of folders.roots) {
    if (isWithin(path, root)) return "it is or holds a skill root";
    if (!options.prefix && isWithin(root, path)) return "it is inside a skill root";
  }
  if (options.prefix) return null;
  for (const own of folders.skillgate) {
    if (isWithin(own, path) || isWithin(path, own)) {
      return "it is, holds or lies inside skillgate's own folders (installation, lock, cache)";
    }
  }
  return null;
}

/**
 * Checks every row's `read` and `write` folders against the file system.
 *
 * @param grant The grant in force.
 * @param folders The protected folders.
 * @returns One verdict per row of `grant.rows` that names folders (rows
 *   without folders are absent).
 *
 * Requires `--allow-read` on the folders named (the trusted part's `--allow-all`).
 */
export function checkGrantFolders(grant: Grant, folders: ProtectedFolders): FolderVerdict[] {
  const verdicts: FolderVerdict[] = [];
  (grant.rows ?? []).forEach((row, index) => {
    if (row.read.length === 0 && row.write.length === 0) return;
    const read: string[] = [];
    const write: string[] = [];
    for (
      const [kind, list, into] of [["read", row.read, read], ["write", row.write, write]] as const
    ) {
      for (const [at, folder] of list.entries()) {
        let real: string;
        try {
          real = Deno.realPathSync(folder);
          if (!Deno.statSync(real).isDirectory) throw new Error("not a folder");
        } catch {
          verdicts.push({
            index,
            refused: `its ${kind} folder #${at} does not exist or is not a folder`,
          });
          return;
        }
        const why = isForbiddenFolder(real, folders);
        if (why !== null) {
          verdicts.push({ index, refused: `its ${kind} folder #${at} is refused: ${why}` });
          return;
        }
        into.push(real);
      }
    }
    verdicts.push({ index, read, write });
  });
  return verdicts;
}

/**
 * The protected folders of this host.
 *
 * @param options The roots (configured and real paths), skillgate's
 *   installation folder, and an environment lookup (`HOME`, `DENO_DIR`,
 *   `XDG_CACHE_HOME`).
 * @returns The folders, real paths where they exist.
 *
 * Requires `--allow-read` on `/home` and the folders.
 */
export function protectedFoldersOf(options: {
  roots: readonly string[];
  installDir: string;
  getEnv: (name: string) => string | undefined;
}): ProtectedFolders {
  const homes = new Set<string>(["/root"]);
  try {
    for (const entry of Deno.readDirSync("/home")) homes.add(join("/home", entry.name));
  } catch {
    // No /home.
  }
  const home = options.getEnv("HOME");
  if (home !== undefined && home.startsWith("/")) homes.add(resolve(home));
  const cacheBase = options.getEnv("XDG_CACHE_HOME") ??
    (home === undefined ? undefined : join(home, ".cache"));
  const denoDir = options.getEnv("DENO_DIR") ??
    (cacheBase === undefined ? undefined : join(cacheBase, "deno"));
  const skillgate = [options.installDir, ...(denoDir === undefined ? [] : [denoDir])];
  const real = (
    paths: Iterable<string>,
  ) => [...new Set([...paths].flatMap((path) => [resolve(path), realOrSelf(path)]))];
  return Object.freeze({
    roots: Object.freeze(real(options.roots)),
    homes: Object.freeze(real(homes)),
    skillgate: Object.freeze(real(skillgate)),
  });
}

/** Whether `inner` is `outer` or inside it (both absolute, normalised). */
function isWithin(outer: string, inner: string): boolean {
  return inner === outer || inner.startsWith(outer.endsWith("/") ? outer : `${outer}/`);
}

function realOrSelf(path: string): string {
  try {
    return Deno.realPathSync(path);
  } catch {
    return resolve(path);
  }
}
