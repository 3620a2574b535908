/**
 * The worker's wait for the owner's files (review r17, hB-1): serve watches
 * `overrides.json` and the configuration file from the first answer on
 * (issue 13), so an edit that narrows (a skill turned off, a grant revoked)
 * made before that answer is read only then. Every MCP method but
 * `initialize` (a tool call, a listing, a read, a prompt) waits until the
 * trusted part says it read both files once (`owner-current`, posted after
 * any overlay that read changed, and applied before this gate opens); a call
 * that comes first asks for the read (`owner-wanted`) instead of waiting for
 * the first answer. Fails closed: nothing is answered on overrides older than
 * that read.
 *
 * @module
 */

import type { OwnerFilesRead } from "../mcp/owner_files_wait.ts";

/** The gate: every MCP method but `initialize` waits on it (`src/mcp/owner_files_wait.ts`). */
export interface OwnerFilesGate extends OwnerFilesRead {
  /**
   * Resolves once the owner's files were read (at once when the gate was
   * opened already); the first wait before that asks for the read.
   */
  whenRead(): Promise<void>;
  /** Opens the gate (the trusted part's `owner-current`, its overlay applied); later calls change nothing. */
  open(): void;
}

/**
 * Creates a closed gate.
 *
 * @param ask Asks the trusted part to read the owner's files now (posts
 *   `owner-wanted`); called at most once, on the first wait while closed.
 * @returns The gate.
 */
export function createOwnerFilesGate(ask: () => void): OwnerFilesGate {
  let isOpen = false;
  let hasAsked = false;
  let opened: () => void = () => {};
  const read = new Promise<void>((resolve) => (opened = resolve));
  return {
    get isRead() {
      return isOpen;
    },
    whenRead() {
      if (!isOpen && !hasAsked) {
        hasAsked = true;
        ask();
      }
      return read;
    },
    open() {
      isOpen = true;
      opened();
    },
  };
}
