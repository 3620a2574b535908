/**
 * `skill_settings`: opens the settings view (MCP Apps) on every skill the
 * roots hold (disabled ones included; one the owner disabled without its
 * description), with each switch as it is in force,
 * who turned it off (the skill's frontmatter, the owner, or a view), and
 * whether a view may change it. Roots and sources are never added from a
 * view: the answer carries the exact command and configuration lines the
 * owner can use instead.
 *
 * @module
 */

import * as z from "zod";
import type { Config } from "../../config/config.ts";
import { OVERRIDE_SWITCHES, type OverrideSwitch, ownEntry } from "../../skills/overrides.ts";
import type { Skill } from "../../skills/skill.ts";
import { appToolMeta, SETTINGS_VIEW_URI } from "../apps/app_meta.ts";
import { toolSuccess } from "../tool_result.ts";
import { confirmationRefusal, settingsRefusal } from "./settings_guard.ts";
import { skillSourceAsShown } from "./remote_cache_paths.ts";
import { defineTool, READ_ONLY_ANNOTATIONS, type ToolCallExtra, type ToolContext } from "./tool.ts";

/** Skills one answer shows at most. */
export const MAX_SETTINGS_SKILLS = 2_000;

const switchShape = z.object({
  on: z.boolean().describe("Whether the switch is on as served now"),
  offBy: z.enum(["frontmatter", "owner", "view"]).optional().describe(
    "Who turned it off: the skill's own frontmatter, the owner (overrides.json by hand or " +
      "skillgate override), or a settings view",
  ),
  canTurnOn: z.boolean().describe(
    "Whether a view may turn it back on (only what a view turned off)",
  ),
});

const outputSchema = z.object({
  writable: z.boolean().describe("Whether this server takes writes from the view"),
  refusal: z.string().optional().describe("Why it does not, when so"),
  total: z.number().int(),
  skills: z.array(z.object({
    name: z.string(),
    description: z.string().describe(
      "The skill's description; empty for a skill the owner disabled (served by no door)",
    ),
    source: z.string(),
    enabled: switchShape,
    modelInvocable: switchShape,
    userInvocable: switchShape,
  })),
  addRoot: z.array(z.string()).describe(
    "How the owner adds a folder of skills (never from a view)",
  ),
  addSource: z.array(z.string()).describe(
    "How the owner adds a remote source (never from a view)",
  ),
});

/** One switch as the view shows it. */
type SwitchState = z.infer<typeof switchShape>;

/** The JSON `skill_settings` answers with. */
export type SkillSettingsAnswer = z.infer<typeof outputSchema>;

/** The `skill_settings` tool. */
export const skillSettingsTool = defineTool({
  name: "skill_settings",
  title: "Skill settings",
  description: "Show the user a settings view where they can disable a skill, hide it from " +
    "the model, or drop its prompt (written to skillgate's overrides.json after they confirm). " +
    "Call it only when the user asks to change which skills are served.",
  inputSchema: z.object({}).strict(),
  outputSchema,
  annotations: READ_ONLY_ANNOTATIONS,
  _meta: appToolMeta(SETTINGS_VIEW_URI),
  call: (_input, context, extra) => Promise.resolve(toolSuccess(settingsAnswer(context, extra))),
});

/**
 * The settings as a view shows them. Pure over the store's snapshot.
 *
 * @param context The tool context (store, configuration, writer).
 * @param extra The call's extra: a client that cannot ask the user is shown
 *   the view as not writable. @default not known (the server's refusal only)
 * @returns The answer.
 */
export function settingsAnswer(context: ToolContext, extra?: ToolCallExtra): SkillSettingsAnswer {
  const base = context.store.base();
  const overlay = context.store.overlay();
  const refusal = settingsRefusal(context) ?? confirmationRefusal(extra);
  return {
    writable: refusal === null,
    ...(refusal === null ? {} : { refusal: refusal.message }),
    total: base.skills.length,
    skills: base.skills.slice(0, MAX_SETTINGS_SKILLS).map((skill) => {
      const state = (key: OverrideSwitch): SwitchState => {
        const isOffByOverride = ownEntry(overlay.overrides, skill.name)?.[key] === false;
        const isViews = ownEntry(overlay.setByView ?? {}, skill.name)?.includes(key) === true;
        const isOffInFrontmatter = frontmatterTurnsOff(skill, key);
        const offBy: SwitchState["offBy"] = isOffByOverride
          ? (isViews ? "view" : "owner")
          : isOffInFrontmatter
          ? "frontmatter"
          : undefined;
        return {
          on: offBy === undefined,
          ...(offBy === undefined ? {} : { offBy }),
          canTurnOn: offBy === "view" && !isOffInFrontmatter,
        };
      };
      const switches = Object.fromEntries(
        OVERRIDE_SWITCHES.map((key) => [key, state(key)]),
      ) as Record<OverrideSwitch, SwitchState>;
      return {
        name: skill.name,
        // A skill the owner disabled is served by no door: its name and switches say what the
        // view needs, its description (skill content, which this model-visible answer would
        // put before the model) is withheld. What a view disabled keeps it, to be turned on.
        description: switches.enabled.offBy === "owner" ? "" : skill.description,
        source: skillSourceAsShown(skill, base.roots, { hosted: context.hosted }),
        ...switches,
      };
    }),
    ...ownerLines(context.config),
  };
}

/**
 * Whether the skill's own frontmatter switches this off (no override can turn it on).
 *
 * @param skill The skill.
 * @param key The switch.
 * @returns True for `disable-model-invocation: true` (modelInvocable) and
 *   `user-invocable: false` (userInvocable).
 */
export function frontmatterTurnsOff(skill: Skill, key: OverrideSwitch): boolean {
  if (key === "modelInvocable") return skill.frontmatter["disable-model-invocation"] === true;
  if (key === "userInvocable") return skill.frontmatter["user-invocable"] === false;
  return false;
}

/** The owner's own ways to add a root or a source (the view only shows them). */
function ownerLines(config: Config | undefined): { addRoot: string[]; addSource: string[] } {
  const hosted = config?.hosted === true;
  return {
    addRoot: hosted ? ["The host decides the roots (MCP_SKILLS_PATH); ask the host's operator"] : [
      "skillgate serve /path/to/skills   (a folder as an argument; repeat for more)",
      `In skillgate's config.json: "roots": ["/path/to/skills"]`,
      "Then restart skillgate: new roots are read only at start",
    ],
    addSource: hosted
      ? ["The host decides the sources (SKILLGATE_SOURCES); ask the host's operator"]
      : [
        "skillgate sync --source=github:OWNER/REPO/PATH@REF --github-allow=OWNER",
        `In skillgate's config.json: "source": ["github:OWNER/REPO/PATH@REF"], ` +
        `"githubAllow": ["OWNER"]`,
        "skillgate sync --source=https://HOST/.well-known/agent-skills/ " +
        "--well-known-allow=https://HOST   (a publisher)",
        `In skillgate's config.json: "source": ["https://HOST/.well-known/agent-skills/"], ` +
        `"wellKnownAllow": ["https://HOST"]`,
        "Then restart skillgate: new sources are served only after a restart",
      ],
  };
}
