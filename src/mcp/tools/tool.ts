/**
 * The shape of one MCP tool: its advertised metadata, zod schemas for input
 * and output, and the handler. Tools are served by `src/mcp/tools_handler.ts`
 * through the SDK's low-level server, so that argument errors come back in our
 * `{error, message, hint}` shape instead of the SDK's plain text.
 *
 * @module
 */

import type * as z from "zod";
import type { Caps } from "../../caps.ts";
import type { ScriptService } from "../../scripts/service.ts";
import type { CatalogStore } from "../../skills/catalog_store.ts";
import type { Config } from "../../config/config.ts";
import type { OverrideWriter } from "../../sandbox/override_write_client.ts";
import type { InputRequiredResult, ToolAnnotations } from "../sdk.ts";
import type { ToolResult } from "../tool_result.ts";
import type { ConfirmationWords } from "../elicitation/run_confirmation.ts";

/** What every tool handler may use. */
export interface ToolContext {
  readonly store: CatalogStore;
  readonly caps: Caps;
  readonly hosted: boolean;
  /** Script running (`skill_run`); absent where this server runs no scripts. */
  readonly scripts?: ScriptService;
  /**
   * Why `skill_run` must refuse on this server whatever the skill, or null:
   * HTTP without a bearer token, or stateless HTTP replicas without a shared
   * `MCP_CONFIRM_SECRET` (see `src/transports/http/http_run_refusal.ts`).
   */
  readonly runRefusal?: { readonly message: string; readonly hint: string } | null;
  /** The configuration (the views read roots, sources and options from it). */
  readonly config?: Config;
  /** Asks the trusted part to set one override switch (`skill_settings_write`). */
  readonly writeOverride?: OverrideWriter;
}

/** How the user answered a confirmation request. */
export type UserAnswer = "accept" | "decline" | "cancel";

/**
 * A 2026-07-28 request's multi-round-trip input (src/mcp/elicitation/input_round.ts).
 */
export interface InputRound {
  /** The `requestState` the client echoed on this retry: untrusted, raw. */
  readonly state?: string;
  /** The user's answer to our confirmation request, when the retry carries one. */
  readonly answer?: UserAnswer;
  /** Whether the request's `_meta` envelope declared elicitation. */
  readonly canElicit: boolean;
  /**
   * Builds the `input_required` result asking `message`, carrying `requestState`;
   * `words` name the form's checkbox (default: the run confirmation's).
   */
  ask(message: string, requestState: string, words?: ConfirmationWords): InputRequiredResult;
}

/** What one tool call may use besides its arguments (see `src/mcp/tool_call_extra.ts`). */
export interface ToolCallExtra {
  /** Aborted when the client cancels the request. */
  readonly signal?: AbortSignal;
  /** Present when the client sent a progress token. */
  readonly sendProgress?: (progress: number, message: string) => Promise<void>;
  /**
   * Present when the client declared elicitation: asks the user to confirm;
   * `words` name the form's checkbox (default: the run confirmation's).
   */
  readonly askUser?: (message: string, words?: ConfirmationWords) => Promise<UserAnswer>;
  /**
   * Reserves the bytes of a large answer (see `src/mcp/answer_budget.ts`),
   * waiting its turn; returns the release for the call's `finally`. Throws
   * `AnswerBudgetBusyError` when the wait timed out.
   */
  readonly holdAnswerBytes?: (bytes: number) => Promise<() => void>;
  /** Present on a 2026-07-28 request: asks through `input_required` instead of elicitation. */
  readonly inputRound?: InputRound;
}

/** One tool. `Input` is what `inputSchema` parses to. */
export interface SkillTool<Input> {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly inputSchema: z.ZodType<Input>;
  readonly outputSchema: z.ZodType;
  /** Behaviour hints; `tools/list` sets their `title` to the tool's `title`. */
  readonly annotations: ToolAnnotations;
  /**
   * The tool's `_meta` in `tools/list` (MCP Apps: `ui.resourceUri` names its
   * view, `ui.visibility` who may call it; see `src/mcp/apps/app_meta.ts`). @default none
   */
  readonly _meta?: Readonly<Record<string, unknown>>;
  /**
   * Answers one call. The result can only come from `toolSuccess` (JSON that
   * conforms to `outputSchema`) or `toolError` (see `src/mcp/tool_result.ts`),
   * or, on a 2026-07-28 request, be an `input_required` result built by
   * `extra.inputRound.ask`.
   */
  readonly call: (
    input: Input,
    context: ToolContext,
    extra?: ToolCallExtra,
  ) => Promise<ToolResult | InputRequiredResult>;
}

/** Annotations of a tool that only reads skills: read-only, idempotent, closed-world. */
export const READ_ONLY_ANNOTATIONS: ToolAnnotations = Object.freeze({
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
});

/**
 * Declares a tool with its input type inferred from the schema.
 *
 * @param tool The tool.
 * @returns The same tool, typed.
 */
export function defineTool<Input>(tool: SkillTool<Input>): SkillTool<Input> {
  return tool;
}
