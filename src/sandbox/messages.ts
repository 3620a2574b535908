/**
 * The messages between the trusted part and the worker. The worker never
 * receives anything from the trusted part but the frozen configuration, the
 * start-up facts about scripts (never a skill's content), the owner's overlay
 * (overrides and problems about the owner's files), the remote sources'
 * roots after a fetch, and replies to its requests (process groups,
 * descriptor locations, environment values).
 *
 * @module
 */

import type { Caps } from "../caps.ts";
import type { Config } from "../config/config.ts";
import type { ScriptHostFacts } from "../scripts/host_facts.ts";
import type { CatalogOverlay } from "../skills/overrides.ts";
import type { ViewOverrideAnswer } from "../config/file/view_override_write.ts";
import type { Root } from "../skills/skill.ts";
import type { RootPaths } from "./worker_permissions.ts";
import {
  type FolderPathRead,
  type FolderPathReadRequest,
  type FolderReadAnswer,
  type FolderReadRequest,
  MAX_FOLDER_READ_ENTRIES,
  MAX_SUBTREE_FOLDERS,
} from "../files/fd_listing.ts";

/** Trusted part to worker: start serving with this configuration. */
export interface StartMessage {
  readonly type: "start";
  readonly config: Config;
  /** What the trusted part decided at start-up about running scripts (absent: none run). */
  readonly scripts?: ScriptHostFacts;
  /**
   * True when `scripts.isolation` is not known yet: the grant lets nothing
   * run, so the trusted part probes the isolation only after the first answer
   * (issue 13) and sends the facts then ({@linkcode IsolationMessage}); every
   * tool call waits for them. Absent: `scripts` is final.
   */
  readonly isolationPending?: true;
  /** The owner's `overrides.json` read at start-up (absent: none). */
  readonly overlay?: CatalogOverlay;
  /**
   * True when the trusted part watches the owner's files, but only from the
   * first answer on (issue 13): every MCP method but `initialize` and `ping`
   * (a tool call, a listing, a read) waits until it read both
   * files once ({@linkcode OwnerCurrentMessage}, after any overlay that read
   * posted), so a narrowing edit made before that answer is in force for the
   * first call (review r17, hB-1); a read that fails ({@linkcode OwnerUnreadMessage})
   * or does not come within the worker's bound refuses the waiting requests
   * instead (session 13, hA). Absent: nothing is watched; the start's
   * overlay is final until told otherwise.
   */
  readonly ownerPending?: true;
  /**
   * Each local root as configured and where it led when the trusted part
   * computed the worker's read set from it (null: it did not resolve then).
   * Live refresh's root link check compares with these, not with what it
   * finds when it starts, so a link re-pointed before it starts is told like
   * any later move (CI s17, review r18 L1/L2). Absent: the check takes its
   * own look at start.
   */
  readonly rootRealPaths?: readonly RootPaths[];
}

/**
 * Trusted part to worker: the owner's files were read once since the start
 * (every overlay that read changed was posted before this), after a start
 * whose `ownerPending` was set. Only the first one counts.
 */
export interface OwnerCurrentMessage {
  readonly type: "owner-current";
}

/**
 * Trusted part to worker: the owner's files could not be read since the
 * start (a file that is not a regular file, unreadable or not valid, or a
 * watch that could not start; said on stderr with the path and what to do),
 * after a start whose `ownerPending` was set and before any
 * {@linkcode OwnerCurrentMessage}. Fails closed: nothing is served on the
 * overrides read at start-up; every request waiting is refused now and the
 * next one asks again (session 13, hA). Ignored after an `owner-current`.
 */
export interface OwnerUnreadMessage {
  readonly type: "owner-unread";
  /** The names of the files that could not be read (no folder: it may be sent to clients). */
  readonly files: readonly string[];
}

/**
 * Worker to trusted part: a request waits for the owner's files to be read
 * (it came before the first answer went out): read them now. Carries
 * nothing; asking twice changes nothing.
 */
export interface OwnerWantedMessage {
  readonly type: "owner-wanted";
}

