/**
 * Cache hints of the 2026-07-28 revision (`ttlMs`, `cacheScope`), chosen to
 * match how skillgate refreshes its catalog:
 *
 * - live catalog (default): a file change reaches the catalog within the
 *   refresh debouncer's longest wait (2 s, src/refresh/debounce.ts), and
 *   `subscriptions/listen` streams announce it; a cached answer is therefore
 *   never staler than what live refresh itself allows:
 *   {@linkcode LIVE_CACHE_TTL_MS} = 2,000 ms.
 * - `--static`: the catalog is frozen for the life of the process; a restart
 *   may serve another one, so the hint stays bounded:
 *   {@linkcode STATIC_CACHE_TTL_MS} = 300,000 ms (5 min).
 *
 * Scope: every catalog answer is the same for every caller (`public`), except
 * `tools/list` and `resources/list`, which vary with the caller's declared
 * capabilities: the MCP Apps view tools and `ui://` resources are listed only
 * for a caller that renders views, and under `--tools=auto` `skill_load` and
 * `skill_file` are withdrawn from a caller that declares the skills
 * extension. Those two are `private` whatever `--tools` says.
 *
 * The SDK fills these on the cacheable spec results (`server/discover`, the
 * list methods, `resources/read`) and only on 2026-07-28 answers; our
 * skills-extension methods add them themselves, also only on 2026-07-28
 * requests (SEP-2640: the fields belong to that revision).
 *
 * @module
 */

import type { Config } from "../config/config.ts";
import type { CacheHint, HandlerContext } from "./sdk.ts";

/** `ttlMs` while live refresh runs, in ms (the debouncer's longest wait). */
export const LIVE_CACHE_TTL_MS = 2_000;
/** `ttlMs` under `--static`, in ms. */
export const STATIC_CACHE_TTL_MS = 300_000;

/** The methods the SDK stamps from the server's `cacheHints` option. */
type SdkCacheable =
  | "server/discover"
  | "tools/list"
  | "prompts/list"
  | "resources/list"
  | "resources/templates/list"
  | "resources/read";

/**
 * The catalog's cache hint under `config`.
 *
 * @param config The served configuration (`--static`).
 * @returns `{ttlMs, cacheScope: "public"}`.
 */
export function catalogCacheHint(config: Config): Required<CacheHint> {
  return {
    ttlMs: config.options.static ? STATIC_CACHE_TTL_MS : LIVE_CACHE_TTL_MS,
    cacheScope: "public",
  };
}

/**
 * The SDK's per-method `cacheHints` server option for `config`.
 *
 * @param config The served configuration (`--static`, `--tools`).
 * @returns A hint for each SDK-cacheable method; `tools/list` and
 *   `resources/list` are `private` (they vary with the caller's capabilities).
 */
export function sdkCacheHints(config: Config): Record<SdkCacheable, CacheHint> {
  const hint = catalogCacheHint(config);
  const perCaller: CacheHint = { ...hint, cacheScope: "private" };
  return {
    "server/discover": hint,
    "tools/list": perCaller,
    "prompts/list": hint,
    "resources/list": perCaller,
    "resources/templates/list": hint,
    "resources/read": hint,
  };
}

/**
 * The cache fields a skills-extension answer carries: the catalog hint on a
 * 2026-07-28 request (one that carried the `_meta` envelope), nothing on a
 * 2025-era request.
 *
 * @param ctx The SDK's handler context of the request.
 * @param config The served configuration.
 * @returns `{ttlMs, cacheScope}` or `{}`.
 */
export function extensionCacheFields(
  ctx: HandlerContext,
  config: Config,
): Partial<Required<CacheHint>> {
  return ctx.mcpReq.envelope === undefined ? {} : catalogCacheHint(config);
}
