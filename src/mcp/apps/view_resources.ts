/**
 * The two views as `ui://` resources with the MCP Apps media type
 * (`text/html;profile=mcp-app`): one self-contained page built from `views/`
 * (`views.generated.ts`, reproducible; no network: the page's own CSP and
 * the resource's `_meta.ui.csp` both allow no outside origin), listed by
 * `resources/list` for a client that renders views. The page
 * (about 800 KB) is loaded on the first read, not at start-up: a literal
 * dynamic import, part of the module graph (no read permission needed, and
 * `deno compile` includes it). Being in that graph, its source stays in
 * every serving worker's memory from the start, so the bulk of it (the
 * script after the view's name) is kept there gzip-compressed (~260 KB) and
 * inflated once, on the first read (issue 13: RSS at 12 skills).
 *
 * @module
 */

import { APP_MIME_TYPE, type ReadResourceResult, type Resource } from "../sdk.ts";
import { SETTINGS_VIEW_URI, SKILLS_VIEW_URI } from "./app_meta.ts";

/**
 * A view resource's `_meta`: an empty CSP allow-list (no network) and a
 * border preference. The same on the `resources/list` entry and on the
 * `resources/read` content (where a host looks first).
 */
const VIEW_META = Object.freeze({
  ui: Object.freeze({
    csp: Object.freeze({ connectDomains: Object.freeze([]), resourceDomains: Object.freeze([]) }),
    prefersBorder: true,
  }),
});

/** The `resources/list` entries of the views, in {@linkcode VIEW_URIS} order. */
const VIEW_ENTRIES: readonly Resource[] = Object.freeze([
  {
    uri: SKILLS_VIEW_URI,
    name: "skillgate-skills-view",
    title: "Skills view",
    description: "skillgate's MCP Apps view of the catalog (opened by skill_browse)",
    mimeType: APP_MIME_TYPE,
    _meta: VIEW_META,
  },
  {
    uri: SETTINGS_VIEW_URI,
    name: "skillgate-settings-view",
    title: "Settings view",
    description: "skillgate's MCP Apps view of the skills' switches (opened by skill_settings)",
    mimeType: APP_MIME_TYPE,
    _meta: VIEW_META,
  },
].map((entry) => Object.freeze(entry)));

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
  const page = await viewPage();
  return `${page.beforeName}${name}${page.afterName}`;
}

/** The page's two parts, once inflated (a failed load is tried again on the next read). */
let loadedPage: Promise<{ beforeName: string; afterName: string }> | null = null;

function viewPage(): Promise<{ beforeName: string; afterName: string }> {
  loadedPage ??= loadViewPage().catch((error: unknown) => {
    loadedPage = null;
    throw error;
  });
  return loadedPage;
}

async function loadViewPage(): Promise<{ beforeName: string; afterName: string }> {
  const page = await import("./views.generated.ts");
  const binary = atob(page.VIEW_HTML_AFTER_NAME_GZIP_BASE64);
  const bytes = Uint8Array.from(binary, (char) => char.charCodeAt(0));
  const inflated = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return { beforeName: page.VIEW_HTML_BEFORE_NAME, afterName: await new Response(inflated).text() };
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
      _meta: structuredClone(VIEW_META) as Record<string, unknown>,
    }],
  };
}

/**
 * The views' `resources/list` entries, as ext-apps' `registerAppResource`
 * lists an app resource: URI, name, the MCP Apps media type and `_meta.ui`.
 * Listed only for a client that renders views (the caller decides).
 *
 * @returns Fresh copies of the two entries.
 *
 * Source: @modelcontextprotocol/ext-apps 2.0.4, `registerAppResource` (a
 * `registerResource` with `mimeType` `text/html;profile=mcp-app`, so listed),
 * `McpUiAppResourceConfig._meta` ("included in the resources/list response").
 */
export function listedViewResources(): Resource[] {
  return VIEW_ENTRIES.map((entry) => structuredClone(entry) as Resource);
}
