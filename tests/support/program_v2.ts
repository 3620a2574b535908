/**
 * Starts the real program over stdio and connects the SDK's v2 client
 * (`@modelcontextprotocol/client` 2.4.x) to it, with exactly the argv and
 * environment tests/support/program.ts builds for the 1.32.x client
 * ({@linkcode programCommand}, {@linkcode programEnv}): one way to start
 * skillgate, two client lines. Kept apart from program.ts so that the many
 * tests using the 1.32.x client do not load the second SDK.
 *
 * @module
 */

import { programCommand, programEnv, REPO_ROOT } from "./program.ts";
import { ClientV2, StdioClientTransportV2 } from "./sdk_v2_client.ts";

/** A v2 client connected to skillgate; dispose it to close the session and end the server. */
export interface ConnectedV2 extends AsyncDisposable {
  readonly client: ClientV2;
  readonly stderr: () => string;
}

/**
 * Starts skillgate over stdio and connects the v2 client to it (the
 * client's default `legacy` negotiation: `initialize`, as SDK 1.32 servers
 * speak).
 *
 * @param args Program arguments, e.g. `["serve", root]`.
 * @param options Extra environment variables for the program.
 * @returns The connected client.
 */
export async function connectStdioV2(
  args: readonly string[],
  options: {
    env?: Record<string, string>;
    /** Pin the 2026-07-28 revision (server/discover + per-request envelope) instead of initialize. */
    modern?: boolean;
    /** Declare elicitation and answer every confirmation with this action. */
    elicitation?: "accept" | "decline";
  } = {},
): Promise<ConnectedV2> {
  const transport = new StdioClientTransportV2({
    command: Deno.execPath(),
    args: programCommand(args),
    env: programEnv(options.env),
    cwd: REPO_ROOT,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Uint8Array) => {
    stderr += new TextDecoder().decode(chunk);
  });
  const client = new ClientV2({ name: "skillgate-tests-v2", version: "1.0.0" }, {
    ...(options.modern === true ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {}),
    ...(options.elicitation === undefined ? {} : { capabilities: { elicitation: { form: {} } } }),
  });
  const action = options.elicitation;
  if (action !== undefined) {
    client.setRequestHandler(
      "elicitation/create",
      () => action === "accept" ? { action, content: { run: true } } : { action },
    );
  }
  await client.connect(transport);
  return {
    client,
    stderr: () => stderr,
    [Symbol.asyncDispose]: async () => {
      await client.close();
    },
  };
}
