/**
 * The grant's `read` and `write` folders, checked once at start-up in the
 * trusted part (the worker cannot see them): each must exist and be a
 * folder, is resolved to its real path, and is refused when it is `/`, a home
 * folder itself or holds one, or is, holds or lies inside a skill root or one
 * of skillgate's own folders (its installation with its lock file, Deno's
 * cache, its configuration folder, `$XDG_CACHE_HOME/skillgate`) or its index
 * cache folder in use, or holds a file skillgate trusts (the configuration
 * and overrides file, the remote sources' lock, the HTTP token file). A refused folder costs its
 * whole row, as every other `grant` problem does: a row grants exactly what
 * it says or nothing. The same check ({@linkcode isForbiddenFolder}) gates
 * every folder that enters a sandbox beyond the fixed system set: the host's
 * `MCP_DATA_DIR` ({@linkcode checkDataDir}) and interpreter prefixes.
 *
 * Source: issue 16 ("Grant keys read, write and network"); review of the
 * sandbox (a data folder or grant naming a root, home or configuration).
 *
 * @module
 */

import { dirname, join, resolve } from "node:path";
import type { Grant } from "../grant.ts";
import { hasPlaceholder } from "../../config/env_value.ts";
import { plannedRealPath, swappableAncestor } from "../../config/index_cache_dir.ts";