/**
 * Trusted part to worker: the owner's files changed; serve through this
 * overlay, with these caps, from now on. The trusted part only ever narrows
 * the overrides and lowers the caps (`src/config/file/live_config.ts`); the
 * worker applies them at once (a lowered catalog cap rebuilds the catalog)
 * and sends the list-changed notifications.
 */
export interface OverlayMessage {
  readonly type: "overlay";
  readonly overlay: CatalogOverlay;
  readonly caps: Caps;
}

/**
 * Trusted part to worker: a SIGTERM or SIGINT arrived (signals reach the
 * trusted part, not the worker). The worker drains: it finishes in-flight
 * requests, stops running scripts, closes its transport, then sends `exit`.
 */
export interface ShutdownMessage {
  readonly type: "shutdown";
}

/**
 * Trusted part to worker: the remote sources' roots changed (a fetch swapped
 * a new commit in, failed, or found an update). The worker rebuilds the
 * catalog with its local roots and these, swaps it in and notifies clients.
 * Every root is `from: "remote"` inside the sources cache, which the worker
 * may only read.
 */
export interface RemoteRootsMessage {
  readonly type: "remote-roots";
  readonly roots: readonly Root[];
}

/**
 * Trusted part to worker: the script facts with the isolation probed, after
 * a start whose `isolationPending` was set (the grant lets nothing run). They
 * replace the start's facts; only the first one counts.
 */
export interface IsolationMessage {
  readonly type: "isolation";
  readonly scripts: ScriptHostFacts;
}

/**
 * Worker to trusted part: a request needs the script facts while the
 * isolation is still pending (one came before the first answer went out):
 * probe now. Carries nothing; asking twice changes nothing.
 */
export interface IsolationWantedMessage {
  readonly type: "isolation-wanted";
}

/** Worker to trusted part: the catalog is loaded and the transport is up. */
export interface ReadyMessage {
  readonly type: "ready";
  readonly skillCount: number;
  readonly errorCount: number;
  readonly warningCount: number;
  /**
   * Up to 10 one-line problem summaries for the start-up banner, errors first; the counts
   * above include those left out (and the grant's problems, as `skillgate list` counts them).
   */
  readonly problemLines: readonly string[];
  /** Skill folders the worker loaded from disk to get ready (the catalog is built only there). */
  readonly skillLoads?: number;
}

/**
 * Worker to trusted part: the first answer went out (over stdio: the first
 * response was written, or the session ended first, or no request came
 * within the worker's grace period; over HTTP: right after `ready`). The
 * trusted part's start-up heap compaction waits for it, so its helper
 * threads do not take the CPU from that answer (issue 13: at 12 skills the
 * compaction ran on `ready`, during the SDK's handling of `initialize`).
 * Only the first one counts; it carries nothing.
 */
export interface AnsweredMessage {
  readonly type: "answered";
}

/** Worker to trusted part: stop the process with this exit code. */
export interface ExitMessage {
  readonly type: "exit";
  readonly code: number;
  /** A one-line reason printed to stderr when the code is not 0. */
  readonly message?: string;
}

/**
 * Worker to trusted part: act on the process group of a script the worker
 * started (`register` right after spawning, `kill`, `release` when the run
 * ended). The trusted part verifies the group before it signals it.
 */
export interface GroupRequestMessage {
  readonly type: "group";
  /** Matches the reply to the request. */
  readonly id: number;
  readonly op: "register" | "kill" | "release";
  /** The group leader's pid (its process group id). */
  readonly pid: number;
  /** For `kill`. */
  readonly signal?: "SIGTERM" | "SIGKILL";
  /** For `register`: the leader stops itself before exec and waits to be continued. */
  readonly awaitsStop?: boolean;
}

/** Trusted part to worker: the outcome of a {@linkcode GroupRequestMessage}. */
export interface GroupReplyMessage {
  readonly type: "group-reply";
  readonly id: number;
  readonly ok: boolean;
}

/**
 * Worker to trusted part: where is this open file descriptor really? The
 * path gate's exact check (`src/files/fd_location.ts`); the worker may not
 * read `/proc` itself.
 */
export interface LocateFdRequestMessage {
  readonly type: "locate-fd";
  readonly id: number;
  /** An OS file descriptor of this process. */
  readonly fd: number;
}

