/**
 * `skill_browse`: opens the skills view (MCP Apps) on the catalog, or on the
 * skills a query finds (ranked by the same engine as `skill_search`). Its
 * answer is what the view renders: each skill's description, problems and
 * size, the catalog's problems, the roots, and the remote sources with their
 * sync state. The view then reads a skill's SKILL.md and files with the
 * app-only `skill_browse_detail` (not `skill_load`, which `--tools` may withdraw).
 *
 * @module
 */

import * as z from "zod";
import { MAX_SEARCH_LIMIT, MAX_SEARCH_QUERY_CHARS } from "../../caps.ts";
import { searchCatalog } from "../../search/search_lazy.ts";
import type { Problem } from "../../skills/problem.ts";
import type { Catalog, Skill } from "../../skills/skill.ts";
import { appToolMeta, SKILLS_VIEW_URI } from "../apps/app_meta.ts";
import { isInModelCatalog } from "../model_catalog/model_catalog.ts";
import { isUserInvocable } from "../prompts/prompt_skills.ts";
import { toolSuccess } from "../tool_result.ts";
import { problemShape } from "./shapes.ts";
import { listSkills, MAX_PROBLEMS_PER_ANSWER } from "./skill_list.ts";
import { remoteCachePathsAsSpecs, skillSourceAsShown } from "./remote_cache_paths.ts";
import { defineTool, READ_ONLY_ANNOTATIONS } from "./tool.ts";

/** Skills one answer shows at most (a query narrows; `total` counts all). */
export const MAX_BROWSE_SKILLS = 500;

const inputSchema = z.object({
  query: z.string().max(MAX_SEARCH_QUERY_CHARS).optional().describe(
    "Optional: what to look for, in plain words; the view then shows the skills skill_search " +
      "finds, best first",
  ),
}).strict();

/** Problems one skill of a `skill_browse` answer shows at most (errors first); `problemsTotal` counts all. */
export const MAX_BROWSE_PROBLEMS_PER_SKILL = 20;

const sourceShape = z.object({
  spec: z.string().describe("The source as configured (github:OWNER/REPO[/PATH][@REF])"),
  prefix: z.string().optional(),
  state: z.enum(["synced", "stale", "unavailable"]).describe(
    "synced: served from its pinned or latest copy; stale: served from an older good copy; " +
      "unavailable: nothing served yet",
  ),
  notes: z.array(problemShape),
});

const outputSchema = z.object({
  query: z.string().optional(),
  total: z.number().int().describe("Skills that match (all skills without a query)"),
  skills: z.array(z.object({
    name: z.string(),
    description: z.string(),
    whenToUse: z.string().optional(),
    source: z.string(),
    files: z.number().int(),
    bytes: z.number().int(),
    hiddenFromModel: z.boolean(),
    hasPrompt: z.boolean(),
    problems: z.array(problemShape).describe(
      `This skill's problems, errors first, at most ${MAX_BROWSE_PROBLEMS_PER_SKILL}`,
    ),
    problemsTotal: z.number().int().describe("This skill's problems in all"),
  })),
  problems: z.array(problemShape),
  problemsTotal: z.number().int(),
  roots: z.array(z.object({ path: z.string(), from: z.string(), prefix: z.string().optional() })),
  sources: z.array(sourceShape),
});

/** The JSON `skill_browse` answers with. */
export type SkillBrowseAnswer = z.infer<typeof outputSchema>;

/** The `skill_browse` tool. */
export const skillBrowseTool = defineTool({
  name: "skill_browse",
  title: "Browse skills",
  description: "Show the user the Agent Skills this server serves, in an interactive view: " +
    "the catalog with search, each skill's description, problems and files, its SKILL.md " +
    "rendered, and the remote sources with their sync state. Pass `query` to open it on the " +
    "skills a search finds. For your own use, prefer skill_search and skill_load.",
  inputSchema,
  outputSchema,
  annotations: READ_ONLY_ANNOTATIONS,
  _meta: appToolMeta(SKILLS_VIEW_URI),
  call: async (input, context) => {
    const catalog = context.store.current();
    const query = input.query?.trim() ?? "";
    let chosen: readonly Skill[] = catalog.skills;
    let total = catalog.skills.length;
    if (/[\p{L}\p{N}]/u.test(query)) {
      const results = await searchCatalog(context.store, catalog, query, MAX_SEARCH_LIMIT);
      chosen = results.found.map((found) => found.skill);
      total = results.total;
    }
    return toolSuccess(browseAnswer(catalog, chosen, total, {
      hosted: context.hosted,
      ...(query === "" ? {} : { query }),
    }));
  },
});

