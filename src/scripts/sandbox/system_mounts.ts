/**
 * The host facts a sandbox is built from, gathered once at start-up in the
 * trusted part: which system folders exist (and which are links such as
 * `/bin -> usr/bin`), which `/etc` files an interpreter needs, and where each
 * interpreter is really installed when that is outside the system folders
 * (a virtual environment, pyenv, a Node or Deno under a home folder).
 *
 * @module
 */

import { basename, dirname } from "node:path";
import type { Mount, SandboxBase } from "./layout.ts";
import {
  checkDataDir,
  isForbiddenFolder,
  isWithin,
  type ProtectedFolders,
  swapRisk,
} from "./grant_folders.ts";

/** Top-level system folders mounted read-only (or re-created as links) when present. */
export const SYSTEM_TOP_FOLDERS: readonly string[] = Object.freeze([
  "/usr",
  "/bin",
  "/sbin",
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
]);

/**
 * `/etc` entries every sandbox gets: dynamic linking, locale, time zone, and
 * Debian's alternatives links (`/usr/bin/awk -> /etc/alternatives/awk`).
 */
export const ETC_BASE: readonly string[] = Object.freeze([
  "/etc/ld.so.cache",
  "/etc/ld.so.conf",
  "/etc/ld.so.conf.d",
  "/etc/localtime",
  "/etc/timezone",
  "/etc/locale.alias",
  "/etc/locale.conf",
  "/etc/alternatives",
]);

/** `/etc` entries for name resolution and CA certificates: only when the network is granted. */
export const ETC_NETWORK: readonly string[] = Object.freeze([
  "/etc/resolv.conf",
  "/etc/hosts",
  "/etc/nsswitch.conf",
  "/etc/gai.conf",
  "/etc/host.conf",
  "/etc/ssl",
  "/etc/ca-certificates",
  "/etc/pki",
]);

/**
 * The fixed system mount that would show a file to every sandboxed script,
 * or null. These are mounted whatever the grant says, so a trusted file (the
 * HTTP bearer token file) inside one is readable by any granted script
 * (review r13); grant, data and interpreter folders are checked against
 * trusted files elsewhere (`grant_folders.ts`).
 *
 * @param file The file's path; compared on it and on its real path.
 * @returns The mount's path (`/usr`, `/etc/ssl`...) as the sandbox shows it,
 *   or null. The network entries count whatever the grant: one grant row
 *   with network is enough to mount them.
 *
 * Requires `--allow-read` on the file and the `/etc` entries (realpath).
 */
export function systemMountHolding(file: string): string | null {
  const paths = [file, realOrNull(file) ?? file];
  for (const entry of [...SYSTEM_TOP_FOLDERS, ...ETC_BASE, ...ETC_NETWORK]) {
    const entryPaths = [entry, realOrNull(entry) ?? entry];
    if (entryPaths.some((outer) => paths.some((path) => isWithin(outer, path)))) return entry;
  }
  return null;
}

/**
 * Gathers the sandbox's host facts.
 *
 * @param bwrapPath The real path of `bwrap`.
 * @param programs The interpreter programs (literal paths, as spawned).
 * @param protectedFolders Folders an interpreter prefix must not widen to
 *   (home folders, skill roots, `/`): a prefix that would be one of them,
 *   or hold a root, narrows to the program's own folder.
 * @param dataDir The host's `MCP_DATA_DIR`, or null; mounted only when it
 *   passes the grant folders' check (`checkDataDir`). @default null
 * @returns The base, frozen.
 *
 * Requires `--allow-read` on `/` entries and the interpreters' folders.
 */
export function gatherSandboxBase(
  bwrapPath: string,
  programs: readonly string[],
  protectedFolders: ProtectedFolders,
  dataDir: string | null = null,
): SandboxBase {
  const system: Mount[] = [];
  for (const folder of SYSTEM_TOP_FOLDERS) {
    const info = lstatOrNull(folder);
    if (info === null) continue;
    if (info.isSymlink) {
      system.push({
        kind: "symlink",
        path: folder,
        source: Deno.readLinkSync(folder),
        why: "the system's link, as on the host",
      });
    } else if (info.isDirectory) {
      system.push({ kind: "ro", path: folder, why: "system programs and libraries" });
    }
  }
  for (const entry of ETC_BASE) {
    system.push({ kind: "ro", path: entry, optional: true, why: "linking, locale, time zone" });
  }
  const network: Mount[] = ETC_NETWORK.map((entry) => ({
    kind: "ro",
    path: entry,
    optional: true,
    why: "name resolution and CA certificates (network granted)",
  }));
  const data = checkDataDir(dataDir, protectedFolders);
  const interpreterFolders: Record<string, readonly string[]> = {};
  for (const program of programs) {
    interpreterFolders[program] = Object.freeze(interpreterFoldersOf(program, protectedFolders));
  }
  return Object.freeze({
    bwrapPath,
    system: Object.freeze(system),
    network: Object.freeze(network),
    interpreterFolders: Object.freeze(interpreterFolders),
    dataDir: data.path,
    dataDirProblem: data.problem,
    dataHidden: Object.freeze(hiddenInData(data.path, protectedFolders.indexCache ?? [])),
  });
}

