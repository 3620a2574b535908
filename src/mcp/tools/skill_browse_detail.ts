/**
 * `skill_browse_detail`: the skills view's detail pane, app-only. A skill's
 * description, SKILL.md body (verbatim; the view renders it safely) and its
 * files, for the view to show when the user picks a skill.
 *
 * The view cannot use `skill_load` for this: the tool-offer policy withdraws
 * `skill_load` under `--tools=auto` from a host that also declares the
 * skills extension (SEP-2640), and under `--tools=never` from everyone. This
 * tool is one of the view tools, offered to every client that renders views
 * whatever `--tools` says (`src/mcp/model_catalog/tool_offer.ts`). Its
 * "app" visibility keeps it out of the model's tool list on a host that
 * honours it; it reads only what `skill_load` would.
 *
 * @module
 */

import * as z from "zod";
import { MAX_CLIENT_NAME_CHARS } from "../../caps.ts";
import { appToolMeta, SKILLS_VIEW_URI } from "../apps/app_meta.ts";
import { readSkillBody } from "../../skills/skill_body.ts";
import { toolSuccess } from "../tool_result.ts";
import { isSkill, lookUpSkill } from "./lookup.ts";
import { loadSkill } from "./skill_load.ts";
import { remoteCachePathsAsSpecs, skillSourceAsShown } from "./remote_cache_paths.ts";
import { unreadableBodyError } from "./unreadable_body.ts";
import { defineTool, READ_ONLY_ANNOTATIONS } from "./tool.ts";

const inputSchema = z.object({
  name: z.string().min(1).max(MAX_CLIENT_NAME_CHARS).describe(
    "The skill's name, as skill_browse shows it",
  ),
}).strict();

const outputSchema = z.object({
  name: z.string(),
  description: z.string(),
  whenToUse: z.string().optional(),
  source: z.string(),
  body: z.string().describe("The SKILL.md body, verbatim (the view renders it safely)"),
  truncated: z.boolean().describe("Whether the body was cut at the SKILL.md read cap"),
  files: z.array(z.object({ path: z.string(), size: z.number().int() })),
});

/** The JSON `skill_browse_detail` answers with. */
export type SkillBrowseDetailAnswer = z.infer<typeof outputSchema>;

/** The `skill_browse_detail` tool (app-only: for the skills view). */
export const skillBrowseDetailTool = defineTool({
  name: "skill_browse_detail",
  title: "Skill detail for the skills view",
  description: "For skillgate's skills view only: one skill's description, SKILL.md body and " +
    "files, shown when the user picks it. To use a skill yourself, call skill_load.",
  inputSchema,
  outputSchema,
  annotations: READ_ONLY_ANNOTATIONS,
  _meta: appToolMeta(SKILLS_VIEW_URI, ["app"]),
  call: async (input, context) => {
    const catalog = context.store.current();
    const found = lookUpSkill(catalog, input.name);
    if (!isSkill(found)) return found;
    // The catalog holds no bodies (issue 13): read this one now, through the gate.
    const read = await readSkillBody(found, context.caps.maxSkillMdBytes);
    const shownAs = { hosted: context.hosted };
    const asShown = remoteCachePathsAsSpecs(catalog.roots, shownAs);
    if (!read.ok) {
      return unreadableBodyError(
        found,
        read,
        asShown,
        "The skill changed on disk; browse the skills again to see them as they are now",
      );
    }
    const { truncationNote: _note, ...detail } = loadSkill(
      found,
      read,
      skillSourceAsShown(found, catalog.roots, shownAs),
    );
    return toolSuccess(detail satisfies SkillBrowseDetailAnswer);
  },
});
