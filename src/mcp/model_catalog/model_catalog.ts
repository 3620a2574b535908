/**
 * The catalog for the model: a short preamble and an `<available_skills>`
 * list (name, description, SKILL.md URI per skill, XML-escaped) within a byte
 * budget. It goes into exactly one channel, chosen by `--catalog`: the
 * server's `instructions` (default) or `skill_load`'s tool description, in
 * which case the instructions carry only the preamble.
 *
 * @module
 */

import type { Config } from "../../config/config.ts";
import type { Catalog, Skill } from "../../skills/skill.ts";
import { skillFileUri } from "../resources/skill_uri.ts";

/** Bytes (UTF-8) the `<available_skills>` block takes at most. */
export const CATALOG_BUDGET_BYTES = 16 * 1024;

/** The channel the catalog goes into (`--catalog`). */
export type CatalogChannel = "instructions" | "tool-description";

/**
 * How the model loads a skill in this session, which the preamble names:
 * `tools` (skill_load and skill_file are offered), `resources` (`--tools=never`:
 * neither is ever offered), `extension` (`--tools=auto` withdrew both from a
 * client that declared the skills extension).
 */
export type SkillLoader = "tools" | "resources" | "extension";

const PREAMBLE_START = "skillgate serves Agent Skills: folders whose SKILL.md holds instructions " +
  "for a task, plus supporting files. When a task matches a skill's description, load that skill " +
  "before acting ";
const PREAMBLE_LOADING: Readonly<Record<SkillLoader, string>> = {
  tools: "(skill_load with its name, or read its SKILL.md URI as a resource) and follow it; read " +
    "the files it refers to with skill_file.",
  resources: "(read its SKILL.md URI as a resource) and follow it; read the files it refers to " +
    "as resources too (skill://NAME/PATH).",
  extension: "(skills/get or resources/read with its SKILL.md URI) and follow it; " +
    "read the files it refers to with resources/read (skill://NAME/PATH).",
};
const PREAMBLE_END = " skill_search finds the skills that fit a task among all served (ranked; " +
  "use it when the catalog below is cut); skill_list always shows the current catalog (skills " +
  "added or edited during this session included).";

/**
 * The preamble for one way of loading skills: it names only tools the client
 * is offered (newcomer 7: instructions named skill_load and skill_file to a
 * client `--tools=auto` had withdrawn them from).
 *
 * @param loader How skills are loaded in this session.
 * @returns One paragraph.
 */
export function preamble(loader: SkillLoader): string {
  return PREAMBLE_START + PREAMBLE_LOADING[loader] + PREAMBLE_END;
}

/**
 * How skills are loaded before the client is known: `resources` under
 * `--tools=never`, else `tools`.
 *
 * @param config The configuration (`tools` option).
 * @returns The loader.
 */
export function configuredLoader(config: Config): SkillLoader {
  return config.options.tools === "never" ? "resources" : "tools";
}

/**
 * The channel configured: `tool-description` under `--catalog=tool-description`
 * unless `--tools=never` (then `skill_load` is never offered, so the catalog
 * stays in the instructions), else `instructions`.
 *
 * @param config The configuration.
 * @returns The channel.
 */
export function catalogChannel(config: Config): CatalogChannel {
  const isToolDescription = config.options.catalog === "tool-description" &&
    config.options.tools !== "never";
  return isToolDescription ? "tool-description" : "instructions";
}

/**
 * Whether the model may see a skill in its catalog: frontmatter
 * `disable-model-invocation: true`, or the owner's override
 * `modelInvocable: false`, keeps a skill out of the catalog and of
 * skill_search (it stays listed by `skill_list`, served by the tools,
 * resources and, unless `user-invocable: false`, its prompt).
 *
 * @param skill A served skill.
 * @returns False when the frontmatter says `disable-model-invocation: true`
 *   or an override says `modelInvocable: false`.
 *
 * Source: the feature-rich anchor's `disable-model-invocation` (Claude Code
 * skill frontmatter); issue 19 (overrides).
 */