/** Trusted part to worker: the answer to a {@linkcode LocateFdRequestMessage}. */
export interface LocateFdReplyMessage {
  readonly type: "locate-fd-reply";
  readonly id: number;
  /** The kernel's path for the descriptor, or null when it cannot tell. */
  readonly path: string | null;
}

/**
 * Worker to trusted part: the values of these environment names, for one run
 * of this skill's script that is about to start. The trusted part releases
 * only names the script's declaration lists (read again by the declaration
 * reader) and the owner allows (`src/sandbox/env_release.ts`); what the
 * worker claims a skill declares widens nothing.
 */
export interface EnvRequestMessage {
  readonly type: "env";
  readonly id: number;
  /** The skill's served name. */
  readonly skill: string;
  /** The script path as declared. */
  readonly script: string;
  /** The skill folder's real path (the declaration reader checks it; never trusted). */
  readonly dir: string;
  /** The names asked for (at most `MAX_ENV_REQUEST_NAMES`). */
  readonly names: readonly string[];
  /**
   * For a preview: which names would be released, every value withheld (the
   * empty string), so the preview can tell set names from unset ones.
   * @default false
   */
  readonly namesOnly?: boolean;
}

/** Trusted part to worker: the answer to an {@linkcode EnvRequestMessage}. */
export interface EnvReplyMessage {
  readonly type: "env-reply";
  readonly id: number;
  /**
   * Released names with their values (the empty string for every name when
   * the request was `namesOnly`); a name refused or unset is absent.
   */
  readonly values: Readonly<Record<string, string>>;
}

/** Names one environment request may ask for at most; a longer request gets nothing. */
export const MAX_ENV_REQUEST_NAMES = 256;

/** Worker to trusted part: where are these open descriptors? (Requests batched while one was in flight.) */
export interface LocateFdsRequestMessage {
  readonly type: "locate-fds";
  readonly id: number;
  /** OS file descriptors of this process (at most `MAX_LOCATE_FDS`). */
  readonly fds: readonly number[];
}

/** Trusted part to worker: the answer to a {@linkcode LocateFdsRequestMessage}, in order. */
export interface LocateFdsReplyMessage {
  readonly type: "locate-fds-reply";
  readonly id: number;
  readonly paths: readonly (string | null)[];
}

/** Descriptors one batched locate request may name at most; a longer one is ignored. */
export const MAX_LOCATE_FDS = 4_096;

/**
 * Worker to trusted part: read these open folders through their descriptors
 * (`src/files/fd_listing.ts`): the listing's exact `readdir` and `lstat`
 * (review r10), which the worker cannot do itself (`/proc` needs
 * `--allow-all`). Answered only for a folder the kernel places inside the
 * asker's own read permission.
 */
export interface ReadFoldersRequestMessage {
  readonly type: "read-folders";
  readonly id: number;
  /** At most `MAX_READ_FOLDERS` folders. */
  readonly requests: readonly FolderReadRequest[];
}

/** Trusted part to worker: the answer to a {@linkcode ReadFoldersRequestMessage}, in order. */
export interface ReadFoldersReplyMessage {
  readonly type: "read-folders-reply";
  readonly id: number;
  /**
   * Each folder's read; `busy` when no descriptor was free to read it (the
   * asker waits for one and asks again); null when it cannot be told (or is
   * not the asker's to read).
   */
  readonly reads: readonly FolderReadAnswer[];
}

/** Folders one `read-folders` request may name at most; a longer one is ignored. */
export const MAX_READ_FOLDERS = 256;

/**
 * Isolate to trusted part: open these folders by their real paths and read
 * each through its descriptor (`readFoldersAtPathsSync` in
 * `src/files/folder_path_read.ts`; s11-hC: the trusted part's open costs no
 * Deno permission check). Answered only for a path inside the asker's own
 * read permission, opened below its root with no link followed and no mount
 * crossed (review r17, hC-1), and a read only where the kernel places the
 * opened folder at exactly that path. At most `MAX_READ_FOLDERS` folders.
 */
export interface ReadFolderPathsRequestMessage {
  readonly type: "read-folder-paths";
  readonly id: number;
  readonly requests: readonly FolderPathReadRequest[];
}

