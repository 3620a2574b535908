/**
 * The digest isolate's one pass over a skill folder (issue 13): the
 * catalog's file listing (`listSkillFiles`, the very walk and rules of the
 * worker's build: each folder read through its descriptor by the trusted
 * part, each file's version from that read, review r10), then each listed
 * plain file opened by the gate (`openLocatedSync`: no-follow,
 * non-blocking, `fstat`), kept only when the handle is the very version
 * listed, read once its descriptor's location is checked (`readLocated`:
 * exactly `skill real folder/path`, asked of the trusted part) and hashed.
 * The walk and the hashing leave the worker's thread.
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
  loadGateFs,
  type LocatedHandle,
  type LocatedVersion,
  openLocatedSync,
  readLocated,
} from "../../files/bounded_read.ts";
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
    const prefix = skill.realDir.endsWith("/") ? skill.realDir : `${skill.realDir}/`;
    const plain: SkillFile[] = [];
    const standIn: SkillFile = { path: skill.skillMdFile, size: 0, mtimeMs: null };
    const candidate = skill as unknown as SkillCandidate;
    let listing;
    try {
      listing = await listSkillFiles(candidate, standIn, caps, {
        onListed: (file, real) => {
          if (real === `${prefix}${file.path}`) plain.push(file);
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
    return { listing, handles, standIn };
  }));
  return await Promise.all(listed.map(async ({ listing, handles, standIn }) => {
    try {
      if (listing === null) return null;
      const files = listing.files.filter((file) => file !== standIn);
      // A skill the extension cannot list (over its 512 files or 16 MiB, SKILL.md aside) needs no
      // digest: its handles are closed unread (review r6: sparse files cost an author no disk, and
      // the worker's build waits for this answer; the worker's own path hashes only listed skills).
      const isListable = files.length + 1 <= EXTENSION_MAX_FILES &&
        files.reduce((sum, file) => sum + file.size, 0) <= EXTENSION_MAX_BYTES;
      if (!isListable) {
        for (const handle of handles.values()) closeLocated(handle);
        handles.clear();
      }
      const digests = await Promise.all(files.map(async (file) => {
        const handle = handles.get(file.path);
        if (handle === undefined) return null;
        handles.delete(file.path);
        return await hashHandle(handle);
      }));
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

/** Reads one listed file's handle through the location check and hashes it; null when not read. */
async function hashHandle(handle: LocatedHandle): Promise<DigestSeen | null> {
  const hash = createHash("sha256");
  try {
    const read = await readLocated(handle, EXTENSION_MAX_BYTES, (chunk) => hash.update(chunk));
    if (read === null) return null;
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
  } catch {
    return null;
  }
}

/** Whether a handle's version is exactly the listed file's (a regular file, same identity and times). */
function isListedVersion(version: LocatedVersion, file: SkillFile): boolean {
  return version.isFile && version.dev === file.dev && version.ino === (file.ino ?? null) &&
    version.size === file.size && version.mtimeMs === file.mtimeMs &&
    version.ctimeMs === (file.ctimeMs ?? null);
}
