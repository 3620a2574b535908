/**
 * TEST-ONLY: builds real zip archives (stored or deflate members, Unix
 * modes in the external attributes) for the publisher tests, plus hostile
 * members: `../x`, absolute names, symbolic links, sizes that lie, a local
 * header naming another file.
 *
 * @module
 */

import { crc32 } from "../../src/remote/zip_extract.ts";

/** One member to write. */
export interface ZipMember {
  readonly name: string;
  readonly data?: string | Uint8Array;
  /** @default "deflate" */
  readonly method?: "stored" | "deflate";
  /** @default "file" (a name ending in `/` is a folder) */
  readonly type?: "file" | "dir" | "symlink" | "fifo";
  /** The size the central directory declares (a lie when it differs). */
  readonly declaredBytes?: number;
  /** A different name in the local header. */
  readonly localName?: string;
}

/**
 * Builds a zip archive.
 *
 * @param members Members in order.
 * @returns The archive bytes.
 */
export async function buildZip(members: readonly ZipMember[]): Promise<Uint8Array> {
  const encoder = new TextEncoder();
  const locals: Uint8Array[] = [];
  const centrals: Uint8Array[] = [];
  let offset = 0;
  for (const member of members) {
    const data = typeof member.data === "string"
      ? encoder.encode(member.data)
      : member.data ?? new Uint8Array(0);
    const type = member.type ?? (member.name.endsWith("/") ? "dir" : "file");
    const method = member.method ?? (type === "file" ? "deflate" : "stored");
    const body = method === "deflate" ? await deflateRaw(data) : data;
    const name = encoder.encode(member.name);
    const localName = encoder.encode(member.localName ?? member.name);
    const crc = crc32(data);
    const size = member.declaredBytes ?? data.length;
    const local = new Uint8Array(30 + localName.length);
    const lv = new DataView(local.buffer);
    lv.setUint32(0, 0x04034b50, true);
    lv.setUint16(4, 20, true);
    lv.setUint16(6, 0x0800, true);
    lv.setUint16(8, method === "deflate" ? 8 : 0, true);
    lv.setUint32(14, crc, true);
    lv.setUint32(18, body.length, true);
    lv.setUint32(22, size, true);
    lv.setUint16(26, localName.length, true);
    local.set(localName, 30);
    const mode = { file: 0o100644, dir: 0o040755, symlink: 0o120777, fifo: 0o010644 }[type];
    const central = new Uint8Array(46 + name.length);
    const cv = new DataView(central.buffer);
    cv.setUint32(0, 0x02014b50, true);
    cv.setUint16(4, (3 << 8) | 20, true);
    cv.setUint16(6, 20, true);
    cv.setUint16(8, 0x0800, true);
    cv.setUint16(10, method === "deflate" ? 8 : 0, true);
    cv.setUint32(16, crc, true);
    cv.setUint32(20, body.length, true);
    cv.setUint32(24, size, true);
    cv.setUint16(28, name.length, true);
    cv.setUint32(38, ((mode << 16) | (type === "dir" ? 0x10 : 0)) >>> 0, true);
    cv.setUint32(42, offset, true);
    central.set(name, 46);
    locals.push(local, body);
    centrals.push(central);
    offset += local.length + body.length;
  }
  const centralBytes = centrals.reduce((total, c) => total + c.length, 0);
  const end = new Uint8Array(22);
  const ev = new DataView(end.buffer);
  ev.setUint32(0, 0x06054b50, true);
  ev.setUint16(8, members.length, true);
  ev.setUint16(10, members.length, true);
  ev.setUint32(12, centralBytes, true);
  ev.setUint32(16, offset, true);
  return await new Blob([...locals, ...centrals, end] as Uint8Array<ArrayBuffer>[]).bytes();
}

async function deflateRaw(data: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([data as Uint8Array<ArrayBuffer>]).stream().pipeThrough(
    new CompressionStream("deflate-raw"),
  );
  return await new Response(stream).bytes();
}
