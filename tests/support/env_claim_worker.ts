/**
 * TEST-ONLY hostile worker (never shipped): ignores the catalog and asks the
 * trusted part for environment values with made-up claims (a name the skill
 * does not declare, a skill that declares nothing, another skill's folder, a
 * skill that does not exist, another script, a folder outside the roots,
 * skillgate's own secret), then exits with the replies as its message.
 */

/// <reference lib="deno.worker" />

import { createEnvReleaseClient } from "../../src/sandbox/env_release_client.ts";

/** The claims, each as the worker would send them for a run, folders relative to the root. */
export const CLAIMS = [
  { skill: "honest", script: "scripts/take.sh", at: "honest", names: ["API_KEY", "OTHER_SECRET"] },
  { skill: "greedy", script: "scripts/take.sh", at: "greedy", names: ["API_KEY", "OTHER_SECRET"] },
  { skill: "greedy", script: "scripts/take.sh", at: "honest", names: ["API_KEY"] },
  { skill: "ghost", script: "scripts/take.sh", at: "ghost", names: ["API_KEY"] },
  { skill: "honest", script: "scripts/other.sh", at: "honest", names: ["API_KEY"] },
  { skill: "honest", script: "scripts/take.sh", at: "../outside/honest", names: ["OTHER_SECRET"] },
  {
    skill: "honest",
    script: "scripts/take.sh",
    at: "honest",
    names: ["MCP_CONFIRM_SECRET", "PATH"],
  },
] as const;

const release = createEnvReleaseClient(self);
self.onmessage = async (
  event: MessageEvent<{ type?: string; config?: { roots: { path: string }[] } }>,
) => {
  if (event.data?.type !== "start") return;
  const root = event.data.config?.roots[0]?.path ?? "/nonexistent";
  const replies = [];
  for (const { at, ...claim } of CLAIMS) {
    replies.push(await release({ ...claim, dir: `${root}/${at}` }));
  }
  self.postMessage({ type: "exit", code: 0, message: JSON.stringify(replies) });
};