/** Trusted part to isolate: the answer to a {@linkcode ReadFolderPathsRequestMessage}, in order. */
export interface ReadFolderPathsReplyMessage {
  readonly type: "read-folder-paths-reply";
  readonly id: number;
  readonly reads: readonly FolderPathRead[];
}

/**
 * Worker to trusted part: a settings view asks to set one override switch.
 * The trusted part checks it (only narrowing, or turning back on what a view
 * turned off: `src/config/file/view_override_write.ts`), writes
 * `overrides.json` and posts the new overlay; the worker cannot write it.
 */
export interface OverrideWriteRequestMessage {
  readonly type: "override-write";
  readonly id: number;
  /** Untrusted: checked by `readViewOverrideRequest` in the trusted part. */
  readonly request: unknown;
}

/** Trusted part to worker: the outcome of an {@linkcode OverrideWriteRequestMessage}. */
export interface OverrideWriteReplyMessage {
  readonly type: "override-write-reply";
  readonly id: number;
  readonly answer: ViewOverrideAnswer;
}

/**
 * Worker to trusted part: start the digest isolate (`digest_isolate_host.ts`)
 * and hand it `port`, the worker's end of their channel for files to hash
 * and their digests (issue 13: hashing on the second core during a large
 * cold build). The isolate reads the roots only; the trusted part answers
 * its descriptor-location requests itself, as for the worker. One isolate
 * per worker: a second request is answered `digest-isolate-ended`.
 */
export interface DigestIsolateStartMessage {
  readonly type: "digest-isolate";
  readonly port: MessagePort;
}

/** Worker to trusted part: the digest isolate's work is done; end it. */
export interface DigestIsolateStopMessage {
  readonly type: "digest-isolate-stop";
}

/**
 * Trusted part to worker: the digest isolate could not start or failed and
 * was ended (or this trusted part starts none); the worker hashes in its own
 * thread from now on.
 */
export interface DigestIsolateEndedMessage {
  readonly type: "digest-isolate-ended";
  /** Why, for one warning line (no host path). */
  readonly reason: string;
}

/**
 * Worker to trusted part: start a watch isolate (`watch_isolate_host.ts`)
 * and hand it `port`, the worker's end of their channel (watch requests,
 * event batches, probes). A request while one runs ends that one first (it
 * was found stuck: a FIFO holds its watcher thread). At most
 * `MAX_WATCH_ISOLATES` per worker; past that, `watch-isolate-ended`.
 */
export interface WatchIsolateStartMessage {
  readonly type: "watch-isolate";
  readonly port: MessagePort;
}

/**
 * Trusted part to worker: the watch isolate could not start, failed, or
 * the bound was reached; the worker reads its roots periodically instead.
 */
export interface WatchIsolateEndedMessage {
  readonly type: "watch-isolate-ended";
  /** Why, for one warning line (no host path). */
  readonly reason: string;
}

/** Anything the worker may send. */
export type WorkerMessage =
  | WatchIsolateStartMessage
  | DigestIsolateStartMessage
  | DigestIsolateStopMessage
  | ReadyMessage
  | AnsweredMessage
  | IsolationWantedMessage
  | OwnerWantedMessage
  | ExitMessage
  | GroupRequestMessage
  | LocateFdRequestMessage
  | LocateFdsRequestMessage
  | ReadFoldersRequestMessage
  | ReadFolderPathsRequestMessage
  | EnvRequestMessage
  | OverrideWriteRequestMessage;

/**
 * Narrows an untrusted `MessageEvent.data` to a {@linkcode WorkerMessage}.
 *
 * @param data Whatever the worker posted.
 * @returns The message, or null when it is not one we know.
 */
