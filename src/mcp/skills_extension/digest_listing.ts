/**
 * The digest isolate's one pass over a skill folder (issue 13): the
 * catalog's file listing (`listSkillFiles`, the very walk and rules of the
 * worker's build: each folder read through its descriptor by the trusted
 * part, review r10), each plain file opened by the gate as the walk meets it
 * (`openLocatedSync`: the folders on the way looked at first, so a folder
 * swapped for a link since its read is never opened through, s11-hD;
 * no-follow, non-blocking, `fstat`) and listed with that
 * handle's version (s10-h8: no second `lstat` of it in the trusted part),
 * read once its descriptor's location is checked (`readLocated`: exactly
 * `skill real folder/path`, asked of the trusted part) and hashed. A skill
 * any of whose handles the kernel places elsewhere is not answered at all
 * (its versions came from those handles): the worker's build lists it. Past
 * {@linkcode MAX_LISTING_HANDLES}, files are listed with the trusted part's
 * `lstat` through the folder's descriptor, as before. The walk and the
 * hashing leave the worker's thread.
 *
 * A file is opened here only when its real path is the skill's real folder
 * plus its listed path (no symlink on the way, so the gate's rules on the
 * real path are the rules on the listed one); any other file, a handle of
 * another version, and any open that fails, get no digest here (the
 * worker's usual path hashes it later).
 *
 * @module
 */

import { createHash } from "node:crypto";
import {
  closeLocated,
  isLocatedInPlace,
  loadGateFs,
  type LocatedHandle,
  type LocatedVersion,
  openLocatedSync,
  readLocated,
} from "../../files/bounded_read.ts";
import type { FolderEntry } from "../../files/fd_listing.ts";
import { isLocatorExpectedToAnswer } from "../../files/fd_location.ts";
import { PathRefusedError } from "../../files/path_gate.ts";
import { listSkillFiles } from "../../skills/_list_files.ts";
import type { SkillCandidate } from "../../skills/discover.ts";
import { EXTENSION_MAX_BYTES, EXTENSION_MAX_FILES } from "../../skills/extension_eligibility.ts";
import type { SkillFile } from "../../skills/skill.ts";
import type { DigestSeen, ListedSkill, ListJobSkill } from "./digest_messages.ts";

/**
 * Handles open at most while one job is listed (each listed file holds one
 * until its location is checked and it is read; past this, a file gets an
 * `lstat` and no digest here, and the usual path hashes it later). Jobs run
 * one after another, so this bounds the isolate's descriptors: review r6
 * found 256 made the worker's own SKILL.md opens fail (EMFILE) under a
 * 300-descriptor limit; a job of 16 real-shaped skills holds about 48.
 */
export const MAX_LISTING_HANDLES = 64;

/**
 * Lists and hashes the skills of one job.
 *
 * @param skills The skill folders, as discovery found them.
 * @param caps Files and folders per skill at most (the worker's caps).
 * @returns One result per skill, same order (null when its listing threw).
 *
 * Requires `--allow-read` on the skill folders, and a descriptor locator
 * (`installFdLocator`) that answers where it can.
 */
