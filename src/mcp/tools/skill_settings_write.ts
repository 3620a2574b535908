/**
 * `skill_settings_write`: the settings view's one write, app-only. Sets one
 * switch of one skill in `overrides.json`, through the trusted part (the
 * worker cannot write the file). Every refusal comes before anyone is asked;
 * then the user confirms (elicitation, or `input_required` on 2026-07-28); a
 * client that can do neither is refused (`CONFIRMATION_UNAVAILABLE`, naming
 * the `skillgate override` line instead); then the trusted part checks the request
 * again (narrowing, or turning back on what a view turned off) and writes.
 *
 * @module
 */

import * as z from "zod";
import { MAX_CLIENT_NAME_CHARS } from "../../caps.ts";
import type { ViewOverrideRequest } from "../../config/file/view_override_write.ts";
import { OVERRIDE_SWITCHES, type OverrideSwitch, ownEntry } from "../../skills/overrides.ts";
import { appToolMeta, SETTINGS_VIEW_URI } from "../apps/app_meta.ts";
import type { InputRequiredResult } from "../sdk.ts";
import type { ConfirmationWords } from "../elicitation/run_confirmation.ts";
import { toolError, type ToolResult, toolSuccess } from "../tool_result.ts";
import { confirmationRefusal, settingsConfirmer, settingsRefusal } from "./settings_guard.ts";
import { frontmatterTurnsOff } from "./skill_settings.ts";
import { defineTool, type ToolCallExtra, type UserAnswer } from "./tool.ts";

const inputSchema = z.object({
  name: z.string().min(1).max(MAX_CLIENT_NAME_CHARS).describe("The skill's served name"),
  switch: z.enum(OVERRIDE_SWITCHES).describe(
    "enabled (served at all), modelInvocable (in the model's catalog), userInvocable (has a prompt)",
  ),
  value: z.boolean().describe(
    "false turns it off; true turns back on only what a settings view turned off",
  ),
}).strict();

const outputSchema = z.object({
  status: z.enum(["written", "unchanged"]),
  name: z.string(),
  switch: z.enum(OVERRIDE_SWITCHES),
  value: z.boolean(),
});

/** The JSON `skill_settings_write` answers with. */
export type SkillSettingsWriteAnswer = z.infer<typeof outputSchema>;

const WHAT: Record<OverrideSwitch, [string, string]> = {
  enabled: ["Disable", "Enable again"],
  modelInvocable: ["Hide from the model", "Show to the model again"],
  userInvocable: ["Remove the prompt of", "Give back the prompt of"],
};

/** The checkbox of the confirmation form. */
const SETTINGS_WORDS: ConfirmationWords = Object.freeze({
  title: "Make this change",
  description: "Leave checked to write exactly this change to overrides.json",
});

/** The `skill_settings_write` tool (app-only: for the settings view). */
export const skillSettingsWriteTool = defineTool({
  name: "skill_settings_write",
  title: "Change a skill setting",
  description: "For skillgate's settings view only: set one switch of one skill in " +
    "overrides.json after the user confirms. Turning a switch off always narrows; turning " +
    "one back on works only for what a settings view turned off.",
  inputSchema,
  outputSchema,
  annotations: {
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  _meta: appToolMeta(SETTINGS_VIEW_URI, ["app"]),
  call: async (input, context, extra) => {
    const refusal = settingsRefusal(context);
    if (refusal !== null || context.writeOverride === undefined) {
      return toolError("SETTINGS_REFUSED", refusal!.message, refusal!.hint);
    }
    const skill = context.store.base().byName.get(input.name);
    if (skill === undefined) {
      return toolError(
        "SKILL_NOT_FOUND",
        `No skill is named "${input.name}"`,
        "Open the settings view again (skill_settings) for the names served",
      );
    }
    const key = input.switch;
    if (input.value) {
      if (frontmatterTurnsOff(skill, key)) {
        return toolError(
          "FRONTMATTER_SETTING",
          `"${input.name}" turns "${key}" off in its own SKILL.md frontmatter`,
          "Only the skill's author can change that, in the skill's SKILL.md",
        );
      }
      const overlay = context.store.overlay();
      const isOff = ownEntry(overlay.overrides, input.name)?.[key] === false;
      if (isOff && ownEntry(overlay.setByView ?? {}, input.name)?.includes(key) !== true) {
        return toolError(
          "OVERRIDE_OWNED",
          `The owner turned "${key}" off for "${input.name}"; a view may only turn back on ` +
            "what a view turned off",
          "Only the owner can change it, with skillgate override",
        );
      }
    }
    // The skill's folder goes with the name: the trusted part writes a name overrides.json does
    // not hold yet only for a skill folder of that name under the roots (review r14).
    const request: ViewOverrideRequest = {
      name: input.name,
      switch: key,
      value: input.value,
      dir: skill.realDir,
    };
    // No way to ask the user: refused, never written unconfirmed (settings_guard.ts says why).
    const cannotAsk = confirmationRefusal(extra, request);
    if (cannotAsk !== null) {
      return toolError("CONFIRMATION_UNAVAILABLE", cannotAsk.message, cannotAsk.hint);
    }
    const confirmation = await confirm(request, extra);
    if (confirmation !== null) return confirmation;
    const answer = await context.writeOverride(request);
    if (!answer.ok) return toolError(answer.code, answer.message, answer.hint);
    return toolSuccess(
      {
        status: answer.changed ? "written" : "unchanged",
        name: input.name,
        switch: key,
        value: input.value,
      } satisfies SkillSettingsWriteAnswer,
    );
  },
});

/**
 * The question the user is asked.
 *
 * @param request The write.
 * @returns One line.
 */
export function settingsConfirmationMessage(request: ViewOverrideRequest): string {
  const [off, on] = WHAT[request.switch];
  return `${request.value ? on : off} skill "${request.name}"? ` +
    "skillgate writes this to its overrides.json.";
}

/** Asks the user where the client can be asked; null means go ahead. */
async function confirm(
  request: ViewOverrideRequest,
  extra: ToolCallExtra | undefined,
): Promise<ToolResult | InputRequiredResult | null> {
  const round = extra?.inputRound;
  if (round !== undefined && round.state !== undefined) {
    // 2026-07-28 retry: the echoed state must be our token over exactly this write.
    const verdict = await settingsConfirmer.check(round.state, request);
    if (verdict !== "ok") {
      return toolError(
        verdict,
        "The confirmation does not match this change (changed, used or expired)",
        "Make the change again in the settings view",
      );
    }
    return declinedOrNull(request, round.answer ?? "cancel");
  }
  if (round !== undefined && round.canElicit) {
    return round.ask(
      settingsConfirmationMessage(request),
      await settingsConfirmer.issue(request),
      SETTINGS_WORDS,
    );
  }
  if (extra?.askUser !== undefined) {
    let answer: UserAnswer;
    try {
      answer = await extra.askUser(settingsConfirmationMessage(request), SETTINGS_WORDS);
    } catch {
      answer = "cancel";
    }
    return declinedOrNull(request, answer);
  }
  return null;
}

function declinedOrNull(request: ViewOverrideRequest, answer: UserAnswer): ToolResult | null {
  if (answer === "accept") return null;
  return toolError(
    "CONFIRMATION_DECLINED",
    `The user did not agree to change "${request.switch}" of "${request.name}" (${answer})`,
    "Nothing was written; leave it unless the user asks again",
  );
}
