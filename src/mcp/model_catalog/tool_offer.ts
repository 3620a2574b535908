/**
 * Which tools one server offers, and how `skill_load` is described, per
 * `--tools` and `--catalog`:
 *
 * - `--tools=always` offers every tool; `never` never offers `skill_load`
 *   and `skill_file` (skills are then reached through resources, prompts or
 *   the skills extension).
 * - `--tools=auto` (default) withdraws `skill_load` and `skill_file` once the
 *   client's `initialize` declares the skills extension (such a client loads
 *   skills itself through `skills/list`, `skills/get` and `resources/read`)
 *   and sends `tools/list_changed`. It never withdraws `skill_list`,
 *   `skill_search` (the extension has no search) or `skill_run`, has no effect in tool-description mode (the catalog lives
 *   in `skill_load`'s description), and acts as `always` on stateless HTTP.
 *
 * @module
 */

import type { ServerContext } from "../family.ts";
import { clientShowsViews } from "../apps/app_meta.ts";
import type { Server } from "../sdk.ts";
import { SKILLS_EXTENSION_ID } from "../skills_extension/skills_extension.ts";
import { catalogChannel, describeWithCatalog } from "./model_catalog.ts";

/**
 * The tools that open or serve an MCP Apps view: offered only to a client
 * that declared it renders views (`src/mcp/apps/app_meta.ts`), and then
 * always, whatever `--tools` says: a view calls only these, so no offer
 * policy can leave a view without what it needs (the skills view's detail
 * pane uses `skill_browse_detail`, never `skill_load`).
 */
export const VIEW_TOOLS: ReadonlySet<string> = new Set([
  "skill_browse",
  "skill_browse_detail",
  "skill_settings",
  "skill_settings_write",
]);

/** The tools `--tools` governs. */
export const LOADING_TOOLS: ReadonlySet<string> = new Set(["skill_load", "skill_file"]);

/** How one server offers its tools. */
/**
 * The capabilities one 2026-07-28 request declared in its `_meta` envelope
 * (absent on 2025-era requests, which use what `initialize` declared).
 */
export interface RequestCapabilities {
  readonly extensions?: Readonly<Record<string, unknown>>;
}

export interface ToolOffer {
  /** Whether `tools/list` lists the tool and `tools/call` accepts it, now. */
  isOffered(name: string, declared?: RequestCapabilities): boolean;
  /**
   * The tool's description as `tools/list` shows it now: with the catalog in
   * tool-description mode, and without a pointer to skill_load when the client
   * is not offered skill_load (`declared`: as for `isOffered`).
   */
  describe(name: string, base: string, declared?: RequestCapabilities): string;
}

/**
 * Whether `tools/list` of servers built from `context` may change during a
 * session (capability `tools.listChanged`): in tool-description mode when the
 * catalog is live, and under `--tools=auto` with the catalog in the
 * instructions on a stateful transport.
 *
 * @param context The server context.
 * @returns The `listChanged` value to declare.
 */
export function toolsMayChange(context: ServerContext): boolean {
  const options = context.config.options;
  if (context.isStateless === true) return false;
  if (catalogChannel(context.config) === "tool-description") return !options.static;
  return options.tools === "auto";
}

/**
 * Builds the tool offer of one server and, under `--tools=auto`, arranges
 * for `tools/list_changed` to be sent after `initialize` when the client
 * declares the skills extension.
 *
 * @param server The server (its client capabilities are read lazily).
 * @param context The server context.
 * @returns The offer the tools handler consults on every request.
 *
 * Source: the feature-rich anchor's `--tools=auto|always|never`; SEP-2640
 * (a host implementing the extension loads skills itself).
 */
export function createToolOffer(server: Server, context: ServerContext): ToolOffer {
  const mode = context.config.options.tools;
  const isToolDescription = catalogChannel(context.config) === "tool-description";
  const isAuto = mode === "auto" && !isToolDescription && context.isStateless !== true;
  // On 2026-07-28 `auto` decides per request, from the envelope's declared
  // capabilities; on 2025-11-25 from what initialize declared.
  const clientLoadsSkills = (declared?: RequestCapabilities) =>
    (declared ?? server.getClientCapabilities())?.extensions?.[SKILLS_EXTENSION_ID] !== undefined;
  if (isAuto) {
    const previous = server.oninitialized;
    server.oninitialized = () => {
      previous?.();
      if (clientLoadsSkills()) {
        server.sendToolListChanged().catch((error: unknown) => {
          console.error("skillgate: could not send tools/list_changed:", error);
        });
      }
    };
  }
  return {
    isOffered(name, declared) {
      if (VIEW_TOOLS.has(name)) {
        return clientShowsViews(declared ?? server.getClientCapabilities());
      }
      if (!LOADING_TOOLS.has(name)) return true;
      if (mode === "never") return false;
      return !(isAuto && clientLoadsSkills(declared));
    },
    describe(name, base, declared) {
      if (!this.isOffered("skill_load", declared)) return withoutSkillLoad(base);
      if (!isToolDescription || name !== "skill_load") return base;
      return describeWithCatalog(base, context.store.current());
    },
  };
}

/**
 * The other tools' pointers at skill_load, worded for a client that is not
 * offered it (it reads a skill's SKILL.md as a resource instead).
 */
const SKILL_LOAD_POINTERS: readonly (readonly [string, string])[] = [
  ["Then call skill_load with a name.", "Then read a skill's SKILL.md URI as a resource."],
  ["Then call skill_load with the name (or read the URI).", "Then read the URI as a resource."],
  [
    "(skill_load lists them with whether each can run here)",
    "(skill_list lists them with whether each can run here)",
  ],
  [
    "prefer skill_search and skill_load.",
    "prefer skill_search and reading SKILL.md as a resource.",
  ],
  [
    "To use a skill yourself, call skill_load.",
    "To use a skill yourself, read its SKILL.md as a resource.",
  ],
];

/**
 * A description without its pointer at skill_load (newcomer 7: a client
 * `--tools` withdrew skill_load from was still told to call it).
 *
 * @param description A tool's own description.
 * @returns The description with each known pointer reworded.
 */
export function withoutSkillLoad(description: string): string {
  let out = description;
  for (const [pointer, instead] of SKILL_LOAD_POINTERS) out = out.replace(pointer, instead);
  return out;
}
