/**
 * The worker's side of ending process groups: a {@linkcode GroupKiller} that
 * asks the trusted part over postMessage, since the worker lacks the rights
 * to signal a group itself.
 *
 * @module
 */

import type { GroupKiller, GroupSignal } from "../scripts/runner/group_killer.ts";
import type { GroupReplyMessage, GroupRequestMessage } from "./messages.ts";

/** The message port the client talks through (the worker's global scope). */
export interface MessagePortLike {
  postMessage(message: GroupRequestMessage): void;
  addEventListener(type: "message", listener: (event: MessageEvent) => void): void;
}

/** How long a request waits for the trusted part's reply, in ms. */
export const GROUP_REPLY_TIMEOUT_MS = 5_000;

/**
 * Creates a group killer that forwards every request to the trusted part.
 *
 * @param port Where to post requests and hear replies (in the worker: `self`).
 * @returns The killer; a request without a reply within
 *   {@linkcode GROUP_REPLY_TIMEOUT_MS} resolves false.
 */
export function createGroupKillClient(port: MessagePortLike): GroupKiller {
  let nextId = 1;
  const pending = new Map<number, (ok: boolean) => void>();
  port.addEventListener("message", (event: MessageEvent) => {
    const reply = event.data as Partial<GroupReplyMessage> | null;
    if (reply?.type !== "group-reply" || typeof reply.id !== "number") return;
    pending.get(reply.id)?.(reply.ok === true);
    pending.delete(reply.id);
  });
  const ask = (op: GroupRequestMessage["op"], pid: number, signal?: GroupSignal) => {
    const id = nextId++;
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        pending.delete(id);
        resolve(false);
      }, GROUP_REPLY_TIMEOUT_MS);
      pending.set(id, (ok) => {
        clearTimeout(timer);
        resolve(ok);
      });
      port.postMessage({ type: "group", id, op, pid, ...(signal === undefined ? {} : { signal }) });
    });
  };
  return {
    register: (pid) => ask("register", pid),
    kill: (pid, signal) => ask("kill", pid, signal),
    release: (pid) => {
      void ask("release", pid);
    },
  };
}
