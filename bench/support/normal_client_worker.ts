/**
 * The "normal client" of the under-attack section, in its own worker so its
 * timings do not wait behind the attacker's work on the bench's main thread:
 * one session, `resources/read` of one file back to back, each timed from
 * just before the POST to the last byte of the answer. Posts the latencies of
 * the successful requests and the count of failures when the time is up.
 *
 * Messages: in `{ url, uri, durationMs, timeoutMs }`; out `{ latenciesMs,
 * failures, firstFailure }` or `{ error }`.
 *
 * @module
 */

/// <reference lib="deno.worker" />

import { openBenchSession } from "./http_session.ts";

/** What the worker is asked to do. */
export interface NormalClientTask {
  readonly url: string;
  /** The resource read by every request. */
  readonly uri: string;
  readonly durationMs: number;
  /** A request slower than this counts as a failure, in ms. */
  readonly timeoutMs: number;
}

/** What the worker reports. */
export interface NormalClientReport {
  readonly latenciesMs: number[];
  readonly failures: number;
  /** The first failure, for the notes (status and start of the text, or the error). */
  readonly firstFailure: string | null;
}

self.onmessage = async (event: MessageEvent<NormalClientTask>) => {
  const task = event.data;
  try {
    const session = await openBenchSession(task.url, { timeoutMs: task.timeoutMs });
    const latenciesMs: number[] = [];
    let failures = 0;
    let firstFailure: string | null = null;
    const deadline = performance.now() + task.durationMs;
    while (performance.now() < deadline) {
      const sentAt = performance.now();
      try {
        const answer = await session.call("resources/read", { uri: task.uri }, {
          timeoutMs: task.timeoutMs,
        });
        if (answer.status === 200 && answer.text.includes('"result"')) {
          latenciesMs.push(performance.now() - sentAt);
          continue;
        }
        failures++;
        firstFailure ??= `HTTP ${answer.status}: ${answer.text.slice(0, 120)}`;
      } catch (error) {
        failures++;
        firstFailure ??= error instanceof Error ? error.message : String(error);
      }
      await new Promise((resolve) => setTimeout(resolve, 50)); // no hot loop against a refusing server
    }
    await session.close();
    const report: NormalClientReport = { latenciesMs, failures, firstFailure };
    self.postMessage(report);
  } catch (error) {
    self.postMessage({ error: error instanceof Error ? error.message : String(error) });
  }
};
