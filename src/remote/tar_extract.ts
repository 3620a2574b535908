/**
 * Safe extraction of a GitHub tarball (gzip + ustar/pax) into a fresh folder.
 *
 * A small reader over the web-standard `DecompressionStream` rather than an
 * npm tar library: every header is decided here, before a byte is written
 * (no link, device, FIFO, absolute path or `..` is ever created; a member's
 * size is checked against the cap from its header), the unpacked byte count
 * is counted as it inflates (a gzip bomb stops at the cap), and each file's
 * SHA-256 is taken from the same bytes that are written. GitHub's archives
 * use only ustar files and folders plus pax headers, which is all this reads.
 *
 * Rule source: POSIX pax/ustar format (IEEE Std 1003.1, `pax`), GitHub's
 * archive layout (one top folder `OWNER-REPO-SHA7/`).
 *
 * @module
 */

import { dirname, join } from "node:path";
import type { RemoteCaps } from "./remote_caps.ts";
import { RemoteError } from "./remote_error.ts";
import { FILE_MODE, FOLDER_MODE } from "./sources_cache.ts";

/** One extracted file. */
export interface ExtractedFile {
  /** Bytes. */
  readonly size: number;
  /** `sha256:` + 64 lowercase hex. */
  readonly digest: string;
}

/** What an extraction wrote. */
export interface Extraction {
  /** Files under `subPath`, keyed by POSIX path relative to it, sorted. */
  readonly files: ReadonlyMap<string, ExtractedFile>;
  /** Members read (all of the archive, not only those written). */
  readonly members: number;
  /** Bytes inflated (headers included). */
  readonly unpackedBytes: number;
}

const BLOCK = 512;

/**
 * Extracts the members under `subPath` of a gzip tarball into `dest`.
 * Requires `--allow-write` (and read) on `dest`.
 *
 * Every member is checked, written or not: an absolute name, a `..`
 * segment, a member outside the single top folder, or an unknown type
 * refuses the archive. Members under `subPath` must be regular files or
 * folders: a symbolic link, hard link, device or FIFO there refuses the
 * archive (outside `subPath` they are skipped, never written). A file over
 * `maxMemberBytes`, more than `maxMembers` members or `maxUnpackedBytes`
 * inflated, or the signal firing, refuses the archive. The caller discards
 * `dest` on any error.
 *
 * @param gzip The downloaded archive.
 * @param dest An empty folder that exists.
 * @param subPath The source PATH inside the repository (`""` for all).
 * @param options The caps and the deadline signal; `hasTopFolder: false`
 *   reads a publisher's skill archive, whose root is the skill folder
 *   (no single top folder is stripped). @default hasTopFolder true (GitHub)
 * @returns The files written with their digests.
 * @throws {RemoteError} `unsafe-archive`, `too-large`, `bad-archive`, `timeout`.
 */
