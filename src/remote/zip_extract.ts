/**
 * Safe extraction of a publisher's `.zip` skill archive into a fresh folder,
 * with the same rules and caps as `tar_extract.ts`.
 *
 * A small reader rather than an npm zip library: the whole central
 * directory is judged before a byte is written (no link, device, absolute
 * path, drive letter, `..`, backslash, encrypted member, unknown method,
 * zip64 or member over the caps is ever created), each member is inflated
 * through the web-standard `DecompressionStream("deflate-raw")` with its
 * bytes counted against its declared size and the unpacked cap as they
 * inflate (a zip bomb stops at the cap), and its CRC-32 and SHA-256 are
 * taken from the same bytes that are written. Each local header must agree
 * with the central directory (name, method, no encryption, CRC and sizes
 * unless a data descriptor carries them) and no two members' bytes may
 * overlap: two readings of one archive are a known way to fool scanners,
 * and overlapping members are how the densest zip bombs are built. Only "stored" (0) and "deflate" (8) are read, which is
 * what every common zip tool writes.
 *
 * Rule source: PKWARE APPNOTE.TXT 6.3.x (sections 4.3.7 local header,
 * 4.3.12 central directory, 4.3.16 end of central directory, 4.4.2 "version
 * made by", 4.4.4 flags); Unix mode bits in the external attributes' high
 * 16 bits (Info-ZIP).
 *
 * @module
 */

import { dirname, join } from "node:path";
import type { RemoteCaps } from "./remote_caps.ts";
import { RemoteError } from "./remote_error.ts";
import type { ExtractedFile, Extraction } from "./tar_extract.ts";
import { FILE_MODE, FOLDER_MODE } from "./sources_cache.ts";

const EOCD_SIGNATURE = 0x06054b50;
const CENTRAL_SIGNATURE = 0x02014b50;
const LOCAL_SIGNATURE = 0x04034b50;
const EOCD_BYTES = 22;
const MAX_COMMENT_BYTES = 0xffff;

interface Member {
  readonly name: string;
  /** Path relative to the archive root, `""` for the root itself. */
  readonly path: string;
  readonly isDir: boolean;
  readonly method: number;
  /** Flag bit 3: CRC and sizes follow the data (the local header may hold zeros). */
  readonly descriptor: boolean;
  readonly crc: number;
  readonly compressedBytes: number;
  readonly bytes: number;
  readonly localOffset: number;
}

/**
 * Extracts a zip archive into `dest` (the archive root becomes `dest`).
 * Requires `--allow-write` (and read) on `dest`.
 *
 * @param zip The downloaded archive (its digest already checked).
 * @param dest An empty folder that exists.
 * @param options The caps (`maxMembers`, `maxMemberBytes`,
 *   `maxUnpackedBytes`) and the deadline signal.
 * @returns The files written with their digests.
 * @throws {RemoteError} `unsafe-archive` (absolute, `..`, link, special
 *   file, duplicate), `too-large` (a cap), `bad-archive` (not a zip,
 *   corrupt, zip64, encrypted, an unknown method, a CRC that does not
 *   match), `timeout`. The caller discards `dest` on any error.
 */
