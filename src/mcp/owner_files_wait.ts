/**
 * Every method a family serves waits for the owner's files to be read once
 * since the start (review r17, hB-1): serve watches `overrides.json` and the
 * configuration file only from the first answer on (issue 13), so a
 * narrowing edit made before that answer (a skill turned off, hidden from
 * the model or the user, a grant narrowed) is read only then; until then no
 * tool runs, and no skill is listed, read or offered as a prompt, on the
 * overrides read at start-up. Once read, a handler is entered synchronously,
 * as before (no tick added). `initialize` never waits (it is the first
 * answer; a family may register its own wrapper of it), nor `ping`. Handlers
 * registered with a params schema (`skills/list`, `skills/get`,
 * `resources/directory/read`: the SDK's three-argument form) wait too.
 *
 * The wait is bounded (session 13, hA): when the owner's files could not be
 * read, or were not read in time (`src/worker/owner_files_gate.ts`), the
 * request is refused, never answered on older overrides: `tools/call` with
 * the tool error `OWNER_SETTINGS_UNREAD` (an `isError` result, as every
 * tool error: the model reads it and can call again), every other method
 * with a JSON-RPC error -32603 saying why and to ask again. The next request
 * asks for the read again.
 *
 * It rests on the SDK's `setRequestHandler`, as `invalid_params.ts` does;
 * the behaviour is checked end to end (`tests/e2e/owner_edit_before_first_answer_test.ts`,
 * `tests/e2e/owner_files_unreadable_attack_test.ts`).
 *
 * @module
 */

import { ProtocolError, ProtocolErrorCode, type Server } from "./sdk.ts";
import { toolError } from "./tool_result.ts";

/** Whether the owner's files were read, and a wait for it (the worker's `owner_files_gate.ts`). */
export interface OwnerFilesRead {
  /** True once read: handlers are entered at once. */
  readonly isRead: boolean;
  /**
   * Resolves once read; a wait while no read is asked for asks the trusted
   * part for one. Rejects with {@linkcode OwnerFilesUnreadError} when the
   * read failed or did not come in time.
   */
  whenRead(): Promise<void>;
}

/** A request was not served: the owner's files could not be read, or not in time. */
export class OwnerFilesUnreadError extends Error {
  /** True when the wait ran out (no answer from the trusted part); false when the read failed. */
  readonly isTimedOut: boolean;

  /**
   * @param why `isTimedOut`; `files`: the names (no folder) of the files that
   *   could not be read (empty: not known); `waitMs`: the bound, in ms.
   */
  constructor(why: { isTimedOut: boolean; files: readonly string[]; waitMs: number }) {
    super(unreadMessage(why));
    this.name = "OwnerFilesUnreadError";
    this.isTimedOut = why.isTimedOut;
  }
}

/** The client-facing text: what was not read, why nothing is served, what to do. No host path. */
function unreadMessage(
  why: { isTimedOut: boolean; files: readonly string[]; waitMs: number },
): string {
  const what = why.files.length === 0
    ? "its owner's settings files"
    : `its owner's settings (${why.files.map((name) => `"${name}"`).join(", ")})`;
  const failed = why.isTimedOut
    ? `skillgate did not finish reading ${what} within ${why.waitMs / 1000} s`
    : `skillgate could not read ${what}`;
  return `${failed}, so it answers nothing yet (a skill its owner turned off must not be ` +
    "served); ask again in a few seconds, and if this persists, the server's owner must fix " +
    "the file (skillgate's log says what is wrong)";
}

type Handler = (request: unknown, ctx: unknown) => unknown;

/** Methods answered at once: the first answer itself (a family may wrap it), and liveness. */
const NEVER_WAITS: ReadonlySet<string> = new Set(["initialize", "ping"]);

/**
 * Makes every request handler registered on `server` from now on wait for
 * `owner` first, and answers a refused wait as the method's error.
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
    // (method, handler), or (method, paramsSchema, handler) for a method the SDK does not know.
    const method = args[0];
    const handler = args.at(-1);
    if (
      typeof method !== "string" || typeof handler !== "function" ||
      (args.length !== 2 && args.length !== 3) || NEVER_WAITS.has(method)
    ) {
      return register(...args);
    }
    const served = handler as Handler;
    const refused = (error: unknown): unknown => {
      if (!(error instanceof OwnerFilesUnreadError)) throw error;
      if (method === "tools/call") {
        return toolError(
          "OWNER_SETTINGS_UNREAD",
          error.message,
          "Call the tool again in a few seconds; if it keeps failing, tell the user that the " +
            "server's owner must fix skillgate's settings files",
        );
      }
      throw new ProtocolError(ProtocolErrorCode.InternalError, error.message);
    };
    const waiting: Handler = (request, ctx) =>
      owner.isRead
        ? served(request, ctx)
        : owner.whenRead().then(() => served(request, ctx), refused);
    return register(...args.slice(0, -1), waiting);
  };
}
