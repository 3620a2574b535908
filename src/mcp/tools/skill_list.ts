/**
 * `skill_list`: the catalog, searchable and paged, with its roots and problems.
 *
 * @module
 */

import { join } from "node:path";
import * as z from "zod";
import {
  DEFAULT_LIST_LIMIT,
  MAX_CURSOR_CHARS,
  MAX_LIST_LIMIT,
  MAX_QUERY_CHARS,
} from "../../caps.ts";
import type { Problem } from "../../skills/problem.ts";
import type { Catalog, Skill } from "../../skills/skill.ts";
import { toolError, toolSuccess } from "../tool_result.ts";
import { catalogIndex } from "../catalog_index.ts";
import { decodeNameCursor, encodeNameCursor } from "./cursor.ts";
import {
  scriptsOverview,
  scriptsOverviewShape,
  skillScriptFields,
  skillScriptsShape,
} from "./script_summary.ts";
import type { ScriptPlan } from "../../scripts/plan.ts";
import type { ScriptService } from "../../scripts/service.ts";
import { redactGrantProblems, redactGrantStatus } from "./redact_grant.ts";
import { upperBound } from "../resources/served_file.ts";
import {
  problemsWithoutCachePaths,
  rootAsShown,
  skillSourceAsShown,
} from "./remote_cache_paths.ts";
import { problemShape } from "./shapes.ts";
import { defineTool, READ_ONLY_ANNOTATIONS } from "./tool.ts";

/** Problems included in one answer at most (errors first); `problemsTotal` counts all. */
export const MAX_PROBLEMS_PER_ANSWER = 100;

const inputSchema = z.object({
  query: z.string().max(MAX_QUERY_CHARS).optional().describe(
    "Case-insensitive text matched against skill names and descriptions",
  ),
  cursor: z.string().max(MAX_CURSOR_CHARS).optional().describe("nextCursor from the previous page"),
  limit: z.number().int().min(1).max(MAX_LIST_LIMIT).optional().describe(
    `Skills per page (default ${DEFAULT_LIST_LIMIT}, at most ${MAX_LIST_LIMIT})`,
  ),
}).strict();

const skillSummaryShape = z.object({
  name: z.string(),
  description: z.string(),
  whenToUse: z.string().optional(),
  source: z.string(),
  files: z.number().int(),
  bytes: z.number().int(),
  ...skillScriptsShape,
  /** Entries of its `mcp-host` block refused as declared (each also a `declaration` error). */
  refusedDeclarations: z.number().int().optional(),
});

const outputSchema = z.object({
  /**
   * Roots: a local one by its path (hosted: by its label, `root1`...); a remote
   * source by its spec (never its cache folder).
   */
  roots: z.array(z.object({ path: z.string(), from: z.string(), prefix: z.string().optional() })),
  hosted: z.boolean(),
  total: z.number().int(),
  skills: z.array(skillSummaryShape),
  problems: z.array(problemShape),
  problemsTotal: z.number().int(),
  nextCursor: z.string().optional(),
  /** Why no script runs on this server at all (e.g. HTTP without a token), when so. */
  scriptsRefused: z.string().optional(),
  ...scriptsOverviewShape,
});

/** The JSON `skill_list` answers with. */
export type SkillListAnswer = z.infer<typeof outputSchema>;

/** The `skill_list` tool. */
export const skillListTool = defineTool({
  name: "skill_list",
  title: "List skills",
  description:
    "List the Agent Skills this server serves: name, description, source and size of each, " +
    "plus any problems found in the skill folders. Always reflects the current catalog " +
    "(skills added or edited since the session started included). Use `query` to filter " +
    "names and descriptions by substring (skill_search ranks skills by relevance instead); " +
    "page with `cursor`. Then call skill_load with a name.",
  inputSchema,
  outputSchema,
  annotations: READ_ONLY_ANNOTATIONS,
  call: (input, context) => {
    const catalog = context.store.current();
    let after: string | null = null;
    if (input.cursor !== undefined) {
      after = decodeNameCursor("skill_list", input.cursor);
      if (after === null) {
        return Promise.resolve(toolError(
          "INVALID_ARGUMENTS",
          "The cursor is not one this server issued",
          "Pass back a page's nextCursor exactly as received, or call skill_list without a " +
            "cursor to start from the first page",
        ));
      }
    }
    return Promise.resolve(
      toolSuccess(listSkills(catalog, {
        query: input.query ?? "",
        after,
        limit: input.limit ?? DEFAULT_LIST_LIMIT,
        hosted: context.hosted,
        ...(context.scripts === undefined ? {} : { scripts: context.scripts }),
        ...(context.runRefusal == null ? {} : { runRefusal: context.runRefusal.message }),
      })),
    );
  },
});

