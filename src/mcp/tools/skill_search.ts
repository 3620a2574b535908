/**
 * `skill_search`: ranked search over the skills the model may invoke, for
 * catalogs too large for the model's catalog (see `src/search/`).
 *
 * @module
 */

import * as z from "zod";
import { DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT, MAX_SEARCH_QUERY_CHARS } from "../../caps.ts";
import { searchCatalog } from "../../search/search_lazy.ts";
import { skillFileUri } from "../resources/skill_uri.ts";
import { toolSuccess } from "../tool_result.ts";
import { defineTool, READ_ONLY_ANNOTATIONS } from "./tool.ts";

const inputSchema = z.object({
  query: z.string().min(1).max(MAX_SEARCH_QUERY_CHARS).refine(
    (query) => /[\p{L}\p{N}]/u.test(query),
    "must hold at least one letter or digit",
  ).describe(
    "What the task is about, in plain words (e.g. 'fill a PDF form'); any casing or accents; English word forms match (validating finds validate)",
  ),
  limit: z.number().int().min(1).max(MAX_SEARCH_LIMIT).optional().describe(
    `Results at most (default ${DEFAULT_SEARCH_LIMIT}, at most ${MAX_SEARCH_LIMIT})`,
  ),
}).strict();

const outputSchema = z.object({
  results: z.array(z.object({
    name: z.string(),
    uri: z.string().describe("The skill's SKILL.md resource URI (SEP-2640)"),
    description: z.string(),
    score: z.number().describe("Relevance; higher is better; compare within one answer only"),
    snippet: z.string().describe("Best-matching passage; matched words are wrapped in « and »"),
  })),
  total: z.number().int().describe("Skills that matched in all (results holds the best ones)"),
});

/** The JSON `skill_search` answers with. */
export type SkillSearchAnswer = z.infer<typeof outputSchema>;

/** The `skill_search` tool. */
export const skillSearchTool = defineTool({
  name: "skill_search",
  title: "Search skills",
  description: "Find the Agent Skills that fit a task, best first, among all skills this server " +
    "serves (also those not shown in your catalog). Ranked full-text search over names, " +
    "descriptions and instructions: a name or description match ranks above a match in the " +
    "instructions only; case, accents and English word forms do not matter; the last word " +
    "also matches as a prefix. Each result has the skill's name, its SKILL.md URI, its " +
    "description, a score and a snippet whose matched words are wrapped in « and ». Then call " +
    "skill_load with the name (or read the URI).",
  inputSchema,
  outputSchema,
  annotations: READ_ONLY_ANNOTATIONS,
  call: async (input, context) => {
    const catalog = context.store.current();
    const { found, total } = await searchCatalog(
      context.store,
      catalog,
      input.query,
      input.limit ?? DEFAULT_SEARCH_LIMIT,
      context.caps.maxSkillMdBytes,
    );
    const answer: SkillSearchAnswer = {
      results: found.map(({ skill, score, snippet }) => ({
        name: skill.name,
        uri: skillFileUri(skill.name, skill.skillMdFile),
        description: skill.description,
        score,
        snippet,
      })),
      total,
    };
    return toolSuccess(answer);
  },
});
