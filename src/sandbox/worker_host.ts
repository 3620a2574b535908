/**
 * Starts the worker that handles client input, with exactly the computed
 * permission set, and waits for it to ask for the process to end.
 *
 * @module
 */

import type { Caps } from "../caps.ts";
import { answerLocateRequest } from "./fd_locate_answer.ts";
import type { Config } from "../config/config.ts";
import type { ScriptHostFacts } from "../scripts/host_facts.ts";
import type { GroupKiller } from "../scripts/runner/group_killer.ts";
import type { TrustedGroupKiller } from "./group_killer.ts";
import type { CatalogOverlay } from "../skills/overrides.ts";
import type { ViewOverrideAnswer } from "../config/file/view_override_write.ts";
import type { Root } from "../skills/skill.ts";
import {
  type DigestIsolateEndedMessage,
  type EnvReplyMessage,
  type EnvRequestMessage,
  type GroupReplyMessage,
  type GroupRequestMessage,
  type IsolationMessage,
  type OverlayMessage,
  type OverrideWriteReplyMessage,
  type OwnerCurrentMessage,
  type OwnerUnreadMessage,
  parseWorkerMessage,
  type ReadyMessage,
  type RemoteRootsMessage,
  type ShutdownMessage,
  type StartMessage,
  type WatchIsolateEndedMessage,
} from "./messages.ts";
import type { RootPaths, WorkerPermissions } from "./worker_permissions.ts";
import { createWorkerIsolate, earlyErrorOf } from "./worker_isolate.ts";

// In worker_isolate.ts (few imports: main.ts creates the worker before loading the rest).
export { createWorkerIsolate };
import type { DigestIsolateHost } from "./digest_isolate_host.ts";
import type { WatchIsolateHost } from "./watch_isolate_host.ts";

/** What the trusted part learns from a running worker. */
export interface WorkerSession {
  /** Resolves once when the worker reports it is serving. */
  readonly ready: Promise<ReadyMessage>;
  /**
   * Resolves once when the worker reports its first answer went out (its
   * first `answered` message; later ones change nothing); never when it
   * exits without sending one.
   */
  readonly answered: Promise<void>;
  /** Resolves with the exit code the worker asked for (or 1 on a crash). */
  readonly exited: Promise<{ code: number; message?: string }>;
  /** Asks the worker to drain and exit (sends a `shutdown` message). */
  shutdown(): void;
  /** Hands the worker the owner's new overlay and caps (an `overlay` message). */
  postOverlay(update: { overlay: CatalogOverlay; caps: Caps }): void;
  /** Hands the worker the remote sources' new roots (a `remote-roots` message). */
  updateRemoteRoots(roots: readonly Root[]): void;
  /**
   * Hands the worker the script facts with the isolation probed (an
   * `isolation` message), after a start with `isolationWanted`.
   */
  postIsolation(scripts: ScriptHostFacts): void;
  /**
   * Tells the worker the owner's files were read once (an `owner-current`
   * message, after every overlay that read posted), after a start with
   * `ownerWanted`: its requests stop waiting (review r17, hB-1).
   */
  postOwnerCurrent(): void;
  /**
   * Tells the worker the owner's files could not be read (an `owner-unread`
   * message), before any `owner-current`: the requests waiting for them are
   * refused now, and the next one asks again (session 13, hA).
   *
   * @param files The names of the files that could not be read (no folder).
   */
  postOwnerUnread(files: readonly string[]): void;
}