export async function extractZip(
  zip: Uint8Array,
  dest: string,
  options: { readonly caps: RemoteCaps; readonly signal: AbortSignal },
): Promise<Extraction> {
  const { caps, signal } = options;
  const { members, cdOffset } = readCentralDirectory(zip, caps);
  const dataStarts = locateMembers(zip, members, cdOffset);
  const files = new Map<string, ExtractedFile>();
  const madeDirs = new Set<string>([dest]);
  let unpackedBytes = 0;
  try {
    for (const [index, member] of members.entries()) {
      if (signal.aborted) throw new RemoteError("timeout", "Extraction took too long");
      if (member.isDir) {
        if (member.path !== "") await makeDirs(join(dest, member.path), madeDirs);
        continue;
      }
      const data = await inflateMember(
        zip,
        member,
        dataStarts[index]!,
        caps.maxUnpackedBytes - unpackedBytes,
      );
      unpackedBytes += data.length;
      const target = join(dest, member.path);
      await makeDirs(dirname(target), madeDirs);
      await Deno.writeFile(target, data, { createNew: true, mode: FILE_MODE });
      files.set(member.path, { size: data.length, digest: await sha256(data) });
    }
  } catch (error) {
    if (error instanceof Deno.errors.AlreadyExists || error instanceof Deno.errors.NotADirectory) {
      throw unsafe("two members claim the same path");
    }
    throw error;
  }
  const sorted = new Map([...files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return { files: sorted, members: members.length, unpackedBytes };
}

/** Reads and judges every central directory entry; nothing is written. */
function readCentralDirectory(
  zip: Uint8Array,
  caps: RemoteCaps,
): { members: Member[]; cdOffset: number } {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  const eocd = findEndOfCentralDirectory(zip, view);
  const diskNumber = view.getUint16(eocd + 4, true);
  const cdDisk = view.getUint16(eocd + 6, true);
  const entriesHere = view.getUint16(eocd + 8, true);
  const entries = view.getUint16(eocd + 10, true);
  const cdBytes = view.getUint32(eocd + 12, true);
  const cdOffset = view.getUint32(eocd + 16, true);
  if (entries === 0xffff || cdBytes === 0xffffffff || cdOffset === 0xffffffff) {
    throw bad("zip64 archives are not read; publish a plain zip or a .tar.gz");
  }
  if (diskNumber !== 0 || cdDisk !== 0 || entriesHere !== entries) {
    throw bad("multi-part archives are not read");
  }
  if (cdOffset + cdBytes > eocd) throw bad("the central directory lies outside the archive");
  if (entries > caps.maxMembers) {
    throw new RemoteError("too-large", `The archive has more than ${caps.maxMembers} members`);
  }
  if (entries === 0) throw bad("The archive is empty");
  const members: Member[] = [];
  const paths = new Set<string>();
  let declaredBytes = 0;
  let offset = cdOffset;
  for (let index = 0; index < entries; index++) {
    if (offset + 46 > cdOffset + cdBytes || view.getUint32(offset, true) !== CENTRAL_SIGNATURE) {
      throw bad("a central directory entry is corrupt");
    }
    const madeBy = view.getUint16(offset + 4, true);
    const flags = view.getUint16(offset + 8, true);
    const descriptor = (flags & 0x8) !== 0;
    const method = view.getUint16(offset + 10, true);
    const crc = view.getUint32(offset + 16, true);
    const compressedBytes = view.getUint32(offset + 20, true);
    const bytes = view.getUint32(offset + 24, true);
    const nameBytes = view.getUint16(offset + 28, true);
    const extraBytes = view.getUint16(offset + 30, true);
    const commentBytes = view.getUint16(offset + 32, true);
    const external = view.getUint32(offset + 38, true);
    const localOffset = view.getUint32(offset + 42, true);
    const end = offset + 46 + nameBytes + extraBytes + commentBytes;
    if (end > cdOffset + cdBytes) throw bad("a central directory entry is cut short");
    const name = decodeName(zip.subarray(offset + 46, offset + 46 + nameBytes));
    offset = end;
    if (compressedBytes === 0xffffffff || bytes === 0xffffffff || localOffset === 0xffffffff) {
      throw bad("zip64 archives are not read; publish a plain zip or a .tar.gz");
    }
    if ((flags & 0x1) !== 0) throw bad(`member "${name}" is encrypted`);
    const segments = checkedSegments(name);
    const mode = madeBy >>> 8 === 3 ? external >>> 16 : 0;
    const type = mode & 0o170000;
    if (type === 0o120000) throw unsafe(`member "${name}" is a symbolic link`);
    const isDir = name.endsWith("/") || type === 0o040000 || (external & 0x10) !== 0;
    if (type !== 0 && type !== 0o100000 && type !== 0o040000) {
      throw unsafe(`member "${name}" is a special file`);
    }
    if (isDir && bytes !== 0) throw bad(`folder "${name}" has content`);
    if (method !== 0 && method !== 8) {
      throw bad(`member "${name}" uses compression method ${method} (only stored and deflate)`);
    }
    if (bytes > caps.maxMemberBytes) {
      throw new RemoteError(
        "too-large",
        `Member "${name}" is ${bytes} bytes; the cap is ${caps.maxMemberBytes}`,
      );
    }
    declaredBytes += bytes;
    if (declaredBytes > caps.maxUnpackedBytes) {
      throw new RemoteError(
        "too-large",
        `The archive unpacks to more than ${caps.maxUnpackedBytes} bytes`,
      );
    }
    const path = segments.join("/");
    if (path === "" && !isDir) throw unsafe("an empty member name");
    if (!isDir) {
      if (paths.has(path)) throw unsafe(`member "${name}" appears twice`);
      paths.add(path);
    }
    members.push({
      name,
      path,
      isDir,
      method,
      descriptor,
      crc,
      compressedBytes,
      bytes,
      localOffset,
    });
  }
  return { members, cdOffset };
}

/**
 * Reads every member's local header before a byte is written: it must
 * agree with the central directory (name, method, no encryption, and CRC
 * and sizes unless they follow in a data descriptor), and the members'
 * bytes (header and data) must lie one after another before the central
 * directory, never overlapping: one archive has one reading, whether a tool
 * walks the local headers or the central directory, and no byte is
 * inflated twice (the overlapping-member zip bomb).
 *
 * @returns Each member's data offset, in `members` order.
 */
function locateMembers(zip: Uint8Array, members: readonly Member[], cdOffset: number): number[] {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  const spans: Array<{ start: number; end: number; name: string }> = [];
  const starts = members.map((member) => {
    const at = member.localOffset;
    if (at + 30 > cdOffset || view.getUint32(at, true) !== LOCAL_SIGNATURE) {
      throw bad(`member "${member.name}" has no local header`);
    }
    const flags = view.getUint16(at + 6, true);
    const method = view.getUint16(at + 8, true);
    const crc = view.getUint32(at + 14, true);
    const compressedBytes = view.getUint32(at + 18, true);
    const bytes = view.getUint32(at + 22, true);
    const nameBytes = view.getUint16(at + 26, true);
    const extraBytes = view.getUint16(at + 28, true);
    const localName = decodeName(zip.subarray(at + 30, at + 30 + nameBytes));
    if (localName !== member.name) {
      throw unsafe(`member "${member.name}" has another name in its local header`);
    }
    // With a data descriptor the local fields may be zero; otherwise they must agree.
    const agrees = (local: number, central: number) =>
      local === central || (member.descriptor && local === 0);
    if (
      method !== member.method || (flags & 0x1) !== 0 || !agrees(crc, member.crc) ||
      !agrees(compressedBytes, member.compressedBytes) || !agrees(bytes, member.bytes)
    ) {
      throw unsafe(`member "${member.name}" has a local header that disagrees with the directory`);
    }
    const start = at + 30 + nameBytes + extraBytes;
    const end = start + member.compressedBytes;
    if (end > cdOffset) throw bad(`member "${member.name}" is cut short`);
    spans.push({ start: at, end, name: member.name });
    return start;
  });
  spans.sort((a, b) => a.start - b.start);
  for (let index = 1; index < spans.length; index++) {
    if (spans[index]!.start < spans[index - 1]!.end) {
      throw unsafe(`members "${spans[index - 1]!.name}" and "${spans[index]!.name}" overlap`);
    }
  }
  return starts;
}

function findEndOfCentralDirectory(zip: Uint8Array, view: DataView): number {
  const lowest = Math.max(0, zip.length - EOCD_BYTES - MAX_COMMENT_BYTES);
  for (let offset = zip.length - EOCD_BYTES; offset >= lowest; offset--) {
    if (view.getUint32(offset, true) === EOCD_SIGNATURE) {
      const commentBytes = view.getUint16(offset + 20, true);
      if (offset + EOCD_BYTES + commentBytes === zip.length) return offset;
    }
  }
  throw bad("Not a zip archive (no end of central directory)");
}

async function inflateMember(
  zip: Uint8Array,
  member: Member,
  start: number,
  budgetBytes: number,
): Promise<Uint8Array> {
  const end = start + member.compressedBytes;
  const raw = zip.subarray(start, end);
  const limit = Math.min(member.bytes, budgetBytes);
  let data: Uint8Array;
  if (member.method === 0) {
    if (raw.length !== member.bytes) throw bad(`stored member "${member.name}" has a wrong size`);
    if (raw.length > budgetBytes) throw tooLarge(budgetBytes);
    data = raw.slice();
  } else {
    data = await inflateRaw(raw, member, limit, budgetBytes);
  }
  if (data.length !== member.bytes) {
    throw bad(`member "${member.name}" inflates to another size than it declares`);
  }
  if (crc32(data) !== member.crc) throw bad(`member "${member.name}" fails its CRC-32 check`);
  return data;
}

async function inflateRaw(
  raw: Uint8Array,
  member: Member,
  limit: number,
  budgetBytes: number,
): Promise<Uint8Array> {
  const reader = new Blob([raw as Uint8Array<ArrayBuffer>]).stream()
    .pipeThrough(new DecompressionStream("deflate-raw")).getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > limit) {
        throw total > budgetBytes
          ? tooLarge(budgetBytes)
          : bad(`member "${member.name}" inflates past its declared size`);
      }
      chunks.push(value);
    }
  } catch (error) {
    await reader.cancel().catch(() => {});
    if (error instanceof RemoteError) throw error;
    throw bad(`member "${member.name}" is not valid deflate data`);
  }
  const data = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    data.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return data;
}

