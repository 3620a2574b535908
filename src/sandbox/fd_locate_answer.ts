/**
 * The trusted part's answer to an isolate's descriptor requests: where an
 * open descriptor is (`locate-fd`, `locate-fds`) and what an open folder holds
 * (`read-folders`). The serving worker, the declaration reader and the digest
 * isolate each ask here, and each gets what this thread read from
 * `/proc/self/fd` (`locateDirectlySync`, `readFolderOrBusySync`), never a
 * path it named. One place answers all three, so the guarantee behind every
 * gated read and every listed file is the same code (issue 10: the
 * descriptor-location check; issue 13: the digest isolate; review r10: the
 * exact folder listing).
 *
 * @module
 */
import { locateDirectlySync } from "../files/fd_location.ts";
import { readFolderOrBusySync } from "../files/fd_listing.ts";
import { folderOpener } from "../files/folder_beneath.ts";
import { readFoldersAtPathsSync } from "../files/folder_path_read.ts";
import type {
  LocateFdReplyMessage,
  LocateFdsReplyMessage,
  ReadFolderPathsReplyMessage,
  ReadFoldersReplyMessage,
  WorkerMessage,
} from "./messages.ts";

/** Every answer {@linkcode answerLocateRequest} posts. */
export type LocateAnswerMessage =
  | LocateFdReplyMessage
  | LocateFdsReplyMessage
  | ReadFoldersReplyMessage
  | ReadFolderPathsReplyMessage;

/**
 * Answers `message` when it is a location or folder request, through
 * `reply`, before it returns: every descriptor it names is read in this call
 * (one `readlink` of `/proc/self/fd/<fd>` each, no promise per descriptor: a
 * 10,000-skill cold listing asks ~40,000). A descriptor is located, and a
 * folder read, only when the kernel places it at or below one of `readable`
 * (the asker's own read permission): a descriptor of this thread's (the
 * token file, the configuration), or anything else the asker may not read,
 * is answered null, neither named nor listed (review r12: a single or batched
 * location was not scoped, so an isolate could learn where this thread's
 * descriptors point). A folder named by path (`read-folder-paths`, s11-hC)
 * is opened here only when the path is inside `readable`, below the root it
 * lies in with no link followed and no mount crossed on the way (review r17,
 * hC-1: this open skips Deno's permission check), read only when the kernel
 * places it at exactly that path, and closed before the answer
 * (`readFoldersAtPathsSync`): no descriptor of this thread outlives the
 * call, and none is handed to the asker. Any other message is left alone.
 *
 * Requires `--allow-all` (the trusted part's): every `/proc` read does;
 * without it, or off Linux, each answer is null (the asker then refuses the
 * read or narrows it).
 *
 * @param message A message already checked by `parseWorkerMessage`, or null.
 * @param reply Posts the answer to the isolate that asked.
 * @param readable Absolute paths the asker may read (its permission set's
 *   `read`); descriptors elsewhere are neither located nor read for it.
 *   @default [] (none)
 * @returns True when `message` was such a request (answered), else false.
 */
export function answerLocateRequest(
  message: WorkerMessage | null,
  reply: (answer: LocateAnswerMessage) => void,
  readable: readonly string[] = [],
): boolean {
  const isReadable = (location: string) => isWithin(location, readable);
  const locateReadable = (fd: number) => {
    const location = locateDirectlySync(fd);
    return location !== null && isReadable(location) ? location : null;
  };
  if (message?.type === "locate-fd") {
    reply({ type: "locate-fd-reply", id: message.id, path: locateReadable(message.fd) });
    return true;
  }
  if (message?.type === "locate-fds") {
    const paths = message.fds.map(locateReadable);
    reply({ type: "locate-fds-reply", id: message.id, paths });
    return true;
  }
  if (message?.type === "read-folders") {
    const calls = folderOpener()?.calls ?? null;
    const reads = message.requests.map((request) =>
      readFolderOrBusySync(request, isReadable, calls)
    );
    reply({ type: "read-folders-reply", id: message.id, reads });
    return true;
  }
  if (message?.type === "read-folder-paths") {
    const reads = readFoldersAtPathsSync(message.requests, readable);
    reply({ type: "read-folder-paths-reply", id: message.id, reads });
    return true;
  }
  return false;
}

/** Whether `path` is one of `folders` or below one (at a separator). */
function isWithin(path: string, folders: readonly string[]): boolean {
  return folders.some((folder) =>
    folder !== "" &&
    (path === folder || path.startsWith(folder.endsWith("/") ? folder : `${folder}/`))
  );
}
