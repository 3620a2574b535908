/**
 * The two programs the benchmark starts: skillgate exactly as users and
 * `make run` start it (the launcher `./skillgate serve ROOT`, which runs the
 * bundled program with the trusted flags), and the floor, a minimal SDK
 * stdio server under the same Deno and the same flags (started by the tests'
 * `programCommand`, tests/support/program.ts). Both speak MCP over stdio
 * through {@linkcode spawnRpcChild}.
 *
 * @module
 */

import { INITIALIZE_REQUEST } from "../../tests/support/mcp_messages.ts";
import { programCommand, programEnv, REPO_ROOT } from "../../tests/support/program.ts";
import { type ChildCommand, type RpcChild, spawnRpcChild } from "./rpc_client.ts";

/**
 * The command that starts skillgate on `roots`, as `make run ARGS='serve ROOTS'` does.
 *
 * @param roots Skill roots, absolute.
 * @param options `extraArgs` after the roots (e.g. `["--static"]`) and extra environment.
 * @returns The command (this checkout's launcher, `serve ...`).
 */
export function skillgateCommand(
  roots: readonly string[],
  options: { extraArgs?: readonly string[]; env?: Readonly<Record<string, string>> } = {},
): ChildCommand {
  // What users run: the launcher, which runs the bundled program (issue 13).
  return {
    executable: `${REPO_ROOT}skillgate`,
    args: ["serve", ...roots, ...(options.extraArgs ?? [])],
    cwd: REPO_ROOT,
    env: programEnv(options.env),
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
    args: programCommand([], "bench/floor_server.ts"),
    cwd: REPO_ROOT,
    env: programEnv(),
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
    const answer = await child.request("initialize", INITIALIZE_REQUEST.params);
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
