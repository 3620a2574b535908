/**
 * inotify's event records, parsed from the bytes one `read(2)` of the
 * inotify descriptor answers, and the mask bits the watcher uses. Pure: no
 * descriptor, no permission.
 *
 * A record is `struct inotify_event { int wd; uint32_t mask; uint32_t
 * cookie; uint32_t len; char name[len]; }` in the machine's byte order
 * (little-endian on every Linux skillgate runs on: x86_64, aarch64), `name`
 * NUL-padded to `len` bytes (absent when `len` is 0: the event is about the
 * watched folder itself).
 *
 * Source: inotify(7), "Reading events from an inotify file descriptor".
 *
 * @module
 */

/** A file was modified (`write`, `truncate`). */
export const IN_MODIFY = 0x2;
/** Metadata changed (mode, times, owner, link count). */
export const IN_ATTRIB = 0x4;
/** A file opened for writing was closed. */
export const IN_CLOSE_WRITE = 0x8;
/** A name moved out of the watched folder (`cookie` pairs it with `IN_MOVED_TO`). */
export const IN_MOVED_FROM = 0x40;
/** A name moved into the watched folder. */
export const IN_MOVED_TO = 0x80;
/** A name created in the watched folder. */
export const IN_CREATE = 0x100;
/** A name removed from the watched folder. */
export const IN_DELETE = 0x200;
/** The watched folder itself was removed. */
export const IN_DELETE_SELF = 0x400;
/** The watched folder itself was moved (anywhere, inside or out). */
export const IN_MOVE_SELF = 0x800;
/** The file system holding the watched folder was unmounted. */
export const IN_UNMOUNT = 0x2000;
/** The kernel queue overflowed: events were lost (`wd` -1). */
export const IN_Q_OVERFLOW = 0x4000;
/** The watch was removed (by `inotify_rm_watch`, or its folder is gone). */
export const IN_IGNORED = 0x8000;
/** Watch only a folder (`inotify_add_watch` fails with ENOTDIR otherwise). */
export const IN_ONLYDIR = 0x01000000;
/** No events for names unlinked from the folder while still open elsewhere. */
export const IN_EXCL_UNLINK = 0x04000000;
/** The event's subject is a folder. */
export const IN_ISDIR = 0x40000000;

/**
 * The mask every folder watch is added with: changes of names and contents,
 * the folder's own removal or move; never `IN_OPEN` / `IN_ACCESS` (reads
 * would flood the queue; the watch opens nothing itself).
 */
export const WATCH_MASK = IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO |
  IN_CREATE | IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_EXCL_UNLINK;

/** Bytes of a record's fixed part. */
export const EVENT_HEADER_BYTES = 16;

/**
 * Bytes one read of the descriptor asks for: at least one record of the
 * longest name (16 + NAME_MAX 255 + 1) fits many times over.
 */
export const READ_BUFFER_BYTES = 64 * 1024;

/** One event record. */
export interface InotifyEvent {
  /** The watch it came from (-1 for `IN_Q_OVERFLOW`). */
  readonly wd: number;
  readonly mask: number;
  readonly cookie: number;
  /** The entry's name inside the watched folder, or "" for the folder itself. */
  readonly name: string;
}

const decoder = new TextDecoder("utf-8", { fatal: false });

/**
 * Parses the records in `bytes` (what one read answered), in order.
 *
 * @param bytes The bytes read (`bytes.length` = the read's answer).
 * @returns The records; a record cut short at the end (which the kernel never
 *   answers) is dropped, with everything after it.
 */
export function parseEvents(bytes: Uint8Array): InotifyEvent[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const events: InotifyEvent[] = [];
  let at = 0;
  while (at + EVENT_HEADER_BYTES <= bytes.length) {
    const wd = view.getInt32(at, true);
    const mask = view.getUint32(at + 4, true);
    const cookie = view.getUint32(at + 8, true);
    const length = view.getUint32(at + 12, true);
    const end = at + EVENT_HEADER_BYTES + length;
    if (end > bytes.length) break;
    let nameEnd = at + EVENT_HEADER_BYTES;
    while (nameEnd < end && bytes[nameEnd] !== 0) nameEnd++;
    const name = decoder.decode(bytes.subarray(at + EVENT_HEADER_BYTES, nameEnd));
    events.push({ wd, mask, cookie, name });
    at = end;
  }
  return events;
}

/**
 * Encodes `events` as the kernel does (tests feed the watch tree with it).
 *
 * @param events The records.
 * @returns Their bytes, each name NUL-padded to a multiple of 16 bytes.
 */
export function encodeEvents(events: readonly InotifyEvent[]): Uint8Array {
  const encoder = new TextEncoder();
  const parts = events.map((event) => {
    const name = encoder.encode(event.name);
    const length = name.length === 0 ? 0 : Math.ceil((name.length + 1) / 16) * 16;
    const part = new Uint8Array(EVENT_HEADER_BYTES + length);
    const view = new DataView(part.buffer);
    view.setInt32(0, event.wd, true);
    view.setUint32(4, event.mask >>> 0, true);
    view.setUint32(8, event.cookie >>> 0, true);
    view.setUint32(12, length, true);
    part.set(name, EVENT_HEADER_BYTES);
    return part;
  });
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
