/**
 * The only messages between the serving worker (`watch_isolate.ts`) and the
 * trusted part's inotify watch (`inotify/watch_service.ts`), over the port
 * the worker hands the trusted part. What comes back is checked here before
 * the serving worker uses it (by shape), and names only "something changed
 * at P" under a path the worker asked for.
 *
 * @module
 */

import type { LostFolder } from "./watch_plan.ts";

/** An error carried across (the open's name and message: the plan reads both). */
export interface CarriedError {
  readonly name: string;
  readonly message: string;
}

/** Serving worker -> isolate. */
export type ToWatchIsolate =
  /** Opens one recursive watcher, else the plan's (`openWatchers`). */
  | {
    readonly type: "open-plan";
    readonly id: number;
    readonly paths: readonly string[];
    readonly knownError: CarriedError | null;
  }
  /** Opens exactly one watcher. */
  | {
    readonly type: "open-one";
    readonly id: number;
    readonly paths: readonly string[];
    readonly recursive: boolean;
  }
  /** Closes these watchers. */
  | { readonly type: "close"; readonly watches: readonly number[] };

/** One event of one watcher. */
export interface CarriedEvent {
  readonly watch: number;
  readonly kind: Deno.FsEvent["kind"];
  readonly paths: readonly string[];
  readonly flag?: Deno.FsEvent["flag"];
}

/** Isolate -> serving worker. */
export type FromWatchIsolate =
  | {
    readonly type: "opened";
    readonly id: number;
    readonly watches: readonly number[];
    readonly lost: readonly LostFolder[];
    readonly flat: readonly string[];
    readonly flatEntries: readonly (readonly [string, readonly string[]])[];
    readonly pathCount: number;
  }
  | { readonly type: "open-failed"; readonly id: number; readonly error: CarriedError }
  /** The events of one turn of the isolate's loop, in order. */
  | { readonly type: "events"; readonly events: readonly CarriedEvent[] }
  /** A watcher's iteration ended by itself (an error, named). */
  | { readonly type: "watch-ended"; readonly watch: number; readonly error: string | null }
  /** Folders of an opened watch lost since its answer (the watch budget, a folder unreadable). */
  | { readonly type: "lost"; readonly watch: number; readonly lost: readonly LostFolder[] };

/**
 * Carries `error` across: its name and message.
 *
 * @param error What an open threw.
 * @returns The name (`Error` when none) and message.
 */
export function carryError(error: unknown): CarriedError {
  return error instanceof Error
    ? { name: error.name, message: error.message }
    : { name: "Error", message: String(error) };
}

/**
 * An Error again from its carried name and message.
 *
 * @param carried The carried error.
 * @returns An `Error` whose `name` and `message` are the carried ones.
 */
export function revive(carried: CarriedError): Error {
  const error = new Error(carried.message);
  error.name = carried.name;
  return error;
}

const KINDS = new Set(["any", "access", "create", "modify", "rename", "remove", "other"]);

const isStrings = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((item) => typeof item === "string");

const isId = (value: unknown): value is number => Number.isSafeInteger(value);

const isCarried = (value: unknown): value is CarriedError =>
  typeof value === "object" && value !== null &&
  typeof (value as CarriedError).name === "string" &&
  typeof (value as CarriedError).message === "string";

const isLost = (value: unknown): value is LostFolder =>
  typeof value === "object" && value !== null &&
  typeof (value as LostFolder).root === "string" &&
  typeof (value as LostFolder).folder === "string" &&
  typeof (value as LostFolder).why === "string";

/**
 * The isolate's message when it has the expected shape, else null (dropped).
 *
 * @param data A message from the isolate.
 * @returns The message, or null.
 */
export function parseFromWatchIsolate(data: unknown): FromWatchIsolate | null {
  if (typeof data !== "object" || data === null) return null;
  const message = data as Record<string, unknown>;
  switch (message.type) {
    case "lost":
      return isId(message.watch) && Array.isArray(message.lost) && message.lost.every(isLost)
        ? { type: "lost", watch: message.watch, lost: message.lost }
        : null;
    case "open-failed":
      return isId(message.id) && isCarried(message.error)
        ? { type: "open-failed", id: message.id, error: message.error }
        : null;
    case "watch-ended":
      return isId(message.watch) && (message.error === null || typeof message.error === "string")
        ? { type: "watch-ended", watch: message.watch, error: message.error }
        : null;
    case "events": {
      const events = message.events;
      if (!Array.isArray(events)) return null;
      const ok = events.every((event: Record<string, unknown>) =>
        typeof event === "object" && event !== null && isId(event.watch) &&
        typeof event.kind === "string" && KINDS.has(event.kind) && isStrings(event.paths) &&
        (event.flag === undefined || event.flag === null || event.flag === "rescan")
      );
      if (!ok) return null;
      return {
        type: "events",
        events: events.map((event: CarriedEvent) => ({
          watch: event.watch,
          kind: event.kind,
          paths: event.paths,
          ...(event.flag === "rescan" ? { flag: "rescan" as const } : {}),
        })),
      };
    }
    case "opened": {
      const entries = message.flatEntries;
      const ok = isId(message.id) && Array.isArray(message.watches) &&
        message.watches.every(isId) && Array.isArray(message.lost) &&
        message.lost.every(isLost) && isStrings(message.flat) && isId(message.pathCount) &&
        Array.isArray(entries) &&
        entries.every((entry: unknown) =>
          Array.isArray(entry) && entry.length === 2 && typeof entry[0] === "string" &&
          isStrings(entry[1])
        );
      return ok ? (message as unknown as FromWatchIsolate) : null;
    }
    default:
      return null;
  }
}