export function parseWorkerMessage(data: unknown): WorkerMessage | null {
  if (typeof data !== "object" || data === null) return null;
  const message = data as { type?: unknown };
  if (message.type === "ready" || message.type === "exit") return data as WorkerMessage;
  if (message.type === "answered") return { type: "answered" };
  if (message.type === "isolation-wanted") return { type: "isolation-wanted" };
  if (message.type === "owner-wanted") return { type: "owner-wanted" };
  if (message.type === "group") return isGroupRequest(data) ? data : null;
  if (message.type === "override-write") {
    return Number.isSafeInteger((data as Record<string, unknown>).id)
      ? data as OverrideWriteRequestMessage
      : null;
  }
  if (message.type === "locate-fd") {
    const request = data as Record<string, unknown>;
    return Number.isSafeInteger(request.id) && Number.isSafeInteger(request.fd) &&
        (request.fd as number) >= 0
      ? data as LocateFdRequestMessage
      : null;
  }
  if (message.type === "locate-fds") {
    const request = data as Record<string, unknown>;
    return Number.isSafeInteger(request.id) && Array.isArray(request.fds) &&
        request.fds.length <= MAX_LOCATE_FDS &&
        request.fds.every((fd) => Number.isSafeInteger(fd) && (fd as number) >= 0)
      ? data as LocateFdsRequestMessage
      : null;
  }
  if (message.type === "read-folders") return isReadFoldersRequest(data) ? data : null;
  if (message.type === "read-folder-paths") return isReadFolderPathsRequest(data) ? data : null;
  if (message.type === "env") return isEnvRequest(data) ? data : null;
  if (message.type === "digest-isolate") {
    return (data as Record<string, unknown>).port instanceof MessagePort
      ? data as DigestIsolateStartMessage
      : null;
  }
  if (message.type === "digest-isolate-stop") return { type: "digest-isolate-stop" };
  if (message.type === "watch-isolate") {
    return (data as Record<string, unknown>).port instanceof MessagePort
      ? data as WatchIsolateStartMessage
      : null;
  }
  return null;
}

function isReadFoldersRequest(data: object): data is ReadFoldersRequestMessage {
  const request = data as Record<string, unknown>;
  return Number.isSafeInteger(request.id) && Array.isArray(request.requests) &&
    request.requests.length <= MAX_READ_FOLDERS &&
    request.requests.every((item) => {
      if (typeof item !== "object" || item === null) return false;
      const { fd, maxStats, names } = item as Record<string, unknown>;
      return Number.isSafeInteger(fd) && (fd as number) >= 0 && Number.isSafeInteger(maxStats) &&
        (names === undefined ||
          Array.isArray(names) && names.length <= MAX_FOLDER_READ_ENTRIES &&
            names.every((name) => typeof name === "string"));
    });
}

function isReadFolderPathsRequest(data: object): data is ReadFolderPathsRequestMessage {
  const request = data as Record<string, unknown>;
  return Number.isSafeInteger(request.id) && Array.isArray(request.requests) &&
    request.requests.length <= MAX_READ_FOLDERS &&
    request.requests.every((item) => {
      if (typeof item !== "object" || item === null) return false;
      const { path, maxStats, names, subtree } = item as Record<string, unknown>;
      return typeof path === "string" && Number.isSafeInteger(maxStats) &&
        (subtree === undefined ||
          Number.isSafeInteger(subtree) && (subtree as number) >= 0 &&
            (subtree as number) <= MAX_SUBTREE_FOLDERS) &&
        (names === undefined ||
          Array.isArray(names) && names.length <= MAX_FOLDER_READ_ENTRIES &&
            names.every((name) => typeof name === "string"));
    });
}

function isEnvRequest(data: object): data is EnvRequestMessage {
  const request = data as Record<string, unknown>;
  return Number.isSafeInteger(request.id) && typeof request.skill === "string" &&
    typeof request.script === "string" && typeof request.dir === "string" &&
    Array.isArray(request.names) &&
    (request.namesOnly === undefined || typeof request.namesOnly === "boolean") &&
    request.names.length <= MAX_ENV_REQUEST_NAMES &&
    request.names.every((name) => typeof name === "string");
}

function isGroupRequest(data: object): data is GroupRequestMessage {
  const request = data as Record<string, unknown>;
  return Number.isSafeInteger(request.id) && Number.isSafeInteger(request.pid) &&
    (request.op === "register" || request.op === "release" ||
      (request.op === "kill" && (request.signal === "SIGTERM" || request.signal === "SIGKILL")));
}
