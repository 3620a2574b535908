/**
 * The two views as `ui://` resources with the MCP Apps media type
 * (`text/html;profile=mcp-app`): one self-contained page built from `views/`
 * (`views.generated.ts`, reproducible; no network: the page's own CSP and
 * the resource's `_meta.ui.csp` both allow no outside origin). The page
 * (about 800 KB) is loaded on the first read, not at start-up: a literal
 * dynamic import, part of the module graph (no read permission needed, and
 * `deno compile` includes it).
 *
 * @module
 */

import { APP_MIME_TYPE, type ReadResourceResult } from "../sdk.ts";
import { SETTINGS_VIEW_URI, SKILLS_VIEW_URI } from "./app_meta.ts";

/** Each view's URI and the name its page starts (`<body data-view>`). */
const VIEW_NAMES: ReadonlyMap<string, string> = new Map([
  [SKILLS_VIEW_URI, "skills"],
  [SETTINGS_VIEW_URI, "settings"],
]);

/**
 * Whether a URI names one of the views.
 *
 * @param uri A `resources/read` URI.
 * @returns True for exactly the two `ui://skillgate/...` URIs.
 */
export function isViewUri(uri: string): boolean {
  return VIEW_NAMES.has(uri);
}

/**
 * The page of a view.
 *
 * @param uri One of the view URIs ({@linkcode isViewUri}).
 * @returns The HTML, self-contained.
 * @throws {RangeError} For another URI (the promise rejects).
 */
export async function viewHtml(uri: string): Promise<string> {
  const name = VIEW_NAMES.get(uri);
  if (name === undefined) throw new RangeError(`"${uri}" is not a view`);
  const page = await import("./views.generated.ts");
  return `${page.VIEW_HTML_BEFORE_NAME}${name}${page.VIEW_HTML_AFTER_NAME}`;
}

/**
 * `resources/read` of a view.
 *
 * @param uri One of the view URIs.
 * @returns One text content with the MCP Apps media type and `_meta.ui`:
 *   an empty CSP allow-list (no network) and a border preference.
 * @throws {RangeError} For another URI.
 *
 * Source: @modelcontextprotocol/ext-apps 2.0.4, `registerAppResource`
 * (`RESOURCE_MIME_TYPE`, `_meta.ui.csp`).
 */
export async function readViewResource(uri: string): Promise<ReadResourceResult> {
  return {
    contents: [{
      uri,
      mimeType: APP_MIME_TYPE,
      text: await viewHtml(uri),
      _meta: { ui: { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true } },
    }],
  };
}
