/**
 * Bounded reading of a skill's SKILL.md: stat, then at most `maxBytes + 1`
 * bytes into a buffer, never the whole file. The calls are synchronous (see
 * `_fs.ts` for why); the catalog yields to the event loop between skills.
 *
 * @module
 */

import { isInside, joinPath } from "./_path.ts";
import { errorName, escapeProblem, problem } from "./_problems.ts";
import type { SkillCandidate } from "./discover.ts";
import type { Problem } from "./problem.ts";

/** A SKILL.md read within the cap. */
export interface SkillMdText {
  readonly ok: true;
  /** Lexical path of the file. */
  readonly path: string;
  /** The decoded text, cut at the cap on a UTF-8 boundary. */
  readonly text: string;
  /** Whether the file was longer than the cap. */
  readonly truncated: boolean;
  /** Size in bytes from stat. */
  readonly size: number;
  /** Modification time in ms since the epoch, or null. */
  readonly mtimeMs: number | null;
  /** Device id from the same stat. */
  readonly dev: number;
  /** Inode number from the same stat (null where the platform has none). */
  readonly ino: number | null;
}

/**
 * Reads a candidate's SKILL.md (or `skill.md`). A symlinked SKILL.md is
 * followed only when its real path stays inside the skill's real folder.
 *
 * @param candidate The skill folder.
 * @param maxBytes Bytes kept at most (`Caps.maxSkillMdBytes`).
 * @returns The text, or the problem that keeps the skill out
 *   (`unreadable-skill-md` or `symlink-escape`, severity `error`).
 *
 * Requires `--allow-read` on the skill folder.
 */
export function readSkillMd(
  candidate: SkillCandidate,
  maxBytes: number,
): SkillMdText | { readonly ok: false; readonly problem: Problem } {
  const path = joinPath(candidate.dir, candidate.skillMdFile);
  const unreadable = (why: string) => ({
    ok: false as const,
    problem: problem(path, "unreadable-skill-md", "error", `${why}; the skill is not served`),
  });
  const entry = candidate.entries.find((e) => e.name === candidate.skillMdFile);
  try {
    if (entry?.isSymlink) {
      const real = Deno.realPathSync(path);
      if (!isInside(real, candidate.realDir)) {
        return { ok: false, problem: escapeProblem(path, "the skill folder", "error") };
      }
      if (!Deno.statSync(path).isFile) return unreadable(`"${path}" is not a regular file`);
    } else if (!entry?.isFile) {
      return unreadable(`"${path}" is not a regular file`);
    }
    using file = Deno.openSync(path, { read: true });
    const info = file.statSync();
    if (!info.isFile) return unreadable(`"${path}" is not a regular file`);
    const bytes = readAtMost(file, info.size, maxBytes + 1);
    const truncated = bytes.length > maxBytes;
    const kept = truncated ? bytes.subarray(0, utf8Boundary(bytes, maxBytes)) : bytes;
    let text: string;
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(kept);
    } catch {
      return unreadable(`"${path}" is not valid UTF-8. Save it as UTF-8`);
    }
    return {
      ok: true,
      path,
      text,
      truncated,
      size: info.size,
      mtimeMs: info.mtime?.getTime() ?? null,
      dev: info.dev,
      ino: info.ino,
    };
  } catch (error) {
    return unreadable(`"${path}" cannot be read (${errorName(error)})`);
  }
}

function readAtMost(file: Deno.FsFile, size: number, limit: number): Uint8Array {
  let buffer = new Uint8Array(Math.max(1, Math.min(limit, size + 1)));
  let filled = 0;
  while (filled < limit) {
    if (filled === buffer.length) {
      const grown = new Uint8Array(Math.min(limit, buffer.length * 2));
      grown.set(buffer);
      buffer = grown;
    }
    const read = file.readSync(buffer.subarray(filled));
    if (read === null) break;
    filled += read;
    // Stat said how long the file is: once that much is in, skip the extra EOF read.
    if (size > 0 && filled === size && size < limit) break;
  }
  return buffer.subarray(0, filled);
}

/** The largest cut `<= at` that does not split a UTF-8 sequence (needs the byte at `at`). */
function utf8Boundary(bytes: Uint8Array, at: number): number {
  let cut = at;
  while (cut > 0 && ((bytes[cut] ?? 0) & 0xc0) === 0x80) cut--;
  return cut;
}