/** Folders a grant may not name, each as real paths. */
export interface ProtectedFolders {
  /** Skill roots, as configured and real. */
  readonly roots: readonly string[];
  /** Home folders (`/root`, every `/home/*`, `$HOME`). */
  readonly homes: readonly string[];
  /**
   * skillgate's own folders: installation (with `deno.lock`), Deno's cache,
   * the configuration folder in use and the default one
   * (`$XDG_CONFIG_HOME/skillgate`), and `$XDG_CACHE_HOME/skillgate`.
   */
  readonly skillgate: readonly string[];
  /**
   * The index cache folder in use, wherever `--index-cache` or (hosted)
   * `MCP_DATA_DIR` put it: a script that could write it could forge entries
   * the worker reads. Only the host's data folder may hold it (see
   * {@linkcode checkDataDir}). @default none
   */
  readonly indexCache?: readonly string[];
  /**
   * Files no mounted folder may hold: the configuration file and
   * `overrides.json` in use (their folder may be a broad one, such as a home
   * folder, named by `--config`). @default none
   */
  readonly files?: readonly string[];
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
 *   avoid (`/`, a home folder itself or a folder holding one, holding a
 *   root). @default false
 *   `mayHoldIndexCache: true` lets the folder hold (not be, nor lie inside)
 *   the index cache folder: the host's data folder, whose index cache the
 *   caller then keeps out of scripts' reach. @default false
 * @returns A sentence, or null when the folder may be granted.
 */
export function isForbiddenFolder(
  path: string,
  folders: ProtectedFolders,
  options: { prefix?: boolean; mayHoldIndexCache?: boolean } = {},
): string | null {
  if (path === "/") return "it is /, the whole file system";
  if (folders.homes.includes(path)) return "it is a home folder itself";
  for (const root of folders.roots) {
    if (isWithin(path, root)) return "it is or holds a skill root";
    if (!options.prefix && isWithin(root, path)) return "it is inside a skill root";
  }
  // A folder around a home (`/home`, `/var` around `HOME=/var/lib/svc`) exposes it as mounting
  // the home would (review r12, F2); inside a home, below its top, stays allowed.
  if (folders.homes.some((home) => isWithin(path, home))) return "it holds a home folder";
  if (options.prefix) return null;
  for (const own of folders.skillgate) {
    if (isWithin(own, path) || isWithin(path, own)) {
      return "it is, holds or lies inside skillgate's own folders (installation, lock, " +
        "configuration, cache)";
    }
  }
  for (const cache of folders.indexCache ?? []) {
    if (isWithin(cache, path) || (!options.mayHoldIndexCache && isWithin(path, cache))) {
      return "it is, holds or lies inside skillgate's index cache folder";
    }
  }
  for (const file of folders.files ?? []) {
    if (isWithin(path, file)) {
      return "it holds a file skillgate trusts (its configuration, overrides, lock or HTTP " +
        "token file); grant a folder beside it, or move that file out";
    }
  }
  return null;
}

/** The host's data folder after the check. */
export interface DataDirVerdict {
  /** Its real path, mounted read-write; null when unset, missing or refused. */
  readonly path: string | null;
  /** Why it is not mounted (names no path), or null. */
  readonly problem: string | null;
}

/**
 * Checks the host's `MCP_DATA_DIR` with the same rule as a grant's `write`
 * folder: a data folder that is `/`, a home folder itself, a skill root (or
 * holds or lies inside one), or one of skillgate's own folders would open to
 * every script what the sandbox hides, so it is not mounted at all and
 * scripts get no `MCP_DATA_DIR`; the server still starts (the host sets the
 * variable for every server it runs; a script that needs it says so). It
 * may hold the index cache folder (hosted, the cache lives in
 * `$MCP_DATA_DIR/skillgate/index`): every sandbox then hides the data
 * folder's child that holds it (`hiddenInData`, a `hide` mount), so no script
 * can read, forge or move it; a cache no hide mount covers is not used
 * (`script_boot.ts`).
 *
 * @param dataDir The configured path (absolute), or null when unset.
 * @param folders The protected folders.
 * @returns The real path to mount, or null with the problem.
 *
 * Requires `--allow-read` on the folder.
 */
export function checkDataDir(dataDir: string | null, folders: ProtectedFolders): DataDirVerdict {
  if (dataDir === null) return { path: null, problem: null };
  let real: string;
  try {
    real = Deno.realPathSync(dataDir);
    if (!Deno.statSync(real).isDirectory) throw new Error("not a folder");
  } catch {
    return {
      path: null,
      problem: "MCP_DATA_DIR does not exist or is not a folder: scripts get no data folder",
    };
  }
  const why = isForbiddenFolder(real, folders, { mayHoldIndexCache: true }) ?? swapRisk(real);
  if (why !== null) {
    return {
      path: null,
      problem: `MCP_DATA_DIR is refused (${why}): scripts get no data folder; ` +
        "point it at a folder of its own",
    };
  }
  return { path: real, problem: null };
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
        const why = isForbiddenFolder(real, folders) ?? swapRisk(real);
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
 *   installation folder, an environment lookup (`HOME`, `DENO_DIR`,
 *   `XDG_CACHE_HOME`, `XDG_CONFIG_HOME`), and the configuration file in use
 *   (absolute; null or absent under `--no-config`), and the index cache
 *   folder in use (absolute; null or absent when none is kept): a script
 *   that could write it could forge entries the worker reads; `trustedFiles`:
 *   every other file skillgate trusts (absolute: the lock file when remote
 *   sources are configured, the HTTP token file), which no mounted folder
 *   may hold: a script reading the token could call skillgate as any client,
 *   one writing the lock could pin a source at a commit of its choosing
 *   (review r12, F9, F10). @default none
 * @returns The folders, real paths where they exist.
 *
 * Requires `--allow-read` on `/home` and the folders.
 */
export function protectedFoldersOf(options: {
  roots: readonly string[];
  installDir: string;
  getEnv: (name: string) => string | undefined;
  configPath?: string | null;
  indexCacheDir?: string | null;
  trustedFiles?: readonly string[];
}): ProtectedFolders {
  const homes = new Set<string>(["/root"]);
  try {
    for (const entry of Deno.readDirSync("/home")) homes.add(join("/home", entry.name));
  } catch {
    // No /home.
  }
  const home = options.getEnv("HOME");
  if (home !== undefined && home.startsWith("/")) homes.add(resolve(home));
  // Every place skillgate's or Deno's caches may be, whichever rule a reader follows (the XDG rule
  // takes XDG_CACHE_HOME only when absolute, else $HOME/.cache; Deno resolves a relative
  // DENO_DIR): protecting more only narrows what a grant may mount (review r13, G7).
  const absolute = (value: string | undefined) => {
    const trimmed = value?.trim();
    return trimmed !== undefined && trimmed.startsWith("/") && !hasPlaceholder(trimmed)
      ? trimmed
      : undefined;
  };
  const homeBase = (name: string) =>
    home !== undefined && home.startsWith("/") ? join(home, name) : undefined;
  const cacheBases = [absolute(options.getEnv("XDG_CACHE_HOME")), homeBase(".cache")];
  const configBases = [absolute(options.getEnv("XDG_CONFIG_HOME")), homeBase(".config")];
  const denoDirValue = options.getEnv("DENO_DIR")?.trim();
  const denoDirs = [
    ...(denoDirValue !== undefined && denoDirValue !== "" && !hasPlaceholder(denoDirValue)
      ? [resolve(denoDirValue)]
      : []),
    ...cacheBases.flatMap((base) => base === undefined ? [] : [join(base, "deno")]),
  ];
  const skillgate = [options.installDir, ...denoDirs];
  for (const base of [...cacheBases, ...configBases]) {
    if (base !== undefined) skillgate.push(join(base, "skillgate"));
  }
  const files: string[] = [...(options.trustedFiles ?? [])];
  const configPath = options.configPath ?? null;
  if (configPath !== null) {
    files.push(configPath, join(dirname(configPath), "overrides.json"));
    const folder = dirname(configPath);
    // A folder that is / or a home itself is covered by the files rule (and refused anyway).
    if (folder !== "/" && !homes.has(resolve(folder))) skillgate.push(folder);
  }
  // A path not made yet (a lock before the first sync, a cache folder) is compared by the real
  // path it will have: its nearest existing ancestor's, plus the missing part (review r13, G3).
  const real = (
    paths: Iterable<string>,
  ) => [...new Set([...paths].flatMap((path) => [resolve(path), plannedRealPath(path)]))];
  return Object.freeze({
    roots: Object.freeze(real(options.roots)),
    homes: Object.freeze(real(homes)),
    skillgate: Object.freeze(real(skillgate)),
    files: Object.freeze(real(files)),
    indexCache: Object.freeze(
      real(options.indexCacheDir?.startsWith("/") ? [options.indexCacheDir] : []),
    ),
  });
}

/**
 * Whether `inner` is `outer` or inside it (both absolute, normalised).
 *
 * @param outer The folder.
 * @param inner The path that may lie inside it.
 * @returns True when `inner` is `outer` or below it.
 */
export function isWithin(outer: string, inner: string): boolean {
  return inner === outer || inner.startsWith(outer.endsWith("/") ? outer : `${outer}/`);
}

/**
 * Why a folder checked now could be another folder at a later run, or null:
 * bubblewrap binds a folder by its path at every run, so a folder above it
 * that another user may write (owned by another user than root or this one,
 * or group- or world-writable without the sticky bit) lets that user rename
 * it away and put a symlink to any folder this user can read in its place
 * (review r13, G2, G8: grant folders, `MCP_DATA_DIR` and interpreter folders
 * alike; the rule the index cache folder follows, and `ssh`'s StrictModes for
 * `~/.ssh`). Names no path.
 *
 * @param real The folder's real path.
 * @returns A sentence, or null.
 *
 * Requires `--allow-read` on the ancestors (lstat) and `--allow-sys` (`Deno.uid`).
 */
export function swapRisk(real: string): string | null {
  try {
    return swappableAncestor(real, Deno.uid()) === null
      ? null
      : "a folder above it may be written by another user, who could put another folder in " +
        "its place between runs; grant a folder whose parents only you (or root) may change";
  } catch {
    return "its parents cannot be checked";
  }
}