export function isInModelCatalog(skill: Skill): boolean {
  return skill.frontmatter["disable-model-invocation"] !== true &&
    skill.override?.modelInvocable !== false;
}

/**
 * Escapes text for XML character data and attribute values.
 *
 * @param text Any text.
 * @returns The text with `&`, `<`, `>`, `"` and `'` as entities, and every
 *   control character (C0 but tab and newline, DEL, C1), line or paragraph
 *   separator and bidirectional formatting mark written as visible `\uXXXX`
 *   (they are not legal XML, or make the text read differently from what it
 *   is).
 */
export function escapeXml(text: string): string {
  return text.replace(
    // deno-lint-ignore no-control-regex -- matching control characters is the point
    /[&<>"'\u0000-\u0008\u000B-\u001F\u007F-\u009F\u061C\u200E\u200F\u2028-\u202E\u2066-\u2069]/g,
    (c) => {
      switch (c) {
        case "&":
          return "&amp;";
        case "<":
          return "&lt;";
        case ">":
          return "&gt;";
        case '"':
          return "&quot;";
        case "'":
          return "&apos;";
        default:
          return `\\u${c.charCodeAt(0).toString(16).padStart(4, "0").toUpperCase()}`;
      }
    },
  );
}

/** Characters of a description the catalog shows at most (Agent Skills: 1-1024). */
export const MAX_CATALOG_DESCRIPTION_CHARS = 1024;

/**
 * Cuts a description to at most `maxChars` characters (Unicode code points,
 * so a surrogate pair is never split), ending a cut one with `…`.
 *
 * @param description The frontmatter description.
 * @param maxChars Characters at most, the ellipsis included (default
 *   {@linkcode MAX_CATALOG_DESCRIPTION_CHARS}; at least 1).
 * @returns The description unchanged when it fits, else its first
 *   `maxChars - 1` characters followed by `…`.
 *
 * Source: Agent Skills specification, `description` (1-1024 characters).
 */
export function clipDescription(
  description: string,
  maxChars: number = MAX_CATALOG_DESCRIPTION_CHARS,
): string {
  // Cheap exit: fewer code units than the cap means fewer characters too.
  if (description.length <= maxChars) return description;
  const chars = Array.from(description);
  if (chars.length <= maxChars) return description;
  return `${chars.slice(0, Math.max(0, maxChars - 1)).join("")}…`;
}

/**
 * Renders the `<available_skills>` block of a snapshot within a byte budget.
 * Skills come in name order, each description cut to
 * {@linkcode MAX_CATALOG_DESCRIPTION_CHARS} characters. A skill whose entry
 * does not fit what is left of the budget is skipped and later ones that do
 * fit are still added, so one oversized skill never hides the others; the
 * block then ends with `<more_skills count="N" total="T">` saying how many
 * are left out and how many the model may use in all, and telling the model
 * to find them with `skill_search` (issue 14).
 *
 * @param catalog The snapshot.
 * @param options `budgetBytes`: UTF-8 bytes of the whole block at most
 *   (default {@linkcode CATALOG_BUDGET_BYTES}; at least 512).
 * @returns The block.
 * @throws {RangeError} When `budgetBytes` is below 512.
 *
 * Source: the feature-rich anchor's `<available_skills>` catalog; Agent
 * Skills progressive disclosure (name and description up front) and its
 * 1024-character description limit.
 */
export function renderSkillCatalog(
  catalog: Catalog,
  options: { budgetBytes?: number } = {},
): string {
  const budgetBytes = options.budgetBytes ?? CATALOG_BUDGET_BYTES;
  if (!Number.isSafeInteger(budgetBytes) || budgetBytes < 512) {
    throw new RangeError(
      `Option budgetBytes must be an integer of at least 512 (got "${budgetBytes}")`,
    );
  }
  const skills = catalog.skills.filter(isInModelCatalog);
  const open = "<available_skills>\n";
  const close = "</available_skills>";
  if (skills.length === 0) return `${open}<!-- No skills are served right now. -->\n${close}`;
  const encoder = new TextEncoder();
  const more = (count: number) =>
    `<more_skills count="${count}" total="${skills.length}">${count} more skill` +
    `${count === 1 ? " is" : "s are"} served but not shown here (${skills.length} in all). ` +
    "Before acting on a task, call skill_search with words that describe it to find the best " +
    "skills among all of them.</more_skills>\n";
  const elements = skills.map((skill) =>
    `<skill><name>${escapeXml(skill.name)}</name><description>` +
    `${escapeXml(clipDescription(skill.description))}</description><uri>` +
    `${escapeXml(skillFileUri(skill.name, skill.skillMdFile))}</uri></skill>\n`
  );
  const sizes = elements.map((element) => encoder.encode(element).length);
  const frame = encoder.encode(open + close).length;
  if (frame + sizes.reduce((sum, size) => sum + size, 0) <= budgetBytes) {
    return open + elements.join("") + close;
  }
  // Some entry stays out: keep room for the note. Its longest form is the one
  // with the most digits and the plural, so `more(skills.length)` bounds it.
  const limit = budgetBytes - frame - encoder.encode(more(skills.length)).length;
  let used = 0;
  const parts: string[] = [];
  for (const [index, element] of elements.entries()) {
    const bytes = sizes[index] ?? 0;
    if (used + bytes > limit) continue;
    parts.push(element);
    used += bytes;
  }
  parts.push(more(skills.length - parts.length));
  return open + parts.join("") + close;
}

/**
 * The server's `instructions`: the preamble, followed by the catalog when the
 * channel is `instructions`. (Stdio instructions are fixed at `initialize`;
 * `skill_list` and, in tool-description mode, `tools/list` show changes.)
 *
 * @param config The configuration (`catalog` option).
 * @param catalog The snapshot at the time the server is created.
 * @param loading Set when the catalog was still loading then (a large
 *   catalog answered early over stdio): the instructions say so and point at
 *   `skill_list`, which answers once it is complete. @default none
 * @param loader How the client loads skills (see {@linkcode SkillLoader}).
 *   @default configuredLoader(config)
 * @returns The instructions text.
 */
export function serverInstructions(
  config: Config,
  catalog: Catalog,
  loading?: { readonly skillFolders: number },
  loader: SkillLoader = configuredLoader(config),
): string {
  const opening = preamble(loader);
  if (catalogChannel(config) === "tool-description") {
    return `${opening} The skills served are listed in skill_load's description.`;
  }
  if (loading !== undefined) {
    return `${opening} The catalog of this session (about ${loading.skillFolders} skill folders) was ` +
      "still loading when it started: call skill_list (or skill_search) to see the skills served.";
  }
  return `${opening} The skills served when this session started:\n\n${catalogBlock(catalog)}`;
}

/**
 * `skill_load`'s description in tool-description mode: its own description
 * followed by the current catalog.
 *
 * @param base The tool's own description.
 * @param catalog The current snapshot.
 * @returns The description with the catalog appended.
 */
export function describeWithCatalog(base: string, catalog: Catalog): string {
  return `${base}\n\nThe skills served:\n${catalogBlock(catalog)}`;
}

/** The default-budget block of each snapshot, rendered once per snapshot. */
const blocks = new WeakMap<Catalog, string>();

/**
 * {@linkcode renderSkillCatalog} with the default budget, once per snapshot:
 * a server is built per HTTP session and per stateless request, and
 * `tools/list` in tool-description mode renders it on every call.
 */
function catalogBlock(catalog: Catalog): string {
  let block = blocks.get(catalog);
  if (block === undefined) {
    block = renderSkillCatalog(catalog);
    blocks.set(catalog, block);
  }
  return block;
}
