/**
 * The "newcomers" of the under-attack section, in their own worker: every
 * `intervalMs` a new client opens a session (`initialize`), reads one
 * resource and ends the session, one after another until the time is up.
 * Issue 11 promises that a new session is always admitted; this counts how
 * many were, and keeps the first failure for the notes.
 *
 * Messages: in `{ url, uri, durationMs, intervalMs, timeoutMs }`; out
 * `{ attempts, admitted, firstFailure }`.
 *
 * @module
 */

/// <reference lib="deno.worker" />

import { openBenchSession } from "./http_session.ts";

/** What the worker is asked to do. */
export interface NewcomerTask {
  readonly url: string;
  /** The resource each newcomer reads once. */
  readonly uri: string;
  readonly durationMs: number;
  /** Pause between one newcomer's end and the next one's start, in ms. */
  readonly intervalMs: number;
  /** Per-request timeout, in ms (slower counts as a failure). */
  readonly timeoutMs: number;
}

/** What the worker reports. */
export interface NewcomerReport {
  readonly attempts: number;
  /** Newcomers whose `initialize` and read were both answered 200. */
  readonly admitted: number;
  /** The first failure: which step, after how long, and what happened. */
  readonly firstFailure: string | null;
}

self.onmessage = async (event: MessageEvent<NewcomerTask>) => {
  const task = event.data;
  const deadline = performance.now() + task.durationMs;
  let attempts = 0;
  let admitted = 0;
  let firstFailure: string | null = null;
  while (performance.now() < deadline) {
    attempts++;
    const startedAt = performance.now();
    let step = "initialize";
    try {
      const session = await openBenchSession(task.url, { timeoutMs: task.timeoutMs });
      step = "resources/read";
      const answer = await session.call("resources/read", { uri: task.uri }, {
        timeoutMs: task.timeoutMs,
      });
      await session.close();
      if (answer.status !== 200 || !answer.text.includes('"result"')) {
        throw new Error(`HTTP ${answer.status}: ${answer.text.slice(0, 120)}`);
      }
      admitted++;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      firstFailure ??= `${step} after ${Math.round(performance.now() - startedAt)} ms: ${message}`;
    }
    await new Promise((resolve) => setTimeout(resolve, task.intervalMs));
  }
  const report: NewcomerReport = { attempts, admitted, firstFailure };
  self.postMessage(report);
};