/**
 * Starts a module worker with the given permissions and sends it the
 * configuration. Requires `--unstable-worker-options`, and the trusted part
 * must itself hold every permission it hands down.
 *
 * @param entry URL of the worker's entry module (the product passes
 *   `src/worker/entry.ts`; tests may pass a probe module).
 * @param config The frozen configuration.
 * @param permissions The worker's permission set.
 * @param options `scripts`: the start-up facts about running scripts, sent
 *   with the configuration; `groupKiller`: the trusted part's killer that
 *   answers the worker's process-group requests (without one, every request
 *   is refused), and whose `killAllNow` ends every group still registered
 *   when the worker ends, however it ends; `releaseEnv`: the trusted rule that answers the worker's
 *   environment requests (`env_release.ts`; without one, every request gets
 *   no value); `overlay`: the owner's overrides read at start-up;
 *   `writeOverride`: the trusted part's writer of a settings view's requests
 *   (without one, each is refused); `worker`: one created earlier by
 *   {@linkcode createWorkerIsolate} with exactly `permissions` (the caller
 *   checks that), used instead of creating one; `digestIsolate`: the host
 *   that starts the digest isolate when the worker asks (without one, each
 *   request is answered `digest-isolate-ended` and the worker hashes in its
 *   own thread); it is ended with the worker; `isolationWanted`: the
 *   isolation in `scripts` is not probed yet (the start says so, and every
 *   tool call waits for {@linkcode WorkerSession.postIsolation}); it is
 *   called when the worker asks for it (a tool call came before the caller
 *   probed); `ownerWanted`: the owner's files are watched from the first
 *   answer on (the start says so, and every request but `initialize` waits for
 *   {@linkcode WorkerSession.postOwnerCurrent}, or is refused at
 *   {@linkcode WorkerSession.postOwnerUnread} or the worker's bound); it is
 *   called when the worker asks (a request came before the watch read them,
 *   or came after a read failed or timed out: read them again). The worker
 *   builds the catalog itself: nothing of a skill is sent or held here.
 * @returns Promises for readiness and for the requested exit.
 */