export async function extractTarball(
  gzip: Uint8Array,
  dest: string,
  subPath: string,
  options: {
    readonly caps: RemoteCaps;
    readonly signal: AbortSignal;
    readonly hasTopFolder?: boolean;
  },
): Promise<Extraction> {
  const { caps, signal } = options;
  const hasTopFolder = options.hasTopFolder ?? true;
  const stream = new Blob([gzip as Uint8Array<ArrayBuffer>]).stream().pipeThrough(
    new DecompressionStream("gzip"),
  );
  const input = new BlockReader(stream.getReader(), caps.maxUnpackedBytes);
  const files = new Map<string, ExtractedFile>();
  const madeDirs = new Set<string>([dest]);
  let top: string | null = null;
  let members = 0;
  let pax: PaxKept = {};
  let longName: string | null = null;
  // Extended headers before one member, in bytes: capped in all, not only each (review r14, H3).
  let extendedBytes = 0;
  try {
    while (true) {
      if (signal.aborted) throw new RemoteError("timeout", "Extraction took too long");
      const header = await input.read(BLOCK);
      if (header === null || header.every((byte) => byte === 0)) break;
      if (++members > caps.maxMembers) {
        throw new RemoteError("too-large", `The archive has more than ${caps.maxMembers} members`);
      }
      const entry = parseHeader(header);
      if (entry.type === "x" || entry.type === "g" || entry.type === "L" || entry.type === "K") {
        extendedBytes += entry.size;
        if (extendedBytes > MAX_EXTENDED_BYTES) {
          throw new RemoteError(
            "too-large",
            "The extended headers before one member are over 1 MiB in all",
          );
        }
        const data = await input.readPadded(entry.size);
        if (entry.type === "x") pax = { ...pax, ...parsePax(data) };
        if (entry.type === "L") longName = decodeName(data);
        continue; // "g" (GitHub's commit comment) and "K" carry nothing we use
      }
      const size = pax.size !== undefined ? parseDecimal(pax.size) : entry.size;
      const name = pax.path ?? longName ?? entry.name;
      pax = {};
      longName = null;
      extendedBytes = 0;
      const segments = checkedSegments(name);
      const first = segments[0];
      if (first === undefined) {
        if (!hasTopFolder && entry.type === "5") continue; // "./", the root itself
        throw unsafe(`an empty member name`);
      }
      if (top === null) top = first;
      if (hasTopFolder && first !== top) throw unsafe(`member "${name}" is outside the top folder`);
      const relative = inside(hasTopFolder ? segments.slice(1) : segments, subPath);
      const isFile = entry.type === "0" || entry.type === "\0" || entry.type === "7";
      if (!isFile && entry.type !== "5" && !["1", "2", "3", "4", "6"].includes(entry.type)) {
        throw unsafe(`member "${name}" has unknown type "${entry.type}"`);
      }
      if (relative === null) {
        await input.skipPadded(isFile ? size : 0);
        continue;
      }
      if (!isFile && entry.type !== "5") {
        throw unsafe(`member "${name}" is a ${TYPE_NAMES[entry.type] ?? "special file"}`);
      }
      if (entry.type === "5") {
        if (relative !== "") await makeDirs(join(dest, relative), madeDirs);
        continue;
      }
      if (relative === "") throw unsafe(`the source PATH is a file, not a folder`);
      if (size > caps.maxMemberBytes) {
        throw new RemoteError(
          "too-large",
          `Member "${name}" is ${size} bytes; the cap is ${caps.maxMemberBytes}`,
        );
      }
      if (files.has(relative)) throw unsafe(`member "${name}" appears twice`);
      const data = await input.readPadded(size);
      const target = join(dest, relative);
      await makeDirs(dirname(target), madeDirs);
      await Deno.writeFile(target, data, { createNew: true, mode: FILE_MODE });
      files.set(relative, { size, digest: await sha256(data) });
    }
  } catch (error) {
    await input.cancel();
    if (error instanceof RemoteError) throw error;
    if (error instanceof Deno.errors.AlreadyExists || error instanceof Deno.errors.NotADirectory) {
      throw unsafe("two members claim the same path");
    }
    if (error instanceof TypeError) throw new RemoteError("bad-archive", "Not a gzip tarball");
    throw error;
  }
  await input.cancel();
  if (top === null) throw new RemoteError("bad-archive", "The archive is empty");
  const sorted = new Map([...files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return { files: sorted, members, unpackedBytes: input.total };
}

const TYPE_NAMES: Record<string, string> = {
  "1": "hard link",
  "2": "symbolic link",
  "3": "character device",
  "4": "block device",
  "6": "FIFO",
};

function unsafe(what: string): RemoteError {
  return new RemoteError("unsafe-archive", `Refused archive: ${what}`);
}

/** Splits a member name; refuses absolute names, `..`, NUL and backslashes. */
function checkedSegments(name: string): string[] {
  if (name.startsWith("/")) throw unsafe(`member "${name}" has an absolute path`);
  if (name.includes("\0") || name.includes("\\")) throw unsafe(`member name has NUL or '\\'`);
  const segments = name.split("/").filter((segment) => segment !== "" && segment !== ".");
  if (segments.includes("..")) throw unsafe(`member "${name}" climbs out with '..'`);
  return segments;
}

/** The path relative to `subPath`, or null when the member is outside it. */
function inside(segments: string[], subPath: string): string | null {
  const path = segments.join("/");
  if (subPath === "") return path;
  if (path === subPath) return "";
  return path.startsWith(`${subPath}/`) ? path.slice(subPath.length + 1) : null;
}

async function makeDirs(path: string, made: Set<string>): Promise<void> {
  if (made.has(path)) return;
  await Deno.mkdir(path, { recursive: true, mode: FOLDER_MODE });
  made.add(path);
}

interface Header {
  readonly name: string;
  readonly size: number;
  readonly type: string;
}

function parseHeader(block: Uint8Array): Header {
  const stored = parseOctal(block.subarray(148, 156));
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : block[i]!;
  if (stored !== sum) throw new RemoteError("bad-archive", "A tar header's checksum is wrong");
  const name = decodeName(block.subarray(0, 100));
  const isUstar = decodeName(block.subarray(257, 262)) === "ustar";
  const prefix = isUstar ? decodeName(block.subarray(345, 500)) : "";
  if ((block[124]! & 0x80) !== 0) throw new RemoteError("too-large", "A member over 8 GiB");
  return {
    name: prefix === "" ? name : `${prefix}/${name}`,
    size: parseOctal(block.subarray(124, 136)),
    type: String.fromCharCode(block[156]!),
  };
}

function decodeName(bytes: Uint8Array): string {
  const end = bytes.indexOf(0);
  return new TextDecoder().decode(end < 0 ? bytes : bytes.subarray(0, end));
}

function parseOctal(bytes: Uint8Array): number {
  const text = decodeName(bytes).trim();
  if (text === "") return 0;
  if (!/^[0-7]+$/.test(text)) {
    throw new RemoteError("bad-archive", "A tar header number is not octal");
  }
  return parseInt(text, 8);
}

function parseDecimal(text: string): number {
  if (!/^\d{1,15}$/.test(text)) throw new RemoteError("bad-archive", "A pax size is not a number");
  return Number(text);
}

/** The most extended-header bytes (pax `x`/`g`, GNU `L`/`K`) before one member: 1 MiB. */
const MAX_EXTENDED_BYTES = 1024 * 1024;

/** The pax keys this reader uses; every other record is read past and dropped. */
interface PaxKept {
  path?: string;
  size?: string;
}

/**
 * pax records (`LEN KEY=VALUE\n`), keeping only `path` and `size`: records
 * with other keys are checked for form and dropped, so what is held between
 * members never grows with what an archive sends (review r14, H3).
 */
function parsePax(data: Uint8Array): PaxKept {
  const kept: PaxKept = {};
  const decoder = new TextDecoder();
  let offset = 0;
  while (offset < data.length) {
    const space = data.indexOf(0x20, offset);
    if (space < 0) break;
    const length = Number(decoder.decode(data.subarray(offset, space)));
    if (!Number.isInteger(length) || length <= 0 || offset + length > data.length) {
      throw new RemoteError("bad-archive", "A pax record is malformed");
    }
    const record = decoder.decode(data.subarray(space + 1, offset + length - 1));
    const equals = record.indexOf("=");
    const key = equals > 0 ? record.slice(0, equals) : "";
    if (key === "path" || key === "size") kept[key] = record.slice(equals + 1);
    offset += length;
  }
  return kept;
}

async function sha256(data: Uint8Array): Promise<string> {
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-256", data as Uint8Array<ArrayBuffer>),
  );
  return `sha256:${Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("")}`;
}

/** Reads exact byte counts from the inflating stream, counting every byte against a cap. */
class BlockReader {
  total = 0;
  #buffered: Uint8Array[] = [];
  #bufferedBytes = 0;
  #done = false;

  constructor(
    readonly reader: ReadableStreamDefaultReader<Uint8Array>,
    readonly maxBytes: number,
  ) {}

  /** Exactly `count` bytes, or null at a clean end before any of them. */
  async read(count: number): Promise<Uint8Array | null> {
    while (this.#bufferedBytes < count && !this.#done) {
      const { done, value } = await this.reader.read();
      if (done) {
        this.#done = true;
        break;
      }
      this.total += value.byteLength;
      if (this.total > this.maxBytes) {
        throw new RemoteError(
          "too-large",
          `The archive unpacks to more than ${this.maxBytes} bytes`,
        );
      }
      this.#buffered.push(value);
      this.#bufferedBytes += value.byteLength;
    }
    if (this.#bufferedBytes === 0 && count > 0) return null;
    if (this.#bufferedBytes < count) {
      throw new RemoteError("bad-archive", "The archive is cut short");
    }
    const out = new Uint8Array(count);
    let offset = 0;
    while (offset < count) {
      const chunk = this.#buffered[0]!;
      const take = Math.min(chunk.byteLength, count - offset);
      out.set(chunk.subarray(0, take), offset);
      offset += take;
      if (take === chunk.byteLength) this.#buffered.shift();
      else this.#buffered[0] = chunk.subarray(take);
    }
    this.#bufferedBytes -= count;
    return out;
  }

  /** `size` bytes of member data, then the padding to the next block. */
  async readPadded(size: number): Promise<Uint8Array> {
    const padded = Math.ceil(size / BLOCK) * BLOCK;
    if (padded === 0) return new Uint8Array(0);
    const data = await this.read(padded);
    if (data === null) throw new RemoteError("bad-archive", "The archive is cut short");
    return data.subarray(0, size);
  }

  /** Skips member data without keeping more than one block at a time. */
  async skipPadded(size: number): Promise<void> {
    let left = Math.ceil(size / BLOCK) * BLOCK;
    while (left > 0) {
      const step = Math.min(left, 64 * BLOCK);
      if ((await this.read(step)) === null) {
        throw new RemoteError("bad-archive", "The archive is cut short");
      }
      left -= step;
    }
  }

  async cancel(): Promise<void> {
    await this.reader.cancel().catch(() => {});
  }
}
