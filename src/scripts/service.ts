/**
 * Everything the worker needs to run scripts, built once at start: the grant,
 * a plan per catalog snapshot, the confirmation tokens, the run queue and the
 * group killer. Tools reach scripts only through this.
 *
 * @module
 */

import type { Config } from "../config/config.ts";
import type { Catalog } from "../skills/skill.ts";
import { type Confirmer, createConfirmer } from "./confirm/confirmer.ts";
import { type Grant, parseGrant } from "./grant.ts";
import { type ScriptHostFacts, scriptHostOf } from "./host_facts.ts";
import { planScripts, type ScriptPlan } from "./plan.ts";
import { createRunQueue, type RunQueue } from "./queue.ts";
import type { GroupKiller } from "./runner/group_killer.ts";
import type { EnvReleaser } from "../sandbox/env_release_client.ts";

/** The script-running side of the worker. */
export interface ScriptService {
  /**
   * The start-up facts. While the isolation probe is pending (a start whose
   * grant lets nothing run) its `isolation` is a placeholder: read them only
   * after {@linkcode ScriptService.whenSettled}.
   */
  readonly facts: ScriptHostFacts;
  /**
   * Resolves once the facts are final: at once, unless the service was
   * created pending; then when {@linkcode ScriptService.settle} is called
   * (the first call asks for them). Every tool call waits for it.
   */
  whenSettled(): Promise<void>;
  /**
   * Puts the probed facts in force (the trusted part's `isolation` message);
   * later calls, and calls on a service not created pending, change nothing.
   *
   * @param facts The facts with the isolation probed.
   */
  settle(facts: ScriptHostFacts): void;
  readonly grant: Grant;
  readonly confirmer: Confirmer;
  readonly queue: RunQueue;
  readonly killer: GroupKiller;
  readonly confirmMode: Config["scripts"]["confirmMode"];
  readonly dataDir: string | null;
  /** Aborted by {@linkcode ScriptService.stopAll}: every run watches it. */
  readonly stopSignal: AbortSignal;
  /**
   * The values of a run's granted names, asked of the trusted part just
   * before the run (it releases only what the owner's grant allows).
   */
  readonly releaseEnv: EnvReleaser;
  /** The plan for a snapshot (computed once per snapshot). */
  plan(catalog: Catalog): ScriptPlan;
  /**
   * Counts a run as in flight until it settles, so `stopAll` can wait for it.
   *
   * @param run The run's promise.
   * @returns The same promise.
   */
  track<T>(run: Promise<T>): Promise<T>;
  /**
   * Ends every run (waiting ones leave the queue, running ones have their
   * process group ended as on a timeout) and waits until all have returned.
   * Used when the server shuts down.
   */
  stopAll(): Promise<void>;
}

/**
 * Creates the script service.
 *
 * @param config The configuration (grant, confirmation settings, queue bounds).
 * @param facts The start-up facts from the trusted part.
 * @param options The group killer, the environment releaser (without one no
 *   granted value is ever handed out), `pending` when the facts' isolation
 *   is not probed yet (its `ask` is called once, on the first wait for it)
 *   and, for tests, a clock (ms since the epoch).
 * @returns The service.
 */
export function createScriptService(
  config: Config,
  facts: ScriptHostFacts,
  options: {
    killer: GroupKiller;
    releaseEnv?: EnvReleaser;
    pending?: { ask: () => void };
    now?: () => number;
  },
): ScriptService {
  const grant = parseGrant(config.scripts.grantJson, {
    hosted: config.hosted,
    hostedBy: config.hostedBy,
    unsubstituted: config.scripts.unsubstituted,
  });
  let plans = new WeakMap<Catalog, ScriptPlan>();
  const stopper = new AbortController();
  const inFlight = new Set<Promise<unknown>>();
  let current = facts;
  let host = scriptHostOf(config, facts);
  let isPending = options.pending !== undefined;
  let hasAsked = false;
  let resolveSettled = () => {};
  const settled = isPending
    ? new Promise<void>((resolve) => (resolveSettled = resolve))
    : Promise.resolve();
  return {
    get facts() {
      return current;
    },
    whenSettled: () => {
      if (isPending && !hasAsked) {
        hasAsked = true;
        options.pending?.ask();
      }
      return settled;
    },
    settle: (probed) => {
      if (!isPending) return;
      isPending = false;
      current = probed;
      host = scriptHostOf(config, probed);
      plans = new WeakMap();
      resolveSettled();
    },
    grant,
    confirmer: createConfirmer({
      secret: config.scripts.confirmSecret,
      // Only stateless replicas need a token to verify in another process.
      isSharedAcrossReplicas: config.options.http !== null && config.options.stateless,
      ttlSeconds: config.scripts.confirmTtlSeconds,
      ...(options.now === undefined ? {} : { now: options.now }),
    }),
    queue: createRunQueue({
      maxConcurrent: config.options.maxConcurrentRuns,
      maxQueued: config.options.maxQueuedRuns,
    }),
    killer: options.killer,
    confirmMode: config.scripts.confirmMode,
    dataDir: config.scripts.dataDir,
    stopSignal: stopper.signal,
    releaseEnv: options.releaseEnv ?? (() => Promise.resolve(Object.freeze({}))),
    track: (run) => {
      const settled = run.then(() => {}, () => {});
      inFlight.add(settled);
      void settled.then(() => inFlight.delete(settled));
      return run;
    },
    stopAll: async () => {
      stopper.abort();
      await Promise.all([...inFlight]);
    },
    plan: (catalog) => {
      let plan = plans.get(catalog);
      if (plan === undefined) {
        plan = planScripts(catalog.skills, grant, host);
        plans.set(catalog, plan);
      }
      return plan;
    },
  };
}