export async function listAndHashSkills(
  skills: readonly ListJobSkill[],
  caps: { readonly maxFilesPerSkill: number; readonly maxFoldersPerSkill: number },
): Promise<(ListedSkill | null)[]> {
  await loadGateFs();
  let open = 0;
  // Listed together: the folder reads of all of them go to the trusted part in few messages.
  const listed = await Promise.all(skills.map(async (skill) => {
    const handles = new Map<string, LocatedHandle>();
    // Files whose listed version is their handle's own (`versionOf`): each handle's location
    // must be checked before the listing is used, or the whole listing is dropped.
    const ownVersions = new Set<string>();
    const prefix = skill.realDir.endsWith("/") ? skill.realDir : `${skill.realDir}/`;
    const plain: SkillFile[] = [];
    const standIn: SkillFile = { path: skill.skillMdFile, size: 0, mtimeMs: null };
    const candidate = skill as unknown as SkillCandidate;
    let listing;
    try {
      listing = await listSkillFiles(candidate, standIn, caps, {
        // The skill folder's entries as discovery read them, exactly (h10), where descriptors are
        // located at all: not read again (s11-hC); each file's version still comes from a handle
        // of its own whose location is checked, and each sub-folder is read exactly.
        ...(isLocatorExpectedToAnswer()
          ? {
            topEntries: skill.entries.map(asFolderEntry),
            // Its sub-folders as discovery read them (s17), each used only where the walk
            // reaches it at exactly the location it was read at; the rest are read exactly.
            subtree: new Map(
              (skill.subfolders ?? []).map((folder) =>
                [folder.rel, {
                  location: folder.location,
                  entries: folder.entries.map(asFolderEntry),
                }] as const
              ),
            ),
          }
          : {}),
        // A plain file's version from the handle that hashes it (open no-follow, `fstat`), not
        // from a second `lstat` in the trusted part: one call and a message's worth of objects
        // fewer per file (s10-h8). The handle's location is checked before any of it is used.
        versionOf: (rel, real) => {
          if (open >= MAX_LISTING_HANDLES || real !== `${prefix}${rel}` || handles.has(rel)) {
            return null;
          }
          const opened = openLocatedSync(skill.realDir, rel);
          if (opened.kind !== "opened") return null;
          const { version } = opened.handle;
          if (!version.isFile) {
            closeLocated(opened.handle);
            return null;
          }
          handles.set(rel, opened.handle);
          ownVersions.add(rel);
          open++;
          return { ...version, isSymlink: false };
        },
        // The trusted part's `lstat`s again once the handles may run out (a folder read asks
        // for its files' at once; past the bound, each file would be one more round trip).
        statsInRead: () => open + HANDLES_LEFT_FOR_OWN_VERSIONS > MAX_LISTING_HANDLES,
        onListed: (file, real) => {
          if (!ownVersions.has(file.path) && real === `${prefix}${file.path}`) plain.push(file);
        },
      });
    } catch {
      listing = null;
    }
    if (listing !== null) {
      const kept = new Set(listing.files);
      for (const file of plain) {
        if (open >= MAX_LISTING_HANDLES || !kept.has(file)) continue;
        const opened = openLocatedSync(skill.realDir, file.path);
        if (opened.kind !== "opened") continue;
        // Only the very version listed is hashed here (the listing read it through the folder's
        // descriptor, review r10); a file changed since gets no digest and the usual path hashes it.
        if (isListedVersion(opened.handle.version, file)) {
          handles.set(file.path, opened.handle);
          open++;
        } else closeLocated(opened.handle);
      }
    }
    return { listing, handles, ownVersions, standIn };
  }));
  return await Promise.all(listed.map(async ({ listing, handles, ownVersions, standIn }) => {
    try {
      if (listing === null) return null;
      const files = listing.files.filter((file) => file !== standIn);
      // A skill the extension cannot list (over its 512 files or 16 MiB, SKILL.md aside) needs no
      // digest: its handles are closed unread (review r6: sparse files cost an author no disk, and
      // the worker's build waits for this answer; the worker's own path hashes only listed skills).
      // A handle whose version was listed is located first all the same.
      const isListable = files.length + 1 <= EXTENSION_MAX_FILES &&
        files.reduce((sum, file) => sum + file.size, 0) <= EXTENSION_MAX_BYTES;
      let isMisplaced = false;
      const digests = await Promise.all(files.map(async (file) => {
        const handle = handles.get(file.path);
        if (handle === undefined) return null;
        if (!isListable) {
          if (ownVersions.has(file.path) && !(await isLocatedInPlace(handle))) isMisplaced = true;
          return null;
        }
        handles.delete(file.path);
        const hashed = await hashHandle(handle);
        if (hashed === "misplaced") {
          // A listed version is trusted only from a handle exactly in place; another
          // handle's miss just leaves its file for the usual path.
          if (ownVersions.has(file.path)) isMisplaced = true;
          return null;
        }
        return hashed;
      }));
      // Some file's listed version came from a handle the kernel places elsewhere (a folder on
      // its way swapped since): nothing of this listing is used; the build lists the skill.
      if (isMisplaced) return null;
      return {
        files: files.map((file) => ({
          path: file.path,
          size: file.size,
          mtimeMs: file.mtimeMs,
          ctimeMs: file.ctimeMs ?? null,
          dev: file.dev ?? 0,
          ino: file.ino ?? null,
        })),
        truncated: listing.truncated,
        problems: listing.problems.map((found) => ({
          path: found.path,
          reason: found.reason,
          severity: found.severity,
          detail: found.detail,
        })),
        digests,
      };
    } finally {
      // Files the listing dropped (a folder swapped while it was walked) are closed unread.
      for (const handle of handles.values()) closeLocated(handle);
    }
  }));
}

/** A discovery entry as the walk reads it (its kind from `readdir`; no `lstat` taken). */
function asFolderEntry(entry: ListJobSkill["entries"][number]): FolderEntry {
  const kind = entry.isSymlink
    ? "symlink"
    : entry.isDirectory
    ? "dir"
    : entry.isFile
    ? "file"
    : "other";
  return { name: entry.name, kind, stat: null };
}

/**
 * Handles kept free for the files of one folder read without `lstat`s: while
 * fewer are left, folder reads take the trusted part's `lstat`s again.
 */
const HANDLES_LEFT_FOR_OWN_VERSIONS = 16;

/**
 * Reads one listed file's handle through the location check and hashes it:
 * null when not read or its version moved while it was read (no digest
 * here), "misplaced" when the kernel placed it anywhere but its path, or the
 * locator could not tell.
 */
async function hashHandle(handle: LocatedHandle): Promise<DigestSeen | null | "misplaced"> {
  const hash = createHash("sha256");
  try {
    const read = await readLocated(handle, EXTENSION_MAX_BYTES, (chunk) => hash.update(chunk), {
      reportsMove: true,
    });
    if (read === null) return "misplaced";
    if (read.isVersionMoved === true) return null;
    return {
      dev: read.dev,
      ino: read.ino,
      size: read.size,
      mtimeMs: read.mtimeMs,
      ctimeMs: read.ctimeMs,
      digest: `sha256:${hash.digest("hex")}`,
      bytes: read.bytesRead,
      readAtMs: Date.now(),
    };
  } catch (error) {
    return error instanceof PathRefusedError ? "misplaced" : null;
  }
}

/** Whether a handle's version is exactly the listed file's (a regular file, same identity and times). */
function isListedVersion(version: LocatedVersion, file: SkillFile): boolean {
  return version.isFile && version.dev === file.dev && version.ino === (file.ino ?? null) &&
    version.size === file.size && version.mtimeMs === file.mtimeMs &&
    version.ctimeMs === (file.ctimeMs ?? null);
}
