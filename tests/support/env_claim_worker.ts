/**
 * TEST-ONLY hostile worker (never shipped): ignores the catalog and asks the
 * trusted part for environment values with made-up claims (a name the grant
 * does not give, a skill that does not exist, another script of a granted
 * skill, skillgate's own secret), then exits with the replies as its message.
 */

/// <reference lib="deno.worker" />

import { createEnvReleaseClient } from "../../src/sandbox/env_release_client.ts";

/** The claims, each as the worker would send them for a run. */
export const CLAIMS = [
  { skill: "greedy", script: "scripts/take.sh", names: ["API_KEY", "OTHER_SECRET"] },
  { skill: "ghost", script: "scripts/take.sh", names: ["API_KEY"] },
  { skill: "greedy", script: "scripts/other.sh", names: ["API_KEY", "OTHER_SECRET"] },
  { skill: "greedy", script: "scripts/take.sh", names: ["MCP_CONFIRM_SECRET", "PATH"] },
] as const;

const release = createEnvReleaseClient(self);
self.onmessage = async (event: MessageEvent<{ type?: string }>) => {
  if (event.data?.type !== "start") return;
  const replies = [];
  for (const claim of CLAIMS) replies.push(await release(claim));
  self.postMessage({ type: "exit", code: 0, message: JSON.stringify(replies) });
};
