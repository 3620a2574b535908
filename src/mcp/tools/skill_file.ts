/**
 * `skill_file`: read up to 8 files of one skill, each answered in request
 * order as text, base64 or that path's own error. Only files in the skill's
 * listing (`Skill.files` of the current snapshot, as `skill_load` and
 * `resources/list` show it) are served, exactly as `resources/read` does: a
 * file past the listing's cap or created after the last refresh is
 * `not-listed`. Every listed path still goes through the path gate; the
 * call's byte budget is decided from the listing before a byte is read.
 *
 * Paging covers the bytes present at read (the open file's size, as
 * `resources/read` returns them): `size` is that size, and `nextOffset`
 * strictly increases until the end, also for a file that grew or shrank
 * since it was listed (a page at or past the listed end reserves one byte
 * and takes the call's unreserved budget; an offset past a shrunk end is
 * `offset-beyond-end`).
 *
 * @module
 */

import * as z from "zod";
import type { Caps } from "../../caps.ts";
import { MAX_CLIENT_NAME_CHARS, MAX_FILE_ENTRIES_PER_CALL, MAX_PATH_CHARS } from "../../caps.ts";
import { readBounded } from "../../files/bounded_read.ts";
import { mediaTypeFor } from "../../files/media_type.ts";
import {
  checkPathString,
  PathRefusedError,
  quotePath,
  type ResolvedFile,
  resolveSkillFile,
} from "../../files/path_gate.ts";
import type { Skill } from "../../skills/skill.ts";
import { findListedFile } from "../resources/served_file.ts";
import { lastGoodRefusal } from "../../skills/last_good.ts";
import { reportStaleSkill } from "../../refresh/stale_hint.ts";
import { cutAtUtf8Boundary, decodeStrictUtf8, encodeBase64 } from "../../files/text.ts";
import { toolError, toolSuccess } from "../tool_result.ts";
import {
  ANSWER_OVERHEAD_BYTES,
  AnswerBudgetBusyError,
  answerBytesFor,
  jsonEscapedBytes,
} from "../answer_budget.ts";
import { isSkill, lookUpSkill } from "./lookup.ts";
import { defineTool, READ_ONLY_ANNOTATIONS } from "./tool.ts";

const entrySchema = z.union([
  z.string().min(1).max(MAX_PATH_CHARS),
  z.object({
    path: z.string().min(1).max(MAX_PATH_CHARS),
    offset: z.number().int().min(0).optional().describe("First byte to return (default 0)"),
    length: z.number().int().min(1).optional().describe(
      "Bytes to return at most (default and ceiling: the per-file cap)",
    ),
  }).strict(),
]);

const inputSchema = z.object({
  name: z.string().min(1).max(MAX_CLIENT_NAME_CHARS).describe("The skill's name"),
  paths: z.array(entrySchema).min(1).max(MAX_FILE_ENTRIES_PER_CALL).describe(
    "Relative paths inside the skill, as skill_load lists them, or {path, offset, length} " +
      "to page through a large file",
  ),
}).strict();

const fileShape = z.object({
  path: z.string(),
  offset: z.number().int(),
  size: z.number().int(),
  mediaType: z.string(),
  encoding: z.enum(["utf-8", "base64"]),
  truncated: z.boolean(),
  truncationNote: z.string().optional(),
  nextOffset: z.number().int().optional(),
  content: z.string(),
});

const fileErrorShape = z.object({ path: z.string(), error: z.string(), message: z.string() });

const outputSchema = z.object({
  skill: z.string(),
  files: z.array(z.union([fileShape, fileErrorShape])),
});

/** One file answered by `skill_file`. */
export type FileAnswer = z.infer<typeof fileShape>;
/** One path `skill_file` could not answer. */
export type FileErrorAnswer = z.infer<typeof fileErrorShape>;

interface Entry {
  readonly path: string;
  readonly offset: number;
  readonly length: number | null;
}

/** An entry the gate resolved, with the bytes reserved for it before any byte is read. */
interface Planned {
  readonly entry: Entry;
  readonly file: ResolvedFile;
  /** Bytes reserved from the listed size (at least 1 at or past the listed end). */
  readonly wantedBytes: number;
  /** The page the client asked for: `length`, at most the per-file cap. */
  readonly pageBytes: number;
  /** Whether the offset is at or past the listed size (the file grew since listing). */
  readonly atListedEnd: boolean;
}

