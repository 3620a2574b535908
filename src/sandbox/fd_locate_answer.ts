/**
 * The trusted part's answer to an isolate's descriptor-location request
 * (`locate-fd`, `locate-fds`): the serving worker, the declaration reader and
 * the digest isolate each ask here, and each gets the real path read by this
 * thread from `/proc/self/fd` (`locateDirectlySync`), never a path it named. One
 * place answers all three, so the guarantee behind every gated read is the
 * same code (issue 10: the descriptor-location check; issue 13: the digest
 * isolate).
 *
 * @module
 */
import { locateDirectlySync } from "../files/fd_location.ts";
import type { LocateFdReplyMessage, LocateFdsReplyMessage, WorkerMessage } from "./messages.ts";

/**
 * Answers `message` when it is a location request, through `reply`, before
 * it returns: every descriptor it names is read in this call (one `readlink`
 * of `/proc/self/fd/<fd>` each, no promise per descriptor: a 10,000-skill cold
 * listing asks ~40,000). Any other message is left alone.
 *
 * Requires `--allow-all` (the trusted part's): every `/proc` read does;
 * without it, or off Linux, each path is null (the asker then refuses the
 * read or narrows it).
 *
 * @param message A message already checked by `parseWorkerMessage`, or null.
 * @param reply Posts the answer to the isolate that asked.
 * @returns True when `message` was a location request (answered), else false.
 */
export function answerLocateRequest(
  message: WorkerMessage | null,
  reply: (answer: LocateFdReplyMessage | LocateFdsReplyMessage) => void,
): boolean {
  if (message?.type === "locate-fd") {
    reply({ type: "locate-fd-reply", id: message.id, path: locateDirectlySync(message.fd) });
    return true;
  }
  if (message?.type === "locate-fds") {
    const paths = message.fds.map(locateDirectlySync);
    reply({ type: "locate-fds-reply", id: message.id, paths });
    return true;
  }
  return false;
}