/**
 * Builds one page of `skill_list` from a snapshot. Pure.
 *
 * @param catalog The snapshot.
 * @param options `query` (case-insensitive substring of name or description,
 *   "" for all), `after` (continue after this name, or null), `limit` (1-1000),
 *   whether the server is hosted, the script service (adds the grant,
 *   environ and isolation, each skill's scripts, and grant problems), and
 *   `isOwnerView` (default false: the answer goes to a client, so grant
 *   problems and the grant's error carry a generic detail that names no row,
 *   skill, script or environment name; true only for the owner's own
 *   terminal, `skillgate list`), `runRefusal`: why `skill_run` refuses
 *   every call on this server (then no skill is `executable` and the answer
 *   carries `scriptsRefused`), and `maxProblems`: problems included at most
 *   (default {@linkcode MAX_PROBLEMS_PER_ANSWER}; `Infinity` for all).
 * @returns The answer; `nextCursor` is present when more skills match.
 *
 * Source: house style ("client-facing errors never echo allow-lists or
 * secrets") for the redaction.
 */
export function listSkills(
  catalog: Catalog,
  options: {
    query: string;
    after: string | null;
    limit: number;
    hosted: boolean;
    scripts?: ScriptService;
    isOwnerView?: boolean;
    runRefusal?: string;
    maxProblems?: number;
  },
): SkillListAnswer {
  const plan = options.scripts?.plan(catalog);
  const isOwnerView = options.isOwnerView === true;
  const all = plan === undefined ? catalog.problems : [...catalog.problems, ...plan.problems];
  // A client sees a remote root by its spec, and hosted a local root by its label, in its
  // problems too (never a cache folder or a host folder); the owner sees the paths.
  const shownAs = { hosted: options.hosted && !isOwnerView };
  const problems = isOwnerView
    ? all
    : problemsWithoutCachePaths(redactGrantProblems(all, plan?.grant), catalog.roots, shownAs);
  const needle = options.query.toLowerCase();
  // One pass over the snapshot's precomputed lowercase names and descriptions.
  const index = catalogIndex(catalog);
  let matching: readonly Skill[] = catalog.skills;
  if (needle !== "") {
    const found: Skill[] = [];
    for (let position = 0; position < index.all.lowerNames.length; position++) {
      if (
        (index.all.lowerNames[position] as string).includes(needle) ||
        (index.lowerDescriptions[position] as string).includes(needle)
      ) found.push(catalog.skills[position] as Skill);
    }
    matching = found;
  }
  const after = options.after;
  const start = after === null ? 0 : upperBound(matching, after, (skill) => skill.name);
  const page = matching.slice(start, start + options.limit);
  // With scripts: how many `mcp-host` entries each SKILL.md had refused (declaration errors).
  const refusedBySkillMd = plan === undefined ? undefined : declarationErrors(catalog.problems);
  const answer: SkillListAnswer = {
    roots: catalog.roots.map((root, index) => ({
      path: rootAsShown(root, index, shownAs),
      from: root.from,
      ...(root.prefix === undefined ? {} : { prefix: root.prefix }),
    })),
    hosted: options.hosted,
    total: matching.length,
    skills: page.map((skill) => {
      const summary = summarise(skill, plan, options.scripts?.facts.isolation.mode);
      summary.source = skillSourceAsShown(skill, catalog.roots, shownAs);
      const refused = refusedBySkillMd?.get(join(skill.dir, skill.skillMdFile)) ?? 0;
      if (refused > 0) summary.refusedDeclarations = refused;
      return options.runRefusal === undefined ? summary : { ...summary, executable: false };
    }),
    problems: pickProblems(problems, options.maxProblems ?? MAX_PROBLEMS_PER_ANSWER),
    problemsTotal: problems.length,
    ...(options.scripts === undefined || plan === undefined ? {} : {
      ...scriptsOverview(options.scripts, plan),
      ...(isOwnerView ? {} : { grant: redactGrantStatus(plan.grant) }),
    }),
  };
  if (options.runRefusal !== undefined) answer.scriptsRefused = options.runRefusal;
  const last = page.at(-1);
  if (last !== undefined && start + page.length < matching.length) {
    answer.nextCursor = encodeNameCursor("skill_list", last.name);
  }
  return answer;
}

function summarise(
  skill: Skill,
  plan: ScriptPlan | undefined,
  mode: "sandbox" | "pid-namespace" | "process-group" | undefined,
): SkillListAnswer["skills"][number] {
  const summary: SkillListAnswer["skills"][number] = {
    name: skill.name,
    description: skill.description,
    source: skill.source ?? skill.root,
    files: skill.files.length,
    bytes: skill.bytes,
    ...(plan === undefined ? {} : skillScriptFields(skill, plan, mode)),
  };
  if (skill.whenToUse !== undefined) summary.whenToUse = skill.whenToUse;
  return summary;
}

/** Error-severity `declaration` problems, counted by the SKILL.md path they point at. */
function declarationErrors(problems: readonly Problem[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const problem of problems) {
    if (problem.reason !== "declaration" || problem.severity !== "error") continue;
    counts.set(problem.path, (counts.get(problem.path) ?? 0) + 1);
  }
  return counts;
}

function pickProblems(problems: readonly Problem[], maxProblems: number): Problem[] {
  const errors = problems.filter((problem) => problem.severity === "error");
  const warnings = problems.filter((problem) => problem.severity !== "error");
  return [...errors, ...warnings].slice(0, maxProblems);
}
