/**
 * The worker's side of environment values: asks the trusted part for the
 * values of one run's names just before the run starts (the worker holds no
 * granted value of its own; see `env_release.ts` for the trusted rule).
 *
 * @module
 */

import type { EnvRequestMessage } from "./messages.ts";
import { createTrustedRequester, type RequestPort } from "./trusted_request.ts";

/**
 * Asks for the values of `names` for one run of `script` of `skill`; with
 * `namesOnly`, which of them a run would get (each value the empty string),
 * for the preview the user confirms.
 */
export type EnvReleaser = (
  request: {
    skill: string;
    script: string;
    dir: string;
    names: readonly string[];
    namesOnly?: boolean;
  },
) => Promise<Readonly<Record<string, string>>>;

/**
 * Creates a releaser that forwards every request to the trusted part.
 *
 * @param port Where to post requests and hear replies (in the worker: `self`).
 * @returns The releaser. Without a reply within `TRUSTED_REPLY_TIMEOUT_MS`
 *   it resolves to no value at all (fail closed). Only string values of the
 *   names asked for are kept from the reply.
 */
export function createEnvReleaseClient(port: RequestPort<EnvRequestMessage>): EnvReleaser {
  const ask = createTrustedRequester<EnvRequestMessage, Readonly<Record<string, unknown>>>(port, {
    replyType: "env-reply",
    readAnswer: (reply) =>
      typeof reply.values === "object" && reply.values !== null
        ? reply.values as Record<string, unknown>
        : {},
    onTimeout: {},
    // The trusted part may first start the declaration reader (which gives up after 10 s).
    timeoutMs: 15_000,
  });
  return async (request) => {
    const values = await ask({ type: "env", ...request, names: [...request.names] });
    const kept: Record<string, string> = {};
    for (const name of request.names) {
      const value = values[name];
      if (Object.hasOwn(values, name) && typeof value === "string") kept[name] = value;
    }
    return Object.freeze(kept);
  };
}
