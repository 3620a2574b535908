/**
 * Starts the worker that handles client input, with exactly the computed
 * permission set, and waits for it to ask for the process to end.
 *
 * @module
 */

import type { Config } from "../config/config.ts";
import { parseWorkerMessage, type ReadyMessage, type StartMessage } from "./messages.ts";
import { toWorkerOption, type WorkerPermissions } from "./worker_permissions.ts";

/** What the trusted part learns from a running worker. */
export interface WorkerSession {
  /** Resolves once when the worker reports it is serving. */
  readonly ready: Promise<ReadyMessage>;
  /** Resolves with the exit code the worker asked for (or 1 on a crash). */
  readonly exited: Promise<{ code: number; message?: string }>;
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
 * @returns Promises for readiness and for the requested exit.
 */
export function startWorker(
  entry: URL,
  config: Config,
  permissions: WorkerPermissions,
): WorkerSession {
  const worker = new Worker(entry, {
    type: "module",
    name: "skillgate-worker",
    deno: { permissions: toWorkerOption(permissions) },
  });
  let resolveReady: (message: ReadyMessage) => void = () => {};
  const ready = new Promise<ReadyMessage>((resolve) => (resolveReady = resolve));
  const exited = new Promise<{ code: number; message?: string }>((resolve) => {
    worker.onmessage = (event: MessageEvent) => {
      const message = parseWorkerMessage(event.data);
      if (message?.type === "ready") resolveReady(message);
      if (message?.type === "exit") {
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
      worker.terminate();
      resolve({ code: 1, message: `Internal error in the worker: ${event.message}` });
    };
  });
  const start: StartMessage = { type: "start", config };
  worker.postMessage(start);
  return { ready, exited };
}
