/**
 * Skill loads started while discovery still runs (s17, issue 13). A build
 * discovers every root before it loads any skill (duplicate names and the
 * skill cap are decided over all candidates), so at 10,000 skills the
 * worker's thread sat mostly idle while the trusted part read folders, and
 * the trusted part idled while the worker then loaded. Here each candidate
 * starts loading as soon as discovery finds it, at most `limit` at once and
 * `max` in all; the build's ordered pass then takes each started load
 * instead of starting its own. A load nobody takes (a duplicate name refused
 * after discovery, a candidate past the cap) is dropped: loading is read-only
 * (its index-cache entries are an optimisation), and nothing of it is
 * reported or served.
 *
 * @module
 */

import type { SkillCandidate } from "./discover.ts";

/** Loads started early, for the build's ordered pass to take. */
export interface EarlyLoads<Loaded> {
  /** Starts loading `candidate` now, or queues it while `limit` are in flight (none past `max`). */
  start(candidate: SkillCandidate): void;
  /**
   * The load started for `candidate` (it may reject as the load did), or
   * null when none was started: the caller loads it itself. Take only after
   * {@linkcode EarlyLoads.stop} (a queued candidate could start later).
   */
  take(candidate: SkillCandidate): Promise<Loaded> | null;
  /** Starts no more loads: the queue is dropped; those in flight go on, to be taken. */
  stop(): void;
}

/**
 * Creates a set of early loads.
 *
 * @param load Loads one candidate (the build's loader, after its pause).
 * @param limit Loads in flight at most; at least 1.
 * @param max Loads started or queued in all at most (the skill cap: none is
 *   started that the build could never serve).
 * @returns The set. A load that rejects and is never taken is dropped
 *   silently (never an unhandled rejection).
 */
export function createEarlyLoads<Loaded>(
  load: (candidate: SkillCandidate) => Promise<Loaded>,
  limit: number,
  max: number,
): EarlyLoads<Loaded> {
  const started = new Map<SkillCandidate, Promise<Loaded>>();
  const queued: (SkillCandidate | undefined)[] = [];
  let head = 0;
  let inFlight = 0;
  let accepted = 0;
  let isStopped = false;
  const width = Math.max(1, limit);

  function run(candidate: SkillCandidate): void {
    inFlight++;
    const loading = load(candidate);
    started.set(candidate, loading);
    loading.then(settle, settle);
  }

  function settle(): void {
    inFlight--;
    while (!isStopped && inFlight < width && head < queued.length) {
      const next = queued[head]!;
      queued[head++] = undefined;
      run(next);
    }
  }

  return {
    start(candidate) {
      if (isStopped || accepted >= max || started.has(candidate)) return;
      accepted++;
      if (inFlight < width) run(candidate);
      else queued.push(candidate);
    },
    take(candidate) {
      const loading = started.get(candidate) ?? null;
      started.delete(candidate);
      return loading;
    },
    stop() {
      isStopped = true;
      queued.length = 0;
      head = 0;
    },
  };
}
