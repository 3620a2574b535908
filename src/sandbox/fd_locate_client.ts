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
 * a lone request waits one microtask.
 *
 * @module
 */

import type { FdLocator } from "../files/fd_location.ts";
import {
  type LocateFdRequestMessage,
  type LocateFdsRequestMessage,
  MAX_LOCATE_FDS,
} from "./messages.ts";
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
  let inFlight = false;
  const queued: { fd: number; resolve: (path: string | null) => void }[] = [];
  const send = (batch: { fd: number; resolve: (path: string | null) => void }[]) => {
    inFlight = true;
    const answered = batch.length === 1
      ? askOne({ type: "locate-fd", fd: batch[0]!.fd }).then((path) => [path])
      : askMany({ type: "locate-fds", fds: batch.map((item) => item.fd) }).then((paths) =>
        // A missing or short answer fails closed for every descriptor it does not cover.
        batch.map((_, index) =>
          paths === null || paths.length !== batch.length ? "" : paths[index] ?? null
        )
      );
    void answered.then((paths) => {
      batch.forEach((item, index) => item.resolve(paths[index] ?? ""));
      inFlight = false;
      // At most MAX_LOCATE_FDS a message: the trusted part refuses a longer one (review r10).
      if (queued.length > 0) send(queued.splice(0, MAX_LOCATE_FDS));
    });
  };
  let isFlushQueued = false;
  const flush = () => {
    isFlushQueued = false;
    if (inFlight || queued.length === 0) return;
    send(queued.splice(0, MAX_LOCATE_FDS));
  };
  return (fd) =>
    new Promise<string | null>((resolve) => {
      queued.push({ fd, resolve });
      if (!inFlight && !isFlushQueued) {
        isFlushQueued = true;
        queueMicrotask(flush);
      }
    });
}
