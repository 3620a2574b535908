/**
 * The rule for `skill_run` confirmations across stateless replicas. With
 * `--stateless`, the request that returns a confirmation token and the one
 * that presents it may reach different replicas behind a load balancer, and
 * a replica keeps no session to ask the user through (no elicitation). A
 * token can then only be checked when every replica signs with the same key:
 * the owner's shared `MCP_CONFIRM_SECRET`. Single use is enforced per replica
 * (each remembers the tokens it has seen), so with N replicas a token can be
 * replayed at most N times within its lifetime; the owner accepts that by
 * running replicas.
 *
 * Hook for the script runner: `skill_run` calls
 * {@linkcode replicaConfirmationRefusal} before confirming anything and
 * refuses with the returned message when it is not null.
 *
 * @module
 */

import type { Config } from "../../config/config.ts";

/**
 * Whether `skill_run` must be refused because confirmations cannot work
 * across replicas.
 *
 * @param config The configuration.
 * @returns Null when confirmations work (stdio, stateful HTTP, a shared
 *   `MCP_CONFIRM_SECRET`, or `MCP_CONFIRM_MODE` other than `ask-user`);
 *   otherwise the client-facing refusal message.
 *
 * Source: skillgate issue 7, "Confirmation across replicas".
 */
export function replicaConfirmationRefusal(config: Config): string | null {
  const isStatelessHttp = config.options.http !== null && config.options.stateless;
  if (!isStatelessHttp) return null;
  if (config.scripts.confirmMode !== "ask-user") return null;
  if (config.scripts.confirmSecret !== null) return null;
  return "skill_run is unavailable on this stateless server: a confirmation could reach " +
    "another replica; the owner must set a shared MCP_CONFIRM_SECRET on every replica";
}