/** The `skill_file` tool. */
export const skillFileTool = defineTool({
  name: "skill_file",
  title: "Read skill files",
  description: "Read files bundled with a skill (up to 8 per call), e.g. references/guide.md or " +
    "scripts/build.py. Each path answers separately: UTF-8 text, or base64 for binary files, or " +
    "its own error. A file larger than the per-file cap comes back truncated with nextOffset: " +
    "call again with {path, offset: nextOffset} to read on.",
  inputSchema,
  outputSchema,
  annotations: READ_ONLY_ANNOTATIONS,
  call: async (input, context, extra) => {
    const found = lookUpSkill(context.store.current(), input.name);
    if (!isSkill(found)) return found;
    const entries: Entry[] = input.paths.map((entry) =>
      typeof entry === "string"
        ? { path: entry, offset: 0, length: null }
        : { path: entry.path, offset: entry.offset ?? 0, length: entry.length ?? null }
    );
    const planned = await Promise.all(
      entries.map((entry) => planEntry(found, entry, context.caps)),
    );
    const budget = planned.reduce((sum, plan) => sum + ("file" in plan ? plan.wantedBytes : 0), 0);
    if (budget > context.caps.maxCallBytes) {
      return toolError(
        "BUDGET_EXCEEDED",
        `These ${entries.length} files would return ${budget} bytes; one call returns at most ` +
          `${context.caps.maxCallBytes}`,
        "Ask for fewer files per call, or page large files with {path, offset, length}",
      );
    }
    // The answer carries the files twice (structured, and as JSON text for
    // older clients): reserve that before reading, top up to the real size.
    const estimated = 2 * answerBytesFor(budget);
    const releases: (() => void)[] = [];
    const hold = extra?.holdAnswerBytes ?? (() => Promise.resolve(() => {}));
    try {
      releases.push(await hold(estimated));
      const limits = shareSpareBudget(planned, context.caps.maxCallBytes - budget);
      const files = await Promise.all(
        planned.map((plan, index) =>
          "file" in plan
            ? readEntry(plan.file, plan.entry, limits[index] ?? plan.wantedBytes)
            : plan
        ),
      );
      const actual = answerBytesOfFiles(files);
      if (actual > estimated) releases.push(await hold(actual - estimated));
      return toolSuccess({ skill: found.name, files });
    } catch (error) {
      if (!(error instanceof AnswerBudgetBusyError)) throw error;
      return toolError(
        "SERVER_BUSY",
        error.message,
        "Call skill_file again in a few seconds, or ask for fewer bytes with {path, offset, length}",
      );
    } finally {
      for (const release of releases) release();
    }
  },
});

/**
 * An upper bound of the answer's bytes: text escapes once in the structured
 * copy and at most twice over in the JSON text copy (3x its escaped size);
 * base64 needs no escapes (2x).
 */
function answerBytesOfFiles(files: readonly (FileAnswer | FileErrorAnswer)[]): number {
  let total = ANSWER_OVERHEAD_BYTES;
  for (const file of files) {
    if (!("content" in file)) continue;
    total += file.encoding === "utf-8"
      ? 3 * jsonEscapedBytes(file.content)
      : 2 * file.content.length;
  }
  return total;
}

/**
 * One entry before any byte is read: its own error, or the file the gate
 * resolved and the bytes it will return. A path the skill's listing does not
 * hold is refused before any file is touched (so an unlisted file's
 * existence is never revealed); a path that fails the gate's string rule is
 * left to the gate, which names what is wrong.
 */
async function planEntry(
  skill: Skill,
  entry: Entry,
  caps: Caps,
): Promise<FileErrorAnswer | Planned> {
  const listed = findListedFile(skill, entry.path);
  if (listed === null && checkPathString(entry.path) === null) {
    return notListed(skill, entry.path, caps);
  }
  // A skill kept at its last good version: its SKILL.md on disk now is the broken one.
  const lastGood = listed === null ? null : lastGoodRefusal(skill, listed.path);
  if (lastGood !== null) return { path: entry.path, error: "not-found", message: lastGood };
  let file: ResolvedFile;
  try {
    file = await resolveSkillFile(skill.realDir, entry.path);
  } catch (error) {
    if (!(error instanceof PathRefusedError)) throw error;
    // A listed file refused now: its change may have left no watcher event (`stale_hint.ts`).
    if (listed !== null) reportStaleSkill(skill);
    return refusal(entry.path, error);
  }
  // The listed size, never the size the gate saw before opening: until the open is
  // verified, that could describe a file outside the skill (a swapped folder). At or
  // past the listed end (the file grew since listing) one byte is reserved, so every
  // page of a file that has bytes there returns at least one: paging always progresses.
  const pageBytes = Math.min(entry.length ?? caps.maxFileEntryBytes, caps.maxFileEntryBytes);
  const listedRemaining = (listed?.size ?? 0) - entry.offset;
  const atListedEnd = listedRemaining <= 0;
  const wantedBytes = Math.min(atListedEnd ? 1 : listedRemaining, pageBytes);
  return { entry, file, wantedBytes, pageBytes, atListedEnd };
}

