/**
 * The guard of the settings view's write tool, the same as `skill_run`'s:
 * over HTTP without a bearer token any local user could reach the port, so
 * writes are refused whatever the view; and every write is confirmed by the
 * user (elicitation, or `input_required` on 2026-07-28) where the client
 * supports it. The "app-only" visibility of the tool is a hint to the host,
 * not access control: this guard and the trusted part's rules
 * (`src/config/file/view_override_write.ts`) hold whoever calls.
 *
 * @module
 */

import { createConfirmer } from "../../scripts/confirm/confirmer.ts";
import type { ViewOverrideChoice } from "../../config/file/view_override_write.ts";
import type { ToolCallExtra, ToolContext } from "./tool.ts";
import { shellCommand } from "../../cli/shell_quote.ts";

/**
 * `skillgate override`'s flag for each switch and value (the same table as
 * `OVERRIDE_FLAGS` in src/cli/override_command.ts, which the worker does not
 * load; tests/mcp/apps/views_test.ts proves they agree).
 */
export const OVERRIDE_FLAG_OF: Readonly<Record<string, string>> = Object.freeze({
  "enabled:false": "--disable",
  "enabled:true": "--enable",
  "modelInvocable:false": "--hide-from-model",
  "modelInvocable:true": "--show-to-model",
  "userInvocable:false": "--no-prompt",
  "userInvocable:true": "--prompt",
});

/** Why writes are refused on a whole server: client-facing, and what to do. */
export interface SettingsRefusal {
  readonly message: string;
  readonly hint: string;
}

/** How long a settings confirmation (the 2026-07-28 `requestState`) stays valid, in seconds. */
export const SETTINGS_CONFIRM_TTL_SECONDS = 600;

/**
 * Why this server takes no write from a view, or null.
 *
 * @param context The tool context.
 * @returns The refusal over HTTP without a bearer token, under `--no-config`
 *   (no overrides.json) or `--static` (nothing changes while serving), or
 *   where no writer exists (no trusted part to ask); null otherwise.
 *
 * Source: issue 20 ("guarded like skill_run: refused over HTTP without a token").
 */
export function settingsRefusal(context: ToolContext): SettingsRefusal | null {
  const config = context.config;
  if (config !== undefined && config.options.http !== null && config.httpToken === null) {
    return {
      message: "Settings cannot be changed over HTTP without a bearer token " +
        "(SKILLGATE_HTTP_TOKEN or --http-token-file): any local user can reach a loopback port",
      hint: "Ask the server's owner to set a token, or to use skillgate override",
    };
  }
  // The trusted part refuses these writes anyway (view_override_write.ts); said here, before
  // the user is asked to confirm a change that cannot be written, and in skill_settings.
  if (config !== undefined && (config.options.noConfig || config.options.static)) {
    const name = config.options.noConfig ? "--no-config" : "--static";
    return {
      message: `skillgate runs with ${name}, so a view's change cannot be written or put in force`,
      hint: "Ask the server's owner to use skillgate override, then restart skillgate",
    };
  }
  if (context.writeOverride === undefined) {
    return {
      message: "This server does not take settings from a view",
      hint: "Ask the server's owner to use skillgate override",
    };
  }
  return null;
}

/**
 * Why this client's call cannot write: it cannot ask the user (no
 * elicitation, and on 2026-07-28 no `input_required` round), or null.
 *
 * A confirmToken round trip (as `skill_run` offers) was weighed and not
 * taken: without a channel to the user, whoever made the first call (a
 * prompt-injected model included; "app only" visibility is a hint) can make
 * the second, so the token would confirm nothing while the write persists
 * in the owner's overrides.json. The owner keeps a way that needs no client:
 * `skillgate override` at a terminal.
 *
 * @param extra The call's extra, or undefined when not known (a view's page
 *   built outside a call): then null.
 * @param request The write asked for, when known: the hint then gives the
 *   exact command. @default the general form
 * @returns The refusal, naming the command line that does the same.
 *
 * Source: newcomer 7's finding "skill_settings_write persists ... with no
 * confirmation when the client lacks elicitation".
 */
export function confirmationRefusal(
  extra: ToolCallExtra | undefined,
  request?: ViewOverrideChoice,
): SettingsRefusal | null {
  if (extra === undefined) return null;
  if (extra.askUser !== undefined || extra.inputRound?.canElicit === true) return null;
  if (extra.inputRound?.state !== undefined) return null;
  const flag = request === undefined
    ? undefined
    : OVERRIDE_FLAG_OF[`${request.switch}:${request.value}`];
  const command = request === undefined || flag === undefined
    ? "skillgate override NAME --disable (or --hide-from-model, --no-prompt)"
    // Single-quoted for a POSIX shell: a skill's author picks its name (`e$(id)f`).
    : shellCommand(["skillgate", "override", request.name, flag]);
  return {
    message: "This client cannot ask the user to confirm a change (it declares no elicitation), " +
      "so a view's change is not written",
    hint: `Ask the server's owner to run at a terminal: ${command}`,
  };
}

/**
 * The confirmer of settings writes on 2026-07-28 (the `requestState` of the
 * `input_required` round is an HMAC token over the exact write, single use,
 * expiring; a random key per process).
 */
export const settingsConfirmer = createConfirmer({
  secret: null,
  ttlSeconds: SETTINGS_CONFIRM_TTL_SECONDS,
});
