/**
 * The instructions fitted to the client at `initialize`: under `--tools=auto`
 * a client that declares the skills extension is not offered skill_load or
 * skill_file (`tool_offer.ts`), so its instructions must not tell the model to
 * use them. The server's constructor fixes instructions before any client is
 * known; this re-answers `initialize` with the ones for the client that asked.
 *
 * @module
 */

import type { ServerContext } from "../family.ts";
import type { HandlerContext, Server } from "../sdk.ts";
import { declaredCapabilities } from "../elicitation/input_round.ts";
import { SKILLS_EXTENSION_ID } from "../skills_extension/skills_extension.ts";
import { catalogChannel, serverInstructions } from "./model_catalog.ts";

/** The SDK's own initialize answer (`Server._oninitialize`, v2 2.4.0; not in its public types). */
type InitializeAnswer = (request: unknown) => Promise<Record<string, unknown>>;
/** The SDK's own `server/discover` answer (`Server._ondiscover`, v2 2.4.0; not public). */
type DiscoverAnswer = () => Record<string, unknown>;

/**
 * Whether instructions depend on the client: only under `--tools=auto`, when
 * the catalog is in the instructions and the transport keeps a session (the
 * same cases in which `auto` withdraws tools, see `createToolOffer`).
 *
 * @param context The server context.
 * @returns True when {@linkcode fitInstructionsToClient} changes anything.
 */
export function instructionsDependOnClient(context: ServerContext): boolean {
  return context.config.options.tools === "auto" &&
    catalogChannel(context.config) === "instructions" && context.isStateless !== true;
}

/**
 * Makes `initialize` (2025-11-25) and `server/discover` (2026-07-28) answer,
 * to a client that declares the skills extension, instructions naming the
 * extension's way of loading skills (skills/get, resources/read) instead of
 * the withdrawn tools. On 2026-07-28 the SDK seeds each request's server with
 * the capabilities of that request's `_meta` envelope, which `server/discover`
 * reads here, as `tools/list` does. Other clients get the instructions the
 * server was built with. No effect unless {@linkcode instructionsDependOnClient}.
 *
 * @param server The server, before it is connected.
 * @param context The server context (catalog store, configuration, loading state).
 * @throws {TypeError} When the SDK no longer has the initialize answer this wraps
 *   (an SDK upgrade; tests/mcp/model_catalog/tool_offer_test.ts fails first).
 *
 * Source: newcomer 7's finding "Server instructions tell a skills-extension
 * client to use skill_load / skill_file, which `--tools=auto` withdrew".
 */
export function fitInstructionsToClient(server: Server, context: ServerContext): void {
  if (!instructionsDependOnClient(context)) return;
  const sdk = server as unknown as {
    _oninitialize?: InitializeAnswer;
    _ondiscover?: DiscoverAnswer;
  };
  const sdkInitialize = sdk._oninitialize;
  const sdkDiscover = sdk._ondiscover;
  if (typeof sdkInitialize !== "function" || typeof sdkDiscover !== "function") {
    throw new TypeError(
      "The MCP SDK's initialize or discover answer was not found; check the SDK version",
    );
  }
  const extensionInstructions = () =>
    serverInstructions(
      context.config,
      context.store.current(),
      context.catalogLoading,
      "extension",
    );
  const answer = sdkInitialize.bind(server);
  server.setRequestHandler("initialize", async (request) => {
    const result = await answer(request);
    const extensions = request.params.capabilities?.extensions;
    if (extensions?.[SKILLS_EXTENSION_ID] === undefined) return result as never;
    return { ...result, instructions: extensionInstructions() } as never;
  });
  // The SDK installs its discover handler after this server is built (per request on HTTP,
  // per connection on stdio) as `() => server._ondiscover()`: the request's own envelope is
  // caught as that handler is registered, and read by the replaced `_ondiscover`.
  let declaredNow: { extensions?: Record<string, unknown> } | undefined;
  const setHandler = server.setRequestHandler.bind(server) as (...args: unknown[]) => void;
  (server as unknown as { setRequestHandler: (...args: unknown[]) => void }).setRequestHandler = (
    ...args: unknown[]
  ) => {
    const [method, handler] = args;
    if (method !== "server/discover" || typeof handler !== "function" || args.length !== 2) {
      return setHandler(...args);
    }
    return setHandler(method, (request: unknown, ctx: HandlerContext) => {
      declaredNow = declaredCapabilities(ctx);
      try {
        return handler(request, ctx);
      } finally {
        declaredNow = undefined;
      }
    });
  };
  const discover = sdkDiscover.bind(server);
  sdk._ondiscover = () => {
    const result = discover();
    const declared = (declaredNow ?? server.getClientCapabilities())?.extensions;
    if (declared?.[SKILLS_EXTENSION_ID] === undefined || !("instructions" in result)) return result;
    return { ...result, instructions: extensionInstructions() };
  };
}
