/**
 * The interface through which the runner ends a script's whole process
 * group. Killing a group (`kill(-pgid)`) needs rights the worker does not
 * hold, so in the product the worker asks the trusted part over postMessage
 * (`src/sandbox/group_kill_client.ts` and `src/sandbox/group_killer.ts`).
 *
 * @module
 */

/** Signals the runner sends to a group. */
export type GroupSignal = "SIGTERM" | "SIGKILL";

/** Options of {@linkcode GroupKiller.register}. */
export interface RegisterOptions {
  /**
   * Whether the leader stops itself before it execs the script (the group
   * launcher, see `isolate()`): the killer then waits until it is stopped,
   * verifies and registers the group, and only then lets it continue, so no
   * process of the script exists before its group is known. @default false
   */
  readonly awaitsStop?: boolean;
}

/** Ends process groups of scripts the runner started. */
export interface GroupKiller {
  /**
   * Registers the leader of a group the runner just started (detached, so
   * its pid is its process group id). The killer verifies it is a child of
   * this process before it will ever signal the group.
   *
   * @param pid The leader's pid.
   * @param options Whether the leader waits, stopped, to be registered.
   * @returns Whether the group was verified and registered (and, when it
   *   awaited the stop, continued). False leaves a stopped leader stopped:
   *   the runner then kills it before anything of the script ran.
   */
  register(pid: number, options?: RegisterOptions): Promise<boolean>;
  /**
   * Sends a signal to every process of a registered group.
   *
   * @param pid The leader's pid (the group id).
   * @param signal The signal.
   * @returns Whether the signal was sent (false when the group is unknown,
   *   failed verification, or is already empty).
   */
  kill(pid: number, signal: GroupSignal): Promise<boolean>;
  /**
   * Forgets a group after its run ended; later requests for it are refused.
   *
   * @param pid The leader's pid.
   */
  release(pid: number): void;
}
