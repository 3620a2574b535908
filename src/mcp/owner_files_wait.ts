/**
 * Every method a family serves waits for the owner's files to be read once
 * since the start (review r17, hB-1): serve watches `overrides.json` and the
 * configuration file only from the first answer on (issue 13), so a
 * narrowing edit made before that answer (a skill turned off, hidden from
 * the model or the user, a grant narrowed) is read only then; until then no
 * tool runs, and no skill is listed, read or offered as a prompt, on the
 * overrides read at start-up. Once read, a handler is entered synchronously,
 * as before (no tick added). `initialize` never waits (it is the first
 * answer; a family may register its own wrapper of it), nor `ping`.
 *
 * It rests on the SDK's `setRequestHandler`, as `invalid_params.ts` does;
 * the behaviour is checked end to end (`tests/e2e/owner_edit_before_first_answer_test.ts`).
 *
 * @module
 */

import type { Server } from "./sdk.ts";

/** Whether the owner's files were read, and a wait for it (the worker's `owner_files_gate.ts`). */
export interface OwnerFilesRead {
  /** True once read: handlers are entered at once. */
  readonly isRead: boolean;
  /** Resolves once read; the first wait before that asks the trusted part for the read. */
  whenRead(): Promise<void>;
}

type Handler = (request: unknown, ctx: unknown) => unknown;

/** Methods answered at once: the first answer itself (a family may wrap it), and liveness. */
const NEVER_WAITS: ReadonlySet<string> = new Set(["initialize", "ping"]);

/**
 * Makes every request handler registered on `server` from now on wait for
 * `owner` first.
 *
 * @param server A new server (its families not installed yet).
 * @param owner Whether the owner's files were read, and the wait.
 * @throws {TypeError} When the SDK no longer has `setRequestHandler`.
 */
export function waitForOwnerFiles(server: Server, owner: OwnerFilesRead): void {
  const hooks = server as unknown as { setRequestHandler: (...args: unknown[]) => unknown };
  if (typeof hooks.setRequestHandler !== "function") {
    throw new TypeError("The MCP SDK's setRequestHandler was not found; check the SDK version");
  }
  const register = hooks.setRequestHandler.bind(server);
  hooks.setRequestHandler = (...args: unknown[]) => {
    const [method, handler] = args;
    if (
      typeof method !== "string" || typeof handler !== "function" || args.length !== 2 ||
      NEVER_WAITS.has(method)
    ) {
      return register(...args);
    }
    const served = handler as Handler;
    return register(
      method,
      (request: unknown, ctx: unknown) =>
        owner.isRead ? served(request, ctx) : owner.whenRead().then(() => served(request, ctx)),
    );
  };
}
