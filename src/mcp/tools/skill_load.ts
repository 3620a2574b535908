/**
 * `skill_load`: a skill's instructions (the SKILL.md body, verbatim) and the
 * manifest of its files. Referenced files are not inlined: the model reads
 * them with `skill_file` when it needs them (progressive disclosure, Agent
 * Skills spec).
 *
 * @module
 */

import { remoteCachePathsAsSpecs, skillSourceAsShown } from "./remote_cache_paths.ts";
import * as z from "zod";
import type { Skill } from "../../skills/skill.ts";
import { readSkillBody } from "../../skills/skill_body.ts";
import { toolSuccess } from "../tool_result.ts";
import { MAX_CLIENT_NAME_CHARS } from "../../caps.ts";
import { isSkill, lookUpSkill } from "./lookup.ts";
import { loadedScripts, loadedScriptShape } from "./script_summary.ts";
import { unreadableBodyError } from "./unreadable_body.ts";
import { defineTool, READ_ONLY_ANNOTATIONS } from "./tool.ts";

const inputSchema = z.object({
  name: z.string().min(1).max(MAX_CLIENT_NAME_CHARS).describe(
    "The skill's name, as skill_list shows it",
  ),
}).strict();

const outputSchema = z.object({
  name: z.string(),
  description: z.string(),
  whenToUse: z.string().optional(),
  source: z.string(),
  body: z.string(),
  truncated: z.boolean(),
  truncationNote: z.string().optional(),
  files: z.array(z.object({ path: z.string(), size: z.number().int() })),
  /** Declared scripts and whether each can run here (absent where no script service runs). */
  scripts: z.array(loadedScriptShape).optional(),
});

/** The JSON `skill_load` answers with. */
export type SkillLoadAnswer = z.infer<typeof outputSchema>;

/** The `skill_load` tool. */
export const skillLoadTool = defineTool({
  name: "skill_load",
  title: "Load a skill",
  description:
    "Load a skill's instructions: the body of its SKILL.md, verbatim, and the list of its " +
    "files. Follow the instructions; when they refer to a file (references/, scripts/, " +
    "assets/...), read it with skill_file. Get names from skill_list.",
  inputSchema,
  outputSchema,
  annotations: READ_ONLY_ANNOTATIONS,
  call: async (input, context) => {
    const catalog = context.store.current();
    const found = lookUpSkill(catalog, input.name);
    if (!isSkill(found)) return found;
    // The catalog holds no bodies (issue 13): read this one now, through the gate.
    const read = await readSkillBody(found, context.caps.maxSkillMdBytes);
    // Hosted, a root is a host folder: named by its label, as skill_list names it.
    const shownAs = { hosted: context.hosted };
    const asShown = remoteCachePathsAsSpecs(catalog.roots, shownAs);
    if (!read.ok) {
      return unreadableBodyError(
        found,
        read,
        asShown,
        "The skill changed on disk; call skill_list to see the catalog as it is now",
      );
    }
    const answer = loadSkill(found, read, skillSourceAsShown(found, catalog.roots, shownAs));
    if (context.scripts !== undefined) {
      answer.scripts = loadedScripts(found, context.scripts.plan(catalog));
    }
    return toolSuccess(answer);
  },
});

/**
 * Builds the `skill_load` answer for a skill. Pure.
 *
 * @param skill The skill from the current snapshot.
 * @param read Its body as read now (`readSkillBody`), whether it was cut and,
 *   if so, the byte offset in SKILL.md where the read ended (0 when unknown).
 * @param source The skill's source as the client sees it (see
 *   `skillSourceAsShown()`: hosted, a root's label). @default the remote spec, else the root's path
 * @returns The answer; `truncationNote` says how to read the rest when the
 *   body was cut at the SKILL.md read cap.
 */
export function loadSkill(
  skill: Skill,
  read: { readonly body: string; readonly truncated: boolean; readonly nextOffset?: number },
  source: string = skill.source ?? skill.root,
): SkillLoadAnswer {
  const answer: SkillLoadAnswer = {
    name: skill.name,
    description: skill.description,
    source,
    body: read.body,
    truncated: read.truncated,
    files: skill.files.map((file) => ({ path: file.path, size: file.size })),
  };
  if (skill.whenToUse !== undefined) answer.whenToUse = skill.whenToUse;
  if (read.truncated) {
    answer.truncationNote = `${skill.skillMdFile} is ${skill.skillMdBytes} bytes, more than ` +
      `this server reads for instructions, so the body is cut. Read the rest with skill_file ` +
      JSON.stringify({
        name: skill.name,
        paths: [{ path: skill.skillMdFile, offset: read.nextOffset ?? 0 }],
      });
  }
  return answer;
}