/**
 * Builds the answer for the chosen skills. Pure.
 *
 * @param catalog The snapshot.
 * @param chosen The skills to show, in order (at most {@linkcode MAX_BROWSE_SKILLS} are kept).
 * @param total How many matched in all.
 * @param options Whether the server is hosted, and the query when one was given.
 * @returns The answer.
 */
export function browseAnswer(
  catalog: Catalog,
  chosen: readonly Skill[],
  total: number,
  options: { hosted: boolean; query?: string },
): SkillBrowseAnswer {
  // skill_list's answer gives the redacted problems and the roots as clients see them.
  const listed = listSkills(catalog, {
    query: "",
    after: null,
    limit: 1,
    hosted: options.hosted,
    maxProblems: Infinity,
  });
  const problems = listed.problems as Problem[];
  const shown = chosen.slice(0, MAX_BROWSE_SKILLS);
  // The listed problems name a remote skill's folder by its source's spec, as here.
  const shownAs = { hosted: options.hosted };
  const problemsOf = problemsBySkill(
    problems,
    shown,
    remoteCachePathsAsSpecs(catalog.roots, shownAs),
  );
  return {
    ...(options.query === undefined ? {} : { query: options.query }),
    total,
    skills: shown.map((skill) => ({
      name: skill.name,
      description: skill.description,
      ...(skill.whenToUse === undefined ? {} : { whenToUse: skill.whenToUse }),
      source: skillSourceAsShown(skill, catalog.roots, shownAs),
      files: skill.files.length,
      bytes: skill.bytes,
      hiddenFromModel: !isInModelCatalog(skill),
      hasPrompt: isUserInvocable(skill),
      problems: problemsOf.get(skill)?.shown ?? [],
      problemsTotal: problemsOf.get(skill)?.total ?? 0,
    })),
    problems: problems.slice(0, MAX_PROBLEMS_PER_ANSWER),
    problemsTotal: problems.length,
    roots: listed.roots,
    sources: catalog.roots.filter((root) => root.from === "remote").map((root) => {
      const notes = [...root.notes ?? []];
      const isStale = notes.some((note) => note.reason === "remote-stale");
      return {
        spec: root.source ?? root.path,
        ...(root.prefix === undefined ? {} : { prefix: root.prefix }),
        state: root.isUnavailable === true ? "unavailable" : isStale ? "stale" : "synced",
        notes,
      };
    }),
  };
}

/**
 * Each shown skill's problems: those whose path is the skill's folder or lies
 * in it (as discovered, under its root), or is its name; in the catalog's
 * order, at most MAX_BROWSE_PROBLEMS_PER_SKILL (20) each, with how many in
 * all (the answer states a cut, never silent). One pass over the
 * problems, each looked up by its path's ancestors in an index of the
 * folders: a scan of every problem for every skill blocked the worker about
 * 1 s per call at 10,000 skills and 20,000 problems (issue 11: a lookup is
 * an index, not a scan).
 *
 * @param problems The catalog's problems, as the client may see them.
 * @param shown The skills of the answer (at most MAX_BROWSE_SKILLS).
 * @param folderAsShown A skill's folder as the problems name it (a remote
 *   root's cache folder by its spec, `remote_cache_paths.ts`). @default as is
 * @returns Problems by skill: `shown` (at most 20) and `total`; a skill
 *   without any is absent.
 */
export function problemsBySkill(
  problems: readonly Problem[],
  shown: readonly Skill[],
  folderAsShown: (folder: string) => string = (folder) => folder,
): Map<Skill, { shown: Problem[]; total: number }> {
  const byFolder = new Map<string, Skill[]>();
  const byName = new Map<string, Skill[]>();
  const add = (index: Map<string, Skill[]>, key: string, skill: Skill) => {
    const list = index.get(key);
    if (list === undefined) index.set(key, [skill]);
    else list.push(skill);
  };
  for (const skill of shown) {
    add(byFolder, folderAsShown(skill.dir).replace(/\/+$/, ""), skill);
    add(byName, skill.name, skill);
  }
  const found = new Map<Skill, { shown: Problem[]; total: number }>();
  for (const problem of problems) {
    const about = new Set<Skill>(byName.get(problem.path));
    let path = problem.path;
    for (;;) {
      for (const skill of byFolder.get(path) ?? []) about.add(skill);
      const cut = path.lastIndexOf("/");
      if (cut < 0) break;
      path = path.slice(0, cut);
    }
    for (const skill of about) {
      const list = found.get(skill);
      if (list === undefined) found.set(skill, { shown: [problem], total: 1 });
      else {
        list.total++;
        if (list.shown.length < MAX_BROWSE_PROBLEMS_PER_SKILL) list.shown.push(problem);
      }
    }
  }
  return found;
}
