/**
 * The worker's wait for the owner's files (review r17, hB-1): serve watches
 * `overrides.json` and the configuration file from the first answer on
 * (issue 13), so an edit that narrows (a skill turned off, a grant revoked)
 * made before that answer is read only then. Every MCP method but
 * `initialize` and `ping` (a tool call, a listing, a read, a prompt) waits
 * until the trusted part says it read both files once (`owner-current`,
 * posted after any overlay that read changed, and applied before this gate
 * opens); a call that comes first asks for the read (`owner-wanted`) instead
 * of waiting for the first answer. Fails closed: nothing is answered on
 * overrides older than that read.
 *
 * The wait is bounded (session 13, hA): a read that fails (a file that is not
 * a regular file or not valid, the watch that could not start: the trusted
 * part's `owner-unread`) ends every wait at once, and one the trusted part
 * never answers (a read stuck on a hung mount) ends each wait after
 * {@linkcode OWNER_FILES_WAIT_MS}; either way the request is refused with an
 * {@linkcode OwnerFilesUnreadError} (never answered on older overrides), and
 * the next request asks again.
 *
 * @module
 */

import { type OwnerFilesRead, OwnerFilesUnreadError } from "../mcp/owner_files_wait.ts";

/**
 * How long a request waits for the trusted part to read the owner's files, in
 * ms, before it is refused (the next request asks again). Two small reads
 * take milliseconds; the bound is for a read that never ends (a hung mount,
 * a blocked trusted thread), and stays far under a client's own request
 * timeout (the SDKs' default: 60 s) so the client learns why. Only the
 * trusted part's answer counts: once it arrived, a wait for the catalog to
 * load (the overlay is applied then) is not bounded here.
 */
export const OWNER_FILES_WAIT_MS = 5_000;

/** The gate: every MCP method but `initialize` and `ping` waits on it (`src/mcp/owner_files_wait.ts`). */
export interface OwnerFilesGate extends OwnerFilesRead {
  /**
   * Resolves once the owner's files were read (at once when the gate was
   * opened already); the first wait while no read is asked for asks for one.
   * Rejects with {@linkcode OwnerFilesUnreadError} when that read failed
   * ({@linkcode OwnerFilesGate.fail}) or the trusted part did not answer
   * within the bound.
   */
  whenRead(): Promise<void>;
  /**
   * The trusted part read both files (its `owner-current` arrived): waits no
   * longer count toward the bound; they end at {@linkcode OwnerFilesGate.open},
   * once that read's overlay is applied.
   */
  markRead(): void;
  /** Opens the gate (the trusted part's `owner-current`, its overlay applied); later calls change nothing. */
  open(): void;
  /**
   * The trusted part could not read the owner's files (`owner-unread`): every
   * wait is refused now, and the next wait asks again. Ignored once open or
   * marked read (a later read's failure changes nothing served).
   *
   * @param files The names of the files that could not be read (no folder),
   *   for the refusal's message; empty when unknown.
   */
  fail(files: readonly string[]): void;
}

/** Options of {@linkcode createOwnerFilesGate}. */
export interface OwnerFilesGateOptions {
  /**
   * How long each wait lasts without the trusted part's answer, in ms
   * (tests: shorter). @default {@linkcode OWNER_FILES_WAIT_MS}
   */
  readonly waitMs?: number;
}

/** One request's wait. */
interface Waiter {
  readonly resolve: () => void;
  readonly reject: (error: OwnerFilesUnreadError) => void;
  timer: ReturnType<typeof setTimeout> | undefined;
}

/**
 * Creates a closed gate.
 *
 * @param ask Asks the trusted part to read the owner's files now (posts
 *   `owner-wanted`); called on the first wait while closed, and again on the
 *   first wait after a read failed or a wait timed out.
 * @param options The bound of each wait.
 * @returns The gate.
 */
export function createOwnerFilesGate(
  ask: () => void,
  options: OwnerFilesGateOptions = {},
): OwnerFilesGate {
  const waitMs = options.waitMs ?? OWNER_FILES_WAIT_MS;
  let isOpen = false;
  let isMarkedRead = false;
  let hasAsked = false;
  const waiters = new Set<Waiter>();
  const stopTimers = () => {
    for (const waiter of waiters) {
      clearTimeout(waiter.timer);
      waiter.timer = undefined;
    }
  };
  return {
    get isRead() {
      return isOpen;
    },
    whenRead() {
      if (isOpen) return Promise.resolve();
      if (!hasAsked && !isMarkedRead) {
        hasAsked = true;
        ask();
      }
      return new Promise<void>((resolve, reject) => {
        const waiter: Waiter = { resolve, reject, timer: undefined };
        waiters.add(waiter);
        if (isMarkedRead) return;
        waiter.timer = setTimeout(() => {
          waiters.delete(waiter);
          // Asked again by the next request: the trusted part may answer that one.
          hasAsked = false;
          reject(new OwnerFilesUnreadError({ isTimedOut: true, files: [], waitMs }));
        }, waitMs);
      });
    },
    markRead() {
      isMarkedRead = true;
      stopTimers();
    },
    open() {
      if (isOpen) return;
      isOpen = true;
      stopTimers();
      const opened = [...waiters];
      waiters.clear();
      for (const waiter of opened) waiter.resolve();
    },
    fail(files) {
      if (isOpen || isMarkedRead) return;
      hasAsked = false;
      stopTimers();
      const failed = [...waiters];
      waiters.clear();
      for (const waiter of failed) {
        waiter.reject(new OwnerFilesUnreadError({ isTimedOut: false, files, waitMs }));
      }
    },
  };
}