/**
 * Each entry's read limit: its reservation, plus a share of the call's
 * unreserved budget for files that grew since listing (paging covers the
 * bytes present at read, as `resources/read` does). Entries at or past their
 * listed end are served first, then the others in request order; the total
 * never exceeds `maxCallBytes`.
 *
 * @param planned The planned entries.
 * @param spareBytes `maxCallBytes` minus the reserved bytes (non-negative).
 * @returns The read limit per entry (undefined for entries already answered).
 */
function shareSpareBudget(
  planned: readonly (FileErrorAnswer | Planned)[],
  spareBytes: number,
): (number | undefined)[] {
  const limits = planned.map((plan) => "file" in plan ? plan.wantedBytes : undefined);
  let spare = spareBytes;
  const order = planned
    .map((plan, index) => ({ plan, index }))
    .filter((item): item is { plan: Planned; index: number } => "file" in item.plan)
    .sort((a, b) => Number(b.plan.atListedEnd) - Number(a.plan.atListedEnd) || a.index - b.index);
  for (const { plan, index } of order) {
    if (spare <= 0 || plan.wantedBytes >= plan.pageBytes) continue;
    const grant = Math.min(spare, plan.pageBytes - plan.wantedBytes);
    limits[index] = plan.wantedBytes + grant;
    spare -= grant;
  }
  return limits;
}

/** The answer for a path the skill's listing does not hold. */
function notListed(skill: Skill, path: string, caps: Caps): FileErrorAnswer {
  const cap = skill.files.length >= caps.maxFilesPerSkill
    ? `${caps.maxFilesPerSkill} files`
    : `${caps.maxFoldersPerSkill} folders`;
  const capNote = skill.filesTruncated
    ? `; the listing stopped at the cap of ${cap} per skill, so files past it are not served`
    : "";
  return {
    path,
    error: "not-listed",
    message: `File ${quotePath(path)} is not in skill ${quotePath(skill.name)}'s listing` +
      `${capNote}; call skill_load for the files it lists`,
  };
}

function refusal(path: string, error: PathRefusedError): FileErrorAnswer {
  return { path, error: error.code, message: error.message };
}

async function readEntry(
  file: ResolvedFile,
  entry: Entry,
  wantedBytes: number,
): Promise<FileAnswer | FileErrorAnswer> {
  let read;
  try {
    read = await readBounded(file, { offsetBytes: entry.offset, maxBytes: wantedBytes });
  } catch (error) {
    if (error instanceof PathRefusedError) return refusal(entry.path, error);
    // Raised after the open was verified, so the size it names is the skill file's own.
    if (error instanceof RangeError && /past the end/.test(error.message)) {
      return { path: entry.path, error: "offset-beyond-end", message: error.message };
    }
    throw error;
  }
  const mayContinue = entry.offset + read.bytes.length < read.sizeBytes;
  const textBytes = mayContinue ? cutAtUtf8Boundary(read.bytes, read.bytes.length) : read.bytes;
  // A page too short for one whole character goes as base64 rather than as nothing, so
  // nextOffset always moves on.
  const text = textBytes.length === 0 && read.bytes.length > 0 ? null : decodeStrictUtf8(textBytes);
  const returnedBytes = text === null ? read.bytes.length : textBytes.length;
  const answer: FileAnswer = {
    path: entry.path,
    offset: entry.offset,
    size: read.sizeBytes,
    mediaType: mediaTypeFor(entry.path),
    encoding: text === null ? "base64" : "utf-8",
    truncated: entry.offset + returnedBytes < read.sizeBytes,
    content: text ?? encodeBase64(read.bytes),
  };
  if (answer.truncated) {
    const next = entry.offset + returnedBytes;
    answer.nextOffset = next;
    answer.truncationNote = `Returned bytes ${entry.offset}-${next} of ${read.sizeBytes}. ` +
      `Call skill_file again with {"path": "${entry.path}", "offset": ${next}} to read on`;
  }
  return answer;
}
