/**
 * The worker's side of locating an open file descriptor: asks the trusted
 * part, which may read `/proc/self/fd` (the worker may not), over postMessage.
 *
 * @module
 */

import type { FdLocator } from "../files/fd_location.ts";
import type { LocateFdReplyMessage, LocateFdRequestMessage } from "./messages.ts";

/** The message port the client talks through (the worker's global scope). */
export interface LocatePort {
  postMessage(message: LocateFdRequestMessage): void;
  addEventListener(type: "message", listener: (event: MessageEvent) => void): void;
}

/** How long a request waits for the trusted part's reply, in ms. */
export const LOCATE_REPLY_TIMEOUT_MS = 5_000;

/**
 * Creates a locator that forwards every request to the trusted part.
 *
 * @param port Where to post requests and hear replies (in the worker: `self`).
 * @returns The locator. A request without a reply within
 *   {@linkcode LOCATE_REPLY_TIMEOUT_MS} resolves to `""`, a path no checked file
 *   has, so the read is refused (fail closed) rather than left unchecked.
 */
export function createFdLocateClient(port: LocatePort): FdLocator {
  let nextId = 1;
  const pending = new Map<number, (path: string | null) => void>();
  port.addEventListener("message", (event: MessageEvent) => {
    const reply = event.data as Partial<LocateFdReplyMessage> | null;
    if (reply?.type !== "locate-fd-reply" || typeof reply.id !== "number") return;
    const path = typeof reply.path === "string" ? reply.path : null;
    pending.get(reply.id)?.(path);
    pending.delete(reply.id);
  });
  return (fd) => {
    const id = nextId++;
    return new Promise<string | null>((resolve) => {
      const timer = setTimeout(() => {
        pending.delete(id);
        resolve("");
      }, LOCATE_REPLY_TIMEOUT_MS);
      pending.set(id, (path) => {
        clearTimeout(timer);
        resolve(path);
      });
      port.postMessage({ type: "locate-fd", id, fd });
    });
  };
}
