/**
 * The trusted part's side of the digest isolate (`digest_entry.ts`): starts
 * it when the serving worker asks (a large cold catalog build, issue 13),
 * with a permission set of reading the roots only, hands it the worker's end
 * of their channel, answers its descriptor-location requests (reading
 * `/proc/self/fd` here, exactly as for the worker), and ends it when the
 * worker says its work is done, when it fails, or when the worker ends.
 *
 * @module
 */

import { answerLocateRequest } from "./fd_locate_answer.ts";
import { type DigestIsolateEndedMessage, parseWorkerMessage } from "./messages.ts";
import { toWorkerOption, type WorkerPermissions } from "./worker_permissions.ts";

/** Starts and ends the one digest isolate of a serving worker. */
export interface DigestIsolateHost {
  /**
   * Starts the isolate and hands it `port`, once per host (one serving
   * worker): a later request, which only a compromised worker makes (its
   * first build asks once), starts nothing, closes its port and is told
   * ended at once (review r4: otherwise each request started a new isolate).
   *
   * @param port The worker's end of the channel (transferred to the isolate).
   * @param onEnded Called once if the isolate fails (it is ended first), or
   *   at once when it cannot be created or the request is refused, with the
   *   message to post to the worker.
   */
  start(port: MessagePort, onEnded: (message: DigestIsolateEndedMessage) => void): void;
  /** Ends the isolate now, if one runs. */
  stop(): void;
  /** Whether an isolate runs now (for tests). */
  readonly isRunning: boolean;
}

/**
 * Creates the host. Nothing starts until the worker asks.
 *
 * @param entry URL of `src/mcp/skills_extension/digest_entry.ts`
 *   (`isolateEntryUrl("digests")`).
 * @param permissions The isolate's set: the roots read only, nothing else
 *   (`digestIsolatePermissions` in `worker_set.ts`).
 * @returns The host.
 *
 * Requires `--unstable-worker-options`; the trusted part holds every
 * permission it hands down.
 */
export function createDigestIsolateHost(
  entry: URL,
  permissions: WorkerPermissions,
): DigestIsolateHost {
  let running: Worker | null = null;
  let hasStarted = false;
  const stop = () => {
    running?.terminate();
    running = null;
  };
  return {
    start(port, onEnded) {
      if (hasStarted) {
        port.close();
        onEnded({ type: "digest-isolate-ended", reason: "the digest isolate was started already" });
        return;
      }
      hasStarted = true;
      let started: Worker;
      try {
        started = new Worker(entry, {
          type: "module",
          name: "skillgate-digests",
          deno: { permissions: toWorkerOption(permissions) },
        });
      } catch (error) {
        // Never an error in the trusted part: the worker hashes in its own thread instead.
        const why = error instanceof Error ? error.message : String(error);
        port.close();
        onEnded({
          type: "digest-isolate-ended",
          reason: `the digest isolate did not start: ${why}`,
        });
        return;
      }
      running = started;
      started.onmessage = (event: MessageEvent) => {
        const message = parseWorkerMessage(event.data);
        answerLocateRequest(message, (answer) => started.postMessage(answer), permissions.read);
      };
      started.onerror = (event: ErrorEvent) => {
        event.preventDefault();
        if (running !== started) return;
        stop();
        onEnded({
          type: "digest-isolate-ended",
          reason: `the digest isolate failed: ${event.message}`,
        });
      };
      started.postMessage({ type: "digest-port", port }, [port]);
    },
    stop,
    get isRunning() {
      return running !== null;
    },
  };
}
