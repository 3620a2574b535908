/**
 * The rules that keep `skill_run` off an HTTP server where nobody can vouch
 * for the caller or for the confirmation. Two rules, one place:
 *
 * - No bearer token: any local user (any process on the machine) can reach a
 *   loopback port, and the confirmation-token flow is answerable by the
 *   caller itself (it receives the preview and the token and sends them
 *   back), so without a token anyone on the machine could run granted
 *   scripts and receive the secrets granted to them.
 * - Stateless replicas without a shared `MCP_CONFIRM_SECRET`: the request
 *   that returns a confirmation token and the one that presents it may reach
 *   different replicas behind a load balancer, and a replica keeps no session
 *   to ask the user through (no elicitation). A token can then only be
 *   checked when every replica signs with the same key. Single use is
 *   enforced per replica (each remembers the tokens it has seen), so with N
 *   replicas a token can be replayed at most N times within its lifetime;
 *   the owner accepts that by running replicas.
 *
 * Hook for the script runner: the tools family passes
 * {@linkcode httpRunRefusal} as `ToolContext.runRefusal`, and `skill_run`
 * refuses with it before looking at anything else.
 *
 * @module
 */

import type { Config } from "../../config/config.ts";

/** Why `skill_run` is refused on a whole server: for the model, and what to do. */
export interface RunRefusal {
  /** Client-facing, sentence case; names no secret and no path. */
  readonly message: string;
  /** What the model (or the user) can do about it. */
  readonly hint: string;
}

/** The refusal over HTTP without a bearer token. */
export const NO_TOKEN_REFUSAL: RunRefusal = Object.freeze({
  message: "skill_run over HTTP needs a bearer token (SKILLGATE_HTTP_TOKEN or " +
    "--http-token-file): any local user can reach a loopback port",
  hint: "Follow the skill's instructions without running its scripts, or ask the server's " +
    "owner to set SKILLGATE_HTTP_TOKEN or --http-token-file",
});

/** The refusal on stateless replicas without a shared confirmation secret. */
export const REPLICA_REFUSAL: RunRefusal = Object.freeze({
  message: "skill_run is unavailable on this stateless server: a confirmation could reach " +
    "another replica; the owner must set a shared MCP_CONFIRM_SECRET on every replica",
  hint: "Ask the server's owner to set the same MCP_CONFIRM_SECRET on every replica",
});

/**
 * Whether `skill_run` must be refused on this server whatever the skill.
 *
 * @param config The configuration AFTER the trusted part settled the token
 *   (`settleHttpToken`), so a token read from `--http-token-file` counts.
 * @returns Null on stdio, and over HTTP when a bearer token is configured and
 *   confirmations work (stateful HTTP, a shared `MCP_CONFIRM_SECRET`, or
 *   `MCP_CONFIRM_MODE` other than `ask-user`); otherwise
 *   {@linkcode NO_TOKEN_REFUSAL} (checked first) or {@linkcode REPLICA_REFUSAL}.
 *
 * Source: MCP 2025-11-25, "Transports", security warning (authenticate
 * connections to a local server); skillgate issue 7, "Confirmation across
 * replicas".
 */
export function httpRunRefusal(config: Config): RunRefusal | null {
  if (config.options.http === null) return null;
  if (config.httpToken === null) return NO_TOKEN_REFUSAL;
  if (!config.options.stateless) return null;
  if (config.scripts.confirmMode !== "ask-user") return null;
  if (config.scripts.confirmSecret !== null) return null;
  return REPLICA_REFUSAL;
}
