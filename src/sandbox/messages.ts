/**
 * The messages between the trusted part and the worker. The worker never
 * receives anything from the trusted part but the frozen configuration.
 *
 * @module
 */

import type { Config } from "../config/config.ts";

/** Trusted part to worker: start serving with this configuration. */
export interface StartMessage {
  readonly type: "start";
  readonly config: Config;
}

/** Worker to trusted part: the catalog is loaded and the transport is up. */
export interface ReadyMessage {
  readonly type: "ready";
  readonly skillCount: number;
  readonly errorCount: number;
  readonly warningCount: number;
  /** Up to 10 one-line problem summaries for the start-up banner. */
  readonly problemLines: readonly string[];
}

/** Worker to trusted part: stop the process with this exit code. */
export interface ExitMessage {
  readonly type: "exit";
  readonly code: number;
  /** A one-line reason printed to stderr when the code is not 0. */
  readonly message?: string;
}

/** Anything the worker may send. */
export type WorkerMessage = ReadyMessage | ExitMessage;

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
  return null;
}
