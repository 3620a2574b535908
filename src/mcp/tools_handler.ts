/**
 * Serves `tools/list` and `tools/call` for a set of {@linkcode SkillTool}s on
 * the SDK's low-level server.
 *
 * @module
 */

import * as z from "zod";
import { ProtocolError, ProtocolErrorCode, type Server, type Tool } from "./sdk.ts";
import { handlerExtra } from "./handler_extra.ts";
import { declaredCapabilities, inputRoundOf } from "./elicitation/input_round.ts";
import { httpRunRefusal } from "../transports/http/http_run_refusal.ts";
import type { MethodFamily } from "./family.ts";
import { createToolOffer, type ToolOffer, toolsMayChange } from "./model_catalog/tool_offer.ts";
import { toolCallExtra } from "./tool_call_extra.ts";
import { assertClientString } from "./client_strings.ts";
import { toolError } from "./tool_result.ts";
import type { SkillTool, ToolCallExtra, ToolContext } from "./tools/tool.ts";
import { describeError, logErrorLine } from "../cli/terminal_text.ts";

/**
 * The tools served, in `tools/list` order, loaded on the first `tools/*`
 * request: their modules (zod schemas, the script runner's planning, the
 * views' shapes) are not needed to answer `initialize` (issue 13: the first
 * answer after spawn pays only for what it needs). Loaded once per process.
 *
 * @returns {@linkcode import("./tool_list.ts").TOOLS}.
 */
export function loadTools(): Promise<readonly SkillTool<unknown>[]> {
  toolList ??= import("./tool_list.ts").then((module) => module.TOOLS);
  return toolList;
}

let toolList: Promise<readonly SkillTool<unknown>[]> | null = null;

/** The tools family: `tools/list` and `tools/call` over the tools of {@linkcode loadTools}. */
export const toolsFamily: MethodFamily = {
  name: "tools",
  capabilities: (context) => ({ tools: { listChanged: toolsMayChange(context) } }),
  install: (server, context) =>
    serveTools(server, loadTools, {
      store: context.store,
      caps: context.config.caps,
      hosted: context.config.hosted,
      ...(context.scripts === undefined ? {} : { scripts: context.scripts }),
      runRefusal: httpRunRefusal(context.config),
      config: context.config,
      ...(context.writeOverride === undefined ? {} : { writeOverride: context.writeOverride }),
    }, createToolOffer(server, context)),
};

/**
 * Registers the tool handlers. A tool's arguments are parsed with its zod
 * schema; a failure is a tool error `INVALID_ARGUMENTS` (MCP 2025-11-25: bad
 * tool input is a tool error, not a protocol error), built like every other
 * result by `src/mcp/tool_result.ts` (no `structuredContent` on errors, so
 * no client validates an error against the success `outputSchema`). An unknown tool name is
 * a protocol error -32602. A handler that throws becomes a tool error
 * `INTERNAL` whose message carries no host detail.
 *
 * @param server The low-level SDK server (capability `tools` declared).
 * @param toolsOrLoad The tools, in `tools/list` order, or a function that loads them
 *   (called once, on the first `tools/list` or `tools/call`).
 * @param context What handlers receive.
 * @param offer Which tools this server offers now and how they are described
 *   (`--tools`, `--catalog`); every tool, as declared, when absent.
 */