export function startWorker(
  entry: URL,
  config: Config,
  permissions: WorkerPermissions,
  options: {
    scripts?: ScriptHostFacts;
    groupKiller?: GroupKiller & Partial<Pick<TrustedGroupKiller, "killAllNow">>;
    releaseEnv?: (request: EnvRequestMessage) => Promise<Readonly<Record<string, string>>>;
    overlay?: CatalogOverlay;
    writeOverride?: (request: unknown) => Promise<ViewOverrideAnswer>;
    worker?: Worker;
    digestIsolate?: DigestIsolateHost;
    watchIsolate?: WatchIsolateHost;
    isolationWanted?: () => void;
    ownerWanted?: () => void;
    rootRealPaths?: readonly RootPaths[];
  } = {},
): WorkerSession {
  const { groupKiller, releaseEnv, writeOverride, digestIsolate, watchIsolate } = options;
  const worker = options.worker ?? createWorkerIsolate(entry, permissions);
  let resolveReady: (message: ReadyMessage) => void = () => {};
  const ready = new Promise<ReadyMessage>((resolve) => (resolveReady = resolve));
  let resolveAnswered: () => void = () => {};
  const answered = new Promise<void>((resolve) => (resolveAnswered = resolve));
  const exited = new Promise<{ code: number; message?: string }>((resolveExited) => {
    // However the worker ends (its exit, an uncaught error, a failed load), no process-group
    // script it started outlives the session: its verified groups are killed first (review r13,
    // G5). After an orderly stop none is left registered.
    const resolve = (result: { code: number; message?: string }) => {
      groupKiller?.killAllNow?.();
      resolveExited(result);
    };
    worker.onmessage = (event: MessageEvent) => {
      const message = parseWorkerMessage(event.data);
      if (message?.type === "ready") resolveReady(message);
      if (message?.type === "answered") resolveAnswered();
      if (message?.type === "isolation-wanted") options.isolationWanted?.();
      if (message?.type === "owner-wanted") options.ownerWanted?.();
      if (message?.type === "group") {
        void answerGroupRequest(message, groupKiller).then((reply) => worker.postMessage(reply));
      }
      answerLocateRequest(message, (answer) => worker.postMessage(answer), permissions.read);
      if (message?.type === "env") {
        void (releaseEnv?.(message) ?? Promise.resolve({})).catch(() => ({})).then((values) => {
          const reply: EnvReplyMessage = { type: "env-reply", id: message.id, values };
          worker.postMessage(reply);
        });
      }
      if (message?.type === "override-write") {
        const answering: Promise<ViewOverrideAnswer> = writeOverride === undefined
          ? Promise.resolve({
            ok: false,
            code: "SETTINGS_UNAVAILABLE",
            message: "This server does not write overrides",
            hint: "Use skillgate override",
          })
          : writeOverride(message.request);
        void answering.then((answer) => {
          const reply: OverrideWriteReplyMessage = {
            type: "override-write-reply",
            id: message.id,
            answer,
          };
          worker.postMessage(reply);
        });
      }
      if (message?.type === "digest-isolate") {
        const tell = (ended: DigestIsolateEndedMessage) => worker.postMessage(ended);
        if (digestIsolate === undefined) {
          tell({ type: "digest-isolate-ended", reason: "this server starts no digest isolate" });
        } else digestIsolate.start(message.port, tell);
      }
      if (message?.type === "digest-isolate-stop") digestIsolate?.stop();
      if (message?.type === "watch-isolate") {
        const tell = (ended: WatchIsolateEndedMessage) => worker.postMessage(ended);
        if (watchIsolate === undefined) {
          message.port.close();
          tell({ type: "watch-isolate-ended", reason: "this server starts no watch isolate" });
        } else watchIsolate.start(message.port, tell);
      }
      if (message?.type === "exit") {
        digestIsolate?.stop();
        watchIsolate?.stop();
        worker.terminate();
        resolve(
          message.message === undefined ? { code: message.code } : {
            code: message.code,
            message: message.message,
          },
        );
      }
    };
    worker.onerror = (event: ErrorEvent) => {
      event.preventDefault();
      digestIsolate?.stop();
      watchIsolate?.stop();
      worker.terminate();
      resolve({ code: 1, message: `Internal error in the worker: ${event.message}` });
    };
    const early = earlyErrorOf(worker);
    if (early !== undefined) {
      worker.terminate();
      resolve({ code: 1, message: `Internal error in the worker: ${early}` });
    }
  });
  const start: StartMessage = {
    type: "start",
    config,
    ...(options.scripts === undefined ? {} : { scripts: options.scripts }),
    ...(options.overlay === undefined ? {} : { overlay: options.overlay }),
    ...(options.isolationWanted === undefined ? {} : { isolationPending: true }),
    ...(options.ownerWanted === undefined ? {} : { ownerPending: true }),
    ...(options.rootRealPaths === undefined ? {} : { rootRealPaths: options.rootRealPaths }),
  };
  worker.postMessage(start);
  let hasExited = false;
  exited.then(() => (hasExited = true));
  const shutdown = () => {
    const message: ShutdownMessage = { type: "shutdown" };
    if (!hasExited) worker.postMessage(message);
  };
  const postOverlay = (update: { overlay: CatalogOverlay; caps: Caps }) => {
    const message: OverlayMessage = { type: "overlay", ...update };
    if (!hasExited) worker.postMessage(message);
  };
  const updateRemoteRoots = (roots: readonly Root[]) => {
    const message: RemoteRootsMessage = { type: "remote-roots", roots };
    if (!hasExited) worker.postMessage(message);
  };
  const postIsolation = (scripts: ScriptHostFacts) => {
    const message: IsolationMessage = { type: "isolation", scripts };
    if (!hasExited) worker.postMessage(message);
  };
  const postOwnerCurrent = () => {
    const message: OwnerCurrentMessage = { type: "owner-current" };
    if (!hasExited) worker.postMessage(message);
  };
  const postOwnerUnread = (files: readonly string[]) => {
    const message: OwnerUnreadMessage = { type: "owner-unread", files: [...files] };
    if (!hasExited) worker.postMessage(message);
  };
  return {
    ready,
    answered,
    exited,
    shutdown,
    postOverlay,
    updateRemoteRoots,
    postIsolation,
    postOwnerCurrent,
    postOwnerUnread,
  };
}

/** Acts on one process-group request with the trusted part's killer. */
async function answerGroupRequest(
  request: GroupRequestMessage,
  killer: GroupKiller | undefined,
): Promise<GroupReplyMessage> {
  let ok = false;
  if (killer !== undefined) {
    if (request.op === "register") {
      ok = await killer.register(request.pid, { awaitsStop: request.awaitsStop === true });
    } else if (request.op === "kill" && request.signal !== undefined) {
      ok = await killer.kill(request.pid, request.signal);
    } else if (request.op === "release") {
      killer.release(request.pid);
      ok = true;
    }
  }
  return { type: "group-reply", id: request.id, ok };
}
