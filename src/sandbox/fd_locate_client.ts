/**
 * The worker's side of locating an open file descriptor: asks the trusted
 * part, which may read `/proc/self/fd` (the worker may not), over postMessage.
 *
 * @module
 */

import type { FdLocator } from "../files/fd_location.ts";
import type { LocateFdRequestMessage } from "./messages.ts";
import { createTrustedRequester, type RequestPort } from "./trusted_request.ts";

/**
 * Creates a locator that forwards every request to the trusted part.
 *
 * @param port Where to post requests and hear replies (in the worker: `self`).
 * @returns The locator. A request without a reply within
 *   `TRUSTED_REPLY_TIMEOUT_MS` resolves to `""`, a path no checked file has,
 *   so the read is refused (fail closed) rather than left unchecked.
 */
export function createFdLocateClient(port: RequestPort<LocateFdRequestMessage>): FdLocator {
  const ask = createTrustedRequester<LocateFdRequestMessage, string | null>(port, {
    replyType: "locate-fd-reply",
    readAnswer: (reply) => typeof reply.path === "string" ? reply.path : null,
    onTimeout: "",
  });
  return (fd) => ask({ type: "locate-fd", fd });
}
