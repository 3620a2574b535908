/**
 * The worker's side of ending process groups: a {@linkcode GroupKiller} that
 * asks the trusted part over postMessage, since the worker lacks the rights
 * to signal a group itself.
 *
 * @module
 */

import type { GroupKiller } from "../scripts/runner/group_killer.ts";
import type { GroupRequestMessage } from "./messages.ts";
import { createTrustedRequester, type RequestPort } from "./trusted_request.ts";

/**
 * Creates a group killer that forwards every request to the trusted part.
 *
 * @param port Where to post requests and hear replies (in the worker: `self`).
 * @returns The killer; a request without a reply within
 *   `TRUSTED_REPLY_TIMEOUT_MS` resolves false.
 */
export function createGroupKillClient(port: RequestPort<GroupRequestMessage>): GroupKiller {
  const ask = createTrustedRequester<GroupRequestMessage, boolean>(port, {
    replyType: "group-reply",
    readAnswer: (reply) => reply.ok === true,
    onTimeout: false,
  });
  return {
    register: (pid, options = {}) =>
      ask({ type: "group", op: "register", pid, awaitsStop: options.awaitsStop === true }),
    kill: (pid, signal) => ask({ type: "group", op: "kill", pid, signal }),
    release: (pid) => {
      void ask({ type: "group", op: "release", pid });
    },
  };
}
