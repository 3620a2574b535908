/**
 * MCP Apps metadata: the two views' `ui://` URIs, the `_meta` a tool carries
 * to name its view (both the current `ui.resourceUri` and the older
 * `ui/resourceUri` key, as ext-apps' `registerAppTool` writes them), who may
 * call a tool (`ui.visibility`), and whether a client renders views at all.
 *
 * The visibility is a hint to the host, not access control: the server
 * cannot tell a view's call from any other client's, so the helper tools are
 * guarded on their own (`skill_settings_write`).
 *
 * @module
 */

import { APP_MIME_TYPE, APP_RESOURCE_URI_META_KEY, getUiCapability } from "../sdk.ts";

/** The skills view: the catalog, search, a skill's SKILL.md and files, remote sources. */
export const SKILLS_VIEW_URI = "ui://skillgate/skills.html";

/** The settings view: disable a skill, hide it from the model or from prompts. */
export const SETTINGS_VIEW_URI = "ui://skillgate/settings.html";

/** The views served, by URI. */
export const VIEW_URIS: readonly string[] = Object.freeze([SKILLS_VIEW_URI, SETTINGS_VIEW_URI]);

/** Who may call a tool: the model, the view (app), or both (the default). */
export type ToolVisibility = readonly ("model" | "app")[];

/**
 * The `_meta` of a tool that opens or serves a view.
 *
 * @param resourceUri One of {@linkcode VIEW_URIS}.
 * @param visibility Who may call it. @default ["model", "app"]
 * @returns `{ ui: { resourceUri, visibility }, "ui/resourceUri": resourceUri }`, frozen.
 *
 * Source: @modelcontextprotocol/ext-apps 2.0.4, `registerAppTool` (writes both keys).
 */
export function appToolMeta(
  resourceUri: string,
  visibility: ToolVisibility = ["model", "app"],
): Readonly<Record<string, unknown>> {
  return Object.freeze({
    ui: Object.freeze({ resourceUri, visibility: Object.freeze([...visibility]) }),
    [APP_RESOURCE_URI_META_KEY]: resourceUri,
  });
}

/**
 * Whether a client renders MCP Apps views: it declared the
 * `io.modelcontextprotocol/ui` extension listing the views' media type.
 *
 * @param capabilities What the client declared (at `initialize`, or in a
 *   2026-07-28 request's envelope).
 * @returns True when the view tools should be offered.
 */
export function clientShowsViews(
  capabilities: { extensions?: Readonly<Record<string, unknown>> | undefined } | null | undefined,
): boolean {
  const ui = getUiCapability(capabilities as Parameters<typeof getUiCapability>[0]);
  return ui?.mimeTypes?.includes(APP_MIME_TYPE) === true;
}
