/**
 * Malformed params of a spec method are the client's error (-32602 Invalid
 * params), not the server's. The SDK checks a spec request against its wire
 * schema before our handler runs, and throws a plain `Error` whose message is
 * the schema library's JSON list of issues; its dispatcher then answers
 * -32603 Internal error with that dump (review n8: `resources/list` with
 * `cursor: 5`, `resources/read` with `uri: 5`). This installs, once per
 * server, the rule: an error thrown before our handler was entered that
 * carries no JSON-RPC code is answered -32602, naming the param and what it
 * must be. An error from inside our handlers is left as it is.
 *
 * It rests on SDK internals (`setRequestHandler`, `_wrapHandler`), so the
 * behaviour is checked end to end with the real 1.x and 2.x clients
 * (`tests/e2e/pagination_cursor_test.ts`,
 * `tests/e2e/invalid_params_clients_test.ts`): an SDK update that changes
 * them fails those tests.
 *
 * @module
 */

import { ProtocolError, ProtocolErrorCode, type Server } from "./sdk.ts";

type Handler = (request: unknown, ctx: unknown) => unknown;

/** The SDK's hooks this rule wraps (present on its `Protocol`, checked at install). */
interface HandlerHooks {
  setRequestHandler: (...args: unknown[]) => unknown;
  _wrapHandler: (method: string, handler: Handler) => Handler;
}

/**
 * Installs the rule on a server, before any handler is registered.
 *
 * @param server A new server (no families installed yet).
 * @throws {TypeError} When the SDK no longer has the hooks this relies on
 *   (a changed SDK must be looked at, not silently served).
 *
 * Source: JSON-RPC 2.0, section 5.1 (-32602 Invalid params: "invalid method
 * parameter(s)"; -32603 is an internal error).
 */
export function answerMalformedParamsAsInvalid(server: Server): void {
  const hooks = server as unknown as HandlerHooks;
  if (typeof hooks._wrapHandler !== "function" || typeof hooks.setRequestHandler !== "function") {
    throw new TypeError(
      "The MCP SDK's request handler hooks were not found; check the SDK version",
    );
  }
  /** Request contexts whose own handler (ours) was entered: past the SDK's params check. */
  const entered = new WeakSet<object>();
  const register = hooks.setRequestHandler.bind(server);
  hooks.setRequestHandler = (...args: unknown[]) => {
    const [method, handler] = args;
    if (typeof method !== "string" || typeof handler !== "function" || args.length !== 2) {
      return register(...args);
    }
    return register(method, (request: unknown, ctx: unknown) => {
      if (typeof ctx === "object" && ctx !== null) entered.add(ctx);
      return (handler as Handler)(request, ctx);
    });
  };
  const isOurs = (ctx: unknown) => typeof ctx === "object" && ctx !== null && entered.has(ctx);
  const asInvalidParams = (method: string, error: unknown, ctx: unknown): unknown => {
    if (isOurs(ctx) || !(error instanceof Error) || hasJsonRpcCode(error)) return error;
    const detail = describeIssues(error.message);
    if (detail === null) return error;
    return new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `Invalid params for ${method}: ${detail}`,
    );
  };
  const wrap = hooks._wrapHandler.bind(server);
  hooks._wrapHandler = (method, stored) => {
    const wrapped = wrap(method, stored);
    // No await on the way through: the SDK checks params and enters our handler synchronously,
    // so an answer is not delayed a tick behind a later request's (stdio answers initialize
    // before a ping piped after it). Only a request not (yet) in our handler gets the mapping.
    return (request, ctx) => {
      let result: unknown;
      try {
        result = wrapped(request, ctx);
      } catch (error) {
        throw asInvalidParams(method, error, ctx);
      }
      if (isOurs(ctx) || !(result instanceof Promise)) return result;
      return result.catch((error: unknown) => {
        throw asInvalidParams(method, error, ctx);
      });
    };
  };
}

/**
 * Turns the schema library's JSON issue list into one clause: the first
 * issue's param path (without the leading `params`) and message, plus what
 * to send for a cursor.
 *
 * @param message The SDK's error message.
 * @returns The clause, or null when the message is not such a list.
 */
export function describeIssues(message: string): string | null {
  let issues: unknown;
  try {
    issues = JSON.parse(message);
  } catch {
    return null;
  }
  if (!Array.isArray(issues) || issues.length === 0) return null;
  const first = issues[0] as { path?: unknown; message?: unknown };
  if (!Array.isArray(first.path) || typeof first.message !== "string") return null;
  return issueClause(first.path.map(String), first.message);
}

/**
 * One params issue as a clause: where (the param path without a leading
 * `params`) and what is wrong, plus what to send for a cursor.
 *
 * @param path The issue's path, e.g. `["params", "cursor"]`.
 * @param message The schema library's message for it (at most 200 characters kept).
 * @returns `PATH: MESSAGE[; what a cursor is]`.
 */
export function issueClause(path: readonly (string | number)[], message: string): string {
  const keys = path.map(String);
  if (keys[0] === "params") keys.shift();
  const where = keys.length === 0 ? "params" : keys.join(".");
  const cursor = keys.at(-1) === "cursor"
    ? "; a cursor is the string a page's nextCursor gave, passed back exactly (leave it out " +
      "to start from the first page)"
    : "";
  return `${where}: ${message.slice(0, 200)}${cursor}`;
}

function hasJsonRpcCode(error: Error): boolean {
  return Number.isSafeInteger((error as { code?: unknown }).code);
}
