/**
 * The tools skillgate serves, in `tools/list` order. Loaded on the first
 * `tools/*` request through `loadTools` (`tools_handler.ts`), not at start-up.
 *
 * @module
 */

import { skillFileTool } from "./tools/skill_file.ts";
import { skillListTool } from "./tools/skill_list.ts";
import { skillLoadTool } from "./tools/skill_load.ts";
import { skillRunTool } from "./tools/skill_run.ts";
import { skillSearchTool } from "./tools/skill_search.ts";
import { skillBrowseTool } from "./tools/skill_browse.ts";
import { skillBrowseDetailTool } from "./tools/skill_browse_detail.ts";
import { skillSettingsTool } from "./tools/skill_settings.ts";
import { skillSettingsWriteTool } from "./tools/skill_settings_write.ts";
import type { SkillTool } from "./tools/tool.ts";

/** The tools served, in `tools/list` order. */
export const TOOLS: readonly SkillTool<unknown>[] = Object.freeze([
  skillListTool as SkillTool<unknown>,
  skillSearchTool as SkillTool<unknown>,
  skillLoadTool as SkillTool<unknown>,
  skillFileTool as SkillTool<unknown>,
  skillRunTool as SkillTool<unknown>,
  skillBrowseTool as SkillTool<unknown>,
  skillBrowseDetailTool as SkillTool<unknown>,
  skillSettingsTool as SkillTool<unknown>,
  skillSettingsWriteTool as SkillTool<unknown>,
]);