/**
 * The folders a sandbox hides inside the mounted data folder: for each index
 * cache folder strictly inside it, the data folder's child that holds it
 * (hosted, `$MCP_DATA_DIR/skillgate`). Hiding that child, not the cache
 * folder itself, leaves no folder above the cache a script could rename and
 * replace with one of its own (a mount point cannot be moved or removed).
 * `checkDataDir` refuses a data folder that is or lies inside a cache folder.
 *
 * @param dataDir The data folder's real path, or null when not mounted.
 * @param caches The index cache folders (resolved and real paths).
 * @returns Absolute paths, without duplicates.
 */
export function hiddenInData(dataDir: string | null, caches: readonly string[]): string[] {
  if (dataDir === null) return [];
  const base = dataDir.endsWith("/") ? dataDir : `${dataDir}/`;
  const hidden = new Set<string>();
  for (const cache of caches) {
    if (!cache.startsWith(base) || cache.length === base.length) continue;
    hidden.add(base + cache.slice(base.length).split("/")[0]);
  }
  return [...hidden];
}

/**
 * The folders an interpreter needs beyond the system folders: for its
 * literal path and its real path, the installation prefix (the folder above
 * its `bin`), narrowed to the program's own folder when the prefix fails the
 * grant folders' check (`/`, a home folder itself, a skill root around or
 * inside, skillgate's own folders) or is a home's data folder
 * (`~/.local`, `~/.config`, `~/.cache`, `~/.cargo`: user data, not an installation), on its literal
 * and its real path; left out when that folder fails too.
 *
 * @param program The interpreter's literal path.
 * @param protectedFolders The folders a prefix must not be or hold.
 * @returns Distinct folders, none under a system folder.
 *
 * Requires `--allow-read` on the program.
 */
export function interpreterFoldersOf(
  program: string,
  protectedFolders: ProtectedFolders,
): string[] {
  let real = program;
  try {
    real = Deno.realPathSync(program);
  } catch {
    // Missing: the run fails and says so.
  }
  const folders: string[] = [];
  for (const path of [program, real]) {
    if (isUnderSystem(path)) continue;
    const bin = dirname(path);
    const prefix = dirname(bin);
    const chosen = isAllowedPrefix(prefix, protectedFolders) ? prefix : bin;
    if (!isAllowedFolder(chosen, protectedFolders)) continue;
    if (!folders.some((folder) => chosen === folder || chosen.startsWith(`${folder}/`))) {
      folders.push(chosen);
    }
  }
  return folders;
}

/**
 * The folder check on both the literal and the real path (a link may lead to
 * `/` or a root), and no parent another user may write: the folder is bound
 * by path at every run (review r13, G8).
 */
function isAllowedFolder(path: string, protectedFolders: ProtectedFolders): boolean {
  const real = realOrNull(path) ?? path;
  return isForbiddenFolder(path, protectedFolders) === null &&
    isForbiddenFolder(real, protectedFolders) === null && swapRisk(real) === null;
}

/**
 * Home sub-folders that hold users' data, not installations, though
 * interpreters land in their `bin` (uv, pipx and `n` use `~/.local/bin`,
 * `cargo install` uses `~/.cargo/bin`): the XDG data, state, configuration and
 * cache trees (keyrings, browser and application state) and cargo's home
 * (`credentials.toml`). Installations in their own home sub-folder (`~/.pyenv`,
 * `~/.deno`, `~/.bun`, `~/.nvm/versions/...`) keep their prefix: their tools
 * need it (a pyenv shim runs `~/.pyenv/libexec/pyenv`).
 */
const HOME_DATA_FOLDERS: ReadonlySet<string> = new Set([".local", ".config", ".cache", ".cargo"]);

/**
 * Whether an installation prefix may be mounted whole: the folder check, and
 * not one of a home's data sub-folders (`HOME_DATA_FOLDERS`), on its literal
 * and its real path. Source: README's sandbox ("no home folder"), n8's
 * finding (a keyring in `~/.local/share` read through `~/.local/bin/python3`).
 */
function isAllowedPrefix(prefix: string, protectedFolders: ProtectedFolders): boolean {
  const real = realOrNull(prefix) ?? prefix;
  return isAllowedFolder(prefix, protectedFolders) &&
    !isHomeDataFolder(prefix, protectedFolders) && !isHomeDataFolder(real, protectedFolders);
}

/** Whether `path` is one of a home folder's data sub-folders (lexical). */
function isHomeDataFolder(path: string, protectedFolders: ProtectedFolders): boolean {
  return protectedFolders.homes.includes(dirname(path)) && HOME_DATA_FOLDERS.has(basename(path));
}

function isUnderSystem(path: string): boolean {
  return SYSTEM_TOP_FOLDERS.some((folder) => path.startsWith(`${folder}/`));
}

function lstatOrNull(path: string): Deno.FileInfo | null {
  try {
    return Deno.lstatSync(path);
  } catch {
    return null;
  }
}

function realOrNull(path: string): string | null {
  try {
    return Deno.realPathSync(path);
  } catch {
    return null;
  }
}