/** Splits a member name; refuses absolute names, drive letters, `..`, NUL and backslashes. */
function checkedSegments(name: string): string[] {
  if (name.startsWith("/") || /^[A-Za-z]:/.test(name)) {
    throw unsafe(`member "${name}" has an absolute path`);
  }
  if (name.includes("\0") || name.includes("\\")) throw unsafe(`member name has NUL or '\\'`);
  const segments = name.split("/").filter((segment) => segment !== "" && segment !== ".");
  if (segments.includes("..")) throw unsafe(`member "${name}" climbs out with '..'`);
  return segments;
}

function decodeName(bytes: Uint8Array): string {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw bad("a member name is not UTF-8");
  }
}

async function makeDirs(path: string, made: Set<string>): Promise<void> {
  if (made.has(path)) return;
  await Deno.mkdir(path, { recursive: true, mode: FOLDER_MODE });
  made.add(path);
}

function unsafe(what: string): RemoteError {
  return new RemoteError("unsafe-archive", `Refused archive: ${what}`);
}

function bad(what: string): RemoteError {
  return new RemoteError("bad-archive", `Refused archive: ${what}`);
}

function tooLarge(budgetBytes: number): RemoteError {
  return new RemoteError(
    "too-large",
    `The archive unpacks past the cap (${budgetBytes} bytes left)`,
  );
}

let crcTable: Uint32Array | null = null;

/**
 * CRC-32 (IEEE 802.3, the zip checksum).
 *
 * @param data The bytes.
 * @returns The unsigned 32-bit checksum.
 */
export function crc32(data: Uint8Array): number {
  if (crcTable === null) {
    crcTable = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c >>> 0;
    }
  }
  let crc = 0xffffffff;
  for (const byte of data) crc = crcTable[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

async function sha256(data: Uint8Array): Promise<string> {
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-256", data as Uint8Array<ArrayBuffer>),
  );
  return `sha256:${Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("")}`;
}
