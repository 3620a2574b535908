/**
 * The two programs the benchmark starts: skillgate exactly as `make run`
 * starts it (`deno run`, the trusted flags, `main.ts serve ROOT`), and the
 * floor, a minimal SDK stdio server under the same Deno and the same flags.
 * Both speak MCP over stdio through {@linkcode spawnRpcChild}.
 *
 * @module
 */

import { fileURLToPath } from "node:url";
import { trustedRunFlags } from "../../src/sandbox/trusted_flags.ts";
import { type ChildCommand, type RpcChild, spawnRpcChild } from "./rpc_client.ts";

/** The repository's root folder, with a trailing slash. */
export const REPO_ROOT: string = fileURLToPath(new URL("../../", import.meta.url));

/** The protocol revision the benchmark client asks for. */
export const PROTOCOL_VERSION = "2025-11-25";

/** The environment every server gets: a small allowlist, as in the tests. */
function childEnv(extra: Readonly<Record<string, string>> = {}): Record<string, string> {
  return {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    HOME: Deno.env.get("HOME") ?? "/tmp",
    ...extra,
  };
}

/**
 * The command that starts skillgate on `roots`, as `make run ARGS='serve ROOTS'` does.
 *
 * @param roots Skill roots, absolute.
 * @param options `extraArgs` after the roots (e.g. `["--static"]`) and extra environment.
 * @returns The command (the current Deno binary, trusted flags, `main.ts serve ...`).
 */
export function skillgateCommand(
  roots: readonly string[],
  options: { extraArgs?: readonly string[]; env?: Readonly<Record<string, string>> } = {},
): ChildCommand {
  return {
    executable: Deno.execPath(),
    args: [
      "run",
      ...trustedRunFlags(),
      `${REPO_ROOT}main.ts`,
      "serve",
      ...roots,
      ...(options.extraArgs ?? []),
    ],
    cwd: REPO_ROOT,
    env: childEnv(options.env),
  };
}

/**
 * The command that starts the floor server (`bench/floor_server.ts`) with the
 * same Deno and the same trusted flags.
 *
 * @returns The command.
 */
export function floorCommand(): ChildCommand {
  return {
    executable: Deno.execPath(),
    args: ["run", ...trustedRunFlags(), `${REPO_ROOT}bench/floor_server.ts`],
    cwd: REPO_ROOT,
    env: childEnv(),
  };
}

/** A server that answered `initialize`. */
export interface Session {
  readonly child: RpcChild;
  /** From just before the spawn to the `initialize` answer's last byte, in ms. */
  readonly startupMs: number;
  /** The `initialize` result (capabilities, serverInfo, instructions). */
  readonly initialize: Readonly<Record<string, unknown>>;
}

/**
 * Spawns a server, sends `initialize` at once (the pipe holds it until the
 * server reads), waits for the answer, then sends `notifications/initialized`.
 *
 * @param command What to spawn.
 * @returns The session; dispose `session.child` to end the server.
 * @throws {Error} When the server exits or answers with an error first.
 *
 * Requires `--allow-run`.
 */
export async function openSession(command: ChildCommand): Promise<Session> {
  const startedAt = performance.now();
  const child = spawnRpcChild(command);
  try {
    const answer = await child.request("initialize", {
      protocolVersion: PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: "skillgate-bench", version: "1.0.0" },
    });
    const startupMs = performance.now() - startedAt;
    await child.notify("notifications/initialized");
    return {
      child,
      startupMs,
      initialize: answer.result as Record<string, unknown>,
    };
  } catch (error) {
    await child.close(1_000);
    throw error;
  }
}