export function serveTools(
  server: Server,
  toolsOrLoad: readonly SkillTool<unknown>[] | (() => Promise<readonly SkillTool<unknown>[]>),
  context: ToolContext,
  offer?: ToolOffer,
): void {
  let loaded: Promise<readonly SkillTool<unknown>[]> | null = null;
  const toolsNow = () =>
    loaded ??= typeof toolsOrLoad === "function" ? toolsOrLoad() : Promise.resolve(toolsOrLoad);
  server.setRequestHandler("tools/list", async (_request, io) => {
    const listed = (await toolsNow()).map(listedTool);
    return {
      tools: offer === undefined ? listed : listed
        .filter((tool) => offer.isOffered(tool.name, declaredCapabilities(io)))
        .map((tool) => ({
          ...tool,
          description: offer.describe(tool.name, tool.description ?? "", declaredCapabilities(io)),
        })),
    };
  });
  server.setRequestHandler("tools/call", async (request, io) => {
    assertClientString("tool", "The tool name", request.params.name);
    const tool = (await toolsNow()).find((candidate) =>
      candidate.name === request.params.name &&
      (offer?.isOffered(candidate.name, declaredCapabilities(io)) ?? true)
    );
    if (tool === undefined) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Unknown tool "${request.params.name}"; call tools/list for the tools served`,
      );
    }
    const parsed = tool.inputSchema.safeParse(request.params.arguments ?? {});
    if (!parsed.success) {
      return toolError(
        "INVALID_ARGUMENTS",
        `Invalid arguments for ${tool.name}: ${describeIssues(parsed.error)}`,
        `Check the input schema of ${tool.name} in tools/list and call it again`,
      );
    }
    // The script facts (the isolation shown and used) may still be probed after the first
    // answer (a grant that lets nothing run, issue 13): every tool call waits for them.
    await context.scripts?.whenSettled();
    try {
      const round = inputRoundOf(io);
      const extra = toolCallExtra(
        server,
        { progressToken: request.params._meta?.progressToken },
        handlerExtra(io),
      );
      // 2026-07-28: ask through input_required, never through elicitation/create.
      return await tool.call(
        parsed.data,
        context,
        round === undefined ? extra : { ...withoutAskUser(extra), inputRound: round },
      );
    } catch (error) {
      logErrorLine(`skillgate: ${tool.name} failed: ${describeError(error)}`);
      return toolError(
        "INTERNAL",
        `${tool.name} failed unexpectedly`,
        "Try again; if it keeps failing, report it to the server's owner",
      );
    }
  });
}

/** Each tool's `tools/list` entry, built once per process, not once per server. */
/** The extra without elicitation (a 2026-07-28 request has no server-to-client requests). */
function withoutAskUser(extra: ToolCallExtra): ToolCallExtra {
  const { askUser: _askUser, ...rest } = extra;
  return rest;
}

const listings = new WeakMap<SkillTool<unknown>, Tool>();

/**
 * A tool as `tools/list` shows it: its JSON schemas (computed once; a server
 * is built per HTTP session and per stateless request) and its annotations,
 * whose `title` is the tool's own.
 *
 * @param tool One of the served tools.
 * @returns Its frozen `tools/list` entry (draft-7 JSON schemas, no `$schema`).
 */
export function listedTool(tool: SkillTool<unknown>): Tool {
  let listed = listings.get(tool);
  if (listed === undefined) {
    listed = Object.freeze({
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: toJsonSchema(tool.inputSchema, "input") as Tool["inputSchema"],
      outputSchema: toJsonSchema(tool.outputSchema, "output") as NonNullable<
        Tool["outputSchema"]
      >,
      annotations: { ...tool.annotations, title: tool.title },
      ...(tool._meta === undefined ? {} : { _meta: structuredClone(tool._meta) }),
    });
    listings.set(tool, listed);
  }
  return listed;
}

function toJsonSchema(schema: z.ZodType, io: "input" | "output"): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { target: "draft-7", io }) as Record<
    string,
    unknown
  >;
  delete json.$schema;
  return json;
}

function describeIssues(error: z.ZodError): string {
  return error.issues.slice(0, 5).map((issue) => {
    const [path, deepest] = unionBranchIssue(issue.path, issue);
    const where = path.length === 0 ? "arguments" : path.join(".");
    return `${where}: ${issueMessage(deepest)}`;
  }).join("; ");
}

type Issue = z.ZodError["issues"][number];

/**
 * For a value that matched no branch of a union (`paths` items are a string
 * or `{path, offset, length}`), the issue of the branch that got furthest
 * (its deepest path), with the full path to it: review n8, `{path, offset:
 * 1.5}` was answered "paths.0: Invalid input", naming neither the field nor
 * the rule.
 */
function unionBranchIssue(
  path: readonly PropertyKey[],
  issue: Issue,
): [readonly PropertyKey[], Issue] {
  if (issue.code !== "invalid_union" || !Array.isArray(issue.errors)) return [path, issue];
  let best: Issue | null = null;
  for (const branch of issue.errors as Issue[][]) {
    for (const candidate of branch) {
      if (best === null || candidate.path.length > best.path.length) best = candidate;
    }
  }
  if (best === null || best.path.length === 0) return [path, issue];
  return unionBranchIssue([...path, ...best.path], best);
}

/** An issue's message, with a whole-number rule said plainly. */
function issueMessage(issue: Issue): string {
  if (issue.code === "invalid_type" && issue.expected === "int") {
    return "must be a whole number (no fraction)";
  }
  return issue.message;
}
