/**
 * The worker's side of locating an open file descriptor: asks the trusted
 * part, which may read `/proc/self/fd` (the worker may not), over postMessage.
 *
 * Requests made in one synchronous run (a digest job's files) are sent
 * together after a microtask, and those made while another is in flight
 * once it is answered, each group as one `locate-fds` message of at most
 * `MAX_LOCATE_FDS` descriptors (the rest wait for the next) (issue 13: the
 * first full `skills/list` and a start-up read thousands of files
 * concurrently; one round trip per file was a third of their cost, and a
 * job's first request alone was half of the messages, s23). Every descriptor
 * is still located exactly; only the messages are fewer. No timer is added:
 * a lone request waits one microtask. The folder readers batch the same way;
 * all three through `micro_batch.ts`.
 *
 * @module
 */

import type { FdLocator } from "../files/fd_location.ts";
import type {
  FolderPathRead,
  FolderPathReader,
  FolderPathReadRequest,
  FolderRead,
  FolderReadAnswer,
  FolderReader,
  FolderReadRequest,
  SubfolderRead,
} from "../files/fd_listing.ts";
import {
  type LocateFdRequestMessage,
  type LocateFdsRequestMessage,
  MAX_LOCATE_FDS,
  MAX_READ_FOLDERS,
  type ReadFolderPathsRequestMessage,
  type ReadFoldersRequestMessage,
} from "./messages.ts";
import { createMicroBatcher } from "./micro_batch.ts";
import { createTrustedRequester, type RequestPort } from "./trusted_request.ts";

/**
 * Creates a locator that forwards every request to the trusted part.
 *
 * @param port Where to post requests and hear replies (in the worker: `self`).
 * @returns The locator. A request without a reply within
 *   `TRUSTED_REPLY_TIMEOUT_MS` resolves to `""`, a path no checked file has,
 *   so the read is refused (fail closed) rather than left unchecked.
 */
export function createFdLocateClient(
  port: RequestPort<LocateFdRequestMessage | LocateFdsRequestMessage>,
): FdLocator {
  const askOne = createTrustedRequester<LocateFdRequestMessage, string | null>(port, {
    replyType: "locate-fd-reply",
    readAnswer: (reply) => typeof reply.path === "string" ? reply.path : null,
    onTimeout: "",
  });
  const askMany = createTrustedRequester<LocateFdsRequestMessage, (string | null)[] | null>(
    port,
    {
      replyType: "locate-fds-reply",
      readAnswer: (reply) =>
        Array.isArray(reply.paths)
          ? reply.paths.map((path) => typeof path === "string" ? path : null)
          : null,
      onTimeout: null,
    },
  );
  return createMicroBatcher<number, string | null>({
    // At most MAX_LOCATE_FDS a message: the trusted part refuses a longer one (review r10).
    maxBatch: MAX_LOCATE_FDS,
    // A missing, short or unlocated answer fails closed (`""`) for every descriptor it does not
    // cover.
    send: (fds) =>
      fds.length === 1
        ? askOne({ type: "locate-fd", fd: fds[0]! }).then((path) => [path ?? ""])
        : askMany({ type: "locate-fds", fds: [...fds] }).then((paths) =>
          paths === null ? null : paths.map((path) => path ?? "")
        ),
    failClosed: "",
  });
}

/**
 * Creates a folder reader (`src/files/fd_listing.ts`) that asks the trusted
 * part to read each open folder through its descriptor (review r10: the
 * worker may not read `/proc`). Requests made in one synchronous run, or
 * while one is in flight, go as one `read-folders` message of at most
 * `MAX_READ_FOLDERS` (the many skills a cold build lists at once), as the
 * locator's do.
 *
 * @param port Where to post requests and hear replies (in the worker: `self`).
 * @returns The reader. A request without a reply within
 *   `TRUSTED_REPLY_TIMEOUT_MS`, or a reply that is not a read, resolves to
 *   null: the listing then lists nothing of that folder (fail closed); `busy`
 *   (the trusted part had no descriptor free for the `readdir`) is passed
 *   on, for the asker to wait out.
 */
export function createFolderReadClient(
  port: RequestPort<ReadFoldersRequestMessage>,
): FolderReader {
  const ask = createTrustedRequester<ReadFoldersRequestMessage, readonly unknown[] | null>(port, {
    replyType: "read-folders-reply",
    readAnswer: (reply) => Array.isArray(reply.reads) ? reply.reads : null,
    onTimeout: null,
  });
  return createMicroBatcher<FolderReadRequest, FolderReadAnswer>({
    maxBatch: MAX_READ_FOLDERS,
    send: (requests) =>
      ask({ type: "read-folders", requests: [...requests] }).then((reads) =>
        reads === null ? null : reads.map((read) => read === "busy" ? read : asFolderRead(read))
      ),
    failClosed: null,
  });
}

/**
 * Creates a reader of folders by path (`src/files/fd_listing.ts`,
 * `FolderPathReader`) that asks the trusted part to open, read and close
 * each (s11-hC: an isolate's own open of a folder costs Deno's permission
 * check, a `readlink` per path segment; the trusted part's does not).
 * Requests made in one synchronous run, or while one is in flight, go as one
 * `read-folder-paths` message of at most `MAX_READ_FOLDERS`, as
 * {@linkcode createFolderReadClient}'s do.
 *
 * @param port Where to post requests and hear replies (in an isolate: `self`).
 * @returns The reader. A request without a reply within
 *   `TRUSTED_REPLY_TIMEOUT_MS`, or an answer of no known shape, resolves to
 *   null: the asker then opens and reads the folder itself.
 */
export function createFolderPathReadClient(
  port: RequestPort<ReadFolderPathsRequestMessage>,
): FolderPathReader {
  const ask = createTrustedRequester<ReadFolderPathsRequestMessage, readonly unknown[] | null>(
    port,
    {
      replyType: "read-folder-paths-reply",
      readAnswer: (reply) => Array.isArray(reply.reads) ? reply.reads : null,
      onTimeout: null,
    },
  );
  return createMicroBatcher<FolderPathReadRequest, FolderPathRead>({
    maxBatch: MAX_READ_FOLDERS,
    send: (requests) =>
      ask({ type: "read-folder-paths", requests: [...requests] }).then((reads) =>
        reads === null
          ? null
          : reads.map((read) => read === "changed" || read === "busy" ? read : asFolderRead(read))
      ),
    failClosed: null,
  });
}

/** The trusted part's answer for one folder, if it has a read's shape; else null. */
function asFolderRead(value: unknown): FolderRead | null {
  if (typeof value !== "object" || value === null) return null;
  const { location, entries, tooManyEntries, subtree } = value as Record<string, unknown>;
  if (typeof location !== "string" || !Array.isArray(entries)) return null;
  const read: FolderRead = { location, entries: entries as FolderRead["entries"] };
  if (typeof tooManyEntries === "number") return { ...read, tooManyEntries };
  return Array.isArray(subtree) ? { ...read, subtree: subtree.flatMap(asSubfolderRead) } : read;
}

/** One sub-folder of a read's `subtree`, if it has that shape (as a list of 0 or 1). */
function asSubfolderRead(value: unknown): SubfolderRead[] {
  if (typeof value !== "object" || value === null) return [];
  const { rel, read } = value as Record<string, unknown>;
  if (typeof rel !== "string") return [];
  if (read === "changed" || read === null) return [{ rel, read }];
  const folder = asFolderRead(read);
  return folder === null || folder.subtree !== undefined ? [] : [{ rel, read: folder }];
}
