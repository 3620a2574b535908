/**
 * Creates the worker isolate with exactly a given permission set, in a
 * module of its own with few imports: `serve` (main.ts) creates the worker
 * before it loads the rest of the trusted part (issue 13); `worker_host.ts`
 * then takes it over.
 *
 * @module
 */

import { toWorkerOption, type WorkerPermissions } from "./worker_permissions.ts";

/**
 * Errors a worker raised before `startWorker` (worker_host.ts) took it over
 * (`serve` creates it before the rest of the trusted part loads and the
 * isolation probe runs): held here, handled, so a module
 * that fails to load is reported by `startWorker` like any other worker error
 * instead of escaping as an unhandled error that ends the trusted part.
 */
const earlyErrors = new WeakMap<Worker, string>();

/**
 * The exact permission option each worker was created with (as `new Worker`
 * received it, serialised at that moment): what decides whether an early
 * worker may serve is the rights it holds, never a set its caller says it
 * was given (r3 review, issue 13).
 */
const createdWith = new WeakMap<Worker, string>();

/**
 * Creates the worker isolate with exactly `permissions`; its modules start
 * loading at once, and it does nothing else until `startWorker`
 * sends it the configuration (nothing reaches it before: it reads no input).
 * An error it raises before then is held for `startWorker` to report.
 *
 * @param entry URL of the worker's entry module.
 * @param permissions The permission set it gets, for good.
 * @returns The worker.
 *
 * Requires `--unstable-worker-options`, and the caller must hold every
 * permission it hands down.
 */
export function createWorkerIsolate(entry: URL, permissions: WorkerPermissions): Worker {
  return createWorkerFromOption(entry, toWorkerOption(permissions));
}

/**
 * {@linkcode createWorkerIsolate} from a permission option as
 * `toWorkerOption` writes it (the start record's, `early_start.ts`): what it
 * was created with is recorded the same way, so it serves only when that is
 * exactly the computed set.
 *
 * @param entry URL of the worker's entry module.
 * @param option The permission option it gets, for good.
 * @returns The worker.
 * @throws {TypeError} When Deno refuses the option.
 *
 * Requires `--unstable-worker-options`, and the caller must hold every
 * permission it hands down.
 */
export function createWorkerFromOption(entry: URL, option: Deno.PermissionOptionsObject): Worker {
  const held = JSON.stringify(option);
  const worker = new Worker(entry, {
    type: "module",
    name: "skillgate-worker",
    deno: { permissions: option },
  });
  createdWith.set(worker, held);
  worker.onerror = (event: ErrorEvent) => {
    event.preventDefault();
    if (!earlyErrors.has(worker)) earlyErrors.set(worker, event.message);
  };
  return worker;
}

/**
 * The error a worker raised before it was taken over, if any.
 *
 * @param worker A worker from {@linkcode createWorkerIsolate}.
 * @returns The error's message, or undefined when it raised none.
 */
export function earlyErrorOf(worker: Worker): string | undefined {
  return earlyErrors.get(worker);
}

/**
 * The permission option a worker was created with, as `new Worker` received it.
 *
 * @param worker Any worker.
 * @returns `JSON.stringify(toWorkerOption(set))` of the set it was created with
 *   by {@linkcode createWorkerIsolate}, or undefined for a worker made elsewhere.
 */
export function heldWorkerOption(worker: Worker): string | undefined {
  return createdWith.get(worker);
}
